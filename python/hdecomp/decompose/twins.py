"""One file per repeated layer: two calls of one submodule class whose files differ only in the arguments their
constructor was called with (a decoder layer's `layer_idx`) are one workload where the computation does not read
them. The graph steps (graph_children.py) and the source-level steps (source_write.py) both ask here before
they name a submodule child's file (naming.NameRegistry.by_class keeps the candidates)."""

from __future__ import annotations

import ast
import copy
import re
import sys
from collections import UserDict
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.capture import init_call
from hdecomp.decompose.capture.common import same_outputs
from hdecomp.decompose.codegen import flat_tensors
from hdecomp.decompose.shapes import real_values
from hdecomp.decompose.source import NotRepresentable, SourceContext, constructor_call, literal, module_expr
from hdecomp.decompose.stepfiles import carried_namespace
from hdecomp.runtime.input_writes import HeldEntries
from hdecomp.verify.compare import compare_outputs
from hdecomp.vocab.workload import workload_key

_SUPER_INIT = re.compile(r"^(        super\(\)\.__init__\().*(\)\s*)$", re.MULTILINE)
# the draws of parameters a constructor leaves uninitialised (codegen.initialise_text), scaled like the model's
# own values: the weights every file is given before it runs (verify.weights) replace them
_INIT_DRAW = re.compile(r"^(        nn\.init\.normal_\(.*, std=)[-+.e\d]+(\)\s*)$", re.MULTILINE)


def class_workload_key(body: str) -> str:
    """The workload of a submodule child's file body up to the arguments of its class's constructor (the
    `super().__init__(...)` of its `class Model`), the imports only those arguments use (BLT's attention built
    once from a `BltPatcherConfig` and once from a `BltLocalEncoderConfig`), the scales its uninitialised
    parameters are drawn with, and the plain numbers it is called with (HRM's `cycle_offset=6`, a slot of a
    cache the call is not handed): equal for the files of two instances of one class that differ only in how
    they were built or in such a number (computing_twin tells whether they compute alike)."""
    body = _numbers_masked(body)
    at = body.find("\nclass Model(")
    if at >= 0:
        rest = _INIT_DRAW.sub(r"\1...\2", _SUPER_INIT.sub(r"\1...\2", body[at:], count=1))
        body = "".join(ln for ln in body[:at].splitlines(keepends=True) if not _only_constructor_import(ln, rest))
        body += rest
    return workload_key(body)


_FROM_IMPORT = re.compile(r"^from [\w.]+ import ([\w, ]+)\s*$")


def _only_constructor_import(line: str, rest: str) -> bool:
    """`from transformers import BltPatcherConfig`, whose names the class body (its constructor's arguments
    taken out) never reads."""
    m = _FROM_IMPORT.match(line)
    if m is None:
        return False
    names = [n.strip() for n in m.group(1).split(",") if n.strip() and " as " not in n]
    return bool(names) and not any(re.search(rf"\b{re.escape(n)}\b", rest) for n in names)


def _numbers_masked(body: str) -> str:
    """`body` with each plain number `get_inputs()` returns as an input of its own, and each one
    `get_input_kwargs()` returns as a keyword's value, written `...`."""
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return body
    changed = False
    for fn in tree.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name in ("get_inputs", "get_input_kwargs")):
            continue
        for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return)):
            items = ret.value.elts if isinstance(ret.value, (ast.List, ast.Tuple)) else \
                ret.value.values if isinstance(ret.value, ast.Dict) else []
            for i, e in enumerate(items):
                if _plain_number(e):
                    items[i] = ast.Constant(value=...)
                    changed = True
    return ast.unparse(tree) if changed else body


def _plain_number(e: ast.expr) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) in (int, float)


def call_numbers(args: list[Any], kwargs: dict[str, Any]) -> dict[int | str, int | float]:
    """The plain numbers a call is handed as inputs of their own (positions, keyword names)."""
    found: dict[int | str, int | float] = {i: a for i, a in enumerate(args) if type(a) in (int, float)}
    found.update({k: v for k, v in kwargs.items() if type(v) in (int, float)})
    return found


def _with_numbers(args: list[Any], kwargs: dict[str, Any], numbers: dict[int | str, int | float] | None,
                  ) -> tuple[list[Any], dict[str, Any]] | None:
    """This call's inputs with the plain numbers another call was handed in their places; None where the two
    are handed numbers in other places."""
    if numbers is None:
        return args, kwargs
    if set(numbers) != set(call_numbers(args, kwargs)):
        return None
    return ([numbers.get(i, a) for i, a in enumerate(args)],
            {k: numbers.get(k, v) for k, v in kwargs.items()})


def hands_objects(args: list[Any], kwargs: dict[str, Any]) -> bool:
    """A call's inputs hold an object beyond tensors, numbers, strings and their containers (a cache a layer
    writes its own slot of, by the index it was built with): no file is shared across such calls."""
    def plain(v: Any) -> bool:
        if v is None or isinstance(v, (torch.Tensor, int, float, bool, str, torch.dtype, torch.device)):
            return True
        if isinstance(v, (list, tuple)):
            return all(plain(x) for x in v)
        if isinstance(v, (dict, UserDict)):   # (Gemma 3n's KVSharingDict of shared keys and values)
            return all(plain(x) for x in v.values())
        return False
    return not (all(plain(a) for a in args) and all(plain(v) for v in kwargs.values()))


def computing_twin(args: list[Any], kwargs: dict[str, Any], out: Any, sub: nn.Module,
                   candidates: list[tuple[str, str]], ctx: SourceContext,
                   numbers: dict[str, dict[int | str, int | float]] | None = None) -> str | None:
    """The file, among `candidates` ((name, constructor expression) of files of `sub`'s class whose bodies
    differ from this child's only in the constructor's arguments and the plain numbers it is called with),
    whose module computes what `sub` computes: built from that file's constructor expression, given `sub`'s
    weights (the same parameters and buffers, strictly) and run on this call's recorded inputs (`args`,
    `kwargs`) with that file's numbers in their places (`numbers`: each file's, call_numbers), it returns the
    recorded outputs (`out`) bit for bit. A decoder layer whose `layer_idx` the computation never reads then
    shares the first layer's file, as one workload, as does a stack handed another `cycle_offset` into a cache
    it is not given; one that does read them (a sliding window or no RoPE on every fourth layer, another kind
    of cache handed back) keeps a file of its own. None when no candidate does."""
    if not candidates:
        return None
    args, kwargs = real_values(list(args), dict(kwargs))   # the recorded tensors behind full-size stand-ins
    recorded = real_values([out], {})[0][0]
    expected = flat_tensors([recorded])
    if not expected or any(t.is_meta for t in expected):
        return None
    try:
        module_expr(sub, ctx)   # the names and imports the class's constructor expressions need
    except Exception:
        return None
    namespace, _ = carried_namespace(ctx)
    if namespace is None:
        return None
    state = sub.state_dict()
    own_writes: list[dict[str, Any] | None] = []   # (what `sub`'s own call writes, run once: _own_writes)
    for stem, expr in candidates:
        given = _with_numbers(args, kwargs, (numbers or {}).get(stem))
        if given is None:
            continue
        try:
            twin = _built(expr, dict(namespace), sub)
            twin.load_state_dict(state, strict=True)
            twin.train(sub.training)
            twin.to(next((t.device for t in state.values()), torch.device("cpu")))
            got, written = _run(twin, given)
        except Exception:
            continue
        # the outputs whole, as the verifier reads them: tensors bit for bit, and the objects and containers
        # around them alike (a decoder built `cross` hands back a pair of caches where one built otherwise
        # hands back one: the same tensors, not the same computation); and what the call writes into the
        # containers it is handed (a slot of a shared dict chosen by the layer's index) alike
        if (same_outputs(got, recorded, rtol=0.0, atol=0.0) and _writes_alike(written, sub, args, kwargs, own_writes)) or \
                _alike_under_one_seed(twin, sub, args, kwargs, given):
            return stem
    return None


def _run(m: nn.Module, given: tuple[list[Any], dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    """`m`'s outputs on a copy of `given`, and what the call wrote into the containers of that copy
    (runtime.input_writes: {path: value})."""
    a, k = copy.deepcopy(given[0]), copy.deepcopy(given[1])
    held = HeldEntries(a, k)
    with torch.no_grad():
        out = m(*a, **k)
    return out, held.written()


def _same_writes(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Writes into the inputs equal bit for bit, paths included, as the verifier compares them."""
    return compare_outputs(a, b, rtol=0.0, atol=0.0).match


def _writes_alike(written: dict[str, Any], sub: nn.Module, args: list[Any], kwargs: dict[str, Any],
                  own: list[dict[str, Any] | None]) -> bool:
    """`written` (what a twin's call wrote into its inputs) equal, bit for bit, to what `sub`'s own call on the
    recorded inputs writes (run once per computing_twin: kept in `own`, None where it raised). True where the
    call is handed no container. Plain attributes a run of `sub` sets are put back."""
    if not HeldEntries(args, kwargs).held:
        return True
    if not own:
        from hdecomp.runtime.component import plain_attributes, restore_plain_attributes
        before = plain_attributes(sub)
        try:
            own.append(_run(sub, (args, kwargs))[1])
        except Exception:
            own.append(None)
        finally:
            restore_plain_attributes(sub, before)
    return own[0] is not None and _same_writes(own[0], written)


def _built(expr: str, namespace: dict[str, Any], sub: nn.Module) -> Any:
    """The module `expr` (a constructor expression we generated for another instance of `sub`'s class) builds,
    in `namespace` (the names `sub`'s own expression needs) and the names of the modules defining `sub`'s
    class (that instance's config class, BLT's `BltPatcherConfig` where this one was built from a
    `BltLocalEncoderConfig`)."""
    homes = [vars(m) for cls in type(sub).__mro__ if (m := sys.modules.get(cls.__module__)) is not None]
    # (a user's file, loaded under a name of its own: the globals its class's methods run in)
    homes += [g for cls in type(sub).__mro__ for f in vars(cls).values()
              if isinstance(g := getattr(f, "__globals__", None), dict)]
    for _ in range(8):
        try:
            return eval(expr, namespace)   # the expression we generated ourselves
        except NameError as exc:
            found = next((home[exc.name] for home in homes if exc.name in home), None)
            if exc.name is None or exc.name in namespace or found is None:
                raise
            namespace[exc.name] = found
    return eval(expr, namespace)


def _alike_under_one_seed(twin: nn.Module, sub: nn.Module, args: list[Any], kwargs: dict[str, Any],
                          given: tuple[list[Any], dict[str, Any]]) -> bool:
    """Where the module draws random numbers (Informer's ProbSparse attention samples the keys it scores), the
    recording's draws cannot be replayed: `twin` (on `given`: the inputs with its file's numbers) and `sub`
    itself, run from the same seed (two seeds), give the same outputs bit for bit. Plain attributes a run of
    `sub` sets are put back."""
    from hdecomp.runtime.component import plain_attributes, restore_plain_attributes
    before = plain_attributes(sub)
    try:
        for seed in (0, 1):
            outs = []
            for m, call in ((sub, (args, kwargs)), (twin, given)):
                with torch.random.fork_rng(devices=[]):
                    torch.manual_seed(seed)
                    outs.append(_run(m, call))
            if not same_outputs(outs[0][0], outs[1][0], rtol=0.0, atol=0.0) or not _same_writes(outs[0][1], outs[1][1]):
                return False
        return True
    except Exception:
        return False
    finally:
        restore_plain_attributes(sub, before)


def constructor_overrides(first: nn.Module, other: nn.Module, ctx: SourceContext) -> dict[str, int] | None:
    """The constructor arguments `other` was built with that differ from those `first` was built with, by
    name, where all of them are ints passed by name (a decoder layer's `layer_idx`): what a parent passes the
    file written for `first` to build `other`. None where they differ otherwise (another config, a value
    passed by position only or through `*args`) or were not recorded."""
    a, b = init_call(first), init_call(other)
    if a is None or b is None or type(first) is not type(other) or len(a.params) != len(b.params):
        return None
    out: dict[str, int] = {}
    for (name, va, kind), (name_b, vb, kind_b) in zip(a.params, b.params, strict=True):
        if (name, kind) != (name_b, kind_b):
            return None
        if type(va) is int and type(vb) is int and kind in ("arg", "kwonly"):
            if va != vb:
                out[name] = vb
            continue
        try:
            if literal(va, ctx) != literal(vb, ctx):
                return None
        except NotRepresentable:
            return None
    return out


def with_constructor_parameters(text: str, module: nn.Module, params: list[str], ctx: SourceContext) -> str | None:
    """A submodule child's file `text` (written for `module`) whose class takes `params` (constructor
    arguments by name, constructor_overrides) as parameters of its own, defaulting to the values `module` was
    built with: `def __init__(self, layer_idx=0): super().__init__(config, layer_idx)`. The file still builds
    and runs as it did; a parent builds another instance of the class with its own values. None where the
    text does not hold the constructor call as written for `module`."""
    call = init_call(module)
    if call is None:
        return None
    values = {name: value for name, value, _ in call.params}
    try:
        old, _ = constructor_call(module, ctx)
        new, _ = constructor_call(module, ctx, named=frozenset(params))
    except NotRepresentable:
        return None
    old_args, new_args = old.partition("(")[2][:-1], new.partition("(")[2][:-1]
    head = "    def __init__(self):\n        super().__init__("
    target = f"{head}{old_args})\n"
    if text.count(target) != 1 or any(name not in values for name in params):
        return None
    signature = ", ".join(f"{name}={values[name]!r}" for name in params)
    return text.replace(target, f"    def __init__(self, {signature}):\n        super().__init__({new_args})\n")


__all__ = ["class_workload_key", "computing_twin", "constructor_overrides", "hands_objects",
           "with_constructor_parameters"]
