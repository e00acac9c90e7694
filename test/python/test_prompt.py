"""`hdecomp prompt` and the prompt files in data/prompts/: filled-in prompt, default output folder,
and every `hdecomp` command and flag the prompts tell an agent to use exists in the CLI."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from hdecomp.cli import HANDLERS, build_parser, main
from hdecomp.toolchain.prompt import PROMPT_FILES, build_prompt, default_output_dir

REPO = Path(__file__).resolve().parents[2]
PROMPTS = REPO / "data" / "prompts"
EXAMPLE = REPO / "data" / "examples" / "simple_transformer.py"
ALL_PROMPT_DOCS = sorted(PROMPTS.glob("*.md"))
GATES = ("verify-step", "coverage", "pipeline", "test", "compose", "validate")


def test_prompt_files_ship() -> None:
    names = {p.name for p in ALL_PROMPT_DOCS}
    assert set(PROMPT_FILES) | {"AGENT_PROMPT_TEMPLATE.md"} <= names


def test_filled_prompt_names_model_output_and_prompt_files(tmp_path: Path) -> None:
    prompt = build_prompt(EXAMPLE, tmp_path / "out")
    text = prompt.text
    assert "[EDIT]" not in text
    assert f"Model: {EXAMPLE}" in text
    assert f"Output: {tmp_path / 'out'}/" in text
    for name in PROMPT_FILES:
        assert str(PROMPTS / name) in text
    for gate in GATES:
        assert f"hdecomp {gate}" in text


def test_default_output_folder(tmp_path: Path) -> None:
    kb = tmp_path / "kernelbench" / "level3" / "11_VGG16.py"
    assert default_output_dir(kb, tmp_path) == tmp_path / "output" / "level3" / "11_VGG16"
    assert default_output_dir(EXAMPLE, tmp_path) == tmp_path / "output" / "examples" / "simple_transformer"


def test_cli_prints_the_prompt_with_default_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["prompt", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert f"Output: {tmp_path / 'output' / 'examples' / 'simple_transformer'}/" in out


def test_cli_writes_the_prompt_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "prompt.txt"
    assert main(["prompt", str(EXAMPLE), "-o", str(tmp_path / "x"), "--write", str(target)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"Output: {tmp_path / 'x'}/" in target.read_text()


def test_bad_model_files_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prompt", str(tmp_path / "missing.py")]) == 2
    assert "no such model file" in capsys.readouterr().err
    not_a_model = tmp_path / "helper.py"
    not_a_model.write_text("def get_inputs():\n    return []\n")
    assert main(["prompt", str(not_a_model)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ERROR: {not_a_model}: ") and "missing Model, get_init_inputs" in err


# ---- consistency of the prompts with the CLI ------------------------------------------------------

def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no sub-commands")


def _commands_in(text: str) -> list[tuple[str, list[str]]]:
    """(command, [--flags]) for every `hdecomp <command> ...` line, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = []
    for match in re.finditer(r"hdecomp ([a-z][a-z-]*)([^\n`|]*)", joined):
        flags = re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b", match.group(2))
        found.append((match.group(1), flags))
    return found


@pytest.mark.parametrize("doc", ALL_PROMPT_DOCS, ids=lambda p: p.name)
def test_every_command_and_flag_in_the_prompts_exists(doc: Path) -> None:
    subparsers = _subparsers()
    commands = _commands_in(doc.read_text(encoding="utf-8"))
    for command, flags in commands:
        if command not in HANDLERS:
            continue  # prose such as "hdecomp command line"
        known = {opt for action in subparsers[command]._actions for opt in action.option_strings}
        unknown = [f for f in flags if f not in known]
        assert not unknown, f"{doc.name}: `hdecomp {command}` has no option {unknown}"


def test_main_prompt_names_every_gate() -> None:
    text = (PROMPTS / "MAIN_PROMPT.md").read_text(encoding="utf-8")
    for gate in GATES:
        assert f"hdecomp {gate}" in text
    guide = (PROMPTS / "VERIFICATION_GUIDE.md").read_text(encoding="utf-8")
    for topic in ("plumbing", "weight_map.json", "rtol 1e-5", "randomised trial", "--batch-limit", "runtime"):
        assert topic in guide
    schema = (PROMPTS / "OUTPUT_SCHEMA.md").read_text(encoding="utf-8")
    for topic in ("{op}_{shape_signature}_{dtype}.py", "deduplicated", "Exact dimensions"):
        assert topic in schema


def test_flag_extraction_sees_continuation_lines() -> None:
    text = "```\nhdecomp verify-step --original a.py \\\n    --refactored b.py --bogus\n```\n"
    assert _commands_in(text) == [("verify-step", ["--original", "--refactored", "--bogus"])]
    main_prompt = _commands_in((PROMPTS / "MAIN_PROMPT.md").read_text(encoding="utf-8"))
    assert ("verify-step", ["--original", "--refactored", "--output"]) in main_prompt


def test_data_dir_is_found_and_a_missing_one_is_a_clear_error(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from hdecomp import paths
    from hdecomp.errors import HdecompError

    assert paths.data_dir() == REPO / "data"
    monkeypatch.setattr(paths, "__file__", str(tmp_path / "site" / "pkg" / "hdecomp" / "paths.py"))
    with pytest.raises(HdecompError, match=r"data folder .* was not found"):
        paths.data_dir()


def test_cli_write_to_a_folder_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "prompts"
    folder.mkdir()
    assert main(["prompt", str(EXAMPLE), "--write", str(folder)]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"ERROR: {folder}: is a folder"), first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prompts"]  # no temporary file left
