"""Autoformer probabilistic forecaster (the series is mean-scaled, lagged copies of it plus time features and the
scaler's log1p|loc| and log scale form each step's input, embedded by a bias-free linear layer plus sinusoidal
positions and a LayerNorm; encoder layers replace self-attention by auto-correlation (q / k correlated over all lags
with an rFFT / irFFT, the top-k = int(factor * ln L) delays per sample picked, softmax-weighted sums of v rolled by
those delays, by gather), each residual sub-block followed by a series-decomposition layer (moving-average trend
by AvgPool1d over an edge-padded window, seasonal part = input - trend) that keeps only the seasonal part, and a
"seasonal" LayerNorm (LayerNorm minus its mean over time); the decoder starts from the last label_length steps'
seasonal part (zeros over the horizon) and trend (the context mean over the horizon), runs auto-correlation self-
and cross-attention with decompositions, accumulates the extracted trends through a circular conv1d projection,
and projects the seasonal part back to the feature size; a Student-t head on seasonal + trend over the horizon),
after `huggingface/autoformer-tourism-monthly`.

AutoformerForPrediction, run as in training (future_values given): it returns the Student-t parameters and the
negative log-likelihood of future_values. Output: (loss (), df (2, 24), loc (2, 24), scale (2, 24)).
Deterministic in eval: layerdrop and the batch-averaged delay choice only apply in training.
Layout of the tourism-monthly data the checkpoint was trained on (as in hf_informer.py): monthly series,
prediction_length 24, context_length 24, the monthly lags [1..7, 11, 12, 13, 23, 24, 25, 35, 36, 37], so past
inputs are 24 + 37 = 61 steps; 2 time features (month of year scaled to [-0.5, 0.5], age = log10(2 + t)).
Model sizes: d_model 64, 2 + 2 layers, 2 heads, ffn 32, label_length 10, moving_average 25,
autocorrelation_factor 3 (AutoformerConfig's defaults, the checkpoint's per the library's docs: its config.json
could not be read offline, so they are not checked field by field). The checkpoint's static features (a
series-id embedding) are left out: this file takes the five inputs below.
Inputs: past_values (2, 61), past_time_features (2, 61, 2), past_observed_mask (2, 61) where the second series
starts 10 months into the window (its first 10 values are 0 and unobserved), future_values (2, 24),
future_time_features (2, 24, 2).
"""
import torch
from torch import nn
from transformers import AutoformerConfig, AutoformerForPrediction

batch_size = 2
prediction_length = 24
context_length = 24
lags_sequence = [1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 23, 24, 25, 35, 36, 37]
past_length = context_length + max(lags_sequence)  # 61


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoformerForPrediction(config)

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
    # huggingface/autoformer-tourism-monthly: univariate, Student-t NLL, mean scaling, gelu, dropouts / layerdrop
    # inactive in eval.
    return [AutoformerConfig(
        prediction_length=prediction_length,
        context_length=context_length,
        distribution_output="student_t",
        loss="nll",
        input_size=1,
        lags_sequence=lags_sequence,
        scaling="mean",
        num_time_features=2,
        num_dynamic_real_features=0,
        num_static_categorical_features=0,  # the checkpoint has 1, the series id (left out)
        num_static_real_features=0,
        d_model=64,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_layers=2,
        decoder_layers=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        activation_function="gelu",
        dropout=0.1,
        encoder_layerdrop=0.1,
        decoder_layerdrop=0.1,
        attention_dropout=0.1,
        activation_dropout=0.1,
        num_parallel_samples=100,
        init_std=0.02,
        label_length=10,
        moving_average=25,
        autocorrelation_factor=3,
    )]
