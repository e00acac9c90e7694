"""Torch-free vocabularies shared by the decomposer and the lint: role names of fusions and layers."""
