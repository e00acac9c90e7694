"""URI <-> filesystem path conversion (file: URIs only), path containment, and the typed file argument of
the server's commands (structured by pygls's converter from the JSON string the client sends)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NewType

from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path

if TYPE_CHECKING:
    from cattrs import Converter

FilePath = NewType("FilePath", str)
"""A command argument naming a file or folder: the client sends a file URI (or a path); the handler gets the
local path."""


def uri_to_path(uri: str) -> str:
    path = to_fs_path(uri)
    return os.path.normpath(path) if path else uri


def path_to_uri(path: str | Path) -> str:
    return from_fs_path(str(path)) or f"file://{path}"


def path_is_under(path: str, folder: str) -> bool:
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def file_path(value: Any, _type: Any = FilePath) -> FilePath:
    """The local path a command's file argument names; a ValueError (answered as InvalidParams) when it is no
    non-empty string. Registered on the converter for FilePath, so pygls calls it for every such parameter."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a file URI, got {value!r}")
    return FilePath(uri_to_path(value) if "://" in value else os.path.normpath(value))


def command_converter() -> Converter:
    """pygls's converter, which also structures the commands' FilePath arguments."""
    converter = default_converter()
    converter.register_structure_hook(FilePath, file_path)
    return converter
