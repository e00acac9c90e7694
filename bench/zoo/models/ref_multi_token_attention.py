"""Multi-Token Attention (Golovneva, Wang, Weston & Sukhbaatar 2025, "Multi-Token Attention"), plain-torch reference
of a small causal LM with MTA layers, written the way the authors' facebookresearch/RAM projects/mta
mta_transformer.py (lingua-based, non-Triton path) writes it: attention scores are materialised and convolved.

MTA lets each attention weight depend on several queries, keys and heads (h heads, head_dim d, causal mask M with
-inf above the diagonal):
    S = Q K^T / sqrt(d)                                                  (B, h, T, T), per head
    key-query conv (pre-softmax): masked entries of S are set to 0, S is zero-padded by (c_k - 1) / 2 on both
        sides of the key axis and by c_q - 1 before the query axis (causal in queries), and convolved per head
        with a (c_q, c_k) = (6, 11) kernel (F.conv2d, groups = h)
    head mixing (pre-softmax): a Linear(h, h) over the head axis (the "pre_sm_linear_head")
    A = softmax(S + M) in float32
    key-query conv (post-softmax): the same convolution with its own kernel on A, masked entries re-zeroed
    head convolution (post-softmax): heads split in groups of c_h = 2, each group mixed by its own c_h x c_h matrix
        (a Python loop over the groups, as in _head_convolution)
    O = A V; per-head RMSNorm over d (the paper's group norm), times a per-head sigmoid gate Linear(d, 1)(O); W_o.
Layers not listed in mta_layers keep the head mixing / head convolution / group norm / gating but drop both key-query
convolutions (the authors' BaseTransformer does this when head mixing is configured); here layer 0 is such a layer
and layer 1 a full MTA layer (the 300M config puts MTA on every 4th layer: "2,6,10,14,18").
Block: lingua pre-norm Llama (RMSNorm eps 1e-5, interleaved-pair RoPE as 2 x 2 rotation matrices, theta 1e5,
SwiGLU FFN with hidden 2/3 * 4 dim rounded up to a multiple of 64), final RMSNorm, LM head tied to the embedding.
Init as the authors' reset_parameters: truncated normal (std dim^-0.5, +-3 std) projections, MTA kernels at the
identity (the 1 at the last query row / middle key column; head kernels eye, head Linear eye); the kernels, head
Linear and head-conv matrices then get N(0, 0.05^2) added as a stand-in for trained values (at pure identity the
convolutions would be no-ops on the values).
Sizes: vocab 1000, dim 128, 4 heads of 32, 2 layers, seq 128 (published 300M: dim 1024, 16 heads, 20 layers,
seq 2048; kept c_q 6, c_k 11, pad_key "both", group norm + 1-d gating).
Input: token ids (2, 128). Output: logits (2, 128, 1000).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 1000
dim = 128
n_heads = 4
n_layers = 2
mta_layers = [1]
query_kernel_size = 6
key_kernel_size = 11
head_kernel_size = 2
rope_theta = 100000.0
norm_eps = 1e-5
multiple_of = 64
kernel_noise = 0.05


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.float()).type_as(x) * self.weight


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    cos, sin = freqs.cos(), freqs.sin()
    return torch.stack((cos, -sin, sin, cos), dim=-1).view(*freqs.size(), 2, 2)


def apply_rotary_emb(xq, xk, freq_cis):
    # xq, xk: B S H D; freq_cis: S D/2 2 2
    xq_ = xq.reshape(*xq.shape[:-1], -1, 1, 2)  # B S H D/2 1 2
    xk_ = xk.reshape(*xk.shape[:-1], -1, 1, 2)
    freq_cis = freq_cis[None, :, None].float()  # 1 S 1 D/2 2 2
    xq_out = (xq_ * freq_cis).sum(5).flatten(3)
    xk_out = (xk_ * freq_cis).sum(5).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Attention(nn.Module):
    def __init__(self, dim, n_heads, use_qk_conv):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # pre-sm key-query kernel and post-sm key-query kernel (only in MTA layers)
        self.mta_kernel = None
        self.mta_kernel_after_sm = None
        if use_qk_conv:
            self.mta_kernel = nn.Parameter(torch.empty(n_heads, 1, query_kernel_size, key_kernel_size))
            self.mta_kernel_after_sm = nn.Parameter(torch.empty(n_heads, 1, query_kernel_size, key_kernel_size))
        self.wpsm = nn.Linear(n_heads, n_heads, bias=False)  # pre-sm head mixing
        self.head_kernel_size = head_kernel_size
        self.head_kernel = nn.Parameter(torch.empty(n_heads // head_kernel_size, head_kernel_size, head_kernel_size))
        self.subln = RMSNorm(self.head_dim, eps=1e-5)  # group norm
        self.gate = nn.Linear(self.head_dim, 1)  # gate_1d

    def _mta_convolution(self, scores, mask, kernel):
        # here we want masked scores to be 0, so they don't affect convolution
        scores[mask == float("-inf")] = 0
        n_loc_heads, _, qdim, kdim = kernel.shape
        scores_padded = F.pad(scores, ((kdim - 1) // 2, (kdim - 1) // 2, qdim - 1, 0), value=0.0)
        return F.conv2d(scores_padded, kernel, padding=0, groups=n_loc_heads)

    def _head_convolution(self, scores, bsz, seq_len):
        scores = scores.reshape(bsz, self.n_heads // self.head_kernel_size, self.head_kernel_size, seq_len, -1)
        scores_new = torch.empty_like(scores)
        for i in range(self.n_heads // self.head_kernel_size):
            scores_new[:, i] = torch.matmul(scores[:, i].transpose(1, -1), self.head_kernel[i]).transpose(1, -1)
        return scores_new.reshape(bsz, self.n_heads, seq_len, -1)

    def forward(self, x, freq_cis):
        bsz, seq_len, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        output_shape = xq.shape
        xq = xq.view(bsz, seq_len, self.n_heads, self.head_dim)
        xk = xk.view(bsz, seq_len, self.n_heads, self.head_dim)
        xv = xv.view(bsz, seq_len, self.n_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freq_cis[:seq_len])
        xq, xk, xv = (e.transpose(1, 2) for e in (xq, xk, xv))  # B H S D

        # causal mask, one copy per (batch, head)
        mask = torch.full((seq_len, seq_len), float("-inf"), device=x.device)
        mask = torch.triu(mask, diagonal=1).type_as(xq)
        mask = mask.repeat(bsz, self.n_heads, 1, 1)

        scores = torch.matmul(xq, xk.transpose(2, 3)) * torch.rsqrt(
            torch.tensor(self.head_dim, dtype=xq.dtype, device=x.device)
        )
        if self.mta_kernel is not None:
            scores = self._mta_convolution(scores, mask, self.mta_kernel)  # pre-sm q-k MTA
        scores = self.wpsm(scores.transpose(1, -1)).transpose(1, -1)  # pre-sm head MTA
        scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        if self.mta_kernel_after_sm is not None:
            scores = self._mta_convolution(scores, mask, self.mta_kernel_after_sm)  # post-sm q-k MTA
            scores = torch.where(mask == float("-inf"), 0.0, scores)
        scores = self._head_convolution(scores, bsz, seq_len)  # post-sm head MTA

        output = torch.matmul(scores, xv).transpose(1, 2)  # B S H D
        output = self.subln(output)
        output = output * torch.sigmoid(self.gate(output))
        return self.wo(output.reshape(output_shape))

    def reset_parameters(self, init_std):
        for w in (self.wq, self.wk, self.wv, self.wo):
            nn.init.trunc_normal_(w.weight, mean=0.0, std=init_std, a=-3 * init_std, b=3 * init_std)
        with torch.no_grad():
            for kernel in (self.mta_kernel, self.mta_kernel_after_sm):
                if kernel is not None:  # identity: 1 at the last query row, middle key column
                    kernel.zero_()
                    kernel[:, :, -1, kernel.shape[-1] // 2] = 1.0
                    kernel.add_(kernel_noise * torch.randn_like(kernel))
            self.wpsm.weight.copy_(torch.eye(self.n_heads) + kernel_noise * torch.randn(self.n_heads, self.n_heads))
            eye = torch.eye(self.head_kernel_size).repeat(self.n_heads // self.head_kernel_size, 1, 1)
            self.head_kernel.copy_(eye + kernel_noise * torch.randn_like(eye))
        nn.init.trunc_normal_(self.gate.weight, std=init_std, a=-3 * init_std, b=3 * init_std)
        nn.init.zeros_(self.gate.bias)


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, use_qk_conv):
        super().__init__()
        self.attention = Attention(dim, n_heads, use_qk_conv)
        self.feed_forward = FeedForward(dim, 4 * dim, multiple_of)
        self.attention_norm = RMSNorm(dim, eps=norm_eps)
        self.ffn_norm = RMSNorm(dim, eps=norm_eps)

    def forward(self, x, freq_cis):
        h = x + self.attention(self.attention_norm(x), freq_cis)
        return h + self.feed_forward(self.ffn_norm(h))


class Model(nn.Module):
    def __init__(self, vocab_size, dim, n_heads, n_layers, max_seqlen):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(
            [TransformerBlock(dim, n_heads, use_qk_conv=i in mta_layers) for i in range(n_layers)]
        )
        self.norm = RMSNorm(dim, eps=norm_eps)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        self.output.weight = self.tok_embeddings.weight  # weight tying
        self.register_buffer("freq_cis", precompute_freqs_cis(dim // n_heads, max_seqlen, rope_theta),
                             persistent=False)
        init_std = dim ** -0.5
        nn.init.trunc_normal_(self.tok_embeddings.weight, std=init_std, a=-3 * init_std, b=3 * init_std)
        for layer in self.layers:
            layer.attention.reset_parameters(init_std)
            for w in (layer.feed_forward.w1, layer.feed_forward.w3):
                nn.init.trunc_normal_(w.weight, std=init_std, a=-3 * init_std, b=3 * init_std)
            hidden_std = layer.feed_forward.w2.weight.shape[1] ** -0.5
            nn.init.trunc_normal_(layer.feed_forward.w2.weight, std=hidden_std, a=-3 * hidden_std, b=3 * hidden_std)

    def forward(self, token_values):
        h = self.tok_embeddings(token_values)
        for layer in self.layers:
            h = layer(h, self.freq_cis)
        return self.output(self.norm(h))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, dim, n_heads, n_layers, seq_len]
