"""Reach, round 2 (issue 31), NLLB-MoE's class: an encoder-decoder whose decoder makes its cache and hands it back
inside its output object, which the backbone packs into an output object of its own (fixtures/reach/
cache_packed_output.py), and experts held in a ModuleDict subclass that picks each by a name made from a tensor
(fixtures/reach/expert_dict.py). Each rule on a small model of our own, and the model decomposed whole."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from decompose_checks import assert_fully_verified
from hdecomp.decompose.capture import CaptureError
from hdecomp.decompose.capture.common import same_outputs
from hdecomp.decompose.capture.fx_trace import capture_fx
from hdecomp.decompose.capture.record import capture_record
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.source_forward import self_item_names
from hdecomp.decompose.stepfiles import call_signature
from hdecomp.verify.compare import compare_outputs, container_mismatch
from transformers.modeling_outputs import BaseModelOutput

FIX = Path(__file__).parent / "fixtures" / "reach"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("reach_outputs")
    return {name: decompose(FIX / f"{name}.py", out, DecomposeOptions(batch_limit=1, self_tests=False),
                            progress=False)
            for name in ("cache_packed_output", "expert_dict", "indexed_patches", "lazy_long_rope")}


def _fixture(name: str) -> Iterator[ModuleType]:
    sys.path.insert(0, str(FIX))
    try:
        yield __import__(name)
    finally:
        sys.path.remove(str(FIX))
        sys.modules.pop(name, None)


@pytest.fixture
def packed() -> Iterator[ModuleType]:
    yield from _fixture("cache_packed_output")


@pytest.fixture
def experts() -> Iterator[ModuleType]:
    yield from _fixture("expert_dict")


def _log(dec: Any) -> list[dict[str, Any]]:
    return json.loads((dec.root / "decomposition_log.json").read_text())["entries"]


@pytest.mark.parametrize("name", ["cache_packed_output", "expert_dict", "indexed_patches", "lazy_long_rope"])
def test_fully_decomposed_and_composed_with_no_step_written_twice(trees: dict[str, Any], name: str) -> None:
    """Each was partial before its rules (the backbone, then the decoder, kept whole; the experts' step every
    step PASS and the composition raising; the patch embeddings raising on their own file's inputs; the LongRoPE
    model's first step an ERROR); no step is rewritten after its verifier refused it."""
    assert_fully_verified(trees[name])
    assert [e for e in _log(trees[name]) if "does not verify" in e["title"]] == []


# ---- a cache that a child returns and the forward packs into its output (NLLB-MoE's model) -----------------

def test_a_cache_a_child_returns_is_read_from_its_output_and_its_packing_file_takes_none(
        trees: dict[str, Any]) -> None:
    """The backbone's recorded graph reads the cache out of the decoder's output (it was a constant of the one
    object the recording filled, which no file can write) and hands it to the child that packs the output
    object; that child's own file takes None there, and its output leaves the cache out."""
    dec = trees["cache_packed_output"]
    (step,) = [s for s in (dec.root / "steps").iterdir() if s.name.endswith("_seq2seq")]
    parent = (step / "refactored.py").read_text()
    assert "captured with record" in " ".join(e["description"] for e in _log(dec) if e["step"] == step.name)
    assert "['cache']" in parent, parent
    (packing,) = [f for f in (dec.root / "level_0_kernel").glob("seq2seq_model_output*.py")]
    text = packing.read_text()
    inputs = text.split("def get_inputs():")[1].split("def get_input_kwargs")[0]
    assert "cache=" in text and "        None,\n" in inputs, text


def test_a_forward_returning_an_object_it_makes_is_no_recorded_graph(packed: ModuleType) -> None:
    """The decoder makes its cache when none is handed in, its blocks fill it, and it hands it back: a recorded
    graph would return the one object the recording filled, so the recording refuses (its step is written at
    the source level, where the Python that makes the object stays)."""
    torch.manual_seed(0)
    decoder = packed.Decoder(100, 32, 2).eval()
    args = [torch.randint(0, 100, (2, 8)), torch.randn(2, 10, 32)]
    with torch.no_grad():
        expected = decoder(*args)
    with pytest.raises(CaptureError, match="Cache it makes itself"):
        capture_record(decoder, args, {}, expected, set())


def test_an_output_object_is_no_plain_dict_of_its_items_for_the_capture_nor_the_verifier(
        packed: ModuleType) -> None:
    """A ModelOutput against the plain dict of its items: the verifier calls it a structure mismatch, and so
    does the capture check (the encoder's fx graph returned the dict, its step failed verification and was
    written again); the fx capture builds the output class as the forward does."""
    h = torch.ones(2, 3)
    out, plain = BaseModelOutput(last_hidden_state=h), {"last_hidden_state": h}
    assert container_mismatch(out, plain) is not None and not compare_outputs(out, plain).match
    assert container_mismatch((h, [out]), (h, [plain])) == "out[1][0]: original BaseModelOutput, refactored dict"
    assert not same_outputs(out, plain) and same_outputs(out, BaseModelOutput(last_hidden_state=h.clone()))
    assert container_mismatch(plain, {"last_hidden_state": h}) is None
    # (an OrderedDict reads as a dict does, and so does the immutable dict a captured graph's replay returns)
    from collections import OrderedDict

    from torch.fx.immutable_collections import immutable_dict
    assert container_mismatch(OrderedDict(c1=h), immutable_dict(c1=h)) is None and same_outputs(OrderedDict(c1=h),
                                                                                                immutable_dict(c1=h))
    torch.manual_seed(0)
    encoder = packed.Encoder(100, 32, 2).eval()
    ids = torch.randint(0, 100, (2, 10))
    with torch.no_grad():
        expected = encoder(ids)
    cap = capture_fx(encoder, [ids], {}, expected, set())
    (ret,) = [n for n in cap.graph.nodes if n.op == "output"]
    assert getattr(ret.args[0], "target", None) is BaseModelOutput, ret.args


# ---- experts in a ModuleDict that names each by a tensor's value (NLLB-MoE's experts) -------------------------

def test_a_containers_items_reached_by_key_are_those_its_keys_can_name(experts: ModuleType) -> None:
    """`self[f"expert_{idx[0]}"]` names the items `expert_<anything>`: the dropout the container holds too, and
    calls as `self.token_dropout` in a branch that never runs, is no item the key reaches (the step was left to
    a recorded graph before, which held one input's experts)."""
    mod = experts.Experts(16, 32, 4)
    assert self_item_names(mod) == {"expert_0", "expert_1", "expert_2", "expert_3"}

    class Looped(torch.nn.ModuleDict):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for m in self.values():
                x = m(x)
            return x

    assert self_item_names(Looped({"a": torch.nn.ReLU(), "b": torch.nn.Tanh()})) is None


def test_the_experts_step_keeps_its_loop_and_the_reserved_expert_takes_a_twins_inputs(
        trees: dict[str, Any]) -> None:
    """The experts' step is written at the source level: the loop over the experts hit stays in the parent, the
    token-dropout branch that never runs raises; the expert no input reaches (held in reserve) is a child all the
    same, with its weights mapped, written from the inputs another expert received."""
    dec = trees["expert_dict"]
    (step,) = [s for s in (dec.root / "steps").iterdir() if s.name.endswith("_experts")]
    parent = (step / "refactored.py").read_text()
    assert "for expert_idx in expert_hit:" in parent and "raise NotImplementedError" in parent, parent
    weight_map = json.loads((step / "weight_map.json").read_text())
    mapped = json.dumps(weight_map)
    assert all(f"expert_{i}.fc1.weight" in mapped for i in range(4)), weight_map
    assert "token_dropout" not in mapped


def test_calls_that_route_otherwise_are_told_apart() -> None:
    """Two calls with the same shapes whose integer inputs differ (the experts a router picked) take other paths
    through a Python loop: each is kept as an in-model call; calls that differ in float values only are not."""
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    route_a, route_b = torch.tensor([0, 1, 1, 2]), torch.tensor([0, 3, 1, 2])
    assert call_signature([x, route_a], {}) == call_signature([y, route_a.clone()], {})
    assert call_signature([x, route_a], {}) != call_signature([x, route_b], {})
    assert call_signature([x.bool()], {}) != call_signature([(~x.bool())], {})


def test_a_graph_recorded_at_one_route_is_refused_where_the_model_routes_otherwise(experts: ModuleType) -> None:
    """A recording of the experts at one route (experts 0 and 1 hit) holds that route's loop: at an in-model call
    whose router picked others (0, 2 and 3), the module runs another graph, which the planner sees before it writes
    the step (the step's in-model trial would fail it), so the Python that routes stays in a source-level step or
    the module whole; at a call with the same route the graph replays."""
    from types import SimpleNamespace

    from hdecomp.decompose.step_writer import _in_model_values
    torch.manual_seed(0)
    mod = experts.Experts(16, 32, 4).eval()
    h, probs = torch.randn(6, 16), torch.rand(6)
    seen, other, same = (torch.tensor(r) for r in ([0, 1, 1, 0, 1, 0], [0, 2, 3, 2, 0, 3], [1, 0, 0, 1, 1, 1]))
    with torch.no_grad():
        expected = mod(h, seen, probs)
    cap = capture_record(mod, [h, seen, probs], {}, expected, set())
    dec = SimpleNamespace(note=lambda *a, **k: None)
    for route, refused in ((same, False), (other, True)):
        other_path: list[str] = []
        node = SimpleNamespace(in_model=[([torch.randn(6, 16), route, torch.rand(6)], {})])
        values = _in_model_values(dec, node, "step", mod, cap, set(), [], other_path)   # type: ignore[arg-type]
        assert (other_path == ["the in-model call 1"]) == refused and (values is None) == refused, other_path


# ---- ids carried in the columns of a float input (Pix2Struct's flattened patches) ----------------------------

def test_the_id_columns_of_a_float_input_are_written_as_recorded(trees: dict[str, Any]) -> None:
    """The patch embeddings' file draws the pixels and writes the row and column ids as recorded, repeated to the
    file's batch (a random draw of the whole tensor made ids no table holds: the step raised on its own inputs)."""
    from hdecomp.runtime.component import load_component
    dec = trees["indexed_patches"]
    (path,) = [p for p in dec.root.glob("level_*/patch_embeddings.py")]
    assert ".index_copy(2, torch.tensor([0, 1])," in path.read_text()
    (flattened,), _ = load_component(path).make_inputs(seed=3)
    ids = flattened[..., :2]
    assert flattened.shape == (2, 12, 26) and bool((ids == ids.round()).all()) and 0 <= float(ids.min()) \
        and float(ids.max()) <= 3, ids
    assert not bool((flattened[..., 2:] == flattened[..., 2:].round()).all())   # (the pixels drawn)


def test_only_a_float_input_that_mixes_whole_number_columns_keeps_them() -> None:
    from hdecomp.decompose.input_code import input_expr
    from hdecomp.decompose.source import SourceContext
    ctx = SourceContext(user_file=None)
    rois = torch.cat([torch.tensor([[0.0], [1.0], [1.0]]), torch.rand(3, 4) * 50], dim=1)   # [batch index, box]
    assert input_expr(rois, ctx).endswith(".index_copy(1, torch.tensor([0]), torch.tensor([[0.0], [1.0], [1.0]]))")
    assert input_expr(torch.randn(3, 5), ctx) == "torch.randn(3, 5)"
    alibi = torch.arange(6.0)[None, :] * torch.rand(4, 1)   # (position 0's column: zeros, no ids)
    assert input_expr(alibi, ctx) == "torch.rand(4, 6)"
    assert input_expr(torch.randint(0, 255, (3, 5)).float(), ctx) == "torch.rand(3, 5)"   # (whole numbers only)
    # rows of probabilities (a softmax's output, Nystromformer's landmark kernels) are drawn as such, along the
    # dimension they sum to one on
    assert input_expr(torch.randn(2, 4, 6).softmax(dim=-1), ctx) == "torch.randn(2, 4, 6).softmax(dim=-1)"
    assert input_expr(torch.randn(3, 5).softmax(dim=0), ctx) == "torch.randn(3, 5).softmax(dim=-2)"
    assert input_expr(torch.rand(3, 5), ctx) == "torch.rand(3, 5)"
    # a log-decay mask's causal column (`-inf, ..., 0`, Bamba's SSD segment sums) holds no ids: no literal of
    # infinities (`-inf` is no Python name: the file raised NameError), the tensor drawn as before
    decay = torch.cat([torch.full((4, 1), float("-inf")), torch.tensor([[0.0]] * 4), -torch.rand(4, 3)], dim=1)
    decay[0, 0] = 0.0
    assert "inf" not in input_expr(decay, ctx), input_expr(decay, ctx)


# ---- state a settling model's first forward makes (PhiMoE's LongRoPE `long_inv_freq`) -----------------------

def test_a_weight_map_naming_state_the_first_forward_makes_is_verified_on_the_settled_original(
        trees: dict[str, Any]) -> None:
    """The model's first forward writes its `inv_freq` buffer and sets `long_inv_freq` lazily: its step, written
    from the model as that forward left it, maps that attribute, which a freshly built original lacks (the
    step was an ERROR: a weight map its own verifier rejected). verify-step, isolated as the CLI runs it, now
    judges it on both models settled, and says so."""
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step
    dec = trees["lazy_long_rope"]
    (step,) = [s for s in (dec.root / "steps").iterdir() if s.name.endswith("_lazy_long_rope")]
    assert "rope.long_inv_freq" in (step / "weight_map.json").read_text()
    result = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(batch_limit=1))
    assert result.status == "PASS", (result.error, result.fail_reasons)
    assert any("holds only once its first forward ran" in w for w in result.warnings), result.warnings


def test_a_self_test_counts_an_output_objects_tensors_by_its_fields(tmp_path: Path) -> None:
    """transformers' SwinEncoder sets its output's `reshaped_hidden_states` after `hidden_states` inside its model
    and before them when called alone (OneFormer's backbone): a self-test that counted the tensors in the order
    the keys were set expected a (2, 1024, 32) output where its own run gave a (2, 32, 32, 32) one. Both the
    recorded shapes and the self-test's count go by the fields the output class declares."""
    import subprocess

    from hdecomp.decompose.codegen import self_test_block
    recorded = BaseModelOutput(last_hidden_state=torch.zeros(2, 4))
    recorded["attentions"] = (torch.zeros(2, 3, 3),)     # set before hidden_states, unlike the field order
    recorded["hidden_states"] = (torch.zeros(2, 4, 8),)
    assert list(recorded) == ["last_hidden_state", "attentions", "hidden_states"]
    body = '''import torch
import torch.nn as nn
from transformers.modeling_outputs import BaseModelOutput


class Model(nn.Module):
    def forward(self, x):
        return BaseModelOutput(last_hidden_state=x, hidden_states=(torch.zeros(2, 4, 8),),
                               attentions=(torch.zeros(2, 3, 3),))


batch_size = 2


def get_inputs():
    return [torch.zeros(2, 4)]


def get_init_inputs():
    return []
'''
    path = tmp_path / "component.py"
    path.write_text(body + "\n\n" + self_test_block(recorded, kwargs_fn=False, symbolic=False))
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
