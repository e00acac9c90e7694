"""Sizes, read from the source with `ast`: no module of the library or the server is over 1,000 lines, and no
function or method is over 150 (STYLE.md: modules of one concern, a few hundred lines each)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = (REPO / "python", REPO / "server")
MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 150

def _function_lengths(tree: ast.Module) -> dict[str, int]:
    """qualified name (`Class.method`, `outer.inner`) -> lines from its `def` to its last line (decorators
    not counted); the longest where a name is defined twice."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    found[name] = max(found.get(name, 0), length)
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _sizes() -> dict[str, int]:
    """Every module ("path": lines) and function ("path:name": lines) under the roots."""
    sizes: dict[str, int] = {}
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            text = path.read_text(encoding="utf-8")
            sizes[rel] = len(text.splitlines())
            for name, length in _function_lengths(ast.parse(text)).items():
                sizes[f"{rel}:{name}"] = length
    return sizes


SIZES = _sizes()


def _limit(key: str) -> int:
    return MAX_FUNCTION_LINES if ":" in key else MAX_MODULE_LINES


OFFENDERS = {key: n for key, n in SIZES.items() if n > _limit(key)}


def test_no_module_over_1000_lines() -> None:
    over = {key: n for key, n in OFFENDERS.items() if ":" not in key}
    assert over == {}, "split these by concern (lines):"


def test_no_function_over_150_lines() -> None:
    over = {key: n for key, n in OFFENDERS.items() if ":" in key}
    assert over == {}, "split these into named steps (lines):"


def test_sizes_are_read_as_stated() -> None:
    """The counting above, on a small source: methods and nested functions by qualified name, a def's own
    lines only (not its decorators), the longest of two definitions of one name."""
    source = ("import functools\n"
              "class A:\n"
              "    @functools.cache\n"
              "    def m(self):\n"
              "        def inner():\n"
              "            return 1\n"
              "        return inner()\n"
              "def f():\n    pass\n"
              "def f():\n    x = 1\n    return x\n")
    assert _function_lengths(ast.parse(source)) == {"A.m": 4, "A.m.inner": 2, "f": 3}
    assert SIZES["python/hdecomp/anticheat/static/forward_eval.py"] > 0
    assert any(key.startswith("server/hdecomp_lsp/") for key in SIZES)
