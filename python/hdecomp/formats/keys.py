"""Dotted module and tensor paths (`blocks.0.attn.qkv.weight`: state_dict keys, weight-map keys) and the
Python that reaches them from an object, as generated code writes them."""

from __future__ import annotations

import keyword


def access_path(path: str) -> str:
    """Python that reaches the dotted path `path` from an object: `.blocks[0].cpe.proj.bias` for
    `blocks.0.cpe.proj.bias` (a ModuleList item), `["x-y"]` for a ModuleDict key that is no identifier."""
    out = ""
    for part in path.split("."):
        if part.isdigit():
            out += f"[{part}]"
        elif part.isidentifier() and not keyword.iskeyword(part):
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


__all__ = ["access_path"]
