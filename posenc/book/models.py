"""Published RoPE settings of well-known models and how each one's scaling reshapes the per-pair
wavelengths against its trained length: the model table of chapter 10 and its explorer.

Teaching material (tooling): the numbers were copied by hand from the models' configs and papers;
the library's :class:`~posenc.scaling.RopeScaling` does the arithmetic
(:meth:`~posenc.scaling.RopeScaling.from_hf`, :meth:`~posenc.scaling.RopeScaling.inv_freq`).

- :data:`MODEL_ROPE_CONFIGS`: one row per model.
- :data:`SCALING_EXAMPLES`: the scalings by name on one common setting.
- :func:`scaled_wavelengths`: per-pair wavelengths before and after a row's (or an example's) scaling.
"""

from __future__ import annotations

import math

import torch

from posenc import DynamicScaling, LongRopeScaling, RopeScaling, rope_inv_freq
from posenc._core.validate import check_choice, check_even, check_int

__all__ = ["MODEL_ROPE_CONFIGS", "SCALING_EXAMPLES", "scaled_wavelengths"]

#: Phi-3's published LongRoPE factor lists (48 pairs, head_dim 96), from the config.json of
#: microsoft/Phi-3-vision-128k-instruct (``rope_scaling``, type ``"su"``, later renamed ``"longrope"``).
_PHI3_SHORT = (
    [1.05] * 3
    + [1.1] * 3
    + [1.2500000000000002] * 2
    + [1.4000000000000004, 1.4500000000000004, 1.5500000000000005, 1.8500000000000008, 1.9000000000000008]
    + [2.000000000000001] * 19
    + [2.1000000000000005] * 2
    + [2.2]
    + [2.3499999999999996] * 4
    + [2.3999999999999995] * 2
    + [2.6499999999999986, 2.6999999999999984, 2.8999999999999977, 2.9499999999999975]
    + [3.049999999999997] * 3
)
_PHI3_LONG = [
    1.0299999713897705,
    1.0499999523162842,
    1.0499999523162842,
    1.0799999237060547,
    1.2299998998641968,
    1.2299998998641968,
    1.2999999523162842,
    1.4499999284744263,
    1.5999999046325684,
    1.6499998569488525,
    1.8999998569488525,
    2.859999895095825,
    3.68999981880188,
    5.419999599456787,
    5.489999771118164,
    5.489999771118164,
    9.09000015258789,
    11.579999923706055,
    15.65999984741211,
    15.769999504089355,
    15.789999961853027,
    18.360000610351562,
    21.989999771118164,
    23.079999923706055,
    30.009998321533203,
    32.35000228881836,
    32.590003967285156,
    35.56000518798828,
    39.95000457763672,
    53.840003967285156,
    56.20000457763672,
    57.95000457763672,
    59.29000473022461,
    59.77000427246094,
    59.920005798339844,
    61.190006256103516,
    61.96000671386719,
    62.50000762939453,
    63.3700065612793,
    63.48000717163086,
    63.48000717163086,
    63.66000747680664,
    63.850006103515625,
    64.08000946044922,
    64.760009765625,
    64.80001068115234,
    64.81001281738281,
    64.81001281738281,
]

#: Published RoPE settings of well-known models, from each model's config.json on the Hugging Face
#: Hub (or its paper where the config omits a default). Keys per entry: ``model`` (display name),
#: ``method`` (one line), ``head_dim``, ``rotary_dim`` (the rotated width), ``rope_theta``,
#: ``max_position_embeddings``, ``rope_scaling`` (None or Hugging Face's ``rope_parameters`` minus
#: ``rope_theta``), ``extra`` (other position-related fields), ``trained_length`` and ``source`` (a
#: references.bib key).
#:
#: ``trained_length``, one definition for every row: the longest sequences the model was trained on,
#: in any stage (a long-context stage included), as its source states it; None where the source does
#: not say. It is not the scaling's ``original_max_position_embeddings``. ``trained_length_before``
#: (optional): the training length of the stage before that extension, where the source names one
#: (Code Llama: Llama 2's 4096; Llama 3.1: 8192 before its 128K stage; DeepSeek-V2: 4096 before its
#: 32K YaRN stage; DeepSeek-V3: 4096 before its 32K and 128K stages; Gemma 3: 32K before its 128K
#: stage). ``base_before`` (optional): the base the model was pre-trained with before it was raised.
#: The numbers were copied by hand from the sources; ``tests/test_rope_today.py`` checks that Hugging
#: Face's RoPE initialisation given these numbers agrees with posenc, not that the numbers match the
#: published configs.
#:
#: Rows whose layer types differ list the RoPE setting of the config's top-level ``rope_parameters``
#: (``rope_theta`` and ``rope_scaling``) and describe the other layer type in ``extra``: Gemma 3, its
#: global (full-attention) layers (the local layers' base is ``extra["rope_local_base_freq"]``);
#: gpt-oss, both layer types (one RoPE); SmolLM3 and Llama 4, their RoPE layers. In Llama 4 those are
#: the chunked, local layers (``attention_chunk_size`` 8192 tokens): its global (full-attention)
#: layers are the NoPE ones (transformers' ``Llama4TextConfig.layer_types``).
MODEL_ROPE_CONFIGS: dict[str, dict] = {
    "gpt-neox-20b": dict(
        model="GPT-NeoX-20B",
        method="partial rotary (rotary_pct 0.25), half layout",
        head_dim=96,
        rotary_dim=24,
        rope_theta=10000.0,
        max_position_embeddings=2048,
        rope_scaling=None,
        extra={"rotary_pct": 0.25},
        trained_length=2048,
        source="black2022gptneox",
    ),
    "llama-2-7b": dict(
        model="Llama 2 7B",
        method="RoPE",
        head_dim=128,
        rotary_dim=128,
        rope_theta=10000.0,
        max_position_embeddings=4096,
        rope_scaling=None,
        extra={},
        trained_length=4096,
        source="touvron2023llama2",
    ),
    "code-llama-7b": dict(
        model="Code Llama 7B",
        method="RoPE, base raised to 1e6 for 16k fine-tuning",
        head_dim=128,
        rotary_dim=128,
        rope_theta=1000000.0,
        max_position_embeddings=16384,
        rope_scaling=None,
        extra={"trained_from": "Llama 2 (base 10000, 4096 tokens)"},
        base_before=10000.0,
        trained_length_before=4096,
        trained_length=16384,
        source="roziere2023codellama",
    ),
    "mistral-7b": dict(
        model="Mistral 7B (v0.1)",
        method="RoPE + sliding-window attention",
        head_dim=128,
        rotary_dim=128,
        rope_theta=10000.0,
        max_position_embeddings=32768,
        rope_scaling=None,
        extra={"sliding_window": 4096},
        # the paper gives a context length of 8192 (its Table 1), not a training length; the config allows 32768
        trained_length=None,
        source="jiang2023mistral",
    ),
    "llama-3-8b": dict(
        model="Llama 3 8B",
        method="RoPE, base 500000 from pre-training",
        head_dim=128,
        rotary_dim=128,
        rope_theta=500000.0,
        max_position_embeddings=8192,
        rope_scaling=None,
        extra={},
        trained_length=8192,
        source="dubey2024llama3",
    ),
    "llama-3.1-8b": dict(
        model="Llama 3.1 8B",
        method="RoPE + llama3 scaling (factor 8)",
        head_dim=128,
        rotary_dim=128,
        rope_theta=500000.0,
        max_position_embeddings=131072,
        rope_scaling={
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        extra={},
        trained_length_before=8192,
        trained_length=131072,
        source="dubey2024llama3",
    ),
    "llama-4-scout": dict(
        model="Llama 4 Scout (17B-16E-Instruct)",
        method="iRoPE: RoPE + chunked attention in 3 of 4 layers, NoPE + temperature in the 4th",
        head_dim=128,
        rotary_dim=128,
        rope_theta=500000.0,
        max_position_embeddings=10485760,
        rope_scaling={
            "rope_type": "llama3",
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
        },
        extra={
            "no_rope_layer_interval": 4,
            "attention_chunk_size": 8192,
            "layer_types": "chunked_attention (RoPE, local) in 3 of 4 layers, full_attention (NoPE) in the 4th",
            # published as the integer 4; modeling_llama4.py only tests it for truth (transformers 5.24's
            # Llama4TextConfig types it bool, default True, and its strict check refuses 4)
            "attn_temperature_tuning": 4,
            "floor_scale": 8192,
            "attn_scale": 0.1,
            "use_qk_norm": True,
            # the base checkpoint (Llama-4-Scout-17B-16E): the same llama3 scaling, a smaller maximum
            # (its config.json as quoted in AMD-AGI/Primus PR #165; meta-llama/llama-models'
            # llama4/args.py defaults Scout to factor 16, high_freq_factor 1)
            "base_checkpoint_rope_scaling": {
                "rope_type": "llama3",
                "factor": 16.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
            },
            "base_checkpoint_max_position_embeddings": 262144,
        },
        trained_length=262144,
        source="meta2025llama4",
    ),
    "qwen2-vl-7b": dict(
        model="Qwen2-VL 7B",
        method="M-RoPE (temporal, height, width)",
        head_dim=128,
        rotary_dim=128,
        rope_theta=1000000.0,
        max_position_embeddings=32768,
        rope_scaling={"rope_type": "mrope", "mrope_section": [16, 24, 24]},
        extra={},
        trained_length=None,
        source="wang2024qwen2vl",
    ),
    "qwen2.5-vl-7b": dict(
        model="Qwen2.5-VL 7B",
        method="M-RoPE, temporal ids aligned to absolute time",
        head_dim=128,
        rotary_dim=128,
        rope_theta=1000000.0,
        max_position_embeddings=128000,
        rope_scaling={"rope_type": "mrope", "mrope_section": [16, 24, 24]},
        extra={"tokens_per_second": 2},
        trained_length=None,
        source="bai2025qwen25vl",
    ),
    "qwen3-vl-8b": dict(
        model="Qwen3-VL 8B (Instruct)",
        method="interleaved M-RoPE (every axis gets fast and slow pairs)",
        head_dim=128,
        rotary_dim=128,
        rope_theta=5000000.0,
        max_position_embeddings=262144,
        rope_scaling={"rope_type": "mrope", "mrope_section": [24, 20, 20], "mrope_interleaved": True},
        extra={},
        # Qwen3-VL Technical Report (arXiv 2511.21631), abstract: "We extend pretraining to a context length of
        # 256K tokens"
        trained_length=262144,
        source="qwen2025qwen3vl",
    ),
    "phi-3-128k": dict(
        model="Phi-3 (vision-128k-instruct)",
        method="LongRoPE (short/long per-pair factors)",
        head_dim=96,
        rotary_dim=96,
        rope_theta=10000.0,
        max_position_embeddings=131072,
        rope_scaling={
            "rope_type": "longrope",
            "short_factor": _PHI3_SHORT,
            "long_factor": _PHI3_LONG,
            "original_max_position_embeddings": 4096,
        },
        extra={},
        trained_length=None,
        source="abdin2024phi3",
    ),
    "deepseek-v2": dict(
        model="DeepSeek-V2",
        method="MLA with decoupled RoPE key (64 of 192 q/k dims) + YaRN",
        head_dim=192,
        rotary_dim=64,
        rope_theta=10000.0,
        max_position_embeddings=163840,
        rope_scaling={
            "rope_type": "yarn",
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "mscale": 0.707,
            "mscale_all_dim": 0.707,
        },
        extra={
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,
            "kv_lora_rank": 512,
            "v_head_dim": 128,
            "num_attention_heads": 128,
            "num_hidden_layers": 60,
        },
        # DeepSeek-V2 report, section 3.1.4: pre-trained at 4K, then 1000 steps of YaRN at 32K sequences
        trained_length_before=4096,
        trained_length=32768,
        source="deepseek2024v2",
    ),
    "deepseek-v3": dict(
        model="DeepSeek-V3",
        method="MLA with decoupled RoPE key (64 of 192 q/k dims) + YaRN",
        head_dim=192,
        rotary_dim=64,
        rope_theta=10000.0,
        max_position_embeddings=163840,
        rope_scaling={
            "rope_type": "yarn",
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
        },
        extra={
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,
            "kv_lora_rank": 512,
            "v_head_dim": 128,
            "num_attention_heads": 128,
            "num_hidden_layers": 61,
        },
        # DeepSeek-V3 report, section 4.3: pre-trained at 4K, then two YaRN stages of 1000 steps, at 32K and
        # at 128K sequences
        trained_length_before=4096,
        trained_length=131072,
        source="deepseek2024v3",
    ),
    "gemma-7b": dict(
        model="Gemma 7B",
        method="RoPE, head_dim 256",
        head_dim=256,
        rotary_dim=256,
        rope_theta=10000.0,
        max_position_embeddings=8192,
        rope_scaling=None,
        extra={},
        trained_length=8192,
        source="gemma2024",
    ),
    "gemma-3-27b": dict(
        model="Gemma 3 27B",
        method="5 local layers (window 1024, base 1e4) per global layer (base 1e6, linear 8)",
        head_dim=128,
        rotary_dim=128,
        rope_theta=1000000.0,
        max_position_embeddings=131072,
        rope_scaling={"rope_type": "linear", "factor": 8.0},
        extra={"rope_local_base_freq": 10000.0, "sliding_window": 1024, "sliding_window_pattern": 6},
        # Gemma 3 report, section 5.3: pre-trained with 32K sequences, then scaled up to 128K tokens at the
        # end of pre-training while rescaling RoPE by 8
        trained_length_before=32768,
        trained_length=131072,
        source="gemma2025gemma3",
    ),
    "smollm3-3b": dict(
        model="SmolLM3 3B",
        method="RoPE in 3 of 4 layers, NoPE in every 4th (no_rope_layer_interval 4)",
        head_dim=128,
        rotary_dim=128,
        rope_theta=5000000.0,
        max_position_embeddings=65536,
        rope_scaling=None,
        extra={"no_rope_layer_interval": 4},
        trained_length=65536,
        source="hf2025smollm3",
    ),
    "gpt-oss-20b": dict(
        model="gpt-oss-20b",
        method="YaRN (truncate false) + learned sinks; 128-token window in every other layer",
        head_dim=64,
        rotary_dim=64,
        rope_theta=150000.0,
        max_position_embeddings=131072,
        rope_scaling={
            "rope_type": "yarn",
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
            "original_max_position_embeddings": 4096,
        },
        extra={
            "sliding_window": 128,
            "layer_types": "sliding_attention, full_attention alternating",
            "sinks": "one learned logit per head",
        },
        trained_length=None,
        source="openai2025gptoss",
    ),
}

#: The scalings of :func:`scaled_wavelengths` by name, on one common setting so they can be compared:
#: base 10000, trained length 4096, extension factor 8 (32768 tokens; ``"ntk"``, dynamic NTK, reaches
#: it with ``factor`` 1 read at 32768 tokens). ``"longrope"`` is Phi-3's
#: published lists (head_dim 96, trained length 4096, factor 32); ``"raised_base"`` is Code Llama's
#: base 1e6. Each is a row in the form of :data:`MODEL_ROPE_CONFIGS` (the keys it needs), so that
#: models and examples take one path: :meth:`~posenc.scaling.RopeScaling.from_hf` of ``rope_scaling``.
_EXAMPLE = dict(rotary_dim=128, rope_theta=10000.0, max_position_embeddings=32768, trained_length_before=4096)
_EXAMPLE_SCALING = {"factor": 8.0, "original_max_position_embeddings": 4096}
_SCALING_EXAMPLE_CONFIGS: dict[str, dict] = {
    "none": dict(_EXAMPLE, max_position_embeddings=4096, rope_scaling=None),
    "pi": dict(_EXAMPLE, rope_scaling={"rope_type": "linear", "factor": _EXAMPLE_SCALING["factor"]}),
    # dynamic NTK reads the trained length from max_position_embeddings (transformers'
    # _compute_dynamic_ntk_parameters) and the current length at run time: evaluated at 32 768 tokens.
    # Its factor is 1, not 8: its scale is factor * length / trained - (factor - 1), so factor 1 gives
    # 32768 / 4096 = 8 and stretches the slowest pair x8 at 32 768 tokens like the others (factor 8: x57)
    "ntk": dict(
        _EXAMPLE,
        max_position_embeddings=4096,
        target_length=32768,
        rope_scaling={"rope_type": "dynamic", "factor": 1.0},
    ),
    "yarn": dict(_EXAMPLE, rope_scaling={"rope_type": "yarn", **_EXAMPLE_SCALING}),
    "longrope": MODEL_ROPE_CONFIGS["phi-3-128k"],
    "llama3": dict(_EXAMPLE, rope_scaling={"rope_type": "llama3", **_EXAMPLE_SCALING}),
    "raised_base": dict(_EXAMPLE, rope_theta=1000000.0, base_before=10000.0, rope_scaling=None),
}
#: The scalings on the common setting by name, each a valid ``model_or_scaling`` of :func:`scaled_wavelengths`:
#: ``"none"``, ``"pi"``, ``"ntk"``, ``"yarn"``, ``"longrope"``, ``"llama3"``, ``"raised_base"``.
SCALING_EXAMPLES = tuple(_SCALING_EXAMPLE_CONFIGS)


def scaled_wavelengths(model_or_scaling: str, *, head_dim: int | None = None, seq_len: int | None = None) -> dict:
    """Per-pair wavelengths before and after a model's (or a named) RoPE scaling, and its trained length.

    Pair ``i`` turns once every ``2 pi / theta_i`` tokens. A pair whose wavelength exceeds the trained
    length ``L`` never completed a turn in training; the scalings differ in which wavelengths
    ``lambda`` they stretch:

    - PI: all, by the factor ``s``.
    - NTK-aware / dynamic NTK / a raised base: every pair but the fastest, the long ones most.
    - YaRN: every pair with ``lambda > L / beta_fast`` (``L/32`` by default: 128 tokens for
      ``L = 4096``), by ``s`` from ``lambda >= L / beta_slow`` (``L``) on and by less than ``s`` in
      between (a ramp over the pair index); the pairs that turn more than ``beta_fast`` times within
      ``L`` are kept (Peng et al. 2023, "NTK-by-parts"; Hugging Face ``_compute_yarn_parameters``).
    - Llama 3: every pair with ``lambda > L / high_freq_factor`` (``L/4`` by default), by ``s`` from
      ``lambda > L / low_freq_factor`` (``L``) on and by less in between (a ramp over ``L / lambda``;
      Hugging Face ``_compute_llama3_parameters``).
    - LongRoPE: each pair by its own searched factor.

    So YaRN and Llama 3 stretch many pairs whose wavelength is well inside the trained length, not
    only those longer than it (``tests/test_rope_today.py`` checks these bounds for every row).

    The row's ``rope_scaling`` becomes one :class:`~posenc.scaling.RopeScaling`
    (:meth:`~posenc.scaling.RopeScaling.from_hf`), whose :meth:`~posenc.scaling.RopeScaling.inv_freq`
    gives the frequencies and attention scaling and whose ``softmax_scale`` (YaRN) DeepSeek's factor.

    Args:
        model_or_scaling (str): a key of :data:`MODEL_ROPE_CONFIGS` (that model's published setting;
            "before" is its unscaled frequencies, for Code Llama Llama 2's base 10000) or one of
            ``SCALING_EXAMPLES`` (a common setting: base 10000, trained length 4096, factor 8; dynamic
            NTK's ``"ntk"``: factor 1 read at 32768 tokens, also x8 on the slowest pair).
        head_dim (int, optional): even rotated width, >= 4; default the model's rotated width (the
            examples: 128; ``"longrope"``: 96, the only width its published lists fit).
        seq_len (int, optional): the current length, for the scalings that depend on it (dynamic NTK;
            LongRoPE's short/long switch); default the extended length.

    Returns:
        dict: ``name``, ``rope_type``, ``head_dim``, ``base``, ``trained_length`` (the length the scaling
        is defined against: ``original_max_position_embeddings``, else the length before the base was
        raised, else the config's maximum), ``published_trained_length`` (the row's ``trained_length``:
        the longest sequences the model was trained on, or None), ``target_length``,
        ``seq_len``, ``wavelength_before`` and ``wavelength_after`` (float64 ``[d/2]``, in tokens),
        ``attention_scaling`` (the factor cos and sin are multiplied by), ``softmax_scale_factor``
        (the factor on the softmax scale ``d ** -0.5`` on top: ``yarn_mscale(s, mscale_all_dim) ** 2``
        for DeepSeek's rows, else 1), ``logit_scale`` (``attention_scaling ** 2 * softmax_scale_factor``,
        the whole temperature on the rotated logits) and ``note`` (one line for a figure title: the
        effective factor of the ``"ntk"`` example, DeepSeek's softmax factor; "" otherwise).
    """
    configs = {**MODEL_ROPE_CONFIGS, **_SCALING_EXAMPLE_CONFIGS}
    name = check_choice("model_or_scaling", model_or_scaling, tuple(configs))
    cfg = configs[name]
    target = cfg.get("target_length", cfg["max_position_embeddings"])  # the length the example is read at
    scaling = RopeScaling.from_hf(
        cfg["rope_scaling"],
        max_position_embeddings=cfg["max_position_embeddings"],
        original_max_position_embeddings=cfg.get("original_max_position_embeddings"),
    )
    default_dim = cfg["rotary_dim"]
    head_dim = default_dim if head_dim is None else check_even("head_dim", head_dim, min_value=4)
    if isinstance(scaling, LongRopeScaling) and head_dim != default_dim:
        raise ValueError(
            f"head_dim must be {default_dim} for {name!r}: its published LongRoPE lists have "
            f"{default_dim // 2} factors, got {head_dim}"
        )
    seq_len = target if seq_len is None else check_int("seq_len", seq_len, min_value=1)
    base = cfg["rope_theta"]
    trained = getattr(scaling, "original_max_position_embeddings", None) or cfg.get("trained_length_before", target)
    inv, scale = scaling.inv_freq(head_dim, base, seq_len=seq_len)
    softmax_factor = scaling.softmax_scale  # DeepSeek's yarn_apply_mscale (YaRN only)
    note = ""
    if getattr(scaling, "mscale_all_dim", None) is not None:
        note = f"softmax scale ×{softmax_factor:.2f} on all q·k dims"
    elif isinstance(scaling, DynamicScaling) and seq_len > trained:
        effective = scaling.factor * seq_len / trained - (scaling.factor - 1)  # HF dynamic NTK's scale at seq_len
        note = f"dynamic NTK at {seq_len} tokens: effective scale {effective:g} on the slowest pair"
    return {
        "name": name,
        "rope_type": scaling.rope_type,
        "head_dim": head_dim,
        "base": base,
        "trained_length": trained,
        "published_trained_length": cfg.get("trained_length"),
        "target_length": target,
        "seq_len": seq_len,
        "wavelength_before": 2 * math.pi / rope_inv_freq(head_dim, cfg.get("base_before", base)).to(torch.float64),
        "wavelength_after": 2 * math.pi / inv.to(torch.float64),
        "attention_scaling": float(scale),
        "softmax_scale_factor": softmax_factor,
        "logit_scale": float(scale) ** 2 * softmax_factor,
        "note": note,
    }
