"""timm `cait_xxs24_224` at 96 x 96 (pretrained=False): CaiT-XXS-24 (Touvron et al. 2021, "Going deeper with Image
Transformers"): a 16 x 16 patch embedding plus a learned position embedding, then 24 self-attention blocks over
the patch tokens only (no class token yet), each two pre-LayerNorm residual branches scaled per channel by
LayerScale (x + gamma_1 * attn(LN(x)), x + gamma_2 * MLP(LN(x))), with talking-heads attention (Shazeer et al.
2020): the attention logits are mixed across the 4 heads by a learned 4 x 4 linear map (proj_l) before the
softmax and the probabilities mixed again (proj_w) after it. Then the class token is inserted late: 2
class-attention blocks in which only the class token queries (keys / values from the class token and all patch
tokens) and only it goes through the LayerScale'd MLP; final LayerNorm and a linear head on the class token.
Widths: embed_dim 192, 4 heads (head dim 48), MLP ratio 4.

Published config (24 blocks, 2 class-attention blocks, 1000 classes, 12.0M parameters at 224) except the
image size: 96 x 96 instead of 224 x 224 (img_size kwarg: the position embedding is built for the 6 x 6 = 36
patch grid instead of 14 x 14 = 196, so 11.9M parameters); depth kept at 24.

Stand-ins for trained weights (Model.__init__): timm initializes every LayerScale gamma (gamma_1 / gamma_2 of
the 24 blocks and of the 2 class-attention blocks) at init_values = 1e-5, so a freshly built CaiT's residual
branches add ~1e-5 of their output: the logits of two different images differ by ~1e-5 (the class token
barely sees the patches). The gammas are drawn from U(0.5, 1). And its trunc-normal(0.02) init of every Linear
includes the two 4 x 4 talking-heads maps, which then shrink the logits (pre-softmax, so the softmax is
uniform) and the probabilities (post-softmax) ~25x each, leaving the attention branch ~150x weaker than the MLP
branch; proj_l and proj_w are set to identity + N(0, 0.1^2) (biases 0), so each head mostly keeps its own map
and mixes a little of the others'.
Input: RGB images (batch, 3, 96, 96). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 96  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("cait_xxs24_224", pretrained=False, img_size=image_size)
        with torch.no_grad():
            for name, param in self.model.named_parameters():
                if name.endswith(("gamma_1", "gamma_2")):  # LayerScale, init_values 1e-5
                    nn.init.uniform_(param, 0.5, 1.0)
            for block in self.model.blocks:  # talking-heads mixes: near identity instead of trunc-normal(0.02)
                for mix in (block.attn.proj_l, block.attn.proj_w):
                    heads = mix.weight.shape[0]
                    mix.weight.copy_(torch.eye(heads) + 0.1 * torch.randn(heads, heads))
                    nn.init.zeros_(mix.bias)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
