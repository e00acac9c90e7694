"""Every step that holds a replaced kernel, re-verified with the replacement in place: the step's
original.py against its composed version (each child replaced by its own decomposition down to kernel
files, each replaced kernel by its `ModelNew`), through `verify-step` itself. A step's children files are
standalone (a fusion file holds its own ops), so only the composed version puts the replacement where the
step's computation runs.

`after_the_kernel` runs them, the composition test and the timing of the whole model in a process of
their own (`python -m hdecomp.toolchain.replace.steps`), the reference cache off: hdecomp's own process never
imports the candidate, and the cache never holds an output computed beside it. (What a candidate changes in
a process is judged in its own side process, alone: here the model's own imports may patch torch as well,
transformers' `nn.Module.smart_apply`.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import write_json_atomic, write_text_atomic
from hdecomp.formats.tree import TREE_FILE, DecompositionTree
from hdecomp.formats.weight_map import map_json
from hdecomp.runtime.settings import RunSettings
from hdecomp.toolchain.compose.plan import Composition, build_composition, relative_to_root
from hdecomp.toolchain.compose.script import generate_script
from hdecomp.toolchain.compose.weights import composed_weight_map
from hdecomp.verify.result import COMPOSITION_SEEDS, VerifyOptions


def steps_holding(comp: Composition, kernels: set[Path]) -> list[Path]:
    """The step folders whose composed model uses one of `kernels` (resolved files), children before
    parents (the composition's order)."""
    holds: dict[Path, bool] = {}
    for d in comp.order:   # children first: a sub-step's answer is known when its parent asks
        plan = comp.plans[d]
        found = False
        for ref in plan.refs:
            sub = comp.sub_steps.get((d, ref.file.resolve()))
            if sub is not None:
                found = found or holds.get(sub, False)
            else:
                leaf = comp.leaves.get(ref.file.resolve())
                found = found or (leaf is not None and leaf.file.resolve() in kernels)
        holds[d] = found
    return [d for d in comp.order if holds[d]]


def _nodes_by_step(root: Path) -> dict[str, tuple[str, str]]:
    try:
        tree = DecompositionTree.load(root / TREE_FILE)
    except Exception:   # a tree that cannot be read names no nodes; the steps still verify
        return {}
    return {n.step: (nid, n.level_name) for nid, n in tree.nodes.items() if n.step}


def prepare(root: Path, timeout: float | None = None) -> Composition:
    """The tree's composition with its weight maps (what the re-verification composes from)."""
    comp = build_composition(root)
    comp.weight_map = composed_weight_map(comp, timeout=timeout)
    return comp


def verify_composed_step(root: Path, comp: Composition, d: Path, replaced: dict[Path, Path], out_dir: Path,
                         options: VerifyOptions, tolerance: float | None = None) -> tuple[dict[str, Any], Any]:
    """One step's original.py against its composed version with `replaced` in place (verify-step; the
    composed file and its result written to `out_dir`): (its record, the VerificationResult)."""
    from hdecomp.verify.step import verify_step
    if tolerance is not None:
        options = dataclasses.replace(options, rtol=max(tolerance, options.rtol or 0),
                                      atol=max(tolerance, options.atol or 0))
    options = dataclasses.replace(options, skip_anticheat=True)   # the composed side is ours, not the user's
    step = comp.plans[d].step
    assert step.original is not None
    text = generate_script(comp, batch_limit=options.batch_limit, device=options.device, replaced=replaced,
                           script_dir=out_dir, tolerance=tolerance, step_dir=d)
    file = write_text_atomic(out_dir / f"{d.name}.py", text)
    wm = comp.step_maps.get(d)
    opts = dataclasses.replace(options, weight_map=map_json(wm) if wm else None)
    res = verify_step(step.original, file, opts, output=out_dir / f"{d.name}.verification_result.json")
    rel = relative_to_root(root, d)
    node, level = _nodes_by_step(root).get(rel, (None, None))
    record = {"step": rel, "node": node, "level": level, "status": res.status, "max_diff": res.max_diff,
              "error": res.error or res.data.get("fail_detail") or (res.fail_reasons[0] if res.fail_reasons else None),
              "composed_file": relative_to_root(root, file),
              "result_file": relative_to_root(root, out_dir / f"{d.name}.verification_result.json")}
    return record, res


def verify_with_replacements(root: Path, replaced: dict[Path, Path], out_dir: Path, options: VerifyOptions, *,
                             kernels: set[Path] | None = None, tolerance: float | None = None,
                             stop_at_failure: bool = True, comp: Composition | None = None,
                             progress: Any = None) -> list[dict[str, Any]]:
    """Re-verify each step holding one of `kernels` (default: every replaced kernel) with `replaced` in
    place, children first; with `stop_at_failure`, none after the first that does not pass."""
    comp = comp or prepare(root, options.timeout)
    targets = {k.resolve() for k in (kernels if kernels is not None else replaced)}
    records: list[dict[str, Any]] = []
    for d in steps_holding(comp, targets):
        if progress is not None:
            progress(f"re-verifying {relative_to_root(root, d)} with the replacement")
        record, _ = verify_composed_step(root, comp, d, replaced, out_dir, options, tolerance)
        records.append(record)
        if stop_at_failure and record["status"] != "PASS":
            break
    return records


def after_the_kernel(root: Path, replaced: dict[Path, Path], kernel: Path, out_dir: Path, options: Any,
                     tolerance: float, say: Any) -> dict[str, Any]:
    """The steps holding `kernel` re-verified with `replaced` in place, the composition with it and the
    whole model timed without and with it, in a fresh process (the reference cache off): {"steps": records,
    "composition": {...}, "model_seconds": (before, after)}.
    Raises HdecompError where that process fails."""
    import json
    import subprocess
    import sys
    import tempfile

    from hdecomp.errors import HdecompError
    from hdecomp.runtime.side import child_env
    request = {"root": str(root), "replaced": {str(k): str(v) for k, v in replaced.items()}, "kernel": str(kernel),
               "out_dir": str(out_dir), "tolerance": tolerance, "device": options.device,
               "batch_limit": options.batch_limit, "timeout": options.timeout, "num_trials": options.num_trials,
               "runs": options.runs, "warmup": options.warmup}
    with tempfile.TemporaryDirectory(prefix="hdecomp-steps-") as tmp:
        req, res = Path(tmp) / "request.json", Path(tmp) / "result.json"
        req.write_text(json.dumps(request), encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "hdecomp.toolchain.replace.steps", str(req), str(res)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                env=child_env({"HDECOMP_CACHE": "0"}))
        tail: list[str] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(_PROGRESS):
                say(line[len(_PROGRESS):].rstrip())
            else:
                tail = [*tail[-4:], line.rstrip()]
        proc.wait()
        if not res.is_file():
            raise HdecompError("the re-verification of the steps above the kernel stopped (exit code "
                               f"{proc.returncode}): {' | '.join(t for t in tail if t)}")
        out: dict[str, Any] = json.loads(res.read_text(encoding="utf-8"))
    if out.get("error"):
        raise HdecompError(str(out["error"]))
    out["model_seconds"] = tuple(out["model_seconds"])
    return out


_PROGRESS = "hdecomp-progress: "


def _run_after_the_kernel(request: dict[str, Any]) -> dict[str, Any]:
    from hdecomp.toolchain.compose import compose
    root = Path(request["root"])
    replaced = {Path(k): Path(v) for k, v in request["replaced"].items()}

    def say(msg: str) -> None:
        print(_PROGRESS + msg, flush=True)

    options = VerifyOptions(num_trials=min(int(request["num_trials"]), 3), skip_anticheat=True,
                            device=request["device"], batch_limit=request["batch_limit"], timeout=request["timeout"],
                            refactored_class=("RefactoredModel", "Model"), reference_cache=False)
    comp = prepare(root, request["timeout"])
    out_dir = Path(request["out_dir"])
    records = verify_with_replacements(root, replaced, out_dir / "steps", options,
                                       kernels={Path(request["kernel"]).resolve()}, tolerance=request["tolerance"],
                                       comp=comp, progress=say)
    out: dict[str, Any] = {"steps": records, "composition": None, "model_seconds": [None, None]}
    if all(r["status"] == "PASS" for r in records):
        say("composition test with the replacements in place: the model and its composition, each in a process "
            "of its own")
        # the script a user runs (written, not run here: it would run the candidate beside the comparison)
        script = compose(root, run=False, batch_limit=request["batch_limit"], device=request["device"],
                         timeout=request["timeout"], with_replacements=True, replaced=replaced,
                         tolerance=request["tolerance"]).script
        res = verify_composed_model(comp, replaced, out_dir / "steps", dataclasses.replace(
            options, num_trials=len(COMPOSITION_SEEDS)), request["tolerance"])
        out["composition"] = {"status": res.status, "max_diff": res.max_diff,
                              "reason": res.error or res.data.get("fail_detail")
                              or (res.fail_reasons[0] if res.fail_reasons else None),
                              "script": script.relative_to(root).as_posix() if script else None}
        record_composition(root, out["composition"])
        if res.status == "PASS":
            say("timing the whole model without and with the replacements, each in a process of its own")
            out["model_seconds"] = list(_model_times(root, comp, replaced, request))
    return out


def verify_composed_model(comp: Composition, replaced: dict[Path, Path], out_dir: Path, options: VerifyOptions,
                          tolerance: float | None = None) -> Any:
    """The original model file against the whole model composed from kernel files with `replaced` in
    place, through verify-step, each side in a process of its own and compared by the judge (the composed
    component and its result written to `out_dir`): the VerificationResult."""
    from hdecomp.verify.step import verify_step
    if tolerance is not None:
        options = dataclasses.replace(options, rtol=max(tolerance, options.rtol or 0),
                                      atol=max(tolerance, options.atol or 0))
    text = generate_script(comp, batch_limit=options.batch_limit, device=options.device, replaced=replaced,
                           script_dir=out_dir, tolerance=tolerance, component=True)
    file = write_text_atomic(out_dir / "composed_model.py", text)
    options = dataclasses.replace(options, skip_anticheat=True, isolate=True,
                                  weight_map=map_json(comp.weight_map) if comp.weight_map else None)
    return verify_step(comp.original, file, options, output=out_dir / "composed_model.verification_result.json")


def record_composition(root: Path, composition: dict[str, Any]) -> None:
    """test_results.json's `composition_with_replacements`: the isolated verdict (as `hdecomp compose
    --with-replacements` records its own)."""
    from hdecomp.formats.layout import TEST_RESULTS_FILE, read_test_results
    data = read_test_results(root)
    if data:
        data["composition_with_replacements"] = {**composition, "isolated": True}
        write_json_atomic(root / "verification" / TEST_RESULTS_FILE, data)


def _model_times(root: Path, comp: Composition, replaced: dict[Path, Path],
                 request: dict[str, Any]) -> tuple[float | None, float | None]:
    """The whole composed model without and with the replacements, each in a process of its own with the
    same weights and inputs, timed alternately by this process's clock (`replace.isolated.time_sides`);
    (None, None) where the model's inputs do not cross as plain data."""
    import shutil
    import tempfile

    from hdecomp.formats.replacements import REPLACEMENTS_DIR
    from hdecomp.runtime.batch_limit import limited_inputs
    from hdecomp.runtime.component import load_component
    from hdecomp.runtime.side import Side
    from hdecomp.runtime.wire import plain_only
    from hdecomp.toolchain.replace.isolated import time_sides
    limit, timeout = request["batch_limit"], request["timeout"]
    original = load_component(comp.original, timeout=timeout)
    args, kwargs = limited_inputs(original, RunSettings(device="cpu", batch_limit=limit, timeout=timeout))
    if not plain_only([list(args), dict(kwargs)]):
        return None, None
    tmp = Path(tempfile.mkdtemp(prefix=".timing_", dir=root / REPLACEMENTS_DIR))
    try:
        with Side("model-before", timeout=timeout) as before, Side("model-after", timeout=timeout) as after:
            for side, rep in ((before, {}), (after, replaced)):
                path = write_text_atomic(tmp / f"model_{side.name.removeprefix('model-')}.py", generate_script(
                    comp, batch_limit=limit, device=request["device"], replaced=rep, script_dir=tmp, component=True))
                side.request("load", path=str(path), class_names=["RefactoredModel"], device=request["device"],
                             batch_limit=limit, timeout=timeout, seed=0)
            msg, bufs = before.request("state")
            after.request("set_state", bufs, state=msg["state"])
            return time_sides(before, after, [list(args), dict(kwargs)], warmup=request["warmup"],
                              runs=request["runs"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    """`python -m hdecomp.toolchain.replace.steps REQUEST.json RESULT.json` (what `after_the_kernel` runs)."""
    import json
    import traceback

    from hdecomp.errors import HdecompError
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        out = _run_after_the_kernel(request)
    except HdecompError as exc:
        out = {"error": exc.headline}
    except Exception as exc:   # a bug of ours: named, with its traceback on the log
        traceback.print_exc()
        out = {"error": f"internal error: {type(exc).__name__}: {exc}"}
    write_json_atomic(argv[1], out)
    return 0


__all__ = ["after_the_kernel", "prepare", "steps_holding", "verify_composed_step", "verify_with_replacements"]


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
