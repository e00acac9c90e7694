"""Live anti-cheat diagnostics for refactored files: static analysis on open/change (with an adaptive delay,
results for superseded versions dropped) merged with the runtime violations of the last verify run.

When a change is analysed (`change_delay`): by default the delay adapts to what re-analysing that
document costs. Each open document keeps a moving estimate of the CPU time of one re-analysis (a weighted
average of the last ones; the first analysis of a document, which parses and analyses everything, is not
counted: it says nothing about the cost of an edit). When the estimate is below `CHEAP_S` (a keystroke in
forward() of a 2000-line file costs 5-8 ms) the change is analysed at once, after yielding to the event loop
so that didChange notifications already queued behind it supersede it first (`settle`); otherwise the
analysis waits as long as it is expected to take, capped at the default debounce (200 ms), so that while
the user types faster than the analysis runs, versions that are replaced anyway are never analysed. A
newer change always cancels the pending analysis, and a result is published only if its version is still
the document's current one.

An explicit `debounceMs` initialization option (tests, the benchmark) replaces the adaptive delay with
a fixed debounce of that many milliseconds, as before (0: every change is analysed at once).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.anticheat.rules import AntiCheatViolation
from hdecomp.formats.layout import read_result_file
from lsprotocol import types

from hdecomp_lsp.convert import (
    SourceLines,
    diagnostics_sorted,
    violation_from_dict,
    violation_to_diagnostic,
)
from hdecomp_lsp.state import DEFAULT_DEBOUNCE_S, HdecompLanguageServer, RuntimeFindings
from hdecomp_lsp.uris import uri_to_path

if TYPE_CHECKING:
    from hdecomp_lsp.incremental import DocumentAnalysis

_REFACTORED_CLASS = re.compile(r"^class[ \t]+RefactoredModel\b", re.MULTILINE)
RESULT_FILE = "verification_result.json"


def is_refactored_file(path: str, source: str) -> bool:
    """A step's refactored.py, or any Python file defining `class RefactoredModel`."""
    p = Path(path)
    if p.suffix != ".py":
        return False
    if p.name == "refactored.py" and p.parent.parent.name == "steps":
        return True
    return bool(_REFACTORED_CLASS.search(source))


def _static_analyzer(ls: HdecompLanguageServer, uri: str) -> Callable[[str, str | None],
                                                                     list[AntiCheatViolation]] | None:
    """The document's incremental analyzer (same results as hdecomp.anticheat.static.analyze_source: it
    re-parses and re-analyses only what an edit changed)."""
    doc = ls.document_analyses.get(uri)
    if doc is None:
        try:
            from hdecomp_lsp.incremental import DocumentAnalysis

            doc = DocumentAnalysis()
        except ImportError:
            return None
        ls.document_analyses[uri] = doc
    return doc.analyze  # type: ignore[no-any-return]


def result_file_for(path: str) -> Path:
    return Path(path).parent / RESULT_FILE


def load_runtime_findings(ls: HdecompLanguageServer, path: str) -> list[AntiCheatViolation]:
    """Violations the static pass cannot see (structural/runtime) from the step's last verification result.

    Re-read only when the result file changed (mtime)."""
    result_file = result_file_for(path)
    try:
        mtime = result_file.stat().st_mtime
    except OSError:
        ls.runtime_findings.pop(path, None)
        return []
    cached = ls.runtime_findings.get(path)
    if cached is not None and cached.mtime == mtime:
        return cached.violations

    violations: list[AntiCheatViolation] = []
    try:
        data = read_result_file(result_file)
        if data is None:
            raise ValueError("not a readable result file")
        anticheat = data.get("anticheat")
        raw: list[Any] = []
        if isinstance(anticheat, dict):
            for key in ("violations", "parameter_violations"):
                if isinstance(anticheat.get(key), list):
                    raw.extend(anticheat[key])
        seen: set[tuple[str, str, int]] = set()
        for item in raw:
            v = violation_from_dict(item) if isinstance(item, dict) else None
            # static findings are recomputed live from the current text; keep only what needs a run
            if v is None or (isinstance(item, dict) and item.get("kind") == "static"):
                continue
            if v.rule.startswith(("HD0", "HD1", "HD2")) and isinstance(item, dict) and "kind" in item:
                continue
            ident = (v.rule, v.message, v.line)
            if ident not in seen:
                seen.add(ident)
                violations.append(v)
    except (OSError, ValueError) as exc:
        ls.log(f"cannot read {result_file}: {exc}")
    ls.runtime_findings[path] = RuntimeFindings(str(result_file), mtime, violations)
    return violations


def position_encoding(ls: HdecompLanguageServer) -> str:
    """The negotiated position encoding ("utf-16" unless the client chose another)."""
    try:
        negotiated = ls.workspace.position_encoding
    except RuntimeError:  # not initialized (in-process use)
        return "utf-16"
    return str(getattr(negotiated, "value", negotiated) or "utf-16")


def compute_diagnostics(ls: HdecompLanguageServer, uri: str, source: str,
                        encoding: str = "utf-16") -> list[types.Diagnostic]:
    """All diagnostics for one document text. Pure source analysis: no torch, no user code."""
    path = uri_to_path(uri)
    if not is_refactored_file(path, source):
        return []
    analyze = _static_analyzer(ls, uri)
    lines = SourceLines(source, encoding)
    diags: list[types.Diagnostic] = []
    if analyze is None:
        ls.warn_once("no-static", "hdecomp.anticheat.static is not available: no live anti-cheat diagnostics")
    else:
        for v in analyze(source, path):
            diags.append(violation_to_diagnostic(v, lines, uri))
    for v in load_runtime_findings(ls, path):
        if v.range is None:
            line = int(v.details.get("line", 0)) or _class_line(source)
            d = violation_to_diagnostic(v, lines, uri)
            d.range = lines.line_range(line)
        else:
            d = violation_to_diagnostic(v, lines, uri)
        d.message = f"{d.message} (found by the last verify run)"
        diags.append(d)
    return diagnostics_sorted(diags)


def _class_line(source: str) -> int:
    m = _REFACTORED_CLASS.search(source)
    return source.count("\n", 0, m.start()) + 1 if m else 1


# -- when to analyse a change ------------------------------------------------------------------------------
CHEAP_S = 0.030  # expected CPU seconds of a re-analysis below which a change is analysed at once
COST_WEIGHT = 0.5  # weight of the newest analysis in a document's moving cost estimate
SETTLE_YIELDS = 3  # event-loop turns a change analysed at once waits for didChange notifications queued
SETTLE_S = 0.001  # behind it, then this long (pygls reads each message in a few turns of a reader thread)


def adaptive_delay(estimate_s: float | None, cap_s: float) -> float:
    """Seconds to wait before analysing a change whose analysis is expected to cost `estimate_s` CPU
    seconds: none when that is cheap (or not known yet), else as long as the analysis, at most `cap_s`."""
    if estimate_s is None or estimate_s < CHEAP_S:
        return 0.0
    return min(cap_s, estimate_s)


def updated_estimate(estimate_s: float | None, cost_s: float) -> float:
    """The moving estimate after one more analysis that cost `cost_s`."""
    return cost_s if estimate_s is None else COST_WEIGHT * cost_s + (1.0 - COST_WEIGHT) * estimate_s


def cost_estimate(ls: HdecompLanguageServer, uri: str) -> float | None:
    doc = ls.document_analyses.get(uri)
    return None if doc is None else doc.cost_s  # type: ignore[no-any-return]


def change_delay(ls: HdecompLanguageServer, uri: str) -> float | None:
    """How long a change of `uri` waits before it is analysed: the fixed debounce when one was set,
    else the adaptive delay; None means "at once, after settling"."""
    if ls.debounce_s is not None:
        return ls.debounce_s
    delay = adaptive_delay(cost_estimate(ls, uri), DEFAULT_DEBOUNCE_S)
    return delay if delay > 0 else None


async def settle() -> None:
    """Let pygls handle the notifications that are already queued (each one supersedes this analysis)."""
    for _ in range(SETTLE_YIELDS):
        await asyncio.sleep(0)
    await asyncio.sleep(SETTLE_S)


def publish_now(ls: HdecompLanguageServer, uri: str) -> None:
    """Analyse the document's current text and publish (used by the scheduled task and after commands)."""
    try:
        doc = ls.workspace.get_text_document(uri)
        version, source = doc.version, doc.source
    except Exception:
        return
    analysis: DocumentAnalysis | None = ls.document_analyses.get(uri)
    # a re-analysis after an edit: its cost feeds the estimate (not the first one, not an unchanged text)
    if analysis is None or analysis.source is None or analysis.source == source:
        analysis = None
    started = time.thread_time()
    try:
        diags = compute_diagnostics(ls, uri, source, position_encoding(ls))
    except Exception as exc:  # never crash on any text: report the analyzer failure, keep serving
        ls.log(f"anti-cheat analysis failed for {uri}: {type(exc).__name__}: {exc}", types.MessageType.Error)
        diags = []
    if analysis is not None:
        analysis.cost_s = updated_estimate(analysis.cost_s, time.thread_time() - started)
    # a newer version arrived while analysing: its own task publishes
    if ls.workspace.get_text_document(uri).version != version:
        return
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                        version=version))


def schedule(ls: HdecompLanguageServer, uri: str, *, delay: float | None = None) -> None:
    """(Re)start the pending analysis of `uri` after `delay` seconds (default: `change_delay`); the
    previous pending analysis is dropped."""
    pending = ls.pending_diagnostics.pop(uri, None)
    if pending is not None:
        pending.cancel()
    doc_version = ls.workspace.get_text_document(uri).version
    wait = change_delay(ls, uri) if delay is None else delay

    async def run() -> None:
        try:
            if wait is None:
                await settle()
            elif wait > 0:
                await asyncio.sleep(wait)
            if ls.workspace.get_text_document(uri).version != doc_version:
                return
            publish_now(ls, uri)
        finally:
            if ls.pending_diagnostics.get(uri) is task:
                del ls.pending_diagnostics[uri]

    task = asyncio.ensure_future(run())
    ls.pending_diagnostics[uri] = task


def republish_all(ls: HdecompLanguageServer, paths: set[str] | None = None, *,
                  dirs: set[str] | None = None) -> None:
    """Re-publish open documents right away: all, those whose path is in `paths`, or those in `dirs`."""
    for uri in list(ls.workspace.text_documents):
        path = os.path.normpath(uri_to_path(uri))
        if (paths is None and dirs is None) or (paths and path in paths) or (dirs and os.path.dirname(path) in dirs):
            schedule(ls, uri, delay=0)


def register(server: HdecompLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HdecompLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HdecompLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: HdecompLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HdecompLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = ls.pending_diagnostics.pop(uri, None)
        if pending is not None:
            pending.cancel()
        ls.document_analyses.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
