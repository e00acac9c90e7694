"""Wiring: build the server object and let every feature register itself on it."""

from __future__ import annotations

from hdecomp_lsp.features import code_actions, code_lens, commands, diagnostics, lifecycle, trees
from hdecomp_lsp.state import HdecompLanguageServer


def build_server() -> HdecompLanguageServer:
    server = HdecompLanguageServer()
    for feature in (lifecycle, diagnostics, code_actions, code_lens, commands, trees):
        feature.register(server)
    return server
