"""Where a sys.path entry or an import lands: the step folder and its children/ folder, resolved from
`__file__` through os.path and pathlib spellings."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path

from hdecomp.anticheat.static.values import REF, Val, dotted_name, rooted_in


def names_children_folder_expr(arg: ast.expr) -> bool:
    """A sys.path entry that could not be resolved but names a `children` folder (a "children" string
    constant last, no ".." anywhere): the original workspace's spelling, accepted as before."""
    consts = [n.value for n in ast.walk(arg) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return bool(consts) and consts[-1].rstrip("/\\").split("/")[-1] == "children" and ".." not in "".join(consts)


# Path spellings that keep the path (os.path.abspath(p), str(p), Path(p), p.resolve()) and pathlib classes.
PATH_SAME_FUNCS = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.normcase",
                              "posixpath.abspath", "posixpath.realpath", "posixpath.normpath", "ntpath.abspath",
                              "ntpath.realpath", "ntpath.normpath", "os.fspath", "builtins.str"})
PATH_CLASSES = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath"})
PATH_SAME_METHODS = frozenset({"resolve", "absolute", "as_posix", "__str__", "__fspath__"})


def join_path(base: tuple[str, ...], more: tuple[str, ...]) -> tuple[str, ...] | None:
    """Path parts joined and normalised ("." dropped, ".." applied); an absolute part replaces the base."""
    if more[:1] == ("<abs>",):
        return more
    if base[:1] == ("<abs>",):
        return base  # still absolute: somewhere outside the step
    if more[:1] == ("<cwd>",):  # a relative string joined onto a base is relative to that base
        more = more[1:]
    parts = list(base)
    for p in more:
        if parts and parts[-1] == "<file>":
            if p != "..":
                return None  # refactored.py/x: not a folder
            parts.pop()
            continue
        if p == "..":
            if parts and parts[-1] not in ("..", "<cwd>"):
                parts.pop()
            else:
                parts.append("..")
        elif p not in ("", "."):
            parts.append(p)
    return tuple(parts)


def join_parts(base: tuple[str, ...], text: str, glued: bool = False) -> tuple[str, ...] | None:
    """`base` joined with a path string (`"../x"`, `"/children"` glued to an f-string or `+`)."""
    if glued:
        if not text.startswith(("/", "\\")):
            return None  # "dir" + "name" without a separator: another folder name
        text = text.lstrip("/\\")
    elif text.startswith(("/", "\\", "~")) or (len(text) > 1 and text[1] == ":"):
        return ("<abs>",)
    return join_path(base, tuple(text.replace("\\", "/").split("/")))


class SysPathEntries:
    """Where the file's sys.path changes point, resolved statically: which expressions are sys.path, the
    entries an expression adds to it, and each entry's verdict (the step's folder or its children/, or why not)."""

    def __init__(self, tree: ast.Module, skip: ast.AST | None, globals_: dict[str, Val], base_dir: Path | None,
                 resolve: Callable[[ast.expr], Val]) -> None:
        self.tree = tree
        self.skip = skip            # forward(): its names are not the file's
        self.globals = globals_
        self.base_dir = base_dir    # the step's folder (None for an unsaved buffer)
        self.resolve = resolve      # a module-level expression's value
        self._single_assignments: dict[str, ast.expr] | None = None

    def is_sys_path(self, node: ast.expr) -> bool:
        if dotted_name(node) == "sys.path":
            return True
        if isinstance(node, (ast.Name, ast.Attribute)) and rooted_in(node, self.globals):
            v = self.resolve(node)
            return v.kind == REF and v.qual == "sys.path"
        return False

    def listed_entries(self, node: ast.expr) -> list[ast.expr]:
        """The entries a list/tuple expression (or `[a] + sys.path`) adds to sys.path; [node] if unknown."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return [e for e in node.elts if not self.is_sys_path(e)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [e for side in (node.left, node.right) if not self.is_sys_path(side)
                    for e in self.listed_entries(side)]
        return [node]

    def verdict(self, entry: ast.expr) -> str | None:
        """None when `entry` is the step's folder or a folder under its children/; else why not."""
        parts = self.path_of(entry, 0)
        if parts is None:
            # not resolvable: the legacy spelling (a path whose last folder name is "children") is accepted
            if names_children_folder_expr(entry):
                return None
            return "cannot be resolved to the step's folder or its children/"
        if parts == ("<abs>",):
            return "is an absolute path"
        if parts and parts[-1] == "<file>":
            return "is a file, not the step's folder"
        if parts[:1] == ("<cwd>",):
            if parts[1:] == ("children",):
                return None  # the original workspace's `sys.path.insert(0, "children")`
            return "is relative to the working directory, not to this file"
        if self.base_dir is not None:
            where = Path(os.path.normpath(os.path.join(str(self.base_dir), *parts))) if parts else self.base_dir
            try:
                rel = where.relative_to(self.base_dir).parts
            except ValueError:
                return "points outside the step's folder"
        else:
            if ".." in parts:
                return "points outside the step's folder"
            rel = parts
        if not rel or rel[0] == "children":
            return None
        return f"is the folder `{'/'.join(rel)}`, not children/"

    def path_of(self, node: ast.expr, depth: int) -> tuple[str, ...] | None:
        """A path expression as parts relative to the step folder (`<file>` last for refactored.py itself,
        ("<abs>",) for an absolute path); None when it cannot be resolved without running the code."""
        if depth > 12:
            return None
        t = type(node)
        if t is ast.Name:
            ident = node.id  # type: ignore[attr-defined]
            if ident == "__file__":
                return ("<file>",)
            values = self.single_assignments().get(ident)
            return self.path_of(values, depth + 1) if values is not None else None
        if t is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if not isinstance(value, str):
                return None
            rel = join_parts((), value)
            # a relative path on its own is relative to the working directory, not to this file
            return rel if rel is None or rel[:1] == ("<abs>",) else ("<cwd>", *rel)
        if t is ast.JoinedStr:
            acc: tuple[str, ...] | None = ()
            for i, piece in enumerate(node.values):  # type: ignore[attr-defined]
                if i == 0:
                    acc = self.path_of(piece.value if isinstance(piece, ast.FormattedValue) else piece, depth + 1)
                elif isinstance(piece, ast.Constant) and isinstance(piece.value, str) and acc is not None:
                    acc = join_parts(acc, piece.value, glued=True)
                else:
                    return None
                if acc is None:
                    return None
            return acc
        if t is ast.BinOp:
            left = self.path_of(node.left, depth + 1)  # type: ignore[attr-defined]
            right = node.right  # type: ignore[attr-defined]
            if left is None:
                return None
            if isinstance(node.op, ast.Div):  # type: ignore[attr-defined]
                rs = self.path_of(right, depth + 1)
                return join_path(left, rs) if rs is not None else None
            if isinstance(node.op, ast.Add) and isinstance(right, ast.Constant) and isinstance(right.value, str):  # type: ignore[attr-defined]
                return join_parts(left, right.value, glued=True)
            return None
        if t is ast.Attribute:
            attr = node.attr  # type: ignore[attr-defined]
            if attr == "parent":
                base = self.path_of(node.value, depth + 1)  # type: ignore[attr-defined]
                return join_path(base, ("..",)) if base is not None else None
            return None
        if t is ast.Subscript:  # Path(__file__).parents[1]
            value, index = node.value, node.slice  # type: ignore[attr-defined]
            if isinstance(value, ast.Attribute) and value.attr == "parents" and isinstance(index, ast.Constant) \
                    and isinstance(index.value, int) and index.value >= 0:
                base = self.path_of(value.value, depth + 1)
                return join_path(base, ("..",) * (index.value + 1)) if base is not None else None
            return None
        if t is ast.Call:
            call = node
            assert isinstance(call, ast.Call)
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr in PATH_SAME_METHODS and not call.args:
                qual = self._call_qual(f)
                if qual is None or not qual.startswith(("os", "posixpath", "ntpath")):
                    return self.path_of(f.value, depth + 1)  # Path(...).resolve()
            if isinstance(f, ast.Attribute) and f.attr == "joinpath":
                acc2 = self.path_of(f.value, depth + 1)
                for a in call.args:
                    part = self.path_of(a, depth + 1) if acc2 is not None else None
                    acc2 = join_path(acc2, part) if acc2 is not None and part is not None else None
                return acc2
            qual = self._call_qual(f)
            if qual is None or call.keywords:
                return None
            name = qual.rsplit(".", 1)[-1]
            if qual in PATH_SAME_FUNCS or (qual.startswith("pathlib.") and name in PATH_CLASSES):
                if not call.args:
                    return None
                acc3 = self.path_of(call.args[0], depth + 1)
                for a in call.args[1:]:
                    part = self.path_of(a, depth + 1) if acc3 is not None else None
                    acc3 = join_path(acc3, part) if acc3 is not None and part is not None else None
                return acc3
            if qual in ("os.path.dirname", "posixpath.dirname", "ntpath.dirname") and len(call.args) == 1:
                base = self.path_of(call.args[0], depth + 1)
                return join_path(base, ("..",)) if base is not None else None
            if qual in ("os.path.join", "posixpath.join", "ntpath.join") and call.args:
                acc4 = self.path_of(call.args[0], depth + 1)
                for a in call.args[1:]:
                    part = self.path_of(a, depth + 1) if acc4 is not None else None
                    acc4 = join_path(acc4, part) if acc4 is not None and part is not None else None
                return acc4
        return None

    def _call_qual(self, f: ast.expr) -> str | None:
        if isinstance(f, ast.Name) and f.id == "str" and "str" not in self.globals:
            return "builtins.str"
        if not rooted_in(f, self.globals):
            return None
        v = self.resolve(f)
        return v.qual if v.kind == REF else None

    def single_assignments(self) -> dict[str, ast.expr]:
        """Names assigned exactly once in the file outside forward() (`HERE = Path(__file__).parent`)."""
        if self._single_assignments is None:
            seen: dict[str, list[ast.expr]] = {}
            stack: list[ast.AST] = [self.tree]
            while stack:
                n = stack.pop()
                if n is self.skip:
                    continue
                if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    for tgt in targets:
                        for name in ast.walk(tgt):
                            if isinstance(name, ast.Name):
                                value = n.value if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) \
                                    and isinstance(tgt, ast.Name) and not isinstance(n, ast.AugAssign) else None
                                seen.setdefault(name.id, []).append(value)  # type: ignore[arg-type]
                elif isinstance(n, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)):
                    tgts = [n.target] if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) else \
                        [i.optional_vars for i in n.items if i.optional_vars is not None]
                    for tgt in tgts:
                        for name in ast.walk(tgt):
                            if isinstance(name, ast.Name):
                                seen.setdefault(name.id, []).extend([None, None])  # type: ignore[list-item]
                stack.extend(ast.iter_child_nodes(n))
            self._single_assignments = {k: v[0] for k, v in seen.items() if len(v) == 1 and v[0] is not None}
        return self._single_assignments
