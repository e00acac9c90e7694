/**
 * The tree of levels as plain data, built from the server's `hdecomp/trees` payload.
 *
 * Pure: no `vscode` import. treeView.ts turns each DecompositionItem into a vscode.TreeItem; everything
 * that can be decided without VS Code (labels, tooltips, icons, context values, parent links) is here,
 * so it is unit-tested under plain node.
 */

export type NodeStatus = "pass" | "fail" | "error" | "unverified";
export type LevelName = "model" | "layer" | "fusion" | "kernel";

/** One node of `hdecomp/trees` (DESIGN.md § Language server contract). */
export interface TreeNodePayload {
  id: string;
  name: string;
  level: number;
  levelName: LevelName | string;
  path: string | null;
  children: string[];
  inputShapes?: Record<string, unknown>;
  outputShapes?: Record<string, unknown>;
  inputDtypes?: Record<string, unknown>;
  outputDtypes?: Record<string, unknown>;
  status?: NodeStatus | string;
  stepDir?: string | null;
  resultFile?: string | null;
  /** share of the model's time, all instances (`hdecomp profile`); null when not profiled */
  shareOfModel?: number | null;
  /** the kernel's active `hdecomp replace` replacement; null when it has none */
  replacement?: ReplacementPayload | null;
}

/** An active replacement of a kernel (the tree's `replacements` map, as `hdecomp/trees` sends it). */
export interface ReplacementPayload {
  /** the replacement file (the copy `hdecomp replace` proved) */
  replacement: string | null;
  resultFile: string | null;
  /** kernel time / replacement time */
  speedup: number | null;
  /** whole model time without / with the replacements */
  modelSpeedup: number | null;
}

export interface TreePayload {
  root: string;
  treeFile: string;
  modelName: string;
  rootId: string;
  nodes: TreeNodePayload[];
}

export interface TreesResponse {
  trees: TreePayload[];
}

export interface StatusIcon {
  /** Codicon id. */
  id: string;
  /** Theme colour id. */
  color: string;
}

export interface DecompositionItem {
  /** Unique across all trees: tree file plus the chain of node ids from the root (a kernel file shared
   * by two parents appears twice, once under each). */
  key: string;
  parentKey: string | undefined;
  treeFile: string;
  treeRoot: string;
  nodeId: string;
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  level: number;
  levelName: string;
  status: NodeStatus;
  icon: StatusIcon;
  path: string | null;
  stepDir: string | null;
  resultFile: string | null;
  replacement: ReplacementPayload | null;
  /** Space-separated tokens the package.json menus match: node, root, step, file, kernel, replaced, result,
   * status-<s>. */
  contextValue: string;
  isRoot: boolean;
  children: DecompositionItem[];
}

export interface BuildResult {
  roots: DecompositionItem[];
  /** Every item by key, for getParent and reveal. */
  byKey: Map<string, DecompositionItem>;
  /** Problems in the payload (missing children, cycles), worth a log line, never fatal. */
  warnings: string[];
}

export interface BuildOptions {
  /** Shows an absolute folder relative to the workspace (vscode.workspace.asRelativePath). */
  relativePath?: (absPath: string) => string;
}

const LEVEL_NAMES: Record<number, LevelName> = { 3: "model", 2: "layer", 1: "fusion", 0: "kernel" };

export const STATUS_ICONS: Record<NodeStatus, StatusIcon> = {
  pass: { id: "pass-filled", color: "testing.iconPassed" },
  fail: { id: "error", color: "testing.iconFailed" },
  error: { id: "warning", color: "testing.iconErrored" },
  unverified: { id: "circle-large-outline", color: "testing.iconUnset" },
};

/** A replaced kernel's icon (in its status colour). */
export const REPLACED_ICON = "zap";

const STATUS_WORDS: Record<NodeStatus, string> = {
  pass: "verified: PASS",
  fail: "verified: FAIL",
  error: "verification ERROR (could not run)",
  unverified: "not verified yet",
};

export function normalizeStatus(status: unknown): NodeStatus {
  const s = typeof status === "string" ? status.toLowerCase() : "";
  return s === "pass" || s === "fail" || s === "error" ? s : "unverified";
}

export function levelNameOf(node: Pick<TreeNodePayload, "level" | "levelName">): string {
  return node.levelName || LEVEL_NAMES[node.level] || `level ${node.level}`;
}

function formatShape(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (Array.isArray(v) ? formatShape(v) : String(v))).join(", ")}]`;
  if (value === null || value === undefined) return "—";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** `1.84×`. */
function times(value: number): string {
  return `${value.toFixed(2)}×`;
}

/** The replacement's line of a node's hover: which file replaces it and the speedups (below 1: slower). */
function replacementLine(replacement: ReplacementPayload): string {
  const gains = [
    ...(isNumber(replacement.speedup) ? [`kernel speedup ${times(replacement.speedup)}`] : []),
    ...(isNumber(replacement.modelSpeedup) ? [`model speedup ${times(replacement.modelSpeedup)}`] : []),
  ];
  const file = replacement.replacement ? ` by \`${replacement.replacement}\`` : "";
  return `Replaced${file}${gains.length ? ` — ${gains.join(", ")}` : ""}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, "\\$1");
}

/** Rows "name | shape | dtype" for one direction (inputs or outputs). */
function tensorRows(shapes: Record<string, unknown> | undefined, dtypes: Record<string, unknown> | undefined): string[] {
  const names = new Set([...Object.keys(shapes ?? {}), ...Object.keys(dtypes ?? {})]);
  return [...names].map(
    (name) =>
      `| ${escapeMarkdown(name)} | \`${formatShape(shapes?.[name])}\` | ${escapeMarkdown(String(dtypes?.[name] ?? "—"))} |`,
  );
}

/** The hover of a node: name, level, status, inputs and outputs with shapes and dtypes, file. */
export function tooltipMarkdown(node: TreeNodePayload, status: NodeStatus): string {
  const lines = [
    `**${escapeMarkdown(node.name)}** — level ${node.level} (${escapeMarkdown(levelNameOf(node))})`,
    "",
    `Status: ${STATUS_WORDS[status]}`,
    "",
  ];
  const inputs = tensorRows(node.inputShapes, node.inputDtypes);
  const outputs = tensorRows(node.outputShapes, node.outputDtypes);
  if (inputs.length || outputs.length) {
    lines.push("| tensor | shape | dtype |", "| --- | --- | --- |");
    if (inputs.length) lines.push("| *inputs* | | |", ...inputs);
    if (outputs.length) lines.push("| *outputs* | | |", ...outputs);
    lines.push("");
  }
  if (node.path) lines.push(`File: \`${node.path}\``);
  if (node.replacement) lines.push("", replacementLine(node.replacement));
  if (node.stepDir) lines.push("", `Step: \`${node.stepDir}\``);
  return lines.join("\n");
}

function contextValueOf(node: TreeNodePayload, status: NodeStatus, isRoot: boolean): string {
  const tokens = ["node"];
  if (isRoot) tokens.push("root");
  if (node.stepDir) tokens.push("step");
  if (node.path) tokens.push("file");
  if (node.path && node.level === 0) tokens.push("kernel");
  if (node.replacement) tokens.push("replaced");
  if (node.resultFile) tokens.push("result");
  tokens.push(`status-${status}`);
  return tokens.join(" ");
}

/** Builds the items of every tree; robust to missing children, cycles and a missing rootId. */
export function buildTrees(response: TreesResponse | null | undefined, options: BuildOptions = {}): BuildResult {
  const roots: DecompositionItem[] = [];
  const byKey = new Map<string, DecompositionItem>();
  const warnings: string[] = [];
  for (const tree of response?.trees ?? []) {
    const nodes = new Map<string, TreeNodePayload>();
    for (const node of tree.nodes ?? []) nodes.set(node.id, node);
    let rootNode = nodes.get(tree.rootId);
    if (!rootNode) {
      // Fall back to the node no one lists as a child, highest level first.
      const referenced = new Set([...nodes.values()].flatMap((n) => n.children ?? []));
      rootNode = [...nodes.values()].filter((n) => !referenced.has(n.id)).sort((a, b) => b.level - a.level)[0];
      if (!rootNode) {
        warnings.push(`${tree.treeFile}: no root node (rootId "${tree.rootId}" not among the nodes)`);
        continue;
      }
      warnings.push(`${tree.treeFile}: rootId "${tree.rootId}" not found; using "${rootNode.id}"`);
    }
    const make = (node: TreeNodePayload, parent: DecompositionItem | undefined, ancestors: Set<string>): DecompositionItem => {
      const isRoot = parent === undefined;
      const status = normalizeStatus(node.status);
      const key = parent ? `${parent.key}/${node.id}` : `${tree.treeFile}#${node.id}`;
      const levelName = levelNameOf(node);
      let description = `L${node.level} ${levelName}`;
      if (isRoot && options.relativePath) description += ` · ${options.relativePath(tree.root)}`;
      if (isNumber(node.shareOfModel)) {
        description += ` · ${(100 * node.shareOfModel).toFixed(1)} % of time`;
      }
      const replacement = node.replacement ?? null;
      if (replacement) description += ` · replaced${isNumber(replacement.speedup) ? ` ${times(replacement.speedup)}` : ""}`;
      const item: DecompositionItem = {
        key,
        parentKey: parent?.key,
        treeFile: tree.treeFile,
        treeRoot: tree.root,
        nodeId: node.id,
        label: isRoot ? tree.modelName || node.name : node.name,
        description,
        tooltip: tooltipMarkdown(node, status),
        level: node.level,
        levelName,
        status,
        icon: replacement ? { id: REPLACED_ICON, color: STATUS_ICONS[status].color } : STATUS_ICONS[status],
        path: node.path ?? null,
        stepDir: node.stepDir ?? null,
        resultFile: node.resultFile ?? null,
        replacement,
        contextValue: contextValueOf(node, status, isRoot),
        isRoot,
        children: [],
      };
      byKey.set(key, item);
      const seen = new Set(ancestors).add(node.id);
      for (const childId of node.children ?? []) {
        const child = nodes.get(childId);
        if (!child) {
          warnings.push(`${tree.treeFile}: node "${node.id}" lists unknown child "${childId}"`);
        } else if (seen.has(childId)) {
          warnings.push(`${tree.treeFile}: cycle through "${childId}" under "${node.id}"`);
        } else {
          item.children.push(make(child, item, seen));
        }
      }
      return item;
    };
    roots.push(make(rootNode, undefined, new Set()));
  }
  return { roots, byKey, warnings };
}

/** Counts of statuses in one tree, e.g. for the root's hover or a summary line. */
export function statusCounts(root: DecompositionItem): Record<NodeStatus, number> {
  const counts: Record<NodeStatus, number> = { pass: 0, fail: 0, error: 0, unverified: 0 };
  const walk = (item: DecompositionItem): void => {
    if (item.stepDir) counts[item.status]++;
    item.children.forEach(walk);
  };
  walk(root);
  return counts;
}

function isInside(child: string, folder: string): boolean {
  const f = folder.replace(/[\\/]+$/, "");
  return child === f || child.startsWith(f + "/") || child.startsWith(f + "\\");
}

/**
 * The root item to reveal after a command finished: the tree that contains the given file (the result
 * file, a tree file, or a folder), else the tree of a model file name, else undefined.
 */
export function findRootFor(
  roots: readonly DecompositionItem[],
  hint: { file?: string | null; modelName?: string | null },
): DecompositionItem | undefined {
  if (hint.file) {
    const byFolder = roots
      .filter((r) => isInside(hint.file as string, r.treeRoot) || hint.file === r.treeFile)
      .sort((a, b) => b.treeRoot.length - a.treeRoot.length)[0];
    if (byFolder) return byFolder;
  }
  if (hint.modelName) return roots.find((r) => r.label === hint.modelName);
  return undefined;
}

/** The path of a step's refactored.py, the file "Verify step" and "Open refactored.py" act on. */
export function refactoredFileOf(item: Pick<DecompositionItem, "stepDir">): string | undefined {
  return item.stepDir ? `${item.stepDir.replace(/[\\/]+$/, "")}/refactored.py` : undefined;
}

const NEW_SUFFIX = "_new.py";

/**
 * The kernel file and its replacement candidate (`<stem>_new.py` beside it) that "Verify replacement" acts
 * on, from either of the two files.
 */
export function replacementPairOf(file: string): { kernel: string; replacement: string } {
  if (file.endsWith(NEW_SUFFIX)) return { kernel: `${file.slice(0, -NEW_SUFFIX.length)}.py`, replacement: file };
  return { kernel: file, replacement: file.replace(/\.py$/, "") + NEW_SUFFIX };
}
