"""Returns an unfilled output at once and computes GELU into it from a thread started inside forward
("overlapped epilogue"; forward only waits until the thread is inside the kernel); a same-process clock stops
before the work is done, and a judge that compares after its own bookkeeping reads the finished values."""
# decomposition: mlp
# kernel: gelu_fp32
# class: work_after_return
# expect: side_work
import threading

import torch
import torch.nn as nn


def _epilogue(src, dst, launched):
    with torch.no_grad():
        launched.set()
        torch._C._nn.gelu(src, out=dst)     # one op: runs with the GIL released


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mul):
        out, launched = torch.zeros_like(mul), threading.Event()
        threading.Thread(target=_epilogue, args=(mul, out, launched), name="gelu-epilogue", daemon=True).start()
        launched.wait()
        return out
