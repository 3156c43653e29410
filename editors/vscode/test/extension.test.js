// The extension loaded outside VS Code: `vscode` and vscode-languageclient
// are stubs that record what the extension asks of them, so this checks
// how it starts the server (command, arguments, documents) and when it
// starts it again. protocol.test.js talks to a real server.
'use strict';
const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');
const { test, beforeEach } = require('node:test');

let settings; // webhooklint.* as the user set them
let clients; // every LanguageClient made, in order
let commands; // registered commands by name
let configListeners;
let errors; // error messages shown

const vscodeStub = {
	workspace: {
		workspaceFolders: [{ uri: { fsPath: '/work/repo' } }],
		getConfiguration(section) {
			assert.equal(section, 'webhooklint');
			return { get: (key, def) => (key in settings ? settings[key] : def) };
		},
		onDidChangeConfiguration(f) {
			configListeners.push(f);
			return { dispose() {} };
		},
	},
	window: {
		createOutputChannel: (name, opts) => ({ name, opts, dispose() {} }),
		showErrorMessage: (msg) => errors.push(msg),
	},
	commands: {
		registerCommand(name, f) {
			commands[name] = f;
			return { dispose() {} };
		},
	},
};

class LanguageClient {
	constructor(id, name, serverOptions, clientOptions) {
		Object.assign(this, { id, name, serverOptions, clientOptions, started: 0, stopped: 0 });
		clients.push(this);
	}
	async start() {
		this.started++;
		if (settings.startDelay) await new Promise((r) => setTimeout(r, settings.startDelay));
		if (settings.failStart) throw new Error('spawn webhooklint ENOENT');
		this.running = true;
	}
	isRunning() {
		return this.running === true;
	}
	async stop() {
		if (!this.running) throw new Error('Client is not running and can\'t be stopped');
		this.running = false;
		this.stopped++;
	}
}

const load = Module._load;
Module._load = function (request, parent, isMain) {
	if (request === 'vscode') return vscodeStub;
	if (request === 'vscode-languageclient/node') return { LanguageClient };
	return load.call(this, request, parent, isMain);
};
const ext = bundledWithoutClient();

// bundledWithoutClient is the extension as esbuild.js bundles it, but with
// vscode-languageclient left a require too, so that the stub above stands
// in for it (bundle.test.js checks the bundle shipped, client inside).
function bundledWithoutClient() {
	const { options } = require('../esbuild.js');
	const built = require('esbuild').buildSync({ ...options, external: [...options.external, 'vscode-languageclient/node'], write: false });
	const file = path.join(options.absWorkingDir, options.outfile);
	const m = new Module(file, module);
	m.filename = file;
	m.paths = Module._nodeModulePaths(path.dirname(file));
	m._compile(built.outputFiles[0].text, file);
	return m.exports;
}

beforeEach(async () => {
	await ext.deactivate();
	settings = {};
	clients = [];
	commands = {};
	configListeners = [];
	errors = [];
});

const context = () => ({ subscriptions: [] });

test('starts `webhooklint server` from PATH by default, on YAML, JSON and Helm files and the configuration', async () => {
	await ext.activate(context());
	assert.equal(clients.length, 1);
	const c = clients[0];
	assert.equal(c.id, 'webhooklint', 'the id is the settings prefix: webhooklint.trace.server');
	assert.deepEqual(c.serverOptions.run, { command: 'webhooklint', args: ['server'], options: { cwd: '/work/repo' } });
	assert.deepEqual(c.serverOptions.debug, c.serverOptions.run);
	assert.equal(c.serverOptions.run.transport, undefined, 'no transport: the client would append --stdio');
	assert.deepEqual(c.clientOptions.documentSelector, [
		{ scheme: 'file', language: 'yaml' },
		{ scheme: 'file', language: 'json' },
		{ scheme: 'file', language: 'helm' },
		{ scheme: 'file', pattern: '**/.webhooklint.{yaml,yml}' },
	]);
	assert.equal(c.clientOptions.outputChannel.name, 'webhooklint');
	assert.equal(c.started, 1);
	assert.deepEqual(errors, []);
});

test('webhooklint.path and webhooklint.args', () => {
	const cases = [
		[{ path: '/opt/bin/webhooklint', args: ['server'] }, '/opt/bin/webhooklint', ['server']],
		[{ path: './bin/webhooklint', args: ['server'] }, '/work/repo/bin/webhooklint', ['server']],
		[{ path: 'go', args: ['run', './cmd/webhooklint', 'server'] }, 'go', ['run', './cmd/webhooklint', 'server']],
		[{ path: '  ', args: ['server'] }, 'webhooklint', ['server']],
	];
	for (const [s, command, args] of cases) {
		const got = ext.serverExecutable(s, '/work/repo');
		assert.equal(got.command, command, JSON.stringify(s));
		assert.deepEqual(got.args, args, JSON.stringify(s));
	}
	assert.equal(ext.serverExecutable({ path: './bin/webhooklint', args: [] }, undefined).command, './bin/webhooklint',
		'no workspace folder: the path is left to the process');
});

test('a change of webhooklint.path restarts the server; other settings do not', async () => {
	await ext.activate(context());
	const [listener] = configListeners;
	await listener({ affectsConfiguration: (s) => s === 'editor.tabSize' });
	assert.equal(clients.length, 1);
	settings.path = '/opt/bin/webhooklint';
	await listener({ affectsConfiguration: (s) => s === 'webhooklint.path' });
	assert.equal(clients.length, 2);
	assert.equal(clients[0].stopped, 1);
	assert.equal(clients[1].serverOptions.run.command, '/opt/bin/webhooklint');
	await commands['webhooklint.restart']();
	assert.equal(clients.length, 3);
	assert.equal(clients[1].stopped, 1);
	await ext.deactivate();
	assert.equal(clients[2].stopped, 1);
});

test('a server that cannot start is an error message that says what to set', async () => {
	settings.failStart = true;
	settings.path = 'no-such-webhooklint';
	await ext.activate(context());
	assert.equal(errors.length, 1);
	assert.match(errors[0], /could not start `no-such-webhooklint server`.*ENOENT.*webhooklint\.path/);
	await ext.deactivate(); // nothing to stop, and no error
	assert.equal(clients[0].stopped, 0);
});

test('a setting changed while the server starts stops it once started, then starts the new one', async () => {
	settings.startDelay = 20;
	const activated = ext.activate(context());
	settings.path = '/opt/bin/webhooklint';
	const restarted = configListeners[0]({ affectsConfiguration: (s) => s === 'webhooklint.path' });
	await Promise.all([activated, restarted]);
	assert.equal(clients.length, 2);
	assert.equal(clients[0].stopped, 1);
	assert.equal(clients[1].serverOptions.run.command, '/opt/bin/webhooklint');
	assert.ok(clients[1].isRunning());
});
