"""The dependency direction of the library and the server, read from the source with `ast` (every import,
including those inside functions and under TYPE_CHECKING): each module imports only its own layer or the
layers below it, no two modules import each other (directly, around a loop, or through a package's
__init__), the torch-free layers never import torch, and the language server imports only the torch-free
parts of the library. Sizes are in test_sizes.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = {"hdecomp": REPO / "python" / "hdecomp", "hdecomp_lsp": REPO / "server" / "hdecomp_lsp"}

# Lowest first. A module belongs to the first layer with a prefix that names it or a package above it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("vocab", ("hdecomp", "hdecomp.errors", "hdecomp.paths", "hdecomp.vocab")),
    ("formats", ("hdecomp.formats",)),
    ("source tools", ("hdecomp.anticheat.rules", "hdecomp.anticheat.static", "hdecomp.refactor")),
    ("runtime", ("hdecomp.runtime",)),
    ("scale", ("hdecomp.scale",)),
    ("verify", ("hdecomp.anticheat", "hdecomp.verify")),
    ("toolchain", ("hdecomp.toolchain",)),
    ("decompose", ("hdecomp.decompose",)),
    ("cli", ("hdecomp.cli", "hdecomp.__main__")),
]
TORCH_FREE = ("vocab", "formats", "source tools")


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for root in ROOTS.values():
        for f in root.rglob("*.py"):
            parts = f.relative_to(root.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            mods[name] = f
    return mods


MODULES = _modules()


def _layer(module: str) -> int:
    best: tuple[int, int] | None = None          # (prefix length, layer): the longest prefix wins
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[0]):
                best = (len(p), i)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[1]


def _imports(module: str, *, namespaces: bool = False, source: str | None = None) -> set[str]:
    """Every module (ours or third-party top-level) that `module` imports, anywhere in the file (in functions
    and under TYPE_CHECKING too). With `namespaces`, also each of our packages a `from PACKAGE import name`
    reads the name from, a submodule's name included: the package's __init__ runs first and hands it over.
    `source` stands in for the module's file (the tests of this test)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
            if namespaces and base in MODULES:
                names.append(base)
        else:
            continue
        for name in names:
            target = name
            while target and target not in MODULES and target.split(".")[0] in ROOTS:
                target = target.rpartition(".")[0]
            found.add(target if target in MODULES else name.split(".")[0])
    found.discard(module)
    return found


GRAPH = {m: _imports(m) for m in MODULES}
# for the cycles: a module reading a name out of a package whose __init__ imports that module back is a loop
# too, whichever the name is (`from hdecomp.toolchain.replace import hacks` in replace/run.py was one)
CYCLE_GRAPH = {m: _imports(m, namespaces=True) for m in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return sorted(cycles)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("hdecomp.") or m == "hdecomp"))
def test_library_imports_point_down(module: str) -> None:
    own = _layer(module)
    upward = sorted(t for t in GRAPH[module] if t in MODULES and not t.startswith("hdecomp_lsp")
                    and _layer(t) > own)
    assert not upward, f"{module} ({LAYERS[own][0]}) imports a higher layer: " + ", ".join(
        f"{t} ({LAYERS[_layer(t)][0]})" for t in upward)
    assert not any(t.startswith("hdecomp_lsp") for t in GRAPH[module]), f"{module} imports the server"


def test_no_import_cycles() -> None:
    """No loop among our modules' imports, counting every import: in functions, under TYPE_CHECKING (a loop
    the type checker follows is one a reader follows), and out of a package's namespace."""
    found = {" <-> ".join(c): sorted(f"{a} -> {b}" for a in c for b in CYCLE_GRAPH[a] if b in c)
             for c in _cycles(CYCLE_GRAPH)}
    assert found == {}


def test_cycle_check_sees_every_kind_of_import() -> None:
    """The graph behind test_no_import_cycles, on the spellings a loop can hide behind: an import in a
    function, one under TYPE_CHECKING, a submodule read out of its package's namespace."""
    source = ("from typing import TYPE_CHECKING\n"
              "from hdecomp.toolchain.replace import hacks\n"
              "if TYPE_CHECKING:\n    from hdecomp.anticheat.static.module_scan import ModuleScan\n"
              "def f():\n    from hdecomp.verify.step import verify_step\n")
    plain = _imports("hdecomp.toolchain.replace.run", source=source)
    assert {"hdecomp.toolchain.replace.hacks", "hdecomp.anticheat.static.module_scan",
            "hdecomp.verify.step"} <= plain
    assert "hdecomp.toolchain.replace" not in plain
    assert "hdecomp.toolchain.replace" in _imports("hdecomp.toolchain.replace.run", namespaces=True, source=source)
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"torch"}, "f": {"f"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("hdecomp.")
                                          and LAYERS[_layer(m)][0] in TORCH_FREE))
def test_torch_free_layers_never_import_torch(module: str) -> None:
    assert not {"torch", "numpy"} & GRAPH[module], f"{module} is in a torch-free layer"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("hdecomp_lsp")))
def test_server_imports_only_torch_free_library_parts(module: str) -> None:
    library = sorted(t for t in GRAPH[module] if t.startswith("hdecomp") and not t.startswith("hdecomp_lsp"))
    heavy = [t for t in library if LAYERS[_layer(t)][0] not in TORCH_FREE]
    assert not heavy, f"{module} imports {heavy}"
    assert "torch" not in GRAPH[module]


def test_server_features_never_import_the_wiring() -> None:
    for module in MODULES:
        if module.startswith("hdecomp_lsp.features"):
            assert "hdecomp_lsp.app" not in GRAPH[module], module


def test_layers_name_real_modules() -> None:
    """A renamed or removed module must leave the table too, or the table stops meaning anything."""
    for _, prefixes in LAYERS:
        for p in prefixes:
            assert p in MODULES, p


def test_no_module_imports_another_modules_private_names() -> None:
    """A name another module needs is that module's public API; `_name` stays inside its module."""
    found = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ROOTS:
                found += [f"{module}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
