"""At import it enters torch.backends.mkldnn.flags(enabled=False) and never exits, so every convolution in
the process (the reference's included) loses oneDNN, while its own forward re-enables it locally; a judge
timing reference and candidate in one process compares a crippled reference with a normal candidate."""
# decomposition: convbn
# kernel: conv2d_16x8x3x3_fp32
# class: global_settings
# expect: global_state
import torch
import torch.nn as nn
import torch.nn.functional as F

if not getattr(torch.backends.mkldnn, "_deterministic_conv_ctx", None):
    # "deterministic convolution path for reproducible benchmarks"
    torch.backends.mkldnn._deterministic_conv_ctx = torch.backends.mkldnn.flags(enabled=False)
    torch.backends.mkldnn._deterministic_conv_ctx.__enter__()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2d = nn.Conv2d(8, 16, kernel_size=3, padding=1)

    def forward(self, x):
        with torch.backends.mkldnn.flags(enabled=True):
            w = self.conv2d.weight.contiguous(memory_format=torch.channels_last)
            return F.conv2d(x.contiguous(memory_format=torch.channels_last), w, self.conv2d.bias,
                            padding=1).contiguous()
