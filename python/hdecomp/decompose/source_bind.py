"""The globals a forward's code reads, bound in a generated file: imports, plain functions and methods carried
over, the state a library decorator reads (see source_step.py)."""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import textwrap
from dataclasses import replace
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.source import (
    SourceContext,
    import_home,
)
from hdecomp.decompose.source_forward import (
    ForwardSource,
    SourceStepError,
    drop_signature_annotations,
    strip_annotations,
)


def method_home(method: Any, fs: ForwardSource) -> ForwardSource:
    """Where the names a copied method reads are bound: its own module's globals, not the forward's."""
    fn = inspect.unwrap(getattr(method, "__func__", method))
    glb = getattr(fn, "__globals__", None)
    if not isinstance(glb, dict) or glb is fs.globals:
        return fs
    mod = getattr(fn, "__module__", "") or ""
    return replace(fs, globals=glb, module_name=mod,
                   user_code=mod.startswith("_hdecomp_component_") or mod == "__main__")


def method_source(method: Any, name: str) -> str:
    fn = inspect.unwrap(getattr(method, "__func__", method))
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise SourceStepError(f"the source of self.{name} is not available") from exc
    tree = ast.parse(src)
    d = tree.body[0]
    if not isinstance(d, ast.FunctionDef):
        raise SourceStepError(f"self.{name} is not a plain method")
    d.name = name   # (the base class's forward, read as `self._base_forward`, is carried by that name)
    keep: list[ast.expr] = [dec for dec in d.decorator_list
                            if isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod")]
    d.decorator_list = keep
    for n in ast.walk(d):
        if isinstance(n, ast.Name) and n.id in ("super", "__class__"):
            raise SourceStepError(f"self.{name} uses super()")
    drop_signature_annotations(d)
    strip_annotations(d)
    return ast.unparse(d)


_STANDARD = {"torch": torch, "nn": nn, "F": torch.nn.functional}


def is_imported(value: Any) -> bool:
    """A module, or a class or function an installed package defines (a user file's import binds it)."""
    if isinstance(value, type(sys)):
        return True
    mod = getattr(value, "__module__", None)
    if not isinstance(mod, str) or not (isinstance(value, type) or callable(value)):
        return False
    return not (mod.startswith("_hdecomp_component_") or mod == "__main__") and import_home(value) is not None


def bind_globals(loads: list[str], local_names: set[str], fs: ForwardSource, ctx: SourceContext,
                  where: str) -> None:
    """Make every global name the code reads available in the generated file: carried over from the model
    file, imported from the package that defines the forward, or the standard torch imports."""
    import math
    for name in loads:
        if name in local_names or name == "self":
            continue
        if name in fs.globals:
            value = fs.globals[name]
        elif hasattr(builtins, name):
            continue
        else:
            raise SourceStepError(f"{where} reads {name!r}, which is not defined where the forward is")
        if name in _STANDARD and value is _STANDARD[name]:
            continue
        if name == "math" and value is math:
            ctx.needs_math = True
            continue
        # (a name a user file binds by an import, `import torchvision` or `from collections import OrderedDict`,
        # is imported the same way, not carried as a definition the file does not have)
        if fs.user_code and not is_imported(value):
            ctx.need(name)
            continue
        if isinstance(value, type(sys)):
            line = f"import {value.__name__}" + (f" as {name}" if value.__name__.split(".")[-1] != name or
                                                  "." in value.__name__ else "")
            if value.__name__ == name:
                line = f"import {name}"
            ctx.imports[name] = line
            continue
        home = fs.module_name
        if getattr(sys.modules.get(home), name, None) is not value:
            home = import_home(value) or ""
        if not home:
            raise SourceStepError(f"{where} reads {name!r}, which cannot be imported")
        ctx.imports[name] = f"from {home} import {name}"
