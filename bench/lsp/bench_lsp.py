"""Language-server benchmark: diagnostics latency (didChange -> publishDiagnostics) on 50-, 500- and
2000-line refactored files, and cold start (process spawn -> initialize response).

    .venv/bin/python bench/lsp/bench_lsp.py [--edits 30] [--starts 5] [--output bench/lsp/results.json]

Latency is measured as the user sees it, with the server's DEFAULT settings (the adaptive delay of
server/hdecomp_lsp/diagnostics.py), for both kinds of document sync a client can use: incremental (the
edited range only, what VS Code sends) and full (the whole text in each didChange, no range). Beside it,
the debounce-free figure (`debounceMs: 0`: the server's own work plus the stdio round trip) and, for
reference, the old fixed 200 ms debounce. The client announces VS Code's capabilities.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER = [sys.executable, "-m", "hdecomp_lsp"]


def synthetic_refactored(lines: int) -> str:
    """An honest refactored.py of about `lines` lines: many children, plumbing between calls, one cheat."""
    n_children = max(2, lines // 8)
    out = ['"""Synthetic refactored step for the LSP benchmark."""', "import torch", "import torch.nn as nn", ""]
    out += [f"from children.block_{i} import Model as Block{i}" for i in range(n_children)]
    out += ["", "", "class RefactoredModel(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    out += [f"        self.block_{i} = Block{i}()" for i in range(n_children)]
    out += ["", "    def forward(self, x):", "        h = x"]
    i = 0
    while len(out) < lines - 12:
        k = i % n_children
        out += [f"        h = self.block_{k}(h)", "        h = h.reshape(h.shape[0], -1).contiguous()"]
        if i % 5 == 0:
            out.append("        h = torch.cat([h, h], dim=1)[:, : h.shape[1]]")
        i += 1
    out += ["        h = torch.relu(h)  # the one cheat", "        return h", "", "",
            "def get_inputs():", "    return [torch.randn(2, 8)]", "", "", "def get_init_inputs():", "    return []", ""]
    return "\n".join(out)


def edited(text: str, v: int) -> str:
    """Version `v` of the benchmark's keystroke: the `return h` line near the end of forward() gets a
    distinct comment each time (no analysis cache has seen the text)."""
    lines = text.split("\n")
    at = lines.index("        return h")
    lines[at] = f"        return h  # edit {v}"
    return "\n".join(lines)


def server_work(text: str, edits: int) -> dict[str, float]:
    """The server's own work per keystroke, in process: wall and CPU ms of one diagnostics computation
    (one document edited as in the latency test, so incremental analysis applies), and of a full
    analysis of the same texts (`analyze_source`: parse + whole analysis) for comparison."""
    from hdecomp.anticheat.static import analyze_source
    from hdecomp_lsp.features.diagnostics import compute_diagnostics
    from hdecomp_lsp.state import HdecompLanguageServer

    ls = HdecompLanguageServer()
    uri = "file:///bench/steps/step_1/refactored.py"
    compute_diagnostics(ls, uri, text)
    walls, cpus, fulls = [], [], []
    for v in range(edits):
        source = edited(text, v)
        w0, c0 = time.perf_counter(), time.process_time()
        compute_diagnostics(ls, uri, source)
        walls.append((time.perf_counter() - w0) * 1000.0)
        cpus.append((time.process_time() - c0) * 1000.0)
        w0 = time.perf_counter()
        analyze_source(source + "\n", "/bench/steps/step_1/refactored.py")  # a text no cache has seen
        fulls.append((time.perf_counter() - w0) * 1000.0)
    return {"wall_p50_ms": round(percentile(walls, 0.5), 2), "wall_p95_ms": round(percentile(walls, 0.95), 2),
            "cpu_p50_ms": round(percentile(cpus, 0.5), 2), "cpu_p95_ms": round(percentile(cpus, 0.95), 2),
            "full_analysis_p50_ms": round(percentile(fulls, 0.5), 2),
            "full_analysis_p95_ms": round(percentile(fulls, 0.95), 2)}


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def vscode_capabilities() -> types.ClientCapabilities:
    """The capabilities VS Code announces (from pytest-lsp, a dev dependency), or none without it."""
    try:
        from pytest_lsp import client_capabilities
    except ImportError:
        return types.ClientCapabilities()
    return client_capabilities("visual-studio-code")


async def start(root: Path, debounce_ms: float | None) -> tuple[
        LanguageClient, dict[tuple[str, int], float], float]:
    """A server and its client; `debounce_ms` None: the server's default settings (no debounceMs option)."""
    client = LanguageClient("hdecomp-bench", "1")
    published: dict[tuple[str, int], float] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published[(params.uri, params.version or 0)] = time.perf_counter()

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def on_configuration(params: types.ConfigurationParams) -> list[Any]:
        return [None for _ in params.items]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: Any) -> None:
        return None

    @client.feature("hdecomp/treesChanged")
    def on_trees_changed(params: Any) -> None:
        return None

    options: dict[str, Any] = {} if debounce_ms is None else {"debounceMs": debounce_ms}
    t0 = time.perf_counter()
    await client.start_io(*SERVER)
    await client.initialize_async(types.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
        initialization_options=options))
    startup = time.perf_counter() - t0
    client.initialized(types.InitializedParams())
    return client, published, startup


async def stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def replace_range(text: str, line: int, start: int, end: int, new: str) -> str:
    """`text` with characters start..end of line `line` replaced by `new` (what the client's buffer does)."""
    lines = text.split("\n")
    lines[line] = lines[line][:start] + new + lines[line][end:]
    return "\n".join(lines)


async def latency(root: Path, text: str, edits: int, debounce_ms: float | None, *, enter: bool = False,
                  full_sync: bool = False, burst: bool = False,
                  edited_line: str = "        return h") -> tuple[list[float], list[int]]:
    """didChange -> publishDiagnostics, ms, for `edits` successive edits of the `return h` line (or of
    `edited_line`; with `enter`, edits that each insert a new line above it, which moves every line below),
    each sent when the previous one's diagnostics arrived. `full_sync`: each didChange carries the whole new
    text (no range), as a client with TextDocumentSyncKind.Full does. `burst`: all edits are sent at once
    and only the last one is timed (how fast a burst settles, and which versions got published).
    Returns the latencies and the versions published after the opening one."""
    path = root / "steps" / "step_1_bench" / "refactored.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    uri = path.as_uri()
    client, published, _ = await start(root, debounce_ms)
    try:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        await wait(published, (uri, 1))
        lines = text.splitlines()
        line = lines.index(edited_line)
        width = len(lines[line])
        out = []
        sent = 0.0
        for v in range(2, edits + 2):
            new_line = f"{edited_line}  # edit {v}"  # a distinct text each time: no analysis cache hit
            if enter:  # a new line above `return h`
                rng = types.Range(types.Position(line, 0), types.Position(line, 0))
                new_text = f"        h = h  # line {v}\n"
                text = replace_range(text, line, 0, 0, new_text)
                line += 1
            else:
                rng = types.Range(types.Position(line, 0), types.Position(line, width))
                new_text = new_line
                text = replace_range(text, line, 0, width, new_text)
                width = len(new_line)
            change: types.TextDocumentContentChangeEvent = (
                types.TextDocumentContentChangeWholeDocument(text=text) if full_sync
                else types.TextDocumentContentChangePartial(range=rng, text=new_text))
            sent = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[change]))
            if not burst:
                await wait(published, (uri, v))
                out.append((published[(uri, v)] - sent) * 1000.0)
        if burst:
            await wait(published, (uri, edits + 1))
            out.append((published[(uri, edits + 1)] - sent) * 1000.0)
            await asyncio.sleep(0.3)  # anything published late for an older version would show up here
        return out, sorted(v for (u, v) in published if u == uri and v > 1)
    finally:
        await stop(client)


async def wait(published: dict[tuple[str, int], float], key: tuple[str, int], timeout: float = 30.0) -> None:
    end = time.perf_counter() + timeout
    while key not in published:
        if time.perf_counter() > end:
            raise TimeoutError(f"no diagnostics for {key}")
        await asyncio.sleep(0.0005)


def summary(samples: list[float]) -> dict[str, float]:
    return {"edits": len(samples), "p50_ms": round(percentile(samples, 0.5), 2),
            "p95_ms": round(percentile(samples, 0.95), 2), "max_ms": round(max(samples), 2),
            "mean_ms": round(statistics.mean(samples), 2)}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--output", default=str(Path(__file__).with_name("results.json")))
    args = ap.parse_args()
    results: dict[str, Any] = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_average_at_start": loadavg()},
        "settings": "default (adaptive delay) unless a series says debounce_0 (debounceMs: 0) or "
                    "fixed_debounce_200ms (debounceMs: 200, the old default)",
        "client_capabilities": "visual-studio-code (pytest-lsp)",
        "diagnostics": {}, "cold_start": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in (50, 500, 2000):
            text = synthetic_refactored(size)
            entry: dict[str, Any] = {"lines": len(text.splitlines())}
            for sync in ("incremental", "full"):
                for mode, debounce in (("default", None), ("debounce_0", 0.0)):
                    samples, _ = await latency(root, text, args.edits, debounce, full_sync=sync == "full")
                    entry[f"{sync}_{mode}"] = {**summary(samples), "load_average": loadavg()}
                    print(f"{size:>5} lines, {sync:>11} sync, {mode:>10}: p50 {entry[f'{sync}_{mode}']['p50_ms']}"
                          f" ms, p95 {entry[f'{sync}_{mode}']['p95_ms']} ms", flush=True)
            entry["server_work_in_process"] = server_work(text, min(args.edits, 15))
            results["diagnostics"][str(size)] = entry
        big = synthetic_refactored(2000)
        # edits that change the line count (Enter, paste) at 2000 lines: the slower path
        inserts: dict[str, Any] = {}
        for mode, debounce in (("default", None), ("debounce_0", 0.0)):
            samples, _ = await latency(root, big, max(args.edits // 2, 5), debounce, enter=True)
            inserts[mode] = {**summary(samples), "load_average": loadavg()}
            print(f" 2000 lines, line inserts, {mode}: p50 {inserts[mode]['p50_ms']} ms, "
                  f"p95 {inserts[mode]['p95_ms']} ms", flush=True)
        results["diagnostics"]["2000_line_inserts"] = inserts
        # an expensive change: at 8000 lines an edit in __init__ re-analyses forward() in full (60-150 ms
        # of CPU): the adaptive delay debounces it
        huge = synthetic_refactored(8000)
        expensive: dict[str, Any] = {"lines": len(huge.splitlines())}
        for mode, debounce in (("default", None), ("debounce_0", 0.0)):
            samples, _ = await latency(root, huge, 10, debounce, edited_line="        super().__init__()")
            expensive[mode] = {**summary(samples), "load_average": loadavg()}
            print(f" 8000 lines, edits in __init__, {mode}: p50 {expensive[mode]['p50_ms']} ms, "
                  f"p95 {expensive[mode]['p95_ms']} ms", flush=True)
        results["diagnostics"]["8000_init_edits"] = expensive
        # the old default, a fixed 200 ms debounce, for reference
        samples, _ = await latency(root, big, 10, 200.0)
        results["diagnostics"]["2000_fixed_debounce_200ms"] = {**summary(samples), "load_average": loadavg()}
        print(f" 2000 lines, fixed 200 ms debounce: p95 {percentile(samples, 0.95):.1f} ms", flush=True)
        # a burst: 20 keystrokes sent at once (queued didChange notifications), default settings
        bursts: dict[str, Any] = {}
        for sync in ("incremental", "full"):
            lasts, versions = [], []
            for _ in range(3):
                samples, published = await latency(root, big, 20, None, full_sync=sync == "full", burst=True)
                lasts += samples
                versions.append(published)
            bursts[sync] = {"bursts": len(lasts), "edits_per_burst": 20,
                            "last_edit_to_publish_ms": [round(x, 2) for x in lasts],
                            "versions_published": versions, "load_average": loadavg()}
            print(f" 2000 lines, burst of 20 ({sync}): last edit -> publish {bursts[sync]['last_edit_to_publish_ms']}"
                  f" ms, versions published {versions}", flush=True)
        results["diagnostics"]["2000_burst_of_20"] = bursts
        starts = []
        for _ in range(args.starts):
            client, _published, startup = await start(root, None)
            starts.append(startup * 1000.0)
            await stop(client)
        results["cold_start"] = {"runs": len(starts), "p50_ms": round(percentile(starts, 0.5), 1),
                                 "max_ms": round(max(starts), 1), "min_ms": round(min(starts), 1)}
        print(f"cold start to initialize response: p50 {results['cold_start']['p50_ms']} ms", flush=True)
    results["machine"]["load_average_at_end"] = loadavg()
    Path(args.output).write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
