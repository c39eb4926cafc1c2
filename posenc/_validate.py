"""Argument checks shared by the public functions.

Every public function in posenc validates its plain arguments with these helpers so that bad
input fails early with a message that names the parameter and the allowed range.
"""

from __future__ import annotations

import numbers
from typing import Any, Iterable

import torch

__all__ = [
    "check_int",
    "check_even",
    "check_float",
    "check_choice",
    "check_tensor",
]


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
                 floating: bool | None = None) -> torch.Tensor:
    """Check that ``value`` is a tensor with the expected rank and kind."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(value.shape)}")
    if min_ndim is not None and value.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {tuple(value.shape)}")
    if floating is True and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if floating is False and (value.is_floating_point() or value.is_complex()):
        raise TypeError(f"{name} must be an integer tensor, got dtype {value.dtype}")
    return value
