"""diffusers `PriorTransformer`: the unCLIP / Kandinsky diffusion prior, which denoises a CLIP image embedding
conditioned on the CLIP text encoding. It builds one token sequence from the projected CLIP text hidden states
(one token per prompt token), then one token each for the projected pooled text embedding, the timestep embedding
and the noisy image embedding, and a learned "prd" query token at the end; adds a learned position embedding; runs
a GPT-style decoder stack (pre-LayerNorm self-attention with a causal mask plus the text padding mask, GELU MLP);
the final LayerNorm output of the prd token, projected back to CLIP width, is the predicted (clean) image embedding.

Architecture after kandinsky-community/kandinsky-2-2-prior `prior/config.json`, shrunk: 32 heads x 64 dims
(2048 hidden) -> 2 heads x 64 dims (128 hidden), 20 layers -> 2, embedding_dim 1280 (CLIP ViT-bigG/14 width) -> 64,
num_embeddings (text tokens) 77 -> 8. Kept: additional_embeddings 4 (pooled text, time, image, prd), added_emb_type
"prd", encoder_hid_proj_type "linear", no norm_in / embedding_proj_norm, silu time-embedding activation, dropout 0.
Inputs as KandinskyV22PriorPipeline passes them: the noisy image embedding (batch, 64), timestep (batch,), the
pooled CLIP text embedding (batch, 64), the CLIP text hidden states (batch, 8, 64) and the tokenizer's boolean
attention mask (batch, 8) (the second prompt is padded after 5 tokens).
Output: `.predicted_image_embedding` (batch, 64).
"""
import torch
from torch import nn
from diffusers import PriorTransformer

batch_size = 2
embedding_dim = 64  # published 1280 (CLIP ViT-bigG/14)
num_text_tokens = 8  # published 77


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PriorTransformer(**config)

    def forward(self, hidden_states, timestep, proj_embedding, encoder_hidden_states, attention_mask):
        return self.model(
            hidden_states,
            timestep=timestep,
            proj_embedding=proj_embedding,
            encoder_hidden_states=encoder_hidden_states,
            attention_mask=attention_mask,
        ).predicted_image_embedding


def get_inputs():
    hidden_states = torch.randn(batch_size, embedding_dim)  # noisy CLIP image embedding
    timestep = torch.randint(0, 1000, (batch_size,))
    proj_embedding = torch.randn(batch_size, embedding_dim)  # pooled CLIP text embedding (text_embeds)
    encoder_hidden_states = torch.randn(batch_size, num_text_tokens, embedding_dim)  # CLIP last_hidden_state
    attention_mask = torch.ones(batch_size, num_text_tokens, dtype=torch.bool)
    attention_mask[1, 5:] = False  # second prompt is shorter: padding tokens
    return [hidden_states, timestep, proj_embedding, encoder_hidden_states, attention_mask]


def get_init_inputs():
    return [dict(
        num_attention_heads=2,  # published 32
        attention_head_dim=64,
        num_layers=2,  # published 20
        embedding_dim=embedding_dim,  # published 1280
        num_embeddings=num_text_tokens,  # published 77
        additional_embeddings=4,
        dropout=0.0,
        time_embed_act_fn="silu",
        norm_in_type=None,
        embedding_proj_norm_type=None,
        encoder_hid_proj_type="linear",
        added_emb_type="prd",
        time_embed_dim=None,
        embedding_proj_dim=None,
        clip_embed_dim=None,
    )]
