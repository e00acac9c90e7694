import * as assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  chooseInstallSource,
  compareVersions,
  expandInterpreterSetting,
  expandVariables,
  findOnPath,
  installCommand,
  interpretVersionCheck,
  isHdecompCheckout,
  resolveInterpreter,
  shellQuote,
} from "../../extension/interpreter";

const nothingOnPath = (): undefined => undefined;

describe("resolveInterpreter", () => {
  it("prefers the setting, expanding ${workspaceFolder} and relative paths", async () => {
    const resolved = await resolveInterpreter({
      setting: [".venv/bin/python"],
      workspaceFolder: "/w",
      pythonExtension: async () => "/from/python/ext",
      findOnPath: () => "/usr/bin/python3",
    });
    assert.deepEqual(resolved, { command: ["/w/.venv/bin/python"], source: "setting" });
    const withVar = await resolveInterpreter({ setting: ["${workspaceFolder}/env/bin/python", "-X", "utf8"], workspaceFolder: "/w", findOnPath: nothingOnPath });
    assert.deepEqual(withVar?.command, ["/w/env/bin/python", "-X", "utf8"]);
  });

  it("uses the Python extension's interpreter when the setting is empty", async () => {
    const resolved = await resolveInterpreter({ setting: [], pythonExtension: async () => "/envs/a/bin/python", findOnPath: () => "/usr/bin/python3" });
    assert.deepEqual(resolved, { command: ["/envs/a/bin/python"], source: "python-extension" });
  });

  it("falls back to PATH when the Python extension is absent, fails or has no interpreter", async () => {
    const onPath = (name: string): string | undefined => (name === "python3" ? "/usr/bin/python3" : undefined);
    for (const pythonExtension of [undefined, async () => undefined, async (): Promise<string> => { throw new Error("api changed"); }]) {
      assert.deepEqual(await resolveInterpreter({ setting: [], pythonExtension, findOnPath: onPath }), { command: ["/usr/bin/python3"], source: "path" });
    }
    const onlyPython = (name: string): string | undefined => (name === "python" ? "/opt/python" : undefined);
    assert.deepEqual((await resolveInterpreter({ setting: [], findOnPath: onlyPython }))?.command, ["/opt/python"]);
    assert.equal(await resolveInterpreter({ setting: [], findOnPath: nothingOnPath }), undefined);
  });

  it("leaves a bare command name for PATH lookup and keeps absolute paths", () => {
    assert.deepEqual(expandInterpreterSetting(["python3.12"], { workspaceFolder: "/w" }), ["python3.12"]);
    assert.deepEqual(expandInterpreterSetting(["/abs/python"], { workspaceFolder: "/w" }), ["/abs/python"]);
    assert.deepEqual(expandInterpreterSetting(["~/py/bin/python"], { homeDir: "/home/u" }), ["/home/u/py/bin/python"]);
  });

  it("expands ${userHome} and ${env:NAME}", () => {
    assert.equal(expandVariables("${userHome}/x:${env:VENV}", { homeDir: "/h", env: { VENV: "/v" } }), "/h/x:/v");
    assert.equal(expandVariables("${env:MISSING}bin", { env: {} }), "bin");
  });
});

describe("findOnPath", () => {
  it("returns the first executable match in PATH order", () => {
    const exists = new Set(["/b/python3", "/c/python3"]);
    assert.equal(findOnPath("python3", "/a:/b:/c", (p) => exists.has(p), "linux"), "/b/python3");
    assert.equal(findOnPath("python3", undefined, () => true, "linux"), undefined);
  });
});

describe("the hdecomp version check", () => {
  it("accepts a current version", () => {
    assert.deepEqual(interpretVersionCheck({ exitCode: 0, stdout: "0.1.0\n", stderr: "" }), { kind: "ok", version: "0.1.0" });
  });

  it("reports a missing package with the import error", () => {
    const check = interpretVersionCheck({ exitCode: 1, stdout: "", stderr: "Traceback...\nModuleNotFoundError: No module named 'hdecomp'\n" });
    assert.deepEqual(check, { kind: "missing", detail: "ModuleNotFoundError: No module named 'hdecomp'" });
  });

  it("reports a too-old version", () => {
    assert.deepEqual(interpretVersionCheck({ exitCode: 0, stdout: "0.0.9\n", stderr: "" }, "0.1.0"), { kind: "too-old", version: "0.0.9", minimum: "0.1.0" });
  });

  it("reports an interpreter that cannot start or prints nonsense", () => {
    assert.equal(interpretVersionCheck({ exitCode: null, stdout: "", stderr: "", spawnError: "spawn /x ENOENT" }).kind, "not-runnable");
    assert.equal(interpretVersionCheck({ exitCode: 0, stdout: "hello\n", stderr: "" }).kind, "not-runnable");
    assert.equal(interpretVersionCheck({ exitCode: 139, stdout: "", stderr: "Segmentation fault" }).kind, "not-runnable");
  });

  it("compares versions numerically, ignoring suffixes", () => {
    assert.equal(compareVersions("0.10.0", "0.9.9"), 1);
    assert.equal(compareVersions("0.1", "0.1.0"), 0);
    assert.equal(compareVersions("0.1.0rc1", "0.1.0"), 0);
    assert.equal(compareVersions("0.0.1", "0.1.0"), -1);
  });
});

describe("the install command", () => {
  it("installs the workspace checkout editable when the workspace is hdecomp's source", () => {
    assert.equal(installCommand(["/w/.venv/bin/python"], { kind: "checkout", folder: "/w" }, "linux"), "/w/.venv/bin/python -m pip install --upgrade -e /w");
  });

  it("installs from the index otherwise, quoting what the shell would split", () => {
    assert.equal(installCommand(["/my envs/bin/python"], { kind: "index" }, "linux"), "'/my envs/bin/python' -m pip install --upgrade 'hdecomp>=0.1.0'");
    assert.equal(shellQuote("it's", "linux"), "'it'\\''s'");
    assert.equal(shellQuote("C:\\Program Files\\py.exe", "win32"), '"C:\\Program Files\\py.exe"');
  });

  it("installs the wheel shipped in the extension, the newest when several", () => {
    const wheels = ["/ext/dist/python/hdecomp-0.1.0-py3-none-any.whl", "/ext/dist/python/hdecomp-0.10.0-py3-none-any.whl", "/ext/dist/python/README"];
    const source = chooseInstallSource(undefined, wheels);
    assert.deepEqual(source, { kind: "wheel", file: "/ext/dist/python/hdecomp-0.10.0-py3-none-any.whl" });
    assert.equal(installCommand(["python3"], source, "linux"), "python3 -m pip install --upgrade /ext/dist/python/hdecomp-0.10.0-py3-none-any.whl");
    assert.deepEqual(chooseInstallSource("/w", wheels), { kind: "checkout", folder: "/w" });
    assert.deepEqual(chooseInstallSource(undefined, ["/ext/dist/python/other-1.0-py3-none-any.whl"]), { kind: "index" });
  });

  it("recognises hdecomp's own pyproject.toml", () => {
    assert.ok(isHdecompCheckout('[project]\nname = "hdecomp"\nversion = "0.1.0"\n'));
    assert.ok(!isHdecompCheckout('[project]\nname = "hdecomp-plugin"\n'));
  });
});
