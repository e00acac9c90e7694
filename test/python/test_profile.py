"""hdecomp profile: FLOPs equal the known formulas, bytes and instance counts come from the files and the
tree, shares are of the model's measured time, components are ranked, and the file meets its schema."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from hdecomp.cli import main
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.toolchain.profile import DEVICE_SPECS, bytes_moved, count_flops, profile_tree, speed_of_light
from hdecomp.toolchain.validate import schema_errors
from torch import nn


class _Fn(nn.Module):
    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn = fn

    def forward(self, *args):  # type: ignore[no-untyped-def]
        return self.fn(*args)


B = 4
Q = torch.randn(2, 4, 8, 16)
CASES = {
    # Linear(768, 3072) on (B, 768): one multiply-add per weight per row (the bias add is not counted)
    "linear": (nn.Linear(768, 3072), [torch.randn(B, 768)], 2 * B * 768 * 3072),
    # Conv2d: 2 * N * C_out * H_out * W_out * C_in * k_h * k_w
    "conv2d": (nn.Conv2d(3, 16, 3, padding=1), [torch.randn(2, 3, 8, 8)], 2 * 2 * 16 * 8 * 8 * 3 * 3 * 3),
    "conv2d_strided": (nn.Conv2d(8, 4, 3, stride=2), [torch.randn(1, 8, 9, 9)], 2 * 1 * 4 * 4 * 4 * 8 * 3 * 3),
    # matmul (M, K) @ (K, N): 2 * M * N * K; batched: times the batch
    "matmul": (_Fn(torch.matmul), [torch.randn(5, 7), torch.randn(7, 3)], 2 * 5 * 7 * 3),
    "bmm": (_Fn(torch.bmm), [torch.randn(6, 5, 7), torch.randn(6, 7, 3)], 6 * 2 * 5 * 7 * 3),
    # sdpa: Q K^T and P V: 2 * B*H * L * S * (E + E_v)
    "sdpa": (_Fn(F.scaled_dot_product_attention), [Q, Q, Q], 2 * 2 * 4 * 8 * 8 * (16 + 16)),
    # layer_norm: statistics + centring + scaling (5 per element) + affine weight and bias (2)
    "layer_norm": (nn.LayerNorm(16), [Q], 7 * Q.numel()),
    "layer_norm_no_affine": (nn.LayerNorm(16, elementwise_affine=False), [Q], 5 * Q.numel()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flops_equal_the_known_formula(case: str) -> None:
    model, args, expected = CASES[case]
    total, by_op = count_flops(model.eval(), args, {})
    assert total == expected, by_op


def test_bytes_are_inputs_outputs_and_weights_each_storage_once() -> None:
    lin = nn.Linear(64, 32)
    x = torch.randn(8, 64)
    out = lin(x)
    assert bytes_moved(lin, [x, x], {}, out) == 4 * (8 * 64 + 8 * 32 + 64 * 32 + 32)


def test_speed_of_light_is_the_slower_of_compute_and_memory() -> None:
    spec = DEVICE_SPECS["H100"]
    assert speed_of_light(10**12, 1, spec, "fp32") == pytest.approx(10**12 / spec["fp32"])
    assert speed_of_light(1, 10**9, spec, "fp16") == pytest.approx(10**9 / spec["bandwidth"])
    assert speed_of_light(10**12, 1, spec, "fp16") < speed_of_light(10**12, 1, spec, "fp32")
    assert speed_of_light(1, 10**9, spec, "fp32", bandwidth=1e12) == pytest.approx(1e-3)


def test_this_machines_bandwidth_is_measured_per_working_set_size() -> None:
    from hdecomp.toolchain.profile import BandwidthAt
    bw = BandwidthAt(torch.device("cpu"), seconds=0.02)
    first = bw(100_000)
    assert bw(120_000) == first and list(bw.measured) == [1 << 17]   # one power-of-two bucket
    assert bw(10) > 0 and min(bw.measured) == 1 << 16                  # at least 64 KiB
    bw(5 << 20)
    assert sorted(bw.measured) == [1 << 16, 1 << 17, 1 << 23]


MODEL = '''
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(torch.relu(self.fc(x)) + x)


class Model(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(3)])
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def get_inputs():
    return [torch.randn(6, 32)]


def get_init_inputs():
    return [32]
'''


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("profile")
    (tmp / "blocks.py").write_text(textwrap.dedent(MODEL))
    dec = decompose(tmp / "blocks.py", tmp / "out", DecomposeOptions(self_tests=False), progress=False)
    return dec.root


def test_profile_of_a_decomposition(tree: Path) -> None:
    doc = profile_tree(tree, warmup=1, runs=3)
    assert schema_errors(doc, "profile") == []
    written = json.loads((tree / "verification" / "profile.json").read_text())
    assert written["components"] == json.loads(json.dumps(doc["components"]))
    nodes = json.loads((tree / "decomposition_tree.json").read_text())["nodes"]
    comps = {c["id"]: c for c in doc["components"]}
    want = {i for i, n in nodes.items() if n["level"] in ("kernel", "fusion") and i != doc["model"]["id"]}
    assert set(comps) == want
    for cid, c in comps.items():
        assert c["instances"] == nodes[cid]["instance_count"]
        assert c["share_of_model"] == pytest.approx(c["seconds"] * c["instances"] / doc["model"]["seconds"])
        assert set(c["speed_of_light_seconds"]) == {*DEVICE_SPECS, "this machine"}
        assert c["error"] is None
    # this machine's floor: the copy bandwidth measured at the component's working-set size
    import math
    here = doc["device_specs"]["this machine"]
    for c in doc["components"]:
        bucket = 1 << max(16, min(30, math.ceil(math.log2(max(c["bytes"], 1)))))
        bw = doc["bandwidth_by_working_set"][str(bucket)]
        assert c["speed_of_light_seconds"]["this machine"] == pytest.approx(
            max(c["flops"] / here["fp32"], c["bytes"] / bw))
    shares = [c["share_of_model"] for c in doc["components"]]
    assert shares == sorted(shares, reverse=True)
    # the Linear(32, 32) kernel: 2 * 6 * 32 * 32 FLOPs, used once per block
    linear = [c for c in doc["components"] if c["level"] == "kernel" and c["flops_by_op"].get("addmm") == 2 * 6 * 32 * 32]
    assert linear and linear[0]["instances"] == 3
    assert doc["device_specs"]["this machine"]["fp32"] > 0 and doc["device_specs"]["this machine"]["bandwidth"] > 0
    # the roofline and the share-of-time bars, as PNG files beside the profile
    assert sorted(Path(p).name for p in doc["plots"]) == ["profile_roofline.png", "profile_share.png"]
    for p in doc["plots"]:
        assert Path(p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and Path(p).stat().st_size > 5000


def test_cli_json_and_errors(tree: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["profile", str(tree), "--runs", "1", "--warmup", "0", "--kernels-only", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["components"] and {c["level"] for c in doc["components"]} == {"kernel"}
    assert main(["profile", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a decomposition folder" in err and str(tmp_path) in err


def test_a_kernel_that_raises_gets_an_error_entry_and_the_rest_is_profiled(tree: Path, tmp_path: Path) -> None:
    import shutil
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    kernel = next((copy / "level_0_kernel").glob("relu*.py"))
    src = kernel.read_text()
    kernel.write_text(src.replace("    def forward(self, ", "    def forward(self, *a, **k):\n"
                                  "        raise RuntimeError('broken kernel')\n\n    def _old(self, ", 1))
    doc = profile_tree(copy, warmup=0, runs=1, probe=False)
    broken = [c for c in doc["components"] if c["error"]]
    assert [c["path"] for c in broken] == [f"level_0_kernel/{kernel.name}"]
    assert "RuntimeError: broken kernel" in broken[0]["error"] and str(kernel) in broken[0]["error"]
    assert all(c["seconds"] > 0 for c in doc["components"] if not c["error"])
    assert schema_errors(doc, "profile") == []
