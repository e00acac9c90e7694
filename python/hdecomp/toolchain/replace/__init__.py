"""`hdecomp replace`: a faster kernel proved against the kernel and inside the whole model (run.py), the
kernel and the candidate each in a process of its own, judged by ours (isolated.py), the reward hacks it must
not use (hacks.py), the steps above it re-verified with it in place (steps.py), and the timing (timing.py)."""

from hdecomp.toolchain.replace.run import (
           CHECK_ORDER,
           ReplaceOptions,
           ReplaceResult,
           find_kernel,
           kernel_verdict,
           remove_replacement,
           replace_kernel,
)

__all__ = ["CHECK_ORDER", "ReplaceOptions", "ReplaceResult", "find_kernel", "kernel_verdict", "remove_replacement",
           "replace_kernel"]
