"""The query/key grid: lengths, the distances ``key_pos - query_pos`` and spreading per-distance values
over the grid.

Queries are aligned at the end of the keys: query ``i`` of ``Lq`` sits at key position
``Lk - Lq + i``, so the distance of entry ``[i, j]`` is ``j - i - (Lk - Lq)`` (negative: a key in the past).
"""

from __future__ import annotations

import torch

from .validate import check_int, check_size


def lengths(
    q_len: int,
    k_len: int | None,
    *,
    lead: tuple[int, ...] = (),
    item_bytes: int = 8,
    names: tuple[str, str] = ("q_len", "k_len"),
) -> tuple[int, int]:
    """Validated ``(Lq, Lk)``; refuses a ``[*lead, Lq, Lk]`` result of ``item_bytes`` per entry above the limit."""
    q_len = check_int(names[0], q_len, min_value=0)
    k_len = q_len if k_len is None else check_int(names[1], k_len, min_value=q_len)
    # the message is formatted only on failure: a compiled forward would otherwise specialise to the lengths
    check_size(lambda: f"{names[0]}={q_len}, {names[1]}={k_len}", None, (*lead, q_len, k_len), item_bytes=item_bytes)
    return q_len, k_len


def query_positions(
    q_len: int, k_len: int, *, device: torch.device | str | None = None, dtype: torch.dtype = torch.int64
) -> torch.Tensor:
    """Key position of each query, aligned at the end of the keys: ``Lk - Lq .. Lk - 1``, ``[Lq]``."""
    return torch.arange(k_len - q_len, k_len, device=device, dtype=dtype)


def relative(q_len: int, k_len: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """``key_pos - query_pos`` on the grid, int64 ``[Lq, Lk]`` (negative: a key in the past)."""
    return torch.arange(k_len, device=device)[None, :] - query_positions(q_len, k_len, device=device)[:, None]


def future(q_len: int, k_len: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Bool ``[Lq, Lk]``, True where the key is after the query (what causal attention masks)."""
    return torch.arange(k_len, device=device)[None, :] > query_positions(q_len, k_len, device=device)[:, None]


def causal(q_len: int, k_len: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Bool ``[Lq, Lk]``, True where a causal query may attend (the key is not after it)."""
    return torch.arange(k_len, device=device)[None, :] <= query_positions(q_len, k_len, device=device)[:, None]


def distance_range(
    q_len: int, k_len: int, *, device: torch.device | str | None = None, dtype: torch.dtype = torch.int64
) -> torch.Tensor:
    """Every value ``key_pos - query_pos`` takes, in order: ``-(Lk - 1) .. Lq - 1``, ``[Lq + Lk - 1]``."""
    return torch.arange(-(k_len - 1), max(q_len, 1 - k_len), device=device, dtype=dtype)  # empty if Lq = Lk = 0


def toeplitz(values: torch.Tensor, q_len: int, k_len: int) -> torch.Tensor:
    """Spread per-distance values over the query/key grid: ``[..., Lq + Lk - 1]`` -> ``[..., Lq, Lk]``.

    ``values[..., n]`` belongs to the distance ``n - (Lk - 1)`` (the order of ``distance_range``);
    entry ``[i, j]`` of the result is the value of ``j - i - (Lk - Lq)``, the distance of
    :func:`relative_positions`. A bias that depends on the distance only is constant along each
    diagonal, so it is built from ``Lq + Lk - 1`` numbers per head: ``unfold`` makes overlapping
    windows (a view), and indexing writes the rows, in reverse, into the one contiguous
    ``[..., Lq, Lk]`` result. No ``[Lq, Lk]`` distance or index tensor is made in eager mode (a
    compiled graph gathers by an index that a compiler such as inductor fuses into the gather).
    Differentiable in ``values``.
    """
    if q_len == 0 or k_len == 0:
        return values.new_empty(*values.shape[:-1], q_len, k_len)
    if torch.compiler.is_compiling():
        # the same entries by index (a compiler fuses the index arithmetic into the gather): unfold would
        # specialise the graph to this k_len, and as_strided's backward to the storage size
        index = torch.arange(q_len - 1, -1, -1, device=values.device)[:, None] + torch.arange(
            k_len, device=values.device
        )
        return values[..., index]  # [..., Lq, Lk]
    windows = values.contiguous().unfold(-1, k_len, 1)  # [..., Lq, Lk] view; window a: distances a-(Lk-1) ..
    rows = torch.arange(q_len - 1, -1, -1, device=values.device)  # query i reads window Lq - 1 - i
    return windows[..., rows, :]  # one contiguous copy (index_select would first copy the windows)
