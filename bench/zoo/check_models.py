"""Check the zoo's model files: build each one and run one forward, and record what it costs (models.json).

Each file runs in a subprocess of its own (its memory is returned when it ends; a crash or hang stops only that
model): import it, build `Model(*get_init_inputs())` in eval mode, run one forward at the file's batch_size
(1) under torch.no_grad(), and record the parameter count, the fp32 weight bytes, the build and forward
seconds, the output shape(s) and the peak RSS (`ru_maxrss` of the subprocess). Models run one at a time
(the big ones need 6-13 GB).

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/zoo/check_models.py                 # every model
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/zoo/check_models.py --only hf_gpt2 tv_resnet50

Results are merged into bench/zoo/models.json (`--json`): a model run again replaces its entry.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib.util
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MODELS = HERE / "models"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.kernelbench_sweep.sweep import run_worker  # noqa: E402  (subprocess in its own session, killed on time-out)

SHAPE_NAMES = ("batch_size", "seq_len", "decoder_seq_len", "image_size", "num_mel_bins", "num_frames")


def model_files(only: list[str] | None) -> list[Path]:
    files = sorted(MODELS.glob("*.py"))
    if only:
        # (a name that is a file's stem selects that file alone; any other name is a prefix)
        stems = {f.stem for f in files}
        files = [f for f in files if any(f.stem == o or (o not in stems and f.stem.startswith(o)) for o in only)]
    return files


def describe(path: Path) -> dict[str, Any]:
    """What the file says about itself without running it: the docstring's first paragraph and the
    module-level shape constants."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = (ast.get_docstring(tree) or "").split("\n\n")[0].replace("\n", " ")
    shapes = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in SHAPE_NAMES and isinstance(node.value, ast.Constant):
            shapes[node.targets[0].id] = node.value.value
    return {"description": doc, "shapes": shapes}


def _shapes(out: Any) -> Any:
    import torch
    if isinstance(out, torch.Tensor):
        return list(out.shape)
    if isinstance(out, (tuple, list)):
        return [_shapes(o) for o in out]
    raise TypeError(f"forward returned {type(out).__name__}, not a tensor or a tuple of tensors")


def worker(path: str) -> int:
    """Build and run one model file in this process; print the record as one JSON line."""
    import torch
    rec: dict[str, Any] = {"torch_threads": torch.get_num_threads()}
    try:
        spec = importlib.util.spec_from_file_location(Path(path).stem, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        torch.manual_seed(0)
        t0 = time.perf_counter()
        model = mod.Model(*mod.get_init_inputs()).eval()
        rec["build_seconds"] = round(time.perf_counter() - t0, 2)
        params = list(model.parameters())          # shared (tied) parameters once
        rec["parameters"] = sum(p.numel() for p in params)
        rec["weight_bytes_fp32"] = sum(p.numel() for p in params) * 4
        rec["buffer_bytes"] = sum(b.numel() * b.element_size() for b in model.buffers())
        rec["dtypes"] = sorted({str(p.dtype) for p in params})
        rec["rss_after_build_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3)
        inputs = mod.get_inputs()
        rec["input_shapes"] = [list(x.shape) for x in inputs]
        with torch.no_grad():
            t0 = time.perf_counter()
            out = model(*inputs)
            rec["forward_seconds"] = round(time.perf_counter() - t0, 2)
        rec["output_shapes"] = _shapes(out)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        rec["output_finite"] = all(bool(torch.isfinite(o).all()) for o in outs)
        rec["status"] = "ok"
    except Exception as exc:  # any failure of the model file is the result
        rec["status"] = "error"
        rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
    rec["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print("CHECK_RESULT " + json.dumps(rec))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", metavar="NAME", help="model file stems (or prefixes), e.g. hf_gpt2 tv_")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per model")
    p.add_argument("--json", default=str(HERE / "models.json"))
    p.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    out_path = Path(args.json)
    data: dict[str, Any] = json.loads(out_path.read_text()) if out_path.exists() else {"models": {}}
    import timm
    import torch
    import torchvision
    import transformers
    files = model_files(args.only)
    if not files:
        p.error("no model file matches --only")
    for f in files:
        cmd = [sys.executable, __file__, "--worker", str(f)]
        t0 = time.perf_counter()
        rc, stdout, stderr = run_worker(cmd, args.timeout)
        line = next((ln for ln in stdout.splitlines() if ln.startswith("CHECK_RESULT ")), None)
        if line:
            rec = json.loads(line[len("CHECK_RESULT "):])
        elif rc is None:
            rec = {"status": "error", "error": f"timeout after {args.timeout:g} s"}
        elif rc == -9:
            rec = {"status": "error", "error": "killed (SIGKILL: out of memory?)"}
        else:
            rec = {"status": "error", "error": f"crashed (exit {rc}): {(stderr.strip().splitlines() or [''])[-1][:300]}"}
        rec["wall_seconds"] = round(time.perf_counter() - t0, 2)
        if "weight_bytes_fp32" in rec:
            rec["weight_gb_fp32"] = round(rec["weight_bytes_fp32"] / 1e9, 3)
        if "peak_rss_bytes" in rec:
            rec["peak_rss_gb"] = round(rec["peak_rss_bytes"] / 2**30, 3)
        entry = {"file": str(f.relative_to(REPO)), **describe(f), **rec,
                 "checked": datetime.datetime.now().isoformat(timespec="seconds")}
        data["models"][f.stem] = entry
        print(f"{f.stem}: {rec['status']} params={rec.get('parameters')} weights={rec.get('weight_gb_fp32')} GB "
              f"forward={rec.get('forward_seconds')} s out={rec.get('output_shapes')} "
              f"peak_rss={rec.get('peak_rss_gb')} GiB {rec.get('error', '')}", flush=True)
        data["environment"] = {"torch": torch.__version__, "transformers": transformers.__version__,
                               "timm": timm.__version__, "torchvision": torchvision.__version__,
                               "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "cpus": os.cpu_count()}
        data["models"] = dict(sorted(data["models"].items()))
        out_path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
