"""Pocket TTS (Kyutai, `eustlb/pocket-tts`, PocketTTSForConditionalGeneration), shrunk: a text-to-speech model that
generates CONTINUOUS audio-codec latents autoregressively (no audio tokens, no codebooks): a causal transformer
backbone reads one sequence [voice-prompt BOS, voice-prompt latents, text tokens, audio BOS, audio latents], where
the voice and audio latents (32-dim frames of the audio tokenizer at 12.5 Hz) enter through their own linear
projections (scattered into the placeholder-token positions; the audio BOS position gets a learnt BOS latent), and
each audio position's hidden state conditions a small flow-matching head that turns noise into the next latent. The
flow head ("LSD", Lagrangian self-distillation) is an MLP of residual blocks with adaptive LayerNorm (shift / scale /
gate from SiLU(cond)), conditioned on the backbone state plus the mean of two sinusoidal-MLP embeddings of the flow
step's start and end times (normalised by the unbiased std, no centring); it predicts the velocity of one Euler step,
so sampling is a few head calls per frame with one backbone call. A linear end-of-speech head reads the same states.
Backbone: pre-LayerNorm, RoPE, MHA, GELU-tanh MLP, final LayerNorm.

This forward is one teacher-forced step of generation: the backbone over the whole sequence, then the flow head on
every audio position (the BOS and all but the last latent, each predicting the next frame) with the given noisy
latents and flow times, and the end-of-speech logits.

Shrunk: backbone hidden 1024 -> 64, 6 layers -> 2, 16 heads -> 4, intermediate 4096 -> 256; flow head hidden 512 ->
64, 6 blocks -> 2, time frequency embedding 256 -> 64.
Kept: vocab 4004 with the special ids 4000-4003, latent_dim 32, flow_type "lsd" (two time conditions), gelu_pytorch_tanh
backbone / silu head activations, layer-norm epsilons, RoPE defaults.
Inputs: input_ids (2, 42) = 1 prompt BOS + 8 voice frames + 16 text tokens + 1 audio BOS + 16 latent positions;
audio_prompt_latents (2, 8, 32); audio_latents (2, 16, 32) (teacher-forced frames); flow_latents (2, 16, 32) (noisy
latents at the flow step); start_times, end_times (2, 16, 1). Outputs: the flow head's velocities (2, 16, 32) and the
end-of-speech logits (2, 42, 1).
"""
import torch
from torch import nn
from transformers import PocketTTSConfig, PocketTTSFlowHeadConfig, PocketTTSForConditionalGeneration

batch_size = 2
num_prompt_frames = 8
num_text_tokens = 16
num_frames = 16
latent_dim = 32
seq_len = 1 + num_prompt_frames + num_text_tokens + 1 + num_frames  # 42
AUDIO_PROMPT, AUDIO_LATENT, AUDIO_PROMPT_BOS, AUDIO_BOS = 4000, 4001, 4002, 4003


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PocketTTSForConditionalGeneration(config)

    def forward(self, input_ids, audio_prompt_latents, audio_latents, flow_latents, start_times, end_times):
        out = self.model(input_ids=input_ids, audio_prompt_latents=audio_prompt_latents, audio_latents=audio_latents,
                         use_cache=False)
        hidden = out.last_hidden_state
        # the audio BOS and every latent but the last: each predicts the next frame
        first = 1 + num_prompt_frames + num_text_tokens
        condition = hidden[:, first:first + num_frames]
        velocity = self.model.flow_head(
            flow_latents.flatten(0, 1), condition.flatten(0, 1),
            times=[start_times.flatten(0, 1), end_times.flatten(0, 1)],
        ).unflatten(0, (hidden.shape[0], num_frames))
        return velocity, out.logits


def get_inputs():
    row = torch.cat([
        torch.tensor([AUDIO_PROMPT_BOS]),
        torch.full((num_prompt_frames,), AUDIO_PROMPT),
        torch.randint(4, 4000, (num_text_tokens,)),
        torch.tensor([AUDIO_BOS]),
        torch.full((num_frames,), AUDIO_LATENT),
    ])
    input_ids = row.repeat(batch_size, 1)
    input_ids[1, 1 + num_prompt_frames:1 + num_prompt_frames + num_text_tokens] = torch.randint(4, 4000,
                                                                                               (num_text_tokens,))
    audio_prompt_latents = torch.randn(batch_size, num_prompt_frames, latent_dim)
    audio_latents = torch.randn(batch_size, num_frames, latent_dim)
    flow_latents = torch.randn(batch_size, num_frames, latent_dim)
    start_times = torch.rand(batch_size, num_frames, 1) * 0.5
    end_times = start_times + 0.25
    return [input_ids, audio_prompt_latents, audio_latents, flow_latents, start_times, end_times]


def get_init_inputs():
    # eustlb/pocket-tts (the PocketTTSConfig / PocketTTSFlowHeadConfig defaults), shrunk where commented.
    flow_head_config = PocketTTSFlowHeadConfig(
        hidden_size=64,  # published 512
        num_hidden_layers=2,  # published 6
        latent_dim=latent_dim,
        condition_dim=64,  # = backbone hidden_size (published 1024)
        frequency_embedding_size=64,  # published 256
        flow_type="lsd",
    )
    return [PocketTTSConfig(
        flow_head_config=flow_head_config,
        hidden_size=64,  # published 1024
        num_hidden_layers=2,  # published 6
        num_attention_heads=4,  # published 16
        intermediate_size=256,  # published 4096
        latent_dim=latent_dim,
    )]
