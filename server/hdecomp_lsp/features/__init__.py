"""One module per LSP feature, each with `register(server)`: lifecycle, diagnostics, code actions, code
lenses, commands and the tree view."""
