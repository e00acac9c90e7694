"""`hdecomp decompose`: automatic, verified decomposition of a model file, step by step, gate by gate.

Breadth first from the model: each component is captured (capture.py), split into children (plan.py), drafted
as a step (step_writer.py with graph_children.py, or source_write.py), its folder written (step_draft.StepFolder)
and verified (hdecomp.toolchain.pipeline.verify_one: verify_step + coverage), then committed to the tree.
Only a passing step's non-kernel children are decomposed further; anything that cannot be captured,
planned, generated or verified stays a leaf marked `"decomposable": false` with the reason. At the end the
tree, log, analysis, coverage summary, self-test results and composition test are written.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
import traceback
from collections import deque
from pathlib import Path
from typing import Any

import torch

from hdecomp.decompose.outputs import (
    PeakRss,
    self_test_jobs,
    write_outputs,
)
from hdecomp.decompose.shapes import full_size_io
from hdecomp.decompose.state import DecomposeOptions, Decomposition, Node, StepRecord
from hdecomp.decompose.step_draft import StepFolder, commit
from hdecomp.decompose.step_writer import leaf, write_step
from hdecomp.decompose.stepfiles import (
    io_maps,
)
from hdecomp.errors import ComponentLoadError, DecomposeError, HdecompError
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.layout import Step, read_result_file
from hdecomp.formats.tree import TREE_FILE
from hdecomp.runtime.batch_limit import batch_cut_policy, cut_for, limited_inputs
from hdecomp.runtime.component import BUILD_SEED, clone_nested, load_component, run_user_code
from hdecomp.vocab.levels import LEVEL_DIRS, LEVEL_NAMES

logger = logging.getLogger(__name__)


# ---- one step ----------------------------------------------------------------------------------------


def decompose_component(dec: Decomposition, node: Node, step_number: int) -> list[Node]:
    """Run one step on `node`; returns the new child components to decompose next (after PASS).

    A step is written from a graph capture, or at the source level (source_step.py) where the forward's own
    Python holds loops or control flow over tensors; when the step written one way does not verify, the
    other way is tried once (a graph holds one recorded path: a data-dependent `if` takes another branch on
    the re-randomised trial)."""
    tried: list[str] = []
    while True:
        draft = write_step(dec, node, step_number, avoid=tried)
        if isinstance(draft, list):          # a leaf or a one-kernel root: no step to verify
            return draft
        StepFolder.write(dec, draft)
        step_dir, step_name, method = draft.step_dir, draft.step_name, draft.method
        tried.append("source" if method == "source" else "graph")
        # Everything the step's writing held is gone with write_step's frame; the captured fx graph's
        # node <-> graph cycles keep the recorded model (a 4 GB Linear) alive until collected, and it must
        # not sit in memory next to the two models verification builds (when they are big: dec.collect).
        dec.collect()
        outcome = _verify(dec, step_dir, step_number, step_name)
        status = outcome.status
        # (an anti-cheat violation too: the planner must never leave a step its own verifier rejects, so a
        # step one way rejects is written the other way before the branch stops)
        retry = {"numerical_mismatch", "randomized_trial_mismatch", "probe_mismatch", "input_mutation",
                 "anticheat_violation", "in_model_mismatch"}
        # (and an ERROR raised by the code the step wrote, not by the original: a recorded graph that runs a
        # reduction on the empty tensor a guard of the original's Python skipped, on another trial's inputs)
        if len(tried) == 1 and ((status == "FAIL" and set(outcome_reasons(outcome)) <= retry) or
                                (status == "ERROR" and _written_code_raised(outcome, step_dir))):
            reason = outcome.fail_reason or outcome.error or "verification did not pass"
            violations = ((_result_data(outcome) or {}).get("anticheat") or {}).get("violations") or []
            if violations:   # (which rule, where: the log says why, not only that)
                v = violations[0]
                reason = f"{reason}: {v.get('rule', '')} {v.get('message', '')}".rstrip() if isinstance(v, dict) \
                    else f"{reason}: {v}"
            other = "graph" if tried[0] == "source" else "source"
            dec.note(step_name, "difficulty", f"{node.id}: the step written from {method} does not verify",
                     str(reason), f"written again from {other}")
            # (the draft never entered the decomposition: its folder goes, nothing else is left of it)
            shutil.rmtree(step_dir, ignore_errors=True)
            continue
        break
    child_nodes = commit(dec, draft)
    dec.steps.append(StepRecord(step_number, node.id, step_dir, status, outcome))
    if status != "PASS":
        node.status = status.lower()
        reason = outcome.fail_reason or outcome.error or "verification did not pass"
        node.reason = f"step {step_name} {status}: {reason}"
        dec.note(step_name, "difficulty", f"{node.id}: step {status}", str(reason),
                 "branch stopped here; the component stays whole for manual or agent work")
        return []
    node.status = "pass"
    dec.note(step_name, "decision", f"{node.id} -> {len(node.children)} children",
             ", ".join(f"{c} ({LEVEL_NAMES[dec.nodes[c].level]})" for c in node.children)
             + f"; captured with {method}")
    return child_nodes


def _model_runs(comp: Any, args: list[Any], kwargs: dict[str, Any], options: DecomposeOptions,
                ) -> list[tuple[list[Any], dict[str, Any]]]:
    """The model's inputs under each draw the composition test makes (COMPOSITION_SEEDS; the first is the
    recording's own): the root's in-model calls, which every step's children are replayed on, so that a
    size read from data upstream (the frames a duration predictor asks for) is one the steps below saw."""
    from hdecomp.verify.result import COMPOSITION_SEEDS
    runs = [(clone_nested(list(args)), clone_nested(dict(kwargs)))]
    for seed in COMPOSITION_SEEDS[1:]:
        try:
            runs.append(limited_inputs(comp, options, seed=seed))
        except HdecompError:   # (the file's own inputs at another seed: the recording's stay)
            break
    return runs


def _result_data(outcome: Any) -> dict[str, Any] | None:
    """The step's verification_result.json, None when there is none."""
    step = getattr(outcome, "step", None)
    return read_result_file(step.result_file) if step is not None else None


def _written_code_raised(outcome: Any, step_dir: Path) -> bool:
    """Whether a step's ERROR was raised in the code the step wrote (its refactored.py or a child's file),
    not in the original's or in hdecomp's own."""
    where = ((_result_data(outcome) or {}).get("error_details") or {}).get("file")
    if not where:
        return False
    path = Path(where)
    try:
        inside = path.resolve().is_relative_to(step_dir.resolve())
    except OSError:
        return False
    return inside and path.name != "original.py"


def outcome_reasons(outcome: Any) -> list[str]:
    """Why a step failed (verification_result.json's fail_reasons), [] when that is not known."""
    data = _result_data(outcome)
    if data is None:
        return [outcome.fail_reason] if getattr(outcome, "fail_reason", None) else []
    return list(data.get("fail_reasons") or ([data["fail_reason"]] if data.get("fail_reason") else []))


def _verify(dec: Decomposition, step_dir: Path, number: int, name: str) -> Any:
    from hdecomp.toolchain.pipeline import verify_one
    from hdecomp.verify.result import VerifyOptions
    o = dec.options
    options = VerifyOptions(**o.run_fields(), reference_cache=o.reference_cache,
                            isolate=False)   # (steps it wrote itself, of the user's own model: in this process)
    step = Step(dir=step_dir, number=number, name=name, original=step_dir / "original.py",
                refactored=step_dir / "refactored.py")
    return verify_one(step, options, coverage=True)


# ---- the whole run -----------------------------------------------------------------------------------


_PIP_NAMES = {"cv2": "opencv-python", "sklearn": "scikit-learn", "PIL": "pillow", "yaml": "pyyaml",
              "skimage": "scikit-image"}


def _load_model_file(model_file: Path, timeout: float | None) -> Any:
    """load_component, with a missing third-party package named as such (`needs the Python package
    'einops' (pip install einops)`): the model file is fine, the environment lacks a dependency."""
    try:
        return load_component(model_file, timeout=timeout)
    except ComponentLoadError as exc:
        cause = exc.__cause__
        if isinstance(cause, ModuleNotFoundError) and cause.name and \
                "the module file is missing or broken" not in exc.cause:  # not a missing local/child file
            pkg = cause.name.split(".")[0]
            raise HdecompError(f"needs the Python package '{pkg}' (pip install {_PIP_NAMES.get(pkg, pkg)})",
                               model_file) from exc
        raise


def decompose(model_file: str | Path, output_root: str | Path | None = None,
              options: DecomposeOptions | None = None, console: Any = None,
              progress: bool = True) -> Decomposition:
    """Decompose `model_file` into `output_root`/<name>/ (<name>: --name, else the file's stem unchanged).
    Without `output_root` the folder is `hdecomp prompt`'s: `default_output_dir(model_file)`."""
    from hdecomp.toolchain.prompt import default_output_dir
    options = options or DecomposeOptions()
    model_file = Path(model_file)
    if not model_file.is_file():
        raise HdecompError("model file not found", model_file)
    # Load first: a file that cannot load (a missing package) is exit 2 with nothing written or removed.
    comp = _load_model_file(model_file, options.timeout)
    name = options.name or model_file.stem
    base = Path(output_root) if output_root is not None else default_output_dir(model_file.resolve()).parent
    root = base / name
    if root.exists():
        if any(root.iterdir()) and not (root / TREE_FILE).exists() and \
                not (root / "steps").exists():
            raise HdecompError("output folder exists and is not a decomposition (refusing to overwrite)", root)
        for sub in ("steps", "verification", *LEVEL_DIRS.values()):
            if (root / sub).exists():
                shutil.rmtree(root / sub)
    root.mkdir(parents=True, exist_ok=True)
    dec = Decomposition(root=root, model_file=model_file, name=name, options=options)
    # The warm worker for the self-tests and the composition test at the end imports torch (and the
    # model's packages) now, while the steps run.
    from hdecomp.runtime.warm import WarmPool, third_party_imports
    from hdecomp.toolchain.selftest import self_test_env
    with WarmPool(2, env=self_test_env(), preload=third_party_imports([model_file])) as pool:
        if options.finish:
            pool.prestart(1)
        dec.pool = pool
        try:
            _decompose(dec, comp, model_file, name, root, console, progress)
        finally:
            dec.pool = None
    return dec


def _decompose(dec: Decomposition, comp: Any, model_file: Path, name: str, root: Path, console: Any,
               progress: bool) -> None:
    options = dec.options
    t0 = time.perf_counter()
    # Check the model runs before writing anything else: a broken model is exit 2.
    top = root / LEVEL_DIRS[3] / f"{name}.py"
    model = comp.build(seed=BUILD_SEED, run=options)
    # Under --batch-limit the full-size inputs are never built: the same inputs verify_step will use
    # (`batch_size` lowered, else cut; see batch_cut_policy).
    args, kwargs = comp.make_inputs(seed=42, run=options)
    chosen = cut_for(comp, args, kwargs, options)
    args, kwargs = chosen.args, chosen.kwargs
    runs = _model_runs(comp, args, kwargs, options)
    from functools import partial

    kept = comp.batch_size_kept(options.batch_limit, options.timeout)
    batch_method = batch_cut_policy(comp.module, args, kwargs, kept)
    from hdecomp.runtime.ops import recording
    with torch.no_grad(), PeakRss() as peak, recording(model) as trace:
        full_out = None
        if options.batch_limit is None:
            full_out = run_user_code(partial(model, *clone_nested(args), **clone_nested(kwargs)), what="Model.forward",
                                     path=model_file, timeout=options.timeout)
        out = full_out if full_out is not None else run_user_code(
            partial(model, *clone_nested(args), **clone_nested(kwargs)), what="Model.forward", path=model_file,
            timeout=options.timeout)
    # Under --batch-limit: inputs and output at the original batch, learned from one more forward at
    # the cut batch + 1 (hdecomp.decompose.shapes); the tree and the model copy's self-test carry those.
    # what one process that builds and runs the model holds: its weights and one forward's intermediates
    dec.forward_bytes = peak.growth + sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
    if dec.pool is not None and options.finish and options.self_tests:
        dec.pool.prestart(self_test_jobs(dec.forward_bytes))   # the second self-test worker, when two fit
    args, kwargs, out, root_devs = full_size_io(comp, model, options, args, kwargs, out, cost_bytes=peak.growth)
    for d in root_devs:
        dec.note(None, "deviation", f"{name}: shape at the cut batch", d)
    source = model_file.read_text(encoding="utf-8")
    if kept is not None:
        # --batch-limit never breaks a valid file: its batch is kept, its inputs cut instead (or run whole),
        # and the copy says so on its `batch_size` line, for every tool that reads it (hdecomp test, compose)
        source = mark_batch_size_kept(source, kept)
        cut = (f"inputs cut from {chosen.batch} to {options.batch_limit} on their leading dimension" if chosen.cuts
               else f"every cut of its inputs breaks the model: they run whole ({chosen.refused})" if chosen.refused
               else "inputs run whole")
        line = f"batch_size={comp.module.batch_size} not lowered to {options.batch_limit}: {kept}; {cut}"
        dec.note(None, "deviation", "batch size not lowered", line)
        if console is not None:
            console.print(f"[yellow]note[/yellow] {model_file.name}: {line}")
    if "__main__" not in source:
        # Every component file carries a self-test; the model file gets one appended (the rest unchanged).
        # Its batch dimensions are written as the file's own `batch_size` (lowered by `hdecomp test
        # --batch-limit`) when it has one, else as numbers.
        from hdecomp.decompose.codegen import self_test_block
        # (its ops: an output a detector's nms sizes keeps only its rank check, hdecomp.vocab.ops)
        source = source.rstrip() + "\n\n" + self_test_block(out, kwargs_fn="get_input_kwargs" in source,
                                                              init_fn="get_init_inputs" in source,
                                                              symbolic=batch_method == "batch_size",
                                                              ops=sorted(trace.compute_inventory("aten")))
        dec.note(None, "decision", "self-test added to the model copy",
                 f"{model_file.name} has no `if __name__ == \"__main__\"` self-test; the copy in "
                 f"{LEVEL_DIRS[3]}/ got one (output shapes/dtypes as recorded)")
    write_text_atomic(top, source)
    ins, ind, outs, outd = io_maps({}, [(f"input_{i}", a) for i, a in enumerate(args)] + sorted(kwargs.items()), out)
    dec.nodes[name] = Node(id=name, level=3, path=top, parent=None, inputs={"shapes": ins, "dtypes": ind},
                           outputs={"shapes": outs, "dtypes": outd}, in_model=runs)
    dec.registry.taken[name] = "<model>"
    if options.batch_limit is not None:
        how = {"batch_size": "the module's `batch_size` lowered to",
               "not_applicable": "not cut (all inputs are square matrices, no batch dimension); limit",
               }.get(batch_method, "inputs cut to a leading dimension of")
        if kept is not None:
            how = ("the module's `batch_size` kept (see above); inputs cut to a leading dimension of" if chosen.cuts
                   else "the module's `batch_size` kept and its inputs whole (see above); limit")
        dec.note(None, "deviation", "batch limit", f"{how} {options.batch_limit} "
                 "for recording and verification (--batch-limit); component files carry the original shapes "
                 "(batch dimensions written with a module-level `batch_size`, which --batch-limit lowers)")
    del model  # every step builds its own: the root's recorded model must not stay in memory meanwhile
    queue: deque[Node] = deque([dec.nodes[name]])
    number = 0
    with _progress(console, progress) as report:
        while queue:
            node = queue.popleft()
            if options.max_depth is not None and node.depth >= options.max_depth:
                node.status = "unverified"
                node.reason = f"not decomposed: --max-depth {options.max_depth}"
                dec.note(None, "deviation", f"{node.id} not decomposed", node.reason)
                continue
            number += 1
            t1 = time.perf_counter()
            try:
                new = decompose_component(dec, node, number)
            except DecomposeError as exc:   # the planner's own error, past every fallback: a bug of ours
                new = _internal_error(dec, node, number, exc)
            except HdecompError as exc:
                new = leaf(dec, node, f"step_{number}_{node.id}", exc.headline)
            except Exception as exc:  # a bug on one component must not lose the rest of the tree
                new = _internal_error(dec, node, number, exc)
            report(node, time.perf_counter() - t1)
            queue.extend(new)
    dec.seconds = time.perf_counter() - t0
    write_outputs(dec)


def _internal_error(dec: Decomposition, node: Node, number: int, exc: Exception) -> list[Node]:
    """The component left a leaf over an error of ours; the traceback goes to the log and the notes, since an
    internal error is ours to fix and this says where."""
    logger.error("internal error decomposing %s", node.id, exc_info=exc)
    dec.note(f"step_{number}_{node.id}", "difficulty", f"{node.id}: internal error",
             "".join(traceback.format_exception(exc)[-12:]).rstrip())
    return leaf(dec, node, f"step_{number}_{node.id}", f"internal error: {type(exc).__name__}: {exc}")


def mark_batch_size_kept(source: str, why: str) -> str:
    """`source` with its top-level `batch_size = K` line saying that --batch-limit keeps it, and why."""
    from hdecomp.runtime.forkserver import BATCH_LINE, NOT_LOWERED_TAG
    why = " ".join(why.split())[:160]
    found = list(BATCH_LINE.finditer(source))
    if not found or NOT_LOWERED_TAG in (found[-1].group(2) or ""):
        return source
    m = found[-1]
    return source[:m.start()] + f"batch_size = {m.group(1)}  # {NOT_LOWERED_TAG}: {why}" + source[m.end():]


class _NullProgress:
    def __call__(self, node: Node, seconds: float) -> None:
        pass


def _progress(console: Any, enabled: bool) -> Any:

    @contextlib.contextmanager
    def cm() -> Any:
        if not enabled or console is None:
            yield _NullProgress()
            return

        def report(node: Node, seconds: float) -> None:
            colour = {"pass": "green", "fail": "red", "error": "yellow"}.get(node.status, "white")
            kids = f"{len(node.children)} children" if node.children else (node.reason or "")
            console.print(f"[{colour}]{node.status.upper():5}[/{colour}] {LEVEL_NAMES[node.level]:6} "
                          f"{node.id}  ({kids}, {seconds:.1f}s)")
        yield report
    return cm()


# ---- outputs -----------------------------------------------------------------------------------------


