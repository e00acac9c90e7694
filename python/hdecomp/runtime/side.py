"""One component in a process of its own, driven by a judge that never imports it.

`Side` (the judge's handle) starts `python -m hdecomp.runtime.side`, a fresh interpreter that loads one
component file (a kernel, or a candidate `ModelNew`), builds it, and answers requests over a pair of pipes
of its own (the component's stdout and stderr go to a log file, never into the protocol). Everything that
crosses is plain data (`runtime.wire`): the judge decodes values and tensors from bytes and never unpickles
or calls anything of the other side. The judge compares outputs and keeps the clock; a side only runs.

Requests (`op`): `load`, `inputs` (the file's own seeded draws), `state` / `set_state`, `call` (one forward
on given inputs, with what it did: its outputs at return and whether they changed after, the threads it
left running, whether they share memory with its inputs, its state or a previous call's outputs, its inputs
afterwards), `ops` (the aten op sequence), `work` (FLOPs and bytes), `prepare_timing` / `timed` (k forwards
on k fresh copies of the inputs, for the judge to time) and `noop`. Every answer carries `audit`: what the
process changed since it started (`process_state.ProcessState`), and, once a `load` asked to watch, the
introspection calls and the forbidden files of the watched component.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError


class SideError(HdecompError):
    """A side that died, hung past its time, or refused a request (its message names the cause)."""


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a Python child that must import this very hdecomp (a checkout on sys.path, not
    the installed one): its package root first on PYTHONPATH."""
    import hdecomp
    root = str(Path(hdecomp.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, *([path] if path else [])]), **(extra or {})}


class Side:
    """The judge's handle on one side process (a context manager: closed and killed on exit)."""

    def __init__(self, name: str, *, timeout: float | None = None, env: dict[str, str] | None = None,
                 cwd: str | Path | None = None, module: str = "hdecomp.runtime.side",
                 args: tuple[str, ...] = (), preload: tuple[str, ...] = ()) -> None:
        """`module`'s `serve(*args, read_fd, write_fd)` answers the requests, in a child forked from the warm
        worker (hdecomp.runtime.zygote: a fresh interpreter that imported torch and hdecomp once and runs nothing
        else; `preload`: installed packages it imports first, once), or, where forking is not available, in a
        fresh interpreter (`python -m module`)."""
        self.name = name
        self.timeout = timeout
        self.log = tempfile.NamedTemporaryFile(prefix=f"hdecomp-side-{name}-", suffix=".log", delete=False)
        zygote = _zygote()
        if zygote is not None:
            ours, theirs = socket.socketpair()
            try:
                self.proc: Any = zygote.fork(module, args, theirs.fileno(), self.log.name, env, cwd, preload)
            finally:
                theirs.close()
            if self.proc is not None:
                self._out = os.fdopen(os.dup(ours.fileno()), "wb", buffering=0)
                self._in = os.fdopen(os.dup(ours.fileno()), "rb", buffering=0)
                ours.close()
                return
            ours.close()
            _ZYGOTE[:] = [False]   # (the worker died: this process starts its sides fresh from now on)
        to_side_r, to_side_w = os.pipe()
        from_side_r, from_side_w = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args, str(to_side_r), str(from_side_w)],
            pass_fds=(to_side_r, from_side_w), stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            env=child_env(env), cwd=cwd, start_new_session=True)
        os.close(to_side_r)
        os.close(from_side_w)
        self._out = os.fdopen(to_side_w, "wb", buffering=0)
        self._in = os.fdopen(from_side_r, "rb", buffering=0)

    def __enter__(self) -> Side:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, op: str, buffers: list[bytes] | None = None, *, timeout: float | None = None,
                **params: Any) -> tuple[dict[str, Any], list[bytes]]:
        """Send one request and wait for its answer; SideError where the side failed (with its reason)."""
        self.send(op, buffers, **params)
        return self.receive(op, timeout=timeout)

    def send(self, op: str, buffers: list[bytes] | None = None, **params: Any) -> None:
        """Send one request (`receive` waits for its answer: two sides can work at once)."""
        from hdecomp.runtime.wire import write_frame
        try:
            write_frame(self._out, {"op": op, **params}, buffers)
        except OSError as exc:
            self.close()
            raise SideError(f"the {self.name} process ended before `{op}` ({exc}){self._log_tail()}") from None

    def receive(self, op: str, *, timeout: float | None = None) -> tuple[dict[str, Any], list[bytes]]:
        from hdecomp.runtime.wire import WireError, read_frame
        limit = timeout if timeout is not None else (None if self.timeout is None else 3 * self.timeout + 60)
        try:
            if limit is not None and not select.select([self._in], [], [], limit)[0]:
                self.close()
                raise SideError(f"the {self.name} process did not answer `{op}` within {limit:.0f} s")
            message, got = read_frame(self._in)
        except (OSError, WireError) as exc:
            self.close()
            raise SideError(f"the {self.name} process ended during `{op}` ({exc}){self._log_tail()}") from None
        if "error" in message:
            raise SideError(str(message["error"]))
        return message, got

    def timed(self, op: str, **params: Any) -> tuple[float, dict[str, Any]]:
        """(seconds from sending `op` to its answer, by the judge's own clock, the answer)."""
        t0 = time.perf_counter()
        message, _ = self.request(op, **params)
        return time.perf_counter() - t0, message

    def close(self) -> None:
        """End the side: the pipe closed (its loop returns), then, after 5 s, killed; and every process it
        started (its session: a component's worker, a thread pool's helper) killed with it."""
        for f in (self._out, self._in):   # (both ends: a socket closes when its last descriptor does)
            with contextlib.suppress(OSError):
                f.close()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        import signal
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)   # (the side led a session of its own)
        self.log.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)

    def _log_tail(self) -> str:
        try:
            tail = Path(self.log.name).read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        except OSError:
            return ""
        return (": " + " | ".join(tail)) if tail else ""


class _Zygote:
    """This process's handle on its warm worker (hdecomp.runtime.zygote), started on first use."""

    def __init__(self) -> None:
        import threading
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen([sys.executable, "-m", "hdecomp.runtime.zygote", str(theirs.fileno())],
                                     pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_env(),
                                     start_new_session=True)
        theirs.close()
        self.sock = ours
        self.lock = threading.Lock()
        self.owner = os.getpid()   # (a process forked from this one starts a worker of its own)

    def fork(self, module: str, args: tuple[str, ...], fd: int, log: str, env: dict[str, str] | None,
             cwd: str | Path | None, preload: tuple[str, ...] = ()) -> _ForkedChild | None:
        """A child serving `module` on `fd`, with this process's environment (and `env`) and folder, the
        installed packages `preload` imported in the worker first; None where the worker is gone."""
        req = {"module": module, "args": list(args), "log": log, "env": {**os.environ, **(env or {})},
               "cwd": str(cwd) if cwd is not None else os.getcwd(), "preload": list(preload)}
        with self.lock:
            try:
                socket.send_fds(self.sock, [json.dumps(req).encode()], [fd])
                answer = self.sock.recv(1 << 16)
            except OSError:
                return None
        if not answer:
            return None
        return _ForkedChild(int(json.loads(answer)["pid"]))


_ZYGOTE: list[_Zygote | bool] = []   # [the worker] once started, [False] once it failed


def _zygote() -> _Zygote | None:
    """The warm worker, or None where sides start as fresh interpreters (HDECOMP_SIDE_FORK=0, no fork, or a
    worker that failed in this process)."""
    if os.environ.get("HDECOMP_SIDE_FORK", "1") in ("0", "false", "no") or not hasattr(os, "fork"):
        return None
    if not _ZYGOTE or (isinstance(_ZYGOTE[0], _Zygote) and _ZYGOTE[0].owner != os.getpid()):
        _ZYGOTE[:] = [_Zygote()]
    worker = _ZYGOTE[0]
    return worker if isinstance(worker, _Zygote) else None


class _ForkedChild:
    """A side forked by the warm worker (not our child: it reaps them), read as a subprocess.Popen is."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return 0
        except PermissionError:   # (the pid went to another user's process)
            return 0
        return None

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("hdecomp side", timeout or 0)
            time.sleep(0.01)
        return 0

    def kill(self) -> None:
        import signal
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)


def digest(buffers: list[bytes]) -> str:
    h = hashlib.sha256()
    for b in buffers:
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


# ---- the side process --------------------------------------------------------------------------------------


class _ThreadWatch:
    """While active (and `on`), the threads started through `threading` note themselves (a trace function
    installed in each new thread: the time of its latest call, line or return), so that after the call one
    can tell which of them still ran after it returned (`unawaited`), whether or not they are done by the
    time one looks. (A trace, not a profile function: a component may install a profile function of its own
    meanwhile, which the global-state check reports.) The hook is removed on exit."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.last_seen: dict[Any, float] = {}   # thread -> time of its latest event
        self.returned = float("inf")

    def __enter__(self) -> _ThreadWatch:
        if not self.on:
            return self
        import threading

        def in_new_thread(frame: Any, event: str, arg: Any) -> Any:
            self.last_seen[threading.current_thread()] = time.monotonic()
            return in_new_thread

        threading.settrace(in_new_thread)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.on:
            import threading
            self.returned = time.monotonic()
            threading.settrace(None)   # type: ignore[arg-type]

    def unawaited(self) -> list[str]:
        """Threads started during the call that were still running when it returned."""
        import threading
        return [t.name for t, seen in list(self.last_seen.items())
                if t is not threading.current_thread() and (seen > self.returned or t.is_alive())]


class _Server:
    def __init__(self) -> None:
        # (imported by the op recording anyway, and it wraps torch.manual_seed & co on import: imported before
        # the baseline, so that only what the component changes counts)
        import torch._dynamo  # noqa: F401

        from hdecomp.runtime.process_state import ProcessState, live_threads
        self.baseline = ProcessState()
        self.threads = live_threads()     # the side's own (the main thread): any other is the component's
        self.comp: Any = None
        self.model: Any = None
        self.device: Any = None
        self.timeout: float | None = None
        self.watches: list[Any] = []
        self.previous: list[Any] = []     # the last call's outputs, kept alive: (outputs, their digest)
        self.timing: list[Any] = []
        self.left_by_forward: list[str] = []   # settings a forward changed for its caller
        self.unawaited: list[str] = []         # threads a forward started and did not join

    # -- requests --

    def load(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        import torch

        from hdecomp.runtime.component import load_component, run_user_code, seed_everything
        from hdecomp.runtime.process_state import FileWatch, Introspection
        from hdecomp.runtime.wire import decode, encode
        path = Path(msg["path"])
        self.timeout = msg.get("timeout")
        self.device = torch.device(msg.get("device") or "cpu")
        if msg.get("watch"):
            self.watches = [FileWatch({Path(p) for p in msg.get("forbidden", [])}).__enter__(),
                            Introspection({str(path)}).__enter__()]
        limit = msg.get("batch_limit")
        comp = load_component(path, class_names=tuple(msg["class_names"]),
                              require_inputs=bool(msg.get("require_inputs", True)), timeout=self.timeout)
        answer: dict[str, Any] = {}
        out_buffers: list[bytes] = []
        if msg.get("init") is None:
            kept = comp.batch_size_kept(limit, self.timeout)
            init = comp.init_inputs(self.timeout, batch_limit=limit)
            seed_everything(int(msg.get("seed", 0)))
            model = comp.build(self.device, self.timeout, batch_limit=limit)
            answer["init"], out_buffers = encode(init)
            answer["batch_kept"] = kept is not None
        else:
            init = decode(msg["init"], buffers)
            lower = None if msg.get("batch_kept") else limit
            with comp._batch_size_lowered(lower, record=False, checked=False):
                seed_everything(int(msg.get("seed", 0)))
                model = run_user_code(lambda: comp.model_class(*init), what=f"{comp.class_name}(*get_init_inputs())",
                                      path=path, timeout=self.timeout)
            if not isinstance(model, torch.nn.Module):
                raise HdecompError(f"{comp.class_name} is not an nn.Module", path)
            model = model.to(self.device)
            model.eval()
        self.comp, self.model = comp, model
        answer["state"] = {k: [list(v.shape), str(v.dtype).removeprefix("torch.")]
                           for k, v in model.state_dict().items()}
        return answer, out_buffers

    def inputs(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        from hdecomp.runtime.batch_limit import limited_inputs
        from hdecomp.runtime.settings import RunSettings
        from hdecomp.runtime.wire import encode
        run = RunSettings(device=str(self.device), batch_limit=msg.get("batch_limit"), timeout=self.timeout)
        draws = [list(limited_inputs(self.comp, run, seed=int(s), model=self.model)) for s in msg["seeds"]]
        desc, bufs = encode(draws)
        return {"draws": desc}, bufs

    def state(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        from hdecomp.runtime.wire import encode
        desc, bufs = encode(dict(self.model.state_dict()))
        return {"state": desc}, bufs

    def set_state(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        import torch

        from hdecomp.runtime.wire import decode
        state = {k: v.to(self.device) for k, v in decode(msg["state"], buffers).items()}
        with torch.no_grad():
            self.model.load_state_dict(state, strict=True)
            self.model._apply(lambda t: t)   # (modules drop what they derived from their weights, as on .to())
        return {}, []

    def _inputs(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[list[Any], dict[str, Any]]:
        from hdecomp.runtime.component import move_to
        from hdecomp.runtime.wire import decode
        args, kwargs = decode(msg["inputs"], buffers)
        return move_to(list(args), self.device), move_to(dict(kwargs), self.device)

    def _forward(self, args: list[Any], kwargs: dict[str, Any], watch_threads: bool = False,
                 mode: Any = None) -> Any:
        """One forward under no_grad (inside `mode`, a context manager around the model's call alone, where
        given); a setting it leaves changed for its caller (grad mode switched back on inside the caller's
        no_grad, which the block's exit would hide) is kept for the audit. With `watch_threads`, the threads
        it starts and that still run after it returned are noted (`self.unawaited`), whether or not they
        are done by the time one looks."""

        import torch

        from hdecomp.runtime.component import run_user_code
        from hdecomp.runtime.process_state import settings
        with torch.no_grad():
            before = settings()
            with _ThreadWatch(watch_threads) as threads, (mode or contextlib.nullcontext()):
                out = run_user_code(lambda: self.model(*args, **kwargs), what=f"{type(self.model).__name__}.forward",
                                    path=self.comp.path, timeout=self.timeout)
            after = settings()
        self.unawaited += [name for name in threads.unawaited() if name not in self.unawaited]
        for k, v in after.items():
            change = f"{k}: {before[k]!r} -> {v!r} across a forward"
            if v != before.get(k) and change not in self.left_by_forward:
                self.left_by_forward.append(change)
        return out

    def _sync(self) -> None:
        import torch
        if self.device is not None and self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def call(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        from hdecomp.runtime.batch_limit import tensors_at
        from hdecomp.runtime.process_state import live_threads
        from hdecomp.runtime.wire import encode
        args, kwargs = self._inputs(msg, buffers)
        out = self._forward(args, kwargs, watch_threads=True)
        # (looked at first: a thread that finishes the work a moment after the return is still running now)
        at_return = {name for ident, name in live_threads().items() if ident not in self.threads}
        desc, bufs = encode(out)            # what it returned, as it returned it
        self._sync()
        time.sleep(float(msg.get("settle", 0.0)))
        self._sync()
        _, again = encode(out)
        # a thread of the component's still running (started by this call, at import or by the constructor)
        left = sorted(at_return | {name for ident, name in live_threads().items() if ident not in self.threads}
                      | {f"{name} (started by forward, not joined)" for name in self.unawaited})

        def storages(obj: Any) -> set[int]:
            out = set()
            for _, t in tensors_at(obj, ""):
                try:
                    if t.numel() and t.untyped_storage().nbytes():
                        out.add(t.untyped_storage().data_ptr())
                except (RuntimeError, NotImplementedError):   # a wrapper subclass with no storage of its own
                    continue
            return out
        mine = storages(out)
        held = storages([args, kwargs]) | storages([*self.model.parameters(), *self.model.buffers()])
        answer: dict[str, Any] = {"out": desc, "changed_after": digest(again) != digest(bufs), "threads_left": left,
                                  "alias": bool(mine & held)}
        if self.previous:
            prev_out, prev_digest = self.previous
            answer["shares_previous"] = bool(mine & storages(prev_out))
            answer["previous_changed"] = digest(encode(prev_out)[1]) != prev_digest
        self.previous = [out, digest(bufs)]
        if msg.get("return_inputs"):
            answer["inputs_after"], after = encode([args, kwargs])
            answer["inputs_after_buffers"] = [len(bufs), len(bufs) + len(after)]
            bufs = bufs + after
        return answer, bufs

    def ops(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        from torch.utils._python_dispatch import TorchDispatchMode

        args, kwargs = self._inputs(msg, buffers)
        seen: list[list[Any]] = []

        class Trace(TorchDispatchMode):
            def __torch_dispatch__(self, func: Any, types: Any, a: tuple[Any, ...] = (), k: Any = None) -> Any:
                import torch
                seen.append([func._overloadpacket.__name__, [list(x.shape) for x in a if isinstance(x, torch.Tensor)]])
                return func(*a, **(k or {}))

        self._forward(args, kwargs, mode=Trace())   # (the model's call alone: not the settings read around it)
        return {"ops": seen}, []

    def work(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        import torch

        from hdecomp.runtime.work import bytes_moved, count_flops
        args, kwargs = self._inputs(msg, buffers)
        flops, by_op = count_flops(self.model, args, kwargs)
        with torch.no_grad():
            out = self.model(*args, **kwargs)
        return {"flops": flops, "by_op": by_op, "bytes": bytes_moved(self.model, args, kwargs, out)}, []

    def prepare_timing(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        """k copies of the inputs, each of its own memory and, for float inputs, its own values (scaled by
        1 + i/1000): nothing a forward could recognise from a run before, by address or by content."""
        from hdecomp.runtime.component import map_nested
        args, kwargs = self._inputs(msg, buffers)
        def copy(i: int) -> Any:
            scale = 1.0 + (i + 1) / 1000.0
            return map_nested([args, kwargs], lambda t: t * scale if t.is_floating_point() else t.clone())
        self.timing = [copy(i) for i in range(int(msg["k"]))]
        return {}, []

    def timed(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        import torch
        with torch.no_grad():
            # each run on copies of its own (nothing to recognise), the last made first: its inputs are the
            # most recently written, still in cache, as a layer's are when the one before it just wrote them
            for args, kwargs in reversed(self.timing):
                self.model(*args, **kwargs)
        self._sync()
        # the answer waits for any thread of the component's: work left running counts in the time
        import threading
        for t in threading.enumerate():
            if t.ident not in self.threads and t is not threading.current_thread():
                t.join(timeout=self.timeout or 60.0)
        self.timing = []
        return {}, []

    def noop(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        return {}, []

    def bind(self, msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        """Whether forward takes these inputs (None, or why not)."""
        import inspect
        args, kwargs = self._inputs(msg, buffers)
        try:
            inspect.signature(self.model.forward).bind(*args, **kwargs)
        except TypeError as exc:
            return {"problem": str(exc)}, []
        except ValueError:   # no signature to read (a builtin): the call itself will tell
            pass
        return {"problem": None}, []

    def audit(self) -> dict[str, Any]:
        from hdecomp.runtime.process_state import audit_report
        out: dict[str, Any] = audit_report(self.baseline, *self.watches)
        if not self.watches:   # (nothing watched: no file or introspection findings to report)
            del out["files"], out["introspection"]
        out["global_state"] += self.left_by_forward
        return out


def serve_requests(read_fd: int, write_fd: int, answer: Any) -> int:
    """A side's loop: one request, one answer (`answer(message, buffers)`, which never raises), until the
    judge closes the pipe."""
    from hdecomp.runtime.wire import WireError, open_pipe_ends, read_frame, write_frame
    inbox, outbox = open_pipe_ends(read_fd, write_fd)
    while True:
        try:
            msg, buffers = read_frame(inbox)
        except WireError:
            return 0
        reply, out = answer(msg, buffers)
        write_frame(outbox, reply, out)


def serve(read_fd: int, write_fd: int) -> int:
    """This side's loop (serve_requests): a request's error is its answer, with the audit, and the side goes on."""
    server = _Server()

    def answer(msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        op = msg.get("op")
        handler = getattr(server, str(op), None) if op in _OPS else None
        try:
            if handler is None:
                raise HdecompError(f"unknown request {op!r}")
            reply, out = handler(msg, buffers)
        except HdecompError as exc:
            reply, out = {"error": exc.headline}, []
        except Exception as exc:   # a bug of ours, or a value that does not cross: named, the side goes on
            reply, out = {"error": f"{type(exc).__name__}: {exc}"}, []
        if op != "timed" and op != "noop":
            reply["audit"] = server.audit()
        return reply, out
    return serve_requests(read_fd, write_fd, answer)


_OPS = {"load", "inputs", "state", "set_state", "call", "ops", "work", "prepare_timing", "timed", "noop", "bind"}


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1]), int(sys.argv[2])))
