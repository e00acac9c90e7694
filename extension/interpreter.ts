/**
 * Interpreter discovery: which Python runs the hdecomp language server, and whether hdecomp is installed there.
 *
 * Order: the `hdecomp.interpreter` setting, else the Python extension's active interpreter (only when that
 * extension is installed — it is never required), else `python3` / `python` on PATH.
 * Pure: no `vscode` import; the Python extension, PATH lookup and process runs are passed in.
 */

import * as path from "node:path";

export type InterpreterSource = "setting" | "python-extension" | "path";

export interface ResolvedInterpreter {
  /** The command line that starts Python, e.g. ["/w/.venv/bin/python"] or ["uv", "run", "python"]. */
  command: string[];
  source: InterpreterSource;
}

export interface ResolveDeps {
  /** The normalised `hdecomp.interpreter` setting. */
  setting: string[];
  /** The folder relative paths and ${workspaceFolder} refer to. */
  workspaceFolder?: string;
  /** Asks the Python extension for its active interpreter; absent when the extension is not installed. */
  pythonExtension?: () => Promise<string | undefined>;
  /** Full path of an executable found on PATH, or undefined. */
  findOnPath: (name: string) => string | undefined;
  env?: Record<string, string | undefined>;
  homeDir?: string;
}

/** The oldest hdecomp whose `hdecomp_lsp` speaks the protocol this extension expects. */
export const MIN_HDECOMP_VERSION = "0.1.0";

/** Arguments that print hdecomp's version, or fail with ModuleNotFoundError when it is missing. */
export const VERSION_CHECK_ARGS = ["-c", "import hdecomp, sys; print(hdecomp.__version__)"];

/** Arguments that start the language server on stdio. */
export const SERVER_ARGS = ["-m", "hdecomp_lsp"];

/** Replaces ${workspaceFolder}, ${userHome}, ${env:NAME} and a leading ~ in one setting entry. */
export function expandVariables(
  value: string,
  vars: { workspaceFolder?: string; homeDir?: string; env?: Record<string, string | undefined> },
): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (match, name, envName) => {
    if (name === "workspaceFolder") return vars.workspaceFolder ?? match;
    if (name === "userHome") return vars.homeDir ?? match;
    return vars.env?.[envName as string] ?? "";
  });
  if (vars.homeDir && (out === "~" || out.startsWith("~/"))) {
    out = vars.homeDir + out.slice(1);
  }
  return out;
}

/**
 * Makes the interpreter command from the setting runnable: variables expanded, and a relative path
 * in the executable position (`.venv/bin/python`) taken relative to the workspace folder. A bare name
 * (`python3`) is left for PATH lookup.
 */
export function expandInterpreterSetting(
  setting: string[],
  vars: { workspaceFolder?: string; homeDir?: string; env?: Record<string, string | undefined> },
): string[] {
  const expanded = setting.map((entry) => expandVariables(entry, vars));
  if (expanded.length === 0) return expanded;
  const exe = expanded[0];
  const looksLikePath = exe.includes("/") || exe.includes("\\");
  if (looksLikePath && !path.isAbsolute(exe) && vars.workspaceFolder) {
    expanded[0] = path.join(vars.workspaceFolder, exe);
  }
  return expanded;
}

/** Resolves the interpreter in the documented order; undefined when nothing is found at all. */
export async function resolveInterpreter(deps: ResolveDeps): Promise<ResolvedInterpreter | undefined> {
  if (deps.setting.length > 0) {
    return {
      command: expandInterpreterSetting(deps.setting, {
        workspaceFolder: deps.workspaceFolder,
        homeDir: deps.homeDir,
        env: deps.env,
      }),
      source: "setting",
    };
  }
  if (deps.pythonExtension) {
    try {
      const fromExtension = await deps.pythonExtension();
      if (fromExtension) return { command: [fromExtension], source: "python-extension" };
    } catch {
      // The Python extension is optional: any failure of its API falls through to PATH.
    }
  }
  for (const name of ["python3", "python"]) {
    const found = deps.findOnPath(name);
    if (found) return { command: [found], source: "path" };
  }
  return undefined;
}

/** Finds an executable on a PATH string; `isExecutable` is injected so tests need no real files. */
export function findOnPath(
  name: string,
  pathEnv: string | undefined,
  isExecutable: (candidate: string) => boolean,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!pathEnv) return undefined;
  const separator = platform === "win32" ? ";" : ":";
  const suffixes = platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of pathEnv.split(separator)) {
    if (!dir) continue;
    for (const suffix of suffixes) {
      const candidate = path.join(dir, name + suffix);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** "0.1.0" -> [0, 1, 0]; pre-release and local suffixes ("0.2.0rc1", "0.1.0+dev") are ignored. */
export function parseVersion(text: string): number[] | undefined {
  const match = /^\s*v?(\d+(?:\.\d+)*)/.exec(text);
  return match ? match[1].split(".").map((part) => Number(part)) : undefined;
}

export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a) ?? [];
  const pb = parseVersion(b) ?? [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

export interface ProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
}

export type HdecompCheck =
  | { kind: "ok"; version: string }
  | { kind: "missing"; detail: string }
  | { kind: "too-old"; version: string; minimum: string }
  | { kind: "not-runnable"; detail: string };

/** Interprets the output of `<interpreter> -c "import hdecomp, sys; print(hdecomp.__version__)"`. */
export function interpretVersionCheck(result: ProcessResult, minimum = MIN_HDECOMP_VERSION): HdecompCheck {
  if (result.spawnError) return { kind: "not-runnable", detail: result.spawnError };
  const lastError = result.stderr.trim().split(/\r?\n/).pop() ?? "";
  if (result.exitCode !== 0) {
    if (/ModuleNotFoundError|ImportError/.test(result.stderr)) return { kind: "missing", detail: lastError };
    return { kind: "not-runnable", detail: lastError || `exit code ${String(result.exitCode)}` };
  }
  const version = result.stdout.trim().split(/\r?\n/).pop()?.trim() ?? "";
  if (!parseVersion(version)) return { kind: "not-runnable", detail: `unexpected version output "${version}"` };
  if (compareVersions(version, minimum) < 0) return { kind: "too-old", version, minimum };
  return { kind: "ok", version };
}

/** Where hdecomp can be installed from, best first. */
export type InstallSource =
  | { kind: "checkout"; folder: string } // a workspace folder that is the hdecomp source tree
  | { kind: "wheel"; file: string } // the wheel shipped inside the .vsix (dist/python/)
  | { kind: "index" }; // the package index

/** Quotes one argument for the user's shell (POSIX sh, or cmd/PowerShell on Windows). */
export function shellQuote(arg: string, platform: NodeJS.Platform = process.platform): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(arg)) return arg;
  if (platform === "win32") return `"${arg.replace(/"/g, '\\"')}"`;
  return `'${arg.replace(/'/g, "'\\''")}'`;
}

/** The exact command that installs (or upgrades) hdecomp into the given interpreter. */
export function installCommand(
  interpreter: string[],
  source: InstallSource,
  platform: NodeJS.Platform = process.platform,
): string {
  const target =
    source.kind === "checkout" ? ["-e", source.folder] : source.kind === "wheel" ? [source.file] : [`hdecomp>=${MIN_HDECOMP_VERSION}`];
  return [...interpreter, "-m", "pip", "install", "--upgrade", ...target].map((a) => shellQuote(a, platform)).join(" ");
}

/**
 * Where to install from, best first: the workspace when it is hdecomp's own checkout (a developer), else
 * the wheel shipped in the extension (newest version when several), else the package index.
 */
export function chooseInstallSource(checkoutFolder: string | undefined, bundledWheels: readonly string[]): InstallSource {
  if (checkoutFolder) return { kind: "checkout", folder: checkoutFolder };
  const wheels = bundledWheels.filter((f) => /(^|[\\/])hdecomp-[^-/\\]+-.*\.whl$/.test(f));
  if (wheels.length) {
    const version = (f: string): string => /hdecomp-([^-]+)-/.exec(path.basename(f))?.[1] ?? "0";
    const newest = [...wheels].sort((a, b) => compareVersions(version(b), version(a)))[0];
    return { kind: "wheel", file: newest };
  }
  return { kind: "index" };
}

/** True when a pyproject.toml's text declares the `hdecomp` distribution (the repository itself). */
export function isHdecompCheckout(pyprojectText: string): boolean {
  return /^\s*name\s*=\s*["']hdecomp["']/m.test(pyprojectText);
}

/** One line for the logs and the debug information. */
export function describeInterpreter(resolved: ResolvedInterpreter): string {
  const where = { setting: "hdecomp.interpreter setting", "python-extension": "Python extension", path: "PATH" }[
    resolved.source
  ];
  return `${resolved.command.join(" ")} (from the ${where})`;
}
