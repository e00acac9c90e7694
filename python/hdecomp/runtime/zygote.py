"""The warm worker that side processes are forked from (`python -m hdecomp.runtime.zygote FD`).

A fresh interpreter imports torch and hdecomp's side servers once (WARM_MODULES) and then only forks: it runs
no tensor code and no code of any model, so every child starts clean, with no OpenMP state and nothing of
another side. A request on its socket is one JSON line with the child's module, arguments, environment and
working folder, and carries the child's end of a socket pair (SCM_RIGHTS); the child leads a session of its
own, reads nothing on stdin, writes stdout and stderr to the log named, replaces its environment with the one
sent (the caller's, as it is now) and runs `module.serve(*args, read_fd, write_fd)`. A request may name
installed packages to import first (`preload`: a model file's transformers or timm), here, once for every
child after it; only packages of site-packages, never a file of a user's folder. The answer is
`{"pid": N}`. Children are reaped as they end (SIGCHLD ignored). The worker ends when its caller does.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys

WARM_MODULES = ("torch", "torch._dynamo", "hdecomp.runtime.side", "hdecomp.verify.sides", "hdecomp.runtime.ops")


def _child(req: dict, fd: int) -> None:
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(req["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.environ.clear()
    os.environ.update(req["env"])
    os.chdir(req["cwd"])
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    code = 1
    try:
        code = importlib.import_module(req["module"]).serve(*req["args"], os.dup(fd), os.dup(fd))
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(code or 0))


def _installed(name: str) -> bool:
    """Whether top-level module `name` is an installed package (site-packages), not a file of some folder."""
    import importlib.util
    import sysconfig
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not isinstance(origin, str):
        return False
    sites = tuple(os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("purelib", "platlib"))
    return os.path.realpath(origin).startswith(sites)


def _preload(names: list[str]) -> None:
    """The installed packages a child's file imports (transformers, timm), imported here once for every child
    after it; a name that is not an installed package, or fails, is left to the child."""
    for name in names:
        if name not in sys.modules and _installed(name.split(".")[0]):
            try:
                importlib.import_module(name)
            except Exception:   # (the child's own import reports it)
                pass


def main(fd: int) -> None:
    for name in WARM_MODULES:
        importlib.import_module(name)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # (children reaped as they end)
    sock = socket.socket(fileno=fd)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 1)
        except OSError:
            return
        if not data:
            return
        req = json.loads(data)
        _preload(list(req.get("preload", [])))
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(req, fds[0])
        for f in fds:
            os.close(f)
        sock.sendall(json.dumps({"pid": pid}).encode() + b"\n")


if __name__ == "__main__":
    main(int(sys.argv[1]))
