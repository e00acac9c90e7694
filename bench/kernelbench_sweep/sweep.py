"""Sweep `hdecomp decompose` over KernelBench levels 1-3 and tabulate the outcome.

Each problem runs in its own subprocess (a crash or hang never stops the sweep) with `--batch-limit`
(default 1: the problems' real shapes are GPU-sized) and without the per-component self-tests (the top
model's self-test would run the full-size model). A problem counts as *fully decomposed* when every step
passed and the composition test (whole model from kernel files only) passed.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/kernelbench_sweep/sweep.py --levels 1 2 --limit 20

Writes bench/kernelbench_sweep/results.json (`--results`) and prints the markdown table (also written to
table.md next to the results file).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def worker(model: str, out: str, batch_limit: int | None) -> int:
    """Decompose one problem in this process and print the result as one JSON line."""
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    from hdecomp.decompose.outputs import result_dict
    from hdecomp.errors import HdecompError
    t0 = time.perf_counter()
    try:
        dec = decompose(model, out, DecomposeOptions(batch_limit=batch_limit, self_tests=False), progress=False)
        res = result_dict(dec)
    except HdecompError as exc:
        res = {"status": "ERROR", "error": exc.headline}
    res["wall_seconds"] = round(time.perf_counter() - t0, 2)
    if res.get("output"):
        from hdecomp.toolchain.quality import quality_totals
        res["quality"] = quality_totals(res["output"])   # `hdecomp validate --quality` findings per rule, level
    print("SWEEP_RESULT " + json.dumps(res, default=str))
    return 0


def run_worker(cmd: list[str], timeout: float) -> tuple[int | None, str, str]:
    """Run one worker in a session of its own; (exit code or None on time-out, stdout, stderr).

    The worker starts subprocesses of its own (the composition test): on a time-out or Ctrl-C the whole
    process group is killed, so nothing is left running, orphaned, to hold memory and cores."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        return proc.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        return (None, *_kill_group(proc))
    except BaseException:   # Ctrl-C (KeyboardInterrupt) or anything else: no worker left behind
        _kill_group(proc)
        raise


def _kill_group(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGKILL the worker's process group (its session: the worker and every process it started); what
    it had printed. A process that left the session (a session of its own) could keep the pipes open:
    the output is then given up after a few seconds rather than waited for."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:   # already gone
        pass
    try:
        return proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        return "", ""


def classify(res: dict[str, Any]) -> tuple[str, str | None]:
    """(outcome, reason group): full | partial | failed. Full = every step PASS, the composition test PASS
    and 100 % of the original's ops covered by the kernel files."""
    status = res.get("status")
    comp = (res.get("composition") or {}).get("status")
    pct = (res.get("coverage") or {}).get("coverage_pct")
    if status == "PASS" and comp == "PASS":
        if pct is None or pct >= 100.0:
            return "full", None
        return "partial", f"coverage {pct}%"
    reason = res.get("error") or ""
    if not reason:
        reasons = res.get("reasons") or {}
        reason = next(iter(reasons.values()), "") if reasons else ""
        if not reason and comp != "PASS":
            reason = f"composition test {comp}: {(res.get('composition') or {}).get('reason', '')}"
    m = re.search(r"imports '([\w.]+)', which is not installed", reason)
    group = f"missing package {m.group(1)}" if m else _group(reason)
    steps_passed = res.get("steps_passed") or 0
    return ("partial" if steps_passed else "failed"), group


def _group(reason: str) -> str:
    reason = re.sub(r"/\S+", "<path>", reason)
    reason = re.sub(r"\d+(\.\d+)?(e-?\d+)?", "N", reason)
    return reason[:120] or "unknown"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernelbench", default=str(REPO.parent / "shared" / "kernelbench"),
                   help="KernelBench folder with level1/ level2/ level3/ (default ../shared/kernelbench)")
    p.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--limit", type=int, default=None, help="first N problems per level (sorted by number)")
    p.add_argument("--every", type=int, default=1, metavar="K",
                   help="only every K-th problem of each level (a spread-out sample), before --limit")
    p.add_argument("--only", nargs="+", default=None, metavar="NAME",
                   help="only problems whose file name starts with one of these (e.g. 7_ 11_)")
    p.add_argument("--batch-limit", type=int, default=1)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per problem")
    p.add_argument("--out", default=None, help="where the decompositions go (default: a temp folder)")
    p.add_argument("--results", default=str(HERE / "results.json"))
    p.add_argument("--merge", nargs="+", metavar="RESULTS", default=None,
                   help="merge result files of separate runs into --results and print the table (a problem in several files: the last one wins)")
    p.add_argument("--executor", choices=("local", "ray"), default=None,
                   help="run the problems through hdecomp's executor (decompose_many: local processes or a Ray "
                        "cluster) instead of one worker after the other")
    p.add_argument("--address", default="auto", help="with --executor ray: the cluster (auto, HOST:PORT, local)")
    p.add_argument("--workers", type=int, default=None, help="with --executor: problems at once")
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], args.batch_limit)
    if args.merge:
        runs = [json.loads(Path(f).read_text()) for f in args.merge]
        merged: dict[str, Any] = {k: runs[0].get(k) for k in ("kernelbench", "batch_limit", "timeout_per_problem",
                                                               "omp_num_threads")}
        merged["runs"] = [{k: r.get(k) for k in ("limit", "every")} | {"levels": sorted(r["levels"])} for r in runs]
        merged["every"] = None
        merged["limit"] = None
        # a problem run again (a rerun after a fix) replaces its earlier entry: later files win
        latest = {(e["level"], e["problem"]): e for r in runs for e in r["problems"]}
        for e in latest.values():   # the rule of today (an older run may have counted less as "full")
            if e["outcome"] == "full":
                e["outcome"], e["reason_group"] = classify(e)
        merged["problems"] = sorted(latest.values(),
                                    key=lambda e: (e["level"], int(e["problem"].split("_")[0]), e["problem"]))
        _summarise(merged)
        _write(merged, args.results)
        _print_table(merged, args.results)
        return 0
    kb = Path(args.kernelbench)
    out_root = Path(args.out or tempfile.mkdtemp(prefix="hdecomp_sweep_"))
    # recorded relative to the repository (the results are committed; the data lives beside it)
    results: dict[str, Any] = {"kernelbench": os.path.relpath(kb.resolve(), REPO), "batch_limit": args.batch_limit, "limit": args.limit,
                               "every": args.every,
                               "levels": {}, "problems": [], "timeout_per_problem": args.timeout,
                               "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}
    selected = {}
    for level in args.levels:
        files = sorted((kb / f"level{level}").glob("*.py"), key=lambda f: (int(f.name.split("_")[0]), f.name))
        if args.only:
            files = [f for f in files if f.name.startswith(tuple(args.only))]
        files = files[::max(1, args.every)]
        if args.limit:
            files = files[:args.limit]
        selected[level] = files
    if args.executor:
        return _sweep_with_executor(args, kb, out_root, selected, results)
    for level, files in selected.items():
        for f in files:
            t0 = time.perf_counter()
            cmd = [sys.executable, __file__, "--worker", str(f), str(out_root / f"level{level}"),
                   "--batch-limit", str(args.batch_limit)]
            returncode, stdout, stderr = run_worker(cmd, args.timeout)
            line = next((ln for ln in stdout.splitlines() if ln.startswith("SWEEP_RESULT ")), None)
            if returncode is None:
                res = {"status": "ERROR", "error": f"timeout after {args.timeout:g} s"}
            elif line:
                res = json.loads(line[len("SWEEP_RESULT "):])
            elif returncode == -9:   # SIGKILL: on this machine the kernel's OOM killer
                res = {"status": "ERROR", "error": "killed (SIGKILL: out of memory)"}
            else:
                res = {"status": "ERROR", "error": f"worker crashed (exit {returncode}): "
                                                  f"{(stderr.strip().splitlines() or [''])[-1][:200]}"}
            _record(results, args.results, level, f.name, res, time.perf_counter() - t0)
    _print_table(results, args.results)
    return 0


def _record(results: dict[str, Any], results_path: str, level: int, problem: str, res: dict[str, Any], seconds: float,
            **extra: Any) -> None:
    """One problem's entry (classified), printed, and the results file rewritten."""
    outcome, group = classify(res)
    entry = {"level": level, "problem": problem, "outcome": outcome, "reason_group": group,
             "seconds": round(seconds, 2), **extra,
             **{k: res.get(k) for k in ("status", "steps", "steps_passed", "components", "unique_kernels",
                                        "kernel_instances", "composition", "coverage", "quality", "error")}}
    results["problems"].append(entry)
    print(f"level{level} {problem}: {outcome} {group or ''} ({entry['seconds']}s)", flush=True)
    _summarise(results)
    _write(results, results_path)


def _sweep_with_executor(args: argparse.Namespace, kb: Path, out_root: Path, selected: dict[int, list[Path]],
                         results: dict[str, Any]) -> int:
    """The same sweep through hdecomp.scale (what `hdecomp decompose FOLDER --executor ...` runs): one task
    per problem, each `hdecomp decompose --batch-limit N --no-self-tests` in a process group of its own."""
    sys.path.insert(0, str(REPO / "python"))
    from hdecomp.scale.local import LocalExecutor
    from hdecomp.scale.many import decompose_many
    from hdecomp.toolchain.quality import quality_totals
    stage = out_root / ".staging"
    if args.executor == "ray":
        from hdecomp.scale.ray_cluster import RayExecutor
        executor: Any = RayExecutor(stage, address=args.address, workers=args.workers, model_root=kb.resolve())
    else:
        executor = LocalExecutor(stage, workers=args.workers or 1)
    results["executor"] = executor.describe()
    t0 = time.perf_counter()
    try:
        for level, files in selected.items():
            out = out_root / f"level{level}"

            def record(r: Any, done: int, total: int, level: int = level, out: Path = out) -> None:
                res = dict(r.summary) if r.summary else {"status": "ERROR", "error": r.reason or r.status}
                if r.tree:
                    res["quality"] = quality_totals(out / r.name)
                _record(results, args.results, level, f"{r.name}.py", res, r.seconds, attempts=r.attempts,
                        worker=r.worker)
            decompose_many(files, out, executor, flags=["--batch-limit", str(args.batch_limit), "--no-self-tests"],
                           timeout=args.timeout, force=True, threads=1, on_result=record)
    finally:
        executor.close()
    results["wall_seconds"] = round(time.perf_counter() - t0, 2)
    _summarise(results)
    _write(results, args.results)
    _print_table(results, args.results)
    return 0


def _print_table(results: dict[str, Any], results_path: str) -> None:
    """The markdown table of a run or a merge: printed and kept as table.md next to the results file
    (a run with `--results /tmp/x.json` leaves the repository's table alone)."""
    table = markdown(results)
    (Path(results_path).parent / "table.md").write_text(table, encoding="utf-8")
    print(table)


def _summarise(results: dict[str, Any]) -> None:
    levels: dict[str, Any] = {}
    for e in results["problems"]:
        lv = levels.setdefault(str(e["level"]), {"run": 0, "full": 0, "partial": 0, "failed": 0, "seconds": [],
                                                 "unique_kernels": 0, "kernel_instances": 0, "reasons": {}})
        lv["run"] += 1
        lv[e["outcome"]] += 1
        lv["seconds"].append(e["seconds"])
        lv["unique_kernels"] += e.get("unique_kernels") or 0
        lv["kernel_instances"] += e.get("kernel_instances") or 0
        if e["reason_group"]:
            lv["reasons"][e["reason_group"]] = lv["reasons"].get(e["reason_group"], 0) + 1
    for lv in levels.values():
        s = sorted(lv.pop("seconds"))
        lv["median_seconds"] = s[len(s) // 2] if s else None
        lv["max_seconds"] = s[-1] if s else None
        lv["total_seconds"] = round(sum(s), 1)
    results["levels"] = levels
    sys.path.insert(0, str(REPO / "python"))
    from hdecomp.toolchain.quality import sum_totals
    results["quality"] = {str(level): sum_totals([e.get("quality") for e in results["problems"]
                                                  if str(e["level"]) == str(level)]) for level in levels}


def _write(results: dict[str, Any], path: str) -> None:
    sys.path.insert(0, str(REPO / "python"))
    from hdecomp.formats.jsonio import write_json_atomic
    # Paths relative to the repository, so committed results name no machine's folders.
    text = json.dumps(results, default=str)
    for folder, rel in ((REPO.parent / "shared", "../shared"), (REPO, ".")):
        text = text.replace(str(folder) + "/", rel + "/")
    write_json_atomic(path, json.loads(text))


def markdown(results: dict[str, Any]) -> str:
    lines = [f"KernelBench sweep of `hdecomp decompose` (CPU, `--batch-limit {results['batch_limit']}`"
             + (f", every {results['every']}th problem" if (results.get("every") or 1) > 1 else "")
             + (f", at most {results['limit']} per level" if results.get("limit") else "") + ")", "",
             "| level | run | fully decomposed | partial | failed | median s | max s | unique kernel files | kernel instances |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for level, lv in sorted(results["levels"].items()):
        pct = 100.0 * lv["full"] / lv["run"] if lv["run"] else 0.0
        lines.append(f"| {level} | {lv['run']} | {lv['full']} ({pct:.0f}%) | {lv['partial']} | {lv['failed']} | "
                     f"{lv['median_seconds']} | {lv['max_seconds']} | {lv['unique_kernels']} | {lv['kernel_instances']} |")
    reasons = [(lvl, r, n) for lvl, lv in sorted(results["levels"].items()) for r, n in lv["reasons"].items()]
    if reasons:
        lines += ["", "| level | not fully decomposed because | problems |", "| --- | --- | --- |"]
        lines += [f"| {lvl} | {r} | {n} |" for lvl, r, n in sorted(reasons, key=lambda x: (x[0], -x[2]))]
    quality = results.get("quality") or {}
    if any(quality.values()):
        sys.path.insert(0, str(REPO / "python"))
        from hdecomp.toolchain.quality import totals_text
        lines += ["", "`hdecomp validate --quality` findings (rule, level of the component, count; trees "
                  "decomposed by code that wrote them):", "", "| KernelBench level | findings |", "| --- | --- |"]
        lines += [f"| {level} | {totals_text(q)} |" for level, q in sorted(quality.items())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:   # the running worker's process group is already killed (run_worker)
        print("interrupted: the results so far are in the --results file", file=sys.stderr)
        raise SystemExit(130) from None
