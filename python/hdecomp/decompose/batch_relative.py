"""Batch-dependent Python ints baked into an exported or recorded graph, written batch-relative.

torch.fx traces sizes symbolically (`x.view(x.size(0), -1)` stays a `size` node), but torch.export (shapes
fixed to the example inputs) and execution recording (a `.size()` query is a plain int) write the value
the forward saw: under `--batch-limit 1`, `x.view(x.size(0), -1)` becomes `x.view(1, -1)` and minGPT's
`y.view(B, T, C)` becomes `view([1, 512, 768])`. Shapes are right at the cut batch, so the step verifies,
yet the generated file is wrong at the original batch.

`relative_batch_ints` finds them by capturing the component a second time, the same way, at batch N + 1
(hdecomp.decompose.shapes gives the inputs and model): an int argument that differs between the two graphs
and is k * batch in both is batch-dependent. It is rewritten as a size query on a tensor of the graph with
the same batch-scaled dimension (`x.size(0)`), or, in a view/reshape, as the one inferred dimension `-1`.
The rewritten graph is checked at both batches (output of the module at N, shapes at N + 1); anything that
cannot be rewritten or checked is returned as a deviation (the driver logs it), never dropped silently.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import operator
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.fx as fx
from torch import nn

from hdecomp.runtime.component import Component, clone_nested
from hdecomp.runtime.memoized import clear_memoized
from hdecomp.runtime.settings import RunSettings
from hdecomp.vocab.ops import INFERRED_SHAPE_OPS


@dataclass(frozen=True)
class BakedInt:
    """One int argument of `node` (at `path` inside its args/kwargs) that is v1 at batch b1, v2 at b2."""

    node: str
    path: tuple[Any, ...]
    v1: int
    v2: int
    k: int | None          # v1 == k * b1 and v2 == k * b2; None when not proportional to the batch


def _is_int(v: Any) -> bool:
    return type(v) is int


def _diff(a: Any, b: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """(path, a, b) for every leaf where the two argument structures differ."""
    if isinstance(a, fx.Node) or isinstance(b, fx.Node):
        if not (isinstance(a, fx.Node) and isinstance(b, fx.Node) and a.name == b.name):
            yield path, a, b
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _diff(x, y, (*path, i))
        return
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        for key in a:
            yield from _diff(a[key], b[key], (*path, key))
        return
    if isinstance(a, slice) and isinstance(b, slice):
        for attr in ("start", "stop", "step"):
            yield from _diff(getattr(a, attr), getattr(b, attr), (*path, attr))
        return
    if not _same_leaf(a, b):
        yield path, a, b


def _same_leaf(a: Any, b: Any) -> bool:
    """Two constants of a graph's arguments equal: of one type, arrays and tensors element by element (BigBird's
    random block indices are numpy arrays), NaN equal to NaN, anything else by its own equality."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    if isinstance(a, float) and a != a and b != b:
        return True
    try:
        return bool(a == b)
    except (ValueError, TypeError, RuntimeError):   # an equality that answers with an array or refuses
        return a is b


def _replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(obj, slice):
        parts = {"start": obj.start, "stop": obj.stop, "step": obj.step}
        parts[key] = _replace(parts[key], rest, value)
        return slice(parts["start"], parts["stop"], parts["step"])
    if isinstance(obj, (list, tuple)):
        items = list(obj)
        items[key] = _replace(items[key], rest, value)
        return type(obj)(items)
    if isinstance(obj, dict):
        out = dict(obj)
        out[key] = _replace(out[key], rest, value)
        return out
    raise TypeError(f"cannot replace inside a {type(obj).__name__}")


def baked_ints(graph1: fx.Graph, graph2: fx.Graph, b1: int, b2: int) -> tuple[list[BakedInt], str | None]:
    """The int arguments that differ between the same component's graphs captured at batches b1 and b2;
    the second item says why the graphs cannot be compared (different structure: batch-dependent control
    flow, or a non-int difference), else None."""
    n1, n2 = list(graph1.nodes), list(graph2.nodes)
    if [(n.name, n.op, n.target) for n in n1] != [(n.name, n.op, n.target) for n in n2]:
        return [], f"the graph captured at batch {b2} differs from the one at batch {b1} (control flow " \
                   "depends on the batch)"
    found: list[BakedInt] = []
    for a, b in zip(n1, n2, strict=True):
        if a.op in ("placeholder", "output", "get_attr"):
            continue
        for path, x, y in _diff((a.args, a.kwargs), (b.args, b.kwargs), ()):
            if not (_is_int(x) and _is_int(y)):
                return [], f"{a.name}: argument {path[1:]} is {x!r} at batch {b1} and {y!r} at batch {b2}"
            k = x // b1 if x > 0 and x % b1 == 0 and x * b2 == y * b1 else None
            found.append(BakedInt(a.name, path, x, y, k))
    return found, None


def _size_source(node: fx.Node, graph_nodes: dict[str, fx.Node], values1: dict[str, Any],
                 values2: dict[str, Any], b1: int, b2: int, k: int, *, single: bool = True,
                 ) -> tuple[fx.Node, tuple[int, ...]] | None:
    """A tensor the node can read the batch from: a dimension that is k * batch at both batches, or (not
    `single`) a run of adjacent dimensions whose product is (`torch.zeros(batch * seq, n)` of ERNIE's router
    logits, beside hidden states of (batch, seq, d): `h.size(0) * h.size(1)`); the node's own tensor inputs
    first (the generated code then reads its own operand), then the inputs, then the values computed before
    it."""
    candidates: list[fx.Node] = []
    for a in node.all_input_nodes:
        candidates.append(a)
    candidates += [n for n in graph_nodes.values() if n.op == "placeholder" and n not in candidates]
    # then any value computed before it (`torch.arange(ids.size(0))` with ids 2 x the batch, from topk)
    for n in graph_nodes.values():
        if n is node:
            break
        if n not in candidates and n.op in ("call_function", "call_method", "call_module"):
            candidates.append(n)
    shapes = []
    for c in candidates:
        t1, t2 = values1.get(c.name), values2.get(c.name)
        if isinstance(t1, torch.Tensor) and isinstance(t2, torch.Tensor) and t1.dim() == t2.dim():
            shapes.append((c, tuple(t1.shape), tuple(t2.shape)))
    for span in range(1, 2 if single else 1 + max((len(s1) for _, s1, _ in shapes), default=0)):
        for c, s1, s2 in shapes:
            for j in range(len(s1) - span + 1):
                if int(np.prod(s1[j:j + span])) == k * b1 and int(np.prod(s2[j:j + span])) == k * b2:
                    return c, tuple(range(j, j + span))
    return None


def rewrite_baked_ints(graph: fx.Graph, baked: list[BakedInt], values1: dict[str, Any],
                       values2: dict[str, Any], b1: int, b2: int) -> tuple[fx.Graph, list[str], list[str]]:
    """A copy of `graph` with every proportional baked int written batch-relative; (graph, what was
    rewritten, what could not be)."""
    new = copy.deepcopy(graph)
    nodes = {n.name: n for n in new.nodes}
    done: list[str] = []
    left: list[str] = []
    by_node: dict[str, list[BakedInt]] = {}
    for bi in baked:
        by_node.setdefault(bi.node, []).append(bi)
    for name, items in by_node.items():
        node = nodes[name]
        inferred_used = _has_minus_one(node)  # a view/reshape infers at most one dimension
        for bi in items:
            where = f"{_describe(node)}: argument {_position(bi.path)} = {bi.v1}"
            if bi.k is None:
                left.append(f"{where} is {bi.v2} at batch {b2}: not proportional to the batch, kept {bi.v1} "
                            "(wrong at other batch sizes)")
                continue
            src = _size_source(node, nodes, values1, values2, b1, b2, bi.k)
            inferred = node.op == "call_method" and str(node.target) in INFERRED_SHAPE_OPS and not inferred_used \
                and sum(1 for other in items if other.k is not None) == 1
            if src is None and not inferred:   # (a view's one inferred dimension before a product of sizes)
                src = _size_source(node, nodes, values1, values2, b1, b2, bi.k, single=False)
            value: Any
            if src is not None:
                with new.inserting_before(node):
                    sizes = [new.call_method("size", (src[0], j)) for j in src[1]]
                    value = sizes[0]
                    for more in sizes[1:]:
                        value = new.call_function(operator.mul, (value, more))
                text = " * ".join(f"{src[0].name}.size({j})" for j in src[1])
            elif inferred:
                value, text, inferred_used = -1, "-1 (inferred)", True
            else:
                left.append(f"{where} is {bi.k} x the batch, and no tensor of the graph has that dimension: "
                            f"kept {bi.v1} (wrong at other batch sizes)")
                continue
            args, kwargs = _replace((node.args, node.kwargs), bi.path, value)
            node.args, node.kwargs = tuple(args), dict(kwargs)
            done.append(f"{where} at batch {b1}, {bi.v2} at batch {b2}: written as {text}")
    new.lint()
    return new, done, left


def _has_minus_one(node: fx.Node) -> bool:
    found = []
    fx.node.map_aggregate(node.args, lambda x: found.append(x) if _is_int(x) and x == -1 else None)
    return bool(found)


def _describe(node: fx.Node) -> str:
    target = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))
    return node.name if node.name.rstrip("_0123456789") == target else f"{node.name} ({target})"


def _position(path: tuple[Any, ...]) -> str:
    """`1`, `1[0]` (a shape list's entry) or `size` (a keyword) for a path into (args, kwargs)."""
    rest = path[1:]
    return str(rest[0]) + "".join(f"[{p}]" for p in rest[1:]) if rest else "?"


def relative_batch_ints(comp: Component, model: nn.Module, cap: Any, run: RunSettings, args: list[Any],
                        kwargs: dict[str, Any], expected: Any, expand: set[str] | None = None,
                        ) -> tuple[Any, list[str]]:
    """`cap` (an exported or recorded Capture made under `run`'s `--batch-limit`) with its batch-dependent
    int arguments written batch-relative, plus the deviations (ints left as recorded, checks that could
    not run). As given for torch.fx captures (sizes are traced) and when nothing was cut.

    An exported graph whose structure differs between the two batches is specialised to the cut batch
    (at batch 1, torch.export turns `inv[perm] = torch.arange(n)` into a `view([])` of a one-element
    tensor): the forward is then recorded instead, and the recording checked the same way."""
    from hdecomp.decompose import shapes
    from hdecomp.decompose.capture import (
        CAPTURE_SEED,
        CaptureError,
        capture_record,
        expected_output,
        finish_capture,
    )
    if cap.method not in ("export", "record"):
        return cap, []
    sc, args2, kwargs2 = shapes.scaling_for(comp, run, args, kwargs)
    device, timeout = run.device, run.timeout
    if sc is None:
        return cap, []
    # Memory (hdecomp memory order): a real capture at b2 holds every intermediate at b2 next to the b1
    # capture's; when that cannot fit (a 16384-token attention), the ints stay as recorded, reported.
    need = shapes.tensor_bytes(cap.values, shapes.state_storages(model)) * sc.b2 // max(sc.b1, 1)
    avail = shapes.available_bytes()
    if avail is not None and need > avail // 2:
        return cap, [f"batch-dependent ints not checked: a capture at batch {sc.b2} needs about "
                     f"{need / 2**30:.1f} GiB, more than half the {avail / 2**30:.1f} GiB available"]
    model2 = None
    for candidate, on_meta in shapes.models_at(comp, model, sc, device=device, timeout=timeout):
        if not on_meta:  # a capture compares real values
            model2 = candidate
            break
    if model2 is None:
        return cap, [f"batch-dependent ints not checked: no model at batch {sc.b2}"]
    with torch.no_grad():
        torch.manual_seed(CAPTURE_SEED)
        try:
            out2 = model2(*clone_nested(args2), **clone_nested(kwargs2))
        except Exception as exc:  # user code at the second batch
            return cap, [f"batch-dependent ints not checked: the forward does not run at batch {sc.b2} "
                         f"({type(exc).__name__}: {exc})"]
    result, notes, structural = _relative(cap, model, model2, sc, args, kwargs, args2, kwargs2, expected,
                                          out2, expand or set())
    if not structural or cap.method != "export":
        return result, notes
    try:
        recorded = finish_capture(capture_record(model, args, kwargs, expected, expand or set()),
                           expected_output(expected))
    except CaptureError:
        return result, notes
    result2, notes2, structural2 = _relative(recorded, model, model2, sc, args, kwargs, args2, kwargs2,
                                             expected, out2, expand or set())
    if structural2 or notes2:
        return result, notes
    why = notes[0].removeprefix("batch-dependent ints not checked: ")
    result2.notes = [*recorded.notes, f"torch.export specialised the graph to batch {sc.b1} ({why}): the "
                     "forward was recorded instead"]
    return result2, []


def _relative(cap: Any, model: nn.Module, model2: nn.Module, sc: Any, args: list[Any], kwargs: dict[str, Any],
              args2: list[Any], kwargs2: dict[str, Any], expected: Any, out2: Any,
              expand: set[str]) -> tuple[Any, list[str], bool]:
    """relative_batch_ints for one capture: (capture, deviations, whether the graphs at the two batches
    differ in structure)."""
    from hdecomp.decompose.capture import (
        CAPTURE_SEED,
        CaptureError,
        capture_export,
        capture_record,
        fold_state_metadata,
        node_values,
        output_matches,
        thread_inplace,
    )
    step = capture_export if cap.method == "export" else capture_record
    clear_memoized(model2)   # (its forward at batch b2 just ran: what it memoized is made again, as in the first)
    try:
        # the same graph transforms the first capture went through (capture.finish_capture), else the two differ
        cap2 = thread_inplace(fold_state_metadata(step(model2, args2, kwargs2, out2, expand)))
    except CaptureError as exc:
        return cap, [f"batch-dependent ints not checked: capture at batch {sc.b2} failed ({exc})"], False
    except Exception as exc:  # user code at the second batch
        return cap, [f"batch-dependent ints not checked: the forward does not run at batch {sc.b2} "
                     f"({type(exc).__name__}: {exc})"], False
    baked, problem = baked_ints(cap.graph, cap2.graph, sc.b1, sc.b2)
    if problem is not None:
        return cap, [f"batch-dependent ints not checked: {problem}"], problem.startswith("the graph captured")
    if not baked:
        return cap, [], False
    graph, done, left = rewrite_baked_ints(cap.graph, baked, cap.values, cap2.values, sc.b1, sc.b2)
    if not done:
        return cap, left, False
    # The rewritten graph must still be the module at the cut batch and run at the second batch.
    try:
        with torch.no_grad(), _owner_kept(graph):
            gm = fx.GraphModule(model, graph)
            torch.manual_seed(CAPTURE_SEED)
            out1, values1 = node_values(gm, clone_nested(args), clone_nested(kwargs))
            gm2 = fx.GraphModule(model2, copy.deepcopy(graph))
            torch.manual_seed(CAPTURE_SEED)
            out_b2, _ = node_values(gm2, clone_nested(args2), clone_nested(kwargs2))
    except Exception as exc:
        return cap, [*left, f"batch-relative rewrite rejected ({type(exc).__name__}: {exc}); ints kept as "
                            "recorded: " + "; ".join(done)], False
    if not output_matches(expected, out1) or not output_matches(out2, out_b2):
        return cap, [*left, "batch-relative rewrite rejected (outputs differ); ints kept as recorded: "
                     + "; ".join(done)], False
    notes = [*cap.notes, "batch-dependent ints written batch-relative: " + "; ".join(done)]
    return dataclasses.replace(cap, graph=graph, values=values1, notes=notes), left, False


@contextlib.contextmanager
def _owner_kept(graph: fx.Graph) -> Iterator[None]:
    """fx.GraphModule takes ownership of the graph it is given; the capture's graph stays unowned."""
    owner = graph.owning_module
    try:
        yield
    finally:
        graph.owning_module = owner
