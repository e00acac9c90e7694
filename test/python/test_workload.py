"""What counts as the same code (hdecomp.vocab.workload): one strip_docstrings for every part that compares
files up to their docstrings."""

from __future__ import annotations

import ast

from hdecomp.vocab.workload import normalized_dump, strip_docstrings


def test_strip_docstrings_and_the_code_up_to_layout() -> None:
    a = '"""Doc."""\nimport torch\n\ndef f(x):\n    """More doc."""\n    def g():\n        """Inner."""\n' \
        "        return x\n    return g()  # comment\n"
    b = "import torch\ndef f(x):\n    def g():\n        return x\n    return g()\n"
    assert normalized_dump(a) == normalized_dump(b)
    assert normalized_dump(b) != normalized_dump(b.replace("return x", "return -x"))
    assert normalized_dump("def (:") is None
    only_own = strip_docstrings(ast.parse(a).body[2], nested=False)
    assert isinstance(only_own, ast.FunctionDef)
    assert "More doc." not in ast.unparse(only_own) and "Inner." in ast.unparse(only_own)
    assert ast.unparse(strip_docstrings(ast.parse('"""Only a docstring."""'))) == "pass"
