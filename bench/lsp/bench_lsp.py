"""Language-server benchmark: diagnostics latency (didChange -> publishDiagnostics) on 50-, 500- and
2000-line refactored files, and cold start (process spawn -> initialize response).

    .venv/bin/python bench/lsp/bench_lsp.py [--edits 40] [--starts 5] [--output bench/lsp/results.json]

Latency is measured with the debounce set to 0 (the server's own work plus the stdio round trip); the
debounce the editor adds on top (200 ms by default) is reported separately.
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
    from hdecomp_lsp.diagnostics import compute_diagnostics
    from hdecomp_lsp.server import HdecompLanguageServer

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


async def start(root: Path, debounce_ms: float) -> tuple[LanguageClient, dict[tuple[str, int], float], float]:
    client = LanguageClient("hdecomp-bench", "1")
    published: dict[tuple[str, int], float] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published[(params.uri, params.version or 0)] = time.perf_counter()

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def on_configuration(params: types.ConfigurationParams) -> list[Any]:
        return [None for _ in params.items]

    t0 = time.perf_counter()
    await client.start_io(*SERVER)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
        initialization_options={"debounceMs": debounce_ms}))
    startup = time.perf_counter() - t0
    client.initialized(types.InitializedParams())
    return client, published, startup


async def stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def latency(root: Path, text: str, edits: int, debounce_ms: float, enter: bool = False) -> list[float]:
    """didChange -> publishDiagnostics, ms, for `edits` successive edits of the `return h` line (or, with
    `enter`, edits that each insert a new line into forward(), which moves every line below it)."""
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
        line = lines.index("        return h")
        width = len(lines[line])
        out = []
        for v in range(2, edits + 2):
            new_line = f"        return h  # edit {v}"  # a distinct text each time: no analysis cache hit
            if enter:  # a new line above `return h`
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                    text=f"        h = h  # line {v}\n")
                line += 1
            else:
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 0), types.Position(line, width)), text=new_line)
            sent = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[change]))
            await wait(published, (uri, v))
            out.append((published[(uri, v)] - sent) * 1000.0)
            width = len(new_line)
        return out
    finally:
        await stop(client)


async def wait(published: dict[tuple[str, int], float], key: tuple[str, int], timeout: float = 30.0) -> None:
    end = time.perf_counter() + timeout
    while key not in published:
        if time.perf_counter() > end:
            raise TimeoutError(f"no diagnostics for {key}")
        await asyncio.sleep(0.0005)


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--output", default=str(Path(__file__).with_name("results.json")))
    args = ap.parse_args()
    results: dict[str, Any] = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_average_at_start": os.getloadavg()},
        "debounce_ms_default": 200, "diagnostics": {}, "cold_start": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in (50, 500, 2000):
            text = synthetic_refactored(size)
            samples = await latency(root, text, args.edits, 0)
            results["diagnostics"][str(size)] = {
                "lines": len(text.splitlines()), "edits": len(samples),
                "p50_ms": round(percentile(samples, 0.5), 2), "p95_ms": round(percentile(samples, 0.95), 2),
                "max_ms": round(max(samples), 2), "mean_ms": round(statistics.mean(samples), 2)}
            results["diagnostics"][str(size)]["server_work_in_process"] = server_work(text, min(args.edits, 15))
            print(f"{size:>5} lines: p50 {results['diagnostics'][str(size)]['p50_ms']} ms, "
                  f"p95 {results['diagnostics'][str(size)]['p95_ms']} ms", flush=True)
        # edits that change the line count (Enter, paste) at 2000 lines: the slower path
        enter = await latency(root, synthetic_refactored(2000), max(args.edits // 3, 5), 0, enter=True)
        results["diagnostics"]["2000_line_inserts"] = {
            "edits": len(enter), "p50_ms": round(percentile(enter, 0.5), 2),
            "p95_ms": round(percentile(enter, 0.95), 2), "max_ms": round(max(enter), 2)}
        print(f" 2000 lines, line inserts: p50 {results['diagnostics']['2000_line_inserts']['p50_ms']} ms, "
              f"p95 {results['diagnostics']['2000_line_inserts']['p95_ms']} ms", flush=True)
        # with the editor's debounce, for reference: the same edits wait 200 ms more
        debounced = await latency(root, synthetic_refactored(500), 10, 200)
        results["diagnostics"]["500_with_debounce_200ms"] = {
            "p50_ms": round(percentile(debounced, 0.5), 2), "p95_ms": round(percentile(debounced, 0.95), 2)}
        starts = []
        for _ in range(args.starts):
            client, _published, startup = await start(root, 0)
            starts.append(startup * 1000.0)
            await stop(client)
        results["cold_start"] = {"runs": len(starts), "p50_ms": round(percentile(starts, 0.5), 1),
                                 "max_ms": round(max(starts), 1), "min_ms": round(min(starts), 1)}
        print(f"cold start to initialize response: p50 {results['cold_start']['p50_ms']} ms", flush=True)
    results["machine"]["load_average_at_end"] = os.getloadavg()
    Path(args.output).write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
