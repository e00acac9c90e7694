"""URI <-> filesystem path conversion (file: URIs only) and path containment."""

from __future__ import annotations

import os
from pathlib import Path

from pygls.uris import from_fs_path, to_fs_path


def uri_to_path(uri: str) -> str:
    path = to_fs_path(uri)
    return os.path.normpath(path) if path else uri


def path_to_uri(path: str | Path) -> str:
    return from_fs_path(str(path)) or f"file://{path}"


def path_is_under(path: str, folder: str) -> bool:
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
