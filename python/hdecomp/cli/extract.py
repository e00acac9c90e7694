"""`hdecomp extract`: the editor's "Extract to child component" from the command line (for agents and
scripts). Exit codes: 0 the files were written (or shown with --dry-run), 2 the selection was refused."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from hdecomp.cli.common import emit_json
from hdecomp.errors import HdecompError, read_source
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.refactor.selection import ExtractionRefused, Span


def parse_selection(text: str, source: str, path: Path | None = None) -> Span:
    """`A-B` (whole lines A..B, 1-based) or `L:C-L:C` (1-based lines, 0-based columns)."""
    m = re.fullmatch(r"(\d+):(\d+)-(\d+):(\d+)", text.strip())
    if m:
        a, b, c, d = (int(g) for g in m.groups())
        return Span(a, b, c, d)
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", text.strip())
    if not m:
        raise HdecompError(f"bad selection {text!r}: use LINE, FIRST-LAST or L:C-L:C", path)
    first = int(m.group(1))
    last = int(m.group(2) or first)
    lines = source.splitlines()
    if not (1 <= first <= last <= len(lines)):
        where = f"lines 1-{len(lines)}" if lines else "the file is empty"
        raise HdecompError(f"selection {text} is outside the file ({where})", path)
    return Span(first, 0, last, len(lines[last - 1]))


HELP = "move statements of forward() into a new child component file"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the refactored.py (or component) file")
    p.add_argument("select", help="lines FIRST-LAST (1-based), or L:C-L:C for one expression")
    p.add_argument("--name", default=None, help="the child's name (default: from the ops it calls)")
    p.add_argument("--op", default=None, help="extract the compute op at SELECT into a kernel child named after it")
    p.add_argument("--dry-run", action="store_true", help="show what would be written, write nothing")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from hdecomp.refactor.extract import extract_to_child, kernel_span

    path = Path(args.file)
    source = read_source(path, cause="cannot read the file")
    span = parse_selection(args.select, source, path)
    try:
        if args.op:
            span = kernel_span(source, span)
        ex = extract_to_child(source, path.resolve(), span, child_name=args.name, kernel_op=args.op)
    except ExtractionRefused as exc:
        raise HdecompError(f"cannot extract: {exc}", path, span.start_line) from None
    if not args.dry_run:
        for change in ex.changes:
            write_text_atomic(change.path, change.new_text)
    if args.json:
        emit_json({"child": str(ex.child_path), "class": ex.class_alias, "attribute": ex.attribute,
                          "inputs": ex.inputs, "outputs": ex.outputs, "moved": ex.moved_attributes,
                          "files": [{"path": str(c.path), "created": c.old_text is None} for c in ex.changes],
                          "todo": ex.todo, "written": not args.dry_run})
    else:
        verb = "would write" if args.dry_run else "wrote"
        for change in ex.changes:
            print(f"{verb} {change.path}" + (" (new)" if change.old_text is None else ""))
        print(f"self.{ex.attribute}({', '.join(ex.inputs)}) -> {', '.join(ex.outputs) or 'value'}")
        for item in ex.todo:
            print(f"TODO: fill in the {item} in {ex.child_path.name}")
    return 0
