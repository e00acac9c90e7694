"""Where the project's bundled data lives: data/ (example models, agent prompts, JSON schemas)."""

from __future__ import annotations

from pathlib import Path

from hdecomp.errors import HdecompError


def data_dir() -> Path:
    """The repository's `data/` folder (the package is installed editable from the repository).

    A copy inside the package (`hdecomp/data/`, as a wheel's package data would hold it) is used when
    the repository's folder is not there. Raises HdecompError naming the folders looked at otherwise.
    """
    repo_data = Path(__file__).resolve().parents[2] / "data"
    candidates = (repo_data, Path(__file__).resolve().parent / "data")
    for path in candidates:
        if (path / "prompts").is_dir() and (path / "schema").is_dir():
            return path
    raise HdecompError(
        "the hdecomp data folder (examples, prompts, schemas) was not found (looked in "
        f"{' and '.join(str(p) for p in candidates)}); install hdecomp editable from its repository "
        "(pip install -e .)", repo_data)
