"""The tools over a whole tree: the step pipeline, self-tests, the many-tree batch, coverage, the
composition test, validation and the quality lint, and the agent prompt."""
