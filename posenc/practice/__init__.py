"""The Practice part's checker: run a learner's implementation over a sweep and say what is wrong.
Tooling: imports the library through the top-level ``posenc`` only.

``from posenc.practice import check``; ``check(task, fn)`` returns a :class:`Report` (``.passed``,
``.diagnoses``; a table in Jupyter) and never raises for a wrong or crashing ``fn``.

- :mod:`posenc.practice.check`: :func:`check` and :func:`reference`
- :mod:`posenc.practice.report`: :class:`Report` and :class:`Row`, as text and as an HTML table
- :mod:`posenc.practice.registry`: :data:`TASKS`, every task built in one place (their signatures listed)
- :mod:`posenc.practice.framework`: :class:`Case`, :class:`Task`, the comparison and tolerance helpers, the exceptions
- :mod:`posenc.practice.running`: calling a function on a task's inputs; the reference's and known mistakes' outputs
- :mod:`posenc.practice.diagnosis`: naming the known mistake a failing function matches, or what failed
- :mod:`posenc.practice.precision`: the detectors of angles or frequencies computed in float16 or bfloat16
- :mod:`posenc.practice.state`: state a function keeps between calls: a result a later call writes into, a result
  cached from an earlier call with other arguments, another result on the same arguments
- the tasks, one module per Practice part's encodings (inputs, reference, properties, known mistakes):
  :mod:`posenc.practice.tasks_absolute`, :mod:`posenc.practice.tasks_relative`, :mod:`posenc.practice.tasks_rope`,
  :mod:`posenc.practice.tasks_alibi`, :mod:`posenc.practice.tasks_scaling`, :mod:`posenc.practice.tasks_attention`
"""

from .check import check, reference

# UNKNOWN, NOT_IMPLEMENTED, Case, Task and _tasks: names of the former single module (the tests read UNKNOWN and _tasks)
from .diagnosis import UNKNOWN  # noqa: F401
from .framework import Case, Task  # noqa: F401
from .registry import TASKS, _tasks  # noqa: F401
from .report import NOT_IMPLEMENTED, Report, Row  # noqa: F401

__all__ = ["TASKS", "Report", "Row", "check", "reference"]
