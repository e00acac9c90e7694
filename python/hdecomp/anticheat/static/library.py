"""A library function read from its source: a call of a plain function from outside torch, handed data
(torchvision's `_setup_scales(features, image_shapes, ...)`, `_filter_input(x, names)`), is judged by its body.

The function's module is read without importing it (external.module_source_file), its imports bound as its
own (relative ones resolved in its package), and its body run by the same evaluator as a forward, over the
kinds of the call's arguments. Where the body reports nothing (it only moves data around, or computes on the
sizes: `float(s1) / float(s2)`, `torch.tensor(scale).log2().round()`), the call is plumbing, and what it returns
is the body's value; where it reports, the call is unknown code (HD112, naming the first op the body computes).
Functions of the same module it calls are read the same way; so are functions of other modules, up to
MAX_LIBRARY_DEPTH modules deep.

A proof also says which lines of library code the parent may run itself (`Proof.code`: the functions it read):
the runtime check lets host compute there (a constant of the shapes) pass, as it does in the refactored file's
own code (anticheat.runtime)."""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.anticheat.static.external import module_source_file, module_tree, reexported
from hdecomp.anticheat.static.values import (
    DATA,
    HOST,
    LOCAL_FN,
    REF,
    SCALAR,
    SEQ,
    TCONST,
    V_DATA,
    Val,
    dotted_name,
)

if TYPE_CHECKING:
    from hdecomp.anticheat.rules import AntiCheatViolation

# what builds the scan of a library module (module_scan.LibraryScan: this module stays below the scans)
ScanFactory = Callable[[str, ast.Module, str, str], Any]

MAX_LIBRARY_DEPTH = 3      # modules deep: a library function calling another module's, calling a third's
_MAX_PROOFS = 512
_PLAIN_KINDS = frozenset({DATA, SCALAR, HOST, TCONST})
# decorators that hand the function back as it is, registering it for a tracer or a compiler
IDENTITY_DECORATORS = frozenset({"torch.fx.wrap", "torch.jit.unused", "torch.jit.ignore", "torch.jit.export",
                                 "torch.compiler.disable", "torch._dynamo.disable"})

CodeSpan = tuple[str, int, int]   # (resolved file, first line, last line) of a function read


@dataclass(frozen=True)
class Proof:
    """What reading one library call found: its body's violations (none: plumbing), the value it returns,
    and the functions it read."""

    ret: Val
    violations: tuple[AntiCheatViolation, ...]
    code: frozenset[CodeSpan]
    where: str   # the function's file and line, for a message


# proofs by (function, argument kinds, how deep the call is: a proof cut at MAX_LIBRARY_DEPTH is its depth's)
_PROOFS: dict[tuple[str, str, int], Proof | None] = {}
_DEPTH = threading.local()   # how many library calls deep this thread's analysis is


def deep_kind(v: Val, depth: int = 0) -> str:
    """A value's kind with the kinds of what a sequence holds (a list of tensors and a list of sizes read
    differently in a body): the cache key of a proof."""
    if v.kind != SEQ or depth > 3:
        return v.kind if v.kind not in (DATA, REF) or not v.qual else f"{v.kind}:{v.qual}"
    parts = [deep_kind(e, depth + 1) for e in (v.elts or ())] if v.elts else [deep_kind(v.elem or V_DATA, depth + 1)]
    return f"seq({','.join(parts)})"


def plain_values(v: Val, depth: int = 0, names: bool = False) -> bool:
    """Data a library function may be handed and read: tensors, numbers, host values and sequences of them;
    not a module, a function or a class (which its body could run: the parent's own checks see those). With
    `names`, also a library's function or class by its qualified name (torchvision's
    `_log_api_usage_once(batched_nms)`, which reads its `__module__` and `__name__`): the body is read with it
    bound to that name, so whatever it does with it (calls it too) is judged there, as in a forward."""
    if v.kind == SEQ:
        return depth < 4 and all(plain_values(e, depth + 1, names)
                                 for e in [*(v.elts or ()), *([v.elem] if v.elem else [])])
    return v.kind in _PLAIN_KINDS or (names and v.kind == REF and bool(v.qual) and v.via in ("", "import", "alias"))


def prove_call(qual: str, args: list[Val], kwargs: dict[str, Val], scan: ScanFactory) -> Proof | None:
    """Read the library function `qual` (`package.module.name`) with these arguments' kinds; None where it is
    no plain function whose source can be read (a class, a builtin, a C extension), where an argument is not
    plain data, or past MAX_LIBRARY_DEPTH."""
    if not all(plain_values(v, names=True) for v in [*args, *kwargs.values()]):
        return None
    depth = getattr(_DEPTH, "n", 0)
    key = (qual, "|".join([*(deep_kind(a) for a in args), *(f"{k}={deep_kind(v)}" for k, v in sorted(kwargs.items()))]),
           depth)
    if key in _PROOFS:
        return _PROOFS[key]
    if depth >= MAX_LIBRARY_DEPTH:
        return None
    _DEPTH.n = depth + 1
    try:
        proof = _prove(qual, args, kwargs, scan)
    except (RecursionError, OSError, ValueError, TypeError, AttributeError, KeyError, IndexError):
        proof = None   # (a file or code the evaluator cannot read: unknown code, as before)
    finally:
        _DEPTH.n = depth
    if len(_PROOFS) >= _MAX_PROOFS:
        _PROOFS.pop(next(iter(_PROOFS)), None)
    _PROOFS[key] = proof
    return proof


def _prove(qual: str, args: list[Val], kwargs: dict[str, Val], make_scan: ScanFactory) -> Proof | None:
    found = _defined_function(qual)
    if found is None:
        return None
    module, fdef, tree = found
    path = module_source_file(module)
    if path is None:
        return None
    scan = make_scan(path.read_text(encoding="utf-8"), tree, str(path), module)
    fn = Val(LOCAL_FN, qual=fdef.name, node=fdef)
    res = scan.analyse_helper(fn, args, kwargs)
    ret = res.ret if plain_values(res.ret) else V_DATA   # (a function or class handed back: unknown code)
    return Proof(ret, tuple(res.violations), frozenset(getattr(scan, "code", set()) | scan.library_code),
                 f"{Path(path).name}:{fdef.lineno}")


def _defined_function(qual: str) -> tuple[str, ast.FunctionDef, ast.Module] | None:
    """(the module defining the function `qual`, its definition, the module's tree), following re-exports
    (external.reexported); None where it is no function at a module's top level, or one decorated otherwise
    than by IDENTITY_DECORATORS."""
    module, _, name = reexported(qual).rpartition(".")
    tree = module_tree(module) if module else None
    if tree is None:
        return None
    fdef = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
    if fdef is None or not all(dotted_name(d) in IDENTITY_DECORATORS for d in fdef.decorator_list):
        return None
    return module, fdef, tree
