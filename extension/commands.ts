/**
 * The extension's commands. The ones that run model code (decompose, verify step, self-test, pipeline,
 * verify replacement)
 * call the server's `hdecomp.server.*` commands through `workspace/executeCommand` (ServerManager.
 * runServerCommand: trust check, cancellable progress, result in the log and as a notification); the
 * rest open files, refresh the tree, restart the server and report debug information.
 */

import * as path from "node:path";

import * as vscode from "vscode";

import { describeInterpreter } from "./interpreter";
import { logBlock } from "./logging";
import { isPythonExtensionInstalled } from "./pythonExtension";
import type { ServerManager } from "./server";
import { verifyFlags } from "./settings";
import { type DecompositionItem, refactoredFileOf, replacementPairOf } from "./treeModel";
import type { LevelsView } from "./treeView";
import { isAllowed, untrustedMessage } from "./trust";

function isItem(value: unknown): value is DecompositionItem {
  return typeof value === "object" && value !== null && "nodeId" in value && "treeFile" in value;
}

function asUri(value: unknown): vscode.Uri | undefined {
  if (value instanceof vscode.Uri) return value;
  if (typeof value === "string" && value) return value.includes("://") ? vscode.Uri.parse(value) : vscode.Uri.file(value);
  return undefined;
}

async function refuseUntrusted(command: string, what: string): Promise<boolean> {
  if (isAllowed(command, vscode.workspace.isTrusted)) return false;
  const choice = await vscode.window.showWarningMessage(untrustedMessage(what), "Manage Workspace Trust");
  if (choice) await vscode.commands.executeCommand("workbench.trust.manage");
  return true;
}

/** Verification reads files from disk: save the editor's version first. */
async function saveIfDirty(uri: vscode.Uri): Promise<void> {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty) await doc.save();
}

async function open(file: string | null | undefined, what: string): Promise<void> {
  if (!file) {
    void vscode.window.showWarningMessage(`hdecomp: this node has no ${what}.`);
    return;
  }
  try {
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
  } catch (error) {
    void vscode.window.showErrorMessage(`hdecomp: cannot open ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function registerCommands(
  context: vscode.ExtensionContext,
  server: ServerManager,
  levels: LevelsView,
  channel: vscode.LogOutputChannel,
): void {
  const register = (id: string, handler: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  };

  /** The model file to decompose: the clicked file, else the active Python editor, else one chosen. */
  async function modelToDecompose(arg: unknown): Promise<vscode.Uri | undefined> {
    const given = asUri(arg);
    if (given) return given;
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.languageId === "python" && editor.document.uri.scheme === "file") return editor.document.uri;
    const picked = await vscode.window.showOpenDialog({
      title: "Decompose a model",
      openLabel: "Decompose",
      canSelectMany: false,
      filters: { "Python model": ["py"] },
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    return picked?.[0];
  }

  register("hdecomp.decompose", async (arg?: unknown) => {
    if (await refuseUntrusted("hdecomp.decompose", "Decompose a model")) return;
    const model = await modelToDecompose(arg);
    if (!model) return;
    await saveIfDirty(model);
    const result = await server.runServerCommand("hdecomp.server.decompose", [model.toString()], path.basename(model.fsPath));
    if (!result) return;
    await levels.refresh();
    const modelName = path.basename(model.fsPath, ".py");
    const shown = await levels.reveal({ file: result.resultFile, modelName });
    if (!shown && result.status !== "ERROR") channel.warn(`decompose: no tree found for ${modelName} after the run`);
  });

  /** refactored.py of: a tree node's step, a given file, or the active editor's step folder. */
  async function refactoredToVerify(arg: unknown): Promise<vscode.Uri | undefined> {
    if (isItem(arg)) {
      const file = refactoredFileOf(arg);
      return file ? vscode.Uri.file(file) : undefined;
    }
    const fromEditor = vscode.window.activeTextEditor?.document.uri;
    const uri = asUri(arg) ?? (fromEditor?.scheme === "file" ? fromEditor : undefined);
    if (uri) {
      if (path.basename(uri.fsPath) === "refactored.py") return uri;
      // original.py, weight_map.json or a child of a step: the step's refactored.py
      let dir = path.dirname(uri.fsPath);
      if (path.basename(dir) === "children") dir = path.dirname(dir);
      const candidate = vscode.Uri.file(path.join(dir, "refactored.py"));
      try {
        await vscode.workspace.fs.stat(candidate);
        return candidate;
      } catch {
        // not inside a step
      }
    }
    const steps = levels.provider.roots.flatMap(function collect(item): DecompositionItem[] {
      return [...(item.stepDir ? [item] : []), ...item.children.flatMap(collect)];
    });
    if (steps.length === 0) {
      void vscode.window.showWarningMessage("hdecomp: open a step's refactored.py (or pick a node in the Decomposition view) to verify it.");
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      steps.map((s) => ({ label: s.label, description: `L${s.level} ${s.levelName} · ${s.status}`, detail: s.stepDir ?? "", item: s })),
      { title: "Verify which step?" },
    );
    const file = pick ? refactoredFileOf(pick.item) : undefined;
    return file ? vscode.Uri.file(file) : undefined;
  }

  register("hdecomp.verifyStep", async (arg?: unknown) => {
    if (await refuseUntrusted("hdecomp.verifyStep", "Verify step")) return;
    const refactored = await refactoredToVerify(arg);
    if (!refactored) return;
    await saveIfDirty(refactored);
    await server.runServerCommand("hdecomp.server.verifyStep", [refactored.toString()]);
  });

  register("hdecomp.runSelfTest", async (arg?: unknown) => {
    if (await refuseUntrusted("hdecomp.runSelfTest", "Run self-test")) return;
    const file = isItem(arg) ? (arg.path ? vscode.Uri.file(arg.path) : undefined) : (asUri(arg) ?? vscode.window.activeTextEditor?.document.uri);
    if (!file || file.scheme !== "file") {
      void vscode.window.showWarningMessage("hdecomp: open a component file to run its self-test.");
      return;
    }
    await saveIfDirty(file);
    await server.runServerCommand("hdecomp.server.runSelfTest", [file.toString()]);
  });

  register("hdecomp.runPipeline", async (arg?: unknown) => {
    if (await refuseUntrusted("hdecomp.runPipeline", "Run pipeline")) return;
    let folder: string | undefined;
    if (isItem(arg)) {
      folder = arg.treeRoot;
    } else if (asUri(arg)) {
      const uri = asUri(arg) as vscode.Uri;
      folder = path.basename(uri.fsPath) === "decomposition_tree.json" ? path.dirname(uri.fsPath) : uri.fsPath;
    } else {
      const roots = levels.provider.roots;
      if (roots.length === 1) {
        folder = roots[0].treeRoot;
      } else if (roots.length > 1) {
        const pick = await vscode.window.showQuickPick(
          roots.map((r) => ({ label: r.label, description: vscode.workspace.asRelativePath(r.treeRoot), root: r.treeRoot })),
          { title: "Re-verify every step of which decomposition?" },
        );
        folder = pick?.root;
      } else {
        void vscode.window.showWarningMessage("hdecomp: no decomposition in this workspace yet. Run “hdecomp: Decompose a model…” first.");
      }
    }
    if (!folder) return;
    await server.runServerCommand("hdecomp.server.runPipeline", [vscode.Uri.file(folder).toString()], path.basename(folder));
    await levels.refresh();
  });

  register("hdecomp.verifyReplacement", async (arg?: unknown) => {
    if (await refuseUntrusted("hdecomp.verifyReplacement", "Verify replacement")) return;
    // a kernel node of the tree, a kernel file or its `<stem>_new.py`, else the active editor's file
    const file = isItem(arg) ? arg.path : (asUri(arg) ?? vscode.window.activeTextEditor?.document.uri)?.fsPath;
    if (!file || !file.endsWith(".py")) {
      void vscode.window.showWarningMessage("hdecomp: open a kernel file (or its <kernel>_new.py) to verify its replacement.");
      return;
    }
    const pair = replacementPairOf(file);
    const kernel = vscode.Uri.file(pair.kernel);
    const replacement = vscode.Uri.file(pair.replacement);
    try {
      await vscode.workspace.fs.stat(replacement);
    } catch {
      void vscode.window.showWarningMessage(
        `hdecomp: write ${path.basename(pair.replacement)} (with class ModelNew) beside ${path.basename(pair.kernel)} first.`,
      );
      return;
    }
    await saveIfDirty(kernel);
    await saveIfDirty(replacement);
    await server.runServerCommand("hdecomp.server.verifyReplacement", [kernel.toString(), replacement.toString()]);
    await levels.refresh();
  });

  register("hdecomp.openComponent", (arg?: unknown) => (isItem(arg) ? open(arg.path, "component file") : undefined));
  register("hdecomp.openRefactored", (arg?: unknown) => (isItem(arg) ? open(refactoredFileOf(arg), "step") : undefined));
  register("hdecomp.openStepResult", (arg?: unknown) => (isItem(arg) ? open(arg.resultFile, "verification result yet") : undefined));
  register("hdecomp.refreshTree", () => levels.refresh());
  register("hdecomp.restart", () => server.restart("hdecomp.restart command"));
  register("hdecomp.showLogs", () => channel.show());

  register("hdecomp.debugInfo", async () => {
    const ext = context.extension;
    const effective = await server.request<unknown>("hdecomp/settings", {});
    const s = server.settings;
    const lines = [
      "# hdecomp debug information",
      "",
      `- extension: ${ext.id} ${String(ext.packageJSON.version)} (${context.extensionMode === vscode.ExtensionMode.Production ? "installed" : "development"})`,
      `- editor: ${vscode.env.appName} ${vscode.version} (${vscode.env.appHost}, ${vscode.env.uiKind === vscode.UIKind.Web ? "web" : "desktop"} UI)`,
      `- platform: ${process.platform} ${process.arch}, extension host Node ${process.version}`,
      `- workspace folders: ${(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath).join(", ") || "(none)"}`,
      `- workspace trusted: ${String(vscode.workspace.isTrusted)}${vscode.workspace.isTrusted ? "" : " (static analysis only)"}`,
      `- Python extension installed: ${String(isPythonExtensionInstalled())}`,
      `- interpreter: ${server.interpreter ? describeInterpreter(server.interpreter) : "(none found)"}`,
      `- hdecomp in the interpreter: ${server.check ? (server.check.kind === "ok" ? server.check.version : `${server.check.kind}`) : "(not checked)"}`,
      `- server: ${server.isRunning ? "running" : "not running"}${server.lastError ? ` — ${server.lastError}` : ""}`,
      `- log level: ${vscode.LogLevel[channel.logLevel]}`,
      `- settings: ${JSON.stringify(s)}`,
      `- verify flags: ${s ? verifyFlags(s.verify).join(" ") : "(unknown)"}`,
      `- settings the server uses: ${effective === undefined ? "(not available)" : JSON.stringify(effective)}`,
      `- decompositions in the view: ${levels.provider.roots.map((r) => `${r.label} (${r.treeFile})`).join(", ") || "(none)"}`,
    ];
    const text = lines.join("\n");
    logBlock(channel, text);
    const doc = await vscode.workspace.openTextDocument({ language: "markdown", content: text + "\n" });
    await vscode.window.showTextDocument(doc, { preview: true });
    const copy = await vscode.window.showInformationMessage("hdecomp: debug information shown (also in the logs).", "Copy to clipboard");
    if (copy) await vscode.env.clipboard.writeText(text);
  });
}
