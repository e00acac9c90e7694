"""The module scan: imports, globals, classes and functions bound to abstract values; the model class's
attributes; the whole-file checks (construction, own state, hooks, monkeypatching, dynamic code)."""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from hdecomp.anticheat.rules import RULES, AntiCheatViolation, RelatedLocation, SourceRange
from hdecomp.anticheat.static.external import absolute_module
from hdecomp.anticheat.static.forward_eval import ForwardEval
from hdecomp.anticheat.static.library import CodeSpan, Proof, prove_call
from hdecomp.anticheat.static.memo import (
    AnalysisMemo,
    ClassInfo,
    HelperKey,
    HelperResult,
    ScanRecord,
    StmtRecord,
    first_line,
    same_env,
    same_val,
    violation_lines,
)
from hdecomp.anticheat.static.names import classify_ref
from hdecomp.anticheat.static.paths import SysPathEntries
from hdecomp.anticheat.static.values import (
    CHILD_CLASS,
    CHILD_MODULE,
    HELPER_PATH,
    LOCAL_CLASS,
    LOCAL_FN,
    METHOD,
    PLUMB_MODULE,
    RAW_MODULE,
    REF,
    SCALAR,
    SEQ,
    TCONST,
    V_DATA,
    V_SCALAR,
    V_SELF,
    Val,
    camel_to_op,
    const_str,
    dotted_name,
    function_kind,
    holds_a_number,
    iter_elem,
    key_kind,
    merge,
    rooted_in,
    source_range,
    unpack,
)
from hdecomp.anticheat.static.vocab import (
    BUILTIN_DYNAMIC,
    CALL_MACHINERY,
    DYNAMIC_MODULES,
    HOOK_RE,
    KNOWN_PACKAGES,
    MAX_HELPER_DEPTH,
    MODEL_LIBRARIES,
    PATCH_ATTRS,
    PRIVATE_HOOK_ATTRS,
)


class ModuleScan:
    """One analysis of one file. Violations are appended to `self.out`; helper bodies are analysed into
    their own lists and summarised at the call site."""

    def __init__(self, source: str, tree: ast.Module, path: str | None, memo: AnalysisMemo | None = None) -> None:
        self.source = source
        self.tree = tree
        self.path = path
        self.lines = source.splitlines()
        self.out: list[AntiCheatViolation] = []
        self.globals: dict[str, Val] = {}
        self.star_roots: list[str] = []        # `from torch import *` and friends
        self.classes: dict[str, ClassInfo] = {}
        self.target: ClassInfo | None = None
        self.self_attrs: dict[str, Val] = {}
        self.dynamic_self_attr: Val | None = None
        self.helper_cache: dict[HelperKey, HelperResult] = {}
        self.helper_stack: list[int] = []
        self.reported: set[tuple[str, int, int, int, int]] = set()
        self.forward_node: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        self.base_dir = Path(path).resolve().parent if path else None
        self.top_level_stmts: set[int] = set()
        self.memo = memo
        self.memo_lines: list[str] = []
        self.context_key: tuple[Any, ...] | None = None
        self.body_end = 0
        # forward() statement memo (see AnalysisMemo): every report to `out` while a statement runs, before
        # de-duplication, and a count of the changes forward() made to analyzer-wide state
        self.recording: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]] | None = None
        self.helper_reads: list[tuple[HelperKey, HelperResult]] = []   # cache hits while recording
        self.helper_news: list[tuple[HelperKey, Any, HelperResult]] = []  # entries added while recording
        self.mutations = 0
        self.child_lookups: list[tuple[str, int, bool | None]] | None = None  # is_child_module_name calls
        self.reads_forward = False  # forward()'s body analysed as a helper (from module level, __init__...)
        self.new_records: dict[tuple[int, int, str], StmtRecord] = {}
        self.new_scan: ScanRecord | None = None
        # library functions read and found plumbing where forward() calls them (static.library): the runtime
        # check lets host compute in them pass, as in this file's own code
        self.library_code: set[CodeSpan] = set()

    # -- reporting ------------------------------------------------------------------------------------

    def line_text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def loc(self, node: Any, message: str) -> RelatedLocation:
        return RelatedLocation(message, source_range(node), self.path)

    def report(self, rule: str, node: Any, message: str, op: str | None = None,
               related: Iterable[RelatedLocation] = (), details: dict[str, Any] | None = None,
               sink: list[AntiCheatViolation] | None = None, rng: SourceRange | None = None) -> None:
        r = rng or source_range(node)
        key = (rule, r.line, r.col, r.end_line, r.end_col)
        target = self.out if sink is None else sink
        if target is self.out:
            if self.recording is None and key in self.reported:
                return
        spec = RULES[rule]
        v = AntiCheatViolation(
            rule=rule, message=message, kind="static", severity=spec.severity, file=self.path, range=r,
            line_text=self.line_text(r.line), allowed_instead=spec.instead(op), op=op,
            related=list(related), details=dict(details or {}))
        if target is self.out:
            if self.recording is not None:
                self.recording.append((key, v))  # recorded before de-duplication, so that a replay is exact
            self.report_once(key, v)
        else:
            target.append(v)

    def report_once(self, key: tuple[str, int, int, int, int], v: AntiCheatViolation) -> None:
        if key not in self.reported:
            self.reported.add(key)
            self.out.append(v)

    # -- module level ---------------------------------------------------------------------------------

    def run(self) -> list[AntiCheatViolation]:
        self.top_level_stmts = {id(s) for s in self.tree.body}
        self.bind_module(self.tree.body)
        self.pick_target()
        if self.target is not None:
            self.collect_self_attrs(self.target)
        context = self.context_key = self.memo_context()
        if context is None:
            self.scan_file()
        else:
            self.scan_file_memoized(context)
        if self.target is not None and self.forward_node is not None:
            self.analyse_forward(self.target, self.forward_node)
        if self.memo is not None:
            # a file whose module level runs forward() (quietly) depends on forward's body everywhere
            self.memo.context = None if self.reads_forward else context
            self.memo.records = self.new_records
            self.memo.scan = self.new_scan
            self.memo.body_end, self.memo.lines = self.body_end, self.memo_lines
        self.out.sort(key=lambda v: (v.line, v.range.col if v.range else 0, v.rule))
        return self.out

    def memo_context(self) -> tuple[Any, ...] | None:
        """What everything but forward()'s own statements depends on, for the memo: the text around
        forward's body and how the imports resolved (they look at the disk). Where the body ends is
        `body_end`: the text after it may have moved (lines added or removed inside forward)."""
        fwd = self.forward_node
        if self.memo is None or fwd is None or not fwd.body or \
                self.source.count("\r") != self.source.count("\r\n"):  # lone CRs: `ast` and the keys disagree
            return None
        lines = self.source.split("\n")
        self.memo_lines = lines
        first = first_line(fwd.body[0])
        last = self.body_end = fwd.body[-1].end_lineno or fwd.body[-1].lineno
        return ("\n".join(lines[: first - 1]), "\n".join(lines[last:]), self.path,
                tuple((k, v.kind, v.qual) for k, v in self.globals.items()))

    def unchanged_lines(self, memo: AnalysisMemo) -> int:
        """How many leading lines the memo's version and this one share."""
        old, new = memo.lines, self.memo_lines
        return next((n for n, (x, y) in enumerate(zip(old, new, strict=False)) if x != y), min(len(old), len(new)))

    def scan_file_memoized(self, context: tuple[Any, ...]) -> None:
        """scan_file() never looks inside forward(): while the text around forward() is unchanged, so are
        its reports (replayed, before de-duplication, as they were made)."""
        memo = self.memo
        assert memo is not None
        old = memo.scan if memo.context == context and not self.reads_forward else None
        if old is not None and memo.body_end != self.body_end:
            # lines added or removed inside forward(): the reports are still good if none lies below the edit
            unchanged = self.unchanged_lines(memo)
            found = [0]
            for _key, v in old.reports:
                violation_lines(v, found)
            if found[0] > unchanged:
                old = None
        if old is not None and all(self.is_child_module_name(m, lv) == r for m, lv, r in old.child_lookups):
            for key, v in old.reports:
                self.report_once(key, v)
            self.new_scan = old
            return
        self.recording, self.child_lookups, self.helper_reads, self.helper_news = [], [], [], []
        try:
            self.scan_file()
            # helper analyses made here would be missing from the helper cache after a replay
            if not self.helper_reads and not self.helper_news:
                self.new_scan = ScanRecord(self.recording, self.child_lookups)
        finally:
            self.recording, self.child_lookups, self.helper_reads, self.helper_news = None, None, [], []

    def is_child_module_name(self, module: str, level: int = 0) -> bool | None:
        """True: under children/. False: known not to be (stdlib, torch, third party, helper file).
        None: a local helper file outside children/."""
        found = self._is_child_module_name(module, level)
        if self.child_lookups is not None:
            self.child_lookups.append((module, level, found))
        return found

    def _is_child_module_name(self, module: str, level: int) -> bool | None:
        top = module.split(".")[0]
        if level > 0:
            return True if top == "children" else None
        if top == "children":
            return True
        if top in KNOWN_PACKAGES or top in sys.stdlib_module_names:
            return False
        if self.base_dir is not None:
            child_dir = self.base_dir / "children"
            try:
                if (child_dir / f"{top}.py").is_file() or (child_dir / top).is_dir():
                    return True
                if (self.base_dir / f"{top}.py").is_file() or (self.base_dir / top).is_dir():
                    return None
            except OSError:
                return False
        # Not found (an unsaved buffer, a child not written yet): a bare module name is most likely a
        # child file on sys.path; its functions are still never accepted as plumbing in forward().
        return True

    def bind_import(self, node: ast.Import | ast.ImportFrom, env: dict[str, Val]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                loc = self.loc(node, f"`{name}` imported here")
                child = self.is_child_module_name(name)
                if alias.asname:
                    val = Val(CHILD_MODULE, qual=name, origin=(loc,)) if child else Val(REF, qual=name)
                    env[alias.asname] = val
                else:
                    top = name.split(".")[0]
                    env[top] = Val(CHILD_MODULE, qual=top) if child else Val(REF, qual=top)
            return
        module = node.module or ""
        child = self.is_child_module_name(module, node.level)
        for alias in node.names:
            local = alias.asname or alias.name
            loc = self.loc(node, f"`{local}` imported from `{'.' * node.level}{module}` here")
            if alias.name == "*":
                if not child and child is not None:
                    self.star_roots.append(module)
                continue
            if child:
                kind = CHILD_CLASS if alias.name[:1].isupper() else CHILD_MODULE
                env[local] = Val(kind, qual=f"{module}.{alias.name}", origin=(loc,))
            elif child is None:
                # helper file outside children/: reported at the import; its names are unknown code
                env[local] = Val(REF, qual=f"<helper:{module}>.{alias.name}", origin=(loc,), via="import")
            else:
                env[local] = Val(REF, qual=f"{module}.{alias.name}" if module else alias.name,
                                 origin=(loc,) if alias.asname or module.startswith("torch") else (),
                                 via="import")

    def bind_module(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.bind_import(stmt, self.globals)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.globals[stmt.name] = Val(LOCAL_FN, qual=stmt.name, node=stmt)
            elif isinstance(stmt, ast.ClassDef):
                self.bind_class(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                value = stmt.value
                if value is None:
                    continue
                val = self.eval_quiet(value, self.globals)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    self.bind_target_quiet(t, val, self.globals, value)
            elif isinstance(stmt, ast.If):
                if self._is_main_guard(stmt.test):
                    continue
                self.bind_module(stmt.body)
                self.bind_module(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                self.bind_module(stmt.body)
                for h in stmt.handlers:
                    self.bind_module(h.body)
                self.bind_module(stmt.orelse)
                self.bind_module(stmt.finalbody)
            elif isinstance(stmt, ast.With):
                self.bind_module(stmt.body)

    @staticmethod
    def _is_main_guard(test: ast.expr) -> bool:
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id == "__name__")

    def bind_target_quiet(self, target: ast.expr, val: Val, env: dict[str, Val], value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST, METHOD):
                val = val.with_origin(self.loc(value, f"`{target.id}` bound to `{self.snippet(value)}` here"))
            env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, t in enumerate(target.elts):
                self.bind_target_quiet(t, unpack(val, i), env, value)

    def snippet(self, node: ast.AST, limit: int = 60) -> str:
        """The source text of a node, on one line (from the line cache: get_source_segment re-splits the
        whole file on every call, which made big files quadratic)."""
        line, end_line = getattr(node, "lineno", 0), getattr(node, "end_lineno", None)
        col, end_col = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None)
        if not line or end_line is None or end_col is None or end_line - line > 20 or \
                end_line > len(self.lines):
            return "..."
        if line == end_line:
            text = self.lines[line - 1].encode()[col:end_col].decode(errors="replace")
        else:
            parts = [self.lines[line - 1].encode()[col:].decode(errors="replace"),
                     *self.lines[line:end_line - 1],
                     self.lines[end_line - 1].encode()[:end_col].decode(errors="replace")]
            text = "\n".join(parts)
        text = " ".join(text.split()) or "..."
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def bind_class(self, cls: ast.ClassDef) -> None:
        info = ClassInfo(cls)
        self.classes[cls.name] = info
        self.globals[cls.name] = Val(LOCAL_CLASS, qual=cls.name, node=cls)
        for b in cls.bases:
            name = dotted_name(b) or ""
            bval = self.eval_quiet(b, self.globals)
            if bval.kind == LOCAL_CLASS and bval.qual in self.classes:
                base = self.classes[bval.qual]
                info.bases.append(base)
                info.is_module |= base.is_module
                info.is_autograd |= base.is_autograd
            elif bval.kind == REF:
                rc = classify_ref(bval.qual)
                if rc.what == "autograd" or bval.qual.endswith("autograd.Function"):
                    info.is_autograd = True
                elif bval.qual.startswith("torch.nn") or name.endswith("Module"):
                    info.is_module = True
            elif bval.kind == CHILD_CLASS or name.endswith("Module"):
                info.is_module = True
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.methods[stmt.name] = stmt
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                self.top_level_stmts.add(id(stmt))
                val = self.eval_quiet(stmt.value, self.globals)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST):
                            val = val.with_origin(self.loc(stmt.value, f"class attribute `{t.id}` bound to "
                                                                       f"`{self.snippet(stmt.value)}` here"))
                        info.attrs[t.id] = val

    def find_method(self, info: ClassInfo, name: str, seen: set[int] | None = None) -> tuple[
            ast.FunctionDef | ast.AsyncFunctionDef | None, ClassInfo | None]:
        seen = seen or set()
        if id(info) in seen:
            return None, None
        seen.add(id(info))
        if name in info.methods:
            return info.methods[name], info
        for b in info.bases:
            m, owner = self.find_method(b, name, seen)
            if m is not None:
                return m, owner
        return None, None

    def find_class_attr(self, info: ClassInfo, name: str, seen: set[int] | None = None) -> Val | None:
        seen = seen or set()
        if id(info) in seen:
            return None
        seen.add(id(info))
        if name in info.attrs:
            return info.attrs[name]
        for b in info.bases:
            v = self.find_class_attr(b, name, seen)
            if v is not None:
                return v
        return None

    def pick_target(self) -> None:
        info = self.classes.get("RefactoredModel")
        fallback = False
        if info is None:
            for c in self.classes.values():
                if c.is_module and self.find_method(c, "forward")[0] is not None:
                    info, fallback = c, True
                    break
        if info is None:
            self.report("HD002", None,
                        "no `RefactoredModel` class (nor any nn.Module subclass with a forward()) in this file",
                        rng=SourceRange(1, 0, 1, len(self.lines[0]) if self.lines else 0))
            return
        self.target = info
        fwd, _ = self.find_method(info, "forward")
        if fwd is None:
            self.report("HD002", info.node, f"class `{info.node.name}` has no forward() method",
                        rng=self.header_range(info.node))
            return
        self.forward_node = fwd
        if fallback:
            self.report("HD003", info.node, f"no class named `RefactoredModel`; checked `{info.node.name}`",
                        rng=self.header_range(info.node))

    def header_range(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> SourceRange:
        """The `class Name` / `def name` part of a definition (not its whole body)."""
        text = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
        col = node.col_offset
        idx = text.find(node.name, col)
        end = idx + len(node.name) if idx >= 0 else col + 1
        return SourceRange(node.lineno, col, node.lineno, end)

    # -- the model's attributes -----------------------------------------------------------------------

    def collect_self_attrs(self, info: ClassInfo) -> None:
        """Attributes set on `self` in every method but forward (children, aliases, raw modules, state)."""
        classes = [info]
        i = 0
        while i < len(classes):
            for b in classes[i].bases:
                if b not in classes:
                    classes.append(b)
            i += 1
        for c in reversed(classes):
            methods = sorted(c.methods.values(), key=lambda m: (m.name != "__init__", m.lineno))
            for m in methods:
                if m is self.forward_node:
                    continue
                env = dict(self.globals)
                args = m.args.posonlyargs + m.args.args
                if args and function_kind(m) == "function":
                    env[args[0].arg] = V_SELF
                    defaults: list[ast.expr | None] = [None] * (len(args) - len(m.args.defaults))
                    defaults += m.args.defaults
                    for a, d in zip(args[1:], defaults[1:], strict=False):
                        # constructor arguments come from get_init_inputs() (numbers); a default that is a
                        # class or function (act_layer=nn.GELU) is what will be used
                        dv = self.eval_quiet(d, self.globals) if d is not None else V_SCALAR
                        env[a.arg] = dv.with_origin(self.loc(d, f"default `{a.arg}={self.snippet(d)}`")) \
                            if d is not None and dv.kind in (REF, LOCAL_FN, LOCAL_CLASS) else V_SCALAR
                self.collect_attrs_in(m.body, env)

    def collect_attrs_in(self, body: list[ast.stmt], env: dict[str, Val]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                val = self.eval_quiet(stmt.value, env)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    self.collect_target(t, val, env, stmt.value)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                f = call.func
                fname = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")
                owner_is_self = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    env.get(f.value.id) is V_SELF
                if fname in ("add_module", "register_module", "register_buffer", "register_parameter",
                             "setattr") and len(call.args) >= 2:
                    if fname == "setattr":
                        if not (isinstance(call.args[0], ast.Name) and env.get(call.args[0].id) is V_SELF):
                            continue
                        name_node, value_node = call.args[1], call.args[2] if len(call.args) > 2 else None
                    elif owner_is_self:
                        name_node, value_node = call.args[0], call.args[1]
                    else:
                        continue
                    if value_node is None:
                        continue
                    val = self.eval_quiet(value_node, env)
                    if fname in ("register_buffer", "register_parameter"):
                        val = Val(TCONST, origin=(self.loc(call, "registered here"),))
                    name = const_str(name_node)
                    if name is not None:
                        self.set_self_attr(name, val, value_node)
                    else:
                        self.dynamic_self_attr = merge(self.dynamic_self_attr, val)
                else:
                    # self.layers.append(Block(...)): children built here are checked (HD214) too
                    self.eval_quiet(call, env)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                it = self.eval_quiet(stmt.iter, env)
                self.bind_target_quiet(stmt.target, iter_elem(it), env, stmt.iter)
                self.collect_attrs_in(stmt.body, env)
                self.collect_attrs_in(stmt.orelse, env)
            elif isinstance(stmt, (ast.If, ast.While)):
                self.collect_attrs_in(stmt.body, env)
                self.collect_attrs_in(stmt.orelse, env)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                self.collect_attrs_in(stmt.body, env)
            elif isinstance(stmt, ast.Try):
                self.collect_attrs_in(stmt.body, env)
                for h in stmt.handlers:
                    self.collect_attrs_in(h.body, env)
                self.collect_attrs_in(stmt.orelse, env)
                self.collect_attrs_in(stmt.finalbody, env)

    def collect_target(self, t: ast.expr, val: Val, env: dict[str, Val], value: ast.expr) -> None:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and env.get(t.value.id) is V_SELF:
            self.set_self_attr(t.attr, val, value)
        elif isinstance(t, (ast.Tuple, ast.List)):  # self.a, self.b = a, b
            for i, el in enumerate(t.elts):
                self.collect_target(el.value if isinstance(el, ast.Starred) else el, unpack(val, i), env, value)
        elif isinstance(t, ast.Name):
            self.bind_target_quiet(t, val, env, value)

    def set_self_attr(self, name: str, val: Val, value: ast.expr) -> None:
        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST, METHOD, PLUMB_MODULE):
            val = val.with_origin(self.loc(value, f"`self.{name}` bound to `{self.snippet(value)}` here"))
        self.self_attrs[name] = merge(self.self_attrs.get(name), val)

    # -- quiet evaluation (module level, __init__): kinds only, no forward rules --------------------------

    def eval_quiet(self, node: ast.expr, env: dict[str, Val]) -> Val:
        ev = ForwardEval(self, env, sink=[], quiet=True)
        try:
            return ev.ev(node)
        except RecursionError:
            return V_DATA

    # -- whole-file checks (everything but forward itself) -----------------------------------------------

    def scan_file(self) -> None:
        """Whole-file checks on every node except forward() itself (forward is judged by ForwardEval)."""
        stack: list[ast.AST] = [self.tree]
        skip = self.forward_node
        ast_type = ast.AST
        while stack:
            node = stack.pop()
            t = type(node)
            if t is ast.Import or t is ast.ImportFrom:
                self.check_import(node)  # type: ignore[arg-type]
            elif t is ast.Call:
                self.check_call_anywhere(node)  # type: ignore[arg-type]
            elif t is ast.Assign or t is ast.AugAssign or t is ast.AnnAssign:
                self.check_assign_anywhere(node)  # type: ignore[arg-type]
            elif t is ast.ClassDef:
                self.check_class(node)  # type: ignore[arg-type]
            elif t is ast.Name:
                ident = node.id  # type: ignore[attr-defined]
                if ident in BUILTIN_DYNAMIC and ident not in self.globals:
                    self.report("HD209", node, f"`{ident}` runs code that static analysis cannot see", op=ident)
                continue
            elif t is ast.Constant:
                continue
            elif t is ast.Attribute and node.attr in PRIVATE_HOOK_ATTRS:  # type: ignore[attr-defined]
                self.report("HD206", node, f"touches `{node.attr}`, a module's private hook table")  # type: ignore[attr-defined]
            # children by hand: ast.iter_child_nodes is twice as slow on big files
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast_type) and item is not skip:
                            stack.append(item)
                elif isinstance(value, ast_type) and value is not skip:
                    stack.append(value)

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            mods = [(a.name, 0) for a in node.names]
        else:
            mods = [(node.module or "", node.level)]
            if node.module is None:
                mods = [(a.name, node.level) for a in node.names]
        for mod, level in mods:
            top = mod.split(".")[0]
            if top == "original" or mod.endswith(".original") or (level and mod == "original"):
                self.report("HD210", node, f"imports `{mod}`: the parent being decomposed")
            elif top in DYNAMIC_MODULES and top in ("importlib", "runpy", "imp", "marshal", "ctypes"):
                self.report("HD209", node, f"imports `{mod}`, which loads or runs code dynamically", op=top)
            elif self.is_child_module_name(mod, level) is None:
                where = "a relative import" if level else f"the local file `{top}.py`"
                self.report("HD211", node, f"imports {where} outside children/ (`{'.' * level}{mod}`)")

    def resolve_quiet(self, node: ast.expr) -> Val:
        return self.eval_quiet(node, self.globals)

    @cached_property
    def sys_path(self) -> SysPathEntries:
        """The file's sys.path changes (read by the whole-file checks, after pick_target has found forward())."""
        return SysPathEntries(self.tree, self.forward_node, self.globals, self.base_dir, self.resolve_quiet)

    def check_call_anywhere(self, call: ast.Call) -> None:
        f = call.func
        if isinstance(f, ast.Attribute):
            if HOOK_RE.match(f.attr):
                self.report("HD206", call, f"`{f.attr}` installs a hook that runs code around modules",
                            op=f.attr)
                return
            if f.attr in ("register_buffer", "register_parameter"):
                self.report("HD204", call, f"`{f.attr}` gives the model its own state outside any child")
                return
            if f.attr in ("insert", "append", "extend") and self.sys_path.is_sys_path(f.value):
                # the original workspace's refactored files put their own children/ folder on sys.path
                # (`sys.path.insert(0, str(Path(__file__).parent / "children"))`), agents their step folder
                # (`from children.x import Model` then lands in children/): both are allowed
                if call.args:
                    entries = [call.args[-1]]
                    if f.attr == "extend":
                        entries = self.sys_path.listed_entries(call.args[-1])
                    self.check_sys_path_entries(call, entries)
                return
        name = f.id if isinstance(f, ast.Name) else None
        if name is not None and name in self.globals:
            g = self.globals[name]
            if g.kind == REF and HOOK_RE.match(g.qual.rsplit(".", 1)[-1]):
                self.report("HD206", call, f"`{name}` (`{g.qual}`) installs a hook that runs code around modules",
                            op=g.qual.rsplit(".", 1)[-1])
                return
        if name in ("setattr", "delattr") and call.args and name not in self.globals:
            tv = self.resolve_quiet(call.args[0]) if rooted_in(call.args[0], self.globals) else V_DATA
            attr = const_str(call.args[1]) if len(call.args) > 1 else None
            if tv.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or attr in PATCH_ATTRS or \
                    self._is_class_of_self(call.args[0]):
                self.report("HD207", call, f"`{name}` rebinds `{self.snippet(call.args[0])}."
                                           f"{attr or '<name>'}` (monkeypatching)")
            return
        fv = self.resolve_quiet(f)
        if fv.kind == REF:
            rc = classify_ref(fv.qual)
            if rc.what == "nn_class":
                self.report("HD202", call, f"constructs the raw module `{self.snippet(f)}` outside children/",
                            op=camel_to_op(rc.op))
            elif rc.what == "parameter":
                rule = "HD204" if rc.op in ("Buffer", "UninitializedBuffer") else "HD203"
                self.report(rule, call, f"creates its own `{rc.op}`: every parameter must live in a child")
            elif rc.what == "dynamic" and fv.qual.split(".")[0] in ("importlib", "runpy", "types", "marshal"):
                self.report("HD209", call, f"`{self.snippet(f)}` loads or builds code dynamically", op=rc.op)
        elif fv.kind == LOCAL_CLASS:
            info = self.classes.get(fv.qual)
            if info is not None and info.is_module and info is not self.target:
                self.report("HD212", call, f"instantiates `{fv.qual}`, a module class defined in this file, "
                                           f"not a child component under children/", op=camel_to_op(fv.qual))

    # -- sys.path changes: where do they point? -----------------------------------------------------------

    def check_sys_path_entries(self, node: ast.AST, entries: list[ast.expr]) -> None:
        """HD211 unless every entry resolves (statically) to the step's own folder or its children/."""
        for entry in entries:
            verdict = self.sys_path.verdict(entry)
            if verdict is not None:
                self.report("HD211", node, f"changes sys.path to import code from outside children/ "
                                           f"(`{self.snippet(entry)}` {verdict})")
                return

    @staticmethod
    def _is_class_of_self(node: ast.expr) -> bool:
        if isinstance(node, ast.Attribute) and node.attr == "__class__":
            return True
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"

    def check_assign_anywhere(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        flat: list[ast.expr] = []
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                flat.extend(t.elts)
            else:
                flat.append(t)
        for t in flat:
            if node.value is not None and (self.sys_path.is_sys_path(t) or (
                    isinstance(t, ast.Subscript) and self.sys_path.is_sys_path(t.value))):
                self.check_sys_path_entries(node, self.sys_path.listed_entries(node.value))
                continue
            if not isinstance(t, ast.Attribute):
                continue
            base = self.resolve_quiet(t.value) if rooted_in(t.value, self.globals) else V_DATA
            if base.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or t.attr in PATCH_ATTRS or \
                    self._is_class_of_self(t.value):
                if base.kind == REF and classify_ref(base.qual).what == "external" and \
                        t.attr not in PATCH_ATTRS:
                    continue
                self.report("HD207", t, f"rebinds `{self.snippet(t)}` (monkeypatching)")
        # tensors kept as state: module level, class level, self.<x> = torch.ones(...)
        value = node.value
        if value is None or not isinstance(value, ast.Call):
            return
        on_self = any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                      for t in flat)
        top_level = id(node) in self.top_level_stmts and any(isinstance(t, ast.Name) for t in flat)
        if (on_self or top_level) and self._creates_tensor(value):
            self.report("HD205", value, f"keeps the tensor `{self.snippet(value)}` as state outside any child")

    def _creates_tensor(self, call: ast.Call) -> bool:
        fv = self.resolve_quiet(call.func)
        if fv.kind != REF:
            return False
        rc = classify_ref(fv.qual)
        # (a number kept in a tensor, `torch.tensor(7)`, is no state: plain data, as the int is)
        return fv.qual.startswith("torch") and rc.what in ("compute", "plumb") and not holds_a_number(call, fv.qual)

    def check_class(self, cls: ast.ClassDef) -> None:
        info = self.classes.get(cls.name)
        if info is None:
            return
        if info.is_autograd and info.node is cls:
            self.report("HD213", cls, f"`{cls.name}` is a torch.autograd.Function: its forward() does compute "
                                      f"outside children", op=camel_to_op(cls.name),
                        rng=self.header_range(cls))
        if info is self.target:
            for kw in cls.keywords:
                if kw.arg == "metaclass":
                    self.report("HD208", kw, f"`{cls.name}` uses a metaclass, which can rewrite forward()",
                                rng=source_range(kw.value))
            for base in info.bases:
                hook = base.methods.get("__init_subclass__")
                if hook is not None:
                    self.report("HD208", hook, f"`{base.node.name}.__init_subclass__` runs on `{cls.name}` "
                                               f"and can rewrite its forward()", rng=self.header_range(hook))
            for name in CALL_MACHINERY:
                m = info.methods.get(name)
                if m is not None:
                    self.report("HD208", m, f"`{cls.name}` overrides `{name}`, so forward() is not what runs",
                                rng=self.header_range(m))

    # -- forward ----------------------------------------------------------------------------------------

    def analyse_forward(self, info: ClassInfo, fwd: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        env: dict[str, Val] = {}
        ev = ForwardEval(self, env, sink=self.out, quiet=False)
        # decorators on forward() and on the class run around forward: judge them like helpers; one of a model
        # library on forward() maps its arguments and outputs (vocab.MODEL_LIBRARIES: plumbing, as the
        # original has it), and what it runs is judged at run time
        for deco in [*fwd.decorator_list, *info.node.decorator_list]:
            if deco in fwd.decorator_list and _library_ref(ev, deco):
                continue
            dv = ev.ev(deco)
            if dv.kind == LOCAL_FN and dv.node is not None:
                ev.call_helper(deco, dv, [Val(LOCAL_FN, qual=fwd.name, node=fwd, bound=True)], {},
                               what="decorator")
            elif dv.kind == REF and classify_ref(dv.qual).what not in ("neutral", "namespace", "const"):
                ev.value_use(deco, dv)
        ev.bind_params(fwd, [], {}, self_val=V_SELF, kind="function")
        context = self.context_key
        if context is None or self.memo is None or self.reads_forward:
            ev.run_body(fwd.body)
        else:
            self.run_forward_memoized(ev, fwd.body, self.memo, context)

    def run_forward_memoized(self, ev: ForwardEval, body: list[ast.stmt], memo: AnalysisMemo,
                             context: tuple[Any, ...]) -> None:
        """forward()'s statements, reusing the previous analysis's result for each statement whose text,
        position and incoming state are unchanged (the editor re-analyses on every keystroke).

        A statement's result depends on its text and position, the abstract values of the locals before it
        (`env`, `ret`), the helper-cache entries it read, and the rest of the file (the memo's context key).
        Replaying a record re-applies exactly what running it did: its reports (before de-duplication),
        its helper-cache entries and the locals after it. A statement that changed analyzer-wide state
        (self attributes, classes, imports) is not recorded, and nothing after it is reused."""
        lines = self.memo_lines
        old = memo.records if memo.context == context else {}
        # Lines added or removed inside forward() move everything below: a record is still good if every
        # position it holds is above the first changed line (statements below have new keys anyway).
        unchanged = self.unchanged_lines(memo) if old and memo.body_end != self.body_end else len(lines)
        new = self.new_records
        reusable = True
        cache = self.helper_cache
        # After a replay the locals are those of the record (`snapshot`); ev.env catches up lazily, before
        # the next statement that really runs. Consecutive records share their env dicts, so that checking
        # a record after a replay is one identity test.
        snapshot: dict[str, Val] | None = None
        for s in body:
            first, end = first_line(s), s.end_lineno or s.lineno
            key = (s.lineno, s.col_offset, lines[first - 1] if first == end else "\n".join(lines[first - 1: end]))
            rec = old.get(key) if reusable else None
            if rec is not None and unchanged < len(lines) and rec.last_line() > unchanged:
                rec = None
            if rec is not None and (rec.env_before is snapshot or same_env(rec.env_before, ev.env if snapshot is None else snapshot)) \
                    and (rec.ret_before is ev.ret or same_val(rec.ret_before, ev.ret)) \
                    and (not rec.helper_reads or all(cache.get(k) is r for k, r in rec.helper_reads)) \
                    and (not rec.helper_news or not any(k in cache for k, _n, _r in rec.helper_news)):
                for rkey, v in rec.reports:
                    self.report_once(rkey, v)
                for hkey, _node, res in rec.helper_news:
                    cache[hkey] = res
                snapshot, ev.ret = rec.env_after, rec.ret_after
                new[key] = rec
                continue
            if snapshot is not None:
                ev.env.clear()
                ev.env.update(snapshot)
            env_before = snapshot if snapshot is not None else dict(ev.env)
            ret_before, mutations = ev.ret, self.mutations
            self.recording, self.helper_reads, self.helper_news = [], [], []
            try:
                ev.stmt(s)
                reports, reads, news = self.recording, self.helper_reads, self.helper_news
            finally:
                self.recording, self.helper_reads, self.helper_news = None, [], []
            snapshot = dict(ev.env)
            if reusable and self.mutations == mutations:
                new[key] = StmtRecord(env_before, ret_before, reports, reads, news, snapshot, ev.ret)
            else:
                reusable = False
        if snapshot is not None:
            ev.env.clear()
            ev.env.update(snapshot)

    def prove_library_call(self, qual: str, args: list[Val], kwargs: dict[str, Val]) -> Proof | None:
        """A library function's call read from its source (static.library, with LibraryScan)."""
        return prove_call(qual, args, kwargs, LibraryScan)

    def analyse_helper(self, fn: Val, args: list[Val], kwargs: dict[str, Val],
                       quiet: bool = False) -> HelperResult:
        """Run a helper's body with the call's argument kinds: its violations (forward context) or, in
        quiet mode (__init__, module level), only the kind of what it returns (`self.layer1 =
        self._make_layer(...)` returning an nn.Sequential of children)."""
        node = fn.node
        key = (id(node), (*(key_kind(a) for a in args), *sorted(kwargs), "quiet" if quiet else ""))
        cached = self.helper_cache.get(key)
        if cached is not None:
            if self.recording is not None:
                self.helper_reads.append((key, cached))
            return cached
        if id(node) in self.helper_stack or len(self.helper_stack) >= MAX_HELPER_DEPTH:
            return HelperResult(V_DATA, [])
        if node is self.forward_node:
            self.reads_forward = True
        self.helper_stack.append(id(node))
        try:
            env: dict[str, Val] = dict(fn.closure) if fn.closure is not None else {}
            sink: list[AntiCheatViolation] = []
            ev = ForwardEval(self, env, sink=sink, quiet=quiet)
            ev.loop_path = HELPER_PATH  # a child's output made in the helper is fresh where it is called
            kind = function_kind(node)
            self_val = None
            if fn.bound:
                self_val = V_SELF if kind != "classmethod" else Val(LOCAL_CLASS, qual=fn.ctx or "")
            ev.bind_params(node, args, kwargs, self_val=self_val, kind=kind)
            if isinstance(node, ast.Lambda):
                ret = ev.ev(node.body)
            else:
                ev.run_body(node.body)
                ret = ev.ret or Val(SCALAR)
            if not quiet and ret.kind == LOCAL_FN and ret.node is not None and ret.node is not node:
                # a helper that returns a function (closure factory, decorator): that function runs too
                inner = self.analyse_helper(ret, [V_DATA] * 4, {})
                sink.extend(inner.violations)
            result = HelperResult(ret, sink)
        finally:
            self.helper_stack.pop()
        self.helper_cache[key] = result
        if self.recording is not None:
            self.helper_news.append((key, node, result))  # the node keeps its id from being reused
        return result


def constant_arguments(deco: ast.expr) -> bool:
    """A decorator used bare (`@name`) or called with plain constants only (`@name("x", new_name="y")`): the
    form of a library decorator the analysis reads as plumbing, and the planner keeps (decompose.source_step)."""
    return not isinstance(deco, ast.Call) or all(isinstance(a, ast.Constant)
                                                 for a in [*deco.args, *(k.value for k in deco.keywords)])


def _library_ref(ev: ForwardEval, deco: ast.expr) -> bool:
    """A decorator (`@name`, `@name(...)`) whose name is a model library's (vocab.MODEL_LIBRARIES), its call's
    arguments plain constants."""
    target = deco.func if isinstance(deco, ast.Call) else deco
    if not constant_arguments(deco):
        return False
    tv = ev.ev(target)
    return tv.kind == REF and tv.qual.split(".")[0] in MODEL_LIBRARIES


class LibraryScan(ModuleScan):
    """A scan of a library module: its imports are its own (relative ones resolved in its package), it has no
    children, and it notes the functions it reads (`code`)."""

    def __init__(self, source: str, tree: ast.Module, path: str, module: str) -> None:
        super().__init__(source, tree, path)
        self.module = module
        self.code: set[CodeSpan] = set()
        self.top_level_stmts = {id(s) for s in tree.body}
        self.bind_module(tree.body)

    def is_child_module_name(self, module: str, level: int = 0) -> bool | None:
        return False   # a library has no children

    def bind_import(self, node: ast.Import | ast.ImportFrom, env: dict[str, Val]) -> None:
        if isinstance(node, ast.ImportFrom) and node.level:
            target = absolute_module(self.module, node.module, node.level)
            if target is None:
                return
            node = copy.copy(node)
            node.module, node.level = target, 0
        super().bind_import(node, env)

    def analyse_helper(self, fn: Val, args: list[Val], kwargs: dict[str, Val], quiet: bool = False) -> HelperResult:
        node = fn.node
        if not quiet and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self.code.add((str(Path(self.path or "").resolve()), node.lineno, node.end_lineno or node.lineno))
        return super().analyse_helper(fn, args, kwargs, quiet=quiet)
