"""Peak memory of `hdecomp verify-step` on a model whose weights dominate, against the size of those weights.

A stack of `--layers` Linear(d, d) + ReLU (fp32; 8 x 8192^2 = 2 GiB by default) and its step to kernels
(a Linear kernel and a ReLU kernel, the parent's ModuleList kept) are written to a temp folder; verify-step
runs in a fresh process, and its peak RSS (getrusage of the child) is compared with the weights' bytes and
with the same process's baseline (interpreter + torch + hdecomp imported, nothing built).

    OMP_NUM_THREADS=1 .venv/bin/python bench/memory/verify_peak.py [--d 8192] [--layers 8] [--json FILE]

The floor is the weights once plus two forwards' activations (here: a few MiB): target <= 1.3x the weights.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ORIGINAL = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d={d}, layers={layers}):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def get_inputs():
    return [torch.randn(8, {d})]


def get_init_inputs():
    return []
'''

REFACTORED = '''
import torch
import torch.nn as nn

from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, d={d}, layers={layers}):
        super().__init__()
        self.layers = nn.ModuleList(Linear(d, d) for _ in range(layers))
        self.act = ReLU()

    def forward(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x


def get_inputs():
    return [torch.randn(8, {d})]


def get_init_inputs():
    return []
'''

LINEAR = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in={d}, d_out={d}):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(8, {d})]


def get_init_inputs():
    return [{d}, {d}]
'''

RELU = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(8, {d})]


def get_init_inputs():
    return []
'''

_PEAK = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:])
print("PEAK_KB", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, proc.returncode)
"""


def peak_kb(cmd: list[str], env: dict[str, str]) -> tuple[int, int]:
    """Peak RSS (KiB) of `cmd` alone (measured by a fresh parent, so nothing else counts) and its exit code."""
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], env=env, capture_output=True, text=True)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("PEAK_KB"))
    _, kb, rc = line.split()
    return int(kb), int(rc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=8192)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="hdecomp-verify-peak-") as tmp:
        step = Path(tmp) / "step"
        (step / "children").mkdir(parents=True)
        fmt = {"d": args.d, "layers": args.layers}
        (step / "original.py").write_text(ORIGINAL.format(**fmt))
        (step / "refactored.py").write_text(REFACTORED.format(**fmt))
        (step / "children" / "linear.py").write_text(LINEAR.format(**fmt))
        (step / "children" / "relu.py").write_text(RELU.format(**fmt))
        env["HDECOMP_CACHE_DIR"] = str(Path(tmp) / "cache")
        base_kb, _ = peak_kb([sys.executable, "-c", "import torch, hdecomp.verify.step"], env)
        kb, rc = peak_kb([sys.executable, "-m", "hdecomp", "verify-step", "--original", str(step / "original.py"),
                          "--refactored", str(step / "refactored.py"), "--output", str(step / "result.json"),
                          "-q"], env)
        result = json.loads((step / "result.json").read_text())
    weights = args.layers * (args.d * args.d + args.d) * 4
    peak, base = kb * 1024, base_kb * 1024
    doc = {"model": f"{args.layers} x Linear({args.d}, {args.d}) + ReLU, fp32, input 8x{args.d}",
           "weights_bytes": weights, "peak_rss_bytes": peak, "baseline_rss_bytes": base,
           "peak_over_weights": round(peak / weights, 3),
           "peak_minus_baseline_over_weights": round((peak - base) / weights, 3),
           "status": result["status"], "exit_code": rc,
           "shared_storage": result.get("weight_transfer", {}).get("shared_storage"),
           "timings": result.get("timings")}
    print(json.dumps(doc, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
