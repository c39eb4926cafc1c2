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
    return torch.cat([out[:, d_model // 2:], out[:, : d_model // 2]], -1)


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
    assert int(positions.max()) < table.shape[0] and int(positions.min()) >= 0, "cannot forward past block_size"
    return table[positions]


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
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(relative_position_if_large,
                                           torch.full_like(relative_position_if_large, num_buckets - 1))
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
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    return torch.where(n < max_exact, n, large.clamp(max=num_buckets - 1))


def t5_no_halving(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    if not bidirectional:
        return t5_hf_copy(relative_position, False, num_buckets, max_distance)
    n = relative_position.abs()
    max_exact = num_buckets // 2
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    return (relative_position > 0).long() * num_buckets + torch.where(n < max_exact, n, large.clamp(max=num_buckets - 1))


def t5_exact_before_halving(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    max_exact = num_buckets // 2  # taken before num_buckets is halved below
    ret = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        ret += (relative_position > 0).long() * num_buckets
        n = relative_position.abs()
    else:
        n = -torch.clamp(relative_position, max=0)
    large = max_exact + (torch.log(n.float().clamp(min=1) / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
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
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (nb - max_exact)).long()
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
    large = max_exact + torch.round(torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                                    * (nb - max_exact)).long()
    return rb + torch.where(n < max_exact, n, large.clamp(max=nb - 1))


# t5_causal_bucket (the decoder's buckets)
def t5c_hf(relative_position, num_buckets=32, max_distance=128):
    return t5_hf_copy(relative_position, False, num_buckets, max_distance)


def t5c_loop(relative_position, num_buckets=32, max_distance=128):
    return t5_python_loop(relative_position, False, num_buckets, max_distance)


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
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
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
    f = torch.polar(torch.ones_like(cos[..., 0::2].float()), torch.atan2(sin[..., 0::2].float(), cos[..., 0::2].float()))
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
def offset_hf(x, offset, base=10000.0):
    L, d = x.shape[-2], x.shape[-1]
    c, s = cs_hf(torch.arange(offset, offset + L), d, base)
    return half_hf(x, c, s)


def offset_cache_table(x, offset, base=10000.0):  # a table for the whole context, sliced
    L, d = x.shape[-2], x.shape[-1]
    c, s = cs_complex(offset + L, d, base)
    return half_matrix(x, c[offset:], s[offset:])


def offset_ignored(x, offset, base=10000.0):
    c, s = cs_hf(x.shape[-2], x.shape[-1], base)
    return half_hf(x, c, s)


def offset_subtracted(x, offset, base=10000.0):
    c, s = cs_hf(torch.arange(x.shape[-2]) - offset, x.shape[-1], base)
    return half_hf(x, c, s)


def offset_plus_one(x, offset, base=10000.0):
    c, s = cs_hf(torch.arange(x.shape[-2]) + offset + 1, x.shape[-1], base)
    return half_hf(x, c, s)


def offset_clockwise(x, offset, base=10000.0):
    c, s = cs_hf(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
    return half_clockwise(x, c, s)


def offset_interleaved(x, offset, base=10000.0):
    c, s = cs_interleaved(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
    return inter_gptj(x, c, s)


def offset_bf16(x, offset, base=10000.0):
    c, s = cs_bf16(torch.arange(offset, offset + x.shape[-2]), x.shape[-1], base)
    return half_hf(x, c, s)


# ---------------------------------------------------------------------------------------------
# alibi_slopes
def slopes_official(n_heads):
    """ofirpress/attention_with_linear_biases get_slopes, verbatim logic."""
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(get_slopes_power_of_2(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    return torch.tensor(get_slopes_power_of_2(closest)
                        + slopes_official(2 * closest).tolist()[0::2][: n_heads - closest])


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
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [ratio**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(get_slopes_power_of_2(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    return torch.tensor(get_slopes_power_of_2(closest)
                        + slopes_from_one(2 * closest).tolist()[0::2][: n_heads - closest])


def slopes_fp16(n_heads):  # torch.tensor(get_slopes(n), dtype=model_dtype) in a float16 model, cast back later
    return torch.tensor(slopes_official(n_heads).tolist(), dtype=torch.float16).float()


def slopes_fp16_out(n_heads):
    return slopes_official(n_heads).half()


def slopes_reversed(n_heads):
    return slopes_official(n_heads).flip(0)


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
def yarn_hf(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0,
            *, reverse=False, round_range=True, mul=False, mscale="ok", swap=False, guard=True):
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
    low, high = max(low, 0), min(high, head_dim - 1)
    if low == high and guard:
        high += 0.001
    ramp = torch.clamp((torch.arange(head_dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    extrapolation_factor = ramp if reverse else 1 - ramp
    inv = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
    return inv, attention


def yarn_float64(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    d, L0 = head_dim, original_max_position_embeddings
    dims = [math.floor(d * math.log(L0 / (2 * math.pi * beta_fast)) / (2 * math.log(base))),
            math.ceil(d * math.log(L0 / (2 * math.pi * beta_slow)) / (2 * math.log(base)))]
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
    return _yarn_ramp(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow,
                      lambda i: 1 - (i - low) / (high - low))  # the clamp to [0, 1] forgotten


def yarn_half_d(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    half = head_dim // 2  # "the rotary dimension is d/2 pairs": the wrong d in find_correction_dim

    def cdim(n):
        return (half * math.log(original_max_position_embeddings / (n * 2 * math.pi))) / (2 * math.log(base))
    low, high = max(math.floor(cdim(beta_fast)), 0), min(math.ceil(cdim(beta_slow)), head_dim - 1)
    high = high + 0.001 if low == high else high
    return _yarn_ramp(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow,
                      lambda i: 1 - ((i - low) / (high - low)).clamp(0, 1))


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


def _attn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0, *, once=False, ignore=False, rope_v=False,
          q_only=False, mask=1, bias_sign=1.0, scale=None, clockwise=False):
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
    ],
    "apply_rope_offset": [
        ("offset ignored", offset_ignored),
        ("offset subtracted", offset_subtracted),
        ("offset + 1 (off by one)", offset_plus_one),
        ("your rotation is clockwise (R_{-m})", offset_clockwise),
        ("interleaved pairs instead of the half layout", offset_interleaved),
        ("angles computed in bfloat16", offset_bf16),
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
    ],
    "ntk_inv_freq": [
        ("base multiplied by the factor;", ntk_times_factor),
        ("exponent (d−2)/d instead of d/(d−2)", ntk_inverted_exp),
        ("that is PI", ntk_pi),
        ("base raised to the factor", ntk_power),
        ("base divided by", ntk_divided),
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
    ],
    "attention": [
        ("attention factor applied to the logits once instead of to cos and sin", attn_once),
        ("attention factor ignored", attn_ignored),
        ("RoPE applied to the values too", attn_rope_v),
        ("RoPE applied to the queries only", attn_q_only),
        ("no causal mask", attn_no_mask),
        ("hides the query's own key", attn_diag),
        ("bias subtracted", attn_bias_sub),
        ("divided by d instead of √d", attn_by_d),
        ("your rotation is clockwise (R_{-m})", attn_clockwise),
    ],
}

CORRECT = {
    "sinusoidal_encoding": [sin_loops, sin_exp_log],
    "sinusoidal_concat": [t2t_numpy_style],
    "learned_lookup": [learned_checked, learned_onehot],
    "shaw_relative_index": [shaw_loops, shaw_broadcast],
    "shaw_attention": [shaw_attn_gather, lambda q, k, v, rk, rv: posenc.shaw_attention_naive(q, k, v, rk, rv)],
    "t5_relative_bucket": [t5_hf_copy, t5_python_loop],
    "t5_causal_bucket": [t5c_hf, t5c_loop],
    "rope_inv_freq": [inv_hf, inv_log_space],
    "rope_cos_sin": [cs_hf, cs_complex],
    "apply_rope_half": [half_hf, half_float32_inside, half_complex, half_matrix],
    "apply_rope_interleaved": [inter_meta_complex, inter_gptj, inter_loops],
    "apply_rope_offset": [offset_hf, offset_cache_table],
    "alibi_slopes": [slopes_official, slopes_bloom],
    "alibi_bias": [bias_direct, bias_loops],
    "pi_inv_freq": [pi_hf, pi_positions],
    "ntk_inv_freq": [ntk_bloc97, ntk_log],
    "yarn_inv_freq": [yarn_hf, yarn_float64],
    "attention": [attn_sdpa, attn_einsum],
}
