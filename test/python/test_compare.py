"""Leaf-by-leaf output comparison: nesting, NaN/Inf, dtype tolerances, degenerate outputs."""

from __future__ import annotations

import math
from collections import namedtuple

import pytest
import torch
from hdecomp.verify.compare import compare_outputs, degenerate_kind, first_float_dtype, tolerances_for


def test_tolerances_by_dtype() -> None:
    assert tolerances_for(torch.float32) == (1e-5, 1e-6)
    assert tolerances_for(torch.float16) == (1e-3, 1e-3)
    assert tolerances_for(torch.bfloat16) == (1e-3, 1e-3)
    r64, a64 = tolerances_for(torch.float64)
    assert r64 < 1e-5 and a64 < 1e-6
    assert tolerances_for(torch.int64) == (0.0, 0.0)
    assert tolerances_for(torch.bool) == (0.0, 0.0)
    assert tolerances_for(torch.float32, rtol=1e-2) == (1e-2, 1e-6)


def test_within_and_outside_tolerance() -> None:
    a = torch.randn(8, 8)
    assert compare_outputs(a, a + 1e-7).match
    c = compare_outputs(a, a + 1e-3)
    assert not c.match
    leaf = c.leaves[0]
    assert leaf.mismatched == 64 and math.isclose(leaf.max_diff, 1e-3, rel_tol=1e-3)
    assert "outside rtol=1e-05 atol=1e-06" in leaf.reason


def test_given_tolerance_is_used() -> None:
    a = torch.randn(4)
    assert compare_outputs(a, a + 1e-3, rtol=0, atol=1e-2).match


def test_half_precision_uses_looser_default() -> None:
    a = torch.randn(16).half()
    b = (a.float() * (1 + 5e-4)).half()
    assert compare_outputs(a, b).match


def test_ints_and_bools_exact() -> None:
    a = torch.arange(6)
    assert compare_outputs(a, a.clone()).match
    c = compare_outputs(a, a + torch.tensor([0, 0, 0, 0, 0, 1]))
    assert not c.match and c.leaves[0].mismatched == 1
    assert not compare_outputs(a > 2, a > 3).match


def test_nan_same_places_match_one_side_mismatch() -> None:
    a = torch.randn(5)
    a[1] = float("nan")
    assert compare_outputs(a, a.clone()).match
    b = a.clone()
    b[1] = 0.0
    c = compare_outputs(a, b)
    assert not c.match and "NaN in only one output at 1 places" in c.leaves[0].reason
    assert c.max_diff == math.inf


def test_inf_must_match_sign() -> None:
    a = torch.tensor([1.0, float("inf"), -float("inf")])
    assert compare_outputs(a, a.clone()).match
    b = torch.tensor([1.0, -float("inf"), -float("inf")])
    c = compare_outputs(a, b)
    assert not c.match and "Inf differs" in c.leaves[0].reason


def test_all_nan_is_failed_and_flagged() -> None:
    a = torch.full((3,), float("nan"))
    c = compare_outputs(a, a.clone())
    assert not c.match
    assert c.leaves[0].degenerate == "all_nan"
    assert c.degenerate


def test_degenerate_zero_and_constant_flagged_but_matching() -> None:
    z = torch.zeros(4, 4)
    c = compare_outputs(z, z.clone())
    assert c.match and c.degenerate and c.leaves[0].degenerate == "all_zero"
    k = torch.full((4,), 2.5)
    assert degenerate_kind(k) == "constant"
    assert degenerate_kind(torch.randn(4)) is None
    assert degenerate_kind(torch.zeros(1)) is None  # a single value is not "constant"
    # only degenerate when every tensor leaf is
    assert not compare_outputs((z, torch.randn(3)), (z, torch.randn(3))).degenerate


def test_nested_paths_and_structure_mismatch() -> None:
    a = torch.randn(2)
    orig = (a, {"logits": a, "aux": [a, a]})
    c = compare_outputs(orig, (a, {"logits": a, "aux": [a, a + 1]}))
    bad = c.first_failure()
    assert bad is not None and bad.path == "out[1]['aux'][1]"
    c = compare_outputs(orig, (a, {"logits": a}))
    assert "keys only in original [\"'aux'\"]" in c.first_failure().reason
    c = compare_outputs(orig, [a])
    assert "original has 2 items, refactored 1" in c.first_failure().reason
    c = compare_outputs((a, a), (a, 3))
    assert "original Tensor[2], refactored int" in c.first_failure().reason


def test_a_user_dict_is_compared_entry_by_entry() -> None:
    """A UserDict output (Gemma 3n's KVSharingDict) is walked as a dict of its class: it raised on `==` before."""
    from collections import UserDict
    a = torch.randn(2)
    assert compare_outputs(UserDict({"kv": (a, a)}), UserDict({"kv": (a.clone(), a)})).match
    bad = compare_outputs(UserDict({"kv": (a, a)}), UserDict({"kv": (a, a + 1)})).first_failure()
    assert bad is not None and bad.path == "out['kv'][1]"
    assert "keys only in original" in compare_outputs(UserDict({"kv": a}), UserDict({"k": a})).first_failure().reason
    assert "original UserDict, refactored dict" in compare_outputs(UserDict({"kv": a}), {"kv": a}).first_failure().reason


def test_shape_and_dtype_mismatch() -> None:
    a = torch.randn(2, 3)
    c = compare_outputs(a, a[:1])
    assert "shape mismatch at out: original [2, 3], refactored [1, 3]" == c.leaves[0].reason
    d = c.details()[0]
    assert d["shape_match"] is False and d["refactored_shape"] == [1, 3]
    c = compare_outputs(a, a.double())
    assert "dtype mismatch" in c.leaves[0].reason


def test_namedtuple_and_python_values() -> None:
    P = namedtuple("P", "x y")
    a = torch.randn(3)
    assert compare_outputs(P(a, 1), P(a.clone(), 1)).match
    assert not compare_outputs(P(a, 1), P(a, 2)).match
    assert compare_outputs(0.5, 0.5 + 1e-12).match
    assert compare_outputs(None, None).match


def test_details_keep_original_keys() -> None:
    d = compare_outputs(torch.ones(2) * 3, torch.ones(2) * 3).details()[0]
    for key in ("output_idx", "shape_match", "shape", "dtype", "max_diff", "mean_diff", "matches"):
        assert key in d


def test_first_float_dtype() -> None:
    assert first_float_dtype([torch.arange(3), {"k": torch.randn(2).half()}]) == torch.float16
    assert first_float_dtype([torch.arange(3)]) is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_the_float32_check_gives_the_float64_loops_verdict_and_max_diff(dtype: torch.dtype) -> None:
    from hdecomp.verify.compare import LeafComparison, _compare_finite, _compare_general, tolerances_for
    gen = torch.Generator().manual_seed(0)
    rtol, atol = tolerances_for(dtype)
    for case in range(40):
        a = (torch.randn(3000, generator=gen) * 10 ** (case % 7 - 3)).to(dtype)
        # differences spread around the tolerance, so some elements sit right at its edge
        noise = torch.randn(3000, generator=gen) * (atol + rtol * a.float().abs()) * (0.2 + case / 20)
        b = (a.float() + noise).to(dtype)
        b[case % 3000] = a[case % 3000]   # some exact elements too
        fast, slow = (LeafComparison(path="out", match=False, numel=a.numel(), rtol=rtol, atol=atol)
                      for _ in range(2))
        _compare_finite(fast, a, b, "out")
        _compare_general(slow, a, b, "out")
        assert (fast.match, fast.mismatched, fast.max_diff, fast.reason) == \
            (slow.match, slow.mismatched, slow.max_diff, slow.reason), case
        assert fast.mean_diff == pytest.approx(slow.mean_diff, rel=1e-6, abs=1e-30)


def test_outputs_with_nan_or_inf_take_the_general_comparison() -> None:
    a = torch.tensor([1.0, float("nan"), float("inf"), 2.0])
    b = torch.tensor([1.0, float("nan"), float("inf"), 2.0 + 1e-3])
    leaf = compare_outputs(a, b).leaves[0]
    assert not leaf.match and leaf.mismatched == 1 and leaf.nan_count == 1 and leaf.inf_count == 1
    assert compare_outputs(a, a.clone()).leaves[0].inf_count == 1   # bit-identical: Inf still counted


@pytest.mark.parametrize("values,kind", [([0.0, -0.0, 0.0], "all_zero"), ([2.5, 2.5], "constant"),
                                         ([float("inf")] * 3, "constant"), ([float("nan")] * 2, "all_nan"),
                                         ([float("nan"), 1.0, 1.0], "constant"), ([1.0, 2.0], None),
                                         ([7.0], None), ([3, 3, 3], "constant"), ([True, True], "constant"),
                                         ([False, False], "all_zero")])
def test_degenerate_kinds_from_one_min_max_pass(values: list, kind: str | None) -> None:

    assert degenerate_kind(torch.tensor(values)) == kind


def _output_class(name: str) -> type:
    """A user's `@dataclass` output class, defined afresh (as the original and a child file each define it)."""
    import dataclasses
    return dataclasses.make_dataclass(name, [("logits", torch.Tensor), ("extra", object)])


def test_dataclass_outputs_are_compared_field_by_field() -> None:
    a, b = _output_class("Output"), _output_class("Output")   # one definition carried into two files
    x, y = torch.randn(3), torch.randn(2, 2)
    same = compare_outputs(a(x, (y, 1)), b(x.clone(), (y.clone(), 1)))
    assert same.match and [leaf.path for leaf in same.leaves] == ["out.logits", "out.extra[0]", "out.extra[1]"]
    off = compare_outputs(a(x, (y, 1)), b(x, (y + 1.0, 1)))
    assert not off.match and [leaf.path for leaf in off.leaves if not leaf.match] == ["out.extra[0]"]
    other = compare_outputs(a(x, (y, 1)), _output_class("Other")(x, (y, 1)))
    assert not other.match and "structure mismatch at out: original Output, refactored Other" in other.leaves[0].reason
    assert not compare_outputs(a(x, (y, 1)), {"logits": x, "extra": (y, 1)}).match
