// Bundles the extension into one file, dist/extension.js, with
// vscode-languageclient and what it needs inside, as VS Code's guide
// "Bundling Extensions" recommends: one file loads faster than the
// hundreds of node_modules, which the .vsix then leaves out. `vscode` is
// the editor's own module, given at run time, so it stays a require.
// Types are checked by tsc (npm run compile): esbuild only strips them.
//
//   node esbuild.js    writes dist/extension.js, minified
'use strict';
const esbuild = require('esbuild');

// options are the bundle's; test/extension.test.js builds the same with
// vscode-languageclient left out too, to load it beside its stub.
const options = {
	absWorkingDir: __dirname,
	entryPoints: ['src/extension.ts'],
	outfile: 'dist/extension.js',
	bundle: true,
	external: ['vscode'],
	format: 'cjs',
	platform: 'node',
	target: 'node20',
	minify: true,
	logLevel: 'warning',
};

module.exports = { options };

if (require.main === module) {
	esbuild.build(options).catch(() => process.exit(1));
}
