"""`hdecomp validate --quality DIR`: is the tree one a kernel engineer would draw?

Verification proves a tree computes the model; this lint asks whether it is the tree an expert would
write by hand, on any tree (ours or an agent's), from the tree file and the component files alone:

- Q1 fusable: a fusion holds one contraction (matmul/linear/conv/bmm/einsum/addmm/sdpa/grouped GEMM) with
  its prologue and epilogue; the attention core (two contractions around a softmax), a gated MLP's
  gate/up pair (contractions of one input) and squeeze-excitation (pool, two contractions, a sigmoid gate)
  count as one.
- Q2 named by role: a fusion's or layer's name is not a list of the ops it holds, and never ends in `_etc`.
- Q3 kernels take tensors and own their weights: no tuple/list/dict inputs holding tensors (a tuple of
  numbers is a size argument), no slicing of their own packed weight.
- Q4 one file per workload: kernel files that are one workload by hdecomp.vocab.workload (the code up to
  docstrings, the self-test and the names of values and attributes; the decomposer's own key) are one file.
- Q5 constants are not kernels: a kernel with no tensor input and no weights computes a constant from sizes
  (a random draw is no constant).
- Q6 levels by size: a fusion holds 2-5 compute ops (a pattern kept whole, `rope`, `rope_tables`,
  `attention_core`, up to 8; one packaged module or library function counts the kernels its step calls; a
  call handed tensors in a list, such as torchvision's LastLevelMaxPool, may hold one: its op is the kernel
  below it, which takes tensors, Q3), a kernel one (arithmetic on Python numbers, such as
  `(t.max().item() + 4) // 4`, is host code, no compute op).
- Q7 readable signatures: a kernel's or fusion's inputs are not the generator's positional `x0`, `x1`, ...
- Q8 roles from structure: a fusion or layer named by a fallback (`pointwise`, `reduction`, `matmul_epilogue`,
  `linear_epilogue`, `conv_epilogue`) where a role rule (hdecomp.vocab.roles.role_of) matches its ops, with
  the integer-ness of its values (mask and position work), and never after an op it does not hold
  (`matmul_epilogue` of an outer product).
- Q9 one file per repeated component: fusions and layers of one level, one role, the same input and output
  shapes and dtypes and the same children are one workload, and one file (a `layer_idx` that does not change
  the computation is no reason for a second file).
- Q10 no kernels of pure plumbing: a kernel whose ops only move data (an in-place copy into a slice, a write
  of one tensor into another) computes nothing; it stays plumbing in the parent.

Each finding names the rule, the file and the component; the exit code is 1 when there is any.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hdecomp.anticheat.static.values import dotted_name, holds_a_number
from hdecomp.errors import HdecompError
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError, TreeNode
from hdecomp.vocab.dtypes import NUMBER_DTYPES
from hdecomp.vocab.levels import FUSION_OPS, level_name
from hdecomp.vocab.ops import nary_ops
from hdecomp.vocab.roles import (
    FALLBACK_ROLES,
    PATTERN_MAX_OPS,
    PATTERN_ROLES,
    ROLES,
    named_after_absent_op,
    role_of,
)
from hdecomp.vocab.workload import is_shape_free, workload_key

RULES = {
    "Q1": "fusion with several contractions",
    "Q2": "named by its op list",
    "Q3": "kernel takes a container or slices its own packed weight",
    "Q4": "duplicate kernel workload",
    "Q5": "constant-only kernel",
    "Q6": "level out of its size range",
    "Q7": "unnamed inputs",
    "Q8": "fallback name where a role matches",
    "Q9": "repeated fusion or layer",
    "Q10": "plumbing kernel",
}

# contractions by op name (lower case, leading underscores dropped): aten, torch and F spellings
CONTRACTIONS = frozenset("""
linear bilinear matmul mm bmm baddbmm addmm addbmm addmv mv einsum tensordot dot inner outer
conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d convolution
scaled_dot_product_attention grouped_mm
""".split())
# nn modules whose call is a contraction
CONTRACTION_MODULES = frozenset("""
Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d
LazyConv1d LazyConv2d LazyConv3d MultiheadAttention
""".split())
_ATTENTION_SOFTMAX = frozenset({"softmax", "_softmax", "safe_softmax"})
_VARIANT = re.compile(r"_v\d+$")
# shape and dtype tokens of a name (`conv_norm_act_64x3x7x7`, `linear_768x3072_fp32`): a signature, no role
_SIGNATURE = re.compile(r"^(\d+(x\d+)*|scalar|any|fp\d+|bf16|i\d+|u8|bool|c\d+)$")
# ops spelled by the Python operator module or our graph captures
_OPERATOR_OPS = frozenset("""
add sub mul truediv floordiv mod pow matmul neg pos invert and or xor lshift rshift getitem setitem
lt le gt ge eq ne iadd isub imul itruediv
""".split())
# random draws: a tensor made from sizes, yet no constant
_RANDOM_DRAWS = frozenset("rand randn randint randperm normal bernoulli multinomial poisson".split())
# calls that make a tensor in get_inputs()
_TENSOR_MAKERS = frozenset("""
rand randn randint randperm rand_like randn_like tensor as_tensor zeros ones full empty arange linspace
eye zeros_like ones_like full_like empty_like from_numpy normal bernoulli
""".split())


@dataclass
class Finding:
    rule: str
    level: str
    node: str
    file: str | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "title": RULES[self.rule], "level": self.level, "node": self.node,
                "file": self.file, "message": self.message}


@dataclass
class QualityReport:
    root: Path
    components: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0

    def totals(self) -> dict[str, dict[str, int]]:
        """Findings per rule, per level: {"Q1": {"fusion": 3}, ...}."""
        out: dict[str, dict[str, int]] = {}
        for f in self.findings:
            out.setdefault(f.rule, {}).setdefault(f.level, 0)
            out[f.rule][f.level] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"root": str(self.root), "components": self.components, "status": "FAIL" if self.findings else "PASS",
                "findings": [f.to_dict() for f in self.findings], "totals": self.totals(),
                "rules": RULES}


# ---- what a component file says ----------------------------------------------------------------------


@dataclass
class _File:
    source: str
    tree: ast.Module
    model: ast.ClassDef | None
    forward: ast.FunctionDef | None
    inputs: list[ast.expr] | None          # get_inputs()'s returned list items, when a list literal
    modules: dict[str, str] | None = None   # attr -> op name of the submodules, where not read off __init__

    @property
    def params(self) -> list[str]:
        if self.forward is None:
            return []
        a = self.forward.args
        return [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if p.arg != "self"]


def _read(path: Path) -> _File | None:
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    model = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "Model"), None)
    forward = None
    if model is not None:
        forward = next((s for s in model.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None)
    inputs = None
    fn = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "get_inputs"), None)
    if fn is not None:
        ret = next((s for s in ast.walk(fn) if isinstance(s, ast.Return)), None)
        if ret is not None and isinstance(ret.value, (ast.List, ast.Tuple)):
            inputs = list(ret.value.elts)
    return _File(source, tree, model, forward, inputs)


def _step_parent(root: Path, node: TreeNode) -> tuple[_File, ast.ClassDef, dict[str, str]] | None:
    """A decomposed component's step parent: its refactored.py read, its `RefactoredModel` class, and the
    child classes it imports (alias -> the child file's stem). None where it has no step or none is read."""
    f = _read(root / node.step / "refactored.py") if node.step else None
    model = next((s for s in f.tree.body if isinstance(s, ast.ClassDef) and s.name == "RefactoredModel"), None) \
        if f is not None else None
    if f is None or model is None:
        return None
    stems = {a.asname or a.name: s.module.split(".", 1)[1] for s in f.tree.body
             if isinstance(s, ast.ImportFrom) and s.module and s.module.startswith("children.") for a in s.names}
    return f, model, stems


def _step_view(root: Path, tree: DecompositionTree, node: TreeNode) -> _File | None:
    """A decomposed component's forward as its step's refactored.py writes it, each child call named by
    what the child holds (a contraction, a softmax, else its first op): what Q1 counts where the component's
    own file only subclasses a package module (`class Model(LlamaMLP)`)."""
    parent = _step_parent(root, node)
    if parent is None:
        return None
    f, model, stems = parent
    forward = next((s for s in model.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None)
    modules: dict[str, str] = {}
    for attr, cls in _module_attrs(model).items():
        child = tree.nodes.get(stems.get(cls, ""))
        ops = [str(o) for o in child.extra.get("ops") or []] if child is not None else []
        if any(_is_contraction(o) for o in ops):
            modules[attr] = "linear"
        elif any(_norm_op(o) in _ATTENTION_SOFTMAX for o in ops):
            modules[attr] = "softmax"
        elif ops:
            modules[attr] = ops[0]
    return _File(f.source, f.tree, model, forward, None, modules)


def _kernel_calls(view: _File) -> int:
    """The calls of a step view's forward, and of the methods it carries (a library function's body split as
    one: torchvision's `postprocess_detections`), to children that compute (a constant child holds a
    tensor)."""
    modules = view.modules or {}
    code = view.model if view.model is not None else view.forward
    if code is None:
        return 0
    return sum(1 for c in ast.walk(code)
               if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
               and isinstance(c.func.value, ast.Name) and c.func.value.id == "self" and c.func.attr in modules
               and modules[c.func.attr] not in ("parameter", "buffer") and _compute([modules[c.func.attr]]))


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _numbers_only(node: TreeNode) -> bool:
    """Every tensor a component takes and returns is a number, 0-dim and integer or bool (a Python value
    recorded beside them is none), and it takes one at least."""
    def numbers(shapes: dict[str, Any], dtypes: dict[str, Any]) -> list[bool]:
        return [shapes.get(k) == [] and str(dtypes.get(k)) in NUMBER_DTYPES
                for k in shapes if isinstance(shapes.get(k), list)]

    ins = numbers(node.input_shapes, node.input_dtypes)
    return bool(ins) and all(ins) and all(numbers(node.output_shapes, node.output_dtypes))


def _module_attrs(model: ast.ClassDef) -> dict[str, str]:
    """self.<attr> = <Class>(...) in __init__: attr -> class name (a number kept in a tensor, `torch.tensor(6)`,
    is neither a module nor a weight)."""
    out: dict[str, str] = {}
    for node in ast.walk(model):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                not holds_a_number(node.value, dotted_name(node.value.func) or ""):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    out[t.attr] = _call_name(node.value)
    return out


def _parameter_attrs(model: ast.ClassDef) -> set[str]:
    out = set()
    for node in ast.walk(model):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _call_name(node.value) == "Parameter":
            out |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
        if isinstance(node, ast.Call) and _call_name(node) in ("register_buffer", "register_parameter") and \
                node.args and isinstance(node.args[0], ast.Constant) and not (
                    len(node.args) > 1 and isinstance(node.args[1], ast.Call) and
                    holds_a_number(node.args[1], dotted_name(node.args[1].func) or "")):   # (a number is no weight)
            out.add(str(node.args[0].value))
    return out


def _forward_calls(f: _File) -> list[tuple[str, str | None]]:
    """The forward's calls in evaluation order, each as (op, its first operand as code): a submodule call by
    its class name, `x.matmul(w)` with the receiver as operand, `a @ b` as matmul. Plumbing (views, sizes)
    is not told apart here: callers filter."""
    if f.forward is None or f.model is None:
        return []
    modules = f.modules if f.modules is not None else _module_attrs(f.model)
    calls: list[tuple[str, str | None]] = []
    for node in _postorder(f.forward):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                    and func.attr in modules:
                name = modules[func.attr]
            else:
                name = _call_name(node)
            operand: ast.expr | None = node.args[0] if node.args else None
            if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and
                                                        func.value.id in ("self", "torch", "F")):
                operand = func.value     # x.matmul(w): the receiver is the first operand
            if name:
                calls.append((name, ast.dump(operand) if operand is not None else None))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            calls.append(("matmul", ast.dump(node.left)))
    return calls


def _forward_ops(f: _File) -> list[str]:
    """The forward's ops in evaluation order (_forward_calls without their operands)."""
    return [name for name, _ in _forward_calls(f)]


def _postorder(node: ast.AST) -> Any:
    """The nodes under `node` in evaluation order (operands before the call that takes them)."""
    for child in ast.iter_child_nodes(node):
        yield from _postorder(child)
    yield node


def _norm_op(name: str) -> str:
    return name.lower().lstrip("_").rstrip("_")


def _is_contraction(op: str) -> bool:
    return op in CONTRACTION_MODULES or _norm_op(op) in CONTRACTIONS


def _contractions(f: _File, ops: list[str]) -> tuple[int, list[str]]:
    """Contractions of the forward (counted on its source; on the recorded op list where the forward only
    calls a packaged module), where contractions of one input (a gate/up pair, q/k/v projections: one
    grouped GEMM) and two around a softmax (the attention core) count as one; and their names."""
    calls = _contraction_calls(f)
    seq = [_norm_op(o) for o in (_forward_ops(f) or ops)]
    if _squeeze_excitation(seq):
        return 1, [o for o in seq if _is_contraction(o)]
    if not calls:
        names = [o for o in ops if _is_contraction(o)]
        return len(names), names
    count, inputs, attention_open = 0, set(), False
    for _name, first, softmax_before in calls:
        if first is not None and first in inputs:
            continue
        if first is not None:
            inputs.add(first)
        if attention_open and softmax_before:
            attention_open = False
            continue
        count += 1
        attention_open = True
    return count, [c[0] for c in calls]


_POOLS = frozenset({"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptiveavgpool1d",
                    "adaptiveavgpool2d", "adaptiveavgpool3d", "mean", "avg_pool2d"})
_GATES = frozenset({"sigmoid", "hardsigmoid", "hard_sigmoid", "gate"})


def _squeeze_excitation(ops: list[str]) -> bool:
    """pool -> contraction -> ... -> contraction -> sigmoid gate: squeeze-excitation, one fused kernel (two
    GEMVs on a pooled vector)."""
    idx = [i for i, o in enumerate(ops) if _is_contraction(o)]
    if len(idx) != 2:
        return False
    return any(o in _POOLS for o in ops[:idx[0]]) and any(o in _GATES for o in ops[idx[1] + 1:])


def _contraction_calls(f: _File) -> list[tuple[str, str | None, bool]]:
    """(op, its first operand as code, whether a softmax ran since the last contraction) for each
    contraction of the forward, in source order."""
    out: list[tuple[str, str | None, bool]] = []
    softmax = False
    for name, code in _forward_calls(f):
        if _norm_op(name) in _ATTENTION_SOFTMAX:
            softmax = True
        elif _is_contraction(name):
            out.append((name, code, softmax))
            softmax = False
    return out


@functools.cache
def _op_vocabulary() -> frozenset[str]:
    import torch
    import torch.nn.functional as F
    names = {n.lower().rstrip("_") for src in (torch, F, torch.Tensor, torch.special, torch.linalg) for n in dir(src)
             if not n.startswith("__")}
    names |= {n.lower() for n in dir(torch.nn) if isinstance(getattr(torch.nn, n, None), type)}
    return frozenset({n for n in names if n} | _OPERATOR_OPS)


def _segments(tokens: list[str], words: frozenset[str] | set[str]) -> int | None:
    """How many words of `words` the tokens split into, joined with '_' (fewest); None if they do not."""
    n = len(tokens)
    best: list[int | None] = [0] + [None] * n
    for i in range(1, n + 1):
        for j in range(i):
            prev = best[j]
            if prev is not None and "_".join(tokens[j:i]) in words and (best[i] is None or prev + 1 < best[i]):  # type: ignore[operator]
                best[i] = prev + 1
    return best[n]


def op_list_name(name: str, own_ops: list[str]) -> str | None:
    """Why `name` (a fusion's or layer's) lists ops instead of naming a role; None when it names a role."""
    base = _VARIANT.sub("", name)
    if base.endswith("_etc") or base == "etc":
        return f"{name!r} lists ops and ends in '_etc'"
    tokens = [t for t in base.split("_") if t and not _SIGNATURE.match(t)]
    if "_".join(tokens) in ROLES:
        return None
    # named after the module class it is (timm's `NormLinear`, EdgeNeXt's `SplitTransposeBlock`): the class
    # names its role, even where its words are op names
    if any(o[:1].isupper() and o.lower() == "".join(tokens).lower() for o in own_ops):
        return None
    words = set(_op_vocabulary()) | {_norm_op(o) for o in own_ops}
    count = _segments(tokens, words)
    if count is not None and count >= 2:
        return f"{name!r} is a list of ops, not a role"
    return None


# ---- the lint ----------------------------------------------------------------------------------------


def check_quality(root: str | Path) -> QualityReport:
    """Every quality finding of the decomposition in `root` (its decomposition_tree.json and files)."""
    root = Path(root)
    if not (root / TREE_FILE).exists():
        raise HdecompError("not a decomposition (no decomposition_tree.json)", root)
    try:
        tree = DecompositionTree.load(root)
    except TreeFormatError as exc:
        raise HdecompError(exc.cause, root / TREE_FILE) from exc
    report = QualityReport(root=root)
    seen_files: dict[str, TreeNode] = {}
    for node in tree.nodes.values():
        if node.path and node.path not in seen_files:
            seen_files[node.path] = node
    report.components = len(seen_files)
    workloads: dict[str, str] = {}
    for rel, node in sorted(seen_files.items(), key=lambda kv: (kv[1].level or 0, kv[0])):
        f = _read(root / rel)
        if f is None:
            continue
        _check_node(report, tree, node, rel, f, workloads)
    _check_repeats(report, tree, seen_files)
    report.findings.sort(key=lambda x: (x.rule, x.file or "", x.node))
    return report


def _container_inputs(f: _File) -> list[int]:
    """The positions of the file's inputs that are containers of tensors (a tuple of numbers is a size argument,
    BEiT's `window_size=(4, 4)`, not a container of tensors)."""
    return [i for i, e in enumerate(f.inputs or []) if isinstance(e, (ast.Tuple, ast.List, ast.Dict))
            and not _constants_only(e)]


def _check_node(report: QualityReport, tree: DecompositionTree, node: TreeNode, rel: str, f: _File,
                workloads: dict[str, str]) -> None:
    level = node.level
    lname = level_name(level)
    recorded_ops = node.extra.get("ops")
    ops = [str(o) for o in recorded_ops] if isinstance(recorded_ops, list) and recorded_ops else _forward_ops(f)

    def add(rule: str, message: str) -> None:
        report.findings.append(Finding(rule, lname, node.id, rel, message))

    is_root = node.id == tree.root_id
    if level == 1:
        view = _step_view(report.root, tree, node) if not _forward_ops(f) else None
        n, names = _contractions(view, []) if view is not None else _contractions(f, ops)
        if n > 1:
            add("Q1", f"{n} contractions ({', '.join(names)}): a fusion holds one, or a known multi-contraction "
                      "pattern (attention core, gate/up pair, squeeze-excitation)")
        compute = _without(_compute(ops), _host_ops(f))
        size = len(compute)
        if len(compute) == 1 and _container_inputs(f):
            size = FUSION_OPS[0]   # (a call handed tensors in a list around one op: the op is its kernel, Q3)
        elif len(compute) == 1:
            # one packaged module or library function (`create_causal_mask`, torchvision's
            # `postprocess_detections`): the kernels its step calls (an activation module is one op), else
            # its recorded op count
            view = _step_view(report.root, tree, node)
            if view is not None and view.modules:
                size = _kernel_calls(view)
            elif isinstance(node.extra.get("op_count"), int):
                size = int(node.extra["op_count"])
        most = PATTERN_MAX_OPS if _role_name(node.name) in PATTERN_ROLES else FUSION_OPS[1]
        # (a chain of one associative op counts once against the most, as its ops against the least: two adds
        # are two kernels unfused)
        if size < FUSION_OPS[0] or (len(nary_ops(compute)) if len(compute) > 1 else size) > most:
            add("Q6", f"{size} compute ops: a fusion holds {FUSION_OPS[0]}-{most}")
    if level in (1, 2) and not is_root:
        why = op_list_name(node.name, ops)
        if why is not None:
            add("Q2", why + " (name components by role: the module's attribute or class, or the pattern)")
        why = fallback_name(node, ops, f)
        if why is not None:
            add("Q8", why)
    if level in (0, 1):
        # the code generator's positional fallback names a value by its place (`x0, x1, ...`); a source
        # variable that happens to look alike (torchvision ShuffleNet's `x2` of `x1, x2 = x.chunk(2)`) is
        # the original's own name
        unnamed = [p for i, p in enumerate(f.params) if p == f"x{i}"]
        if unnamed:
            add("Q7", f"inputs named {', '.join(unnamed)}: keep the original values' names")
    if level != 0:
        return
    compute = _without(_compute(ops), _host_ops(f))
    if ops and all(_norm_op(o) in _WRITES or not _compute([o]) for o in ops) and \
            any(_norm_op(o) in _WRITES for o in ops) and not _indexed_write(f):
        add("Q10", f"its ops ({', '.join(ops)}) write one tensor into another and compute nothing: plumbing "
                   "stays in the parent")
    if len(compute) > 1:
        add("Q6", f"{len(compute)} ops ({', '.join(compute)}): a kernel holds one")
    if f.inputs is not None:
        containers = _container_inputs(f)
        if containers:
            add("Q3", f"input {', '.join(str(i) for i in containers)} is a container: a kernel takes tensors")
    if f.model is not None and f.forward is not None:
        params = _parameter_attrs(f.model)
        sliced = sorted({a.value.attr for a in ast.walk(f.forward)
                         if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Attribute)
                         and isinstance(a.value.value, ast.Name) and a.value.value.id == "self"
                         and a.value.attr in params})
        sliced += sorted({c.func.value.attr for c in ast.walk(f.forward)
                          if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                          and c.func.attr in ("chunk", "split", "narrow", "unbind", "tensor_split")
                          and isinstance(c.func.value, ast.Attribute) and isinstance(c.func.value.value, ast.Name)
                          and c.func.value.value.id == "self" and c.func.value.attr in params})
        if sliced:
            add("Q3", f"slices its own weight {', '.join(dict.fromkeys(sliced))}: a packed weight's part becomes "
                      "the parameter of the kernel that uses it")
        has_weights = bool(params) or bool(_module_attrs(f.model))
        tensor_inputs = f.inputs is None or any(
            isinstance(c, ast.Call) and _call_name(c) in _TENSOR_MAKERS for e in f.inputs for c in ast.walk(e))
        # a random draw (Reformer's LSH rotations, `torch.randn(...)` in the forward) is no constant
        draws = any(isinstance(c, ast.Call) and _call_name(c) in _RANDOM_DRAWS for c in ast.walk(f.forward))
        if not has_weights and not tensor_inputs and not draws:
            add("Q5", "no tensor input and no weights: a constant computed from sizes stays plumbing in the "
                      "parent, or becomes a buffer of the child that reads it")
        elif not has_weights and not draws and _numbers_only(node):
            add("Q5", "computes on numbers only (0-dim integer or bool tensors in and out: a padding amount, a "
                      "count): host arithmetic, which stays in the parent")
    if f.model is not None:
        # the decomposer's own key (its file names): a tree it writes never has two files of one workload
        key = workload_key(f.source, shape_free=is_shape_free(True, ops))
        first = workloads.setdefault(key, rel)
        if first != rel:
            add("Q4", f"the same workload as {first}: one file per workload")


# ops that write one tensor into another (in place, or into a slice of it)
_WRITES = frozenset({"copy", "setitem", "index_put", "slice_scatter", "select_scatter", "fill", "zero",
                     "masked_scatter", "index_copy"})


def _indexed_write(f: _File) -> bool:
    """The forward writes through an index tensor it is handed (`out[idx] = v`, `x.index_put_((idx,), v)`): a
    scatter, which is work of its own, not a copy into a slice."""
    if f.forward is None:
        return False
    params = set(f.params)
    for node in ast.walk(f.forward):
        sub = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(sub, ast.Subscript) and any(isinstance(n, ast.Name) and n.id in params
                                                  for n in ast.walk(sub.slice)):
            return True
        if isinstance(node, ast.Call) and _call_name(node) in ("index_put", "index_put_", "index_copy",
                                                                 "index_copy_", "masked_scatter", "masked_scatter_"):
            return True
    return False


def _role_name(name: str) -> str:
    """A component's name without its variant (`_v2`) and its shape and dtype tokens (`_2x16x32`)."""
    return "_".join(t for t in _VARIANT.sub("", name).split("_") if t and not _SIGNATURE.match(t))


def _integer_values(node: TreeNode, f: _File) -> bool:
    """The component reads integer or bool tensors only (by the tree's input dtypes) and holds no weights, as
    vocab.roles.role_of's `integer` says (a float mask made from an integer one in the parent reads as float
    here: the decomposer, which sees the cast, names it; the lint does not ask)."""
    if f.model is not None and (_parameter_attrs(f.model) or _module_attrs(f.model)):
        return False
    dtypes = [str(d) for d in (node.input_dtypes or {}).values()]
    # (a tensor's dtype: `int64`, `bool`; a Python number handed beside it reads `int` or `float`, no tensor)
    tensors = [d for d in dtypes if re.match(r"^(float\d+|bfloat16|int\d+|uint\d+|bool|complex\d+)$", d)]
    return bool(tensors) and all(re.match(r"^(int|uint|bool)", d) for d in tensors)


def fallback_name(node: TreeNode, ops: list[str], f: _File) -> str | None:
    """Why a fusion's or layer's name is a fallback where a role rule matches its ops, or names an op the
    component does not hold (rule Q8); None when it does neither."""
    base = _role_name(node.name)
    if not ops or any(o[:1].isupper() for o in ops):
        return None     # a submodule (its ops are its class): named after the module
    absent = named_after_absent_op(base, ops)
    if absent is not None:
        return f"{node.name!r} is named after a {absent} it does not hold (ops: {', '.join(ops)})"
    if base not in FALLBACK_ROLES:
        return None
    floats = [str(d) for d in (node.output_dtypes or {}).values() if re.match(r"^(float|bfloat)", str(d))]
    role = role_of(ops, integer=_integer_values(node, f), float_out=bool(floats))
    if role not in FALLBACK_ROLES:
        return f"{node.name!r} is a fallback name: its ops ({', '.join(ops)}) are a {role!r}"
    return None


def _own_code(root: Path, node: TreeNode) -> str:
    """What a decomposed component computes besides its children: its step's refactored parent (every method,
    its plumbing included: MaxViT's grid partition views and permutes its tokens otherwise than its block
    partition), with its children's classes, its attributes' names and the plain numbers it hands its children
    left out (two layers calling their own attention files alike are alike; HRM's stacks hand their layers
    their own `cycle_offset`, which the children's files tell apart where it matters). "" where it has no
    step."""
    parent = _step_parent(root, node)
    if parent is None:
        return ""
    _, model, children = parent
    attrs: dict[str, str] = {}

    def number(e: ast.expr) -> bool:
        return isinstance(e, ast.Constant) and type(e.value) in (int, float)

    class Canonical(ast.NodeTransformer):
        def visit_Call(self, n: ast.Call) -> ast.AST:
            callee = n.func.value if isinstance(n.func, ast.Subscript) else n.func
            if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self":
                n.args = [ast.Constant(...) if number(a) else a for a in n.args]
                for kw in n.keywords:
                    kw.value = ast.Constant(...) if number(kw.value) else kw.value
            self.generic_visit(n)
            if isinstance(n.func, ast.Name) and n.func.id in children:
                n.func.id = "child"
            return n

        def visit_Attribute(self, n: ast.Attribute) -> ast.AST:
            self.generic_visit(n)
            if isinstance(n.value, ast.Name) and n.value.id == "self":
                n.attr = attrs.setdefault(n.attr, f"a{len(attrs)}")
            return n

    body = [s for s in model.body if isinstance(s, ast.FunctionDef)]
    for fn in body:
        if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
            fn.body = fn.body[1:]   # (the docstring names the step)
    return "\n".join(ast.dump(Canonical().visit(fn)) for fn in body)


def _check_repeats(report: QualityReport, tree: DecompositionTree, files: dict[str, TreeNode]) -> None:
    """Rule Q9: fusions and layers of one level and role, with the same input/output shapes and dtypes, the
    same children (their files, a repeated child counted as the file it repeats) and the same code of their own
    (_own_code), in files of their own. Read from the leaves up, so that two decoder layers whose attentions
    repeat each other repeat too."""
    heights: dict[str, int] = {}

    def height(nid: str, seen: frozenset[str] = frozenset()) -> int:
        if nid not in heights:
            node = tree.nodes.get(nid)
            kids = [c for c in (node.children if node else []) if c not in seen]
            heights[nid] = 1 + max((height(c, seen | {nid}) for c in kids), default=-1)
        return heights[nid]

    same: dict[str, str] = {}     # a file -> the file it repeats
    first: dict[tuple[Any, ...], str] = {}
    for rel, node in sorted(files.items(), key=lambda kv: (height(kv[1].id), kv[0])):
        if node.level not in (1, 2) or node.id == tree.root_id or not node.children:
            continue
        paths = [(tree.nodes[c].path if c in tree.nodes else None) or c for c in node.children]
        kids = tuple(same.get(p, p) for p in paths)
        key = (node.level, _role_name(node.name), repr(sorted((node.input_shapes or {}).items())),
               repr(sorted((node.input_dtypes or {}).items())), repr(sorted((node.output_shapes or {}).items())),
               kids, _own_code(report.root, node))
        seen = first.setdefault(key, rel)
        if seen != rel:
            same[rel] = seen
            report.findings.append(Finding("Q9", level_name(node.level), node.id, rel,
                                           f"repeats {seen}: the same role, shapes and children; calls that "
                                           "compute alike share one file (a layer index is no reason for two)"))


_BINOP_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Div: "div",
                ast.Mod: "mod", ast.Pow: "pow"}
_CMP_NAMES = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_SCALAR_CALLS = frozenset({"item", "size", "dim", "numel", "int", "float", "len", "min", "max"})


def _host_ops(f: _File) -> list[str]:
    """The forward's arithmetic and comparisons on Python numbers (`n = t.max().item(); (n + 4) // 4`):
    host code, not compute ops of the kernel. Numbers are literals, `.item()`, sizes, and what is computed
    from numbers alone."""
    if f.forward is None:
        return []
    scalars: set[str] = set()

    def scalar(e: ast.expr) -> bool:
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float, bool))
        if isinstance(e, ast.Name):
            return e.id in scalars
        if isinstance(e, ast.Call):
            name = _call_name(e)
            if name in ("min", "max", "int", "float", "len"):
                return isinstance(e.func, ast.Name) and all(scalar(a) for a in e.args)
            return name in _SCALAR_CALLS and isinstance(e.func, ast.Attribute)
        if isinstance(e, ast.Attribute) and e.attr in ("ndim",):
            return True
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            return True
        if isinstance(e, ast.BinOp):
            return scalar(e.left) and scalar(e.right)
        if isinstance(e, ast.UnaryOp):
            return scalar(e.operand)
        if isinstance(e, ast.Compare):
            return scalar(e.left) and all(scalar(c) for c in e.comparators)
        return False

    found: list[str] = []
    for node in ast.walk(f.forward):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and scalar(node.value):
            scalars.add(node.targets[0].id)
    for node in _postorder(f.forward):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_NAMES and scalar(node):
            found.append(_BINOP_NAMES[type(node.op)])
        elif isinstance(node, ast.Compare) and scalar(node):
            found += [_CMP_NAMES[type(o)] for o in node.ops if type(o) in _CMP_NAMES]
    return found


def _without(ops: list[str], drop: list[str]) -> list[str]:
    """`ops` with each name of `drop` taken out once (by its normalised name)."""
    out = list(ops)
    for d in drop:
        hit = next((i for i, o in enumerate(out) if _norm_op(o) == d), None)
        if hit is not None:
            del out[hit]
    return out


def _constants_only(e: ast.expr) -> bool:
    """A literal of constants only (`(4, 4)`, `[-1, 2.0]`, nested ones too) or of sizes that follow the batch
    (`(batch_size, 8, 3, 72, 72)`, an input shape handed on): sizes and flags, no tensors."""
    return all(isinstance(n, (ast.Tuple, ast.List, ast.Constant, ast.UnaryOp, ast.expr_context, ast.unaryop,
                              ast.BinOp, ast.operator)) or (isinstance(n, ast.Name) and n.id == "batch_size")
               for n in ast.walk(e))


def _compute(ops: list[str]) -> list[str]:
    from hdecomp.vocab.ops import is_compute_op
    return [o for o in ops if is_compute_op(o)]


def quality_totals(root: str | Path) -> dict[str, dict[str, int]] | None:
    """check_quality(root).totals(), None where root holds no readable tree (for sweeps)."""
    try:
        return check_quality(root).totals()
    except HdecompError:
        return None


def sum_totals(many: list[dict[str, dict[str, int]] | None]) -> dict[str, dict[str, int]]:
    """Quality totals of several trees added up, per rule and level."""
    out: dict[str, dict[str, int]] = {}
    for totals in many:
        for rule, by_level in (totals or {}).items():
            for level, n in by_level.items():
                out.setdefault(rule, {}).setdefault(level, 0)
                out[rule][level] += n
    return out


def totals_text(totals: dict[str, dict[str, int]]) -> str:
    """`Q1 fusion 3; Q5 kernel 2` (rules in order), or `none`."""
    parts = [f"{rule} {level} {n}" for rule in sorted(totals) for level, n in sorted(totals[rule].items())]
    return "; ".join(parts) or "none"


# ---- CLI ---------------------------------------------------------------------------------------------
