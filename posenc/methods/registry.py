"""The registry of built-in position methods, built in one place, and :func:`build_method`.

==============================  =============================  ==============================================
method (registry name)          hook                           reference
==============================  =============================  ==============================================
:class:`NoPEMethod` ``none``    none (NoPE)                    Kazemnejad et al. 2023
:class:`SinusoidalMethod`       ``encode_input``               Vaswani et al. 2017
:class:`LearnedMethod`          ``encode_input``               GPT-2, BERT
:class:`ShawMethod`             ``attend``                     Shaw et al. 2018
:class:`T5Method`               ``logit_bias`` (learned)       Raffel et al. 2020
:class:`RopeMethod`             ``rotate_qk``                  Su et al. 2021; HF (half), Meta (interleaved)
:class:`AlibiMethod`            ``logit_bias`` (fixed)         Press et al. 2022
:class:`KerpleBias` ``kerple``  ``logit_bias`` (learned)       Chi et al. 2022
:class:`FireBias` ``fire``      ``logit_bias`` (learned)       Li et al. 2024
:class:`CoPE` ``cope``          ``logit_bias`` (from q and k)  Golovneva et al. 2024
==============================  =============================  ==============================================

Each method class builds itself for an attention's sizes with its classmethod ``build(*, d_model,
n_heads, head_dim, causal, max_len, **options)``, whose keyword-only parameters after the sizes are
that method's own options (RoPE's ``base``, ``layout`` and ``scaling``; T5's ``num_buckets`` and
``max_distance``; Shaw's ``max_distance`` ...). ``max_len`` is the trained (or expected) length,
which sizes the learned table, RoPE's initial cache, FIRE's initial threshold and CoPE's positions.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .._core.validate import check_choice, check_int
from .alibi import AlibiMethod
from .base import PositionMethod
from .cope import CoPE
from .fire import FireBias
from .kerple import KerpleBias
from .learned import LearnedMethod
from .nope import NoPEMethod
from .rope import RopeMethod
from .shaw import ShawMethod
from .sinusoidal import SinusoidalMethod
from .t5 import T5Method

__all__ = ["POSITION_METHODS", "build_method", "method_options"]

_SIZES = ("d_model", "n_heads", "head_dim", "causal", "max_len")

#: Name -> position method class, in the order of the book's chapters. ``"rope_interleaved"`` is
#: :class:`RopeMethod` with ``layout="interleaved"``.
POSITION_METHODS: dict[str, type[PositionMethod]] = {
    "none": NoPEMethod,
    "sinusoidal": SinusoidalMethod,
    "learned": LearnedMethod,
    "shaw": ShawMethod,
    "t5": T5Method,
    "rope": RopeMethod,
    "rope_interleaved": RopeMethod,
    "alibi": AlibiMethod,
    "kerple": KerpleBias,
    "fire": FireBias,
    "cope": CoPE,
}
_FIXED = {"rope_interleaved": {"layout": "interleaved"}}


@functools.cache
def method_options(name: str) -> tuple[str, ...]:
    """The options (keyword arguments after the sizes) that the method ``name`` takes."""
    name = check_choice("position", name, POSITION_METHODS)
    params = inspect.signature(POSITION_METHODS[name].build).parameters
    return tuple(p for p in params if p not in _SIZES and p not in _FIXED.get(name, {}))


def build_method(
    name: str, *, d_model: int, n_heads: int, causal: bool = True, max_len: int = 2048, **options: Any
) -> PositionMethod:
    """The position method ``name`` (a key of :data:`POSITION_METHODS`) for an attention of ``d_model``
    over ``n_heads`` heads, with that method's own ``options``.

    Raises:
        ValueError: an unknown name, or sizes or options out of range (the method's own message).
        TypeError: an option the method does not take (the message lists the ones it takes).
    """
    name = check_choice("position", name, POSITION_METHODS)
    d_model = check_int("d_model", d_model, min_value=1)
    n_heads = check_int("n_heads", n_heads, min_value=1)
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
    max_len = check_int("max_len", max_len, min_value=1)
    allowed = method_options(name)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"position={name!r} takes no option {', '.join(unknown)}; its options: {', '.join(allowed) or 'none'}"
        )
    return POSITION_METHODS[name].build(
        d_model=d_model,
        n_heads=n_heads,
        head_dim=d_model // n_heads,
        causal=causal,
        max_len=max_len,
        **options,
        **_FIXED.get(name, {}),
    )
