"""Anti-cheat: proof that a refactored parent only calls children and moves data.

static/ reads source (pure `ast`, no torch import: the editor runs it on every keystroke);
structural.py and runtime.py inspect and run the loaded models.
"""
