"""What the forward evaluator reads from, and reports into, the scan of its file (ModuleScan): the file's
bindings, its reports, helper analysis, and the import and class statements a body may hold. A protocol, so
that the evaluator and the scan that runs it import each other one way."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from hdecomp.anticheat.rules import AntiCheatViolation, RelatedLocation, SourceRange
from hdecomp.anticheat.static.memo import ClassInfo, HelperResult
from hdecomp.anticheat.static.values import Val

if TYPE_CHECKING:
    from hdecomp.anticheat.static.library import Proof


class ScanContext(Protocol):
    path: str | None
    out: list[AntiCheatViolation]                 # the file's reports (a helper's go to a sink of its own)
    globals: dict[str, Val]
    star_roots: list[str]                         # `from torch import *` and friends
    classes: dict[str, ClassInfo]
    target: ClassInfo | None                      # the model class
    self_attrs: dict[str, Val]                    # the model's attributes
    dynamic_self_attr: Val | None                 # what `setattr(self, name, ...)` with a computed name set
    mutations: int                                # changes to all of the above made from a body (the memo)
    library_code: set[tuple[str, int, int]]       # library functions read and found plumbing (static.library)

    def report(self, rule: str, node: Any, message: str, op: str | None = None,
               related: Iterable[RelatedLocation] = (), details: dict[str, Any] | None = None,
               sink: list[AntiCheatViolation] | None = None, rng: SourceRange | None = None) -> None: ...

    def loc(self, node: Any, message: str) -> RelatedLocation: ...

    def snippet(self, node: ast.AST, limit: int = 60) -> str: ...

    def header_range(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> SourceRange: ...

    def find_method(self, info: ClassInfo, name: str, seen: set[int] | None = None) -> tuple[
            ast.FunctionDef | ast.AsyncFunctionDef | None, ClassInfo | None]: ...

    def find_class_attr(self, info: ClassInfo, name: str, seen: set[int] | None = None) -> Val | None: ...

    def eval_quiet(self, node: ast.expr, env: dict[str, Val]) -> Val: ...

    def analyse_helper(self, fn: Val, args: list[Val], kwargs: dict[str, Val],
                       quiet: bool = False) -> HelperResult: ...

    def prove_library_call(self, qual: str, args: list[Val], kwargs: dict[str, Val]) -> Proof | None: ...

    def bind_import(self, node: ast.Import | ast.ImportFrom, env: dict[str, Val]) -> None: ...

    def bind_class(self, cls: ast.ClassDef) -> None: ...

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None: ...

    def check_class(self, cls: ast.ClassDef) -> None: ...
