"""Server-side commands: each runs `[interpreter] -m hdecomp ...` (or a self-test) in a subprocess with
work-done progress and cancellation (client cancel or progress cancel kills the process group), then
refreshes diagnostics, lenses and trees. Result: {status, exitCode, summary, resultFile}. The handlers'
parameters are typed (uris.FilePath): pygls structures the client's URI arguments into local paths, and
answers a call whose arguments name no file, or are too few or too many, with InvalidParams."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.formats.layout import PROFILE_FILE, read_profile_components, read_result_file
from hdecomp.formats.tree import TREE_FILE
from hdecomp.formats.weight_map import WEIGHT_MAP_FILE
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from hdecomp_lsp import replacements
from hdecomp_lsp.command_ids import (
    DECOMPOSE,
    PROFILE,
    RUN_PIPELINE,
    RUN_SELF_TEST,
    VERIFY_REPLACEMENT,
    VERIFY_STEP,
)
from hdecomp_lsp.features import diagnostics, trees
from hdecomp_lsp.features.code_lens import lens_title, read_result
from hdecomp_lsp.protocol import HdecompProtocol
from hdecomp_lsp.state import HdecompLanguageServer  # at runtime: pygls reads the command signatures
from hdecomp_lsp.uris import FilePath, file_path  # FilePath at runtime: pygls reads the annotations

_STATUS = {0: "PASS", 1: "FAIL"}


@dataclass
class ProcessOutcome:
    exit_code: int
    cancelled: bool
    stdout: str
    stderr: str


def _first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("ERROR"):
            return ln
    return lines[-1] if lines else ""


def _verdict_line(text: str) -> str:
    """The CLI's verdict line (`PASS: ...`, `FAIL: ...`, `ERROR: ...`), last one wins."""
    verdicts = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("PASS", "FAIL", "ERROR"))]
    return verdicts[-1] if verdicts else _first_error_line(text)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the run may have started workers of its own
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def run_process(ls: HdecompLanguageServer, title: str, argv: list[str], cwd: str) -> ProcessOutcome:
    """Run `argv` with progress (each output line reported) and cancellation; never raises on failure."""
    token: str | None = None
    window = ls.client_capabilities.window
    if window and window.work_done_progress:
        token = f"hdecomp-{uuid.uuid4().hex}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception as exc:
            ls.log(f"work-done progress unavailable: {exc}")
            token = None
    if token:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, cancellable=True, message=" ".join(Path(a).name if os.sep in a else a for a in argv[1:])))
    ls.log(f"running: {' '.join(argv)} (in {cwd})")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("OMP_NUM_THREADS", "1")
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            stdin=asyncio.subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        if token:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=f"could not start: {exc}"))
        return ProcessOutcome(127, False, "", f"ERROR: cannot start {argv[0]}: {exc}")

    cancelled = False

    def cancel() -> None:
        nonlocal cancelled
        cancelled = True
        _kill(proc)

    protocol = ls.protocol
    assert isinstance(protocol, HdecompProtocol)
    msg_id = protocol.msg_id
    if msg_id is not None:
        protocol.cancel_hooks[msg_id] = cancel
    if token and token in ls.work_done_progress.tokens:
        ls.work_done_progress.tokens[token].add_done_callback(lambda fut: cancel() if fut.cancelled() else None)

    last_report = 0.0

    async def pump(stream: asyncio.StreamReader | None, sink: list[str]) -> None:
        nonlocal last_report
        if stream is None:
            return
        while line := await stream.readline():
            text = line.decode("utf-8", errors="replace")
            sink.append(text)
            now = time.monotonic()
            if token and text.strip() and now - last_report > 0.1:
                last_report = now
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=text.strip()[:200]))

    out: list[str] = []
    err: list[str] = []
    try:
        await asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err))
        code = await proc.wait()
    except asyncio.CancelledError:
        cancel()
        raise
    finally:
        _kill(proc)
        if msg_id is not None:
            protocol.cancel_hooks.pop(msg_id, None)
        if token:
            ls.work_done_progress.tokens.pop(token, None)
    outcome = ProcessOutcome(code, cancelled, "".join(out), "".join(err))
    if token:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(
            message="cancelled" if cancelled else _STATUS.get(code, "ERROR")))
    return outcome


def _result(outcome: ProcessOutcome, summary: str, result_file: str | None) -> dict[str, Any]:
    if outcome.cancelled:
        return {"status": "ERROR", "exitCode": outcome.exit_code, "summary": "cancelled", "resultFile": None}
    status = _STATUS.get(outcome.exit_code, "ERROR")
    if status == "ERROR" and not summary:
        summary = _first_error_line(outcome.stderr + outcome.stdout) or f"exit code {outcome.exit_code}"
    return {"status": status, "exitCode": outcome.exit_code, "summary": summary,
            "resultFile": result_file if result_file and os.path.exists(result_file) else None}


async def _after_run(ls: HdecompLanguageServer, paths: set[str] | None = None) -> None:
    diagnostics.republish_all(ls, paths)
    await ls.refresh_lenses()
    await trees.check_for_changes(ls)


async def verify_step(ls: HdecompLanguageServer, refactored: str) -> dict[str, Any]:
    step = Path(refactored).parent
    original = step / "original.py"
    if not original.exists():
        return {"status": "ERROR", "exitCode": 2, "resultFile": None,
                "summary": f"ERROR: {original}: no original.py next to the refactored file"}
    result_file = step / diagnostics.RESULT_FILE
    settings = ls.settings.for_path(refactored)
    argv = [*settings.python_command(), "-m", "hdecomp", "verify-step", "--original", str(original),
            "--refactored", refactored, "--output", str(result_file), *settings.verify_flags()]
    if (step / WEIGHT_MAP_FILE).exists():
        argv += ["--weight-map", str(step / WEIGHT_MAP_FILE)]
    outcome = await run_process(ls, f"Verify {step.name}", argv, str(step))
    summary = ""
    if not outcome.cancelled and outcome.exit_code in (0, 1):
        summary = lens_title(read_result(refactored))
    if outcome.exit_code not in (0, 1):
        summary = _first_error_line(outcome.stderr + outcome.stdout)
    ls.runtime_findings.pop(os.path.normpath(refactored), None)
    await _after_run(ls, {os.path.normpath(refactored)})
    return _result(outcome, summary, str(result_file))


def _json_document(text: str) -> dict[str, Any] | None:
    """The `--json` document a command printed on stdout, None when there is none."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def verify_replacement(ls: HdecompLanguageServer, kernel: str, new: str) -> dict[str, Any]:
    root = replacements.tree_root(kernel)
    if root is None:
        return {"status": "ERROR", "exitCode": 2, "resultFile": None,
                "summary": f"ERROR: {kernel}: not a file of a decomposition (no decomposition_tree.json above it)"}
    settings = ls.settings.for_path(kernel)
    argv = [*settings.python_command(), "-m", "hdecomp", "replace", str(root), kernel, new, "--json",
            *settings.run_flags()]
    started = time.time()
    outcome = await run_process(ls, f"Verify replacement {Path(new).name}", argv, str(root))
    result = _json_document(outcome.stdout)
    kernel_info = result.get("kernel") if result else None  # the node id the CLI filed its result under
    kernel_id = kernel_info.get("id") if isinstance(kernel_info, dict) else None
    result_file = (root / replacements.REPLACEMENTS_DIR / kernel_id / replacements.REPLACEMENT_RESULT
                   if isinstance(kernel_id, str) else replacements.result_file(kernel))
    try:
        if result_file is not None and result_file.stat().st_mtime < started - 1:
            result_file = None  # an earlier run's: this one wrote none (an unusable DIR or kernel)
    except OSError:
        result_file = None
    if result is None and outcome.exit_code in (0, 1) and result_file is not None:
        result = read_result_file(result_file)
    summary = replacements.summary(result)
    await _after_run(ls)
    return _result(outcome, summary[:200], str(result_file) if result_file else None)


def untrusted(ls: HdecompLanguageServer, what: str) -> dict[str, Any] | None:
    """The refusal every command answers in an untrusted workspace (it would run the workspace's code)."""
    if ls.trusted:
        return None
    return {"status": "ERROR", "exitCode": 2, "resultFile": None,
            "summary": f"{what} runs the workspace's model code: disabled in an untrusted workspace"}


def register(server: HdecompLanguageServer) -> None:
    @server.command(VERIFY_STEP)
    async def cmd_verify_step(ls: HdecompLanguageServer, refactored: FilePath) -> dict[str, Any]:
        return untrusted(ls, "Verify step") or await verify_step(ls, refactored)

    @server.command(RUN_SELF_TEST)
    async def cmd_run_self_test(ls: HdecompLanguageServer, path: FilePath) -> dict[str, Any]:
        if refused := untrusted(ls, "Run self-test"):
            return refused
        settings = ls.settings.for_path(path)
        # a component's self-test is the file itself: `python file.py` prints PASS and exits 0
        outcome = await run_process(ls, f"Self-test {Path(path).name}", [*settings.python_command(), path],
                                    str(Path(path).parent))
        lines = [ln.strip() for ln in (outcome.stdout + outcome.stderr).splitlines() if ln.strip()]
        summary = next((ln for ln in reversed(lines) if "PASS" in ln or "FAIL" in ln), lines[-1] if lines else "")
        result = _result(outcome, summary[:200], None)
        if result["status"] == "PASS" and "PASS" not in outcome.stdout:
            # exit 0 without a verdict: the file has no self-test, which is not a pass
            result.update(status="FAIL", exitCode=1, summary="the self-test printed no PASS")
        return result

    @server.command(RUN_PIPELINE)
    async def cmd_run_pipeline(ls: HdecompLanguageServer, folder: FilePath) -> dict[str, Any]:
        if refused := untrusted(ls, "Run pipeline"):
            return refused
        settings = ls.settings.for_path(folder)
        argv = [*settings.python_command(), "-m", "hdecomp", "pipeline", folder, *settings.verify_flags()]
        outcome = await run_process(ls, f"Pipeline {Path(folder).name}", argv, folder)
        summary = _verdict_line(outcome.stdout) if outcome.exit_code in (0, 1) else ""
        ls.runtime_findings.clear()
        await _after_run(ls)
        return _result(outcome, summary[:200],
                       str(Path(folder) / "verification" / "step_verification_summary.json"))

    @server.command(PROFILE)
    async def cmd_profile(ls: HdecompLanguageServer, folder: FilePath) -> dict[str, Any]:
        if refused := untrusted(ls, "Profile"):
            return refused
        settings = ls.settings.for_path(folder)
        argv = [*settings.python_command(), "-m", "hdecomp", "profile", folder, *settings.run_flags()]
        outcome = await run_process(ls, f"Profile {Path(folder).name}", argv, folder)
        profile = Path(folder) / "verification" / PROFILE_FILE
        summary = ""
        comps = list(read_profile_components(folder).values()) if outcome.exit_code == 0 else []   # ranked
        if comps:
            top = comps[0]
            summary = (f"PASS: {len(comps)} components profiled; top: {top['id']} "
                       f"{100 * top['share_of_model']:.1f} % of model time")
        await _after_run(ls)
        return _result(outcome, summary, str(profile))

    @server.command(VERIFY_REPLACEMENT)
    async def cmd_verify_replacement(ls: HdecompLanguageServer, kernel: FilePath, new: FilePath) -> dict[str, Any]:
        return untrusted(ls, "Verify replacement") or await verify_replacement(ls, kernel, new)

    @server.command(DECOMPOSE)
    async def cmd_decompose(ls: HdecompLanguageServer, model: FilePath, *out_dir: Any) -> dict[str, Any]:
        # outDirUri may be left out, and pygls asks the client for every named parameter: it comes as *out_dir
        try:
            if len(out_dir) > 1:
                raise ValueError(f"expected 1 or 2 arguments, got {1 + len(out_dir)}")
            out = file_path(out_dir[0]) if out_dir and out_dir[0] else str(Path(model).parent / "output")
        except ValueError as exc:
            raise JsonRpcInvalidParams.of(exc) from exc
        if refused := untrusted(ls, "Decompose"):
            return refused
        settings = ls.settings.for_path(model)
        argv = [*settings.python_command(), "-m", "hdecomp", "decompose", model, "-o", out,
                *settings.verify_flags()]
        outcome = await run_process(ls, f"Decompose {Path(model).name}", argv, str(Path(model).parent))
        summary = _verdict_line(outcome.stdout) if outcome.exit_code in (0, 1) else ""
        await _after_run(ls)
        return _result(outcome, summary[:200], str(Path(out) / Path(model).stem / TREE_FILE))


__all__ = ["register", "run_process"]
