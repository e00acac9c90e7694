"""Fixtures for the language-server tests (defined in lsp_harness.py)."""

from lsp_harness import client, module_workspace, workspace

__all__ = ["client", "module_workspace", "workspace"]
