"""The language server object and its state, on a pygls `LanguageServer` subclass. The features (under
`features/`) take it as their argument; none imports the wiring (`app.py`)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from hdecomp import __version__
from hdecomp.anticheat.rules import AntiCheatViolation
from lsprotocol import types
from pygls.lsp.server import LanguageServer

from hdecomp_lsp import SERVER_NAME
from hdecomp_lsp.protocol import HdecompProtocol
from hdecomp_lsp.settings import SettingsStore
from hdecomp_lsp.uris import command_converter

logger = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_S = 0.2


@dataclass
class RuntimeFindings:
    """Violations found by the last verify run of one refactored file (merged into its diagnostics)."""

    result_file: str
    mtime: float
    violations: list[AntiCheatViolation] = field(default_factory=list)


class HdecompLanguageServer(LanguageServer):
    """Holds the server's state: settings, pending diagnostics, runtime findings, the tree watcher."""

    def __init__(self) -> None:
        super().__init__(SERVER_NAME, __version__, protocol_cls=HdecompProtocol, max_workers=4,
                         converter_factory=command_converter)
        self.settings = SettingsStore()
        # None: the adaptive delay (diagnostics.change_delay), at most DEFAULT_DEBOUNCE_S; a number (the
        # debounceMs initialization option) fixes the debounce
        self.debounce_s: float | None = None
        self.poll_interval_s = 2.0
        self.pending_diagnostics: dict[str, asyncio.Task[None]] = {}
        self.runtime_findings: dict[str, RuntimeFindings] = {}  # refactored.py path -> findings
        # uri -> hdecomp_lsp.incremental.DocumentAnalysis (tree + analysis memo of each open document)
        self.document_analyses: dict[str, Any] = {}
        self.running_commands: dict[str, asyncio.subprocess.Process] = {}
        self._warned: set[str] = set()
        self.trees: Any = None  # trees.TreeIndex, set by trees.register
        # an untrusted workspace (initializationOptions.trusted = false): static analysis and edits only,
        # nothing that imports or runs the workspace's code
        self.trusted = True

    # -- small helpers used by the feature modules ---------------------------------------------------
    def log(self, message: str, level: types.MessageType = types.MessageType.Log) -> None:
        logger.info(message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # logging must never break a feature
            logger.debug("could not send log message", exc_info=True)

    def warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self.log(message, types.MessageType.Warning)

    def show(self, message: str, level: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=level, message=message))

    def supports_lens_refresh(self) -> bool:
        ws = self.client_capabilities.workspace
        return bool(ws and ws.code_lens and ws.code_lens.refresh_support)

    async def refresh_lenses(self) -> None:
        if self.supports_lens_refresh():
            try:
                await self.workspace_code_lens_refresh_async(None)
            except Exception as exc:
                self.log(f"workspace/codeLens/refresh failed: {exc}")
