"""Generated code always compiles, whatever the ops and variables are called: names are never keywords,
soft keywords, builtins a call would shadow, or names the generated file binds itself (issue 13: a child's
forward once wrote `and = le & x2`, after the aten op `and_`)."""

from __future__ import annotations

import ast
import builtins
import keyword
import operator
from typing import Any

import torch
import torch.fx as fx
from hdecomp.decompose.codegen import group_child_class, refactored_source
from hdecomp.decompose.naming import FILE_NAMES, class_alias, is_safe_attr, safe_attr, safe_local
from hdecomp.decompose.plan import ChildPlan
from hdecomp.decompose.source import SourceContext
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

_AWKWARD = sorted(set(keyword.kwlist) | set(keyword.softkwlist) | {"all", "any", "sum", "min", "max", "abs",
                  "len", "input", "type", "print", "list", "self", "torch", "nn", "F", "math", "Model",
                  "forward", "to", "float", "eval", "training", "get_inputs", "batch_size", "_"})
names = st.one_of(st.sampled_from(_AWKWARD), st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True))


def _bound(tree: ast.AST) -> set[str]:
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out |= {a.arg for a in n.args.args if a.arg != "self"}
    return out


def _assert_safe(tree: ast.AST, params_may_keep: bool = False) -> None:
    """No bound name is a keyword; none shadows a builtin the code calls (a forward's parameters keep their
    own names when `params_may_keep`: callers may pass them by keyword)."""
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    params = {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args}
    for name in _bound(tree):
        assert not keyword.iskeyword(name), name
        if params_may_keep and name in params:
            assert name not in called, name
            continue
        assert not keyword.issoftkeyword(name), name
        assert name not in dir(builtins), name


@settings(max_examples=200, deadline=None)
@given(st.lists(names, min_size=1, max_size=6))
def test_fresh_names_are_safe_and_distinct(bases: list[str]) -> None:
    taken: set[str] = set()
    locals_ = [safe_local(b, taken) for b in bases]
    assert len(set(locals_)) == len(locals_)
    for n in locals_:
        assert n.isidentifier() and not keyword.iskeyword(n) and not keyword.issoftkeyword(n)
        assert n not in dir(builtins) and n not in FILE_NAMES
    attrs: set[str] = set()
    for b in bases:
        a = safe_attr(b, attrs)
        assert is_safe_attr(a) and a not in dir(nn.Module)
    for b in bases:
        alias = class_alias(b, set())
        compile(f"from children.x import Model as {alias}\n", "<alias>", "exec")


@settings(max_examples=120, deadline=None)
@given(ops=st.lists(st.one_of(st.sampled_from(_AWKWARD).map(lambda k: f"__{k}__"), names), min_size=1, max_size=5),
       inputs=st.lists(names, min_size=1, max_size=3))
def test_generated_child_and_parent_compile(ops: list[str], inputs: list[str]) -> None:
    """A group child of call_method ops with awkward names (`x.__and__(y)` names its result after `and`)
    and a parent whose placeholders and nodes are named like keywords and builtins both compile."""
    graph = fx.Graph()
    phs = [graph.placeholder(f"in_{i}") for i in range(len(inputs))]
    for p, name in zip(phs, inputs, strict=True):
        p.name = name if name.isidentifier() and not keyword.iskeyword(name) else p.name
    members = []
    cur = phs[0]
    for op in ops:
        cur = graph.call_method(op if op.isidentifier() and not keyword.iskeyword(op) else "relu", (cur, *phs[1:]))
        members.append(cur)
    graph.output(cur)
    child = ChildPlan(attr="", kind="group", members=members, inputs=list(phs), outputs=[cur], ops=len(members),
                      op_names=ops, core=list(members), kernel=len(members) == 1, level=1)
    values = {n.name: torch.zeros(2) for n in graph.nodes}
    src, _ = group_child_class(child, nn.Module(), values, SourceContext(user_file=None), "doc")
    tree = ast.parse(src)
    _assert_safe(tree)
    child.attr = safe_attr(ops[0], set())
    parent = refactored_source(graph, [child], {child.attr: "c_" + child.attr.strip("_")},
                               SourceContext(user_file=None), "doc")
    _assert_safe(ast.parse(parent), params_may_keep=True)


def test_binary_ops_named_like_keywords() -> None:
    """`le & gt`, `le | gt`: the aten `and_` / `or_` ops name variables `and_`, `or_`, never `and`."""
    graph = fx.Graph()
    a, b = graph.placeholder("x"), graph.placeholder("y")
    le = graph.call_function(operator.le, (a, b))
    both = graph.call_function(operator.and_, (le, a))
    either = graph.call_function(operator.or_, (both, b))
    graph.output(either)
    members = [le, both, either]
    child = ChildPlan(attr="", kind="group", members=members, inputs=[a, b], outputs=[either], ops=3,
                      op_names=["le", "and_", "or_"], core=members, level=1)
    values = {n.name: torch.zeros(2, dtype=torch.bool) for n in graph.nodes}
    src, _ = group_child_class(child, nn.Module(), values, SourceContext(user_file=None), "doc")
    compile(src, "<child>", "exec")
    assert "and_ = " in src and "or_ = " in src, src



def test_a_local_never_takes_the_name_of_a_function_the_file_calls() -> None:
    """A graph node is named after the function it calls; a local of that name would make the function an
    unbound local (`shifted_window_attention = shifted_window_attention(x)`: UnboundLocalError, torchvision's
    Swin once). The function is imported from its package and the local takes another name."""
    from torchvision.ops import stochastic_depth
    graph = fx.Graph()
    x = graph.placeholder("x")
    call = graph.call_function(stochastic_depth, (x, 0.0, "row", False))
    assert call.name == "stochastic_depth"
    graph.output(call)
    child = ChildPlan(attr="", kind="group", members=[call], inputs=[x], outputs=[call], ops=1,
                      op_names=["stochastic_depth"], core=[call], kernel=True, level=0)
    ctx = SourceContext(user_file=None)
    src, _ = group_child_class(child, nn.Module(), {"x": torch.zeros(2, 3), "stochastic_depth": torch.zeros(2, 3)},
                               ctx, "doc")
    text = "\n".join(ctx.import_lines()) + "\nimport torch\nimport torch.nn as nn\n" + src
    tree = ast.parse(text)
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    assert "stochastic_depth" not in stored, text
    ns: dict[str, Any] = {}
    exec(compile(tree, "<child>", "exec"), ns)   # the generated class runs: no unbound local
    out = ns["Model"]()(torch.ones(2, 3))
    assert torch.equal(out, torch.ones(2, 3))


@given(st.sampled_from(sorted((set(keyword.kwlist) | set(keyword.softkwlist)) - {"_"})), st.sampled_from(["", "2x12x1"]))
def test_a_component_named_like_a_keyword_gets_a_file_it_can_be_imported_from(base: str, sig: str) -> None:
    # transformers' time-series heads hold a `LambdaLayer`: a child named `lambda` was written to
    # children/lambda.py, and `from children.lambda import Model` is a syntax error
    from hdecomp.decompose.naming import NameRegistry
    reg = NameRegistry()
    first, _ = reg.name_for(base, "a", "1x4")
    second, _ = reg.name_for(base, "b", sig)
    for name in (first, second):
        ast.parse(f"from children.{name} import Model")
        assert name.isidentifier() and "__" not in name, name
