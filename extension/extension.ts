/**
 * Entry point: only wires the parts together — log channel, status item, server manager, tree view,
 * commands — and the events that restart the server (settings, the Python extension's interpreter,
 * workspace trust granted).
 */

import * as vscode from "vscode";

import { registerCommands } from "./commands";
import { createLogChannel } from "./logging";
import { onDidChangeActiveInterpreter } from "./pythonExtension";
import { ServerManager, TREES_CHANGED, TREES_REQUEST } from "./server";
import { affectsServer, SECTION } from "./settings";
import { ServerStatus } from "./status";
import type { TreesResponse } from "./treeModel";
import { LevelsView } from "./treeView";

let server: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const channel = createLogChannel();
  const status = new ServerStatus();
  server = new ServerManager(channel, status, context.extensionPath);
  const manager = server;
  const levels = new LevelsView(() => manager.request<TreesResponse>(TREES_REQUEST, {}), channel);
  context.subscriptions.push(channel, status, manager, levels);
  channel.info(`hdecomp ${String(context.extension.packageJSON.version)} activating`);

  registerCommands(context, manager, levels, channel);

  // Each (re)started client: listen for tree changes and load the trees once.
  context.subscriptions.push(
    manager.onDidStart((client) => {
      client.onNotification(TREES_CHANGED, (params: { treeFiles?: string[] } | undefined) => {
        channel.debug(`${TREES_CHANGED}: ${JSON.stringify(params?.treeFiles ?? [])}`);
        void levels.refresh();
      });
      levels.setMessage(undefined);
      void levels.refresh();
    }),
  );

  // Restart on the settings the server was started with (debounced: one edit can touch several keys).
  let pending: NodeJS.Timeout | undefined;
  const restartSoon = (reason: string): void => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      void manager.restart(reason);
    }, 300);
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsServer((setting) => e.affectsConfiguration(setting))) restartSoon(`${SECTION} settings changed`);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      channel.info("workspace trusted: enabling the commands that run model code");
      restartSoon("workspace trust granted");
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => restartSoon("workspace folders changed")),
    { dispose: () => pending && clearTimeout(pending) },
  );
  // Not awaited: the Python extension (when installed) may take a while to activate.
  void onDidChangeActiveInterpreter(() => {
    const setting = vscode.workspace.getConfiguration(SECTION).get<string[]>("interpreter") ?? [];
    if (setting.length === 0) restartSoon("the Python extension's interpreter changed");
  }).then((listener) => listener && context.subscriptions.push(listener));

  context.subscriptions.push(
    manager.onDidSettle(() =>
      levels.setMessage(manager.isRunning ? undefined : `The hdecomp server is not running: ${manager.lastError ?? "see the logs"}.`),
    ),
  );
  // Not awaited: activation finishes at once; the status item shows the server starting.
  void manager.restart("activation");
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
