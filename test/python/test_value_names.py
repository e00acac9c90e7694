"""Readable value names from the model's own source (decompose/value_names.py), for graphs captured by fx
and by recording the execution."""

from __future__ import annotations

import torch
import torch.fx as fx
from hdecomp.decompose.capture import LeafTracer, capture_record
from hdecomp.decompose.value_names import value_names
from torch import nn


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(8, 24)
        self.proj = nn.Linear(8, 8)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        _, _unused = q.chunk(2, dim=-1)
        attn_weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        attn_output = attn_weights @ v
        return self.proj(attn_output)


def _by_name(graph: fx.Graph) -> dict[str, str]:
    return {n.name: v for n, v in value_names(graph).items()}


def test_fx_graph_values_take_their_assigned_names() -> None:
    names = _by_name(LeafTracer().trace(Attention()))
    assert names["hidden_states"] == "hidden_states"
    items = sorted(v for n, v in names.items() if n.startswith("getitem"))
    # `q, k, v = ...chunk(3)`: one name per item; `_, _unused = ...`: thrown away, named after the op
    assert items == ["chunk_0", "chunk_1", "k", "q", "v"], items
    assert names["softmax"] == "attn_weights"       # the last op of its line takes the assigned name
    assert names["matmul"] != "attn_weights"        # an inner op of that line does not
    assert "attn_output" in names.values()
    assert names["proj"] == "proj"                  # a returned value: its module's attribute


def test_recorded_graph_values_take_their_assigned_names() -> None:
    model = Attention()
    x = torch.randn(2, 4, 8)
    with torch.no_grad():
        cap = capture_record(model, [x], {}, model(x), set())
    names = set(value_names(cap.graph).values())
    assert {"q", "k", "v", "attn_weights", "attn_output"} <= names, names
    # no torch or hdecomp frame names a value (fx's proxy machinery, the recorder itself)
    assert not names & {"user_stack_summary", "node", "out", "result"}, names


def test_torch_frames_are_skipped_through_a_symlinked_environment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A virtual environment reached through a symlink names torch's files by the link: they are still
    torch's frames, never the user's source line a value is named by."""
    from pathlib import Path

    import torch
    from hdecomp.decompose.value_names import _skipped_frame
    link = tmp_path / "env"
    link.symlink_to(Path(torch.__file__).resolve().parent.parent)
    assert _skipped_frame(str(link / "torch" / "nn" / "modules" / "module.py"))
    assert not _skipped_frame(str(tmp_path / "model.py"))
