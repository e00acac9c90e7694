"""The output folder's layout: the level folders, the `steps/step_<N>_<name>/` folders and their files, and
each node's verdict as the step results record it. Torch-free; the one place that matches a step to the
node it decomposes (the CLI, the pipeline and the language server's tree view all ask here)."""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import read_json
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeNode
from hdecomp.formats.weight_map import WEIGHT_MAP_FILE
from hdecomp.vocab.levels import LEVEL_DIRS

RESULT_FILE = "verification_result.json"

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
        p = self.dir / WEIGHT_MAP_FILE
        return p if p.exists() else None

    @property
    def result_file(self) -> Path:
        return self.dir / RESULT_FILE

    @property
    def coverage_file(self) -> Path:
        return self.dir / "coverage_report.json"

    def child_files(self) -> list[Path]:
        d = self.children_dir
        if not d.is_dir():
            return []
        return sorted(p for p in d.glob("*.py") if not p.name.startswith("__"))


def step_sort_key(p: Path) -> tuple[int, str]:
    """Step folders in their number's order (step_2 before step_10), any other folder after them by name."""
    m = STEP_DIR_RE.match(p.name)
    return (int(m.group(1)) if m else 10**9, p.name)


_MODEL_NEW = re.compile(r"^class[ \t]+ModelNew\b", re.MULTILINE)


def is_replacement_candidate(path: Path) -> bool:
    """A `<kernel>_new.py` with `class ModelNew` beside a kernel file: a replacement a user is writing
    (`hdecomp replace`), not a component of the tree."""
    if not path.name.endswith("_new.py"):
        return False
    try:
        return bool(_MODEL_NEW.search(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return False


def level_files(folder: Path) -> list[Path]:
    """The component files of one level folder (no `__init__.py`, no replacement candidates)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("__") and not is_replacement_candidate(p))


def component_files(root: str | Path) -> list[Path]:
    """Every component file in the level folders (level_3_model/ .. level_0_kernel/), model first."""
    root = Path(root)
    files: list[Path] = []
    for lvl in (3, 2, 1, 0):
        files.extend(level_files(root / LEVEL_DIRS[lvl]))
    return files


def source_key(path: Path) -> str | None:
    """A content fingerprint for matching copies of one component (whitespace at line ends ignored).

    Matching a tree's nodes to its steps compares every node's file with every step's original.py: each
    file is read and hashed once while it stays unchanged (keyed by its modification time and size)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return _source_key(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _source_key(path: str, mtime_ns: int, size: int) -> str | None:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
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
    for d in sorted((p for p in steps_dir.iterdir() if p.is_dir()), key=step_sort_key):
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


class StepIndex:
    """The steps of a tree by folder name, by the resolved path of their original.py and by its content, so
    that matching every node to its step reads and resolves each file once."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.by_name: dict[str, Step] = {}
        self.by_path: dict[Path, int] = {}
        self.by_key: dict[str, int] = {}
        for i, s in enumerate(steps):
            self.by_name.setdefault(s.dir.name, s)
            if s.original is not None:
                self.by_path.setdefault(s.original.resolve(), i)
                if (key := source_key(s.original)) is not None:
                    self.by_key.setdefault(key, i)


def step_for_node(tree: DecompositionTree, node: TreeNode, steps: list[Step] | StepIndex) -> Step | None:
    """The step that decomposes `node`: the tree's `step` field; else the first step whose original.py has
    the same content as the node's file (copies) or resolves to it (symlinks); else, as the original
    workspace named them, `step_<N>_<node id>` or `step_<N>_<node id>_to_<level>s`."""
    index = steps if isinstance(steps, StepIndex) else StepIndex(steps)
    if node.step and (by_name := index.by_name.get(Path(node.step).name)) is not None:
        return by_name
    p = tree.abs_path(node)
    if p is not None and p.exists():
        found = [i for i in (index.by_path.get(p), index.by_key.get(source_key(p) or "")) if i is not None]
        if found:
            return index.steps[min(found)]
    named = re.compile(rf"step_\d+_{re.escape(node.id)}(_to_\w+)?")
    return next((s for s in index.steps if named.fullmatch(s.dir.name)), None)


TEST_RESULTS_FILE = "test_results.json"


def read_result_file(path: str | Path) -> dict[str, Any] | None:
    """A result file (verification_result.json, test_results.json, ...) as a dict; None when there is
    none or it cannot be read (a half-written or hand-broken file counts as no result)."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_test_results(root: str | Path) -> dict[str, Any] | None:
    """verification/test_results.json of a decomposition (the self-tests and the composition verdict)."""
    return read_result_file(Path(root) / "verification" / TEST_RESULTS_FILE)


PROFILE_FILE = "profile.json"   # verification/profile.json, written by `hdecomp profile`


def read_profile_components(root: str | Path) -> dict[str, dict[str, Any]]:
    """The components of a decomposition's verification/profile.json by node id ({} when it was not
    profiled, or the file cannot be read). Pure JSON reading (the language server uses it too)."""
    doc = read_result_file(Path(root) / "verification" / PROFILE_FILE)
    comps = doc.get("components") if doc is not None else None
    return {c["id"]: c for c in (comps if isinstance(comps, list) else [])
            if isinstance(c, dict) and isinstance(c.get("id"), str)}


def step_status(step: Step) -> str:
    """"pass" | "fail" | "error" from the step's verification_result.json, "unverified" when there is
    none (or it cannot be read)."""
    data = read_result_file(step.result_file) or {}
    status = str(data.get("status", "")).upper()
    return {"PASS": "pass", "FAIL": "fail", "ERROR": "error"}.get(status, "unverified")


@dataclass
class NodeStatus:
    """A node's verdict: `status` ("pass" | "fail" | "error" | "unverified"), `step` (the step that
    decomposes the node, if any) and `verified_by` (the step whose result gives the verdict: its own, or
    for a leaf its parent's, which checked it as a child)."""

    status: str
    step: Step | None = None
    verified_by: Step | None = None


def node_statuses(tree: DecompositionTree, steps: list[Step] | None = None) -> dict[str, NodeStatus]:
    """Every node's verdict. Kernels and other leaves without a step take their parent step's verdict
    (they were checked as that step's children); a one-kernel model (a kernel root, no step) takes the
    composition test's."""
    if steps is None:
        steps = discover_steps(tree.root_dir, tree) if tree.root_dir is not None else []
    index = StepIndex(steps)
    own: dict[str, Step] = {}
    for node, _ in tree.walk():
        step = step_for_node(tree, node, index)
        if step is not None:
            own[node.id] = step
    for nid, node in tree.nodes.items():   # nodes the walk from the root does not reach
        if nid not in own and (step := step_for_node(tree, node, index)) is not None:
            own[nid] = step
    out: dict[str, NodeStatus] = {}
    for nid, node in tree.nodes.items():
        if nid in own:
            out[nid] = NodeStatus(step_status(own[nid]), own[nid], own[nid])
            continue
        parent_step = own.get(node.parent) if node.parent else None
        if parent_step is not None:
            out[nid] = NodeStatus(step_status(parent_step), None, parent_step)
        elif node.parent is None and node.is_kernel and nid == tree.root_id and tree.root_dir is not None:
            out[nid] = NodeStatus(composition_status(tree.root_dir))
        else:
            out[nid] = NodeStatus("unverified")
    return out


def composition_status(root: str | Path) -> str:
    """"pass" | "fail" | "error" from the composition verdict in verification/test_results.json,
    "unverified" when there is none."""
    verdict = str((read_test_results(root) or {}).get("composition_test", "")).upper()
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
