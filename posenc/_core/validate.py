"""Argument checks shared by the public functions.

Every public function in posenc validates its arguments once, with these helpers, so that bad
input fails early with a message that names the parameter the caller passed and the allowed range.
Private cores (names starting with ``_``) trust their inputs.

Sizes are bounded by memory: :func:`check_size` refuses, before anything is allocated, a result
larger than the limit in force, :func:`get_max_tensor_bytes` (8 GiB, :data:`MAX_TENSOR_BYTES`, unless a
user raised it with the public :func:`set_max_tensor_bytes` or :func:`max_tensor_bytes`).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import torch

__all__ = [
    "check_int",
    "check_even",
    "check_float",
    "check_choice",
    "check_tensor",
    "check_dtype",
    "check_size",
    "size_limit_hint",
    "MAX_TENSOR_BYTES",
    "get_max_tensor_bytes",
    "set_max_tensor_bytes",
    "max_tensor_bytes",
]

#: The default size limit: the largest tensor (in bytes) a posenc function agrees to build, 8 GiB. A
#: size argument whose result would be larger is refused with a ``ValueError`` before any allocation.
#: The limit in force is :func:`get_max_tensor_bytes`; users change it with :func:`set_max_tensor_bytes`.
MAX_TENSOR_BYTES = 8 * 2**30

_max_tensor_bytes = MAX_TENSOR_BYTES  # the limit in force (a module global: torch.compile guards on its value)


def get_max_tensor_bytes() -> int:
    """The size limit in force, in bytes: the largest tensor a posenc function agrees to build."""
    return _max_tensor_bytes


def set_max_tensor_bytes(n_bytes: int | None) -> int:
    """Set the size limit: posenc refuses, before allocating, any tensor larger than ``n_bytes``.

    The limit guards against a size argument that would exhaust memory (a typo of ``10**9`` tokens);
    raise it when the machine has the memory for a larger result. It is global to the process (every
    thread); compiled graphs that checked the old limit are recompiled.

    Args:
        n_bytes (int or None): the new limit (>= 1 byte); None restores the default, 8 GiB
            (``posenc._core.validate.MAX_TENSOR_BYTES``).

    Returns:
        int: the previous limit, to restore it later (or use the context manager :func:`max_tensor_bytes`).

    Example:
        >>> import posenc
        >>> previous = posenc.set_max_tensor_bytes(64 * 2**30)  # allow results up to 64 GiB
        >>> _ = posenc.set_max_tensor_bytes(previous)
    """
    global _max_tensor_bytes
    new = MAX_TENSOR_BYTES if n_bytes is None else check_int("n_bytes", n_bytes, min_value=1)
    previous, _max_tensor_bytes = _max_tensor_bytes, new
    return previous


@contextlib.contextmanager
def max_tensor_bytes(n_bytes: int | None) -> Iterator[int]:
    """Context manager: the size limit is ``n_bytes`` inside the ``with`` block (None: the default),
    restored on exit; yields the limit in force. See :func:`set_max_tensor_bytes`.

    Example:
        >>> import posenc
        >>> with posenc.max_tensor_bytes(2**40):  # a 1 TiB limit for this block only
        ...     pass
    """
    previous = set_max_tensor_bytes(n_bytes)
    try:
        yield _max_tensor_bytes
    finally:
        set_max_tensor_bytes(previous)


def _bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit up to GiB, 3 significant digits: ``8 GiB``, ``2.86e+03 GiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:g} bytes"


def size_limit_hint() -> str:
    """The end of every size error: the limit in force and how to raise it."""
    return (
        f"posenc refuses results above {_bytes(_max_tensor_bytes)}; raise the limit with "
        f"posenc.set_max_tensor_bytes(n_bytes) or `with posenc.max_tensor_bytes(n_bytes):` if the memory is there"
    )


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


def check_tensor(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    min_ndim: int | None = None,
    floating: bool | None = None,
    finite: bool = False,
) -> torch.Tensor:
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


def check_size(name: str | Callable[[], str], value: Any, shape: Sequence[int], *, item_bytes: int = 4) -> None:
    """Refuse a result of ``shape`` (``item_bytes`` per entry) above the limit in force
    (:func:`get_max_tensor_bytes`).

    ``name=value`` is the argument the caller passed that sets the size; it is named in the message
    (``value=None``: ``name`` already says it all, e.g. ``"q_len=5, k_len=7"``). Call it before allocating.
    ``name`` and ``value`` may be callables returning them, called only to write the message: a forward
    traced by ``torch.compile`` then formats no symbolic size (which would specialise the graph to it).
    """
    n_bytes = math.prod([int(s) for s in shape]) * item_bytes  # a list: torch.compile traces it
    if n_bytes > _max_tensor_bytes:
        name = name() if callable(name) else name
        value = value() if callable(value) else value
        given = name if value is None else f"{name}={value}"
        raise ValueError(
            f"{given} asks for a tensor of shape {tuple(int(s) for s in shape)} "
            f"({_bytes(n_bytes)}); {size_limit_hint()}; or pass a smaller {name.split('=')[0].split(' of shape')[0]}"
        )
