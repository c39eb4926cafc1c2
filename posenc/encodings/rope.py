"""Rotary position embedding (RoPE, 旋转位置编码): the production path.

Frequencies, angles, cos/sin tables, :func:`apply_rope` and the :class:`RotaryEmbedding` module.
The textbook forms (rotation matrices, complex numbers, ``rotate_half``) and the layout
permutations live in :mod:`posenc.encodings.rope_forms`; the context-extension scalings in
:mod:`posenc.scaling`.

Shape legend used in the docstrings:

- ``L``: number of positions (sequence length)
- ``d``: head dimension ``head_dim`` (even); ``d/2`` rotation pairs
- ``b``: batch size, ``h``: number of heads, ``...``: any leading dimensions

Two memory layouts of the same rotation exist in the wild (see :func:`rope_cos_sin`):

- ``"interleaved"``: pair ``i`` is ``(x[2i], x[2i+1])`` (RoFormer, Meta's LLaMA complex form, GPT-J).
- ``"half"``: pair ``i`` is ``(x[i], x[i + d/2])`` (Hugging Face ``rotate_half``, GPT-NeoX).

They give identical attention scores once the rows of ``W_q`` and ``W_k`` are permuted
(:func:`posenc.encodings.rope_forms.permute_qk_weight_for_half`).

Public functions validate their arguments once; the private cores (``_angles``, ``_cos_sin``,
``_apply_rope``) trust theirs, and :class:`RotaryEmbedding` validates at construction and calls the
cores in its forward.

References:
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021.
    Hugging Face transformers ``modeling_rope_utils.py`` and ``modeling_llama.py``.
    torchtune ``modules/position_embeddings.py`` (``RotaryPositionalEmbeddings``).
"""

from __future__ import annotations

import torch
from torch import nn

from .._core import rope as rope_core
from .._core.freq import DEFAULT_BASE, frequency_ladder
from .._core.validate import (
    check_choice,
    check_dtype,
    check_even,
    check_float,
    check_int,
    check_size,
    check_tensor,
    get_max_tensor_bytes,
)
from ..scaling.config import RopeScaling, rope_scaling

__all__ = [
    "LAYOUTS",
    "rope_inv_freq",
    "rope_angles",
    "rope_cos_sin",
    "rope_cos_sin_2d",
    "apply_rope",
    "RotaryEmbedding",
]

LAYOUTS = ("half", "interleaved")


def rope_inv_freq(head_dim: int, base: float = DEFAULT_BASE, *, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Rotation frequencies ``theta_i = base ** (-2i / head_dim)``, i = 0 .. d/2 - 1: the frequency
    ladder (:mod:`posenc.encodings.frequencies`), the public name for it.

    Computed as Hugging Face's default RoPE initialisation does, ``1 / base ** (2i / d)`` with every
    step in ``dtype``: in float32 (the default) the result equals theirs bit for bit, and so do
    tables built from it. The sinusoidal encoding uses the same ladder over ``d_model``.

    Args:
        head_dim (int): even width ``d`` (``head_dim`` for RoPE, ``d_model`` for the sinusoidal encoding).
        base (float): wavelength base (RoFormer: 10000; Llama 3: 500000), > 1.
        dtype (torch.dtype): floating dtype of the computation and the result.

    Returns:
        torch.Tensor: ``[d/2]`` of ``dtype``, decreasing from 1.

    Raises:
        ValueError: odd or non-positive ``head_dim``, ``base <= 1`` or not finite, or a result too large.
        TypeError: non-integer ``head_dim``, non-real ``base``, non-floating ``dtype``.
    """
    head_dim = check_even("head_dim", head_dim)
    check_size("head_dim", head_dim, (head_dim // 2,), item_bytes=8)
    return frequency_ladder(head_dim, check_float("base", base, gt=1.0), check_dtype("dtype", dtype))


def rope_angles(positions: int | torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Rotation angles ``m * theta_i`` in float64.

    float64 rounds the angle by at most half its ulp, below 6e-11 rad up to position 1e6 (for
    ``theta_i <= 1``); float32 is off by up to ``m * 2**-24`` rad and bf16 cannot even represent most
    positions above 256.

    Args:
        positions: int ``L`` (meaning ``arange(L)``) or an integer tensor ``[L]``.
        inv_freq (torch.Tensor): ``[d/2]`` finite frequencies.

    Returns:
        torch.Tensor: float64 ``[L, d/2]``.
    """
    check_tensor("inv_freq", inv_freq, ndim=1, floating=True, finite=True)
    return rope_core.position_angles(rope_core.positions_tensor(positions, len(inv_freq), item_bytes=8), inv_freq)


def rope_cos_sin(
    positions: int | torch.Tensor,
    head_dim: int,
    base: float = DEFAULT_BASE,
    *,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The cos and sin tables that :func:`apply_rope` multiplies with.

    Angles are formed and passed through cos/sin in float64, then cast to ``dtype``, so a bf16
    table is the correctly rounded value rather than the cosine of a rounded angle.

    Args:
        positions: int ``L`` (meaning ``arange(L)``) or a 1-D integer tensor ``[L]`` of positions.
        head_dim (int): even head dimension ``d``.
        base (float): wavelength base, used when ``inv_freq`` is None.
        layout (str): ``"half"`` duplicates the angles as ``cat([a, a])`` (Hugging Face, GPT-NeoX);
            ``"interleaved"`` repeats each angle twice in a row (RoFormer, Meta LLaMA, GPT-J).
        inv_freq (torch.Tensor, optional): ``[d/2]`` finite frequencies to use instead of
            :func:`rope_inv_freq` (e.g. from :func:`posenc.scaling.rope_scaled_inv_freq`).
        dtype (torch.dtype): floating dtype of the returned tables.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(cos, sin)``, each ``[L, d]``.

    Raises:
        ValueError: odd ``head_dim``, unknown ``layout``, ``inv_freq`` of the wrong shape or not
            finite, or tables above the size limit (:func:`posenc.get_max_tensor_bytes`).
    """
    head_dim = check_even("head_dim", head_dim)
    check_choice("layout", layout, LAYOUTS)
    check_dtype("dtype", dtype)
    pos = rope_core.positions_tensor(positions, head_dim, rope_core.TABLE_BYTES, ("head_dim", head_dim))
    if inv_freq is None:
        inv_freq = frequency_ladder(head_dim, check_float("base", base, gt=1.0))
    else:
        rope_core.check_inv_freq(inv_freq, head_dim)
    return rope_core.cos_sin(pos, inv_freq, layout, dtype)


def rope_cos_sin_2d(
    rows: int,
    cols: int,
    head_dim: int,
    base: float = DEFAULT_BASE,
    *,
    layout: str = "half",
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Axial 2-D RoPE tables for a ``rows x cols`` grid of patches, flattened row by row.

    The ``d/2`` rotation pairs are split in two: the first ``d/4`` pairs turn with the row index,
    the last ``d/4`` with the column index, each with frequencies ``base ** (-4i/d)`` (a 1-D RoPE of
    width ``d/2`` per axis). The score of patches ``(r1, c1)`` and ``(r2, c2)`` then depends on
    ``(r2 - r1, c2 - c1)`` only.

    Args:
        rows, cols (int): grid size; position ``p = r * cols + c``.
        head_dim (int): head dimension ``d``, divisible by 4.
        base (float): wavelength base.
        layout (str): ``"half"`` or ``"interleaved"``, as for :func:`rope_cos_sin`.
        dtype (torch.dtype): floating dtype of the tables.

    Returns:
        tuple[torch.Tensor, torch.Tensor]: ``(cos, sin)``, each ``[rows * cols, d]``.
    """
    rows = check_int("rows", rows, min_value=1)
    cols = check_int("cols", cols, min_value=1)
    head_dim = check_int("head_dim", head_dim, min_value=4)
    if head_dim % 4:
        raise ValueError(f"head_dim must be divisible by 4 for 2-D RoPE (two axes of pairs), got {head_dim}")
    check_choice("layout", layout, LAYOUTS)
    check_dtype("dtype", dtype)
    check_size("rows * cols", rows * cols, (rows * cols, head_dim), item_bytes=rope_core.TABLE_BYTES)
    inv_freq = frequency_ladder(head_dim // 2, check_float("base", base, gt=1.0))  # [d/4]
    r, c = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    angles = torch.cat(
        (rope_core.position_angles(r.flatten(), inv_freq), rope_core.position_angles(c.flatten(), inv_freq)), dim=-1
    )  # [P, d/2]
    angles = rope_core.expand(angles, layout)  # [P, d]
    return angles.cos().to(dtype), angles.sin().to(dtype)


def apply_rope(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, layout: str = "half", broadcast: bool = False
) -> torch.Tensor:
    """Rotate every pair of ``x`` by its position's angle.

    For a pair ``(x0, x1)`` and angle ``a`` the result is
    ``(x0 cos a - x1 sin a, x0 sin a + x1 cos a)``: multiplication of ``x0 + i x1`` by ``e^{i a}``.
    In the ``"half"`` layout this equals Hugging Face's ``x * cos + rotate_half(x) * sin``.

    Partial rotary (GPT-J ``rotary_dim``, GPT-NeoX ``rotary_pct``, Phi ``partial_rotary_factor``):
    tables of width ``r < d`` rotate ``x[..., :r]`` and pass ``x[..., r:]`` through unchanged, as
    Hugging Face decides it from the table's size. Build them with ``rope_cos_sin(positions, r, base)``
    (frequencies ``base ** (-2i/r)``), not by slicing ``d``-wide tables.

    Precision: float16 and bfloat16 inputs are rotated in float32 (``cos``/``sin`` cast to float32)
    and the result is cast back to ``x``'s dtype, as Meta's ``apply_rotary_emb`` and torchtune's
    ``RotaryPositionalEmbeddings`` do (Hugging Face's ``apply_rotary_pos_emb`` works in ``x``'s
    dtype). The result is then the correctly rounded rotation, up to float32 noise. Measured on
    ``x ~ N(0, 1)`` ``[4, 8, 256, 128]`` at positions 0-255 and 100 000-100 255, both layouts, against
    the float64 rotation of the same rounded input (largest absolute error): bfloat16 1.5e-2 to 1.6e-2
    (half a bfloat16 ulp of the largest outputs; 2.4e-2 to 2.8e-2 when computed in bfloat16), float16
    1.9e-3 to 2.0e-3 (2.9e-3 to 4.6e-3 in float16). float32 and float64 inputs are computed in their
    own dtype, with the tables cast to it. ``x`` may be any strided view (non-contiguous, odd
    strides) and may have ``L = 0`` positions.

    Args:
        x (torch.Tensor): ``[..., L, d]`` queries or keys, or a single vector ``[d]``.
        cos (torch.Tensor): ``[L, d]`` (one row per position of ``x``), or any shape with those last
            two dimensions that broadcasts over ``x``'s leading ones (e.g. ``[b, 1, L, d]``). For a
            single vector ``x [d]``: ``[d]``, or ``[L, d]`` to place the vector at each of ``L`` positions.
            The last dimension may be an even ``r < d`` (partial rotary).
        sin (torch.Tensor): same shape as ``cos``.
        layout (str): ``"half"`` or ``"interleaved"``; must match the layout the tables were built with.
        broadcast (bool): let tables of one position (``[1, d]`` or ``[d]``) put every row of ``x`` at
            that position; without it, a table whose number of positions differs from ``L`` is an error.

    Returns:
        torch.Tensor: same shape and dtype as ``x`` (``[L, d]`` for a single vector and ``[L, d]`` tables).

    Raises:
        ValueError: odd ``d``, tables of an odd width or wider than ``d``, another number of rows,
            or a shape that would broadcast ``x`` to a larger result.
    """
    check_tensor("x", x, min_ndim=1, floating=True)
    check_tensor("cos", cos, floating=True)
    check_tensor("sin", sin, floating=True)
    check_choice("layout", layout, LAYOUTS)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"x's last dimension (head_dim) must be even, got {d}")
    if cos.shape != sin.shape or cos.ndim == 0:
        raise ValueError(f"cos and sin must share a shape [..., r], got {tuple(cos.shape)} and {tuple(sin.shape)}")
    r = cos.shape[-1]
    if r % 2 or not 2 <= r <= d:
        raise ValueError(
            f"cos and sin must cover an even number r of x's dimensions, 2 <= r <= head_dim={d} "
            f"(r < head_dim: partial rotary), got width {r}"
        )
    if not isinstance(broadcast, bool):
        raise TypeError(f"broadcast must be a bool, got {type(broadcast).__name__}")
    rope_core.check_table_shape(x, torch.Size((*cos.shape[:-1], d)), "cos", broadcast=broadcast)
    return rope_core.apply_partial(x, cos, sin, layout)


#: Where a :class:`RotaryEmbedding` finds the positions of ``x``, counted from the end: ``-2`` for
#: ``[b, h, L, d]`` or any ``[..., L, d]`` (Hugging Face, SDPA), ``-3`` for ``[b, L, h, d]`` (torchtune,
#: flash-attn; rotary-embedding-torch's ``seq_before_head_dim=True``).
SEQ_DIMS = (-2, -3)


class RotaryEmbedding(nn.Module):
    """RoPE as a module: a cos/sin cache that grows on demand and explicit positions.

    Modelled on torchtune's ``RotaryPositionalEmbeddings``: :meth:`forward` takes ``position_ids``
    so key/value-cache decoding (positions ``past, past+1, ...``) and packed sequences (positions
    restarting per document) rotate each token by its own position. The cache is computed in
    float64, stored in float32 and applied as :func:`apply_rope` does (float16/bfloat16 inputs
    rotated in float32 and cast back). When a position beyond the cache is requested the cache is
    rebuilt at twice the needed size (or the needed size, when twice would exceed the memory
    limit). The arguments are validated here, once; the forward checks only the tensors it is given
    and calls the private cores.

    **Where the positions are.** ``seq_dim`` names the dimension of ``x`` that indexes positions:
    ``-2`` (default) for ``[b, h, L, d]`` (Hugging Face's layout; Hugging Face's ``unsqueeze_dim=1``),
    ``-3`` for ``[b, L, h, d]`` (torchtune's layout, ``unsqueeze_dim=2``; rotary-embedding-torch's
    ``seq_before_head_dim=True``). Shapes alone cannot tell the two apart: heads and positions are
    both just sizes, and they may be equal. So the rule is: without ``position_ids`` the module
    trusts ``seq_dim`` (a ``[b, L, h, d]`` tensor passed with the default ``seq_dim=-2`` would be
    rotated by its head index: build the module with ``seq_dim=-3`` for that layout); with
    ``position_ids`` (``[L]`` or ``[b, L]``) their length must equal ``x.shape[seq_dim]``, and when
    it does not but equals the other candidate dimension the error says which ``seq_dim`` to pass.

    **Devices.** Nothing waits on a device. The cache grows from shapes (the default positions
    ``arange(L)``) and is built on the buffers' own device (``posenc._core.rope.cache_tables``:
    float64 there, float32 on Apple's MPS, which has no float64), so growing it starts kernels and
    copies nothing to or from the host. Explicit ``position_ids`` on the CPU in eager mode are read
    (that costs no device wait) to refuse negative ones and grow the cache to the largest; on an
    accelerator, and inside a compiled graph, the cache is read as it is, with an asynchronous
    check that every position lies in it (as torchtune's module, whose cache is fixed at
    ``max_seq_len``): build the module with ``max_seq_len`` covering every position, or call
    :meth:`reserve` first. ``torch.compile(fullgraph=True)`` traces the forward whole (no
    ``.item()``, no ``out=`` writes, no branch on a tensor's value), at several lengths in a row and
    with ``dynamic=True`` over decoding.

    **Deferred initialisation** (FSDP2, torchtune's ``rope_init``): the module can be built under
    ``with torch.device("meta"):`` (its buffers are then shapes only); ``to_empty(device=...)``
    followed by :meth:`reset_parameters` computes the frequencies and the cache on that device. The
    frequencies are always computed on the CPU in float32 (as Hugging Face's initialisation, bit for
    bit) and copied to the buffers' device; buffers are made on the default device
    (``torch.get_default_device()``, i.e. CPU or the device of an enclosing ``with torch.device(...)``),
    as any module's parameters, and move with ``.to()``.

    Args:
        head_dim (int): even head dimension ``d``.
        max_seq_len (int): initial cache length (not a limit: the cache grows).
        base (float): wavelength base.
        layout (str): ``"half"`` (Hugging Face) or ``"interleaved"`` (Meta, RoFormer): which
            dimensions of ``x`` form a rotation pair.
        seq_dim (int): the dimension of ``x`` holding the positions, ``-2`` (``[b, h, L, d]``, default)
            or ``-3`` (``[b, L, h, d]``); see above.
        scaling (RopeScaling, optional): a context-extension scaling (:func:`posenc.rope_scaling`),
            which sets the frequencies and the attention factor; None: plain RoPE.
        seq_len (int, optional): the current length for the scalings that read it (``"dynamic"``,
            ``"longrope"``).
        inv_freq (torch.Tensor, optional): ``[r/2]`` finite frequencies of your own, instead of a
            ``scaling`` (kept, so that :meth:`reset_parameters` can rebuild from them).
        attention_scaling (float): multiplies cos and sin with your own ``inv_freq``; default 1
            (a ``scaling`` brings its own).
        rotary_dim (int, optional): partial rotary (GPT-J ``rotary_dim``; Hugging Face's
            ``int(head_dim * partial_rotary_factor)``): only the first ``r = rotary_dim`` (even,
            ``<= head_dim``) dimensions of ``x`` turn, with frequencies ``base ** (-2i/r)``; the
            others pass through. Default ``head_dim``.
    """

    inv_freq: torch.Tensor  # [r/2] float32 buffers, not in the state dict
    cos_cached: torch.Tensor  # [cache_len, r]
    sin_cached: torch.Tensor

    def __init__(
        self,
        head_dim: int,
        max_seq_len: int = 4096,
        base: float = DEFAULT_BASE,
        *,
        layout: str = "half",
        seq_dim: int = -2,
        scaling: RopeScaling | None = None,
        seq_len: int | None = None,
        inv_freq: torch.Tensor | None = None,
        attention_scaling: float = 1.0,
        rotary_dim: int | None = None,
    ) -> None:
        super().__init__()
        self.head_dim = check_even("head_dim", head_dim)
        self.rotary_dim = (
            self.head_dim if rotary_dim is None else check_even("rotary_dim", rotary_dim, max_value=self.head_dim)
        )
        self.base = check_float("base", base, gt=1.0)
        self.layout = check_choice("layout", layout, LAYOUTS)
        if isinstance(seq_dim, bool) or seq_dim not in SEQ_DIMS:
            raise ValueError(
                f"seq_dim must be -2 (x is [b, h, L, d], Hugging Face) or -3 (x is [b, L, h, d], "
                f"torchtune), got {seq_dim!r}"
            )
        self.seq_dim = int(seq_dim)
        self.max_seq_len = check_int("max_seq_len", max_seq_len, min_value=1)
        check_size("max_seq_len", max_seq_len, (max_seq_len, self.head_dim), item_bytes=rope_core.TABLE_BYTES)
        self.attention_scaling = check_float("attention_scaling", attention_scaling, gt=0.0)
        if scaling is not None and not isinstance(scaling, RopeScaling):
            raise TypeError(
                f"scaling must be a posenc.RopeScaling (from posenc.rope_scaling(rope_type, ...)) or None, "
                f"got {type(scaling).__name__}"
            )
        self.scaling = rope_scaling(scaling)
        if scaling is not None and (inv_freq is not None or attention_scaling != 1.0):
            raise ValueError("pass either scaling or inv_freq / attention_scaling, not both: the scaling sets them")
        if self.scaling.rope_type == "proportional" and self.rotary_dim != self.head_dim:
            raise ValueError(
                "rotary_dim must be head_dim with rope_type='proportional': that scaling rotates part "
                "of the pairs itself (its partial_rotary_factor) and needs the whole width"
            )
        if seq_len is not None:
            seq_len = check_int("seq_len", seq_len, min_value=0)
        self._seq_len = seq_len
        self._given = None  # (inv_freq, attention_scaling) of your own
        if inv_freq is not None:
            rope_core.check_inv_freq(inv_freq, self.rotary_dim, "rotary_dim" if rotary_dim is not None else "head_dim")
            self._given = (inv_freq.detach().float().clone(), self.attention_scaling)
        self._init(torch.get_default_device(), self.max_seq_len)

    def _frequencies(self) -> tuple[torch.Tensor, float]:
        """float32 ``[r/2]`` frequencies and the attention scaling, computed on the CPU (or your own)."""
        if self._given is not None:
            return self._given
        with torch.device("cpu"):  # the same bits wherever the module lives (Hugging Face computes on the CPU)
            if type(self.scaling) is RopeScaling:  # plain RoPE
                return frequency_ladder(self.rotary_dim, self.base), 1.0
            return self.scaling.inv_freq(self.rotary_dim, self.base, seq_len=self._seq_len)

    def _init(self, device: torch.device, n: int) -> None:
        inv_freq, self.attention_scaling = self._frequencies()
        if inv_freq.is_meta and torch.device(device).type != "meta":
            raise ValueError(
                "inv_freq was given as a meta tensor, so its values are unknown: pass real frequencies "
                "(built outside `with torch.device('meta')`) or a scaling"
            )
        self.register_buffer("inv_freq", inv_freq.to(device=device, dtype=torch.float32), persistent=False)
        self._build_cache(n)

    def rope_init(self) -> None:
        """Compute the frequencies and the cos/sin cache (as long as the current one) on the buffers' device.

        torchtune's name; after ``to_empty(device=...)`` of a module built on the meta device, call it
        (or :meth:`reset_parameters`) to fill the buffers.
        """
        self._init(self.inv_freq.device, self.cache_len)

    def reset_parameters(self) -> None:
        """The module has no parameters; this fills its buffers (:meth:`rope_init`), as FSDP2's and
        torchtune's deferred initialisation call it after ``to_empty``."""
        self.rope_init()

    def _build_cache(self, n: int) -> None:
        cos, sin = rope_core.cache_tables(self.inv_freq, n, self.layout, self.attention_scaling)  # [n, r] each
        self.register_buffer("cos_cached", cos, persistent=False)
        self.register_buffer("sin_cached", sin, persistent=False)

    @property
    def cache_len(self) -> int:
        """Number of positions currently in the cache."""
        return self.cos_cached.shape[0]

    def _check_position_ids(self, position_ids: torch.Tensor) -> None:
        check_tensor("position_ids", position_ids, floating=False)
        if position_ids.numel() == 0:
            return
        low, high = int(position_ids.min()), int(position_ids.max())
        if low < 0:
            raise ValueError(f"position_ids must be >= 0, got {low}")
        check_size("position_ids", lambda: f"<max {high}>", (high + 1, self.head_dim), item_bytes=rope_core.TABLE_BYTES)

    def reserve(self, n: int) -> None:
        """Make the cache cover positions ``0 .. n - 1`` (before a compiled call that needs them).

        The cache grows to twice its length, or to ``n`` when that is more or when twice would exceed
        the memory limit; it never shrinks. It is built on the buffers' device: nothing waits.
        """
        n = check_int("n", n, min_value=0)
        check_size("n", n, (n, self.head_dim), item_bytes=rope_core.TABLE_BYTES)
        if n > self.cache_len:
            doubled = 2 * self.cache_len
            fits = doubled * self.rotary_dim * rope_core.TABLE_BYTES <= get_max_tensor_bytes()
            self._build_cache(max(n, doubled) if fits else n)

    def _cover(self, position_ids: torch.Tensor) -> None:
        """Make sure the cache covers ``position_ids`` without waiting on a device.

        Eager, on the CPU (where reading a value costs no device wait): refuse negative positions and
        grow the cache to the largest. On an accelerator or inside a compiled graph: an asynchronous
        check that every position lies in ``[0, cache_len)``, which fails when the result is used.
        """
        if position_ids.device.type == "cpu" and not torch.compiler.is_compiling():
            self._check_position_ids(position_ids)
            if position_ids.numel():
                self.reserve(int(position_ids.max()) + 1)
            return
        if position_ids.numel() == 0:
            return
        n = self.cache_len
        # min and max rather than ``((p >= 0) & (p < n)).all()``: inductor's vectorised CPU code for that
        # bool reduction reads past its tail (torch 2.13) and aborts the process about two runs in three
        low, high = position_ids.aminmax()
        torch._assert_async(
            (low >= 0) & (high < n),
            f"position_ids must lie in [0, {n}) (the cos/sin cache): call reserve(n) for more",
        )

    def _lookup(self, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Cached tables for checked positions (the cache covers them)."""
        ids = position_ids.to(self.cos_cached.device)
        return self.cos_cached[ids], self.sin_cached[ids]

    def cos_sin(self, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Cached tables for the given positions: ``[..., r]`` each (``r = rotary_dim``), for integer
        ``position_ids`` ``[...]`` >= 0 (the cache grows to cover them)."""
        self._check_position_ids(position_ids)
        if position_ids.numel():
            self.reserve(int(position_ids.max()) + 1)
        return self._lookup(position_ids)

    def _wrong_length(self, x: torch.Tensor, n: int, what: str) -> ValueError:
        """The error for ``n`` positions that do not match ``x.shape[seq_dim]``, saying which ``seq_dim`` fits."""
        layouts = {-2: "[b, h, L, d]", -3: "[b, L, h, d]"}
        other = -3 if self.seq_dim == -2 else -2
        hint = ""
        if x.ndim >= 3 and x.shape[other] == n:
            hint = (
                f"; x's dimension {other} has {n}: if x is {layouts[other]}, build "
                f"RotaryEmbedding(..., seq_dim={other})"
            )
        return ValueError(
            f"{what} must be [L] or [b, L] with L = x.shape[{self.seq_dim}] = {x.shape[self.seq_dim]} "
            f"(seq_dim={self.seq_dim}: x is {layouts[self.seq_dim]}), got {n} positions{hint}"
        )

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor | None = None) -> torch.Tensor:
        """Rotate ``x`` by its positions.

        Args:
            x (torch.Tensor): with ``seq_dim=-2``: ``[b, h, L, d]`` (or any ``[..., L, d]``); with
                ``seq_dim=-3``: ``[b, L, h, d]`` (or any ``[..., L, h, d]``). Any floating dtype, any strides.
            position_ids (torch.Tensor, optional): integer ``[L]`` shared by the batch, or ``[b, L]`` per
                sequence; default ``arange(L)``.

        Returns:
            torch.Tensor: same shape and dtype as ``x``.

        Raises:
            ValueError: ``x``'s last dimension is not ``head_dim``; ``position_ids`` of another length
                than ``x.shape[seq_dim]`` (naming the ``seq_dim`` that fits, when one does) or negative.
        """
        check_tensor("x", x, min_ndim=-self.seq_dim, floating=True)
        if x.shape[-1] != self.head_dim:
            raise ValueError(f"x's last dimension must be head_dim={self.head_dim}, got {x.shape[-1]}")
        seq_len = x.shape[self.seq_dim]
        heads = (1,) * (-2 - self.seq_dim)  # a singleton head dimension after L for [b, L, h, d]
        if position_ids is None:
            if not torch.compiler.is_compiling():
                self.reserve(seq_len)  # from the shape: no tensor value is read
            shape = (seq_len, *heads, self.rotary_dim)  # [L, r] or [L, 1, r]
            return rope_core.apply_partial(
                x, self.cos_cached[:seq_len].view(shape), self.sin_cached[:seq_len].view(shape), self.layout
            )
        check_tensor("position_ids", position_ids, floating=False)
        if position_ids.ndim not in (1, 2):
            raise ValueError(f"position_ids must be [L] or [b, L], got shape {tuple(position_ids.shape)}")
        if position_ids.shape[-1] != seq_len:
            raise self._wrong_length(x, position_ids.shape[-1], "position_ids")
        if position_ids.ndim == 2 and x.ndim == 4 and self.seq_dim == -2:  # [b, L] with [b, h, L, d]
            table_shape = (position_ids.shape[0], 1, seq_len, self.head_dim)  # broadcast over heads
        else:
            table_shape = (*position_ids.shape, *heads, self.head_dim)  # [(b,) L, (1,) d]
        rope_core.check_table_shape(x, torch.Size(table_shape), "position_ids", broadcast=True)
        self._cover(position_ids)
        cos, sin = self._lookup(position_ids)  # [L, r] or [b, L, r]; the cache covers the positions
        rot_shape = (*table_shape[:-1], self.rotary_dim)
        return rope_core.apply_partial(x, cos.view(rot_shape), sin.view(rot_shape), self.layout)

    def extra_repr(self) -> str:
        partial = "" if self.rotary_dim == self.head_dim else f", rotary_dim={self.rotary_dim}"
        seq = "" if self.seq_dim == -2 else f", seq_dim={self.seq_dim}"
        return (
            f"head_dim={self.head_dim}{partial}, base={self.base:g}, layout={self.layout!r}{seq}, "
            f"cache_len={self.cache_len}"
        )
