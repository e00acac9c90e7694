"""Where the project's bundled data lives: data/ (example models, agent prompts, JSON schemas)."""

from __future__ import annotations

from pathlib import Path

from hdecomp.errors import HdecompError


def data_dir() -> Path:
    """The repository's `data/` folder (the package is installed editable from the repository).

    Raises HdecompError when the folder is missing, e.g. for a copy of the package without its
    repository around it.
    """
    path = Path(__file__).resolve().parents[2] / "data"
    if not path.is_dir():
        raise HdecompError(
            "the hdecomp data folder (examples, prompts, schemas) was not found; install hdecomp "
            "editable from its repository (pip install -e .)", path)
    return path
