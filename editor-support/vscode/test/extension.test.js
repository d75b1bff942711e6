// The extension's manifest and its activation, without VS Code: package.json declares the
// language client and the server command; extension.js, loaded with stand-ins for the
// `vscode` and `vscode-languageclient/node` modules, starts `drillbook lsp` (or the command
// the settings name) for .drill files; the problem matchers read drillbook's own output.
//
// Run: cd editor-support/vscode && npm ci && npm test   (or node --test test/)
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const EXTENSION = path.resolve(__dirname, '..');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'package.json'), 'utf8'));

// ------------------------------------------------------------------ stand-ins
function fakes(settings = {}) {
  const made = { clients: [], started: 0, tasks: [], commands: {} };
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      made.clients.push({ id, name, serverOptions, clientOptions });
    }
    start() { made.started += 1; return Promise.resolve(); }
    stop() { return Promise.resolve(); }
  }
  const vscode = {
    workspace: {
      getConfiguration: () => ({ get: (key, dflt) => (key in settings ? settings[key] : dflt) }),
      createFileSystemWatcher: (glob) => ({ glob }),
      onDidChangeConfiguration: () => ({ dispose() {} }),
      workspaceFolders: [],
    },
    window: { showErrorMessage: (m) => { made.error = m; } },
    commands: { registerCommand: (name, fn) => { made.commands[name] = fn; return {}; } },
    tasks: { registerTaskProvider: (type, p) => { made.tasks.push(type); return {}; } },
    ShellExecution: class { constructor(command, args, options) { Object.assign(this, { command, args, options }); } },
    Task: class { constructor(definition, scope, name, source, execution, matchers) { Object.assign(this, { definition, scope, name, source, execution, matchers }); } },
    TaskGroup: { Build: 'build', Test: 'test' },
  };
  return { made, vscode, client: { LanguageClient } };
}

function loadExtension(stand) {
  const file = path.join(EXTENSION, 'extension.js');
  delete require.cache[file];
  const original = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return stand.vscode;
    if (request === 'vscode-languageclient/node') return stand.client;
    return original.call(this, request, ...rest);
  };
  try {
    return require(file);
  } finally {
    Module._load = original;
  }
}

// ------------------------------------------------------------------ the manifest
test('package.json declares the language client and the server command', () => {
  assert.match(PACKAGE.dependencies['vscode-languageclient'], /^\^9\./);
  assert.ok(PACKAGE.activationEvents.includes('onLanguage:drillbook'));
  assert.equal(PACKAGE.main, './dist/extension.js');
  assert.match(PACKAGE.scripts.bundle, /esbuild extension\.js --bundle .*--external:vscode .*--outfile=dist\/extension\.js/);
  assert.equal(PACKAGE.scripts['vscode:prepublish'], 'npm run bundle');
  const props = PACKAGE.contributes.configuration.properties;
  assert.equal(props['drillbook.server.command'].default, 'drillbook');
  assert.deepEqual(props['drillbook.server.args'].default, ['lsp']);
});

test('package.json names its license, its repository and ships a LICENSE', () => {
  assert.equal(PACKAGE.license, 'MIT');
  assert.ok(PACKAGE.repository && PACKAGE.repository.url, 'no repository field');
  assert.match(fs.readFileSync(path.join(EXTENSION, 'LICENSE'), 'utf8'), /^MIT License/);
  const ignore = fs.readFileSync(path.join(EXTENSION, '.vscodeignore'), 'utf8').split('\n');
  assert.ok(ignore.includes('test/**'), '.vscodeignore must leave the tests out');
});

// ------------------------------------------------------------------ activation
test('activation starts `drillbook lsp` for .drill files', async () => {
  const stand = fakes();
  const ext = loadExtension(stand);
  await ext.activate({ subscriptions: [] });
  assert.equal(stand.made.clients.length, 1);
  const { id, serverOptions, clientOptions } = stand.made.clients[0];
  assert.equal(id, 'drillbook');
  assert.equal(serverOptions.command, 'drillbook');
  assert.deepEqual(serverOptions.args, ['lsp']);
  assert.deepEqual(clientOptions.documentSelector, [{ scheme: 'file', language: 'drillbook' }]);
  assert.equal(clientOptions.synchronize.fileEvents.glob, '**/*.drill');
  assert.equal(stand.made.started, 1);
  assert.deepEqual(stand.made.tasks, ['drillbook']);
  assert.ok('drillbook.restartServer' in stand.made.commands);
});

test('the drillbook.server.command setting names the command', async () => {
  const stand = fakes({ 'server.command': '/opt/venv/bin/drillbook' });
  const ext = loadExtension(stand);
  await ext.activate({ subscriptions: [] });
  assert.equal(stand.made.clients[0].serverOptions.command, '/opt/venv/bin/drillbook');
  const folder = { uri: { fsPath: '/work/book' } };
  const task = ext.makeTask(folder, { type: 'drillbook', command: 'check', path: 'rulebooks/x' });
  assert.equal(task.execution.command, '/opt/venv/bin/drillbook');
  assert.deepEqual(task.execution.args, ['check', 'rulebooks/x']);
  assert.deepEqual(task.matchers, ['$drillbook']);
  const tests = ext.makeTask(folder, { type: 'drillbook', command: 'test', path: '.' });
  assert.deepEqual(tests.matchers, ['$drillbook', '$drillbook-test']);
});

// ------------------------------------------------------------------ problem matchers
function matcher(name) {
  const m = PACKAGE.contributes.problemMatchers.find((x) => x.name === name);
  assert.ok(m, `no problem matcher ${name}`);
  const pattern = Array.isArray(m.pattern) ? m.pattern[0] : m.pattern;
  return { m, pattern, regexp: new RegExp(pattern.regexp) };
}

test('the $drillbook problem matcher reads a located error of drillbook check', () => {
  const { pattern, regexp } = matcher('drillbook');
  const line = "rulebooks/musket-and-pike/orders.drill:175:60: error[E202]: unknown name 'wing_units_batered'";
  const g = line.match(regexp);
  assert.ok(g, 'no match');
  assert.equal(g[pattern.file], 'rulebooks/musket-and-pike/orders.drill');
  assert.equal(g[pattern.line], '175');
  assert.equal(g[pattern.column], '60');
  assert.equal(g[pattern.severity], 'error');
  assert.equal(g[pattern.code], 'E202');
  assert.equal(g[pattern.message], "unknown name 'wing_units_batered'");
  assert.ok("x.drill:3:1: warning[W501]: exceptions 'a' and 'b' both override 'c'".match(regexp));
  assert.equal('  hint: did you mean it?'.match(regexp), null);
});

test('the $drillbook-test problem matcher reads a failed example', () => {
  const { pattern, regexp } = matcher('drillbook-test');
  const g = 'FAIL  §5.7 house rule: a Charge wing needs 0-4  (variants/harder-rally.drill:12:3)'.match(regexp);
  assert.ok(g, 'no match');
  assert.equal(g[pattern.message], '§5.7 house rule: a Charge wing needs 0-4');
  assert.equal(g[pattern.file], 'variants/harder-rally.drill');
  assert.equal(g[pattern.line], '12');
  assert.equal(g[pattern.column], '3');
});
