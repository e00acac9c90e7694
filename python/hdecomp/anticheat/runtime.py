"""Runtime anti-cheat: compute executed by the refactored forward outside every child's forward.

The op recorder attributes each op to the innermost running module of the model's tree; ops left with
the root (qualified name "") ran in RefactoredModel's own code — its forward, a helper it calls, a
function built with exec, a monkeypatched torch function, a module hidden from the tree in a plain
list, or a hook. Plumbing (views, casts, cat/split, indexing), residual `+` between two tensors and, in the
refactored file's own code, compute on host values alone (hdecomp.runtime.host_values: a causal mask from
`torch.ones(S, S).tril()`, `torch.div(64, 8)`, constants of the shapes that the static check reads as `HOST`)
and arithmetic on numbers alone (`OpEvent.number`: every tensor in and out a 0-dim integer or bool tensor,
LED's `max_num_global_attn_indices == 1`) are allowed there, and in the library functions the static check read
and found plumbing (static.library_host_code: torchvision's `_setup_scales`); every other compute op is a
violation (host compute in any other library code the parent calls too).

  HD401  compute op executed outside any child (aten level)
  HD402  op with no aten trace in eval mode (dropout) called outside any child

And, where the refactored side runs in a process of its own (hdecomp.verify.sides), what its code did to that
process (`check_isolation`):

  HD410  a global setting of torch or the interpreter changed, or an attribute of torch, its functional API,
         Tensor, the nn layers, time, gc, sys or builtins replaced (a patched comparison, clock or op)
  HD411  introspection of the process's memory (gc.get_objects, sys._getframe, ...): looking for tensors or
         frames it was not given
  HD412  a file of the reference cache opened, or a process started
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from hdecomp.anticheat.rules import AntiCheatViolation, RelatedLocation, SourceRange
from hdecomp.runtime.ops import OpEvent, OpTrace

HD401, HD402 = "HD401", "HD402"
HD410, HD411, HD412 = "HD410", "HD411", "HD412"

# aten compute ops a parent may run itself: residual connections.
RESIDUAL_OPS = frozenset({"add"})


def _resolved(file: str | Path) -> str | None:
    try:
        return str(Path(file).resolve())
    except OSError:
        return None


def root_compute_events(trace: OpTrace, own_file: str | Path | None = None) -> list[OpEvent]:
    """Compute events attributed to the root model that are not allowed there; `own_file`: the refactored
    file, whose own code may compute on host values, as may the library functions its forward calls that
    the static check read and found plumbing in (static.library_host_code)."""
    own = _resolved(own_file) if own_file is not None else None
    library = _library_code(own_file) if own_file is not None else {}

    def own_host_code(e: OpEvent) -> bool:
        # (host values, and arithmetic on numbers alone: every tensor in and out a 0-dim integer or bool, a
        # count or a padding amount, as rule Q5 reads it)
        if not (e.host or e.number) or own is None or e.where is None:
            return False
        file = _resolved(e.where[0])
        return file == own or any(a <= e.where[1] <= b for a, b in library.get(file or "", ()))

    out = []
    for e in trace.events:
        if e.module != "" or not e.compute:
            continue
        if e.level == "aten":
            if (e.name in RESIDUAL_OPS and e.residual) or own_host_code(e):
                continue
            out.append(e)
        elif e.aten_invisible and not own_host_code(e):
            out.append(e)
    return out


def _library_code(own_file: str | Path) -> dict[str, list[tuple[int, int]]]:
    """The library functions the static check proved plumbing where the refactored file calls them: file ->
    (first line, last line) of each."""
    from hdecomp.anticheat.static import library_host_code
    try:
        source = Path(own_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for file, first, last in library_host_code(source, str(own_file)):
        spans[file].append((first, last))
    return spans


def _line_text(file: str, line: int) -> str:
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def check_runtime(trace: OpTrace, refactored_path: str | Path | None = None) -> list[AntiCheatViolation]:
    """One violation per (op, source location) executed outside any child, with its count."""
    ref = _resolved(refactored_path) if refactored_path else None
    groups: dict[tuple[str, str, tuple[str, int] | None], list[OpEvent]] = defaultdict(list)
    for e in root_compute_events(trace, refactored_path):
        groups[(e.level, e.name, e.where)].append(e)
    found = []
    for (level, name, where), events in groups.items():
        count = len(events)
        raws = sorted({e.raw for e in events})
        rule = HD401 if level == "aten" else HD402
        file, rng, related, text = (str(refactored_path) if refactored_path else None), None, [], ""
        place = ""
        if where is not None:
            wfile, wline = where
            text = _line_text(wfile, wline)
            wrange = SourceRange(wline, len(text) - len(text.lstrip()), wline, len(text))
            if ref is not None and _resolved(wfile) == ref:
                rng = wrange
                file = str(refactored_path)
            else:
                # The op ran in code outside refactored.py (a helper file, exec'd source, a patched
                # function): point at it as related information.
                related.append(RelatedLocation(message=f"{name} executed here", range=wrange, file=wfile))
                place = f" (in {Path(wfile).name}:{wline})" if not wfile.startswith("<") else \
                    f" (in code built at runtime: {wfile})"
        message = (f"compute op '{name}' ran {count}× outside any child's forward{place}"
                   if level == "aten" else
                   f"'{name}' (no aten trace in eval mode) called {count}× outside any child's forward{place}")
        details: dict[str, Any] = {"count": count, "raw": raws, "level": level}
        found.append(AntiCheatViolation(
            rule=rule, kind="runtime", file=file, range=rng, line_text=text.strip(), op=name, related=related,
            message=message, allowed_instead=f"extract {name} into a child component (kernel) and call it",
            details=details))
    return found


def check_isolation(audit: dict[str, list[str]], refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD410-HD412 from the refactored side's process audit (hdecomp.verify.sides: `global_state`,
    `introspection`, `files`): one finding per rule, naming everything it saw."""
    file = str(refactored_path) if refactored_path else None
    found = []
    for rule, key, what, instead in (
            (HD410, "global_state", "changed the process's global state",
             "leave torch's settings and the functions of torch, time, gc and sys as they are; a kernel that needs a "
             "setting sets and restores it inside its own forward"),
            (HD411, "introspection", "reached into the process's memory",
             "use only the inputs, parameters and buffers a module is given"),
            (HD412, "files", "opened the verifier's files or started a process",
             "read and write nothing of the verifier's; run all compute in this process")):
        seen = audit.get(key) or []
        if seen:
            found.append(AntiCheatViolation(
                rule=rule, kind="runtime", file=file, message=f"the refactored side {what}: {'; '.join(seen[:6])}"
                + (f" (+{len(seen) - 6} more)" if len(seen) > 6 else ""),
                allowed_instead=instead, details={key: list(seen)}))
    return found


__all__ = ["HD401", "HD402", "HD410", "HD411", "HD412", "RESIDUAL_OPS", "check_isolation", "check_runtime",
           "root_compute_events"]
