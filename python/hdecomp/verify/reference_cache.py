"""The original's side of verify-step's trials, cached on disk: re-verifying a step after editing
refactored.py (the editor's "Verify step", a pipeline re-run) runs the refactored model alone.

What a trial takes from the original (its output, the inputs it mutated, whether it drew random
numbers, and the first trial's op trace) is a function of the original file and the user modules it
imports, the trial's seeds, the batch limit, the device, and the versions of torch, hdecomp (its version
and the code of its runtime/ and verify/ packages) and the third-party packages the original imports: the
cache key hashes exactly those. The refactored file is
not part of it. An original whose forward writes its own parameters or buffers is never cached (a
later trial would start from another state). The weights still come from the original model, built as
before; only its forwards are skipped.

Where: `$HDECOMP_CACHE_DIR`, else `$XDG_CACHE_HOME/hdecomp/reference`, else `~/.cache/hdecomp/reference`;
never inside a decomposition's output tree. Bounded: `$HDECOMP_CACHE_MAX_MB` (default 4096 MiB) in all,
least recently used entries evicted first; one step's outputs above a quarter of that are not cached.
`HDECOMP_CACHE=0` (or VerifyOptions.reference_cache=False, `--no-cache`) turns it off.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from hdecomp import __version__
from hdecomp.runtime.component import map_nested, nested_tensor_bytes
from hdecomp.runtime.ops import OpEvent, OpTrace

FORMAT = 1
_DEFAULT_MAX_MB = 4096


def cache_root() -> Path:
    explicit = os.environ.get("HDECOMP_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hdecomp" / "reference"


def cache_enabled() -> bool:
    return os.environ.get("HDECOMP_CACHE", "1") not in ("0", "false", "no")


def max_bytes() -> int:
    try:
        return int(float(os.environ.get("HDECOMP_CACHE_MAX_MB", _DEFAULT_MAX_MB)) * (1 << 20))
    except ValueError:
        return _DEFAULT_MAX_MB << 20


@dataclass
class Reference:
    """The original's side of one trial."""
    output: Any
    mutated: list[str]
    drew_random: bool
    trace: OpTrace | None
    module_calls: dict[str, int] | None = None   # how often each submodule of the original ran (None: unknown)


_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def _package_versions(sources: list[str]) -> list[tuple[str, str]]:
    """(name, version) of the loaded third-party packages the sources import."""
    out = []
    for name in sorted({n for s in sources for n in _IMPORT.findall(s)}):
        mod = sys.modules.get(name)
        version = getattr(mod, "__version__", None) if mod is not None else None
        if isinstance(version, str):
            out.append((name, version))
    return out


@functools.cache
def _code_version() -> str:
    """A hash of the code that makes a trial's inputs and records the original's run (hdecomp's runtime/ and
    verify/ packages): a changed hdecomp never reads references made by another, whatever its version
    string says."""
    h = hashlib.sha256()
    base = Path(__file__).resolve().parent.parent
    for sub in ("runtime", "verify"):
        for f in sorted((base / sub).glob("*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def step_key(path: Path, imported: list[Any], class_name: str, *, seeds: tuple[float, ...],
             settings: dict[str, Any]) -> str:
    """The cache key of an original file: its content and its imported user modules', the class, the
    seeds, the run settings that change what it computes (`settings`: verify.result.REFERENCE_KEY_OPTIONS,
    in that order) and the software versions."""
    h = hashlib.sha256()
    sources = [path.read_text(encoding="utf-8")]
    for mod in imported:
        f = getattr(mod, "__file__", None)
        if f and Path(f).is_file():
            sources.append(Path(f).read_text(encoding="utf-8"))
    parts: list[Any] = [FORMAT, __version__, _code_version(), torch.__version__, sys.version_info[:2], class_name,
                        seeds, *settings.values(), _package_versions(sources), torch.get_default_dtype()]
    h.update(repr(parts).encode())
    for s in sources:
        h.update(hashlib.sha256(s.encode()).digest())
    return h.hexdigest()[:32]


def state_fingerprint(model: torch.nn.Module, sample: int = 4096) -> str:
    """A short hash of `model`'s parameters and buffers as built (names, shapes, dtypes and an evenly strided
    sample of each tensor's bytes): part of a reference's label, so that a build that is not reproducible
    (a parameter a library leaves as `torch.empty` memory for an init that never runs: FastSpeech2's
    attention biases built outside their PreTrainedModel) never reads a reference made with other values."""
    h = hashlib.sha256()
    for name, t in [*model.named_parameters(), *model.named_buffers()]:
        h.update(f"{name}{tuple(t.shape)}{t.dtype}".encode())
        if t.is_meta or t.numel() == 0:
            continue
        flat = t.detach().reshape(-1)
        flat = flat[:: max(1, flat.numel() // sample)][:sample].contiguous()
        h.update(flat.view(torch.uint8).cpu().numpy().tobytes())
    return h.hexdigest()[:12]


def _label_file(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", label) + ".pt"


# what a cached reference may hold besides tensors and plain containers
_SAFE: list[Any] = [OpTrace, OpEvent, collections.Counter]


class ReferenceCache:
    """The references of one original (one key): read lazily per trial, written as trials compute them."""

    def __init__(self, key: str, root: Path | None = None, limit: int | None = None) -> None:
        self.root = root or cache_root()
        self.dir = self.root / key
        self.limit = max_bytes() if limit is None else limit
        self.hits = 0
        self.stored = 0
        self.poisoned = False   # the original writes its own state: nothing of it is cached
        self._bytes = 0

    def get(self, label: str, *, need_trace: bool, device: torch.device) -> Reference | None:
        if self.poisoned:
            return None
        f = self.dir / _label_file(label)
        try:
            # (tensors, containers and the trace's own classes only: a file planted in the cache runs no code;
            # an output of a class of the model's own is computed again)
            with torch.serialization.safe_globals(_SAFE):
                data = torch.load(f, map_location=device, weights_only=True, mmap=device.type == "cpu")
        except Exception:   # missing, partial, from another version, not loadable safely: computed again
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT or (need_trace and data["trace"] is None):
            return None
        with contextlib.suppress(OSError):
            os.utime(self.dir)   # recently used: evicted last
        self.hits += 1
        return Reference(data["output"], list(data["mutated"]), bool(data["drew_random"]), data["trace"],
                         data.get("module_calls"))

    def put(self, label: str, ref: Reference) -> None:
        if self.poisoned:
            return
        size = nested_tensor_bytes(ref.output)
        self._bytes += size
        if self._bytes > self.limit // 4:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".part-", suffix=".pt")
        os.close(fd)
        try:
            torch.save({"format": FORMAT, "output": _to_cpu(ref.output), "mutated": ref.mutated,
                        "drew_random": ref.drew_random, "trace": ref.trace, "module_calls": ref.module_calls}, tmp)
            os.replace(tmp, self.dir / _label_file(label))
            self.stored += 1
        except Exception:   # an output that cannot be pickled, a full disk: not cached
            Path(tmp).unlink(missing_ok=True)
            return
        evict(self.root, self.limit, keep=self.dir)

    def poison(self) -> None:
        """The original's forward wrote its own parameters or buffers: drop what is cached for it."""
        self.poisoned = True
        shutil.rmtree(self.dir, ignore_errors=True)


def _to_cpu(obj: Any) -> Any:
    return map_nested(obj, lambda t: t.detach().cpu())


def _dir_bytes(d: Path) -> int:
    return sum(f.stat().st_size for f in d.iterdir() if f.is_file())


def evict(root: Path, limit: int, keep: Path | None = None) -> None:
    """Remove the least recently used entries until the cache holds at most `limit` bytes."""
    try:
        entries = [(d.stat().st_mtime, d, _dir_bytes(d)) for d in root.iterdir() if d.is_dir()]
    except OSError:
        return
    total = sum(size for _, _, size in entries)
    for _, d, size in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        if keep is not None and d == keep:
            continue
        shutil.rmtree(d, ignore_errors=True)
        total -= size


__all__ = ["Reference", "ReferenceCache", "cache_enabled", "cache_root", "evict", "step_key"]
