"""Decomposition trees for the extension's tree view: request `hdecomp/trees`, notification
`hdecomp/treesChanged` when a decomposition_tree.json or verification_result.json changes (client file
watching when it can, polling otherwise). Pure JSON reading: no torch, no user code."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.tree import composition_status
from lsprotocol import types

from hdecomp_lsp.uris import path_is_under, uri_to_path

if TYPE_CHECKING:
    from hdecomp_lsp.server import HdecompLanguageServer

TREE_FILE = "decomposition_tree.json"
RESULT_FILE = "verification_result.json"
TREES_CHANGED = "hdecomp/treesChanged"
LEVEL_NAMES = {0: "kernel", 1: "fusion", 2: "layer", 3: "model"}
LEVEL_NUMBERS = {v: k for k, v in LEVEL_NAMES.items()}
_SKIP_DIRS = {".git", ".hg", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache",
              ".ruff_cache", ".tox", "dist", "build"}
_MAX_DEPTH = 10


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
                dirnames[:] = [d for d in dirnames if not (d == "steps" or d.startswith("level_")
                                                           or d == "verification")]
    return sorted(set(found))


def watched_files(folders: list[str]) -> dict[str, float]:
    """mtime of every tree file and every step result under those trees (the polling snapshot)."""
    snap: dict[str, float] = {}
    for tree in find_tree_files(folders):
        for p in [Path(tree), *Path(tree).parent.glob(f"steps/*/{RESULT_FILE}")]:
            try:
                snap[str(p)] = p.stat().st_mtime
            except OSError:
                continue
    return snap


def _level(value: Any) -> tuple[int, str]:
    if isinstance(value, bool):
        return 0, "kernel"
    if isinstance(value, int) and value in LEVEL_NAMES:
        return value, LEVEL_NAMES[value]
    if isinstance(value, str):
        v = value.strip().lower()
        m = re.match(r"^(?:level[_ ]?)?(\d)", v)
        if m and int(m.group(1)) in LEVEL_NAMES:
            return int(m.group(1)), LEVEL_NAMES[int(m.group(1))]
        for name, num in LEVEL_NUMBERS.items():
            if name in v:
                return num, name
    return 0, "kernel"


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _status_of(step_dir: Path | None) -> tuple[str, str | None]:
    if step_dir is None:
        return "unverified", None
    result = step_dir / RESULT_FILE
    try:
        data = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unverified", None
    status = str(data.get("status", "")).upper() if isinstance(data, dict) else ""
    return {"PASS": "pass", "FAIL": "fail", "ERROR": "error"}.get(status, "unverified"), str(result)


def _shapes(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def load_tree(tree_file: str) -> dict[str, Any] | None:
    """One tree in the `hdecomp/trees` payload shape, or None when the file is not a readable tree."""
    try:
        data = json.loads(Path(tree_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), dict):
        return None
    root = Path(tree_file).parent
    raw_nodes: dict[str, dict[str, Any]] = {str(k): v for k, v in data["nodes"].items() if isinstance(v, dict)}
    steps = sorted(p for p in (root / "steps").glob("*") if p.is_dir()) if (root / "steps").is_dir() else []
    step_by_digest = {d: s for s in steps if (d := _digest(s / "original.py"))}

    def step_for(node_id: str, node: dict[str, Any], path: Path | None) -> Path | None:
        for key in ("step_dir", "step"):  # explicit link, when the writer recorded one
            if isinstance(node.get(key), str) and (root / node[key]).is_dir():
                return root / node[key]
        if path is not None and (d := _digest(path)) in step_by_digest:
            return step_by_digest[d]
        # the original workspace named steps step_<N>_<node id>_to_<level>s
        for s in steps:
            if re.fullmatch(rf"step_\d+_{re.escape(node_id)}(_to_\w+)?", s.name):
                return s
        return None

    nodes: list[dict[str, Any]] = []
    parent_of: dict[str, str] = {}
    for node_id, node in raw_nodes.items():
        for child in node.get("children") or []:
            parent_of.setdefault(str(child), node_id)
    step_dirs: dict[str, Path | None] = {}
    for node_id, node in raw_nodes.items():
        rel = node.get("path")
        path = (root / rel) if isinstance(rel, str) and rel else None
        step_dirs[node_id] = step_for(node_id, node, path if path and path.is_file() else None)
    for node_id, node in raw_nodes.items():
        rel = node.get("path")
        path = (root / rel).resolve() if isinstance(rel, str) and rel else None
        level, level_name = _level(node.get("level"))
        step_dir = step_dirs[node_id]
        status, result_file = _status_of(step_dir)
        if step_dir is None and node_id in parent_of:
            # a leaf is as verified as the step that produced it (its parent's step)
            status, result_file = _status_of(step_dirs.get(parent_of[node_id]))
        elif step_dir is None and level == 0 and not parent_of:
            # a one-kernel model (a level-0 root, no step): the composition test checked it
            status = composition_status(root)
            result_file = str((root / "verification" / "test_results.json").resolve()) \
                if status != "unverified" else None
        nodes.append({
            "id": node_id, "name": str(node.get("name") or node_id), "level": level, "levelName": level_name,
            "path": str(path) if path is not None else None,
            "children": [str(c) for c in node.get("children") or [] if str(c) in raw_nodes],
            "inputShapes": _shapes(node.get("input_shapes")), "outputShapes": _shapes(node.get("output_shapes")),
            "inputDtypes": _shapes(node.get("input_dtypes")), "outputDtypes": _shapes(node.get("output_dtypes")),
            "status": status, "stepDir": str(step_dir.resolve()) if step_dir else None, "resultFile": result_file,
        })
    meta: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    children = {c for n in raw_nodes.values() for c in (n.get("children") or [])}
    root_id = "root" if "root" in raw_nodes else next((k for k in raw_nodes if k not in children), "")
    return {"root": str(root.resolve()), "treeFile": str(Path(tree_file).resolve()),
            "modelName": str(meta.get("model_name") or root.name), "rootId": root_id, "nodes": nodes}


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
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in (TREE_FILE, RESULT_FILE)]
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
        from hdecomp_lsp import diagnostics

        paths = {os.path.normpath(uri_to_path(c.uri)) for c in params.changes}
        relevant = {p for p in paths if p.endswith((TREE_FILE, RESULT_FILE))}
        if not relevant:
            return
        index: TreeIndex = ls.trees
        known = list(index.snapshot or {}) + [p for p in relevant if p.endswith(TREE_FILE)]
        trees = affected_trees(relevant, known)
        for p in relevant:
            if p.endswith(RESULT_FILE) and not any(p.startswith(os.path.dirname(t)) for t in trees):
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
            await ls.refresh_lenses()
