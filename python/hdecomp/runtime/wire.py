"""Plain data between processes that do not trust each other: nested values as JSON, tensors as their
bytes, dtype, shape and strides. Decoding never runs code of the sender (no pickle): a value is rebuilt
from a fixed vocabulary of containers and numbers, and a tensor from its bytes alone.

A frame is a 4-byte big-endian length, then the JSON header (`{"value": ..., "nbuf": N}`), then N
buffers, each length-prefixed. Inside `value`:
- JSON numbers, strings, booleans and null stand for themselves; a non-finite float is `{"float": "nan"}`;
- `{"list": [...]}`, `{"tuple": [...]}`, `{"dict": [[key, value], ...]}` (keys: str, int, float, bool, None);
- `{"tensor": i, "dtype": "float32", "shape": [...], "stride": [...], "device": "cpu", "type": "Tensor"}`:
  buffer i holds the values in row-major order; `stride` and `type` are the sender's, kept for the checks;
- `{"dataclass": "Name", "fields": {"dict": ...}}` and `{"namedtuple": "Name", "fields": [...]}`;
- `{"object": "module.Qualname"}`: anything else, named only (its values do not cross).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import struct
from typing import Any, BinaryIO

import torch

_LEN = struct.Struct(">Q")


class WireError(Exception):
    """A frame that is not plain data, or a pipe that closed."""


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _dtype(name: str) -> torch.dtype:
    value = getattr(torch, name, None)
    if not isinstance(value, torch.dtype):
        raise WireError(f"not a dtype: {name!r}")
    return value


def encode(value: Any) -> tuple[Any, list[bytes]]:
    """(the JSON-able description of `value`, its tensors' bytes)."""
    buffers: list[bytes] = []

    def walk(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            t = v.detach()
            dense = t.to("cpu") if t.layout == torch.strided and not t.is_meta else None
            raw = b""
            if dense is not None and dense.numel():
                flat = torch.Tensor.contiguous(torch.Tensor.as_subclass(dense, torch.Tensor)).reshape(-1)
                raw = flat.view(torch.uint8).numpy().tobytes()
            buffers.append(raw)
            return {"tensor": len(buffers) - 1, "dtype": _dtype_name(t.dtype), "shape": list(t.shape),
                    "stride": list(t.stride()) if t.layout == torch.strided else None,
                    "device": str(v.device), "type": f"{type(v).__module__}.{type(v).__qualname__}",
                    "layout": str(t.layout).removeprefix("torch."), "meta": bool(t.is_meta)}
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {"dataclass": type(v).__qualname__,
                    "fields": walk({f.name: getattr(v, f.name) for f in dataclasses.fields(v)})}
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return {"namedtuple": type(v).__qualname__, "fields": [walk(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [walk(x) for x in v]}
        if isinstance(v, list):
            return {"list": [walk(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[walk(k), walk(x)] for k, x in v.items()]}
        if isinstance(v, (torch.dtype, torch.device, torch.Size)):
            return {"object": f"torch.{type(v).__name__}", "repr": str(v)}
        return {"object": f"{type(v).__module__}.{type(v).__qualname__}"}

    return walk(value), buffers


def decode(desc: Any, buffers: list[bytes]) -> Any:
    """The value `encode` described, from plain data only (tensors on the CPU, as plain torch.Tensor)."""
    if desc is None or isinstance(desc, (bool, int, float, str)):
        return desc
    if isinstance(desc, dict):
        if "tensor" in desc:
            dtype = _dtype(desc["dtype"])
            shape = [int(s) for s in desc["shape"]]
            raw = buffers[int(desc["tensor"])]
            if not raw:
                return torch.empty(shape, dtype=dtype)
            return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)
        if "float" in desc:
            return float(desc["float"])
        if "list" in desc:
            return [decode(x, buffers) for x in desc["list"]]
        if "tuple" in desc:
            return tuple(decode(x, buffers) for x in desc["tuple"])
        if "dict" in desc:
            return {decode(k, buffers): decode(x, buffers) for k, x in desc["dict"]}
        if "namedtuple" in desc:
            return tuple(decode(x, buffers) for x in desc["fields"])
        if "dataclass" in desc:
            return decode(desc["fields"], buffers)
        if "object" in desc:
            return Opaque(desc["object"])
    raise WireError(f"not plain data: {str(desc)[:80]}")


@dataclasses.dataclass(frozen=True)
class Opaque:
    """A value whose type does not cross (named only)."""

    type_name: str


def tensor_descriptions(desc: Any) -> list[dict[str, Any]]:
    """Every tensor description nested in an encoded value."""
    if isinstance(desc, dict):
        if "tensor" in desc:
            return [desc]
        return [t for v in desc.values() for t in tensor_descriptions(v)]
    if isinstance(desc, list):
        return [t for v in desc for t in tensor_descriptions(v)]
    return []


def write_frame(stream: BinaryIO, message: dict[str, Any], buffers: list[bytes] | None = None) -> None:
    buffers = buffers or []
    header = json.dumps({**message, "nbuf": len(buffers)}, allow_nan=False).encode("utf-8")
    parts = [_LEN.pack(len(header)), header]
    for b in buffers:
        parts += [_LEN.pack(len(b)), b]
    stream.write(b"".join(parts))
    stream.flush()


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            raise WireError("the other process closed the pipe")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO) -> tuple[dict[str, Any], list[bytes]]:
    (n,) = _LEN.unpack(_read_exact(stream, _LEN.size))
    try:
        message = json.loads(_read_exact(stream, n).decode("utf-8"))
    except ValueError as exc:
        raise WireError(f"a header that is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("a header that is not a JSON object")
    buffers = []
    for _ in range(int(message.pop("nbuf", 0))):
        (m,) = _LEN.unpack(_read_exact(stream, _LEN.size))
        buffers.append(_read_exact(stream, m))
    return message, buffers


def open_pipe_ends(read_fd: int, write_fd: int) -> tuple[BinaryIO, BinaryIO]:
    return os.fdopen(read_fd, "rb", buffering=0), os.fdopen(write_fd, "wb", buffering=0)


__all__ = ["Opaque", "WireError", "decode", "encode", "open_pipe_ends", "read_frame", "tensor_descriptions",
           "write_frame"]
