"""Capturing one component's forward as a graph of direct child calls and ops.

`capture(module, args, kwargs)` returns a `Capture`: a torch.fx Graph whose call_module nodes are the
component's direct children (every submodule is a leaf), plus the real value of every node from one run.
It tries a torch.fx trace first (on a copy, so a failing trace never leaves Proxies on the real module);
where that fails, or where the traced graph does not reproduce the module's output, a non-strict
torch.export with every leaf child's call signature preserved (Proxies used as ints or slice bounds: causal
masks built from sizes, hidden sizes from shapes), unflattened and rewritten with public torch spellings;
where that fails too, it records the real execution (module hooks for child calls + a TorchFunctionMode for
the ops in between) and builds the same kind of graph from it. Every captured graph is checked numerically
against the module before use (`reference_run`: one seeded, recorded forward that also gives the op counts);
an exported graph must also run the module's op inventory (torch.export drops dead code). Captures run on a
deep copy whose function attributes are rebound to the copy's submodules (a lambda closing over an
nn.ModuleDict, as minGPT's `mlpf`). Batch-sized ints that export and recording bake into the graph are
written batch-relative afterwards (batch_relative.py).

`record_init_args()` records the constructor arguments of every module built inside it, so that generated
files can rebuild modules the way a person would write them (`nn.Conv2d(3, 64, kernel_size=3, padding=1)`).
"""

from __future__ import annotations

from hdecomp.decompose.capture.choose import capture
from hdecomp.decompose.capture.common import (
    CAPTURE_SEED,
    Capture,
    CaptureError,
    Reference,
    expected_output,
    finish_capture,
    fold_state_metadata,
    node_values,
    output_matches,
    plain_attributes,
    reference_run,
    restore_plain_attributes,
    same_outputs,
    thread_inplace,
    work_copy,
)
from hdecomp.decompose.capture.export import ATEN_RENAMES, capture_export
from hdecomp.decompose.capture.fx_trace import LeafTracer, capture_fx
from hdecomp.decompose.capture.init_args import (
    InitCall,
    init_call,
    record_init_args,
    uninitialised_parameters,
)
from hdecomp.decompose.capture.record import capture_record

# the capture methods by name, in the order `capture` tries them
CAPTURE_METHODS = {"fx": capture_fx, "export": capture_export, "record": capture_record}

__all__ = [
    "ATEN_RENAMES", "CAPTURE_METHODS", "CAPTURE_SEED", "Capture", "CaptureError", "InitCall", "LeafTracer",
    "Reference", "capture", "capture_export", "capture_fx", "capture_record", "expected_output",
    "finish_capture", "fold_state_metadata", "init_call", "node_values", "output_matches", "plain_attributes",
    "record_init_args", "reference_run", "restore_plain_attributes", "same_outputs", "thread_inplace", "uninitialised_parameters",
    "work_copy",
]
