"""`hdecomp decompose MODEL.py`: the automatic, verified decomposition."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.cli.common import emit_json, run_options

if TYPE_CHECKING:
    from hdecomp.scale.many import ManyResult

HELP = "automatic, verified decomposition of a model file (no LLM)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="+",
                   help="the model file (KernelBench convention); several files or folders of them: one task "
                        "per model through --executor")
    p.add_argument("-o", "--output", default=None,
                   help="output root: the decomposition goes to OUTPUT/<model stem>/ (default: the folder "
                        "`hdecomp prompt` names, output/<levelN or examples>/<model stem>/; for several "
                        "models, output/)")
    p.add_argument("--max-depth", type=int, default=None, help="stop descending after this many levels")
    p.add_argument("--name", default=None, help="model name (default: the file's stem)")
    p.add_argument("--no-self-tests", action="store_true",
                   help="skip the components' self-tests at the end (a sweep: the top model's self-test runs "
                        "the model at full size)")
    run_options(p)
    many = p.add_argument_group("several models (one task each)")
    many.add_argument("--executor", choices=("local", "ray"), default=None,
                      help="where the tasks run: local processes (the default) or a Ray cluster "
                           "(pip install 'hdecomp[ray]')")
    many.add_argument("--address", default="auto",
                      help="the Ray cluster: auto (the running one), HOST:PORT, ray://HOST:PORT, or local "
                           "(start one for this run)")
    many.add_argument("--workers", type=int, default=None, metavar="N",
                      help="tasks at once (default: local 1, ray the cluster's CPUs)")
    many.add_argument("--gpus-per-task", type=float, default=None, metavar="G",
                      help="GPUs Ray gives each task (default 1 with --device cuda, else 0)")
    many.add_argument("--shared-fs", action="store_true",
                      help="Ray: the models and OUTPUT are on a filesystem every node sees at the same path "
                           "(read and written in place; default: the models travel as the job's working_dir "
                           "and the trees come back to the driver)")
    many.add_argument("--force", action="store_true", help="decompose models whose tree exists already")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _task_flags(args: argparse.Namespace) -> list[str]:
    """The flags every task's `hdecomp decompose` gets (the same decomposition as a single run)."""
    flags = ["--device", args.device, "--num-trials", str(args.num_trials)]
    for flag, value in (("--batch-limit", args.batch_limit), ("--timeout", args.timeout), ("--rtol", args.rtol),
                        ("--atol", args.atol), ("--max-depth", args.max_depth)):
        if value is not None:
            flags += [flag, str(value)]
    return flags + (["--no-cache"] if args.no_cache else []) + (["--no-self-tests"] if args.no_self_tests else [])


def run_many(args: argparse.Namespace) -> int:
    from rich.console import Console

    from hdecomp.errors import HdecompError
    from hdecomp.scale.many import expand

    if args.name is not None:
        raise HdecompError("--name names one model: leave it out with several")
    out = Path(args.output or "output")
    files = expand(args.model)   # bad arguments fail here, before anything starts
    # stdout carries the result alone (the JSON document with --json): Ray's own messages go to stderr
    with contextlib.redirect_stdout(sys.stderr):
        result = _decompose_many(args, out, files)
    data = result.to_dict()
    if args.json:
        emit_json(data)
    else:
        _print_table(Console(), data)
    print(f"index: {result.index_file}", file=sys.stderr if args.json else sys.stdout)
    return result.exit_code


def _decompose_many(args: argparse.Namespace, out: Path, files: list[Path]) -> ManyResult:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from hdecomp.scale.local import LocalExecutor, threads_per_task
    from hdecomp.scale.many import STAGE_DIR, Executor, decompose_many
    from hdecomp.scale.task import TaskResult

    stage = out / STAGE_DIR
    executor: Executor
    threads: int | None
    if args.executor == "ray":
        from hdecomp.scale.ray_cluster import RayExecutor
        gpus = args.gpus_per_task if args.gpus_per_task is not None else (1 if args.device.startswith("cuda") else 0)
        root = Path(os.path.commonpath([str(f.parent.resolve()) for f in files]))
        executor = RayExecutor(stage, address=args.address, workers=args.workers, gpus_per_task=gpus,
                               shared_fs=args.shared_fs, model_root=root)
        threads = 1
    else:
        workers = args.workers or 1
        executor = LocalExecutor(stage, workers=workers)
        threads = threads_per_task(workers) if workers > 1 else None
    console = Console(stderr=True)
    with Progress(TextColumn("[bold]decomposing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True) as bar:
        task = bar.add_task("", total=len(files))

        def on_result(r: TaskResult, done: int, total: int) -> None:
            bar.update(task, completed=done, description=f"{r.name}: {r.status}")
            style = {"PASS": "green", "SKIPPED": "dim", "PARTIAL": "yellow"}.get(r.status, "red")
            bar.console.print(f"[{style}]{r.status:8}[/] {r.name}  {r.seconds:.1f}s"
                              + (f"  attempts {r.attempts}" if r.attempts > 1 else "")
                              + (f"  {r.reason}" if r.reason else ""), highlight=False, soft_wrap=True)
        try:
            return decompose_many(list(files), out, executor, flags=_task_flags(args), timeout=args.timeout,
                                  force=args.force, threads=threads, on_result=on_result)
        finally:
            executor.close()


def _print_table(console: Any, data: dict[str, Any]) -> None:
    from rich.table import Table
    table = Table(title=f"{len(data['models'])} models -> {data['output']} ({data['executor']}, "
                        f"{data['seconds']:.0f} s)")
    for col in ("model", "status", "seconds", "attempts", "steps", "kernels", "reason"):
        table.add_column(col)
    for m in data["models"]:
        table.add_row(m["name"], m["status"], f"{m['seconds']:.1f}", str(m["attempts"]),
                      f"{m['steps_passed']}/{m['steps']}" if m["steps"] is not None else "-",
                      f"{m['unique_kernels']} / {m['kernel_instances']}" if m["unique_kernels"] is not None else "-",
                      (m["reason"] or "")[:80])
    console.print(table)


def run(args: argparse.Namespace) -> int:
    many_flags = (args.executor, args.workers, args.gpus_per_task, args.force or None, args.shared_fs or None)
    if any(f is not None for f in many_flags) or len(args.model) > 1 or Path(args.model[0]).is_dir():
        return run_many(args)
    args.model = args.model[0]
    import torch
    from rich.console import Console

    from hdecomp.decompose.driver import decompose
    from hdecomp.decompose.outputs import final_summary, result_dict
    from hdecomp.decompose.state import DecomposeOptions
    from hdecomp.errors import HdecompError

    console = Console(stderr=True) if args.json else Console()
    options = DecomposeOptions(device=args.device, batch_limit=args.batch_limit, timeout=args.timeout,
                               num_trials=args.num_trials, rtol=args.rtol, atol=args.atol,
                               max_depth=args.max_depth, name=args.name, reference_cache=not args.no_cache,
                               self_tests=not args.no_self_tests)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise HdecompError(f"--device {args.device}: no CUDA device is available")
    dec = decompose(args.model, args.output, options, console=console, progress=True)
    res = result_dict(dec)
    if args.json:
        emit_json(res)
    else:
        # soft_wrap: paths stay on one line, so they can be copied
        console.print(f"{res['status']}: {res['steps_passed']}/{res['steps']} steps passed, "
                      f"{res['components']} components, {res['unique_kernels']} unique kernels "
                      f"({res['kernel_instances']} instances) -> {dec.root}", soft_wrap=True, markup=False)
        for nid in res["incomplete"]:
            console.print(f"  incomplete: {nid}: {res['reasons'].get(nid, '')}", soft_wrap=True, markup=False)
        for k in ("coverage", "self_tests", "composition"):
            if k in dec.finals:
                console.print(f"  {final_summary(k, dec.finals[k])}", soft_wrap=True, markup=False)
        if args.verbose:
            for e in dec.log:
                console.print(f"  [{e['type']}] {e['step'] or '-'}: {e['title']}: {e['description']}",
                              markup=False)
    return {"PASS": 0, "PARTIAL": 1, "ERROR": 2}[res["status"]]
