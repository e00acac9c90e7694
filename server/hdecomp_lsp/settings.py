"""Settings: the `hdecomp` section from initializationOptions and workspace/configuration, per folder.

Shape (the VS Code settings): {interpreter: [str], verify: {numTrials, device, batchLimit, rtol, atol}}.
Bad values are ignored (the default stays) rather than failing: a typo in settings.json must not kill
the server.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from lsprotocol import types

from hdecomp_lsp.uris import path_is_under, uri_to_path


@dataclass(frozen=True)
class VerifySettings:
    num_trials: int = 3
    device: str = "cpu"
    batch_limit: int | None = None
    rtol: float | None = None
    atol: float | None = None


@dataclass(frozen=True)
class Settings:
    interpreter: tuple[str, ...] = ()
    verify: VerifySettings = field(default_factory=VerifySettings)

    def python_command(self) -> list[str]:
        """The interpreter command line; empty setting = the server's own interpreter."""
        return list(self.interpreter) if self.interpreter else [sys.executable]

    def verify_flags(self) -> list[str]:
        v = self.verify
        flags = ["--num-trials", str(v.num_trials), "--device", v.device]
        if v.batch_limit is not None:
            flags += ["--batch-limit", str(v.batch_limit)]
        if v.rtol is not None:
            flags += ["--rtol", repr(v.rtol)]
        if v.atol is not None:
            flags += ["--atol", repr(v.atol)]
        return flags

    def run_flags(self) -> list[str]:
        """The flags of commands that run models without trials (`hdecomp profile`): device, batch limit."""
        v = self.verify
        return ["--device", v.device] + (["--batch-limit", str(v.batch_limit)] if v.batch_limit is not None else [])

    def to_json(self) -> dict[str, Any]:
        v = asdict(self.verify)
        return {"interpreter": list(self.interpreter),
                "verify": {"numTrials": v["num_trials"], "device": v["device"], "batchLimit": v["batch_limit"],
                           "rtol": v["rtol"], "atol": v["atol"]}}


def _num(value: Any, kind: type, default: Any, *, positive: bool = False) -> Any:
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    if kind is int and float(value) != int(value):
        return default
    out = kind(value)
    if positive and out <= 0:
        return default
    return out


def settings_from_json(data: Any, base: Settings | None = None) -> Settings:
    """Overlay the `hdecomp` section `data` on `base` (keys that are absent or invalid keep base's value)."""
    base = base or Settings()
    if not isinstance(data, dict):
        return base
    interpreter = base.interpreter
    raw = data.get("interpreter")
    if isinstance(raw, str):
        interpreter = (raw,) if raw.strip() else ()
    elif isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        interpreter = tuple(x for x in raw if x)
    v = base.verify
    raw_v = data.get("verify")
    if isinstance(raw_v, dict):
        device = raw_v.get("device")
        v = VerifySettings(
            num_trials=_num(raw_v.get("numTrials"), int, v.num_trials, positive=True),
            device=device if isinstance(device, str) and device else v.device,
            batch_limit=(None if "batchLimit" in raw_v and raw_v["batchLimit"] is None
                         else _num(raw_v.get("batchLimit"), int, v.batch_limit, positive=True)),
            rtol=(None if "rtol" in raw_v and raw_v["rtol"] is None
                  else _num(raw_v.get("rtol"), float, v.rtol)),
            atol=(None if "atol" in raw_v and raw_v["atol"] is None
                  else _num(raw_v.get("atol"), float, v.atol)),
        )
    return Settings(interpreter=interpreter, verify=v)


@dataclass
class SettingsStore:
    """Global settings (initializationOptions) plus per-workspace-folder overrides (workspace/configuration)."""

    global_settings: Settings = field(default_factory=Settings)
    folders: dict[str, Settings] = field(default_factory=dict)  # folder path -> settings

    def for_path(self, path: str | None) -> Settings:
        if path:
            best = None
            for folder in self.folders:
                if path_is_under(path, folder) and (best is None or len(folder) > len(best)):
                    best = folder
            if best is not None:
                return self.folders[best]
        return self.global_settings

    def for_uri(self, uri: str | None) -> Settings:
        return self.for_path(uri_to_path(uri) if uri else None)


async def refresh_settings(server: Any) -> None:
    """Ask the client for the `hdecomp` section of every workspace folder (when it can answer)."""
    store: SettingsStore = server.settings
    caps = server.client_capabilities
    if not (caps.workspace and caps.workspace.configuration):
        return
    folders = list(server.workspace.folders.values())
    items = [types.ConfigurationItem(section="hdecomp", scope_uri=f.uri) for f in folders]
    items.append(types.ConfigurationItem(section="hdecomp"))
    try:
        results = await server.workspace_configuration_async(types.ConfigurationParams(items=items))
    except Exception as exc:  # a client that cannot answer keeps the initializationOptions
        server.log(f"workspace/configuration failed: {exc}")
        return
    if not isinstance(results, (list, tuple)) or len(results) != len(items):
        return
    store.global_settings = settings_from_json(results[-1], store.global_settings)
    store.folders = {uri_to_path(f.uri): settings_from_json(r, store.global_settings)
                     for f, r in zip(folders, results[:-1], strict=True)}
