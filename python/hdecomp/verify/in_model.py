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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from hdecomp.runtime.component import dataclass_fields, map_nested, plain_object_state

IN_MODEL_FILE = "in_model_inputs.pt"
MAX_BYTES = 64 << 20     # recorded inputs above this (a 4 GB attention score input) are not kept


@dataclass
class StoredObject:
    """A plain object of a generated file's own class (a model file's `LevelMapper`-like helper, which each
    generated file carries a copy of): its class by name and its attributes, built again from the class of
    that name where the step's original defines it (read_in_model_inputs)."""

    qualname: str
    state: dict[str, Any]


def _generated(value: Any) -> bool:
    module = getattr(type(value), "__module__", "") or ""
    return module.startswith(("children", "_hdecomp_")) or module == "__main__"


def _storable(value: Any) -> bool:
    """Tensors, plain values and the containers of them (and objects carrying tensors whose class is
    importable, and plain objects: StoredObject): what a file can hold without pickling a class of a
    generated child file."""
    if value is None or isinstance(value, (torch.Tensor, bool, int, float, str, torch.dtype, torch.device)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_storable(v) for v in value)
    state = plain_object_state(value)
    if state is not None:
        return all(_storable(v) for v in state.values())
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
    cpu = [([_stored(_to_cpu(v)) for v in a], {n: _stored(_to_cpu(v)) for n, v in k.items()}) for a, k in keep]
    buf = io.BytesIO()
    try:   # (into memory first: a value pickle refuses leaves no half-written file)
        torch.save({"format": 1, "calls": [{"args": a, "kwargs": k} for a, k in cpu]}, buf)
    except Exception as exc:   # any value pickle cannot hold: the step goes on without
        return f"the recorded inputs cannot be saved ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})"
    (step_dir / IN_MODEL_FILE).write_bytes(buf.getvalue())
    return None


def _stored(value: Any) -> Any:
    """`value` with each plain object of a generated file's class as a StoredObject."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_stored(v) for v in value)
    if type(value) is dict:
        return {k: _stored(v) for k, v in value.items()}
    state = plain_object_state(value)
    if state is not None and _generated(value):
        return StoredObject(type(value).__qualname__, {k: _stored(v) for k, v in state.items()})
    return value


def _rebuilt(value: Any, namespace: dict[str, Any]) -> Any:
    if isinstance(value, StoredObject):
        cls = namespace.get(value.qualname)
        if not isinstance(cls, type):
            raise LookupError(value.qualname)
        obj: Any = object.__new__(cls)
        obj.__dict__.update({k: _rebuilt(v, namespace) for k, v in value.state.items()})
        return obj
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_rebuilt(v, namespace) for v in value)
    if type(value) is dict:
        return {k: _rebuilt(v, namespace) for k, v in value.items()}
    return value


def _to_cpu(value: Any) -> Any:
    return map_nested(value, lambda t: t.detach().to("cpu").clone())


def read_in_model_inputs(original: Path, namespace: dict[str, Any] | None = None) -> list[tuple[list[Any], dict[str, Any]]]:
    """The recorded calls' inputs next to a step's `original.py` ([] where there are none); a stored plain
    object is built again from the class of its name in `namespace` (the original's module), a call holding
    one it lacks is left out."""
    path = Path(original).parent / IN_MODEL_FILE
    if not path.is_file():
        return []
    data = torch.load(path, weights_only=False)
    if not isinstance(data, dict) or data.get("format") != 1:
        return []
    calls = []
    for c in data.get("calls", []):
        try:
            calls.append((list(_rebuilt(list(c["args"]), namespace or {})),
                          dict(_rebuilt(dict(c["kwargs"]), namespace or {}))))
        except LookupError:
            continue
    return calls
