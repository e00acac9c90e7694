"""`hdecomp prompt MODEL.py [-o OUT] [--write FILE]`: the agent prompt, filled in for one model.

The prompt text lives in data/prompts/AGENT_PROMPT_TEMPLATE.md between two marker lines; its two
`[EDIT]` lines (the model file and the output folder) are replaced, and the prompt files it names are
pointed at this installation's data/prompts/ folder, so the result can be pasted as it is.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from hdecomp.errors import HdecompError
from hdecomp.paths import data_dir

TEMPLATE_NAME = "AGENT_PROMPT_TEMPLATE.md"
PROMPT_FILES = ("MAIN_PROMPT.md", "VERIFICATION_GUIDE.md", "OUTPUT_SCHEMA.md", "DECISION_LOG.md")
START_MARKER = "<!-- hdecomp:prompt:start -->"
END_MARKER = "<!-- hdecomp:prompt:end -->"
_EDIT_MODEL = re.compile(r"^\[EDIT\] Model:.*$", re.MULTILINE)
_EDIT_OUTPUT = re.compile(r"^\[EDIT\] Output:.*$", re.MULTILINE)
_LEVEL_FOLDER = re.compile(r"^level\d+$")


@dataclass(frozen=True)
class AgentPrompt:
    """A filled-in prompt and what went into it."""

    text: str
    model: Path
    output_dir: Path
    prompts_dir: Path


def prompts_dir() -> Path:
    return data_dir() / "prompts"


def source_level(model: str | Path) -> str | None:
    """The KernelBench level folder a model file sits in (`level1`, `level2`, `level3`; the nearest
    `levelN` folder up its path, as the original workspace's `metadata.source_level`), else None."""
    parts = Path(model).resolve().parent.parts
    return next((part for part in reversed(parts) if _LEVEL_FOLDER.match(part)), None)


def default_output_dir(model: Path, root: Path | None = None) -> Path:
    """`output/<levelN>/<stem>/` for a file in a `levelN` folder (KernelBench), else `output/examples/<stem>/`.
    `hdecomp decompose` without -o writes exactly here too."""
    group = source_level(model) or "examples"
    return (root or Path.cwd()) / "output" / group / model.stem


def template_prompt(template: str, source: str | Path = TEMPLATE_NAME) -> str:
    """The copy-paste prompt: the text between the marker lines of the template."""
    start, end = template.find(START_MARKER), template.find(END_MARKER)
    if start < 0 or end < start:
        raise HdecompError(f"the prompt markers {START_MARKER} ... {END_MARKER} are missing", source)
    return template[start + len(START_MARKER):end].strip("\n") + "\n"


def _check_model_file(model: Path) -> None:
    """The model must exist and look like a component file (KernelBench convention)."""
    if not model.is_file():
        raise HdecompError("no such model file", model)
    try:
        tree = ast.parse(model.read_text(encoding="utf-8"), filename=str(model))
    except SyntaxError as exc:
        raise HdecompError(f"not valid Python: {exc.msg}", model, exc.lineno) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise HdecompError(f"cannot read: {exc}", model) from exc
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if n not in names]
    if missing:
        raise HdecompError("not a model file in the KernelBench convention (class Model, get_inputs(), "
                           f"get_init_inputs()): missing {', '.join(missing)}", model)


def build_prompt(model: str | Path, output_dir: str | Path | None = None) -> AgentPrompt:
    """Fill the agent prompt for `model`; `output_dir` defaults to `default_output_dir(model)`."""
    model_path = Path(model).expanduser().resolve()
    _check_model_file(model_path)
    out = Path(output_dir).expanduser().resolve() if output_dir else default_output_dir(model_path)
    pdir = prompts_dir()
    template_file = pdir / TEMPLATE_NAME
    try:
        template = template_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise HdecompError(f"cannot read the prompt template: {exc}", template_file) from exc
    for name in PROMPT_FILES:
        if not (pdir / name).is_file():
            raise HdecompError("prompt file missing from the installation", pdir / name)
    text = template_prompt(template, template_file)
    if not _EDIT_MODEL.search(text) or not _EDIT_OUTPUT.search(text):
        raise HdecompError("the prompt has no '[EDIT] Model:' / '[EDIT] Output:' lines", template_file)
    text = _EDIT_MODEL.sub(lambda _: f"Model: {model_path}", text, count=1)
    text = _EDIT_OUTPUT.sub(lambda _: f"Output: {out}/", text, count=1)
    for name in PROMPT_FILES:
        text = text.replace(f"data/prompts/{name}", str(pdir / name))
    return AgentPrompt(text=text, model=model_path, output_dir=out, prompts_dir=pdir)
