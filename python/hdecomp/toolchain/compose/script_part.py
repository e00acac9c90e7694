"""The fixed part of every verification/composition_test.py, as real code that the linters and the type
checker see. `compose.script.generate_script` writes the script's docstring, then this file's text from its
imports on (the block of declarations between the GENERATED markers cut out), then the generated part:
the constants, the kernel files, the step classes, `ComposedModel`, `WEIGHT_MAP` and the main guard.

Standalone: the script imports torch only, never hdecomp (it runs wherever the model runs). The batch
rule below is runtime/batch_limit.py's, restated for that reason; test_compose.py checks the two agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

# ---- GENERATED: each script defines these after this part (declared here for the checkers only) ----
ROOT = Path(".")
ORIGINAL = ""
SEEDS: tuple[int, ...] = ()
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {}
DEFAULT_BATCH_LIMIT: int | None = None
DEFAULT_DEVICE = "cpu"
RESULT_MARK = ""
WEIGHT_MAP: dict[str, Any] = {}
ComposedModel: Any = None
# ---- END GENERATED ----
_loaded = 0
_MODULES: list[Any] = []  # every loaded component module: --batch-limit lowers their batch_size before the build


def load_component(rel_path):
    """Import a component file under a unique module name, its folder on sys.path only meanwhile."""
    global _loaded
    path = ROOT / rel_path
    _loaded += 1
    spec = importlib.util.spec_from_file_location(f"_composition_{_loaded}_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # (registered, as importlib's recipe does: a verify-step of this file lowers the `batch_size` of the modules
    # it imported, the component files too)
    sys.modules[spec.name] = module
    saved = list(sys.path)
    sys.path[:0] = [str(path.parent), str(path.parent / "children")]
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    _MODULES.append(module)
    return module


def named_tensors(model, attributes=False):
    """Parameters and buffers by name; with `attributes`, the plain tensor attributes too (hdecomp.verify.weights:
    a table a constructor stored as `self.name = ...` travels like a non-persistent buffer where the map names it)."""
    out = dict(model.named_parameters(remove_duplicate=False))
    out.update(dict(model.named_buffers(remove_duplicate=False)))
    if attributes:
        for qual, mod in model.named_modules(remove_duplicate=False):
            for attr, t in vars(mod).items():
                if isinstance(t, torch.Tensor) and not isinstance(t, nn.Parameter):
                    out.setdefault(f"{qual}.{attr}" if qual else attr, t)
    return out


def targets(okey, src):
    """(composed key, the original's tensor or its slice) for each tensor original key `okey` fills: one key,
    or the slices of a packed tensor (`{"key", "dim", "start", "stop"}`), the entries of a stacked one (`{"key",
    "dim", "index"}`), or whole copies (a key in the list: a tensor the refactored model ties, each composed child
    holding its own copy)."""
    value = WEIGHT_MAP[okey]
    if isinstance(value, str):
        return [(value, src[okey])]
    return [(p, src[okey]) if isinstance(p, str) else
            (p["key"], src[okey].select(p["dim"], p["index"])) if "index" in p else
            (p["key"], src[okey].narrow(p["dim"], p["start"], p["stop"] - p["start"])) for p in value]


def transfer_weights(original, composed):
    src, dst = named_tensors(original, attributes=True), named_tensors(composed, attributes=True)
    # (a key the original does not hold yet is state its first forward makes, LongRoPE's `long_inv_freq`: the
    # steps were verified on it settled; it is handed over once both ran, main's settle path below)
    held = [k for k in WEIGHT_MAP if k in src]
    missing = [k for k in held if any(c not in dst for c, _ in targets(k, src))]
    if missing:
        raise KeyError(f"weight map names tensors that do not exist: {missing[:3]}")
    with torch.no_grad():
        for okey in held:
            for ckey, tensor in targets(okey, src):
                dst[ckey].copy_(tensor)
    filled = {c for okey in held for c, _ in targets(okey, src)}
    filled_ids = {id(dst[k]) for k in filled}  # tied tensors: an alias of a filled tensor is filled
    # (a non-persistent buffer too: the steps' maps carry them, as verification transferred them; one left
    # to a kernel file's stand-in values would compose what no step proved. A plain tensor attribute only
    # where a map names it: a small one a kernel writes as a literal is the original's value already)
    state = named_tensors(composed)
    return [k for k in state if k not in filled and id(state[k]) not in filled_ids and state[k].is_floating_point()]


def state_versions(model):
    """(id, version counter) of every parameter and buffer: changed by a forward that writes them in place."""
    return [(id(t), t._version) for t in [*model.parameters(), *model.buffers()]]


def build_composed(original, init, device, share):
    """The composed model given the original's tensors themselves (built on the meta device: one copy of the
    weights in memory, no initialisation thrown away); where that cannot be exact (a constructor that needs
    real tensors, a tensor the map does not fill), built for real and filled by copies. Returns (model, the
    shared tensors or None, the composed tensors left without a weight)."""
    if share:
        try:
            with torch.device("meta"):
                composed = ComposedModel(*init)
                composed.eval()   # (a train() override may return None: never chained)
        except Exception:
            composed = None
        if composed is not None:
            src = named_tensors(original, attributes=True)
            shared, given = [], {}   # id of a composed (meta) tensor -> the original's tensor it now is
            for okey in [k for k in WEIGHT_MAP if k in src]:
                for ckey, tensor in targets(okey, src):
                    owner_name, _, leaf = ckey.rpartition(".")
                    owner = composed.get_submodule(owner_name) if owner_name else composed
                    table = owner._parameters if leaf in owner._parameters else owner._buffers
                    if leaf not in table:
                        continue
                    if tensor is not src[okey] and isinstance(src[okey], nn.Parameter):
                        with torch.no_grad():   # a slice of a packed weight: a view, the same storage
                            tensor = nn.Parameter(tensor, requires_grad=src[okey].requires_grad)
                    given[id(table[leaf])] = (table[leaf], tensor)   # (held: its id stays its own)
                    table[leaf] = tensor
                    shared.append(tensor)
            for m in composed.modules():   # a tied tensor (lm_head.weight = wte.weight) is the same one again
                for table in (m._parameters, m._buffers):
                    for leaf, t in list(table.items()):
                        if t is not None and id(t) in given:
                            table[leaf] = given[id(t)][1]
            tensors = list(composed.parameters()) + list(composed.buffers())
            plain = [t for m in composed.modules() for v in vars(m).values()
                     for t in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(t, torch.Tensor)]
            if not any(t.is_meta for t in tensors + plain):
                return composed, shared, []
    composed = ComposedModel(*init).to(device)
    composed.eval()
    return composed, None, transfer_weights(original, composed)


def tensors_in(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_in(o)]
    return []


def batch_size_kept(module, n):
    """hdecomp.runtime.component.Component.batch_size_kept, as far as a script can tell without building the model
    twice: the module's `batch_size` line says `# hdecomp: not lowered` (the decomposer writes it on its copy
    of a model whose batch cannot be lowered), or its get_inputs() raises with batch_size lowered to n."""
    value = getattr(module, "batch_size", None)
    if n is None or not isinstance(value, int) or isinstance(value, bool) or value <= n:
        return False
    try:
        with open(getattr(module, "__file__", None) or "", encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        text = ""
    if any(line.startswith("batch_size") and "#" in line and NOT_LOWERED_TAG in line.split("#", 1)[1]
           for line in text.splitlines()):
        return True
    get_inputs = getattr(module, "get_inputs", None)
    if get_inputs is None:
        return False
    module.batch_size = n
    try:
        get_inputs()
        return False
    except Exception:
        return True
    finally:
        module.batch_size = value


NOT_LOWERED_TAG = "hdecomp: not lowered"


def lower_batch_size(module, n):
    """--batch-limit on a module with KernelBench's int `batch_size`: lower it (get_inputs() and the
    constructor then build batch-n data); such inputs are never cut further. A module whose batch is kept
    (batch_size_kept) is left as it is."""
    value = getattr(module, "batch_size", None)
    if n is None or not isinstance(value, int) or isinstance(value, bool) or batch_size_kept(module, n):
        return False
    module.batch_size = min(value, n)
    return True


def batch_cut_policy(module, args, kwargs, kept=False):
    """hdecomp.runtime.batch_limit.batch_cut_policy: "batch_size" (a module-level int batch_size, lowered instead,
    unless the file's batch is `kept`), "not_applicable" (every input a 2-D square matrix of one size: no batch
    dimension), else "cut"."""
    value = getattr(module, "batch_size", None)
    if isinstance(value, int) and not isinstance(value, bool) and not kept:
        return "batch_size"
    tensors = tensors_in([list(args), kwargs])
    if tensors and all(t.dim() == 2 and t.shape[0] == t.shape[1] == tensors[0].shape[0] for t in tensors):
        return "not_applicable"
    return "cut"


def grouped_sizes(args, kwargs):
    """hdecomp.runtime.batch_limit.grouped_sizes: {k * b: b} for integer inputs (2-D or more) laid out batch-major
    with k rows per sample of a float input's leading size b (OWLv2's batch x queries ids beside batch images)."""
    tensors = [t for t in tensors_in([list(args), kwargs]) if t.dim() >= 1]
    data = {int(t.shape[0]) for t in tensors if t.is_floating_point() or t.is_complex()}
    out = {}
    for t in tensors:
        size = int(t.shape[0])
        if t.dim() < 2 or t.is_floating_point() or t.is_complex() or size in data:
            continue
        bases = [b for b in data if 1 < b < size and size % b == 0]
        if bases and all(not (u.is_floating_point() or u.is_complex()) for u in tensors if int(u.shape[0]) == size):
            out[size] = max(bases)
    return out


def batch_candidates(args, kwargs, n):
    """hdecomp.runtime.batch_limit.batch_candidates: the leading sizes above n a cut may take as the batch, in the
    order they are tried: the first input's, then every other distinct one in input order (not grouped sizes);
    none when the first input with a leading dimension is within n already."""
    out: list[int] = []
    grouped = grouped_sizes(args, kwargs)
    tensors = [t for t in tensors_in([list(args), kwargs]) if t.dim() >= 1 and int(t.shape[0]) not in grouped]
    if tensors and int(tensors[0].shape[0]) <= n:
        return out
    for t in tensors:
        if int(t.shape[0]) > n and int(t.shape[0]) not in out:
            out.append(int(t.shape[0]))
    return out


def cut_batch(args, kwargs, n, batch=None):
    """hdecomp.runtime.batch_limit.cut_batch: cut the leading dimension of every input tensor whose leading size is
    `batch` (default: the first input's) to n, and of those grouped by it (k rows per sample) to k * n; every other
    input is left as it is."""
    grouped = grouped_sizes(args, kwargs)
    if batch is None:
        batch = next((t.shape[0] for t in tensors_in([list(args), kwargs])
                      if t.dim() >= 1 and int(t.shape[0]) not in grouped), None)
    if batch is None or batch <= n:
        return args, kwargs

    def cut(obj):
        if isinstance(obj, torch.Tensor):
            if obj.dim() >= 1 and obj.shape[0] == batch:
                return obj[:n].clone()
            size = int(obj.shape[0]) if obj.dim() >= 1 else 0
            return obj[:n * (size // batch)].clone() if grouped.get(size) == batch else obj
        if isinstance(obj, (list, tuple)):
            return type(obj)(cut(o) for o in obj)
        if isinstance(obj, dict):
            return {k: cut(v) for k, v in obj.items()}
        return obj

    return [cut(a) for a in args], {k: cut(v) for k, v in kwargs.items()}


def choose_cut(args, kwargs, n, runs=None):
    """hdecomp.runtime.batch_limit.choose_cut: the first candidate batch whose cut the model runs (`runs(args,
    kwargs)`); none runs: the inputs whole (a cut never breaks a model that runs uncut).
    Returns (args, kwargs, the batch cut or None)."""
    for batch in batch_candidates(args, kwargs, n):
        cut_args, cut_kwargs = cut_batch(args, kwargs, n, batch)
        if runs is None or runs(cut_args, cut_kwargs):
            return cut_args, cut_kwargs, batch
    return args, kwargs, None

def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: to_device(v, device) for k, v in obj.items()}
    return obj


def clone(obj):
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(clone(o) for o in obj)
    if isinstance(obj, dict):
        return {k: clone(v) for k, v in obj.items()}
    return obj


def compare(a, b, where="output"):
    """(ok, max_diff, message) over nested outputs, leaf by leaf; NaN must match NaN."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return False, float("inf"), f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        if not a.is_floating_point():
            same = bool(torch.equal(a, b))
            return same, 0.0 if same else float("inf"), "" if same else f"{where}: values differ"
        rtol, atol = TOLERANCES.get(a.dtype, (1e-4, 1e-5))
        a64, b64 = a.double(), b.to(a.device).double()
        nan_a, nan_b = torch.isnan(a64), torch.isnan(b64)
        if not torch.equal(nan_a, nan_b):
            return False, float("nan"), f"{where}: NaN in one output only"
        ok_mask = ~nan_a
        diff = (a64[ok_mask] - b64[ok_mask]).abs()
        max_diff = float(diff.max()) if diff.numel() else 0.0
        ok = bool(torch.allclose(a64[ok_mask], b64[ok_mask], rtol=rtol, atol=atol, equal_nan=True))
        return ok, max_diff, "" if ok else f"{where}: max diff {max_diff:.3e} (rtol {rtol}, atol {atol})"
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False, float("inf"), f"{where}: {len(a)} vs {len(b)} outputs"
        worst, msg, ok = 0.0, "", True
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            o, d, m = compare(x, y, f"{where}[{i}]")
            worst, ok, msg = max(worst, d), ok and o, msg or m
        return ok, worst, msg
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return False, float("inf"), f"{where}: keys {sorted(a)} vs {sorted(b)}"
        worst, msg, ok = 0.0, "", True
        for k in a:
            o, d, m = compare(a[k], b[k], f"{where}[{k!r}]")
            worst, ok, msg = max(worst, d), ok and o, msg or m
        return ok, worst, msg
    if hasattr(a, "__dataclass_fields__") and hasattr(b, "__dataclass_fields__") and \
            type(a).__qualname__ == type(b).__qualname__:   # a dataclass output (each file defines its class)
        return compare({k: getattr(a, k) for k in a.__dataclass_fields__},
                       {k: getattr(b, k) for k in b.__dataclass_fields__}, where)
    if type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__") and hasattr(b, "__dict__") and \
            type(a).__qualname__ == type(b).__qualname__ and not isinstance(a, nn.Module):
        # a plain object holding tensors (a VAE's posterior): attribute by attribute (each file its class)
        return compare(dict(vars(a)), dict(vars(b)), where)
    same = a == b
    return bool(same), 0.0 if same else float("inf"), "" if same else f"{where}: {a!r} vs {b!r}"


def forward_runs(model, args, kwargs, device):
    """The check of a candidate cut (hdecomp.runtime.batch_limit.forward_runs): the model runs on copies of the inputs."""
    if model is None:
        return False
    try:
        with torch.no_grad():
            model(*clone(to_device(args, device)), **clone(to_device(kwargs, device)))
    except Exception:
        return False
    return True


def meta_model(module, init):
    """The original built on the meta device, for shape-only checks of a cut (None when it cannot be)."""
    try:
        with torch.device("meta"):
            model = module.Model(*init)
            model.eval()
            return model
    except Exception:
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-limit", type=int, default=DEFAULT_BATCH_LIMIT)
    parser.add_argument("--device", default=DEFAULT_DEVICE)
    parser.add_argument("--copy-weights", action="store_true",
                        help="give the composed model copies of the weights instead of the original's tensors")
    args = parser.parse_args(argv)
    try:
        original_module = load_component(ORIGINAL)
        kept = batch_size_kept(original_module, args.batch_limit)
        # lowered before the build too: a model (or a kernel file) may size state by the batch in __init__
        for module in _MODULES:
            lower_batch_size(module, args.batch_limit)
        init = list(getattr(original_module, "get_init_inputs", list)())
        torch.manual_seed(0)
        original = original_module.Model(*init).to(args.device)
        original.eval()
        composed, shared, unfilled = build_composed(original, init, args.device, not args.copy_weights)
        versions = [t._version for t in shared or []]
        if unfilled:
            print(f"FAIL: composed tensors without a weight from the original: {unfilled[:5]}")
            print(RESULT_MARK + json.dumps({"status": "FAIL", "max_diff": None,
                                                "reason": f"unmapped composed tensors {unfilled[:5]}"}))
            return 1
        worst, failures = 0.0, []
        chosen: list[int | None] = []  # the batch the cut takes, checked once (meta forward first, then a real one): every seed
        for seed in SEEDS:
            torch.manual_seed(seed)
            inputs = list(original_module.get_inputs())
            kwargs = dict(original_module.get_input_kwargs()) if hasattr(original_module, "get_input_kwargs") else {}
            if args.batch_limit is not None and batch_cut_policy(original_module, inputs, kwargs, kept) == "cut":
                if not chosen:
                    meta = meta_model(original_module, init)
                    inputs, kwargs, batch = choose_cut(
                        inputs, kwargs, args.batch_limit,
                        lambda a, k, meta=meta: forward_runs(meta, a, k, "meta") or forward_runs(original, a, k, args.device))
                    chosen.append(batch)
                    del meta
                elif chosen[0] is not None:
                    inputs, kwargs = cut_batch(inputs, kwargs, args.batch_limit, chosen[0])
            inputs, kwargs = to_device(inputs, args.device), to_device(kwargs, args.device)
            with torch.no_grad():   # the same RNG state for both: a forward may draw random numbers
                before = state_versions(original)
                torch.manual_seed(seed + 1000)
                expected = original(*clone(inputs), **clone(kwargs))
                if seed == SEEDS[0] and shared is None and state_versions(original) != before:
                    # its first forward wrote its own weights (RWKV's rescale, hdecomp.runtime.settle): the composed
                    # model runs once too, is given the weights as that forward left them, and both run again
                    print("note: the original's first forward writes its own parameters or buffers: both are "
                          "compared as it left them")
                    torch.manual_seed(seed + 1000)
                    composed(*clone(inputs), **clone(kwargs))
                    transfer_weights(original, composed)
                    torch.manual_seed(seed + 1000)
                    expected = original(*clone(inputs), **clone(kwargs))
                torch.manual_seed(seed + 1000)
                got = composed(*clone(inputs), **clone(kwargs))
            if shared and [t._version for t in shared] != versions:   # a forward wrote its own weights
                print("note: a forward writes its own parameters or buffers: checked again with copies")
                return main([*(argv or sys.argv[1:]), "--copy-weights"])
            ok, diff, msg = compare(expected, got)
            worst = max(worst, diff)
            if not ok:
                failures.append(f"seed {seed}: {msg}")
    except Exception as exc:  # the script's verdict for "could not run" is ERROR (exit 2)
        import traceback
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
        print(f"ERROR: {where}{type(exc).__name__}: {exc}")
        print(RESULT_MARK + json.dumps({"status": "ERROR", "max_diff": None,
                                            "reason": f"{where}{type(exc).__name__}: {exc}"}))
        return 2
    status = "FAIL" if failures else "PASS"
    detail = f" ({failures[0]})" if failures else ""
    weights = "shared" if shared is not None else "copied"
    print(f"{status}: composed model vs original, max diff {worst:.3e} over {len(SEEDS)} seeds{detail}")
    print(f"weights: {weights} ({'one copy in memory' if shared is not None else 'two copies in memory'})")
    print(RESULT_MARK + json.dumps({"status": status, "max_diff": worst, "weights": weights,
                                        "reason": failures[0] if failures else None}))
    return 0 if status == "PASS" else 1
