"""The one frequency ladder behind sinusoidal encodings, RoPE and its scalings.

Pair ``i`` of a ``dim``-wide encoding turns at ``theta_i = base ** (-2i / dim)`` radians per
position, ``i = 0 .. dim/2 - 1``: from one radian per position down to almost ``1 / base``
(wavelengths ``2 pi`` .. ``2 pi * base``). The sinusoidal encoding (Vaswani et al. 2017, section
3.5), RoPE (Su et al. 2021), RoPE's decay bound and the YaRN and Llama 3 scalings all start here.

Shape legend: ``dim`` the encoding width (``d_model`` or ``head_dim``), ``dim/2`` pairs.

One implementation (``posenc._core.freq.frequency_ladder``) and one public name for it,
:func:`posenc.encodings.rope.rope_inv_freq` ``(dim, base, dtype=...)``; this module holds its
default base, :data:`posenc.encodings.frequencies.DEFAULT_BASE`. The other names that return it are
routes to that implementation for their own contexts, not other ladders:

- :func:`posenc.encodings.absolute.sinusoidal_frequencies`: ``method="pow"`` is the ladder over
  ``d_model`` (float64 by default); ``method="exp_log"`` is a second way to round it, for chapter 2.
- :func:`posenc.scaling.rope_scaled_inv_freq` with ``rope_type="default"`` and ``RopeScaling().inv_freq``:
  the registry's unscaled entry (``(ladder, 1.0)``), so that every scaling is one call.

References:
    Vaswani et al., "Attention Is All You Need", 2017, section 3.5.
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, eq. (15).
    Hugging Face transformers ``modeling_rope_utils._compute_default_rope_parameters``.
"""

from __future__ import annotations

from .._core.freq import DEFAULT_BASE

__all__ = ["DEFAULT_BASE"]
