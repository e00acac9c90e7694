/**
 * Turning a server command's result ({status, exitCode, summary, resultFile}) into what the user sees:
 * a log line and a notification of the right severity. Pure (no `vscode` import).
 */

export type CommandStatus = "PASS" | "FAIL" | "ERROR";

/** The result of every `hdecomp.server.*` command (DESIGN.md § Language server contract). */
export interface CommandResult {
  status: CommandStatus;
  exitCode: number;
  summary: string;
  resultFile: string | null;
}

export type Severity = "info" | "warning" | "error";

export interface ResultReport {
  severity: Severity;
  /** The notification text. */
  message: string;
  /** The output channel line. */
  logLine: string;
}

/** Accepts whatever the server sent; anything malformed becomes an ERROR that says so. */
export function parseCommandResult(value: unknown): CommandResult {
  if (typeof value !== "object" || value === null) {
    return { status: "ERROR", exitCode: 2, summary: "the server returned no result", resultFile: null };
  }
  const v = value as Record<string, unknown>;
  const status = v.status === "PASS" || v.status === "FAIL" || v.status === "ERROR" ? v.status : "ERROR";
  const exitCode = typeof v.exitCode === "number" ? v.exitCode : status === "PASS" ? 0 : status === "FAIL" ? 1 : 2;
  const summary = typeof v.summary === "string" ? v.summary : "";
  const resultFile = typeof v.resultFile === "string" && v.resultFile ? v.resultFile : null;
  return { status, exitCode, summary, resultFile };
}

/** `what` names the action and its subject, e.g. "Verify step_1_tiny_mlp". */
export function describeResult(what: string, result: CommandResult): ResultReport {
  const severity: Severity = result.status === "PASS" ? "info" : result.status === "FAIL" ? "warning" : "error";
  const summary = result.summary.trim();
  const cancelled = result.status === "ERROR" && summary === "cancelled";
  let message: string;
  if (cancelled) message = `${what}: cancelled`;
  else if (!summary) message = `${what}: ${result.status}`;
  else if (summary.includes(result.status)) message = `${what}: ${summary}`;
  else message = `${what}: ${result.status} — ${summary}`;
  const logLine = `${what} -> ${result.status} (exit ${result.exitCode})${summary ? `: ${summary}` : ""}${
    result.resultFile ? ` [${result.resultFile}]` : ""
  }`;
  return { severity: cancelled ? "warning" : severity, message, logLine };
}

function pathOfUri(value: string): string {
  if (!value.startsWith("file://")) return value;
  try {
    return decodeURIComponent(new URL(value).pathname);
  } catch {
    return value;
  }
}

function baseName(p: string): string {
  const parts = p.replace(/[\\/]+$/, "").split(/[\\/]/);
  return parts[parts.length - 1] ?? p;
}

/**
 * A short name for what a server command acts on: the step folder for verify, the replacement file for verify
 * replacement, else the file/folder name.
 */
export function subjectOf(command: string, args: readonly unknown[]): string | undefined {
  const first = command === "hdecomp.server.verifyReplacement" && typeof args[1] === "string" ? args[1] : args[0];
  if (typeof first !== "string" || !first) return undefined;
  const p = pathOfUri(first);
  if (command === "hdecomp.server.verifyStep") {
    const parts = p.replace(/[\\/]+$/, "").split(/[\\/]/);
    return parts.length >= 2 ? parts[parts.length - 2] : baseName(p);
  }
  return baseName(p);
}
