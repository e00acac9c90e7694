import * as assert from "node:assert/strict";
import { describe, it } from "node:test";

import { describeResult, parseCommandResult, subjectOf } from "../../extension/results";
import { initializationOptions, isAllowed, needsTrust, untrustedMessage } from "../../extension/trust";

describe("server command results", () => {
  it("parses the contract's result and reports PASS as information", () => {
    const r = parseCommandResult({ status: "PASS", exitCode: 0, summary: "✓ PASS · max diff 2.4e-07 · 3 trials", resultFile: "/s/verification_result.json" });
    assert.deepEqual(r, { status: "PASS", exitCode: 0, summary: "✓ PASS · max diff 2.4e-07 · 3 trials", resultFile: "/s/verification_result.json" });
    const report = describeResult("Verify step step_1", r);
    assert.equal(report.severity, "info");
    assert.equal(report.message, "Verify step step_1: ✓ PASS · max diff 2.4e-07 · 3 trials");
    assert.match(report.logLine, /exit 0.*\[\/s\/verification_result\.json\]/);
  });

  it("reports FAIL as a warning and ERROR as an error, with the summary", () => {
    assert.equal(describeResult("x", parseCommandResult({ status: "FAIL", exitCode: 1, summary: "2 violations", resultFile: null })).severity, "warning");
    const error = describeResult("Decompose m.py", parseCommandResult({ status: "ERROR", exitCode: 2, summary: "ERROR: m.py:3: no class Model", resultFile: null }));
    assert.equal(error.severity, "error");
    assert.equal(error.message, "Decompose m.py: ERROR: m.py:3: no class Model");
  });

  it("turns a malformed or missing result into an ERROR that says so", () => {
    assert.deepEqual(parseCommandResult(null), { status: "ERROR", exitCode: 2, summary: "the server returned no result", resultFile: null });
    assert.equal(parseCommandResult({ status: "MAYBE" }).status, "ERROR");
    assert.equal(parseCommandResult({ status: "FAIL" }).exitCode, 1);
  });

  it("shows a cancelled run as cancelled", () => {
    const report = describeResult("Pipeline out", parseCommandResult({ status: "ERROR", exitCode: -9, summary: "cancelled", resultFile: null }));
    assert.equal(report.message, "Pipeline out: cancelled");
    assert.equal(report.severity, "warning");
  });

  it("names the step of a verify and the file of other commands", () => {
    assert.equal(subjectOf("hdecomp.server.verifyStep", ["file:///w/steps/step_1_tiny/refactored.py"]), "step_1_tiny");
    assert.equal(subjectOf("hdecomp.server.runSelfTest", ["file:///w/level_0_kernel/relu%20fp32.py"]), "relu fp32.py");
    assert.equal(subjectOf("hdecomp.server.runPipeline", []), undefined);
    const kernel = "file:///w/level_0_kernel/linear_fp32.py";
    assert.equal(subjectOf("hdecomp.server.verifyReplacement", [kernel, "file:///w/level_0_kernel/linear_fp32_new.py"]), "linear_fp32_new.py");
  });
});

describe("workspace trust policy", () => {
  it("refuses only the commands that run model code in an untrusted workspace", () => {
    for (const command of ["hdecomp.decompose", "hdecomp.verifyStep", "hdecomp.runPipeline", "hdecomp.runSelfTest", "hdecomp.server.verifyStep", "hdecomp.server.decompose", "hdecomp.verifyReplacement", "hdecomp.server.verifyReplacement", "hdecomp.server.profile"]) {
      assert.ok(needsTrust(command), command);
      assert.ok(!isAllowed(command, false), command);
      assert.ok(isAllowed(command, true), command);
    }
    for (const command of ["hdecomp.restart", "hdecomp.showLogs", "hdecomp.debugInfo", "hdecomp.openComponent"]) {
      assert.ok(isAllowed(command, false), command);
    }
  });

  it("tells the server whether it may run code and says why a command is off", () => {
    assert.deepEqual(initializationOptions({ interpreter: [] }, false), { settings: { interpreter: [] }, trusted: false });
    assert.match(untrustedMessage("Verify step"), /Verify step runs the workspace's model code.*untrusted/);
  });
});
