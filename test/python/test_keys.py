"""formats.keys: the Python that reaches a dotted module path, as generated code writes it."""

from __future__ import annotations

import torch
from hdecomp.formats.keys import access_path
from torch import nn


def test_access_path_indexes_lists_and_odd_keys() -> None:
    assert access_path("blocks.0.cpe.proj.bias") == ".blocks[0].cpe.proj.bias"
    assert access_path("heads.x-y.weight") == ".heads['x-y'].weight"
    assert access_path("lambda.w") == "['lambda'].w"
    model = nn.Module()
    model.blocks = nn.ModuleList([nn.Linear(2, 2)])
    model.heads = nn.ModuleDict({"x-y": nn.Linear(2, 3)})
    for path in ("blocks.0.bias", "heads.x-y.weight"):
        assert eval(f"model{access_path(path)}", {"model": model}) is model.get_parameter(path)
    assert isinstance(model.get_parameter("blocks.0.weight"), torch.Tensor)
