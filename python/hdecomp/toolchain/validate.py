"""`hdecomp validate DIR`: check a whole decomposition output tree against the schemas and the rules.

Checks, each problem reported with the file it is about:
  files    the files and folders of the layout are present (DESIGN.md, "Output tree");
  schema   every JSON file is valid against its schema in data/schema/ (jsonschema, draft 2020-12);
  tree     every leaf is a kernel, levels descend along every edge (a layer may hold layers: a block's
           attention, a stage's blocks), every node's path exists and
           sits in its level's folder, the tree has one root;
  steps    every step has original.py, refactored.py, children/ and a PASS verification_result.json;
  kernels  kernel file names are shape-based (`{op}_{shape_signature}_{dtype}.py`, lower case) and
           no two kernel files are one workload (hdecomp.vocab.workload: the decomposer's key);
  components  every component file defines Model (refactored.py: RefactoredModel), get_inputs() and
           get_init_inputs(), and has a self-test.
The original workspace's older decomposition_tree.json layouts are read as they are.
Pure file reading: no torch import, no user code run.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hdecomp.errors import EXIT_FAIL, EXIT_PASS, HdecompError
from hdecomp.formats.jsonio import JsonFileError, read_json_file
from hdecomp.formats.layout import level_files, step_sort_key
from hdecomp.formats.log import LOG_FILE
from hdecomp.formats.tree import TREE_FILE, TreeNode, norm_path, parse_nodes, resolve_children
from hdecomp.formats.weight_map import WEIGHT_MAP_FILE
from hdecomp.paths import data_dir
from hdecomp.vocab.levels import LEVEL_DIR_RE, LEVEL_DIRS, LEVEL_NAMES, descends, level_of_path
from hdecomp.vocab.workload import normalized_dump, workload_key

# file (relative to the decomposition folder, or a glob) -> schema name in data/schema/
SCHEMA_FOR_FILE = {
    "decomposition_tree.json": "decomposition_tree",
    "decomposition_log.json": "decomposition_log",
    "verification/test_results.json": "test_results",
    "verification/step_verification_summary.json": "step_verification_summary",
    "verification/coverage_summary.json": "coverage_summary",
    "steps/*/verification_result.json": "verification_result",
    "steps/*/coverage_report.json": "coverage_report",
    f"steps/*/{WEIGHT_MAP_FILE}": "weight_map",
    "verification/profile.json": "profile",
}
SCHEMA_NAMES = sorted(set(SCHEMA_FOR_FILE.values()))

REQUIRED_FILES = (
    "decomposition_tree.json",
    "verification/composition_test.py",
    "verification/test_results.json",
    "verification/step_verification_summary.json",
    "verification/coverage_summary.json",
)
RECOMMENDED_FILES = ("decomposition_analysis.md", "decomposition_log.json")

# Kernel naming: `{op}_{shape_signature}_{dtype}`; dtype codes as in the original workspace.
KERNEL_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
DTYPE_TOKENS = frozenset({"fp64", "fp32", "fp16", "bf16", "fp8", "f64", "f32", "f16", "i64", "i32", "i16",
                          "i8", "u8", "int64", "int32", "int16", "int8", "uint8", "bool", "c64", "c128",
                          "mixed", "any"})
# `_v2`, `_v3`: a second workload that would otherwise get the same name (decompose/naming.py).
_VARIANT_TOKEN = re.compile(r"^v\d+$")
# First words that name a position or a role, not an operation.
GENERIC_FIRST_TOKENS = frozenset({"kernel", "op", "ops", "component", "child", "node", "module", "layer",
                                  "fusion", "model", "unnamed", "tmp", "temp", "test", "new", "part",
                                  "step", "block"})
# nn modules that own parameters or buffers: their kernels need a shape signature in the name.
PARAMETRISED_MODULES = frozenset({
    "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d",
    "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm",
    "PReLU", "MultiheadAttention", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
    "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer",
})


@dataclass(frozen=True)
class ValidationProblem:
    """One thing wrong with a decomposition, about one file (relative to the decomposition folder)."""

    file: str
    message: str
    check: str  # files | schema | tree | steps | kernels | components
    severity: str = "error"  # error (exit 1) | warning (reported only)
    line: int | None = None

    @property
    def location(self) -> str:
        return self.file + (f":{self.line}" if self.line else "")


@dataclass
class ValidationReport:
    """Everything `validate` found; `exit_code` is 1 when any error-level problem was found."""

    root: Path
    problems: list[ValidationProblem] = field(default_factory=list)
    json_files: int = 0
    nodes: int = 0
    steps: int = 0
    kernels: int = 0

    @property
    def errors(self) -> list[ValidationProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[ValidationProblem]:
        return [p for p in self.problems if p.severity != "error"]

    @property
    def status(self) -> str:
        return "FAIL" if self.errors else "PASS"

    @property
    def exit_code(self) -> int:
        return EXIT_FAIL if self.errors else EXIT_PASS

    def add(self, file: str | Path, message: str, check: str, severity: str = "error",
            line: int | None = None) -> None:
        problem = ValidationProblem(self._rel(file), message, check, severity, line)
        # two checks reading the same unreadable file say it once
        if not any((p.file, p.message, p.line) == (problem.file, message, line) for p in self.problems):
            self.problems.append(problem)

    def _rel(self, file: str | Path) -> str:
        path = Path(file)
        if path.is_absolute():
            try:
                path = path.relative_to(self.root)
            except ValueError:
                return path.as_posix()
        text = path.as_posix()
        return text if text != "." else "."

    def to_dict(self) -> dict[str, Any]:
        return {
            "dir": str(self.root),
            "status": self.status,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "checked": {"json_files": self.json_files, "nodes": self.nodes, "steps": self.steps,
                        "kernels": self.kernels},
            "problems": [asdict(p) for p in self.problems],
        }


# ---------------------------------------------------------------------------------------------- schemas

def schema_dir() -> Path:
    return data_dir() / "schema"


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema `data/schema/<name>.schema.json` (e.g. `load_schema("verification_result")`)."""
    path = schema_dir() / f"{name}.schema.json"
    if not path.is_file():
        raise HdecompError(f"no JSON schema named {name!r}", path)
    with open(path, encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


@functools.cache
def _validator(name: str) -> Any:
    import jsonschema  # imported here: only validation needs it

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_errors(data: Any, name: str, limit: int = 10) -> list[str]:
    """Schema violations of `data` against schema `name`, as `$.json.path: message` lines (at most `limit`)."""
    errors = sorted(_validator(name).iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    lines = []
    for err in errors[:limit]:
        lines.append(f"{_json_path(err.absolute_path)}: {_short(_error_message(err))}")
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more schema errors")
    return lines


def _error_message(err: Any) -> str:
    """jsonschema's message without the (possibly huge) offending value, plus the reasons of anyOf/oneOf."""
    message = str(err.message)
    shown = repr(err.instance)
    if len(shown) > 60 and message.startswith(shown):
        message = "the value" + message[len(shown):]
    if err.validator in ("anyOf", "oneOf") and err.context:
        reasons: list[str] = []
        for sub in sorted(err.context, key=lambda e: len(list(e.relative_path))):
            where = _json_path(sub.relative_path)
            text = _error_message(sub)
            reason = text if where == "$" else f"{where[2:]}: {text}"
            if reason not in reasons:
                reasons.append(reason)
        message += ": " + " | ".join(reasons[:3])
    return message


def _short(message: str, width: int = 200) -> str:
    return message if len(message) <= width else message[: width - 3] + "..."


def schema_for(relative: str) -> str | None:
    """The schema name for a file path relative to a decomposition folder, if it has one."""
    parts = Path(relative).parts
    for pattern, name in SCHEMA_FOR_FILE.items():
        pattern_parts = Path(pattern).parts
        if len(parts) == len(pattern_parts) and all(p == "*" or p == q for p, q in zip(pattern_parts, parts, strict=True)):
            return name
    return None


def _read_json(path: Path, report: ValidationReport) -> tuple[bool, Any]:
    """(ok, data): a JSON file read, with a problem added when it cannot be read or parsed."""
    try:
        return True, read_json_file(path)
    except JsonFileError as exc:
        report.add(path, exc.cause, "schema", line=exc.line)
        return False, None


def _check_json(path: Path, name: str, report: ValidationReport) -> tuple[bool, Any]:
    """Read a JSON file and validate it against schema `name`; (valid, data)."""
    report.json_files += 1
    ok, data = _read_json(path, report)
    if not ok:
        return False, None
    errors = schema_errors(data, name)
    for line in errors:
        report.add(path, f"does not match schema {name}: {line}", "schema")
    return not errors, data


# ---------------------------------------------------------------------------------------------- tree

def _check_tree(root: Path, report: ValidationReport) -> dict[str, TreeNode]:
    tree_file = root / TREE_FILE
    if not tree_file.is_file():
        return {}
    _valid, data = _check_json(tree_file, "decomposition_tree", report)
    if not isinstance(data, dict):
        return {}
    nodes, notes, _layout = parse_nodes(data, strict=True)
    for note in notes:
        report.add(tree_file, note, "tree")
    report.nodes = len(nodes)
    if not nodes:
        return nodes
    edges, unresolved = resolve_children(nodes)
    for parent, child in unresolved:
        child_path = root / norm_path(child)
        if child.endswith(".py") and child_path.is_file():
            # Older layouts list some leaf files as children without a node of their own.
            level = level_of_path(child, strict=True)
            if level != 0:
                where = f"its folder is level {level}" if level is not None else "it is in no level_0_kernel/ folder"
                report.add(tree_file, f"leaf {child!r} (child of {parent!r}) is not a kernel ({where}); "
                           "decompose it further", "tree")
            parent_level = nodes[parent].level
            if level is not None and parent_level is not None and not descends(parent_level, level):
                report.add(tree_file, f"level does not descend: {parent!r} (level {nodes[parent].level}) -> "
                           f"{child!r} (level {level})", "tree")
            continue
        report.add(tree_file, f"child {child!r} of node {parent!r} is not a node of the tree", "tree")

    referenced = {c for children in edges.values() for c in children}
    roots = [k for k in nodes if k not in referenced]
    if len(roots) != 1:
        what = ", ".join(repr(r) for r in roots[:5]) if roots else "none (a cycle?)"
        report.add(tree_file, f"the tree must have exactly one root node; found {len(roots)}: {what}", "tree")

    for key, node in nodes.items():
        if node.level is None:
            report.add(tree_file, f"node {key!r} has no valid level (expected 0-3 or model/layer/fusion/kernel)",
                       "tree")
        children = edges.get(key, [])
        if not children and not node.children and node.level not in (None, 0):
            report.add(tree_file, f"leaf node {key!r} is level {node.level} ({LEVEL_NAMES[node.level]}), "
                       "not a kernel: decompose it down to level 0", "tree")
        for child in children:
            child_level = nodes[child].level
            if node.level is not None and child_level is not None and not descends(node.level, child_level):
                report.add(tree_file, f"level does not descend: {key!r} (level {node.level}) -> child "
                           f"{child!r} (level {child_level})", "tree")
        if not node.path:
            report.add(tree_file, f"node {key!r} has no path (every component is a file)", "tree")
            continue
        path = Path(node.path)
        full = (path if path.is_absolute() else root / norm_path(node.path)).resolve()
        if not full.is_relative_to(root):
            report.add(tree_file, f"node {key!r}: path {node.path!r} is outside the decomposition folder",
                       "tree")
        elif not full.is_file():
            report.add(tree_file, f"node {key!r}: path {node.path!r} does not exist", "tree")
        folder_level = level_of_path(node.path, strict=True)
        if folder_level is not None and node.level is not None and folder_level != node.level:
            report.add(tree_file, f"node {key!r} is level {node.level} but its file is in "
                       f"{LEVEL_DIRS[folder_level]}/", "tree")
    return nodes


# ---------------------------------------------------------------------------------------------- steps

def _check_steps(root: Path, report: ValidationReport, nodes: dict[str, TreeNode]) -> None:
    steps_dir = root / "steps"
    root_level = _root_level(nodes)
    if not steps_dir.is_dir():
        if root_level != 0:
            report.add("steps", "missing: every decomposition step (original.py, refactored.py, children/, "
                       "verification_result.json) is kept under steps/", "files")
        return
    step_dirs = sorted((d for d in steps_dir.iterdir() if d.is_dir() and not d.name.startswith((".", "__"))),
                       key=step_sort_key)
    report.steps = len(step_dirs)
    if not step_dirs and root_level != 0:
        report.add("steps", "no step folders: the decomposition has no verified steps", "steps")
    for step in step_dirs:
        rel = f"steps/{step.name}"
        if not re.match(r"^step_\d+_[A-Za-z0-9_]+$", step.name):
            report.add(rel, "step folder names are step_<N>_<name> (e.g. step_1_model_to_layers)", "steps",
                       severity="warning")
        for name in ("original.py", "refactored.py"):
            if not (step / name).is_file():
                report.add(f"{rel}/{name}", "missing", "steps")
        children = step / "children"
        if not children.is_dir() or not any(children.glob("*.py")):
            report.add(f"{rel}/children", "missing or empty: the step's child component files live here", "steps")
        elif (step / "refactored.py").is_file():
            for line, module in missing_child_imports(step / "refactored.py"):
                report.add(f"{rel}/refactored.py:{line}", f"imports {module!r} but {rel}/children/"
                           f"{module.split('.')[-1]}.py does not exist (nor an installed module of that name)",
                           "steps")
        result_file = step / "verification_result.json"
        if not result_file.is_file():
            report.add(result_file, "missing: run hdecomp verify-step --original original.py --refactored "
                       "refactored.py --output verification_result.json in the step folder", "steps")
        else:
            _valid, data = _check_json(result_file, "verification_result", report)
            if isinstance(data, dict):
                status = data.get("status")
                if status != "PASS":
                    reason = data.get("fail_reason") or data.get("error") or ""
                    report.add(result_file, f"step status is {status!r}, not PASS"
                               + (f" ({_short(str(reason), 120)})" if reason else ""), "steps")
                anticheat = data.get("anticheat")
                if isinstance(anticheat, dict) and anticheat.get("status") == "SKIPPED":
                    report.add(result_file, "anti-cheat was skipped for this step", "steps", severity="warning")
        for optional, schema in (("coverage_report.json", "coverage_report"), (WEIGHT_MAP_FILE, "weight_map")):
            if (step / optional).is_file():
                _check_json(step / optional, schema, report)
        if not (step / "coverage_report.json").is_file():
            report.add(f"{rel}/coverage_report.json", "missing (hdecomp pipeline writes it)", "steps",
                       severity="warning")
    _check_steps_cover_parents(root, report, nodes, step_dirs)


def missing_child_imports(refactored: Path) -> list[tuple[int, str]]:
    """(line, module) of each `from children.X import ...` / `from children import X` whose file is absent.
    The verifier would fail to import such a step; a half-copied step folder is caught here, statically."""
    try:
        tree = ast.parse(refactored.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return []  # reported by the component checks
    missing: list[tuple[int, str]] = []
    children = refactored.parent / "children"

    def absent(name: str) -> bool:
        return not (children / f"{name}.py").is_file() and not (children / name / "__init__.py").is_file()

    def unknown_top_level(name: str) -> bool:
        # the original workspace's layout imports children as top-level modules (children/ on sys.path)
        if not absent(name) or (refactored.parent / f"{name}.py").is_file():
            return False
        if name in sys.stdlib_module_names:
            return False
        try:
            return importlib.util.find_spec(name) is None  # top-level lookup only: runs no module code
        except (ImportError, ValueError):
            return True

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "children":
                if len(parts) == 1 and unknown_top_level(parts[0]):
                    missing.append((node.lineno, node.module))
                continue
            if len(parts) >= 2 and absent(parts[1]):
                missing.append((node.lineno, node.module))
            elif len(parts) == 1:
                missing.extend((node.lineno, f"children.{a.name}") for a in node.names
                               if a.name != "*" and absent(a.name))
        elif isinstance(node, ast.Import):
            missing.extend((node.lineno, a.name) for a in node.names
                           if "." not in a.name and unknown_top_level(a.name))
    return missing


def _root_level(nodes: dict[str, TreeNode]) -> int | None:
    levels = [n.level for n in nodes.values() if n.level is not None]
    return max(levels) if levels else None


def _check_steps_cover_parents(root: Path, report: ValidationReport, nodes: dict[str, TreeNode],
                               step_dirs: list[Path]) -> None:
    """Every decomposed node (one with children) should have a step whose original.py is its code."""
    step_sources = set()
    for step in step_dirs:
        source = normalised_source_of(step / "original.py")
        if source is not None:
            step_sources.add(source)
    seen: set[str] = set()
    for key, node in nodes.items():
        if not node.children or not node.path or node.path in seen:
            continue
        seen.add(node.path)
        full = root / norm_path(node.path)
        source = normalised_source_of(full) if full.is_file() else None
        if source is not None and source not in step_sources:
            report.add(node.path, f"node {key!r} has children but no step verifies its decomposition "
                       "(no steps/*/original.py holds the same code)", "steps", severity="warning")


# ---------------------------------------------------------------------------------------------- kernels

def normalised_source_of(path: Path) -> str | None:
    """The code of a Python file up to layout, comments and docstrings (None if unreadable or unparsable)."""
    try:
        return normalized_dump(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def kernel_has_parameters(source: str) -> bool:
    """True when the kernel's module owns weights or buffers (so its name needs a shape signature)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("Parameter", "register_buffer", "register_parameter") or name in PARAMETRISED_MODULES:
            return True
    return False


def kernel_name_problems(stem: str, has_parameters: bool) -> list[str]:
    """Why a kernel file name (without .py) breaks the naming rule `{op}_{shape_signature}_{dtype}`."""
    if not KERNEL_NAME_RE.match(stem):
        return [f"kernel file name {stem!r} must be lower-case letters, digits and underscores, "
                "starting with the operation (e.g. linear_768x3072_fp32.py)"]
    tokens = stem.split("_")
    problems = []
    if tokens[0] in GENERIC_FIRST_TOKENS and all(t.isdigit() or t in GENERIC_FIRST_TOKENS or t in DTYPE_TOKENS
                                                 for t in tokens[1:]):
        problems.append(f"kernel file name {stem!r} must start with the operation it computes "
                        f"(e.g. linear_, conv2d_, relu_), not {tokens[0]!r}")
    shape_tokens = [t for t in tokens[1:] if (any(ch.isdigit() for ch in t) or t == "scalar")
                    and t not in DTYPE_TOKENS and not _VARIANT_TOKEN.match(t)]
    if has_parameters and not shape_tokens:
        problems.append(f"kernel {stem!r} has weights: its name needs their shape signature "
                        "(e.g. linear_768x3072_fp32.py)")
    return problems


def _check_kernels(root: Path, report: ValidationReport) -> None:
    kernel_dir = root / LEVEL_DIRS[0]
    files = level_files(kernel_dir)
    report.kernels = len(files)
    if not files:
        report.add(LEVEL_DIRS[0], "missing or empty: a decomposition ends in kernel files", "files")
        return
    first_of_workload: dict[str, Path] = {}
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            report.add(path, f"cannot read: {exc}", "kernels")
            continue
        for message in kernel_name_problems(path.stem, kernel_has_parameters(source)):
            report.add(path, message, "kernels")
        tokens = path.stem.split("_")
        while len(tokens) > 1 and _VARIANT_TOKEN.match(tokens[-1]):
            tokens.pop()
        if tokens[-1] not in DTYPE_TOKENS:
            report.add(path, "kernel file names end with the dtype (e.g. _fp32)", "kernels", severity="warning")
        try:
            # (at their shapes: two elementwise kernels of other shapes are the lint's finding, Q4, not an error)
            key = workload_key(source)
        except SyntaxError:
            report.add(path, "not valid Python", "kernels")
            continue
        if key in first_of_workload:
            report.add(path, f"same code as {first_of_workload[key].name} up to names and docstrings: kernels "
                       "are deduplicated (one file per workload); import that file instead", "kernels")
        else:
            first_of_workload[key] = path


# ---------------------------------------------------------------------------------------------- components

def component_file_problems(source: str, model_class: str = "Model") -> list[tuple[str, int | None, str]]:
    """(message, line, severity) for a component file that breaks the KernelBench convention."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [(f"not valid Python: {exc.msg}", exc.lineno, "error")]
    defined = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined |= {(a.asname or a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    problems: list[tuple[str, int | None, str]] = []
    missing = [name for name in (model_class, "get_inputs", "get_init_inputs") if name not in defined]
    if missing:
        problems.append((f"not a component file: missing {', '.join(missing)} (class {model_class}, "
                         "get_inputs(), get_init_inputs())", None, "error"))
    has_main = any(isinstance(n, ast.If) and "__main__" in ast.dump(n.test) for n in tree.body)
    if not has_main and model_class == "Model":
        problems.append(("no self-test: `python file.py` should build the model, run it and print PASS",
                         None, "warning"))
    return problems


def _check_components(root: Path, report: ValidationReport) -> None:
    files: list[tuple[Path, str]] = []
    for level in sorted(LEVEL_DIRS.values()):
        files += [(p, "Model") for p in level_files(root / level)]
    for step in sorted((root / "steps").glob("*/")) if (root / "steps").is_dir() else []:
        files += [(p, "Model") for p in sorted((step / "children").glob("*.py")) if not p.name.startswith("__")]
        if (step / "refactored.py").is_file():
            files.append((step / "refactored.py", "RefactoredModel"))
    for path, cls in files:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            report.add(path, f"cannot read: {exc}", "components")
            continue
        for message, line, severity in component_file_problems(source, cls):
            report.add(path, message, "components", severity=severity, line=line)


# ---------------------------------------------------------------------------------------------- files

def _check_files(root: Path, report: ValidationReport) -> None:
    for name in REQUIRED_FILES:
        if not (root / name).is_file():
            hint = {
                "decomposition_tree.json": "the hierarchy of components",
                "verification/composition_test.py": "run hdecomp compose",
                "verification/test_results.json": "run hdecomp test and hdecomp compose",
                "verification/step_verification_summary.json": "run hdecomp pipeline",
                "verification/coverage_summary.json": "run hdecomp coverage",
            }[name]
            report.add(name, f"missing ({hint})", "files")
    for name in RECOMMENDED_FILES:
        if not (root / name).is_file():
            report.add(name, "missing (recommended)", "files", severity="warning")
    if (root / LOG_FILE).is_file():
        _check_json(root / LOG_FILE, "decomposition_log", report)

    summary = root / "verification" / "step_verification_summary.json"
    if summary.is_file():
        _, data = _check_json(summary, "step_verification_summary", report)
        # NO_STEPS: a tree whose root is a kernel has nothing to verify step by step (_check_steps
        # reports a missing step wherever the root is not a kernel).
        if isinstance(data, dict) and data.get("status") not in (None, "PASS", "NO_STEPS"):
            report.add(summary, f"pipeline status is {data.get('status')!r}, not PASS", "steps")
    tests = root / "verification" / "test_results.json"
    if tests.is_file():
        _, data = _check_json(tests, "test_results", report)
        if isinstance(data, dict):
            if isinstance(data.get("failed"), int) and data["failed"] > 0:
                report.add(tests, f"{data['failed']} component self-test(s) failed", "files")
            composition = data.get("composition_test")
            if composition is not None and str(composition).upper() not in ("PASS", "PASSED"):
                report.add(tests, f"composition test is {composition!r}, not PASS", "files")
    coverage = root / "verification" / "coverage_summary.json"
    if coverage.is_file():
        _, data = _check_json(coverage, "coverage_summary", report)
        if isinstance(data, dict) and data.get("status") not in (None, "FULL_COVERAGE", "PASS"):
            report.add(coverage, f"coverage status is {data.get('status')!r}", "files", severity="warning")


# ---------------------------------------------------------------------------------------------- entry points

def is_decomposition(root: Path) -> bool:
    """A folder looks like a decomposition when it has a tree file, steps/ or a level folder."""
    if not root.is_dir():
        return False
    if (root / TREE_FILE).is_file() or (root / "steps").is_dir():
        return True
    return any(p.is_dir() and LEVEL_DIR_RE.match(p.name) for p in root.iterdir())


def validate_decomposition(root: str | Path) -> ValidationReport:
    """Check a whole decomposition output folder; raises HdecompError if it is not one."""
    root = Path(root).resolve()
    if not root.exists():
        raise HdecompError("no such folder", root)
    if not is_decomposition(root):
        raise HdecompError("not a decomposition folder (no decomposition_tree.json, steps/ or level_N_* "
                           "folders)", root)
    report = ValidationReport(root)
    _check_files(root, report)
    nodes = _check_tree(root, report)
    _check_steps(root, report, nodes)
    _check_kernels(root, report)
    _check_components(root, report)
    return report
