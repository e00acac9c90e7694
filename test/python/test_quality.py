"""`hdecomp validate --quality`: the lint that holds a tree to what an expert would draw (issue 14, rules
Q1-Q7), on hand-written trees the way an agent would write them: each rule's finding where it applies, and
none on the patterns it must accept (an attention core, a gate/up pair, squeeze-excitation, a kernel with named inputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.toolchain.quality import check_quality

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"


def _file(cls_init: str, forward: str, inputs: str) -> str:
    return (HEAD + "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            + "".join(f"        {line}\n" for line in cls_init.splitlines())
            + "\n" + "".join(f"    {line}\n" for line in forward.splitlines())
            + f"\n\ndef get_inputs():\n    return {inputs}\n\n\ndef get_init_inputs():\n    return []\n")


FILES = {
    "level_3_model/model.py": _file("self.mlp = nn.Linear(4, 4)", "def forward(self, x):\n    return self.mlp(x)",
                                    "[torch.randn(2, 4)]"),
    # Q2: a layer named by its ops, ending in _etc
    "level_2_layer/sub_diff_ne_cumsum_etc.py": _file(
        "pass", "def forward(self, ids):\n    d = torch.diff(ids - 1)\n    return torch.cumsum(d.ne(0), 1)",
        "[torch.randint(0, 4, (2, 8))]"),
    # Q1: the attention core and the output projection in one fusion
    "level_1_fusion/self_attn.py": _file(
        "self.o_proj = nn.Linear(8, 8)",
        "def forward(self, q, k, v):\n    y = F.scaled_dot_product_attention(q, k, v)\n    return self.o_proj(y)",
        "[torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8)]"),
    # accepted: two contractions around a softmax (the attention core) ...
    "level_1_fusion/attention_core.py": _file(
        "pass", "def forward(self, q, k, v):\n    s = torch.matmul(q, k.transpose(-1, -2)) * 0.5\n"
                "    return torch.matmul(torch.softmax(s, dim=-1), v)",
        "[torch.randn(1, 4, 8), torch.randn(1, 4, 8), torch.randn(1, 4, 8)]"),
    # ... and a gate/up pair on one input
    "level_1_fusion/gated_mlp.py": _file(
        "self.gate = nn.Linear(4, 8)\nself.up = nn.Linear(4, 8)",
        "def forward(self, hidden_states):\n    return F.silu(self.gate(hidden_states)) * self.up(hidden_states)",
        "[torch.randn(2, 4)]"),
    # ... and a source variable that looks like a generated name but is not in its place (torchvision
    # ShuffleNet's `x1, x2 = x.chunk(2, dim=1)`, then `self.branch2(x2)`): not Q7
    "level_1_fusion/branch2.py": _file(
        "self.conv = nn.Conv2d(4, 4, 1)\nself.norm = nn.BatchNorm2d(4)",
        "def forward(self, x2):\n    return torch.relu(self.norm(self.conv(x2)))", "[torch.randn(1, 4, 4, 4)]"),
    # ... and squeeze-excitation (two 1x1 convs on a pooled vector, gating the input)
    "level_1_fusion/squeeze_excitation.py": _file(
        "self.fc1 = nn.Conv2d(8, 2, 1)\nself.fc2 = nn.Conv2d(2, 8, 1)",
        "def forward(self, features):\n    s = self.fc2(F.silu(self.fc1(F.adaptive_avg_pool2d(features, 1))))\n"
        "    return features * torch.sigmoid(s)", "[torch.randn(1, 8, 4, 4)]"),
    # ... and a kernel handed the input's shape, which follows the batch (VideoPrism's temporal embeddings): a
    # size tuple, no container of tensors (not Q3)
    "level_0_kernel/temporal_embeddings_fp32.py": _file(
        "self.proj = nn.Linear(4, 4)",
        "def forward(self, x, input_shape):\n    return self.proj(x).reshape(input_shape[0], -1, 4)",
        "[torch.randn(batch_size * 2, 4), (batch_size, 2, 4 * 3)]"),
    # ... and an embedding with six hash embeddings added to it (BLT): an embedding and one sum, not 7 ops
    "level_1_fusion/embeddings.py": _file(
        "self.embed_tokens = nn.Embedding(16, 4)",
        "def forward(self, ids, h1, h2, h3, h4, h5, h6):\n    e = self.embed_tokens(ids)\n"
        "    return e + h1 + h2 + h3 + h4 + h5 + h6",
        "[torch.randint(0, 16, (2, 3))] + [torch.randn(2, 3, 4) for _ in range(6)]"),
    # ... and two adds (SpeechT5's two position embeddings added): two ops still, the least a fusion holds
    "level_1_fusion/positions.py": _file(
        "pass", "def forward(self, h, conv, sin):\n    return h + conv + sin",
        "[torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4)]"),
    # Q6: a fusion of six ops of six kinds (DeepSeek-V4's hyper-connection coefficients)
    "level_1_fusion/coefficients.py": _file(
        "pass", "def forward(self, w, b):\n    s = torch.sigmoid(w * 2.0 + b)\n"
        "    c = torch.softmax(w, dim=-1) / (torch.exp(w).sum(dim=-1, keepdim=True) - 1.0)\n    return s, c",
        "[torch.randn(2, 4), torch.randn(2, 4)]"),
    # Q2 + Q7: an op-list name, unnamed inputs
    "level_1_fusion/mul_add.py": _file("pass", "def forward(self, x0, x1):\n    return torch.add(torch.mul(x0, x1), x1)",
                                       "[torch.randn(2, 4), torch.randn(2, 4)]"),
    # Q3 (a tuple input) twice, and the second the same workload as the first up to names (Q4)
    "level_0_kernel/linear_4x4_fp32.py": _file(
        "self.weight = nn.Parameter(torch.randn(4, 4))", "def forward(self, chunks):\n    return F.linear(chunks[0], self.weight)",
        "[(torch.randn(2, 4), torch.randn(2, 4))]"),
    "level_0_kernel/linear_4x4_fp32_v2.py": _file(
        "self.w = nn.Parameter(torch.randn(4, 4))", "def forward(self, parts):\n    return F.linear(parts[0], self.w)",
        "[(torch.randn(2, 4), torch.randn(2, 4))]"),
    # Q3: a kernel slicing its own packed weight
    "level_0_kernel/linear_12x4_fp32.py": _file(
        "self.in_proj_weight = nn.Parameter(torch.randn(12, 4))",
        "def forward(self, query):\n    return F.linear(query, self.in_proj_weight[:4])", "[torch.randn(2, 4)]"),
    # Q5: a constant from a size
    "level_0_kernel/arange_16_any.py": _file("pass", "def forward(self, n):\n    return torch.arange(n)", "[16]"),
    # Q5: arithmetic on numbers alone, handed one (a padding amount) or holding them (a kept `padding_total`)
    "level_0_kernel/sub_i64.py": _file("self.stride = torch.tensor(2)",
                                       "def forward(self, extra):\n    return extra - self.stride",
                                       "[torch.tensor(5)]"),
    "level_0_kernel/ge_i64.py": _file("self.padding_total = torch.tensor(6)",
                                      "def forward(self):\n    return self.padding_total.ge(4800)", "[]"),
    # accepted: compute on a 0-dim float the model is handed (a diffusion timestep) is the model's
    "level_0_kernel/mul_fp32.py": _file("pass", "def forward(self, timestep):\n    return timestep * 1000.0",
                                        "[torch.tensor(0.5)]"),
    # Q6: two ops in a kernel
    "level_0_kernel/relu_mul_fp32.py": _file("pass", "def forward(self, h):\n    return torch.relu(h).mul(2.0)",
                                             "[torch.randn(2, 4)]"),
    # accepted: a random draw from sizes alone is no constant (Reformer's LSH rotations)
    "level_0_kernel/randn_2x4x8_any.py": _file("pass", "def forward(self):\n    return torch.randn([2, 4, 8])", "[]"),
    # accepted: a tuple of numbers is a size argument (BEiT's relative position bias takes its window size)
    "level_0_kernel/interpolate_2x4x8x8_fp32.py": _file(
        "pass", "def forward(self, x, size):\n    return F.interpolate(x, size=size)", "[torch.randn(2, 4, 8, 8), (4, 4)]"),
    # accepted: an eval-mode drop_path (nn.Identity) is no second op of a residual add's kernel
    "level_0_kernel/add_fp32.py": _file(
        "self.drop_path = nn.Identity()", "def forward(self, shortcut, x):\n    return shortcut + self.drop_path(x)",
        "[torch.randn(2, 4), torch.randn(2, 4)]"),
    # clean
    "level_0_kernel/silu_fp32.py": _file("pass", "def forward(self, hidden_states):\n    return F.silu(hidden_states)",
                                         "[torch.randn(2, 4)]"),
}


# the ops the decomposer recorded for a node (the tree's `ops`), where the lint reads them
RECORDED_OPS = {"add_fp32": ["add", "identity"], "embeddings": ["embedding", *["add_"] * 6],
                "coefficients": ["mul", "add", "sigmoid", "softmax", "exp", "sum", "sub", "div"],
                "positions": ["add", "add"]}
# the shapes and dtypes it recorded (the tree's `input_shapes` ...), where the lint reads them
RECORDED_VALUES = {
    "sub_i64": {"input_shapes": {"extra": []}, "input_dtypes": {"extra": "int64"},
                "output_shapes": {"output": []}, "output_dtypes": {"output": "int64"}},
    "mul_fp32": {"input_shapes": {"timestep": []}, "input_dtypes": {"timestep": "float32"},
                 "output_shapes": {"output": []}, "output_dtypes": {"output": "float32"}},
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    level = {"level_3": "model", "level_2": "layer", "level_1": "fusion", "level_0": "kernel"}
    nodes = {}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        stem = Path(rel).stem
        nodes[stem] = {"id": stem, "name": stem, "level": level[rel[:7]], "path": rel, "children": []}
        if stem in RECORDED_OPS:
            nodes[stem]["ops"] = RECORDED_OPS[stem]
        nodes[stem].update(RECORDED_VALUES.get(stem, {}))
    model = next(k for k, n in nodes.items() if n["level"] == "model")
    nodes[model]["children"] = [k for k in nodes if k != model]
    (root / "decomposition_tree.json").write_text(json.dumps({"metadata": {}, "root": model, "nodes": nodes}))
    return root


@pytest.fixture()
def bad(tmp_path: Path) -> Path:
    return _tree(tmp_path / "bad", FILES)


def test_each_rule_finds_its_case_and_accepts_the_patterns(bad: Path) -> None:
    report = check_quality(bad)
    found = {(f.rule, Path(f.file or "").stem) for f in report.findings}
    assert found == {
        ("Q2", "sub_diff_ne_cumsum_etc"), ("Q1", "self_attn"), ("Q2", "mul_add"), ("Q7", "mul_add"),
        ("Q3", "linear_4x4_fp32"), ("Q3", "linear_4x4_fp32_v2"), ("Q4", "linear_4x4_fp32_v2"),
        ("Q3", "linear_12x4_fp32"), ("Q5", "arange_16_any"), ("Q6", "relu_mul_fp32"),
        ("Q5", "sub_i64"), ("Q5", "ge_i64"), ("Q6", "coefficients"),
    }, sorted(found)
    dup = next(f for f in report.findings if f.rule == "Q4")
    assert "level_0_kernel/linear_4x4_fp32.py" in dup.message
    assert report.totals()["Q3"] == {"kernel": 3} and report.exit_code == 1


def test_a_clean_tree_passes_and_the_cli_reports_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = {k: v for k, v in FILES.items() if Path(k).stem in ("model", "attention_core", "gated_mlp", "squeeze_excitation",
                                                                   "silu_fp32", "branch2", "temporal_embeddings_fp32",
                                                                   "embeddings", "positions")}
    root = _tree(tmp_path / "clean", clean)
    assert check_quality(root).findings == []
    assert main(["validate", "--quality", str(root)]) == 0
    bad = _tree(tmp_path / "bad", FILES)
    capsys.readouterr()
    assert main(["validate", "--quality", "--json", str(bad)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "FAIL" and data["totals"]["Q5"] == {"kernel": 3}
    assert main(["validate", "--quality", str(tmp_path / "nothing")]) == 2


def test_a_packaged_module_fusion_is_judged_by_its_step(tmp_path: Path) -> None:
    """`class Model(LlamaMLP)` shows no ops: Q1 and Q6 read the fusion's step, where the gate/up pair (one
    input) counts as one contraction and the down projection as a second, and each kernel call as one op."""
    opaque = HEAD + "class Model(nn.Sequential):\n    pass\n\n\ndef get_inputs():\n    return [torch.randn(2, 4)]\n"
    files = {"level_3_model/model.py": FILES["level_3_model/model.py"], "level_1_fusion/mlp.py": opaque,
             "level_1_fusion/gate_mlp.py": opaque}
    root = _tree(tmp_path / "t", files)
    tree = json.loads((root / "decomposition_tree.json").read_text())
    for name, down in (("mlp", True), ("gate_mlp", False)):
        step = root / "steps" / f"step_{name}"
        step.mkdir(parents=True)
        calls = "        y = self.act(self.gate(x)) * self.up(x)\n" + (
            "        return self.down(y)\n" if down else "        return y\n")
        (step / "refactored.py").write_text(
            "import torch.nn as nn\nfrom children.linear_4x8_fp32 import Model as Lin\n"
            "from children.silu_fp32 import Model as Act\nfrom children.linear_8x4_fp32 import Model as Down\n\n\n"
            "class RefactoredModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.gate = Lin()\n        self.up = Lin()\n        self.act = Act()\n        self.down = Down()\n\n"
            "    def forward(self, x):\n" + calls)
        tree["nodes"][name]["step"] = f"steps/step_{name}"
        tree["nodes"][name]["ops"] = ["LlamaMLP"] if down else ["_GateMLP"]   # private classes too (_Transition)
        tree["nodes"][name]["op_count"] = 9   # aten ops, an activation's primitives among them
    for stem, ops in (("linear_4x8_fp32", ["Linear"]), ("silu_fp32", ["silu"]), ("linear_8x4_fp32", ["Linear"])):
        tree["nodes"][stem] = {"id": stem, "name": stem, "level": "kernel", "path": f"level_0_kernel/{stem}.py",
                               "ops": ops, "children": []}
    (root / "decomposition_tree.json").write_text(json.dumps(tree))
    findings = check_quality(root).findings
    found = {(f.rule, Path(f.file or "").stem) for f in findings if f.rule == "Q1"}
    assert found == {("Q1", "mlp")}, found
    # Q6 counts the kernels the step calls (4 and 3), not the 9 aten ops an activation module spells out
    assert not [f for f in findings if f.rule == "Q6"], [f.to_dict() for f in findings]


def test_a_library_function_fusion_is_judged_by_its_step(tmp_path: Path) -> None:
    """A fusion recorded as one library function (transformers' `create_causal_mask`, torchvision's
    `postprocess_detections`) holds the kernels its step calls, in its forward and in the methods it carries
    (the function's body split as one): three calls are a fusion; one call is a fusion of one op (Q6)."""
    opaque = HEAD + "class Model(nn.Module):\n    pass\n\n\ndef get_inputs():\n    return [torch.randn(2, 4)]\n"
    files = {"level_3_model/model.py": FILES["level_3_model/model.py"], "level_1_fusion/postprocess.py": opaque,
             "level_1_fusion/create_mask.py": opaque}
    root = _tree(tmp_path / "t", files)
    tree = json.loads((root / "decomposition_tree.json").read_text())
    head = ("import torch.nn as nn\nfrom children.softmax_fp32 import Model as Softmax\n"
            "from children.clamp_fp32 import Model as Clamp\nfrom children.topk_fp32 import Model as TopK\n\n\n"
            "class RefactoredModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.softmax = Softmax()\n        self.clamp = Clamp()\n        self.topk = TopK()\n\n")
    bodies = {"postprocess": "    def forward(self, x):\n        return self._per_image(self.softmax(x))\n\n"
                             "    def _per_image(self, p):\n        return self.topk(self.clamp(p))\n",
              "create_mask": "    def forward(self, x):\n        return self.clamp(x)\n"}
    for name, body in bodies.items():
        step = root / "steps" / f"step_{name}"
        step.mkdir(parents=True)
        (step / "refactored.py").write_text(head + body)
        tree["nodes"][name]["step"] = f"steps/step_{name}"
        tree["nodes"][name]["ops"] = [name]
    for stem, op in (("softmax_fp32", "softmax"), ("clamp_fp32", "clamp"), ("topk_fp32", "topk")):
        tree["nodes"][stem] = {"id": stem, "name": stem, "level": "kernel", "path": f"level_0_kernel/{stem}.py",
                               "ops": [op], "children": []}
    (root / "decomposition_tree.json").write_text(json.dumps(tree))
    found = {(Path(f.file or "").stem, f.message.split(":")[0]) for f in check_quality(root).findings
             if f.rule == "Q6"}
    assert found == {("create_mask", "1 compute ops")}, found
