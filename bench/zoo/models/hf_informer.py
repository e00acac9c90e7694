"""Informer probabilistic forecaster (the series is mean-scaled, lagged copies of it plus time features and the
scaler's log1p|loc| and log scale form each step's input, linearly embedded with sin-cos positions; encoder layers
use ProbSparse self-attention (queries scored against a random sample of keys, only the top-u "active" queries
attend, the others take the mean of the values), each followed by a distilling conv layer (circular conv1d,
BatchNorm, ELU, stride-2 max-pool) that halves the sequence; decoder with ProbSparse self-attention and full
cross-attention; a Student-t head whose (df, loc, scale) give the forecast distribution), after
`huggingface/informer-tourism-monthly`.

InformerForPrediction, run as in training (future_values given): it returns the Student-t parameters and the
negative log-likelihood of future_values. Output: (loss (), df (2, 24), loc (2, 24), scale (2, 24)).
NOT deterministic: InformerProbSparseAttention draws the sampled keys with torch.randint in every forward
(in eval too), so two forwards on the same inputs differ unless the global RNG is reseeded before each.
With 24 encoder steps, 5 * ceil(ln 25) = 20 of the 24 queries are active in the first encoder layer and in the
decoder's self-attention; after distilling to 12 steps, all queries of the second encoder layer are.
Layout of the tourism-monthly data the checkpoint was trained on: monthly series, prediction_length 24,
context_length 24, the monthly lags [1..7, 11, 12, 13, 23, 24, 25, 35, 36, 37], so past inputs are
24 + 37 = 61 steps; 2 time features (month of year scaled to [-0.5, 0.5], age = log10(2 + t)).
Model sizes: d_model 64, 2 + 2 layers, 2 heads, ffn 32, sampling_factor 5, distil (InformerConfig's defaults,
which the library documents as similar to this checkpoint: its config.json could not be read offline, so
they are not checked field by field). The checkpoint's static features (a series-id embedding and one static
real) are left out: this file takes the five inputs below.
Inputs: past_values (2, 61), past_time_features (2, 61, 2), past_observed_mask (2, 61) where the second series
starts 10 months into the window (its first 10 values are 0 and unobserved), future_values (2, 24),
future_time_features (2, 24, 2).
"""
import torch
from torch import nn
from transformers import InformerConfig, InformerForPrediction

batch_size = 2
prediction_length = 24
context_length = 24
lags_sequence = [1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 23, 24, 25, 35, 36, 37]
past_length = context_length + max(lags_sequence)  # 61


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = InformerForPrediction(config)

    def forward(self, past_values, past_time_features, past_observed_mask, future_values, future_time_features):
        out = self.model(
            past_values=past_values,
            past_time_features=past_time_features,
            past_observed_mask=past_observed_mask,
            future_values=future_values,
            future_time_features=future_time_features,
        )
        return (out.loss, *out.params)


def _time_features(start, length):
    # month of year scaled to [-0.5, 0.5] and the age feature log10(2 + t), as the tourism-monthly pipeline adds
    t = torch.arange(start, start + length, dtype=torch.float32)
    month = (t % 12) / 11.0 - 0.5
    age = torch.log10(2.0 + t)
    return torch.stack([month, age], dim=-1)


def get_inputs():
    # monthly tourism counts: a level per series, a yearly season and noise
    t = torch.arange(past_length + prediction_length, dtype=torch.float32)
    level = torch.rand(batch_size, 1) * 5000 + 1000
    series = level * (1 + 0.3 * torch.sin(2 * torch.pi * t / 12)) * (1 + 0.05 * torch.randn(batch_size, t.numel()))
    past_values = series[:, :past_length].clone()
    future_values = series[:, past_length:].clone()
    past_observed_mask = torch.ones(batch_size, past_length)
    past_values[1, :10] = 0.0  # series 1 starts 10 months into the window: padded, unobserved
    past_observed_mask[1, :10] = 0.0
    time_features = _time_features(0, past_length + prediction_length)
    past_time_features = time_features[:past_length].expand(batch_size, -1, -1).clone()
    future_time_features = time_features[past_length:].expand(batch_size, -1, -1).clone()
    return [past_values, past_time_features, past_observed_mask, future_values, future_time_features]


def get_init_inputs():
    # huggingface/informer-tourism-monthly: univariate, Student-t NLL, mean scaling, ProbSparse attention with
    # sampling_factor 5, distilling, gelu, dropouts / layerdrop inactive in eval.
    return [InformerConfig(
        prediction_length=prediction_length,
        context_length=context_length,
        input_size=1,
        lags_sequence=lags_sequence,
        num_time_features=2,
        num_dynamic_real_features=0,
        num_static_real_features=0,  # the checkpoint has 1 (left out)
        num_static_categorical_features=0,  # the checkpoint has 1, the series id (left out)
        distribution_output="student_t",
        loss="nll",
        scaling="mean",
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        activation_function="gelu",
        dropout=0.05,
        encoder_layerdrop=0.1,
        decoder_layerdrop=0.1,
        attention_dropout=0.1,
        activation_dropout=0.1,
        num_parallel_samples=100,
        init_std=0.02,
        attention_type="prob",
        sampling_factor=5,
        distil=True,
    )]
