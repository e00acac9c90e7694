"""The command ids are part of the LSP contract: the server registers exactly the ids of
hdecomp_lsp.command_ids, DESIGN.md's command table lists each, and the extension sends these and no other."""

from __future__ import annotations

import re
from pathlib import Path

from hdecomp_lsp.app import build_server
from hdecomp_lsp.command_ids import SERVER_COMMANDS

REPO = Path(__file__).resolve().parents[2]


def test_the_server_registers_every_command_id_and_no_other() -> None:
    assert sorted(build_server().protocol.fm.commands) == sorted(SERVER_COMMANDS)


def test_the_design_documents_every_command_id() -> None:
    table = re.findall(r"^\| `(hdecomp\.server\.\w+)` \|", (REPO / "docs" / "DESIGN.md").read_text(), re.MULTILINE)
    assert sorted(table) == sorted(SERVER_COMMANDS)


def test_the_extension_spells_the_same_command_ids() -> None:
    source = "".join(p.read_text() for p in sorted((REPO / "extension").glob("*.ts")))
    assert sorted(set(re.findall(r"\"(hdecomp\.server\.\w+)\"", source))) == sorted(SERVER_COMMANDS)
