"""Gated Slot Attention (Zhang et al. 2024, "Gated Slot Attention for Efficient Linear-Time Sequence Modeling",
NeurIPS 2024), readable reference of a small causal LM whose token mixer is GSA, after the paper and the
flash-linear-attention `GatedSlotAttention` layer and its naive recurrent reference (two Python loops over time).

GSA is a linear-time attention with a bounded memory of m slots per head (ABC-style "bounded memory control")
and a data-dependent forget gate per slot (GLA-style). Per head (head dim d, m slots), for the layer input x_t:
    q_t = swish(W_q x_t),  k_t = swish(W_k x_t)       (feature map swish(x) = x sigmoid(x)),   v_t = SiLU(W_v x_t)
    log alpha_t = logsigmoid(W_f x_t) / tau           (alpha_t in (0, 1)^m, i.e. sigmoid(.)^(1/tau); tau = 8
                                                       keeps the slots' forget rates close to 1)
    slot memories (m x d), every slot i a gated running average of the keys / values written into it:
        Ktil_t = Diag(alpha_t) Ktil_{t-1} + (1 - alpha_t) k_t^T
        Vtil_t = Diag(alpha_t) Vtil_{t-1} + (1 - alpha_t) v_t^T
    read-out, a softmax over the slots:
        o_t = Vtil_t^T softmax(Ktil_t q_t)                 (scale 1, as in the reference layer)
This is written, as the paper does, as two passes of gated linear attention linked by the softmax:
    pass 1 (GLA with queries q, keys k, values 1 - alpha, gate alpha on the value side):
        H^k_t = H^k_{t-1} Diag(alpha_t) + k_t (1 - alpha_t)^T   (d x m),   s_t = q_t^T H^k_t   (m slot scores)
    softmax over the slots:  p_t = softmax(s_t)
    pass 2 (GLA with queries p, keys 1 - alpha, values v, gate alpha on the key side):
        H^v_t = Diag(alpha_t) H^v_{t-1} + (1 - alpha_t) v_t^T   (m x d),   o_t = (H^v_t)^T p_t
each pass a Python loop over time carrying the state per sample and head, in float32.
Layer output: W_o RMSNorm(SiLU(concat_heads o_t)) (RMSNorm with learned weight over the whole width).
LM (the paper's / fla's GSA model): token embedding; layers of x <- x + GSA(RMSNorm(x)), x <- x + SwiGLU(RMSNorm(x));
final RMSNorm; untied LM head. Bias-free projections, RMSNorm eps 1e-6, every Linear / Embedding N(0, 0.02^2).
Shrunk from the paper's 1.3B model (hidden 2048, 24 layers, 4 heads of 512, 64 slots, 2K context, vocab 32000):
hidden 128, 2 layers, 4 heads of 32, 16 slots (m = head dim / 2; published head dim / 8), SwiGLU intermediate 352,
vocab 512, sequence 128. Kept: tau 8, the swish feature map on q / k, SiLU on v, scale 1, no short convolution.

Input: token ids (2, 128). Output: logits (2, 128, 512).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 512
hidden_size = 128
num_heads = 4
num_slots = 16  # paper 64 (with head dim 512)
num_layers = 2
intermediate_size = 352
gate_logit_normalizer = 8.0  # tau
initializer_range = 0.02


def gated_slot_attention(q, k, v, log_alpha):
    """q, k, v: (B, H, T, d); log_alpha: (B, H, T, m) (log forget gates). Returns o: (B, H, T, d)."""
    B, H, T, d = q.shape
    m = log_alpha.shape[-1]
    q, k, v, log_alpha = q.float(), k.float(), v.float(), log_alpha.float()
    alpha = log_alpha.exp()
    write = 1.0 - alpha  # how much of the new token each slot takes in

    # pass 1: slot scores s_t = q_t^T H^k_t, with H^k_t = H^k_{t-1} Diag(alpha_t) + k_t (1 - alpha_t)^T
    state_k = q.new_zeros(B, H, d, m)
    scores = []
    for t in range(T):
        state_k = state_k * alpha[:, :, t, None, :] + torch.einsum("bhd,bhm->bhdm", k[:, :, t], write[:, :, t])
        scores.append(torch.einsum("bhd,bhdm->bhm", q[:, :, t], state_k))
    probs = torch.softmax(torch.stack(scores, dim=2), dim=-1)  # (B, H, T, m): softmax over the slots

    # pass 2: o_t = (H^v_t)^T p_t, with H^v_t = Diag(alpha_t) H^v_{t-1} + (1 - alpha_t) v_t^T
    state_v = q.new_zeros(B, H, m, d)
    outputs = []
    for t in range(T):
        state_v = state_v * alpha[:, :, t, :, None] + torch.einsum("bhm,bhd->bhmd", write[:, :, t], v[:, :, t])
        outputs.append(torch.einsum("bhm,bhmd->bhd", probs[:, :, t], state_v))
    return torch.stack(outputs, dim=2)


class GatedSlotAttention(nn.Module):
    def __init__(self, hidden_size, num_heads, num_slots, gate_logit_normalizer):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.num_slots = num_slots
        self.gate_logit_normalizer = gate_logit_normalizer
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.f_proj = nn.Linear(hidden_size, num_heads * num_slots, bias=False)  # forget-gate logits per slot
        self.g_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        H, d, m = self.num_heads, self.head_dim, self.num_slots
        q = self.q_proj(x).view(B, T, H, d).transpose(1, 2)
        k = self.k_proj(x).view(B, T, H, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)
        f = self.f_proj(x).view(B, T, H, m).transpose(1, 2)
        q, k = q * torch.sigmoid(q), k * torch.sigmoid(k)  # swish feature map
        v = F.silu(v)
        log_alpha = F.logsigmoid(f) / self.gate_logit_normalizer
        o = gated_slot_attention(q, k, v, log_alpha).to(x.dtype)
        o = o.transpose(1, 2).reshape(B, T, C)
        return self.o_proj(self.g_norm(F.silu(o)))


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class GSABlock(nn.Module):
    def __init__(self, hidden_size, num_heads, num_slots, intermediate_size, gate_logit_normalizer):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.attn = GatedSlotAttention(hidden_size, num_heads, num_slots, gate_logit_normalizer)
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_heads, num_slots, num_layers, intermediate_size,
                 gate_logit_normalizer, initializer_range):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([
            GSABlock(hidden_size, num_heads, num_slots, intermediate_size, gate_logit_normalizer)
            for _ in range(num_layers)
        ])
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=initializer_range)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, hidden_size, num_heads, num_slots, num_layers, intermediate_size, gate_logit_normalizer,
            initializer_range]
