"""RoPE context extension: one frequency function per scaling type, in a registry.

Each scaling maps the trained frequencies ``theta_i = base ** (-2i/d)`` to new ones for a longer
context, and may scale cos and sin by an attention factor. As in Hugging Face's
``modeling_rope_utils.py``, every type is one function and :data:`ROPE_SCALINGS` maps its name to
it; a typed configuration (:mod:`posenc.scaling.config`) validates the arguments once and calls it. The functions here
take only their own parameters and trust them (they are the private cores).

Inside this module the trained context length is ``train_length`` (``L_orig``); the public edge
keeps Hugging Face's name, ``original_max_position_embeddings``.

Shape legend: ``d`` head dimension ``head_dim`` (even), ``d/2`` rotation pairs.

References:
    Chen et al., "Extending Context Window of Large Language Models via Positional Interpolation", 2023.
    bloc97, "NTK-Aware Scaled RoPE", 2023 (NTK-aware scaling, chapter 7); emozilla, "Dynamically Scaled RoPE
    further increases performance of long context LLaMA with zero fine-tuning", 2023 (dynamic NTK, the
    ``"dynamic"`` type here; YaRN paper, Peng et al. 2023, section 3.3).
    Peng et al., "YaRN: Efficient Context Window Extension of Large Language Models", 2023. The
    ``mscale``/``mscale_all_dim`` form of its attention factor is DeepSeek-V2's (DeepSeek-AI 2024,
    ``yarn_get_mscale``); ``truncate=False`` is gpt-oss's (OpenAI 2025).
    Dubey et al., "The Llama 3 Herd of Models", 2024 (the ``llama3`` scaling).
    Hugging Face transformers 5 ``_compute_proportional_rope_parameters`` and ``Gemma4TextConfig`` (the
    ``proportional`` type of Gemma 4's full-attention layers: part of the pairs turn, the others get
    frequency 0).
    Ding et al., "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens", 2024; Abdin et al.,
    "Phi-3 Technical Report", 2024 (the ``longrope`` scaling).
    Hugging Face transformers ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from .._core.freq import frequency_ladder
from .._core.validate import check_float, check_tensor

__all__ = ["ROPE_SCALINGS", "ROPE_TYPES", "yarn_mscale"]


def _default(head_dim: int, base: float) -> tuple[torch.Tensor, float]:
    """The unscaled frequencies ``base ** (-2i/d)``."""
    return frequency_ladder(head_dim, base), 1.0


def _linear(head_dim: int, base: float, factor: float) -> tuple[torch.Tensor, float]:
    """Position interpolation (Chen et al. 2023): every frequency divided by ``factor``."""
    return frequency_ladder(head_dim, base) / factor, 1.0


def _dynamic(
    head_dim: int, base: float, factor: float, train_length: int, seq_len: int | None
) -> tuple[torch.Tensor, float]:
    """Dynamic NTK (emozilla 2023; YaRN paper section 3.3): for ``L = seq_len > L_orig`` the base grows to
    ``base * (factor * L / L_orig - (factor - 1)) ** (d / (d - 2))``; the default otherwise."""
    if seq_len is None or seq_len <= train_length:
        return frequency_ladder(head_dim, base), 1.0
    new_base = base * ((factor * seq_len / train_length) - (factor - 1)) ** (head_dim / (head_dim - 2))
    return frequency_ladder(head_dim, new_base), 1.0


def _mscale(factor: float, mscale: float = 1.0) -> float:
    """``0.1 * mscale * ln(factor) + 1`` for ``factor > 1``, else 1 (HF ``get_mscale``)."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def _yarn(
    head_dim: int,
    base: float,
    factor: float,
    train_length: int,
    beta_fast: float,
    beta_slow: float,
    attention_factor: float | None,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    truncate: bool = True,
) -> tuple[torch.Tensor, float]:
    """YaRN (Peng et al. 2023): keep the pairs that turn more than ``beta_fast`` times over
    ``L_orig``, interpolate those that turn fewer than ``beta_slow`` times, a linear ramp between;
    cos and sin scaled by ``0.1 ln(factor) + 1`` unless ``attention_factor`` is given, or by
    ``mscale(factor, mscale) / mscale(factor, mscale_all_dim)`` when both are given (DeepSeek).
    ``truncate=False`` (gpt-oss) keeps the ramp's ends unrounded."""
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(_mscale(factor, mscale) / _mscale(factor, mscale_all_dim))
        else:
            attention_factor = _mscale(factor)

    def correction_dim(n_rotations: float) -> float:
        # the pair index whose wavelength fits n_rotations times into train_length
        return (head_dim * math.log(train_length / (n_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, head_dim - 1)
    if low == high:
        high += 0.001  # avoid a zero-width ramp
    ramp = ((torch.arange(head_dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)  # [d/2]
    keep = 1 - ramp  # 1: keep the original frequency, 0: interpolate
    interpolated = frequency_ladder(head_dim, base, scale=factor)  # [d/2]: 1 / (factor * base ** (2i/d))
    return interpolated * (1 - keep) + frequency_ladder(head_dim, base) * keep, attention_factor


def yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    """YaRN's temperature factor ``0.1 * mscale * ln(factor) + 1`` for ``factor > 1``, else 1.0.

    Peng et al. 2023 (section 3.4) scale the logits by ``(0.1 ln s + 1)**2`` and implement it by
    multiplying cos and sin by ``0.1 ln s + 1``; ``mscale`` is DeepSeek-V2's extra weight
    (``yarn_get_mscale``; Hugging Face ``get_mscale`` in ``modeling_rope_utils``). DeepSeek-V2/V3
    use it twice: cos and sin get ``yarn_mscale(s, mscale) / yarn_mscale(s, mscale_all_dim)``
    (1 when the two are equal, as in both configs), and the softmax scale ``qk_head_dim ** -0.5``
    is multiplied by ``yarn_mscale(s, mscale_all_dim) ** 2`` (Hugging Face ``yarn_apply_mscale``
    in ``modeling_deepseek_v3``), so every logit, the 128 position-free dims included, is sharpened.

    Args:
        factor (float): extension factor ``s``, finite and > 0.
        mscale (float): weight of ``ln s``, finite and >= 0 (YaRN: 1; DeepSeek-V2: 0.707).

    Returns:
        float: the factor (1.0 when ``factor <= 1``).
    """
    factor = check_float("factor", factor, gt=0.0)
    mscale = check_float("mscale", mscale, ge=0.0)
    return _mscale(factor, mscale)


def _llama3(
    head_dim: int, base: float, factor: float, train_length: int, low_freq_factor: float, high_freq_factor: float
) -> tuple[torch.Tensor, float]:
    """Llama 3: wavelengths above ``L_orig / low_freq_factor`` divided by ``factor``, those below
    ``L_orig / high_freq_factor`` kept, a smooth blend between."""
    inv_freq = frequency_ladder(head_dim, base)  # [d/2]
    low_freq_wavelen = train_length / low_freq_factor
    high_freq_wavelen = train_length / high_freq_factor
    wavelen = 2 * math.pi / inv_freq  # [d/2]
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (train_length / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, scaled), 1.0


def _longrope(
    head_dim: int,
    base: float,
    factor: float,
    train_length: int,
    seq_len: int | None,
    short_factor: torch.Tensor,
    long_factor: torch.Tensor,
    attention_factor: float | None,
) -> tuple[torch.Tensor, float]:
    """LongRoPE (Ding et al. 2024; Phi-3): pair ``i``'s wavelength stretched by its own factor,
    ``inv_freq_i = 1 / (ext_i * base ** (2i/d))``, with ``ext = long_factor`` once the sequence is
    longer than ``L_orig`` and ``short_factor`` otherwise; cos and sin scaled by
    ``sqrt(1 + ln(factor) / ln(L_orig))`` unless ``attention_factor`` is given."""
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(train_length))
    ext = long_factor if seq_len is not None and seq_len > train_length else short_factor  # [d/2] float32
    exponent = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim  # [d/2]: 2i/d
    return 1.0 / (ext * base**exponent), attention_factor


def _proportional(
    head_dim: int, base: float, factor: float, partial_rotary_factor: float
) -> tuple[torch.Tensor, float]:
    """Proportional RoPE (transformers 5 ``_compute_proportional_rope_parameters``; Gemma 4's global
    layers): the first ``k = int(partial_rotary_factor * d // 2)`` pairs keep ``base ** (-2i/d)``, with
    the exponent over the whole head dimension ``d`` (not over the rotated width, unlike partial
    rotary), the other ``d/2 - k`` pairs get frequency 0 (they never turn); every frequency is then
    divided by ``factor``. The result always has ``d/2`` entries."""
    kept = int(partial_rotary_factor * head_dim // 2)  # Hugging Face's rope_angles
    inv_freq = frequency_ladder(head_dim, base)[:kept]  # [k]: the same float32 ops as Hugging Face's
    inv_freq = torch.cat((inv_freq, torch.zeros(head_dim // 2 - kept, dtype=torch.float32)))  # [d/2]
    return inv_freq / factor, 1.0


def factor_list(name: str, value: Sequence[float] | torch.Tensor | None, head_dim: int | None) -> torch.Tensor:
    """A LongRoPE factor list as float32 ``[d/2]`` of finite values > 0 (any length when ``head_dim``
    is None), or raise naming ``name``."""
    if value is None:
        count = "" if head_dim is None else f", {head_dim // 2} values"
        raise ValueError(f"{name} (one rescale factor per rotation pair{count}) is required for rope_type='longrope'")
    if isinstance(value, torch.Tensor):
        check_tensor(name, value, ndim=1)
        if value.dtype == torch.bool or value.is_complex():
            raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
        values = value.detach().to("cpu", torch.float32)
    else:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            count = "" if head_dim is None else f"{head_dim // 2} "
            raise TypeError(f"{name} must be a list of {count}numbers, got {type(value).__name__}")
        if len(value) > 2**24:
            raise ValueError(f"{name} must have one entry per rotation pair (head_dim // 2), got {len(value)}")
        values = torch.tensor([check_float(f"{name}[{i}]", v) for i, v in enumerate(value)], dtype=torch.float32)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty list, one entry per rotation pair")
    if head_dim is not None and values.shape != (head_dim // 2,):
        raise ValueError(
            f"{name} must have head_dim // 2 = {head_dim // 2} entries (one per rotation pair), got {len(values)}"
        )
    if not bool(torch.isfinite(values).all()) or not bool((values > 0).all()):
        raise ValueError(f"{name} must be finite and > 0 (a wavelength stretch per pair)")
    return values


#: Scaling name -> function returning ``(inv_freq [d/2], attention_scaling)``, as Hugging Face's
#: ``ROPE_INIT_FUNCTIONS``. Each function takes only its own parameters and trusts them.
ROPE_SCALINGS: dict[str, Callable[..., tuple[torch.Tensor, float]]] = {
    "default": _default,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
    "longrope": _longrope,
    "proportional": _proportional,
}

#: The names :func:`rope_scaled_inv_freq` accepts.
ROPE_TYPES = tuple(ROPE_SCALINGS)
