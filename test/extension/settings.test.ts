import * as assert from "node:assert/strict";
import { describe, it } from "node:test";

import { affectsServer, DEFAULT_SETTINGS, normalizeInterpreter, readSettings, TRACKED_SETTINGS, verifyFlags } from "../../extension/settings";

const getter = (values: Record<string, unknown>) => (key: string): unknown => values[key];

describe("readSettings", () => {
  it("returns the documented defaults for an empty configuration", () => {
    assert.deepEqual(readSettings(getter({})), DEFAULT_SETTINGS);
    assert.deepEqual(DEFAULT_SETTINGS, {
      interpreter: [],
      verify: { numTrials: 3, device: "cpu", batchLimit: null, rtol: null, atol: null },
    });
  });

  it("reads every setting into the object the server receives", () => {
    const s = readSettings(
      getter({
        interpreter: ["/w/.venv/bin/python"],
        "verify.numTrials": 5,
        "verify.device": "cuda:1",
        "verify.batchLimit": 1,
        "verify.rtol": 1e-4,
        "verify.atol": 0,
      }),
    );
    assert.deepEqual(s, { interpreter: ["/w/.venv/bin/python"], verify: { numTrials: 5, device: "cuda:1", batchLimit: 1, rtol: 1e-4, atol: 0 } });
    assert.deepEqual(verifyFlags(s.verify), ["--num-trials", "5", "--device", "cuda:1", "--batch-limit", "1", "--rtol", "0.0001", "--atol", "0"]);
  });

  it("falls back to defaults for invalid values instead of failing", () => {
    const s = readSettings(
      getter({ interpreter: 42, "verify.numTrials": 0, "verify.device": " ", "verify.batchLimit": 2.5, "verify.rtol": -1, "verify.atol": "x" }),
    );
    assert.deepEqual(s, DEFAULT_SETTINGS);
  });

  it("accepts the interpreter as a string or a list, dropping empty entries", () => {
    assert.deepEqual(normalizeInterpreter(" /usr/bin/python3 "), ["/usr/bin/python3"]);
    assert.deepEqual(normalizeInterpreter(["uv", "", "run", 3, "python"]), ["uv", "run", "python"]);
    assert.deepEqual(normalizeInterpreter(""), []);
  });
});

describe("affectsServer", () => {
  it("restarts for the interpreter and every verify setting, not for unrelated ones", () => {
    assert.ok(affectsServer((s) => s === "hdecomp.interpreter"));
    assert.ok(affectsServer((s) => s === "hdecomp.verify.batchLimit"));
    assert.ok(!affectsServer((s) => s === "editor.fontSize"));
    assert.equal(TRACKED_SETTINGS.length, 6);
  });
});
