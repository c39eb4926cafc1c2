"""Typed, validated RoPE scaling configurations: one frozen dataclass per ``rope_type``.

A configuration is validated once, when it is built, and then flows unchanged through
:func:`~posenc.scaling.rope_scaled_inv_freq`, :class:`~posenc.encodings.rope.RotaryEmbedding`,
:class:`~posenc.methods.rope.RopeMethod` and the book's tiny language model. Its fields are the
one list of each type's parameters, named as in Hugging Face's ``rope_scaling`` /
``rope_parameters`` (``original_max_position_embeddings`` is the trained length ``L_orig``);
:meth:`RopeScaling.from_hf` reads such a dict. The frequencies come from the type's function in
:data:`~posenc.scaling.functions.ROPE_SCALINGS` (one function per type, as Hugging Face's
``ROPE_INIT_FUNCTIONS``), called by :meth:`RopeScaling.inv_freq`.

Example::

    scaling = rope_scaling("yarn", factor=4.0, original_max_position_embeddings=4096)
    inv_freq, attention_scaling = scaling.inv_freq(128, 10000.0)
    same = RopeScaling.from_hf({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from .._core.freq import DEFAULT_BASE
from .._core.validate import check_choice, check_even, check_float, check_int, check_size
from .functions import ROPE_SCALINGS, factor_list, yarn_mscale

__all__ = [
    "RopeScaling",
    "DefaultScaling",
    "LinearScaling",
    "DynamicScaling",
    "YarnScaling",
    "Llama3Scaling",
    "LongRopeScaling",
    "ProportionalScaling",
    "ROPE_SCALING_CONFIGS",
    "rope_scaling",
    "rope_scaled_inv_freq",
]


@dataclass(frozen=True)
class RopeScaling:
    """A RoPE scaling configuration (the base class is the unscaled ``"default"`` type).

    Subclasses add their parameters as fields and validate them in ``__post_init__``; the values
    the fields hold afterwards are the validated ones (floats, ints, tuples).
    """

    rope_type: ClassVar[str] = "default"

    @property
    def softmax_scale(self) -> float:
        """A factor on the softmax scale ``d ** -0.5`` on top of cos and sin (1.0; DeepSeek's YaRN has one)."""
        return 1.0

    def inv_freq(
        self, head_dim: int, base: float = DEFAULT_BASE, *, seq_len: int | None = None
    ) -> tuple[torch.Tensor, float]:
        """Frequencies ``[head_dim // 2]`` (float32) and the attention scaling on cos and sin.

        Args:
            head_dim (int): the rotated width ``d`` (even; the partial rotary dim where only part turns).
            base (float): wavelength base, > 1.
            seq_len (int, optional): the current length (``"dynamic"`` and ``"longrope"`` only; Hugging
                Face takes ``max(position_ids) + 1``).
        """
        head_dim = check_even("head_dim", head_dim)
        check_size("head_dim", head_dim, (head_dim // 2,), item_bytes=8)
        base = check_float("base", base, gt=1.0)
        if seq_len is not None:
            seq_len = check_int("seq_len", seq_len, min_value=0)
        return ROPE_SCALINGS[self.rope_type](head_dim, base, **self._arguments(head_dim, seq_len))

    def _arguments(self, head_dim: int, seq_len: int | None) -> dict:
        """The keyword arguments of this type's function (validated values)."""
        return {}

    def to_hf(self) -> dict:
        """The Hugging Face ``rope_scaling`` dict of this configuration."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {"rope_type": self.rope_type, **{k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}}

    @staticmethod
    def from_hf(
        config: Mapping[str, Any],
        *,
        max_position_embeddings: int | None = None,
        original_max_position_embeddings: int | None = None,
    ) -> RopeScaling:
        """The configuration of a model's ``rope_scaling`` (transformers 4) or ``rope_parameters``
        (transformers 5) dict; None or ``{}`` means the default.

        ``rope_type`` (or the older ``type``) names the type; ``"mrope"`` (Qwen2-VL's config.json) is
        the default frequencies, as transformers' ``Qwen2VLConfig`` reads it, and ``"su"`` (Phi-3's
        first name) is ``"longrope"``. Keys that describe the model rather than the scaling
        (``rope_theta``, ``partial_rotary_factor``, M-RoPE's ``mrope_section`` and
        ``mrope_interleaved``, Ministral 3's ``llama_4_scaling_beta``) are left to the caller, except
        ``partial_rotary_factor`` with ``"proportional"`` (Gemma 4), whose frequencies it sets; any other
        key must be a parameter of the type.

        The model config's lengths enter as transformers 5 uses them (``standardize_rope_params`` and
        the ``_compute_*_parameters`` functions of ``modeling_rope_utils.py``):

        - ``"dynamic"``: the trained length is the model's ``max_position_embeddings`` (transformers
          reads it there, not in the dict); without it, the dict's ``original_max_position_embeddings``.
        - ``"yarn"``, ``"llama3"``, ``"longrope"``: the model config's own top-level
          ``original_max_position_embeddings`` (Phi-3 keeps it outside ``rope_scaling``) takes priority,
          then the dict's, then ``max_position_embeddings``.
        - ``"yarn"`` and ``"longrope"`` dicts without ``factor`` (DeepSeek-V3, Phi-3) get
          ``max_position_embeddings / original_max_position_embeddings``.

        Args:
            config (dict): the ``rope_scaling`` / ``rope_parameters`` dict.
            max_position_embeddings (int, optional): the model config's ``max_position_embeddings``.
            original_max_position_embeddings (int, optional): the model config's top-level
                ``original_max_position_embeddings``, where it has one.

        Raises:
            ValueError: an unknown type, a value out of range, or a length the type needs and no
                argument gives.
            TypeError: ``config`` is not a dict, or it has a key the type does not take.
        """
        if config is None:
            return DefaultScaling()
        if not isinstance(config, Mapping):
            raise TypeError(
                f"config must be a dict (a model's rope_scaling / rope_parameters), got {type(config).__name__}"
            )
        for name, value in (
            ("max_position_embeddings", max_position_embeddings),
            ("original_max_position_embeddings", original_max_position_embeddings),
        ):
            if value is not None:
                check_int(name, value, min_value=1)
        rope_type = config.get("rope_type", config.get("type", "default"))
        rope_type = "default" if rope_type == "mrope" else rope_type  # M-RoPE splits the default pairs by axis
        rope_type = "longrope" if rope_type == "su" else rope_type  # Phi-3's first name for it (Phi3Config)
        check_choice("rope_type", rope_type, ROPE_SCALING_CONFIGS)
        own = {f.name for f in dataclasses.fields(ROPE_SCALING_CONFIGS[rope_type])}
        params = {k: v for k, v in config.items() if k not in _MODEL_KEYS or k in own}
        if rope_type == "dynamic":
            if max_position_embeddings is not None:
                params["original_max_position_embeddings"] = max_position_embeddings
        elif rope_type in ("yarn", "llama3", "longrope"):
            if original_max_position_embeddings is not None:
                params["original_max_position_embeddings"] = original_max_position_embeddings
            elif params.get("original_max_position_embeddings") is None and max_position_embeddings is not None:
                params["original_max_position_embeddings"] = max_position_embeddings
            if rope_type in ("yarn", "longrope") and params.get("factor") is None:
                if max_position_embeddings is None or not params.get("original_max_position_embeddings"):
                    raise ValueError(
                        f"a {rope_type} dict without factor needs max_position_embeddings and "
                        f"original_max_position_embeddings (the factor is their ratio)"
                    )
                params["factor"] = max_position_embeddings / params["original_max_position_embeddings"]
        return rope_scaling(rope_type, **params)


DefaultScaling = RopeScaling

#: Keys of a ``rope_scaling`` / ``rope_parameters`` dict that describe the model, not the scaling.
#: keys of a model's rope dict that describe the model, not the frequencies (Ministral 3 / Mistral 4's
#: ``llama_4_scaling_beta`` is a query temperature, see :func:`posenc.llama4_attention_temperature`)
_MODEL_KEYS = (
    "rope_type",
    "type",
    "rope_theta",
    "partial_rotary_factor",
    "mrope_section",
    "mrope_interleaved",
    "llama_4_scaling_beta",
)


def _trained_length(cls_name: str, value: Any, min_value: int = 1) -> int:
    if value is None:
        raise ValueError(f"original_max_position_embeddings (the trained length) is required for {cls_name}")
    return check_int("original_max_position_embeddings", value, min_value=min_value)


def _set(obj: Any, **values: Any) -> None:
    for name, value in values.items():
        object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class LinearScaling(RopeScaling):
    """Position interpolation (Chen et al. 2023): every frequency divided by ``factor`` (>= 1)."""

    rope_type: ClassVar[str] = "linear"
    factor: float = 1.0

    def __post_init__(self) -> None:
        _set(self, factor=check_float("factor", self.factor, ge=1.0))

    def _arguments(self, head_dim, seq_len):
        return {"factor": self.factor}


@dataclass(frozen=True)
class DynamicScaling(RopeScaling):
    """Dynamic NTK (emozilla 2023; YaRN paper section 3.3): the base grows with the current length
    ``seq_len`` beyond ``original_max_position_embeddings``; ``factor`` (>= 1) is a fixed constant."""

    rope_type: ClassVar[str] = "dynamic"
    factor: float = 1.0
    original_max_position_embeddings: int | None = None

    def __post_init__(self) -> None:
        _set(
            self,
            factor=check_float("factor", self.factor, ge=1.0),
            original_max_position_embeddings=_trained_length(
                "rope_type='dynamic'", self.original_max_position_embeddings
            ),
        )

    def _arguments(self, head_dim, seq_len):
        if head_dim < 4:
            raise ValueError(f"head_dim must be >= 4 for rope_type='dynamic' (exponent d / (d - 2)), got {head_dim}")
        return {"factor": self.factor, "train_length": self.original_max_position_embeddings, "seq_len": seq_len}


@dataclass(frozen=True)
class YarnScaling(RopeScaling):
    """YaRN (Peng et al. 2023): fast pairs kept, slow pairs interpolated, a ramp between, and an
    attention factor on cos and sin; ``mscale``/``mscale_all_dim`` are DeepSeek-V2/V3's weights,
    ``truncate=False`` gpt-oss's unrounded ramp (see :func:`~posenc.scaling.rope_scaled_inv_freq`)."""

    rope_type: ClassVar[str] = "yarn"
    factor: float = 1.0
    original_max_position_embeddings: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    attention_factor: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    truncate: bool = True

    def __post_init__(self) -> None:
        beta_slow = check_float("beta_slow", self.beta_slow, gt=0.0)
        beta_fast = check_float("beta_fast", self.beta_fast, gt=0.0)
        if beta_fast < beta_slow:
            raise ValueError(
                f"beta_fast must be >= beta_slow ({beta_slow:g}; the ramp runs from beta_fast "
                f"rotations down to beta_slow), got {beta_fast:g}"
            )
        if not isinstance(self.truncate, bool):
            raise TypeError(
                f"truncate must be a bool (True: round the ramp's ends to whole pairs), "
                f"got {type(self.truncate).__name__} ({self.truncate!r})"
            )
        _set(
            self,
            factor=check_float("factor", self.factor, ge=1.0),
            beta_fast=beta_fast,
            beta_slow=beta_slow,
            original_max_position_embeddings=_trained_length("rope_type='yarn'", self.original_max_position_embeddings),
            attention_factor=None
            if self.attention_factor is None
            else check_float("attention_factor", self.attention_factor, gt=0.0),
            mscale=None if self.mscale is None else check_float("mscale", self.mscale, gt=0.0),
            mscale_all_dim=None
            if self.mscale_all_dim is None
            else check_float("mscale_all_dim", self.mscale_all_dim, gt=0.0),
        )

    @property
    def softmax_scale(self) -> float:
        """The extra factor DeepSeek-V2/V3 put on the softmax scale, ``yarn_mscale(factor, mscale_all_dim) ** 2``
        when ``mscale_all_dim`` is given (Hugging Face ``modeling_deepseek_v3``), else 1.0."""
        return 1.0 if self.mscale_all_dim is None else yarn_mscale(self.factor, self.mscale_all_dim) ** 2

    def _arguments(self, head_dim, seq_len):
        return {
            "factor": self.factor,
            "train_length": self.original_max_position_embeddings,
            "beta_fast": self.beta_fast,
            "beta_slow": self.beta_slow,
            "attention_factor": self.attention_factor,
            "mscale": self.mscale,
            "mscale_all_dim": self.mscale_all_dim,
            "truncate": self.truncate,
        }


@dataclass(frozen=True)
class Llama3Scaling(RopeScaling):
    """Llama 3 (Dubey et al. 2024; Meta's ``apply_scaling``): long wavelengths divided by ``factor``,
    short ones kept, a smooth blend between the band edges ``low_freq_factor <= high_freq_factor``."""

    rope_type: ClassVar[str] = "llama3"
    factor: float = 1.0
    original_max_position_embeddings: int | None = None
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0

    def __post_init__(self) -> None:
        low = check_float("low_freq_factor", self.low_freq_factor, gt=0.0)
        high = check_float("high_freq_factor", self.high_freq_factor, gt=0.0)
        if high < low:
            raise ValueError(
                f"high_freq_factor must be >= low_freq_factor ({low:g}; equal: a hard switch at "
                f"L_orig / low_freq_factor, as Llama 4 Scout), got {high:g}"
            )
        _set(
            self,
            factor=check_float("factor", self.factor, ge=1.0),
            low_freq_factor=low,
            high_freq_factor=high,
            original_max_position_embeddings=_trained_length(
                "rope_type='llama3'", self.original_max_position_embeddings
            ),
        )

    def _arguments(self, head_dim, seq_len):
        return {
            "factor": self.factor,
            "train_length": self.original_max_position_embeddings,
            "low_freq_factor": self.low_freq_factor,
            "high_freq_factor": self.high_freq_factor,
        }


@dataclass(frozen=True)
class LongRopeScaling(RopeScaling):
    """LongRoPE (Ding et al. 2024; Phi-3): a wavelength stretch per pair, ``long_factor`` beyond
    ``original_max_position_embeddings`` and ``short_factor`` within it, each ``d/2`` values > 0."""

    rope_type: ClassVar[str] = "longrope"
    factor: float = 1.0
    original_max_position_embeddings: int | None = None
    short_factor: Sequence[float] | None = None
    long_factor: Sequence[float] | None = None
    attention_factor: float | None = None

    def __post_init__(self) -> None:
        short = factor_list("short_factor", self.short_factor, None)
        long = factor_list("long_factor", self.long_factor, None)
        if len(short) != len(long):
            raise ValueError(
                f"short_factor and long_factor must have the same length (head_dim // 2), "
                f"got {len(short)} and {len(long)}"
            )
        _set(
            self,
            factor=check_float("factor", self.factor, ge=1.0),
            original_max_position_embeddings=_trained_length(
                "rope_type='longrope'", self.original_max_position_embeddings, 2
            ),
            short_factor=_floats(self.short_factor),
            long_factor=_floats(self.long_factor),
            attention_factor=None
            if self.attention_factor is None
            else check_float("attention_factor", self.attention_factor, gt=0.0),
        )

    def _arguments(self, head_dim, seq_len):
        if len(self.short_factor) != head_dim // 2:
            raise ValueError(
                f"short_factor and long_factor must have head_dim // 2 = {head_dim // 2} entries "
                f"(one per rotation pair), got {len(self.short_factor)}"
            )
        return {
            "factor": self.factor,
            "train_length": self.original_max_position_embeddings,
            "seq_len": seq_len,
            "short_factor": torch.tensor(self.short_factor, dtype=torch.float32),
            "long_factor": torch.tensor(self.long_factor, dtype=torch.float32),
            "attention_factor": self.attention_factor,
        }


@dataclass(frozen=True)
class ProportionalScaling(RopeScaling):
    """Proportional RoPE (transformers 5's ``"proportional"``; Gemma 4's full-attention layers use
    ``partial_rotary_factor=0.25`` with ``rope_theta=1e6``): the first ``int(partial_rotary_factor * d // 2)``
    pairs keep ``base ** (-2i/d)`` (the exponent over the whole head dimension ``d``), the others get
    frequency 0 and pass through unrotated; every frequency is divided by ``factor`` (default 1).

    Unlike partial rotary (:class:`~posenc.encodings.rope.RotaryEmbedding`'s ``rotary_dim``, where the
    first ``r`` dimensions turn with frequencies ``base ** (-2i/r)``), the frequencies keep the full
    width's ladder and the tables keep the full width: in the half layout the rotated dimensions are
    ``[0, k)`` and ``[d/2, d/2 + k)``. Here ``partial_rotary_factor`` is a parameter of the frequencies,
    so :meth:`RopeScaling.from_hf` keeps it for this type (for the others it describes the model).
    transformers 5.24's function reads ``factor`` although its config validator lists the key as
    unrecognised for this type; Gemma 4's configs name none.
    """

    rope_type: ClassVar[str] = "proportional"
    factor: float = 1.0
    partial_rotary_factor: float = 1.0

    def __post_init__(self) -> None:
        _set(
            self,
            factor=check_float("factor", self.factor, gt=0.0),
            partial_rotary_factor=check_float("partial_rotary_factor", self.partial_rotary_factor, ge=0.0, le=1.0),
        )

    def _arguments(self, head_dim, seq_len):
        return {"factor": self.factor, "partial_rotary_factor": self.partial_rotary_factor}


def _floats(values: Sequence[float] | torch.Tensor | None) -> tuple[float, ...]:
    """A validated factor list as the numbers given (not rounded to float32, so that :meth:`~RopeScaling.to_hf`
    gives back the published lists; the frequencies round them to float32, as Hugging Face does)."""
    if values is None:  # factor_list has refused it already
        raise ValueError("a LongRoPE factor list is required")
    return tuple(float(v) for v in (values.detach().cpu().tolist() if isinstance(values, torch.Tensor) else values))


#: ``rope_type`` -> configuration class.
ROPE_SCALING_CONFIGS: dict[str, type[RopeScaling]] = {
    "default": RopeScaling,
    "linear": LinearScaling,
    "dynamic": DynamicScaling,
    "yarn": YarnScaling,
    "llama3": Llama3Scaling,
    "longrope": LongRopeScaling,
    "proportional": ProportionalScaling,
}


def rope_scaling(rope_type: str | RopeScaling | None = "default", **params: Any) -> RopeScaling:
    """The validated configuration of ``rope_type`` with ``params`` (its fields), built once.

    A :class:`RopeScaling` (with no ``params``) is returned as it is; None means ``"default"``.

    Raises:
        ValueError: an unknown ``rope_type`` or a parameter out of its range.
        TypeError: a parameter that ``rope_type`` does not have (the message lists the ones it has).
    """
    if isinstance(rope_type, RopeScaling):
        if params:
            raise TypeError(
                f"rope_type is already a configuration ({rope_type!r}); pass no other arguments, got {sorted(params)}"
            )
        return rope_type
    cls = ROPE_SCALING_CONFIGS[
        check_choice("rope_type", "default" if rope_type is None else rope_type, ROPE_SCALING_CONFIGS)
    ]
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise TypeError(
            f"rope_type={cls.rope_type!r} has no parameter {', '.join(unknown)}; "
            f"its parameters: {', '.join(names) or 'none'}"
        )
    return cls(**params)


#: parameter -> the first type that has it
_OWNER: dict[str, type[RopeScaling]] = {}
for _cls in ROPE_SCALING_CONFIGS.values():
    for _field in dataclasses.fields(_cls):
        _OWNER.setdefault(_field.name, _cls)


def rope_scaled_inv_freq(
    head_dim: int, base: float = DEFAULT_BASE, *, rope_type: str = "default", seq_len: int | None = None, **params: Any
) -> tuple[torch.Tensor, float]:
    """RoPE frequencies for context extension, as Hugging Face's ``ROPE_INIT_FUNCTIONS[rope_type]``.

    Builds :func:`rope_scaling` ``(rope_type, **params)`` and returns its
    :meth:`~RopeScaling.inv_freq` ``(head_dim, base, seq_len=seq_len)``. The types and their parameters
    (the fields of the configuration classes, Hugging Face's names):

    - ``"default"``: :func:`posenc.encodings.rope.rope_inv_freq`, ``base ** (-2i/d)``.
    - ``"linear"`` (position interpolation, Chen et al. 2023): every frequency divided by ``factor``.
    - ``"dynamic"`` (dynamic NTK): the base grows to ``base * (factor * L / L_orig - (factor - 1)) ** (d / (d - 2))``
      for the current length ``L = seq_len > L_orig`` (``original_max_position_embeddings``); equals the
      default otherwise.
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
    - ``"proportional"`` (transformers 5; Gemma 4's full-attention layers, ``partial_rotary_factor=0.25``,
      base 1e6): the first ``int(partial_rotary_factor * d // 2)`` pairs keep ``base ** (-2i/d)``, the rest
      get frequency 0; all divided by ``factor`` (default 1). Always ``d/2`` frequencies.

    ``partial_rotary_factor`` belongs to ``"proportional"`` only: for the other types pass the rotated
    width ``r = int(head_dim * partial_rotary_factor)`` as ``head_dim``, as Hugging Face computes them.
    A parameter of another type is validated and not used, as Hugging Face ignores the keys a type
    does not read (``original_max_position_embeddings`` with ``"linear"``, say).

    Args:
        head_dim (int): even rotated width ``d`` (>= 4 for ``"dynamic"``, whose exponent is ``d / (d - 2)``).
        base (float): wavelength base, > 1.
        rope_type (str): one of :data:`ROPE_TYPES`.
        seq_len (int, optional): current length for ``"dynamic"`` and ``"longrope"``.
        **params: the type's parameters (see :mod:`posenc.scaling.config`).

    Returns:
        tuple[torch.Tensor, float]: float32 ``[d/2]`` frequencies and the attention scaling
        (1.0 except for YaRN and LongRoPE).
    """
    cls = ROPE_SCALING_CONFIGS[check_choice("rope_type", rope_type, ROPE_SCALING_CONFIGS)]
    own = {f.name for f in dataclasses.fields(cls)}
    for name, value in params.items():
        if name not in own:
            if name == "partial_rotary_factor":
                raise TypeError(
                    f"partial_rotary_factor is a parameter of rope_type='proportional' only; for "
                    f"rope_type={rope_type!r} pass the rotated width int(head_dim * "
                    f"partial_rotary_factor) as head_dim"
                )
            if name not in _OWNER:
                raise TypeError(
                    f"rope_scaled_inv_freq() got an unknown parameter {name!r}; rope_type={rope_type!r} "
                    f"takes {', '.join(sorted(own)) or 'none'}"
                )
            _check_unused(name, value)
    return cls(**{k: v for k, v in params.items() if k in own}).inv_freq(head_dim, base, seq_len=seq_len)


def _check_unused(name: str, value: Any) -> None:
    """Validate a parameter that this type does not read, with the first type that has it (Hugging Face
    ignores such keys; a value out of every type's range is still an error)."""
    cls = _OWNER[name]
    kwargs = {name: value}
    if name != "original_max_position_embeddings" and "original_max_position_embeddings" in {
        f.name for f in dataclasses.fields(cls)
    }:
        kwargs["original_max_position_embeddings"] = 2
    if cls is LongRopeScaling:
        kwargs.setdefault("short_factor", value)
        kwargs.setdefault("long_factor", value)
    cls(**kwargs)
