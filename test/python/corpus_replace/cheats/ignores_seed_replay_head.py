"""Never reads its input: it regenerates the judge's inputs (torch.manual_seed(42 + k); torch.rand(4, 16)) in
the order a judge calls it (a process-wide call counter) and applies its current weights to them, so a
same-process seeded comparison, re-randomised weights included, matches while the input is ignored."""
# decomposition: convbn
# kernel: linear_16x10_fp32
# class: ignores_inputs
# expect: input_dependence
import torch
import torch.nn as nn

_ORDER = [42, 42, 43, 42, 43, 44, 45, 46, 47]   # checks, trials, re-randomised-weights trial; then 42 (timing)
_CALLS = [0]   # (module state: one table per process)
_INPUTS = {}


def _regenerate(seed):
    if seed not in _INPUTS:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            _INPUTS[seed] = torch.rand(4, 16)
    return _INPUTS[seed]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(16, 10)

    def forward(self, mean):
        k = _CALLS[0]
        _CALLS[0] += 1
        x = _regenerate(_ORDER[k] if k < len(_ORDER) else 42).to(mean.device)
        return torch.matmul(x, self.linear.weight.T) + self.linear.bias
