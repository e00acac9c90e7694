"""pytest-lsp harness: the real server over stdio, driven by a client with VS Code's capabilities.

A uniquely named module (not conftest) so the tests can import its helpers without clashing with other
conftest.py files; conftest.py re-exports the fixtures."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

FIXTURES = Path(__file__).parent / "fixtures"
SERVER_CMD = [sys.executable, "-m", "hdecomp_lsp"]


def make_client() -> LanguageClient:
    """The pytest-lsp client plus handlers for what this server sends: lens refresh, registrations,
    hdecomp/treesChanged, and a log of every diagnostics publication."""
    client = LanguageClient(converter_factory=default_converter)
    client.lens_refreshes = 0  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    client.tree_changes = []  # type: ignore[attr-defined]
    client.publications = []  # type: ignore[attr-defined]

    def publish(c: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        c.diagnostics[params.uri] = params.diagnostics
        c.publications.append(params)  # type: ignore[attr-defined]

    def lens_refresh(c: LanguageClient, params: Any) -> None:
        c.lens_refreshes += 1  # type: ignore[attr-defined]

    def register_capability(c: LanguageClient, params: types.RegistrationParams) -> None:
        c.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    def trees_changed(c: LanguageClient, params: Any) -> None:
        files = params.get("treeFiles") if isinstance(params, dict) else getattr(params, "treeFiles", None)
        c.tree_changes.append(list(files or []))  # type: ignore[attr-defined]

    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WORKSPACE_CODE_LENS_REFRESH] = lens_refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    features["hdecomp/treesChanged"] = trees_changed
    register_lsp_features(client, features)
    return client


async def start_client(root: Path, *, init_options: dict[str, Any] | None = None,
                       capabilities: types.ClientCapabilities | None = None,
                       configuration: dict[str, Any] | None = None,
                       folders: list[Path] | None = None) -> LanguageClient:
    config = ClientServerConfig(server_command=SERVER_CMD, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    if configuration:
        for scope, value in configuration.items():
            client.set_configuration(value, scope_uri=scope)
    folders = folders or [root]
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
        initialization_options={"debounceMs": 0, **(init_options or {})}))
    return client


async def stop_client(client: LanguageClient) -> None:
    try:
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await client.stop()


def copy_workspace(base: Path) -> Path:
    root = base / "ws"
    shutil.copytree(FIXTURES / "ws", root, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(FIXTURES / "cheats", root / "cheats", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private copy of the fixture workspace (tests write files into it)."""
    return copy_workspace(tmp_path)


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the fixture workspace shared by a test module (its tests use distinct files)."""
    return copy_workspace(tmp_path_factory.mktemp("mod"))


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client(module_workspace: Path) -> AsyncIterator[LanguageClient]:
    """One server per test module: starting one costs seconds on a loaded 2-core machine."""
    c = await start_client(module_workspace)
    yield c
    await stop_client(c)


def plain_json(obj: Any) -> Any:
    """A response as plain JSON values: pygls hands untyped results over as named tuples or attrs objects."""
    if hasattr(obj, "_asdict"):
        return {k: plain_json(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: plain_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v) for v in obj]
    if hasattr(obj, "__attrs_attrs__"):
        return {a.name: plain_json(getattr(obj, a.name)) for a in obj.__attrs_attrs__}
    return obj


def open_doc(client: LanguageClient, path: Path, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=path.read_text())))
    return uri


async def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def server_idle(client: LanguageClient, hang_guard: float = 120.0) -> None:
    """Returns once the server has no analysis scheduled. Its answer is sent after every publication it made
    before, so the client has received them all: a barrier, not a wait for a time."""
    loop = asyncio.get_running_loop()
    end = loop.time() + hang_guard
    while (await client.protocol.send_request_async("hdecomp/debugInfo", {})).pendingAnalyses:
        if loop.time() > end:
            raise AssertionError(f"the server still had analyses scheduled after {hang_guard:g} s")
        await asyncio.sleep(0.02)


async def diagnostics_for(client: LanguageClient, uri: str, version: int | None = None,
                          timeout: float = 10.0) -> list[types.Diagnostic]:
    def ready() -> bool:
        return any(p.uri == uri and (version is None or p.version == version)
                   for p in client.publications)  # type: ignore[attr-defined]

    await wait_for(ready, timeout, f"diagnostics of {uri} v{version}")
    pubs = [p for p in client.publications if p.uri == uri  # type: ignore[attr-defined]
            and (version is None or p.version == version)]
    return list(pubs[-1].diagnostics)


def apply_workspace_edit(edit: types.WorkspaceEdit) -> list[Path]:
    """Apply documentChanges to disk the way an editor would; returns the files touched."""
    touched: list[Path] = []
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(change.uri.removeprefix("file://"))
            assert not path.exists(), f"CreateFile of an existing file: {path}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
            touched.append(path)
        elif isinstance(change, types.TextDocumentEdit):
            path = Path(change.text_document.uri.removeprefix("file://"))
            text = path.read_text() if path.exists() else ""
            path.write_text(apply_text_edits(text, list(change.edits)))  # type: ignore[arg-type]
            touched.append(path)
        else:
            raise AssertionError(f"unexpected change {change!r}")
    return touched


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(pos: types.Position) -> int:
        if pos.line >= len(lines):
            return len(text)
        return starts[pos.line] + pos.character  # ASCII fixtures: UTF-16 units == characters

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text
