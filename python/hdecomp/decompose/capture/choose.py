"""The capture of one forward: fx, else export, else recording, each checked against the reference run."""

from __future__ import annotations

from typing import Any

from torch import nn

from hdecomp.decompose.capture.common import (
    Capture,
    CaptureError,
    expected_output,
    finish_capture,
)
from hdecomp.decompose.capture.export import capture_export
from hdecomp.decompose.capture.fx_trace import capture_fx
from hdecomp.decompose.capture.record import capture_record
from hdecomp.runtime.memoized import clear_memoized


def capture(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
            expand: set[str] | None = None) -> Capture:
    """Capture `module`'s forward over its direct children (submodules in `expand` are traced through);
    the result reproduces `expected`. Memoized methods are emptied before each try (clear_memoized)."""
    notes: list[str] = []
    want = expected_output(expected)
    clear_memoized(module)
    try:
        return finish_capture(capture_fx(module, args, kwargs, expected, expand or set()), want)
    except CaptureError as exc:
        notes.append(f"torch.fx: {exc}")
    clear_memoized(module)
    try:
        cap = capture_export(module, args, kwargs, expected, expand or set())
        cap.notes = notes + cap.notes
        return finish_capture(cap, want)
    except CaptureError as exc:
        notes.append(f"torch.export: {exc}")
    except Exception as exc:  # a fallback that breaks must not stop the next one
        notes.append(f"torch.export: {type(exc).__name__}: {exc}")
    try:
        cap = capture_record(module, args, kwargs, expected, expand or set())
    except CaptureError as exc:
        notes.append(f"execution recording: {exc}")
        raise CaptureError("; ".join(notes)) from exc
    cap.notes = notes + cap.notes
    return finish_capture(cap, want)
