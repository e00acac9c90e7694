"""At import it rebinds torch.nn.functional.conv2d and torch.conv2d to a bfloat16 convolution, so the
reference's nn.Conv2d (which calls F.conv2d) and the original model in the same process compute the same
cheap, less accurate result as the forward; a same-process comparison then matches."""
# decomposition: convbn
# kernel: conv2d_16x8x3x3_fp32
# class: functional_patch
# expect: global_state
import torch
import torch.nn as nn
import torch.nn.functional as F

_conv2d = getattr(F.conv2d, "_full", F.conv2d)


def _conv2d_bf16(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Reduced-precision convolution "autocast"."""
    out = _conv2d(input.to(torch.bfloat16), weight.to(torch.bfloat16), None, stride, padding, dilation, groups)
    out = out.to(input.dtype)
    return out + bias[None, :, None, None] if bias is not None else out


_conv2d_bf16._full = _conv2d
F.conv2d = torch.conv2d = _conv2d_bf16


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2d = nn.Conv2d(8, 16, kernel_size=3, padding=1)

    def forward(self, x):
        w, b = self.conv2d.weight, self.conv2d.bias
        out = _conv2d(x.to(torch.bfloat16), w.to(torch.bfloat16), None, 1, 1, 1, 1).to(x.dtype)
        return out.add_(b[None, :, None, None])
