"""Choosing a component's children from its captured graph, and classifying their levels.

Module hierarchy first: every submodule the forward calls is a child of its own, except leaf modules
(Conv2d, Linear, LayerNorm, a custom RMSNorm, ...) called once, which are grouped with the functional ops
around them. Those ops are grouped into chains (adjacent ops, each result used only by the next, no branch
in between), capped by the level below the component's (layer-sized groups under a model, fusion-sized
groups under a layer, single kernels under a fusion). Data plumbing (views, indexing, cat/split, casts,
size queries and int arithmetic on them) stays in the parent; everything else moves into a child, together
with the parameters and buffers of the parent it reads and the plumbing computed from them alone (a view of a
parameter, `self.C.size(0)`); one that a submodule child is called with is held by a constant kernel child
that hands it over as an input. A run of primitives that is one logical kernel (an RMSNorm, LayerNorm,
softmax or GELU written out as pow/mean/rsqrt/mul, exp/sum/div, tanh/mul/add: decompose/semantic.py) is
one kernel child, whatever the level.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture.common import is_held_object, is_shape_int
from hdecomp.decompose.levels import FUSION_MAX, child_level, group_cap, natural_level
from hdecomp.decompose.node_kinds import (
    HOST_NUMBER,
    HOST_NUMBER_HELD,
    HOST_VALUE,
    NUMBER_OP,
    WEIGHT_SIZE,
    is_host_scalar,
    is_output_object_call,
    is_parent_plumbing,
)
from hdecomp.decompose.packed import packed_pieces
from hdecomp.decompose.patterns import INTEGER_WORK, pair_rope_runs, rope_runs, rope_table_runs
from hdecomp.errors import DecomposeError
from hdecomp.formats.weight_map import WeightSlice
from hdecomp.vocab.ops import is_compute_op
from hdecomp.vocab.roles import (
    CONTRACTION_KINDS,
    MATMUL,
    PATTERN_MAX_OPS,
    PATTERN_ROLES,
    SOFTMAX,
    category,
    effective_contractions,
    role_of,
)

SEMANTIC_KERNEL = re.compile(r"(norm|gelu|silu|swish|mish|softmax|activation|act$|relu|sigmoid|identity|"
                             r"dropout|embedding|rope|rotary)", re.IGNORECASE)
POOL_NAMES = re.compile(r"(pool|downsample)", re.IGNORECASE)
ACT_NAMES = re.compile(r"(relu|gelu|silu|sigmoid|tanh|elu|softmax|mish|swish|hardswish|leaky)", re.IGNORECASE)

def logical_ops(root: nn.Module, target: str, op_counts: dict[str, int]) -> int:
    """Compute ops of submodule `target` with every kernel module inside counted once (an RMSNorm written
    as six primitives is one logical op): what the size bands of the levels mean."""
    total = op_counts.get(target, 0)
    sub = root.get_submodule(target)
    if is_kernel_module(sub):
        return 1

    def walk(m: nn.Module, prefix: str) -> int:
        saved = 0
        for name, child in m.named_children():
            qn = f"{prefix}.{name}"
            if is_kernel_module(child):
                saved += max(0, op_counts.get(qn, 0) - 1)
            else:
                saved += walk(child, qn)
        return saved
    return max(1, total - walk(sub, target))


def runs_one_kernel(root: nn.Module, target: str, op_counts: dict[str, int], module_calls: dict[str, int]) -> bool:
    """Whether submodule `target` runs exactly one kernel module, once per call, and no compute of its own
    (transformers' SegformerMLP: flatten, transpose and a Linear, whose mm + add on the transposed view
    count two ops): then it is that kernel, not a fusion of one."""
    total = op_counts.get(target, 0)
    computing = [q for q, m in root.get_submodule(target).named_modules(prefix=target)
                 if q != target and is_kernel_module(m) and op_counts.get(q, 0) > 0]
    return len(computing) == 1 and op_counts.get(computing[0], 0) == total > 0 and \
        module_calls.get(computing[0], 0) == module_calls.get(target, 0) > 0


def oversized_module_children(root: nn.Module, graph: fx.Graph, level: int, op_counts: dict[str, int],
                              calls: dict[str, int]) -> list[str]:
    """Submodules whose content is split at this step instead of becoming children, so that the tree follows
    the model's own blocks: under a model, a layer-sized module that holds layer-sized modules itself and is
    not one of a container's repeated blocks (a stage: BERT's encoder, a Sequential of ResNet blocks) -- the
    blocks inside become the model's layers. A repeated block (a decoder layer, a stage among stages) stays
    whole: it is a layer, and the layer-sized modules it holds (its attention) are layers below it.
    Shared submodules (called more than once) stay whole: splitting them would repeat their content."""
    out: list[str] = []
    if level != 3:
        return out
    for n in graph.nodes:
        if n.op != "call_module":
            continue
        target = str(n.target)
        m = root.get_submodule(target)
        if is_kernel_module(m) or target in out or calls.get(target, 0) > 1:
            continue
        if natural_level(logical_ops(root, target, op_counts), False) < 2 or is_repeated_block(root, target):
            continue
        if any(not is_kernel_module(sub) and natural_level(logical_ops(root, q, op_counts), False) >= 2
               for q, sub in root.named_modules() if q.startswith(target + ".")):
            out.append(target)
    return out


def is_repeated_block(root: nn.Module, target: str) -> bool:
    """One of several modules of the same class held by one container (nn.ModuleList / Sequential /
    ModuleDict): a transformer's decoder layers, a stage's blocks, a network's stages."""
    parent_name, _, _ = target.rpartition(".")
    parent = root.get_submodule(parent_name) if parent_name else root
    if not isinstance(parent, (nn.ModuleList, nn.Sequential, nn.ModuleDict)):
        return False
    cls = type(root.get_submodule(target))
    return sum(1 for c in parent.children() if type(c) is cls) >= 2


@dataclass(eq=False)
class ChildPlan:
    """One child of a step: a called submodule, or a group of nodes of the parent's graph."""

    attr: str
    kind: str                       # "module" | "group"
    members: list[fx.Node]          # group: op / leaf-module / get_attr nodes in graph order; module: its call nodes
    target: str | None = None       # module child: the qualified submodule name
    inputs: list[fx.Node] = field(default_factory=list)
    outputs: list[fx.Node] = field(default_factory=list)
    ops: int = 0                    # compute ops (aten level) inside
    op_names: list[str] = field(default_factory=list)
    kernel: bool = False
    level: int = 0

    core: list[fx.Node] = field(default_factory=list)   # the ops it was formed from (no absorbed plumbing)
    semantic: str | None = None     # a run of primitives that is one logical kernel: its name (`rms_norm`)
    constant: bool = False          # a kernel that holds one parent tensor and returns it (see plan_children)
    role: str | None = None         # a fusion recognised by its dataflow (`rope`): named so, never extended
    # parts of a packed parent tensor (decompose/packed.py) among the members: each is a weight of this child
    pieces: dict[fx.Node, WeightSlice] = field(default_factory=dict)   # key: the parent tensor's target
    # a module child whose calls pass one value in several positions (`self.attn(x, x, x)`): the positions
    # it takes (its first occurrences); the child's forward passes each on where the module reads it
    arg_keep: list[int] | None = None
    # a group: the member where the parent calls it (its last member, unless a value it makes is used before
    # that: then its first member after every value it takes from outside, _place_groups)
    at: fx.Node | None = None

    @property
    def compute_members(self) -> list[fx.Node]:
        return self.core


def mark_integer_work(graph: fx.Graph, values: dict[str, Any]) -> None:
    """Mark the ops that read and make integer or bool tensors only (a padding mask's `cumsum` into position
    ids, `mask == 0`, `causal | pad`): mask, position and routing work, which never shares a group with float
    compute (`position_ids.float() * inv_freq` starts the RoPE tables' group, not the position ids')."""
    def integer(v: Any) -> bool:
        return isinstance(v, torch.Tensor) and not (v.is_floating_point() or v.is_complex())

    for n in graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        ins = [values.get(a.name) for a in n.all_input_nodes]
        tensors = [v for v in ins if isinstance(v, torch.Tensor)]
        if integer(values.get(n.name)) and all(integer(v) for v in tensors):
            n.meta[INTEGER_WORK] = True


def node_op_name(n: fx.Node, root: nn.Module) -> str:
    from hdecomp.vocab.ops import snake
    if n.op == "call_module":
        return snake(type(root.get_submodule(str(n.target))).__name__)
    if n.op == "call_method":
        return str(n.target).strip("_") or "op"
    if n.op == "call_function":
        t = n.target
        if t is operator.truediv:
            return "div"
        if t is operator.matmul:
            return "matmul"
        name = getattr(t, "__name__", "op")
        return name.strip("_") or "op"
    return n.op


def _inplace(n: fx.Node, root: nn.Module) -> bool:
    if n.op == "call_module":
        return bool(getattr(root.get_submodule(str(n.target)), "inplace", False))
    name = str(n.target) if n.op == "call_method" else getattr(n.target, "__name__", "")
    return name.endswith("_") and not name.endswith("__")


def _tensor_inputs(n: fx.Node) -> list[fx.Node]:
    return [a for a in n.all_input_nodes]


def is_kernel_module(m: nn.Module) -> bool:
    """A module that is one logical op: a torch.nn leaf, or a small custom leaf named like one (RMSNorm)."""
    if any(True for _ in m.children()):
        return False
    if getattr(nn, type(m).__name__, None) is type(m):
        return True
    return bool(SEMANTIC_KERNEL.search(type(m).__name__))


def semantic_runs(root: nn.Module, graph: fx.Graph) -> list[tuple[str, list[fx.Node]]]:
    """Maximal runs of primitives that compute one logical kernel (semantic.py), each as (name, nodes in
    graph order). A run is the set of ops feeding one output value whose every other value is used only
    inside the run (so nothing else needs its intermediates and it can be called as one kernel where the
    output was); its only tensor input besides parameters/buffers is one value read by several of its ops
    (a norm reads x twice, a GELU reads x twice, a softmax reads x - max twice): a plain chain such as
    `tanh(x) * 2 + 1` is no GELU. Runs are grown from the last candidate output backwards, so the largest
    run wins; in-place ops and data plumbing other than `[i]` of an op inside the run end a run."""
    from hdecomp.decompose.semantic import VOCABULARY
    nodes = list(graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}

    def primitive(n: fx.Node) -> bool:
        return n.op in ("call_function", "call_method") and not is_parent_plumbing(n) and \
            not _inplace(n, root) and node_op_name(n, root) in VOCABULARY

    def inner_getitem(n: fx.Node) -> bool:   # `x.max(-1, keepdim=True)[0]`: part of the op it indexes
        return n.op == "call_function" and n.target is operator.getitem and \
            len(n.all_input_nodes) == 1 and primitive(n.all_input_nodes[0])

    claimed: set[fx.Node] = set()
    runs: list[tuple[str, list[fx.Node]]] = []
    for out in reversed(nodes):
        if out in claimed or not primitive(out) or not out.users:
            continue
        run = {out}
        grew = True
        while grew:
            grew = False
            for m in list(run):
                for a in m.all_input_nodes:
                    if a in run or a in claimed or not (primitive(a) or inner_getitem(a)):
                        continue
                    if all(u in run for u in a.users):
                        run.add(a)
                        grew = True
        # the largest run, else the largest that drops its first ops (a residual add whose sum only the
        # norm after it reads grows into the norm's run: `rms_norm(x + attn)` is an add, then one RMSNorm)
        ordered = sorted(run, key=pos.__getitem__)
        for start in range(len(ordered)):
            found = _semantic_run(ordered[start:], out, inner_getitem, root)
            if found is not None:
                claimed |= set(ordered[start:])
                runs.append((found, ordered[start:]))
                break
    runs.sort(key=lambda r: pos[r[1][0]])
    return runs


def _semantic_run(ordered: list[fx.Node], out: fx.Node, inner_getitem: Any, root: nn.Module) -> str | None:
    """The logical kernel a candidate run (graph order, ending at `out`) computes, or None: it reads one
    tensor besides parameters and buffers, several times (no plain chain), and indexes only its own ops."""
    from hdecomp.decompose.semantic import semantic_kernel
    run = set(ordered)
    # a getitem whose op stayed outside indexes an external value: not part of the run
    if any(inner_getitem(m) and m.all_input_nodes[0] not in run for m in ordered):
        return None
    compute = [m for m in ordered if not inner_getitem(m)]
    name = semantic_kernel([node_op_name(m, root) for m in compute])
    if name is None:
        return None
    ext = {a for m in ordered for a in m.all_input_nodes if a not in run and a.op != "get_attr"}
    if len(ext) != 1:
        return None
    if not any(len(m.users) > 1 for m in ordered if m is not out) and \
            sum(1 for m in ordered for a in m.all_input_nodes if a in ext) < 2:
        return None   # a plain chain
    return name


def plan_children(root: nn.Module, graph: fx.Graph, level: int, op_counts: dict[str, int],
                  calls: dict[str, int], cap: int, contraction_ops: dict[str, list[str]] | None = None,
                  module_calls: dict[str, int] | None = None) -> list[ChildPlan]:
    """Split the graph into children. `op_counts`: compute ops per submodule (qualified name). `cap`: the
    most ops one group may hold; never more than the level below allows (a layer's groups are fusions).
    `contraction_ops`: per submodule, its recorded contractions (capture.Reference): a submodule holding
    several is a layer, whatever its size (a fusion holds one contraction). `module_calls`: calls of every
    submodule in the recorded run (runs_one_kernel)."""
    g = _Grouping(root, graph, level, group_cap(level, cap), op_counts, calls)
    for n in g.nodes:
        g.place(n)
    children = g.children
    g.move_state()
    if g.cap <= FUSION_MAX:
        _merge_gate_up_pairs(children, root, g.cap)
    # Several ops that compute nothing (views, copies, writes of one tensor into another: BigBird's
    # `probs[:, :, :8, :] = first; probs[:, :, 8:16, :24] = second ...`) are no fusion: they stay data
    # plumbing in the parent. One such op alone is still a kernel (a copy one may want to optimise).
    moving = [c for c in children if not _moves_data_only(c, root)]
    if len(moving) < len(children) and any(c.kind == "module" or _computes(c, root) for c in moving):
        children[:] = moving
    # a constant object the forward builds (capture.common.HeldObject) is built by each group that reads
    # it, as parameters move into their readers; a submodule child builds it in its file (step_writer)
    for child in children:
        if child.kind == "group":
            child.members[:0] = sorted({a for m in child.members for a in m.all_input_nodes if is_held_object(a)},
                                       key=g.pos.__getitem__)
    for child in children:
        _finish_child(child, root, level, op_counts, contraction_ops, module_calls)
    _place_groups(children, g.pos)
    return children


class _Grouping:
    """The graph's nodes grouped into children in graph order (plan_children): submodule calls, runs of
    primitives that are one kernel, and groups of fusable ops joined along chains up to `cap` ops."""

    def __init__(self, root: nn.Module, graph: fx.Graph, level: int, cap: int, op_counts: dict[str, int],
                 calls: dict[str, int]) -> None:
        self.root, self.cap, self.op_counts, self.calls = root, cap, op_counts, calls
        self.nodes = list(graph.nodes)
        self.pos = {n: i for i, n in enumerate(self.nodes)}
        self.children: list[ChildPlan] = []
        self.group_of: dict[fx.Node, ChildPlan] = {}
        self.modules_by_obj: dict[int, list[str]] = {}
        for qn, m in root.named_modules(remove_duplicate=False):
            if qn:
                self.modules_by_obj.setdefault(id(m), []).append(qn)
        self.module_child: dict[str, ChildPlan] = {}
        # Plumbing computed from parameters/buffers only: views of them (`self.C.reshape(...)`), and shape
        # queries of them (`self.C.size(0)`, as hdecomp.decompose.batch_relative writes a batch-dependent int)
        # with their int arithmetic. The parent owns no state, so none of it can stay there (a number held in a
        # 0-dim integer tensor is no state: the parent writes it out, `torch.tensor(2)`).
        # (with the numbers the forward is handed: DeepSeek-V4's `self.base.split([hc, hc, hc * hc])`)
        self.param_derived: set[fx.Node] = set()
        for n in self.nodes:
            weights = [a for a in n.all_input_nodes if (a.op == "get_attr" and HOST_NUMBER_HELD not in a.meta)
                       or a in self.param_derived]
            if is_parent_plumbing(n) and weights and \
                    all(a in weights or _handed_number(a) for a in n.all_input_nodes):
                self.param_derived.add(n)
        self.param_view = self._param_views()
        # a size of the weights several children read is the parent's, written out (mark_weight_sizes); one
        # that travels with the one op reading it stays that op's
        sizes = {n for n in self.nodes if WEIGHT_SIZE in n.meta and n in self.param_derived}
        written = {n for n in sizes if n not in self.param_view}
        while more := {n for n in sizes - written if self.param_view.get(n) in written}:
            written |= more   # (`rel_k.shape`, read by the `[0]` the parent writes out)
        for n in sizes - written:
            del n.meta[WEIGHT_SIZE]
        if written:
            self.param_derived -= written
            self.param_view = self._param_views()
        # A packed tensor cut into parts, each read by one op (MHA's in_proj_weight.chunk(3)): each part is a
        # weight of the child that reads it; the tensor and the cutting belong to no child.
        self.pieces, self.packed = packed_pieces(root, graph, self.param_derived, self.param_view)
        # runs of primitives that are one logical kernel (an inline RMSNorm, softmax, GELU): one kernel child
        self.run_of: dict[fx.Node, ChildPlan] = {}
        for name, run_nodes in semantic_runs(root, graph):
            new_run = ChildPlan(attr="", kind="group", members=[], semantic=name)
            for m in run_nodes:
                self.run_of[m] = new_run
        if level > 1:   # under a fusion, its ops are kernels
            tables = [("rope_tables", r) for r in rope_table_runs(graph, is_parent_plumbing)]
            # (a run that is the whole forward is the component itself, not a child of it: anti-cheat HD305)
            computing = {n for n in self.nodes if n.op in ("call_function", "call_method", "call_module")
                         and not is_parent_plumbing(n) and not is_shape_int(n)}
            ropes = rope_runs(graph, is_parent_plumbing) + pair_rope_runs(graph, is_parent_plumbing)
            for role, run_nodes in [("rope", r) for r in ropes] + tables:
                if not any(m in self.run_of for m in run_nodes) and not computing <= set(run_nodes):
                    new_run = ChildPlan(attr="", kind="group", members=[], role=role)
                    for m in run_nodes:
                        self.run_of[m] = new_run

    def parent_plumbing(self, n: fx.Node) -> bool:
        return is_parent_plumbing(n) and n not in self.param_derived and (WEIGHT_SIZE in n.meta or not any(
            a.op == "get_attr" and HOST_NUMBER_HELD not in a.meta for a in n.all_input_nodes))

    def _param_views(self) -> dict[fx.Node, fx.Node]:
        """Plumbing of parameters used by one op, mapped to that op: it travels with the parameter into that
        op's child (on its own it would be a "kernel" without compute, and the op's child a parent in
        disguise): a view of a parameter read by one einsum goes into the einsum's kernel, with the
        `self.C.size(0)` its shape reads. The last view of a chain that several children read is a kernel of
        its own (it holds the parameter and hands the view over); the plumbing before it
        (`self.A.reshape(self.A.size(0), ...)` of `.permute(...)`) goes with it."""
        param_view: dict[fx.Node, fx.Node] = {}   # plumbing -> the one op that consumes it
        for n in reversed(self.nodes):  # users first: a chain of views ends at the op of the last one
            if n not in self.param_derived:
                continue
            targets: set[fx.Node | None] = set()
            for user in n.users:
                if user in param_view:
                    targets.add(param_view[user])
                elif user.op in ("output", "placeholder", "call_module") or self.parent_plumbing(user):
                    targets.add(None)
                else:
                    targets.add(user)
            consumer = next(iter(targets)) if len(targets) == 1 else None
            if consumer is not None:
                param_view[n] = consumer
        return param_view

    def fusable_module(self, n: fx.Node) -> bool:
        target = str(n.target)
        m = self.root.get_submodule(target)
        shared = self.calls.get(target, 0) > 1 or sum(self.calls.get(q, 0) for q in self.modules_by_obj[id(m)]) > 1
        # a stateless module called several times (ResNet's one `self.relu`) is a function: each call fuses
        # with the ops around it, as an expert draws conv-bn-relu; one with state stays one child (one
        # tensor, called from each place)
        stateful = any(True for _ in m.parameters()) or any(True for _ in m.buffers())
        return is_kernel_module(m) and not (shared and stateful)

    def place(self, n: fx.Node) -> None:
        """Put node `n` into its child: a run's, the op's whose tensor it reads as a number, a submodule's, or
        the group whose last op feeds it (a new group where none can take it)."""
        if n.op in ("placeholder", "output", "get_attr") or n in self.packed:
            return
        run_child = self.run_of.get(n)
        if run_child is not None:
            if not run_child.members:   # listed where its first op is, as every group
                self.children.append(run_child)
            run_child.members.append(n)
            if not is_parent_plumbing(n):
                run_child.core.append(n)
                run_child.ops += 1
            self.group_of[n] = run_child
            return
        if is_host_scalar(n) or (NUMBER_OP in n.meta and HOST_VALUE not in n.meta):
            # a tensor's values as Python numbers (`t.item()`) and the int arithmetic on them are host code:
            # they go with the op that made the tensor (Reformer's `max_position_id = ids.max().item()` and
            # its bounds checks are one `max` kernel, not an `item` kernel and five kernels of ints); so does
            # arithmetic on numbers held in 0-dim tensors (a padding check's `mask.sum() == mask.numel()`: one
            # `sum` kernel, not a `sum` and an `eq_i64`)
            src = next((self.group_of[a] for a in n.all_input_nodes if a in self.group_of), None)
            if src is not None and src.kind == "group" and not (src.semantic or src.role or src.constant) and \
                    not any(self.pos[u] < self.pos[n] and u not in src.members for m in src.members for u in m.users):
                src.members.append(n)
                self.group_of[n] = src
                return
        if self.parent_plumbing(n) or n in self.param_view:
            return
        if n.op == "call_module" and not self.fusable_module(n):
            target = str(n.target)
            if target in self.module_child:
                self.module_child[target].members.append(n)
                return
            child = ChildPlan(attr=target.replace(".", "_"), kind="module", members=[n], target=target,
                              ops=max(1, self.op_counts.get(target, 1)), core=[n])
            self.module_child[target] = child
            self.children.append(child)
            return
        joined = self.joined_group(n)
        if joined is None:
            joined = ChildPlan(attr="", kind="group", members=[])
            self.children.append(joined)
        joined.members.append(n)
        joined.core.append(n)
        joined.ops += 1
        self.group_of[n] = joined

    def joined_group(self, n: fx.Node) -> ChildPlan | None:
        """The group that fusable node `n` extends: the one whose last op feeds it through a chain of
        plumbing (the chain joins it too); None where none can (an output object a recording writes,
        `BaseModelOutputWithPooling(...)`, packs values: a kernel of its own, as in a graph fx traces, never
        the end of a fusion)."""
        if self.cap <= 1 or is_output_object_call(n):
            return None
        root, pos = self.root, self.pos
        for a in _tensor_inputs(n):
            via: list[fx.Node] = []
            cur = a
            while self.parent_plumbing(cur) and len(cur.users) == 1 and len(cur.all_input_nodes) == 1:
                via.append(cur)
                cur = cur.all_input_nodes[0]
            g = self.group_of.get(cur)
            if g is None or g.kind != "group" or g.semantic or g.role or g.compute_members[-1] is not cur or \
                    is_output_object_call(cur):
                continue
            # the attention core is one fusion, `softmax(q @ k^T ...) @ v`, even where its probabilities are
            # returned too (transformers' eager attention hands back attn_weights) and its ops outnumber a
            # fusion's: the flash-attention candidate is the whole core
            core = self.cap <= FUSION_MAX and _completes_attention_core(g, n, root)
            if len(cur.users) != 1 and not core:
                continue
            # integer work (masks, positions) and float compute are two groups (mark_integer_work)
            if bool(n.meta.get(INTEGER_WORK)) != bool(cur.meta.get(INTEGER_WORK)):
                continue
            # An in-place op stays with the op that produced its input (a child never mutates its input).
            if not _inplace(n, root):
                if g.ops + 1 > (max(self.cap, PATTERN_MAX_OPS) if core else self.cap):
                    continue   # (a kernel module, an RMSNorm, is one logical op)
                # a fusion holds one contraction with its prologue and epilogue (the attention core's
                # second matmul after its softmax excepted): the next contraction starts a new one
                if self.cap <= FUSION_MAX and _second_contraction(g, n, root):
                    continue
                # pooling / downsampling ends a stage: the next op starts a new group
                if self.cap > 1 and POOL_NAMES.search(node_op_name(cur, root)) and g.ops >= 2:
                    continue
            # every other value of the group must not be needed before this node
            members = set(g.members) | set(via)
            if any(pos[u] < pos[n] and u not in members for m in g.members for u in m.users):
                continue
            for v in reversed(via):
                g.members.append(v)
                self.group_of[v] = g
            return g
        return None

    def move_state(self) -> None:
        """Parameters / buffers of the parent move into the child that reads them. One read by several
        children (`x * self.scale` twice, `torch.min(x, self.c)` then `x - self.c`) goes into each of them:
        the driver maps it to the first and ties the others' copies to that one in the refactored parent
        (`self.sub.c = self.min.c`), so it stays one tensor, transferred once, as in the original. One that a
        submodule child is called with (Swin's `self.attn(x, mask=self.attn_mask)`) cannot move into that
        child (its class is the submodule's own, taking the tensor as an input), nor one the component
        returns as it is: a constant kernel child holds it and returns it, and every reader takes it as an
        input from there. The parent owns no state and only calls children (anti-cheat HD204/HD301). One the
        parent itself computes with still stops the plan (PlanError)."""
        children, group_of, param_view = self.children, self.group_of, self.param_view
        moved: dict[ChildPlan, list[fx.Node]] = {}
        constants: list[ChildPlan] = []
        for n in self.nodes:
            if (n.op != "get_attr" and n not in param_view) or n in self.packed:
                continue
            users = {group_of.get(param_view.get(u, u)) for u in n.users if WEIGHT_SIZE not in u.meta}
            if HOST_NUMBER_HELD in n.meta:   # a number: each child that reads it holds it, the parent writes it out
                users.discard(None)
                if not users:
                    continue
            if not users:
                raise PlanError(f"parameter/buffer '{n.target}' is read by no child and cannot move into a child")
            if None in users:
                # (a tensor the component returns as it is, RWKV's `u = self.time_faaaa` handed to the loop
                # that reads it: the constant child holds it and returns it, as for a submodule's argument)
                by_parent = [u for u in n.users if group_of.get(param_view.get(u, u)) is None and
                             not (u.op == "call_module" and str(u.target) in self.module_child) and u.op != "output"]
                if n.op != "get_attr" or by_parent:
                    raise PlanError(f"parameter/buffer '{n.target}' is read by the parent and cannot move into "
                                    "a child")
                const = ChildPlan(attr="", kind="group", members=[n], core=[n], kernel=True, constant=True)
                group_of[n] = const
                constants.append(const)
                continue
            for g in sorted((u for u in users if u is not None), key=children.index):
                moved.setdefault(g, []).append(n)
                if n in self.pieces:
                    g.pieces[n] = self.pieces[n]
        for g, extra in moved.items():
            g.members[:0] = extra          # graph order: a parameter before the view of it
        if constants:
            owner = {m: c for c in children for m in c.members}
            for const in constants:        # listed before its first reader (children are called in this order)
                readers = [children.index(owner[u]) for u in const.members[0].users if u in owner]
                children.insert(min(readers, default=len(children)), const)
                owner[const.members[0]] = const


def _finish_child(child: ChildPlan, root: nn.Module, level: int, op_counts: dict[str, int],
                  contraction_ops: dict[str, list[str]] | None, module_calls: dict[str, int] | None) -> None:
    """A child's inputs and outputs (graph order), its ops, whether it is a kernel, and its level."""
    member_set = set(child.members)
    ins: list[fx.Node] = []
    outs: list[fx.Node] = []
    for m in child.members:
        for a in [] if m in child.pieces else m.all_input_nodes:   # a part is a weight: no input
            if a not in member_set and a not in ins:
                ins.append(a)
        used_outside = any(u not in member_set for u in m.users)
        # an op whose value nothing in the graph uses fed Python control flow (`if mask.all():`, a
        # transformers mask helper): the child returns it, as the one recorded use of it
        dead_end = not m.users and m.op in ("call_function", "call_method", "call_module")
        if (used_outside or dead_end) and (m.op != "get_attr" or child.constant):
            outs.append(m)
    child.inputs, child.outputs = ins, outs
    child.op_names = [node_op_name(m, root) for m in child.compute_members]
    if child.constant:
        target = str(child.members[0].target)
        child.op_names = ["parameter" if target in dict(root.named_parameters()) else "buffer"]
    elif child.semantic:
        child.op_names = [child.semantic]
        child.kernel = True
    elif child.kind == "module":
        sub = root.get_submodule(str(child.target))
        # a module without compute ops only moves data (a channel shuffle: view, transpose, contiguous,
        # view, with int arithmetic on sizes): one kernel, there is nothing to split it into
        # and a module that runs one compute op in all (transformers' Conv1D: one addmm between views;
        # timm's PatchEmbed: one conv, a flatten and an Identity norm) is that op: a kernel, not a one-op
        # fusion; so is one that runs a single kernel module and nothing else (runs_one_kernel)
        # (not one handed tensors in a list, torchvision's LastLevelMaxPool: a kernel takes tensors, so the
        # module is a fusion around the one op, its list plumbing split from the kernel in its own step)
        child.kernel = is_kernel_module(sub) or (
            (op_counts.get(str(child.target), 0) <= 1 or
             runs_one_kernel(root, str(child.target), op_counts, module_calls or {}))
            and not (op_counts.get(str(child.target), 0) and any(
                _listed_nodes(a) for m in child.members if m.op == "call_module"
                for a in [*m.args, *m.kwargs.values()])))
    else:   # one compute op, with the views around it (`expand -> gather`, `einsum -> unsqueeze_`)
        child.kernel = len(child.compute_members) == 1 or _computes(child, root) <= 1
    size = logical_ops(root, str(child.target), op_counts) if child.kind == "module" else child.ops
    held = effective_contractions(contraction_ops.get(str(child.target), [])) \
        if child.kind == "module" and contraction_ops is not None else \
        _group_contractions(child, root) if child.kind == "group" and not child.kernel else None
    child.level = child_level(level, size, child.kernel, module=child.kind == "module", contractions=held)
    # a pattern recognised by its dataflow (rope, rope_tables) is one fusion, whatever its size; so is the
    # attention core (up to PATTERN_MAX_OPS: scale, mask, softmax and dropout between its two matmuls), and
    # only the core: a group that also holds the weight-absorbing contractions around it (DeepSeek's latent
    # attention in its absorbed form, `einsum(q, W_uk)` before and `einsum(o, W_uv)` after) is a layer (Q1)
    if not child.kernel and level >= 2 and (child.role or (
            child.kind == "group" and child.ops <= PATTERN_MAX_OPS and role_of(child.op_names) in PATTERN_ROLES
            and (held is None or held <= 1))):
        child.level = 1


def _group_contractions(child: ChildPlan, root: nn.Module) -> int:
    """The contractions a group holds, as rule Q1 counts them: the attention core as one, and contractions
    of one input (a gate/up pair: one grouped GEMM) as one."""
    names: list[str] = []
    inputs: set[fx.Node] = set()
    for m in child.compute_members:
        name = node_op_name(m, root)
        if category(name) in CONTRACTION_KINDS and m.all_input_nodes:
            if m.all_input_nodes[0] in inputs:
                continue
            inputs.add(m.all_input_nodes[0])
        names.append(name)
    return effective_contractions(names)


def _computes(child: ChildPlan, root: nn.Module) -> int:
    """How many of a group's ops compute (anticheat's vocabulary: no plumbing, shape query or indexing)."""
    return sum(1 for m in child.compute_members if is_compute_op(node_op_name(m, root)))


def _moves_data_only(child: ChildPlan, root: nn.Module) -> bool:
    """A plain group of several ops of which none computes, holding no parameter or buffer of the parent."""
    return child.kind == "group" and not (child.semantic or child.role or child.constant or child.pieces) \
        and len(child.compute_members) > 1 and _computes(child, root) == 0 \
        and not any(m.op == "get_attr" for m in child.members)


def _merge_gate_up_pairs(children: list[ChildPlan], root: nn.Module, cap: int) -> None:
    """A contraction kernel whose every output feeds one fusion that holds a contraction of the same input
    joins that fusion: a gated MLP's `act(gate(x)) * up(x)` is one fusion (one grouped GEMM and its
    epilogue), as rule Q1 counts it."""
    def contraction(n: fx.Node) -> bool:
        return category(node_op_name(n, root)) in CONTRACTION_KINDS

    def first_input(n: fx.Node) -> fx.Node | None:
        ins = [a for a in n.all_input_nodes if a.op != "get_attr"]
        return ins[0] if ins else None

    for k in list(children):
        if k.kind != "group" or k.semantic or k.role or k.constant or len(k.core) != 1 or not contraction(k.core[0]):
            continue
        x = first_input(k.core[0])
        users = {u for m in k.members for u in m.users if u not in k.members}
        owners = [g for g in children if g is not k and g.kind == "group" and users and users <= set(g.members)]
        if x is None or len(owners) != 1:
            continue
        g = owners[0]
        if g.semantic or g.role or g.ops + k.ops > cap or \
                not any(contraction(m) and first_input(m) is x for m in g.core):
            continue
        order = {n: i for i, n in enumerate(g.members[0].graph.nodes)}
        g.members = sorted(g.members + k.members, key=order.__getitem__)
        g.core = sorted(g.core + k.core, key=order.__getitem__)
        g.ops += k.ops
        children.remove(k)


def _completes_attention_core(g: ChildPlan, n: fx.Node, root: nn.Module) -> bool:
    """`n` is the `@ v` matmul after group `g`'s `q @ k^T`, scale, mask and softmax (its one contraction a
    matmul, a softmax after it)."""
    if category(node_op_name(n, root)) != MATMUL:
        return False
    cats = [category(node_op_name(m, root)) for m in g.compute_members]
    held = [c for c in cats if c in CONTRACTION_KINDS]
    return held == [MATMUL] and SOFTMAX in cats[cats.index(MATMUL):]


def _second_contraction(g: ChildPlan, n: fx.Node, root: nn.Module) -> bool:
    """Whether `n` is a contraction that group `g` (which holds one already) cannot take: anything but the
    attention core's `softmax(q @ k^T ...) @ v`."""
    if category(node_op_name(n, root)) not in CONTRACTION_KINDS:
        return False
    if not any(category(node_op_name(m, root)) in CONTRACTION_KINDS for m in g.compute_members):
        return False
    return not _completes_attention_core(g, n, root)


def _place_groups(children: list[ChildPlan], pos: dict[fx.Node, int]) -> None:
    """Where the parent calls each group: at its last member, as written, or, where a value it makes is used
    before that (RoPE's tables: `x * emb.cos() + rotate_half(x) * emb.sin()` uses the cos before the sin is
    made), at its first member after every value it takes from outside, since the group computes from those
    alone. Raises PlanError where no place serves."""
    for child in children:
        if child.kind != "group":
            continue
        members = sorted(child.members, key=pos.__getitem__)
        own = set(members)
        used = [pos[u] for out in child.outputs for u in out.users if u not in own]
        child.at = members[-1]
        if not used or min(used) > pos[child.at]:
            continue
        ready = max((pos[a] for m in members for a in m.all_input_nodes if a not in own), default=-1)
        at = next((m for m in members if pos[m] > ready), None)
        if at is None or min(used) <= pos[at]:
            raise PlanError("a grouped op's result is used before the group ends")
        child.at = at


class PlanError(DecomposeError):
    """The component cannot be split into children (the message says why)."""


def _handed_number(n: fx.Node) -> bool:
    """A Python int the forward is handed, or int arithmetic on such (node_kinds.mark_host_numbers)."""
    return n.meta.get(HOST_NUMBER) in ("int", "bool")


def _listed_nodes(a: Any) -> bool:
    """A call's argument that is a list, tuple or dict of graph values (`self.extra_blocks(results, x, names)`
    with `results` a list display of the levels)."""
    if isinstance(a, (list, tuple)):
        return any(isinstance(x, fx.Node) or _listed_nodes(x) for x in a)
    if isinstance(a, dict):
        return any(isinstance(x, fx.Node) or _listed_nodes(x) for x in a.values())
    return False
