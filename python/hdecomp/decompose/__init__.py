"""Automatic decomposition (`hdecomp decompose`): capture, plan, generate, verify, step by step."""
