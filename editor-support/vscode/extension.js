// The drillbook extension: starts `drillbook lsp` (the language server) through
// vscode-languageclient, and offers `drillbook check` and `drillbook test` as tasks whose
// output the `$drillbook` and `$drillbook-test` problem matchers turn into problems.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

// The command line that starts the server, from the settings.
function serverCommand(config) {
  const command = config.get('server.command', 'drillbook') || 'drillbook';
  const args = config.get('server.args', ['lsp']);
  return { command, args: Array.isArray(args) ? args : ['lsp'] };
}

function startClient() {
  const config = vscode.workspace.getConfiguration('drillbook');
  const { command, args } = serverCommand(config);
  const serverOptions = { command, args, options: { env: process.env } };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'drillbook' }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.drill') },
  };
  client = new LanguageClient('drillbook', 'drillbook language server', serverOptions,
    clientOptions);
  return client.start();
}

// One `drillbook check` and one `drillbook test` task per workspace folder that holds a
// rulebook.drill at its top; a tasks.json entry of type "drillbook" may name any path.
function makeTask(folder, definition) {
  const config = vscode.workspace.getConfiguration('drillbook', folder.uri);
  const { command } = serverCommand(config);
  const path = definition.path || '.';
  const execution = new vscode.ShellExecution(command, [definition.command, path],
    { cwd: folder.uri.fsPath });
  const matchers = definition.command === 'test' ? ['$drillbook', '$drillbook-test']
    : ['$drillbook'];
  const task = new vscode.Task(definition, folder, `${definition.command} ${path}`, 'drillbook',
    execution, matchers);
  task.group = definition.command === 'test' ? vscode.TaskGroup.Test : vscode.TaskGroup.Build;
  return task;
}

const taskProvider = {
  async provideTasks() {
    const tasks = [];
    for (const folder of vscode.workspace.workspaceFolders || []) {
      const found = await vscode.workspace.findFiles(
        new vscode.RelativePattern(folder, '**/rulebook.drill'), '**/node_modules/**', 20);
      for (const file of found) {
        const rel = vscode.workspace.asRelativePath(file, false).replace(/\/?rulebook\.drill$/, '');
        for (const command of ['check', 'test']) {
          tasks.push(makeTask(folder, { type: 'drillbook', command, path: rel || '.' }));
        }
      }
    }
    return tasks;
  },
  resolveTask(task) {
    const folder = task.scope && task.scope.uri ? task.scope : undefined;
    return folder ? makeTask(folder, task.definition) : undefined;
  },
};

async function activate(context) {
  context.subscriptions.push(vscode.tasks.registerTaskProvider('drillbook', taskProvider));
  context.subscriptions.push(vscode.commands.registerCommand('drillbook.restartServer',
    async () => {
      if (client) await client.stop();
      await startClient();
    }));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (e) => {
    if (e.affectsConfiguration('drillbook.server') && client) {
      await client.stop();
      await startClient();
    }
  }));
  try {
    await startClient();
  } catch (err) {
    const { command } = serverCommand(vscode.workspace.getConfiguration('drillbook'));
    vscode.window.showErrorMessage(`drillbook: cannot start the language server with ` +
      `'${command} lsp' (${err.message}). Install drillbook (pip install drillbook) or set ` +
      `drillbook.server.command.`);
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverCommand, makeTask, taskProvider };
