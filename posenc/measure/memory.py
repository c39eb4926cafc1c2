"""Memory counted, not sampled: the bytes of the tensors torch creates while a counter is active.

:class:`TensorMemory` (a ``TorchDispatchMode``) adds up the bytes of the tensors that torch's
operators return while it is active and subtracts them when they are freed. For a given PyTorch
version on the CPU, the count is the same on every machine, operating system, CPU and thread count
(it depends on the operators a call breaks into and on the shapes and dtypes of their tensors; another
PyTorch version or device may break a call into other operators), and it needs nothing Unix-only
(no ``/proc``, no ``resource``). What it does not
count: memory an operator's kernel allocates for its own use and frees before returning
(workspaces, per-thread buffers), the Python interpreter and the allocator's overhead.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from .timing import _check_callable

__all__ = ["MIB", "TensorMemory", "tensor_peak_mib", "reset_peak_rss", "current_rss_mib", "peak_rss_mib"]

MIB = 2**20


class TensorMemory(TorchDispatchMode):
    """Count the bytes of the tensors created while active: ``with TensorMemory() as m: ...``.

    A ``torch.utils._python_dispatch.TorchDispatchMode``: every tensor an ATen operator returns on a
    storage that did not exist before counts that storage's bytes (``storage.nbytes()``) until the
    last tensor counted on it is freed; views and in-place results count nothing new. ``m.current``
    is the bytes alive now, ``m.peak`` the most alive at once (both ints), ``m.peak_mib`` the peak
    in MiB. Tensors that existed before are not counted, so the peak is the extra memory of what ran
    inside. Not counted: what a kernel allocates and frees inside one operator (e.g. the per-thread
    buffers of PyTorch's CPU flash attention), Python objects, the allocator's overhead. For a given
    PyTorch version on the CPU, the same count on every machine (see the module docstring). Costs a
    Python call per operator: do not time code while it is active.
    """

    def __init__(self) -> None:
        super().__init__()
        self.current = 0  # bytes of the counted storages alive now
        self.peak = 0  # the most bytes alive at once since the start (or reset_peak)
        self._refs: dict[int, int] = {}  # storage address -> live tensors counted on it
        self._sizes: dict[int, int] = {}  # storage address -> its bytes

    @property
    def peak_mib(self) -> float:
        return self.peak / MIB

    def reset_peak(self) -> None:
        """Start the peak again from what is alive now."""
        self.peak = self.current

    def _release(self, key: int) -> None:
        refs = self._refs.get(key, 0) - 1
        if refs > 0:
            self._refs[key] = refs
        elif key in self._refs:
            del self._refs[key]
            self.current -= self._sizes.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        inputs = {
            t.untyped_storage().data_ptr()
            for t in tree_leaves((args, kwargs))
            if isinstance(t, torch.Tensor) and t.layout == torch.strided
        }
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if not isinstance(t, torch.Tensor) or t.layout != torch.strided:
                continue
            storage = t.untyped_storage()
            key = storage.data_ptr()
            if key in self._refs:  # a view (or in-place result) of a counted tensor
                self._refs[key] += 1
            elif key in inputs or key == 0:  # a storage that existed before (or an empty one)
                continue
            else:  # a new storage: counted
                self._refs[key], self._sizes[key] = 1, storage.nbytes()
                self.current += self._sizes[key]
                self.peak = max(self.peak, self.current)
            weakref.finalize(t, self._release, key).atexit = False
        return out


def tensor_peak_mib(fn: Callable[[], object]) -> float:
    """Extra peak memory of ``fn()`` in MiB: the most bytes of tensors created by ``fn`` that were
    alive at once (:class:`TensorMemory`; for a given PyTorch version on the CPU, the same on every machine).

    Args:
        fn: a callable taking no arguments; its result is dropped.
    """
    _check_callable("fn", fn)
    with TensorMemory() as counter:
        fn()
    return counter.peak_mib


#: The counter that :func:`reset_peak_rss` started (None: none active).
_GLOBAL_COUNTER = None


def reset_peak_rss() -> None:
    """Start counting the bytes of tensors created from now on (:class:`TensorMemory`), in this
    thread, until :func:`peak_rss_mib` is called; the peak starts at zero.

    Kept under its old name (it reset the process's resident-memory peak, a Linux-only ``/proc``
    write): the count is now torch's own and works on every platform.
    """
    global _GLOBAL_COUNTER
    if _GLOBAL_COUNTER is not None:
        _GLOBAL_COUNTER.__exit__(None, None, None)
    _GLOBAL_COUNTER = TensorMemory()
    _GLOBAL_COUNTER.__enter__()


def current_rss_mib() -> float:
    """MiB of the tensors created since :func:`reset_peak_rss` that are alive now (0.0 when no count
    was started)."""
    return _GLOBAL_COUNTER.current / MIB if _GLOBAL_COUNTER is not None else 0.0


def peak_rss_mib() -> float:
    """The most MiB of tensors created since :func:`reset_peak_rss` that were alive at once; stops
    that count (0.0 when none was started). For a given PyTorch version on the CPU, the same
    number on every machine (see :class:`TensorMemory`)."""
    global _GLOBAL_COUNTER
    if _GLOBAL_COUNTER is None:
        return 0.0
    counter, _GLOBAL_COUNTER = _GLOBAL_COUNTER, None
    counter.__exit__(None, None, None)
    return counter.peak_mib
