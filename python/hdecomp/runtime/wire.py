"""Plain data between processes that do not trust each other: nested values as JSON, tensors as their
bytes, dtype, shape and strides. Decoding never runs code of the sender (no pickle): a value is rebuilt
from a fixed vocabulary of containers and numbers, and a tensor from its bytes alone.

A frame is a 4-byte big-endian length, then the JSON header (`{"value": ..., "nbuf": N}`), then N
buffers, each length-prefixed. Inside `value`:
- JSON numbers, strings, booleans and null stand for themselves; a non-finite float is `{"float": "nan"}`;
- `{"list": [...]}`, `{"tuple": [...]}`, `{"dict": [[key, value], ...]}` (keys: str, int, float, bool, None);
- `{"tensor": i, "dtype": "float32", "shape": [...], "stride": [...], "device": "cpu", "type": "Tensor"}`:
  buffer i holds the values in row-major order; `stride` and `type` are the sender's, kept for the checks;
- named containers keep their class's name and field names, so that a comparison tells a `logits` field from
  a plain tuple's first item as it does in one process: `{"dataclass": "Name", "fields": {"dict": ...}}`,
  `{"namedtuple": "Name", "names": [...], "fields": [...]}`, `{"mapping": "Name", "items": [[k, v], ...]}` (a
  dict subclass: a transformers ModelOutput) and `{"instance": "Name", "state": {"dict": ...}}` (a plain
  object holding tensors or plain values: torchvision's ImageList, diffusers' posterior; or such objects in
  turn: a transformers cache, runtime.component.compared_state). The receiver rebuilds each as an instance of
  a class of its own making with that name and those fields (`named_class`): nothing of the sender's runs;
- `{"class": "module.Qualname", "qualname": "Qualname"}`: a class (one a cache holds), received as a class
  of that name that holds nothing;
- `{"size": [...]}`, `{"torch": "float32"}` (a dtype, memory format or layout), `{"device": "cpu"}`,
  `{"complex": [re, im]}`, `{"slice": [start, stop, step]}`, `{"ellipsis": true}`;
- `{"ndarray": {"tensor": ...}}`: a numpy array of numbers, sent as the tensor it holds (a numpy number is
  sent as the Python number it is);
- `{"object": "module.Qualname"}`: anything else, named only (its values do not cross; an `Opaque` equals
  nothing, as two distinct objects of a class without an equality of its own do).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import json
import math
import os
import struct
from typing import Any, BinaryIO

import numpy as np
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
        if isinstance(v, np.ndarray) and v.dtype.kind in "biufc":
            # (a numpy array a forward made, `bincount().cpu().numpy().cumsum(0)`: its values as a tensor's)
            return {"ndarray": walk(torch.from_numpy(np.ascontiguousarray(v)))}
        if isinstance(v, np.generic) and v.dtype.kind in "biufc":
            return walk(v.item())   # (a numpy number: an item of such an array, `for end in counts:`)
        if isinstance(v, torch.Size):
            return {"size": [int(x) for x in v]}
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {"dataclass": type(v).__qualname__,
                    "fields": walk({f.name: getattr(v, f.name) for f in dataclasses.fields(v)})}
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return {"namedtuple": type(v).__qualname__, "names": [str(n) for n in v._fields],
                    "fields": [walk(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [walk(x) for x in v]}
        if isinstance(v, list):
            return {"list": [walk(x) for x in v]}
        if isinstance(v, dict):
            items = [[walk(k), walk(x)] for k, x in v.items()]
            if type(v) in (dict, collections.OrderedDict):
                return {"dict": items}
            return {"mapping": type(v).__qualname__, "items": items}
        if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
            return {"torch": str(v).removeprefix("torch.")}
        if isinstance(v, torch.device):
            return {"device": str(v)}
        if isinstance(v, complex):
            return {"complex": [walk(v.real), walk(v.imag)]}
        if isinstance(v, slice):
            return {"slice": [walk(v.start), walk(v.stop), walk(v.step)]}
        if v is Ellipsis:
            return {"ellipsis": True}
        from hdecomp.runtime.component import compared_state, holding_tensors
        # (an object of plain data and tensors, its constructor's or computed there: a VAE's posterior; objects
        # in objects: a decoder's cache handed back)
        if holding_tensors(v) or compared_state(v) is not None:
            return {"instance": type(v).__qualname__, "state": walk(dict(vars(v)))}
        if isinstance(v, type):   # (a class a cache holds: by name, as the comparisons read it)
            return {"class": f"{v.__module__}.{v.__qualname__}", "qualname": v.__qualname__}
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
        if "ndarray" in desc:
            t = decode(desc["ndarray"], buffers)
            if not isinstance(t, torch.Tensor):
                raise WireError("an ndarray description holds no tensor")
            return t.numpy()
        if "float" in desc:
            return float(desc["float"])
        if "list" in desc:
            return [decode(x, buffers) for x in desc["list"]]
        if "tuple" in desc:
            return tuple(decode(x, buffers) for x in desc["tuple"])
        if "dict" in desc:
            return {decode(k, buffers): decode(x, buffers) for k, x in desc["dict"]}
        if "namedtuple" in desc:
            values = [decode(x, buffers) for x in desc["fields"]]
            names = desc.get("names")
            if not isinstance(names, list) or len(names) != len(values):
                return tuple(values)
            return named_class("namedtuple", str(desc["namedtuple"]), tuple(names))(*values)
        if "dataclass" in desc:
            fields = decode(desc["fields"], buffers)
            return named_class("dataclass", str(desc["dataclass"]), tuple(fields))(**fields)
        if "mapping" in desc:
            cls = named_class("mapping", str(desc["mapping"]), ())
            return cls((decode(k, buffers), decode(x, buffers)) for k, x in desc["items"])
        if "instance" in desc:
            state = decode(desc["state"], buffers)
            return named_class("instance", str(desc["instance"]), tuple(state))(**state)
        if "size" in desc:
            return torch.Size(int(x) for x in desc["size"])
        if "torch" in desc:
            value = getattr(torch, str(desc["torch"]), None)
            if not isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
                raise WireError(f"not a torch dtype, memory format or layout: {desc['torch']!r}")
            return value
        if "device" in desc:
            return torch.device(str(desc["device"]))
        if "complex" in desc:
            re, im = (decode(x, buffers) for x in desc["complex"])
            return complex(re, im)
        if "slice" in desc:
            return slice(*(decode(x, buffers) for x in desc["slice"]))
        if "ellipsis" in desc:
            return Ellipsis
        if "class" in desc:
            return named_class("class", str(desc.get("qualname", desc["class"])), ())
        if "object" in desc:
            return Opaque(desc["object"])
    raise WireError(f"not plain data: {str(desc)[:80]}")


def plain_only(value: Any) -> bool:
    """Whether `value` (decoded) is what it was on the sender's side: tensors, numbers, strings, torch's dtypes,
    devices and sizes in lists, tuples and dicts; not a stand-in for an object (`named_class`, `Opaque`)."""
    if value is None or isinstance(value, (bool, int, float, str, complex, slice, torch.Tensor, torch.dtype,
                                           torch.device, torch.memory_format, torch.layout, torch.Size)) \
            or value is Ellipsis:
        return True
    if type(value) in (list, tuple):
        return all(plain_only(v) for v in value)
    if type(value) in (dict, collections.OrderedDict):
        return all(plain_only(k) and plain_only(v) for k, v in value.items())
    return False


class Opaque:
    """A value whose type does not cross (named only). It equals nothing, not even another of its type: two
    objects of a class without an equality of its own differ unless they are one object."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


@functools.lru_cache(maxsize=512)
def named_class(kind: str, qualname: str, fields: tuple[str, ...]) -> Any:
    """The receiver's own class standing for a sender's named container (`kind`: namedtuple, dataclass,
    mapping, instance, class): the sender's name and field names, no code of the sender's. One class per name and
    fields, so that two values of one sender's class are of one class here too."""
    name = qualname.rsplit(".", 1)[-1]
    name = name if name.isidentifier() else "Value"
    cls: Any
    if kind == "namedtuple":
        cls = collections.namedtuple(name, fields, rename=True)   # type: ignore[misc, no-redef]
    elif kind == "dataclass":
        cls = dataclasses.make_dataclass(name, list(fields))
    elif kind == "mapping":
        cls = type(name, (collections.OrderedDict,), {})
    else:
        def init(self: Any, **state: Any) -> None:
            self.__dict__.update(state)
        cls = type(name, (), {"__init__": init})
        cls.__signature__ = inspect.Signature(
            [inspect.Parameter(f, inspect.Parameter.KEYWORD_ONLY) for f in fields])
    cls.__qualname__ = qualname
    cls.__module__ = __name__
    return cls


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


__all__ = ["Opaque", "WireError", "decode", "encode", "named_class", "open_pipe_ends", "plain_only", "read_frame",
           "tensor_descriptions", "write_frame"]
