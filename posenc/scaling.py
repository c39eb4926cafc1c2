"""RoPE context extension: one frequency function per scaling type, in a registry.

Each scaling maps the trained frequencies ``theta_i = base ** (-2i/d)`` to new ones for a longer
context, and may scale cos and sin by an attention factor. As in Hugging Face's
``modeling_rope_utils.py``, every type is one function and :data:`ROPE_SCALINGS` maps its name to
it; :func:`rope_scaled_inv_freq` validates the arguments once and dispatches. The functions here
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
    Ding et al., "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens", 2024; Abdin et al.,
    "Phi-3 Technical Report", 2024 (the ``longrope`` scaling).
    Hugging Face transformers ``modeling_rope_utils.ROPE_INIT_FUNCTIONS``.
"""

from __future__ import annotations

import inspect
import math
from typing import Callable, Sequence

import torch

from ._validate import check_choice, check_even, check_float, check_int, check_size, check_tensor
from .frequencies import DEFAULT_BASE, _inv_freq

__all__ = ["ROPE_SCALINGS", "ROPE_TYPES", "rope_scaled_inv_freq", "yarn_mscale"]


def _default(head_dim: int, base: float) -> tuple[torch.Tensor, float]:
    """The unscaled frequencies ``base ** (-2i/d)``."""
    return _inv_freq(head_dim, base), 1.0


def _linear(head_dim: int, base: float, factor: float) -> tuple[torch.Tensor, float]:
    """Position interpolation (Chen et al. 2023): every frequency divided by ``factor``."""
    return _inv_freq(head_dim, base) / factor, 1.0


def _dynamic(head_dim: int, base: float, factor: float, train_length: int,
             seq_len: int | None) -> tuple[torch.Tensor, float]:
    """Dynamic NTK (emozilla 2023; YaRN paper section 3.3): for ``L = seq_len > L_orig`` the base grows to
    ``base * (factor * L / L_orig - (factor - 1)) ** (d / (d - 2))``; the default otherwise."""
    if seq_len is None or seq_len <= train_length:
        return _inv_freq(head_dim, base), 1.0
    new_base = base * ((factor * seq_len / train_length) - (factor - 1)) ** (head_dim / (head_dim - 2))
    return _inv_freq(head_dim, new_base), 1.0


def _mscale(factor: float, mscale: float = 1.0) -> float:
    """``0.1 * mscale * ln(factor) + 1`` for ``factor > 1``, else 1 (HF ``get_mscale``)."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def _yarn(head_dim: int, base: float, factor: float, train_length: int, beta_fast: float, beta_slow: float,
          attention_factor: float | None, mscale: float | None = None, mscale_all_dim: float | None = None,
          truncate: bool = True) -> tuple[torch.Tensor, float]:
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
    interpolated = _inv_freq(head_dim, base, scale=factor)  # [d/2]: 1 / (factor * base ** (2i/d))
    return interpolated * (1 - keep) + _inv_freq(head_dim, base) * keep, attention_factor


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


def _llama3(head_dim: int, base: float, factor: float, train_length: int, low_freq_factor: float,
            high_freq_factor: float) -> tuple[torch.Tensor, float]:
    """Llama 3: wavelengths above ``L_orig / low_freq_factor`` divided by ``factor``, those below
    ``L_orig / high_freq_factor`` kept, a smooth blend between."""
    inv_freq = _inv_freq(head_dim, base)  # [d/2]
    low_freq_wavelen = train_length / low_freq_factor
    high_freq_wavelen = train_length / high_freq_factor
    wavelen = 2 * math.pi / inv_freq  # [d/2]
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (train_length / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, scaled), 1.0


def _longrope(head_dim: int, base: float, factor: float, train_length: int, seq_len: int | None,
              short_factor: torch.Tensor, long_factor: torch.Tensor,
              attention_factor: float | None) -> tuple[torch.Tensor, float]:
    """LongRoPE (Ding et al. 2024; Phi-3): pair ``i``'s wavelength stretched by its own factor,
    ``inv_freq_i = 1 / (ext_i * base ** (2i/d))``, with ``ext = long_factor`` once the sequence is
    longer than ``L_orig`` and ``short_factor`` otherwise; cos and sin scaled by
    ``sqrt(1 + ln(factor) / ln(L_orig))`` unless ``attention_factor`` is given."""
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(train_length))
    ext = long_factor if seq_len is not None and seq_len > train_length else short_factor  # [d/2] float32
    exponent = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim  # [d/2]: 2i/d
    return 1.0 / (ext * base**exponent), attention_factor


def _factor_list(name: str, value: Sequence[float] | torch.Tensor, head_dim: int) -> torch.Tensor:
    """A LongRoPE factor list as float32 ``[d/2]`` of finite values > 0, or raise naming ``name``."""
    if value is None:
        raise ValueError(f"{name} (one rescale factor per rotation pair, {head_dim // 2} values) is required "
                         f"for rope_type='longrope'")
    if isinstance(value, torch.Tensor):
        check_tensor(name, value, ndim=1)
        if value.dtype == torch.bool or value.is_complex():
            raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
        values = value.detach().to("cpu", torch.float32)
    else:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise TypeError(f"{name} must be a list of {head_dim // 2} numbers, got {type(value).__name__}")
        values = torch.tensor([check_float(f"{name}[{i}]", v) for i, v in enumerate(value)], dtype=torch.float32)
    if values.shape != (head_dim // 2,):
        raise ValueError(f"{name} must have head_dim // 2 = {head_dim // 2} entries (one per rotation pair), "
                         f"got {len(values)}")
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
}

#: The names :func:`rope_scaled_inv_freq` accepts.
ROPE_TYPES = tuple(ROPE_SCALINGS)

_PARAMETERS = {name: tuple(inspect.signature(fn).parameters) for name, fn in ROPE_SCALINGS.items()}


def rope_scaled_inv_freq(
    head_dim: int,
    base: float = DEFAULT_BASE,
    *,
    rope_type: str = "default",
    factor: float = 1.0,
    original_max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    attention_factor: float | None = None,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    short_factor: Sequence[float] | torch.Tensor | None = None,
    long_factor: Sequence[float] | torch.Tensor | None = None,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    truncate: bool = True,
) -> tuple[torch.Tensor, float]:
    """RoPE frequencies for context extension, as Hugging Face's ``ROPE_INIT_FUNCTIONS[rope_type]``.

    - ``"default"``: :func:`posenc.frequencies.inv_freq`.
    - ``"linear"`` (position interpolation, Chen et al. 2023): every frequency divided by ``factor``.
    - ``"dynamic"`` (dynamic NTK): the base grows to ``base * (factor * L / L_orig - (factor - 1)) ** (d / (d - 2))``
      for the current length ``L = seq_len > L_orig``; equals the default otherwise.
    - ``"yarn"`` (Peng et al. 2023): high frequencies (more than ``beta_fast`` turns over ``L_orig``) kept,
      low frequencies (fewer than ``beta_slow`` turns) interpolated by ``factor``, a linear ramp between;
      attention factor ``0.1 ln(factor) + 1`` (applied to cos and sin, so logits scale by its square);
      with both ``mscale`` and ``mscale_all_dim`` given (DeepSeek-V2/V3 configs) and no ``attention_factor``,
      ``yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)`` instead (only one of them given:
      ignored, as in Hugging Face). ``truncate=False`` (gpt-oss configs) uses the ramp's ends
      ``d ln(L_orig / (2 pi beta)) / (2 ln base)`` as they are, without rounding them down/up to whole pairs.
    - ``"llama3"``: wavelengths above ``L_orig / low_freq_factor`` divided by ``factor``, below
      ``L_orig / high_freq_factor`` kept, smoothly blended between.
    - ``"longrope"`` (Ding et al. 2024; Phi-3): ``inv_freq_i = 1 / (ext_i * base ** (2i/d))`` with
      ``ext = long_factor`` when ``seq_len > L_orig`` (strictly) and ``short_factor`` otherwise (also
      when ``seq_len`` is None); attention factor ``sqrt(1 + ln(factor) / ln(L_orig))`` when
      ``factor > 1`` (else 1) unless ``attention_factor`` is given. Phi-3's configs name no ``factor``:
      pass ``max_position_embeddings / original_max_position_embeddings``, as Hugging Face does.
      Hugging Face picks ``seq_len`` at run time as ``max(position_ids) + 1``.

    Every argument is validated here, whatever the type, and each type's function
    (:data:`ROPE_SCALINGS`) receives only the parameters it uses.

    Args:
        head_dim (int): even head dimension ``d`` (>= 4 for ``"dynamic"``, whose exponent is ``d / (d - 2)``).
        base (float): wavelength base, > 1.
        rope_type (str): one of :data:`ROPE_TYPES`.
        factor (float): extension factor, finite and > 0 (>= 1 for the scaled types).
        original_max_position_embeddings (int): trained context ``L_orig``; needed by dynamic, yarn, llama3,
            longrope (>= 2 for longrope, whose attention factor divides by ``ln L_orig``).
        seq_len (int, optional): current length for ``"dynamic"`` and ``"longrope"``.
        beta_fast, beta_slow (float): YaRN ramp boundaries in rotations, ``beta_fast >= beta_slow > 0``.
        attention_factor (float, optional): YaRN's and LongRoPE's cos/sin scale; default
            ``0.1 ln(factor) + 1`` (YaRN), ``sqrt(1 + ln(factor) / ln(L_orig))`` (LongRoPE).
        low_freq_factor, high_freq_factor (float): Llama 3 band edges, ``0 < low <= high`` (equal: no
            blend, Llama 4 Scout's ``1.0, 1.0``).
        short_factor, long_factor (list of float or torch.Tensor): LongRoPE's ``d/2`` per-pair
            wavelength stretches (finite, > 0), for ``seq_len <= L_orig`` and ``seq_len > L_orig``.
            Here ``d`` is the rotated width (``head_dim``, or the partial rotary dim).
        mscale, mscale_all_dim (float, optional): DeepSeek's YaRN weights (finite, > 0), see
            :func:`yarn_mscale`; used by ``"yarn"`` only, and only when both are given.
        truncate (bool): ``"yarn"`` only: round the ramp's ends to whole pairs (default, as the YaRN
            paper's code) or not (gpt-oss).

    Returns:
        tuple[torch.Tensor, float]: float32 ``[d/2]`` frequencies and the attention scaling
        (1.0 except for YaRN and LongRoPE).
    """
    head_dim = check_even("head_dim", head_dim)
    check_size("head_dim", head_dim, (head_dim // 2,), item_bytes=8)
    rope_type = check_choice("rope_type", rope_type, ROPE_TYPES)
    values = {"head_dim": head_dim, "base": check_float("base", base, gt=1.0)}
    wanted = _PARAMETERS[rope_type]
    if "factor" in wanted:
        values["factor"] = check_float("factor", factor, ge=1.0)
    else:
        check_float("factor", factor, gt=0.0)  # unused by this type, but never NaN
    if "train_length" in wanted:
        if original_max_position_embeddings is None:
            raise ValueError(f"original_max_position_embeddings (the trained length) is required for "
                             f"rope_type={rope_type!r}")
        values["train_length"] = check_int("original_max_position_embeddings", original_max_position_embeddings,
                                           min_value=2 if rope_type == "longrope" else 1)
    if "seq_len" in wanted:
        values["seq_len"] = None if seq_len is None else check_int("seq_len", seq_len, min_value=0)
        if rope_type == "dynamic" and head_dim < 4:
            raise ValueError(f"head_dim must be >= 4 for rope_type='dynamic' (exponent d / (d - 2)), got {head_dim}")
    if "short_factor" in wanted:
        values["short_factor"] = _factor_list("short_factor", short_factor, head_dim)
        values["long_factor"] = _factor_list("long_factor", long_factor, head_dim)
    if "mscale" in wanted:
        for name, value in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)):
            values[name] = None if value is None else check_float(name, value, gt=0.0)
        if not isinstance(truncate, bool):
            raise TypeError(f"truncate must be a bool (True: round the ramp's ends to whole pairs), "
                            f"got {type(truncate).__name__} ({truncate!r})")
        values["truncate"] = truncate
    if "attention_factor" in wanted:
        values["attention_factor"] = (None if attention_factor is None
                                      else check_float("attention_factor", attention_factor, gt=0.0))
    if "beta_fast" in wanted:
        values["beta_slow"] = check_float("beta_slow", beta_slow, gt=0.0)
        values["beta_fast"] = check_float("beta_fast", beta_fast, gt=0.0)
        if values["beta_fast"] < values["beta_slow"]:
            raise ValueError(f"beta_fast must be >= beta_slow ({beta_slow:g}; the ramp runs from beta_fast "
                             f"rotations down to beta_slow), got {beta_fast:g}")
    if "low_freq_factor" in wanted:
        values["low_freq_factor"] = check_float("low_freq_factor", low_freq_factor, gt=0.0)
        values["high_freq_factor"] = check_float("high_freq_factor", high_freq_factor, gt=0.0)
        if values["high_freq_factor"] < values["low_freq_factor"]:
            raise ValueError(f"high_freq_factor must be >= low_freq_factor ({low_freq_factor:g}; equal: a hard "
                             f"switch at L_orig / low_freq_factor, as Llama 4 Scout), got {high_freq_factor:g}")
    return ROPE_SCALINGS[rope_type](**values)
