"""The warm worker's server: run as a script (`python forkserver.py [MODULE...]`), never imported by hdecomp.

It imports torch (and the given third-party modules) once, then runs each requested file in a child forked
for that file alone, as `python FILE` would: the file is `__main__`, `sys.argv` and `sys.path[0]` are its
own, its stdout and stderr go to the requested output file, stdin is empty, it leads a session of its own
(a time-out kills the whole group), and everything it imports, defines or leaks dies with the child. The
server itself never runs tensor code, so a forked child starts with no OpenMP or CUDA state.

Protocol (one request at a time): a JSON line on stdin
`{"path", "cwd", "argv", "output", "batch_limit"}`; the server answers on its original stdout with
`{"pid": N}` when the child runs and `{"returncode": RC}` when it ended (-SIG when a signal killed it).
Only the standard library is used here besides the preloaded modules.
"""

from __future__ import annotations

import builtins
import importlib
import json
import os
import re
import select
import signal
import sys
import traceback
import types

# The lowering of `--batch-limit`, as the self-test bootstrap does it: the file's top-level int
# `batch_size = K` becomes min(K, limit), one line edited in place (line numbers stay); a line whose comment
# says `hdecomp: not lowered` (hdecomp.runtime.component.NOT_LOWERED_TAG) stays as it is.
BATCH_LINE = re.compile(r"^batch_size[ \t]*=[ \t]*([0-9]+)[ \t]*(#.*)?$", re.MULTILINE)
NOT_LOWERED_TAG = "hdecomp: not lowered"


def lower_batch_size(source: str, limit: int) -> str:
    return BATCH_LINE.sub(lambda m: m.group(0) if NOT_LOWERED_TAG in (m.group(2) or "") else
                          f"batch_size = {min(int(m.group(1)), limit)}" + (f"  {m.group(2)}" if m.group(2) else ""),
                          source)


def _exit_code(exc: SystemExit) -> int:
    """What `python FILE` exits with for `sys.exit(code)`."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_main(req: dict) -> int:
    os.chdir(req["cwd"])
    path = os.path.abspath(req["path"])   # as `python FILE` names its __main__ (Python >= 3.9)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if req.get("batch_limit") is not None:
        source = lower_batch_size(source, int(req["batch_limit"]))
    sys.argv = list(req["argv"])
    sys.path[0] = os.path.dirname(path)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    try:
        exec(compile(source, path, "exec"), main.__dict__)
    except SystemExit as exc:
        return _exit_code(exc)
    except BaseException as exc:   # as `python FILE` prints it: from the file's own frames on
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
        return 1
    return 0


def _child(req: dict, ctl: int) -> None:
    code = 1
    try:
        os.setsid()
        fd = os.open(req["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.close(ctl)
        code = _run_main(req)
        try:   # the file's own exit handlers, as at the end of `python FILE`
            import atexit
            atexit._run_exitfuncs()
        except BaseException:
            traceback.print_exc()
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main() -> None:
    # Replies go to the original stdout; fd 1 then points nowhere, so a preloaded module's prints
    # cannot corrupt the protocol.
    ctl = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    import torch  # noqa: F401  (the point of the server: imported once, before any fork)
    for name in sys.argv[1:]:
        try:
            importlib.import_module(name)
        except BaseException:  # the file's own import reports it, as in a fresh interpreter
            pass
    reply = os.fdopen(ctl, "w", buffering=1)
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = os.read(0, 65536)
            if not chunk:
                return   # the client is gone
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        if not line.strip():
            continue
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(req, ctl)
        reply.write(json.dumps({"pid": pid}) + "\n")
        rc = _wait(pid)
        if rc is None:
            return
        reply.write(json.dumps({"returncode": rc}) + "\n")


def _wait(pid: int) -> int | None:
    """The child's exit code; None when the client went away first (the child's session is killed then:
    a client killed at its own time-out leaves no file running)."""
    try:
        done = os.pidfd_open(pid)
    except (AttributeError, OSError):   # no pidfd: poll
        done = None
    try:
        while True:
            ready, _, _ = select.select([0] + ([done] if done is not None else []), [], [],
                                        None if done is not None else 0.02)
            if 0 in ready and not os.read(0, 1):   # EOF (a client sends nothing while a file runs)
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                os.waitpid(pid, 0)
                return None
            got, status = os.waitpid(pid, os.WNOHANG)
            if got == pid:
                return os.waitstatus_to_exitcode(status)
    finally:
        if done is not None:
            os.close(done)

if __name__ == "__main__":
    main()
