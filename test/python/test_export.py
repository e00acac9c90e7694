"""hdecomp export: one KernelBench problem per unique kernel workload (with --fusions, fusion workload)
across decompositions, each file loading and running the way KernelBench's evaluation loads a reference
(exec of the source, then Model(*get_init_inputs())(*get_inputs())), with a manifest of who uses it; a
fusion that imports its kernels is inlined into one file, or skipped with the reason."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
import torch
from hdecomp.cli import main
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.formats.tree import load_decomposition
from hdecomp.runtime.component import load_component
from hdecomp.toolchain.export import export_problems
from hdecomp.toolchain.profile import profile_tree

A = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)
        self.out = nn.Linear(32, 8)

    def forward(self, x):
        return self.out(torch.relu(self.fc(x)))


def get_inputs():
    return [torch.randn(6, 32)]


def get_init_inputs():
    return []
'''

# the same Linear(32, 32) workload under other names (attribute, input, values), then a different head
B = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, hidden_states):
        return self.head(torch.tanh(self.proj(hidden_states)))


def get_inputs():
    return [torch.randn(6, 32)]


def get_init_inputs():
    return []
'''


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("export")
    roots = []
    for name, src in (("model_a", A), ("model_b", B)):
        (tmp / f"{name}.py").write_text(textwrap.dedent(src))
        roots.append(decompose(tmp / f"{name}.py", tmp / "out", DecomposeOptions(self_tests=False), progress=False).root)
    profile_tree(roots[0], warmup=0, runs=1, probe=False)
    return roots


def _kernelbench_load(path: Path) -> torch.Tensor:
    """What KernelBench's eval does with a reference source: exec it, build, run (seeded)."""
    torch.manual_seed(0)
    context: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), context)
    model = context["Model"](*context["get_init_inputs"]())
    with torch.no_grad():
        return model(*context["get_inputs"]())


def test_a_shared_workload_is_one_problem_used_by_both_models(trees: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "problems"
    manifest = export_problems(trees, out)
    assert json.loads((out / "manifest.json").read_text()) == json.loads(json.dumps(manifest))
    problems = manifest["problems"]
    by_models = {p["file"]: sorted(u["model"] for u in p["uses"]) for p in problems}
    shared = [f for f, models in by_models.items() if models == ["model_a", "model_b"]]
    assert len(shared) == 1 and shared[0].startswith("linear_32x32"), by_models
    # relu, tanh, the two heads: one model each; every file exported once
    assert sorted(p.name for p in out.glob("*.py")) == sorted(by_models)
    assert len(problems) == 5
    for p in problems:
        assert p["dtype"] == "float32" and p["tolerance"] == {"atol": 1e-4, "rtol": 1e-4}
        assert all(u["instances"] >= 1 for u in p["uses"])
        assert isinstance(_kernelbench_load(out / p["file"]), torch.Tensor)
    # model_a was profiled: its uses carry FLOPs and shares; the shared Linear(32, 32) is 2 * 6 * 32 * 32
    lin = next(p for p in problems if p["file"] == shared[0])
    use_a = next(u for u in lin["uses"] if u["model"] == "model_a")
    assert use_a["flops"] == lin["flops"] == 2 * 6 * 32 * 32 and use_a["share_of_model"] > 0
    assert "flops" not in next(u for u in lin["uses"] if u["model"] == "model_b")


def test_cli_and_bad_input(trees: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", *map(str, trees), "-o", str(tmp_path / "p"), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["problems"]) == 5
    assert main(["export", str(tmp_path), "-o", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err
    assert "not a decomposition folder" in err and not (tmp_path / "q").exists()   # nothing half-written


# a model whose blocks are one fusion (Linear, ReLU, residual add, LayerNorm); C and D share it, not the head
BLOCKS = '''
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
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(16) for _ in range(BLOCKS)])
        self.head = nn.Linear(16, HEAD)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
'''

# the same fusion written over its kernel files, as an agent might (`children/` beside it)
OVER_KERNELS = '''
"""block over its kernels."""
import torch
import torch.nn as nn
IMPORTS


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = Fc()
        self.norm = Norm()

    def forward(self, x):
        return self.norm(torch.relu(self.fc(x)) + x)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
'''


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("fused")
    roots = []
    for name, blocks, head in (("model_c", 1, 4), ("model_d", 2, 8)):
        (tmp / f"{name}.py").write_text(textwrap.dedent(BLOCKS).replace("BLOCKS", str(blocks)).replace("HEAD", str(head)))
        roots.append(decompose(tmp / f"{name}.py", tmp / "out", DecomposeOptions(self_tests=False), progress=False).root)
    profile_tree(roots[0], warmup=0, runs=1, probe=False)
    return roots


def _over_kernels(tree: Path, dest: Path, imports: str, fusion_file: str = "block.py") -> Path:
    """A copy of `tree` whose fusion imports its Linear and LayerNorm kernels from level_1_fusion/children/."""
    shutil.copytree(tree, dest)
    children = dest / "level_1_fusion" / "children"
    children.mkdir()
    for kernel in ("linear_16x16_fp32.py", "layer_norm_16_fp32.py"):
        shutil.copyfile(dest / "level_0_kernel" / kernel, children / kernel)
    (dest / "level_1_fusion" / "block.py").unlink()
    (dest / "level_1_fusion" / fusion_file).write_text(textwrap.dedent(OVER_KERNELS).replace("IMPORTS", imports))
    t = load_decomposition(dest)
    t.nodes["block"].path = f"level_1_fusion/{fusion_file}"
    t.save()
    return dest


def test_fusions_are_one_problem_per_workload_across_models(fused: list[Path], tmp_path: Path) -> None:
    kernels_only = export_problems(fused, tmp_path / "k")
    manifest = export_problems(fused, tmp_path / "p", fusions=True)
    assert json.loads((tmp_path / "p" / "manifest.json").read_text()) == json.loads(json.dumps(manifest))
    problems = manifest["problems"]
    assert manifest["skipped"] == [] and "skipped" not in kernels_only
    fusions = [p for p in problems if p["level"] == "fusion"]
    assert [f["file"] for f in fusions] == ["block.py"]
    block = fusions[0]
    assert block["fusion"] == "block" and block["dtype"] == "float32" and "inlined" not in block
    assert sorted((u["model"], u["instances"]) for u in block["uses"]) == [("model_c", 1), ("model_d", 2)]
    # kernels are as without --fusions, names included; every file is one problem of its own
    assert [p for p in problems if p["level"] == "kernel"] == kernels_only["problems"]
    assert sorted(p.name for p in (tmp_path / "p").glob("*.py")) == sorted(p["file"] for p in problems)
    assert len(problems) == len(kernels_only["problems"]) + 1
    out = _kernelbench_load(tmp_path / "p" / "block.py")
    assert out.shape == (4, 16)
    # model_c was profiled, fusions included: the block's FLOPs are more than its Linear's 2 * 4 * 16 * 16
    use_c = next(u for u in block["uses"] if u["model"] == "model_c")
    assert use_c["flops"] == block["flops"] > 2 * 4 * 16 * 16 and use_c["share_of_model"] > 0
    assert "flops" not in next(u for u in block["uses"] if u["model"] == "model_d")


def test_no_fusion_without_the_flag(fused: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = export_problems(fused, tmp_path / "p")
    assert {p["level"] for p in manifest["problems"]} == {"kernel"}
    assert not (tmp_path / "p" / "block.py").exists()
    assert main(["export", *map(str, fused), "-o", str(tmp_path / "q"), "--fusions"]) == 0
    assert "1 fusions" in capsys.readouterr().out and (tmp_path / "q" / "block.py").exists()


def test_a_fusion_importing_its_kernels_is_inlined_exactly(fused: list[Path], tmp_path: Path) -> None:
    # the fusion file is named like a kernel of the tree: the two problems keep apart
    tree = _over_kernels(fused[0], tmp_path / "model_c", "from children.linear_16x16_fp32 import Model as Fc\n"
                         "from children.layer_norm_16_fp32 import Model as Norm", "relu_fp32.py")
    manifest = export_problems([tree], tmp_path / "p", fusions=True)
    assert manifest["skipped"] == []
    fusion = next(p for p in manifest["problems"] if p["level"] == "fusion")
    assert fusion["file"] == "relu_fp32__model_c.py"
    assert fusion["inlined"] == ["level_1_fusion/children/layer_norm_16_fp32.py",
                                 "level_1_fusion/children/linear_16x16_fp32.py"]
    assert (tmp_path / "p" / "relu_fp32.py").read_text() == (tree / "level_0_kernel" / "relu_fp32.py").read_text()
    text = (tmp_path / "p" / fusion["file"]).read_text()
    assert "children" not in text and "class Fc(nn.Module)" in text and "EXPECTED_OUTPUTS" not in text
    # the same numbers as the decomposer's own standalone fusion file: the same weights, the same ops
    assert torch.equal(_kernelbench_load(tmp_path / "p" / fusion["file"]),
                       _kernelbench_load(fused[0] / "level_1_fusion" / "block.py"))


# a kernel file with module-level names of its own, one bound another way than in the fusion, and a
# parameter named like one of them
HELPER = '''
import torch
from torch import nn

SCALE = 2.0


class Scale(nn.Module):
    def forward(self, x):
        return x * SCALE


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Scale()
        self.fc = nn.Linear(16, 16)

    def forward(self, x, SCALE=3.0):
        return self.fc(self.inner(x)) + SCALE + sum(SCALE for SCALE in (1.0, 5.0))


def get_inputs():
    return [torch.randn(4, 16)]
'''


def test_inlined_code_keeps_what_each_name_means(fused: list[Path], tmp_path: Path) -> None:
    # the fusion has a SCALE and a Scale of its own, which the inlined helper must not see
    tree = _over_kernels(fused[0], tmp_path / "model_c", "from children.helper import Model as Fc\n"
                         "from children.layer_norm_16_fp32 import Model as Norm\nSCALE = 100.0\nScale = None")
    (tree / "level_1_fusion" / "children" / "helper.py").write_text(textwrap.dedent(HELPER))
    manifest = export_problems([tree], tmp_path / "p", fusions=True)
    fusion = next(p for p in manifest["problems"] if p["level"] == "fusion")
    text = (tmp_path / "p" / fusion["file"]).read_text()
    assert "_helper__SCALE = 2.0" in text and "class _helper__Scale(_helper__nn.Module)" in text
    # what the tree's own loader computes from the fusion and the files it imports
    c = load_component(tree / "level_1_fusion" / "block.py")
    torch.manual_seed(0)
    model = c.model_class(*c.get_init_inputs())
    with torch.no_grad():
        want = model(*c.get_inputs())
    assert torch.equal(_kernelbench_load(tmp_path / "p" / fusion["file"]), want)


@pytest.mark.parametrize("imports", [
    "import children.linear_16x16_fp32 as fc\nfrom children.layer_norm_16_fp32 import Model as Norm\nFc = fc.Model",
    "from children.linear_16x16_fp32 import Model as Fc\nfrom children.layer_norm_16_f32 import Model as Norm",
], ids=["a module import", "no such file"])
def test_a_fusion_that_cannot_be_inlined_is_skipped_with_the_reason(
        fused: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], imports: str) -> None:
    tree = _over_kernels(fused[0], tmp_path / "model_c", imports)
    assert main(["export", str(tree), "-o", str(tmp_path / "p"), "--fusions", "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert {p["level"] for p in manifest["problems"]} == {"kernel"}   # the kernels are still there
    assert [(s["node"], s["path"]) for s in manifest["skipped"]] == [("block", "level_1_fusion/block.py")]
    reason = manifest["skipped"][0]["reason"]
    assert "children.linear_16x16_fp32 as fc" in reason or "children.layer_norm_16_f32" in reason, reason
    assert not (tmp_path / "p" / "block.py").exists()
    assert main(["export", str(tree), "-o", str(tmp_path / "q"), "--fusions"]) == 0
    assert f"skipped the fusion block ({tree}/level_1_fusion/block.py): {reason}" in capsys.readouterr().out
