"""OpenAI Privacy Filter (`openai/privacy-filter`, OpenAIPrivacyFilterForTokenClassification), shrunk: a bidirectional
(non-causal) mixture-of-experts encoder that tags every token with a BIES span label of 8 PII categories (33 classes),
derived from the gpt-oss decoder but run as an encoder. Attention: GQA with biases, YaRN RoPE (factor 32 over 4096
original positions), a symmetric banded mask (each token sees sliding_window tokens on either side, nothing beyond,
plus padding masked out), query and key each scaled by head_dim^-1/4 (instead of the scores by head_dim^-1/2), and a
learned per-head attention sink: one extra logit per head joins the softmax and is dropped afterwards, so a query
can put mass "nowhere". MLP: an MoE with a biased linear router in fp32, top-k softmax renormalised and divided by
k, experts with a clamped SwiGLU (gate clamped above at 7, up clamped to [-7, 7], gate * sigmoid(1.702 gate) * (up +
1)), summed in fp32 and multiplied back by k. Pre-RMSNorm residual layers, final RMSNorm, a linear token classifier.

Shrunk: hidden 640 -> 64, 8 layers -> 4, 14 heads (2 kv) of 64 -> 4 heads (2 kv) of 16, 128 experts of width 640
(top-4) -> 16 of width 64 (top-4), sliding window 128 -> 16 (64 tokens, so the band is narrower than the sequence),
vocab 200064 -> 1000 (pad / eos id 199999 -> 0).
Kept: the 33 labels, non-causal banded attention with sinks, the q / k quarter-power scaling, YaRN parameters and
theta 150000, attention biases, the clamped SwiGLU constants, fp32 router and expert accumulation, top-4 routing.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 9. Output: token logits (2, 64, 33).
"""
import torch
from torch import nn
from transformers import OpenAIPrivacyFilterConfig, OpenAIPrivacyFilterForTokenClassification

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OpenAIPrivacyFilterForTokenClassification(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -9:] = 0
    input_ids[1, -9:] = 0  # pad id
    return [input_ids, attention_mask]


def get_init_inputs():
    # openai/privacy-filter (the OpenAIPrivacyFilterConfig defaults), shrunk where commented; rope_parameters left at
    # the class default (YaRN, factor 32, original 4096), num_labels at the default 33 BIES labels.
    return [OpenAIPrivacyFilterConfig(
        vocab_size=vocab_size,  # published 200064
        hidden_size=64,  # published 640
        intermediate_size=64,  # published 640
        num_hidden_layers=4,  # published 8
        num_attention_heads=4,  # published 14
        num_key_value_heads=2,  # published 2
        head_dim=16,  # published 64
        num_local_experts=16,  # published 128
        num_experts_per_tok=4,  # published 4
        sliding_window=16,  # published 128
        pad_token_id=0,  # published 199999 (outside the shrunk vocab)
        eos_token_id=0,
    )]
