"""Known-wrong implementations (mutants) and differently computed correct ones for posenc.practice.

Each mutant is written the way a learner (or a blog, or a port) wrote it, not copied from the
checker's own list of mistakes: it must be recognised by its output. ``MUTANTS[task]`` is a list of
``(diagnosis substring, fn)``: ``check(task, fn)`` must fail and its first diagnosis must contain the
substring. ``CORRECT[task]`` lists correct solutions computed another way (complex numbers, matrices,
loops, float64 inside); each must pass.

Where a mutant comes from (see ../shared/notes/references.md and the seeds):
- clockwise rotation: a blog's M_k at odds with its own formula; the minus sign lost in labml's docstring;
- interleaved vs half layout: Hugging Face issues #25199, #31859, #34740, flash-attention #288;
- bf16/fp16 angles: position 15962 rounds to 15936/15968 in bf16, fp16 overflows past 65504;
- ALiBi slopes linear in the head index (a widely copied snippet); non-power-of-two head counts got
  wrong by several ports;
- positions past a learned table (nanoGPT asserts t <= block_size; clamping or wrapping hides it);
- T5's sign convention (relative = key - query) and its decoder buckets.
"""

from __future__ import annotations

import math

import torch

import posenc

# ---------------------------------------------------------------------------------------------
# helpers a learner would write


def _freqs(d, base, step=2.0, start=0):
    i = torch.arange(start, start + d // 2, dtype=torch.float32)
    return 1.0 / (base ** (step * i / d))


def _interleave(a, b):
    return torch.stack([a, b], dim=-1).flatten(-2)


# ---------------------------------------------------------------------------------------------
# sinusoidal_encoding
def sin_loops(seq_len, d_model, base=10000.0):
    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    for p in range(seq_len):
        for i in range(0, d_model, 2):
            angle = p / base ** (i / d_model)
            pe[p, i] = math.sin(angle)
            pe[p, i + 1] = math.cos(angle)
    return pe.float()


def sin_exp_log(seq_len, d_model, base=10000.0):  # the Annotated Transformer's exp(-log) form
    pos = torch.arange(seq_len).unsqueeze(1).float()
    div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    pe = torch.zeros(seq_len, d_model)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


def sin_i_over_d(seq_len, d_model, base=10000.0):
    pos = torch.arange(seq_len).float()[:, None]
    i = torch.arange(d_model // 2).float()
    ang = pos / base ** (i / d_model)
    return _interleave(ang.sin(), ang.cos())


def sin_doubled_exponent(seq_len, d_model, base=10000.0):  # arange(0, d, 2) is 2i already; doubled again
    two_i = torch.arange(0, d_model, 2).float()
    ang = torch.arange(seq_len).float()[:, None] / torch.pow(base, 2 * two_i / d_model)
    return _interleave(ang.sin(), ang.cos())


def sin_from_one(seq_len, d_model, base=10000.0):
    pos = torch.arange(1, seq_len + 1).float()[:, None]
    ang = pos * _freqs(d_model, base)
    return _interleave(ang.sin(), ang.cos())


def sin_concat(seq_len, d_model, base=10000.0):
    ang = torch.arange(seq_len).float()[:, None] * _freqs(d_model, base)
    return torch.cat([ang.sin(), ang.cos()], dim=-1)


def sin_swapped(seq_len, d_model, base=10000.0):
    ang = torch.arange(seq_len).float()[:, None] * _freqs(d_model, base)
    return _interleave(ang.cos(), ang.sin())


def sin_fp16(seq_len, d_model, base=10000.0):
    pos = torch.arange(seq_len, dtype=torch.float16)[:, None]
    ang = pos * _freqs(d_model, base).half()
    return _interleave(ang.float().sin(), ang.float().cos())


def sin_cast_half(seq_len, d_model, base=10000.0):  # a float32 table returned as float16
    return sin_loops(seq_len, d_model, base).half()


def sin_all_nan(seq_len, d_model, base=10000.0):  # 0/0 somewhere upstream: every entry NaN
    return torch.full((seq_len, d_model), float("nan"))


def sin_wavelength(seq_len, d_model, base=10000.0):
    pos = torch.arange(seq_len).double()[:, None]
    ang = pos * base ** (torch.arange(0, d_model, 2).double() / d_model)
    return _interleave(ang.sin(), ang.cos()).float()


def sin_fixed_base(seq_len, d_model, base=10000.0):
    return sin_exp_log(seq_len, d_model, 10000.0)


# ---------------------------------------------------------------------------------------------
# sinusoidal_concat (tensor2tensor get_timing_signal_1d)
def t2t_numpy_style(seq_len, d_model, base=10000.0):
    n = d_model // 2
    log_inc = math.log(float(base)) / max(n - 1, 1)
    inv = [math.exp(-k * log_inc) for k in range(n)]
    rows = [[math.sin(p * w) for w in inv] + [math.cos(p * w) for w in inv] for p in range(seq_len)]
    return torch.tensor(rows, dtype=torch.float32).reshape(seq_len, d_model)


def t2t_vaswani_freqs(seq_len, d_model, base=10000.0):
    return sin_concat(seq_len, d_model, base)


def t2t_interleaved(seq_len, d_model, base=10000.0):
    n = d_model // 2
    inv = base ** (-torch.arange(n, dtype=torch.float64) / max(n - 1, 1))
    ang = torch.arange(seq_len, dtype=torch.float64)[:, None] * inv
    return _interleave(ang.sin(), ang.cos()).float()


def t2t_from_one(seq_len, d_model, base=10000.0):
    n = d_model // 2
    inv = base ** (-torch.arange(n, dtype=torch.float64) / max(n - 1, 1))
    ang = torch.arange(1, seq_len + 1, dtype=torch.float64)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1).float()


def t2t_cos_first(seq_len, d_model, base=10000.0):
    out = t2t_numpy_style(seq_len, d_model, base)
    return torch.cat([out[:, d_model // 2 :], out[:, : d_model // 2]], -1)


def t2t_fp16(seq_len, d_model, base=10000.0):
    n = d_model // 2
    inv = (base ** (-torch.arange(n, dtype=torch.float64) / max(n - 1, 1))).half()
    ang = (torch.arange(seq_len).half()[:, None] * inv).float()
    return torch.cat([ang.sin(), ang.cos()], -1)


# ---------------------------------------------------------------------------------------------
# learned_lookup
def learned_checked(table, positions):
    if positions.numel() and (positions.min() < 0 or positions.max() >= table.shape[0]):
        raise ValueError(f"positions must lie in [0, {table.shape[0] - 1}]")
    return torch.nn.functional.embedding(positions, table)


def learned_onehot(table, positions):
    if ((positions < 0) | (positions >= table.shape[0])).any():
        raise IndexError("position past the table")
    onehot = torch.nn.functional.one_hot(positions, table.shape[0]).to(table.dtype)
    return onehot @ table


def learned_plain_index(table, positions):
    return table[positions]  # 8 raises, -1 silently reads the last row


def learned_clamp(table, positions):
    return table[positions.clamp(0, table.shape[0] - 1)]


def learned_modulo(table, positions):
    return table[positions % table.shape[0]]


def learned_off_by_one(table, positions):
    assert (positions >= 0).all() and (positions < table.shape[0] - 1).all(), "past the table"
    return table[positions]


def learned_from_one(table, positions):
    if (positions < 0).any() or (positions >= table.shape[0]).any():
        raise IndexError("past")
    return table[torch.minimum(positions + 1, torch.tensor(table.shape[0] - 1))]


def learned_assert(table, positions):  # nanoGPT: assert t <= block_size
    assert positions.numel() == 0 or (int(positions.max()) < table.shape[0] and int(positions.min()) >= 0), (
        "cannot forward past block_size"
    )
    return table[positions]


def learned_min_on_empty(table, positions):  # right, but min() of no positions raises
    if int(positions.min()) < 0 or int(positions.max()) >= table.shape[0]:
        raise IndexError("position outside the table")
    return table[positions]


def learned_view(table, positions):  # F.embedding, correct: a new tensor; the table is left alone
    out = torch.nn.functional.embedding(positions.reshape(-1), table) if positions.numel() else table[:0]
    if positions.numel() and (positions.min() < 0 or positions.max() >= table.shape[0]):
        raise IndexError("past")
    return out.reshape(*positions.shape, table.shape[1])


def learned_typo(table, positions):
    if (positions < 0).any() or (positions >= table.shape[0]).any():
        raise IndexErorr("past the table")  # noqa: F821 - the typo is the mistake: a NameError, not a refusal
    return table[positions]


def learned_arange(table, positions):
    if (positions < 0).any() or (positions >= table.shape[0]).any():
        raise ValueError("past")
    return table[: positions.numel()].view(*positions.shape, -1)


# ---------------------------------------------------------------------------------------------
# shaw_relative_index
def shaw_loops(q_len, max_distance):
    out = torch.empty(q_len, q_len, dtype=torch.long)
    for i in range(q_len):
        for j in range(q_len):
            out[i, j] = min(max(j - i, -max_distance), max_distance) + max_distance
    return out


def shaw_broadcast(q_len, max_distance):
    r = torch.arange(q_len)
    return torch.clamp(r[None, :] - r[:, None], -max_distance, max_distance) + max_distance


def shaw_query_minus_key(q_len, max_distance):
    r = torch.arange(q_len)
    return torch.clamp(r[:, None] - r[None, :], -max_distance, max_distance) + max_distance


def shaw_no_shift(q_len, max_distance):
    r = torch.arange(q_len)
    return torch.clamp(r[None, :] - r[:, None], -max_distance, max_distance)


def shaw_no_clip(q_len, max_distance):
    r = torch.arange(q_len)
    return r[None, :] - r[:, None] + max_distance


def shaw_abs(q_len, max_distance):
    r = torch.arange(q_len)
    return torch.clamp((r[None, :] - r[:, None]).abs(), max=max_distance) + max_distance


def shaw_off_by_one(q_len, max_distance):
    r = torch.arange(q_len)
    return torch.clamp(r[None, :] - r[:, None], -max_distance + 1, max_distance - 1) + max_distance


def shaw_float(q_len, max_distance):
    return shaw_broadcast(q_len, max_distance).float()


# ---------------------------------------------------------------------------------------------
# shaw_attention
def shaw_attn_gather(q, k, v, rel_k, rel_v):
    d, L = q.shape[-1], q.shape[-2]
    kk = (rel_k.shape[0] - 1) // 2
    idx = shaw_broadcast(L, kk)
    rk, rv = rel_k[idx], rel_v[idx]  # [L, L, d]
    s = (q @ k.transpose(-1, -2) + (q.unsqueeze(-2) * rk).sum(-1)) / math.sqrt(d)
    s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    a = s.softmax(-1)
    return a @ v + (a.unsqueeze(-1) * rv).sum(-2)


def _shaw_attn(q, k, v, rel_k, rel_v, idx_fn=shaw_broadcast, value=True, scale_all=True, mask=1):
    d, L = q.shape[-1], q.shape[-2]
    kk = (rel_k.shape[0] - 1) // 2
    idx = idx_fn(L, kk)
    content = q @ k.transpose(-1, -2)
    rel = torch.einsum("...id,ijd->...ij", q, rel_k[idx])
    s = (content + rel) / math.sqrt(d) if scale_all else content / math.sqrt(d) + rel
    if mask is not None:
        s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(mask), float("-inf"))
    a = s.softmax(-1)
    out = a @ v
    return out + torch.einsum("...ij,ijd->...id", a, rel_v[idx]) if value else out


def shaw_attn_sign(q, k, v, rel_k, rel_v):
    return _shaw_attn(q, k, v, rel_k, rel_v, idx_fn=shaw_query_minus_key)


def shaw_attn_no_value(q, k, v, rel_k, rel_v):
    return _shaw_attn(q, k, v, rel_k, rel_v, value=False)


def shaw_attn_unscaled_rel(q, k, v, rel_k, rel_v):
    return _shaw_attn(q, k, v, rel_k, rel_v, scale_all=False)


def shaw_attn_no_mask(q, k, v, rel_k, rel_v):
    return _shaw_attn(q, k, v, rel_k, rel_v, mask=None)


def shaw_attn_diag_mask(q, k, v, rel_k, rel_v):
    return _shaw_attn(q, k, v, rel_k, rel_v, mask=0)


# ---------------------------------------------------------------------------------------------
# T5 buckets
def t5_hf_copy(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Hugging Face's T5Attention._relative_position_bucket, line for line."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def t5_python_loop(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    def one(n):
        ret, nb = 0, num_buckets
        if bidirectional:
            nb //= 2
            ret += nb if n > 0 else 0
            n = abs(n)
        else:
            n = max(-n, 0)
        max_exact = nb // 2
        if n < max_exact:
            return ret + n
        v = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (nb - max_exact))
        return ret + min(v, nb - 1)

    flat = [one(int(n)) for n in relative_position.reshape(-1)]
    return torch.tensor(flat, dtype=torch.long).reshape(relative_position.shape)


def t5_q_minus_k(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return t5_hf_copy(-relative_position, bidirectional, num_buckets, max_distance)


def t5_swapped_halves(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    out = t5_hf_copy(relative_position, bidirectional, num_buckets, max_distance)
    if bidirectional:
        half = num_buckets // 2
        out = torch.where(relative_position > 0, out - half, torch.where(relative_position < 0, out + half, out))
    return out


def t5_causal_abs(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    if bidirectional:
        return t5_hf_copy(relative_position, True, num_buckets, max_distance)
    n = relative_position.abs()
    max_exact = num_buckets // 2
    large = (
        max_exact
        + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    )
    return torch.where(n < max_exact, n, large.clamp(max=num_buckets - 1))


def t5_no_halving(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    if not bidirectional:
        return t5_hf_copy(relative_position, False, num_buckets, max_distance)
    n = relative_position.abs()
    max_exact = num_buckets // 2
    large = (
        max_exact
        + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    )
    return (relative_position > 0).long() * num_buckets + torch.where(
        n < max_exact, n, large.clamp(max=num_buckets - 1)
    )


def t5_exact_before_halving(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    max_exact = num_buckets // 2  # taken before num_buckets is halved below
    ret = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        ret += (relative_position > 0).long() * num_buckets
        n = relative_position.abs()
    else:
        n = -torch.clamp(relative_position, max=0)
    large = (
        max_exact
        + (
            torch.log(n.float().clamp(min=1) / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).long()
    )
    return ret + torch.where(n < max_exact, n, large.clamp(max=num_buckets - 1))


def t5_no_clamp(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    rb, nb = 0, num_buckets
    if bidirectional:
        nb //= 2
        rb = (relative_position > 0).long() * nb
        n = relative_position.abs()
    else:
        n = (-relative_position).clamp(min=0)
    max_exact = nb // 2
    large = (
        max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (nb - max_exact)).long()
    )
    return rb + torch.where(n < max_exact, n, large)


def t5_fixed_max_distance(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, bidirectional, num_buckets, 128)


def t5_rounded(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    rb, nb = 0, num_buckets
    if bidirectional:
        nb //= 2
        rb = (relative_position > 0).long() * nb
        n = relative_position.abs()
    else:
        n = (-relative_position).clamp(min=0)
    max_exact = nb // 2
    large = (
        max_exact
        + torch.round(torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (nb - max_exact)).long()
    )
    return rb + torch.where(n < max_exact, n, large.clamp(max=nb - 1))


# t5_causal_bucket (the decoder's buckets)
def t5c_hf(relative_position, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, False, num_buckets, max_distance)


def t5c_loop(relative_position, num_buckets=32, max_distance=128):
    return t5_python_loop(relative_position, False, num_buckets, max_distance)


def il_pair_swapped(x, cos, sin):  # the two rotated coordinates of each pair stacked in the wrong order
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([x0 * s + x1 * c, x0 * c - x1 * s], -1).flatten(-2)


def il_sin_from_cos(x, cos, sin):  # copy-paste slip: s = cos[..., 0::2]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], cos[..., 0::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).flatten(-2)


def t5c_swapped_args(relative_position, num_buckets=32, max_distance=128):  # the call's arguments in the wrong order
    return t5_hf_copy(relative_position, False, max_distance, num_buckets)


def t5c_not_negated(relative_position, num_buckets=32, max_distance=128):  # HF's line without its minus sign
    relative_position = torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return torch.where(relative_position < max_exact, relative_position, large)


def t5_max_distance_inclusive(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, bidirectional, num_buckets, max_distance + 1)


def t5c_sign(relative_position, num_buckets=32, max_distance=128):
    return t5_hf_copy(-relative_position, False, num_buckets, max_distance)


def t5c_abs(relative_position, num_buckets=32, max_distance=128):
    return t5_causal_abs(relative_position, False, num_buckets, max_distance)


def t5c_no_clamp(relative_position, num_buckets=32, max_distance=128):
    return t5_no_clamp(relative_position, False, num_buckets, max_distance)


def t5c_rounded(relative_position, num_buckets=32, max_distance=128):
    return t5_rounded(relative_position, False, num_buckets, max_distance)


def t5c_encoder(relative_position, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, True, num_buckets, max_distance)


# ---------------------------------------------------------------------------------------------
# rope_inv_freq
def inv_hf(head_dim, base=10000.0):
    return 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))


def inv_log_space(head_dim, base=10000.0):
    return torch.exp(-math.log(base) * torch.arange(head_dim // 2, dtype=torch.float64) * 2 / head_dim).float()


def inv_i_over_d(head_dim, base=10000.0):
    return 1.0 / base ** (torch.arange(head_dim // 2).float() / head_dim)


def inv_doubled_exponent(head_dim, base=10000.0):
    return 1.0 / base ** (2 * torch.arange(0, head_dim, 2).float() / head_dim)


def inv_from_one(head_dim, base=10000.0):  # theta_i = base^(-2(i-1)/d) with i = 1..d/2, the -1 forgotten
    i = torch.arange(1, head_dim // 2 + 1).float()
    return base ** (-2 * i / head_dim)


def inv_positive(head_dim, base=10000.0):  # labml's docstring without the minus sign
    return base ** (torch.arange(0, head_dim, 2).float() / head_dim)


def inv_linspace(head_dim, base=10000.0):
    return base ** -torch.linspace(0, 1, head_dim // 2)


def inv_fp16(head_dim, base=10000.0):
    return (1.0 / (torch.tensor(base).half() ** (torch.arange(0, head_dim, 2).half() / head_dim))).float()


def inv_nan_tail(head_dim, base=10000.0):  # the audit's probe: the reference with out[1:] = nan
    out = inv_hf(head_dim, base)
    out[1:] = float("nan")
    return out


def inv_fixed(head_dim, base=10000.0):
    return inv_hf(head_dim)


def inv_odd(head_dim, base=10000.0):  # arange(1, d, 2): the odd numbers where the even ones belong
    return 1.0 / base ** (torch.arange(1, head_dim, 2).float() / head_dim)


# ---------------------------------------------------------------------------------------------
# rope_cos_sin (half layout)
def _positions(positions):
    return torch.arange(positions) if isinstance(positions, int) else positions


def cs_hf(positions, head_dim, base=10000.0):
    inv = inv_hf(head_dim, base)
    freqs = _positions(positions).float()[:, None] * inv[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos(), emb.sin()


def cs_complex(positions, head_dim, base=10000.0):  # Meta's polar form, then rearranged to the half layout
    freqs = torch.outer(_positions(positions).double(), inv_log_space(head_dim, base).double())
    z = torch.polar(torch.ones_like(freqs), freqs)
    z = torch.cat([z, z], dim=-1)
    return z.real.float(), z.imag.float()


def cs_interleaved(positions, head_dim, base=10000.0):
    freqs = _positions(positions).float()[:, None] * inv_hf(head_dim, base)
    emb = freqs.repeat_interleave(2, -1)
    return emb.cos(), emb.sin()


def cs_i_over_d(positions, head_dim, base=10000.0):
    freqs = _positions(positions).float()[:, None] * inv_i_over_d(head_dim, base)
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_doubled_exponent(positions, head_dim, base=10000.0):
    freqs = torch.outer(_positions(positions).float(), inv_doubled_exponent(head_dim, base))
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_from_one(positions, head_dim, base=10000.0):
    pos = torch.arange(1, positions + 1) if isinstance(positions, int) else positions + 1
    return cs_hf(pos, head_dim, base)


def cs_ignore_tensor(positions, head_dim, base=10000.0):
    n = positions if isinstance(positions, int) else len(positions)
    return cs_hf(n, head_dim, base)


def cs_swapped(positions, head_dim, base=10000.0):
    c, s = cs_hf(positions, head_dim, base)
    return s, c


def cs_bf16(positions, head_dim, base=10000.0):  # cos/sin under autocast without HF's float32 guard
    pos = _positions(positions).to(torch.bfloat16)
    freqs = (pos[:, None] * inv_hf(head_dim, base).to(torch.bfloat16)[None, :]).float()
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_fp16(positions, head_dim, base=10000.0):
    freqs = (_positions(positions).half()[:, None] * inv_hf(head_dim, base).half()).float()
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_cast_half(positions, head_dim, base=10000.0):
    c, s = cs_hf(positions, head_dim, base)
    return c.half(), s.half()


def cs_cast_bf16(positions, head_dim, base=10000.0):
    c, s = cs_hf(positions, head_dim, base)
    return c.bfloat16(), s.bfloat16()


def cs_all_nan(positions, head_dim, base=10000.0):
    c, s = cs_hf(positions, head_dim, base)
    return c * float("nan"), s * float("nan")


def cs_clockwise(positions, head_dim, base=10000.0):
    c, s = cs_hf(positions, head_dim, base)
    return c, -s


# ---------------------------------------------------------------------------------------------
# apply_rope_half / apply_rope_interleaved
def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def half_hf(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def half_float32_inside(x, cos, sin):  # computed in float64, cast back
    xf = x.double()
    d = x.shape[-1] // 2
    c, s = cos[..., :d].double(), sin[..., :d].double()
    x1, x2 = xf[..., :d], xf[..., d:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).to(x.dtype)


def half_complex(x, cos, sin):
    d = x.shape[-1] // 2
    z = torch.complex(x[..., :d].double(), x[..., d:].double())
    w = torch.complex(cos[..., :d].double(), sin[..., :d].double())
    r = z * w
    return torch.cat([r.real, r.imag], -1).to(x.dtype)


def half_matrix(x, cos, sin):  # one rotation matrix per position
    L, d = x.shape[-2], x.shape[-1]
    h = d // 2
    R = torch.zeros(L, d, d, dtype=torch.float64)
    idx = torch.arange(h)
    c, s = cos[:, :h].double(), sin[:, :h].double()
    R[:, idx, idx] = c
    R[:, idx + h, idx + h] = c
    R[:, idx, idx + h] = -s
    R[:, idx + h, idx] = s
    return torch.einsum("lij,...lj->...li", R, x.double()).to(x.dtype)


def half_clockwise(x, cos, sin):
    return x * cos - rotate_half(x) * sin


def half_clockwise_blog(x, cos, sin):  # rotate_half written as cat(x2, -x1): the blog's M_k
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat((x2, -x1), -1) * sin


def rotate_every_two(x):  # GPT-J (mesh-transformer-jax / HF modeling_gptj)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def half_as_interleaved(x, cos, sin):  # a port of GPT-J's apply_rotary_pos_emb fed Llama's half-layout tables
    return x * cos + rotate_every_two(x) * sin


def half_swapped(x, cos, sin):
    return x * sin + rotate_half(x) * cos


def half_no_minus(x, cos, sin):
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat((x2, x1), -1) * sin


def half_first_only(x, cos, sin):
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]
    return torch.cat([x1 * cos[..., :d] - x2 * sin[..., :d], x2], -1)


def half_plain_sin(x, cos, sin):
    return x * cos + x * sin


def half_float32_out(x, cos, sin):
    return half_hf(x.float(), cos.float(), sin.float())


def inter_meta_complex(x, cos, sin):  # Meta LLaMA's apply_rotary_emb with freqs_cis built from the tables
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    f = torch.polar(
        torch.ones_like(cos[..., 0::2].float()), torch.atan2(sin[..., 0::2].float(), cos[..., 0::2].float())
    )
    return torch.view_as_real(xc * f).flatten(-2).to(x.dtype)


def inter_gptj(x, cos, sin):  # GPT-J's rotate_every_two
    x1, x2 = x[..., ::2], x[..., 1::2]
    rot = torch.stack((-x2, x1), dim=-1).flatten(-2)
    return x * cos + rot * sin


def inter_loops(x, cos, sin):
    out = x.clone().double()
    xd, c, s = x.double(), cos.double(), sin.double()
    for i in range(0, x.shape[-1], 2):
        out[..., i] = xd[..., i] * c[..., i] - xd[..., i + 1] * s[..., i]
        out[..., i + 1] = xd[..., i] * s[..., i] + xd[..., i + 1] * c[..., i]
    return out.to(x.dtype)


def inter_half_tables(x, cos, sin):  # the rotation is right, the angles are read as from half-layout tables
    d = x.shape[-1] // 2
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., :d], sin[..., :d]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).flatten(-2)


def inter_as_half(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def inter_clockwise(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return x * cos + torch.stack((x2, -x1), -1).flatten(-2) * sin


def inter_concat_back(x, cos, sin):
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], -1)


def inter_swapped(x, cos, sin):
    return inter_gptj(x, sin, cos)


def inter_no_minus(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return x * cos + torch.stack((x2, x1), -1).flatten(-2) * sin


def inter_even_only(x, cos, sin):
    out = x.clone()
    out[..., 0::2] = x[..., 0::2] * cos[..., 0::2] - x[..., 1::2] * sin[..., 0::2]
    return out


def inter_plain_sin(x, cos, sin):
    return x * cos + x * sin


# ---------------------------------------------------------------------------------------------
# apply_rope_offset (a KV cache: the new tokens sit at offset, offset + 1, ...)
def offset_hf(x, offset, base=10000.0):  # Hugging Face: cos/sin in float32, cast to x's dtype
    L, d = x.shape[-2], x.shape[-1]
    c, s = cs_hf(torch.arange(offset, offset + L), d, base)
    return half_hf(x, c.to(x.dtype), s.to(x.dtype))


def offset_cache_table(x, offset, base=10000.0):  # a table for the whole context, sliced
    L, d = x.shape[-2], x.shape[-1]
    c, s = cs_complex(offset + L, d, base)
    return half_matrix(x, c[offset:], s[offset:])


def offset_float32_inside(x, offset, base=10000.0):  # everything in float32, the result cast back
    L, d = x.shape[-2], x.shape[-1]
    c, s = cs_hf(torch.arange(offset, offset + L), d, base)
    return half_hf(x.float(), c, s).to(x.dtype)


def _offset_with(x, positions, base, rotate=None, tables=None):
    c, s = (tables or cs_hf)(positions, x.shape[-1], base)
    return (rotate or half_hf)(x, c.to(x.dtype), s.to(x.dtype))


def offset_ignored(x, offset, base=10000.0):
    return _offset_with(x, x.shape[-2], base)


def offset_subtracted(x, offset, base=10000.0):
    return _offset_with(x, torch.arange(x.shape[-2]) - offset, base)


def offset_plus_one(x, offset, base=10000.0):
    return _offset_with(x, torch.arange(x.shape[-2]) + offset + 1, base)


def offset_clockwise(x, offset, base=10000.0):
    return _offset_with(x, torch.arange(offset, offset + x.shape[-2]), base, rotate=half_clockwise)


def offset_interleaved(x, offset, base=10000.0):
    return _offset_with(x, torch.arange(offset, offset + x.shape[-2]), base, rotate=inter_gptj, tables=cs_interleaved)


def offset_bf16(x, offset, base=10000.0):
    return _offset_with(x, torch.arange(offset, offset + x.shape[-2]), base, tables=cs_bf16)


def offset_base_dropped(x, offset, base=10000.0):  # the RoPE page's demo mistake: base never passed on
    return _offset_with(x, torch.arange(offset, offset + x.shape[-2]), 10000.0)


def offset_positions_in_x_dtype(x, offset, base=10000.0):  # arange(..., dtype=x.dtype): bf16 positions
    L, d = x.shape[-2], x.shape[-1]
    pos = torch.arange(offset, offset + L, dtype=x.dtype)
    ang = pos.float()[:, None] * inv_hf(d, base)[None, :]
    ang = torch.cat([ang, ang], -1)
    return half_hf(x, ang.cos().to(x.dtype), ang.sin().to(x.dtype))


def offset_short_table(x, offset, base=10000.0):  # a table of L rows, sliced at offset: empty past row L
    L = x.shape[-2]
    c, s = cs_hf(L, x.shape[-1], base)
    return half_hf(x, c[offset : offset + L].to(x.dtype), s[offset : offset + L].to(x.dtype))


# ---------------------------------------------------------------------------------------------
# alibi_slopes
def slopes_official(n_heads):
    """ofirpress/attention_with_linear_biases get_slopes, verbatim logic."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(get_slopes_power_of_2(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    return torch.tensor(
        get_slopes_power_of_2(closest) + slopes_official(2 * closest).tolist()[0::2][: n_heads - closest]
    )


def slopes_bloom(n_heads):  # BLOOM's build_alibi_tensor, slopes part
    closest = 2 ** math.floor(math.log2(n_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
    if closest != n_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)
        n_extra = min(closest, n_heads - closest)
        extra = torch.arange(1, 1 + 2 * n_extra, 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra)])
    return slopes


def slopes_linear(n_heads):  # the widely copied snippet: m * h
    m = 1.0 / n_heads
    return torch.tensor([m * (h + 1) for h in range(n_heads)])


def slopes_linear_2(n_heads):
    return torch.linspace(0.5, 0.5 / n_heads, n_heads)


def slopes_any_n(n_heads):
    ratio = 2 ** (-8 / n_heads)
    return ratio ** torch.arange(1, n_heads + 1, dtype=torch.float64)


def slopes_first_extra(n_heads):
    c = 2 ** math.floor(math.log2(n_heads))
    return torch.cat([slopes_any_n(c), slopes_any_n(2 * c)[: n_heads - c]]) if c != n_heads else slopes_any_n(c)


def slopes_next_pow(n_heads):
    return slopes_any_n(2 ** math.ceil(math.log2(n_heads)))[:n_heads]


def slopes_repeat(n_heads):
    c = 2 ** math.floor(math.log2(n_heads))
    base = slopes_any_n(c)
    return torch.cat([base, base[: n_heads - c]])


def slopes_sorted(n_heads):
    return slopes_official(n_heads).sort(descending=True).values


def slopes_from_one(n_heads):
    """The official get_slopes with ``start * ratio**i`` written as ``ratio**i``."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [ratio**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(get_slopes_power_of_2(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    return torch.tensor(
        get_slopes_power_of_2(closest) + slopes_from_one(2 * closest).tolist()[0::2][: n_heads - closest]
    )


def slopes_fp16(n_heads):  # torch.tensor(get_slopes(n), dtype=model_dtype) in a float16 model, cast back later
    return torch.tensor(slopes_official(n_heads).tolist(), dtype=torch.float16).float()


def slopes_fp16_out(n_heads):
    return slopes_official(n_heads).half()


def slopes_reversed(n_heads):
    return slopes_official(n_heads).flip(0)


def slopes_floor_exponent(n_heads):  # 2 ** (-8 // n): floor division in the exponent
    def p2(n):
        return [(2.0 ** (-8 // n)) ** (i + 1) for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(p2(n_heads))
    c = 2 ** math.floor(math.log2(n_heads))
    return torch.tensor(p2(c) + p2(2 * c)[0::2][: n_heads - c])


# ---------------------------------------------------------------------------------------------
# alibi_bias
def _dist(q_len):
    r = torch.arange(q_len)
    return r[None, :] - r[:, None]  # key - query


def bias_direct(n_heads, q_len):
    m = slopes_official(n_heads)[:, None, None]
    b = -m * _dist(q_len).abs()[None]
    return b.masked_fill(torch.ones(q_len, q_len, dtype=torch.bool).triu(1), float("-inf"))


def bias_loops(n_heads, q_len):
    m = slopes_bloom(n_heads).tolist()
    out = torch.empty(n_heads, q_len, q_len)
    for h in range(n_heads):
        for i in range(q_len):
            for j in range(q_len):
                out[h, i, j] = float("-inf") if j > i else -m[h] * (i - j)
    return out


def bias_positive(n_heads, q_len):
    return bias_direct(n_heads, q_len).neg().masked_fill(_dist(q_len) > 0, float("-inf"))


def bias_no_mask(n_heads, q_len):
    return -slopes_official(n_heads)[:, None, None] * _dist(q_len).abs()[None]


def bias_lower_mask(n_heads, q_len):
    return bias_no_mask(n_heads, q_len).masked_fill(_dist(q_len) < 0, float("-inf"))


def bias_diag_mask(n_heads, q_len):
    return bias_no_mask(n_heads, q_len).masked_fill(_dist(q_len) >= 0, float("-inf"))


def bias_bloom(n_heads, q_len):
    b = slopes_official(n_heads)[:, None, None] * torch.arange(q_len)[None, None, :].float()
    return b.expand(n_heads, q_len, q_len).masked_fill(_dist(q_len) > 0, float("-inf"))


def bias_finite_mask(n_heads, q_len):
    return bias_no_mask(n_heads, q_len).masked_fill(_dist(q_len) > 0, -1e9)


def bias_finfo_mask(n_heads, q_len):  # as many ports mask: the smallest float instead of -inf
    return bias_no_mask(n_heads, q_len).masked_fill(_dist(q_len) > 0, torch.finfo(torch.float32).min)


def bias_linear_slopes(n_heads, q_len):
    b = -slopes_linear(n_heads)[:, None, None] * _dist(q_len).abs()[None]
    return b.masked_fill(_dist(q_len) > 0, float("-inf"))


def bias_pow2_slopes(n_heads, q_len):
    b = -slopes_any_n(n_heads).float()[:, None, None] * _dist(q_len).abs()[None]
    return b.masked_fill(_dist(q_len) > 0, float("-inf"))


# ---------------------------------------------------------------------------------------------
# pi_inv_freq / ntk_inv_freq
def pi_hf(head_dim, base, factor):
    return inv_hf(head_dim, base) / factor


def pi_positions(head_dim, base, factor):  # interpolate the positions instead: the same angles m/s * theta
    return inv_log_space(head_dim, base) * (1.0 / factor)


def pi_times(head_dim, base, factor):
    return inv_hf(head_dim, base) * factor


def pi_base(head_dim, base, factor):
    return inv_hf(head_dim, base * factor)


def pi_ntk(head_dim, base, factor):
    return inv_hf(head_dim, base * factor ** (head_dim / (head_dim - 2)))


def pi_first_only(head_dim, base, factor):
    inv = inv_hf(head_dim, base)
    inv[0] = inv[0] / factor
    return inv


def pi_i_over_d(head_dim, base, factor):
    return inv_i_over_d(head_dim, base) / factor


def pi_squared(head_dim, base, factor):
    return inv_hf(head_dim, base) / factor / factor


def pi_floor(head_dim, base, factor):  # // where / belongs
    return inv_hf(head_dim, base) // factor


def pi_in_exponent(head_dim, base, factor):  # the factor inside the exponent
    return 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim / factor)


def ntk_bloc97(head_dim, base, factor):
    base = base * factor ** (head_dim / (head_dim - 2))
    return 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))


def ntk_log(head_dim, base, factor):
    log_base = math.log(base) + head_dim / (head_dim - 2) * math.log(factor)
    return torch.exp(-log_base * torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim).float()


def ntk_times_factor(head_dim, base, factor):
    return inv_hf(head_dim, base * factor)


def ntk_inverted_exp(head_dim, base, factor):
    return inv_hf(head_dim, base * factor ** ((head_dim - 2) / head_dim))


def ntk_pi(head_dim, base, factor):
    return inv_hf(head_dim, base) / factor


def ntk_power(head_dim, base, factor):
    return inv_hf(head_dim, base**factor)


def ntk_divided(head_dim, base, factor):
    return inv_hf(head_dim, base / factor ** (head_dim / (head_dim - 2)))


# ---------------------------------------------------------------------------------------------
# yarn_inv_freq
def yarn_hf(
    head_dim,
    base,
    factor,
    original_max_position_embeddings,
    beta_fast=32.0,
    beta_slow=1.0,
    *,
    reverse=False,
    round_range=True,
    mul=False,
    mscale="ok",
    swap=False,
    guard=True,
    high_clip=None,
):
    """Hugging Face's _compute_yarn_parameters, rewritten; keyword flags make the mutants."""
    L0 = original_max_position_embeddings
    if swap:
        beta_fast, beta_slow = beta_slow, beta_fast
    m = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    attention = {"ok": m, "none": 1.0, "square": m**2}[mscale]
    pos_freqs = base ** (torch.arange(0, head_dim, 2).float() / head_dim)
    extrapolation = 1.0 / pos_freqs
    interpolation = factor / pos_freqs if mul else 1.0 / (factor * pos_freqs)

    def find_correction_dim(num_rotations):
        return (head_dim * math.log(L0 / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = find_correction_dim(beta_fast), find_correction_dim(beta_slow)
    if round_range:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, head_dim - 1 if high_clip is None else high_clip(head_dim))
    if low == high and guard:
        high += 0.001
    ramp = torch.clamp((torch.arange(head_dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    extrapolation_factor = ramp if reverse else 1 - ramp
    inv = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
    return inv, attention


def yarn_float64(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    d, L0 = head_dim, original_max_position_embeddings
    dims = [
        math.floor(d * math.log(L0 / (2 * math.pi * beta_fast)) / (2 * math.log(base))),
        math.ceil(d * math.log(L0 / (2 * math.pi * beta_slow)) / (2 * math.log(base))),
    ]
    low, high = max(dims[0], 0), min(dims[1], d - 1)
    high = high + 0.001 if low == high else high
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        gamma = 1 - min(max((i - low) / (high - low), 0.0), 1.0)  # 1: keep, 0: interpolate
        out.append(gamma * theta + (1 - gamma) * theta / factor)
    return torch.tensor(out, dtype=torch.float64).float(), 0.1 * math.log(factor) + 1 if factor > 1 else 1.0


def yarn_reversed(*a):
    return yarn_hf(*a, reverse=True)


def yarn_unrounded(*a):
    return yarn_hf(*a, round_range=False)


def yarn_mul(*a):
    return yarn_hf(*a, mul=True)


def yarn_both_floor(head_dim, base, factor, L0, beta_fast=32.0, beta_slow=1.0):  # int() at both ends
    def cdim(r):
        return head_dim * math.log(L0 / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(int(cdim(beta_fast)), 0), min(int(cdim(beta_slow)), head_dim - 1)
    high = high + 0.001 if low == high else high
    ramp = ((torch.arange(head_dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
    theta = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    return theta / factor * ramp + theta * (1 - ramp), 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0


def yarn_factor_in_freq(*a):  # the attention factor multiplied into inv_freq too
    inv, att = yarn_hf(*a)
    return inv * att, att


def yarn_no_mscale(*a):
    return yarn_hf(*a, mscale="none")


def yarn_squared(*a):
    return yarn_hf(*a, mscale="square")


def yarn_swapped(*a):
    return yarn_hf(*a, swap=True)


def yarn_deepseek_mscale(*a):  # DeepSeek-V2's yarn_get_mscale(factor, mscale=0.707) used alone
    inv, _ = yarn_hf(*a)
    factor = a[2]
    return inv, 0.1 * 0.707 * math.log(factor) + 1.0 if factor > 1 else 1.0


def _yarn_ramp(head_dim, base, factor, L0, beta_fast, beta_slow, ramp_of):
    pos_freqs = base ** (torch.arange(0, head_dim, 2).float() / head_dim)
    extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    keep = ramp_of(torch.arange(head_dim // 2, dtype=torch.float32))
    return inter * (1 - keep) + extra * keep, 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0


def yarn_no_clip(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    def cdim(n):
        return (head_dim * math.log(original_max_position_embeddings / (n * 2 * math.pi))) / (2 * math.log(base))

    low, high = max(math.floor(cdim(beta_fast)), 0), min(math.ceil(cdim(beta_slow)), head_dim - 1)
    high = high + 0.001 if low == high else high
    return _yarn_ramp(
        head_dim,
        base,
        factor,
        original_max_position_embeddings,
        beta_fast,
        beta_slow,
        lambda i: 1 - (i - low) / (high - low),
    )  # the clamp to [0, 1] forgotten


def yarn_half_d(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    half = head_dim // 2  # "the rotary dimension is d/2 pairs": the wrong d in find_correction_dim

    def cdim(n):
        return (half * math.log(original_max_position_embeddings / (n * 2 * math.pi))) / (2 * math.log(base))

    low, high = max(math.floor(cdim(beta_fast)), 0), min(math.ceil(cdim(beta_slow)), head_dim - 1)
    high = high + 0.001 if low == high else high
    return _yarn_ramp(
        head_dim,
        base,
        factor,
        original_max_position_embeddings,
        beta_fast,
        beta_slow,
        lambda i: 1 - ((i - low) / (high - low)).clamp(0, 1),
    )


def yarn_paper_turns(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    """Peng et al.'s gamma(r): r = L_orig / lambda_d turns, 0 below alpha = beta_slow, 1 above beta = beta_fast."""

    def keep(i):
        r = original_max_position_embeddings / (2 * math.pi * base ** (2 * i / head_dim))
        return ((r - beta_slow) / (beta_fast - beta_slow)).clamp(0, 1)

    return _yarn_ramp(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, keep)


def yarn_no_guard(*a):  # the 0.001 left out: at head_dim=8, L_orig=4 inv_freq[0] is 0/0
    return yarn_hf(*a, guard=False)


# ---------------------------------------------------------------------------------------------
# attention (one layer: RoPE via cos/sin with YaRN's attention_scaling, or an additive bias; causal)
def attn_sdpa(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_hf(q, cos, sin), half_hf(k, cos, sin)
    L = q.shape[-2]
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    m = torch.zeros(L, L).masked_fill(~mask, float("-inf"))
    if bias is not None:
        m = m + bias
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)


def attn_einsum(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    q, k, v = q.double(), k.double(), v.double()
    if cos is not None:
        q = half_complex(q, cos.double(), sin.double()) * attention_scaling
        k = half_complex(k, cos.double(), sin.double()) * attention_scaling
    s = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(q.shape[-1])
    if bias is not None:
        s = s + bias.double()
    L = q.shape[-2]
    s = s.masked_fill(torch.arange(L)[None, :] > torch.arange(L)[:, None], float("-inf"))
    return torch.einsum("bhij,bhjd->bhid", s.softmax(-1), v).float()


def _attn(
    q,
    k,
    v,
    cos=None,
    sin=None,
    bias=None,
    attention_scaling=1.0,
    *,
    once=False,
    ignore=False,
    rope_v=False,
    q_only=False,
    mask=1,
    bias_sign=1.0,
    scale=None,
    clockwise=False,
):
    if cos is not None:
        if not (once or ignore):
            cos, sin = cos * attention_scaling, sin * attention_scaling
        rot = half_clockwise if clockwise else half_hf
        q = rot(q, cos, sin)
        if not q_only:
            k = rot(k, cos, sin)
        if rope_v:
            v = rot(v, cos, sin)
    s = q @ k.transpose(-1, -2) / (scale or math.sqrt(q.shape[-1]))
    if once and cos is not None:
        s = s * attention_scaling
    if bias is not None:
        s = s + bias_sign * bias
    L = q.shape[-2]
    if mask is not None:
        s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(mask), float("-inf"))
    return s.softmax(-1) @ v


def attn_once(*a, **k):
    return _attn(*a, **k, once=True)


def attn_ignored(*a, **k):
    return _attn(*a, **k, ignore=True)


def attn_rope_v(*a, **k):
    return _attn(*a, **k, rope_v=True)


def attn_q_only(*a, **k):
    return _attn(*a, **k, q_only=True)


def attn_no_mask(*a, **k):
    return _attn(*a, **k, mask=None)


def attn_diag(*a, **k):
    return _attn(*a, **k, mask=0)


def attn_bias_sub(*a, **k):
    return _attn(*a, **k, bias_sign=-1.0)


def attn_by_d(q, k, v, **kw):
    return _attn(q, k, v, **kw, scale=q.shape[-1])


def attn_clockwise(*a, **k):
    return _attn(*a, **k, clockwise=True)


# ---------------------------------------------------------------------------------------------
# round 2 (issue 39): the wrong functions a learner-reviewer wrote, the attention task's common mistakes,
# functions that crash on one kind of input, and functions that change their inputs in place
def sin_assert_d4(seq_len, d_model, base=10000.0):  # right, but refuses d_model = 2 and 6
    assert d_model % 4 == 0, "d_model must be a multiple of 4"
    return sin_exp_log(seq_len, d_model, base)


def cs_int_only(positions, head_dim, base=10000.0):  # right for an int, crashes on a tensor of positions
    freqs = torch.arange(positions).float()[:, None] * inv_hf(head_dim, base)[None, :]
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_tensor_only(positions, head_dim, base=10000.0):  # right for a tensor, crashes on an int
    freqs = positions.float()[:, None] * inv_hf(head_dim, base)[None, :]
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def cs_float64(positions, head_dim, base=10000.0):  # correct: float64 inside and out
    pos = _positions(positions).double()
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    emb = torch.cat([pos[:, None] * inv, pos[:, None] * inv], -1)
    return emb.cos(), emb.sin()


def sin_float64(seq_len, d_model, base=10000.0):  # correct, returned in float64
    pos = torch.arange(seq_len, dtype=torch.float64)[:, None]
    ang = pos * base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return _interleave(ang.sin(), ang.cos())


def half_in_place(x, cos, sin):  # right values, written into the caller's x
    rotated = rotate_half(x)
    x.mul_(cos).add_(rotated * sin)
    return x


def half_interleaved_code(x, cos, sin):  # a whole interleaved function given the half-layout tables
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).flatten(-2)


def inter_half_code(x, cos, sin):  # a whole half-layout function given the interleaved tables
    d = x.shape[-1] // 2
    x1, x2, c, s = x[..., :d], x[..., d:], cos[..., :d], sin[..., :d]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)


def learned_embedding_any(table, positions):  # correct: F.embedding after the range check
    if positions.numel() and not bool(((positions >= 0) & (positions < table.shape[0])).all()):
        raise ValueError("positions outside the table")
    return torch.nn.functional.embedding(positions, table)


def t5_upper_unhalved(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    out = t5_hf_copy(relative_position, bidirectional, num_buckets, max_distance)
    if bidirectional:  # the upper half offset by num_buckets, the distances in the halved count
        out = out + (relative_position > 0).long() * (num_buckets - num_buckets // 2)
    return out


def ntk_int_division(head_dim, base, factor):  # d // (d - 2): 1 for d > 4, so base * factor
    return inv_hf(head_dim, base * factor ** (head_dim // (head_dim - 2)))


def yarn_high_half(*a):  # high clipped to d/2 - 1, the last pair index, instead of d - 1
    return yarn_hf(*a, high_clip=lambda d: d // 2 - 1)


def attn_sqrt_len(q, k, v, **kw):
    return _attn(q, k, v, **kw, scale=math.sqrt(q.shape[-2]))


def attn_unscaled(q, k, v, **kw):
    return _attn(q, k, v, **kw, scale=1.0)


def attn_bias_before_scale(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_hf(q, cos, sin), half_hf(k, cos, sin)
    s = q @ k.transpose(-1, -2)
    if bias is not None:
        s = s + bias
    s = s / math.sqrt(q.shape[-1])
    L = q.shape[-2]
    return s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1) @ v


def attn_softmax_queries(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_hf(q, cos, sin), half_hf(k, cos, sin)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        s = s + bias
    L = q.shape[-2]
    return s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(dim=-2) @ v


def attn_sdpa_is_causal(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_hf(q, cos, sin), half_hf(k, cos, sin)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)  # the bias never passed


def attn_bias_transposed(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _attn(q, k, v, cos, sin, None if bias is None else bias.transpose(-1, -2), attention_scaling)


def attn_every_two(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_as_interleaved(q, cos, sin), half_as_interleaved(k, cos, sin)
    return _attn(q, k, v, None, None, bias)


def attn_mask_only_without_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _attn(q, k, v, cos, sin, bias, attention_scaling, mask=1 if bias is None else None)


def attn_v_raw_tables(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:  # q and k rotated with the scaled tables, v with the raw ones
        v = half_hf(v, cos, sin)
    return _attn(q, k, v, cos, sin, bias, attention_scaling)


def attn_in_place(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:  # rotates the caller's q and k
        c, s = cos * attention_scaling, sin * attention_scaling
        q.copy_(half_hf(q, c, s))
        k.copy_(half_hf(k, c, s))
    return _attn(q, k, v, None, None, bias)


def attn_sdpa_mask_and_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # correct
    if cos is not None:
        cos, sin = cos * attention_scaling, sin * attention_scaling
        q, k = half_hf(q, cos, sin), half_hf(k, cos, sin)
    L = q.shape[-2]
    mask = torch.zeros(L, L).masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), torch.finfo(q.dtype).min)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask if bias is None else mask + bias)


# ---------------------------------------------------------------------------------------------
MUTANTS = {
    "sinusoidal_encoding": [
        ("base^(-i/d) instead of base^(-2i/d)", sin_i_over_d),
        ("positions start at 1", sin_from_one),
        ("exponent 4i/d", sin_doubled_exponent),
        ("concatenated [sin | cos]", sin_concat),
        ("sin and cos swapped", sin_swapped),
        ("angles computed in float16", sin_fp16),
        ("returned in float16: the task returns float32", sin_cast_half),
        ("your output contains NaN", sin_all_nan),
        ("(wavelengths) instead of divided", sin_wavelength),
        ("base ignored", sin_fixed_base),
        (
            "raised AssertionError: d_model must be a multiple of 4 when called as fn(seq_len=1, d_model=2",
            sin_assert_d4,
        ),
    ],
    "sinusoidal_concat": [
        ("instead of tensor2tensor's base^(-i/(d/2−1))", t2t_vaswani_freqs),
        ("interleaved (Vaswani's layout)", t2t_interleaved),
        ("positions start at 1", t2t_from_one),
        ("[cos | sin] instead of [sin | cos]", t2t_cos_first),
        ("angles computed in float16", t2t_fp16),
    ],
    "learned_lookup": [
        ("negative positions accepted", learned_plain_index),
        ("clamped to the last row", learned_clamp),
        ("wrap around", learned_modulo),
        ("off by one", learned_off_by_one),
        ("positions start at 1", learned_from_one),
        ("returns rows 0..n−1", learned_arange),
        ("refused with assert (AssertionError)", learned_assert),
        ("raised NameError", learned_typo),
        ("positions=torch.tensor([], dtype=torch.int64)", learned_min_on_empty),
    ],
    "shaw_relative_index": [
        ("query − key (i − j)", shaw_query_minus_key),
        ("not shifted by max_distance", shaw_no_shift),
        ("not clipped", shaw_no_clip),
        ("the direction is lost", shaw_abs),
        ("(off by one)", shaw_off_by_one),
        ("must be int64", shaw_float),
    ],
    "shaw_attention": [
        ("query − key (i − j)", shaw_attn_sign),
        ("value-side term", shaw_attn_no_value),
        ("not divided by √d", shaw_attn_unscaled_rel),
        ("no causal mask", shaw_attn_no_mask),
        ("hides the query's own key", shaw_attn_diag_mask),
    ],
    "t5_relative_bucket": [
        ("T5 relative position taken as query − key", t5_q_minus_k),
        ("halves swapped", t5_swapped_halves),
        ("causal buckets use |Δ|", t5_causal_abs),
        ("num_buckets not halved", t5_no_halving),
        ("not clamped to num_buckets − 1", t5_no_clamp),
        ("rounded instead of truncated", t5_rounded),
        ("max_distance ignored", t5_fixed_max_distance),
        ("max_exact = num_buckets // 2 taken before num_buckets was halved", t5_exact_before_halving),
        ("offset by num_buckets instead of num_buckets // 2", t5_upper_unhalved),
    ],
    "t5_causal_bucket": [
        ("T5 relative position taken as query − key", t5c_sign),
        ("causal buckets use |Δ|", t5c_abs),
        ("not clamped to num_buckets − 1", t5c_no_clamp),
        ("rounded instead of truncated", t5c_rounded),
        ("bidirectional buckets (the encoder's)", t5c_encoder),
    ],
    "rope_inv_freq": [
        ("base^(-i/d) instead of base^(-2i/d)", inv_i_over_d),
        ("frequency index starts at 1", inv_from_one),
        ("exponent 4i/d", inv_doubled_exponent),
        ("the sign of the exponent", inv_positive),
        ("exponent 2i/(d−2)", inv_linspace),
        ("computed in float16", inv_fp16),
        ("base ignored", inv_fixed),
        ("your output contains NaN", inv_nan_tail),
        ("odd exponents (2i+1)/d", inv_odd),
    ],
    "rope_cos_sin": [
        ("interleaved layout", cs_interleaved),
        ("base^(-i/d) instead of base^(-2i/d)", cs_i_over_d),
        ("positions start at 1", cs_from_one),
        ("exponent 4i/d", cs_doubled_exponent),
        ("positions tensor ignored", cs_ignore_tensor),
        ("cos and sin swapped", cs_swapped),
        ("angles computed in bfloat16", cs_bf16),
        ("angles computed in float16", cs_fp16),
        ("clockwise (R_{-m})", cs_clockwise),
        ("returned in float16: the task returns float32", cs_cast_half),
        ("returned in bfloat16: the task returns float32", cs_cast_bf16),
        ("your output contains NaN", cs_all_nan),
        ("positions=torch.tensor([5, 0, 17], dtype=torch.int64)", cs_int_only),
        ("positions=1 (an int)", cs_tensor_only),
    ],
    "apply_rope_half": [
        ("your rotation is clockwise (R_{-m})", half_clockwise),
        ("your rotation is clockwise (R_{-m})", half_clockwise_blog),
        ("GPT-J's rotate_every_two (pairs 2i, 2i+1) used with half-layout tables", half_as_interleaved),
        ("cos and sin swapped", half_swapped),
        ("minus sign of the rotation is lost", half_no_minus),
        ("only the first half", half_first_only),
        ("sin multiplies x itself", half_plain_sin),
        ("return x's dtype", half_float32_out),
        ("changes its input x in place", half_in_place),
        ("written for the interleaved layout", half_interleaved_code),
    ],
    "apply_rope_interleaved": [
        ("interleaved pairs applied with the half layout", inter_as_half),
        ("interleaved tables read as half-layout ones", inter_half_tables),
        ("your rotation is clockwise (R_{-m})", inter_clockwise),
        ("written back concatenated", inter_concat_back),
        ("cos and sin swapped", inter_swapped),
        ("minus sign of the rotation is lost", inter_no_minus),
        ("only the even coordinates", inter_even_only),
        ("sin multiplies x itself", inter_plain_sin),
        ("written for the half layout", inter_half_code),
    ],
    "apply_rope_offset": [
        ("offset ignored", offset_ignored),
        ("offset subtracted", offset_subtracted),
        ("offset + 1 (off by one)", offset_plus_one),
        ("your rotation is clockwise (R_{-m})", offset_clockwise),
        ("interleaved pairs instead of the half layout", offset_interleaved),
        ("angles computed in bfloat16", offset_bf16),
        ("base ignored", offset_base_dropped),
        ("positions built in x's dtype", offset_positions_in_x_dtype),
        ("a cos/sin table of L rows sliced at offset", offset_short_table),
    ],
    "alibi_slopes": [
        ("ALiBi slopes linear in the head index", slopes_linear),
        ("ALiBi slopes linear in the head index", slopes_linear_2),
        ("as if n were a power of two", slopes_any_n),
        ("every other one (0::2), not the first n − c", slopes_first_extra),
        ("the slopes of the next power of two, truncated", slopes_next_pow),
        ("yours repeat the first c slopes", slopes_repeat),
        ("slopes sorted", slopes_sorted),
        ("slopes start at 1", slopes_from_one),
        ("heads in reverse order", slopes_reversed),
        ("integer division in the ratio's exponent", slopes_floor_exponent),
        ("slopes computed in float16", slopes_fp16),
        ("returned in float16", slopes_fp16_out),
    ],
    "alibi_bias": [
        ("bias positive", bias_positive),
        ("no causal mask", bias_no_mask),
        ("mask on the wrong side", bias_lower_mask),
        ("the diagonal is masked too", bias_diag_mask),
        ("key-position form", bias_bloom),
        ("large finite number instead of −inf", bias_finite_mask),
        ("large finite number instead of −inf", bias_finfo_mask),
        ("ALiBi slopes linear in the head index", bias_linear_slopes),
        ("as if n were a power of two", bias_pow2_slopes),
    ],
    "pi_inv_freq": [
        ("multiplied by the factor instead of divided", pi_times),
        ("base multiplied by the factor", pi_base),
        ("NTK-aware base used", pi_ntk),
        ("only the first frequency", pi_first_only),
        ("base^(-i/d) instead of base^(-2i/d)", pi_i_over_d),
        ("divided by the factor squared", pi_squared),
        ("floor-divided by the factor", pi_floor),
        ("the exponent divided by the factor", pi_in_exponent),
    ],
    "ntk_inv_freq": [
        ("base multiplied by the factor;", ntk_times_factor),
        ("exponent (d−2)/d instead of d/(d−2)", ntk_inverted_exp),
        ("that is PI", ntk_pi),
        ("base raised to the factor", ntk_power),
        ("base divided by", ntk_divided),
        ("integer division d // (d − 2)", ntk_int_division),
    ],
    "yarn_inv_freq": [
        ("YaRN ramp reversed", yarn_reversed),
        ("beta_fast and beta_slow swapped", yarn_swapped),
        ("correction range not rounded", yarn_unrounded),
        ("multiplied by the factor instead of divided", yarn_mul),
        ("attention scaling missing", yarn_no_mscale),
        ("attention scaling squared", yarn_squared),
        ("low == high", yarn_no_guard),
        ("DeepSeek's mscale", yarn_deepseek_mscale),
        ("ramp not clipped to [0, 1]", yarn_no_clip),
        ("correction dimension computed with d/2 instead of d", yarn_half_d),
        ("ramp linear in the turn count", yarn_paper_turns),
        ("high clipped to d/2 − 1 instead of d − 1", yarn_high_half),
    ],
    "attention": [
        ("the logits scaled by attention_scaling once instead of by its square", attn_once),
        ("attention factor ignored", attn_ignored),
        ("RoPE applied to the values too", attn_rope_v),
        ("RoPE applied to the queries only", attn_q_only),
        ("no causal mask", attn_no_mask),
        ("hides the query's own key", attn_diag),
        ("bias subtracted", attn_bias_sub),
        ("divided by d instead of √d", attn_by_d),
        ("your rotation is clockwise (R_{-m})", attn_clockwise),
        ("divided by √L (the sequence length)", attn_sqrt_len),
        ("logits not divided by √d", attn_unscaled),
        ("bias added before the 1/√d scaling", attn_bias_before_scale),
        ("softmax over the query axis", attn_softmax_queries),
        ("bias ignored: scaled_dot_product_attention", attn_sdpa_is_causal),
        ("bias transposed", attn_bias_transposed),
        ("rotate_every_two (pairs 2i, 2i+1) used with half-layout tables", attn_every_two),
        ("causal mask applied only when there is no bias", attn_mask_only_without_bias),
        ("RoPE applied to the values too", attn_v_raw_tables),
        ("changes its input q and k in place", attn_in_place),
    ],
}

CORRECT = {
    "sinusoidal_encoding": [sin_loops, sin_exp_log, sin_float64],
    "sinusoidal_concat": [t2t_numpy_style],
    "learned_lookup": [learned_checked, learned_onehot, learned_view, learned_embedding_any],
    "shaw_relative_index": [shaw_loops, shaw_broadcast],
    "shaw_attention": [shaw_attn_gather, lambda q, k, v, rk, rv: posenc.shaw_attention_naive(q, k, v, rk, rv)],
    "t5_relative_bucket": [t5_hf_copy, t5_python_loop],
    "t5_causal_bucket": [t5c_hf, t5c_loop],
    "rope_inv_freq": [inv_hf, inv_log_space],
    "rope_cos_sin": [cs_hf, cs_complex, cs_float64],
    "apply_rope_half": [half_hf, half_float32_inside, half_complex, half_matrix],
    "apply_rope_interleaved": [inter_meta_complex, inter_gptj, inter_loops],
    "apply_rope_offset": [offset_hf, offset_cache_table, offset_float32_inside],
    "alibi_slopes": [slopes_official, slopes_bloom],
    "alibi_bias": [bias_direct, bias_loops],
    "pi_inv_freq": [pi_hf, pi_positions],
    "ntk_inv_freq": [ntk_bloc97, ntk_log],
    "yarn_inv_freq": [yarn_hf, yarn_float64],
    "attention": [attn_sdpa, attn_einsum, attn_sdpa_mask_and_bias],
}


# ---------------------------------------------------------------------------------------------
# Round 2 (issue 39's second learner-review): mistakes a fresh learner wrote, each written as they wrote it.
def _t2t(seq_len, d_model, base=10000.0, start=0, log=math.log):
    half = d_model // 2
    inv = torch.exp(-log(base) * torch.arange(half).float() / (half - 1))
    a = torch.arange(start, start + seq_len).float()[:, None] * inv
    return torch.cat([a.sin(), a.cos()], 1)


def sin_per_column(seq_len, d_model, base=10000.0):  # column j uses base^(j/d): the cos columns use (2i+1)/d
    j = torch.arange(d_model).float()
    a = torch.arange(seq_len).float()[:, None] / base ** (j / d_model)
    return torch.where(j.long() % 2 == 0, a.sin(), a.cos())


def t2t_fixed_base(seq_len, d_model, base=10000.0):
    return _t2t(seq_len, d_model, 10000.0)


def t2t_log10(seq_len, d_model, base=10000.0):
    return _t2t(seq_len, d_model, base, log=math.log10)


def t2t_fairseq_positions(seq_len, d_model, base=10000.0):  # fairseq's make_positions start at padding_idx + 1
    return _t2t(seq_len, d_model, base, start=2)


def t2t_fairseq_padding_row(seq_len, d_model, base=10000.0):  # get_embedding(..., padding_idx=0)
    emb = _t2t(seq_len, d_model, base)
    emb[0, :] = 0
    return emb


def learned_float64(table, positions):
    if positions.numel() and ((positions < 0) | (positions >= table.shape[0])).any():
        raise IndexError("position outside the table")
    return table[positions].double()


def shaw_clip_top(q_len, max_distance):
    p = torch.arange(q_len)
    return (p[None, :] - p[:, None]).clamp(-max_distance, max_distance - 1) + max_distance


def _shaw_r2(q, k, v, rel_k, rel_v, *, axis=-1, denom=None, key_side=False, v_abs=False):
    L, d = q.shape[-2:]
    kk = (rel_k.shape[0] - 1) // 2
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(-kk, kk) + kk
    idx_v = (p[None, :] - p[:, None]).abs().clamp(max=kk) + kk if v_abs else idx
    rel = (
        torch.einsum("...jd,ijd->...ij", k, rel_k[idx]) if key_side else torch.einsum("...id,ijd->...ij", q, rel_k[idx])
    )
    s = (q @ k.transpose(-1, -2) + rel) / (denom or math.sqrt(d))
    s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    a = s.softmax(axis)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx_v])


def shaw_attn_query_softmax(q, k, v, rel_k, rel_v):
    return _shaw_r2(q, k, v, rel_k, rel_v, axis=-2)


def shaw_attn_by_d(q, k, v, rel_k, rel_v):
    return _shaw_r2(q, k, v, rel_k, rel_v, denom=q.shape[-1])


def shaw_attn_key_side(q, k, v, rel_k, rel_v):
    return _shaw_r2(q, k, v, rel_k, rel_v, key_side=True)


def shaw_attn_tables_swapped(q, k, v, rel_k, rel_v):
    return _shaw_r2(q, k, v, rel_v, rel_k)


def shaw_attn_value_abs(q, k, v, rel_k, rel_v):
    return _shaw_r2(q, k, v, rel_k, rel_v, v_abs=True)


def _t5_r2(rel, bidirectional, num_buckets, max_distance, cap=None, large_fn=None):
    n, b = num_buckets, torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        b = b + (rel > 0).long() * n
        dist = rel.abs()
    else:
        dist = (-rel).clamp(min=0)
    me = n // 2
    if large_fn is None:
        large = me + (torch.log(dist.float() / me) / math.log(max_distance / me) * (n - me)).long()
    else:
        large = me + large_fn(dist, me, n)
    return b + torch.where(dist < me, dist, large.clamp(max=n - 1 if cap is None else cap(n)))


def t5_cap_at_n(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _t5_r2(relative_position, bidirectional, num_buckets, max_distance, cap=lambda n: n)


def t5_bidirectional_ignored(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, True, num_buckets, max_distance)


def t5_int_ratio(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    def large(dist, me, n):
        return (torch.log((dist // me).float()) / math.log(max_distance / me) * (n - me)).long()

    return _t5_r2(relative_position, bidirectional, num_buckets, max_distance, large_fn=large)


def t5_ceil(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    def large(dist, me, n):
        return torch.ceil(torch.log(dist.float() / me) / math.log(max_distance / me) * (n - me)).long()

    return _t5_r2(relative_position, bidirectional, num_buckets, max_distance, large_fn=large)


def t5c_fixed_max_distance(relative_position, num_buckets=32, max_distance=128):
    return t5c_hf(relative_position, num_buckets, 128)


def t5c_log1p(relative_position, num_buckets=32, max_distance=128):
    def large(dist, me, n):
        return ((torch.log1p(dist.float()) - math.log(me)) / math.log(max_distance / me) * (n - me)).long()

    return _t5_r2(relative_position, False, num_buckets, max_distance, large_fn=large)


def t5c_halved(relative_position, num_buckets=32, max_distance=128):  # the encoder's halving copied over
    return t5c_hf(relative_position, num_buckets // 2, max_distance)


def inv_int_division(head_dim, base=10000.0):
    return 1.0 / (base ** (torch.arange(0, head_dim, 2) // head_dim).float())


def inv_log10_pow2(head_dim, base=10000.0):
    return 2.0 ** (-torch.arange(0, head_dim, 2).float() / head_dim * math.log10(base))


def cs_fixed_base(positions, head_dim, base=10000.0):
    return cs_hf(positions, head_dim, 10000.0)


def cs_sorted(positions, head_dim, base=10000.0):
    if torch.is_tensor(positions):
        positions = positions.sort().values
    return cs_hf(positions, head_dim, base)


def half_no_sin(x, cos, sin):
    return x * cos


def inter_reshape_pairs(x, cos, sin):  # x.reshape(..., 2, d/2): pairs (i, i + d/2), with the right angles
    xr = x.reshape(*x.shape[:-1], 2, -1)
    a, b = xr[..., 0, :], xr[..., 1, :]
    c, s = cos[..., ::2], sin[..., ::2]
    return torch.stack([a * c - b * s, a * s + b * c], -2).reshape(x.shape)


def _offset_r2(x, pos, base, dtype=torch.float32, cast_angles=False):
    d = x.shape[-1]
    inv = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
    fr = pos.to(dtype)[:, None] * inv.to(dtype)[None]
    if cast_angles:
        fr = fr.to(x.dtype)
    emb = torch.cat([fr, fr], -1)
    x1, x2 = x.chunk(2, -1)
    return x * emb.cos().to(x.dtype) + torch.cat([-x2, x1], -1) * emb.sin().to(x.dtype)


def offset_from_end(x, offset, base=10000.0):
    L = x.shape[-2]
    return _offset_r2(x, torch.arange(offset - L + 1, offset + 1), base)


def offset_all_in_x_dtype(x, offset, base=10000.0):
    return _offset_r2(x, torch.arange(offset, offset + x.shape[-2]), base, dtype=x.dtype)


def offset_angles_cast(x, offset, base=10000.0):
    return _offset_r2(x, torch.arange(offset, offset + x.shape[-2]), base, cast_angles=True)


def pi_factor_ignored(head_dim, base, factor):
    return pi_hf(head_dim, base, 1.0)


def pi_slow_half(head_dim, base, factor):
    f = pi_hf(head_dim, base, 1.0)
    h = f.numel() // 2
    return torch.cat([f[:h], f[h:] / factor])


def pi_sqrt(head_dim, base, factor):
    return pi_hf(head_dim, base, 1.0) / math.sqrt(factor)


def ntk_factor_ignored(head_dim, base, factor):
    return ntk_bloc97(head_dim, base, 1.0)


def ntk_exponent_on_base(head_dim, base, factor):
    return inv_hf(head_dim, base ** (head_dim / (head_dim - 2)) * factor)


def ntk_d_minus_1(head_dim, base, factor):
    return inv_hf(head_dim, base * factor ** (head_dim / (head_dim - 1)))


def ntk_and_pi(head_dim, base, factor):
    return ntk_bloc97(head_dim, base, factor) / factor


def _yarn_r2(head_dim, base, factor, L, beta_fast, beta_slow, *, two_pi=2 * math.pi, clip_low=True, log=math.log):
    d = head_dim

    def cdim(r):
        return d * math.log(L / (two_pi * r)) / (2 * math.log(base))

    lo = math.floor(cdim(beta_fast))
    lo = max(lo, 0) if clip_low else lo
    hi = min(math.ceil(cdim(beta_slow)), d - 1)
    if lo == hi:
        hi += 0.001
    g = ((torch.arange(d // 2).float() - lo) / (hi - lo)).clamp(0, 1)
    th = base ** (-torch.arange(0, d, 2).float() / d)
    return g * th / factor + (1 - g) * th, (0.1 * log(factor) + 1 if factor > 1 else 1.0)


def yarn_no_two_pi(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _yarn_r2(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, two_pi=1.0)


def yarn_low_unclipped(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _yarn_r2(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, clip_low=False)


def yarn_log10(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _yarn_r2(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, log=math.log10)


def yarn_tensor_scaling(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    inv, att = yarn_hf(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    return inv, torch.tensor(att)


def attn_bias_dropped_with_rope(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        return attn_einsum(q, k, v, cos, sin, None, attention_scaling)
    return attn_einsum(q, k, v, None, None, bias)


def attn_weighs_keys(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return attn_einsum(q, k, k, cos, sin, bias, attention_scaling)


def attn_scaled_output(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    out = attn_einsum(q, k, v, cos, sin, bias, attention_scaling)
    return out * attention_scaling if cos is not None else out


def attn_squared_tables(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return attn_einsum(q, k, v, cos, sin, bias, attention_scaling**2)


ROUND2 = {
    "sinusoidal_encoding": [("per-column exponent base^(-j/d)", sin_per_column)],
    "sinusoidal_concat": [
        ("base ignored: 10000 hard-coded", t2t_fixed_base),
        ("log10(base) where the exponent needs the natural log", t2t_log10),
        ("positions start at 2 (fairseq's padding_idx + 1", t2t_fairseq_positions),
        ("row 0 zeroed, as fairseq's get_embedding does", t2t_fairseq_padding_row),
    ],
    "learned_lookup": [("returned in float64: return them in the table's dtype (float32)", learned_float64)],
    "shaw_relative_index": [("clipped to [−k, k − 1] (off by one at the top)", shaw_clip_top)],
    "shaw_attention": [
        ("softmax over the query axis (dim=-2)", shaw_attn_query_softmax),
        ("logits divided by d instead of √d", shaw_attn_by_d),
        ("uses the key k_j (k_j·R^K_ij)", shaw_attn_key_side),
        ("rel_k and rel_v swapped", shaw_attn_tables_swapped),
        ("the value table indexed with |j − i|", shaw_attn_value_abs),
    ],
    "t5_relative_bucket": [
        ("clamped to num_buckets instead of num_buckets − 1", t5_cap_at_n),
        ("log(max_distance + 1) in the denominator", t5_max_distance_inclusive),
        ("bidirectional ignored", t5_bidirectional_ignored),
        ("integer division dist // max_exact before the log", t5_int_ratio),
        ("rounded up (ceil)", t5_ceil),
    ],
    "t5_causal_bucket": [
        ("max_distance ignored", t5c_fixed_max_distance),
        ("log(dist + 1) (log1p)", t5c_log1p),
        ("num_buckets halved as in the bidirectional branch", t5c_halved),
    ],
    "rope_inv_freq": [
        ("integer division: torch.arange(0, d, 2) // d is 0", inv_int_division),
        ("the logarithm of the base taken in the wrong base", inv_log10_pow2),
    ],
    "rope_cos_sin": [
        ("base ignored: 10000 hard-coded", cs_fixed_base),
        ("positions sorted", cs_sorted),
    ],
    "apply_rope_half": [("the sin term is missing", half_no_sin)],
    "apply_rope_interleaved": [
        ("the sin term is missing", half_no_sin),
        ("your pairs are the half layout's (i, i + d/2)", inter_reshape_pairs),
    ],
    "apply_rope_offset": [
        ("positions offset − L + 1 .. offset", offset_from_end),
        ("positions, frequencies and angles computed in x's dtype", offset_all_in_x_dtype),
        ("angles cast to x's dtype before cos and sin", offset_angles_cast),
    ],
    "pi_inv_freq": [
        ("factor ignored: these are plain RoPE frequencies; PI", pi_factor_ignored),
        ("only the slower half of the frequencies divided", pi_slow_half),
        ("frequencies divided by √factor", pi_sqrt),
    ],
    "ntk_inv_freq": [
        ("factor ignored: these are plain RoPE frequencies; NTK-aware", ntk_factor_ignored),
        ("the exponent d/(d−2) put on the base", ntk_exponent_on_base),
        ("exponent d/(d−1) instead of d/(d−2)", ntk_d_minus_1),
        ("the NTK-aware base and PI's division both", ntk_and_pi),
    ],
    "yarn_inv_freq": [
        ("rounded down at both ends", yarn_both_floor),
        ("the attention factor multiplied into the frequencies", yarn_factor_in_freq),
        ("2π missing in the correction dimension", yarn_no_two_pi),
        ("low not clipped at 0", yarn_low_unclipped),
        ("attention factor with the wrong logarithm", yarn_log10),
        ("attention_scaling is a Tensor, not a Python float", yarn_tensor_scaling),
    ],
    "attention": [
        ("the bias is ignored when cos and sin are given", attn_bias_dropped_with_rope),
        ("weights applied to the keys", attn_weighs_keys),
        ("the output multiplied by attention_scaling", attn_scaled_output),
        ("cos and sin multiplied by attention_scaling squared", attn_squared_tables),
    ],
}
for _task, _extra in ROUND2.items():
    MUTANTS[_task] += _extra


# ---------------------------------------------------------------------------------------------
# Round 3 (issue 39, the fresh learner-review's functions that exposed a defect): copied as the learner wrote
# them, with the helpers they called. Non-integer factors, and the variants once "not one of the mistakes".
def _l_pi_hf(head_dim, base, factor):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    return inv / factor


def _l_ntk_hf(head_dim, base, factor):
    b = base * factor ** (head_dim / (head_dim - 2))
    return 1.0 / (b ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))


def _l_yarn_hf(dim, base, factor, L, beta_fast=32.0, beta_slow=1.0, *, clip_hi=None):
    def find_correction_dim(num_rotations):
        return (dim * math.log(L / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = math.floor(find_correction_dim(beta_fast)), math.ceil(find_correction_dim(beta_slow))
    low, high = max(low, 0), min(high, dim - 1 if clip_hi is None else clip_hi)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)
    inv = 1.0 / (factor * pos_freqs) * ramp + 1.0 / pos_freqs * (1 - ramp)
    return inv, 0.1 * math.log(factor) + 1.0


def _l_rh(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def _l_attention(q, k, v, cos, sin, bias, attention_scaling, *, sin_scale=True, width=False, half=False, mask=1):
    if cos is not None:
        c, s = cos * attention_scaling, sin * (attention_scaling if sin_scale else 1.0)
        q = q * c + _l_rh(q) * s
        k = k * c + _l_rh(k) * s
    L, d = q.shape[-2:]
    w = q @ k.transpose(-1, -2) / math.sqrt(d * q.shape[1] if width else d)
    if bias is not None:
        w = w + bias
    w = w.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(mask), float("-inf"))
    return (w.half().softmax(-1).float() if half else w.softmax(-1)) @ v


def l_pi_hf(head_dim, base, factor):
    return _l_pi_hf(head_dim, base, factor)


def l_pi_int_factor(head_dim, base, factor):
    return _l_pi_hf(head_dim, base, int(factor))


def l_pi_skips_first(head_dim, base, factor):  # the fastest pair left undivided
    inv = _l_pi_hf(head_dim, base, 1.0)
    return torch.cat([inv[:1], (inv / factor)[1:]])


def l_ntk_hf(head_dim, base, factor):
    return _l_ntk_hf(head_dim, base, factor)


def l_ntk_int_factor(head_dim, base, factor):
    return _l_ntk_hf(head_dim, base, int(factor))


def l_yarn_hf(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _l_yarn_hf(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)


def l_yarn_int_factor(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _l_yarn_hf(head_dim, base, int(factor), original_max_position_embeddings, beta_fast, beta_slow)


def l_yarn_clip_half(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    L0 = original_max_position_embeddings
    return _l_yarn_hf(head_dim, base, factor, L0, beta_fast, beta_slow, clip_hi=head_dim // 2)


def l_sin_hardcoded_and_half(seq_len, d_model, base=10000.0):  # base hard-coded 10000 and fp16 angles
    pos = torch.arange(seq_len, dtype=torch.float16)[:, None]
    inv = (10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)).half()
    a = (pos * inv).float()
    return torch.stack([a.sin(), a.cos()], -1).reshape(seq_len, d_model)


def l_sin_denominator_dminus1(seq_len, d_model, base=10000.0):
    pos = torch.arange(seq_len, dtype=torch.float32)[:, None]
    a = pos * base ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / max(d_model - 1, 1))
    return torch.stack([a.sin(), a.cos()], -1).reshape(seq_len, d_model)


def l_concat_fairseq_padding(seq_len, d_model, base=10000.0):  # a zero row prepended, positions shifted by one
    half = d_model // 2
    emb = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(base) / (half - 1)))
    a = torch.arange(seq_len, dtype=torch.float)[:, None] * emb[None]
    out = torch.cat([a.sin(), a.cos()], 1)
    return torch.cat([torch.zeros(1, d_model), out[:-1]], 0)


def l_shaw_idx_shift_2k(q_len, max_distance):
    r = torch.arange(q_len)
    return (r[None, :] - r[:, None] + 2 * max_distance).clamp(0, 2 * max_distance)


def l_shaw_att_k_rows(q, k, v, rel_k, rel_v):  # max_distance = rows // 2 - 1
    L, d = q.shape[-2:]
    kk = max(rel_k.shape[0] // 2 - 1, 0)
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(-kk, kk) + kk
    s = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    a = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def l_t5c_log2(relative_position, num_buckets=32, max_distance=128):  # log2 over a natural log
    n = (-relative_position).clamp(min=0)
    me = num_buckets // 2
    large = me + (torch.log2(n.float() / me) / math.log(max_distance / me) * (num_buckets - me)).long()
    return torch.where(n < me, n, large.clamp(max=num_buckets - 1))


def l_il_pairs_reshape(x, cos, sin):  # reshape(2, d/2): pairs (i, i + d/2), written back interleaved
    d = x.shape[-1]
    xs = x.reshape(*x.shape[:-1], 2, d // 2)
    a, b = xs[..., 0, :], xs[..., 1, :]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([a * c - b * s, a * s + b * c], -1).flatten(-2)


def _l_off_hf(x, offset, base=10000.0):
    L, d = x.shape[-2:]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    f = torch.outer(torch.arange(offset, offset + L, dtype=torch.float32), inv)
    emb = torch.cat([f, f], -1)
    return x * emb.cos().to(x.dtype) + _l_rh(x) * emb.sin().to(x.dtype)


def l_off_hf(x, offset, base=10000.0):
    return _l_off_hf(x, offset, base)


def l_off_minus_one(x, offset, base=10000.0):  # positions offset - 1 .. (right at offset 0 only)
    return _l_off_hf(x, max(offset - 1, 0), base)


def l_slopes_from_zero(n_heads):  # r^0 .. r^(n-1) for every n
    r = 2 ** (-8 / n_heads)
    return torch.tensor([r**i for i in range(n_heads)], dtype=torch.float32)


def l_slopes_ratio_inverse(n_heads):  # r = 2^(-n/8)
    r = 2 ** (-n_heads / 8)
    return torch.tensor([r ** (i + 1) for i in range(n_heads)], dtype=torch.float32)


def l_slopes_ratio_half(n_heads):  # non-powers of two: one geometric sequence starting at 1/2
    if math.log2(n_heads).is_integer():
        return slopes_official(n_heads)
    return torch.tensor([0.5 * (2 ** (-8 / n_heads)) ** i for i in range(n_heads)], dtype=torch.float32)


def l_slopes_mpt_swapped(n_heads):  # MPT's halves in the wrong order
    _n = 2 ** math.ceil(math.log2(n_heads))
    slopes = 1.0 / torch.pow(2, torch.arange(1, _n + 1, dtype=torch.float32) * (8 / _n))
    return torch.cat([slopes[::2], slopes[1::2]])[:n_heads] if _n != n_heads else slopes


def l_attn_manual(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _l_attention(q, k, v, cos, sin, bias, attention_scaling)


def l_attn_mask_1e4(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # the statement's -1e4
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = q * c + _l_rh(q) * s, k * c + _l_rh(k) * s
    L = q.shape[-2]
    w = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
    return w.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), -1e4).softmax(-1) @ v


def l_attn_width(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _l_attention(q, k, v, cos, sin, bias, attention_scaling, width=True)


def l_attn_scaling_cos_only(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _l_attention(q, k, v, cos, sin, bias, attention_scaling, sin_scale=False)


def l_attn_softmax_f16(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _l_attention(q, k, v, cos, sin, bias, attention_scaling, half=True)


def l_attn_mask_off_by_one(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # triu(2)
    return _l_attention(q, k, v, cos, sin, bias, attention_scaling, mask=2)


ROUND3 = {
    "sinusoidal_encoding": [
        (
            "two mistakes together: base ignored: 10000 hard-coded; and angles computed in float16",
            l_sin_hardcoded_and_half,
        ),
        ("exponent 2i/(d−1) instead of 2i/d", l_sin_denominator_dminus1),
    ],
    "sinusoidal_concat": [("two mistakes together: row 0 zeroed", l_concat_fairseq_padding)],
    "shaw_relative_index": [("your index is clip(j − i + 8, 0, 8) at q_len=16, max_distance=4", l_shaw_idx_shift_2k)],
    "shaw_attention": [("clipping distance k taken as rows // 2 − 1", l_shaw_att_k_rows)],
    "t5_causal_bucket": [
        ("log2 in the numerator over a natural log", l_t5c_log2),
        ("num_buckets and max_distance swapped", t5c_swapped_args),
        ("clamp(Δ, max=0) not negated", t5c_not_negated),
    ],
    "apply_rope_interleaved": [
        ("written back interleaved", l_il_pairs_reshape),
        ("each rotated pair written back in the wrong order", il_pair_swapped),
        ("the sine read from the cos table", il_sin_from_cos),
    ],
    "apply_rope_offset": [("positions start at offset − 1 (off by one)", l_off_minus_one)],
    "alibi_slopes": [
        ("slopes start at 1 (r^0) instead of r = 2^(-8/n)", l_slopes_from_zero),
        ("the ratio is inverted: 2^(−n/8) instead of 2^(−8/n)", l_slopes_ratio_inverse),
        ("for n_heads=3 the first slope is 0.5", l_slopes_ratio_half),
        ("MPT's interleave with its halves swapped", l_slopes_mpt_swapped),
    ],
    "pi_inv_freq": [
        ("factor truncated to an integer", l_pi_int_factor),
        ("only the fastest pair (θ_0 = 1) left undivided", l_pi_skips_first),
    ],
    "ntk_inv_freq": [("factor truncated to an integer", l_ntk_int_factor)],
    "yarn_inv_freq": [
        ("factor truncated to an integer", l_yarn_int_factor),
        ("high clipped to d/2 instead of d − 1", l_yarn_clip_half),
    ],
    "attention": [
        ("logits divided by √(h·d) (the model width)", l_attn_width),
        ("attention_scaling applied to cos only", l_attn_scaling_cos_only),
        ("softmax computed in float16", l_attn_softmax_f16),
        ("causal mask off by one", l_attn_mask_off_by_one),
    ],
}
for _task, _extra in ROUND3.items():
    MUTANTS[_task] += _extra
for _task, _fns in {
    "pi_inv_freq": [l_pi_hf],
    "ntk_inv_freq": [l_ntk_hf],
    "yarn_inv_freq": [l_yarn_hf],
    "apply_rope_offset": [l_off_hf],
    "attention": [l_attn_manual, l_attn_mask_1e4],
}.items():
    CORRECT[_task] += _fns


# ---------------------------------------------------------------------------------------------
# a second learner-reviewer's functions: each was unnamed (or named misleadingly) before its own diagnosis
def sin_int_division(seq_len, d_model, base=10000.0):  # arange(0, d, 2) // d is 0: every frequency 1
    ang = torch.arange(seq_len)[:, None] * (1.0 / base ** (torch.arange(0, d_model, 2) // d_model))
    return _interleave(ang.sin(), ang.cos()).float()


def t2t_index_from_one(seq_len, d_model, base=10000.0):
    half = d_model // 2
    inv = torch.exp(-math.log(base) / max(half - 1, 1) * torch.arange(1, half + 1, dtype=torch.float32))
    ang = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1)


def shaw_attn_mask_after_softmax(q, k, v, rel_k, rel_v):
    L, d = q.shape[-2:]
    kk = (rel_k.shape[0] - 1) // 2
    idx = shaw_broadcast(L, kk)
    logits = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    a = logits.softmax(-1).masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), 0.0)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def shaw_attn_no_mask_unscaled_rel(q, k, v, rel_k, rel_v):
    d = q.shape[-1]
    idx = shaw_broadcast(q.shape[-2], (rel_k.shape[0] - 1) // 2)
    a = (q @ k.transpose(-1, -2) / math.sqrt(d) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def _t5_learner(rp, bidirectional, num_buckets, max_distance, *, ge0=False, factor_n=False, md=0):
    n, b = num_buckets, torch.zeros_like(rp)
    if bidirectional:
        n //= 2
        b = b + ((rp >= 0) if ge0 else (rp > 0)).long() * n
        dist = rp.abs()
    else:
        dist = (-rp).clamp(min=0)
    me = n // 2
    t = torch.log(dist.float() / me) / math.log((max_distance - md) / me) * (n if factor_n else n - me)
    return b + torch.where(dist < me, dist, (me + t.long()).clamp(max=n - 1))


def t5_zero_upper(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _t5_learner(relative_position, bidirectional, num_buckets, max_distance, ge0=True)


def t5_factor_n(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _t5_learner(relative_position, bidirectional, num_buckets, max_distance, factor_n=True)


def t5c_max_distance_minus1(relative_position, num_buckets=32, max_distance=128):
    return _t5_learner(relative_position, False, num_buckets, max_distance, md=1)


def t5_python_float64(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    out = []
    for r in relative_position.reshape(-1).tolist():
        n, b = num_buckets, 0
        if bidirectional:
            n //= 2
            b, dist = (n if r > 0 else 0), abs(r)
        else:
            dist = max(-r, 0)
        me = n // 2
        big = min(me + int(math.log(dist / me) / math.log(max_distance / me) * (n - me)), n - 1) if dist >= me else 0
        out.append(b + (dist if dist < me else big))
    return torch.tensor(out, dtype=torch.int64).reshape(relative_position.shape)


def inv_reversed(head_dim, base=10000.0):
    return inv_hf(head_dim, base).flip(0)


def ntk_pairs_as_d(head_dim, base, factor):  # h = d/2 where the exponent has d
    h = head_dim // 2
    return inv_hf(head_dim, base * factor ** (h / (h - 2)) if h > 2 else base * factor)


def slopes_mpt(n_heads):  # MPT's gen_slopes with alibi_bias_max = 8
    n = 2 ** math.ceil(math.log2(n_heads))
    slopes = 1.0 / torch.pow(2, torch.arange(1, n + 1, dtype=torch.float32) * (8 / n))
    if n != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def yarn_no_plus_one(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    inv, _ = yarn_hf(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    return inv, (0.1 * math.log(factor) if factor > 1 else 1.0)


def yarn_cd_no_two(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    d, L0 = head_dim, original_max_position_embeddings

    def cd(r):
        return d * math.log(L0 / (r * 2 * math.pi)) / math.log(base)

    low, high = max(math.floor(cd(beta_fast)), 0), min(math.ceil(cd(beta_slow)), d - 1)
    high = high + 0.001 if low == high else high
    ramp = ((torch.arange(d // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
    theta = inv_hf(d, base)
    return ramp * theta / factor + (1 - ramp) * theta, (0.1 * math.log(factor) + 1 if factor > 1 else 1.0)


def attn_interleaved_cos_only(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    L, d = q.shape[-2:]
    if cos is not None:
        c, s = cos[..., : d // 2] * attention_scaling, sin[..., : d // 2]

        def rot(x):
            x0, x1 = x[..., 0::2], x[..., 1::2]
            return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).flatten(-2)

        q, k = rot(q), rot(k)
    lg = q @ k.transpose(-2, -1) / math.sqrt(d)
    if bias is not None:
        lg = lg + bias
    return lg.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1) @ v


MUTANTS["sinusoidal_encoding"].append(("integer division: torch.arange(0, d, 2) // d", sin_int_division))
MUTANTS["sinusoidal_concat"].append(("frequency index starts at 1", t2t_index_from_one))
MUTANTS["shaw_attention"] += [
    ("causal mask applied after the softmax", shaw_attn_mask_after_softmax),
    ("two mistakes together: no causal mask", shaw_attn_no_mask_unscaled_rel),
]
MUTANTS["t5_relative_bucket"] += [
    ("Δ = 0 put in the upper half", t5_zero_upper),
    ("log buckets scaled by num_buckets instead of (num_buckets − max_exact)", t5_factor_n),
]
MUTANTS["t5_causal_bucket"].append(("log(max_distance − 1) in the denominator", t5c_max_distance_minus1))
MUTANTS["rope_inv_freq"].append(("frequencies in reverse order", inv_reversed))
MUTANTS["ntk_inv_freq"] += [
    ("h = d/2 (the number of pairs) used as d", ntk_pairs_as_d),
]
MUTANTS["yarn_inv_freq"] += [
    ("attention scaling 0.1·ln(s) without the + 1", yarn_no_plus_one),
    ("the 2 missing in the correction dimension", yarn_cd_no_two),
]
MUTANTS["attention"].append(("two mistakes together: the interleaved rotation", attn_interleaved_cos_only))
CORRECT["alibi_slopes"].append(slopes_mpt)
CORRECT["t5_relative_bucket"].append(t5_python_float64)


# ---------------------------------------------------------------------------------------------
# a third learner-reviewer's kinds (issue 39, round 3): two mistakes at once, Hugging Face's dynamic NTK, integer
# division in a log increment or an exponent, a wrapped offset, a drifting float32 recurrence, a float16 base,
# state kept between calls
def r4_sin_cos_first_i_over_d(seq_len, d_model, base=10000.0):  # cos first AND exponent i/d
    ang = torch.arange(seq_len).float()[:, None] / base ** (torch.arange(d_model // 2).float() / d_model)
    return _interleave(ang.cos(), ang.sin())


def r4_sin_recurrence_f32(seq_len, d_model, base=10000.0):  # each row rotated from the previous one, in float32
    w = base ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    cw, sw = torch.cos(w), torch.sin(w)
    s, c = torch.zeros_like(w), torch.ones_like(w)
    rows = []
    for _ in range(seq_len):
        rows.append(_interleave(s, c))
        s, c = s * cw + c * sw, c * cw - s * sw
    return torch.stack(rows)


def r4_sin_recurrence_f64(seq_len, d_model, base=10000.0):  # the same recurrence in float64: correct
    w = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    cw, sw = torch.cos(w), torch.sin(w)
    s, c = torch.zeros_like(w), torch.ones_like(w)
    rows = []
    for _ in range(seq_len):
        rows.append(_interleave(s, c))
        s, c = s * cw + c * sw, c * cw - s * sw
    return torch.stack(rows).float()


def r4_t2t_floor_increment(seq_len, d_model, base=10000.0):  # math.log(base) // (half - 1)
    half = d_model // 2
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(base) // max(half - 1, 1)))
    ang = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1)


def r4_t2t_from_one_base_fixed(seq_len, d_model, base=10000.0):  # positions 1..L AND log(10000) hard-coded
    half = d_model // 2
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(10000.0) / max(half - 1, 1)))
    ang = torch.arange(1, seq_len + 1, dtype=torch.float32)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1)


def r4_shaw_query_minus_key_unshifted(q_len, max_distance):  # i − j AND no + k
    p = torch.arange(q_len)
    return (p[:, None] - p[None, :]).clamp(-max_distance, max_distance)


def r4_shaw_query_minus_key_top_off_by_one(q_len, max_distance):  # i − j AND clipped to [−k, k − 1]
    p = torch.arange(q_len)
    return (p[:, None] - p[None, :]).clamp(-max_distance, max_distance - 1) + max_distance


def r4_shaw_query_minus_key_shift_2k(q_len, max_distance):  # i − j, shifted by 2k and clipped to [0, 2k]
    p = torch.arange(q_len)
    return (p[:, None] - p[None, :] + 2 * max_distance).clamp(0, 2 * max_distance)


def r4_shaw_clipped_positions(q_len, max_distance):  # the positions clipped, not their difference
    p = torch.arange(q_len).clamp(max=max_distance)
    return p[None, :] - p[:, None] + max_distance


def r4_shaw_attn_unscaled_no_value(q, k, v, rel_k, rel_v):  # q·R^K not divided by √d AND no R^V term
    L, d = q.shape[-2:]
    idx = shaw_broadcast(L, (rel_k.shape[0] - 1) // 2)
    s = q @ k.transpose(-1, -2) / math.sqrt(d) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])
    s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    return s.softmax(-1) @ v


def r4_t5_round_no_cap(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    n, out = num_buckets, torch.zeros_like(relative_position)
    if bidirectional:
        n //= 2
        out = out + (relative_position > 0).long() * n
        dist = relative_position.abs()
    else:
        dist = (-relative_position).clamp(min=0)
    me = n // 2
    large = me + torch.round(torch.log(dist.float() / me) / math.log(max_distance / me) * (n - me)).long()
    return out + torch.where(dist < me, dist, large)


def r4_t5c_not_negated_exact_only(relative_position, num_buckets=32, max_distance=128):
    dist = torch.clamp(relative_position, max=0)  # the minus forgotten: the exact buckets come out negative
    me = num_buckets // 2
    large = me + (torch.log(dist.abs().float().clamp(min=1) / me) / math.log(max_distance / me) * (num_buckets - me))
    return torch.where(dist.abs() < me, dist, large.long().clamp(max=num_buckets - 1))


def r4_t5c_quarter_exact(relative_position, num_buckets=32, max_distance=128):
    dist = (-relative_position).clamp(min=0)
    me = num_buckets // 4
    large = me + (torch.log(dist.clamp(min=1).float() / me) / math.log(max_distance / me) * (num_buckets - me)).long()
    return torch.where(dist < me, dist, large.clamp(max=num_buckets - 1))


def r4_inv_i_over_d_base_fixed(head_dim, base=10000.0):  # i/d AND base 10000 hard-coded
    return 1.0 / 10000.0 ** (torch.arange(head_dim // 2).float() / head_dim)


def r4_cs_interleaved_swapped(positions, head_dim, base=10000.0):  # repeat_interleave AND (sin, cos) returned
    pos = torch.arange(positions) if isinstance(positions, int) else positions
    ang = (pos.float()[:, None] * inv_hf(head_dim, base)[None, :]).repeat_interleave(2, -1)
    return ang.sin(), ang.cos()


def r4_il_cat_clockwise(x, cos, sin):  # halves written back with cat AND the minus on the wrong term
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.cat([x0 * c + x1 * s, -x0 * s + x1 * c], -1)


def r4_offset_wrapped(x, offset, base=10000.0):  # a 16-bit position counter
    return offset_hf(x, offset % 65536, base)


def r4_slopes_truncated_exponent(n_heads):  # 2 ** -(8 // n): the exponent truncated
    def p2(n):
        r = 2.0 ** -(8 // n)
        return [r ** (i + 1) for i in range(n)]

    c = 2 ** math.floor(math.log2(n_heads))
    extra = [] if c == n_heads else p2(2 * c)[0::2][: n_heads - c]
    return torch.tensor(p2(c) + extra)


def r4_bias_positive_finite(n_heads, q_len):  # +slope·|Δ| AND masked with −1e9
    p = torch.arange(q_len)
    delta = p[None, :] - p[:, None]
    return (slopes_official(n_heads)[:, None, None] * delta.abs()).masked_fill(delta > 0, -1e9)


def r4_bias_positive_fp16_min(n_heads, q_len):  # +slope·|Δ| AND masked with float16's lowest number
    p = torch.arange(q_len)
    delta = p[None, :] - p[:, None]
    return (slopes_official(n_heads)[:, None, None] * delta.abs()).masked_fill(
        delta > 0, torch.finfo(torch.float16).min
    )


def r4_pi_base_times_factor_i_over_d(head_dim, base, factor):
    return 1.0 / (base * factor) ** (torch.arange(head_dim // 2).float() / head_dim)


_R4_THETA: dict = {}


def r4_pi_cached_in_place(head_dim, base, factor):  # a cached table divided in place: later calls compound
    key = (head_dim, base)
    if key not in _R4_THETA:
        _R4_THETA[key] = inv_hf(head_dim, base)
    return _R4_THETA[key].div_(factor)


def r4_pi_cached_copy(head_dim, base, factor):  # a cached table, copied before dividing: correct
    key = ("copy", head_dim, base)
    if key not in _R4_THETA:
        _R4_THETA[key] = inv_hf(head_dim, base)
    return _R4_THETA[key] / factor


def r4_ntk_base_times_factor_i_over_d(head_dim, base, factor):
    return 1.0 / (base * factor) ** (torch.arange(head_dim // 2).float() / head_dim)


def r4_ntk_hf_dynamic(head_dim, base, factor):  # _compute_dynamic_ntk_parameters at seq_len = factor * max_len
    max_position_embeddings = 4096
    seq_len = factor * max_position_embeddings
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (head_dim / (head_dim - 2))
    return 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))


def r4_ntk_hf_dynamic_twice(head_dim, base, factor):  # the dynamic formula at seq_len = 2 * max_len
    base = base * ((factor * 2.0) - (factor - 1)) ** (head_dim / (head_dim - 2))
    return 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))


def r4_ntk_parenthesis(head_dim, base, factor):  # (base * factor) ** (d / (d - 2))
    return inv_hf(head_dim, (base * factor) ** (head_dim / (head_dim - 2)))


def r4_ntk_half(head_dim, base, factor):  # the new base and the exponents in float16
    nb = base * factor ** (head_dim / (head_dim - 2))
    e = torch.arange(0, head_dim, 2, dtype=torch.float16) / head_dim
    return (1.0 / torch.tensor(nb, dtype=torch.float16) ** e).float()


def r4_ntk_float64(head_dim, base, factor):  # float64 inside: correct
    nb = torch.tensor(base, dtype=torch.float64) * factor ** (head_dim / (head_dim - 2))
    return (nb ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)).float()


def r4_yarn_clip_half_unrounded(
    head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0
):
    return yarn_hf(
        head_dim,
        base,
        factor,
        original_max_position_embeddings,
        beta_fast,
        beta_slow,
        round_range=False,
        high_clip=lambda d: d // 2 - 1,
    )


def r4_attn_bias_first_cos_only(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    L, d = q.shape[-2:]
    if cos is not None:
        c = cos * attention_scaling  # sin left unscaled
        q, k = (t * c + torch.cat([-t[..., d // 2 :], t[..., : d // 2]], -1) * sin for t in (q, k))
    s = q @ k.transpose(-1, -2)
    if bias is not None:
        s = s + bias
    s = (s / math.sqrt(d)).masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    return s.softmax(-1) @ v


def r4_attn_nan_mask(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # 0 * −inf = NaN
    L, d = q.shape[-2:]
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = (t * c + torch.cat([-t[..., d // 2 :], t[..., : d // 2]], -1) * s for t in (q, k))
    logits = q @ k.transpose(-1, -2) / math.sqrt(d) + (0 if bias is None else bias)
    return (logits + torch.ones(L, L).triu(1) * float("-inf")).softmax(-1) @ v


def r4_rope_noise(head_dim, base=10000.0):  # a random draw left in
    return inv_hf(head_dim, base) * (1 + 1e-3 * torch.rand(head_dim // 2))


ROUND4 = {
    "sinusoidal_encoding": [
        ("two mistakes together: sin and cos swapped", r4_sin_cos_first_i_over_d),
        ("sin² + cos² drifts away from 1 as the position grows", r4_sin_recurrence_f32),
    ],
    "sinusoidal_concat": [
        ("floor division in the log increment", r4_t2t_floor_increment),
        ("two mistakes together: positions start at 1; and base ignored", r4_t2t_from_one_base_fixed),
    ],
    "shaw_relative_index": [
        ("two mistakes together: relative position taken as query − key", r4_shaw_query_minus_key_unshifted),
        (
            "two mistakes together: relative position taken as query − key (i − j) instead of key − query (j − i); "
            "and clipped to [−k, k − 1]",
            r4_shaw_query_minus_key_top_off_by_one,
        ),
        ("It uses i − j (query − key) where Shaw's uses j − i", r4_shaw_query_minus_key_shift_2k),
        ("the positions clipped to max_distance before the difference", r4_shaw_clipped_positions),
    ],
    "shaw_attention": [("two mistakes together: the value-side term", r4_shaw_attn_unscaled_no_value)],
    "t5_relative_bucket": [("two mistakes together: large distances not clamped", r4_t5_round_no_cap)],
    "t5_causal_bucket": [
        ("where your buckets are wrong they are the right ones negated", r4_t5c_not_negated_exact_only),
        ("max_exact = num_buckets // 4", r4_t5c_quarter_exact),
    ],
    "rope_inv_freq": [
        ("two mistakes together: frequencies use base^(-i/d)", r4_inv_i_over_d_base_fixed),
        ("returns a different result when called again with the same arguments", r4_rope_noise),
    ],
    "rope_cos_sin": [("two mistakes together: cos and sin swapped; and angles repeated", r4_cs_interleaved_swapped)],
    "apply_rope_interleaved": [("two mistakes together: rotated pairs written back", r4_il_cat_clockwise)],
    "apply_rope_offset": [("is offset mod 2^16 = 65536: the offset wrapped around", r4_offset_wrapped)],
    "alibi_slopes": [("8 // n truncates (to 0 from 9 heads on", r4_slopes_truncated_exponent)],
    "alibi_bias": [
        ("two mistakes together: bias positive", r4_bias_positive_finite),
        (
            "two mistakes together: masked with a large finite number instead of −inf; and bias",
            r4_bias_positive_fp16_min,
        ),
    ],
    "pi_inv_freq": [
        ("two mistakes together: base multiplied by the factor", r4_pi_base_times_factor_i_over_d),
        ("returns a different result when called again with the same arguments", r4_pi_cached_in_place),
    ],
    "ntk_inv_freq": [
        ("two mistakes together: frequencies use base^(-i/d)", r4_ntk_base_times_factor_i_over_d),
        ("Hugging Face's dynamic NTK base (_compute_dynamic_ntk_parameters", r4_ntk_hf_dynamic),
        ("your frequencies are RoPE's with another base: your base is", r4_ntk_hf_dynamic_twice),
        ("the exponent d/(d−2) put on the product", r4_ntk_parenthesis),
        ("frequencies computed in float16", r4_ntk_half),
    ],
    "yarn_inv_freq": [("two mistakes together: correction range not rounded", r4_yarn_clip_half_unrounded)],
    "attention": [
        ("two mistakes together: bias added before the 1/√d scaling", r4_attn_bias_first_cos_only),
        ("your output contains NaN", r4_attn_nan_mask),
    ],
}
for _task, _extra in ROUND4.items():
    MUTANTS[_task] += _extra
CORRECT["sinusoidal_encoding"].append(r4_sin_recurrence_f64)
CORRECT["pi_inv_freq"].append(r4_pi_cached_copy)
CORRECT["ntk_inv_freq"].append(r4_ntk_float64)


# ---------------------------------------------------------------------------------------------
# a fifth learner-reviewer's functions (issue 39, round 5): a T5 distance clamped where the bucket should be, low
# precision and a drift in tensor2tensor's table, an int position count taken as one position, and kinds that were
# rejected but not named
def r5_t5_clamp_distance(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    n, out = num_buckets, torch.zeros_like(relative_position)
    if bidirectional:
        n //= 2
        out = out + (relative_position > 0).long() * n
        dist = relative_position.abs()
    else:
        dist = (-relative_position).clamp(min=0)
    dist = dist.clamp(max=max_distance - 1)  # the distance capped, not the bucket
    me = n // 2
    large = me + (torch.log(dist.float() / me) / math.log(max_distance / me) * (n - me)).long()
    return out + torch.where(dist < me, dist, large)


def r5_t5c_clamp_distance(relative_position, num_buckets=32, max_distance=128):
    return r5_t5_clamp_distance(relative_position, False, num_buckets, max_distance)


def r5_t2t_bf16_positions(seq_len, d_model, base=10000.0):  # positions counted in bfloat16, the rest in float32
    half = d_model // 2
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(base) / max(half - 1, 1)))
    ang = torch.arange(seq_len, dtype=torch.bfloat16)[:, None].float() * inv
    return torch.cat([ang.sin(), ang.cos()], -1)


def r5_t2t_bf16_angles(seq_len, d_model, base=10000.0):  # the whole angle computed in bfloat16
    half = d_model // 2
    inv = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(base) / max(half - 1, 1))).bfloat16()
    ang = (torch.arange(seq_len, dtype=torch.bfloat16)[:, None] * inv).float()
    return torch.cat([ang.sin(), ang.cos()], -1)


def r5_t2t_fp16_cumsum(seq_len, d_model, base=10000.0):  # positions counted with a float16 cumsum: stuck past 2048
    half = d_model // 2
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(base) / max(half - 1, 1)))
    pos = torch.cumsum(torch.ones(seq_len, dtype=torch.float16), 0).float() - 1
    ang = pos[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1)


def r5_cs_int_as_one_position(positions, head_dim, base=10000.0):  # an int n becomes the single position n
    p = torch.as_tensor(positions).reshape(-1).float()
    ang = p[:, None] * inv_hf(head_dim, base)[None, :]
    ang = torch.cat([ang, ang], -1)
    return ang.cos(), ang.sin()


def r5_inv_linspace(head_dim, base=10000.0):
    return torch.linspace(1.0, 1.0 / base, head_dim // 2)


def r5_pi_factor_over_theta(head_dim, base, factor):
    return factor / inv_hf(head_dim, base)


def r5_bias_nan_mask(n_heads, q_len):  # 0 · (−inf) = NaN where the mask is
    p = torch.arange(q_len)
    delta = p[None, :] - p[:, None]
    mask = torch.zeros(q_len, q_len).masked_fill(delta > 0, float("-inf"))
    return -slopes_official(n_heads)[:, None, None] * (delta.abs() + mask * 0)


def _r5_attn(q, k, v, cos, sin, bias, attention_scaling, *, d_axis=-1, multiply=False):
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = (t * c + torch.cat([-t[..., t.shape[-1] // 2 :], t[..., : t.shape[-1] // 2]], -1) * s for t in (q, k))
    L, d = q.shape[-2], q.shape[d_axis]
    logits = q @ k.transpose(-2, -1) / math.sqrt(d)
    logits = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
    if bias is not None:
        logits = logits * bias.exp() if multiply else logits + bias
    return logits.softmax(-1) @ v


def r5_attn_heads_axis(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # d = q.shape[1]
    return _r5_attn(q, k, v, cos, sin, bias, attention_scaling, d_axis=1)


def r5_attn_bias_multiplied(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r5_attn(q, k, v, cos, sin, bias, attention_scaling, multiply=True)


def r5_ntk_precedence(head_dim, base, factor):  # base * factor ** d / (d - 2): ** binds tighter than /
    return inv_hf(head_dim, base * factor**head_dim / (head_dim - 2))


ROUND5 = {
    "t5_relative_bucket": [("the distance clamped to max_distance − 1", r5_t5_clamp_distance)],
    "t5_causal_bucket": [("the distance clamped to max_distance − 1", r5_t5c_clamp_distance)],
    "sinusoidal_concat": [
        ("angles computed in bfloat16", r5_t2t_bf16_positions),
        ("angles computed in bfloat16", r5_t2t_bf16_angles),
        ("ω_i = base^(−i/max(d/2 − 1, 1))", r5_t2t_fp16_cumsum),
    ],
    "rope_cos_sin": [("an int positions = n taken as the single position n", r5_cs_int_as_one_position)],
    "rope_inv_freq": [("frequencies spaced evenly from 1 to 1/base", r5_inv_linspace)],
    "pi_inv_freq": [("factor / θ_i: the frequency turned upside down", r5_pi_factor_over_theta)],
    "alibi_bias": [("NaN where −inf belongs", r5_bias_nan_mask)],
    "ntk_inv_freq": [("your base is 80000 at head_dim=4, base=10000, factor=2", r5_ntk_precedence)],
    "attention": [
        ("logits divided by √h with h = q.shape[1]", r5_attn_heads_axis),
        ("bias multiplied into the logits (logits · exp(bias))", r5_attn_bias_multiplied),
    ],
}
for _task, _extra in ROUND5.items():
    MUTANTS[_task] += _extra


# ---------------------------------------------------------------------------------------------
# a sixth learner-reviewer's functions (issue 39, round 6): state kept between calls that the inputs never exposed
# (a cache that ignores an argument, a result written into a buffer kept between calls), a 0-d position, and kinds
# that were rejected but not named. The caches live in _R6_CACHE; a test that calls these functions itself clears it.
_R6_CACHE: dict = {}


def _r6_cached(key, make):
    if key not in _R6_CACHE:
        _R6_CACHE[key] = make()
    return _R6_CACHE[key]


def r6_sin_cache_shape(seq_len, d_model, base=10000.0):  # a cache keyed on the shape: the base left out
    return _r6_cached(("sin", seq_len, d_model), lambda: sin_exp_log(seq_len, d_model, base))


def r6_sin_cache_all_args(seq_len, d_model, base=10000.0):  # the same cache keyed on every argument: correct
    return _r6_cached(("sin-all", seq_len, d_model, base), lambda: sin_exp_log(seq_len, d_model, base))


def r6_t2t_cache_shape(seq_len, d_model, base=10000.0):
    return _r6_cached(("t2t", seq_len, d_model), lambda: t2t_numpy_style(seq_len, d_model, base))


def r6_inv_cache_head_dim(head_dim, base=10000.0):
    return _r6_cached(("inv", head_dim), lambda: inv_hf(head_dim, base))


def r6_cs_cache_length(positions, head_dim, base=10000.0):  # keyed on the number of positions and head_dim
    n = positions if isinstance(positions, int) else positions.numel()
    return _r6_cached(("cs", n, head_dim), lambda: cs_hf(positions, head_dim, base))


def r6_cs_cache_positions(positions, head_dim, base=10000.0):  # keyed on the positions themselves, not the base
    key = ("cs-pos", positions if isinstance(positions, int) else tuple(positions.tolist()), head_dim)
    return _r6_cached(key, lambda: cs_hf(positions, head_dim, base))


def r6_cs_sliced_cache(positions, head_dim, base=10000.0):  # Hugging Face's old cos_cached[:n]: views of one table
    if not isinstance(positions, int):
        return cs_hf(positions, head_dim, base)
    cos, sin = _r6_cached(("cs-table", head_dim, base), lambda: cs_hf(256, head_dim, base))
    return cos[:positions], sin[:positions]


def r6_pi_cache_head_dim(head_dim, base, factor):
    return _r6_cached(("pi", head_dim, factor), lambda: inv_hf(head_dim, base) / factor)


def r6_bias_cache_q_len(n_heads, q_len):  # keyed on q_len: the head count left out
    return _r6_cached(("bias", q_len), lambda: bias_direct(n_heads, q_len))


def r6_shaw_index_cache_q_len(q_len, max_distance):
    return _r6_cached(("shaw-idx", q_len), lambda: posenc.shaw_relative_index(q_len, max_distance))


def r6_shaw_attn_cache_shape(q, k, v, rel_k, rel_v):
    key = ("shaw-att", tuple(q.shape), tuple(rel_k.shape))
    return _r6_cached(key, lambda: posenc.shaw_attention(q, k, v, rel_k, rel_v, causal=True))


def r6_learned_first_table(table, positions):  # the first table it saw, kept
    kept = _r6_cached(("table",), lambda: table.clone())
    return learned_checked(kept, positions)


def r6_learned_cache_positions(table, positions):  # keyed on the positions: the table left out
    if bool(((positions < 0) | (positions >= table.shape[0])).any()):
        raise IndexError("position outside the table")
    key = ("rows", tuple(positions.shape), tuple(positions.reshape(-1).tolist()))
    return _r6_cached(key, lambda: table[positions])


def r6_learned_atleast_1d(table, positions):  # "any shape", but a 0-d position comes back as [1, d]
    return learned_checked(table, torch.atleast_1d(positions))


def _r6_buffer(x):
    return _r6_cached(("buffer", tuple(x.shape), x.dtype), lambda: torch.empty_like(x))


def r6_half_out_buffer(x, cos, sin):  # one buffer per shape, written with out=: fn(q) and fn(k) share it
    out = _r6_buffer(x)
    h = x.shape[-1] // 2
    torch.mul(x, cos, out=out)
    out.add_(torch.cat([-x[..., h:], x[..., :h]], -1) * sin)
    return out


def r6_il_out_buffer(x, cos, sin):
    out = _r6_buffer(x)
    rot = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    torch.mul(x, cos, out=out)
    out.add_(rot * sin)
    return out


def r6_half_cos_for_sin(x, cos, sin):  # x * cos + rotate_half(x) * cos
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:], x[..., :h]], -1) * cos


def _r6_shaw(q, k, v, rel_k, rel_v, *, by_len=False, value_k=False):
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    pos = torch.arange(L)
    idx = (pos[None, :] - pos[:, None]).clamp(-kk, kk) + kk
    s = q @ k.transpose(-2, -1) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])
    s = (s / math.sqrt(L if by_len else d)).masked_fill(pos[None, :] > pos[:, None], float("-inf"))
    a = s.softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, (rel_k if value_k else rel_v)[idx])


def r6_shaw_sqrt_len(q, k, v, rel_k, rel_v):  # math.sqrt(L) where the head dimension belongs
    return _r6_shaw(q, k, v, rel_k, rel_v, by_len=True)


def r6_shaw_rel_k_value(q, k, v, rel_k, rel_v):  # rel_k read again on the value side
    return _r6_shaw(q, k, v, rel_k, rel_v, value_k=True)


def r6_t5c_no_zero_clamp(relative_position, num_buckets=32, max_distance=128):  # n = -relative_position, no max(, 0)
    n = -relative_position
    max_exact = num_buckets // 2
    large = max_exact + (
        torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return torch.where(n < max_exact, n, large)


def r6_t5_no_zero_clamp(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    if bidirectional:
        return t5_hf_copy(relative_position, True, num_buckets, max_distance)
    return r6_t5c_no_zero_clamp(relative_position, num_buckets, max_distance)


def _r6_slopes(n, *, from_one=False, floor=False, first=False, reverse=False):
    def p2(m):
        r = 2.0 ** (-8 // m) if floor else 2 ** (-8 / m)
        return [r ** (i + (0 if from_one else 1)) for i in range(m)]

    if math.log2(n).is_integer():
        s = p2(n)
    else:
        c = 2 ** math.floor(math.log2(n))
        s = p2(c) + (p2(2 * c)[: n - c] if first else p2(2 * c)[0::2][: n - c])
    return torch.tensor(s[::-1] if reverse else s)


def r6_slopes_from_one_floor(n_heads):  # ratio ** i and -8 // n: wrong from n_heads = 1 on
    return _r6_slopes(n_heads, from_one=True, floor=True)


def r6_slopes_from_one_first(n_heads):  # ratio ** i and get_slopes(2c)[:n - c]
    return _r6_slopes(n_heads, from_one=True, first=True)


def r6_slopes_reversed_floor(n_heads):
    return _r6_slopes(n_heads, floor=True, reverse=True)


def r6_bias_two_slope_mistakes(n_heads, q_len):
    pos = torch.arange(q_len)
    delta = pos[None, :] - pos[:, None]
    return (-r6_slopes_from_one_floor(n_heads)[:, None, None] * delta.abs()).masked_fill(delta > 0, float("-inf"))


def r6_bias_zero_above(n_heads, q_len):  # 0 where −inf belongs
    pos = torch.arange(q_len)
    delta = pos[None, :] - pos[:, None]
    return (-slopes_official(n_heads)[:, None, None] * delta.abs()).masked_fill(delta > 0, 0.0)


def r6_bias_tril_mask(n_heads, q_len):  # the bias times a 0/1 causal mask: 0 above the diagonal
    return torch.nan_to_num(bias_direct(n_heads, q_len), neginf=0.0) * torch.ones(q_len, q_len).tril()


_CACHED = "your function returns a result cached from an earlier call with a different"
ROUND6 = {
    "sinusoidal_encoding": [(f"{_CACHED} base", r6_sin_cache_shape)],
    "sinusoidal_concat": [(f"{_CACHED} base", r6_t2t_cache_shape)],
    "rope_inv_freq": [(f"{_CACHED} base", r6_inv_cache_head_dim)],
    "rope_cos_sin": [(f"{_CACHED} base", r6_cs_cache_length), (f"{_CACHED} base", r6_cs_cache_positions)],
    "pi_inv_freq": [(f"{_CACHED} base", r6_pi_cache_head_dim)],
    "alibi_bias": [
        (f"{_CACHED} n_heads", r6_bias_cache_q_len),
        ("0 where −inf belongs", r6_bias_zero_above),
        ("0 where −inf belongs", r6_bias_tril_mask),
        ("two mistakes together: slopes wrong — slopes start at 1", r6_bias_two_slope_mistakes),
    ],
    "shaw_relative_index": [(f"{_CACHED} max_distance", r6_shaw_index_cache_q_len)],
    "shaw_attention": [
        ("your function returns a result cached from an earlier call with different q, k, v", r6_shaw_attn_cache_shape),
        ("logits divided by √L", r6_shaw_sqrt_len),
        ("rel_k used on the value side too", r6_shaw_rel_k_value),
    ],
    "learned_lookup": [
        (f"{_CACHED} table", r6_learned_first_table),
        (f"{_CACHED} table", r6_learned_cache_positions),
        ("for a 0-d positions tensor (one position) the result has shape [1, 4], expected [4]", r6_learned_atleast_1d),
    ],
    "apply_rope_half": [
        ("your function writes into a result it returned earlier", r6_half_out_buffer),
        ("cos where sin belongs", r6_half_cos_for_sin),
    ],
    "apply_rope_interleaved": [("your function writes into a result it returned earlier", r6_il_out_buffer)],
    "t5_causal_bucket": [("the distance back not clamped at 0", r6_t5c_no_zero_clamp)],
    "t5_relative_bucket": [("the distance back not clamped at 0", r6_t5_no_zero_clamp)],
    "alibi_slopes": [
        ("two mistakes together: integer division in the ratio's exponent: -8 // n", r6_slopes_from_one_floor),
        ("two mistakes together: slopes start at 1", r6_slopes_from_one_first),
        ("and heads in reverse order", r6_slopes_reversed_floor),
    ],
}
for _task, _extra in ROUND6.items():
    MUTANTS[_task] += _extra
CORRECT["sinusoidal_encoding"].append(r6_sin_cache_all_args)
CORRECT["rope_cos_sin"].append(r6_cs_sliced_cache)


# ---------------------------------------------------------------------------------------------
# a seventh learner-reviewer's functions (issue 39, round 7): a T5 log in float16, an ALiBi table precomputed for
# 64 positions, a learned row cast to float32, state kept from an earlier call of the same shapes (a cos/sin cache
# without the offset in its key, a key tensor kept from the first call), and kinds that were rejected but not
# named. The caches live in _R7_CACHE, keyed by the mutant's name; a test that calls these functions clears it.
_R7_CACHE: dict = {}


def _r7_t5(rp, bidirectional, num_buckets, max_distance, *, half=None, den_md=False, exact_minus1=False):
    n, bucket = num_buckets, torch.zeros_like(rp)
    if bidirectional:
        n //= 2
        bucket = bucket + (rp > 0).long() * n
        dist = rp.abs()
    else:
        dist = (-rp).clamp(min=0)
    me = n // 2 - 1 if exact_minus1 else n // 2
    if half == "all":  # dist.half(): the ratio, the log and the scaling in float16
        val = torch.log(dist.half().clamp(min=1) / me) / math.log(max_distance / me) * (n - me)
    elif half == "log":  # only the log in float16
        val = torch.log((dist.float().clamp(min=1) / me).half()).float() / math.log(max_distance / me) * (n - me)
    else:
        den = math.log(max_distance) if den_md else math.log(max_distance / me)
        val = torch.log(dist.float().clamp(min=1) / me) / den * (n - me)
    large = (me + val.float().long()).clamp(max=n - 1)
    return bucket + torch.where(dist < me, dist, large)


def r7_t5_half(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _r7_t5(relative_position, bidirectional, num_buckets, max_distance, half="all")


def r7_t5_half_log(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _r7_t5(relative_position, bidirectional, num_buckets, max_distance, half="log")


def r7_t5c_half(relative_position, num_buckets=32, max_distance=128):
    return _r7_t5(relative_position, False, num_buckets, max_distance, half="all")


def r7_t5_den_md(relative_position, bidirectional=True, num_buckets=32, max_distance=128):  # log(max_distance) below
    return _r7_t5(relative_position, bidirectional, num_buckets, max_distance, den_md=True)


def r7_t5_log2_doubling(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    n, bucket = num_buckets, torch.zeros_like(relative_position)
    if bidirectional:
        n //= 2
        bucket = bucket + (relative_position > 0).long() * n
        dist = relative_position.abs()
    else:
        dist = (-relative_position).clamp(min=0)
    me = n // 2
    large = (me + torch.log2(dist.float().clamp(min=1) / me).long()).clamp(max=n - 1)
    return bucket + torch.where(dist < me, dist, large)


def r7_t5c_exact_minus1(relative_position, num_buckets=32, max_distance=128):  # max_exact = n // 2 - 1
    return _r7_t5(relative_position, False, num_buckets, max_distance, exact_minus1=True)


def r7_t5c_encoder_offset(relative_position, num_buckets=32, max_distance=128):  # the encoder's n // 2 on past keys
    n = num_buckets // 2
    return (relative_position < 0).long() * n + _r7_t5(relative_position, False, n, max_distance)


def r7_sin_no_d(seq_len, d_model, base=10000.0):  # base ** (-arange(0, d, 2)): the / d forgotten
    freq = base ** (-torch.arange(0, d_model, 2).double())
    ang = torch.arange(seq_len).double()[:, None] * freq
    return _interleave(ang.sin(), ang.cos()).float()


def r7_learned_cast_float32(table, positions):  # rows cast to float32 whatever the table's dtype
    if ((positions < 0) | (positions >= table.shape[0])).any():
        raise IndexError("position outside the table")
    return table[positions].to(torch.float32)


def r7_shaw_index_future_zero(q_len, max_distance):  # a causal mask applied to the index
    p = torch.arange(q_len)
    rel = p[None, :] - p[:, None]
    return (rel.clamp(-max_distance, max_distance) + max_distance).masked_fill(rel > 0, 0)


def r7_shaw_mask_past(q, k, v, rel_k, rel_v):  # tril/triu mixed up: keys before the query hidden
    L, d = q.shape[-2:]
    kk = (rel_k.shape[0] - 1) // 2
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(-kk, kk) + kk
    s = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    a = s.masked_fill(p[None, :] < p[:, None], float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r7_inv_cycles(head_dim, base=10000.0):  # turns per position instead of radians
    return inv_hf(head_dim, base) / (2 * math.pi)


def r7_half_wrong_partner(x, cos, sin):  # cat([-x1, x2]) for rotate_half
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat([-x1, x2], -1) * sin


def _r7_offset_tables(positions, d, base):
    ang = positions.float()[:, None] * inv_hf(d, base)[None, :]
    ang = torch.cat([ang, ang], -1)
    return ang.cos(), ang.sin()


def r7_offset_inv_x_dtype(x, offset, base=10000.0):  # inv_freq rounded to x's dtype, then the product in float32
    L, d = x.shape[-2:]
    ang = torch.arange(offset, offset + L).float()[:, None] * inv_hf(d, base).to(x.dtype).float()[None, :]
    ang = torch.cat([ang, ang], -1)
    return x * ang.cos().to(x.dtype) + torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1) * ang.sin().to(x.dtype)


def r7_offset_cache_without_offset(x, offset, base=10000.0):  # cos/sin cached by (L, d, dtype, base)
    L, d = x.shape[-2:]
    key = ("offset-tables", L, d, x.dtype, base)
    if key not in _R7_CACHE:
        c, s = _r7_offset_tables(torch.arange(offset, offset + L), d, base)
        _R7_CACHE[key] = (c.to(x.dtype), s.to(x.dtype))
    c, s = _R7_CACHE[key]
    return x * c + torch.cat([-x[..., d // 2 :], x[..., : d // 2]], -1) * s


def r7_slopes_negated(n_heads):
    return -slopes_official(n_heads)


def r7_slopes_extra_first(n_heads):  # the extra slopes of a non-power-of-two count placed before the others
    if math.log2(n_heads).is_integer():
        return slopes_official(n_heads)
    c = 2 ** math.floor(math.log2(n_heads))
    return torch.cat([slopes_official(2 * c)[0::2][: n_heads - c], slopes_official(c)])


def r7_bias_plus_one(n_heads, q_len):  # −m·(|j − i| + 1): −m on the diagonal
    p = torch.arange(q_len)
    delta = p[None, :] - p[:, None]
    return (-slopes_official(n_heads)[:, None, None] * (delta.abs() + 1)).masked_fill(delta > 0, float("-inf"))


def r7_bias_precomputed_64(n_heads, q_len):  # MPT/BLOOM style: a table for 64 positions, sliced
    if q_len > 64:
        raise RuntimeError("sequence longer than the precomputed ALiBi table")
    return bias_direct(n_heads, 64)[:, :q_len, :q_len]


def r7_attn_stale_k(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # k kept from a shape's first call
    kept = _R7_CACHE.setdefault(("attention-k", tuple(k.shape)), k.clone())
    return _l_attention(q, kept, v, cos, sin, bias, attention_scaling)


def r7_attn_mask_1e3(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):  # a finite −1e3: correct
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = q * c + _l_rh(q) * s, k * c + _l_rh(k) * s
    L = q.shape[-2]
    w = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
    return w.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), -1e3).softmax(-1) @ v


_STALE = "your function uses what it cached from an earlier call with a different"
ROUND7 = {
    "t5_relative_bucket": [
        ("log computed in float16", r7_t5_half),
        ("log computed in float16", r7_t5_half_log),
        ("log(max_distance) in the denominator instead of log(max_distance / max_exact)", r7_t5_den_md),
        ("one bucket per doubling", r7_t5_log2_doubling),
    ],
    "t5_causal_bucket": [
        ("log computed in float16", r7_t5c_half),
        ("max_exact = num_buckets // 2 − 1", r7_t5c_exact_minus1),
        ("the encoder's offset added to the keys before the query", r7_t5c_encoder_offset),
    ],
    "sinusoidal_encoding": [("exponent 2i instead of 2i/d", r7_sin_no_d)],
    "learned_lookup": [("return them in the table's dtype (float64)", r7_learned_cast_float32)],
    "shaw_relative_index": [("the entries of keys after the query (j > i) set to 0", r7_shaw_index_future_zero)],
    "shaw_attention": [("mask on the wrong side: keys before the query (j < i) hidden", r7_shaw_mask_past)],
    "rope_inv_freq": [("frequencies divided by 2π", r7_inv_cycles)],
    "apply_rope_half": [("rotate_half built from the wrong halves: cat([−x1, x2])", r7_half_wrong_partner)],
    "apply_rope_offset": [
        ("inv_freq cast to x's dtype before the angles", r7_offset_inv_x_dtype),
        (f"{_STALE} offset", r7_offset_cache_without_offset),
    ],
    "alibi_slopes": [
        ("slopes negated", r7_slopes_negated),
        ("the extra slopes placed first", r7_slopes_extra_first),
    ],
    "alibi_bias": [
        ("distance counted from 1", r7_bias_plus_one),
        ("when called as fn(n_heads=2, q_len=130)", r7_bias_precomputed_64),
    ],
    "attention": [(f"{_STALE} k", r7_attn_stale_k)],
}
for _task, _extra in ROUND7.items():
    MUTANTS[_task] += _extra
CORRECT["attention"].append(r7_attn_mask_1e3)


# ---------------------------------------------------------------------------------------------
# round 8: the mistakes an eighth learner-reviewer wrote that were rejected but not named, and their neighbours
_R8_CACHE: dict = {}


def _r8_half_rotate(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def r8_sin_stack_first_axis(seq_len, d_model, base=10000.0):  # stack on axis 0, then reshape
    a = torch.arange(seq_len).float()[:, None] * _freqs(d_model, base)
    return torch.stack([a.sin(), a.cos()], 0).reshape(seq_len, d_model)


def r8_sin_reversed(seq_len, d_model, base=10000.0):  # the frequencies flipped: slowest first
    a = torch.arange(seq_len).float()[:, None] * _freqs(d_model, base).flip(0)
    return _interleave(a.sin(), a.cos())


def r8_concat_reversed(seq_len, d_model, base=10000.0):  # tensor2tensor's frequencies, flipped
    h = d_model // 2
    inv = torch.exp(-math.log(base) * torch.arange(h, dtype=torch.float64) / max(h - 1, 1)).flip(0)
    a = torch.arange(seq_len, dtype=torch.float64)[:, None] * inv
    return torch.cat([a.sin(), a.cos()], -1).float()


def r8_shaw_uncentred(q, k, v, rel_k, rel_v):  # clamp(j − i, 0, 2k): no shift by k
    L, d = q.shape[-2], q.shape[-1]
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(0, rel_k.shape[0] - 1)
    logits = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    a = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r8_shaw_key_row(q, k, v, rel_k, rel_v):  # k where q belongs in the relative term: k_i·R_ij
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    idx = posenc.shaw_relative_index(L, kk)
    logits = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", k, rel_k[idx])) / math.sqrt(d)
    a = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r8_inv_precedence(head_dim, base=10000.0):  # base ** -(2i) / d
    return (base ** -(torch.arange(0, head_dim, 2).double()) / head_dim).float()


def r8_pi_precedence(head_dim, base, factor):
    return (base ** -(torch.arange(0, head_dim, 2).double()) / head_dim / factor).float()


def r8_ntk_precedence(head_dim, base, factor):
    b = base * factor ** (head_dim / (head_dim - 2))
    return (b ** -(torch.arange(0, head_dim, 2).double()) / head_dim).float()


def r8_pi_not_negated(head_dim, base, factor):  # base ** (2i/d) / s
    return base ** (torch.arange(0, head_dim, 2).float() / head_dim) / factor


def r8_ntk_not_negated(head_dim, base, factor):
    b = base * factor ** (head_dim / (head_dim - 2))
    return b ** (torch.arange(0, head_dim, 2).float() / head_dim)


def r8_pi_reversed(head_dim, base, factor):
    return _freqs(head_dim, base).flip(0) / factor


def r8_ntk_reversed(head_dim, base, factor):
    return _freqs(head_dim, base * factor ** (head_dim / (head_dim - 2))).flip(0)


def _r8_yarn(d, base, s, L0, bf=32.0, bs=1.0, *, theta_fn=None, after=None):
    def cdim(r):
        return d * math.log(L0 / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(cdim(bf)), 0), min(math.ceil(cdim(bs)), d - 1)
    if low == high:
        high += 0.001
    theta = 1.0 / base ** (torch.arange(0, d, 2).float() / d)
    if theta_fn is not None:
        theta = theta_fn(theta)
    g = ((torch.arange(d // 2).float() - low) / (high - low)).clamp(0, 1)
    inv = g * theta / s + (1 - g) * theta
    return (after(inv) if after is not None else inv), 0.1 * math.log(s) + 1.0


def r8_yarn_half(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r8_yarn(
        head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, after=lambda t: t.half().float()
    )


def r8_yarn_bf16(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r8_yarn(
        head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow,
        after=lambda t: t.bfloat16().float(),
    )  # fmt: skip


def r8_yarn_not_negated(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r8_yarn(
        head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, theta_fn=lambda t: 1.0 / t
    )


def r8_yarn_reversed(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r8_yarn(
        head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, theta_fn=lambda t: t.flip(0)
    )


def r8_half_flip_partner(x, cos, sin):  # pairs i with d − 1 − i
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:].flip(-1), x[..., :h].flip(-1)], -1) * sin


def r8_half_twice(x, cos, sin):
    y = x * cos + _r8_half_rotate(x) * sin
    return y * cos + _r8_half_rotate(y) * sin


def r8_interleaved_twice(x, cos, sin):
    def once(t):
        t0, t1 = t[..., 0::2], t[..., 1::2]
        return t * cos + torch.stack([-t1, t0], -1).flatten(-2) * sin

    return once(once(x))


def r8_interleaved_complex_swapped(x, cos, sin):  # the odd coordinate taken as the real part
    xf = x.float()
    z = torch.complex(xf[..., 1::2], xf[..., 0::2]) * torch.complex(cos[..., 0::2].float(), sin[..., 0::2].float())
    return torch.stack([z.real, z.imag], -1).flatten(-2).to(x.dtype)


def r8_half_cached_tables(x, cos, sin):  # cos and sin cached by their shape and dtype
    key = ("half", tuple(cos.shape), cos.dtype)
    if key not in _R8_CACHE:
        _R8_CACHE[key] = (cos, sin)
    c, s = _R8_CACHE[key]
    return x * c + _r8_half_rotate(x) * s


def r8_interleaved_cached_complex(x, cos, sin):  # the complex factors cached by shape alone
    key = ("interleaved", tuple(cos.shape))
    if key not in _R8_CACHE:
        _R8_CACHE[key] = torch.complex(cos[..., 0::2].float(), sin[..., 0::2].float())
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous()) * _R8_CACHE[key]
    return torch.view_as_real(z).flatten(-2).to(x.dtype)


_REVERSED = "frequencies in reverse order (flipped)"
_NEGATED = "the sign of the exponent lost: base^(+2i/d)"
_PREC = "operator precedence: base ** -(2i) / d"
ROUND8 = {
    "sinusoidal_encoding": [
        ("torch.stack([sin, cos], 0).reshape(L, d)", r8_sin_stack_first_axis),
        (_REVERSED, r8_sin_reversed),
    ],
    "sinusoidal_concat": [(_REVERSED, r8_concat_reversed)],
    "shaw_attention": [
        ("the relative index not centred: clip(j − i, 0, 2k)", r8_shaw_uncentred),
        ("the relative key term uses k where q belongs: k_i·R^K_ij", r8_shaw_key_row),
    ],
    "rope_inv_freq": [(_PREC, r8_inv_precedence)],
    "pi_inv_freq": [(_PREC, r8_pi_precedence), (_NEGATED, r8_pi_not_negated), (_REVERSED, r8_pi_reversed)],
    "ntk_inv_freq": [(_PREC, r8_ntk_precedence), (_NEGATED, r8_ntk_not_negated), (_REVERSED, r8_ntk_reversed)],
    "yarn_inv_freq": [
        ("frequencies computed in float16", r8_yarn_half),
        ("frequencies computed in bfloat16", r8_yarn_bf16),
        (_NEGATED, r8_yarn_not_negated),
        (_REVERSED, r8_yarn_reversed),
    ],
    "apply_rope_half": [
        ("rotate_half's partner taken with a flip", r8_half_flip_partner),
        ("the rotation applied twice", r8_half_twice),
        (f"{_STALE} cos and sin", r8_half_cached_tables),
    ],
    "apply_rope_interleaved": [
        ("real and imaginary parts swapped", r8_interleaved_complex_swapped),
        ("the rotation applied twice", r8_interleaved_twice),
        (f"{_STALE} cos and sin", r8_interleaved_cached_complex),
    ],
}
for _task, _extra in ROUND8.items():
    MUTANTS[_task] += _extra


# round 9: the mistakes a ninth learner-reviewer wrote that the checker did not name, and their siblings
_R9_CACHE: dict = {}


def r9_offset_cached_by_shape(x, offset, base=10000.0):
    """cos/sin keyed on (L, d) only, filled on the first call with that call's offset, cast after the lookup."""
    L, d = x.shape[-2], x.shape[-1]
    if (L, d) not in _R9_CACHE:
        _R9_CACHE[(L, d)] = posenc.rope_cos_sin(torch.arange(offset, offset + L), d, base)
    c, s = _R9_CACHE[(L, d)]
    return posenc.apply_rope(x, c.to(x.dtype), s.to(x.dtype))


def r9_attention_mask_past(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = posenc.apply_rope(q, c, s), posenc.apply_rope(k, c, s)
    logits = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if bias is not None:
        logits = logits + bias
    L = q.shape[-2]
    logits = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).tril(-1), float("-inf"))
    return torch.softmax(logits, -1) @ v


def r9_shaw_unshifted(q, k, v, rel_k, rel_v):
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(-kk, kk)
    logits = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / d**0.5
    logits = logits.masked_fill(p[None, :] > p[:, None], float("-inf"))
    a = torch.softmax(logits, -1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r9_shaw_index_wrapped(q_len, k):
    p = torch.arange(q_len)
    return torch.remainder(p[None, :] - p[:, None] + k, 2 * k + 1)


def r9_inv_log2(head_dim, base=10000.0):
    return torch.exp(-math.log2(base) * torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)


def _r9_t5(rel, bidirectional, num_buckets, max_distance):
    rel = rel.long()
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (rel > 0).long() * num_buckets
        dist = rel.abs()
    else:
        dist = -torch.clamp(rel, max=0)
    max_exact = num_buckets // 2
    val = torch.log(dist.float().clamp(min=1) / max_exact) / math.log(max_distance / max_exact)
    large = (val * (num_buckets - max_exact)).long().clamp(max=num_buckets - 1)  # + max_exact missing
    return buckets + torch.where(dist < max_exact, dist, large)


def r9_t5_no_exact_add(rel, bidirectional=True, num_buckets=32, max_distance=128):
    return _r9_t5(rel, bidirectional, num_buckets, max_distance)


def r9_t5_causal_no_exact_add(rel, num_buckets=32, max_distance=128):
    return _r9_t5(rel, False, num_buckets, max_distance)


ROUND9 = {
    "apply_rope_offset": [
        ("your function uses what it cached from an earlier call with a different offset", r9_offset_cached_by_shape)
    ],
    "attention": [("mask on the wrong side", r9_attention_mask_past)],
    "shaw_attention": [("the relative index not shifted by k", r9_shaw_unshifted)],
    "shaw_relative_index": [("j − i + k wrapped modulo 2k + 1", r9_shaw_index_wrapped)],
    "rope_inv_freq": [("the logarithm of the base taken in the wrong base", r9_inv_log2)],
    "t5_relative_bucket": [("the log bucket not offset by max_exact", r9_t5_no_exact_add)],
    "t5_causal_bucket": [("the log bucket not offset by max_exact", r9_t5_causal_no_exact_add)],
}
for _task, _extra in ROUND9.items():
    MUTANTS[_task] += _extra


# round 10: the mistakes a tenth learner-reviewer wrote that the checker named wrongly or not at all, written anew,
# and their siblings in the same class
def r10_ntk_exponent_d2(head_dim, base, factor):
    nb = base * factor ** (head_dim / (head_dim - 2))
    return 1.0 / nb ** (torch.arange(0, head_dim, 2).float() / (head_dim - 2))


def r10_pi_exponent_d2(head_dim, base, factor):
    return torch.linspace(0, 1, head_dim // 2, dtype=torch.float64).mul(-math.log(base)).exp().float() / factor


def r10_shaw_uint8(q_len, max_distance):
    p = torch.arange(q_len, dtype=torch.uint8)
    return (p[None, :] - p[:, None]).long().clamp(-max_distance, max_distance) + max_distance


def r10_slopes_from_c(n_heads):
    def p2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(p2(n_heads))
    c = 2 ** math.floor(math.log2(n_heads))
    extra = p2(c)[0::2]
    while len(extra) < n_heads - c:
        extra = extra + extra
    return torch.tensor(p2(c) + extra[: n_heads - c], dtype=torch.float32)


def _r10_rh(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def r10_half_row0(x, cos, sin):
    return x * cos[0] + _r10_rh(x) * sin[0]


def r10_half_last_row(x, cos, sin):
    return x * cos[-1] + _r10_rh(x) * sin[-1]


def r10_interleaved_row0(x, cos, sin):
    c, s = cos[0], sin[0]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c[0::2] - x1 * s[0::2], x0 * s[0::2] + x1 * c[0::2]], -1).flatten(-2)


def r10_half_second_sign(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    c, s = cos[..., :h], sin[..., :h]
    return torch.cat([x1 * c - x2 * s, x2 * c - x1 * s], -1)


def r10_interleaved_odd_sign(x, cos, sin):
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([x0 * c - x1 * s, x1 * c - x0 * s], -1).flatten(-2)


def r10_shaw_value_centre(q, k, v, rel_k, rel_v):
    L, d = q.shape[-2:]
    kk = (rel_k.shape[0] - 1) // 2
    p = torch.arange(L)
    idx = (p[None, :] - p[:, None]).clamp(-kk, kk) + kk
    s = (q @ k.transpose(-2, -1) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    s = s.masked_fill(idx > kk, float("-inf"))
    return s.softmax(-1) @ v + rel_v[kk]


def r10_t5_causal_future_last(relative_position, num_buckets=32, max_distance=128):
    b = posenc.t5_relative_bucket(
        relative_position, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance
    )
    return torch.where(relative_position > 0, torch.full_like(b, num_buckets - 1), b)


def r10_t5_causal_future_one(relative_position, num_buckets=32, max_distance=128):
    """Keys after the query in bucket 1: no known mistake, the class detector names it."""
    b = posenc.t5_relative_bucket(
        relative_position, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance
    )
    return torch.where(relative_position > 0, torch.ones_like(b), b)


def _r10_yarn(d, base, s, L, bf, bs, rnd=None, turn=2 * math.pi):
    def cd(r):
        return d * math.log(L / (r * turn)) / (2 * math.log(base))

    low, high = (round(cd(bf)), round(cd(bs))) if rnd == "round" else (math.floor(cd(bf)), math.ceil(cd(bs)))
    if rnd == "ceil":
        low, high = math.ceil(cd(bf)), math.ceil(cd(bs))
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    ramp = ((torch.arange(d // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
    inv = theta / s * ramp + theta * (1 - ramp)
    return inv, (0.1 * math.log(s) + 1.0) if s > 1 else 1.0


def r10_yarn_round(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r10_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, rnd="round")


def r10_yarn_ceil(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r10_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, rnd="ceil")


def r10_yarn_pi(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r10_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, turn=math.pi)


def r10_pi_factor_minus_one(head_dim, base, factor):
    return posenc.rope_inv_freq(head_dim, base) / (factor - 1)


def r10_pi_factor_plus_one(head_dim, base, factor):
    """θ / (factor + 1): no known mistake, the class detector reads the divisor back."""
    return posenc.rope_inv_freq(head_dim, base) / (factor + 1)


def r10_pi_by_three(head_dim, base, factor):
    """θ / 3 whatever the factor: the class detector reads the divisor back."""
    return posenc.rope_inv_freq(head_dim, base) / 3.0


def _r10_angles(positions, head_dim, base):
    pos = torch.arange(positions) if isinstance(positions, int) else positions
    return pos.float()[:, None] * posenc.rope_inv_freq(head_dim, base)[None, :]


def r10_cs_sin_negated_half(positions, head_dim, base=10000.0):
    a = _r10_angles(positions, head_dim, base)
    return torch.cat([a.cos(), a.cos()], -1), torch.cat([a.sin(), -a.sin()], -1)


def r10_cs_cos_negated_half(positions, head_dim, base=10000.0):
    a = _r10_angles(positions, head_dim, base)
    return torch.cat([a.cos(), -a.cos()], -1), torch.cat([a.sin(), a.sin()], -1)


# correct, in new styles: Meta's order (rotate in float32, cast the result), T5 with <=, float64 angles
def r10_offset_meta_order(x, offset, base=10000.0):
    L, d = x.shape[-2:]
    c, s = posenc.rope_cos_sin(torch.arange(offset, offset + L), d, base)
    return posenc.apply_rope(x.float(), c, s).to(x.dtype)


def r10_t5_le(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    rel = relative_position
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (rel > 0).long() * num_buckets
        dist = rel.abs()
    else:
        dist = -torch.clamp(rel, max=0)
    me = num_buckets // 2
    large = me + (torch.log(dist.float() / me) / math.log(max_distance / me) * (num_buckets - me)).long()
    return buckets + torch.where(dist <= me, dist, large.clamp(max=num_buckets - 1))


def r10_cs_float64(positions, head_dim, base=10000.0):
    pos = torch.arange(positions) if isinstance(positions, int) else positions
    inv = torch.exp(-math.log(base) * torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    a = torch.einsum("n,f->nf", pos.double(), inv).repeat(1, 2)
    return a.cos().float(), a.sin().float()


ROUND10 = {
    "ntk_inv_freq": [("only the exponent's denominator is wrong", r10_ntk_exponent_d2)],
    "pi_inv_freq": [
        ("exponent 2i/(d−2) (a linspace to 1)", r10_pi_exponent_d2),
        ("frequencies divided by factor − 1", r10_pi_factor_minus_one),
        ("all divided by one number c, but c = 3", r10_pi_factor_plus_one),
        ("all divided by one number c, but c = 3", r10_pi_by_three),
    ],
    "shaw_relative_index": [("j − i computed in an unsigned dtype", r10_shaw_uint8)],
    "alibi_slopes": [("yours take every other slope of c heads, get_slopes(c)[0::2]", r10_slopes_from_c)],
    "apply_rope_half": [
        ("the angle of the first row (cos[0], sin[0]) used for every position", r10_half_row0),
        ("the angle of the last row (cos[−1], sin[−1]) used for every position", r10_half_last_row),
        ("the second half's sign wrong: x2' = x2·cos − x1·sin", r10_half_second_sign),
    ],
    "apply_rope_interleaved": [
        ("the angle of the first row (cos[0], sin[0]) used for every position", r10_interleaved_row0),
        ("the odd coordinate's sign wrong", r10_interleaved_odd_sign),
    ],
    "shaw_attention": [("the value side adds only the centre row R^V[k]", r10_shaw_value_centre)],
    "t5_causal_bucket": [
        ("keys after the query (Δ > 0) sent to the last bucket", r10_t5_causal_future_last),
        ("right for every key at or before the query (Δ ≤ 0) and wrong after it", r10_t5_causal_future_one),
    ],
    "yarn_inv_freq": [
        ("correction range rounded to the nearest integer (round())", r10_yarn_round),
        ("correction range rounded up at both ends", r10_yarn_ceil),
        ("π instead of 2π in the correction dimension", r10_yarn_pi),
    ],
    "rope_cos_sin": [
        ("sin table cat([sin a, −sin a])", r10_cs_sin_negated_half),
        ("cos table cat([cos a, −cos a])", r10_cs_cos_negated_half),
    ],
}
for _task, _extra in ROUND10.items():
    MUTANTS[_task] += _extra
CORRECT["apply_rope_offset"].append(r10_offset_meta_order)
CORRECT["t5_relative_bucket"].append(r10_t5_le)
CORRECT["rope_cos_sin"].append(r10_cs_float64)


# round 11: the mistakes an eleventh learner-reviewer wrote that the checker named wrongly (a cos/sin table cached
# by head_dim alone, called "base ignored") or not at all, written anew, and their siblings in the same class
def _r11_rh(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def r11_offset_cache_by_d(x, offset, base=10000.0, _cache={}):  # noqa: B006 — the learner's cache
    """A cos/sin table keyed on head_dim alone, grown when too short: the base of its first call stays."""
    L, d = x.shape[-2], x.shape[-1]
    if d not in _cache or _cache[d][0].shape[0] < offset + L:
        _cache[d] = posenc.rope_cos_sin(offset + L, d, base)
    c, s = _cache[d][0][offset : offset + L], _cache[d][1][offset : offset + L]
    return x * c.to(x.dtype) + _r11_rh(x) * s.to(x.dtype)


def r11_offset_cache_full(x, offset, base=10000.0, _cache={}):  # noqa: B006 — a cache keyed on what it depends on
    L, d = x.shape[-2], x.shape[-1]
    key = (d, float(base))
    if key not in _cache or _cache[key][0].shape[0] < offset + L:
        _cache[key] = posenc.rope_cos_sin(offset + L, d, base)
    c, s = _cache[key][0][offset : offset + L], _cache[key][1][offset : offset + L]
    return x * c.to(x.dtype) + _r11_rh(x) * s.to(x.dtype)


def _r11_yarn(d, base, s, L, bf, bs, no_low=False, att="ok"):
    def cd(r):
        return d * math.log(L / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(cd(bf)), 0), min(math.ceil(cd(bs)), d - 1)
    if low == high:
        high += 0.001
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    i = torch.arange(d // 2, dtype=torch.float32)
    ramp = ((i - (0 if no_low else low)) / (high - low)).clamp(0, 1)
    m = (0.1 * math.log(s) + 1.0) if s > 1 else 1.0
    return theta / s * ramp + theta * (1 - ramp), (1.0 / m if att == "inverse" else m)


_R11_YARN: dict = {}


def r11_yarn_cache_no_factor(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    """A global cache keyed on (head_dim, base, original length): the factor of its first call stays."""
    key = (head_dim, base, original_max_position_embeddings)
    if key not in _R11_YARN:
        _R11_YARN[key] = _r11_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    return _R11_YARN[key]


def r11_yarn_cache_full(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    key = ("full", head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    if key not in _R11_YARN:
        _R11_YARN[key] = _r11_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    return _R11_YARN[key]


def r11_yarn_no_low(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r11_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, no_low=True)


def r11_yarn_att_inverse(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return _r11_yarn(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, att="inverse")


def r11_concat_floor_exponent(seq_len, d_model, base=10000.0):
    n = d_model // 2
    e = (torch.arange(n) // max(n - 1, 1)).float()
    a = torch.arange(seq_len).float()[:, None] * torch.exp(-math.log(base) * e)[None, :]
    return torch.cat([a.sin(), a.cos()], -1)


def r11_cs_flip_half(positions, head_dim, base=10000.0):
    p = torch.arange(positions) if isinstance(positions, int) else positions
    a = p.float()[:, None] * posenc.rope_inv_freq(head_dim, base)[None, :]
    e = torch.cat([a, a.flip(-1)], -1)
    return e.cos(), e.sin()


def r11_half_rows_flipped(x, cos, sin):
    return x * cos.flip(-2) + _r11_rh(x) * sin.flip(-2)


def r11_interleaved_rows_flipped(x, cos, sin):
    return posenc.apply_rope(x, cos.flip(0), sin.flip(0), layout="interleaved")


def r11_half_bf16(x, cos, sin):
    xb = x.bfloat16()
    return (xb * cos.bfloat16() + _r11_rh(xb) * sin.bfloat16()).to(x.dtype)


def r11_interleaved_fp16(x, cos, sin):
    """The rotation in float16, written with addcmul: another order of operations than the known mistake's."""
    xh, c, s = x.half(), cos.half()[..., 0::2], sin.half()[..., 0::2]
    x0, x1 = xh[..., 0::2], xh[..., 1::2]
    out = torch.stack([torch.addcmul(x0 * c, x1, -s), torch.addcmul(x1 * c, x0, s)], -1).flatten(-2)
    return out.to(x.dtype)


def r11_offset_all_at_offset(x, offset, base=10000.0):
    L = x.shape[-2]
    c, s = posenc.rope_cos_sin(torch.full((L,), offset), x.shape[-1], base)
    return posenc.apply_rope(x, c.to(x.dtype), s.to(x.dtype))


def r11_bias_key_negative(n_heads, q_len):
    p = torch.arange(q_len)
    b = -posenc.alibi_slopes(n_heads)[:, None, None] * p[None, None, :].float()
    return b.expand(n_heads, q_len, q_len).masked_fill(p[None, :] > p[:, None], float("-inf"))


def r11_bias_key_from_last(n_heads, q_len):
    """m·(j − (L − 1)): the key-position form counted from the last key, 0 in the last column."""
    p = torch.arange(q_len)
    b = posenc.alibi_slopes(n_heads)[:, None, None].double() * (p - (q_len - 1))[None, None, :].double()
    return b.expand(n_heads, q_len, q_len).masked_fill(p[None, :] > p[:, None], float("-inf")).float()


def r11_slopes_of_eight(n_heads):
    return posenc.alibi_slopes(max(8, n_heads))[:n_heads]


def r11_bias_slopes_of_eight(n_heads, q_len):
    rel = posenc.relative_positions(q_len)
    b = -r11_slopes_of_eight(n_heads)[:, None, None] * rel.abs()[None].float()
    return b.masked_fill(rel[None] > 0, float("-inf"))


def r11_pi_base_over_factor(head_dim, base, factor):
    return posenc.rope_inv_freq(head_dim, base / factor)


def r11_inv_d_entries(head_dim, base=10000.0):
    return 1.0 / base ** (torch.arange(head_dim).float() / head_dim)


def r11_pi_doubled(head_dim, base, factor):
    f = posenc.rope_inv_freq(head_dim, base) / factor
    return torch.cat([f, f])


_STATE = "your function keeps state between calls"
_D_ENTRIES = "d entries instead of d/2"
ROUND11 = {
    "apply_rope_offset": [
        (_STATE, r11_offset_cache_by_d),
        ("every new token at position offset", r11_offset_all_at_offset),
    ],
    "yarn_inv_freq": [
        (_STATE, r11_yarn_cache_no_factor),
        ("ramp i/(high − low) without − low", r11_yarn_no_low),
        ("attention scaling inverted", r11_yarn_att_inverse),
    ],
    "sinusoidal_concat": [("integer (floor) division in the exponent", r11_concat_floor_exponent)],
    "rope_cos_sin": [("second half of the tables reversed", r11_cs_flip_half)],
    "apply_rope_half": [
        ("the tables' rows reversed", r11_half_rows_flipped),
        ("computed in bfloat16 for a float32 x", r11_half_bf16),
    ],
    "apply_rope_interleaved": [
        ("the tables' rows reversed", r11_interleaved_rows_flipped),
        ("computed in float16 for a float32 x", r11_interleaved_fp16),
    ],
    "alibi_bias": [
        ("bias −slope × key position (−m·j)", r11_bias_key_negative),
        ("plus a constant in each row", r11_bias_key_from_last),
        ("the slopes of 8 heads, the first n taken", r11_bias_slopes_of_eight),
    ],
    "alibi_slopes": [("the slopes of 8 heads, the first n taken", r11_slopes_of_eight)],
    "pi_inv_freq": [
        ("base divided by the factor", r11_pi_base_over_factor),
        (_D_ENTRIES, r11_pi_doubled),
    ],
    "rope_inv_freq": [(_D_ENTRIES, r11_inv_d_entries)],
}
for _task, _extra in ROUND11.items():
    MUTANTS[_task] += _extra
CORRECT["apply_rope_offset"].append(r11_offset_cache_full)
CORRECT["yarn_inv_freq"].append(r11_yarn_cache_full)


# ---------------------------------------------------------------------------------------------
# round 13: a twelfth learner-reviewer's unnamed mistakes (and one accepted), written anew with siblings
def r13_concat_timescales(seq_len, d_model, base=10000.0):  # positions multiplied by the timescales
    half = d_model // 2
    timescales = base ** (torch.arange(half, dtype=torch.float32) / max(half - 1, 1))
    ang = torch.arange(seq_len, dtype=torch.float32)[:, None] * timescales
    return torch.cat([ang.sin(), ang.cos()], -1)


def r13_concat_timescales_f64(seq_len, d_model, base=10000.0):
    half = d_model // 2
    inc = math.log(base) / max(half - 1, 1)
    ang = torch.arange(seq_len, dtype=torch.float64)[:, None] * torch.exp(inc * torch.arange(half).double())
    return torch.cat([ang.sin(), ang.cos()], -1).float()


def r13_shaw_k_rows(q, k, v, rel_k, rel_v):  # k = rows − 1, then the index clamped back into the table
    L, d = q.shape[-2], q.shape[-1]
    kk = rel_k.shape[0] - 1
    pos = torch.arange(L)
    idx = torch.clamp(pos[None, :] - pos[:, None], -kk, kk) + kk
    idx = torch.minimum(idx, torch.tensor(rel_k.shape[0] - 1))
    s = (q @ k.transpose(-1, -2) + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    s = s.masked_fill(pos[None, :] > pos[:, None], float("-inf"))
    a = s.softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r13_t5_exact_first_both(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    # max_exact taken from the whole count, then the count halved in both branches
    max_exact = num_buckets // 2
    n = num_buckets // 2
    ret = torch.zeros_like(relative_position)
    if bidirectional:
        ret = ret + (relative_position > 0).long() * n
        dist = relative_position.abs()
    else:
        dist = torch.clamp(-relative_position, min=0)
    big = max_exact + (torch.log(dist.float() / max_exact) / math.log(max_distance / max_exact) * (n - max_exact)).to(
        torch.long
    )
    big = torch.clamp(big, max=n - 1)
    return ret + torch.where(dist < max_exact, dist, big)


def _t5_over_buckets(rel, bidirectional, num_buckets, max_distance):
    ret = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        ret = ret + (rel > 0).long() * num_buckets
        dist = rel.abs()
    else:
        dist = -torch.clamp(rel, max=0)
    max_exact = num_buckets // 2
    scaled = torch.log(dist.float() / max_exact) / math.log(max_distance / num_buckets)
    big = torch.clamp(max_exact + (scaled * (num_buckets - max_exact)).long(), max=num_buckets - 1)
    return ret + torch.where(dist < max_exact, dist, big)


def r13_t5_log_over_buckets(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _t5_over_buckets(relative_position, bidirectional, num_buckets, max_distance)


def r13_t5c_log_over_buckets(relative_position, num_buckets=32, max_distance=128):
    return _t5_over_buckets(relative_position, False, num_buckets, max_distance)


def _r13_rot_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def r13_half_scaled(x, cos, sin):  # a stray 1/√2 left on the rotation
    return ((x * cos + _r13_rot_half(x) * sin) / math.sqrt(2)).to(x.dtype)


def r13_interleaved_scaled(x, cos, sin):
    out = posenc.apply_rope(x.float(), cos.float(), sin.float(), layout="interleaved")
    return (out * 1.01).to(x.dtype)


def r13_offset_scaled(x, offset, base=10000.0):
    c, s = posenc.rope_cos_sin(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
    return (posenc.apply_rope(x.float(), c, s) * 0.9).to(x.dtype)


def r13_half_square_transposed(x, cos, sin):  # guesses a [d, L] layout from a square shape
    if cos.shape[-1] == cos.shape[-2]:
        cos, sin = cos.mT, sin.mT
    return x * cos + _r13_rot_half(x) * sin


def r13_interleaved_square_transposed(x, cos, sin):
    if cos.shape[0] == cos.shape[1]:
        cos, sin = cos.t(), sin.t()
    return posenc.apply_rope(x, cos, sin, layout="interleaved")


def r13_offset_square_transposed(x, offset, base=10000.0):
    c, s = posenc.rope_cos_sin(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
    if c.shape[0] == c.shape[1]:
        c, s = c.T, s.T
    return x * c.to(x.dtype) + _r13_rot_half(x) * s.to(x.dtype)


def r13_interleaved_sin_odd(x, cos, sin):  # the odd output with sin where cos belongs
    a, b = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([a * c - b * s, (a + b) * s], -1).flatten(-2)


def r13_interleaved_sin_even(x, cos, sin):
    a, b = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([(a - b) * s, a * s + b * c], -1).flatten(-2)


def r13_half_sin_second(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    c, s = cos[..., :h], sin[..., :h]
    return torch.cat([x1 * c - x2 * s, x2 * s + x1 * s], -1)


def _r13_official(n):
    def pow2(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start ** (i + 1) for i in range(m)]

    if math.log2(n).is_integer():
        return pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return pow2(c) + pow2(2 * c)[0::2][: n - c]


def r13_slopes_extra_reversed(n_heads):
    c = 2 ** math.floor(math.log2(n_heads))
    base = _r13_official(c)
    extra = _r13_official(2 * c)[0::2][: n_heads - c]
    return torch.tensor(base + list(reversed(extra)))


def r13_slopes_sqrt_big(n_heads):  # 2^(−4/n) ratio from nine heads on
    s = torch.tensor(_r13_official(n_heads), dtype=torch.float64)
    return (s if n_heads <= 8 else s**0.5).float()


def r13_slopes_exponent_six(n_heads):  # the 8 of 2^(−8/n) written as 6, for every head count
    return (torch.tensor(_r13_official(n_heads), dtype=torch.float64) ** 0.75).float()


def r13_pi_factor_in_exponent(head_dim, base, factor):
    exps = torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim
    return (1.0 / base ** (exps * factor)).float()


_PART = "part of your mistake is a known one"
ROUND13 = {
    "sinusoidal_concat": [
        ("positions multiplied by the timescales", r13_concat_timescales),
        ("positions multiplied by the timescales", r13_concat_timescales_f64),
    ],
    "shaw_attention": [("clipping distance k taken as rows − 1", r13_shaw_k_rows)],
    "t5_relative_bucket": [
        (_PART, r13_t5_exact_first_both),
        ("log(max_distance / num_buckets) in the denominator", r13_t5_log_over_buckets),
    ],
    "t5_causal_bucket": [("log(max_distance / num_buckets) in the denominator", r13_t5c_log_over_buckets)],
    "apply_rope_half": [
        ("the right one times 0.707107", r13_half_scaled),
        ("cos and sin transposed when they are square", r13_half_square_transposed),
        ("cos replaced by sin in the second half", r13_half_sin_second),
    ],
    "apply_rope_interleaved": [
        ("the right one times 1.01", r13_interleaved_scaled),
        ("cos and sin transposed when they are square", r13_interleaved_square_transposed),
        ("cos replaced by sin in the odd coordinate", r13_interleaved_sin_odd),
        ("cos replaced by sin in the even coordinate", r13_interleaved_sin_even),
    ],
    "apply_rope_offset": [
        ("the right one times 0.9", r13_offset_scaled),
        ("square", r13_offset_square_transposed),
    ],
    "alibi_slopes": [
        ("the extra slopes in reverse order", r13_slopes_extra_reversed),
        ("raised to the power 0.5", r13_slopes_sqrt_big),
        ("raised to the power 0.75", r13_slopes_exponent_six),
    ],
    "pi_inv_freq": [("the factor put into the exponent", r13_pi_factor_in_exponent)],
}
for _task, _extra in ROUND13.items():
    MUTANTS[_task] += _extra


# ---------------------------------------------------------------------------------------------
# round 14: mistakes of learner 13's run without a name, written anew with siblings
def r14_yarn_cdim_log2_bottom(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    d, L0 = head_dim, original_max_position_embeddings

    def cdim(turns):  # natural log on top, log2 below
        return d * math.log(L0 / (2 * math.pi * turns)) / (2 * math.log2(base))

    lo, hi = max(math.floor(cdim(beta_fast)), 0), min(math.ceil(cdim(beta_slow)), d - 1)
    hi = hi + 0.001 if lo == hi else hi
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    keep = 1 - ((torch.arange(d // 2, dtype=torch.float64) - lo) / (hi - lo)).clamp(0, 1)
    return (theta / factor * (1 - keep) + theta * keep).float(), 0.1 * math.log(factor) + 1 if factor > 1 else 1.0


def r14_yarn_l0_fixed(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    from posenc.practice import reference

    return reference("yarn_inv_freq")(head_dim, base, factor, 4096, beta_fast, beta_slow)


def r14_yarn_beta_fast_fixed(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    from posenc.practice import reference

    return reference("yarn_inv_freq")(head_dim, base, factor, original_max_position_embeddings, 32.0, beta_slow)


def r14_t5_buckets_fixed(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return posenc.t5_relative_bucket(relative_position, bidirectional=bidirectional)  # the defaults, always


def r14_t5c_log_dist(relative_position, num_buckets=32, max_distance=128):  # log(dist), no / max_exact
    dist = (-relative_position).clamp(min=0)
    exact = num_buckets // 2
    far = exact + (torch.log(dist.float().clamp(min=1)) / math.log(max_distance / exact) * (num_buckets - exact))
    return torch.where(dist < exact, dist, far.long().clamp(max=num_buckets - 1))


def r14_t5_linear(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    n, rel = num_buckets, relative_position
    upper = torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        upper = (rel > 0).long() * n
        dist = rel.abs()
    else:
        dist = (-rel).clamp(min=0)
    exact = n // 2
    lin = exact + ((dist - exact).float() * (n - exact) / (max_distance - exact)).long()
    return upper + torch.where(dist < exact, dist, lin.clamp(max=n - 1))


def r14_shaw_scaled_by_rows(q, k, v, rel_k, rel_v):
    L = q.shape[-2]
    kk = (rel_k.shape[0] - 1) // 2
    idx = posenc.shaw_relative_index(L, kk)
    logits = (q @ k.mT + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / rel_k.shape[0]
    a = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[idx])


def r14_shaw_value_late(q, k, v, rel_k, rel_v):  # the value rows read one later than the key rows
    L, d = q.shape[-2:]
    kk = (rel_k.shape[0] - 1) // 2
    idx = posenc.shaw_relative_index(L, kk)
    logits = (q @ k.mT + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    a = logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    return a @ v + torch.einsum("...ij,ijd->...id", a, rel_v[(idx + 1).clamp(max=2 * kk)])


def r14_half_rotate_rows(x, cos, sin):  # rotate_half written with dim=-2: it swaps the tokens, not the halves
    top, bottom = x.chunk(2, dim=-2)
    return x * cos + torch.cat((-bottom, top), dim=-2) * sin


def r14_cs_divided(positions, head_dim, base=10000.0):
    p = torch.arange(positions) if isinstance(positions, int) else positions
    inv = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    ang = (p.double()[:, None] / inv).float()
    ang = torch.cat([ang, ang], -1)
    return ang.cos(), ang.sin()


def _r14_offset_tables(pos, d, base, inv_dtype=None):
    inv = posenc.rope_inv_freq(d, base)
    if inv_dtype is not None:
        inv = inv.to(inv_dtype).float()
    ang = pos.float()[:, None] * inv
    ang = torch.cat([ang, ang], -1)
    return ang.cos(), ang.sin()


def r14_offset_reversed(x, offset, base=10000.0):
    c, s = _r14_offset_tables(torch.arange(offset + x.shape[-2] - 1, offset - 1, -1), x.shape[-1], base)
    return x * c.to(x.dtype) + _r13_rot_half(x) * s.to(x.dtype)


def r14_offset_inv_bf16(x, offset, base=10000.0):
    c, s = _r14_offset_tables(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base, torch.bfloat16)
    return x * c.to(x.dtype) + _r13_rot_half(x) * s.to(x.dtype)


class R14OffsetCounter:
    """Counts its calls and, from the second on, puts the tokens one position later: state kept in an object."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x, offset, base=10000.0):
        c, s = _r14_offset_tables(torch.arange(offset, offset + x.shape[-2]) + min(self.calls, 1), x.shape[-1], base)
        self.calls += 1
        return x * c.to(x.dtype) + _r13_rot_half(x) * s.to(x.dtype)


class R14OffsetTracker:
    """A decoder that tracks its own position and adds it to the offset (state in an object's method)."""

    def __init__(self):
        self.pos = 0

    def rope(self, x, offset, base=10000.0):
        c, s = _r14_offset_tables(torch.arange(offset, offset + x.shape[-2]) + self.pos, x.shape[-1], base)
        self.pos = 2
        return x * c.to(x.dtype) + _r13_rot_half(x) * s.to(x.dtype)


def r14_slopes_of_2n(n_heads):
    c = 2 ** math.floor(math.log2(n_heads))
    if c == n_heads:
        return torch.tensor(_r13_official(n_heads))
    ratio = 2.0 ** (-8.0 / (2 * n_heads))
    extra = [ratio ** (i + 1) for i in range(0, 2 * n_heads, 2)][: n_heads - c]
    return torch.tensor(_r13_official(c) + extra)


def _r14_attend(
    q, k, v, cos, sin, bias, attention_scaling, fill=float("-inf"), invert=False, scale_always=False, softmax=None
):
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = q * c + _r13_rot_half(q) * s, k * c + _r13_rot_half(k) * s
    elif scale_always:
        q, k = q * attention_scaling, k * attention_scaling
    logits = q @ k.mT / math.sqrt(q.shape[-1])
    if bias is not None:
        logits = logits + bias
    L = q.shape[-2]
    future = torch.ones(L, L, dtype=torch.bool).triu(1)
    logits = logits.masked_fill(~future if invert else future, fill)
    out = (softmax(logits) if softmax else logits.softmax(-1)) @ v
    return torch.nan_to_num(out) if invert else out


def r14_att_mask_minus_5(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, fill=-5.0)


def r14_att_mask_zero(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, fill=0.0)


def r14_att_mask_inverted(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, invert=True)


def r14_att_scaled_without_cos(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, scale_always=True)


_R14_STATE = "keeps state between calls"
ROUND14 = {
    "yarn_inv_freq": [
        ("correction dimension with the wrong logarithm (log2) in its denominator", r14_yarn_cdim_log2_bottom),
        ("original_max_position_embeddings ignored", r14_yarn_l0_fixed),
        ("beta_fast ignored", r14_yarn_beta_fast_fixed),
    ],
    "t5_relative_bucket": [
        ("num_buckets and max_distance ignored", r14_t5_buckets_fixed),
        ("linear buckets past max_exact", r14_t5_linear),
    ],
    "t5_causal_bucket": [("log(dist) instead of log(dist / max_exact)", r14_t5c_log_dist)],
    "shaw_attention": [
        ("divided by 2k + 1, rel_k's row count", r14_shaw_scaled_by_rows),
        ("+ 1 (one row late)", r14_shaw_value_late),
    ],
    "rope_cos_sin": [("angle p / θ_i instead of p · θ_i", r14_cs_divided)],
    "apply_rope_half": [("rotate_half along the positions axis", r14_half_rotate_rows)],
    "apply_rope_offset": [
        ("positions in reverse order", r14_offset_reversed),
        ("frequencies computed in bfloat16", r14_offset_inv_bf16),
        (_R14_STATE, R14OffsetCounter()),
        (_R14_STATE, R14OffsetTracker().rope),
    ],
    "alibi_slopes": [("get_slopes(2n)", r14_slopes_of_2n)],
    "attention": [
        ("finite value (-5)", r14_att_mask_minus_5),
        ("finite value (0)", r14_att_mask_zero),
        ("boolean mask read the other way", r14_att_mask_inverted),
        ("attention_scaling applied without cos", r14_att_scaled_without_cos),
    ],
}
for _task, _extra in ROUND14.items():
    MUTANTS[_task] += _extra


def r15_att_mask_minus_50(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, fill=-50.0)


def r15_att_mask_added_minus_64(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is not None:
        c, s = cos * attention_scaling, sin * attention_scaling
        q, k = q * c + _r13_rot_half(q) * s, k * c + _r13_rot_half(k) * s
    L = q.shape[-2]
    logits = q @ k.mT / math.sqrt(q.shape[-1]) + torch.full((L, L), -64.0).triu(1)  # an additive mask
    if bias is not None:
        logits = logits + bias
    return logits.softmax(-1) @ v


def r15_offset_exponent_from_rows(x, offset, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    inv = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / L)  # d read from the rows axis
    ang = torch.arange(offset, offset + L, dtype=torch.float64)[:, None] * inv
    ang = torch.cat([ang, ang], -1)
    return x * ang.cos().to(x.dtype) + _r13_rot_half(x) * ang.sin().to(x.dtype)


def r15_sin_from_three(seq_len, d_model, base=10000.0):
    pos = torch.arange(3, seq_len + 3, dtype=torch.float64)[:, None]  # positions from 3
    ang = pos * base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.stack([ang.sin(), ang.cos()], -1).flatten(1).float()


def r15_concat_reversed(seq_len, d_model, base=10000.0):
    h = d_model // 2
    inv = torch.exp(-math.log(base) * torch.arange(h, dtype=torch.float64) / max(h - 1, 1))
    ang = torch.arange(seq_len - 1, -1, -1, dtype=torch.float64)[:, None] * inv  # the last position first
    return torch.cat([ang.sin(), ang.cos()], -1).float()


def r15_yarn_betas_fixed(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    from posenc.practice import reference

    return reference("yarn_inv_freq")(head_dim, base, factor, original_max_position_embeddings)  # betas dropped


def r15_ntk_from_one(head_dim, base, factor):
    b = base * factor ** (head_dim / (head_dim - 2))
    i = torch.arange(1, head_dim // 2 + 1, dtype=torch.float64)  # pairs counted from 1
    return torch.exp(-2 * i / head_dim * math.log(b)).float()


def r15_pi_from_one(head_dim, base, factor):
    i = torch.arange(1, head_dim // 2 + 1, dtype=torch.float64)
    return (base ** (-2 * i / head_dim) / factor).float()


def r15_sin_no_cos(seq_len, d_model, base=10000.0):
    out = torch.zeros(seq_len, d_model)
    ang = torch.arange(seq_len).float()[:, None] * torch.exp(
        torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model)
    )
    out[:, 0::2] = torch.sin(ang)
    out[:, 1::2] = torch.sin(ang)  # sin where cos belongs
    return out


def r15_shaw_mask_zero(q, k, v, rel_k, rel_v):
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    i = torch.arange(L)
    idx = (i[None, :] - i[:, None]).clamp(-kk, kk) + kk
    logits = (q @ k.mT + (q.unsqueeze(-2) * rel_k[idx]).sum(-1)) / math.sqrt(d)
    w = torch.where(i[None, :] > i[:, None], torch.zeros(()), logits).softmax(-1)  # 0 where -inf belongs
    return w @ v + (w.unsqueeze(-1) * rel_v[idx]).sum(-2)


def r15_yarn_ramp_plus_one(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    def dim(turns):
        return head_dim * math.log(original_max_position_embeddings / (turns * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(dim(beta_fast)), 0)
    high = min(math.ceil(dim(beta_slow)), head_dim - 1)
    if low == high:
        high += 0.001
    i = torch.arange(head_dim // 2, dtype=torch.float64)
    ramp = ((i - low) / (high - low + 1)).clamp(0, 1)  # one pair too many in the denominator
    theta = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    inv = theta / factor * ramp + theta * (1 - ramp)
    return inv.float(), 0.1 * math.log(factor) + 1.0


def r15_att_q_scaled_always(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is None:
        q = q * attention_scaling  # the factor applied even without RoPE tables
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling)


ROUND15 = {
    "shaw_attention": [("masked logits set to 0 instead of −inf", r15_shaw_mask_zero)],
    "ntk_inv_freq": [("frequency index starts at 1", r15_ntk_from_one)],
    "pi_inv_freq": [("frequency index starts at 1", r15_pi_from_one)],
    "yarn_inv_freq": [
        ("beta_fast and beta_slow ignored", r15_yarn_betas_fixed),
        ("ramp divided by high − low + 1", r15_yarn_ramp_plus_one),
    ],
    "sinusoidal_encoding": [
        ("shifted by 3: row r holds position r + 3", r15_sin_from_three),
        ("sine in every column", r15_sin_no_cos),
    ],
    "sinusoidal_concat": [("in reverse order: row r holds position L − 1 − r", r15_concat_reversed)],
    "attention": [
        (
            "masked logits filled with a finite value (-50) whose weight does not underflow (filled in)",
            r15_att_mask_minus_50,
        ),
        ("finite value (-64) whose weight does not underflow (added to the logits)", r15_att_mask_added_minus_64),
        ("yours scales q (the logits) anyway", r15_att_q_scaled_always),
    ],
    "apply_rope_offset": [("exponent taken from the wrong axis", r15_offset_exponent_from_rows)],
}
for _task, _extra in ROUND15.items():
    MUTANTS[_task] += _extra


def _hand_softmax(subtract_max):
    def softmax(logits):  # exp(x) / sum exp(x), written out as a learner would
        e = (logits - logits.amax(-1, keepdim=True) if subtract_max else logits).exp()
        return e / e.sum(-1, keepdim=True)

    return softmax


def r15_att_naive_softmax(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    """exp(x) / sum exp(x) with no row maximum subtracted: 0/0 where every visible logit is far below 0."""
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, softmax=_hand_softmax(False))


def att_hand_softmax_stable(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    """A correct hand-written softmax: the row maximum subtracted before exp."""
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling, softmax=_hand_softmax(True))


MUTANTS["attention"].append(("without subtracting each row's largest logit", r15_att_naive_softmax))
CORRECT["attention"].append(att_hand_softmax_stable)


def _r16_shaw(q, k, v, rel_k, rel_v, *, index=None, dtype=None, value_weights="masked"):
    """Shaw's causal attention with one slip: another relative index, a lower dtype, or the value term weighted
    by the unmasked softmax."""
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    i = torch.arange(L)
    idx = (i[None, :] - i[:, None]).clamp(-kk, kk) + kk if index is None else index(i[None, :] - i[:, None], kk)
    if dtype is not None:
        q, k, v, rel_k, rel_v = (t.to(dtype) for t in (q, k, v, rel_k, rel_v))
    logits = (q @ k.mT + (q.unsqueeze(-2) * rel_k[idx]).sum(-1)) / math.sqrt(d)
    w = logits.masked_fill(i[None, :] > i[:, None], float("-inf")).softmax(-1)
    wv = logits.softmax(-1) if value_weights == "unmasked" else w
    return (w @ v + (wv.unsqueeze(-1) * rel_v[idx]).sum(-2)).float()


def r16_shaw_bf16(q, k, v, rel_k, rel_v):
    return _r16_shaw(q, k, v, rel_k, rel_v, dtype=torch.bfloat16)


def r16_shaw_wrap(q, k, v, rel_k, rel_v):
    return _r16_shaw(q, k, v, rel_k, rel_v, index=lambda rel, kk: torch.remainder(rel + kk, 2 * kk + 1))


def r16_shaw_value_unmasked(q, k, v, rel_k, rel_v):
    return _r16_shaw(q, k, v, rel_k, rel_v, value_weights="unmasked")


def _r16_t5(rel, bidirectional, num_buckets, max_distance):
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (rel > 0).long() * num_buckets
        dist = rel.abs()
    else:
        dist = -torch.clamp(rel, max=0)
    max_exact = num_buckets // 2
    span = math.log(max_distance // max_exact)  # floor division inside the log
    large = max_exact + (torch.log(dist.float() / max_exact) / span * (num_buckets - max_exact)).long()
    return buckets + torch.where(dist < max_exact, dist, large.clamp(max=num_buckets - 1))


def r16_t5_floor_span(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _r16_t5(relative_position, bidirectional, num_buckets, max_distance)


def r16_t5_causal_floor_span(relative_position, num_buckets=32, max_distance=128):
    return _r16_t5(relative_position, False, num_buckets, max_distance)


def r16_half_partial(x, cos, sin):
    r = max(x.shape[-1] - 2, 2)  # all but the last pair rotated, with the first r/2 angles
    c, s = torch.cat([cos[..., : r // 2]] * 2, -1), torch.cat([sin[..., : r // 2]] * 2, -1)
    xr = x[..., :r]
    return torch.cat([xr * c + _r13_rot_half(xr) * s, x[..., r:]], -1)


def r16_half_roll_back(x, cos, sin):
    h = x.shape[-1] // 2
    sign = torch.cat([-torch.ones(h), torch.ones(h)]).to(x.dtype)
    return x * cos + torch.roll(x, -1, -1) * sign * sin


def r16_half_atan2_halved(x, cos, sin):
    a = torch.atan2(sin.float(), cos.float()) / 2  # the angle halved
    return x * a.cos().to(x.dtype) + _r13_rot_half(x) * a.sin().to(x.dtype)


def r16_inter_roll_back(x, cos, sin):
    sign = torch.tensor([1.0, -1.0] * (x.shape[-1] // 2)).to(x.dtype)
    return x * cos + torch.roll(x, -1, -1) * sign * sin


def r16_inter_even_no_sin(x, cos, sin):
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[..., 0::2], sin[..., 0::2]
    return torch.stack([x0 * c, x1 * c + x0 * s], -1).flatten(-2)


def r16_alibi_slopes_by_query(n_heads, q_len):
    from posenc import alibi_slopes

    m = alibi_slopes(q_len)[:, None]  # one slope per query row (q_len read where n_heads belongs)
    i = torch.arange(q_len)
    b = -m * (i[:, None] - i[None, :]).abs().float()
    return b.masked_fill(i[None, :] > i[:, None], float("-inf")).expand(n_heads, q_len, q_len).clone()


def r16_yarn_pos_bf16(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    def dim(turns):
        return head_dim * math.log(original_max_position_embeddings / (turns * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(dim(beta_fast)), 0)
    high = min(math.ceil(dim(beta_slow)), head_dim - 1)
    if low == high:
        high += 0.001
    ramp = ((torch.arange(head_dim // 2).float() - low) / (high - low)).clamp(0, 1)
    pos_freqs = (base ** (torch.arange(0, head_dim, 2).float() / head_dim)).to(torch.bfloat16).float()
    theta = 1.0 / pos_freqs
    return theta / factor * ramp + theta * (1 - ramp), 0.1 * math.log(factor) + 1.0


def r16_concat_d_freqs(seq_len, d_model, base=10000.0):
    inv = base ** (-torch.arange(d_model, dtype=torch.float64) / max(d_model - 1, 1))  # d frequencies
    ang = torch.arange(seq_len, dtype=torch.float64)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1)[:, :d_model].float()


def r16_inv_reversed_bf16(head_dim, base=10000.0):
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    return inv.to(torch.bfloat16).float().flip(0)


def r16_att_bf16(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    low = [None if t is None else t.to(torch.bfloat16) for t in (q, k, v, cos, sin, bias)]
    return _r14_attend(*low, attention_scaling).float()  # autocast's habit: the whole attention in bfloat16


ROUND16 = {
    "attention": [("computed in bfloat16 for float32 inputs", r16_att_bf16)],
    "shaw_attention": [
        ("computed in bfloat16 for float32 inputs", r16_shaw_bf16),
        ("relative index taken modulo the tables' row count", r16_shaw_wrap),
        ("weighted by the softmax of the unmasked logits", r16_shaw_value_unmasked),
    ],
    "t5_relative_bucket": [("integer division max_distance // max_exact inside the log", r16_t5_floor_span)],
    "t5_causal_bucket": [("integer division max_distance // max_exact inside the log", r16_t5_causal_floor_span)],
    "apply_rope_half": [
        ("coordinates rotated (on x", r16_half_partial),
        ("torch.roll(x, −1, -1) times the signs [−1]·(d/2) + [1]·(d/2)", r16_half_roll_back),
        ("rotated by half the angle", r16_half_atan2_halved),
    ],
    "apply_rope_interleaved": [
        ("torch.roll(x, −1, -1) times the signs [1, −1]·(d/2)", r16_inter_roll_back),
        ("the even coordinate of each pair without its sin term", r16_inter_even_no_sin),
    ],
    "alibi_bias": [("the slope changes from one query row to the next", r16_alibi_slopes_by_query)],
    "yarn_inv_freq": [("pos_freqs = base^(2i/d) computed in bfloat16", r16_yarn_pos_bf16)],
    "sinusoidal_concat": [("d frequencies instead of d/2", r16_concat_d_freqs)],
    "rope_inv_freq": [("(flipped: θ_i must fall with i", r16_inv_reversed_bf16)],
}
for _task, _extra in ROUND16.items():
    MUTANTS[_task] += _extra


def task_cases(name):
    """The inputs of one task's sweep, as the checker builds them."""
    from posenc.practice.registry import _task_list

    return next(t for t in _task_list() if t.name == name).cases()


# ---- round 17: the holes and near misses learner 16 found -------------------------------------------------------
def _r17_lookup(table, positions, checked):
    """table[positions] with the range check made on the positions ``checked(positions)`` picks (None: none)."""
    seen = checked(positions)
    if seen is not None and seen.numel() and bool(((seen < 0) | (seen >= table.shape[0])).any()):
        raise IndexError("position outside the table")
    return table[positions]


def r17_lookup_first(table, positions):
    return _r17_lookup(table, positions, lambda p: p.flatten()[:1])


def r17_lookup_last(table, positions):
    return _r17_lookup(table, positions, lambda p: p.flatten()[-1:])


def r17_lookup_not_0d(table, positions):
    return _r17_lookup(table, positions, lambda p: None if p.ndim == 0 else p)


def r17_lookup_1d_only(table, positions):
    return _r17_lookup(table, positions, lambda p: p if p.ndim == 1 else None)


def r17_lookup_not_2d(table, positions):
    return _r17_lookup(table, positions, lambda p: None if p.ndim >= 2 else p)


def r17_att_no_scale_with_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, 1.0 if bias is not None else attention_scaling)


def r17_att_bias_on_batch(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if bias is not None and bias.shape[0] == q.shape[0]:
        bias = bias.unsqueeze(1)  # [h, 1, L, L]: head i's bias lands on batch entry i
    return _r14_attend(q, k, v, cos, sin, bias, attention_scaling)


def r17_att_sqrt_tables(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _r14_attend(q, k, v, cos, sin, bias, math.sqrt(attention_scaling))


def _r17_t5(rel, bidirectional, num_buckets, max_distance, *, exact=None, cap=None, shift=0):
    n = num_buckets
    buckets = torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        buckets = buckets + (rel > 0).long() * n
        dist = rel.abs()
    else:
        dist = (-rel - shift).clamp(min=0)
    max_exact = exact(n) if exact else n // 2
    large = (
        max_exact
        + (
            torch.log(dist.double().clamp(min=1) / max_exact) / math.log(max_distance / max_exact) * (n - max_exact)
        ).long()
    )
    return buckets + torch.where(dist < max_exact, dist, large.clamp(max=(cap or n) - 1))


def r17_t5_exact_all(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _r17_t5(relative_position, bidirectional, num_buckets, max_distance, exact=lambda n: n)


def r17_t5_cap_unhalved(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return _r17_t5(relative_position, bidirectional, num_buckets, max_distance, cap=num_buckets)


def r17_t5_causal_one_short(relative_position, num_buckets=32, max_distance=128):
    return _r17_t5(relative_position, False, num_buckets, max_distance, shift=1)


def _r17_shaw(q, k, v, rel_k, rel_v, *, clip=0, fill=float("-inf")):
    L, d = q.shape[-2], q.shape[-1]
    kk = (rel_k.shape[0] - 1) // 2
    i = torch.arange(L)
    idx = (i[None, :] - i[:, None]).clamp(-(kk - clip), kk - clip) + kk
    logits = (q @ k.mT + torch.einsum("...id,ijd->...ij", q, rel_k[idx])) / math.sqrt(d)
    w = logits.masked_fill(i[None, :] > i[:, None], fill).softmax(-1)
    return w @ v + torch.einsum("...ij,ijd->...id", w, rel_v[idx])


def r17_shaw_clip_short(q, k, v, rel_k, rel_v):
    return _r17_shaw(q, k, v, rel_k, rel_v, clip=1)


def r17_shaw_fill_minus_40(q, k, v, rel_k, rel_v):
    return _r17_shaw(q, k, v, rel_k, rel_v, fill=-40.0)


def r17_slopes_inverted(n_heads):
    from posenc import alibi_slopes

    return 1.0 / alibi_slopes(n_heads)


def r17_slopes_power_below(n_heads):
    from posenc import alibi_slopes

    def pow2(m):
        return [2.0 ** (-8.0 * (h + 1) / m) for h in range(m)]

    if n_heads == 1:
        return alibi_slopes(1)
    c = 2 ** math.floor(math.log2(n_heads - 1))  # strictly below n: a power of two n gets c = n / 2
    return torch.tensor(pow2(c) + pow2(2 * c)[0::2][: n_heads - c], dtype=torch.float32)


def r17_sin_cos_from_sin(seq_len, d_model, base=10000.0):
    ang = torch.arange(seq_len).float()[:, None] * base ** (-torch.arange(0, d_model, 2).float() / d_model)
    s = torch.sin(ang)
    return torch.stack([s, torch.sqrt((1 - s**2).clamp(min=0))], -1).flatten(-2)


def r17_half_partner_reversed(x, cos, sin):
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:].flip(-1), x[..., :h]], -1) * sin  # the second half reversed


def r17_att_twice_with_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    if cos is None:
        return _r14_attend(q, k, v, cos, sin, bias, attention_scaling)
    c, s = cos * attention_scaling, sin * attention_scaling
    q, k = q * c + _r13_rot_half(q) * s, k * c + _r13_rot_half(k) * s
    logits = (q @ k.mT / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)) * attention_scaling**2
    L = q.shape[-2]
    return logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1) @ v


def r17_att_once_with_bias(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    logits = q @ k.mT
    if cos is not None:
        q2, k2 = q * cos + _r13_rot_half(q) * sin, k * cos + _r13_rot_half(k) * sin
        logits = q2 @ k2.mT
    logits = logits / math.sqrt(q.shape[-1]) + (0 if bias is None else bias)
    if cos is not None:
        logits = logits * attention_scaling  # the bias scaled with the logits, once
    L = q.shape[-2]
    return logits.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")).softmax(-1) @ v


def r17_offset_positions_half(x, offset, base=10000.0):
    from posenc import rope_inv_freq

    L, d = x.shape[-2], x.shape[-1]
    pos = torch.arange(offset, offset + L).half().double()  # past 65504 the position is inf
    ang = pos[:, None] * rope_inv_freq(d, base).double()[None, :]
    ang = torch.cat([ang, ang], -1)
    return (x * ang.cos().to(x.dtype) + _r13_rot_half(x) * ang.sin().to(x.dtype)).to(x.dtype)


def r17_concat_linear_timescales(seq_len, d_model, base=10000.0):
    ts = torch.linspace(1.0, base, d_model // 2, dtype=torch.float64)
    ang = torch.arange(seq_len, dtype=torch.float64)[:, None] / ts
    return torch.cat([ang.sin(), ang.cos()], -1).float()


def r17_concat_exponent_doubled(seq_len, d_model, base=10000.0):
    n = d_model // 2
    inv = torch.exp(-2 * torch.arange(n, dtype=torch.float64) * math.log(base) / max(n - 1, 1))
    ang = torch.arange(seq_len, dtype=torch.float64)[:, None] * inv
    return torch.cat([ang.sin(), ang.cos()], -1).float()


def r17_inter_cos_reversed(x, cos, sin):
    c, s = cos.flip(-2)[..., 0::2], sin[..., 0::2]  # cos's rows (positions) reversed, sin's as given
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).flatten(-2)


ROUND17 = {
    "learned_lookup": [
        ("the range check looks only at the first position", r17_lookup_first),
        ("the range check looks only at the last position", r17_lookup_last),
        ("the range check is skipped for a 0-d positions tensor", r17_lookup_not_0d),
        ("the range check is made only for 1-D positions", r17_lookup_1d_only),
        ("the range check is skipped for positions of two or more dimensions", r17_lookup_not_2d),
    ],
    "attention": [
        ("attention_scaling ignored when a bias is given too", r17_att_no_scale_with_bias),
        ("bias broadcast with its heads on the batch axis", r17_att_bias_on_batch),
        ("the logits scaled by attention_scaling once instead of by its square", r17_att_sqrt_tables),
        ("the logits scaled by attention_scaling once instead of by its square", r17_att_once_with_bias),
        ("attention_scaling applied twice: cos and sin multiplied by it, and the logits", r17_att_twice_with_bias),
    ],
    "apply_rope_interleaved": [("cos's rows reversed (cos.flip(0)) while sin's are not", r17_inter_cos_reversed)],
    "apply_rope_offset": [("a position or angle held in float16 beyond it is inf", r17_offset_positions_half)],
    "sinusoidal_concat": [
        ("timescales 1/θ_i are evenly spaced (linear", r17_concat_linear_timescales),
        ("posenc's ratio to the power 2 per frequency", r17_concat_exponent_doubled),
    ],
    "t5_relative_bucket": [
        ("max_exact = num_buckets (of the halved count", r17_t5_exact_all),
        ("clamped to num_buckets − 1 of the full count", r17_t5_cap_unhalved),
    ],
    "t5_causal_bucket": [("distance one too small: max(−Δ − 1, 0)", r17_t5_causal_one_short)],
    "shaw_attention": [
        ("distances clipped to [−(k − 1), k − 1] (off by one) before the shift", r17_shaw_clip_short),
        ("filled with a finite value (-40) whose weight does not underflow", r17_shaw_fill_minus_40),
    ],
    "alibi_slopes": [
        ("slopes inverted (1/m", r17_slopes_inverted),
        ("a power-of-two head count handled as if it were not one", r17_slopes_power_below),
    ],
    "sinusoidal_encoding": [("cos computed as √(1 − sin²)", r17_sin_cos_from_sin)],
    "apply_rope_half": [
        ("the rotated partner of each coordinate is another signed coordinate", r17_half_partner_reversed)
    ],
}
for _task, _extra in ROUND17.items():
    MUTANTS[_task] += _extra
