"""The server's lifecycle and its own requests: initialize / initialized, settings and workspace-folder
changes, `hdecomp/settings` and `hdecomp/debugInfo`."""

from __future__ import annotations

from typing import Any

from hdecomp import __version__
from lsprotocol import types

from hdecomp_lsp import SERVER_NAME
from hdecomp_lsp.features import trees
from hdecomp_lsp.settings import refresh_settings, settings_from_json
from hdecomp_lsp.state import DEFAULT_DEBOUNCE_S, HdecompLanguageServer


def register(server: HdecompLanguageServer) -> None:
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
                "pendingAnalyses": sorted(ls.pending_diagnostics),
                "settings": ls.settings.global_settings.to_json(),
                "folders": {f: s.to_json() for f, s in ls.settings.folders.items()}}
