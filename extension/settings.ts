/**
 * The extension's settings (the "hdecomp" section) as one typed, validated object.
 *
 * Pure: no `vscode` import. The caller passes a getter (VS Code's WorkspaceConfiguration.get), so the
 * normalisation rules are unit-tested under plain node.
 */

export interface VerifySettings {
  numTrials: number;
  device: string;
  batchLimit: number | null;
  rtol: number | null;
  atol: number | null;
}

/** Exactly the object the server receives as `initializationOptions.settings` (DESIGN.md contract). */
export interface HdecompSettings {
  interpreter: string[];
  verify: VerifySettings;
}

export const SECTION = "hdecomp";

export const DEFAULT_SETTINGS: HdecompSettings = {
  interpreter: [],
  verify: { numTrials: 3, device: "cpu", batchLimit: null, rtol: null, atol: null },
};

/** Settings whose change restarts the server (the server is started with them). */
export const TRACKED_SETTINGS: readonly string[] = [
  "hdecomp.interpreter",
  "hdecomp.verify.numTrials",
  "hdecomp.verify.device",
  "hdecomp.verify.batchLimit",
  "hdecomp.verify.rtol",
  "hdecomp.verify.atol",
];

/** Reads a key relative to the "hdecomp" section, e.g. "verify.numTrials". */
export type SettingGetter = (key: string) => unknown;

function positiveInt(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : fallback;
}

function optionalPositiveInt(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

function optionalTolerance(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * The interpreter setting is a command line (string[]); a plain string is accepted too because people
 * write `"hdecomp.interpreter": "/usr/bin/python3"`. Empty entries are dropped.
 */
export function normalizeInterpreter(value: unknown): string[] {
  if (typeof value === "string") {
    return value.trim() ? [value.trim()] : [];
  }
  if (Array.isArray(value)) {
    return value.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim());
  }
  return [];
}

/** Reads and validates every setting; an invalid value falls back to its default rather than failing. */
export function readSettings(get: SettingGetter): HdecompSettings {
  const device = get("verify.device");
  return {
    interpreter: normalizeInterpreter(get("interpreter")),
    verify: {
      numTrials: positiveInt(get("verify.numTrials"), DEFAULT_SETTINGS.verify.numTrials),
      device: typeof device === "string" && device.trim() ? device.trim() : DEFAULT_SETTINGS.verify.device,
      batchLimit: optionalPositiveInt(get("verify.batchLimit")),
      rtol: optionalTolerance(get("verify.rtol")),
      atol: optionalTolerance(get("verify.atol")),
    },
  };
}

/** True when a configuration change touches a setting the running server was started with. */
export function affectsServer(affects: (setting: string) => boolean): boolean {
  return TRACKED_SETTINGS.some((s) => affects(s));
}

/** The CLI flags equivalent to the verify settings (for logs and the debug information). */
export function verifyFlags(verify: VerifySettings): string[] {
  const flags = ["--num-trials", String(verify.numTrials), "--device", verify.device];
  if (verify.batchLimit != null) flags.push("--batch-limit", String(verify.batchLimit));
  if (verify.rtol != null) flags.push("--rtol", String(verify.rtol));
  if (verify.atol != null) flags.push("--atol", String(verify.atol));
  return flags;
}
