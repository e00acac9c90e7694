"""The state of one decomposition run: options, the components found so far (nodes), the steps, the log."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hdecomp.decompose.naming import NameRegistry
from hdecomp.runtime.settings import RunSettings

# A model whose weights and one forward take at least this much is collected between captures and before
# each step's verification (what a capture held must not sit next to the next models).
COLLECT_BYTES = 256 << 20


@dataclass
class DecomposeOptions(RunSettings):
    """Knobs of decompose: the run settings its steps are verified with, and its own."""

    max_depth: int | None = None
    name: str | None = None
    finish: bool = True            # write coverage summary, self-tests, composition test
    self_tests: bool = True        # run every component's self-test at the end (test_results.json)
    reference_cache: bool = True   # store each step's reference outputs for later re-verification


@dataclass
class Node:
    """One unique component (file) of the decomposition."""

    id: str
    level: int
    path: Path
    parent: str | None
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)
    uses: dict[str, int] = field(default_factory=dict)        # child id -> calls in this component
    ops: list[str] = field(default_factory=list)
    op_count: int = 0
    step: str | None = None
    status: str = "unverified"    # pass | fail | error | unverified (kernels: leaf)
    decomposable: bool = True
    reason: str | None = None
    depth: int = 0
    capture_method: str | None = None
    # its first forward writes its own parameters or buffers (hdecomp.runtime.settle): it is split as that
    # forward left it, and a refactored model of it settles before it is given the weights
    settles: bool = False
    # the inputs it received in the model (args, kwargs): its first call and its last (a loop body's first and
    # last iteration), recorded at the batch the step ran at; its own step verifies them too (in_model.py)
    in_model: list[tuple[list[Any], dict[str, Any]]] = field(default_factory=list, repr=False)


@dataclass
class StepRecord:
    number: int
    node: str
    dir: Path
    status: str
    outcome: Any = None


@dataclass
class Decomposition:
    root: Path
    model_file: Path
    name: str
    options: DecomposeOptions
    nodes: dict[str, Node] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    data_flow: list[dict[str, Any]] = field(default_factory=list)
    registry: NameRegistry = field(default_factory=NameRegistry)
    texts: dict[str, str] = field(default_factory=dict)       # component id -> file text
    # component id -> the attributes its file gives the parent tensors it holds, in order (graph_children.py)
    state_attrs: dict[str, list[str]] = field(default_factory=dict)
    forward_bytes: int = 0    # peak RSS growth of the model's forward at the cut batch (memory decisions)
    seconds: float = 0.0
    finals: dict[str, Any] = field(default_factory=dict)
    root_id: str | None = None        # the root node (the model; its kernel when the model is one kernel)
    # the model's output holds a state object (a cache handed back: capture.record.holds_state), set by the
    # root's step: the composition compares what children write into one, so no child's file drops it
    output_state: bool = True
    pool: Any = None                  # warm workers for the final self-tests and composition (runtime.warm)

    def collect(self) -> None:
        """A full garbage collection where it pays: the fx graphs' node <-> graph cycles keep a capture's
        model and values alive until collected, which matters when they are big; a full collection costs
        ~0.2 s with torch loaded (a quarter of a small model's decomposition, once per step)."""
        if self.forward_bytes >= COLLECT_BYTES:
            import gc
            gc.collect()

    @property
    def root_node(self) -> str:
        return self.root_id or self.name

    def note(self, step: str | int | None, kind: str, title: str, description: str = "",
             resolution: str | None = None) -> None:
        entry: dict[str, Any] = {"step": step, "type": kind, "title": title, "description": description,
                                 "timestamp": now_iso()}
        if resolution is not None:
            entry["resolution"] = resolution
        self.log.append(entry)

    @property
    def complete(self) -> bool:
        return all(n.status in ("pass", "leaf") for n in self.nodes.values()) and \
            all(s.status == "PASS" for s in self.steps)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()
