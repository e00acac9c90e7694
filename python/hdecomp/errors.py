"""Precise, user-facing errors: every one names the file (and line when known) and the cause."""

from __future__ import annotations

from pathlib import Path

# The exit codes of every command (docs/DESIGN.md): PASS, FAIL (the verdict is a failure), ERROR (nothing could
# be judged: bad input, a crash, a timeout).
EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


class HdecompError(Exception):
    """An error the CLI reports as one line (`file:line: cause`) and exit code 2.

    `details` holds the longer explanation (e.g. a traceback excerpt) printed after the first line.
    """

    def __init__(self, cause: str, file: str | Path | None = None, line: int | None = None,
                 details: str | None = None) -> None:
        self.cause = cause
        self.file = str(file) if file is not None else None
        self.line = line
        self.details = details
        super().__init__(self.headline)

    @property
    def headline(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "") + ": "
        return where + self.cause


def read_source(path: str | Path, error: type[HdecompError] = HdecompError, cause: str = "cannot read file") -> str:
    """A user's file as UTF-8 text, or `error` as one line naming the file and why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{cause}: {exc.strerror or exc}", path) from None
    except UnicodeDecodeError as exc:
        raise error(f"{cause}: not UTF-8 ({exc.reason} at byte {exc.start})", path) from None


class DecomposeError(HdecompError):
    """A component the decomposer cannot capture, plan or write one way (the message says why). The decomposer
    catches each where another way is left to try; one that reaches the driver is a way with no fallback, a bug
    of ours, reported as an internal error."""


class ComponentLoadError(HdecompError):
    """A component file could not be imported, or lacks Model / get_inputs / get_init_inputs."""


class ComponentRunError(HdecompError):
    """A component's constructor or forward raised, hung, or ran out of memory."""


class ComponentTimeout(ComponentRunError):
    """A component's constructor or forward ran past the time limit."""
