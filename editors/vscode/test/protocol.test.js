// A real round trip with `webhooklint server`, through the transport
// vscode-languageclient uses (vscode-jsonrpc's node streams, LSP's types):
// initialize, open a file with a known finding, read its diagnostics,
// apply the quick fix the server offers, see the finding go, shut down.
//
// The server is $WEBHOOKLINT_BIN, else built from this repository with go
// (skipped when there is no go, except under CI).
'use strict';
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { test, before, after } = require('node:test');
const lsp = require('vscode-languageserver-protocol/node');
const { TextDocument } = require('vscode-languageserver-textdocument');

const repo = path.resolve(__dirname, '..', '..', '..');
let tmp;
let bin;
let skip = false;

before(() => {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooklint-vscode-'));
	bin = process.env.WEBHOOKLINT_BIN;
	if (bin) return;
	bin = path.join(tmp, 'webhooklint');
	const built = cp.spawnSync('go', ['build', '-o', bin, './cmd/webhooklint'], { cwd: repo, stdio: 'inherit' });
	if (built.error && built.error.code === 'ENOENT' && !process.env.CI) {
		skip = 'no go to build webhooklint, and WEBHOOKLINT_BIN is not set';
		return;
	}
	assert.equal(built.status, 0, 'go build ./cmd/webhooklint');
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A webhook whose timeout the API server rejects (timeout-range, whose
// fix clamps it to 30).
const webhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
webhooks:
- name: validate.demo.example.com
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: ["v1"]
  timeoutSeconds: 31
  clientConfig:
    url: https://demo.example.com/validate
  rules:
  - apiGroups: ["apps"]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [deployments]
    scope: Namespaced
`;

// withTimeout fails a step that the server never answers, instead of
// hanging until node:test's own timeout.
function withTimeout(what, promise, ms = 60000) {
	let timer;
	return Promise.race([
		promise.finally(() => clearTimeout(timer)),
		new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no ${what} in ${ms} ms`)), ms); }),
	]);
}

test('initialize, diagnostics with rule and doc link, quick fix, shutdown and exit', async (t) => {
	if (skip) return t.skip(skip);
	const root = path.join(tmp, 'repo');
	fs.mkdirSync(root);
	const file = path.join(root, 'webhook.yaml');
	fs.writeFileSync(file, webhook);
	const uri = pathToFileURL(file).href;

	const server = cp.spawn(bin, ['server'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, WEBHOOKLINT_CACHE: 'off' } });
	let stderr = '';
	server.stderr.on('data', (d) => { stderr += d; });
	const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
	const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(server.stdout), new lsp.StreamMessageWriter(server.stdin));
	const logs = [];
	conn.onNotification(lsp.LogMessageNotification.type, (p) => logs.push(p.message));
	const registrations = [];
	conn.onRequest(lsp.RegistrationRequest.type, (p) => { registrations.push(...p.registrations); return null; });
	const published = [];
	let onPublish = () => {};
	conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => { published.push(p); onPublish(); });
	const diagnosticsOf = (version) => withTimeout(`diagnostics of version ${version}`, new Promise((resolve) => {
		const check = () => {
			const p = published.findLast((x) => x.uri === uri);
			if (p && p.version >= version) resolve(p);
		};
		onPublish = check;
		check();
	}));
	conn.listen();
	t.after(() => { conn.dispose(); server.kill(); });

	const init = await withTimeout('initialize result', conn.sendRequest(lsp.InitializeRequest.type, {
		processId: process.pid,
		rootUri: pathToFileURL(root).href,
		workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'repo' }],
		capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
	}));
	assert.equal(init.serverInfo.name, 'webhooklint');
	assert.deepEqual(init.capabilities.codeActionProvider, { codeActionKinds: ['quickfix'] });
	assert.equal(init.capabilities.textDocumentSync.change, lsp.TextDocumentSyncKind.Incremental);
	await conn.sendNotification(lsp.InitializedNotification.type, {});

	let doc = TextDocument.create(uri, 'yaml', 1, webhook);
	await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
		textDocument: { uri, languageId: 'yaml', version: 1, text: webhook },
	});
	const first = await diagnosticsOf(1);
	const d = first.diagnostics.find((x) => x.code === 'timeout-range');
	assert.ok(d, `no timeout-range diagnostic in ${JSON.stringify(first.diagnostics)} (logs: ${logs})`);
	assert.equal(d.severity, lsp.DiagnosticSeverity.Error);
	assert.equal(d.source, 'webhooklint');
	assert.equal(d.codeDescription.href, 'https://github.com/webhooklint/webhooklint/blob/main/docs/rules/timeout-range.md');
	assert.deepEqual(d.range, { start: { line: 9, character: 18 }, end: { line: 9, character: 20 } });
	assert.equal(doc.getText(d.range), '31');

	const actions = await withTimeout('code actions', conn.sendRequest(lsp.CodeActionRequest.type, {
		textDocument: { uri }, range: d.range, context: { diagnostics: [d], only: ['quickfix'] },
	}));
	const titles = actions.map((a) => a.title);
	const fix = actions.find((a) => a.title.startsWith('set timeoutSeconds to 30'));
	assert.ok(fix, `no fix among ${JSON.stringify(titles)}`);
	assert.equal(fix.kind, 'quickfix');
	assert.ok(!fix.isPreferred, 'the clamp changes behaviour (unsafe): not preferred');
	assert.ok(titles.includes('Suppress timeout-range on this line (webhooklint:ignore)'), JSON.stringify(titles));

	// What VS Code does with the chosen action: apply its edit to the
	// buffer and send the change (incremental, as the server asked).
	const edits = fix.edit.changes[uri];
	const text = TextDocument.applyEdits(doc, edits);
	assert.match(text, /timeoutSeconds: 30\n/);
	doc = TextDocument.update(doc, edits.map((e) => ({ range: e.range, text: e.newText })), 2);
	await conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
		textDocument: { uri, version: 2 },
		contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })),
	});
	const second = await diagnosticsOf(2);
	assert.deepEqual(second.diagnostics.filter((x) => x.code === 'timeout-range'), [], 'the fix left its finding');
	assert.equal(doc.getText(), text);

	await conn.sendNotification(lsp.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
	await withTimeout('shutdown result', conn.sendRequest(lsp.ShutdownRequest.type));
	await conn.sendNotification(lsp.ExitNotification.type);
	assert.equal(await withTimeout('exit', exited), 0, `exit status after shutdown and exit (stderr: ${stderr})`);
	assert.ok(registrations.some((r) => r.method === 'workspace/didChangeWatchedFiles'), 'the server asks to watch files');
	assert.equal(stderr, '');
});
