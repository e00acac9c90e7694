"""Phi-3.5-MoE decoder LM (Microsoft 2024, Phi-3 technical report, arXiv 2404.14219; routing from Liu et al. 2024,
"GRIN: GRadient-INformed MoE", arXiv 2409.12136), after `microsoft/Phi-3.5-MoE-instruct`, shrunk.

PhimoeForCausalLM. Pre-norm blocks with LayerNorm (not RMSNorm; weight and bias, eps 1e-5), GQA self-attention with
q/k/v/o biases and LongRoPE position embeddings (rope_type "longrope": the inverse frequencies are divided by
per-frequency rescale factors and cos/sin are multiplied by an mscale, 1.2432 published for both the short and the
long range). In this transformers version every forward first runs the longrope `dynamic_rope_update` hook (it
picks the long or short inverse frequencies with torch.where on max(position_ids) + 1 > 4096 and copies them in
place into the rotary `inv_freq` buffer), then PhimoeRotaryEmbedding.forward recomputes the inverse frequencies from
the config with the short factors and picks long_mscale / short_mscale with a Python branch on the same tensor
comparison. There is also a sparse MoE MLP of 16 SwiGLU experts with top-2 "sparsemixer" routing: the first
expert is the router argmax, its gate weight is the softmax over the scores that lie within a relative 2 *
router_jitter_noise of the max; the second expert is the argmax after masking the first, weighted the same way
against its own masked set (in eval mode no Gumbel sampling, no Heun's-method gradient, no input jitter).
LM head with a bias, untied.
Shrunk: hidden 4096 -> 256, 32 layers -> 2, 32 heads -> 8, 8 kv heads -> 2 (the published 4:1 GQA ratio kept),
head_dim 128 -> 32, expert intermediate 6400 -> 400 (the published 1.5625x hidden kept), vocab 32064 -> 1000.
16 experts and top-2 are kept. The LongRoPE factor lists (one per rotary frequency, 64 published) are subsampled
to every 4th entry: with head_dim 32, frequency i is theta^(-2i/32) = theta^(-2(4i)/128), the published frequency
4i, so each kept frequency keeps its published factor.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens. The published pad / eos
(<|endoftext|> = 32000) lies outside the shrunk vocab, so it is remapped to 3. 64 tokens < 4096, so the short
factors are used (the path every prompt below 4k tokens takes). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import PhimoeConfig, PhimoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 3  # published 32000
eos_token_id = 3  # published 32000
head_dim = 32  # published 128

# microsoft/Phi-3.5-MoE-instruct config.json rope_scaling, all 64 published entries (one per rotary frequency).
PUBLISHED_LONG_FACTOR = [
    1.0199999809265137, 1.0299999713897705, 1.0399999618530273, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.059999942779541, 1.059999942779541, 1.059999942779541, 1.059999942779541,
    1.059999942779541, 1.059999942779541, 1.0999999046325684, 1.1799999475479126, 1.1799999475479126,
    1.3700000047683716, 1.4899998903274536, 2.109999895095825, 2.8899998664855957, 3.9499998092651367,
    4.299999713897705, 6.429999828338623, 8.09000015258789, 10.690000534057617, 12.050000190734863,
    18.229999542236328, 18.84000015258789, 19.899999618530273, 21.420000076293945, 26.200000762939453,
    34.28000259399414, 34.590003967285156, 38.730003356933594, 40.22000503540039, 42.54000473022461,
    44.000003814697266, 47.590003967285156, 54.750003814697266, 56.19000244140625, 57.44000244140625,
    57.4900016784668, 61.20000076293945, 61.540000915527344, 61.75, 61.779998779296875,
    62.06999969482422, 63.11000061035156, 63.43000030517578, 63.560001373291016, 63.71000289916992,
    63.92000198364258, 63.94000244140625, 63.94000244140625, 63.96000289916992, 63.980003356933594,
    64.0300064086914, 64.0300064086914, 64.0300064086914, 64.04000854492188, 64.10000610351562,
    64.19000244140625, 64.20999908447266, 64.75, 64.95999908447266,
]
PUBLISHED_SHORT_FACTOR = [
    1.0, 1.0399999618530273, 1.0399999618530273, 1.0399999618530273, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.059999942779541,
    1.059999942779541, 1.0699999332427979, 1.0699999332427979, 1.0699999332427979, 1.0699999332427979,
    1.1399999856948853, 1.159999966621399, 1.159999966621399, 1.159999966621399, 1.159999966621399,
    1.1799999475479126, 1.1999999284744263, 1.3199999332427979, 1.3399999141693115, 1.3499999046325684,
    1.3999998569488525, 1.4799998998641968, 1.4999998807907104, 1.589999794960022, 1.6499998569488525,
    1.71999990940094, 1.8999998569488525, 1.9099998474121094, 1.9099998474121094, 1.9899998903274536,
    1.9999998807907104, 1.9999998807907104, 2.009999990463257, 2.009999990463257, 2.009999990463257,
    2.009999990463257, 2.009999990463257, 2.009999990463257, 2.009999990463257, 2.009999990463257,
    2.009999990463257, 2.009999990463257, 2.009999990463257, 2.009999990463257, 2.009999990463257,
    2.009999990463257, 2.009999990463257, 2.009999990463257, 2.009999990463257, 2.0999999046325684,
    2.319999933242798, 2.419999837875366, 2.5899999141693115, 2.7899999618530273,
]
_stride = 128 // head_dim  # published head_dim / shrunk head_dim


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PhimoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/Phi-3.5-MoE-instruct config.json. Kept: silu, LayerNorm eps 1e-5 (the rms_norm_eps field),
    # attention_bias and lm_head_bias on, rope_theta 1e4, longrope with original_max_position_embeddings 4096 and
    # long / short mscale 1.243163121016122, max_position_embeddings 131072, sliding_window 131072,
    # 16 local experts, top-2, router_jitter_noise 0.01 (the sparsemixer threshold), input_jitter_noise 0.01
    # (training only), router_aux_loss_coef 0, attention_dropout 0, initializer_range 0.02, untied head, bos 1.
    return [PhimoeConfig(
        vocab_size=vocab_size,  # published 32064
        hidden_size=256,  # published 4096
        intermediate_size=400,  # published 6400 (per expert)
        num_hidden_layers=2,  # published 32
        num_attention_heads=8,  # published 32
        num_key_value_heads=2,  # published 8
        hidden_act="silu",
        max_position_embeddings=131072,
        initializer_range=0.02,
        rms_norm_eps=1e-5,
        rope_parameters={
            "rope_type": "longrope",
            "rope_theta": 10000.0,
            "original_max_position_embeddings": 4096,
            "long_factor": PUBLISHED_LONG_FACTOR[::_stride],  # published: 64 entries (head_dim 128)
            "short_factor": PUBLISHED_SHORT_FACTOR[::_stride],  # published: 64 entries (head_dim 128)
            "long_mscale": 1.243163121016122,
            "short_mscale": 1.243163121016122,
        },
        sliding_window=131072,
        attention_dropout=0.0,
        num_experts_per_tok=2,
        num_local_experts=16,
        router_aux_loss_coef=0.0,
        router_jitter_noise=0.01,
        input_jitter_noise=0.01,
        attention_bias=True,
        lm_head_bias=True,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 32000
        bos_token_id=1,
        eos_token_id=eos_token_id,  # published 32000
    )]
