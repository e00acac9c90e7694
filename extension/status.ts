/** The language status item ({} in the status bar for Python files): starting / ready / busy / error. */

import * as vscode from "vscode";

export type ServerState = "stopped" | "starting" | "ready" | "error";

export class ServerStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private state: ServerState = "stopped";
  private detail = "";
  private busy = 0;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem("hdecomp.status", [{ language: "python" }, { pattern: "**/decomposition_tree.json" }]);
    this.item.name = "hdecomp";
    this.item.command = { title: "Show logs", command: "hdecomp.showLogs" };
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
  }

  dispose(): void {
    this.item.dispose();
  }
}
