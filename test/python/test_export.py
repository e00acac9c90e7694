"""hdecomp export: one KernelBench problem per unique kernel workload across decompositions, each file
loading and running the way KernelBench's evaluation loads a reference (exec of the source, then
Model(*get_init_inputs())(*get_inputs())), with a manifest of who uses it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torch
from hdecomp.cli import main
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.toolchain.export import export_problems, workload_key
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
    """What KernelBench's eval does with a reference source: exec it, build, run."""
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


def test_workload_key_ignores_names_and_docs_but_not_shapes() -> None:
    a = "import torch\nclass Model(torch.nn.Module):\n    '''doc'''\n    def __init__(self):\n" \
        "        super().__init__()\n        self.fc = torch.nn.Linear(4, 4)\n    def forward(self, x):\n" \
        "        y = self.fc(x)\n        return y\ndef get_inputs():\n    return [torch.randn(2, 4)]\n"
    renamed = a.replace("fc", "proj").replace("x)", "h)").replace("(x", "(h").replace("y", "out").replace("'''doc'''", "'''other'''")
    assert workload_key(a) == workload_key(renamed)
    assert workload_key(a) != workload_key(a.replace("randn(2, 4)", "randn(3, 4)"))
    assert workload_key(a) != workload_key(a.replace("Linear(4, 4)", "Linear(4, 4, bias=False)"))


def test_cli_and_bad_input(trees: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", *map(str, trees), "-o", str(tmp_path / "p"), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["problems"]) == 5
    assert main(["export", str(tmp_path), "-o", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err
    assert "not a decomposition folder" in err and not (tmp_path / "q").exists()   # nothing half-written
