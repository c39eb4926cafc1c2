"""The Practice tasks, built in one place: :data:`TASKS` (the names ``check`` accepts, in the book's
order) and the :class:`~posenc.practice.framework.Task` of each, built on first use.

Tasks (each ``fn`` has the signature and semantics of the posenc function it mirrors):

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
"""

from __future__ import annotations

from typing import Any

from .. import alibi_slopes, rope_inv_freq, shaw_relative_index, t5_relative_bucket
from .framework import Task
from .precision import _lowp, _other_base
from .tasks_absolute import (
    _concat_cases,
    _concat_mistakes,
    _learned_cases,
    _learned_mistakes,
    _learned_structure,
    _prop_row0,
    _prop_row0_concat,
    _prop_unit_pairs_interleaved,
    _read_frequencies,
    _ref_learned,
    _ref_sin,
    _ref_sin_concat,
    _rows_at_positions,
    _rows_drift,
    _sin_cases,
    _sin_mistakes,
    _sin_structure,
)
from .tasks_alibi import (
    _bias_cases,
    _bias_finite_mask,
    _bias_linear,
    _bias_mistakes,
    _bias_row_shift,
    _bias_row_slopes,
    _bias_structure,
    _prop_bias_diag,
    _prop_causal_inf,
    _prop_slopes_geometric,
    _prop_slopes_positive,
    _ref_bias,
    _slopes_cases,
    _slopes_geometric,
    _slopes_linear,
    _slopes_power,
    _slopes_structure,
    _slopes_variants,
)
from .tasks_attention import (
    _attention_cases,
    _attention_lowp,
    _attention_mistakes,
    _attention_structure,
    _finite_mask,
    _finite_mask_of,
    _prop_attention_causal,
    _ref_attention,
)
from .tasks_relative import (
    _prop_shaw_causal,
    _prop_shaw_range,
    _prop_t5_monotone,
    _prop_t5_range,
    _prop_toeplitz,
    _ref_shaw_attention,
    _shaw_attn_cases,
    _shaw_attn_mistakes,
    _shaw_attn_structure,
    _shaw_attn_variant,
    _shaw_cases,
    _shaw_lowp,
    _shaw_mistakes,
    _shaw_scale,
    _shaw_shift_clip,
    _shaw_structure,
    _t5_cases,
    _t5_causal_cases,
    _t5_causal_mistakes,
    _t5_causal_ref,
    _t5_future,
    _t5_mistakes,
    _t5_negated,
    _t5_structure,
)
from .tasks_rope import (
    _apply_cases,
    _apply_grid,
    _apply_mistakes,
    _apply_structure,
    _cs_cases,
    _cs_mistakes,
    _cs_structure,
    _inv_cases,
    _inv_mistakes,
    _inv_structure,
    _offset_cases,
    _offset_mistakes,
    _offset_positions,
    _offset_structure,
    _partial_rotary,
    _prop_first_one,
    _prop_geometric,
    _prop_halves,
    _prop_norm,
    _prop_offset_consistent,
    _prop_relative,
    _prop_unit,
    _ref_apply,
    _ref_cs,
    _ref_offset,
    _rolled_partner,
    _scaled_output,
    _signed_partner,
)
from .tasks_scaling import (
    _ntk_effective_base,
    _ntk_mistakes,
    _pi_divisor,
    _pi_mistakes,
    _prop_ntk_first,
    _prop_ntk_last,
    _prop_pi_last,
    _prop_yarn_between,
    _prop_yarn_ends,
    _ref_ntk,
    _ref_pi,
    _rel_compare,
    _scaled_cases,
    _scaled_structure,
    _yarn_cases,
    _yarn_compare,
    _yarn_lowp,
    _yarn_mistakes,
    _yarn_ref,
    _yarn_structure,
)

__all__ = ["TASKS"]


def _task_list() -> list[Task]:
    t = []
    t.append(
        Task(
            "sinusoidal_encoding",
            "fn(seq_len, d_model, base=10000.0) -> [seq_len, d_model]",
            "02_absolute",
            _sin_cases,
            _ref_sin,
            [
                ("position 0 is [0, 1, 0, 1, ...]", _prop_row0),
                ("columns (2i, 2i+1) are (sin, cos) pairs", _prop_unit_pairs_interleaved),
            ],
            _sin_mistakes(),
            _sin_structure,
            detectors=[
                _lowp("float16"),
                _lowp("bfloat16"),
                _lowp("float16", fixed_base=10000.0),
                _lowp("bfloat16", fixed_base=10000.0),
                ("angles from another base", _other_base),
                ("rows at other positions", _rows_at_positions),
                ("values drift from posenc's as the position grows", _rows_drift),
                ("other frequencies", _read_frequencies),
            ],
        )
    )
    t.append(
        Task(
            "sinusoidal_concat",
            "fn(seq_len, d_model, base=10000.0) -> [seq_len, d_model]",
            "02_absolute",
            _concat_cases,
            _ref_sin_concat,
            [("position 0 is [0, ..., 0, 1, ..., 1]", _prop_row0_concat)],
            _concat_mistakes(),
            _sin_structure,
            detectors=[
                _lowp("float16"),
                _lowp("bfloat16"),
                ("rows at other positions", _rows_at_positions),
                ("values drift from posenc's as the position grows", _rows_drift),
                ("other frequencies", _read_frequencies),
            ],
        )
    )
    t.append(
        Task(
            "learned_lookup",
            "fn(table, positions) -> table[positions]",
            "02_absolute",
            _learned_cases,
            _ref_learned,
            [],
            _learned_mistakes(),
            _learned_structure,
        )
    )
    t.append(
        Task(
            "shaw_relative_index",
            "fn(q_len, max_distance) -> int64 [q_len, q_len]",
            "03_relative",
            _shaw_cases,
            lambda L, k: shaw_relative_index(L, k),
            [("indices in [0, 2k]", _prop_shaw_range), ("depends on j − i only", _prop_toeplitz)],
            _shaw_mistakes(),
            _shaw_structure,
            detectors=[("index shifted or clipped otherwise than Shaw's", _shaw_shift_clip)],
        )
    )
    t.append(
        Task(
            "shaw_attention",
            "fn(q, k, v, rel_k, rel_v) -> [..., L, d], causal",
            "03_relative",
            _shaw_attn_cases,
            _ref_shaw_attention,
            [("causal: no query sees a later key", _prop_shaw_causal)],
            _shaw_attn_mistakes(),
            _shaw_attn_structure,
            detectors=[
                ("wrong score scale", _shaw_scale),
                (
                    "causal mask filled with a finite value instead of −inf",
                    _finite_mask_of(_shaw_attn_variant, (False,)),
                ),
                ("computed in a lower precision", _shaw_lowp),
            ],
        )
    )
    t.append(
        Task(
            "t5_relative_bucket",
            "fn(relative_position, bidirectional=True, num_buckets=32, max_distance=128) -> int64 buckets",
            "03_relative",
            _t5_cases,
            lambda r, **kw: t5_relative_bucket(r, **kw),
            [("buckets in [0, num_buckets)", _prop_t5_range), ("buckets grow with distance", _prop_t5_monotone)],
            _t5_mistakes(),
            _t5_structure,
            detectors=[("buckets negated", _t5_negated)],
        )
    )
    t.append(
        Task(
            "t5_causal_bucket",
            "fn(relative_position, num_buckets=32, max_distance=128) -> int64 buckets",
            "03_relative",
            _t5_causal_cases,
            _t5_causal_ref,
            [("buckets in [0, num_buckets)", _prop_t5_range)],
            _t5_causal_mistakes(),
            _t5_structure,
            detectors=[("buckets negated", _t5_negated), ("keys after the query not in bucket 0", _t5_future)],
        )
    )
    t.append(
        Task(
            "rope_inv_freq",
            "fn(head_dim, base=10000.0) -> [head_dim // 2]",
            "04_rope",
            _inv_cases,
            lambda d, b=1e4: rope_inv_freq(d, b),
            [("θ_0 = 1", _prop_first_one), ("geometric: θ_{i+1}/θ_i = base^(-2/d)", _prop_geometric)],
            _inv_mistakes(),
            _inv_structure,
            _rel_compare,
            detectors=[
                _lowp("float16", "frequencies"),
                _lowp("bfloat16", "frequencies"),
                _lowp("float16", "frequencies", flipped=True),
                _lowp("bfloat16", "frequencies", flipped=True),
            ],
        )
    )
    t.append(
        Task(
            "rope_cos_sin",
            "fn(positions, head_dim, base=10000.0) -> (cos, sin), each [n, head_dim]",
            "04_rope",
            _cs_cases,
            _ref_cs,
            [("cos² + sin² = 1", _prop_unit), ("half layout: cat([a, a])", _prop_halves)],
            _cs_mistakes(),
            _cs_structure,
            detectors=[
                _lowp("float16"),
                _lowp("bfloat16"),
                _lowp("float16", fixed_base=10000.0),
                _lowp("bfloat16", fixed_base=10000.0),
                ("angles from another base", _other_base),
                ("values drift from posenc's as the position grows", _rows_drift),
            ],
        )
    )
    for layout in ("half", "interleaved"):
        t.append(
            Task(
                f"apply_rope_{layout}",
                "fn(x, cos, sin) -> x rotated, same shape and dtype",
                "04_rope",
                (lambda lay: lambda: _apply_cases(lay))(layout),
                _ref_apply(layout),
                [
                    ("keeps the length of every pair", _prop_norm(layout)),
                    ("relative: q_m·k_n depends on n − m only", _prop_relative(layout)),
                ],
                _apply_mistakes(layout),
                _apply_structure,
                detectors=[
                    ("computed in a lower precision than x's", _apply_grid),
                    ("the right output times a constant", _scaled_output(_ref_apply(layout))),
                    ("the rotated partner built with torch.roll", _rolled_partner(layout)),
                    ("only a leading part of the head rotated", _partial_rotary(layout)),
                    ("the rotated partner another signed coordinate", _signed_partner(layout)),
                ],
                stale=(("cos", "sin"),),
            )
        )
    t.append(
        Task(
            "apply_rope_offset",
            "fn(x, offset, base=10000.0) -> x rotated at positions offset, offset+1, ...",
            "04_rope",
            _offset_cases,
            _ref_offset,
            [("a decode step matches the full sequence", _prop_offset_consistent)],
            _offset_mistakes(),
            _offset_structure,
            detectors=[
                ("rows rotated to other positions", _offset_positions),
                ("the right output times a constant", _scaled_output(_ref_offset)),
            ],
            stale=("offset",),
        )
    )
    t.append(
        Task(
            "alibi_slopes",
            "fn(n_heads) -> [n_heads]",
            "06_alibi",
            _slopes_cases,
            lambda n: alibi_slopes(n),
            [
                ("positive", _prop_slopes_positive),
                ("power-of-two counts: geometric, r = 2^(-8/n)", _prop_slopes_geometric),
            ],
            _slopes_variants(),
            _slopes_structure,
            detectors=[
                ("ALiBi slopes linear in the head index", _slopes_linear),
                _lowp("float16", "slopes"),
                _lowp("bfloat16", "slopes"),
                ("slopes geometric with another start or ratio", _slopes_geometric),
                ("slopes get_slopes' raised to a power", _slopes_power),
            ],
        )
    )
    t.append(
        Task(
            "alibi_bias",
            "fn(n_heads, q_len) -> [n_heads, q_len, q_len], causal",
            "06_alibi",
            _bias_cases,
            _ref_bias,
            [
                ("−inf exactly where the key is after the query", _prop_causal_inf),
                ("0 on the diagonal", _prop_bias_diag),
            ],
            _bias_mistakes(),
            _bias_structure,
            detectors=[
                ("bias shifted by a constant in each row", _bias_row_shift),
                ("slope indexed by the query row", _bias_row_slopes),
                ("ALiBi slopes linear in the head index", _bias_linear),
                ("masked with a large finite number instead of −inf", _bias_finite_mask),
            ],
        )
    )
    t.append(
        Task(
            "pi_inv_freq",
            "fn(head_dim, base, factor) -> [head_dim // 2]",
            "07_beyond",
            _scaled_cases,
            _ref_pi,
            [("θ_0 = 1/factor", _prop_pi_last)],
            _pi_mistakes(),
            _scaled_structure,
            _rel_compare,
            detectors=[
                _lowp("float16", "frequencies"),
                _lowp("bfloat16", "frequencies"),
                ("RoPE frequencies divided by another number", _pi_divisor),
            ],
        )
    )
    t.append(
        Task(
            "ntk_inv_freq",
            "fn(head_dim, base, factor) -> [head_dim // 2]",
            "07_beyond",
            _scaled_cases,
            _ref_ntk,
            [("θ_0 = 1", _prop_ntk_first), ("slowest pair interpolated by the factor", _prop_ntk_last)],
            _ntk_mistakes(),
            _scaled_structure,
            _rel_compare,
            detectors=[
                _lowp("float16", "frequencies"),
                _lowp("bfloat16", "frequencies"),
                ("RoPE frequencies with another base", _ntk_effective_base),
            ],
        )
    )
    t.append(
        Task(
            "yarn_inv_freq",
            "fn(head_dim, base, factor, original_max_position_embeddings, beta_fast=32.0, "
            "beta_slow=1.0) -> (inv_freq [head_dim // 2], attention_scaling)",
            "07_beyond",
            _yarn_cases,
            _yarn_ref,
            [
                ("slowest pair interpolated (when high ≤ d/2 − 1)", _prop_yarn_ends),
                ("between θ/factor and θ", _prop_yarn_between),
            ],
            _yarn_mistakes(),
            _yarn_structure,
            _yarn_compare,
            detectors=[_yarn_lowp("float16"), _yarn_lowp("bfloat16")],
        )
    )
    t.append(
        Task(
            "attention",
            "fn(q, k, v, cos=None, sin=None, bias=None, attention_scaling=1.0) -> [b, h, L, d]",
            "04_rope",
            _attention_cases,
            _ref_attention,
            [("causal: no query sees a later key", _prop_attention_causal)],
            _attention_mistakes(),
            _attention_structure,
            stale=("k", "v", "q"),
            detectors=[
                ("causal mask filled with a finite value instead of −inf", _finite_mask),
                ("computed in a lower precision", _attention_lowp),
            ],
        )
    )
    return t


_TASKS: dict[str, Task] = {}


def _tasks() -> dict[str, Task]:
    if not _TASKS:
        _TASKS.update({task.name: task for task in _task_list()})
    return _TASKS


#: The task names ``check`` accepts, in the book's order.
TASKS: tuple[str, ...] = (
    "sinusoidal_encoding",
    "sinusoidal_concat",
    "learned_lookup",
    "shaw_relative_index",
    "shaw_attention",
    "t5_relative_bucket",
    "t5_causal_bucket",
    "rope_inv_freq",
    "rope_cos_sin",
    "apply_rope_half",
    "apply_rope_interleaved",
    "apply_rope_offset",
    "alibi_slopes",
    "alibi_bias",
    "pi_inv_freq",
    "ntk_inv_freq",
    "yarn_inv_freq",
    "attention",
)


def _check_task(task: Any) -> str:
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")
    return task
