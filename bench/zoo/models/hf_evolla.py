"""Evolla protein-language model (`westlake-repl/Evolla-10B-hf`, EvollaForProteinText2Text), shrunk: a LLaMA-3
decoder that answers questions about a protein, reading it through cross-attention. Protein side: SaProt, an
ESM-2-style bidirectional encoder over structure-aware tokens (each residue token fuses an amino acid with a Foldseek
3Di structure letter: 446-token vocab; RoPE, pre-LayerNorm, GELU MLP, ESM token-dropout rescaling of the
embeddings), then a Perceiver-style "sequence compressor" resampler: a fixed set of learned latents repeatedly
cross-attends to [protein states ; latents] (LayerNorm'd media and latents, masked protein padding) with a GELU
feed-forward, and the latents are projected to the LLM width and LayerNorm'd: every protein, whatever its length,
becomes num_latents vectors. Text side: a LLaMA decoder (RMSNorm, GQA with RoPE theta 5e5, SwiGLU) in which every
(num_layers / aligner_num_add_layers)-th layer is followed by a "sequence aligner": text queries (RMSNorm'd) attend to
the protein latents (separate key / value projections per modality: protein, and optionally structure / MSA
features), the result and then a GELU feed-forward are added back through tanh-gated residuals (Flamingo-style
gates). Untied LM head.

Shrunk: LLM hidden 4096 -> 64, 32 layers -> 4, 32 heads (8 kv) -> 4 (2 kv), intermediate 14336 -> 128, vocab 128256 ->
1000 (bos / eos 128000 / 128009 -> 1 / 2), aligner layers 8 (every 4th of 32) -> 2 (every 2nd of 4); resampler depth
6 -> 2, 8 heads of 64 -> 4 of 16, 64 latents -> 16; SaProt hidden 1280 -> 64, 33 layers -> 2, 20 heads -> 4,
intermediate 5120 -> 128.
Kept: the SaProt vocab (446) and pad id 1, token dropout rescaling, rotary positions, resampler ff_mult 4, aligner
ffn_mult 4 with biases, rope theta 5e5, silu.
The aligner gates (gate_attention, gate_ffw) are zero-initialised, so a fresh model ignores the protein (tanh(0) = 0)
until trained; as a stand-in for trained weights they are set to 0.5 here so the output depends on both inputs.
Inputs: input_ids (2, 32) with attention_mask (second sample right-padded by 5); protein_input_ids (2, 48) with
protein_attention_mask (second protein 40 residues, padded with id 1). Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import EvollaConfig, EvollaForProteinText2Text

batch_size = 2
seq_len = 32
protein_len = 48
vocab_size = 1000
protein_vocab_size = 446


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = EvollaForProteinText2Text(config)
        with torch.no_grad():
            for layer in self.model.model.layers:
                if hasattr(layer, "adapter"):
                    layer.adapter.gate_attention.fill_(0.5)
                    layer.adapter.gate_ffw.fill_(0.5)

    def forward(self, input_ids, attention_mask, protein_input_ids, protein_attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, protein_input_ids=protein_input_ids,
                          protein_attention_mask=protein_attention_mask, use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    # structure-aware tokens (ids 5.. are residue x 3Di letter combinations; 0 <cls>, 1 <pad>, 2 <eos>)
    protein_input_ids = torch.randint(5, protein_vocab_size, (batch_size, protein_len))
    protein_input_ids[:, 0] = 0
    protein_attention_mask = torch.ones(batch_size, protein_len, dtype=torch.long)
    protein_input_ids[1, 39] = 2
    protein_input_ids[1, 40:] = 1
    protein_attention_mask[1, 40:] = 0
    protein_input_ids[0, -1] = 2
    return [input_ids, attention_mask, protein_input_ids, protein_attention_mask]


def get_init_inputs():
    # westlake-repl/Evolla-10B-hf (the EvollaConfig / SaProtConfig defaults), shrunk where commented.
    # (SaProtConfig is not exported at the top level of transformers: passed as a dict, EvollaConfig builds it)
    protein_encoder_config = dict(
        vocab_size=protein_vocab_size,
        hidden_size=64,  # published 1280
        num_hidden_layers=2,  # published 33
        num_attention_heads=4,  # published 20
        intermediate_size=128,  # published 5120
    )
    return [EvollaConfig(
        protein_encoder_config=protein_encoder_config,
        vocab_size=vocab_size,  # published 128256
        hidden_size=64,  # published 4096
        intermediate_size=128,  # published 14336
        num_hidden_layers=4,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        aligner_num_add_layers=2,  # published 8
        resampler_depth=2,  # published 6
        resampler_dim_head=16,  # published 64
        resampler_heads=4,  # published 8
        resampler_num_latents=16,  # published 64
        bos_token_id=1,  # published 128000
        eos_token_id=2,  # published 128009
    )]
