"""DiffusionGemma block-diffusion LM (`google/diffusiongemma-26B-A4B-it`, DiffusionGemmaForBlockDiffusion), shrunk:
one denoising step of a text diffusion model that writes a whole block ("canvas") of tokens at a time. A causal Gemma
4 style encoder prefills the prompt into a KV cache; a decoder with the same (tied) weights then reads the noisy
canvas and attends bidirectionally over the cached prompt keys / values plus the canvas itself (the decoder appends
its keys / values to the cache's without writing them back) and predicts every canvas token at once.
Self-conditioning: the previous step's canvas logits are softmaxed and multiplied by the (scaled) embedding table into
soft embeddings, passed through a pre-RMSNorm GeGLU MLP, added to the canvas embeddings and RMS-normalised (no scale)
before the first layer. Every layer (encoder and decoder alike) is Gemma 4's: sandwich RMSNorms around attention and
feed-forward, q / k RMSNorm with attention scale 1 and an unweighted RMSNorm on v, sliding-window layers (head_dim h,
theta 1e4 RoPE) interleaved with global layers of twice the head dim whose values are their keys (no v_proj: K = V
before the norms) and whose RoPE is "proportional" on a quarter of the head (theta 1e6); the feed-forward is a dense
GeGLU MLP plus, in parallel, a MoE over the pre-MLP residual (router: unweighted RMSNorm x learned scale x
hidden^-1/2, softmax, top-k renormalised, times a per-expert scale; GeGLU experts on their own pre-norm), the two
branch outputs post-normed and summed, then post-normed again into the residual (x a layer scalar). Embeddings scaled
by sqrt(hidden); final RMSNorm, LM head tied to the embedding, logits soft-capped at 30.

Shrunk: hidden 2304 -> 64, 30 layers -> 3 (sliding, sliding, global; published 5:1 with a global last layer), 8 heads
(4 kv) of 256 (global 512) -> 4 (2) of 16 (global 32), intermediate 9216 -> 128, MoE 8 experts top-2 of width 32 (the
class leaves the MoE sizes to the checkpoint), sliding window 512 -> 16, vocab 262144 -> 1000, canvas 256 -> 16 tokens
after a 32-token prompt. The Gemma 4 vision tower and its embedder (run only for image prompts, outside this forward)
are built tiny and then dropped: the prompt is text only.
Kept: gelu_pytorch_tanh, rms_norm_eps 1e-6, final_logit_softcapping 30, RoPE parameters per layer type, tied weights
(encoder = decoder layers, LM head = embeddings), causal encoder (use_bidirectional_attention unset).
Inputs: prompt input_ids (2, 32) with the second sample left-padded by 4 and its attention_mask; the canvas
decoder_input_ids (2, 16); the previous step's self_conditioning_logits (2, 16, 1000); decoder_attention_mask (2, 48)
over prompt + canvas. Outputs: the canvas logits (2, 16, 1000) and the encoder's last hidden state (2, 32, 64).
"""
import torch
from torch import nn
from transformers import (
    DiffusionGemmaConfig,
    DiffusionGemmaForBlockDiffusion,
    DiffusionGemmaTextConfig,
    Gemma4VisionConfig,
)

batch_size = 2
seq_len = 32
canvas_len = 16
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DiffusionGemmaForBlockDiffusion(config)
        # text-only prompts: the vision tower is never run by the block-diffusion forward
        del self.model.model.encoder.vision_tower
        del self.model.model.encoder.embed_vision

    def forward(self, input_ids, attention_mask, decoder_input_ids, self_conditioning_logits, decoder_attention_mask):
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
            self_conditioning_logits=self_conditioning_logits,
            decoder_attention_mask=decoder_attention_mask,
        )
        return out.logits, out.encoder_last_hidden_state


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 2  # <bos>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :4] = pad_token_id
    attention_mask[1, :4] = 0
    decoder_input_ids = torch.randint(3, vocab_size, (batch_size, canvas_len))
    self_conditioning_logits = torch.randn(batch_size, canvas_len, vocab_size)
    decoder_attention_mask = torch.cat([attention_mask, torch.ones(batch_size, canvas_len, dtype=torch.long)], dim=1)
    return [input_ids, attention_mask, decoder_input_ids, self_conditioning_logits, decoder_attention_mask]


def get_init_inputs():
    # google/diffusiongemma-26B-A4B-it (the DiffusionGemmaTextConfig defaults). Kept: gelu_pytorch_tanh, eps 1e-6,
    # final_logit_softcapping 30, rope_parameters per layer type (sliding theta 1e4; global proportional, partial
    # 0.25, theta 1e6), global head dim 2x the local one, tied embeddings, pad 0 / eos 1 / bos 2.
    text_config = DiffusionGemmaTextConfig(
        vocab_size=vocab_size,  # published 262144
        hidden_size=64,  # published 2304
        intermediate_size=128,  # published 9216
        num_hidden_layers=3,  # published 30
        layer_types=["sliding_attention", "sliding_attention", "full_attention"],  # published 5:1
        num_attention_heads=4,  # published 8
        num_key_value_heads=2,  # published 4
        head_dim=16,  # published 256
        global_head_dim=32,  # published 512
        sliding_window=16,  # published 512
        num_experts=8,  # unset in the class
        top_k_experts=2,
        moe_intermediate_size=32,
    )
    vision_config = Gemma4VisionConfig(  # built, then dropped by Model (text-only prompts)
        hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
        head_dim=8, position_embedding_size=16,
    )
    return [DiffusionGemmaConfig(
        text_config=text_config,
        vision_config=vision_config,
        canvas_length=canvas_len,  # published 256
    )]
