"""The decomposition's bookkeeping files as dataclasses: decomposition_tree.json and decomposition_log.json.

`DecompositionTree.load()` reads our format (DESIGN.md: `metadata` + `nodes{id: ...}` + `data_flow`) and
the shapes trees written for the original workspace actually take (`tree{path: {...}}` keyed by file path,
or `levels{level_dir: {components: [...]}}`), so tools work on old decompositions unchanged. Unknown
fields are kept in `extra` and written back; `save()` writes our format atomically.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.results import read_json, write_json_atomic

TREE_FILE = "decomposition_tree.json"
LOG_FILE = "decomposition_log.json"

LEVEL_NAMES: dict[int, str] = {3: "model", 2: "layer", 1: "fusion", 0: "kernel"}
LEVEL_DIRS: dict[int, str] = {3: "level_3_model", 2: "level_2_layer", 1: "level_1_fusion", 0: "level_0_kernel"}
_LEVEL_BY_NAME = {name: lvl for lvl, name in LEVEL_NAMES.items()}
_LEVEL_BY_NAME.update({d: lvl for lvl, d in LEVEL_DIRS.items()})

LOG_ENTRY_TYPES = ("decision", "difficulty", "deviation")


class TreeFormatError(HdecompError):
    """decomposition_tree.json / decomposition_log.json is unreadable or not a decomposition tree."""


def parse_level(value: Any) -> int | None:
    """0..3 from an int, "kernel".."model", "level_2_layer", "L1", "2"; None when unrecognisable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in LEVEL_NAMES else None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _LEVEL_BY_NAME:
            return _LEVEL_BY_NAME[text]
        m = re.fullmatch(r"(?:l|level[_ ]?)?([0-3])(?:_\w+)?", text)
        if m:
            return int(m.group(1))
    return None


def level_name(level: int | None) -> str:
    return LEVEL_NAMES.get(level, "unknown") if level is not None else "unknown"


def level_from_path(path: str | None) -> int | None:
    """The level a component file's folder implies (`level_0_kernel/x.py` -> 0)."""
    if not path:
        return None
    for part in Path(path).parts:
        lvl = parse_level(part)
        if lvl is not None and part.startswith("level_"):
            return lvl
    return None


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
        rd = Path(root_dir) if root_dir is not None else None
        if isinstance(data.get("nodes"), dict):
            tree = cls._from_nodes_format(data)
        elif isinstance(data.get("tree"), dict):
            tree = cls._from_tree_format(data)
        elif isinstance(data.get("levels"), dict):
            tree = cls._from_levels_format(data)
        else:
            raise TreeFormatError("not a decomposition tree: no 'nodes' (or 'tree' / 'levels') object")
        tree.root_dir = rd
        tree._link_parents()
        return tree

    @classmethod
    def _from_nodes_format(cls, data: dict[str, Any]) -> DecompositionTree:
        known = {"id", "name", "level", "path", "children", "input_shapes", "output_shapes",
                 "input_dtypes", "output_dtypes", "instance_count", "step"}
        nodes: dict[str, TreeNode] = {}
        for key, raw in data["nodes"].items():
            if not isinstance(raw, dict):
                raise TreeFormatError(f"node {key!r} is not an object")
            path = raw.get("path") if isinstance(raw.get("path"), str) else None
            lvl = parse_level(raw.get("level"))
            if lvl is None:
                lvl = level_from_path(path)
            extra = {k: v for k, v in raw.items() if k not in known}
            if parse_level(raw.get("level")) is None and "level" in raw:
                extra["level"] = raw["level"]
            ic = raw.get("instance_count")
            nodes[str(key)] = TreeNode(
                id=str(raw.get("id", key)), name=str(raw.get("name", key)), level=lvl, path=path,
                children=[str(c) for c in raw.get("children") or []],
                input_shapes=_as_dict(raw.get("input_shapes")), output_shapes=_as_dict(raw.get("output_shapes")),
                input_dtypes=_as_dict(raw.get("input_dtypes")), output_dtypes=_as_dict(raw.get("output_dtypes")),
                instance_count=ic if isinstance(ic, int) and not isinstance(ic, bool) else None,
                step=raw.get("step") if isinstance(raw.get("step"), str) else None, extra=extra)
        # ids in the file are the dict keys; a node's own "id" field may disagree in hand-written trees
        for key, node in nodes.items():
            node.id = key
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        flow = [DataFlowEdge.from_dict(e) for e in data.get("data_flow") or [] if isinstance(e, dict)]
        extra = {k: v for k, v in data.items() if k not in ("metadata", "nodes", "data_flow")}
        tree = cls(metadata=TreeMetadata.from_dict(meta or {}), nodes=nodes, data_flow=flow,
                   source_format="nodes", extra=extra)
        tree.root_id = tree._find_root(preferred="root")
        return tree

    @classmethod
    def _from_tree_format(cls, data: dict[str, Any]) -> DecompositionTree:
        """Original workspace variant: `tree{"level_2_layer/x.py": {level, type, children: [paths]}}`."""
        nodes: dict[str, TreeNode] = {}
        for key, raw in data["tree"].items():
            raw = raw if isinstance(raw, dict) else {}
            lvl = parse_level(raw.get("level"))
            if lvl is None:
                lvl = parse_level(raw.get("type"))
            if lvl is None:
                lvl = level_from_path(key)
            extra = {k: v for k, v in raw.items() if k not in ("level", "children", "input_shapes",
                                                               "output_shapes")}
            nodes[key] = TreeNode(id=key, name=Path(key).stem, level=lvl, path=key,
                                  children=[str(c) for c in raw.get("children") or []],
                                  input_shapes=_as_dict(raw.get("input_shapes")),
                                  output_shapes=_as_dict(raw.get("output_shapes")), extra=extra)
        meta = TreeMetadata(model_name=data.get("model_name"), source_file=data.get("source"))
        extra = {k: v for k, v in data.items() if k not in ("tree",)}
        tree = cls(metadata=meta, nodes=nodes, source_format="tree", extra=extra)
        tree.root_id = tree._find_root()
        return tree

    @classmethod
    def _from_levels_format(cls, data: dict[str, Any]) -> DecompositionTree:
        """Original workspace variant: `levels{level_dir: {components: [{name, file, children: [names]}]}}`."""
        nodes: dict[str, TreeNode] = {}
        for level_key, block in data["levels"].items():
            lvl = parse_level(level_key)
            comps = block.get("components", []) if isinstance(block, dict) else []
            for raw in comps:
                if not isinstance(raw, dict) or "name" not in raw:
                    continue
                name = str(raw["name"])
                extra = {k: v for k, v in raw.items() if k not in ("name", "file", "children",
                                                                   "input_shapes", "output_shapes")}
                nodes[name] = TreeNode(id=name, name=name, level=lvl if lvl is not None
                                       else level_from_path(raw.get("file")),
                                       path=raw.get("file") if isinstance(raw.get("file"), str) else None,
                                       children=[str(c) for c in raw.get("children") or []],
                                       input_shapes=_as_dict(raw.get("input_shapes")),
                                       output_shapes=_as_dict(raw.get("output_shapes")), extra=extra)
        flow = [DataFlowEdge.from_dict(e) for e in data.get("data_flow") or [] if isinstance(e, dict)]
        meta = TreeMetadata(model_name=data.get("model_name"), source_file=data.get("source"))
        extra = {k: v for k, v in data.items() if k not in ("levels", "data_flow")}
        tree = cls(metadata=meta, nodes=nodes, data_flow=flow, source_format="levels", extra=extra)
        tree.root_id = tree._find_root()
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

    def missing_children(self) -> list[tuple[str, str]]:
        """(parent id, child id) pairs where a child id names no node."""
        return [(n.id, c) for n in self.nodes.values() for c in n.children if c not in self.nodes]

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

    def add_node(self, node: TreeNode, parent: str | None = None) -> TreeNode:
        self.nodes[node.id] = node
        if parent is not None:
            self.node(parent).children.append(node.id)
            node.parent = parent
        elif self.root_id is None:
            self.root_id = node.id
        return node


def _level_or(level: int | None, default: int) -> int:
    return level if level is not None else default


def _as_dict(value: Any) -> dict[str, Any]:
    """Shapes written as a list (`[[10, 3, 224, 224]]`) become {"input_0": ...} so every reader sees a dict."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return {f"t{i}": v for i, v in enumerate(value)}
    return {}


# ---- decomposition_log.json ------------------------------------------------------------------------------

@dataclass
class LogEntry:
    step: str | int | None
    type: str                                # decision | difficulty | deviation
    title: str
    description: str = ""
    resolution: str | None = None
    timestamp: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d.update({"step": self.step, "type": self.type, "title": self.title, "description": self.description,
                  "timestamp": self.timestamp})
        if self.resolution is not None:
            d["resolution"] = self.resolution
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LogEntry:
        known = {"step", "type", "title", "description", "resolution", "timestamp"}
        return cls(step=d.get("step"), type=str(d.get("type", "decision")), title=str(d.get("title", "")),
                   description=str(d.get("description", "")), resolution=d.get("resolution"),
                   timestamp=str(d.get("timestamp", "")), extra={k: v for k, v in d.items() if k not in known})


@dataclass
class DecompositionLog:
    """decomposition_log.json: `{entries: [{step, type, title, description, resolution?, timestamp}]}`."""

    entries: list[LogEntry] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> DecompositionLog:
        path = Path(path)
        if path.is_dir():
            path = path / LOG_FILE
        if not path.exists():
            return cls()
        try:
            data = read_json(path)
        except ValueError as exc:
            raise TreeFormatError(f"not valid JSON ({getattr(exc, 'msg', exc)})", path,
                                  getattr(exc, "lineno", None)) from exc
        if isinstance(data, list):  # a bare list of entries
            data = {"entries": data}
        if not isinstance(data, dict):
            raise TreeFormatError("expected {entries: [...]}", path)
        entries = [LogEntry.from_dict(e) for e in data.get("entries") or [] if isinstance(e, dict)]
        return cls(entries=entries, extra={k: v for k, v in data.items() if k != "entries"})

    def add(self, step: str | int | None, type: str, title: str, description: str = "",
            resolution: str | None = None) -> LogEntry:
        if type not in LOG_ENTRY_TYPES:
            raise ValueError(f"log entry type must be one of {LOG_ENTRY_TYPES}, not {type!r}")
        entry = LogEntry(step=step, type=type, title=title, description=description, resolution=resolution)
        self.entries.append(entry)
        return entry

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d["entries"] = [e.to_dict() for e in self.entries]
        return d

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.is_dir():
            path = path / LOG_FILE
        return write_json_atomic(path, self.to_dict())




# ---- steps/ ----------------------------------------------------------------------------------------------

STEP_DIR_RE = re.compile(r"^step_(\d+)(?:_(.*))?$")


@dataclass
class Step:
    """One step folder: `steps/step_<N>_<name>/` with original.py, refactored.py, children/, results.

    `original` is None when original.py is missing and the parent could not be found elsewhere; a
    symlinked original.py is followed (`original` is the resolved file)."""

    dir: Path
    number: int | None
    name: str
    original: Path | None
    refactored: Path
    original_source: str = "original.py"    # how `original` was found: original.py | symlink | tree | name
    problem: str | None = None              # why the step cannot be verified as it stands

    @property
    def children_dir(self) -> Path:
        return self.dir / "children"

    @property
    def weight_map(self) -> Path | None:
        p = self.dir / "weight_map.json"
        return p if p.exists() else None

    @property
    def result_file(self) -> Path:
        return self.dir / "verification_result.json"

    @property
    def coverage_file(self) -> Path:
        return self.dir / "coverage_report.json"

    def child_files(self) -> list[Path]:
        d = self.children_dir
        if not d.is_dir():
            return []
        return sorted(p for p in d.glob("*.py") if not p.name.startswith("__"))


def _step_sort_key(p: Path) -> tuple[int, str]:
    m = STEP_DIR_RE.match(p.name)
    return (int(m.group(1)) if m else 10**9, p.name)


def component_files(root: str | Path) -> list[Path]:
    """Every component file in the level folders (level_3_model/ .. level_0_kernel/), model first."""
    root = Path(root)
    files: list[Path] = []
    for lvl in (3, 2, 1, 0):
        d = root / LEVEL_DIRS[lvl]
        if d.is_dir():
            files.extend(sorted(p for p in d.glob("*.py") if not p.name.startswith("__")))
    return files


def source_key(path: Path) -> str | None:
    """A content fingerprint for matching copies of one component (whitespace at line ends ignored)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    import hashlib
    norm = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()


def discover_steps(root: str | Path, tree: DecompositionTree | None = None) -> list[Step]:
    """Every `steps/step_*` folder holding a refactored.py, in step order (number, then name).

    original.py may be a copy, a symlink (followed), or missing: then the parent is looked up in the tree
    (a node whose `step` names this folder) or by the step's name (`step_2_block1_to_fusions` -> a
    component file named `block1*`); when none or several match, `problem` says so."""
    root = Path(root)
    steps_dir = root / "steps"
    if not steps_dir.is_dir():
        return []
    out: list[Step] = []
    for d in sorted((p for p in steps_dir.iterdir() if p.is_dir()), key=_step_sort_key):
        refactored = d / "refactored.py"
        m = STEP_DIR_RE.match(d.name)
        number = int(m.group(1)) if m else None
        name = (m.group(2) or "") if m else d.name
        if not refactored.exists():
            if m and any(d.iterdir()):
                out.append(Step(dir=d, number=number, name=name, original=None, refactored=refactored,
                                problem="refactored.py is missing"))
            continue
        orig = d / "original.py"
        source = "original.py"
        problem = None
        original: Path | None = None
        if orig.is_symlink():
            target = orig.resolve()
            if target.exists():
                original, source = target, "symlink"
            else:
                problem = f"original.py is a broken symlink (to {target})"
        elif orig.exists():
            original = orig
        if original is None and problem is None:
            original, source, problem = _find_missing_original(root, d, name, tree)
        out.append(Step(dir=d, number=number, name=name, original=original, refactored=refactored,
                        original_source=source, problem=problem))
    return out


def _find_missing_original(root: Path, step_dir: Path, name: str,
                           tree: DecompositionTree | None) -> tuple[Path | None, str, str | None]:
    if tree is not None:
        node = tree.node_for_step(step_dir)
        p = tree.abs_path(node) if node else None
        if p is not None and p.exists():
            return p, "tree", None
    # step_2_block1_to_fusions -> "block1"; step_1_model_to_layers -> the model-level file
    base = re.sub(r"_to_(layers?|fusions?|kernels?)$", "", name)
    candidates: list[Path] = []
    if base in ("model", "") and (root / LEVEL_DIRS[3]).is_dir():
        candidates = [p for p in component_files(root) if p.parent.name == LEVEL_DIRS[3]]
    if not candidates and base:
        files = component_files(root)
        candidates = [p for p in files if p.stem == base] or \
                     [p for p in files if p.stem.startswith(base) or base in p.stem.replace("features_", "")]
    if len(candidates) == 1:
        return candidates[0], "name", None
    if not candidates:
        return None, "missing", "original.py is missing and no component file matches the step's name"
    names = ", ".join(p.name for p in candidates[:4])
    return None, "missing", f"original.py is missing and several component files could be its parent ({names})"


def step_for_node(tree: DecompositionTree, node: TreeNode, steps: list[Step]) -> Step | None:
    """The step that decomposes `node`: the tree's `step` field, else the step whose original.py has the
    same content as the node's file (copies) or resolves to it (symlinks)."""
    if node.step:
        for s in steps:
            if s.dir.name == Path(node.step).name:
                return s
    p = tree.abs_path(node)
    if p is None or not p.exists():
        return None
    key = source_key(p)
    for s in steps:
        if s.original is not None and (s.original.resolve() == p or source_key(s.original) == key):
            return s
    return None


def step_status(step: Step) -> str:
    """"pass" | "fail" | "error" from the step's verification_result.json, "unverified" when there is
    none (or it cannot be read: a half-written file counts as no result)."""
    try:
        data = read_json(step.result_file)
    except (OSError, ValueError):
        return "unverified"
    status = str(data.get("status", "")).upper() if isinstance(data, dict) else ""
    return {"PASS": "pass", "FAIL": "fail", "ERROR": "error"}.get(status, "unverified")


def node_statuses(tree: DecompositionTree, steps: list[Step] | None = None) -> dict[str, tuple[str, Step | None]]:
    """For every node: (status, the step that decomposes it). Kernels and other leaves without a step
    take their parent step's status (they were checked as that step's children)."""
    if steps is None:
        steps = discover_steps(tree.root_dir, tree) if tree.root_dir is not None else []
    out: dict[str, tuple[str, Step | None]] = {}
    for node, _ in tree.walk():
        step = step_for_node(tree, node, steps)
        if step is not None:
            out[node.id] = (step_status(step), step)
    for nid, node in tree.nodes.items():
        if nid not in out:
            parent = tree.nodes.get(node.parent) if node.parent else None
            inherited = out.get(parent.id) if parent is not None else None
            if parent is None and node.is_kernel and nid == tree.root_id and tree.root_dir is not None:
                # A one-kernel model (the root is a kernel, no step): the composition test checked it.
                out[nid] = (composition_status(tree.root_dir), None)
                continue
            out[nid] = (inherited[0] if inherited else "unverified", None)
    return out


def composition_status(root: str | Path) -> str:
    """"pass" | "fail" | "error" from the composition verdict in verification/test_results.json,
    "unverified" when there is none."""
    try:
        data = read_json(Path(root) / "verification" / "test_results.json")
    except (OSError, ValueError):
        return "unverified"
    verdict = str(data.get("composition_test", "")).upper() if isinstance(data, dict) else ""
    return {"PASS": "pass", "PASSED": "pass", "FAIL": "fail", "FAILED": "fail",
            "ERROR": "error"}.get(verdict, "unverified")


def batch_limit_note(root: str | Path, given: int | None) -> str | None:
    """A note for a command run on a tree without `--batch-limit` when the tree was made with one
    (metadata.batch_limit of decomposition_tree.json): it now runs at full size, maybe GPU-sized on a CPU."""
    if given is not None:
        return None
    try:
        data = read_json(Path(root) / TREE_FILE)
    except (OSError, ValueError):
        return None
    meta = data.get("metadata") if isinstance(data, dict) else None
    made = meta.get("batch_limit") if isinstance(meta, dict) else None
    if not isinstance(made, int) or isinstance(made, bool):
        return None
    return (f"this tree was made with --batch-limit {made} ({TREE_FILE}); running at full size now "
            f"(pass --batch-limit {made} to check it as it was made)")


__all__ = [
    "LEVEL_DIRS",
    "LEVEL_NAMES",
    "LOG_FILE",
    "TREE_FILE",
    "DataFlowEdge",
    "DecompositionLog",
    "DecompositionTree",
    "LogEntry",
    "Step",
    "TreeFormatError",
    "TreeMetadata",
    "TreeNode",
    "batch_limit_note",
    "component_files",
    "composition_status",
    "discover_steps",
    "level_from_path",
    "level_name",
    "node_statuses",
    "parse_level",
    "source_key",
    "step_for_node",
    "step_status",
]
