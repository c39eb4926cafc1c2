"""Argument checks shared by the public functions.

Every public function in posenc validates its arguments once, with these helpers, so that bad
input fails early with a message that names the parameter the caller passed and the allowed range.
Private cores (names starting with ``_``) trust their inputs.

Sizes are bounded by memory: :func:`check_size` refuses, before anything is allocated, a result
larger than :data:`MAX_TENSOR_BYTES`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Sequence

import torch

__all__ = [
    "check_int",
    "check_even",
    "check_float",
    "check_choice",
    "check_tensor",
    "check_dtype",
    "check_size",
    "MAX_TENSOR_BYTES",
]

#: The largest tensor (in bytes) a posenc function agrees to build: 8 GiB. A size argument whose
#: result would be larger is refused with a ``ValueError`` before any allocation.
MAX_TENSOR_BYTES = 8 * 2**30


def check_int(name: str, value: Any, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``value`` as an ``int`` or raise.

    Raises:
        TypeError: ``value`` is not an integer (``bool`` and floats are rejected).
        ValueError: ``value`` lies outside ``[min_value, max_value]``.
    """
    if isinstance(value, torch.Tensor) and value.ndim == 0 and not value.is_floating_point():
        value = int(value.item())
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r})")
    value = int(value)
    if min_value is not None and value < min_value:
        raise ValueError(f"{name} must be >= {min_value}{_upper(max_value)}, got {value}")
    if max_value is not None and value > max_value:
        raise ValueError(f"{name} must be <= {max_value}, got {value}")
    return value


def _upper(max_value: int | None) -> str:
    return "" if max_value is None else f" and <= {max_value}"


def check_even(name: str, value: Any, *, min_value: int = 2, max_value: int | None = None) -> int:
    """Return ``value`` as an even ``int`` >= ``min_value`` or raise ``TypeError``/``ValueError``."""
    value = check_int(name, value, min_value=min_value, max_value=max_value)
    if value % 2:
        raise ValueError(f"{name} must be even (sin/cos or rotation pairs), got {value}")
    return value


def check_float(
    name: str,
    value: Any,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> float:
    """Return ``value`` as a finite ``float`` or raise.

    ``gt``/``ge``/``le`` are the exclusive lower, inclusive lower and inclusive upper bounds.
    """
    if isinstance(value, torch.Tensor) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r})")
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be finite, got {value}")
    if gt is not None and not value > gt:
        raise ValueError(f"{name} must be > {gt:g}, got {value:g}")
    if ge is not None and not value >= ge:
        raise ValueError(f"{name} must be >= {ge:g}, got {value:g}")
    if le is not None and not value <= le:
        raise ValueError(f"{name} must be <= {le:g}, got {value:g}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {choices}, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_tensor(name: str, value: Any, *, ndim: int | None = None, min_ndim: int | None = None,
                 floating: bool | None = None, finite: bool = False) -> torch.Tensor:
    """Check that ``value`` is a tensor with the expected rank and kind.

    ``floating=True``: a floating dtype; ``floating=False``: an integer dtype other than bool;
    ``finite=True``: no NaN or inf entries.
    """
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(value.shape)}")
    if min_ndim is not None and value.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {tuple(value.shape)}")
    if floating is True and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if floating is False and (value.is_floating_point() or value.is_complex() or value.dtype == torch.bool):
        raise TypeError(f"{name} must be an integer tensor (not bool), got dtype {value.dtype}")
    if finite and value.is_floating_point() and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def check_dtype(name: str, value: Any, *, floating: bool = True) -> torch.dtype:
    """Return ``value`` if it is a ``torch.dtype`` of the right kind, else raise ``TypeError``.

    ``floating=True`` accepts the floating dtypes (float16, bfloat16, float32, float64);
    ``floating=False`` the signed integer dtypes and the floating ones (a signed distance), not
    bool, unsigned or complex.
    """
    if not isinstance(value, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype, got {type(value).__name__} ({value!r})")
    ok = value.is_floating_point or (not floating and value in (torch.int16, torch.int32, torch.int64))
    if not ok:
        kind = "a floating dtype" if floating else "a signed integer or floating dtype"
        raise TypeError(f"{name} must be {kind}, got {value}")
    return value


def check_size(name: str, value: Any, shape: Sequence[int], *, item_bytes: int = 4) -> None:
    """Refuse a result of ``shape`` (``item_bytes`` per entry) above :data:`MAX_TENSOR_BYTES`.

    ``name=value`` is the argument the caller passed that sets the size; it is named in the message
    (``value=None``: ``name`` already says it all, e.g. ``"q_len=5, k_len=7"``). Call it before allocating.
    """
    n_bytes = math.prod([int(s) for s in shape]) * item_bytes  # a list: torch.compile traces it
    if n_bytes > MAX_TENSOR_BYTES:
        given = name if value is None else f"{name}={value}"
        raise ValueError(
            f"{given} asks for a tensor of shape {tuple(int(s) for s in shape)} "
            f"({n_bytes / 2**30:.3g} GiB); posenc refuses results above {MAX_TENSOR_BYTES / 2**30:g} GiB "
            f"(posenc._core.validate.MAX_TENSOR_BYTES): pass a smaller {name.split('=')[0]}"
        )
