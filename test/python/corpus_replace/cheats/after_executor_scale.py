"""A module-level concurrent.futures executor (its thread started in __init__, before any call) receives the
multiply; forward returns a zero buffer the pool fills after the call returns, so a same-process clock times
only the hand-off and a judge comparing a moment later reads the right values."""
# decomposition: mlp
# kernel: mul_fp32_v2
# class: work_after_return
# expect: side_work
import threading
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn as nn

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="async-scale")


def _scale_into(src, dst, started):
    with torch.no_grad():
        started.set()
        torch.mul(src, 50.0, out=dst)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        _POOL.submit(lambda: None).result()   # "warm the pool" (its worker thread starts now, not in forward)

    def forward(self, fc1_2):
        out, started = torch.empty_like(fc1_2).zero_(), threading.Event()
        _POOL.submit(_scale_into, fc1_2, out, started)
        started.wait()
        return out
