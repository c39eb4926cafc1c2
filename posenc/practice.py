"""The Practice part's checker: run a learner's implementation over a sweep and say what is wrong.

``check(task, fn)`` calls ``fn`` on a sweep of inputs (sizes, head dimensions, bases, positions,
dtypes and edge cases such as one position, odd head counts or positions past a table), small inputs
first; a failing property is reported at the first input where it fails in that order. It checks properties first (shape and dtype, the identities the chapters
prove: unit pairs, norm preservation, relative invariance, the geometric slopes...) and then compares
with posenc. A correct function passes however it computes (complex numbers, a matrix, loops,
float64 inside): tolerances follow float32 rounding at the positions tested, so angles computed in
float32, as Hugging Face computes them, pass. When the output matches a known mistake (a wrong
implementation kept in this module, drawn from mistakes found in real code), the report names it in
words: "your rotation is clockwise (R_{-m})".

The report (:class:`Report`) has ``.passed``, ``.diagnoses`` (empty when passed), reads as text with
``str(report)`` and shows as a table in Jupyter and in the book: each property ✓/✗, the smallest
failing input, the diagnosis. ``check`` never raises for a wrong or crashing ``fn``: a crash is a
failed report saying what raised; a skeleton that raises ``NotImplementedError`` reports
"not implemented yet".

Tasks (``TASKS``; each ``fn`` has the signature and semantics of the posenc function it mirrors):

- ``sinusoidal_encoding``: ``fn(seq_len, d_model, base=10000.0)`` -> ``[seq_len, d_model]``, sin/cos interleaved
- ``sinusoidal_concat``: the same arguments; tensor2tensor's ``[sin | cos]`` with frequencies
  ``base ** (-i / (d/2 - 1))``
- ``learned_lookup``: ``fn(table, positions)`` -> ``table[positions]``; ValueError or IndexError past the table
- ``shaw_relative_index``: ``fn(q_len, max_distance)`` -> int64 ``[q_len, q_len]``
- ``shaw_attention``: ``fn(q, k, v, rel_k, rel_v)`` -> ``[..., L, d]``, causal
- ``t5_relative_bucket``: ``fn(relative_position, bidirectional=True, num_buckets=32, max_distance=128)``
- ``t5_causal_bucket``: ``fn(relative_position, num_buckets=32, max_distance=128)``, the decoder's buckets
- ``rope_inv_freq``: ``fn(head_dim, base=10000.0)`` -> ``[head_dim // 2]``
- ``rope_cos_sin``: ``fn(positions, head_dim, base=10000.0)`` -> ``(cos, sin)``, half layout
- ``apply_rope_half``, ``apply_rope_interleaved``: ``fn(x, cos, sin)`` -> ``x`` rotated, in ``x``'s dtype
- ``apply_rope_offset``: ``fn(x, offset, base=10000.0)``, half layout at positions ``offset, offset + 1, ...``
- ``alibi_slopes``: ``fn(n_heads)`` -> ``[n_heads]`` (the official ``get_slopes``)
- ``alibi_bias``: ``fn(n_heads, q_len)`` -> ``[n_heads, q_len, q_len]``, causal
- ``pi_inv_freq``, ``ntk_inv_freq``: ``fn(head_dim, base, factor)`` -> ``[head_dim // 2]``
- ``yarn_inv_freq``: ``fn(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0,
  beta_slow=1.0)`` -> ``(inv_freq, attention_scaling)``
- ``attention``: ``fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0)`` -> ``[b, h, L, d]``

References:
    Vaswani et al. 2017 (sinusoidal); tensor2tensor ``common_attention.get_timing_signal_1d``;
    Shaw et al. 2018; Raffel et al. 2020 and Hugging Face ``T5Attention._relative_position_bucket``;
    Su et al. 2021 (RoPE) and Hugging Face ``modeling_llama.apply_rotary_pos_emb``; Press et al. 2022
    (ALiBi, official ``get_slopes``); Chen et al. 2023 (PI); bloc97 2023 (NTK-aware); Peng et al. 2024
    (YaRN, ICLR) and Hugging Face ``modeling_rope_utils``.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from posenc import (alibi_bias, alibi_slopes, apply_rope, relative_positions, rope_cos_sin, rope_inv_freq,
                    rope_scaled_inv_freq, shaw_attention, shaw_relative_index, sinusoidal_encoding, t5_relative_bucket)
from posenc._core.validate import check_int

__all__ = ["TASKS", "Report", "Row", "check", "reference"]

NOT_IMPLEMENTED = "not implemented yet"


# ---------------------------------------------------------------------------------------------
# the report
def _check_text(name: str, value: Any, *, empty: bool = True) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} ({value!r})")
    if not empty and not value:
        raise ValueError(f"{name} must be a non-empty str, got ''")


@dataclass
class Row:
    """One property of a report: its name, whether it held, the smallest input where it failed and why."""

    name: str
    ok: bool | None = None  # None: not evaluated (the function never ran)
    where: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        _check_text("name", self.name, empty=False)
        if self.ok is not None and not isinstance(self.ok, bool):
            raise TypeError(f"ok must be True, False or None (not evaluated), got {type(self.ok).__name__} "
                            f"({self.ok!r})")
        _check_text("where", self.where)
        _check_text("detail", self.detail)


@dataclass
class Report:
    """What :func:`check` found: ``passed``, ``diagnoses`` (empty when passed) and one row per property."""

    task: str
    rows: list[Row] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)
    implemented: bool = True
    n_cases: int = 0
    raised_in: str = ""  # the function that raised NotImplementedError, when not the learner's own

    def __post_init__(self) -> None:
        if not isinstance(self.task, str):
            raise TypeError(f"task must be a str, one of {', '.join(TASKS)}; got {type(self.task).__name__}")
        _check_task(self.task)
        if not isinstance(self.rows, list) or not all(isinstance(r, Row) for r in self.rows):
            raise TypeError(f"rows must be a list of Row, got {type(self.rows).__name__} ({self.rows!r})")
        if not isinstance(self.diagnoses, list) or not all(isinstance(d, str) for d in self.diagnoses):
            raise TypeError(f"diagnoses must be a list of str, got {type(self.diagnoses).__name__} "
                            f"({self.diagnoses!r})")
        if not isinstance(self.implemented, bool):
            raise TypeError(f"implemented must be True or False, got {type(self.implemented).__name__} "
                            f"({self.implemented!r})")
        self.n_cases = check_int("n_cases", self.n_cases, min_value=0)
        _check_text("raised_in", self.raised_in)

    @property
    def passed(self) -> bool:
        return self.implemented and not self.diagnoses and all(r.ok for r in self.rows)

    def __bool__(self) -> bool:
        return self.passed

    def _verdict(self) -> str:
        if not self.implemented:
            if self.raised_in:
                return (f"{self.task}: {NOT_IMPLEMENTED} ({self.raised_in}, which your function calls, raises "
                        "NotImplementedError: write it first)")
            return f"{self.task}: {NOT_IMPLEMENTED} (your function raises NotImplementedError)"
        if self.passed:
            return f"{self.task}: ✓ passed ({self.n_cases} inputs)"
        return f"{self.task}: ✗ failed"

    def __str__(self) -> str:
        lines = [self._verdict()]
        for r in self.rows:
            mark = {True: "✓", False: "✗", None: "·"}[r.ok]
            extra = f" — smallest failing input: {r.where}" if r.ok is False and r.where else ""
            extra += " (not checked: no usable result)" if r.ok is None else ""
            detail = f" ({r.detail})" if r.ok is False and r.detail else ""
            lines.append(f"  {mark} {r.name}{extra}{detail}")
        lines += [f"  diagnosis: {d}" for d in self.diagnoses if self.implemented]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        e = html.escape
        head = f"<p><b>{e(self._verdict())}</b></p>"
        if not self.implemented:
            return f'<div class="posenc-practice">{head}</div>'
        left = ' style="text-align: left"'  # JupyterLab right-aligns table cells by default
        body = "".join(
            f"<tr><td{left}>{e(r.name)}</td><td>{ {True: '✓', False: '✗', None: '·'}[r.ok] }</td>"
            f"<td{left}>{e(r.where) if r.ok is False else ''}</td>"
            f"<td{left}>{e(r.detail) if r.ok is False else ''}</td></tr>"
            for r in self.rows)
        table = (f"<table><thead><tr><th{left}>property</th><th></th><th{left}>smallest failing input</th>"
                 f"<th{left}>what differs</th></tr></thead><tbody>{body}</tbody></table>")
        diag = "".join(f"<p><b>diagnosis:</b> {e(d)}</p>" for d in self.diagnoses)
        return f'<div class="posenc-practice">{head}{table}{diag}</div>'


# ---------------------------------------------------------------------------------------------
# tasks: cases, the reference, properties and known mistakes
@dataclass
class Case:
    label: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    tol: float = 1e-5  # absolute tolerance against the reference
    expect_error: bool = False  # fn must raise (ValueError, IndexError) here


@dataclass
class Task:
    name: str
    signature: str
    chapter: str
    make_cases: Callable[[], list[Case]]
    reference: Callable
    properties: list[tuple[str, Callable]]  # (name, f(case, out, run) -> None or what is wrong)
    mistakes: list[tuple[str, Callable]]  # (diagnosis, wrong implementation)
    structure: Callable  # f(case, out) -> out normalised (tensors), raises _Wrong with what is wrong
    compare: Callable | None = None  # f(case, out, expected) -> None or what differs
    detectors: list = field(default_factory=list)  # (diagnosis, f(cases, outs) -> bool) for mistakes of a kind
    _cases: list[Case] | None = None
    _expected: list | None = None
    _mistaken: list | None = None

    def cases(self) -> list[Case]:
        if self._cases is None:
            self._cases = self.make_cases()
        return self._cases


class _Wrong(Exception):
    """The output has the wrong type, shape or dtype."""


class _Crash(Exception):
    pass


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_clone(v) for v in value)
    return value


def _tensor(out: Any, name: str = "the result") -> torch.Tensor:
    if not isinstance(out, torch.Tensor):
        raise _Wrong(f"{name} is a {type(out).__name__}, not a torch.Tensor")
    return out


def _shape(out: Any, shape: tuple, name: str = "the result") -> torch.Tensor:
    out = _tensor(out, name)
    if tuple(out.shape) != tuple(shape):
        raise _Wrong(f"{name} has shape {list(out.shape)}, expected {list(shape)}")
    return out


def _float32(out: torch.Tensor, name: str = "the result") -> torch.Tensor:
    """Refuse a float16/bfloat16 result where the task returns float32: checked before any diagnosis of
    low-precision angles, since a float32 table cast at the end is a different mistake."""
    if out.dtype in (torch.float16, torch.bfloat16):
        kind = str(out.dtype).replace("torch.", "")
        raise _Wrong(f"{name} is returned in {kind}: the task returns float32; compute in float32 and cast only "
                     "where the result is used")
    return out


def _pair(out: Any, names=("cos", "sin")) -> tuple:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise _Wrong(f"return a pair ({names[0]}, {names[1]}), got {type(out).__name__}")
    return tuple(out)


def _f64(t: Any) -> torch.Tensor:
    if isinstance(t, torch.Tensor):
        return t.detach().to("cpu", torch.float64)
    return torch.as_tensor(t, dtype=torch.float64)


def _close(a: Any, b: Any, tol: float) -> str | None:
    """None when a and b agree within ``tol`` (absolute, on every element; inf and nan must agree)."""
    if isinstance(b, (tuple, list)):
        if not isinstance(a, (tuple, list)) or len(a) != len(b):
            return "not the same structure"
        for x, y in zip(a, b):
            msg = _close(x, y, tol)
            if msg:
                return msg
        return None
    a, b = _f64(a), _f64(b)
    if a.shape != b.shape:
        return f"shape {list(a.shape)} instead of {list(b.shape)}"
    same_special = (torch.isinf(a) & torch.isinf(b) & (a.sign() == b.sign())) | (torch.isnan(a) & torch.isnan(b))
    if bool(((torch.isinf(a) | torch.isnan(a) | torch.isinf(b) | torch.isnan(b)) & ~same_special).any()):
        return "infinities or NaNs where posenc has finite values (or the reverse)"
    diff = (a - b).abs().masked_fill(same_special, 0)
    err = float(diff.max()) if diff.numel() else 0.0
    if not err <= tol:
        idx = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        return f"max |difference| {err:.3g} at index {list(idx)} (tolerance {tol:.1g})"
    return None


def _tol_angles(max_angle: float, extra: float = 1e-5) -> float:
    """Tolerance for cos/sin of float32 angles up to ``max_angle``: float32 rounding of the angle
    (a few ulps) plus ``extra``."""
    return extra + 4 * max_angle * 2.0**-23


# ---- sinusoidal -------------------------------------------------------------------------------------
def _ref_sin(seq_len, d_model, base=10000.0):
    return sinusoidal_encoding(seq_len, d_model, base)


def _sin_variant(seq_len, d_model, base=10000.0, *, exp_scale=2.0, start=0, layout="interleaved", dtype=torch.float64,
                 swap=False, multiply=False, denom=None):
    i = torch.arange(d_model // 2, dtype=torch.float64)
    denom = d_model if denom is None else denom
    freq = (base ** (-exp_scale * i / denom)) if not multiply else base ** (exp_scale * i / denom)
    pos = torch.arange(start, start + seq_len, dtype=torch.float64)
    ang = (pos.to(dtype)[:, None] * freq.to(dtype)[None, :]).to(torch.float64)
    s, c = torch.sin(ang), torch.cos(ang)
    if swap:
        s, c = c, s
    if layout == "concat":
        return torch.cat([s, c], dim=-1).float()
    return torch.stack([s, c], dim=-1).reshape(seq_len, d_model).float()


def _sin_cases():
    out = []
    for L, d, base in [(1, 2, 10000.0), (1, 8, 10000.0), (5, 6, 10000.0), (16, 32, 10000.0), (50, 64, 100.0),
                       (200, 128, 10000.0), (4096, 16, 10000.0)]:
        out.append(Case(f"seq_len={L}, d_model={d}, base={base:g}", (L, d, base), tol=_tol_angles(L)))
    return out


def _sin_structure(case, out):
    L, d = case.args[:2]
    return _float32(_shape(out, (L, d)))


def _prop_row0(case, out, run):
    want = torch.zeros(case.args[1])
    want[1::2] = 1
    if _close(out[0], want, 1e-6):
        return "row 0 (position 0) is not [sin 0, cos 0, ...] = [0, 1, 0, 1, ...]"
    return None


def _prop_unit_pairs_interleaved(case, out, run):
    o = _f64(out)
    r = o[..., 0::2] ** 2 + o[..., 1::2] ** 2
    if not float((r - 1).abs().max()) <= 1e-4:
        return "columns (2i, 2i+1) are not a (sin, cos) pair: sin² + cos² ≠ 1"
    return None


def _sin_mistakes():
    return [
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", lambda L, d, b=1e4: _sin_variant(L, d, b, exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", lambda L, d, b=1e4: _sin_variant(L, d, b, exp_scale=4.0)),
        ("positions start at 1", lambda L, d, b=1e4: _sin_variant(L, d, b, start=1)),
        ("sin and cos concatenated [sin | cos] (tensor2tensor's layout) instead of interleaved",
         lambda L, d, b=1e4: _sin_variant(L, d, b, layout="concat")),
        ("sin and cos swapped: cos in the even columns, sin in the odd ones",
         lambda L, d, b=1e4: _sin_variant(L, d, b, swap=True)),
        ("positions multiplied by base^(+2i/d) (wavelengths) instead of divided",
         lambda L, d, b=1e4: _sin_variant(L, d, b, multiply=True)),
        ("base ignored: 10000 hard-coded", lambda L, d, b=1e4: _sin_variant(L, d, 10000.0)),
        ("exponent 2i/(d−2) (a linspace to 1) instead of 2i/d",
         lambda L, d, b=1e4: _sin_variant(L, d, b, denom=max(d - 2, 1))),
        ("angles computed in float16", lambda L, d, b=1e4: _sin_variant(L, d, b, dtype=torch.float16)),
        ("angles computed in bfloat16", lambda L, d, b=1e4: _sin_variant(L, d, b, dtype=torch.bfloat16)),
    ]


def _ref_sin_concat(seq_len, d_model, base=10000.0):
    half = d_model // 2
    inc = math.log(base) / max(half - 1, 1)
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -inc)
    ang = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)


def _concat_variant(L, d, base=1e4, *, denom=None, layout="concat", start=0, dtype=torch.float64, swap=False):
    half = d // 2
    denom = max(half - 1, 1) if denom is None else denom
    inv = base ** (-torch.arange(half, dtype=torch.float64) / denom)
    ang = (torch.arange(start, start + L, dtype=torch.float64).to(dtype)[:, None] * inv.to(dtype)[None, :]).double()
    s, c = torch.sin(ang), torch.cos(ang)
    if swap:
        s, c = c, s
    if layout == "interleaved":
        return torch.stack([s, c], -1).reshape(L, d).float()
    return torch.cat([s, c], -1).float()


def _concat_mistakes():
    return [
        ("frequencies base^(-2i/d) (Vaswani's) instead of tensor2tensor's base^(-i/(d/2−1))",
         lambda L, d, b=1e4: _concat_variant(L, d, b, denom=d // 2)),
        ("sin and cos interleaved (Vaswani's layout) instead of concatenated [sin | cos]",
         lambda L, d, b=1e4: _concat_variant(L, d, b, layout="interleaved")),
        ("positions start at 1", lambda L, d, b=1e4: _concat_variant(L, d, b, start=1)),
        ("[cos | sin] instead of [sin | cos]", lambda L, d, b=1e4: _concat_variant(L, d, b, swap=True)),
        ("angles computed in float16", lambda L, d, b=1e4: _concat_variant(L, d, b, dtype=torch.float16)),
    ]


def _concat_cases():
    return [Case(f"seq_len={L}, d_model={d}, base={b:g}", (L, d, b), tol=_tol_angles(L))
            for L, d, b in [(1, 4, 1e4), (3, 6, 1e4), (16, 32, 1e4), (50, 64, 100.0), (4096, 16, 1e4)]]


def _prop_row0_concat(case, out, run):
    d = case.args[1]
    want = torch.cat([torch.zeros(d // 2), torch.ones(d // 2)])
    if _close(out[0], want, 1e-6):
        return "row 0 (position 0) is not [sin 0 ... | cos 0 ...] = [0, ..., 0, 1, ..., 1]"
    return None


# ---- learned table lookup ------------------------------------------------------------------------
def _ref_learned(table, positions):
    positions = torch.as_tensor(positions)
    if positions.numel() and (int(positions.min()) < 0 or int(positions.max()) >= table.shape[0]):
        raise IndexError("position outside the table")
    return table[positions]


def _learned_cases():
    g = _g(11)
    table = torch.randn(8, 4, generator=g)
    out = [Case("table [8, 4], positions [0]", (table, torch.tensor([0]))),
           Case("table [8, 4], positions [3, 0, 7]", (table, torch.tensor([3, 0, 7]))),
           Case("table [8, 4], positions [[1, 2], [5, 6]]", (table, torch.tensor([[1, 2], [5, 6]]))),
           Case("table [8, 4], positions [7, 8] (8 is past the table)", (table, torch.tensor([7, 8])),
                expect_error=True),
           Case("table [8, 4], positions [12]", (table, torch.tensor([12])), expect_error=True),
           Case("table [8, 4], positions [-1]", (table, torch.tensor([-1])), expect_error=True)]
    return out


def _learned_structure(case, out):
    table, pos = case.args
    return _shape(out, tuple(pos.shape) + (table.shape[1],))


def _learned_mistakes():
    def clamp(t, p):
        return t[p.clamp(0, t.shape[0] - 1)]

    def wrap(t, p):
        return t[p % t.shape[0]]

    def negative(t, p):
        if int(p.max()) >= t.shape[0]:
            raise IndexError("past")
        return t[p]

    def off_by_one(t, p):
        if int(p.max()) >= t.shape[0] - 1 or int(p.min()) < 0:
            raise IndexError("past")
        return t[p]

    def shifted(t, p):
        return _raise_past(t, p, 1)

    def arange(t, p):
        _raise_past(t, p, 0)
        return t[: p.numel()].reshape(*p.shape, t.shape[1])

    return [("positions past the table clamped to the last row instead of refused", clamp),
            ("positions past the table wrap around (p mod max_len) instead of refused", wrap),
            ("negative positions accepted (Python indexing reads from the end)", negative),
            ("refuses the last trained position max_len − 1 (off by one)", off_by_one),
            ("rows read one position later (positions start at 1)", shifted),
            ("returns rows 0..n−1 whatever the positions", arange)]


def _raise_past(t, p, shift):
    if p.numel() and (int(p.min()) < 0 or int(p.max()) >= t.shape[0]):
        raise IndexError("past")
    return t[(p + shift).clamp(max=t.shape[0] - 1)]


# ---- Shaw ----------------------------------------------------------------------------------------------
def _shaw_cases():
    return [Case(f"q_len={L}, max_distance={k}", (L, k), tol=0) for L, k in
            [(1, 1), (1, 3), (2, 1), (4, 2), (5, 7), (9, 3), (16, 4)]]


def _shaw_structure(case, out):
    L = case.args[0]
    out = _shape(out, (L, L))
    if out.dtype != torch.int64:
        raise _Wrong(f"dtype {out.dtype}; an index into the table must be int64 (torch.long)")
    return out


def _prop_shaw_range(case, out, run):
    k = case.args[1]
    if out.numel() and (int(out.min()) < 0 or int(out.max()) > 2 * k):
        return f"indices outside [0, 2k] = [0, {2 * k}] (the table has 2k+1 rows)"
    return None


def _prop_toeplitz(case, out, run):
    L = case.args[0]
    if L > 1 and not torch.equal(out[1:, 1:], out[:-1, :-1]):
        return "the index is not constant along diagonals: it must depend on j − i only"
    return None


def _shaw_mistakes():
    def rel(L):
        return relative_positions(L)

    return [
        ("relative position taken as query − key (i − j) instead of key − query (j − i)",
         lambda L, k: (-rel(L)).clamp(-k, k) + k),
        ("not shifted by max_distance: negative indices", lambda L, k: rel(L).clamp(-k, k)),
        ("distances not clipped to [−k, k]", lambda L, k: rel(L) + k),
        ("|j − i| used: the direction is lost", lambda L, k: rel(L).abs().clamp(max=k) + k),
        ("clipped to [−(k−1), k−1] (off by one)", lambda L, k: rel(L).clamp(-(k - 1), k - 1) + k),
        ("shifted by k + 1 instead of k", lambda L, k: rel(L).clamp(-k, k) + k + 1),
    ]


def _ref_shaw_attention(q, k, v, rel_k, rel_v):
    return shaw_attention(q, k, v, rel_k, rel_v, causal=True)


def _shaw_attn_variant(q, k, v, rel_k, rel_v, *, sign=1, value=True, scale_rel=True, causal=True, diag=False):
    d = q.shape[-1]
    L = q.shape[-2]
    kk = (rel_k.shape[0] - 1) // 2
    idx = (sign * relative_positions(L)).clamp(-kk, kk) + kk
    q64, k64, v64 = q.double(), k.double(), v.double()
    rk, rv = rel_k.double()[idx], rel_v.double()[idx]
    content = q64 @ k64.transpose(-1, -2)
    relpart = torch.einsum("...id,ijd->...ij", q64, rk)
    s = (content + relpart) / math.sqrt(d) if scale_rel else content / math.sqrt(d) + relpart
    if causal:
        mask = relative_positions(L) > (-1 if diag else 0)
        s = s.masked_fill(mask, float("-inf"))
    a = torch.softmax(s, -1)
    out = a @ v64
    if value:
        out = out + torch.einsum("...ij,ijd->...id", a, rv)
    return out.float()


def _shaw_attn_cases():
    out = []
    for i, (shape, kk) in enumerate([((1, 4), 1), ((3, 4), 1), ((5, 8), 2), ((2, 7, 8), 3), ((2, 2, 12, 16), 4)]):
        g = _g(100 + i)
        d = shape[-1]
        q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
        rk, rv = torch.randn(2 * kk + 1, d, generator=g), torch.randn(2 * kk + 1, d, generator=g)
        out.append(Case(f"q, k, v {list(shape)}, tables [{2 * kk + 1}, {d}] (k = {kk})", (q, k, v, rk, rv), tol=2e-5))
    return out


def _shaw_attn_structure(case, out):
    return _shape(out, tuple(case.args[0].shape))


def _shaw_attn_mistakes():
    return [
        ("relative position taken as query − key (i − j) instead of key − query (j − i)",
         lambda *a: _shaw_attn_variant(*a, sign=-1)),
        ("the value-side term Σ_j a_ij R^V_ij is missing", lambda *a: _shaw_attn_variant(*a, value=False)),
        ("the relative logits q·R^K are not divided by √d with the content logits",
         lambda *a: _shaw_attn_variant(*a, scale_rel=False)),
        ("no causal mask: queries see later keys", lambda *a: _shaw_attn_variant(*a, causal=False)),
        ("the causal mask also hides the query's own key (the diagonal)", lambda *a: _shaw_attn_variant(*a, diag=True)),
    ]


def _prop_shaw_causal(case, out, run):
    q, k, v, rk, rv = case.args
    L = q.shape[-2]
    if L < 2:
        return None
    k2, v2 = k.clone(), v.clone()
    k2[..., -1, :] += 5.0
    v2[..., -1, :] -= 5.0
    other = run(q, k2, v2, rk, rv)
    if _close(other[..., :-1, :], out[..., :-1, :], 1e-4):
        return "changing the last key and value changed earlier queries' outputs: the mask lets queries see the future"
    return None


# ---- T5 buckets ------------------------------------------------------------------------------------------
def _t5_variant(rel, bidirectional=True, num_buckets=32, max_distance=128, *, neg=False, swap_halves=False,
                causal_abs=False, no_half=False, no_clamp=False, exact_full=False, rounding=False,
                exact_before_half=False):
    rel = rel.long()
    exact_from = num_buckets // 2
    if neg:
        rel = -rel
    buckets = torch.zeros_like(rel)
    if bidirectional:
        if not no_half:
            num_buckets //= 2
        side = (rel < 0) if swap_halves else (rel > 0)
        buckets = buckets + side.long() * num_buckets
        dist = rel.abs()
    else:
        dist = rel.abs() if causal_abs else -torch.clamp(rel, max=0)
    max_exact = num_buckets if exact_full else num_buckets // 2
    if exact_full:
        max_exact = max(num_buckets // 2 + num_buckets // 4, 1)
    if exact_before_half:
        max_exact = exact_from
    small = dist < max_exact
    val = torch.log(dist.double().clamp(min=1) / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    large = max_exact + (torch.round(val) if rounding else val).long()
    if not no_clamp:
        large = large.clamp(max=num_buckets - 1)
    return buckets + torch.where(small, dist, large)


def _t5_cases(bidirectional_options=(True, False)):
    out = []
    r = torch.arange(-300, 301)
    specs = [(torch.tensor([0]), 32, 128), (relative_positions(4), 32, 128), (relative_positions(12), 8, 16),
             (r, 32, 128), (r, 16, 64), (r, 10, 40), (relative_positions(40, 200), 32, 128)]
    for bi in bidirectional_options:
        for rel, nb, md in specs:
            if not bi and nb < 2:
                continue
            shape = "x".join(str(s) for s in rel.shape)
            lo, hi = int(rel.min()), int(rel.max())
            out.append(Case(f"relative_position [{shape}] in [{lo}, {hi}], bidirectional={bi}, num_buckets={nb}, "
                            f"max_distance={md}", (rel,), dict(bidirectional=bi, num_buckets=nb, max_distance=md), tol=0))
    return out


def _t5_structure(case, out):
    out = _shape(out, tuple(case.args[0].shape))
    if out.dtype != torch.int64:
        raise _Wrong(f"dtype {out.dtype}; buckets index an embedding table: return int64 (torch.long)")
    return out


def _prop_t5_range(case, out, run):
    nb = case.kwargs.get("num_buckets", 32)
    if out.numel() and (int(out.min()) < 0 or int(out.max()) >= nb):
        return f"buckets outside [0, num_buckets − 1] = [0, {nb - 1}]"
    return None


def _prop_t5_monotone(case, out, run):
    rel = case.args[0].reshape(-1)
    o = out.reshape(-1)
    bi = case.kwargs.get("bidirectional", True)
    order = torch.argsort(rel)
    r, b = rel[order], o[order]
    past = b[r <= 0]
    if past.numel() > 1 and bool((past[1:] > past[:-1]).any()):
        return "buckets of past keys (Δ ≤ 0) must not grow as Δ approaches 0 (farther keys, larger buckets)"
    if bi:
        fut = b[r > 0]
        if fut.numel() > 1 and bool((fut[1:] < fut[:-1]).any()):
            return "buckets of later keys (Δ > 0) must grow with Δ"
    return None


def _t5_mistakes(causal_only=False):
    def mk(**flags):
        def f(rel, bidirectional=True, num_buckets=32, max_distance=128):
            return _t5_variant(rel, bidirectional, num_buckets, max_distance, **flags)
        return f

    return [
        ("T5 relative position taken as query − key (i − j) instead of key − query (j − i)", mk(neg=True)),
        ("bidirectional halves swapped: keys after the query (Δ > 0) take the upper half of the buckets",
         mk(swap_halves=True)),
        ("causal buckets use |Δ|: later keys get buckets too instead of −min(Δ, 0)", mk(causal_abs=True)),
        ("bidirectional: num_buckets not halved before the exact/log split", mk(no_half=True)),
        ("large distances not clamped to num_buckets − 1", mk(no_clamp=True)),
        ("log buckets rounded instead of truncated (.long())", mk(rounding=True)),
        ("max_exact is not num_buckets // 2 (half the buckets exact)", mk(exact_full=True)),
        ("max_exact = num_buckets // 2 taken before num_buckets was halved for the two directions: every bucket of a "
         "direction is exact and none is left for the log-spaced distances; halve first, then max_exact = "
         "num_buckets // 2", mk(exact_before_half=True)),
        ("max_distance ignored (128 hard-coded)",
         lambda rel, bidirectional=True, num_buckets=32, max_distance=128: _t5_variant(rel, bidirectional, num_buckets,
                                                                                        128)),
    ]


def _t5_causal_ref(rel, num_buckets=32, max_distance=128):
    return t5_relative_bucket(rel, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance)


def _t5_causal_cases():
    out = []
    for c in _t5_cases((False,)):
        kw = dict(c.kwargs)
        kw.pop("bidirectional")
        out.append(Case(c.label.replace(", bidirectional=False", ""), c.args, kw, tol=0))
    return out


def _t5_causal_mistakes():
    def mk(**flags):
        def f(rel, num_buckets=32, max_distance=128):
            return _t5_variant(rel, False, num_buckets, max_distance, **flags)
        return f

    return [
        ("T5 relative position taken as query − key (i − j) instead of key − query (j − i)", mk(neg=True)),
        ("causal buckets use |Δ|: later keys get buckets too instead of −min(Δ, 0)", mk(causal_abs=True)),
        ("large distances not clamped to num_buckets − 1", mk(no_clamp=True)),
        ("log buckets rounded instead of truncated (.long())", mk(rounding=True)),
        ("max_exact is not num_buckets // 2 (half the buckets exact)", mk(exact_full=True)),
        ("bidirectional buckets (the encoder's) used in the decoder",
         lambda rel, num_buckets=32, max_distance=128: _t5_variant(rel, True, num_buckets, max_distance)),
    ]


# ---- RoPE ------------------------------------------------------------------------------------------------
def _inv_variant(d, base=10000.0, *, exp_scale=2.0, start=0, sign=-1, dtype=torch.float64, denom=None):
    i = torch.arange(start, start + d // 2, dtype=torch.float64)
    denom = d if denom is None else denom
    return (torch.tensor(float(base), dtype=dtype) ** (sign * exp_scale * i.to(dtype) / denom)).float()


def _inv_cases():
    return [Case(f"head_dim={d}, base={b:g}", (d, b), tol=2e-6 if d > 2 else 1e-7) for d, b in
            [(2, 1e4), (4, 1e4), (6, 1e4), (8, 500.0), (10, 1e4), (64, 1e4), (128, 5e5), (96, 1e6)]]


def _inv_structure(case, out):
    return _float32(_shape(out, (case.args[0] // 2,)))


def _prop_first_one(case, out, run):
    if not abs(float(out[0]) - 1) <= 1e-6:
        return f"θ_0 = {float(out[0]):.4g}; the first pair must turn at 1 rad per position (base^0)"
    return None


def _prop_geometric(case, out, run):
    o = _f64(out)
    if o.numel() < 2:
        return None
    ratio = o[1:] / o[:-1]
    d, base = case.args
    want = base ** (-2 / d)
    if not float((ratio - want).abs().max()) <= 1e-4 * want + 1e-7:
        return f"consecutive ratios {float(ratio.min()):.6g}..{float(ratio.max()):.6g}, want base^(-2/d) = {want:.6g}"
    return None


def _inv_mistakes():
    return [
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", lambda d, b=1e4: _inv_variant(d, b, exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", lambda d, b=1e4: _inv_variant(d, b, exp_scale=4.0)),
        ("frequency index starts at 1: base^(-2(i+1)/d)", lambda d, b=1e4: _inv_variant(d, b, start=1)),
        ("base^(+2i/d) (wavelength factors) instead of base^(-2i/d): the sign of the exponent",
         lambda d, b=1e4: _inv_variant(d, b, sign=1)),
        ("exponent 2i/(d−2) (a linspace to 1) instead of 2i/d",
         lambda d, b=1e4: _inv_variant(d, b, denom=max(d - 2, 1))),
        ("base ignored: 10000 hard-coded", lambda d, b=1e4: _inv_variant(d, 1e4)),
        ("frequencies computed in float16", lambda d, b=1e4: _inv_variant(d, b, dtype=torch.float16)),
        ("frequencies computed in bfloat16", lambda d, b=1e4: _inv_variant(d, b, dtype=torch.bfloat16)),
    ]


def _pos_tensor(positions):
    if isinstance(positions, int):
        return torch.arange(positions)
    return positions


def _cs_variant(positions, d, base=10000.0, *, exp_scale=2.0, start=0, layout="half", dtype=torch.float32,
                swap=False, sin_sign=1, ignore_positions=False, inv_dtype=None, pos_dtype=None):
    pos = _pos_tensor(positions)
    if ignore_positions:
        pos = torch.arange(pos.numel())
    pos = pos + start
    inv = _inv_variant(d, base, exp_scale=exp_scale)
    if inv_dtype is not None:
        inv = inv.to(inv_dtype)
    if pos_dtype is not None:
        pos = pos.to(pos_dtype).float()
    ang = (pos.to(dtype)[:, None] * inv.to(dtype)[None, :]).float()
    if layout == "half":
        ang = torch.cat([ang, ang], -1)
    else:
        ang = ang.repeat_interleave(2, -1)
    c, s = ang.cos(), sin_sign * ang.sin()
    return (s, c) if swap else (c, s)


def _cs_cases():
    specs = [(1, 2, 1e4), (3, 4, 1e4), (8, 8, 1e4), (torch.tensor([5, 0, 17]), 8, 1e4), (64, 16, 500.0),
             (torch.tensor([1000, 2047, 3001]), 32, 1e4), (torch.tensor([4095, 4097, 8191, 15962]), 64, 1e4),
             (torch.tensor([70000, 131071]), 128, 5e5)]
    out = []
    for pos, d, b in specs:
        if isinstance(pos, int):
            lab, maxp = f"positions={pos}", pos - 1
        else:
            lab, maxp = f"positions={pos.tolist()}", int(pos.max())
        out.append(Case(f"{lab}, head_dim={d}, base={b:g}", (pos, d, b), tol=_tol_angles(maxp)))
    return out


def _cs_structure(case, out):
    pos, d = case.args[:2]
    n = pos if isinstance(pos, int) else pos.numel()
    c, s = _pair(out)
    if isinstance(c, torch.Tensor) and tuple(c.shape) == (n, d // 2):
        raise _Wrong(f"cos has shape {list(c.shape)}, expected {[n, d]}: the half layout duplicates the d/2 angles "
                     "as cat([a, a])")
    return (_float32(_shape(c, (n, d), "cos"), "cos"), _float32(_shape(s, (n, d), "sin"), "sin"))


def _prop_unit(case, out, run):
    c, s = _f64(out[0]), _f64(out[1])
    if not float((c**2 + s**2 - 1).abs().max()) <= 1e-4:
        return "cos² + sin² ≠ 1"
    return None


def _prop_halves(case, out, run):
    d = case.args[1]
    for name, t in zip(("cos", "sin"), out):
        if not torch.equal(t[:, : d // 2], t[:, d // 2:]) and _close(t[:, : d // 2], t[:, d // 2:], 1e-6):
            return f"{name}[:, :d/2] ≠ {name}[:, d/2:]: the half layout duplicates the angles as cat([a, a])"
    return None


def _cs_mistakes():
    def mk(**kw):
        return lambda p, d, b=1e4: _cs_variant(p, d, b, **kw)

    return [
        ("angles repeated per pair (interleaved layout) instead of duplicated as cat([a, a]) (half layout)",
         mk(layout="interleaved")),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", mk(exp_scale=1.0)),
        ("exponent 4i/d: arange(0, d, 2) already holds 2i, and it was doubled again", mk(exp_scale=4.0)),
        ("positions start at 1", mk(start=1)),
        ("positions tensor ignored: arange(len(positions)) used", mk(ignore_positions=True)),
        ("cos and sin swapped", mk(swap=True)),
        ("sin negated: the tables rotate clockwise (R_{-m})", mk(sin_sign=-1)),
        ("angles computed in float16", mk(dtype=torch.float16)),
        ("angles computed in bfloat16", mk(dtype=torch.bfloat16)),
        ("angles computed in float16", mk(inv_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(inv_dtype=torch.bfloat16)),
        ("angles computed in float16", mk(pos_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(pos_dtype=torch.bfloat16)),
    ]


def _ref_cs(positions, head_dim, base=10000.0):
    return rope_cos_sin(positions, head_dim, base)


# apply RoPE
def _rot_half(x):
    x1, x2 = x.chunk(2, -1)
    return torch.cat([-x2, x1], -1)


def _apply_variant(x, cos, sin, *, layout="half", sign=1, swap=False, no_minus=False, concat_back=False,
                   first_half_only=False, keep_dtype=True, plain_sin=False):
    dt = x.dtype
    xf, c, s = x.double(), cos.double(), sin.double()
    if swap:
        c, s = s, c
    s = sign * s
    if layout == "half":
        x1, x2 = xf.chunk(2, -1)
        rh = torch.cat([x2 if no_minus else -x2, x1], -1)
        if plain_sin:
            rh = xf
        out = xf * c + rh * s
        if first_half_only:
            out = torch.cat([out[..., : xf.shape[-1] // 2], x2], -1)
    else:
        x0, x1 = xf[..., 0::2], xf[..., 1::2]
        c0, s0 = c[..., 0::2], s[..., 0::2]
        r0 = x0 * c0 - (-x1 if no_minus else x1) * s0
        r1 = x0 * s0 + x1 * c0
        if plain_sin:
            r0, r1 = x0 * c0 + x0 * s0, x1 * c0 + x1 * s0
        out = torch.cat([r0, r1], -1) if concat_back else torch.stack([r0, r1], -1).flatten(-2)
        if first_half_only:
            out = torch.stack([r0, x1], -1).flatten(-2)
    return out.to(dt) if keep_dtype else out.float()


def _apply_cases(layout):
    specs = [((1, 2), [0], torch.float32), ((2, 4), [0, 1], torch.float32), ((5, 8), list(range(5)), torch.float32),
             ((3, 6), [7, 2, 40], torch.float32), ((2, 3, 4, 16), [0, 1, 2, 100], torch.float32),
             ((2, 6, 64), [0, 5, 300, 2047, 4096, 8000], torch.float32),
             ((4, 32), [0, 10, 500, 3000], torch.bfloat16), ((4, 32), [0, 10, 500, 3000], torch.float16)]
    out = []
    for i, (shape, pos, dt) in enumerate(specs):
        g = _g(200 + i)
        x = torch.randn(*shape, generator=g)
        c, s = rope_cos_sin(torch.tensor(pos), shape[-1], layout=layout)
        tol = (2e-5 * (1 + float(x.abs().max()))) if dt == torch.float32 else 2e-2 * (1 + float(x.abs().max()))
        out.append(Case(f"x {list(shape)} {str(dt).replace('torch.', '')}, positions {pos}",
                        (x.to(dt), c.to(dt), s.to(dt)), tol=tol))
    return out


def _apply_structure(case, out):
    x = case.args[0]
    out = _shape(out, tuple(x.shape))
    if out.dtype != x.dtype:
        raise _Wrong(f"dtype {str(out.dtype).replace('torch.', '')} for {str(x.dtype).replace('torch.', '')} "
                     "input: return x's dtype (Hugging Face casts cos/sin to q's dtype and returns q's dtype)")
    return out


def _prop_norm(layout):
    def prop(case, out, run):
        x = case.args[0]
        if x.dtype != torch.float32:
            return None
        xf, of = _f64(x), _f64(out)
        if layout == "half":
            pairs = lambda t: t[..., : t.shape[-1] // 2] ** 2 + t[..., t.shape[-1] // 2:] ** 2  # noqa: E731
        else:
            pairs = lambda t: t[..., 0::2] ** 2 + t[..., 1::2] ** 2  # noqa: E731
        if not float((pairs(xf) - pairs(of)).abs().max()) <= 1e-4 * (1 + float(pairs(xf).max())):
            what = "(i, i + d/2)" if layout == "half" else "(2i, 2i+1)"
            return f"the length of each pair {what} changed: a rotation keeps it"
        return None
    return prop


def _prop_relative(layout):
    def prop(case, out, run):
        x = case.args[0]
        if x.dtype != torch.float32 or x.dim() != 2 or x.shape[0] < 2:
            return None
        d = x.shape[-1]
        g = _g(300)
        q, k = torch.randn(d, generator=g), torch.randn(d, generator=g)
        pos = torch.tensor([3, 10, 3 + 25, 10 + 25])  # (m, n) and (m + s, n + s)
        c, s = rope_cos_sin(pos, d, layout=layout)
        o = _f64(run(torch.stack([q, k, q, k]), c, s))
        a, b = float(o[0] @ o[1]), float(o[2] @ o[3])
        if not abs(a - b) <= 1e-4 * (1 + abs(a)):
            return f"q_m·k_n changes when both positions shift by 25 ({a:.4g} vs {b:.4g}): it must depend on n − m only"
        return None
    return prop


def _apply_mistakes(layout):
    def mk(**kw):
        return lambda x, c, s: _apply_variant(x, c, s, **{"layout": layout, **kw})

    other = "interleaved" if layout == "half" else "half"
    common = [
        ("your rotation is clockwise (R_{-m}): x·cos − rotate(x)·sin", mk(sign=-1)),
        ("cos and sin swapped", mk(swap=True)),
        ("the minus sign of the rotation is lost (pairs mixed without −sin)", mk(no_minus=True)),
        ("sin multiplies x itself instead of the rotated partner", mk(plain_sin=True)),
    ]
    def gptj_every_two(x, c, s):  # GPT-J: x * cos + rotate_every_two(x) * sin, fed the half-layout tables
        xf = x.double()
        rot = torch.stack((-xf[..., 1::2], xf[..., 0::2]), -1).flatten(-2)
        return (xf * c.double() + rot * s.double()).to(x.dtype)

    if layout == "half":
        return [("GPT-J's rotate_every_two (pairs 2i, 2i+1) used with half-layout tables: x·cos + "
                 "rotate_every_two(x)·sin needs interleaved tables; with cat([a, a]) tables use rotate_half, which "
                 "pairs i with i + d/2", gptj_every_two),
                ("only the first half x[..., :d/2] rotated; the second half passed through", mk(first_half_only=True)),
                ] + common
    def half_tables(x, c, s):  # the interleaved rotation, but angles read as from half-layout tables
        d = x.shape[-1] // 2
        return _apply_variant(x, c[..., :d].repeat_interleave(2, -1), s[..., :d].repeat_interleave(2, -1),
                              layout="interleaved")

    return [("interleaved pairs applied with the half layout (rotate_half pairs i with i + d/2)", mk(layout=other)),
            ("interleaved tables read as half-layout ones (cos[..., :d/2]): pair i's angle is in columns 2i and 2i+1",
             half_tables),
            ("rotated pairs written back concatenated [x0' | x1'] instead of interleaved", mk(concat_back=True)),
            ("only the even coordinates rotated; the odd ones passed through", mk(first_half_only=True)),
            ] + common


def _ref_apply(layout):
    return lambda x, cos, sin: apply_rope(x, cos, sin, layout=layout)


# RoPE with an offset (a KV cache)
def _ref_offset(x, offset, base=10000.0):
    L = x.shape[-2]
    c, s = rope_cos_sin(torch.arange(offset, offset + L), x.shape[-1], base)
    return apply_rope(x, c.to(x.dtype), s.to(x.dtype))


def _offset_variant(x, offset, base=1e4, *, shift=0, sign=1, layout="half", rot_sign=1, ang_dtype=torch.float32):
    L, d = x.shape[-2], x.shape[-1]
    pos = torch.arange(L) + sign * offset + shift
    inv = rope_inv_freq(d, base)
    ang = (pos.to(ang_dtype)[:, None] * inv.to(ang_dtype)[None]).float()
    ang = torch.cat([ang, ang], -1) if layout == "half" else ang.repeat_interleave(2, -1)
    return _apply_variant(x, ang.cos().to(x.dtype), ang.sin().to(x.dtype), layout=layout, sign=rot_sign)


def _offset_cases():
    specs = [((1, 4), 0), ((1, 4), 5), ((3, 8), 0), ((3, 8), 7), ((2, 2, 4, 16), 100), ((1, 32), 4095),
             ((2, 64), 20000)]
    out = []
    for i, (shape, off) in enumerate(specs):
        x = torch.randn(*shape, generator=_g(400 + i))
        out.append(Case(f"x {list(shape)}, offset={off}", (x, off, 1e4),
                        tol=2e-5 * (1 + float(x.abs().max())) + 8 * (off + shape[-2]) * 2.0**-23))
    return out


def _offset_mistakes():
    def mk(**kw):
        return lambda x, o, b=1e4: _offset_variant(x, o, b, **kw)

    return [
        ("offset ignored: positions start at 0 for every new token", mk(sign=0)),
        ("offset subtracted instead of added", mk(sign=-1)),
        ("positions start at offset + 1 (off by one)", mk(shift=1)),
        ("your rotation is clockwise (R_{-m})", mk(rot_sign=-1)),
        ("interleaved pairs instead of the half layout", mk(layout="interleaved")),
        ("angles computed in float16", mk(ang_dtype=torch.float16)),
        ("angles computed in bfloat16", mk(ang_dtype=torch.bfloat16)),
    ]


def _offset_structure(case, out):
    return _shape(out, tuple(case.args[0].shape))


def _prop_offset_consistent(case, out, run):
    x, off, base = case.args
    if x.dim() != 2 or x.shape[0] < 2:
        return None
    tail = run(x[1:], off + 1, base)
    if _close(tail, out[1:], case.tol):
        return ("rotating rows 1.. with offset + 1 differs from rows 1.. of the whole: a cached decode step must "
                "match the full sequence")
    return None


# ---- ALiBi -------------------------------------------------------------------------------------------------
def _official_pow2(n):
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))
    return [start * start**i for i in range(n)]


def _official(n):
    if math.log2(n).is_integer():
        return _official_pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return _official_pow2(c) + _official(2 * c)[0::2][: n - c]


def _official_from_one(n):
    """get_slopes with ``start * ratio**i`` written as ``ratio**i`` (the natural slip): slopes start at 1."""
    if math.log2(n).is_integer():
        r = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [r**i for i in range(n)]
    c = 2 ** math.floor(math.log2(n))
    return _official_from_one(c) + _official_from_one(2 * c)[0::2][: n - c]


def _slopes_variants():
    def as_pow2(n):  # the power-of-two formula for any n
        r = 2 ** (-8 / n)
        return torch.tensor([r ** (i + 1) for i in range(n)])

    def first_extra(n):
        if math.log2(n).is_integer():
            return torch.tensor(_official(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(_official_pow2(c) + _official_pow2(2 * c)[: n - c])

    def next_pow_trunc(n):
        c = 2 ** math.ceil(math.log2(n))
        return torch.tensor(_official_pow2(c)[:n])

    def from_c(n):
        if math.log2(n).is_integer():
            return torch.tensor(_official(n))
        c = 2 ** math.floor(math.log2(n))
        return torch.tensor(_official_pow2(c) + _official_pow2(c)[: n - c])

    return [
        ("non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two, then every "
         "other slope of get_slopes(2c)); yours are the power-of-two formula with ratio 2^(-8/n), as if n were a "
         "power of two", as_pow2),
        ("non-power-of-two heads: the extra slopes come from 2c heads, but every other one (0::2), not the first "
         "n − c", first_extra),
        ("non-power-of-two heads: the extra slopes come from 2c heads (c the closest lower power of two); yours are "
         "the slopes of the next power of two, truncated", next_pow_trunc),
        ("non-power-of-two heads: the extra slopes come from 2c heads, get_slopes(2c)[0::2]; yours repeat the first c "
         "slopes (the odd-indexed ones of 2c heads)", from_c),
        ("slopes sorted: the official slopes for a non-power-of-two head count are not monotonic",
         lambda n: torch.tensor(sorted(_official(n), reverse=True))),
        ("slopes start at 1 (r^0) instead of r = 2^(-8/n): get_slopes returns start · ratio^i, with start = ratio",
         lambda n: torch.tensor(_official_from_one(n))),
        ("heads in reverse order: head 0 has the largest slope", lambda n: torch.tensor(_official(n)[::-1])),
    ]


def _slopes_cases():
    return [Case(f"n_heads={n}", (n,), tol=1e-6) for n in [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96]]


def _slopes_structure(case, out):
    return _float32(_shape(out, (case.args[0],)), "the slopes")


def _prop_slopes_positive(case, out, run):
    if not bool((out > 0).all()):
        return "slopes must be positive (the bias is −slope·|Δ|)"
    return None


def _prop_slopes_geometric(case, out, run):
    n = case.args[0]
    if not math.log2(n).is_integer() or n < 2:
        return None
    o = _f64(out)
    want = 2 ** (-8 / n)
    if not (abs(float(o[0]) - want) <= 1e-6 and float((o[1:] / o[:-1] - want).abs().max()) <= 1e-5):
        return f"for a power-of-two count the slopes are the geometric sequence r, r², ... with r = 2^(-8/n) = {want:.4g}"
    return None


def _is_linear(out):
    o = _f64(out)
    if o.numel() < 3:
        return False
    diff = o[1:] - o[:-1]
    return float((diff - diff[0]).abs().max()) < 1e-5 * (abs(float(diff[0])) + 1e-9) + 1e-8 and abs(float(diff[0])) > 1e-9


# ---- ALiBi bias ---------------------------------------------------------------------------------------------
def _ref_bias(n, L):
    return alibi_bias(n, L)


def _bias_variant(n, L, *, slopes=None, sign=-1, mask="upper", bloom=False, mask_value=float("-inf")):
    m = torch.tensor(_official(n), dtype=torch.float64) if slopes is None else slopes(n).double()
    rel = relative_positions(L).double()
    b = (m[:, None, None] * rel[None]) if bloom else sign * m[:, None, None] * rel.abs()[None]
    if bloom:
        b = m[:, None, None] * torch.arange(L, dtype=torch.float64)[None, None, :].expand(n, L, L)
    if mask == "upper":
        b = b.masked_fill(rel[None] > 0, mask_value)
    elif mask == "lower":
        b = b.masked_fill(rel[None] < 0, mask_value)
    elif mask == "diag":
        b = b.masked_fill(rel[None] >= 0, mask_value)
    return b.float()


def _bias_cases():
    return [Case(f"n_heads={n}, q_len={L}", (n, L), tol=1e-5) for n, L in
            [(1, 1), (1, 3), (2, 4), (3, 5), (4, 8), (6, 7), (8, 16), (12, 10)]]


def _bias_structure(case, out):
    n, L = case.args
    return _shape(out, (n, L, L))


def _prop_causal_inf(case, out, run):
    L = case.args[1]
    future = relative_positions(L) > 0
    o = out.float()
    if bool((~torch.isneginf(o[:, future])).any()):
        return "entries with key after the query (j > i) must be −inf"
    if bool(torch.isneginf(o[:, ~future]).any()):
        return "−inf where the key is not after the query (j ≤ i)"
    return None


def _prop_bias_diag(case, out, run):
    L = case.args[1]
    if bool((out.float().diagonal(dim1=-2, dim2=-1) != 0).any()):
        return "the diagonal (a query and its own key, distance 0) must be 0"
    return None


def _slopes_linear(cases, outs, usable) -> bool:
    seqs = [outs[i] for i in usable if not isinstance(outs[i], _Crash) and outs[i].numel() >= 3]
    return bool(seqs) and all(_is_linear(o) for o in seqs)


def _bias_linear(cases, outs, usable) -> bool:
    seqs = [-_f64(outs[i])[:, 1, 0] for i in usable
            if not isinstance(outs[i], _Crash) and outs[i].shape[0] >= 3 and outs[i].shape[1] >= 2]
    return bool(seqs) and all(_is_linear(o) for o in seqs)


def _bias_finite_mask(cases, outs, usable) -> bool:
    """Keys after the query get a large finite negative number (-1e9, finfo.min) instead of -inf."""
    seen = False
    for i in usable:
        o, L = outs[i], cases[i].args[1]
        if isinstance(o, _Crash) or L < 2:
            continue
        future = relative_positions(L) > 0
        masked = o.float()[:, future]
        if not (bool(torch.isfinite(masked).all()) and bool((masked <= -1e4).all())):  # NaN-safe
            return False
        seen = True
    return seen


def _bias_mistakes():
    variants = _slopes_variants()
    linear = lambda n: torch.tensor([(h + 1) / n for h in range(n)]) * 1.0  # noqa: E731
    out = [
        ("bias positive: +slope·|Δ| added instead of −slope·|Δ|", lambda n, L: _bias_variant(n, L, sign=1)),
        ("no causal mask: keys after the query are not −inf", lambda n, L: _bias_variant(n, L, mask="none")),
        ("mask on the wrong side: −inf below the diagonal (keys before the query)",
         lambda n, L: _bias_variant(n, L, mask="lower")),
        ("the diagonal is masked too: a query cannot see its own key",
         lambda n, L: _bias_variant(n, L, mask="diag")),
        ("bias is slope × key position (the key-position form of Press et al.'s code, which BLOOM copies): equal up "
         "to a per-row shift that softmax ignores under a causal mask, but not "
         "the −slope·|j − i| asked for", lambda n, L: _bias_variant(n, L, bloom=True)),
        ("masked with a large finite number instead of −inf", lambda n, L: _bias_variant(n, L, mask_value=-1e9)),
        ("ALiBi slopes linear in the head index", lambda n, L: _bias_variant(n, L, slopes=linear)),
    ]
    out += [(f"slopes wrong — {text}", (lambda f: lambda n, L: _bias_variant(n, L, slopes=f))(f)) for text, f in variants]
    return out


# ---- frequencies for longer contexts -----------------------------------------------------------------------
def _ref_pi(head_dim, base, factor):
    return rope_scaled_inv_freq(head_dim, base, rope_type="linear", factor=factor)[0]


def _ref_ntk(head_dim, base, factor):
    return rope_inv_freq(head_dim, base * factor ** (head_dim / (head_dim - 2)))


def _scaled_cases():
    return [Case(f"head_dim={d}, base={b:g}, factor={s:g}", (d, b, s), tol=3e-6 * 1) for d, b, s in
            [(4, 1e4, 2.0), (8, 1e4, 4.0), (16, 500.0, 8.0), (64, 1e4, 2.0), (128, 5e5, 16.0), (96, 1e4, 3.0)]]


def _scaled_structure(case, out):
    return _float32(_shape(out, (case.args[0] // 2,)))


def _rel_compare(case, out, expected):
    """None when ``out`` agrees with ``expected`` to a relative 2e-5 everywhere. NaN-safe: a NaN or an
    infinity fails unless ``expected`` has the same one at that index (so two wrong outputs can match)."""
    o, e = _f64(out), _f64(expected)
    if o.shape != e.shape:
        return f"shape {list(o.shape)} instead of {list(e.shape)}"
    special = ~torch.isfinite(o) | ~torch.isfinite(e)
    same = (torch.isnan(o) & torch.isnan(e)) | (torch.isinf(o) & torch.isinf(e) & (o.sign() == e.sign()))
    bad = special & ~same
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0][0])
        return f"{float(o[i]):.4g} at pair {i} where posenc has {float(e[i]):.4g}"
    rel = ((o - e).abs() / e.abs().clamp(min=1e-30)).masked_fill(same, 0)
    err = float(rel.max()) if rel.numel() else 0.0
    if not err <= 2e-5:
        i = int(rel.argmax())
        return f"relative difference {err:.3g} at pair {i} (tolerance 2e-5)"
    return None


def _pi_mistakes():
    return [
        ("frequencies multiplied by the factor instead of divided (positions sped up, not interpolated)",
         lambda d, b, s: rope_inv_freq(d, b) * s),
        ("base multiplied by the factor (a change of base, NTK-style) instead of frequencies divided by it",
         lambda d, b, s: rope_inv_freq(d, b * s)),
        ("NTK-aware base used: base·s^(d/(d−2)) belongs to the NTK task, PI divides every frequency by s",
         lambda d, b, s: _ref_ntk(d, b, s)),
        ("only the first frequency divided by the factor", lambda d, b, s: torch.cat([rope_inv_freq(d, b)[:1] / s,
                                                                                       rope_inv_freq(d, b)[1:]])),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)", lambda d, b, s: _inv_variant(d, b, exp_scale=1.0) / s),
        ("frequencies divided by the factor squared", lambda d, b, s: rope_inv_freq(d, b) / s**2),
    ]


def _ntk_mistakes():
    return [
        ("base multiplied by the factor; NTK-aware uses base·s^(d/(d−2)) so the last pair is interpolated by exactly s",
         lambda d, b, s: rope_inv_freq(d, b * s)),
        ("exponent (d−2)/d instead of d/(d−2)", lambda d, b, s: rope_inv_freq(d, b * s ** ((d - 2) / d))),
        ("frequencies divided by the factor (that is PI, not NTK-aware)", lambda d, b, s: rope_inv_freq(d, b) / s),
        ("base raised to the factor (base^s) instead of multiplied by s^(d/(d−2))",
         lambda d, b, s: rope_inv_freq(d, b**s)),
        ("base divided by s^(d/(d−2)) instead of multiplied",
         lambda d, b, s: rope_inv_freq(d, b / s ** (d / (d - 2)))),
        ("frequencies use base^(-i/d) instead of base^(-2i/d)",
         lambda d, b, s: _inv_variant(d, b * s ** (d / (d - 2)), exp_scale=1.0)),
    ]


def _prop_pi_last(case, out, run):
    d, b, s = case.args
    if not abs(float(out[0]) * s - 1) <= 1e-5:
        return f"θ_0 = {float(out[0]):.4g}; PI divides every frequency by the factor, so θ_0 = 1/s = {1 / s:.4g}"
    return None


def _prop_ntk_first(case, out, run):
    d, b, s = case.args
    if not abs(float(out[0]) - 1) <= 1e-6:
        return f"θ_0 = {float(out[0]):.4g}: NTK-aware keeps the fastest pair at 1 rad per position"
    return None


def _prop_ntk_last(case, out, run):
    d, b, s = case.args
    want = float(rope_inv_freq(d, b)[-1]) / s
    if not abs(float(out[-1]) / want - 1) <= 1e-4:
        return f"the slowest pair turns at {float(out[-1]):.4g}; NTK-aware interpolates it by s: {want:.4g}"
    return None


def _yarn_ref(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0):
    return rope_scaled_inv_freq(head_dim, base, rope_type="yarn", factor=factor,
                                original_max_position_embeddings=original_max_position_embeddings,
                                beta_fast=beta_fast, beta_slow=beta_slow)


def _yarn_variant(d, base, factor, L0, beta_fast=32.0, beta_slow=1.0, *, reverse=False, swap_betas=False,
                  no_round=False, interp_mul=False, mscale="ok", full_ramp=False, half_ramp_dim=False, guard=True,
                  no_clip=False, half_d_cdim=False, turn_ramp=False):
    if swap_betas:
        beta_fast, beta_slow = beta_slow, beta_fast

    def cdim(r):
        dd = d / 2 if half_d_cdim else d
        return (dd * math.log(L0 / (r * 2 * math.pi))) / (2 * math.log(base))

    low, high = cdim(beta_fast), cdim(beta_slow)
    if not no_round:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high and guard:
        high += 0.001
    i = torch.arange(d // 2, dtype=torch.float64)
    ramp = ((i - low) / (high - low)).clamp(0, 1)
    if half_ramp_dim:
        ramp = ((2 * i - low) / (high - low)).clamp(0, 1)
    if no_clip:
        ramp = (i - low) / (high - low)
    if turn_ramp:  # Peng et al.'s gamma(r), linear in the turns r = L_orig / wavelength, not in the pair index
        turns = L0 * base ** (-2 * i / d) / (2 * math.pi)
        ramp = 1 - ((turns - beta_slow) / (beta_fast - beta_slow)).clamp(0, 1)
    keep = ramp if reverse else 1 - ramp
    pos_freq = base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    extra = 1.0 / pos_freq
    inter = (factor / pos_freq) if interp_mul else 1.0 / (factor * pos_freq)
    inv = inter * (1 - keep) + extra * keep
    m = 0.1 * math.log(factor) + 1 if factor > 1 else 1.0
    att = {"ok": m, "none": 1.0, "square": m * m, "sqrt": math.sqrt(m), "no_tenth": math.log(factor) + 1,
           "deepseek": 0.1 * 0.707 * math.log(factor) + 1 if factor > 1 else 1.0}[mscale]
    return inv.float(), att


def _yarn_cases():
    # (8, 1e4, 4.0, 4) and (16, 1e4, 2.0, 8): both correction dimensions round to 0, low == high, the case
    # Hugging Face guards with high += 0.001 (the attention task's L_orig = 4 is one)
    specs = [(8, 1e4, 4.0, 4), (8, 1e4, 2.0, 64), (16, 1e4, 2.0, 8), (16, 1e4, 4.0, 256), (32, 1e4, 4.0, 2048), (64, 1e4, 8.0, 4096),
             (64, 5e5, 2.0, 1024), (128, 1e4, 16.0, 4096), (128, 1e6, 40.0, 4096, 16.0, 2.0)]
    out = []
    for sp in specs:
        d, b, s, L0 = sp[:4]
        betas = sp[4:] or (32.0, 1.0)
        out.append(Case(f"head_dim={d}, base={b:g}, factor={s:g}, original_max_position_embeddings={L0}, "
                        f"beta_fast={betas[0]:g}, beta_slow={betas[1]:g}", (d, b, s, L0, *betas), tol=2e-5))
    return out


def _yarn_structure(case, out):
    inv, att = _pair(out, ("inv_freq", "attention_scaling"))
    inv = _float32(_shape(inv, (case.args[0] // 2,), "inv_freq"), "inv_freq")
    try:
        att = float(att)
    except (TypeError, ValueError, RuntimeError):
        raise _Wrong(f"attention_scaling is a {type(att).__name__}, not a number") from None
    return inv, att


def _yarn_compare(case, out, expected):
    msg = _rel_compare(case, out[0], expected[0])
    if msg:
        return "inv_freq: " + msg
    a, e = out[1], expected[1]
    if not (abs(a - e) <= 1e-5 or (math.isnan(a) and math.isnan(e))):
        return f"attention_scaling {a:.6g} instead of {e:.6g}"
    return None


def _prop_yarn_ends(case, out, run):
    d, b, s = case.args[:3]
    o = _f64(out[0])
    plain = _f64(rope_inv_freq(d, b))
    if not abs(float(o[-1]) / (float(plain[-1]) / s) - 1) <= 1e-4:
        return "the slowest pair (fewer than beta_slow turns over L_orig) must be interpolated: θ/factor"
    return None


def _prop_yarn_between(case, out, run):
    d, b, s = case.args[:3]
    o, plain = _f64(out[0]), _f64(rope_inv_freq(d, b))
    if not (bool((o <= plain * (1 + 1e-5)).all()) and bool((o >= plain / s * (1 - 1e-5)).all())):
        return "every frequency must lie between θ/factor (interpolated) and θ (kept)"
    return None


def _yarn_mistakes():
    def mk(**kw):
        return lambda d, b, s, L0, bf=32.0, bs=1.0: _yarn_variant(d, b, s, L0, bf, bs, **kw)

    return [
        ("YaRN ramp reversed: the fast pairs are interpolated and the slow ones kept", mk(reverse=True)),
        ("beta_fast and beta_slow swapped", mk(swap_betas=True)),
        ("correction range not rounded: Hugging Face floors the low and ceils the high dimension", mk(no_round=True)),
        ("interpolated frequencies multiplied by the factor instead of divided", mk(interp_mul=True)),
        ("attention scaling missing: return 0.1·ln(factor) + 1, which multiplies cos and sin", mk(mscale="none")),
        ("attention scaling squared: you returned (0.1·ln s + 1)², the factor the logits end up with. Return "
         "0.1·ln s + 1 itself: it multiplies both cos and sin, so the logits get its square", mk(mscale="square")),
        ("low == high (the correction range is empty) and the ramp (i − low)/(high − low) divides 0 by 0: NaN. "
         "When low == high, add 0.001 to high, as Hugging Face does", mk(guard=False)),
        ("attention scaling is √(0.1·ln s + 1): the factor 0.1·ln s + 1 multiplies cos and sin", mk(mscale="sqrt")),
        ("attention scaling ln(s) + 1: the factor is 0.1·ln(s) + 1", mk(mscale="no_tenth")),
        ("ramp indexed by the dimension 2i instead of the pair index i", mk(half_ramp_dim=True)),
        ("attention scaling 0.1·0.707·ln s + 1: 0.707 is DeepSeek's mscale (its config sets mscale = mscale_all_dim "
         "= 0.707, and Hugging Face divides the two factors); plain YaRN returns 0.1·ln s + 1", mk(mscale="deepseek")),
        ("ramp not clipped to [0, 1]: pairs below low or above high extrapolate past θ or θ/factor; clamp "
         "(i − low)/(high − low) to [0, 1]", mk(no_clip=True)),
        ("correction dimension computed with d/2 instead of d: find_correction_dim is "
         "d·ln(L_orig/(2π·β))/(2·ln base), a pair index", mk(half_d_cdim=True)),
        ("ramp linear in the turn count r = L_orig·θ/(2π) between beta_slow and beta_fast (Peng et al.'s γ(r), "
         "chapter 7): the task follows Hugging Face, whose ramp is linear in the pair index between the rounded "
         "correction dimensions", mk(turn_ramp=True)),
    ]


# ---- one attention layer -----------------------------------------------------------------------------------
def _ref_attention(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0):
    return _attention_variant(q, k, v, cos, sin, bias, attention_scaling)


def _attention_variant(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0, *, rope_v=False, rope_q_only=False,
                       no_mask=False, bias_sign=1, scale_power=0.5, logits_scale="cos_sin", diag_mask=False,
                       clockwise=False):
    d, L = q.shape[-1], q.shape[-2]
    q, k, v = q.double(), k.double(), v.double()
    if cos is not None:
        c, s = cos.double(), sin.double()
        if logits_scale == "cos_sin":
            c, s = c * attention_scaling, s * attention_scaling
        if clockwise:
            s = -s
        q = q * c + _rot_half(q) * s
        if not rope_q_only:
            k = k * c + _rot_half(k) * s
        if rope_v:
            v = v * c + _rot_half(v) * s
    logits = q @ k.transpose(-1, -2) / d**scale_power
    if cos is not None and logits_scale == "once":
        logits = logits * attention_scaling
    if bias is not None:
        logits = logits + bias_sign * bias.double()
    if not no_mask:
        logits = logits.masked_fill(relative_positions(L) > (-1 if diag_mask else 0), float("-inf"))
    return (torch.softmax(logits, -1) @ v).float()


def _attention_cases():
    out = []
    g = _g(500)
    for i, (b, h, L, d, kind) in enumerate([(1, 1, 1, 4, "none"), (1, 2, 3, 4, "rope"), (1, 2, 6, 8, "alibi"),
                                            (2, 3, 5, 8, "t5"), (1, 2, 7, 16, "yarn"), (2, 4, 9, 16, "rope")]):
        q, k, v = (torch.randn(b, h, L, d, generator=g) for _ in range(3))
        kw: dict = {}
        desc = "no position encoding"
        if kind in ("rope", "yarn"):
            if kind == "yarn":
                inv, att = _yarn_ref(d, 1e4, 8.0, 4)
                kw["attention_scaling"] = att
                desc = f"YaRN cos/sin (factor 8), attention_scaling={att:.3f}"
            else:
                inv, desc = rope_inv_freq(d), "RoPE cos/sin"
            c, s = rope_cos_sin(L, d, inv_freq=inv)
            kw.update(cos=c, sin=s)
        elif kind == "alibi":
            kw["bias"], desc = alibi_bias(h, L, causal=False), "ALiBi bias (no mask)"
        elif kind == "t5":
            kw["bias"] = torch.randn(h, 32, generator=g)[:, t5_relative_bucket(relative_positions(L))]
            desc = "a T5 bias"
        out.append(Case(f"q, k, v [{b}, {h}, {L}, {d}], {desc}", (q, k, v), kw, tol=2e-5))
    return out


def _attention_structure(case, out):
    return _shape(out, tuple(case.args[0].shape))


def _prop_attention_causal(case, out, run):
    q, k, v = case.args
    if q.shape[-2] < 2:
        return None
    k2, v2 = k.clone(), v.clone()
    k2[..., -1, :] += 3.0
    v2[..., -1, :] += 3.0
    other = run(q, k2, v2, **case.kwargs)
    if _close(other[..., :-1, :], out[..., :-1, :], 1e-4):
        return "changing the last key and value changed earlier queries' outputs: the mask lets queries see the future"
    return None


def _attention_mistakes():
    def mk(**kw):
        return lambda q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0: _attention_variant(
            q, k, v, cos, sin, bias, attention_scaling, **kw)

    return [
        ("attention factor applied to the logits once instead of to cos and sin (the logits need its square)",
         mk(logits_scale="once")),
        ("attention factor ignored: multiply cos and sin by attention_scaling", mk(logits_scale="none")),
        ("RoPE applied to the values too: only queries and keys are rotated", mk(rope_v=True)),
        ("RoPE applied to the queries only: rotate the keys too", mk(rope_q_only=True)),
        ("no causal mask: queries see later keys", mk(no_mask=True)),
        ("the causal mask also hides the query's own key (the diagonal)", mk(diag_mask=True)),
        ("bias subtracted from the logits instead of added", mk(bias_sign=-1)),
        ("logits divided by d instead of √d", mk(scale_power=1.0)),
        ("your rotation is clockwise (R_{-m})", mk(clockwise=True)),
    ]


# ---------------------------------------------------------------------------------------------
def _task_list() -> list[Task]:
    t = []
    t.append(Task("sinusoidal_encoding", "fn(seq_len, d_model, base=10000.0) -> [seq_len, d_model]", "02_absolute",
                  _sin_cases, _ref_sin,
                  [("position 0 is [0, 1, 0, 1, ...]", _prop_row0),
                   ("columns (2i, 2i+1) are (sin, cos) pairs", _prop_unit_pairs_interleaved)],
                  _sin_mistakes(), _sin_structure,
                  detectors=[_lowp("float16"), _lowp("bfloat16")]))
    t.append(Task("sinusoidal_concat", "fn(seq_len, d_model, base=10000.0) -> [seq_len, d_model]", "02_absolute",
                  _concat_cases, _ref_sin_concat, [("position 0 is [0, ..., 0, 1, ..., 1]", _prop_row0_concat)],
                  _concat_mistakes(), _sin_structure))
    t.append(Task("learned_lookup", "fn(table, positions) -> table[positions]", "02_absolute",
                  _learned_cases, _ref_learned, [], _learned_mistakes(), _learned_structure))
    t.append(Task("shaw_relative_index", "fn(q_len, max_distance) -> int64 [q_len, q_len]", "03_relative",
                  _shaw_cases, lambda L, k: shaw_relative_index(L, k),
                  [("indices in [0, 2k]", _prop_shaw_range), ("depends on j − i only", _prop_toeplitz)],
                  _shaw_mistakes(), _shaw_structure))
    t.append(Task("shaw_attention", "fn(q, k, v, rel_k, rel_v) -> [..., L, d], causal", "03_relative",
                  _shaw_attn_cases, _ref_shaw_attention, [("causal: no query sees a later key", _prop_shaw_causal)],
                  _shaw_attn_mistakes(), _shaw_attn_structure))
    t.append(Task("t5_relative_bucket",
                  "fn(relative_position, bidirectional=True, num_buckets=32, max_distance=128) -> int64 buckets",
                  "03_relative", _t5_cases, lambda r, **kw: t5_relative_bucket(r, **kw),
                  [("buckets in [0, num_buckets)", _prop_t5_range), ("buckets grow with distance", _prop_t5_monotone)],
                  _t5_mistakes(), _t5_structure))
    t.append(Task("t5_causal_bucket", "fn(relative_position, num_buckets=32, max_distance=128) -> int64 buckets",
                  "03_relative", _t5_causal_cases, _t5_causal_ref,
                  [("buckets in [0, num_buckets)", _prop_t5_range)], _t5_causal_mistakes(), _t5_structure))
    t.append(Task("rope_inv_freq", "fn(head_dim, base=10000.0) -> [head_dim // 2]", "04_rope",
                  _inv_cases, lambda d, b=1e4: rope_inv_freq(d, b),
                  [("θ_0 = 1", _prop_first_one), ("geometric: θ_{i+1}/θ_i = base^(-2/d)", _prop_geometric)],
                  _inv_mistakes(), _inv_structure, _rel_compare,
                  detectors=[_lowp("float16", "frequencies"), _lowp("bfloat16", "frequencies")]))
    t.append(Task("rope_cos_sin", "fn(positions, head_dim, base=10000.0) -> (cos, sin), each [n, head_dim]",
                  "04_rope", _cs_cases, _ref_cs,
                  [("cos² + sin² = 1", _prop_unit), ("half layout: cat([a, a])", _prop_halves)],
                  _cs_mistakes(), _cs_structure,
                  detectors=[_lowp("float16"), _lowp("bfloat16")]))
    for layout in ("half", "interleaved"):
        t.append(Task(f"apply_rope_{layout}", "fn(x, cos, sin) -> x rotated, same shape and dtype", "04_rope",
                      (lambda lay: lambda: _apply_cases(lay))(layout), _ref_apply(layout),
                      [("keeps the length of every pair", _prop_norm(layout)),
                       ("relative: q_m·k_n depends on n − m only", _prop_relative(layout))],
                      _apply_mistakes(layout), _apply_structure))
    t.append(Task("apply_rope_offset", "fn(x, offset, base=10000.0) -> x rotated at positions offset, offset+1, ...",
                  "04_rope", _offset_cases, _ref_offset,
                  [("a decode step matches the full sequence", _prop_offset_consistent)],
                  _offset_mistakes(), _offset_structure))
    t.append(Task("alibi_slopes", "fn(n_heads) -> [n_heads]", "06_alibi", _slopes_cases,
                  lambda n: alibi_slopes(n),
                  [("positive", _prop_slopes_positive), ("power-of-two counts: geometric, r = 2^(-8/n)",
                                                        _prop_slopes_geometric)],
                  [("ALiBi slopes linear in the head index", lambda n: torch.tensor([(h + 1) / n for h in range(n)]))]
                  + _slopes_variants(), _slopes_structure,
                  detectors=[("ALiBi slopes linear in the head index", _slopes_linear),
                             _lowp("float16", "slopes"), _lowp("bfloat16", "slopes")]))
    t.append(Task("alibi_bias", "fn(n_heads, q_len) -> [n_heads, q_len, q_len], causal", "06_alibi", _bias_cases,
                  _ref_bias, [("−inf exactly where the key is after the query", _prop_causal_inf),
                              ("0 on the diagonal", _prop_bias_diag)], _bias_mistakes(), _bias_structure,
                  detectors=[("ALiBi slopes linear in the head index", _bias_linear),
                             ("masked with a large finite number instead of −inf", _bias_finite_mask)]))
    t.append(Task("pi_inv_freq", "fn(head_dim, base, factor) -> [head_dim // 2]", "07_beyond", _scaled_cases, _ref_pi,
                  [("θ_0 = 1/factor", _prop_pi_last)], _pi_mistakes(), _scaled_structure, _rel_compare,
                  detectors=[_lowp("float16", "frequencies"), _lowp("bfloat16", "frequencies")]))
    t.append(Task("ntk_inv_freq", "fn(head_dim, base, factor) -> [head_dim // 2]", "07_beyond", _scaled_cases, _ref_ntk,
                  [("θ_0 = 1", _prop_ntk_first), ("slowest pair interpolated by the factor", _prop_ntk_last)],
                  _ntk_mistakes(), _scaled_structure, _rel_compare,
                  detectors=[_lowp("float16", "frequencies"), _lowp("bfloat16", "frequencies")]))
    t.append(Task("yarn_inv_freq", "fn(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, "
                  "beta_slow=1.0) -> (inv_freq [head_dim // 2], attention_scaling)", "07_beyond", _yarn_cases, _yarn_ref,
                  [("slowest pair interpolated", _prop_yarn_ends), ("between θ/factor and θ", _prop_yarn_between)],
                  _yarn_mistakes(), _yarn_structure, _yarn_compare))
    t.append(Task("attention", "fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0) -> [b, h, L, d]",
                  "04_rope", _attention_cases, _ref_attention,
                  [("causal: no query sees a later key", _prop_attention_causal)], _attention_mistakes(),
                  _attention_structure))
    return t


_TASKS: dict[str, Task] = {}


def _tasks() -> dict[str, Task]:
    if not _TASKS:
        _TASKS.update({task.name: task for task in _task_list()})
    return _TASKS


#: The task names ``check`` accepts, in the book's order.
TASKS: tuple[str, ...] = ("sinusoidal_encoding", "sinusoidal_concat", "learned_lookup", "shaw_relative_index",
                          "shaw_attention", "t5_relative_bucket", "t5_causal_bucket", "rope_inv_freq", "rope_cos_sin",
                          "apply_rope_half", "apply_rope_interleaved", "apply_rope_offset", "alibi_slopes",
                          "alibi_bias", "pi_inv_freq", "ntk_inv_freq", "yarn_inv_freq", "attention")


def reference(task: str) -> Callable:
    """The reference solution of ``task`` (a posenc function or a few lines around one)."""
    return _tasks()[_check_task(task)].reference


def _check_task(task: Any) -> str:
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")
    return task


# ---------------------------------------------------------------------------------------------
# running a learner's function
def _describe(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}"[:200] if msg else type(exc).__name__


def _raised_in(exc: BaseException, fn: Callable) -> str:
    """The name of the function whose body raised ``exc``, when it is not ``fn`` itself (a helper the learner
    has not written yet); "" otherwise."""
    tb, name = exc.__traceback__, ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    own = getattr(fn, "__name__", "")
    if not name or name == own or name.startswith("<"):
        return ""
    return f"{name}()"


def _refusal(exc: BaseException) -> str:
    if isinstance(exc, AssertionError):
        return ("refused with assert (AssertionError), as nanoGPT does: asserts vanish under python -O, and the "
                "task asks for ValueError or IndexError")
    return f"raised {type(exc).__name__} ({str(exc).strip()[:120]}) where it must refuse with ValueError or IndexError"


def _call(fn: Callable, case: Case) -> Any:
    return fn(*_clone(case.args), **_clone(case.kwargs))


def _equal_output(task: Task, case: Case, a: Any, b: Any) -> bool:
    if isinstance(a, _Crash) or isinstance(b, _Crash):
        return isinstance(a, _Crash) and isinstance(b, _Crash)
    cmp = task.compare or (lambda c, o, e: _close(o, e, c.tol))
    try:
        return cmp(case, a, b) is None
    except Exception:  # noqa: BLE001
        return False


def _expected(task: Task) -> tuple[list, list]:
    if task._expected is None:
        cases = task.cases()
        exp = []
        for c in cases:
            try:
                exp.append(task.structure(c, _call(task.reference, c)))
            except (ValueError, IndexError) as e:
                exp.append(_Crash(_describe(e)))
        task._expected = exp
        mistaken = []
        for text, wrong in task.mistakes:
            outs = []
            for c in cases:
                try:
                    outs.append(task.structure(c, _call(wrong, c)))
                except Exception as e:  # noqa: BLE001
                    outs.append(_Crash(_describe(e)))
            mistaken.append((text, outs))
        task._mistaken = mistaken
    return task._expected, task._mistaken


def check(task: str, fn: Callable) -> Report:
    """Run ``fn`` over the sweep of ``task`` and report what holds, what fails and why.

    Args:
        task (str): one of ``TASKS``.
        fn: the learner's implementation (a callable), with the task's signature.

    Returns:
        Report: ``.passed``, ``.diagnoses`` (empty when passed), one row per property; shows as a
        table in Jupyter.

    Raises:
        ValueError: ``task`` is not one of ``TASKS`` (the message lists them).
        TypeError: ``fn`` is not callable.

    Nothing else raises: a wrong or crashing ``fn`` gives a failed report.
    """
    _check_task(task)
    if not callable(fn):
        raise TypeError(f"fn must be a callable (your function), got {type(fn).__name__}")
    t = _tasks()[task]
    cases = t.cases()
    expected, mistaken = _expected(t)
    report = Report(task, n_cases=len(cases))
    runs = Row("runs on every input, returns the right type and shape")
    props = [Row(name) for name, _ in t.properties]
    match = Row("matches posenc")
    outs: list[Any] = []
    evaluated = {runs.name}

    def run(*args, **kwargs):
        out = fn(*_clone(args), **_clone(kwargs))
        if isinstance(out, tuple):
            return tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in out)
        return out.detach() if isinstance(out, torch.Tensor) else out

    def fail(row: Row, case: Case, detail: str) -> None:
        if row.ok is not False:
            row.ok, row.where, row.detail = False, case.label, detail

    with torch.no_grad():
        for case, exp in zip(cases, expected):
            try:
                raw = run(*case.args, **case.kwargs)
            except NotImplementedError as e:
                return Report(task, implemented=False, diagnoses=[NOT_IMPLEMENTED], n_cases=len(cases),
                              raised_in=_raised_in(e, fn))
            except Exception as e:  # noqa: BLE001 — the learner's code may raise anything
                outs.append(_Crash(_describe(e)))
                if case.expect_error:
                    if not isinstance(e, (ValueError, IndexError)):
                        fail(runs, case, _refusal(e))
                    continue
                fail(runs, case, f"raised {_describe(e)}")
                continue
            if case.expect_error:
                try:
                    outs.append(t.structure(case, raw))
                except Exception:  # noqa: BLE001
                    outs.append(None)
                fail(runs, case, "returned a result where it must raise (ValueError or IndexError)")
                continue
            try:
                out = t.structure(case, raw)
            except _Wrong as e:
                outs.append(None)
                fail(runs, case, str(e))
                continue
            except Exception as e:  # noqa: BLE001
                outs.append(None)
                fail(runs, case, f"unusable result ({_describe(e)})")
                continue
            outs.append(out)
            evaluated.add("match")
            for row, (_, prop) in zip(props, t.properties):
                evaluated.add(row.name)
                if row.ok is False:
                    continue
                try:
                    msg = prop(case, out, run)
                except Exception as e:  # noqa: BLE001
                    msg = f"checking it raised {_describe(e)}"
                if msg:
                    fail(row, case, msg)
            cmp = t.compare or (lambda c, o, e: _close(o, e, c.tol))
            try:
                msg = cmp(case, out, exp)
            except Exception as e:  # noqa: BLE001
                msg = f"cannot compare ({_describe(e)})"
            if msg:
                fail(match, case, msg)
    for row in [runs, *props, match]:
        if row.ok is None and (row.name in evaluated or (row is match and "match" in evaluated)):
            row.ok = True
    report.rows = [runs, *props, match]
    if report.passed:
        return report
    report.diagnoses = _diagnose(t, cases, outs, expected, mistaken, report.rows)
    return report


def _diagnose(t: Task, cases, outs, expected, mistaken, rows) -> list[str]:
    """Name the known mistake whose output the learner's matches on every input; else say what failed."""
    usable = [i for i, o in enumerate(outs) if o is not None]
    differing = [i for i in usable if not _equal_output(t, cases[i], outs[i], expected[i])]
    found = []
    if differing:
        for text, m_outs in mistaken:
            if all(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in differing) and \
                    sum(_equal_output(t, cases[i], outs[i], m_outs[i]) for i in usable) >= len(usable) - 0:
                found.append(text)
                break
        if not found:
            _CURRENT[0] = t.name
            found += [text for text, detect in t.detectors if _safe(detect, cases, outs, usable)][:1]
    if found:
        return found
    nan = _nan_where_finite(t, cases, outs, expected, usable)
    if nan:
        return [nan]
    crashes = [i for i, o in enumerate(outs) if isinstance(o, _Crash) and not cases[i].expect_error]
    if crashes:
        i = crashes[0]
        return [f"your function raised {outs[i]} at {cases[i].label}"]
    if rows[0].ok is False:  # wrong type, shape or dtype, or no refusal: the row says what to change
        return [rows[0].detail]
    return [UNKNOWN]


UNKNOWN = "not one of the mistakes the checker knows; see the failing rows"


def _nonfinite(out) -> list:
    """Flatten an output into (name, float64 tensor) parts."""
    if isinstance(out, (tuple, list)):
        names = ("cos", "sin") if len(out) == 2 and all(isinstance(o, torch.Tensor) for o in out) else \
            ("inv_freq", "attention_scaling")
        return [(n, _f64(o)) for n, o in zip(names, out)]
    return [("the result", _f64(out))]


def _nan_where_finite(t: Task, cases, outs, expected, usable) -> str | None:
    """The first input where the learner's output holds NaN or an infinity and posenc's does not."""
    for i in usable:
        o, e = outs[i], expected[i]
        if isinstance(o, _Crash) or isinstance(e, _Crash):
            continue
        for (name, a), (_, b) in zip(_nonfinite(o), _nonfinite(e)):
            if a.shape != b.shape:
                continue
            bad = ~torch.isfinite(a) & torch.isfinite(b)
            if bool(bad.any()):
                idx = [int(j) for j in torch.nonzero(bad)[0]] if a.dim() else []
                what = "NaN" if bool(torch.isnan(a[bad]).any()) else "an infinity"
                at = f" at index {idx}" if idx else ""
                return (f"your output contains {what}: {name}{at} at {cases[i].label}, where posenc's is finite "
                        "(look for a division by zero, 0/0, or a value past float16's range)")
    return None


def _lowp(kind: str, what: str = "angles"):
    """A detector: the result is off from posenc by a relative error of float16 (2^-11 per rounding) or
    bfloat16 (2^-8) rounding, the kind of error low-precision angles or frequencies leave."""
    limit = {"float16": (2e-5, 1.6e-3), "bfloat16": (1.6e-3, 5e-2)}[kind]

    def detect(cases, outs, usable):
        t = _tasks()[_CURRENT[0]]
        expected, _ = _expected(t)
        worst, nan_where_finite, n_ok = 0.0, False, 0
        for i in usable:
            if isinstance(outs[i], _Crash) or isinstance(expected[i], _Crash):
                continue
            ang_o, ang_e = _angles_of(t.name, outs[i]), _angles_of(t.name, expected[i])
            if ang_o is None:
                return False
            lost = ~torch.isfinite(ang_o)
            if t.name not in _ANGLE_TASKS:  # float16 overflow: base ** x = inf, 1 / inf = 0
                lost |= (ang_o == 0) & (ang_e != 0)
            lost &= torch.isfinite(ang_e)
            nan_where_finite |= bool(lost.any())
            ok = ~lost & torch.isfinite(ang_o) & torch.isfinite(ang_e) & (ang_e.abs() > 1e-3)
            if t.name in _ANGLE_TASKS:  # compare angles modulo 2 pi, relative to the angle itself
                diff = torch.remainder(ang_o - ang_e + math.pi, 2 * math.pi) - math.pi
            else:
                diff = ang_o - ang_e
            n_ok += int(ok.sum())
            if ok.any():
                worst = max(worst, float((diff.abs()[ok] / ang_e.abs()[ok]).max()))
        lo, hi = limit
        if n_ok == 0:  # nothing finite to compare (an all-NaN output is not a precision problem)
            return False
        if kind == "float16" and nan_where_finite:  # float16 overflow past 65504 leaves inf/NaN
            return 2.0**-14 < worst < hi
        return lo < worst < hi

    return (f"{what} computed in {kind}", detect)


_CURRENT = [""]
_ANGLE_TASKS = ("sinusoidal_encoding", "rope_cos_sin")


def _angles_of(task: str, out) -> torch.Tensor | None:
    """The quantity whose relative error reveals low precision: frequencies, or the angles behind cos/sin
    (recovered with atan2, so only modulo 2 pi; the expected angle p * theta tells which turn)."""
    if task in ("rope_inv_freq", "pi_inv_freq", "ntk_inv_freq", "alibi_slopes"):
        return _f64(out)
    if task == "rope_cos_sin":
        return torch.atan2(_f64(out[1]), _f64(out[0]))
    if task == "sinusoidal_encoding":
        o = _f64(out)
        return torch.atan2(o[..., 0::2], o[..., 1::2])
    return None


def _safe(detect, cases, outs, usable) -> bool:
    try:
        return bool(detect(cases, outs, usable))
    except Exception:  # noqa: BLE001
        return False
