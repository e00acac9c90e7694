"""S5 (Smith, Warrington & Linderman, ICLR 2023, "Simplified State Space Layers for Sequence Modeling"): a MIMO
diagonal complex state-space layer evaluated with a parallel (associative) scan, on irregularly sampled sequences
(a per-step time gap rescales the discretisation step, the paper's variable-timescale use). Plain-torch
reference: the complex arithmetic is written out in real / imaginary pairs, and the scan is a Hillis-Steele
log-depth inclusive scan (log2(L) = 8 doubling steps over the whole sequence, each a shifted complex
multiply-add), the form the paper's jax.lax.associative_scan takes on parallel hardware.

Per layer (H = 64 features, P = 32 complex states kept under conjugate symmetry, so the real output is twice the
real part):
    Delta_k = exp(log_step) * gap_k                      per state, per time step (gap_k > 0, from the input)
    Lambda_bar_k = exp(Lambda * Delta_k)                  zero-order hold
    B_bar_k = (Lambda_bar_k - 1) / Lambda * B~            (P, H) complex
    x_k = Lambda_bar_k * x_{k-1} + B_bar_k u_k            the recurrence, as the associative scan of the pairs
                                                          (a_k, b_k) = (Lambda_bar_k, B_bar_k u_k) under
                                                          (a, b) o (a', b') = (a' a, a' b + b')
    y_k = 2 Re(C~ x_k) + D * u_k
Init as the paper: Lambda from the eigendecomposition of the normal part of HiPPO-LegS (block-diagonal, J = 4
blocks of 16, half of each conjugate pair kept), B~ = V^-1 B and C~ = C V with Lecun-normal B, C, D ~ N(0, 1),
log_step ~ U[log 0.001, log 0.1]; eigenvalue real parts kept below -1e-4.
Block (x2, pre-norm, as the paper's S5 sequence layer with its "half GLU" activation):
g = GELU(S5(LayerNorm(x))), x <- x + g * sigmoid(W g); an input encoder Linear(16, 64) and a final LayerNorm.

Inputs: u (2, 256, 16) = (batch, seq, input features), gaps (2, 256): time since the previous sample,
exponential with mean 1 (irregular sampling). Output: (2, 256, 64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 256
d_input = 16
d_model = 64
state_size = 64  # full P; 32 kept under conjugate symmetry
num_blocks = 4  # HiPPO-N blocks (J)
num_layers = 2


def hippo_n_eig(n):
    """Eigenvalues / eigenvectors of the normal part of HiPPO-LegS (size n), as S5's make_DPLR_HiPPO."""
    k = torch.arange(n, dtype=torch.float64)
    p = torch.sqrt(1 + 2 * k)
    a = -(torch.tril(p[:, None] * p[None, :]) - torch.diag(k))
    pp = torch.sqrt(k + 0.5)
    s = a + pp[:, None] * pp[None, :]
    lam_re = torch.diagonal(s).mean() * torch.ones(n, dtype=torch.float64)
    lam_im, v = torch.linalg.eigh(s.to(torch.complex128) * -1j)
    return lam_re + 1j * lam_im, v


class S5SSM(nn.Module):
    def __init__(self, h, p_full, blocks):
        super().__init__()
        bs = p_full // blocks
        lam, v = hippo_n_eig(bs)
        half = bs // 2
        lam, v = lam[:half], v[:, :half]                                   # one of each conjugate pair
        lam = lam.repeat(blocks)
        V = torch.block_diag(*([v] * blocks))                             # (P_full, P)
        Vinv = torch.block_diag(*([v.conj().T] * blocks))                 # (P, P_full)
        b = torch.randn(p_full, h, dtype=torch.float64) / math.sqrt(h)    # Lecun normal
        c = torch.complex(torch.randn(h, p_full, dtype=torch.float64),
                          torch.randn(h, p_full, dtype=torch.float64)) / math.sqrt(p_full)
        b_t = Vinv @ b.to(torch.complex128)                               # (P, H)
        c_t = c @ V                                                       # (H, P)
        self.lambda_re = nn.Parameter(lam.real.float())
        self.lambda_im = nn.Parameter(lam.imag.float())
        self.b_re, self.b_im = nn.Parameter(b_t.real.float()), nn.Parameter(b_t.imag.float())
        self.c_re, self.c_im = nn.Parameter(c_t.real.float()), nn.Parameter(c_t.imag.float())
        self.d = nn.Parameter(torch.randn(h))
        p = lam.shape[0]
        self.log_step = nn.Parameter(torch.empty(p).uniform_(math.log(0.001), math.log(0.1)))

    def forward(self, u, gaps):
        # u (B, L, H), gaps (B, L)
        lr = self.lambda_re.clamp(max=-1e-4)
        li = self.lambda_im
        delta = self.log_step.exp() * gaps[..., None]                     # (B, L, P)
        mag = torch.exp(lr * delta)
        a_re, a_im = mag * torch.cos(li * delta), mag * torch.sin(li * delta)
        # (Lambda_bar - 1) / Lambda
        den = lr * lr + li * li
        g_re = ((a_re - 1) * lr + a_im * li) / den
        g_im = (a_im * lr - (a_re - 1) * li) / den
        bu_re, bu_im = u @ self.b_re.T, u @ self.b_im.T                  # B~ u, (B, L, P)
        b_re = g_re * bu_re - g_im * bu_im
        b_im = g_re * bu_im + g_im * bu_re
        # Hillis-Steele inclusive scan of (a, b) under (a, b) o (a', b') = (a' a, a' b + b')
        L = u.shape[1]
        d = 1
        while d < L:
            pa_re = F.pad(a_re[:, :-d], (0, 0, d, 0), value=1.0)          # identity element (1, 0)
            pa_im = F.pad(a_im[:, :-d], (0, 0, d, 0))
            pb_re = F.pad(b_re[:, :-d], (0, 0, d, 0))
            pb_im = F.pad(b_im[:, :-d], (0, 0, d, 0))
            b_re, b_im = a_re * pb_re - a_im * pb_im + b_re, a_re * pb_im + a_im * pb_re + b_im
            a_re, a_im = a_re * pa_re - a_im * pa_im, a_re * pa_im + a_im * pa_re
            d *= 2
        # x_k = b_k; y = 2 Re(C~ x) + D u
        y = 2 * (b_re @ self.c_re.T - b_im @ self.c_im.T)
        return y + self.d * u


class S5Block(nn.Module):
    def __init__(self, h, p_full, blocks):
        super().__init__()
        self.norm = nn.LayerNorm(h)
        self.ssm = S5SSM(h, p_full, blocks)
        self.glu = nn.Linear(h, h)

    def forward(self, x, gaps):
        y = F.gelu(self.ssm(self.norm(x), gaps))
        return x + y * torch.sigmoid(self.glu(y))


class Model(nn.Module):
    def __init__(self, d_input, d_model, state_size, num_blocks, num_layers):
        super().__init__()
        self.encoder = nn.Linear(d_input, d_model)
        self.layers = nn.ModuleList([S5Block(d_model, state_size, num_blocks) for _ in range(num_layers)])
        self.final_norm = nn.LayerNorm(d_model)

    def forward(self, u, gaps):
        x = self.encoder(u)
        for layer in self.layers:
            x = layer(x, gaps)
        return self.final_norm(x)


def get_inputs():
    u = torch.randn(batch_size, seq_len, d_input)
    gaps = torch.empty(batch_size, seq_len).exponential_(1.0).clamp(min=0.05)
    return [u, gaps]


def get_init_inputs():
    return [d_input, d_model, state_size, num_blocks, num_layers]
