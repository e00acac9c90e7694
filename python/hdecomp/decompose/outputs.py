"""What a decomposition leaves behind once its steps are done: decomposition_tree.json, the log, the step
summary and the analysis (through hdecomp.formats), then the final checks (coverage summary, self-tests,
composition test) and the result the CLI prints; with the run's peak memory and the self-test parallelism."""

from __future__ import annotations

import logging
import time
import traceback
from pathlib import Path
from typing import Any

from hdecomp.decompose.state import Decomposition, now_iso
from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.log import DecompositionLog
from hdecomp.formats.tree import write_tree
from hdecomp.vocab.levels import LEVEL_NAMES

logger = logging.getLogger(__name__)


def source_level(model_file: Path) -> str | None:
    """`metadata.source_level`: the KernelBench level folder (`level1`..`level3`), else None."""
    from hdecomp.toolchain.prompt import source_level as level_folder
    return level_folder(model_file)


class PeakRss:
    """Peak resident-set growth of this process inside the block (sampled every few ms by a thread;
    Linux /proc, else 0): what one forward costs, to decide how much may run at once."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.growth = 0
        self._stop = False
        self._thread: Any = None
        self._base = 0

    @staticmethod
    def rss() -> int:
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            return 0

    def _run(self) -> None:
        while not self._stop:
            self.growth = max(self.growth, self.rss() - self._base)
            time.sleep(self.interval)

    def __enter__(self) -> PeakRss:
        import threading
        self._base = self.rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop = True
        self._thread.join()
        self.growth = max(self.growth, self.rss() - self._base, 0)


def _page_size() -> int:
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4096


_PAGE = _page_size()


def self_test_jobs(forward_bytes: int, available: int | None = None) -> int:
    """Self-tests run two at a time, unless two of the model's forwards (each component's self-test runs a
    part of it; the model copy's, all of it) would take more than half the memory available now."""
    from hdecomp.decompose.shapes import available_bytes
    avail = available_bytes() if available is None else available
    if avail is None:
        return 2
    return 1 if 2 * forward_bytes > avail // 2 else 2


def instance_counts(dec: Decomposition) -> dict[str, int]:
    """How often each component runs in one forward of the model: the sum over its parents of the
    parent's count times its calls there (a kernel file used by a fusion and by a layer directly, at
    different depths, counts both). Parents are counted before their children (topological order)."""
    parents: dict[str, list[str]] = {}
    for nid, node in dec.nodes.items():
        for c in node.uses:
            parents.setdefault(c, []).append(nid)
    counts: dict[str, int] = {}

    def count(nid: str, active: frozenset[str] = frozenset()) -> int:
        if nid in counts:
            return counts[nid]
        if nid == dec.root_node:
            counts[nid] = 1
            return 1
        total = 0
        for p in parents.get(nid, []):
            if p in active or p not in dec.nodes:   # (a cycle cannot occur; never loop on one)
                continue
            total += count(p, active | {nid}) * dec.nodes[p].uses.get(nid, 0)
        counts[nid] = total
        return total

    for nid in dec.nodes:
        count(nid)
    return {k: v for k, v in counts.items() if v or k == dec.root_node}


def write_outputs(dec: Decomposition) -> None:
    from hdecomp.decompose.analysis import write_analysis
    root = dec.root
    counts = instance_counts(dec)
    nodes: dict[str, Any] = {}
    for n in dec.nodes.values():
        if n.level > 0 and n.status == "unverified" and not n.reason:
            n.reason = f"not decomposed: the step of its parent {n.parent} did not pass"
    for nid in sorted(dec.nodes, key=lambda k: (-dec.nodes[k].level, k)):
        n = dec.nodes[nid]
        d: dict[str, Any] = {
            "id": n.id, "name": n.id, "level": LEVEL_NAMES[n.level],
            "path": str(n.path.relative_to(root)), "children": list(n.children),
            "input_shapes": n.inputs.get("shapes", {}), "output_shapes": n.outputs.get("shapes", {}),
            "input_dtypes": n.inputs.get("dtypes", {}), "output_dtypes": n.outputs.get("dtypes", {}),
            "instance_count": counts.get(n.id, 1), "parent": n.parent, "ops": n.ops, "op_count": n.op_count,
            "status": n.status, "decomposable": n.decomposable,
        }
        if n.step:
            d["step"] = n.step
        if n.reason:
            d["reason"] = n.reason
        if n.capture_method:
            d["capture"] = n.capture_method
        nodes[nid] = d
    by_level = {name: sum(1 for n in dec.nodes.values() if n.level == lvl) for lvl, name in LEVEL_NAMES.items()}
    kernels = [n for n in dec.nodes.values() if n.level == 0]
    incomplete = sorted(n.id for n in dec.nodes.values() if n.level > 0 and n.status != "pass")
    status = "PASS" if not incomplete and all(s.status == "PASS" for s in dec.steps) else "INCOMPLETE"
    tree = {
        "metadata": {
            "source_file": str(dec.model_file), "source_level": source_level(dec.model_file),
            "model_name": dec.name,
            "timestamp": now_iso(), "total_components": len(dec.nodes), "by_level": by_level,
            "unique_kernels": len(kernels), "kernel_instances": sum(counts.get(k.id, 1) for k in kernels),
            "verification_status": status, "incomplete": incomplete, "generator": "hdecomp decompose",
            "batch_limit": dec.options.batch_limit, "device": dec.options.device,
        },
        "root": dec.root_node,
        "nodes": nodes,
        "data_flow": dec.data_flow,
    }
    write_tree(root, tree)
    DecompositionLog.write_entries(root, dec.log)
    # Per-step summary in the pipeline's format.
    from hdecomp.toolchain.pipeline import PipelineResult
    pr = PipelineResult(root=root, steps=[s.outcome for s in dec.steps if s.outcome is not None],
                        kernel_root=dec.nodes[dec.root_node].level == 0)
    pr.seconds = dec.seconds
    summary = pr.to_dict()
    summary["batch_limit"] = dec.options.batch_limit
    summary["device"] = dec.options.device
    summary["incomplete_components"] = incomplete
    write_json_atomic(root / "verification" / "step_verification_summary.json", summary)
    if dec.options.finish:
        _finish(dec, status)
    write_analysis(dec, tree)


def _failed(what: str, exc: Exception) -> dict[str, Any]:
    """The report of a final check that raised. A user-facing error (HdecompError) is its headline; any
    other exception is a bug of ours: logged with its traceback, which the report carries too."""
    if isinstance(exc, HdecompError):
        return {"status": "ERROR", "error": exc.headline}
    logger.error("internal error in %s", what, exc_info=exc)
    return {"status": "ERROR", "error": f"internal error: {type(exc).__name__}: {exc}",
            "traceback": "".join(traceback.format_exception(exc)[-12:]).rstrip()}


def _finish(dec: Decomposition, status: str) -> None:
    """Coverage summary, self-tests and the composition test (each a report; failures are recorded)."""
    root = dec.root
    o = dec.options
    try:
        from hdecomp.toolchain.coverage import compute_coverage
        rep = compute_coverage(dec.model_file, root, output=root / "verification" / "coverage_summary.json",
                               device=o.device, timeout=o.timeout, batch_limit=o.batch_limit)
        dec.finals["coverage"] = {"status": rep.get("status"),
                                  "coverage_pct": (rep.get("coverage") or {}).get("coverage_pct")}
    except Exception as exc:
        dec.finals["coverage"] = _failed("the coverage summary", exc)
    # One pool of warm workers (torch imported once) serves the self-tests and the composition test.
    from hdecomp.formats.layout import component_files
    from hdecomp.runtime.warm import WarmPool, third_party_imports
    from hdecomp.toolchain.selftest import self_test_env
    jobs = self_test_jobs(dec.forward_bytes)
    if dec.pool is not None:   # started by decompose() at the beginning
        _tests_and_composition(dec, status, dec.pool, jobs)
        return
    with WarmPool(jobs, env=self_test_env(), preload=third_party_imports(component_files(root))) as pool:
        _tests_and_composition(dec, status, pool, jobs)


def _tests_and_composition(dec: Decomposition, status: str, pool: Any, jobs: int) -> None:
    from hdecomp.toolchain.final_checks import run_final_checks
    o = dec.options
    checks = run_final_checks(dec.root, pool=pool, jobs=jobs, timeout=o.timeout, batch_limit=o.batch_limit,
                              device=o.device, self_tests=o.self_tests, composition=status == "PASS")
    if checks.self_tests_error is not None:
        dec.finals["self_tests"] = _failed("the self-tests", checks.self_tests_error)
    elif checks.self_tests is None:
        dec.finals["self_tests"] = {"status": "SKIPPED"}
    else:
        d = checks.self_tests.to_dict()
        dec.finals["self_tests"] = {k: d.get(k) for k in ("total_components", "passed", "failed", "status")
                                    if k in d}
    if checks.composition_error is not None:
        dec.finals["composition"] = _failed("the composition test", checks.composition_error)
    elif checks.composition is None:
        dec.finals["composition"] = {"status": "SKIPPED", "reason": "the decomposition is incomplete: "
                                     "some components are not down to kernels"}
    else:
        d = checks.composition.to_dict()
        dec.finals["composition"] = {k: d.get(k) for k in ("status", "max_diff", "reason") if d.get(k) is not None}


def result_dict(dec: Decomposition) -> dict[str, Any]:
    counts = instance_counts(dec)
    kernels = [n for n in dec.nodes.values() if n.level == 0]
    incomplete = sorted(n.id for n in dec.nodes.values() if n.level > 0 and n.status != "pass")
    return {
        "model": str(dec.model_file), "output": str(dec.root), "status": _overall(dec),
        "steps": len(dec.steps), "steps_passed": sum(1 for s in dec.steps if s.status == "PASS"),
        "components": len(dec.nodes), "unique_kernels": len(kernels),
        "kernel_instances": sum(counts.get(k.id, 1) for k in kernels),
        "incomplete": incomplete,
        "reasons": {n.id: n.reason for n in dec.nodes.values() if n.reason},
        "seconds": round(dec.seconds, 3), **dec.finals,
    }


def _overall(dec: Decomposition) -> str:
    incomplete = [n for n in dec.nodes.values() if n.level > 0 and n.status != "pass"]
    if not dec.steps and any(not n.decomposable for n in incomplete):
        return "ERROR"   # not even the model could be split
    if incomplete or any(s.status != "PASS" for s in dec.steps):
        return "PARTIAL"
    comp = dec.finals.get("composition", {}).get("status")
    if comp not in (None, "PASS"):
        return "PARTIAL"
    return "PASS"


def final_summary(kind: str, final: dict[str, Any]) -> str:
    """One readable line for a final check: `coverage: FULL_COVERAGE (100.0%)`, `self-tests: PASS (13/13)`."""
    status = final.get("status", "?")
    if "error" in final:
        detail = final["error"]
    elif kind == "coverage" and final.get("coverage_pct") is not None:
        detail = f"{final['coverage_pct']}% of ops"
    elif kind == "self_tests" and final.get("total_components") is not None:
        detail = f"{final.get('passed', 0)}/{final['total_components']} passed"
    elif kind == "composition" and final.get("max_diff") is not None:
        detail = f"max diff {final['max_diff']:.1e}"
    else:
        detail = final.get("reason", "")
    return f"{kind.replace('_', '-')}: {status}" + (f" ({detail})" if detail else "")
