"""Anti-cheat rule ids, messages and the violation record shared by the CLI, the server and the tests.

Rule ids are stable (tools and editors key on them):
  HD0xx  the file itself (syntax error, no RefactoredModel, no forward)
  HD1xx  static: compute in forward(), however it is spelled
  HD2xx  static: construction and own state (__init__ builds raw nn modules, own Parameters, ...)
  HD3xx  structural: parameters outside children, a child that is the parent in disguise,
         a child never called, the op inventory differs from the original's
  HD4xx  runtime: compute executed outside any child's forward
Pure Python: importing this module must never import torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
Kind = Literal["static", "structural", "runtime"]


@dataclass(frozen=True)
class SourceRange:
    """A range in a source file: lines 1-based, columns 0-based (as Python's `ast` reports them)."""

    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class RelatedLocation:
    """Where the cheat really lives when it is indirect (the alias, the helper, the lambda...)."""

    message: str
    range: SourceRange
    file: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "range": self.range.to_dict(), "file": self.file}


@dataclass
class AntiCheatViolation:
    """One anti-cheat finding. `to_dict` also carries the original workspace's keys
    (pattern, line_number, line_text) so tools written for it keep working."""

    rule: str
    message: str
    kind: Kind = "static"
    severity: Severity = "error"
    file: str | None = None
    range: SourceRange | None = None
    line_text: str = ""
    allowed_instead: str = ""
    op: str | None = None  # the compute op concerned ("relu", "matmul"), for "Extract <op> into a kernel child"
    related: list[RelatedLocation] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> int:
        return self.range.line if self.range else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
            "allowed_instead": self.allowed_instead,
            "op": self.op,
            "file": self.file,
            "range": self.range.to_dict() if self.range else None,
            "related": [r.to_dict() for r in self.related],
            "details": self.details,
            # original workspace's keys
            "pattern": self.rule,
            "line_number": self.line,
            "line_text": self.line_text,
        }

    @classmethod
    def rebuilt(cls, value: Any) -> AntiCheatViolation:
        """A violation from one that crossed processes as plain data (a dataclass of the same fields, as
        hdecomp.runtime.wire rebuilds it), or `value` itself where it is one already."""
        if isinstance(value, cls):
            return value
        data = asdict(value)

        def where(r: dict[str, Any] | None) -> SourceRange | None:
            return None if r is None else SourceRange(int(r["line"]), int(r["col"]), int(r["end_line"]),
                                                      int(r["end_col"]))
        related = [RelatedLocation(str(r["message"]), where(r["range"]) or SourceRange(0, 0, 0, 0), r.get("file"))
                   for r in data.get("related") or []]
        return cls(rule=str(data["rule"]), message=str(data["message"]), kind=data["kind"], severity=data["severity"],
                   file=data.get("file"), range=where(data.get("range")), line_text=str(data.get("line_text", "")),
                   allowed_instead=str(data.get("allowed_instead", "")), op=data.get("op"), related=related,
                   details=dict(data.get("details") or {}))

    def format(self) -> str:
        where = f"{self.file or '<source>'}:{self.line}" + (f":{self.range.col + 1}" if self.range else "")
        return f"{where}: {self.rule} {self.message}"


# ---------------------------------------------------------------------------------------------------------
# The rule catalogue. Ids are stable: editors, CI scripts and the README key on them. `allowed_instead` may
# hold `{op}`, filled in with the violation's op name.
# ---------------------------------------------------------------------------------------------------------

_EXTRACT = ("move `{op}` into a kernel child under children/ (e.g. children/{op}_fp32.py, a full component "
            "file) and call it as self.<child>(x)")


@dataclass(frozen=True)
class Rule:
    """One anti-cheat rule: a stable id, a short title, its default severity and what to do instead."""

    id: str
    title: str
    severity: Severity
    description: str
    allowed_instead: str

    def instead(self, op: str | None = None) -> str:
        return self.allowed_instead.replace("{op}", op or "the op")


RULES: dict[str, Rule] = {r.id: r for r in (
    # HD0xx: the file itself
    Rule("HD001", "syntax error", "error",
         "The file does not parse, so nothing else can be checked.",
         "fix the syntax error; the file must be importable Python"),
    Rule("HD002", "no model to check", "error",
         "No `RefactoredModel` class (nor any nn.Module subclass) with a `forward()` method was found.",
         "define `class RefactoredModel(nn.Module)` with `__init__` building the children and `forward()` "
         "calling them"),
    Rule("HD003", "checked another class", "warning",
         "There is no class named `RefactoredModel`; another nn.Module subclass with a forward() was checked.",
         "name the refactored parent `RefactoredModel`, as the verifier expects"),
    Rule("HD004", "analysis incomplete", "error",
         "The file could not be analysed completely (too deeply nested or an internal limit), so it is not "
         "proven free of compute.",
         "simplify the code (no deeply nested expressions); forward() should be a short sequence of child calls"),
    # HD1xx: compute in forward(), however it is spelled
    Rule("HD101", "compute call in forward()", "error",
         "forward() calls a torch / torch.nn.functional / torch.ops compute function (directly, through a full "
         "dotted path, an imported name or a star import).", _EXTRACT),
    Rule("HD102", "compute through an alias", "error",
         "forward() calls a compute function through an alias: a module-level name, an attribute set in "
         "__init__, a class attribute, a property, a default argument or a dict of functions.",
         _EXTRACT + "; do not keep functions as attributes, defaults or dict entries"),
    Rule("HD103", "compute through a dynamic lookup", "error",
         "forward() reaches a compute function by name at run time (getattr(torch, 'tanh'), getattr(F, name), "
         "vars(torch)[...], torch.__dict__[...], globals()[...]).", _EXTRACT),
    Rule("HD104", "Tensor compute method", "error",
         "forward() calls a compute method on a tensor (x.relu(), x.softmax(-1), x.sum(), x.masked_fill(...)).",
         _EXTRACT + "; only shape/plumbing methods (view, reshape, permute, transpose, contiguous, to, size...) "
         "are allowed in forward()"),
    Rule("HD105", "in-place compute", "error",
         "forward() modifies a tensor in place with a compute op (x.add_(), x.clamp_(), x *= 2).", _EXTRACT),
    Rule("HD106", "operator compute on tensors", "error",
         "forward() applies an arithmetic or comparison operator to tensors (`-`, `*`, `/`, `@`, `**`, `%`, "
         "`<`, `==`, unary `-`, `~`, or `+` with a constant). Only `tensor + tensor` (a residual) and arithmetic "
         "on shape integers are plumbing.",
         _EXTRACT + "; a residual is written `a + b` between two tensors"),
    Rule("HD107", "builtin / math / numpy compute on tensors", "error",
         "forward() applies a Python builtin (abs, max, min, pow, round, sum), math.*, numpy or operator.* "
         "function to a tensor.", _EXTRACT),
    Rule("HD108", "helper that computes", "error",
         "forward() calls a helper (function, method, staticmethod, classmethod, lambda or property) whose "
         "body does compute.",
         _EXTRACT + "; helpers called from forward() may only do plumbing"),
    Rule("HD109", "call of a non-child module", "error",
         "forward() calls a module object that is not a child from children/ (a raw nn module, a module class "
         "defined in this file, or one from a helper file).",
         "replace it with a child component under children/ and call that child"),
    Rule("HD110", "custom autograd function", "error",
         "forward() runs a torch.autograd.Function (`.apply`) whose forward/backward hide compute.",
         _EXTRACT),
    Rule("HD111", "child reached around its forward", "error",
         "forward() calls something on a child other than the child itself (self.child.method(x)), or a "
         "function from a child file: only a child's forward is verified as that child's compute.",
         "call the child as self.<child>(x); move the extra logic into the child's forward"),
    Rule("HD112", "call of unknown code", "error",
         "forward() calls a function that is neither a child, a plumbing op nor a local plumbing-only helper "
         "(a third-party function, a function from a child file, a value of unknown origin).",
         "call only children and plumbing ops in forward(); put the function's work into a child component"),
    Rule("HD113", "compute function passed as a value", "error",
         "forward() hands a compute function to something else (map(F.relu, xs), a child called with "
         "act=torch.tanh, functools.partial, torch.vmap).", _EXTRACT),
    Rule("HD114", "child parameter read in forward()", "warning",
         "forward() reads a child's parameter or buffer directly (self.fc.weight); it is suspicious because "
         "the parent could compute with it.",
         "let the child use its own parameters inside its forward"),
    Rule("HD115", "module passed to a child", "error",
         "forward() hands a module (a child, a container of children) to another child, which can run it "
         "inside its own forward: the wiring and the compute attributed to each child are hidden.",
         "call every child from forward() yourself and pass tensors between them"),
    Rule("HD116", "reduction written as a loop of additions", "error",
         "forward() adds tensors into a value carried from one loop iteration to the next (`total = total + "
         "x[:, t]`, `acc += h[:, t]` in a for/while loop), or sums a sequence of slices (`sum(x[:, t] for t in "
         "...)`, `sum(x.unbind(1))`): that is a reduction (sum), compute. A residual inside a loop adds the "
         "output of a child called in the same iteration (`for blk in self.blocks: x = x + blk(x)`).",
         _EXTRACT + "; a residual in a loop adds the output of a child called in that iteration"),
    # HD2xx: construction and own state
    Rule("HD201", "module constructed in forward()", "error",
         "forward() constructs an nn module, a Parameter or a child (fresh random weights every call, "
         "outside the verified children).",
         "construct children once in __init__ from classes imported from children/"),
    Rule("HD202", "raw nn module outside children/", "error",
         "__init__ (or module / class level code) constructs a raw torch.nn module (nn.Linear, nn.ReLU, "
         "nn.Sequential of raw modules...) instead of a child component.",
         "wrap the module in a child component file under children/ and instantiate that child "
         "(nn.ModuleList / nn.ModuleDict / nn.Sequential of children are fine)"),
    Rule("HD203", "own parameter", "error",
         "RefactoredModel owns an nn.Parameter / ParameterList / ParameterDict: every parameter must live "
         "in a child.", "move the parameter into the child component that uses it"),
    Rule("HD204", "own buffer", "error",
         "RefactoredModel registers its own buffer or parameter (register_buffer / register_parameter).",
         "move the buffer into the child component that uses it"),
    Rule("HD205", "plain tensor attribute", "error",
         "A tensor is kept on the model, on the class or at module level (self.scale = torch.ones(3)); it is "
         "state outside any child.", "move the tensor into the child component that uses it, as its buffer"),
    Rule("HD206", "hook", "error",
         "The file registers a forward / pre-forward / backward hook: hooks run code around children that the "
         "verifier does not attribute to them.", "put the hook's work into a child component's forward"),
    Rule("HD207", "monkeypatching", "error",
         "The file rebinds an attribute of torch, torch.nn.functional, nn.Module, a child class or the model "
         "class (torch.relu = ..., setattr(torch, ...), Child.forward = ..., nn.Module.__call__ = ...).",
         "do not modify library or child code at import or run time; write a child component instead"),
    Rule("HD208", "call machinery overridden", "error",
         "RefactoredModel overrides __call__ / _call_impl / __getattr__ / __getattribute__, so its forward() "
         "is not what runs.", "remove the override; the work belongs in forward() via children"),
    Rule("HD209", "dynamic code", "error",
         "The file uses eval / exec / compile / __import__ / importlib / runpy: code that static analysis "
         "cannot see.", "write the code out; import children with ordinary import statements"),
    Rule("HD210", "imports the parent", "error",
         "The file imports original.py (the parent being decomposed).",
         "build the refactored model from children only; never import original.py"),
    Rule("HD211", "helper file outside children/", "error",
         "The file imports local code that is not under children/ (a helper file next to it, a relative "
         "import, or sys.path manipulation).",
         "put every piece of compute into a child component file under children/ and import it from there"),
    Rule("HD212", "module class defined in refactored.py", "error",
         "A module class defined in refactored.py itself is used as a child: its compute is not a verified "
         "child component.", "move the class into its own child component file under children/"),
    Rule("HD213", "custom autograd.Function defined", "error",
         "The file defines a torch.autograd.Function subclass, whose forward() does compute outside children.",
         "move the function into a child component under children/"),
    Rule("HD214", "op chosen by the parent for a child", "error",
         "A child is constructed with a function, a callable or a module as an argument (Pointwise(torch.sigmoid), "
         "act=nn.GELU, a lambda, functools.partial(...), getattr(torch, name), another module or child): the "
         "child's forward runs whatever it is given, so the op is chosen by the parent and the child's file is "
         "not a standalone test of any kernel.",
         "move the op into the child: its forward calls the op itself (e.g. children/sigmoid.py calling "
         "torch.sigmoid), and its constructor takes plain data only (ints, floats, strings, bools, tuples, "
         "dtypes, shapes)"),
)}
