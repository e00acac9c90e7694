"""hdecomp.refactor: extract-to-child planning (data flow, moved submodules, weight map, shapes, refusals)
and static state_dict keys. Pure source work: no model is run here (the server tests run verify-step)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hdecomp.refactor import ExtractionRefused, Span, check_selection, extract_to_child, kernel_span
from hdecomp.refactor.state_keys import constructor_keys
from hypothesis import given, settings
from hypothesis import strategies as st

FIXTURE_STEP = Path(__file__).parents[1] / "server" / "fixtures" / "ws" / "convnet" / "steps" / "step_1_model_to_kernels"

TWO_BRANCH = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Model(nn.Module):
        def __init__(self, dim, hidden):
            super().__init__()
            self.up = nn.Linear(dim, hidden)
            self.gate = nn.Linear(dim, hidden, bias=False)
            self.down = nn.Linear(hidden, dim)
            self.act = nn.GELU()

        def forward(self, x, scale):
            h = self.act(self.up(x))  # main branch
            g = self.gate(x) * scale
            y = self.down(h * g)
            return y + x


    dim = 8
    hidden = 16


    def get_inputs():
        return [torch.randn(2, dim), torch.randn(2, hidden)]


    def get_init_inputs():
        return [dim, hidden]
    ''')


def _span_of_lines(source: str, first: str, last: str) -> Span:
    lines = source.splitlines()
    a = next(i for i, ln in enumerate(lines) if first in ln)
    b = next(i for i, ln in enumerate(lines) if last in ln and i >= a)
    return Span(a + 1, 0, b + 1, len(lines[b]))


def _write(ex, root: Path) -> None:
    for change in ex.changes:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        change.path.write_text(change.new_text)


def test_statements_with_two_outputs_become_a_tuple_call(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(TWO_BRANCH)
    ex = extract_to_child(TWO_BRANCH, path, _span_of_lines(TWO_BRANCH, "h = self.act", "g = self.gate"),
                          child_name="gated up")
    assert ex.child_name == "gated_up" and ex.class_alias == "GatedUp"
    assert ex.inputs == ["x", "scale"] and ex.outputs == ["h", "g"]
    assert sorted(ex.moved_attributes) == ["act", "gate", "up"]
    assert ex.child_path == tmp_path / "gated_up.py"  # a component file: the child goes next to it
    parent = next(c for c in ex.changes if c.path == path).new_text
    ast.parse(parent)
    assert "h, g = self.gated_up(x, scale)" in parent
    assert "self.gated_up = GatedUp(dim, hidden)" in parent
    assert "from gated_up import Model as GatedUp" in parent
    assert "self.down = nn.Linear(hidden, dim)" in parent and "self.up =" not in parent
    child = ex.changes[0].new_text
    tree = ast.parse(child)
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} >= {"get_inputs", "get_init_inputs"}
    assert "def forward(self, x, scale):" in child and "return h, g" in child
    assert "# main branch" in child  # comments move with the code
    assert "torch.randn(2, dim)," in child and "torch.randn(2, hidden)," in child  # the parent's inputs
    assert "dim = 8" in child and "hidden = 16" in child
    assert "up = nn.Linear(dim, hidden): up.weight, up.bias" in child  # header lists the weights
    assert "gate.weight" in child and "gate.bias" not in child
    assert ex.weight_map_entries == {}  # no original.py, no map: nothing to re-point
    assert not ex.todo


def test_expression_extraction_and_unknown_shapes_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(TWO_BRANCH)
    line = TWO_BRANCH.splitlines().index("        y = self.down(h * g)")
    col = TWO_BRANCH.splitlines()[line].index("h * g")
    ex = extract_to_child(TWO_BRANCH, path, Span(line + 1, col, line + 1, col + 5))
    assert ex.inputs == ["h", "g"] and ex.outputs == []
    parent = next(c for c in ex.changes if c.path == path).new_text
    assert f"y = self.down(self.{ex.attribute}(h, g))" in parent
    child = ex.changes[0].new_text
    assert "return h * g" in child
    assert child.count("TODO(hdecomp): fill in the input shape") == 2 and len(ex.todo) == 2


def test_step_extraction_rewrites_weight_map_and_creates_children_file(tmp_path: Path) -> None:
    step = tmp_path / "step"
    shutil.copytree(FIXTURE_STEP, step, ignore=shutil.ignore_patterns("__pycache__", "verification_result.json"))
    path = step / "refactored.py"
    source = path.read_text()
    ex = extract_to_child(source, path, _span_of_lines(source, "x = self.conv(x)", "x = self.relu(x)"))
    assert ex.child_path == step / "children" / "conv_relu.py"
    wm = next(c for c in ex.changes if c.path.name == "weight_map.json")
    assert wm.old_text is not None
    mapping = json.loads(wm.new_text)
    assert mapping["conv.weight"] == "conv_relu.conv.conv.weight" and mapping["fc.bias"] == "fc.linear.bias"
    child = ex.changes[0].new_text
    assert "from conv2d import Model as Conv2d" in child  # children/ siblings, as seen from children/


def test_step_extraction_repoints_the_slices_of_a_packed_tensor(tmp_path: Path) -> None:
    """A packed tensor's value in weight_map.json is a list of slices: each slice's key follows the move,
    the slicing is kept."""
    step = tmp_path / "step"
    shutil.copytree(FIXTURE_STEP, step, ignore=shutil.ignore_patterns("__pycache__", "verification_result.json"))
    old = json.loads((step / "weight_map.json").read_text())
    packed = [{"key": "conv.conv.weight", "dim": 0, "start": 0, "stop": 4},
              {"key": "fc.linear.weight", "dim": 0, "start": 4, "stop": 8}]
    (step / "weight_map.json").write_text(json.dumps({**old, "packed": packed}))
    path = step / "refactored.py"
    source = path.read_text()
    ex = extract_to_child(source, path, _span_of_lines(source, "x = self.conv(x)", "x = self.relu(x)"))
    mapping = json.loads(next(c for c in ex.changes if c.path.name == "weight_map.json").new_text)
    assert mapping["packed"] == [{"key": "conv_relu.conv.conv.weight", "dim": 0, "start": 0, "stop": 4},
                                 {"key": "fc.linear.weight", "dim": 0, "start": 4, "stop": 8}]


def test_in_progress_step_gets_a_new_weight_map(tmp_path: Path) -> None:
    """refactored.py still a copy of the original: moved tensors are mapped under the new child."""
    step = tmp_path / "steps" / "step_1"
    step.mkdir(parents=True)
    original = (FIXTURE_STEP / "original.py").read_text()
    (step / "original.py").write_text(original)
    source = original.replace("class Model(", "class RefactoredModel(")
    (step / "refactored.py").write_text(source)
    ex = extract_to_child(source, step / "refactored.py", _span_of_lines(source, "x = self.conv(x)",
                                                                          "x = self.conv(x)"))
    wm = next(c for c in ex.changes if c.path.name == "weight_map.json")
    assert wm.old_text is None
    assert json.loads(wm.new_text) == {"conv.weight": "conv.conv.weight", "conv.bias": "conv.conv.bias"}
    _write(ex, step)
    for f in (step / "refactored.py", ex.child_path):
        ast.parse(f.read_text())


def test_shapes_come_from_the_decomposition_tree(tmp_path: Path) -> None:
    root = tmp_path / "out" / "model"
    step = root / "steps" / "step_1"
    step.mkdir(parents=True)
    (root / "decomposition_tree.json").write_text(json.dumps({"nodes": {}, "data_flow": [
        {"from": "a", "to": "b", "tensor_name": "h", "shape": [2, 16], "dtype": "float32"}]}))
    source = TWO_BRANCH.replace("class Model(", "class RefactoredModel(")
    line = source.splitlines().index("        y = self.down(h * g)")
    col = source.splitlines()[line].index("h * g")
    ex = extract_to_child(source, step / "refactored.py", Span(line + 1, col, line + 1, col + 5))
    child = ex.changes[0].new_text
    assert "torch.randn(2, 16)," in child and ex.todo == ["input shape of `g`"]


@pytest.mark.parametrize(("first", "last", "cut", "reason"), [
    ("y = self.down", "return y + x", 0, "return"),
    ("self.up = nn.Linear", "self.up = nn.Linear", 0, "forward"),
    ("h = self.act", "g = self.gate", 5, "cuts a statement"),
])
def test_refusals(first: str, last: str, cut: int, reason: str) -> None:
    span = _span_of_lines(TWO_BRANCH, first, last)
    span = Span(span.start_line, span.start_col, span.end_line, span.end_col - cut)
    with pytest.raises(ExtractionRefused, match=reason):
        check_selection(TWO_BRANCH, span)


def test_refuses_shared_weights_self_assignment_yield_and_syntax_errors(tmp_path: Path) -> None:
    shared = TWO_BRANCH.replace("y = self.down(h * g)", "y = self.down(h * g) + self.up(x).sum()")
    with pytest.raises(ExtractionRefused, match="also used outside the selection"):
        extract_to_child(shared, tmp_path / "m.py", _span_of_lines(shared, "h = self.act", "h = self.act"))
    mutating = TWO_BRANCH.replace("g = self.gate(x) * scale", "self.cache = self.gate(x) * scale")
    with pytest.raises(ExtractionRefused, match=r"self\.cache"):
        check_selection(mutating, _span_of_lines(mutating, "self.cache", "self.cache"))
    gen = TWO_BRANCH.replace("g = self.gate(x) * scale", "g = yield x")
    with pytest.raises(ExtractionRefused, match="yield"):
        check_selection(gen, _span_of_lines(gen, "g = yield", "g = yield"))
    with pytest.raises(ExtractionRefused, match="syntax error"):
        check_selection(TWO_BRANCH + "\ndef broken(:\n", Span(14, 0, 14, 10))


def test_kernel_span_widens_a_function_name_to_its_call() -> None:
    src = TWO_BRANCH.replace("g = self.gate(x) * scale", "g = torch.sigmoid(self.gate(x))")
    line = src.splitlines().index("        g = torch.sigmoid(self.gate(x))")
    col = src.splitlines()[line].index("torch.sigmoid")
    span = kernel_span(src, Span(line + 1, col, line + 1, col + len("torch.sigmoid")))
    assert span == Span(line + 1, col, line + 1, col + len("torch.sigmoid(self.gate(x))"))


@pytest.mark.parametrize(("ctor", "keys"), [
    ("nn.Linear(4, 8)", ["weight", "bias"]),
    ("nn.Linear(4, 8, bias=False)", ["weight"]),
    ("nn.Conv2d(3, 8, 3, bias=False)", ["weight"]),
    ("nn.BatchNorm2d(8)", ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]),
    ("nn.LayerNorm(8, elementwise_affine=False)", []),
    ("nn.Embedding(10, 4)", ["weight"]),
    ("nn.ReLU()", []),
    ("nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1, bias=False))", ["0.weight", "0.bias", "2.weight"]),
    ("nn.LSTM(4, 8, num_layers=1, bidirectional=True)",
     ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
      "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]),
    ("nn.Parameter(torch.ones(3))", [""]),
    ("SomethingCustom(3)", None),
    ("nn.Linear(4, 8, bias=use_bias)", None),
])
def test_static_state_keys(ctor: str, keys: list[str] | None) -> None:
    assert constructor_keys(ast.parse(ctor, mode="eval").body) == keys


def test_refactor_never_imports_torch() -> None:
    code = ("import sys, pathlib; from hdecomp.refactor import extract_to_child, Span; "
            f"p = pathlib.Path({str(FIXTURE_STEP / 'refactored.py')!r}); s = p.read_text(); "
            "extract_to_child(s, pathlib.Path('/nonexistent/refactored.py'), Span(21, 0, 22, 40)); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_cli_extract_writes_files_and_refuses_with_exit_2(tmp_path: Path) -> None:
    step = tmp_path / "step"
    shutil.copytree(FIXTURE_STEP, step, ignore=shutil.ignore_patterns("__pycache__", "verification_result.json"))
    lines = (step / "refactored.py").read_text().splitlines()
    first = next(i for i, ln in enumerate(lines) if "x = self.conv(x)" in ln) + 1
    ok = subprocess.run([sys.executable, "-m", "hdecomp", "extract", str(step / "refactored.py"),
                         f"{first}-{first + 1}", "--name", "conv_block", "--json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert report["child"] == str(step / "children" / "conv_block.py") and report["written"] is True
    assert "self.conv_block = ConvBlock(in_ch, out_ch)" in (step / "refactored.py").read_text()
    refused = subprocess.run([sys.executable, "-m", "hdecomp", "extract", str(step / "refactored.py"), "1-2"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.startswith("ERROR: ") and "cannot extract" in refused.stderr


BRANCHY = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.1)
            self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])

        def forward(self, x, c: bool):
            y = x
            if c and self.training:
                y = self.drop(x)
            zs = [self.blocks[i](y) for i in range(2)]
            return zs
    ''')


def test_conditional_outputs_become_arguments_and_comprehension_variables_are_refused(tmp_path: Path) -> None:
    ex = extract_to_child(BRANCHY, tmp_path / "m.py", _span_of_lines(BRANCHY, "if c and", "y = self.drop"))
    assert ex.outputs == ["y"] and set(ex.inputs) == {"c", "x", "y"}  # y keeps its old value when c is false
    assert ex.moved_attributes == ["drop"]  # self.training is the child's own
    line = BRANCHY.splitlines().index("        zs = [self.blocks[i](y) for i in range(2)]")
    col = BRANCHY.splitlines()[line].index("self.blocks[i](y)")
    with pytest.raises(ExtractionRefused, match="comprehension"):
        extract_to_child(BRANCHY, tmp_path / "m.py", Span(line + 1, col, line + 1, col + len("self.blocks[i](y)")))


SOURCES = [TWO_BRANCH, BRANCHY, (FIXTURE_STEP / "refactored.py").read_text(), (FIXTURE_STEP / "original.py").read_text()]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_selection_either_extracts_to_valid_python_or_is_refused(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SOURCES))
    lines = source.splitlines()
    sl = data.draw(st.integers(1, len(lines)))
    el = data.draw(st.integers(sl, min(len(lines), sl + 6)))
    sc = data.draw(st.integers(0, len(lines[sl - 1])))
    ec = data.draw(st.integers(0, len(lines[el - 1])))
    if el == sl and ec < sc:
        sc, ec = ec, sc
    try:
        ex = extract_to_child(source, Path("/nonexistent/model.py"), Span(sl, sc, el, ec))
    except ExtractionRefused as exc:
        assert str(exc)  # always a reason for the user
        return
    for change in ex.changes:
        if change.path.suffix == ".py":
            ast.parse(change.new_text)  # the edit never leaves broken Python behind


def test_extracted_component_computes_the_same_function(tmp_path: Path) -> None:
    """Numerically: the rewritten parent (calling the new child) equals the original, weights carried over."""
    import torch
    from hdecomp.runtime.component import load_component

    before = tmp_path / "before" / "model.py"
    before.parent.mkdir()
    before.write_text(TWO_BRANCH)
    after_dir = tmp_path / "after"
    after_dir.mkdir()
    path = after_dir / "model.py"
    path.write_text(TWO_BRANCH)
    ex = extract_to_child(TWO_BRANCH, path, _span_of_lines(TWO_BRANCH, "h = self.act", "g = self.gate"),
                          child_name="gated")
    _write(ex, after_dir)
    old = load_component(before).build()
    new = load_component(path).build()
    moved = tuple(f"{a}." for a in ex.moved_attributes)
    state = {(f"{ex.attribute}.{k}" if k.startswith(moved) else k): v for k, v in old.state_dict().items()}
    new.load_state_dict(state)  # strict: every key accounted for
    args, _ = load_component(before).make_inputs(seed=0)
    with torch.no_grad():
        assert torch.equal(old(*args), new(*args))


@pytest.mark.parametrize(("content", "select", "cause"), [
    (b"# \xff\xfe not utf-8\nimport torch\n", "1-2", "not UTF-8"),
    (b"", "1-2", "the file is empty"),
    (b"import torch\n", "5-9", "outside the file (lines 1-1)"),
    (b"import torch\n", "x", "bad selection"),
])
def test_cli_extract_bad_file_or_selection_is_one_error_line_naming_the_file(
        tmp_path: Path, content: bytes, select: str, cause: str) -> None:
    bad = tmp_path / "refactored.py"
    bad.write_bytes(content)
    res = subprocess.run([sys.executable, "-m", "hdecomp", "extract", str(bad), select],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    first = res.stderr.splitlines()[0]
    assert first.startswith(f"ERROR: {bad}") and cause in first, first
