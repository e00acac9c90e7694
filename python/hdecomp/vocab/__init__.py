"""Torch-free vocabularies shared by the decomposer, the verifier and the lint: levels, role names of fusions
and layers, facts about ops, and what counts as the same code and the same workload."""
