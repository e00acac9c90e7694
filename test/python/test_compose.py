"""hdecomp compose: verification/composition_test.py rebuilt from the steps down to kernel files only,
weights mapped through the steps' maps, a standalone script with PASS/FAIL and exit codes."""

from __future__ import annotations

import ast
import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.formats.jsonio import read_json
from hdecomp.toolchain.compose import build_composition, compose, composed_weight_map
from hdecomp.toolchain.validate import schema_errors

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toolchain"


def _copy(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root, symlinks=True)
    return root


def _loaded_files(script: Path) -> list[str]:
    """Every path the generated script loads with load_component(...)."""
    tree = ast.parse(script.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "load_component" \
                and node.args and isinstance(node.args[0], ast.Constant):
            out.append(node.args[0].value)
    return out


def test_two_level_decomposition_composes_from_kernels(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    result = compose(root)
    assert result.status == "PASS" and result.exit_code == 0, result.reason
    assert result.max_diff is not None and result.max_diff <= 1e-5
    script = root / "verification" / "composition_test.py"
    assert result.script == script
    assert sorted(_loaded_files(script)) == ["level_0_kernel/linear_16x32_fp32.py",
                                             "level_0_kernel/linear_32x32_fp32.py",
                                             "level_0_kernel/linear_32x8_fp32.py",
                                             "level_0_kernel/relu_fp32.py"]
    source = script.read_text()
    tree = ast.parse(source)
    imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imports |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any("children" in (i or "") for i in imports)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes == ["LinearRelu16x32Composed", "LinearRelu32x32Composed", "TinyMlpComposed"]
    assert "self.block1 = LinearRelu16x32Composed()" in source and "self.relu = ReluFp32()" in source
    assert '"fc1.weight": "block1.linear.op.weight"' in source
    assert result.steps == ["step_2_linear_relu_16x32_to_kernels", "step_3_linear_relu_32x32_to_kernels",
                            "step_1_model_to_fusions"]
    # compose ran it as a standalone script: `python composition_test.py` printed PASS and exited 0
    assert result.output.startswith("PASS: composed model vs original"), result.output
    results = read_json(root / "verification" / "test_results.json")
    assert results["composition_test"] == "PASSED" and results["max_difference"] == result.max_diff
    assert schema_errors(results, "test_results") == []


def test_original_workspace_layout(tmp_path: Path) -> None:
    root = _copy("legacy_vgg", tmp_path)
    comp = build_composition(root)
    assert comp.top.dir.name == "step_1_model_to_layers"
    assert len(comp.order) == 5 and comp.order[-1] == comp.top.dir
    wm = composed_weight_map(comp)
    # no weight_map.json anywhere: names and structure, composed along the path
    assert wm["features.0.weight"] == "features_block_1.conv_relu_1.conv.conv2d.weight"
    assert wm["classifier.0.bias"] == "classifier.linear.fc.bias"
    result = compose(root)
    assert result.status == "PASS", result.reason
    loaded = _loaded_files(root / "verification" / "composition_test.py")
    assert all(p.startswith("level_0_kernel/") for p in loaded if p != "steps/step_1_model_to_layers/original.py")
    assert len(result.kernels) == 7


def test_wrong_kernel_fails_with_max_diff(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    relu = root / "level_0_kernel" / "relu_fp32.py"
    relu.write_text(relu.read_text().replace("return torch.relu(x)", "return torch.sigmoid(x)"))
    # the steps' own copies still pass; only the kernel file the composition uses is wrong
    result = compose(root)
    assert any("differs from" in n and "relu_fp32.py" in n for n in result.notes)
    assert result.status == "FAIL" and result.exit_code == 1
    assert result.max_diff is not None and result.max_diff > 1e-3
    assert "max diff" in (result.reason or "")
    assert read_json(root / "verification" / "test_results.json")["composition_test"] == "FAILED"


def test_missing_child_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy("tiny_mlp", tmp_path)
    (root / "steps" / "step_3_linear_relu_32x32_to_kernels" / "children" / "linear_32x32_fp32.py").unlink()
    code = main(["compose", str(root)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("ERROR: ") and "step_3_linear_relu_32x32_to_kernels" in err.splitlines()[0]
    assert not (root / "verification" / "composition_test.py").exists()
    assert main(["compose", str(root), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "ERROR"  # stdout is the JSON document alone


def test_json_output_is_one_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy("tiny_mlp", tmp_path)
    capsys.readouterr()
    assert main(["compose", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "PASS"


def test_broken_refactored_and_no_steps(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    (root / "steps" / "step_2_linear_relu_16x32_to_kernels" / "refactored.py").write_text("class (:\n")
    result = compose(root)
    assert result.status == "ERROR" and "syntax error" in (result.reason or "")
    assert "step_2_linear_relu_16x32_to_kernels/refactored.py" in (result.reason or "")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert compose(empty).status == "ERROR"


def test_no_run_writes_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy("tiny_mlp", tmp_path)
    assert main(["compose", str(root), "--no-run"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (root / "verification" / "composition_test.py").exists()
    assert not (root / "verification" / "test_results.json").exists()


def test_undecomposed_leaf_is_used_and_noted(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    shutil.rmtree(root / "steps" / "step_3_linear_relu_32x32_to_kernels")
    result = compose(root, run=False)
    assert result.status == "WRITTEN"
    assert "steps/step_1_model_to_fusions/children/linear_relu_32x32_fp32.py" in \
        _loaded_files(root / "verification" / "composition_test.py")
    assert any("linear_relu_32x32_fp32.py" in n and "not a kernel" in n for n in result.notes)


def _script_batch_rule() -> dict:
    """The --batch-limit functions of the generated composition script (it runs without hdecomp), run from
    the text the generator puts in every script."""
    from hdecomp.toolchain.compose import fixed_part
    ns: dict = {"__name__": "composition_script_under_test"}
    exec(compile(fixed_part(), "composition_test.py", "exec"), ns)
    return ns


@pytest.mark.parametrize("case", ["batch_size", "square", "large_k", "batched", "scalar_first", "kwargs",
                                  "nested", "small", "4d_and_matrix", "small_first"])
def test_script_batch_rule_matches_hdecomp_batching(case: str) -> None:
    """The composition script cuts exactly the inputs hdecomp.runtime.batch_limit cuts (batch_size lowered instead,
    square matrices not cut, only inputs sharing the first input's leading size)."""
    import types

    import torch
    from hdecomp.runtime.batch_limit import batch_cut_policy, cut_batch
    rule = _script_batch_rule()
    plain = types.SimpleNamespace()
    args: list = []
    kwargs: dict = {}
    module = plain
    if case == "batch_size":
        module, args = types.SimpleNamespace(batch_size=16), [torch.zeros(16, 3)]
    elif case == "square":                    # 1_Square_matrix_multiplication_: no batch dimension
        args = [torch.zeros(8, 8), torch.zeros(8, 8)]
    elif case == "large_k":                   # 6_Matmul_with_large_K_dimension_: (M, K) @ (K, N)
        args = [torch.zeros(4, 32), torch.zeros(32, 4)]
    elif case == "batched":
        args = [torch.zeros(6, 3), torch.zeros(6, 5), torch.zeros(3, 6)]
    elif case == "scalar_first":
        args = [torch.tensor(2.0), torch.zeros(5, 2), torch.zeros(5)]
    elif case == "kwargs":
        args, kwargs = [torch.zeros(7, 2)], {"mask": torch.zeros(7, 7), "bias": torch.zeros(2)}
    elif case == "nested":
        args = [[torch.zeros(5, 2), (torch.zeros(5), torch.zeros(2, 5))], {"h": torch.zeros(5, 1)}]
    elif case == "small":
        args = [torch.zeros(1, 3), torch.zeros(1, 3)]
    elif case == "4d_and_matrix":             # 11_4D_tensor_matrix_multiplication: (b, i, j, l) x (l, k)
        args = [torch.zeros(8, 2, 3, 4), torch.zeros(4, 8)]
    elif case == "small_first":               # a batch-1 input and a weight handed in: nothing is cut
        args = [torch.zeros(1, 3, 5), torch.zeros(6, 3, 2)]
    assert rule["batch_cut_policy"](module, args, kwargs) == batch_cut_policy(module, args, kwargs)
    if batch_cut_policy(module, args, kwargs) != "cut":
        return
    want_args, want_kwargs, _ = cut_batch(args, kwargs, 2)
    got_args, got_kwargs = rule["cut_batch"](args, kwargs, 2)

    def shapes(obj: object) -> object:
        if isinstance(obj, torch.Tensor):
            return tuple(obj.shape)
        if isinstance(obj, (list, tuple)):
            return [shapes(o) for o in obj]
        if isinstance(obj, dict):
            return {k: shapes(v) for k, v in obj.items()}
        return obj

    assert shapes(got_args) == shapes(want_args) and shapes(got_kwargs) == shapes(want_kwargs)
    if case == "large_k":  # only A's M is cut: B's K is not the batch, the matmul still fits
        assert shapes(got_args) == [(2, 32), (32, 4)]


def _tensor_shapes(obj: object) -> object:
    import torch
    if isinstance(obj, torch.Tensor):
        return tuple(obj.shape)
    if isinstance(obj, (list, tuple)):
        return [_tensor_shapes(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _tensor_shapes(v) for k, v in obj.items()}
    return obj


@pytest.mark.parametrize("case", ["transposed_both", "standard", "stacked", "kwargs", "nested", "small",
                                  "scalar_first", "grouped"])
def test_script_choose_cut_matches_hdecomp_batching(case: str) -> None:
    """The script's choose_cut takes the same candidate as hdecomp.runtime.batch_limit.choose_cut under the same model
    check: the first input's leading size when its cut runs, the next one when not, whole inputs when no
    cut runs (18_Matmul_with_transposed_both: B's N, not A's K)."""
    import torch
    from hdecomp.runtime.batch_limit import batch_candidates, choose_cut
    rule = _script_batch_rule()
    args: list = []
    kwargs: dict = {}
    if case == "transposed_both":            # A (K, M), B (N, K): A.T @ B.T
        args, fn = [torch.zeros(12, 4), torch.zeros(6, 12)], lambda a, b: a.T @ b.T
    elif case == "standard":                 # (M, K) @ (K, N): the first input's M
        args, fn = [torch.zeros(6, 12), torch.zeros(12, 4)], lambda a, b: a @ b
    elif case == "stacked":                  # no cut runs: whole inputs
        args, fn = [torch.zeros(3, 5), torch.zeros(5, 3)], lambda a, b: torch.stack([a, b.T])
    elif case == "kwargs":                   # mask (T, T) with x (T, D): cutting T breaks mask @ x
        args, kwargs = [torch.zeros(7, 2)], {"mask": torch.zeros(7, 7)}
        fn = lambda x, mask: mask @ x        # noqa: E731
    elif case == "nested":
        args = [[torch.zeros(5, 2), torch.zeros(2, 5)]]
        fn = lambda pair: pair[0] @ pair[1]  # noqa: E731
    elif case == "small":                    # nothing above the limit: nothing to try
        args, fn = [torch.zeros(1, 3), torch.zeros(3, 1)], lambda a, b: a @ b
    elif case == "grouped":                  # OWLv2: batch x queries rows of ids beside batch images
        args = [torch.zeros(6, 5, dtype=torch.long), torch.ones(6, 5, dtype=torch.long), torch.zeros(2, 3, 8)]
        fn = lambda ids, mask, px: ids.view(px.shape[0], -1, 5)   # noqa: E731
    else:                                    # a 0-dim first input: the first leading size is the matrix's
        args, fn = [torch.tensor(2.0), torch.zeros(5, 2)], lambda s, a: s * a

    def runs(a: list, k: dict) -> bool:
        try:
            fn(*a, **k)
        except RuntimeError:
            return False
        return True

    assert rule["batch_candidates"](args, kwargs, 1) == batch_candidates(args, kwargs, 1)
    want = choose_cut(args, kwargs, 1, runs)
    got_args, got_kwargs, got_batch = rule["choose_cut"](args, kwargs, 1, runs)
    assert got_batch == want.batch
    assert _tensor_shapes(got_args) == _tensor_shapes(want.args)
    assert _tensor_shapes(got_kwargs) == _tensor_shapes(want.kwargs)
    expected = {"transposed_both": [(12, 4), (1, 12)], "standard": [(1, 12), (12, 4)],
                "stacked": [(3, 5), (5, 3)], "kwargs": [(7, 2)], "grouped": [(3, 5), (3, 5), (1, 3, 8)]}
    if case in expected:
        assert _tensor_shapes(got_args) == expected[case]
    if case == "kwargs":
        assert _tensor_shapes(got_kwargs) == {"mask": (7, 7)}


def test_packed_slices_follow_each_part_into_its_own_step() -> None:
    """A packed tensor's slices go to different children; each part is followed into its child's step, and
    a part that the lower step slices again (same dimension) gets the offsets added."""
    from hdecomp.formats.weight_map import WeightSlice
    from hdecomp.toolchain.compose.weights import _through

    lower = {"q.w": "q.proj.weight", "kv.w": [WeightSlice("k.proj.weight", 0, 0, 4),
                                             WeightSlice("v.proj.weight", 0, 4, 8)]}

    def resolve(key: str) -> object:
        owner = key.partition(".")[0]
        got = lower.get(key)
        if isinstance(got, list):
            return [WeightSlice(f"{owner}.{p.key}", p.dim, p.start, p.stop) for p in got]
        return None if got is None else f"{owner}.{got}"

    value = [WeightSlice("q.w", 0, 0, 4), WeightSlice("kv.w", 0, 4, 12)]
    assert _through(value, resolve, Path("wm.json")) == [
        WeightSlice("q.q.proj.weight", 0, 0, 4), WeightSlice("kv.k.proj.weight", 0, 4, 8),
        WeightSlice("kv.v.proj.weight", 0, 8, 12)]
    assert _through("q.w", resolve, Path("wm.json")) == "q.q.proj.weight"
    assert _through("gone.w", resolve, Path("wm.json")) is None
    lower["kv.w"] = [WeightSlice("k.proj.weight", 1, 0, 2)]
    with pytest.raises(Exception, match="another dimension"):
        _through(value, resolve, Path("wm.json"))


def test_entries_of_a_stacked_tensor_follow_each_instance_into_its_step() -> None:
    """A stacked tensor's entries (an expert's weight each, `WeightSlice.entry`) go to the instances of one
    child; each is followed into its instance's own step, and an entry a lower step takes of a slice (a packed
    tensor's part whose child picks one row of it) is the entry at the slice's offset. An entry a lower step
    cuts again has no single part of the original: refused."""
    from hdecomp.formats.weight_map import WeightSlice
    from hdecomp.toolchain.compose.weights import _through

    lower: dict[str, object] = {"e.0.w": "proj.weight", "e.1.w": "proj.weight",
                                "part.w": [WeightSlice.entry("row.weight", 0, 1)]}

    def resolve(key: str) -> object:
        owner, _, rest = key.rpartition(".w")[0].partition(".")
        got = lower.get(key)
        prefix = f"{owner}.{rest}." if rest else f"{owner}."
        if isinstance(got, list):
            return [dataclasses.replace(p, key=prefix + p.key) for p in got]
        return None if got is None else prefix + str(got)

    stacked = [WeightSlice.entry("e.0.w", 0, 0), WeightSlice.entry("e.1.w", 0, 1)]
    assert _through(stacked, resolve, Path("wm.json")) == [WeightSlice.entry("e.0.proj.weight", 0, 0),
                                                           WeightSlice.entry("e.1.proj.weight", 0, 1)]
    assert _through([WeightSlice("part.w", 0, 4, 8)], resolve, Path("wm.json")) == [
        WeightSlice.entry("part.row.weight", 0, 5)]
    lower["e.1.w"] = [WeightSlice("half.weight", 0, 0, 2)]
    with pytest.raises(Exception, match="another dimension"):
        _through(stacked, resolve, Path("wm.json"))
