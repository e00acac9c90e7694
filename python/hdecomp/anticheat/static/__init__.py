"""Static anti-cheat: read refactored.py (pure `ast`, no torch, no user code) and report every place where the
parent does compute instead of calling children.

The editor runs this on every keystroke, so it is one parse plus a small abstract interpretation (and the
language server passes an `AnalysisMemo` to `analyze_tree`, which replays the unchanged statements of
forward() and the unchanged whole-file checks from the previous version; same results, less work):
  1. module level: imports, globals, classes and functions are bound to abstract values (`Val`);
  2. the model class: its attributes (children, aliases, raw modules, own tensors) from __init__ & co;
  3. forward(): every expression is evaluated over those values; calls, operators and method calls are
     judged by what they resolve to, however they are spelled (aliases, getattr, helpers, lambdas...);
  4. the rest of the file: construction, own state, hooks, monkeypatching, dynamic code, forbidden imports.
Anything not proven to be a child call or plumbing is reported (allow-list semantics for calls).

Decisions (what counts as plumbing):
  - `tensor + tensor` and `+=` between tensors are residuals; `tensor + constant` (or + a tensor kept as
    state) is compute; `-`, `*`, `/`, `//`, `%`, `**`, `@`, comparisons, unary `-` and `~` on a tensor are
    compute; named ops (`torch.add`, `x.add`, `x.add_`) are compute too: write a residual as `a + b`.
  - Ints are inferred locally: literals, `.shape` / `.size()` / `.dim()` / `.numel()` / `len()`, loop
    ranges, int/float/bool/str-annotated or -defaulted forward arguments, __init__ arguments and module
    constants. Arithmetic on ints (and shape-based control flow) is plumbing. `x.item()`, `x.tolist()`,
    `float(x)` are the tensor's values: arithmetic on them is compute.
  - Data movement is plumbing (cat/stack/split/chunk/unbind, views and reshapes, indexing and slicing,
    writes into slices, casts, `.to()`, clones, tensor creation such as torch.zeros / arange):
    hdecomp.vocab.ops.SOURCE_PLUMBING_OPS, kept in step with the recorder's RECORDED_PLUMBING_OPS there so
    that the editor and `verify-step` agree.
  - `sum(list_of_tensors)` is a chain of residuals when the list is written out or holds children's outputs;
    over slices of a tensor (`sum(x[:, t] for t in ...)`, `sum(x.unbind(1))`) it is a reduction (HD116), as
    is a loop-carried accumulation (`total = total + x[:, t]`, `acc += h[:, t]` in a for/while loop): inside a
    loop, `t = t + e` is a residual only when `e` is the output of a child called in the same iteration
    (`for blk in self.blocks: x = x + blk(x)`); a child's output is tracked through plumbing with the loops
    it was made in (`Val.ctx`). Builtin abs/max/min/pow/round on tensors is compute.
  - A child is constructed with plain data only (numbers, strings, bools, tuples, dtypes, shapes): a
    function, callable, module (class or instance), child or namespace handed to a child's constructor
    lets the parent choose the child's op (HD214; verify-step also records it at run time, HD313).
  - sys.path may get the step's own folder or a folder under its children/ (resolved statically from
    `__file__`, os.path and pathlib spellings): the imports are then judged by where they land.
  - Every nn module built outside children/ is reported, nn.Identity / nn.Flatten included (the structural
    check rejects them too); nn.ModuleList / ModuleDict / Sequential holding children are fine.
  - Helpers (functions, methods, static/class methods, properties, lambdas, decorators) may be called from
    forward() when their body is plumbing; compute inside is reported at the call, with the helper as
    `related`. A module handed to a child (`self.a(x, self.b)`) is reported: the child could run it.
  - A plain function of a library (outside torch) handed data is read from its source the same way
    (static.library: torchvision's `_setup_scales`, arithmetic on the feature maps' sizes): plumbing where its
    body is, and the functions read are where host compute may run as the parent's own (library_host_code).
Columns are UTF-8 byte offsets, as in `ast` (SourceRange's contract).
"""

from hdecomp.anticheat.static.api import (
    UnreadableFileError,
    analyze_file,
    analyze_source,
    analyze_source_uncached,
    analyze_tree,
    has_errors,
    library_host_code,
    parse_source,
)
from hdecomp.anticheat.static.memo import AnalysisMemo
from hdecomp.anticheat.static.vocab import TENSOR_METHODS

__all__ = [
    "TENSOR_METHODS",
    "AnalysisMemo",
    "UnreadableFileError",
    "analyze_file",
    "analyze_source",
    "analyze_source_uncached",
    "analyze_tree",
    "has_errors",
    "library_host_code",
    "parse_source",
]
