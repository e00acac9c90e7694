"""Role names of fusions and layers (vocab/roles.py), from the op lists real trees hold."""

from __future__ import annotations

import pytest
from hdecomp.toolchain.quality import op_list_name
from hdecomp.vocab.roles import ROLES, category, role_of


@pytest.mark.parametrize("ops, role", [
    (["conv2d", "batch_norm2d", "relu"], "conv_norm_act"),
    (["conv2d", "batch_norm2d", "relu", "max_pool2d"], "conv_norm_act_pool"),
    (["conv2d", "batch_norm2d", "add", "relu"], "conv_norm_residual"),
    (["conv2d", "batch_norm2d"], "conv_norm"),
    (["conv2d", "hardswish"], "conv_act"),
    (["adaptive_avg_pool2d", "conv2d", "relu", "conv2d", "hardsigmoid", "mul"], "squeeze_excitation"),
    (["matmul", "mul", "softmax", "matmul"], "attention_core"),
    (["aten.bmm.default", "aten.div.Tensor", "aten._softmax.default", "aten.bmm.default"], "attention_core"),
    (["matmul", "div", "add", "softmax"], "attention_scores"),
    (["softmax", "dropout", "matmul"], "attention_context"),
    (["scaled_dot_product_attention"], "attention_core"),
    (["gru", "lstm"], "recurrent"),
    (["scatter", "gru"], "recurrent"),
    (["aten.lstm.input"], "recurrent"),
    (["mul", "add", "scaled_dot_product_attention", "linear"], "attention"),
    (["mul", "neg", "cat", "mul", "add"], "rope"),
    (["cos", "sin"], "rope_tables"),
    (["linear", "gelu"], "linear_act"),
    (["linear", "new_gelu_activation"], "linear_act"),
    (["linear", "linear", "silu", "mul", "linear"], "gated_mlp"),
    (["linear", "silu", "linear", "mul"], "gate_up_proj"),
    (["silu", "mul"], "gated_act"),
    (["linear", "gelu", "linear"], "mlp"),
    (["linear", "linear", "linear"], "qkv_proj"),
    (["llama_rms_norm", "linear"], "norm_proj"),
    (["linear", "dropout", "add", "layer_norm"], "linear_residual_norm"),
    (["linear", "add"], "linear_residual"),
    (["linear", "softmax", "topk"], "moe_router"),
    (["adaptive_avg_pool2d", "linear"], "classifier_head"),
    (["add", "layer_norm"], "residual_norm"),
    (["layer_norm", "gelu"], "norm_act"),
    (["embedding", "embedding", "add"], "embeddings"),
    (["arange", "ones", "triu"], "causal_mask"),
    (["arange", "div", "pow", "reciprocal"], "constants"),
    (["sub", "ne", "cumsum"], "reduction"),
    (["mul", "add"], "pointwise"),
    (["div", "masked_fill", "softmax", "dropout"], "attention_probs"),
    (["tanh", "mul", "add", "softmax"], "attention_probs"),
    # a box decoder's exp and clamp beside the class scores' softmax (torchvision's postprocess_detections)
    (["sub", "mul", "add", "div", "clamp", "exp", "mul", "softmax"], "pointwise"),
    (["conv2d", "batch_norm2d", "relu", "conv2d", "batch_norm2d", "add", "relu"], "residual_block"),
])
def test_role_of_real_op_lists(ops: list[str], role: str) -> None:
    assert role_of(ops) == role


def test_every_role_passes_the_lint() -> None:
    for role in ROLES:
        assert op_list_name(role, []) is None, role
        assert op_list_name(f"{role}_768x3072_v2", []) is None, role


def test_lint_still_flags_op_lists_behind_a_signature() -> None:
    assert op_list_name("linear_relu_768x3072", ["linear", "relu"]) is not None
    assert op_list_name("conv2d_batch_norm2d_v3", ["conv2d", "batch_norm2d"]) is not None


def test_a_component_named_after_its_module_class_names_its_role() -> None:
    # timm's LeViT `NormLinear` and EdgeNeXt's `SplitTransposeBlock`: class names made of op words
    assert op_list_name("norm_linear", ["NormLinear"]) is None
    assert op_list_name("split_transpose_block_2x168x2x2", ["SplitTransposeBlock"]) is None
    assert op_list_name("norm_linear", ["layer_norm", "linear"]) is not None


@pytest.mark.parametrize("op, cat", [
    ("conv_transpose2d", "conv"), ("batch_norm2d", "norm"), ("llama_rms_norm", "norm"), ("relu_", "act"),
    ("__truediv__", "mul"), ("aten.addmm.default", "linear"), ("hardsigmoid", "gate"), ("dropout", "neutral"),
    ("max_pool2d", "pool"), ("safe_softmax", "softmax"), ("F.embedding", "embedding"),
])
def test_category(op: str, cat: str) -> None:
    assert category(op) == cat
