import * as assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  buildTrees,
  findRootFor,
  normalizeStatus,
  refactoredFileOf,
  replacementPairOf,
  statusCounts,
  tooltipMarkdown,
  type TreesResponse,
} from "../../extension/treeModel";

/** A payload in the `hdecomp/trees` shape: model -> layer -> fusion -> 2 kernels, plus a shared kernel. */
function payload(): TreesResponse {
  const node = (id: string, level: number, levelName: string, children: string[], status: string, extra = {}) => ({
    id,
    name: id,
    level,
    levelName,
    path: `/w/out/tiny/level_${level}_${levelName}/${id}.py`,
    children,
    inputShapes: { x: [2, 8] },
    outputShapes: { output: [2, 4] },
    inputDtypes: { x: "float32" },
    outputDtypes: { output: "float32" },
    status,
    stepDir: null,
    resultFile: null,
    ...extra,
  });
  return {
    trees: [
      {
        root: "/w/out/tiny",
        treeFile: "/w/out/tiny/decomposition_tree.json",
        modelName: "tiny_mlp",
        rootId: "tiny_mlp",
        nodes: [
          node("tiny_mlp", 3, "model", ["block", "relu_fp32"], "pass", {
            stepDir: "/w/out/tiny/steps/step_1_tiny_mlp",
            resultFile: "/w/out/tiny/steps/step_1_tiny_mlp/verification_result.json",
          }),
          node("block", 2, "layer", ["linear_relu"], "fail", { stepDir: "/w/out/tiny/steps/step_2_block/" }),
          node("linear_relu", 1, "fusion", ["linear_8x16_fp32", "relu_fp32"], "unverified"),
          node("linear_8x16_fp32", 0, "kernel", [], "pass"),
          node("relu_fp32", 0, "kernel", [], "weird-status"),
        ],
      },
    ],
  };
}

describe("buildTrees", () => {
  it("builds model -> layer -> fusion -> kernel with labels and levels", () => {
    const { roots, warnings } = buildTrees(payload());
    assert.deepEqual(warnings, []);
    assert.equal(roots.length, 1);
    const root = roots[0];
    assert.equal(root.label, "tiny_mlp");
    assert.equal(root.description, "L3 model");
    assert.deepEqual(root.children.map((c) => c.label), ["block", "relu_fp32"]);
    const fusion = root.children[0].children[0];
    assert.equal(fusion.levelName, "fusion");
    assert.deepEqual(fusion.children.map((c) => [c.label, c.level, c.description]), [
      ["linear_8x16_fp32", 0, "L0 kernel"],
      ["relu_fp32", 0, "L0 kernel"],
    ]);
  });

  it("shows a profiled node's share of the model's time in its description", () => {
    const p = payload();
    for (const n of p.trees[0].nodes) {
      if (n.id === "linear_8x16_fp32") n.shareOfModel = 0.1234;
      if (n.id === "relu_fp32") n.shareOfModel = null;
    }
    const fusion = buildTrees(p).roots[0].children[0].children[0];
    assert.deepEqual(fusion.children.map((c) => c.description), ["L0 kernel · 12.3 % of time", "L0 kernel"]);
  });

  it("marks a replaced kernel: description, icon, context value and which file replaces it in the tooltip", () => {
    const p = payload();
    const replacement = "/w/out/tiny/replacements/linear_8x16_fp32/linear_8x16_fp32_new.py";
    for (const n of p.trees[0].nodes) {
      if (n.id === "linear_8x16_fp32") {
        n.replacement = { replacement, resultFile: "/w/out/tiny/replacements/linear_8x16_fp32/replacement_result.json", speedup: 1.8449, modelSpeedup: 1.1234 };
      }
      if (n.id === "relu_fp32") n.replacement = { replacement: null, resultFile: null, speedup: null, modelSpeedup: null };
    }
    const [linear, relu] = buildTrees(p).roots[0].children[0].children[0].children;
    assert.equal(linear.description, "L0 kernel · replaced 1.84×");
    assert.match(linear.tooltip, /Replaced by `\/w\/out\/tiny\/replacements\/linear_8x16_fp32\/linear_8x16_fp32_new\.py` — kernel speedup 1\.84×, model speedup 1\.12×/);
    assert.deepEqual(linear.icon, { id: "zap", color: "testing.iconPassed" });
    assert.equal(linear.contextValue, "node file kernel replaced status-pass");
    assert.equal(linear.replacement?.modelSpeedup, 1.1234);
    // without timings: still marked, no numbers
    assert.equal(relu.description, "L0 kernel · replaced");
    assert.match(relu.tooltip, /\nReplaced\n|\nReplaced$/);
    // an unreplaced kernel keeps its status icon and says nothing of replacements
    const plain = buildTrees(payload()).roots[0].children[0].children[0].children[0];
    assert.equal(plain.description, "L0 kernel");
    assert.doesNotMatch(plain.tooltip, /Replaced/);
    assert.deepEqual(plain.icon, { id: "pass-filled", color: "testing.iconPassed" });
    assert.equal(plain.contextValue, "node file kernel status-pass");
    assert.equal(plain.replacement, null);
  });

  it("gives a shared kernel a distinct key under each parent and links parents", () => {
    const { roots, byKey } = buildTrees(payload());
    const underRoot = roots[0].children[1];
    const underFusion = roots[0].children[0].children[0].children[1];
    assert.equal(underRoot.nodeId, underFusion.nodeId);
    assert.notEqual(underRoot.key, underFusion.key);
    assert.equal(byKey.get(underFusion.parentKey as string)?.nodeId, "linear_relu");
    assert.equal(roots[0].parentKey, undefined);
  });

  it("maps statuses to coloured theme icons, unknown status to not verified", () => {
    const root = buildTrees(payload()).roots[0];
    assert.deepEqual(root.icon, { id: "pass-filled", color: "testing.iconPassed" });
    assert.deepEqual(root.children[0].icon, { id: "error", color: "testing.iconFailed" });
    assert.equal(root.children[1].status, "unverified");
    assert.deepEqual(root.children[1].icon, { id: "circle-large-outline", color: "testing.iconUnset" });
    assert.equal(normalizeStatus("ERROR"), "error");
    assert.equal(normalizeStatus(undefined), "unverified");
  });

  it("sets context values the menus match on", () => {
    const root = buildTrees(payload()).roots[0];
    assert.equal(root.contextValue, "node root step file result status-pass");
    assert.equal(root.children[0].contextValue, "node step file status-fail");
    assert.equal(root.children[0].children[0].contextValue, "node file status-unverified");
  });

  it("puts shapes and dtypes in the tooltip", () => {
    const root = buildTrees(payload()).roots[0];
    assert.match(root.tooltip, /level 3 \(model\)/);
    assert.match(root.tooltip, /\| x \| `\[2, 8\]` \| float32 \|/);
    assert.match(root.tooltip, /\| output \| `\[2, 4\]` \| float32 \|/);
    assert.match(root.tooltip, /verified: PASS/);
    const bare = tooltipMarkdown({ id: "k", name: "k", level: 0, levelName: "kernel", path: null, children: [] }, "unverified");
    assert.doesNotMatch(bare, /\| tensor \|/);
  });

  it("survives a missing rootId, unknown children and cycles, with warnings", () => {
    const p = payload();
    p.trees[0].rootId = "nope";
    p.trees[0].nodes[2].children.push("ghost", "block");
    const { roots, warnings } = buildTrees(p);
    assert.equal(roots[0].nodeId, "tiny_mlp");
    assert.equal(warnings.length, 3);
    assert.ok(warnings.some((w) => w.includes("ghost")));
    assert.ok(warnings.some((w) => w.includes("cycle")));
  });

  it("returns nothing for an empty or absent payload", () => {
    assert.equal(buildTrees(undefined).roots.length, 0);
    assert.equal(buildTrees({ trees: [] }).roots.length, 0);
  });

  it("adds the relative folder to a root's description", () => {
    const root = buildTrees(payload(), { relativePath: (p) => p.replace("/w/", "") }).roots[0];
    assert.equal(root.description, "L3 model · out/tiny");
  });
});

describe("tree helpers", () => {
  it("counts step statuses", () => {
    assert.deepEqual(statusCounts(buildTrees(payload()).roots[0]), { pass: 1, fail: 1, error: 0, unverified: 0 });
  });

  it("finds the tree holding a result file, the deepest root first, else by model name", () => {
    const p = payload();
    const inner = structuredClone(p.trees[0]);
    inner.root = "/w/out/tiny/nested";
    inner.treeFile = "/w/out/tiny/nested/decomposition_tree.json";
    inner.modelName = "nested";
    p.trees.push(inner);
    const { roots } = buildTrees(p);
    assert.equal(findRootFor(roots, { file: "/w/out/tiny/nested/steps/x/verification_result.json" })?.label, "nested");
    assert.equal(findRootFor(roots, { file: "/w/out/tiny/decomposition_tree.json" })?.label, "tiny_mlp");
    assert.equal(findRootFor(roots, { file: "/elsewhere/x.json", modelName: "nested" })?.label, "nested");
    assert.equal(findRootFor(roots, { file: "/w/out/tinyx/a.json" }), undefined);
  });

  it("pairs a kernel file with its <stem>_new.py replacement, from either file", () => {
    const pair = { kernel: "/w/level_0_kernel/linear_fp32.py", replacement: "/w/level_0_kernel/linear_fp32_new.py" };
    assert.deepEqual(replacementPairOf("/w/level_0_kernel/linear_fp32.py"), pair);
    assert.deepEqual(replacementPairOf("/w/level_0_kernel/linear_fp32_new.py"), pair);
  });

  it("locates a step's refactored.py", () => {
    assert.equal(refactoredFileOf({ stepDir: "/w/steps/step_1/" }), "/w/steps/step_1/refactored.py");
    assert.equal(refactoredFileOf({ stepDir: null }), undefined);
  });
});
