"""Incremental analysis (hdecomp_lsp.incremental + the forward() memo of hdecomp.anticheat.static) gives
exactly what a fresh analysis gives: after every edit of random edit sequences over the corpus files and
the benchmark's synthetic files, the spliced tree equals `ast.parse` of the new text (nodes and positions)
and the violations equal a fresh `analyze_source` (rule ids, ranges, messages, related locations)."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest
from hdecomp.anticheat import static
from hdecomp.anticheat.static import forward_eval
from hdecomp_lsp.incremental import DocumentAnalysis, IncrementalParser

# random edits make invalid escapes and number literals: ast.parse warns about them
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((ROOT / "test" / "python" / "corpus").glob("*/refactored.py"))
sys.path.insert(0, str(ROOT / "bench" / "lsp"))
from bench_lsp import synthetic_refactored  # noqa: E402

SNIPPETS = ["x", "h", " ", "(", ")", ":", "1", "+ 1", " * 2", "torch.relu(h)", "self.block_0(h)", "# note",
            "    ", "\\", '"""', "'", "[", "]", ",", "lambda t: t", "return h", ";", "if h:", "else:", "\t"]


def fresh(source: str, path: str) -> list[dict[str, object]]:
    return [v.to_dict() for v in static.analyze_source_uncached(source, path)]  # no cache, no memo


def mutate(rng: random.Random, text: str, hot: tuple[int, int] | None) -> str:
    """One editor-like edit: type or delete a few characters, add/delete/duplicate/re-indent a line."""
    lines = text.split("\n")
    if hot is not None and rng.random() < 0.6:
        n = rng.randint(hot[0], min(hot[1], len(lines)) ) - 1
    else:
        n = rng.randrange(len(lines))
    line = lines[n]
    op = rng.randrange(8)
    if op <= 2:  # type something
        at = rng.randint(0, len(line))
        lines[n] = line[:at] + rng.choice(SNIPPETS) + line[at:]
    elif op == 3 and line:  # delete a few characters
        at = rng.randrange(len(line))
        lines[n] = line[:at] + line[at + rng.randint(1, 4):]
    elif op == 4:  # Enter: split the line, keeping its indentation
        at = rng.randint(0, len(line))
        indent = line[: len(line) - len(line.lstrip())]
        lines[n: n + 1] = [line[:at], indent + line[at:].lstrip()]
    elif op == 5:  # delete or duplicate a line
        if rng.random() < 0.5 and len(lines) > 1:
            del lines[n]
        else:
            lines.insert(n, line)
    elif op == 6:  # re-indent
        lines[n] = ("    " + line) if rng.random() < 0.5 else line[4:] if line.startswith("    ") else line
    else:  # undo-like: a line copied from elsewhere in the file
        lines[n] = rng.choice(lines)
    return "\n".join(lines)


def forward_lines(text: str) -> tuple[int, int] | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            return node.lineno, node.end_lineno or node.lineno
    return None


def check_sequence(text: str, path: str, seed: int, edits: int) -> tuple[int, int]:
    """Edit `text` `edits` times; after each edit, incremental == fresh. Returns (spliced, full) parses."""
    rng = random.Random(seed)
    doc = DocumentAnalysis()
    hot = forward_lines(text)
    last_good = text
    for step in range(edits):
        got = [v.to_dict() for v in doc.analyze(text, path)]
        assert got == fresh(text, path), f"seed {seed}, edit {step}:\n{text}"
        try:
            want = ast.dump(ast.parse(text), include_attributes=True)
        except (SyntaxError, ValueError):
            if rng.random() < 0.5:
                text = last_good  # undo back to code that parses, as a user fixing a typo does
                continue
        else:
            last_good = text
            assert ast.dump(doc.parser.tree, include_attributes=True) == want, f"seed {seed}, edit {step}:\n{text}"  # type: ignore[arg-type]
        text = mutate(rng, text, hot)
    return doc.parser.spliced, doc.parser.full


@pytest.mark.parametrize("case", CORPUS, ids=[p.parent.name for p in CORPUS])
def test_incremental_equals_full_on_corpus(case: Path) -> None:
    text = case.read_text()
    path = str(case)
    spliced = 0
    for seed in range(2):
        s, _f = check_sequence(text, path, seed, 10)
        spliced += s
    assert spliced > 0  # the fast path was exercised, not only the fallback


def test_incremental_equals_full_with_crlf_line_ends(tmp_path: Path) -> None:
    """Windows line ends: CRLF lines are spliced like the others; a lone CR makes it parse the file."""
    path = str(tmp_path / "refactored.py")
    spliced = 0
    for case in CORPUS[:12]:
        s, _f = check_sequence(case.read_text().replace("\n", "\r\n"), path, seed=7, edits=10)
        spliced += s
    assert spliced > 0


@pytest.mark.parametrize("lines", [50, 500])
def test_incremental_equals_full_on_synthetic(lines: int, tmp_path: Path) -> None:
    text = synthetic_refactored(lines)
    path = str(tmp_path / "steps" / "step_1" / "refactored.py")
    spliced, _full = check_sequence(text, path, seed=lines, edits=40)
    assert spliced > 10


@pytest.mark.parametrize("enter", [False, True], ids=["keystroke", "new-line"])
def test_forward_statements_are_reused(tmp_path: Path, enter: bool) -> None:
    """A keystroke inside forward() re-analyses that statement only; the rest comes from the memo. A new
    line (which moves every line below) re-analyses the statements from there down."""
    text = synthetic_refactored(200)
    path = str(tmp_path / "refactored.py")
    doc = DocumentAnalysis()
    doc.analyze(text, path)
    lines = text.split("\n")
    at = lines.index("        return h")
    if enter:
        lines.insert(at, "        h = h")
    else:
        lines[at] = "        return h  # typing"
    edited = "\n".join(lines)
    calls: list[ast.stmt] = []
    real = forward_eval.ForwardEval.stmt

    def spy(self: forward_eval.ForwardEval, s: ast.stmt) -> None:
        calls.append(s)
        real(self, s)

    forward_eval.ForwardEval.stmt = spy  # type: ignore[method-assign]
    try:
        got = [v.to_dict() for v in doc.analyze(edited, path)]
    finally:
        forward_eval.ForwardEval.stmt = real  # type: ignore[method-assign]
    assert got == fresh(edited, path)
    assert [type(s).__name__ for s in calls] == (["Assign", "Return"] if enter else ["Return"])
    assert doc.parser.spliced == 1


def test_splice_keeps_untouched_statements_and_fixes_positions() -> None:
    src = "import torch\n\n\nclass M:\n    def forward(self, x):\n        y = x\n        return y\n\n\nZ = 1\n"
    parser = IncrementalParser()
    tree = parser.parse(src)
    assert isinstance(tree, ast.Module)
    untouched = tree.body[0]
    new = src.replace("        y = x\n", "        y = x\n        y = y\n")
    tree2 = parser.parse(new)
    assert isinstance(tree2, ast.Module)
    assert parser.spliced == 1 and tree2.body[0] is untouched
    assert ast.dump(tree2, include_attributes=True) == ast.dump(ast.parse(new), include_attributes=True)
    # a dedent that moves a statement out of forward() is the whole parser's business
    moved = new.replace("        return y\n", "    return y\n")
    assert ast.dump(parser.parse(moved), include_attributes=True) == ast.dump(ast.parse(moved),  # type: ignore[arg-type]
                                                                              include_attributes=True)


def test_syntax_error_then_recovery(tmp_path: Path) -> None:
    text = synthetic_refactored(50)
    path = str(tmp_path / "refactored.py")
    doc = DocumentAnalysis()
    doc.analyze(text, path)
    broken = text.replace("        return h", "        return h(", 1)
    assert [v.rule for v in doc.analyze(broken, path)] == ["HD001"]
    assert [v.to_dict() for v in doc.analyze(text, path)] == fresh(text, path)


def test_nested_def_edit_is_seen_by_later_statements(tmp_path: Path) -> None:
    """An edit inside a def nested in forward() is spliced inside that def; the statements that call it
    must not reuse their results (the def node is copied, not changed in place)."""
    text = ("import torch\nfrom children.a import Model as A\n\n\nclass RefactoredModel(torch.nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.a = A()\n\n"
            "    def forward(self, x):\n        def act(t):\n            return t.reshape(-1)\n\n"
            "        h = self.a(x)\n        return act(h)\n")
    path = str(tmp_path / "refactored.py")
    doc = DocumentAnalysis()
    assert [v.to_dict() for v in doc.analyze(text, path)] == fresh(text, path)
    cheat = text.replace("return t.reshape(-1)", "return t.relu()")
    got = [v.to_dict() for v in doc.analyze(cheat, path)]
    assert got == fresh(cheat, path) and got and doc.parser.spliced == 1
    assert [v.to_dict() for v in doc.analyze(text, path)] == fresh(text, path)
