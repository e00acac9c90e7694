/**
 * The server's state in the status bar: the language status item ({} for Python files: starting / ready /
 * busy / error) and, while the server cannot run (no interpreter, hdecomp missing or too old, the server
 * did not start or stopped), an error item that stays in sight after the notification has been closed or
 * hidden; a click on it checks again (Restart server), which shows the notification again if the problem remains.
 */

import * as vscode from "vscode";

export type ServerState = "stopped" | "starting" | "ready" | "error";

export class ServerStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly alert: vscode.StatusBarItem;
  private state: ServerState = "stopped";
  private detail = "";
  private busy = 0;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem("hdecomp.status", [{ language: "python" }, { pattern: "**/decomposition_tree.json" }]);
    this.item.name = "hdecomp";
    this.item.command = { title: "Show logs", command: "hdecomp.showLogs" };
    this.alert = vscode.window.createStatusBarItem("hdecomp.serverError", vscode.StatusBarAlignment.Left, 100);
    this.alert.name = "hdecomp server error";
    this.alert.text = "$(error) hdecomp: not running";
    this.alert.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    this.alert.command = { title: "Check again", command: "hdecomp.restart" };
    this.render();
  }

  get current(): ServerState {
    return this.state;
  }

  set(state: ServerState, detail = ""): void {
    this.state = state;
    this.detail = detail;
    this.render();
  }

  /** Marks a long command as running until the returned function is called. */
  beginBusy(): () => void {
    this.busy++;
    this.render();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.busy--;
      this.render();
    };
  }

  private render(): void {
    const busy = this.busy > 0 && this.state === "ready";
    const text = busy ? "busy" : this.state;
    this.item.text = `hdecomp: ${text}`;
    this.item.detail = this.detail;
    this.item.busy = this.state === "starting" || busy;
    this.item.severity =
      this.state === "error"
        ? vscode.LanguageStatusSeverity.Error
        : this.state === "stopped"
          ? vscode.LanguageStatusSeverity.Warning
          : vscode.LanguageStatusSeverity.Information;
    if (this.state === "error") {
      this.alert.tooltip = `hdecomp: ${this.detail || "the language server is not running"}\n\nClick to check again (hdecomp: Restart server).`;
      this.alert.accessibilityInformation = { label: `hdecomp: not running: ${this.detail}` };
      this.alert.show();
    } else {
      this.alert.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
    this.alert.dispose();
  }
}
