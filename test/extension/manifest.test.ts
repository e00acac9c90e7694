/** The manifest (package.json) against the extension contract in DESIGN.md and the code that uses it. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { DEFAULT_SETTINGS, TRACKED_SETTINGS } from "../../extension/settings";

const root = path.resolve(__dirname, "..", "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const sources = fs
  .readdirSync(path.join(root, "extension"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => fs.readFileSync(path.join(root, "extension", f), "utf8"))
  .join("\n");

describe("package.json", () => {
  it("declares the contract's container, view, commands and settings", () => {
    const c = manifest.contributes;
    assert.deepEqual(c.viewsContainers.activitybar.map((v: { id: string; title: string }) => [v.id, v.title]), [["hdecomp", "Decomposition"]]);
    assert.deepEqual(c.views.hdecomp.map((v: { id: string }) => v.id), ["hdecomp.levels"]);
    const commands = c.commands.map((x: { command: string }) => x.command);
    for (const id of ["hdecomp.decompose", "hdecomp.verifyStep", "hdecomp.runPipeline", "hdecomp.restart", "hdecomp.showLogs", "hdecomp.debugInfo", "hdecomp.runSelfTest", "hdecomp.openRefactored", "hdecomp.openStepResult"]) {
      assert.ok(commands.includes(id), id);
    }
    assert.deepEqual(Object.keys(c.configuration.properties).sort(), [...TRACKED_SETTINGS].sort());
    assert.equal(c.configuration.properties["hdecomp.verify.numTrials"].default, DEFAULT_SETTINGS.verify.numTrials);
    assert.equal(c.configuration.properties["hdecomp.verify.device"].default, DEFAULT_SETTINGS.verify.device);
  });

  it("registers a handler for every contributed command and contributes every registered one", () => {
    const registered = [...sources.matchAll(/register\("(hdecomp\.[A-Za-z]+)"/g)].map((m) => m[1]).sort();
    const contributed = manifest.contributes.commands.map((x: { command: string }) => x.command).sort();
    assert.deepEqual(registered, contributed);
  });

  it("declares limited support in untrusted workspaces with the interpreter restricted", () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, "limited");
    assert.deepEqual(trust.restrictedConfigurations, ["hdecomp.interpreter"]);
  });

  it("offers Decompose a model… in the empty view", () => {
    const welcome = manifest.contributes.viewsWelcome.filter((w: { view: string }) => w.view === "hdecomp.levels");
    assert.ok(welcome.some((w: { contents: string }) => w.contents.includes("(command:hdecomp.decompose)")));
  });

  it("pins every dependency to an exact version", () => {
    for (const [name, version] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      assert.match(String(version), /^\d+\.\d+\.\d+$/, name);
    }
  });
});
