"""A "foreign platform" for the test stage `make nbval-foreign` (part of `make test`).

Put this folder first on PYTHONPATH and every Python process started with it (the pytest process,
each notebook kernel, and every subprocess they start, which inherit the variable) behaves, for
the two things that break chapters off Linux, as on macOS or Windows:

- ``import resource`` fails (``ModuleNotFoundError``), as on Windows, where that module does not exist;
- every read or listing of a path under ``/proc`` fails (``FileNotFoundError``), as on macOS and
  Windows, which have no ``/proc``: ``open``/``io.open`` (and so ``pathlib.Path.open``,
  ``read_text``, ``read_bytes``), ``os.open``, ``os.stat``/``lstat`` (and so ``os.path.exists``),
  ``os.listdir``, ``os.scandir``, ``os.readlink``.

It does not make the process a real macOS or Windows one: ``sys.platform`` is still ``linux``,
and reads made from C (torch, glibc, numpy) are untouched. Nothing is printed.
"""

import builtins
import importlib.abc
import io
import os
import sys

BLOCKED_MODULES = frozenset({"resource"})


class _Unavailable(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED_MODULES:
            raise ModuleNotFoundError(
                f"No module named {name!r} (foreign-platform stage: not on this platform)", name=name
            )
        return None


sys.modules.pop("resource", None)
sys.meta_path.insert(0, _Unavailable())


def _is_proc(path) -> bool:
    if isinstance(path, int):
        return False
    try:
        path = os.fspath(path)
    except TypeError:
        return False
    if isinstance(path, bytes):
        path = path.decode(errors="replace")
    path = os.path.normpath(os.path.join(_getcwd(), path)) if not path.startswith("/") else os.path.normpath(path)
    return path == "/proc" or path.startswith("/proc/")


_getcwd = os.getcwd


def _refuse(path):
    raise FileNotFoundError(2, "No such file or directory (foreign-platform stage: no /proc)", os.fspath(path))


def _guard(fn, first_arg_is_path=True):
    def guarded(*args, **kwargs):
        path = args[0] if args else kwargs.get("path", kwargs.get("file"))
        if path is not None and _is_proc(path):
            _refuse(path)
        return fn(*args, **kwargs)

    guarded.__name__ = getattr(fn, "__name__", "guarded")
    guarded.__doc__ = getattr(fn, "__doc__", None)
    guarded.__wrapped__ = fn
    return guarded


_open = _guard(io.open)
builtins.open = _open
io.open = _open
for _name in ("open", "stat", "lstat", "listdir", "scandir", "readlink"):
    if hasattr(os, _name):
        setattr(os, _name, _guard(getattr(os, _name)))
os.environ["POSENC_FOREIGN_PLATFORM"] = "1"
