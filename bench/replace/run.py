"""`hdecomp replace` against adversaries, and what the isolation costs.

    # the corpus, judged at the kernel level (the checks a cheat must fail), with this checkout's code
    OMP_NUM_THREADS=1 PYTHONPATH=python .venv/bin/python bench/replace/run.py corpus --out bench/replace/after_corpus.json
    # full `replace` runs: wall time and the speedup it measures, N repeats, with whichever hdecomp PYTHONPATH names
    OMP_NUM_THREADS=1 PYTHONPATH=python .venv/bin/python bench/replace/run.py cost --repeats 5 --out F.json
    # `verify-step` (the top step) and `pipeline` (every step), each a fresh process, N repeats (--tree: more trees)
    OMP_NUM_THREADS=1 PYTHONPATH=python .venv/bin/python bench/replace/run.py verify --repeats 3 --out F.json

`cost` decomposes the corpus's two models once (`--work DIR`), then runs `replace_kernel` on two honest
replacements (the MLP's linear by `x @ W.T + b`, the conv block's BatchNorm folded into an affine), each
`--repeats` times on a fresh copy of the tree, and records each run's wall time, verdict and measured
kernel speedup (their spread is the timing noise). It imports only what every version of `hdecomp replace`
has, so the code before the isolation runs it too (`PYTHONPATH=<an older checkout>/python`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "test" / "python" / "corpus_replace"
COST_CASES = [("mlp", "linear_256x512_fp32", "honest/linear_matmul_transpose.py"),
              ("convbn", "batch_norm2d_16_fp32", "honest/bn_fold_affine.py")]


def _header(path: Path) -> dict[str, str]:
    return dict(re.findall(r"^# (decomposition|kernel|class|expect): (\S+)", path.read_text(), re.MULTILINE))


def _trees(work: Path) -> dict[str, Path]:
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    out = {}
    for name in ("mlp", "convbn"):
        root = work / name / name
        if not (root / "decomposition_tree.json").is_file():
            outcome = decompose(CORPUS / "models" / f"{name}.py", work / name, DecomposeOptions(self_tests=False),
                                progress=False)
            root = outcome.root
        out[name] = root
    return out


def corpus(args: argparse.Namespace) -> dict:
    from hdecomp.toolchain.replace import ReplaceOptions, kernel_verdict
    trees = _trees(Path(args.work))
    results = {}
    for folder in ("cheats", "honest", "neutralized"):
        for f in sorted((CORPUS / folder).glob("*.py")):
            head = _header(f)
            root = Path(args.work) / "copy"
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(trees[head["decomposition"]], root)
            t0 = time.perf_counter()
            r = kernel_verdict(root, root / "level_0_kernel" / f"{head['kernel']}.py", f,
                               ReplaceOptions(runs=args.runs, warmup=1))
            failed = [c["name"] for c in r.data["checks"] if c["status"] == "FAIL"]
            ok = (r.status == "PASS") if head["expect"] == "PASS" else (r.status == "FAIL" and failed == [head["expect"]])
            results[f.stem] = {"folder": folder, "class": head.get("class"), "expect": head["expect"],
                               "status": r.status, "refused_by": failed[0] if failed else None, "as_expected": ok,
                               "seconds": round(time.perf_counter() - t0, 2)}
            print(f"{folder}/{f.stem}: {r.status} {failed} {'ok' if ok else 'UNEXPECTED'}", flush=True)
    return results


def cost(args: argparse.Namespace) -> dict:
    from hdecomp.toolchain.replace import ReplaceOptions, replace_kernel
    trees = _trees(Path(args.work))
    runs = []
    for tree, kernel, new in COST_CASES:
        for i in range(args.repeats):
            root = Path(args.work) / "copy"
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(trees[tree], root)
            t0 = time.perf_counter()
            r = replace_kernel(root, root / "level_0_kernel" / f"{kernel}.py", CORPUS / new,
                               ReplaceOptions(runs=args.runs, warmup=args.warmup))
            wall = time.perf_counter() - t0
            t = r.data.get("timing") or {}
            runs.append({"case": f"{tree}/{kernel}", "replacement": new, "repeat": i, "status": r.status,
                         "reason": r.reason, "wall_seconds": round(wall, 2), "speedup": t.get("speedup"),
                         "model_speedup": t.get("model_speedup")})
            print(f"{tree}/{kernel} #{i}: {r.status} {wall:.1f} s, speedup {t.get('speedup')}", flush=True)
    summary = {}
    for tree, kernel, _ in COST_CASES:
        mine = [r for r in runs if r["case"] == f"{tree}/{kernel}"]
        sp = [r["speedup"] for r in mine if isinstance(r["speedup"], float)]
        summary[f"{tree}/{kernel}"] = {
            "verdicts": sorted({r["status"] for r in mine}),
            "wall_seconds_median": statistics.median(r["wall_seconds"] for r in mine),
            "speedup_median": statistics.median(sp) if sp else None,
            "speedup_spread": (max(sp) - min(sp)) if sp else None,
            "speedup_spread_relative": ((max(sp) - min(sp)) / statistics.median(sp)) if sp else None}
    return {"runs": runs, "summary": summary}


def verify(args: argparse.Namespace) -> dict:
    """`hdecomp verify-step` on each tree's first (top) step and `hdecomp pipeline` over the whole tree, each a
    fresh process as a user runs it, `--repeats` times: the wall time of the verification before and after
    the isolation (whichever hdecomp PYTHONPATH names)."""
    import os
    import subprocess
    trees = _trees(Path(args.work))
    trees.update({Path(t).name: Path(t) for t in args.tree})
    runs = []
    for name, root in trees.items():
        copy = Path(args.work) / "verify-copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy)
        step = sorted((copy / "steps").iterdir())[0]
        for what, cmd in (("verify-step", ["verify-step", "--original", str(step / "original.py"), "--refactored",
                                            str(step / "refactored.py"), "--batch-limit", "1", "--json"]),
                          ("pipeline", ["pipeline", str(copy), "--batch-limit", "1", "--json"])):
            for i in range(args.repeats):
                t0 = time.perf_counter()
                p = subprocess.run([sys.executable, "-m", "hdecomp", *cmd], capture_output=True, text=True,
                                   env={**os.environ, "HDECOMP_CACHE": "0"})
                wall = time.perf_counter() - t0
                runs.append({"tree": name, "what": what, "repeat": i, "exit_code": p.returncode,
                             "wall_seconds": round(wall, 2)})
                print(f"{name} {what} #{i}: exit {p.returncode}, {wall:.1f} s", flush=True)
    summary = {f"{r['tree']} {r['what']}": statistics.median(x["wall_seconds"] for x in runs
                                                              if x["tree"] == r["tree"] and x["what"] == r["what"])
               for r in runs}
    return {"runs": runs, "median_wall_seconds": summary}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("corpus", "cost", "verify"))
    ap.add_argument("--tree", action="append", default=[], help="(verify) another decomposition folder")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/hdecomp-bench-replace")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    import hdecomp
    result = {"corpus": corpus, "cost": cost, "verify": verify}[args.what](args)
    import subprocess
    checkout = Path(hdecomp.__file__).resolve().parents[2]
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or None
    doc = {"what": args.what, "commit": commit,
           "runs": args.runs, "repeats": args.repeats, "python": sys.version.split()[0], "result": result}
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
