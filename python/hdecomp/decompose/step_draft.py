"""A step planned, then committed: everything a step adds is drafted first (StepDraft), its folder is written
whole (StepFolder.write) for its verification, and only a step the driver keeps enters the decomposition
(commit). A step that is written again the other way (graph or source) leaves nothing behind: no name, no
component file, no node, no held-state attribute, no data flow."""

from __future__ import annotations

import shutil
from collections import ChainMap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hdecomp.decompose.input_code import shape_text
from hdecomp.decompose.naming import NameRegistry
from hdecomp.decompose.state import Decomposition, Node
from hdecomp.decompose.stepfiles import io_maps, write_in_model
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.weight_map import dump_weight_map
from hdecomp.vocab.levels import LEVEL_DIRS, LEVEL_NAMES


@dataclass
class DraftNames:
    """The decomposition's component names, file texts and held-state attributes as the drafted step would
    leave them: reads see the decomposition's, writes stay in the draft until it is committed."""

    registry: NameRegistry
    texts: ChainMap[str, str]
    state_attrs: ChainMap[str, list[str]]

    @classmethod
    def over(cls, dec: Decomposition) -> DraftNames:
        return cls(dec.registry.copy(), ChainMap({}, dec.texts), ChainMap({}, dec.state_attrs))


@dataclass
class DraftChild:
    """One child call of the step: its component (by stem) and file text, how often the parent calls it, and
    the component's node where the step introduces it (its file goes into its level's folder on commit)."""

    stem: str
    text: str
    uses: int
    node: Node | None = None


@dataclass
class StepDraft:
    """A step as planned: its folder's files and what it adds to the decomposition."""

    node: Node
    step_name: str
    step_dir: Path
    method: str                      # how the step was captured: "fx", "export", "record" or "source"
    names: DraftNames
    children: list[DraftChild] = field(default_factory=list)
    refactored: str = ""             # refactored.py
    weight_map: dict[str, Any] = field(default_factory=dict)
    flows: list[dict[str, Any]] = field(default_factory=list)   # data-flow entries (Decomposition.data_flow)

    @property
    def texts(self) -> dict[str, str]:
        """The children/ folder: one file per component the step calls."""
        return {c.stem: c.text for c in self.children}

    @property
    def child_nodes(self) -> list[Node]:
        """The components the step introduces that are decomposed further (not kernels)."""
        return [c.node for c in self.children if c.node is not None and c.node.level > 0]


def child_header(level: int, ops: list[str], inputs: list[tuple[str, Any]], kwargs: dict[str, Any],
                 out: Any) -> dict[str, str]:
    """A new component file's header (ComponentText): its level, ops, named inputs, keyword inputs, outputs."""
    header = {
        "Level": LEVEL_NAMES[level],
        "Ops": ", ".join(ops) or "-",
        "Inputs": "; ".join(f"{n}: {shape_text(v)}" for n, v in inputs) or "none",
        "Outputs": shape_text(out),
    }
    if kwargs:
        header["Keyword inputs"] = "; ".join(f"{k}: {shape_text(v)}" for k, v in kwargs.items())
    return header


def child_node(root: Path, parent: Node, stem: str, level: int, inputs: list[tuple[str, Any]],
               kwargs: dict[str, Any], out: Any, ops: list[str], op_count: int,
               in_model: list[tuple[list[Any], dict[str, Any]]], values: dict[str, Any] | None = None) -> Node:
    """The node of a component a step introduces, its file in its level's folder under `root` (`values`: the
    graph's, which name the inputs' sources)."""
    ins, ind, outs, outd = io_maps(values or {}, [*inputs, *sorted(kwargs.items())], out)
    return Node(id=stem, level=level, path=root / LEVEL_DIRS[level] / f"{stem}.py", parent=parent.id,
                inputs={"shapes": ins, "dtypes": ind}, outputs={"shapes": outs, "dtypes": outd}, ops=list(ops),
                op_count=op_count, depth=parent.depth + 1, status="leaf" if level == 0 else "unverified",
                in_model=in_model)


class StepFolder:
    """A step's folder: what its verification reads (original.py, children/, refactored.py, weight_map.json
    and the inputs the component received in the model)."""

    @staticmethod
    def write(dec: Decomposition, draft: StepDraft) -> None:
        step_dir = draft.step_dir
        if step_dir.exists():
            shutil.rmtree(step_dir)
        (step_dir / "children").mkdir(parents=True)
        write_text_atomic(step_dir / "original.py", draft.node.path.read_text(encoding="utf-8"))
        write_in_model(dec, draft.node, step_dir, draft.step_name)
        for stem, text in sorted(draft.texts.items()):
            write_text_atomic(step_dir / "children" / f"{stem}.py", text)
        write_text_atomic(step_dir / "refactored.py", draft.refactored)
        dump_weight_map(step_dir, draft.weight_map)


def commit(dec: Decomposition, draft: StepDraft) -> list[Node]:
    """The drafted step into the decomposition: its names, its new components' files and nodes, the parent's
    children and uses, the data flow. Returns the components to decompose next."""
    node = draft.node
    dec.registry = draft.names.registry
    dec.texts.update(draft.names.texts.maps[0])
    dec.state_attrs.update(draft.names.state_attrs.maps[0])
    for c in draft.children:
        if c.node is not None and c.node.id not in dec.nodes:
            write_text_atomic(c.node.path, c.text)
            dec.nodes[c.node.id] = c.node
        if c.stem not in node.children:
            node.children.append(c.stem)
        node.uses[c.stem] = node.uses.get(c.stem, 0) + c.uses
    dec.data_flow.extend(draft.flows)
    node.step = f"steps/{draft.step_name}"
    node.capture_method = draft.method
    return draft.child_nodes
