/**
 * The "Levels" tree view (hdecomp.levels): one root per decomposition in the workspace, model → layers →
 * fusions → kernels, with status icons. Data comes from the server's `hdecomp/trees` request and is
 * refreshed on its `hdecomp/treesChanged` notification; treeModel.ts does the shaping.
 */

import * as vscode from "vscode";

import { buildTrees, type BuildResult, type DecompositionItem, findRootFor, statusCounts, type TreesResponse } from "./treeModel";

export const VIEW_ID = "hdecomp.levels";

/** Above this many items only the model and layer levels start expanded. */
const EXPAND_ALL_LIMIT = 80;

export class LevelsTreeProvider implements vscode.TreeDataProvider<DecompositionItem> {
  private data: BuildResult = { roots: [], byKey: new Map(), warnings: [] };
  private readonly changed = new vscode.EventEmitter<DecompositionItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  get roots(): readonly DecompositionItem[] {
    return this.data.roots;
  }

  setPayload(response: TreesResponse | undefined): string[] {
    this.data = buildTrees(response, { relativePath: (p) => vscode.workspace.asRelativePath(p, false) });
    this.changed.fire(undefined);
    return this.data.warnings;
  }

  getTreeItem(item: DecompositionItem): vscode.TreeItem {
    const expandAll = this.data.byKey.size <= EXPAND_ALL_LIMIT;
    const state =
      item.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : item.isRoot || item.level >= 2 || expandAll
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed;
    const treeItem = new vscode.TreeItem(item.label, state);
    treeItem.id = item.key;
    treeItem.description = item.description;
    const tooltip = new vscode.MarkdownString(item.tooltip);
    if (item.isRoot) {
      const c = statusCounts(item);
      tooltip.appendMarkdown(`\n\nSteps: ${c.pass} pass · ${c.fail} fail · ${c.error} error · ${c.unverified} not verified`);
    }
    treeItem.tooltip = tooltip;
    treeItem.iconPath = new vscode.ThemeIcon(item.icon.id, new vscode.ThemeColor(item.icon.color));
    treeItem.contextValue = item.contextValue;
    treeItem.accessibilityInformation = {
      label: `${item.label}, level ${item.level} ${item.levelName}, ${item.status}${item.replacement ? ", replaced" : ""}`,
    };
    if (item.path) {
      treeItem.command = { title: "Open component file", command: "hdecomp.openComponent", arguments: [item] };
    }
    return treeItem;
  }

  getChildren(item?: DecompositionItem): DecompositionItem[] {
    return item ? item.children : [...this.data.roots];
  }

  getParent(item: DecompositionItem): DecompositionItem | undefined {
    return item.parentKey ? this.data.byKey.get(item.parentKey) : undefined;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Owns the view and keeps it in step with the server. */
export class LevelsView implements vscode.Disposable {
  readonly provider = new LevelsTreeProvider();
  readonly view: vscode.TreeView<DecompositionItem>;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly fetch: () => Promise<TreesResponse | undefined>,
    private readonly channel: vscode.LogOutputChannel,
  ) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this.provider, showCollapseAll: true });
  }

  /** Re-reads the trees from the server (coalesces bursts of notifications into one request). */
  refresh(): Promise<void> {
    this.pending ??= (async () => {
      try {
        const response = await this.fetch();
        const warnings = this.provider.setPayload(response);
        warnings.forEach((w) => this.channel.warn(`tree: ${w}`));
        const count = this.provider.roots.length;
        this.view.badge = undefined;
        this.view.description = count > 1 ? `${count} decompositions` : undefined;
        this.channel.debug(`trees: ${count} decomposition(s)`);
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  setMessage(message: string | undefined): void {
    this.view.message = message;
  }

  /** Shows and selects the decomposition that holds `file` (or is named `modelName`). */
  async reveal(hint: { file?: string | null; modelName?: string | null }): Promise<boolean> {
    const root = findRootFor(this.provider.roots, hint);
    if (!root) return false;
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    await this.view.reveal(root, { select: true, focus: true, expand: 2 });
    return true;
  }

  dispose(): void {
    this.view.dispose();
    this.provider.dispose();
  }
}
