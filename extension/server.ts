/**
 * Starting, stopping and restarting the hdecomp language server (`<interpreter> -m hdecomp_lsp`, stdio)
 * with vscode-languageclient, after checking that the interpreter has hdecomp; and running the server's
 * `hdecomp.server.*` commands with a cancellable progress notification.
 */

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import {
  chooseInstallSource,
  describeInterpreter,
  findOnPath,
  type HdecompCheck,
  type InstallSource,
  installCommand,
  interpretVersionCheck,
  isHdecompCheckout,
  type ProcessResult,
  type ResolvedInterpreter,
  resolveInterpreter,
  SERVER_ARGS,
  VERSION_CHECK_ARGS,
} from "./interpreter";
import { followLogLevel, logBlock } from "./logging";
import { activeInterpreterGetter } from "./pythonExtension";
import { type CommandResult, describeResult, parseCommandResult, subjectOf } from "./results";
import { type HdecompSettings, readSettings, SECTION } from "./settings";
import type { ServerStatus } from "./status";
import { initializationOptions, isAllowed, needsTrust, UNTRUSTED_SUFFIX, untrustedMessage } from "./trust";

export const TREES_REQUEST = "hdecomp/trees";
export const TREES_CHANGED = "hdecomp/treesChanged";

/** Names of the server's commands in human words, for progress titles and notifications. */
const COMMAND_WORDS: Record<string, string> = {
  "hdecomp.server.verifyStep": "Verify step",
  "hdecomp.server.runSelfTest": "Self-test",
  "hdecomp.server.runPipeline": "Pipeline",
  "hdecomp.server.decompose": "Decompose",
  "hdecomp.server.verifyReplacement": "Verify replacement",
  "hdecomp.server.profile": "Profile",
};

function run(command: string[], args: string[], cwd: string | undefined, timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(
      command[0],
      [...command.slice(1), ...args],
      { cwd, timeout: timeoutMs, windowsHide: true, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
      (error, stdout, stderr) => {
        const code = error && typeof (error as NodeJS.ErrnoException).code === "string" ? (error as NodeJS.ErrnoException).code : undefined;
        if (code === "ENOENT" || code === "EACCES") {
          resolve({ exitCode: null, stdout: "", stderr: "", spawnError: `${command[0]}: ${error?.message ?? code}` });
          return;
        }
        resolve({ exitCode: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

function isExecutable(candidate: string): boolean {
  try {
    fs.accessSync(candidate, fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/** hdecomp's own checkout among the workspace folders, the wheels shipped in the extension: see chooseInstallSource. */
function installSource(extensionPath: string): InstallSource {
  let checkout: string | undefined;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    try {
      const text = fs.readFileSync(path.join(folder.uri.fsPath, "pyproject.toml"), "utf8");
      if (isHdecompCheckout(text)) checkout ??= folder.uri.fsPath;
    } catch {
      // no pyproject.toml here
    }
  }
  let wheels: string[] = [];
  try {
    const dir = path.join(extensionPath, "dist", "python");
    wheels = fs.readdirSync(dir).map((f) => path.join(dir, f));
  } catch {
    // packaged without a wheel
  }
  return chooseInstallSource(checkout, wheels);
}

function markUntrusted(lens: vscode.CodeLens): vscode.CodeLens {
  if (!vscode.workspace.isTrusted && lens.command && needsTrust(lens.command.command) && !lens.command.title.endsWith(UNTRUSTED_SUFFIX)) {
    lens.command = { ...lens.command, title: lens.command.title + UNTRUSTED_SUFFIX };
  }
  return lens;
}

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  interpreter: ResolvedInterpreter | undefined;
  check: HdecompCheck | undefined;
  lastError: string | undefined;
  settings: HdecompSettings | undefined;
  private readonly onDidStartEmitter = new vscode.EventEmitter<LanguageClient>();
  /** Fires each time a client is running (first start and every restart). */
  readonly onDidStart = this.onDidStartEmitter.event;
  private readonly onDidSettleEmitter = new vscode.EventEmitter<void>();
  /** Fires after every (re)start attempt, successful or not. */
  readonly onDidSettle = this.onDidSettleEmitter.event;
  private clientSubscriptions: vscode.Disposable[] = [];
  /** Restarts are serialised: a second request waits for the first. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: vscode.LogOutputChannel,
    private readonly status: ServerStatus,
    private readonly extensionPath: string,
  ) {}

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(
      () => this.doRestart(reason),
      () => this.doRestart(reason),
    );
    return this.queue;
  }

  private async doRestart(reason: string): Promise<void> {
    this.channel.info(`(re)starting the server: ${reason}`);
    await this.stop();
    try {
      await this.start();
    } finally {
      this.onDidSettleEmitter.fire();
    }
  }

  private folderScope(): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.workspaceFolders?.[0];
  }

  private async start(): Promise<void> {
    this.status.set("starting", "resolving the interpreter");
    this.lastError = undefined;
    const folder = this.folderScope();
    const config = vscode.workspace.getConfiguration(SECTION, folder?.uri);
    this.settings = readSettings((key) => config.get(key));
    this.interpreter = await resolveInterpreter({
      setting: this.settings.interpreter,
      workspaceFolder: folder?.uri.fsPath,
      pythonExtension: activeInterpreterGetter(folder?.uri),
      findOnPath: (name) => findOnPath(name, process.env.PATH, isExecutable),
      env: process.env,
      homeDir: os.homedir(),
    });
    if (!this.interpreter) {
      this.fail("no Python interpreter found: set hdecomp.interpreter, or put python3 on PATH");
      void this.offerInterpreterFix("hdecomp: no Python interpreter found (hdecomp.interpreter is empty and python3 is not on PATH).");
      return;
    }
    this.channel.info(`interpreter: ${describeInterpreter(this.interpreter)}`);

    this.status.set("starting", "checking hdecomp in the interpreter");
    const result = await run(this.interpreter.command, VERSION_CHECK_ARGS, folder?.uri.fsPath, 60_000);
    this.check = interpretVersionCheck(result);
    if (this.check.kind !== "ok") {
      this.reportBadInterpreter(this.interpreter, this.check, result);
      return;
    }
    this.channel.info(`hdecomp ${this.check.version} found in ${this.interpreter.command.join(" ")}`);

    const trusted = vscode.workspace.isTrusted;
    const serverOptions: ServerOptions = {
      command: this.interpreter.command[0],
      args: [...this.interpreter.command.slice(1), ...SERVER_ARGS],
      transport: TransportKind.stdio,
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
      ],
      outputChannel: this.channel,
      traceOutputChannel: this.channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(this.settings, trusted),
      // No synchronize.fileEvents: the server registers its own watchers (tree and result files).
      middleware: {
        // Lens clicks and code-action commands go through here: same trust check, progress and report
        // as the extension's own commands.
        executeCommand: (command, args) => this.runServerCommand(command, args),
        // In restricted mode the lenses stay (they show the last result) but say that running needs trust.
        provideCodeLenses: async (document, token, next) => (await next(document, token))?.map(markUntrusted),
        resolveCodeLens: async (lens, token, next) => markUntrusted((await next(lens, token)) ?? lens),
      },
    };
    const client = new LanguageClient("hdecomp", "hdecomp language server", serverOptions, clientOptions);
    this.clientSubscriptions.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) this.status.set("ready", this.readyDetail());
        else if (e.newState === State.Stopped && this.client === client && this.status.current === "ready") {
          this.status.set("error", "the server stopped; see the logs");
        }
      }),
    );
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.fail(`the server did not start: ${error instanceof Error ? error.message : String(error)}`);
      void vscode.window
        .showErrorMessage(`hdecomp: the language server did not start (${this.lastError}).`, "Show logs")
        .then((choice) => choice && this.channel.show());
      return;
    }
    this.clientSubscriptions.push(followLogLevel(this.channel, (trace) => client.setTrace(trace)));
    this.status.set("ready", this.readyDetail());
    this.channel.info(`server running${trusted ? "" : " (untrusted workspace: static analysis only)"}`);
    this.onDidStartEmitter.fire(client);
  }

  private readyDetail(): string {
    const version = this.check?.kind === "ok" ? `hdecomp ${this.check.version}` : "hdecomp";
    const trust = vscode.workspace.isTrusted ? "" : " · untrusted: static analysis only";
    return `${version} · ${this.interpreter?.command.join(" ") ?? "?"}${trust}`;
  }

  private fail(message: string): void {
    this.lastError = message;
    this.channel.error(message);
    this.status.set("error", message);
  }

  private reportBadInterpreter(interpreter: ResolvedInterpreter, check: HdecompCheck, result: ProcessResult): void {
    const where = describeInterpreter(interpreter);
    if (result.stderr.trim()) logBlock(this.channel, result.stderr);
    if (check.kind === "ok") return;
    if (check.kind === "not-runnable") {
      this.fail(`cannot run ${where}: ${check.detail}`);
      void this.offerInterpreterFix(`hdecomp: cannot run the interpreter ${where}: ${check.detail}`);
      return;
    }
    const install = installCommand(interpreter.command, installSource(this.extensionPath));
    const problem =
      check.kind === "missing"
        ? `hdecomp is not installed in ${where}`
        : `hdecomp ${check.version} in ${where} is older than ${check.minimum}`;
    this.fail(`${problem}; run: ${install}`);
    void vscode.window
      .showErrorMessage(`${problem}. Run: ${install}`, "Run install in terminal", "Choose interpreter…", "Show logs")
      .then((choice) => {
        if (choice === "Run install in terminal") {
          const terminal = vscode.window.createTerminal({ name: "hdecomp install", cwd: this.folderScope()?.uri });
          terminal.show();
          terminal.sendText(install);
          void vscode.window
            .showInformationMessage("hdecomp: when the install has finished, restart the server.", "Restart server")
            .then((again) => again && this.restart("hdecomp installed"));
        } else if (choice === "Choose interpreter…") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "hdecomp.interpreter");
        } else if (choice === "Show logs") {
          this.channel.show();
        }
      });
  }

  private async offerInterpreterFix(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Choose interpreter…", "Show logs");
    if (choice === "Choose interpreter…") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "hdecomp.interpreter");
    } else if (choice === "Show logs") {
      this.channel.show();
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientSubscriptions.forEach((d) => d.dispose());
    this.clientSubscriptions = [];
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.channel.warn(`stopping the server: ${error instanceof Error ? error.message : String(error)}`);
      }
      await client.dispose();
    }
    this.status.set("stopped");
  }

  /** Sends a request to the running server; undefined when it is not running or does not know it. */
  async request<R>(method: string, params: unknown): Promise<R | undefined> {
    const client = this.client;
    if (!client || client.state !== State.Running) return undefined;
    try {
      return await client.sendRequest<R>(method, params);
    } catch (error) {
      this.channel.warn(`${method} failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /**
   * Runs one `hdecomp.server.*` command: refused in an untrusted workspace; a cancellable progress
   * notification (cancel -> $/cancelRequest -> the server kills the subprocess); the result in the log
   * and as a notification. Returns undefined when it could not run at all.
   */
  async runServerCommand(command: string, args: unknown[], subject?: string): Promise<CommandResult | undefined> {
    const about = subject ?? subjectOf(command, args);
    const what = `${COMMAND_WORDS[command] ?? command}${about ? ` ${about}` : ""}`;
    if (!isAllowed(command, vscode.workspace.isTrusted)) {
      const choice = await vscode.window.showWarningMessage(untrustedMessage(what), "Manage Workspace Trust");
      if (choice) await vscode.commands.executeCommand("workbench.trust.manage");
      return undefined;
    }
    const client = this.client;
    if (!client || client.state !== State.Running) {
      const choice = await vscode.window.showErrorMessage(
        `hdecomp: the language server is not running${this.lastError ? ` (${this.lastError})` : ""}.`,
        "Restart server",
        "Show logs",
      );
      if (choice === "Restart server") await this.restart("requested after a failed command");
      else if (choice === "Show logs") this.channel.show();
      return undefined;
    }
    this.channel.info(`${what}: ${command} ${JSON.stringify(args)}`);
    const done = this.status.beginBusy();
    let raw: unknown;
    try {
      raw = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `hdecomp: ${what}`, cancellable: true },
        (_progress, token) => client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token),
      );
    } catch (error) {
      raw = { status: "ERROR", exitCode: 2, summary: error instanceof Error ? error.message : String(error), resultFile: null };
    } finally {
      done();
    }
    const result = parseCommandResult(raw);
    const report = describeResult(what, result);
    if (result.status === "PASS") this.channel.info(report.logLine);
    else if (result.status === "FAIL") this.channel.warn(report.logLine);
    else this.channel.error(report.logLine);
    const buttons = [...(result.resultFile ? ["Open result"] : []), "Show logs"];
    const show =
      report.severity === "info"
        ? vscode.window.showInformationMessage
        : report.severity === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showErrorMessage;
    void show(`hdecomp: ${report.message}`, ...buttons).then((choice) => {
      if (choice === "Open result" && result.resultFile) {
        void vscode.window.showTextDocument(vscode.Uri.file(result.resultFile));
      } else if (choice === "Show logs") {
        this.channel.show();
      }
    });
    return result;
  }

  dispose(): void {
    void this.stop();
    this.onDidStartEmitter.dispose();
    this.onDidSettleEmitter.dispose();
  }
}
