"""minGRU and minLSTM (Feng et al. 2024, "Were RNNs All We Needed?"), readable reference of a small causal LM whose
token mixers are the two minimal RNNs evaluated in parallel with the log-space scan of the paper's appendix B
(Heinsen 2023, "Efficient Parallelization of a Ubiquitous Sequential Computation"), after the paper's listings and
lucidrains/minGRU-pytorch's minLM.

Both cells drop the hidden-state dependence of the gates and of the candidate (they see only x_t), so the recurrence
h_t = a_t * h_{t-1} + b_t is linear in h and every (a_t, b_t) is computed for all t at once:
    minGRU:  z_t = sigmoid(W_z x_t),  h~_t = g(W_h x_t),  h_t = (1 - z_t) * h_{t-1} + z_t * h~_t
    minLSTM: f_t = sigmoid(W_f x_t),  i_t = sigmoid(W_i x_t),  h~_t = g(W_h x_t),
             f'_t = f_t / (f_t + i_t),  i'_t = i_t / (f_t + i_t)   (the length-independent normalisation),
             h_t = f'_t * h_{t-1} + i'_t * h~_t
with g(x) = x + 0.5 for x >= 0 and sigmoid(x) otherwise, which keeps the states positive so the scan can run on
logarithms. All the gate logs come from softplus: log z = -softplus(-k), log(1 - z) = -softplus(k); for minLSTM,
with d = softplus(-pre_f) - softplus(-pre_i), log f' = -softplus(d), log i' = -softplus(-d); log g(x) =
log(relu(x) + 0.5) where x >= 0 and -softplus(-x) where x < 0 (torch.where over both branches). The scan (h_0 = 0,
so no initial-state term):
    a*_t = cumsum_{r <= t} log a_r,   log h_t = a*_t + logcumsumexp_{s <= t}(log b_s - a*_s),   h_t = exp(log h_t).
Each RNN runs at an expanded width (expansion 1.5: d_model 64 -> 96) with a bias-free input projection producing
the gate(s) and the candidate together, and a bias-free output projection back to d_model.
LM (minLM's layout, with its optional causal depthwise conv off, as by default; minLM uses one cell type
throughout, here the two alternate): token embedding; 4 residual layers, minGRU (layers 1, 3) and minLSTM (layers
2, 4), each x <- x + RNN(RMSNorm(x)); x <- x + MLP(RMSNorm(x)) with MLP = Linear(64, 256) -> GELU ->
Linear(256, 64); final RMSNorm; untied bias-free LM head. No positional encoding (the recurrence is ordered). No
dropout.
Inits: PyTorch defaults (Embedding N(0, 1), Linear kaiming-uniform), RMSNorm scales 1.
Sizes: byte-level vocab 256, d_model 64, RNN width 96, MLP 256, 4 layers, seq 128 (the paper's language-modelling
experiment is character-level Shakespeare; it does not fix this stack's widths, so these sizes are this file's).

Input: token ids (2, 128). Output: logits (2, 128, 256).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 256
d_model = 64
expansion = 1.5
mlp_dim = 256
cell_types = ("mingru", "minlstm", "mingru", "minlstm")


def log_g(x):
    """log of g(x) = x + 0.5 (x >= 0), sigmoid(x) (x < 0)."""
    return torch.where(x >= 0, (F.relu(x) + 0.5).log(), -F.softplus(-x))


def parallel_scan_log(log_coeffs, log_values):
    """h_t = a_t h_{t-1} + b_t with h_0 = 0, from log a (B, T, D) and log b (B, T, D), over dim 1."""
    a_star = torch.cumsum(log_coeffs, dim=1)
    log_h = a_star + torch.logcumsumexp(log_values - a_star, dim=1)
    return torch.exp(log_h)


class MinGRU(nn.Module):
    def __init__(self, dim, expansion):
        super().__init__()
        inner = int(dim * expansion)
        self.to_hidden_and_gate = nn.Linear(dim, 2 * inner, bias=False)
        self.to_out = nn.Linear(inner, dim, bias=False)

    def forward(self, x):
        hidden, gate = self.to_hidden_and_gate(x).chunk(2, dim=-1)
        log_z = -F.softplus(-gate)          # log z_t
        log_coeffs = -F.softplus(gate)      # log (1 - z_t)
        log_tilde_h = log_g(hidden)
        h = parallel_scan_log(log_coeffs, log_z + log_tilde_h)
        return self.to_out(h)


class MinLSTM(nn.Module):
    def __init__(self, dim, expansion):
        super().__init__()
        inner = int(dim * expansion)
        self.to_hidden_and_gates = nn.Linear(dim, 3 * inner, bias=False)
        self.to_out = nn.Linear(inner, dim, bias=False)

    def forward(self, x):
        hidden, f_gate, i_gate = self.to_hidden_and_gates(x).chunk(3, dim=-1)
        diff = F.softplus(-f_gate) - F.softplus(-i_gate)
        log_f = -F.softplus(diff)           # log f'_t = log f_t - log(f_t + i_t)
        log_i = -F.softplus(-diff)          # log i'_t = log i_t - log(f_t + i_t)
        log_tilde_h = log_g(hidden)
        h = parallel_scan_log(log_f, log_i + log_tilde_h)
        return self.to_out(h)


class MinRNNLayer(nn.Module):
    def __init__(self, cell_type, dim, expansion, mlp_dim):
        super().__init__()
        self.rnn_norm = nn.RMSNorm(dim)
        self.rnn = MinGRU(dim, expansion) if cell_type == "mingru" else MinLSTM(dim, expansion)
        self.mlp_norm = nn.RMSNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Linear(mlp_dim, dim))

    def forward(self, x):
        x = x + self.rnn(self.rnn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, d_model, expansion, mlp_dim, cell_types):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList([MinRNNLayer(c, d_model, expansion, mlp_dim) for c in cell_types])
        self.norm = nn.RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, d_model, expansion, mlp_dim, cell_types]
