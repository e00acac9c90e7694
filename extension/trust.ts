/**
 * Workspace trust policy: which commands execute the workspace's model code and so need a trusted
 * workspace. Pure (no `vscode` import) so the policy is unit-tested; extension.ts wires the trust events.
 *
 * In an untrusted workspace the server still runs for static analysis (diagnostics, Extract to child
 * component: pure source reading); it is told `trusted: false` in initializationOptions, and the client
 * refuses these commands itself as well, so an older server cannot run them either.
 */

/** Commands that import or run model code (the extension's own and the server's). */
export const RUNS_MODEL_CODE: ReadonlySet<string> = new Set([
  "hdecomp.decompose",
  "hdecomp.verifyStep",
  "hdecomp.runPipeline",
  "hdecomp.runSelfTest",
  "hdecomp.verifyReplacement",
  "hdecomp.server.decompose",
  "hdecomp.server.verifyStep",
  "hdecomp.server.runPipeline",
  "hdecomp.server.runSelfTest",
  "hdecomp.server.verifyReplacement",
  "hdecomp.server.profile",
]);

export function needsTrust(command: string): boolean {
  return RUNS_MODEL_CODE.has(command);
}

export function isAllowed(command: string, trusted: boolean): boolean {
  return trusted || !needsTrust(command);
}

/** Appended to a lens title whose command needs trust, in restricted mode. */
export const UNTRUSTED_SUFFIX = " (needs a trusted workspace)";

/** The message shown when a command is refused; names what it would have run. */
export function untrustedMessage(what: string): string {
  return (
    `hdecomp: ${what} runs the workspace's model code, so it is disabled in an untrusted workspace. ` +
    "Anti-cheat diagnostics and Extract to child component keep working. Trust the workspace to enable it."
  );
}

/** What the server is told at start (initializationOptions). */
export function initializationOptions(settings: unknown, trusted: boolean): { settings: unknown; trusted: boolean } {
  return { settings, trusted };
}
