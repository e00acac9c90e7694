"""A step is planned, then committed (hdecomp.decompose.step_draft): drafting a step changes neither the
decomposition nor the disk, and a step written again the other way (graph, then source) leaves nothing of its
first draft behind."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hdecomp.decompose import driver
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.step_draft import StepDraft

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"


def _state(dec: Any) -> dict[str, Any]:
    """Everything a step adds to the decomposition, and every file under its folder."""
    return {
        "nodes": sorted(dec.nodes),
        "registry": copy.deepcopy((dec.registry.by_content, dec.registry.taken, dec.registry.shapes)),
        "texts": dict(dec.texts),
        "state_attrs": copy.deepcopy(dec.state_attrs),
        "data_flow": len(dec.data_flow),
        "children": {n.id: (list(n.children), dict(n.uses), n.step, n.capture_method) for n in dec.nodes.values()},
        "files": sorted(str(p.relative_to(dec.root)) for p in dec.root.rglob("*") if p.is_file()),
    }


def test_drafting_a_step_changes_nothing_until_it_is_committed(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    drafts: list[StepDraft] = []
    real = driver.write_step

    def watched(dec: Any, node: Any, number: int, avoid: list[str] | None = None) -> Any:
        before = _state(dec)
        out = real(dec, node, number, avoid=avoid)
        assert _state(dec) == before, f"drafting step {number} ({node.id}) changed the decomposition or the disk"
        if isinstance(out, StepDraft):
            assert not out.step_dir.exists() and out.children and out.refactored
            drafts.append(out)
        return out

    monkeypatch.setattr(driver, "write_step", watched)
    dec = decompose(EXAMPLES / "attention_block.py", tmp_path, DecomposeOptions(self_tests=False), progress=False)
    assert dec.complete and len(drafts) == len(dec.steps) >= 2
    for draft in drafts:   # committed: every child is a node, its file where the tree says
        assert all(c.stem in dec.nodes and dec.nodes[c.stem].path.is_file() for c in draft.children)
        assert draft.node.step == f"steps/{draft.step_name}" and draft.node.capture_method == draft.method


def test_a_step_written_again_leaves_nothing_of_its_first_draft(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The root's step, written from a graph, is refused once (as a data-dependent branch refuses it): it is
    written again at the source level, and the tree holds the second draft only: no name, text, held-state
    attribute or component file of the first."""
    real = driver._verify
    refused: list[str] = []

    def refuse_first(dec: Any, step_dir: Path, number: int, name: str) -> Any:
        if not refused:
            refused.append(name)
            return SimpleNamespace(status="FAIL", fail_reason="numerical_mismatch", error=None, step=None)
        return real(dec, step_dir, number, name)

    monkeypatch.setattr(driver, "_verify", refuse_first)
    dec = decompose(EXAMPLES / "mlp_block.py", tmp_path, DecomposeOptions(self_tests=False), progress=False)
    root = dec.nodes[dec.root_node]
    assert refused and root.capture_method == "source" and dec.complete, (refused, root.capture_method)
    assert any("written again from source" in (e.get("resolution") or "") for e in dec.log)
    names = set(dec.nodes)
    assert set(dec.state_attrs) <= names, sorted(set(dec.state_attrs) - names)
    assert set(dec.texts) <= names and set(dec.registry.by_content.values()) <= names
    assert set(dec.registry.shapes) <= set(dec.registry.taken) and set(dec.registry.taken) <= names
    on_disk = {p for p in dec.root.glob("level_*/*.py")}
    assert on_disk == {n.path for n in dec.nodes.values()}, sorted(str(p) for p in on_disk)
