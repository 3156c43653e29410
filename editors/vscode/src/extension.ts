// The webhooklint extension: it starts `webhooklint server` (docs/editors.md)
// and lets vscode-languageclient speak LSP with it. Everything the editor
// shows (diagnostics, quick fixes, the suppression) comes from the server;
// the extension only says how to start it and on which documents.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type DocumentSelector, type Executable, type LanguageClientOptions } from 'vscode-languageclient/node';

export interface Settings {
	path: string;
	args: string[];
}

// The documents the server lints: manifests on disk, which it reads with
// their units (an unsaved new file has none yet), and the configuration.
// `helm` is the language the Kubernetes extension gives chart templates.
export const documentSelector: DocumentSelector = [
	{ scheme: 'file', language: 'yaml' },
	{ scheme: 'file', language: 'json' },
	{ scheme: 'file', language: 'helm' },
	{ scheme: 'file', pattern: '**/.webhooklint.{yaml,yml}' },
];

// serverExecutable is how the server is started. A path with a separator
// is relative to the first workspace folder (a binary the repository
// builds); a bare name is looked up on PATH, as a shell would. No
// transport is named, so vscode-languageclient appends no --stdio: args
// are the user's, whole (a wrapper such as `go run` takes them).
export function serverExecutable(settings: Settings, workspaceFolder: string | undefined): Executable {
	let command = settings.path.trim() || 'webhooklint';
	if (!path.isAbsolute(command) && command.includes('/') && workspaceFolder !== undefined) {
		command = path.resolve(workspaceFolder, command);
	}
	return { command, args: [...settings.args], options: { cwd: workspaceFolder } };
}

function readSettings(): Settings {
	const config = vscode.workspace.getConfiguration('webhooklint');
	return {
		path: config.get<string>('path', 'webhooklint'),
		args: config.get<string[]>('args', ['server']),
	};
}

let client: LanguageClient | undefined;

// Starts and stops run one after the other: a setting changed while the
// server starts stops it once it has started.
let queue: Promise<void> = Promise.resolve();

function enqueue(step: () => Promise<void>): Promise<void> {
	queue = queue.then(step, step);
	return queue;
}

async function start(output: vscode.LogOutputChannel): Promise<void> {
	const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
	const server = serverExecutable(readSettings(), folder);
	const clientOptions: LanguageClientOptions = {
		documentSelector,
		outputChannel: output,
		// The server registers its own file watchers through
		// client/registerCapability (configuration, manifests and
		// kustomizations changed on disk, every path created or deleted),
		// and trusts them between edits: see docs/editors.md.
	};
	// The id is the settings' prefix: webhooklint.trace.server is read by
	// vscode-languageclient itself.
	const c = new LanguageClient('webhooklint', 'webhooklint', { run: server, debug: server }, clientOptions);
	try {
		await c.start();
		client = c;
	} catch (err) {
		const shown = [server.command, ...(server.args ?? [])].join(' ');
		void vscode.window.showErrorMessage(
			`webhooklint: could not start \`${shown}\` (${String(err)}): install webhooklint or set webhooklint.path`);
	}
}

async function stop(): Promise<void> {
	const c = client;
	client = undefined;
	if (c?.isRunning()) {
		await c.stop();
	}
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	const output = vscode.window.createOutputChannel('webhooklint', { log: true });
	context.subscriptions.push(output);
	const restart = () => enqueue(async () => {
		await stop();
		await start(output);
	});
	context.subscriptions.push(vscode.commands.registerCommand('webhooklint.restart', restart));
	context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
		if (e.affectsConfiguration('webhooklint.path') || e.affectsConfiguration('webhooklint.args')) {
			return restart();
		}
	}));
	await enqueue(() => start(output));
}

export function deactivate(): Promise<void> {
	return enqueue(stop);
}
