"""HuggingFace configs read as values: which ones they are, the implementations they chose at build time, and
the fields two of them are compared by (hdecomp.decompose.source.config_literal writes one as code and checks
the rebuild with these). Torch-free."""

from __future__ import annotations

from typing import Any

CONFIG_SKIP = {"transformers_version", "_name_or_path", "model_type"}


def is_hf_config(value: Any) -> bool:
    return any(c.__name__ in ("PretrainedConfig", "PreTrainedConfig") and c.__module__.startswith("transformers")
               for c in type(value).__mro__)


def implementations(config: Any) -> dict[str, Any]:
    """{"attn": "sdpa", "experts": "grouped_mm"}: the config's `_X_implementation` choices that are set. Where
    a sub-config chose otherwise, the choice is the dict the constructor takes for it, `{"": "eager",
    "text_config": "sdpa"}` (OmDet-Turbo's text model is built with sdpa before the model sets eager on its
    own config, which a plain `attn_implementation="eager"` would pass down to the text config too)."""
    found = {}
    for key in sorted(vars(config)):
        if key.startswith("_") and key.endswith("_implementation_internal"):
            kind = key[1:-len("_implementation_internal")]
            impl = implementation(config, kind)
            if impl is not None:
                found[kind] = impl
    return found


def implementation(config: Any, kind: str) -> Any:
    """The config's `kind` implementation (a str), or a dict of it and its sub-configs' where they differ."""
    own = getattr(config, f"_{kind}_implementation_internal", None)
    subs = {}
    for key in sorted(getattr(config, "sub_configs", None) or {}):
        sub = getattr(config, key, None)
        if is_hf_config(sub) and sub is not config:
            impl = implementation(sub, kind)
            if impl is not None and impl != own:
                subs[key] = impl
    if not subs:
        return own if isinstance(own, str) else None
    return {"": own, **subs} if isinstance(own, str) else subs


def config_dict(config: Any) -> dict[str, Any]:
    """The config's fields to compare, without the implementations chosen (`implementations` compares those:
    a sub-config its parent built with `attn_implementation=` lists it among its fields too)."""
    d = config.to_dict()
    for k in CONFIG_SKIP:
        d.pop(k, None)
    if not d.get("per_layer_config"):
        # (no layer overrides, as the layer's own view of a heterogeneous config holds them, Step-3.7-Flash's
        # `config.per_layer_config[i]`: a config built with them lists an empty one)
        d.pop("per_layer_config", None)
    return {k: v for k, v in d.items() if not (k.endswith("_implementation") and k[:-len("_implementation")]
                                               in implementations(config))}
