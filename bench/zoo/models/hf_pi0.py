"""pi0 vision-language-action model (Physical Intelligence: a PaliGemma VLM reads the camera images and the
instruction, and a smaller Gemma "action expert" predicts a chunk of 50 robot actions by flow matching). One
forward = one flow-matching velocity prediction from scratch (the training forward without the loss, or the first
step of sample_actions, whose later steps reuse the prefix cache): the prefix (SigLIP features of every camera,
scattered into the image-token slots, then the prompt) runs through the PaliGemma Gemma with bidirectional
attention and fills a KV cache; the suffix (the robot state projected to one token, then 50 noisy-action tokens
each concatenated with a sinusoidal embedding of the flow time and mixed by a SiLU MLP) runs through the action
expert, whose every layer attends to the VLM's cached keys / values of the same layer plus its own tokens (block
mask: the state token sees the prefix, the action tokens see the prefix, the state and each other bidirectionally);
a linear head maps the action tokens to the predicted velocity), after `lerobot/pi0_base`, shrunk.

PI0ForConditionalGeneration with state, noise and timestep given (so nothing is sampled in the forward); output
the predicted flow velocity `.logits` (2, 50, 32). (The action expert's own token-embedding table, which the
library builds for the Gemma it instantiates, is never read: it takes embeddings.)
Shrunk: images 224 -> 112 (8 x 8 = 64 patches of 14, so 64 image tokens per camera), SigLIP hidden 1152 -> 64,
27 layers -> 2, 16 heads -> 4, intermediate 4304 -> 256; PaliGemma Gemma hidden 2048 -> 128, 18 layers -> 2,
8 heads -> 4 (1 kv head kept), head_dim 256 -> 32, intermediate 16384 -> 512, vocab 257152 -> 1024 (image token
257152 -> 1024, one past the vocabulary as published: it is masked before the embedding lookup); action expert
hidden 1024 -> 64, 18 layers -> 2 (it must match the VLM's layer count, heads, kv heads and head_dim, whose
caches it reads), intermediate 4096 -> 256; projection_dim 2048 -> 128. Kept: chunk_size 50, state and action
dims 32, the sinusoid periods 0.004 ... 4.
Inputs, as PI0Processor lays them out: two camera slots, the second sample with one camera only
(pixel_attention_mask False for its second slot, whose pixels are zeros); input_ids = 64 image tokens per
camera, bos, the instruction, "\n", right-padded to the longer sample (144 tokens); attention_mask; state (2, 32);
noise (2, 50, 32); flow time (2,) in (0, 1].
"""
import torch
from torch import nn
from transformers import GemmaConfig, PaliGemmaConfig, PI0Config, PI0ForConditionalGeneration, SiglipVisionConfig

batch_size = 2
image_size = 112
patch_size = 14
tokens_per_image = (image_size // patch_size) ** 2  # 64
max_cameras = 2
num_cameras = [2, 1]
prompt_lens = [14, 20]
seq_len = 144  # longest prefix: 2 * 64 image tokens + bos + 14 + "\n"
chunk_size = 50
max_state_dim = 32
max_action_dim = 32
vocab_size = 1024
image_token_id = vocab_size
pad_token_id, eos_token_id, bos_token_id, newline_id = 0, 1, 2, 108


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PI0ForConditionalGeneration(config)

    def forward(self, state, noise, timestep, input_ids, pixel_values, pixel_attention_mask, attention_mask):
        return self.model(
            state=state,
            noise=noise,
            timestep=timestep,
            input_ids=input_ids,
            pixel_values=pixel_values,
            pixel_attention_mask=pixel_attention_mask,
            attention_mask=attention_mask,
        ).logits


def get_inputs():
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    pixel_values = torch.zeros(batch_size, max_cameras, 3, image_size, image_size)
    pixel_attention_mask = torch.zeros(batch_size, max_cameras, dtype=torch.bool)
    for i, (cams, n_prompt) in enumerate(zip(num_cameras, prompt_lens, strict=True)):
        n_img = cams * tokens_per_image
        prompt = torch.randint(3, vocab_size, (n_prompt,))
        ids = torch.cat([torch.full((n_img,), image_token_id), torch.tensor([bos_token_id]), prompt,
                         torch.tensor([newline_id])])
        input_ids[i, : len(ids)] = ids
        attention_mask[i, : len(ids)] = 1
        pixel_values[i, :cams] = torch.rand(cams, 3, image_size, image_size) * 2 - 1  # SigLIP: [-1, 1]
        pixel_attention_mask[i, :cams] = True
    state = torch.randn(batch_size, max_state_dim)  # normalised robot state, zero-padded in the processor
    state[:, 14:] = 0  # a 14-dof robot (two 7-dof arms)
    noise = torch.randn(batch_size, chunk_size, max_action_dim)
    timestep = torch.tensor([0.9, 0.35])
    return [state, noise, timestep, input_ids, pixel_values, pixel_attention_mask, attention_mask]


def get_init_inputs():
    # lerobot/pi0_base (the PI0Config sub-config defaults). Kept: SigLIP patch 14, no vision head; Gemma MQA
    # (1 kv head) in both the VLM and the action expert, gelu_pytorch_tanh, rms_norm_eps 1e-6, RoPE theta 1e4,
    # pad 0 / eos 1 / bos 2; chunk_size 50, max_state_dim = max_action_dim = 32, min_period 4e-3, max_period 4.
    vision_config = SiglipVisionConfig(
        hidden_size=64,  # published 1152
        intermediate_size=256,  # published 4304
        num_hidden_layers=2,  # published 27
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 224
        patch_size=patch_size,
        vision_use_head=False,
    )
    text_config = GemmaConfig(
        vocab_size=vocab_size,  # published 257152
        hidden_size=128,  # published 2048
        intermediate_size=512,  # published 16384
        num_hidden_layers=2,  # published 18
        num_attention_heads=4,  # published 8
        num_key_value_heads=1,
        head_dim=32,  # published 256
    )
    vlm_config = PaliGemmaConfig(
        vision_config=vision_config,
        text_config=text_config,
        projection_dim=128,  # published 2048
        image_token_id=image_token_id,  # published 257152
    )
    dit_config = GemmaConfig(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        num_hidden_layers=2,  # published 18
        num_attention_heads=4,  # published 8
        num_key_value_heads=1,
        head_dim=32,  # published 256
    )
    return [PI0Config(vlm_config=vlm_config, dit_config=dit_config)]
