"""The inputs a component receives in the model, as a trial of its own step (issue 31: no tree whose steps
all pass and whose composition fails).

A step's seeded trials draw the component's inputs at random; in the model its children get real
activations, a loop body its carried state. Where a step would hold for random inputs only (a mask that is
all False at random and not in the model, a state that is zero at the first iteration only), the steps all
pass and the composition does not. The decomposer records what each new child received where its parent
calls it (its first call, and its last: a loop body's first and last iteration), at the batch the step ran
at, and writes it next to the child's step as `in_model_inputs.pt`. verify-step then runs both sides on
those inputs too ("in_model" trials) and fails on a mismatch, as on a seeded one."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import torch

from hdecomp.runtime.component import dataclass_fields

IN_MODEL_FILE = "in_model_inputs.pt"
MAX_BYTES = 64 << 20     # recorded inputs above this (a 4 GB attention score input) are not kept


def _storable(value: Any) -> bool:
    """Tensors, plain values and the containers of them (and objects carrying tensors whose class is
    importable): what a file can hold without pickling a class of a generated child file."""
    if value is None or isinstance(value, (torch.Tensor, bool, int, float, str, torch.dtype, torch.device)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_storable(v) for v in value)
    module = getattr(type(value), "__module__", "") or ""
    if isinstance(value, dict):   # (a dict subclass of a generated file's own: a ModelOutput it defines, no)
        return not module.startswith(("children", "_hdecomp_")) and \
            all(isinstance(k, (str, int)) and _storable(v) for k, v in value.items())
    fields = dataclass_fields(value)
    return fields is not None and not module.startswith(("children", "_hdecomp_")) and \
        all(_storable(v) for v in fields.values())


def _bytes(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_bytes(v) for v in value.values())
    fields = dataclass_fields(value)
    return sum(_bytes(v) for v in fields.values()) if fields is not None else 0


def write_in_model_inputs(step_dir: Path, calls: list[tuple[list[Any], dict[str, Any]]]) -> str | None:
    """Write the recorded calls' inputs into the step folder; None, or why they were not written."""
    keep = [(a, k) for a, k in calls if _storable(a) and _storable(k)]
    if not keep:
        return "no recorded inputs a file can hold (objects of the generated files' own classes)" if calls else None
    size = sum(_bytes(a) + _bytes(k) for a, k in keep)
    if size > MAX_BYTES:
        return f"the recorded inputs take {size / 2**20:.0f} MB, above {MAX_BYTES >> 20} MB: not kept"
    cpu = [([_to_cpu(v) for v in a], {n: _to_cpu(v) for n, v in k.items()}) for a, k in keep]
    buf = io.BytesIO()
    try:   # (into memory first: a value pickle refuses leaves no half-written file)
        torch.save({"format": 1, "calls": [{"args": a, "kwargs": k} for a, k in cpu]}, buf)
    except Exception as exc:   # any value pickle cannot hold: the step goes on without
        return f"the recorded inputs cannot be saved ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})"
    (step_dir / IN_MODEL_FILE).write_bytes(buf.getvalue())
    return None


def _to_cpu(value: Any) -> Any:
    from hdecomp.runtime.component import map_nested
    return map_nested(value, lambda t: t.detach().to("cpu").clone())


def read_in_model_inputs(original: Path) -> list[tuple[list[Any], dict[str, Any]]]:
    """The recorded calls' inputs next to a step's `original.py` ([] where there are none)."""
    path = Path(original).parent / IN_MODEL_FILE
    if not path.is_file():
        return []
    data = torch.load(path, weights_only=False)
    if not isinstance(data, dict) or data.get("format") != 1:
        return []
    return [(list(c["args"]), dict(c["kwargs"])) for c in data.get("calls", [])]
