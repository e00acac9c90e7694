"""Where a sys.path entry or an import lands: the step folder and its children/ folder, resolved from
`__file__` through os.path and pathlib spellings."""

from __future__ import annotations

import ast


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


