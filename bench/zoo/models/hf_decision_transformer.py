"""Decision Transformer (offline RL as sequence modelling: return-to-go, state and action of each timestep are
embedded by separate linear layers plus a shared timestep embedding, interleaved into a (R_1, s_1, a_1, R_2, ...)
token stream of length 3K and run through a causal GPT-2 without its word/position inputs; actions are
predicted from state tokens through a tanh head), after `edbeeching/decision-transformer-gym-hopper-medium`, shrunk.

Shrunk: 3 layers -> 2. Kept: hidden 128, 1 head, state_dim 11 / act_dim 3 (Hopper), max_ep_len 1000,
relu MLP, action_tanh, context K = 20 steps (60 tokens).
Inputs: states (2, 20, 11), actions (2, 20, 3), returns_to_go (2, 20, 1), timesteps (2, 20) in [0, 1000),
attention_mask (2, 20) whose second sample is right-padded (5 steps). (The library takes `rewards` too but never
embeds them, so they are not passed.)
Output: (state_preds (2, 20, 11), action_preds (2, 20, 3), return_preds (2, 20, 1)).
"""
import torch
from torch import nn
from transformers import DecisionTransformerConfig, DecisionTransformerModel

batch_size = 2
context_len = 20
state_dim = 11
act_dim = 3
max_ep_len = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DecisionTransformerModel(config)

    def forward(self, states, actions, returns_to_go, timesteps, attention_mask):
        out = self.model(
            states=states,
            actions=actions,
            returns_to_go=returns_to_go,
            timesteps=timesteps,
            attention_mask=attention_mask,
        )
        return out.state_preds, out.action_preds, out.return_preds


def get_inputs():
    states = torch.randn(batch_size, context_len, state_dim)
    actions = torch.rand(batch_size, context_len, act_dim) * 2 - 1
    returns_to_go = torch.rand(batch_size, context_len, 1) * 3.6
    start = torch.randint(0, max_ep_len - context_len, (batch_size, 1))
    timesteps = start + torch.arange(context_len)[None, :]
    attention_mask = torch.ones(batch_size, context_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [states, actions, returns_to_go, timesteps, attention_mask]


def get_init_inputs():
    # edbeeching/decision-transformer-gym-hopper-medium config.json. Kept: hidden 128, n_head 1,
    # activation relu, action_tanh True, max_ep_len 1000, n_positions 1024, dropouts 0.1 (off in eval).
    return [DecisionTransformerConfig(
        state_dim=state_dim,  # published 11
        act_dim=act_dim,  # published 3
        hidden_size=128,
        max_ep_len=max_ep_len,
        n_layer=2,  # published 3
        n_head=1,
        activation_function="relu",
        action_tanh=True,
    )]
