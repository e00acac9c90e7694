"""Sweep `hdecomp decompose` over the model zoo (bench/zoo/models/) and tabulate the outcome.

Each model runs in its own subprocess, in a session (process group) of its own that is killed whole on a
time-out (the helpers of bench/kernelbench_sweep/sweep.py). Unlike the KernelBench sweep, the per-component
self-tests are ON, and they count: a model is **fully decomposed** when every step passed, the composition
test (the whole model from kernel files only) passed, 100 % of the original's ops are covered and every
self-test passed. Otherwise the reason is the first incomplete component (the highest-level one that failed
itself, not merely below a failed parent) and its reason, or the final checks that failed.

While a worker runs, the RSS of every process in its process group (the worker, its self-test and
composition subprocesses) is read from /proc every 0.2 s; the peak of the sum is kept, next to the worker's
own ru_maxrss.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/zoo/sweep.py --only tv_mobilenet_v3_large
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/zoo/sweep.py              # the whole zoo (days on a CPU)

Writes bench/zoo/results.json (`--results`; entries of models run again are replaced, the others kept,
unless --fresh) and prints the markdown table, also written as table.md next to the results file. Sweeps run
side by side write results files of their own; `--merge A.json B.json` folds them into --results.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MODELS = HERE / "models"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# Reused, not copied: the worker's subprocess in a session of its own, killed whole on time-out / Ctrl-C,
# and the JSON writer (atomic, paths made relative to the repository).
from bench.kernelbench_sweep.sweep import _write, run_worker  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")
LEVELS = ("model", "layer", "fusion", "kernel")
ORPHAN = "not decomposed: the step of its parent"   # the reason of a component below a failed step


# ----------------------------------------------------------------------------------------------- worker

def worker(model: str, out: str, batch_limit: int | None, self_tests: bool, step_timeout: float | None) -> int:
    """Decompose one model file in this process; print the result as one JSON line."""
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    from hdecomp.decompose.outputs import result_dict
    from hdecomp.errors import HdecompError
    t0 = time.perf_counter()
    try:
        dec = decompose(model, out, DecomposeOptions(batch_limit=batch_limit, self_tests=self_tests,
                                                     timeout=step_timeout), progress=False)
        res = result_dict(dec)
    except HdecompError as exc:
        res = {"status": "ERROR", "error": exc.headline}
    except Exception as exc:  # a crash of the decomposer is this model's result
        res = {"status": "ERROR", "error": f"decomposer crashed: {type(exc).__name__}: {exc}"[:1000]}
    res["wall_seconds"] = round(time.perf_counter() - t0, 2)
    if res.get("output"):
        res.update(tree_stats(Path(res["output"])))
        from hdecomp.toolchain.quality import quality_totals
        res["quality"] = quality_totals(res["output"])   # `hdecomp validate --quality` findings
        res["self_test_failure"] = first_self_test_failure(Path(res["output"]))
    res["maxrss_self_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    res["maxrss_children_bytes"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print("SWEEP_RESULT " + json.dumps(res, default=str))
    return 0


def tree_stats(root: Path) -> dict[str, Any]:
    """Levels present, the deepest root-to-leaf path (edges; the root is depth 0, as Node.depth),
    unique kernel files / kernel instances and each component's level, from decomposition_tree.json."""
    path = root / "decomposition_tree.json"
    if not path.exists():
        return {}
    tree = json.loads(path.read_text(encoding="utf-8"))
    nodes = tree.get("nodes", {})
    meta = tree.get("metadata", {})
    present = {n.get("level") for n in nodes.values()}
    depth, todo, seen = 0, [(tree.get("root"), 0)], set()
    while todo:
        nid, d = todo.pop()
        if nid not in nodes or (nid, d) in seen:
            continue
        seen.add((nid, d))
        depth = max(depth, d)
        todo += [(c, d + 1) for c in nodes[nid].get("children", [])]
    return {"levels": [lv for lv in LEVELS if lv in present], "num_levels": len(present),
            "max_depth": depth, "tree_unique_kernels": meta.get("unique_kernels"),
            "tree_kernel_instances": meta.get("kernel_instances"),
            "node_levels": {nid: n.get("level") for nid, n in nodes.items()}}


def first_self_test_failure(root: Path) -> str | None:
    path = root / "verification" / "test_results.json"
    if not path.exists():
        return None
    try:
        results = json.loads(path.read_text(encoding="utf-8")).get("component_results", [])
    except (OSError, ValueError):
        return None
    bad = [r for r in results if r.get("status") != "PASS"]
    if not bad:
        return None
    return f"{bad[0].get('file')}: {bad[0].get('status')}: {bad[0].get('cause') or ''}".strip()


# ------------------------------------------------------------------------------------ memory sampling

def _stat(pid: str) -> tuple[int, int] | None:
    """(ppid, pgrp) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[1]), int(rest[2])
    except (OSError, IndexError, ValueError):
        return None


def _rss(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


class GroupSampler(threading.Thread):
    """Peak summed RSS of the worker's process group. run_worker starts the worker in a new session, so
    the worker is the child of this process that leads its own group (pgrp == pid); every process it
    starts (that does not leave the session) shares that group."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak = 0
        self.pgid: int | None = None
        self.done = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.done.is_set():
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            stats = {p: _stat(p) for p in pids}
            if self.pgid is None:
                self.pgid = next((int(p) for p, s in stats.items() if s and s[0] == me and s[1] == int(p)), None)
            if self.pgid is not None:
                total = sum(_rss(p) for p, s in stats.items() if s and s[1] == self.pgid)
                self.peak = max(self.peak, total)
            self.done.wait(self.interval)

    def stop(self) -> int:
        self.done.set()
        self.join(timeout=5)
        return self.peak


# ------------------------------------------------------------------------------------------ outcome

def classify(res: dict[str, Any]) -> tuple[str, str | None]:
    """(outcome, reason): full | partial | failed. Full = every step PASS (no component left whole),
    composition PASS, coverage 100 % and every self-test PASS."""
    if res.get("error"):
        return ("partial" if res.get("steps_passed") else "failed"), res["error"]
    comp = res.get("composition") or {}
    cov = res.get("coverage") or {}
    st = res.get("self_tests") or {}
    pct = cov.get("coverage_pct")
    if res.get("status") == "PASS" and comp.get("status") == "PASS" and pct is not None and pct >= 100.0 \
            and st.get("status") == "PASS":
        return "full", None
    outcome = "partial" if res.get("steps_passed") else "failed"
    incomplete = res.get("incomplete") or []
    reasons = res.get("reasons") or {}
    if incomplete:
        rank = {lv: i for i, lv in enumerate(LEVELS)}
        levels = res.get("node_levels") or {}
        own = [n for n in incomplete if not (reasons.get(n) or "").startswith(ORPHAN)] or incomplete
        first = min(own, key=lambda n: (rank.get(levels.get(n), 9), n))
        return outcome, f"{first}: {reasons.get(first) or 'incomplete'}"
    failed = []
    if res.get("status") != "PASS":
        failed.append(f"status {res.get('status')} ({res.get('steps_passed')}/{res.get('steps')} steps passed)")
    if comp.get("status") != "PASS":
        failed.append(f"composition {comp.get('status')}: {comp.get('reason') or comp.get('error') or ''}".rstrip(": "))
    if pct is None or pct < 100.0:
        failed.append(f"coverage {cov.get('status')}" + (f" {pct}%" if pct is not None else "")
                      + (f": {cov['error']}" if cov.get("error") else ""))
    if st.get("status") != "PASS":
        detail = f" ({st.get('passed')}/{st.get('total_components')} passed)" if st.get("total_components") else ""
        detail += f": {res['self_test_failure']}" if res.get("self_test_failure") else ""
        detail += f": {st['error']}" if st.get("error") else ""
        failed.append(f"self-tests {st.get('status')}{detail}")
    return outcome, "; ".join(failed) or "unknown"


# ---------------------------------------------------------------------------------------------- main

def model_files(only: list[str] | None) -> list[Path]:
    """The model files `--only` names: a name that is a file's stem selects that file alone (`hf_gemma`, not
    hf_gemma2_sliding); any other name is a prefix (`tv_`)."""
    files = sorted(MODELS.glob("*.py"))
    if only:
        stems = {f.stem for f in files}
        files = [f for f in files if any(f.stem == o or (o not in stems and f.stem.startswith(o)) for o in only)]
    return files


def run_one(f: Path, out_root: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", str(f), str(out_root), "--batch-limit", str(args.batch_limit)]
    if args.no_self_tests:
        cmd.append("--no-self-tests")
    if args.step_timeout:
        cmd += ["--step-timeout", str(args.step_timeout)]
    sampler = GroupSampler()
    sampler.start()
    t0 = time.perf_counter()
    try:
        returncode, stdout, stderr = run_worker(cmd, args.timeout)
    finally:
        peak = sampler.stop()
    seconds = round(time.perf_counter() - t0, 2)
    line = next((ln for ln in stdout.splitlines() if ln.startswith("SWEEP_RESULT ")), None)
    if returncode is None:
        res: dict[str, Any] = {"status": "ERROR", "error": f"timeout after {args.timeout:g} s"}
    elif line:
        res = json.loads(line[len("SWEEP_RESULT "):])
    elif returncode == -9:   # SIGKILL: on this machine the kernel's OOM killer
        res = {"status": "ERROR", "error": "killed (SIGKILL: out of memory)"}
    else:
        res = {"status": "ERROR", "error": f"worker crashed (exit {returncode}): "
                                          f"{(stderr.strip().splitlines() or [''])[-1][:300]}"}
    outcome, reason = classify(res)
    res.pop("node_levels", None)
    st = res.get("self_tests") or {}
    return {
        "model": f.stem, "file": str(f.relative_to(REPO)), "outcome": outcome, "reason": reason,
        "wall_seconds": seconds, "peak_tree_rss_bytes": peak, "peak_tree_rss_gib": round(peak / 2**30, 3),
        "maxrss_worker_gib": round(res["maxrss_self_bytes"] / 2**30, 3) if res.get("maxrss_self_bytes") else None,
        "maxrss_children_gib": (round(res["maxrss_children_bytes"] / 2**30, 3)
                                if res.get("maxrss_children_bytes") else None),
        "levels": res.get("levels"), "num_levels": res.get("num_levels"), "max_depth": res.get("max_depth"),
        "unique_kernels": res.get("tree_unique_kernels", res.get("unique_kernels")),
        "kernel_instances": res.get("tree_kernel_instances", res.get("kernel_instances")),
        "steps": res.get("steps"), "steps_passed": res.get("steps_passed"),
        "self_tests_passed": st.get("passed"), "self_tests_total": st.get("total_components"),
        **{k: res.get(k) for k in ("status", "components", "incomplete", "reasons", "coverage", "self_tests",
                                   "composition", "self_test_failure", "quality", "output", "error")},
        "decompose_seconds": res.get("seconds"),
        "finished": datetime.datetime.now().isoformat(timespec="seconds"),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", default=None, metavar="NAME",
                   help="model file stems (each selects that file alone) or prefixes (e.g. tv_mobilenet_v3_large hf_)")
    p.add_argument("--batch-limit", type=int, default=1)
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per model (the whole decomposition)")
    p.add_argument("--step-timeout", type=float, default=None,
                   help="hdecomp's own per-run time limit (DecomposeOptions.timeout; self-tests default to 300 s)")
    p.add_argument("--no-self-tests", action="store_true", help="skip the self-tests (they count when run)")
    p.add_argument("--out", default=None, help="where the decompositions go (default: a temp folder)")
    p.add_argument("--results", default=str(HERE / "results.json"))
    p.add_argument("--fresh", action="store_true", help="start a new results file instead of updating it")
    p.add_argument("--merge", nargs="+", default=None, metavar="RESULTS",
                   help="merge these results files into --results (their entries replace the same models'), "
                        "write the table and stop")
    p.add_argument("--readme", action="store_true",
                   help="print the README's condensed table of the --results file and stop")
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], args.batch_limit, not args.no_self_tests, args.step_timeout)
    if args.merge:
        return merge(Path(args.results), [Path(m) for m in args.merge])
    if args.readme:
        print(readme_table(json.loads(Path(args.results).read_text())), end="")
        return 0
    files = model_files(args.only)
    if not files:
        p.error("no model file matches --only")
    out_root = Path(args.out or tempfile.mkdtemp(prefix="hdecomp_zoo_"))
    path = Path(args.results)
    previous = json.loads(path.read_text()) if path.exists() and not args.fresh else {}
    results: dict[str, Any] = {
        "batch_limit": args.batch_limit, "self_tests": not args.no_self_tests,
        "timeout_per_model": args.timeout, "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "models": {e["model"]: e for e in previous.get("models", [])},
    }
    for f in files:
        entry = run_one(f, out_root, args)
        results["models"][f.stem] = entry
        print(f"{f.stem}: {entry['outcome']} {entry['reason'] or ''} ({entry['wall_seconds']} s, "
              f"peak {entry['peak_tree_rss_gib']} GiB)", flush=True)
        _save(results, path)
    print(f"decompositions in {out_root}")
    _print_table(results, path)
    return 0


def merge(path: Path, others: list[Path]) -> int:
    """Several sweeps (run at once, each with its own --results) into one results file and its table."""
    base = json.loads(path.read_text()) if path.exists() else {}
    results: dict[str, Any] = {k: v for k, v in base.items() if k not in ("models", "summary")}
    results["models"] = {e["model"]: e for e in base.get("models", [])}
    for other in others:
        data = json.loads(other.read_text())
        for k, v in data.items():
            results.setdefault(k, v)
        for e in data.get("models", []):
            results["models"][e["model"]] = e
    _save(results, path)
    _print_table(results, path)
    return 0


def _portable(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its machine's folders written as placeholders: the output folder (`--out`, a temp
    folder) as `<out>`, the installed packages as `<site-packages>`: results files are committed, and their
    reasons name files inside the decompositions and the libraries' own lines."""
    out = entry.get("output")
    folders = [(str(Path(out).parent), "<out>")] if isinstance(out, str) and os.path.isabs(out) else []
    folders.append((sysconfig.get_paths()["purelib"], "<site-packages>"))

    def fix(v: Any) -> Any:
        if isinstance(v, str):
            for folder, name in folders:
                v = v.replace(folder, name)
            return v
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v
    return {k: fix(v) for k, v in entry.items()}


def _save(results: dict[str, Any], path: Path) -> None:
    data = dict(results)
    data["models"] = [_portable(results["models"][k]) for k in sorted(results["models"])]
    data["summary"] = {o: sum(1 for e in data["models"] if e["outcome"] == o) for o in ("full", "partial", "failed")}
    _write(data, str(path))


def _print_table(results: dict[str, Any], path: Path) -> None:
    table = markdown(results)
    (path.parent / "table.md").write_text(table, encoding="utf-8")
    print(table)


def _fmt(v: Any) -> str:
    return "" if v is None else str(v)


def markdown(results: dict[str, Any]) -> str:
    entries = [_portable(results["models"][k]) for k in sorted(results["models"])]
    full = sum(1 for e in entries if e["outcome"] == "full")
    lines = [f"Model zoo sweep of `hdecomp decompose` (CPU, `--batch-limit {results['batch_limit']}`, self-tests "
             f"{'on' if results['self_tests'] else 'off'}): {full}/{len(entries)} fully decomposed", "",
             "| model | status | reason | wall s | peak RSS, process group (GiB) | worker ru_maxrss (GiB) | levels "
             "| max depth | unique kernel files | kernel instances | steps passed | self-tests passed |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in entries:
        reason = (e.get("reason") or "").replace("|", "\\|").replace("\n", " ")
        if len(reason) > 200:
            reason = reason[:197] + "..."
        steps = f"{e['steps_passed']}/{e['steps']}" if e.get("steps") is not None else ""
        st = f"{e['self_tests_passed']}/{e['self_tests_total']}" if e.get("self_tests_total") else \
            _fmt((e.get("self_tests") or {}).get("status"))
        lines.append(f"| {e['model']} | {e['outcome']} | {reason} | {e['wall_seconds']} | {e['peak_tree_rss_gib']} | "
                     f"{_fmt(e.get('maxrss_worker_gib'))} | {_fmt(e.get('num_levels'))} | {_fmt(e.get('max_depth'))} | "
                     f"{_fmt(e.get('unique_kernels'))} | {_fmt(e.get('kernel_instances'))} | {steps} | {st} |")
    measured = [e.get("quality") for e in entries if e.get("quality") is not None]
    if measured:
        from hdecomp.toolchain.quality import sum_totals, totals_text
        lines += ["", f"`hdecomp validate --quality` findings over the {len(measured)} trees linted (rule, level, "
                  f"count): {totals_text(sum_totals(measured))}"]
    return "\n".join(lines) + "\n"


def readme_table(results: dict[str, Any]) -> str:
    """The README's table: one row per model, its reason where it is not fully decomposed (shortened)."""
    lines = ["| model | fully decomposed | wall s | peak RSS GiB | levels | unique kernel files / instances | steps "
             "| self-tests | quality findings |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in sorted(results["models"], key=lambda e: e["model"]):
        reason = (e.get("reason") or "").replace("|", "\\|").replace("\n", " ")
        done = "yes" if e["outcome"] == "full" else f"no — {reason[:120]}"
        steps = f"{e['steps_passed']}/{e['steps']}" if e.get("steps") is not None else ""
        st = f"{e['self_tests_passed']}/{e['self_tests_total']}" if e.get("self_tests_total") else ""
        gib = e.get("peak_tree_rss_gib")
        lines.append(f"| {e['model']} | {done} | {round(e['wall_seconds'])} | {'' if gib is None else f'{gib:.1f}'} | "
                     f"{_fmt(e.get('num_levels'))} | {_fmt(e.get('unique_kernels'))} / "
                     f"{_fmt(e.get('kernel_instances'))} | {steps} | {st} | {_findings(e)} |")
    return "\n".join(lines) + "\n"


def _findings(entry: dict[str, Any]) -> str:
    """`hdecomp validate --quality` findings of a row's tree: `0`, `9 (Q6 9)`, or `not linted` (a row from
    before the sweep recorded them)."""
    if "quality" not in entry:
        return "not linted"
    by_rule = {rule: sum(levels.values()) for rule, levels in sorted((entry["quality"] or {}).items())}
    total = sum(by_rule.values())
    return str(total) if not total else f"{total} ({', '.join(f'{r} {n}' for r, n in by_rule.items())})"


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:   # the running worker's process group is already killed (run_worker)
        print("interrupted: the results so far are in the --results file", file=sys.stderr)
        raise SystemExit(130) from None
