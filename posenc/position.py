"""Position methods as strategies: where and how a position method enters attention.

Every encoding of the book changes attention in one (or two) of four places, and each is one
optional hook of :class:`PositionMethod`; :class:`~posenc.attention.MultiHeadAttention` calls the
hooks and knows no method by name:

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
``KerpleBias`` ``kerple``       ``logit_bias`` (learned)       Chi et al. 2022 (:mod:`posenc.kerple`)
``FireBias`` ``fire``           ``logit_bias`` (learned)       Li et al. 2024 (:mod:`posenc.fire`)
``CoPE`` ``cope``               ``logit_bias`` (from q and k)  Golovneva et al. 2024 (:mod:`posenc.cope`)
==============================  =============================  ==============================================

:data:`POSITION_METHODS` maps the names :class:`~posenc.attention.MultiHeadAttention` and
:class:`~posenc.lm.TinyLM` accept to factories called as ``factory(d_model=..., n_heads=...,
head_dim=..., causal=..., max_len=..., base=..., **options)``; a :class:`MethodFactory` passes each
method the keywords its constructor takes and ignores the rest. Constructors validate their
arguments (the public boundary); the hooks trust theirs.

Shape legend: ``b`` batch, ``L`` new tokens (queries), ``P`` cached tokens, ``T = P + L`` keys,
``D`` model width ``d_model``, ``h`` heads, ``d`` head dimension.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import torch
from torch import nn

from ._validate import check_choice, check_float, check_int
from .absolute import LearnedPositionalEmbedding, _sinusoidal
from .alibi import _alibi_bias, alibi_slopes
from .frequencies import DEFAULT_BASE
from .relative import ShawRelativePosition, T5RelativeBias, _distance_range, _toeplitz
from .rope import LAYOUTS, RotaryEmbedding
from .scaling import ROPE_SCALINGS, ROPE_TYPES, rope_scaled_inv_freq

__all__ = ["PositionMethod", "NoPEMethod", "SinusoidalMethod", "LearnedMethod", "ShawMethod", "T5Method",
           "RopeMethod", "AlibiMethod", "MethodFactory", "POSITION_METHODS"]


class PositionMethod(nn.Module):
    """A position method for :class:`~posenc.attention.MultiHeadAttention`; every hook is optional.

    The base versions do nothing, so a subclass overrides only the hooks of its method. A method
    built for a size sets it as an attribute (``d_model``, ``n_heads`` or ``head_dim``), which
    attention checks against its own. In the order attention calls them:

    - :meth:`encode_input`: ``x [b, L, D]`` -> ``[b, L, D]`` before the projections (absolute encodings).
    - :meth:`rotate_qk`: ``q, k [b, h, L, d]`` -> ``(q, k)`` before the key/value cache (RoPE).
    - :meth:`attend`: replaces ``scaled_dot_product_attention`` entirely (Shaw); None = use SDPA.
    - :meth:`logit_bias`: a float ``[1 or b, h, L, T]`` added to ``q.k / sqrt(d)``, or None.

    Attributes:
        name (str or None): the registry name of a built-in method (None for other methods).
    """

    name: str | None = None

    @classmethod
    def acts_on_input(cls) -> bool:
        """Whether the method encodes the input (overrides :meth:`encode_input`): an absolute encoding,
        which a language model adds once to its token embeddings rather than in every layer."""
        return cls.encode_input is not PositionMethod.encode_input

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        """``x [b, L, D]`` with position ``position_ids [L]`` (int) encoded; the base returns ``x``."""
        return x

    def rotate_qk(self, q: torch.Tensor, k: torch.Tensor,
                  position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """New queries and keys ``[b, h, L, d]`` at ``position_ids [L]``, before the cache; the base returns them."""
        return q, k

    def logit_bias(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool) -> torch.Tensor | None:
        """Float ``[1 or b, h, L, T]`` added to the logits, ``-inf`` where a causal query must not look.

        ``q [b, h, L, d]``, ``k [b, h, T, d]`` (after the cache; queries aligned at the end of the
        keys). The base returns None: attention then applies the plain causal mask itself.
        """
        return None

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool) -> torch.Tensor | None:
        """Attention output ``[b, h, L, d]`` computed by the method itself, or None (the base) to use SDPA."""
        return None


class NoPEMethod(PositionMethod):
    """No position information at all (NoPE; a causal mask still breaks permutation symmetry).

    Kazemnejad et al., "The Impact of Positional Encoding on Length Generalization in Transformers", 2023.
    """

    name = "none"


class SinusoidalMethod(PositionMethod):
    """The fixed sinusoidal encoding added to the input (Vaswani et al. 2017, Section 3.5).

    Args:
        d_model (int): even model width ``D``.
        base (float): wavelength base, > 1.
    """

    name = "sinusoidal"

    def __init__(self, d_model: int, base: float = DEFAULT_BASE) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, min_value=1)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even for sinusoidal encodings (sin/cos pairs), got {self.d_model}")
        self.base = check_float("base", base, gt=1.0)

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        # angles in float64, one rounding to x's dtype
        return x + _sinusoidal(position_ids, self.d_model, self.base, x.dtype, x.device)  # [b, L, D]

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, base={self.base:g}"


class LearnedMethod(PositionMethod):
    """A trainable table of absolute positions added to the input (GPT-2, BERT).

    Positions at or beyond ``max_len`` raise (see :class:`~posenc.absolute.LearnedPositionalEmbedding`).

    Args:
        d_model (int): model width ``D``.
        max_len (int): rows of the table (the trained length).
    """

    name = "learned"

    def __init__(self, d_model: int, max_len: int) -> None:
        super().__init__()
        self.table = LearnedPositionalEmbedding(max_len, d_model)
        self.d_model = self.table.d_model

    def encode_input(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        return x + self.table(position_ids).to(x.dtype)  # [b, L, D]


class ShawMethod(PositionMethod):
    """Shaw et al.'s learned relative keys and values inside attention (2018), clipped at ``max_distance``.

    Its relative values do not fit ``scaled_dot_product_attention``, so it replaces it (:meth:`attend`).

    Args:
        head_dim (int): per-head dimension ``d``.
        max_distance (int): clipping distance ``k`` (>= 0).
    """

    name = "shaw"

    def __init__(self, head_dim: int, max_distance: int = 16) -> None:
        super().__init__()
        self.shaw = ShawRelativePosition(head_dim, max_distance)
        self.head_dim = self.shaw.head_dim

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool) -> torch.Tensor:
        return self.shaw(q, k, v, causal=causal)  # [b, h, L, d]


class _CachedBias(PositionMethod):
    """A bias that depends on the distance only: built for ``L + T - 1`` distances per head, spread
    over the grid (``_toeplitz``, no ``[L, T]`` temporaries) and kept per shape, dtype and device, in
    the 4-D ``[1, h, L, T]`` layout that SDPA's CPU kernel reads fastest (a 3-D mask takes a slower path)."""

    def __init__(self) -> None:
        super().__init__()
        self._bias_cache: dict = {}  # (L, T, dtype, device, causal, table version, inference mode) -> [1, h, L, T]

    def _values(self, causal: bool, dtype: torch.dtype, device: torch.device, q_len: int, k_len: int) -> torch.Tensor:
        """The ``[h, L, T]`` bias of ``dtype`` for ``L`` queries aligned at the end of ``T`` keys."""
        raise NotImplementedError

    def _version(self) -> int:
        """Changes whenever the bias would (a learned table's in-place version counter)."""
        return 0

    def _reusable(self) -> bool:
        return True

    def logit_bias(self, q: torch.Tensor, k: torch.Tensor, *, causal: bool) -> torch.Tensor:
        q_len, k_len = q.shape[-2], k.shape[-2]
        # a bias built under inference_mode is an inference tensor, which autograd refuses to save:
        # one cache entry for each side
        key = (q_len, k_len, q.dtype, q.device, causal, self._version(), torch.is_inference_mode_enabled())
        reusable = self._reusable()
        if reusable and key in self._bias_cache:
            return self._bias_cache[key]
        bias = self._values(causal, q.dtype, q.device, q_len, k_len).unsqueeze(0)  # [1, h, L, T], a view
        if reusable:
            while len(self._bias_cache) >= 2:  # the current shape and one other (e.g. evaluation)
                self._bias_cache.pop(next(iter(self._bias_cache)))
            self._bias_cache[key] = bias
        return bias


class T5Method(_CachedBias):
    """T5's learned scalar bias per (distance bucket, head) on the logits (Raffel et al. 2020).

    The bias is kept between calls only when no gradient is needed and the table has not changed.

    Args:
        n_heads (int): number of heads ``h``.
        causal (bool): decoder buckets (past only) when True, encoder (bidirectional) buckets when False.
        num_buckets (int): number of buckets (T5: 32).
        max_distance (int): where the logarithmic buckets end (T5: 128).
    """

    name = "t5"

    def __init__(self, n_heads: int, *, causal: bool = True, num_buckets: int = 32, max_distance: int = 128) -> None:
        super().__init__()
        self.t5 = T5RelativeBias(n_heads, num_buckets=num_buckets, max_distance=max_distance,
                                 bidirectional=not causal)
        self.n_heads = self.t5.n_heads

    def _version(self) -> int:
        return self.t5.bias.weight._version

    def _reusable(self) -> bool:
        return not torch.is_grad_enabled()

    def _values(self, causal, dtype, device, q_len, k_len):
        dist = _distance_range(q_len, k_len, device=device)  # [L + T - 1]
        values = self.t5._bias_by_distance(dist)  # [h, L + T - 1], in the autograd graph when training
        if causal:
            values = values.masked_fill(dist > 0, float("-inf"))
        return _toeplitz(values.to(dtype), q_len, k_len)  # [h, L, T]


class AlibiMethod(_CachedBias):
    """ALiBi's fixed linear distance bias ``-m_h |j - i|`` on the logits (Press et al. 2022),
    :func:`~posenc.alibi.alibi_bias`'s core with the slopes of :func:`~posenc.alibi.alibi_slopes`.

    Args:
        n_heads (int): number of heads ``h``.
    """

    name = "alibi"

    def __init__(self, n_heads: int) -> None:
        super().__init__()
        self.register_buffer("slopes", alibi_slopes(n_heads), persistent=False)  # [h]
        self.n_heads = len(self.slopes)

    def _values(self, causal, dtype, device, q_len, k_len):
        return _alibi_bias(self.slopes, q_len, k_len, causal=causal, dtype=dtype)  # [h, L, T]


class RopeMethod(PositionMethod):
    """Rotary position embedding of queries and keys (Su et al. 2021), before the key/value cache.

    A context-extension scaling gives the method new frequencies (:meth:`set_scaling`).

    Args:
        head_dim (int): even head dimension ``d``.
        max_len (int): initial length of the cos/sin cache (it grows on demand).
        base (float): wavelength base, > 1.
        layout (str): ``"half"`` (Hugging Face, GPT-NeoX) or ``"interleaved"`` (Meta LLaMA, RoFormer).
    """

    def __init__(self, head_dim: int, max_len: int = 2048, base: float = DEFAULT_BASE, *,
                 layout: str = "half") -> None:
        super().__init__()
        self.name = "rope_interleaved" if check_choice("layout", layout, LAYOUTS) == "interleaved" else "rope"
        self.rotary = RotaryEmbedding(head_dim, check_int("max_len", max_len, min_value=1), base, layout=layout)

    @property
    def head_dim(self) -> int:
        """Head dimension ``d``."""
        return self.rotary.head_dim

    @property
    def inv_freq(self) -> torch.Tensor:
        """The frequencies in use, float32 ``[d/2]`` (scaled after :meth:`set_scaling`)."""
        return self.rotary.inv_freq

    @property
    def attention_scaling(self) -> float:
        """The factor on cos and sin (YaRN's attention factor; 1 otherwise)."""
        return self.rotary.attention_scaling

    def rotate_qk(self, q, k, position_ids):
        return self.rotary(q, position_ids), self.rotary(k, position_ids)

    def set_scaling(self, rope_type: str = "default", *, factor: float = 1.0, train_length: int | None = None,
                    seq_len: int | None = None, beta_fast: float = 32.0, beta_slow: float = 1.0,
                    attention_factor: float | None = None, low_freq_factor: float = 1.0,
                    high_freq_factor: float = 4.0) -> None:
        """Use the frequencies of a context-extension scaling (``"default"`` restores the plain ones).

        The arguments are those of :func:`~posenc.scaling.rope_scaled_inv_freq`, with the trained
        length named ``train_length`` (Hugging Face's ``original_max_position_embeddings``).
        Only this method's cos/sin table is rebuilt (as long as the current one).
        """
        rope_type = check_choice("rope_type", rope_type, ROPE_TYPES)
        if train_length is not None:
            train_length = check_int("train_length", train_length, min_value=1)
        elif "train_length" in inspect.signature(ROPE_SCALINGS[rope_type]).parameters:
            raise ValueError(f"train_length (the trained length) is required for rope_type={rope_type!r}")
        inv_freq, scale = rope_scaled_inv_freq(
            self.head_dim, self.rotary.base, rope_type=rope_type, factor=factor,
            original_max_position_embeddings=train_length, seq_len=seq_len, beta_fast=beta_fast,
            beta_slow=beta_slow, attention_factor=attention_factor, low_freq_factor=low_freq_factor,
            high_freq_factor=high_freq_factor)
        old = self.rotary
        self.rotary = RotaryEmbedding(old.head_dim, old.cache_len, old.base, layout=old.layout, inv_freq=inv_freq,
                                      attention_scaling=scale).to(old.inv_freq.device)


class MethodFactory:
    """Builds a position method from the common configuration, passing only what its constructor takes.

    Args:
        method (type): a :class:`PositionMethod` subclass.
        renamed (dict, optional): constructor parameter -> configuration key, for options whose
            configuration name differs (``{"max_distance": "shaw_max_distance"}``).
        derived (dict, optional): constructor parameter -> function of the configuration, for
            arguments computed from it (``{"npos_max": lambda config: config["max_len"] + 1}``).
        **fixed: constructor arguments fixed by this entry (``layout="interleaved"``).

    Calling it with ``d_model=..., n_heads=..., head_dim=..., causal=..., max_len=..., base=...`` and
    any options returns ``method(**those it takes)``.
    """

    def __init__(self, method: type, renamed: dict[str, str] | None = None,
                 derived: dict[str, Callable[[dict], Any]] | None = None, **fixed: Any) -> None:
        if not (isinstance(method, type) and issubclass(method, PositionMethod)):
            raise TypeError(f"method must be a PositionMethod subclass, got {method!r}")
        self.method = method
        self.renamed = dict(renamed or {})
        self.derived = dict(derived or {})
        self.fixed = fixed
        self._parameters = tuple(inspect.signature(method).parameters)

    def acts_on_input(self) -> bool:
        """Whether the methods built encode the input (see :meth:`PositionMethod.acts_on_input`)."""
        return self.method.acts_on_input()

    def __call__(self, **config: Any) -> PositionMethod:
        kwargs = {p: config[self.renamed.get(p, p)] for p in self._parameters if self.renamed.get(p, p) in config}
        kwargs.update({p: fn(config) for p, fn in self.derived.items()})
        return self.method(**{**kwargs, **self.fixed})

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.fixed.items())
        return f"MethodFactory({self.method.__name__}{extra})"


# The learned and contextual methods (chapter 11) build on PositionMethod and _CachedBias above, so
# their modules are imported once those exist.
from .cope import CoPE  # noqa: E402
from .fire import FireBias  # noqa: E402
from .kerple import KerpleBias  # noqa: E402


#: Name -> factory of the position methods :class:`~posenc.attention.MultiHeadAttention` and
#: :class:`~posenc.lm.TinyLM` accept, in the order of the book's chapters.
POSITION_METHODS: dict[str, Callable[..., PositionMethod]] = {
    "none": MethodFactory(NoPEMethod),
    "sinusoidal": MethodFactory(SinusoidalMethod),
    "learned": MethodFactory(LearnedMethod),
    "shaw": MethodFactory(ShawMethod, {"max_distance": "shaw_max_distance"}),
    "t5": MethodFactory(T5Method, {"num_buckets": "t5_num_buckets", "max_distance": "t5_max_distance"}),
    "rope": MethodFactory(RopeMethod),
    "rope_interleaved": MethodFactory(RopeMethod, layout="interleaved"),
    "alibi": MethodFactory(AlibiMethod),
    "kerple": MethodFactory(KerpleBias),
    # FIRE's threshold starts at a quarter of the trained length (the paper: 512 for 2048 tokens);
    # CoPE has one embedding per position up to the trained length (the reference: block_size + 1)
    "fire": MethodFactory(FireBias, derived={"L_thr_init": lambda config: config["max_len"] / 4}),
    "cope": MethodFactory(CoPE, derived={"npos_max": lambda config: config["max_len"] + 1}),
}

