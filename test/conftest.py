"""Test-wide settings: verify-step's reference cache lives in a folder of this run's own (never the
user's ~/.cache), inherited by every subprocess the tests start."""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    if "HDECOMP_CACHE_DIR" not in os.environ:
        os.environ["HDECOMP_CACHE_DIR"] = tempfile.mkdtemp(prefix="hdecomp-test-cache-")
