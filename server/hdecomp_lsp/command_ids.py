"""The ids of the server's `workspace/executeCommand` commands, spelled once for the registrations, the lenses
and the tests. They are part of the LSP contract (DESIGN.md § Language server contract): the VS Code
extension sends the same strings, so they never change."""

from __future__ import annotations

VERIFY_STEP = "hdecomp.server.verifyStep"
RUN_SELF_TEST = "hdecomp.server.runSelfTest"
RUN_PIPELINE = "hdecomp.server.runPipeline"
DECOMPOSE = "hdecomp.server.decompose"
PROFILE = "hdecomp.server.profile"
VERIFY_REPLACEMENT = "hdecomp.server.verifyReplacement"

SERVER_COMMANDS = (VERIFY_STEP, RUN_SELF_TEST, RUN_PIPELINE, DECOMPOSE, PROFILE, VERIFY_REPLACEMENT)
