"""Decomposition trees for the extension's tree view: request `hdecomp/trees`, notification
`hdecomp/treesChanged` when a decomposition_tree.json, a step's verification_result.json, the profile or a
kernel's replacement_result.json changes (client file watching when it can, polling otherwise). Pure JSON
reading: no torch, no user code."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from hdecomp.formats.layout import PROFILE_FILE, RESULT_FILE, node_statuses, read_profile_components
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.vocab.levels import LEVEL_NAMES
from lsprotocol import types

from hdecomp_lsp import replacements
from hdecomp_lsp.features import diagnostics
from hdecomp_lsp.state import HdecompLanguageServer
from hdecomp_lsp.uris import path_is_under, uri_to_path

TREES_CHANGED = "hdecomp/treesChanged"
_SKIP_DIRS = {".git", ".hg", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache",
              ".ruff_cache", ".tox", "dist", "build"}
_MAX_DEPTH = 10
_TREE_DIRS = {"steps", "verification", replacements.REPLACEMENTS_DIR}  # a tree's own folders: no trees inside
_REPLACEMENT_RESULTS = f"{replacements.REPLACEMENTS_DIR}/*/{replacements.REPLACEMENT_RESULT}"
_WATCHED = (TREE_FILE, RESULT_FILE, PROFILE_FILE, replacements.REPLACEMENT_RESULT)
_WATCH_GLOBS = [f"**/{TREE_FILE}", f"**/{RESULT_FILE}", f"**/{PROFILE_FILE}", f"**/{_REPLACEMENT_RESULTS}"]


def find_tree_files(folders: list[str]) -> list[str]:
    found: list[str] = []
    for folder in folders:
        base_depth = folder.rstrip(os.sep).count(os.sep)
        for dirpath, dirnames, filenames in os.walk(folder):
            depth = dirpath.count(os.sep) - base_depth
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                                 and depth < _MAX_DEPTH)
            if TREE_FILE in filenames:
                found.append(os.path.join(dirpath, TREE_FILE))
                # a tree's own component folders hold no other trees
                dirnames[:] = [d for d in dirnames if not (d.startswith("level_") or d in _TREE_DIRS)]
    return sorted(set(found))


def watched_files(folders: list[str]) -> dict[str, float]:
    """mtime of every tree file, step result, profile and replacement result under those trees (the polling
    snapshot)."""
    snap: dict[str, float] = {}
    for tree in find_tree_files(folders):
        for p in [Path(tree), Path(tree).parent / "verification" / PROFILE_FILE,
                  *Path(tree).parent.glob(f"steps/*/{RESULT_FILE}"),
                  *Path(tree).parent.glob(_REPLACEMENT_RESULTS)]:
            try:
                snap[str(p)] = p.stat().st_mtime
            except OSError:
                continue
    return snap


def load_tree(tree_file: str) -> dict[str, Any] | None:
    """One tree in the `hdecomp/trees` payload shape, or None when the file is not a readable tree.

    The tree, each node's step and its verdict come from hdecomp.formats, as for the CLI."""
    try:
        tree = DecompositionTree.load(tree_file)
    except TreeFormatError:
        return None
    root = Path(tree_file).parent
    statuses = node_statuses(tree)
    shares = _profile_shares(root)
    replaced = replacements.replaced_nodes(tree, root)
    nodes: list[dict[str, Any]] = []
    for node_id, node in tree.nodes.items():
        verdict = statuses[node_id]
        path = tree.abs_path(node)
        if verdict.verified_by is not None:
            result = verdict.verified_by.result_file
            result_file = str(result.resolve()) if result.is_file() else None
        elif verdict.status != "unverified":   # a one-kernel model: the composition test checked it
            result_file = str((root / "verification" / "test_results.json").resolve())
        else:
            result_file = None
        nodes.append({
            "id": node_id, "name": node.name or node_id, "level": node.level or 0,
            "levelName": LEVEL_NAMES[node.level or 0], "path": str(path) if path is not None else None,
            "children": [c for c in node.children if c in tree.nodes],
            "inputShapes": node.input_shapes, "outputShapes": node.output_shapes,
            "inputDtypes": node.input_dtypes, "outputDtypes": node.output_dtypes,
            "status": verdict.status, "resultFile": result_file,
            "stepDir": str(verdict.step.dir.resolve()) if verdict.step else None,
            # share of the model's time, all instances (hdecomp profile), None when not profiled
            "shareOfModel": shares.get(node_id),
            # the active `hdecomp replace` replacement of a kernel, None when there is none
            "replacement": replaced.get(node_id),
        })
    return {"root": str(root.resolve()), "treeFile": str(Path(tree_file).resolve()),
            "modelName": str(tree.metadata.model_name or root.name), "rootId": tree.root_id or "", "nodes": nodes}


def _profile_shares(root: Path) -> dict[str, float]:
    return {i: float(c["share_of_model"]) for i, c in read_profile_components(root).items()
            if isinstance(c.get("share_of_model"), (int, float))}


def workspace_folders(ls: HdecompLanguageServer) -> list[str]:
    folders = [uri_to_path(f.uri) for f in ls.workspace.folders.values()]
    if not folders and ls.workspace.root_path:
        folders = [ls.workspace.root_path]
    return [f for f in folders if os.path.isdir(f)]


def all_trees(ls: HdecompLanguageServer) -> dict[str, Any]:
    trees = [t for f in find_tree_files(workspace_folders(ls)) if (t := load_tree(f)) is not None]
    return {"trees": trees}


class TreeIndex:
    """The last snapshot of tree/result files, to tell which trees changed."""

    def __init__(self) -> None:
        self.snapshot: dict[str, float] | None = None
        self.poll_task: asyncio.Task[None] | None = None

    def changed_trees(self, folders: list[str]) -> list[str]:
        new = watched_files(folders)
        old = self.snapshot
        self.snapshot = new
        if old is None:
            return []
        changed = {p for p in set(new) | set(old) if new.get(p) != old.get(p)}
        return affected_trees(changed, list(new) + list(old))


def affected_trees(changed: set[str], known: list[str]) -> list[str]:
    trees = sorted({p for p in known if p.endswith(TREE_FILE)})
    out: set[str] = set()
    for p in changed:
        if p.endswith(TREE_FILE):
            out.add(p)
            continue
        for t in trees:
            if path_is_under(p, str(Path(t).parent)):
                out.add(t)
    return sorted(out)


def notify_changed(ls: HdecompLanguageServer, tree_files: list[str]) -> None:
    if tree_files:
        ls.protocol.notify(TREES_CHANGED, {"treeFiles": tree_files})


async def check_for_changes(ls: HdecompLanguageServer) -> None:
    index: TreeIndex = ls.trees
    changed = await asyncio.get_running_loop().run_in_executor(None, index.changed_trees, workspace_folders(ls))
    notify_changed(ls, changed)


async def _poll(ls: HdecompLanguageServer) -> None:
    while True:
        await asyncio.sleep(ls.poll_interval_s)
        try:
            await check_for_changes(ls)
        except Exception as exc:  # a vanished folder must not stop polling
            ls.log(f"tree polling: {exc}")


async def start_watching(ls: HdecompLanguageServer) -> None:
    index: TreeIndex = ls.trees
    index.snapshot = await asyncio.get_running_loop().run_in_executor(None, watched_files, workspace_folders(ls))
    ws = ls.client_capabilities.workspace
    can_watch = bool(ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration)
    if can_watch:
        watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in _WATCH_GLOBS]
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id="hdecomp-trees-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                       watchers=watchers))]))
            return
        except Exception as exc:
            ls.log(f"file watching unavailable ({exc}); polling instead")
    index.poll_task = asyncio.ensure_future(_poll(ls))


def register(server: HdecompLanguageServer) -> None:
    server.trees = TreeIndex()

    @server.feature("hdecomp/trees")
    async def trees_request(ls: HdecompLanguageServer, params: Any) -> dict[str, Any]:
        # off the event loop: a big workspace walk must not stall diagnostics
        return await asyncio.get_running_loop().run_in_executor(None, all_trees, ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_changed(ls: HdecompLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = {os.path.normpath(uri_to_path(c.uri)) for c in params.changes}
        relevant = {p for p in paths if p.endswith(_WATCHED)}
        if not relevant:
            return
        index: TreeIndex = ls.trees
        known = list(index.snapshot or {}) + [p for p in relevant if p.endswith(TREE_FILE)]
        trees = affected_trees(relevant, known)
        for p in relevant:
            if p.endswith(RESULT_FILE) and not any(path_is_under(p, os.path.dirname(t)) for t in trees):
                # a result outside any known tree: rescan (a new tree may have appeared)
                known = find_tree_files(workspace_folders(ls))
                trees = affected_trees(relevant, known)
                break
        index.snapshot = await asyncio.get_running_loop().run_in_executor(
            None, watched_files, workspace_folders(ls))
        notify_changed(ls, trees)
        result_dirs = {os.path.dirname(p) for p in relevant if p.endswith(RESULT_FILE)}
        if result_dirs:
            # a step's result belongs to the refactored file(s) next to it
            diagnostics.republish_all(ls, dirs=result_dirs)
        if result_dirs or any(p.endswith(replacements.REPLACEMENT_RESULT) for p in relevant):
            await ls.refresh_lenses()  # the Verify step / Verify replacement lenses show the last result
