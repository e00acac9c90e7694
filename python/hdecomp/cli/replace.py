"""`hdecomp replace DIR KERNEL_FILE NEW.py`: a faster kernel proved against the kernel and in the whole
model, reward hacks refused, kernel and model timed before and after."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "prove a faster kernel (class ModelNew) in place of a kernel of the tree and time the model with it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("kernel", help="the kernel file to replace (level_0_kernel/X.py, or a step's copy of it)")
    p.add_argument("new", nargs="?", default=None,
                   help="the replacement: a file with class ModelNew (the kernel's constructor arguments, "
                        "forward signature and state)")
    p.add_argument("--remove", action="store_true", help="deactivate the kernel's replacement instead")
    run_options(p, num_trials=5)
    p.add_argument("--runs", type=int, default=10, help="timed runs per measurement (the median; default 10)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    p.add_argument("--sol-margin", type=float, default=0.5, metavar="F",
                   help="refuse a measured time below F x the speed-of-light floor (default 0.5)")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys

    from hdecomp.toolchain.replace import ReplaceOptions, remove_replacement, replace_kernel

    as_json = getattr(args, "json", False)
    human = sys.stderr if as_json else sys.stdout
    if args.remove:
        result = remove_replacement(args.dir, args.kernel)
        if as_json:
            emit_json({"status": result.status, "reason": result.reason, **result.data})
        if result.status == "ERROR":
            print(f"ERROR: {result.reason}", file=sys.stderr)
        else:
            print(result.reason or f"{result.data['kernel']}: replacement deactivated", file=human)
        return result.exit_code
    if args.new is None:
        print("ERROR: give the replacement file NEW.py (or --remove)", file=sys.stderr)
        return 2
    options = ReplaceOptions(device=args.device, batch_limit=args.batch_limit, num_trials=args.num_trials,
                             rtol=args.rtol, atol=args.atol, runs=args.runs, warmup=args.warmup,
                             sol_margin=args.sol_margin, timeout=args.timeout)
    # (--no-cache is accepted and changes nothing: replace never reads or writes the reference cache)
    result = replace_kernel(args.dir, args.kernel, args.new, options,
                            progress=lambda msg: print(f"... {msg}", file=sys.stderr))
    if as_json:
        emit_json(result.data or {"status": result.status, "reason": result.reason})
    if result.status == "ERROR" and not result.data:
        print(f"ERROR: {result.reason}", file=sys.stderr)
        return result.exit_code
    data = result.data
    for c in data["checks"]:
        if c["status"] != "SKIPPED":
            mark = {"PASS": "ok  ", "FAIL": "FAIL"}.get(c["status"], c["status"])
            print(f"  {mark} {c['name']}: {c['detail']}", file=human)
    t = data.get("timing") or {}
    if result.status == "PASS":
        print(f"PASS: {data['replacement']['path']} replaces {data['kernel']['id']} "
              f"({data['kernel']['instances']} instance(s)): kernel {t['kernel_seconds'] * 1e3:.3f} -> "
              f"{t['replacement_seconds'] * 1e3:.3f} ms ({t['speedup']:.2f}x), model "
              f"{t['model_seconds_before'] * 1e3:.3f} -> {t['model_seconds_after'] * 1e3:.3f} ms "
              f"({t['model_speedup']:.2f}x)", file=human)
    else:
        print(f"{result.status}: {result.reason}", file=sys.stderr if result.status == "ERROR" else human)
        if data.get("was_active"):
            print(f"note: the earlier replacement of {data['kernel']['id']} is no longer active", file=human)
    print(f"result: {result.result_file}", file=human)
    return result.exit_code
