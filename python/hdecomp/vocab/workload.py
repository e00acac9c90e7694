"""What counts as the same code and as the same workload, decided once for every part that compares
component files: the decomposer's file names (one file per workload), export, the quality lint (Q4),
validate and the structural anti-cheat checks. Pure `ast`, torch-free."""

from __future__ import annotations

import ast
import hashlib
import re
from typing import TypeVar

from hdecomp.vocab.dtypes import FLOAT_DTYPES
from hdecomp.vocab.ops import SHAPE_FREE_OPS, snake

_Tree = TypeVar("_Tree", bound=ast.AST)

# The names a component file is called by: the workload is what they reach.
_ENTRY_POINTS = ("Model", "get_inputs", "get_input_kwargs", "get_init_inputs")
_INPUT_FUNCTIONS = frozenset(_ENTRY_POINTS[1:])
# an example input written as a 0-dim tensor (`torch.rand(())`, `torch.tensor(5, dtype=torch.int64)`)
_ZERO_DIM = re.compile(r"\(\(\)|torch\.tensor\([^\[\]()]*\)")
# the module-level name of a file's original batch (decompose.codegen writes `batch_size = 2`, and the inputs
# that scale with the batch read it)
BATCH = "batch_size"
# what registers an attribute of a module by a name given as a string
_REGISTERS = frozenset({"register_buffer", "register_parameter", "register_module", "add_module"})


def is_shape_free(kernel: bool, ops: list[str]) -> bool:
    """A kernel of one op whose work depends on the element count only (`relu`, `mul`: vocab.ops.SHAPE_FREE_OPS):
    one workload whatever its input shapes, and a name that carries no shapes."""
    return kernel and bool(ops) and snake(ops[0]) in SHAPE_FREE_OPS


def strip_docstrings(tree: _Tree, *, nested: bool = True) -> _Tree:
    """`tree` without the docstrings of its module, classes and functions (changed in place, returned);
    `nested=False`: without its own docstring only (a function's, kept whole otherwise)."""
    for node in ast.walk(tree) if nested else [tree]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalized_dump(source: str) -> str | None:
    """The code of `source` up to layout, comments and docstrings, as comparable text (None if it does not
    parse): equal for two files of the same code."""
    try:
        return ast.dump(strip_docstrings(ast.parse(source)), annotate_fields=False)
    except SyntaxError:
        return None


def workload_key(source: str, *, shape_free: bool = False) -> str:
    """The workload a component file (or the body the decomposer writes it from) defines, as a short hash.
    Two files are one workload when they are the same code up to:

    - docstrings, comments and layout;
    - the self-test (`if __name__ == "__main__":`) and what only it reads (EXPECTED_OUTPUTS, helpers):
      the workload is what Model, get_inputs(), get_input_kwargs() and get_init_inputs() reach;
    - the names of each function's arguments and locals, and of each class's own attributes (`self.fc`,
      `self.register_buffer("w", ...)`), numbered in order of appearance;
    - a name bound to a `.contiguous()` copy and read once after (`m = mask.contiguous(); sdpa(q, k, v, m)` is
      `sdpa(q, k, v, mask)`: one capture lays the mask out anew, another does not);
    - how a view or split is spelled: `torch.transpose(x, 1, 2)` is `x.transpose(1, 2)`, `x.view([1, -1])` and
      `x.view((1, -1))` are `x.view(1, -1)` (two captures of one graph write them either way);
    - which input sizes are written as the batch (`torch.randn(batch_size, 128)` with `batch_size = 2` is
      `torch.randn(2, 128)`: one call of an expert's MLP is handed a number of rows that follows the batch, and
      another the same number by chance);
    - the value ranges of the example inputs (`torch.rand` is `torch.randn`) and the recorded values of
      small tensors (`torch.tensor([[1, 2]], dtype=torch.int64)`: indices, masks, and values computed from
      the weights alone), beyond their shapes;
    - with `shape_free` (`is_shape_free`: an elementwise op's kernel), the example inputs' shapes altogether:
      only which of them are 0-dim (`x + eps` broadcasts a scalar, `x + y` adds two tensors) and their dtypes
      stay.

    SyntaxError when `source` does not parse."""
    tree = strip_docstrings(ast.parse(source))
    scalars = [_shape_free_inputs(s) for s in tree.body if isinstance(s, ast.FunctionDef) and s.name in _INPUT_FUNCTIONS]
    body = _batch_inlined(_reached(tree.body, _ENTRY_POINTS[:1] if shape_free else _ENTRY_POINTS))
    module = _Canonical().visit(_Spelling().visit(_Identities().visit(
        _ValueFree().visit(ast.Module(body=body, type_ignores=[])))))
    text = ast.dump(module, annotate_fields=False)
    if shape_free:
        text += f"\n0-dim inputs and dtypes: {scalars}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def is_main_block(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, a file's self-test."""
    return isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and \
        isinstance(stmt.test.left, ast.Name) and stmt.test.left.id == "__name__"


def _bound(stmt: ast.stmt) -> set[str]:
    """The module-level names a definition binds (a function, a class, an assignment of names); empty for
    any other statement (an import, a call: kept whatever reads it)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    if targets and all(isinstance(t, ast.Name) for t in targets):
        return {t.id for t in targets if isinstance(t, ast.Name)}
    return set()


def _reached(body: list[ast.stmt], roots: tuple[str, ...]) -> list[ast.stmt]:
    """The statements of `body` the workload consists of: every one that defines nothing (imports, calls)
    but the self-test, and the definitions `roots` reach by name, directly or through those."""
    reads = [{n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} for s in body]
    bound = [_bound(s) for s in body]
    wanted = set(roots)
    for s, r, b in zip(body, reads, bound, strict=True):
        if not b and not is_main_block(s):
            wanted |= r
    keep = [False] * len(body)
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(bound):
            if not keep[i] and b & wanted:
                keep[i] = changed = True
                wanted |= reads[i]
    return [s for i, s in enumerate(body) if keep[i] or (not bound[i] and not is_main_block(s))]


def _batch_inlined(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` without its `batch_size = <int>`, the batch written as that number where it is read."""
    value = next((s.value for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1 and
                  isinstance(s.targets[0], ast.Name) and s.targets[0].id == BATCH and
                  isinstance(s.value, ast.Constant) and type(s.value.value) is int), None)
    if value is None:
        return body
    batch = value.value

    class _Inlined(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Constant(value=batch) if node.id == BATCH and isinstance(node.ctx, ast.Load) else node

    return [_Inlined().visit(s) for s in body if not (isinstance(s, ast.Assign) and s.value is value)]


def _shape_free_inputs(fn: ast.FunctionDef) -> tuple[str, list[tuple[bool, str]]]:
    """(function, for each value it returns: whether it is a 0-dim tensor, and its dtype): the inputs' part of a
    shape-free workload (`x + eps` broadcasts a scalar where `x + y` adds two tensors; an int32 `arange * 4` is
    not a float32 `x * y`)."""
    returned = [s.value for s in ast.walk(fn) if isinstance(s, ast.Return) and s.value is not None]
    items: list[ast.expr] = []
    for value in returned:
        items += value.elts if isinstance(value, (ast.List, ast.Tuple)) else \
            [v for v in value.values if v is not None] if isinstance(value, ast.Dict) else [value]
    return fn.name, [(bool(_ZERO_DIM.search(ast.unparse(i))), _input_dtype(i)) for i in items]


# a dtype as example inputs spell it (`dtype=torch.int32`, `.to(torch.bfloat16)`)
_DTYPE_NAMES = re.compile(r"\btorch\.(bool|u?int\d+|float\d+|bfloat16|half|float|double|long|int|short|"
                          r"complex\d+|cfloat|cdouble)\b")
# the calls that make an integer tensor where no dtype is written (torch's default, int64)
_INT64_MAKERS = frozenset({"randint", "randint_like", "randperm", "arange"})


def _input_dtype(item: ast.expr) -> str:
    """The dtype of one example input as written: the last dtype it names, else torch's default for the call
    that makes it (int64 for `randint`, `randperm`, `arange`; float32 for the others); a Python value's
    type."""
    if isinstance(item, ast.Constant):
        return type(item.value).__name__
    named = _DTYPE_NAMES.findall(ast.unparse(item))
    if named:
        return named[-1]
    calls = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
             for n in ast.walk(item) if isinstance(n, ast.Call)}
    return "int64" if calls & _INT64_MAKERS else "float32"


class _ValueFree(ast.NodeTransformer):
    """The example inputs' value ranges and small tensors' recorded values taken out: `torch.rand(` reads
    `torch.randn(`, `torch.tensor([[1, 2]], dtype=torch.int64)` reads `<1x2 torch.int64>`, and the recorded
    values of a float input computed from the weights alone read as a draw of their shape (`torch.randn(1, 2)`),
    as another use of the file, where the input is data, writes them."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "torch":
            if func.attr == "rand":
                func.attr = "randn"
            elif func.attr == "tensor" and len(node.args) == 1 and isinstance(node.args[0], ast.List) and \
                    [k.arg for k in node.keywords] == ["dtype"] and _numbers_only(node.args[0]):
                dtype = ast.unparse(node.keywords[0].value)
                size = _nested_shape(node.args[0])
                if dtype.removeprefix("torch.") in FLOAT_DTYPES:   # (recorded floats are a draw of that shape: `torch.randn(2, 8)`)
                    sizes = ", ".join(size.split("x")) if size else "()"
                    extra = "" if dtype == "torch.float32" else f", dtype={dtype}"
                    return ast.parse(f"torch.randn({sizes}{extra})", mode="eval").body
                return ast.Constant(value=f"<{size} {dtype}>")
        if isinstance(func, ast.Attribute) and func.attr == "contiguous" and not node.args and \
                _literal_under(func.value) is not None:
            return func.value   # (recorded values laid out anew: the same values)
        if isinstance(func, ast.Attribute) and func.attr == "expand" and not node.keywords:
            # recorded values written with their constant columns broadcast (input_code: `torch.tensor([[0],
            # ...]).index_select(...).expand(n, 4)`) are the values of that shape written out
            literal = _literal_under(func.value)
            dims = _VALUE_FREE.match(str(literal.value)) if literal is not None else None
            if literal is not None and dims is not None:
                have = dims.group(1).split("x")
                want = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, int) and a.value != -1 else None
                        for a in node.args]
                if len(want) == len(have):
                    shape = "x".join(h if w is None else str(w) for h, w in zip(have, want, strict=True))
                    literal.value = f"<{shape} {dims.group(2)}>"
                    return func.value
        return node


_VALUE_FREE = re.compile(r"^<([\dx]+) (.+)>$")

# tensor methods that are torch functions of the tensor too (`torch.transpose(x, 1, 2)` is `x.transpose(1, 2)`),
# which take their sizes as a sequence or one by one (`x.view([2, -1])`, `x.view(2, -1)`) where VARARGS
_SPELLED_EITHER_WAY = frozenset({
    "transpose", "permute", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "chunk", "split", "narrow",
    "select", "movedim", "swapaxes", "tile",
    # (and the elementwise ops and reductions the operators and methods spell too: `torch.eq(r, 0)` is `r == 0`)
    "add", "sub", "mul", "div", "remainder", "pow", "matmul", "eq", "ne", "lt", "le", "gt", "ge", "neg", "abs",
    "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "softmax", "sum", "mean", "amax", "amin", "clamp",
    "bitwise_and", "bitwise_or", "logical_not", "logical_and", "logical_or", "cumsum", "argmax", "argmin"})
_SIZE_VARARGS = frozenset({"view", "reshape", "permute", "expand", "repeat", "tile"})
# operators by the method they call on a tensor (`a % b` is `a.remainder(b)`)
_OPERATOR_METHODS: dict[type, str] = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
                                      ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul", ast.Eq: "eq",
                                      ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}


def _method_call(receiver: ast.expr, name: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=receiver, attr=name, ctx=ast.Load()), args=args, keywords=[])


class _Identities(ast.NodeTransformer):
    """In each function, `n = v.contiguous()` with `n` read once and bound nowhere else is that read of `v`
    (`v` a name bound once too): the same values, laid out anew."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        stores: dict[str, int] = {}
        loads: dict[str, int] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                counts = stores if isinstance(sub.ctx, ast.Store) else loads
                counts[sub.id] = counts.get(sub.id, 0) + 1
        for a in node.args.args + node.args.kwonlyargs:
            stores[a.arg] = stores.get(a.arg, 0) + 1
        for stmt in list(node.body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Call) and not stmt.value.args and not stmt.value.keywords
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "contiguous"
                    and isinstance(stmt.value.func.value, ast.Name)):
                continue
            name, source = stmt.targets[0].id, stmt.value.func.value.id
            if stores.get(name) != 1 or loads.get(name) != 1 or stores.get(source) != 1:
                continue
            node.body.remove(stmt)
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
                    sub.id = source
        return node


class _Spelling(ast.NodeTransformer):
    """One spelling of the ops a graph's code generator writes either way (two captures of one graph, one
    with methods and operators, one with torch's functions): the method form (`a == b`, `torch.eq(a, b)` and
    `a.eq(b)` alike), sizes one by one, and a sequence of sizes as a tuple."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        name = _OPERATOR_METHODS.get(type(node.op))
        return node if name is None else _method_call(node.left, name, [node.right])

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        name = _OPERATOR_METHODS.get(type(node.ops[0])) if len(node.ops) == 1 else None
        return node if name is None else _method_call(node.left, name, [node.comparators[0]])

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute) or _on_self(func.value):
            return node
        name = func.attr
        if isinstance(func.value, ast.Name) and func.value.id == "torch":
            if name not in _SPELLED_EITHER_WAY or not node.args or isinstance(node.args[0], ast.Starred):
                return node
            node = ast.Call(func=ast.Attribute(value=node.args[0], attr=name, ctx=ast.Load()), args=node.args[1:],
                            keywords=node.keywords)
        elif name not in _SPELLED_EITHER_WAY | _SIZE_VARARGS:
            return node
        if name in _SIZE_VARARGS and len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], (ast.Tuple, ast.List)):
            node.args = list(node.args[0].elts)
        node.args = [ast.Tuple(elts=a.elts, ctx=ast.Load()) if isinstance(a, ast.List) else a for a in node.args]
        return node


def _literal_under(node: ast.expr) -> ast.Constant | None:
    """The value-free literal (`<32x1 torch.int64>`) a chain of method calls (`.index_select(...)`) is made on."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _numbers_only(node: ast.expr) -> bool:
    """A nested list literal of numbers only (integers, booleans, floats)."""
    if isinstance(node, ast.List):
        return all(_numbers_only(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def _nested_shape(node: ast.expr) -> str:
    """The shape of a nested list literal (`[[1, 2], [3, 4]]` -> `2x2`)."""
    dims = []
    while isinstance(node, ast.List):
        dims.append(str(len(node.elts)))
        if not node.elts:
            break
        node = node.elts[0]
    return "x".join(dims)


class _Canonical(ast.NodeTransformer):
    """Renames each function's arguments and local names to <v0>, <v1>, ... and each class's own attributes
    (`self.fc`, `self.proj`, a registered `self.register_buffer("w", ...)`) to <a0>, <a1>, ..., in order of
    appearance (names no source can spell, so no renamed name meets a kept one)."""

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        attrs: dict[str, str] = {}
        registered: list[tuple[ast.Constant, str]] = []
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and _on_self(sub.value) and isinstance(sub.ctx, ast.Store):
                attrs.setdefault(sub.attr, f"<a{len(attrs)}>")
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and _on_self(sub.func.value) \
                    and sub.func.attr in _REGISTERS and sub.args and isinstance(sub.args[0], ast.Constant) \
                    and isinstance(sub.args[0].value, str):
                attrs.setdefault(sub.args[0].value, f"<a{len(attrs)}>")
                registered.append((sub.args[0], sub.args[0].value))
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and _on_self(sub.value) and sub.attr in attrs:
                sub.attr = attrs[sub.attr]
        for constant, name in registered:
            constant.value = attrs[name]
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        names: dict[str, str] = {}
        args = node.args
        for a in [*args.posonlyargs, *args.args, *filter(None, [args.vararg]), *args.kwonlyargs,
                  *filter(None, [args.kwarg])]:
            if a.arg != "self":
                names.setdefault(a.arg, f"<v{len(names)}>")
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.setdefault(sub.id, f"<v{len(names)}>")
        for sub in ast.walk(node):
            if isinstance(sub, ast.arg) and sub.arg in names:
                sub.arg = names[sub.arg]
            elif isinstance(sub, ast.Name) and sub.id in names:
                sub.id = names[sub.id]
        return node


def _on_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


__all__ = ["is_main_block", "is_shape_free", "normalized_dump", "strip_docstrings", "workload_key"]
