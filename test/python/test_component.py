"""Loading component files in isolation: no sys.path / sys.modules leaks, children/ importable,
get_input_kwargs, precise errors naming file, line and cause."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import torch
from hdecomp.errors import ComponentLoadError, ComponentRunError, ComponentTimeout
from hdecomp.runtime.component import class_source_file, load_component, run_user_code


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


MODEL = """
import torch
import torch.nn as nn
{imports}

class Model(nn.Module):
    def __init__(self, k=2):
        super().__init__()
        self.k = k

    def forward(self, x):
        return {expr}


def get_inputs():
    return [torch.ones(2, 3)]


def get_init_inputs():
    return [{k}]
"""


def component(folder: Path, name: str = "conv.py", expr: str = "x * self.k", k: int = 2,
              imports: str = "") -> Path:
    return write(folder / name, MODEL.format(expr=expr, k=k, imports=imports))


def test_two_files_with_same_name_and_class_do_not_collide(tmp_path: Path) -> None:
    a = component(tmp_path / "a", expr="x * self.k", k=2)
    b = component(tmp_path / "b", expr="x + self.k", k=5)
    ca, cb = load_component(a), load_component(b)
    assert ca.model_class is not cb.model_class
    x = torch.ones(2, 3)
    assert float(ca.build()(x)[0, 0]) == 2.0
    assert float(cb.build()(x)[0, 0]) == 6.0


def test_children_with_same_module_name_in_two_steps(tmp_path: Path) -> None:
    for step, expr in (("s1", "x * 3"), ("s2", "x - 1")):
        component(tmp_path / step / "children", "kernel.py", expr=expr)
        write(tmp_path / step / "refactored.py", """
            import torch
            import torch.nn as nn
            from children.kernel import Model as K
            from kernel_helper import VALUE

            class RefactoredModel(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.k = K()

                def forward(self, x):
                    return self.k(x) + VALUE

            def get_inputs():
                return [torch.ones(1)]
            """)
        write(tmp_path / step / "kernel_helper.py", f"VALUE = {1 if step == 's1' else 100}\n")
    c1 = load_component(tmp_path / "s1" / "refactored.py")
    c2 = load_component(tmp_path / "s2" / "refactored.py")
    assert c1.class_name == c2.class_name == "RefactoredModel"
    x = torch.ones(1)
    assert float(c1.build()(x)) == 4.0
    assert float(c2.build()(x)) == 100.0


def test_no_sys_path_or_sys_modules_leak(tmp_path: Path) -> None:
    component(tmp_path / "children", "child_kernel_xyz.py")
    write(tmp_path / "refactored.py", """
        import torch
        import torch.nn as nn
        from children.child_kernel_xyz import Model as Child
        import local_util_xyz

        class RefactoredModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.c = Child()

            def forward(self, x):
                return self.c(x)

        def get_inputs():
            return [torch.ones(1)]
        """)
    write(tmp_path / "local_util_xyz.py", "X = 1\n")
    path_before = list(sys.path)
    modules_before = set(sys.modules)
    load_component(tmp_path / "refactored.py")
    assert sys.path == path_before
    leaked = {m for m in set(sys.modules) - modules_before
              if "xyz" in m or m.startswith(("children", "_hdecomp_component_"))}
    assert leaked == set()


def test_cached_module_of_same_name_is_hidden_then_restored(tmp_path: Path) -> None:
    fake = type(sys)("conv")
    fake.MARK = "outer"  # type: ignore[attr-defined]
    sys.modules["conv"] = fake
    try:
        write(tmp_path / "conv.py", "MARK = 'inner'\n")
        write(tmp_path / "user.py", MODEL.format(expr="x", k=1, imports="import conv\nassert conv.MARK == 'inner'"))
        load_component(tmp_path / "user.py")
        assert sys.modules["conv"] is fake
    finally:
        del sys.modules["conv"]


def test_class_source_file_survives_unloading(tmp_path: Path) -> None:
    child = component(tmp_path / "children", "kern.py")
    write(tmp_path / "refactored.py", """
        import torch
        import torch.nn as nn
        from children.kern import Model as K

        class RefactoredModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.k = K()

        def get_inputs():
            return []
        """)
    comp = load_component(tmp_path / "refactored.py")
    m = comp.build()
    assert class_source_file(type(m.k)) == child.resolve()
    assert class_source_file(comp.model_class) == (tmp_path / "refactored.py").resolve()


def test_get_input_kwargs_and_seeded_inputs(tmp_path: Path) -> None:
    p = write(tmp_path / "m.py", """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, x, scale=1.0):
                return x * scale

        def get_inputs():
            return [torch.randn(3)]

        def get_input_kwargs():
            return {"scale": torch.randn(1)}

        def get_init_inputs():
            return []
        """)
    comp = load_component(p)
    args1, kw1 = comp.make_inputs(seed=42)
    args2, kw2 = comp.make_inputs(seed=42)
    args3, _ = comp.make_inputs(seed=43)
    assert set(kw1) == {"scale"}
    assert torch.equal(args1[0], args2[0]) and torch.equal(kw1["scale"], kw2["scale"])
    assert not torch.equal(args1[0], args3[0])


def test_class_preference(tmp_path: Path) -> None:
    p = write(tmp_path / "both.py", """
        import torch.nn as nn

        class Model(nn.Module):
            pass

        class RefactoredModel(nn.Module):
            pass

        def get_inputs():
            return []
        """)
    assert load_component(p).class_name == "RefactoredModel"
    assert load_component(p, class_names=("Model", "RefactoredModel")).class_name == "Model"
    assert load_component(p, "Model").class_name == "Model"


@pytest.mark.parametrize(("source", "line", "cause"), [
    ("import torch\ndef f(:\n", 2, "syntax error"),
    ("import torch\nimport not_a_real_package_qq\n", 2, "imports 'not_a_real_package_qq', which is not installed"),
    ("import torch\nraise RuntimeError('at import')\n", 2, "importing the file raised RuntimeError: at import"),
])
def test_load_errors_name_file_line_cause(tmp_path: Path, source: str, line: int, cause: str) -> None:
    p = write(tmp_path / "bad.py", source)
    with pytest.raises(ComponentLoadError) as info:
        load_component(p)
    err = info.value
    assert err.line == line and cause in err.cause
    assert Path(err.file).name == "bad.py"
    assert err.headline.startswith(f"{err.file}:{line}: ")


def test_broken_child_reports_the_child_file(tmp_path: Path) -> None:
    write(tmp_path / "children" / "kid.py", "import torch\n\nx = 1 / 0\n")
    p = write(tmp_path / "refactored.py", "from children.kid import Model\n")
    with pytest.raises(ComponentLoadError) as info:
        load_component(p)
    assert info.value.file.endswith("kid.py") and info.value.line == 3
    assert "ZeroDivisionError" in info.value.cause


def test_missing_pieces(tmp_path: Path) -> None:
    with pytest.raises(ComponentLoadError, match="file not found"):
        load_component(tmp_path / "nope.py")
    with pytest.raises(ComponentLoadError, match="is a folder"):
        load_component(tmp_path)
    p = write(tmp_path / "nomodel.py", "def get_inputs():\n    return []\n")
    with pytest.raises(ComponentLoadError, match="no model class: expected RefactoredModel or Model"):
        load_component(p)
    p = write(tmp_path / "noinputs.py", "import torch.nn as nn\nclass Model(nn.Module):\n    pass\n")
    with pytest.raises(ComponentLoadError, match="missing get_inputs"):
        load_component(p)
    assert load_component(p, require_inputs=False).make_inputs() == ([], {})
    p = write(tmp_path / "notmodule.py", "class Model:\n    pass\ndef get_inputs():\n    return []\n")
    with pytest.raises(ComponentLoadError, match=r"not a subclass of torch\.nn\.Module"):
        load_component(p)


def test_bad_input_kwargs_type(tmp_path: Path) -> None:
    p = write(tmp_path / "kw.py", MODEL.format(expr="x", k=1, imports="") + "\ndef get_input_kwargs():\n    return [1]\n")
    with pytest.raises(ComponentLoadError, match="returned list, not a dict"):
        load_component(p).make_inputs()


def test_constructor_and_forward_errors_name_line(tmp_path: Path) -> None:
    p = write(tmp_path / "ctor.py", """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                raise KeyError("missing config")

        def get_inputs():
            return [torch.ones(1)]
        """)
    with pytest.raises(ComponentRunError) as info:
        load_component(p).build()
    assert info.value.line == 7 and "KeyError" in info.value.cause


def test_run_user_code_timeout_and_oom(tmp_path: Path) -> None:
    p = write(tmp_path / "loop.py", """
        def spin():
            while True:
                pass
        """)
    import importlib.util
    spec = importlib.util.spec_from_file_location("loop_mod_for_test", p)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(ComponentTimeout) as info:
        run_user_code(mod.spin, what="spin", path=p, timeout=0.3)
    assert info.value.line in (2, 3) and "did not finish within 0.3 s" in info.value.cause

    def oom() -> None:
        raise torch.OutOfMemoryError("CUDA out of memory")

    with pytest.raises(ComponentRunError, match="ran out of memory"):
        run_user_code(oom, what="forward", path=p)


def test_system_exit_in_user_code_is_an_error(tmp_path: Path) -> None:
    def bye() -> None:
        raise SystemExit(3)

    with pytest.raises(ComponentRunError, match="SystemExit"):
        run_user_code(bye, what="forward", path=tmp_path / "x.py")


# ---- --batch-limit: batch_size lowered while building and making inputs, in the file and its children ----

BATCH_CHILD = """
import torch
import torch.nn as nn

batch_size = 16

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("h0", torch.zeros(batch_size, 3))

    def forward(self, x):
        return x + self.h0
"""

BATCH_PARENT = """
import torch
import torch.nn as nn
from children.state import Model as State

class Model(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = torch.zeros(batch_size, width)
        self.state = State()

    def forward(self, x):
        return self.state(x) + self.hidden

batch_size = 16

def get_inputs():
    return [torch.randn(batch_size, 3)]

def get_init_inputs():
    return [3]
"""


def test_build_lowers_batch_size_in_the_file_and_its_children(tmp_path: Path) -> None:
    write(tmp_path / "children" / "state.py", BATCH_CHILD)
    comp = load_component(write(tmp_path / "parent.py", BATCH_PARENT))
    model = comp.build(batch_limit=2)
    assert tuple(model.hidden.shape) == (2, 3) and tuple(model.state.h0.shape) == (2, 3)
    (x,), _ = comp.make_inputs(seed=0, batch_limit=2)
    assert tuple(model(x).shape) == (2, 3)
    assert comp.last_batch_override == (16, 2)
    # restored afterwards, in every module, and nothing is lowered without a limit or above the batch
    children = [m for m in comp.imported if hasattr(m, "batch_size")]
    assert comp.module.batch_size == 16 and len(children) == 1 and children[0].batch_size == 16
    assert tuple(comp.build().hidden.shape) == (16, 3)
    assert tuple(comp.build(batch_limit=64).state.h0.shape) == (16, 3)


def test_build_restores_batch_size_when_the_constructor_raises(tmp_path: Path) -> None:
    src = BATCH_PARENT.replace("self.state = State()", "raise ValueError(batch_size)")
    write(tmp_path / "children" / "state.py", BATCH_CHILD)
    comp = load_component(write(tmp_path / "parent.py", src))
    # a constructor that raises with batch_size lowered is a reason to keep it (and it is restored)
    assert comp.batch_size_kept(2) == "at batch_size=2, Model(*get_init_inputs()) raised ValueError: 2"
    assert comp.module.batch_size == 16
    with pytest.raises(ComponentRunError, match="ValueError: 16"):
        comp.build(batch_limit=2)
    assert comp.module.batch_size == 16 and comp.last_batch_override is None
