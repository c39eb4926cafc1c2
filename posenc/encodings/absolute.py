"""Absolute position encodings: integer, binary, sinusoidal and learned.

Shape legend used in the docstrings:

- ``L``: sequence length (number of positions)
- ``d``: model dimension (``d_model``)
- ``b``: batch size
- ``n_bits``: bits of a binary code

References:
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017 (sinusoidal encoding, section 3.5).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._core.bias import sinusoidal_table
from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import check_choice, check_dtype, check_even, check_float, check_int, check_size, check_tensor

__all__ = [
    "sinusoidal_frequencies",
    "sinusoidal_encoding",
    "sinusoidal_encoding_at",
    "sinusoidal_shift_matrix",
    "integer_encoding",
    "binary_encoding",
    "LearnedPositionalEmbedding",
]


def sinusoidal_frequencies(
    d_model: int,
    base: float = DEFAULT_BASE,
    *,
    method: str = "pow",
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """Angular frequencies ``omega_i = base ** (-2i / d_model)`` of the sinusoidal encoding.

    Two common ways to compute them are offered so the book can compare their rounding:
    ``"pow"`` evaluates ``1 / base ** (2i/d)`` directly (:func:`posenc.encodings.rope.rope_inv_freq`, the
    ladder RoPE uses too); ``"exp_log"`` evaluates ``exp(-ln(base) * 2i/d)`` as in the
    annotated-transformer code. Both run entirely in ``dtype``. ``"pow"`` rounds the exponent
    ``2i/d`` (exactly representable when ``d`` is a power of two), the power and the reciprocal;
    ``"exp_log"`` rounds ``ln(base)/d``, its product with ``2i`` and the exponential, and an exponent
    error ``delta`` becomes a relative error ``delta`` of the frequency. In float16 ``"pow"`` fails
    for a base above 65504: the base itself converts to ``inf``, and every frequency after the first
    is 0 (chapter 2 measures both forms).

    Args:
        d_model (int): even model dimension ``d``.
        base (float): the wavelength base, > 1. Default 10000 (Vaswani et al. 2017).
        method (str): ``"pow"`` or ``"exp_log"``.
        dtype (torch.dtype): floating dtype in which every step is computed.

    Returns:
        torch.Tensor: ``[d // 2]`` frequencies, decreasing from 1 to ``base ** (-(d-2)/d)``.
    """
    d_model = check_even("d_model", d_model)
    base = check_float("base", base, gt=1.0)
    check_choice("method", method, ("pow", "exp_log"))
    check_dtype("dtype", dtype)
    check_size("d_model", d_model, (d_model // 2,), item_bytes=8)
    if method == "pow":
        return frequency_ladder(d_model, base, dtype)
    two_i = torch.arange(0, d_model, 2, dtype=dtype)  # [d/2]
    return torch.exp(two_i * (-math.log(base) / d_model))


def sinusoidal_encoding(
    seq_len: int,
    d_model: int,
    base: float = DEFAULT_BASE,
    *,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """The fixed sinusoidal position encoding of Vaswani et al. (2017), interleaved layout.

    ``PE[p, 2i] = sin(p / base**(2i/d))`` and ``PE[p, 2i+1] = cos(p / base**(2i/d))``.
    Angles are computed in float64 and cast to ``dtype`` at the end, so large positions stay
    accurate in low-precision dtypes.

    tensor2tensor (``get_timing_signal_1d`` in ``tensor2tensor/layers/common_attention.py``) and
    fairseq (``SinusoidalPositionalEmbedding``) differ in two ways: they store ``[sin | cos]``
    halves instead of interleaved pairs, and they space the frequencies as
    ``base ** (-i / (d/2 - 1))`` (the last one exactly ``1/base``) instead of ``base ** (-2i/d)``.
    Their table is therefore not a column permutation of this one; only the ``[sin | cos]`` layout
    with this function's frequencies would be (chapter 2 checks both).

    Args:
        seq_len (int): number of positions ``L`` (>= 0).
        d_model (int): even model dimension ``d`` (>= 2).
        base (float): wavelength base, > 1. Default 10000.
        dtype (torch.dtype): dtype of the result.
        device: device of the result.

    Returns:
        torch.Tensor: ``[L, d]`` encoding; row ``p`` is the encoding of position ``p``.

    Raises:
        ValueError: odd ``d_model``, negative ``seq_len``, ``base <= 1``, or a result above
            the size limit (``posenc.set_max_tensor_bytes`` raises it).
    """
    seq_len = check_int("seq_len", seq_len, min_value=0)
    d_model = check_even("d_model", d_model)
    base = check_float("base", base, gt=1.0)
    check_dtype("dtype", dtype)
    check_size("seq_len", seq_len, (seq_len, d_model), item_bytes=_BUILD_BYTES)
    return sinusoidal_table(torch.arange(seq_len), d_model, base, dtype, device)


_BUILD_BYTES = 24  # bytes per [L, d] entry while the encoding is built in float64


def sinusoidal_encoding_at(
    positions: torch.Tensor,
    d_model: int,
    base: float = DEFAULT_BASE,
    *,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """:func:`sinusoidal_encoding` rows for arbitrary positions (e.g. ``past .. past + L`` when decoding).

    Args:
        positions (torch.Tensor): integer tensor ``[...]`` of positions.
        d_model (int): even encoding width ``d``.
        base (float): wavelength base, > 1.
        dtype (torch.dtype): dtype of the result.
        device: device of the result (default: that of ``positions``).

    Returns:
        torch.Tensor: ``[..., d]``; angles formed in float64, cast at the end.
    """
    check_tensor("positions", positions, floating=False)
    d_model = check_even("d_model", d_model)
    base = check_float("base", base, gt=1.0)
    check_dtype("dtype", dtype)
    n = positions.numel()
    check_size("positions", lambda: f"<{n} positions>", (n, d_model), item_bytes=_BUILD_BYTES)
    return sinusoidal_table(positions, d_model, base, dtype, device)


def sinusoidal_shift_matrix(
    k: int,
    d_model: int,
    base: float = DEFAULT_BASE,
    *,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The matrix ``M_k`` with ``PE(p + k) = M_k PE(p)`` for every position ``p``.

    Block diagonal; the block of pair ``i`` acts on ``(sin, cos)`` and, by the angle-addition
    formulas, is ``[[cos k w_i, sin k w_i], [-sin k w_i, cos k w_i]]``. Drawn with the sine on the
    horizontal axis this turns the point clockwise; the familiar counter-clockwise matrix
    ``[[cos, -sin], [sin, cos]]`` is ``M_{-k}`` and moves the encoding *back* by ``k``.

    Args:
        k (int): the offset (any integer).
        d_model (int): even encoding width ``d``.
        base (float): wavelength base.
        dtype (torch.dtype): dtype of the result.

    Returns:
        torch.Tensor: orthogonal ``[d, d]``, depending on ``k`` only.
    """
    k = check_int("k", k)
    d_model = check_even("d_model", d_model)
    check_dtype("dtype", dtype)
    check_size("d_model", d_model, (d_model, d_model), item_bytes=8)
    omega = frequency_ladder(d_model, check_float("base", base, gt=1.0), torch.float64)  # [d/2]
    c, s = torch.cos(k * omega), torch.sin(k * omega)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(0, d_model, 2)
    m[idx, idx], m[idx, idx + 1] = c, s
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c
    return m.to(dtype)


def integer_encoding(
    seq_len: int,
    d_model: int = 1,
    *,
    normalize: bool = False,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The naive encoding ``PE[p, :] = p`` (or ``p / (L - 1)`` when ``normalize``).

    Shown in the book to explain why it fails: raw integers grow without bound (a LayerNorm that
    follows erases ``p * 1`` entirely; without one they inflate the attention logits), and
    normalising by the length makes the encoding of a position, and the step between neighbours,
    depend on how long the sequence is.

    Args:
        seq_len (int): number of positions ``L`` (>= 0).
        d_model (int): number of identical columns ``d`` (>= 1).
        normalize (bool): divide by ``L - 1`` so the values lie in ``[0, 1]``.
        dtype (torch.dtype): dtype of the result.

    Returns:
        torch.Tensor: ``[L, d]``.
    """
    seq_len = check_int("seq_len", seq_len, min_value=0)
    d_model = check_int("d_model", d_model, min_value=1)
    check_dtype("dtype", dtype)
    check_size("seq_len", seq_len, (seq_len, d_model), item_bytes=8)
    pos = torch.arange(seq_len, dtype=torch.float64)  # [L]
    if normalize and seq_len > 1:
        pos = pos / (seq_len - 1)
    return pos[:, None].expand(seq_len, d_model).to(dtype).contiguous()  # [L, d]


def binary_encoding(seq_len: int, n_bits: int | None = None, *, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Binary codes of the positions, least significant bit first.

    Column 0 flips at every step (like the highest sinusoidal frequency), column ``k`` every
    ``2**k`` steps. Unique and bounded, but discrete: neighbouring positions can differ in many bits
    (7 -> 8 flips four), and a shift by a small ``k`` has no exact affine map (carries depend on the
    low bits; chapter 1 finds exact maps on a 64-row table only for ``k = 16, 32`` and some ``k >= 40``).

    Args:
        seq_len (int): number of positions ``L`` (>= 0).
        n_bits (int, optional): code width; default the fewest bits that hold ``L - 1`` (at least 1).
        dtype (torch.dtype): dtype of the result.

    Returns:
        torch.Tensor: ``[L, n_bits]`` of zeros and ones.

    Raises:
        ValueError: ``n_bits`` too small to represent ``L - 1`` or not in ``[1, 62]``.
    """
    seq_len = check_int("seq_len", seq_len, min_value=0)
    needed = max(1, (seq_len - 1).bit_length()) if seq_len > 0 else 1
    if n_bits is None:
        n_bits = needed
    n_bits = check_int("n_bits", n_bits, min_value=1, max_value=62)
    if n_bits < needed:
        raise ValueError(f"n_bits must be >= {needed} to encode positions up to {seq_len - 1}, got {n_bits}")
    check_dtype("dtype", dtype)
    check_size("seq_len", seq_len, (seq_len, n_bits), item_bytes=16)
    pos = torch.arange(seq_len, dtype=torch.int64)  # [L]
    bits = (pos[:, None] >> torch.arange(n_bits)) & 1  # [L, n_bits]
    return bits.to(dtype)


class LearnedPositionalEmbedding(nn.Module):
    """A trainable table of absolute position vectors (BERT, GPT-2).

    It has exactly ``max_len`` rows, so it has nothing to offer for position ``max_len`` or beyond:
    :meth:`forward` raises instead of silently clamping (nanoGPT asserts ``t <= block_size``
    for the same reason).

    **When the range check waits.** Never on an accelerator: positions given as an int are checked from
    the int, and a position tensor is read (its min and max) only when it lives on the CPU, in eager
    mode, where its values are already on the host. A position tensor on an accelerator (or on the
    meta device, or inside a compiled graph) is not read: an out-of-range position there fails in the
    indexing instead (a device-side assert on CUDA). Attention and ``TinyLM`` check their default
    positions ``0 .. L-1`` from the shapes (:meth:`posenc.LearnedMethod.reserve`), on any device.

    **Deferred initialisation**: built under ``with torch.device("meta"):``, then ``to_empty(device=...)``
    and :meth:`reset_parameters`, the table is drawn as the constructor draws it (the same seed gives
    the same table).

    Args:
        max_len (int): number of trained positions.
        d_model (int): embedding width ``d``.
        init_std (float): standard deviation of the normal initialisation, >= 0. The default 0.02 is
            Hugging Face's GPT-2 (``initializer_range``) and nanoGPT's; OpenAI's GPT-2 code
            (``src/model.py``) initialises its position table ``wpe`` with 0.01 (and ``wte`` with 0.02).
    """

    def __init__(self, max_len: int, d_model: int, *, init_std: float = 0.02) -> None:
        super().__init__()
        self.max_len = check_int("max_len", max_len, min_value=1)
        self.d_model = check_int("d_model", d_model, min_value=1)
        self.init_std = check_float("init_std", init_std, ge=0.0)
        check_size("max_len * d_model", f"{self.max_len} * {self.d_model}", (self.max_len, self.d_model), item_bytes=8)
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the table: standard normal values times ``init_std``, on the table's device."""
        with torch.no_grad():
            self.weight.copy_(torch.randn(self.weight.shape, device=self.weight.device) * self.init_std)

    def check_length(self, n: int) -> None:
        """Refuse positions ``0 .. n - 1`` beyond the table, from ``n`` alone (reads no tensor)."""
        if n > self.max_len:
            raise ValueError(
                f"positions must lie in [0, {self.max_len - 1}] (the trained length max_len="
                f"{self.max_len}); got positions up to {n - 1}. A learned table has no row for "
                f"unseen positions."
            )

    def forward(self, positions: int | torch.Tensor) -> torch.Tensor:
        """Look up position vectors.

        Args:
            positions: an int ``L`` (positions ``0..L-1``) or an integer tensor ``[...]`` of positions.

        Returns:
            torch.Tensor: ``[L, d]`` or ``[..., d]``.

        Raises:
            ValueError: a position is negative or >= ``max_len`` (checked as the class docstring says).
        """
        if isinstance(positions, torch.Tensor):
            check_tensor("positions", positions, floating=False)
            # read only where the values are on the host already: eager, CPU (see the class docstring)
            if positions.device.type == "cpu" and positions.numel() and not torch.compiler.is_compiling():
                low, high = torch.aminmax(positions)
                if low < 0 or high >= self.max_len:
                    raise ValueError(
                        f"positions must lie in [0, {self.max_len - 1}] (the trained length max_len="
                        f"{self.max_len}); got positions from {int(low)} to {int(high)}. A learned table "
                        f"has no row for unseen positions."
                    )
            pos = positions.to(device=self.weight.device, dtype=torch.long)
        else:
            n = check_int("positions", positions, min_value=0)
            check_size("positions", n, (n, self.d_model), item_bytes=4)
            self.check_length(n)
            pos = torch.arange(n, device=self.weight.device)
        return self.weight[pos]  # [..., d]

    def resized(self, new_max_len: int) -> LearnedPositionalEmbedding:
        """A copy whose table is linearly interpolated to ``new_max_len`` rows.

        The patch used to run a learned table past its trained length (ViT interpolates its 2-D
        position embeddings to fine-tune at a higher resolution, Dosovitskiy et al. 2021, section
        3.2). Here the interpolation is linear with ``align_corners=True``: both end rows are kept and
        row ``p`` of the new table is read at the fractional position
        ``p * (max_len - 1) / (new_max_len - 1)`` of the old one. Libraries differ: timm's
        ``resample_abs_pos_embed`` (``timm/layers/pos_embed.py``) calls ``F.interpolate`` bicubic with
        ``antialias=True`` and ``align_corners=False``: row ``p`` is read at
        ``(p + 0.5) * max_len / new_max_len - 0.5`` with a cubic kernel, so not even the end rows are
        kept (in PyTorch ``antialias=True`` also changes an enlargement: it selects Pillow's cubic
        kernel, ``a = -0.5``, instead of ``a = -0.75``). Either way the new rows are blends the model
        never saw in training.

        Args:
            new_max_len (int): rows of the new table (>= 2).

        Returns:
            LearnedPositionalEmbedding: ``[new_max_len, d]`` table.
        """
        new_max_len = check_int("new_max_len", new_max_len, min_value=2)
        check_size("new_max_len", new_max_len, (new_max_len, self.d_model), item_bytes=12)
        table = self.weight.detach().T[None]  # [1, d, max_len]
        new = torch.nn.functional.interpolate(table, size=new_max_len, mode="linear", align_corners=True)
        out = LearnedPositionalEmbedding(new_max_len, self.d_model)
        with torch.no_grad():
            out.weight.copy_(new[0].T)  # [new_max_len, d]
        return out

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}"
