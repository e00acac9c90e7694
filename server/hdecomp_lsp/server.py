"""The language server object: state on a pygls `LanguageServer` subclass; features register themselves
from one module each (diagnostics, code_actions, code_lens, commands, trees, settings)."""

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
from hdecomp_lsp.settings import SettingsStore, refresh_settings, settings_from_json

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
        super().__init__(SERVER_NAME, __version__, protocol_cls=HdecompProtocol, max_workers=4)
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


def build_server() -> HdecompLanguageServer:
    server = HdecompLanguageServer()

    from hdecomp_lsp import code_actions, code_lens, commands, diagnostics, trees

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: HdecompLanguageServer, params: types.InitializeParams) -> None:
        opts = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        ls.settings.global_settings = settings_from_json(opts.get("settings"), ls.settings.global_settings)
        # test/bench knobs (not VS Code settings): debounce and polling intervals
        if isinstance(opts.get("debounceMs"), (int, float)) and opts["debounceMs"] >= 0:
            ls.debounce_s = float(opts["debounceMs"]) / 1000.0
        if opts.get("trusted") is False:
            ls.trusted = False
        if isinstance(opts.get("pollIntervalMs"), (int, float)) and opts["pollIntervalMs"] > 0:
            ls.poll_interval_s = float(opts["pollIntervalMs"]) / 1000.0

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: HdecompLanguageServer, params: types.InitializedParams) -> None:
        await refresh_settings(ls)
        await trees.start_watching(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: HdecompLanguageServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("hdecomp"), dict):
            ls.settings.global_settings = settings_from_json(settings["hdecomp"], ls.settings.global_settings)
        await refresh_settings(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def on_folders(ls: HdecompLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated ls.workspace already: new folders bring their own settings and trees
        await refresh_settings(ls)
        await trees.check_for_changes(ls)

    @server.feature("hdecomp/settings")
    def effective_settings(ls: HdecompLanguageServer, params: Any) -> dict[str, Any]:
        """The settings in effect for `uri` (or the global ones): for the extension's debug information."""
        uri = getattr(params, "uri", None) if params is not None else None
        if isinstance(params, dict):
            uri = params.get("uri")
        return ls.settings.for_uri(uri if isinstance(uri, str) else None).to_json()

    @server.feature("hdecomp/debugInfo")
    def debug_info(ls: HdecompLanguageServer, params: Any) -> dict[str, Any]:
        """For the extension's debug-information command (and the tests: torch must stay unloaded)."""
        import os
        import sys

        return {"server": SERVER_NAME, "version": __version__, "python": sys.executable, "pid": os.getpid(),
                "torchLoaded": "torch" in sys.modules, "debounceMs": None if ls.debounce_s is None else ls.debounce_s * 1000,
                "debounceMaxMs": DEFAULT_DEBOUNCE_S * 1000, "trusted": ls.trusted,
                "settings": ls.settings.global_settings.to_json(),
                "folders": {f: s.to_json() for f, s in ls.settings.folders.items()}}

    diagnostics.register(server)
    code_actions.register(server)
    code_lens.register(server)
    commands.register(server)
    trees.register(server)
    return server
