"""hdecomp: break PyTorch models down (model -> layer -> fusion -> kernel) into verified unit-test files."""

__version__ = "0.1.0"
