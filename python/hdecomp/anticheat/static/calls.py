"""Call judging for the forward evaluator: a call in forward() (or in a helper it reaches) judged by what its
callee resolves to (a child, torch, a builtin, a tensor method, a helper of this file, ...)."""

from __future__ import annotations

import ast

from hdecomp.anticheat.static.constructor_args import check_child_constructor
from hdecomp.anticheat.static.expressions import ExpressionEval
from hdecomp.anticheat.static.external import is_namedtuple_class, is_output_dataclass, reexported
from hdecomp.anticheat.static.names import classify_method, classify_ref
from hdecomp.anticheat.static.values import (
    AUTOGRAD_APPLY,
    CHILD,
    CHILD_ATTR,
    CHILD_CLASS,
    CHILD_MODULE,
    CHILD_OUT,
    CHILDREN,
    HOST,
    LOCAL_CLASS,
    LOCAL_FN,
    METHOD,
    PLUMB_MODULE,
    RAW_MODULE,
    REF,
    SCALAR,
    SELF,
    SEQ,
    SUPER,
    SUSPECT,
    TCONST,
    TENSORISH,
    V_CHILD,
    V_DATA,
    V_EMPTY,
    V_HOST,
    V_PYDATA,
    V_SCALAR,
    Val,
    builds_host,
    camel_to_op,
    const_str,
    holds_a_number,
    is_child_out,
    iter_elem,
    merge,
    plain_data,
    seq_val,
    spelled_of,
)
from hdecomp.anticheat.static.vocab import (
    BUILTIN_DYNAMIC,
    BUILTIN_MATH,
    DUNDER_BINOPS,
    OPERATOR_BINOPS,
    PATCH_ATTRS,
)
from hdecomp.vocab.ops import RANDOM_OPS

# the calls that give a sequence of tensors
_SPLITS = frozenset({"split", "chunk", "unbind", "tensor_split", "split_with_sizes", "hsplit", "vsplit", "dsplit",
                     "unsafe_chunk", "unsafe_split", "broadcast_tensors", "unpack"})


class CallEval(ExpressionEval):
    """Judges the calls of forward(): children are called, plumbing runs, everything else is reported."""

    def eval_args(self, call: ast.Call) -> tuple[list[Val], dict[str, Val]]:
        args: list[Val] = []
        # (`isinstance(x, torch.fx.Proxy)`: the types a value is tested against are read, never run)
        types_at = 1 if isinstance(call.func, ast.Name) and call.func.id in ("isinstance", "issubclass") and \
            call.func.id not in self.env else -1
        for i, a in enumerate(call.args):
            if i == types_at:
                args.append(V_SCALAR)
                continue
            v = self.ev(a)
            if v.kind in SUSPECT:
                self.value_use(a, v)
            if type(a) is ast.Starred:
                args.append(iter_elem(v))
            else:
                args.append(v)
        kwargs: dict[str, Val] = {}
        for kw in call.keywords:
            v = self.ev(kw.value)
            if v.kind in SUSPECT:
                self.value_use(kw.value, v)
            # (`**mask_kwargs`: the mapping's values are handed too, under a name no parameter has)
            kwargs[kw.arg if kw.arg is not None else f"**{len(kwargs)}"] = v
        return args, kwargs

    def call(self, call: ast.Call) -> Val:
        f = call.func
        # getattr(obj, "name") is judged like obj.name, but marked as a dynamic lookup
        if isinstance(f, ast.Name) and f.id == "getattr" and "getattr" not in self.env and \
                "getattr" not in self.an.globals and len(call.args) >= 2:
            base = self.ev(call.args[0])
            key = const_str(call.args[1])
            for extra in call.args[1:]:
                self.ev(extra)
            if key is not None:
                return self.attribute(call, base, key, via="dynamic")
            if base.kind == REF:
                return Val(REF, qual=f"{base.qual}.<name>", via="dynamic", origin=base.origin)
            if base.kind == SELF:
                return self.an.dynamic_self_attr or self.dynamic_self_lookup()
            if base.kind in TENSORISH:
                return Val(METHOD, qual="<name>", elem=base, via="dynamic")
            return V_DATA
        fv = self.ev(f)
        args, kwargs = self.eval_args(call)
        return self.apply(call, f, fv, args, kwargs)

    def check_module_arguments(self, call: ast.Call, f: ast.expr, args: list[Val], kwargs: dict[str, Val]) -> None:
        """A child handed another module can run it inside its own forward: the parent's wiring, and the
        compute attributed to each child, are then not what the step shows."""
        nodes: list[tuple[ast.expr, Val]] = list(zip(call.args, args, strict=False))
        nodes += [(kw.value, kwargs[kw.arg]) for kw in call.keywords if kw.arg is not None and kw.arg in kwargs]
        for node, val in nodes:
            if val.kind in (CHILD, CHILDREN, RAW_MODULE):
                self.report("HD115", node, f"passes the module `{self.an.snippet(node)}` to "
                                           f"`{self.an.snippet(f)}`, which can run it inside its own forward")

    def dynamic_self_lookup(self) -> Val:
        """getattr(self, name) with a computed name: any attribute could come back; the worst one counts."""
        worst: Val | None = None
        for v in self.an.self_attrs.values():
            worst = merge(worst, v)
        return worst or V_CHILD

    def apply(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        k = fv.kind
        if k == CHILD or k == CHILDREN:  # CHILDREN: an nn.Sequential of children
            self.check_module_arguments(call, f, args, kwargs)
            return V_DATA if self.quiet else self.child_out()
        if k == PLUMB_MODULE:
            return V_DATA
        if k == REF:
            return self.call_ref(call, f, fv, args, kwargs)
        if k == METHOD:
            return self.call_method(call, fv, args, kwargs)
        if k == LOCAL_FN:
            return self.call_helper(call, fv, args, kwargs, what="helper")
        if k == LOCAL_CLASS:
            info = self.an.classes.get(fv.qual)
            if info is not None and info.is_module and not self.quiet:
                self.report("HD201", call, f"constructs the module `{fv.qual}` inside forward()",
                            op=camel_to_op(fv.qual))
                return Val(RAW_MODULE, qual=fv.qual, node=call)
            if info is not None and info.is_module:
                return Val(RAW_MODULE, qual=fv.qual, node=call,
                           origin=(self.an.loc(call, f"`{fv.qual}` (defined in this file) built here"),))
            return V_SCALAR
        if k == CHILD_CLASS:
            if not self.quiet:
                self.report("HD201", call, f"constructs the child `{self.an.snippet(f)}` inside forward() "
                                           "(fresh weights on every call)", op=camel_to_op(fv.qual.split('.')[-1]))
            else:
                check_child_constructor(self, call, f, fv)
            return V_CHILD
        if k == CHILD_MODULE:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}`, a function imported from "
                                       f"`{fv.qual.rsplit('.', 1)[0]}`, not a child module: only a child "
                                       f"module's forward is verified", op=fv.qual.split(".")[-1])
            return V_DATA
        if k == RAW_MODULE:
            op = camel_to_op(fv.qual) if fv.qual else "module"
            self.report("HD109", call, f"calls `{self.an.snippet(f)}`, a `{fv.qual or 'module'}` that is not "
                                       f"a child component", op=op, related=fv.origin)
            return V_DATA
        if k == AUTOGRAD_APPLY:
            self.report("HD110", call, f"runs the autograd.Function `{fv.qual}`", op=camel_to_op(fv.qual),
                        related=[self.an.loc(fv.node, f"`{fv.qual}` defined here")] if fv.node else [])
            return V_DATA
        if k == SUPER:
            return V_DATA
        if k == SCALAR:
            if any(a.kind in TENSORISH for a in args) and not (
                    isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant)):  # "{}".format(x) is fine
                self.report("HD112", call, f"calls `{self.an.snippet(f)}` on a tensor; it is not a child module",
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if k == SEQ:
            self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                        related=fv.origin)
            return V_DATA
        if k == CHILD_ATTR:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}` on a child instead of the child itself",
                        op=fv.qual)
            return V_DATA
        # DATA / TCONST called: a value of unknown origin
        self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                    related=fv.origin)
        return V_DATA

    def call_ref(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        qual = fv.qual
        if qual.startswith("builtins."):
            name = qual[len("builtins."):]
            if "." in name:
                if name.rsplit(".", 1)[1].startswith("__"):  # object.__getattribute__(x, "relu") & co
                    self.report("HD103", call, f"`{spelled_of(self.an, f)}` reaches attributes by name at run time")
                    return V_DATA
                return V_SCALAR
            return self.call_builtin(call, name, args, kwargs)
        if qual in ("functools.reduce", "_functools.reduce") and len(args) >= 2 and args[1].kind == SEQ and \
                self.is_addition(call.args[0], args[0]):
            self.check_sum_of_sequence(call, call.args[1], args[1], f"`{self.an.snippet(f)}` with an addition")
            return V_DATA
        if not qual.startswith(("torch", "<")) and (is_namedtuple_class(qual) or is_output_dataclass(qual)):
            return seq_val(elts=[*args, *kwargs.values()])   # packs its arguments, as a tuple or dict literal
        rc = classify_ref(qual)
        if rc.what == "external" and not qual.startswith("<"):
            # a name a library module re-exports (`from collections import OrderedDict`): judged as what it is
            home = reexported(qual)
            if home != qual and classify_ref(home).what != "external":
                qual, rc = home, classify_ref(home)
        w = rc.what

        def spelled() -> str:  # only built when a violation is reported: it is the costly part
            return self.an.snippet(f)

        any_tensor = any(a.kind in TENSORISH for a in args) or any(
            v.kind in TENSORISH for v in kwargs.values()) if w in ("neutral", "const", "namespace", "math") else False
        if self.quiet and w in ("compute", "plumb") and qual.startswith("torch"):
            return V_HOST if holds_a_number(call, qual) else Val(TCONST, qual=rc.op)
        if w in ("compute", "plumb") and qual.startswith("torch") and rc.op not in RANDOM_OPS and \
                fv.via in ("", "import", "star") and not (fv.origin and fv.via == "") and \
                builds_host([*args, *kwargs.values()]):
            # torch's op on plain data and host values alone (`torch.div(64, 8)`, `torch.ones(S, S).tril()`):
            # a constant of the shapes, host code (a draw is no constant)
            return seq_val(V_HOST) if rc.op in _SPLITS else V_HOST
        if w == "compute":
            if fv.via == "dynamic":
                self.report("HD103", call, f"`{spelled()}` looks up `{qual}` by name at run time: compute "
                                           f"(`{rc.op}`)", op=rc.op, related=fv.origin)
            elif fv.via == "alias" or (fv.origin and fv.via not in ("import", "star")):
                self.report("HD102", call, f"`{spelled()}` is an alias of `{qual}`: compute (`{rc.op}`)",
                            op=rc.op, related=fv.origin)
            else:
                what = f"`{spelled()}`" + (f" (`{qual}`)" if spelled() != qual else "")
                self.report("HD101", call, f"{what} is compute (`{rc.op}`)", op=rc.op, related=fv.origin)
            return V_DATA
        if w == "plumb":
            if rc.op in _SPLITS:
                return seq_val(V_DATA)
            first = args[0] if args else V_DATA
            if first.kind == SEQ:  # torch.cat([a, b]): a child's output if every part is
                first = first.elem or V_DATA
            return first if is_child_out(first) else V_DATA
        if w == "shape":
            return V_SCALAR
        if w in ("neutral", "const", "namespace"):
            if rc.op in ("no_grad", "enable_grad", "inference_mode", "autocast"):
                return V_SCALAR
            return V_SCALAR if not any_tensor else V_DATA
        if w in ("nn_class", "container", "parameter", "plumb_module"):
            if self.quiet:
                if w == "container":
                    return Val(CHILDREN)
                if w == "plumb_module":
                    return Val(PLUMB_MODULE, qual=rc.op)
                if w == "parameter":
                    return Val(TCONST, qual=rc.op)
                return Val(RAW_MODULE, qual=rc.op, node=call)
            self.report("HD201", call, f"constructs `{spelled()}` inside forward()", op=camel_to_op(rc.op))
            return Val(RAW_MODULE, qual=rc.op, node=call)
        if w == "autograd":
            return V_DATA
        if w == "copy":  # copy.deepcopy(self.block) is another instance of the same child
            return args[0] if args else V_DATA
        if w == "math":
            if any_tensor:
                self.report("HD107", call, f"`{spelled()}` applied to a tensor is compute (`{rc.op}`)", op=rc.op,
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if w == "operator":
            opcls = OPERATOR_BINOPS[rc.op]
            if len(args) >= 2:
                return self.binop(call, opcls(), args[0], args[1], call.args[0], call.args[1])
            return V_DATA
        if w == "dynamic":
            if qual == "operator.methodcaller":
                self.report("HD103", call, f"`{spelled()}` calls a method chosen by name at run time")
                return V_SCALAR
            if qual.endswith("import_module") and call.args:
                mod = const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        # external (third party / helper file) code
        if self.quiet:
            # built in __init__ from plain data only (`FastSpeech2ConformerConfig(hidden_size=128, ...)`): a
            # configuration object, whose attributes are plain values, as a local class's instance is; a tensor
            # handed to it, or an op of it with a tensor, is still compute (apply and binop on SCALAR report it)
            if all(plain_data(v) for v in [*args, *kwargs.values()]):
                return V_SCALAR
            return V_DATA
        # (a library's function, read from its source: not torch's, not a helper file's)
        readable = not qual.startswith("<") and qual.split(".")[0] not in ("torch", "builtins")
        if not qual.startswith("<helper:") and all(plain_data(v) for v in [*args, *kwargs.values()]):
            # host code: a library's call handed plain data only (`EncoderDecoderCache(DynamicCache(),
            # DynamicCache())`, `is_torchdynamo_compiling()`): it is given none of the model's tensors, and
            # its result is a plain value, which an op with a tensor still reports (apply and binop on
            # SCALAR). Any aten compute it runs is the parent's at run time (HD401), but for the host code of a
            # function read and found plumbing (`torch_compilable_check(eq, msg)` on a number: its `_is_all_true`)
            if readable:
                proof = self.an.prove_library_call(qual, args, kwargs)
                if proof is not None and not proof.violations:
                    self.an.library_code |= proof.code
            return V_SCALAR
        where = "a helper file outside children/" if qual.startswith("<helper:") else "outside torch"
        why = "it cannot be proven to be plumbing"
        if readable:
            proof = self.an.prove_library_call(qual, args, kwargs)   # its source read with these arguments
            if proof is not None and not proof.violations:
                self.an.library_code |= proof.code
                return proof.ret
            if proof is not None:
                inner = next((v for v in proof.violations if v.rule != "HD112"), proof.violations[0])
                why = f"its source computes ({proof.where}, line {inner.line}: {inner.message})"
        self.report("HD112", call, f"calls `{spelled()}` ({where}): {why}", op=rc.op, related=fv.origin)
        return V_DATA

    def call_builtin(self, call: ast.Call, name: str, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if name in BUILTIN_DYNAMIC:
            self.report("HD209", call, f"`{name}` runs code that static analysis cannot see", op=name)
            if name == "__import__" and call.args:
                mod = const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        if name in ("globals", "locals", "vars"):
            if name == "vars" and args and args[0].kind == REF:
                return Val(REF, qual=f"{args[0].qual}.__dict__", via="dynamic")
            return Val(REF, qual="builtins.<globals>", via="dynamic")
        if name in ("setattr", "delattr"):
            if call.args:
                tv = args[0] if args else V_DATA
                attr = const_str(call.args[1]) if len(call.args) > 1 else None
                if tv.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or attr in PATCH_ATTRS:
                    self.report("HD207", call, f"`{name}` rebinds an attribute of "
                                               f"`{self.an.snippet(call.args[0])}` (monkeypatching)")
            return V_SCALAR
        if name in BUILTIN_MATH:
            op = BUILTIN_MATH[name]
            if name == "sum" and args and args[0].kind == SEQ and (args[0].elem or V_DATA).qual != "python-number":
                # sum of a list of tensors: a chain of residual adds, when the list is written out or holds
                # children's outputs; over slices of a tensor (a generator, unbind, a list filled in a
                # loop) it is a reduction
                elem = args[0].elem or V_DATA
                if elem.kind not in TENSORISH:
                    return V_SCALAR
                self.check_sum_of_sequence(call, call.args[0], args[0], "builtin `sum`")
                return elem if elem.kind == TCONST else V_DATA
            if any(a.kind in TENSORISH for a in args) or (args and args[0].kind == SEQ and args[0].elem is not None
                                                           and args[0].elem.kind in TENSORISH):
                self.report("HD107", call, f"builtin `{name}` applied to a tensor is compute (`{op}`)", op=op)
                return V_DATA
            return V_SCALAR
        if name in ("map", "filter") and args:
            rest = args[1] if len(args) > 1 else V_DATA
            return seq_val(V_DATA if name == "map" else iter_elem(rest))
        if name == "len":
            return V_SCALAR
        if name == "range":
            return seq_val(V_SCALAR)
        if name == "enumerate":
            return seq_val(Val(SEQ, elts=(V_SCALAR, iter_elem(args[0] if args else V_DATA)),
                            elem=V_DATA))
        if name == "zip":
            return seq_val(seq_val(elts=[iter_elem(a) for a in args]))
        if name in ("list", "tuple", "sorted", "reversed", "set", "frozenset", "iter"):
            if not args:
                return seq_val(V_EMPTY, elts=())
            a = args[0]
            if a.kind == SEQ:
                return a
            return seq_val(iter_elem(a))
        if name == "dict":
            return Val(SEQ, elem=merge(None, args[0].elem or V_DATA) if args and args[0].kind == SEQ else V_DATA,
                       qual="dict")
        if name == "next":
            return iter_elem(args[0]) if args else V_DATA
        if name == "super":
            return Val(SUPER)
        if name in ("int", "float", "bool", "complex"):
            return V_PYDATA if args and args[0].kind in TENSORISH else V_SCALAR
        if name == "str":
            return V_SCALAR
        if name == "type" and len(args) == 1 and args[0].kind in TENSORISH:
            return Val(REF, qual="torch.Tensor")  # type(x).relu(x) is torch.Tensor.relu(x)
        return V_SCALAR

    @staticmethod
    def is_addition(node: ast.expr, fn: Val) -> bool:
        """operator.add / operator.iadd / `lambda a, b: a + b`: a reduce() with it is a sum."""
        if fn.kind == REF and fn.qual in ("operator.add", "operator.iadd", "operator.__add__", "_operator.add"):
            return True
        fnode = fn.node if fn.kind == LOCAL_FN else node
        if isinstance(fnode, ast.Lambda):
            return type(fnode.body) is ast.BinOp and type(fnode.body.op) is ast.Add
        return False

    def check_sum_of_sequence(self, call: ast.Call, seq_node: ast.expr, seq: Val, what: str) -> None:
        """HD116 for a sum over a sequence of tensors that are not all children's outputs (unless the
        sequence is written out, `sum([a, b])`, which is `a + b`)."""
        elem = seq.elem or V_DATA
        if seq.elts is not None or elem.kind == TCONST or is_child_out(elem) or elem is V_EMPTY:
            return
        self.report("HD116", call, f"{what} over `{self.an.snippet(seq_node)}` adds up slices or values that are "
                                   f"not children's outputs: a reduction (`sum`), not a residual", op="sum")

    def call_method(self, call: ast.Call, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        recv = fv.elem or V_DATA
        name = fv.qual
        rk = recv.kind
        if rk == HOST and name != "<name>" and name not in RANDOM_OPS and fv.via != "dynamic" and \
                builds_host([*args, *kwargs.values()]):
            rc = classify_method(name)
            if name in ("item", "tolist") or rc.what == "shape":
                return seq_val(V_SCALAR) if name == "tolist" else V_SCALAR   # numbers of the shapes
            return seq_val(V_HOST) if name in _SPLITS else V_HOST
        if rk == HOST:
            recv = V_DATA   # a model's tensor handed to a host value's method: judged as any tensor's
            rk = recv.kind
        if rk in TENSORISH:
            if name == "<name>":
                self.report("HD103", call, "calls a tensor method chosen by name at run time", op=None)
                return V_DATA
            rc = classify_method(name)
            if rc.what == "binop":
                other = args[0] if args else V_DATA
                return self.binop(call, DUNDER_BINOPS[name](), recv, other, call, call)
            if name in ("item", "tolist"):
                # the tensor's values as Python numbers: arithmetic on them is still compute
                return seq_val(V_PYDATA) if name == "tolist" else V_PYDATA
            if rc.what == "shape":
                return V_SCALAR
            if rc.what == "plumb":
                if name in _SPLITS:
                    return seq_val(V_DATA)
                return recv if rk == TCONST or recv.qual == CHILD_OUT else V_DATA
            if rc.what == "compute":
                spelled = self.an.snippet(call.func)
                if fv.via == "dynamic":
                    self.report("HD103", call, f"`{spelled}` looks up the tensor method `{name}` by name: "
                                               f"compute (`{rc.op}`)", op=rc.op)
                elif name.endswith("_") and not name.endswith("__"):
                    self.report("HD105", call, f"`.{name}()` modifies a tensor in place with compute "
                                               f"(`{rc.op}`)", op=rc.op)
                else:
                    self.report("HD104", call, f"`.{name}()` is a tensor compute method (`{rc.op}`)", op=rc.op)
                return V_DATA
            if rk == CHILD_ATTR:
                return V_DATA
            return V_DATA
        if rk == CHILDREN:
            if name in ("items", "named_children"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("values", "children", "modules", "__iter__"):
                return seq_val(V_CHILD)
            if name in ("keys",):
                return seq_val(V_SCALAR)
            if name in ("get", "__getitem__", "pop"):
                return V_CHILD
            if name in ("__len__",):
                return V_SCALAR
            self.report("HD111", call, f"calls `.{name}()` on a container of children", op=name)
            return V_DATA
        if rk == SELF:
            if name in ("children", "modules"):
                return seq_val(V_CHILD)
            if name in ("named_children", "named_modules"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("parameters", "buffers"):
                return seq_val(Val(CHILD_ATTR, qual="parameter"))
            if name in ("named_parameters", "named_buffers", "state_dict"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, Val(CHILD_ATTR)), elem=V_DATA))
            if name == "forward":
                return V_DATA
            if name in ("register_buffer", "register_parameter"):
                self.report("HD204", call, f"`self.{name}` inside forward() gives the model its own state")
                return V_SCALAR
            if name == "apply":
                self.report("HD112", call, "`self.apply(fn)` runs a function over modules from forward()")
                return V_DATA
            return V_SCALAR
        if rk == SEQ:
            if name in ("append", "insert", "add") and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, args[-1])
                return V_SCALAR
            if name == "extend" and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, iter_elem(args[0]))
                return V_SCALAR
            if name in ("items",):
                return seq_val(Val(SEQ, elts=(V_SCALAR, recv.elem or V_DATA), elem=recv.elem))
            if name in ("values",):
                return seq_val(recv.elem or V_DATA)
            if name in ("keys", "index", "count"):
                return seq_val(V_SCALAR) if name == "keys" else V_SCALAR
            if name in ("get", "pop", "setdefault"):
                return recv.elem or V_DATA
            if name == "copy":
                return recv
            return V_SCALAR
        if rk == SCALAR:
            return V_SCALAR
        return V_DATA
