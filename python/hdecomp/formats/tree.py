"""decomposition_tree.json: the one reader and writer, for every tool (the CLI, the validator, the
refactor tools, the decomposer and the language server's tree view). Torch-free.

`parse_nodes()` reads every layout trees take: ours (DESIGN.md: `metadata` + `nodes{id: ...}` +
`data_flow`) and those the original workspace wrote (`tree{path: {...}}` keyed by file path, a nested
`tree{name, file, children: [...]}`, or `levels{level_dir: {components: [...]}}` and
`levels{level_dir: {file: {...}}}`). `DecompositionTree.load()` builds on it; unknown fields are kept in
`extra` and written back, and `save()` writes our layout atomically.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import read_json, write_json_atomic
from hdecomp.vocab.levels import LEVEL_NAMES, level_name, level_of_path, parse_level

TREE_FILE = "decomposition_tree.json"


class TreeFormatError(HdecompError):
    """decomposition_tree.json / decomposition_log.json is unreadable or not a decomposition tree."""


@dataclass
class TreeNode:
    """One component of the decomposition (a node of the tree)."""

    id: str
    name: str
    level: int | None
    path: str | None = None                 # relative to the decomposition folder (as written)
    children: list[str] = field(default_factory=list)
    input_shapes: dict[str, Any] = field(default_factory=dict)
    output_shapes: dict[str, Any] = field(default_factory=dict)
    input_dtypes: dict[str, Any] = field(default_factory=dict)
    output_dtypes: dict[str, Any] = field(default_factory=dict)
    instance_count: int | None = None
    parent: str | None = None               # filled on load from the children lists
    step: str | None = None                 # ours: the step folder that decomposes this node (relative)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def level_name(self) -> str:
        return level_name(self.level)

    @property
    def is_kernel(self) -> bool:
        return self.level == 0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = dict(self.extra)
        d.update({
            "id": self.id, "name": self.name, "level": self.level_name if self.level is not None
            else self.extra.get("level", "unknown"),
            "path": self.path, "children": list(self.children),
            "input_shapes": self.input_shapes, "output_shapes": self.output_shapes,
            "input_dtypes": self.input_dtypes, "output_dtypes": self.output_dtypes,
        })
        if self.instance_count is not None:
            d["instance_count"] = self.instance_count
        if self.step is not None:
            d["step"] = self.step
        return d


@dataclass
class DataFlowEdge:
    """One tensor passed between two components (`from` is a Python keyword: `source`)."""

    source: str
    target: str
    tensor_name: str | None = None
    shape: Any = None
    dtype: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d.update({"from": self.source, "to": self.target, "tensor_name": self.tensor_name,
                  "shape": self.shape, "dtype": self.dtype})
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DataFlowEdge:
        known = {"from", "to", "tensor_name", "shape", "dtype"}
        return cls(source=str(d.get("from", "")), target=str(d.get("to", "")),
                   tensor_name=d.get("tensor_name"), shape=d.get("shape"), dtype=d.get("dtype"),
                   extra={k: v for k, v in d.items() if k not in known})


@dataclass
class TreeMetadata:
    source_file: str | None = None
    source_level: str | None = None
    model_name: str | None = None
    timestamp: str | None = None
    total_components: int = 0
    by_level: dict[str, int] = field(default_factory=dict)
    unique_kernels: int = 0
    verification_status: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KNOWN = ("source_file", "source_level", "model_name", "timestamp", "total_components", "by_level",
              "unique_kernels", "verification_status")

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d.update({k: getattr(self, k) for k in self._KNOWN})
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TreeMetadata:
        by_level = d.get("by_level") if isinstance(d.get("by_level"), dict) else {}
        return cls(source_file=d.get("source_file"), source_level=d.get("source_level"),
                   model_name=d.get("model_name"), timestamp=d.get("timestamp"),
                   total_components=_int(d.get("total_components")), by_level=dict(by_level or {}),
                   unique_kernels=_int(d.get("unique_kernels")),
                   verification_status=d.get("verification_status"),
                   extra={k: v for k, v in d.items() if k not in cls._KNOWN})


def _int(v: Any) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


@dataclass
class DecompositionTree:
    """decomposition_tree.json: metadata, nodes by id, data flow. `root_dir` is the decomposition folder."""

    metadata: TreeMetadata = field(default_factory=TreeMetadata)
    nodes: dict[str, TreeNode] = field(default_factory=dict)
    data_flow: list[DataFlowEdge] = field(default_factory=list)
    root_id: str | None = None
    root_dir: Path | None = None
    source_format: str = "nodes"            # "nodes" (ours), "tree" or "levels" (original workspace variants)
    extra: dict[str, Any] = field(default_factory=dict)

    # ---- reading and writing -------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> DecompositionTree:
        """Read a tree file, or the decomposition_tree.json inside a folder."""
        path = Path(path)
        if path.is_dir():
            path = path / TREE_FILE
        if not path.exists():
            raise TreeFormatError("decomposition_tree.json not found", path)
        try:
            data = read_json(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise TreeFormatError(f"cannot read: {exc}", path) from exc
        except ValueError as exc:  # json.JSONDecodeError: half-written or hand-broken file
            line = getattr(exc, "lineno", None)
            raise TreeFormatError(f"not valid JSON ({getattr(exc, 'msg', exc)})", path, line) from exc
        try:
            return cls.from_dict(data, root_dir=path.parent)
        except TreeFormatError as exc:
            raise TreeFormatError(exc.cause, path) from exc

    @classmethod
    def from_dict(cls, data: Any, root_dir: str | Path | None = None) -> DecompositionTree:
        if not isinstance(data, dict):
            raise TreeFormatError(f"expected a JSON object, found {type(data).__name__}")
        nodes, notes, layout = parse_nodes(data)
        if layout is None:
            raise TreeFormatError("not a decomposition tree: no 'nodes' (or 'tree' / 'levels') object")
        if notes:
            raise TreeFormatError(notes[0])
        aliases = child_aliases(nodes)
        for node in nodes.values():   # children by key, whatever the file named them by (id, name, path)
            node.children = [aliases.get(c) or aliases.get(norm_path(c)) or c for c in node.children]
        if layout == "nodes":
            meta = TreeMetadata.from_dict(data["metadata"] if isinstance(data.get("metadata"), dict) else {})
        else:
            meta = TreeMetadata(model_name=data.get("model_name"), source_file=data.get("source"))
        flow = [DataFlowEdge.from_dict(e) for e in data.get("data_flow") or [] if isinstance(e, dict)]
        extra = {k: v for k, v in data.items() if k not in ("metadata", "nodes", "data_flow", "tree", "levels")}
        tree = cls(metadata=meta, nodes=nodes, data_flow=flow, source_format=layout, extra=extra)
        tree.root_id = tree._find_root(preferred="root" if layout == "nodes" else None)
        tree.root_dir = Path(root_dir) if root_dir is not None else None
        tree._link_parents()
        return tree

    def to_dict(self) -> dict[str, Any]:
        """Our format (DESIGN.md), with the metadata counts brought up to date and unknown keys kept."""
        self.refresh_metadata()
        d: dict[str, Any] = {k: v for k, v in self.extra.items() if k not in ("tree", "levels")}
        d["metadata"] = self.metadata.to_dict()
        d["nodes"] = {nid: n.to_dict() for nid, n in self.nodes.items()}
        d["data_flow"] = [e.to_dict() for e in self.data_flow]
        return d

    def save(self, path: str | Path | None = None) -> Path:
        """Write atomically (readers never see a half-written tree). Default: root_dir/decomposition_tree.json."""
        if path is None:
            if self.root_dir is None:
                raise TreeFormatError("no path given and the tree has no root_dir")
            path = self.root_dir / TREE_FILE
        return write_json_atomic(path, self.to_dict())

    def refresh_metadata(self) -> None:
        counts = {name: 0 for name in ("model", "layer", "fusion", "kernel")}
        for n in self.nodes.values():
            if n.level is not None:
                counts[LEVEL_NAMES[n.level]] += 1
        self.metadata.by_level = counts
        self.metadata.total_components = len(self.nodes)
        self.metadata.unique_kernels = len({n.path or n.id for n in self.nodes.values() if n.level == 0})
        if not self.metadata.timestamp:
            self.metadata.timestamp = datetime.now(timezone.utc).isoformat()

    # ---- structure -------------------------------------------------------------------------------------

    def _link_parents(self) -> None:
        for n in self.nodes.values():
            n.parent = None
        for n in self.nodes.values():
            for c in n.children:
                child = self.nodes.get(c)
                if child is not None and child.parent is None:
                    child.parent = n.id

    def _find_root(self, preferred: str | None = None) -> str | None:
        if preferred and preferred in self.nodes:
            return preferred
        referenced = {c for n in self.nodes.values() for c in n.children}
        roots = [nid for nid in self.nodes if nid not in referenced]
        if not roots:
            return next(iter(self.nodes), None)
        # the highest level wins (a model over a stray kernel); file order breaks ties
        return max(roots, key=lambda nid: _level_or(self.nodes[nid].level, -1))

    @property
    def root(self) -> TreeNode | None:
        return self.nodes.get(self.root_id) if self.root_id else None

    def node(self, node_id: str) -> TreeNode:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise TreeFormatError(f"no node {node_id!r} in the tree") from None

    def children(self, node_id: str) -> list[TreeNode]:
        """The node's children, in order, repeated where the tree lists a child twice; unknown ids skipped."""
        return [self.nodes[c] for c in self.node(node_id).children if c in self.nodes]

    def parent(self, node_id: str) -> TreeNode | None:
        p = self.node(node_id).parent
        return self.nodes.get(p) if p else None

    def walk(self, start: str | None = None) -> Iterator[tuple[TreeNode, int]]:
        """Pre-order (node, depth) from `start` (default the root); each node once, cycles cut."""
        first = start or self.root_id
        if first is None:
            return
        seen: set[str] = set()
        stack: list[tuple[str, int]] = [(first, 0)]
        while stack:
            nid, depth = stack.pop()
            if nid in seen or nid not in self.nodes:
                continue
            seen.add(nid)
            node = self.nodes[nid]
            yield node, depth
            for c in reversed(node.children):
                stack.append((c, depth + 1))

    def leaves(self, start: str | None = None) -> list[TreeNode]:
        return [n for n, _ in self.walk(start) if not any(c in self.nodes for c in n.children)]

    def by_level(self, level: int | str) -> list[TreeNode]:
        lvl = parse_level(level) if not isinstance(level, int) else level
        return [n for n in self.nodes.values() if n.level == lvl]

    def levels(self) -> dict[str, list[TreeNode]]:
        """{"model": [...], "layer": [...], "fusion": [...], "kernel": [...]} in file order."""
        out: dict[str, list[TreeNode]] = {name: [] for name in ("model", "layer", "fusion", "kernel")}
        for n in self.nodes.values():
            if n.level is not None:
                out[LEVEL_NAMES[n.level]].append(n)
        return out

    def abs_path(self, node: TreeNode | str) -> Path | None:
        """The node's file as an absolute path (None when the node has no path)."""
        n = self.nodes.get(node) if isinstance(node, str) else node
        if n is None or not n.path:
            return None
        p = Path(n.path)
        if not p.is_absolute() and self.root_dir is not None:
            p = self.root_dir / p
        return p.resolve()

    def node_for_path(self, path: str | Path) -> TreeNode | None:
        """The node whose file is `path` (absolute, or relative to the decomposition folder)."""
        target = Path(path)
        if not target.is_absolute() and self.root_dir is not None:
            target = self.root_dir / target
        target = target.resolve()
        for n in self.nodes.values():
            if self.abs_path(n) == target:
                return n
        return None

    def node_for_step(self, step_dir: str | Path) -> TreeNode | None:
        """The node a step folder decomposes, when the tree records it (`step` field)."""
        name = Path(step_dir).name
        for n in self.nodes.values():
            if n.step and Path(n.step).name == name:
                return n
        return None

    def instance_counts(self) -> dict[str, int]:
        """How many times each node runs in one forward of the root: `instance_count` where given, else the
        number of times it is listed as a child, multiplied by its parents' own counts."""
        counts: dict[str, int] = {}
        if self.root_id is None:
            return counts
        memo: dict[str, int] = {}
        parents: dict[str, list[str]] = {}
        for n in self.nodes.values():
            for c in n.children:
                parents.setdefault(c, []).append(n.id)

        def count(nid: str, trail: frozenset[str]) -> int:
            if nid in memo:
                return memo[nid]
            node = self.nodes[nid]
            if node.instance_count is not None:
                result = node.instance_count
            elif nid == self.root_id or nid not in parents:
                result = 1
            else:
                result = sum(count(p, trail | {nid}) for p in parents[nid] if p not in trail and p in self.nodes)
            memo[nid] = result
            return result

        for nid in self.nodes:
            counts[nid] = count(nid, frozenset())
        return counts


def _level_or(level: int | None, default: int) -> int:
    return level if level is not None else default


def write_tree(folder: str | Path, data: dict[str, Any]) -> Path:
    """Write `data` as `folder`/decomposition_tree.json, atomically, after checking that it reads back as a
    tree (a writer that drifts from the reader fails here, not in a later tool)."""
    _nodes, notes, layout = parse_nodes(data)
    if layout != "nodes" or notes:
        raise TreeFormatError(notes[0] if notes else "a tree is written in the nodes layout", folder)
    return write_json_atomic(Path(folder) / TREE_FILE, data)


# ---- reading any layout -----------------------------------------------------------------------------------

_NODE_FIELDS = {"id", "name", "level", "path", "children", "input_shapes", "output_shapes", "input_dtypes",
                "output_dtypes", "instance_count", "step"}


def _as_dict(value: Any) -> dict[str, Any]:
    """Shapes written as a list (`[[10, 3, 224, 224]]`) become {"t0": ...} so every reader sees a dict."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return {f"t{i}": v for i, v in enumerate(value)}
    return {}


def norm_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _node(key: str, raw: dict[str, Any], *, name: str, level: int | None, path: str | None,
          children: list[str] | None = None) -> TreeNode:
    ic = raw.get("instance_count")
    step = raw.get("step") if isinstance(raw.get("step"), str) else raw.get("step_dir")
    extra = {k: v for k, v in raw.items() if k not in _NODE_FIELDS}
    if level is None and "level" in raw:
        extra["level"] = raw["level"]     # written back as it was
    written = raw.get("children") if children is None else children
    return TreeNode(
        id=key, name=name, level=level, path=path,
        children=[str(c) for c in written or [] if isinstance(c, (str, int)) and not isinstance(c, bool)],
        input_shapes=_as_dict(raw.get("input_shapes")), output_shapes=_as_dict(raw.get("output_shapes")),
        input_dtypes=_as_dict(raw.get("input_dtypes")), output_dtypes=_as_dict(raw.get("output_dtypes")),
        instance_count=ic if isinstance(ic, int) and not isinstance(ic, bool) else None,
        step=step if isinstance(step, str) else None, extra=extra)


def parse_nodes(data: dict[str, Any], *, strict: bool = False) -> tuple[dict[str, TreeNode], list[str], str | None]:
    """Every node of a tree file in any layout, keyed by a unique key; (nodes, notes, layout).

    Children stay as written (ids, names or file paths): `child_aliases` maps them to keys. `notes` say
    which parts could not be read; `layout` is "nodes", "tree" or "levels", None when there is none.
    `strict` reads levels as the validator wants them (no "L1"; in our layout, a node's level is its own,
    not its folder's)."""
    nodes: dict[str, TreeNode] = {}
    notes: list[str] = []

    def add(node: TreeNode) -> str:
        key, n = node.id, 2
        while key in nodes:
            key, n = f"{node.id}#{n}", n + 1
        node.id = key
        nodes[key] = node
        return key

    def level_of(raw: dict[str, Any], *keys: str) -> int | None:
        for k in keys:
            level = parse_level(raw.get(k), strict=strict)
            if level is not None:
                return level
        return None

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    if isinstance(data.get("nodes"), dict):
        for key, raw in data["nodes"].items():
            if not isinstance(raw, dict):
                notes.append(f"node {key!r} is not an object")
                continue
            path = text(raw.get("path"))
            level = parse_level(raw.get("level"), strict=strict)
            if level is None and not strict:
                level = level_of_path(path)
            add(_node(str(key), raw, name=str(raw.get("name", key)), level=level, path=path))
        return nodes, notes, "nodes"
    if isinstance(data.get("levels"), dict):
        for folder, block in data["levels"].items():
            folder_level = parse_level(folder, strict=strict)
            if not isinstance(block, dict):
                notes.append(f"levels.{folder} is not an object")
                continue
            if isinstance(block.get("components"), list):
                for raw in block["components"]:
                    if not isinstance(raw, dict):
                        continue
                    path = text(raw.get("file"))
                    name = str(raw.get("name") or raw.get("file") or "?")
                    level = level_of(raw, "level", "type")
                    level = level if level is not None else folder_level
                    add(_node(name, raw, name=name, path=path,
                              level=level if level is not None else level_of_path(path)))
            else:
                for fname, raw in block.items():
                    if not isinstance(raw, dict):
                        continue
                    path = fname if "/" in fname.replace("\\", "/") else f"{folder}/{fname}"
                    level = level_of(raw, "level", "type")
                    add(_node(path, raw, name=str(raw.get("name", Path(fname).stem)), path=path,
                              level=level if level is not None else folder_level))
        return nodes, notes, "levels"
    if isinstance(data.get("tree"), dict):
        top = data["tree"]
        if isinstance(top.get("children"), list) and ("name" in top or "file" in top):
            def walk(raw: dict[str, Any]) -> str:
                child_keys = [walk(c) for c in raw.get("children") or [] if isinstance(c, dict)]
                path = text(raw.get("file"))
                level = level_of(raw, "level_num", "level")
                return add(_node(path or str(raw.get("name", "?")), raw, name=str(raw.get("name", path or "?")),
                                 path=path, level=level if level is not None else level_of_path(path),
                                 children=child_keys))
            walk(top)
        else:
            for path, raw in top.items():
                if not isinstance(raw, dict):
                    continue
                level = level_of(raw, "level", "type")
                add(_node(path, raw, name=str(raw.get("name", Path(path).stem)), path=path,
                          level=level if level is not None else level_of_path(path)))
        return nodes, notes, "tree"
    notes.append("no nodes found (expected 'nodes', 'levels' or 'tree')")
    return nodes, notes, None


def child_aliases(nodes: dict[str, TreeNode]) -> dict[str, str]:
    """Every way a child may be written (key, name, file path) -> the node's key; an id always wins over a
    name or path that happens to be equal. Ambiguous names map to the first node."""
    alias: dict[str, str] = {}
    for key, node in nodes.items():
        for name in {key, node.name, *([norm_path(node.path)] if node.path else [])}:
            alias.setdefault(name, key)
    alias.update({key: key for key in nodes})
    return alias


def resolve_children(nodes: dict[str, TreeNode]) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """Map every node's children (ids, names or paths) to node keys: ({key: [child keys]}, unresolved)."""
    alias = child_aliases(nodes)
    edges: dict[str, list[str]] = {}
    unresolved: list[tuple[str, str]] = []
    for key, node in nodes.items():
        resolved = []
        for child in node.children:
            target = alias.get(child) or alias.get(norm_path(child))
            if target is None:
                unresolved.append((key, child))
            else:
                resolved.append(target)
        edges[key] = resolved
    return edges, unresolved


def load_decomposition(root: str | Path) -> DecompositionTree:
    """The tree of the decomposition folder `root`; HdecompError when the folder has no tree file (not a
    decomposition) or it cannot be read."""
    tree_file = Path(root) / TREE_FILE
    if not tree_file.is_file():
        raise HdecompError(f"no {TREE_FILE}: not a decomposition folder", root)
    return DecompositionTree.load(tree_file)
