"""verify-step: one decomposition step proven (step.py), with its weight maps (weights.py) and the
numerical comparison of outputs (compare.py)."""
