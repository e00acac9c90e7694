"""hdecomp's language server: live anti-cheat diagnostics, "Extract to child component", verify CodeLens
and the decomposition trees, as a thin pygls layer over the `hdecomp` library.

Nothing in this package imports torch: analysis is pure source reading and everything that runs user
code runs `hdecomp ...` in a subprocess under the configured interpreter.
"""

__all__ = ["SERVER_NAME"]

SERVER_NAME = "hdecomp-lsp"
