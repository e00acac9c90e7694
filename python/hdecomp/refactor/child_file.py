"""The child component file an extraction writes: its name, docstring header, imports, the module-level
context it needs, its __init__ and forward, and get_inputs / get_init_inputs from the tree's shapes."""

from __future__ import annotations

import ast
import keyword
import re
import textwrap
from pathlib import Path

from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.refactor.flow import Flow, InitAttr, names_in
from hdecomp.refactor.movable import MODEL_CLASSES
from hdecomp.refactor.selection import Offsets, SelectionInfo
from hdecomp.refactor.state_keys import (
    call_name,
)

TODO_SHAPE = "# TODO(hdecomp): fill in the input shape"
TODO_VALUE = "# TODO(hdecomp): fill in this constructor argument"


def snake_name(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not text or text[0].isdigit():
        text = f"child_{text}".rstrip("_")
    if keyword.iskeyword(text):
        text += "_"
    return text


def camel_name(snake: str) -> str:
    out = "".join(p[:1].upper() + p[1:] for p in snake.split("_") if p)
    return out if out.isidentifier() else "Child"


def default_name(info: SelectionInfo, attrs: list[str], op: str | None) -> str:
    if op:
        return snake_name(op)
    parts: list[str] = []
    nodes: list[ast.AST] = list(info.statements) if info.mode == "statements" else [info.expression]  # type: ignore[list-item]
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Call):
                f = sub.func
                if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
                    parts.append(f.attr)
                elif isinstance(f, ast.Attribute):
                    parts.append(f.attr)
                elif isinstance(f, ast.Name):
                    parts.append(f.id)
    seen: list[str] = []
    for p in parts:
        p = snake_name(p)
        if p not in seen:
            seen.append(p)
    name = "_".join(seen[:3]) if seen else "child"
    return name[:48].strip("_") or "child"


def unique_name(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    i = 2
    while f"{name}_{i}" in taken:
        i += 1
    return f"{name}_{i}"


def module_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in names_in(t, ast.Store):
                    out.setdefault(n.id, node)
    return out


def is_local_import(node: ast.stmt, folder: Path) -> bool:
    """An import of a file of this step (children/..., or a sibling .py file)."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return True
        mod = (node.module or "").split(".")
    elif isinstance(node, ast.Import):
        mod = node.names[0].name.split(".")
    else:
        return False
    if mod[0] == "children":
        return True
    return (folder / f"{mod[0]}.py").is_file() or (folder / "children" / f"{mod[0]}.py").is_file()


def needed_module_nodes(tree: ast.Module, names: set[str], folder: Path) -> list[ast.stmt]:
    """Module-level statements (imports, constants, helpers) the child needs, in source order."""
    bindings = module_bindings(tree)
    needed: list[ast.stmt] = []
    todo = list(names)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        node = bindings.get(name)
        if node is None or node in needed:
            continue
        if isinstance(node, ast.ClassDef) and node.name in MODEL_CLASSES:
            continue
        needed.append(node)
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            for n in names_in(node, ast.Load):
                todo.append(n.id)
    return sorted(needed, key=lambda n: (n.lineno, n.col_offset))


def source_segment(source: str, offsets: Offsets, node: ast.AST, *, full_lines: bool = False) -> str:
    s, e = offsets.node(node)
    if full_lines:
        first = offsets.line_of(s)
        s = offsets.starts[first - 1]
        for dec in getattr(node, "decorator_list", []) or []:
            s = min(s, offsets.starts[dec.lineno - 1])
    return source[s:e]


def returned_list(tree: ast.Module, func: str) -> list[ast.expr] | None:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func), None)
    if fn is None:
        return None
    rets = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if len(rets) != 1 or not isinstance(rets[0].value, (ast.List, ast.Tuple)):
        return None
    if any(isinstance(e, ast.Starred) for e in rets[0].value.elts):
        return None
    # the expressions may use names local to the function: only module-level names are safe to copy
    local = {n.id for n in names_in(fn, ast.Store)}
    if any(n.id in local for e in rets[0].value.elts for n in names_in(e, ast.Load)):
        return None
    return rets[0].value.elts


def tree_shapes(path: Path) -> dict[str, tuple[list[int], str]]:
    """Tensor shapes by name from the nearest decomposition_tree.json above `path` (its data flow)."""
    found: dict[str, set[tuple[tuple[int, ...], str]]] = {}
    for parent in list(path.parents)[:6]:
        if not (parent / TREE_FILE).is_file():
            continue
        try:
            flows = DecompositionTree.load(parent).data_flow
        except TreeFormatError:
            return {}
        for flow in flows:
            if isinstance(flow.tensor_name, str) and _is_shape(flow.shape):
                found.setdefault(flow.tensor_name, set()).add((tuple(flow.shape), str(flow.dtype or "float32")))
        break
    return {k: (list(next(iter(v))[0]), next(iter(v))[1]) for k, v in found.items() if len(v) == 1}


def _is_shape(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)


_DTYPES = {"float32": "torch.float32", "fp32": "torch.float32", "float16": "torch.float16",
           "fp16": "torch.float16", "bfloat16": "torch.bfloat16", "bf16": "torch.bfloat16",
           "float64": "torch.float64", "int64": "torch.int64", "long": "torch.int64", "int32": "torch.int32",
           "bool": "torch.bool"}


def tensor_expr(shape: list[int], dtype: str) -> str:
    dt = _DTYPES.get(dtype.replace("torch.", ""), "torch.float32")
    dims = ", ".join(str(d) for d in shape)
    if dt in ("torch.int64", "torch.int32"):
        return f"torch.randint(0, 10, ({dims}{',' if len(shape) == 1 else ''}), dtype={dt})"
    if dt == "torch.bool":
        return f"torch.rand({dims}) > 0.5"
    suffix = "" if dt == "torch.float32" else f", dtype={dt}"
    return f"torch.randn({dims}{suffix})"


def statements_text(source: str, offsets: Offsets, stmts: list[ast.stmt]) -> str:
    """The selected statements' full lines (with comments between them), dedented."""
    first = offsets.line_of(offsets.node(stmts[0])[0])
    for dec in getattr(stmts[0], "decorator_list", []) or []:
        first = min(first, dec.lineno)
    last = offsets.line_of(max(offsets.node(stmts[-1])[1] - 1, 0))
    text = "".join(offsets.lines[first - 1:last])
    return textwrap.dedent(text).rstrip() + "\n"


def local_import_for_child(node: ast.stmt) -> str:
    """A parent's import of a children/ file, as the child (which lives in children/ too) spells it."""
    if isinstance(node, ast.ImportFrom) and node.module:
        mod = node.module
        if mod.startswith("children."):
            mod = mod[len("children."):]
        names = ", ".join(f"{a.name} as {a.asname}" if a.asname else a.name for a in node.names)
        return f"from {mod} import {names}"
    return ast.unparse(node)


def child_import_block(imports: list[str], in_step: bool) -> list[str]:
    """Sibling children by bare name when children/ is on sys.path (the child's self-test, hdecomp's
    loader), else through `children.` (imported from the step folder)."""
    if not imports:
        return []
    if not in_step:
        return imports
    fallback = [re.sub(r"^from ", "from children.", ln) for ln in imports]
    return ["try:  # children/ on sys.path: this file's self-test, hdecomp's loader",
            *[f"    {ln}" for ln in imports],
            "except ModuleNotFoundError:  # imported as children.<name> from the step folder",
            *[f"    {ln}" for ln in fallback]]


def dedupe(lines: list[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        if not ln or ln not in out:
            out.append(ln)
    return out


def op_names(nodes: list[ast.AST], init_attrs: dict[str, InitAttr]) -> list[str]:
    ops: list[str] = []
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Call):
                f = sub.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
                    entry = init_attrs.get(f.attr)
                    ctor = call_name(entry.value) if entry and isinstance(entry.value, ast.Call) else "?"
                    label = f"self.{f.attr} ({ctor})"
                else:
                    label = ast.unparse(f)
                if label not in ops:
                    ops.append(label)
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult) and "@" not in ops:
                ops.append("@")
    return ops


def child_header(alias: str, name: str, parent: Path, parent_class: str, level: str, ops: list[str], flow: Flow,
            input_notes: list[str], weight_keys: dict[str, list[str] | None], init_attrs: dict[str, InitAttr],
            first_line: int, last_line: int) -> str:
    weights: list[str] = []
    for attr, keys in weight_keys.items():
        entry = init_attrs[attr]
        ctor = ast.unparse(entry.value) if entry.value is not None else attr
        if keys:
            weights.append(f"{attr} = {ctor}: {', '.join(f'{attr}.{k}' if k else attr for k in keys)}")
        elif keys is None:
            weights.append(f"{attr} = {ctor}: (parameters not known statically)")
    lines = [
        f"{alias}: extracted from {parent.name} ({parent_class}.forward, lines {first_line}-{last_line}).",
        "",
        f"Component: {name}",
        f"Level: {level}",
        f"Parent: {parent.name}",
        f"Ops: {', '.join(ops) if ops else '(data movement only)'}",
        f"Inputs: {'; '.join(input_notes) if input_notes else '(none)'}",
        f"Outputs: {', '.join(flow.outputs) if flow.outputs else '(the returned value)'}",
        f"Weights: {'; '.join(weights) if weights else '(none)'}",
        "",
        "Written by hdecomp's \"Extract to child component\"; run this file for its self-test.",
    ]
    return '"""' + "\n".join(lines).replace('"""', "'''") + '\n"""'


def child_source(docstring: str, imports: list[str], module_nodes: list[str], init_sig: str,
                  init_body: list[str], forward_sig: str, body: str, input_exprs: list[str],
                  init_values: list[str]) -> str:
    def block(lines: list[str]) -> str:
        return "\n".join(textwrap.indent(x, "        ") for x in lines)

    init_lines = ["super().__init__()", *init_body]
    out = [docstring, "", *imports]
    if module_nodes:
        out += ["", ""]
        # constants one per line; functions and classes separated by blank lines
        for n in module_nodes:
            compound = n.lstrip().startswith(("def ", "class ", "async def ", "@"))
            out += ["", "", n.rstrip(), "", ""] if compound else [n.rstrip()]
        while out[-1] == "":
            out.pop()
    out += [
        "",
        "",
        "class Model(nn.Module):",
        f"    def __init__({init_sig}):",
        block(init_lines),
        "",
        f"    def forward({forward_sig}):",
        textwrap.indent(body, "        ").rstrip(),
        "",
        "",
        "def get_inputs():",
        "    return [",
        *[f"        {e}," if "#" not in e else f"        {e.split('#', 1)[0].rstrip()},  #{e.split('#', 1)[1]}"
          for e in input_exprs],
        "    ]",
        "",
        "",
        "def get_init_inputs():",
        "    return [",
        *[f"        {e}," if "#" not in e else f"        {e.split('#', 1)[0].rstrip()},  #{e.split('#', 1)[1]}"
          for e in init_values],
        "    ]",
        "",
        "",
        "def run_tests():",
        '    """Self-test: build, run twice on the same inputs, check the outputs are finite and repeatable."""',
        "    torch.manual_seed(0)",
        "    model = Model(*get_init_inputs())",
        "    model.eval()",
        "    inputs = get_inputs()",
        "    with torch.no_grad():",
        "        first = model(*inputs)",
        "        second = model(*inputs)",
        "",
        "    def leaves(value):",
        "        if isinstance(value, torch.Tensor):",
        "            return [value]",
        "        if isinstance(value, (list, tuple)):",
        "            return [t for v in value for t in leaves(v)]",
        "        if isinstance(value, dict):",
        "            return [t for v in value.values() for t in leaves(v)]",
        "        return []",
        "",
        "    a, b = leaves(first), leaves(second)",
        "    ok = len(a) == len(b) and all(",
        "        x.shape == y.shape and torch.equal(x, y) and bool(torch.isfinite(x.float()).all())",
        "        for x, y in zip(a, b)",
        "    )",
        "    shapes = [tuple(t.shape) for t in a]",
        '    print(("PASS" if ok else "FAIL") + f": {len(a)} output(s), shapes {shapes}")',
        "    return ok",
        "",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(0 if run_tests() else 1)",
        "",
    ]
    return "\n".join(out)
