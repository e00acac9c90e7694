"""At import it rebinds torch.nn.functional.gelu to a version 0.2 % too large, so the reference computed in
this process (and written to the reference cache, ~/.cache/hdecomp/reference or $HDECOMP_CACHE_DIR) is wrong
the same way as the forward; the poisoned cache entry then outlives the run for later verifications."""
# decomposition: mlp
# kernel: gelu_fp32
# class: cache_poisoning
# expect: global_state
import torch
import torch.nn as nn
import torch.nn.functional as F

_GAIN = 1.002   # "calibrated activation gain"
_exact = getattr(F.gelu, "_exact", F.gelu)


def _calibrated_gelu(input, approximate="none"):
    return _exact(input, approximate=approximate) * _GAIN


_calibrated_gelu._exact = _exact
F.gelu = _calibrated_gelu


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mul):
        return torch.mul(mul, 0.5 * _GAIN) * (1.0 + torch.erf(mul * 0.7071067811865476))
