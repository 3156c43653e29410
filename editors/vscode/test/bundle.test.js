// The bundle the .vsix ships, dist/extension.js (`node esbuild.js`): one
// file, vscode-languageclient inside, that needs nothing from node_modules.
// It requires only `vscode`, which the editor gives it, and Node's own
// modules; it loads with a stand-in for `vscode` and exports what VS Code
// calls. extension.test.js checks what the extension does.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { test } = require('node:test');

const bundle = path.join(__dirname, '..', 'dist', 'extension.js');

test('the bundle requires vscode and Node modules only', () => {
	const text = fs.readFileSync(bundle, 'utf8');
	const required = new Set([...text.matchAll(/\brequire\(\s*(['"`])(.*?)\1\s*\)/g)].map((m) => m[2]));
	assert.ok(required.has('vscode'), `no require("vscode"): the bundle must leave it to the editor (${[...required]})`);
	assert.deepEqual([...required].filter((r) => r !== 'vscode' && !Module.isBuiltin(r)), []);
	// A require of anything but a literal names a module esbuild could
	// not follow, which would be missing from the package.
	assert.doesNotMatch(text, /\brequire\(\s*[^'"`\s]/);
});

test('the bundle loads with vscode alone and exports activate and deactivate', () => {
	// vscode-languageclient extends some of vscode's classes as it loads:
	// each name the stand-in is asked for is an empty class.
	const vscode = new Proxy({}, { get: (classes, name) => (classes[name] ??= class {}) });
	const load = Module._load;
	Module._load = function (request, parent, isMain) {
		if (request === 'vscode') return vscode;
		if (parent?.filename === bundle && !Module.isBuiltin(request)) {
			throw new Error(`the bundle requires ${request}`);
		}
		return load.call(this, request, parent, isMain);
	};
	let ext;
	try {
		ext = require(bundle);
	} finally {
		Module._load = load;
	}
	assert.equal(typeof ext.activate, 'function');
	assert.equal(typeof ext.deactivate, 'function');
});
