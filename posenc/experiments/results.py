"""The experiments' saved results: loading them with a provenance check, and summarising seeds.

The results files ship in ``posenc/results`` (so a chapter finds them on Colab too); each records the
configuration, the command, the environment and the code (:func:`~posenc.experiments.code_record`)
that made it.
"""

from __future__ import annotations

import json

import torch

from .._core.validate import check_choice
from .provenance import code_record

__all__ = ["RESULT_NAMES", "load_results", "summarize", "format_mean_range"]

RESULT_NAMES = ("extrapolation", "extrapolation-quick-seeds", "extrapolation-text")
"""The results files shipped in ``posenc/results``: the full passkey run with RoPE's fine-tuning arms
(``experiments/extrapolation.py --out posenc/results/extrapolation.json``), the chapter's quick setting
over twelve seeds (``--quick --seeds 12``) and the real-text run with the context cut and RoPE's
fine-tuning on text (``--text``, :func:`~posenc.experiments.run_text_experiment`).
``scripts/run_experiments.sh`` makes all three."""
#: The entry module whose code made each results file.
RESULT_ENTRY = {
    "extrapolation": "posenc.experiments.passkey",
    "extrapolation-quick-seeds": "posenc.experiments.passkey",
    "extrapolation-text": "posenc.experiments.realtext",
}


def load_results(name: str = "extrapolation", *, check: bool | str = True) -> dict:
    """A results file shipped in ``posenc/results`` (written by ``experiments/extrapolation.py``).

    Args:
        name (str): one of :data:`RESULT_NAMES` (each names a file ``posenc/results/<name>.json``).
        check (bool or str): ``True`` refuses a file made by other code (the unit tests use this);
            ``"report"`` prints that it is stale, with both hashes and the files whose code differs, and
            returns it anyway (the chapters use this, so a reader who edits the package still sees the
            saved numbers, marked as such); ``False`` does not look.

    Raises:
        TypeError: ``name`` is not a str, ``check`` not a bool or str.
        ValueError: ``name`` is not one of :data:`RESULT_NAMES`, ``check`` not True, False or ``"report"``.
        RuntimeError: ``check`` is True and the file was made by code other than the installed one
            (re-run the command it records).
    """
    from importlib import resources

    check_choice("name", name, RESULT_NAMES)
    if not isinstance(check, (bool, str)):
        raise TypeError(f"check must be True, False or 'report', got {type(check).__name__}")
    if check not in (True, False, "report"):
        raise ValueError(f"check must be True, False or 'report', got {check!r}")
    result = json.loads(resources.files("posenc").joinpath("results").joinpath(f"{name}.json").read_text())
    if check:
        message = _stale(name, result)
        if message is not None:
            if check != "report":
                raise RuntimeError(message)
            print("NOTE:", message, "The numbers below are the saved ones.")
    made_with = result.get("environment", {}).get("torch")
    if made_with is not None and made_with != torch.__version__:  # reported, not refused: the code hash decides
        print(
            f"NOTE: posenc/results/{name}.json was made with torch {made_with}; this is torch {torch.__version__}. "
            "A re-run may differ in the last digits."
        )
    return result


def _stale(name: str, result: dict) -> str | None:
    """None if ``result`` was made by the installed code, else what differs."""
    recorded = result.get("code", {})
    current = code_record(RESULT_ENTRY[name])
    if recorded.get("sha256") == current["sha256"]:
        return None
    old_files = recorded.get("file_sha256")
    if old_files is None:
        which = (
            "the file records only the total hash (made before per-file hashes were kept), so which "
            "files changed is not known"
        )
    else:
        new_files = current["file_sha256"]
        changed = sorted(f for f in old_files.keys() & new_files.keys() if old_files[f] != new_files[f])
        added = sorted(new_files.keys() - old_files.keys())
        removed = sorted(old_files.keys() - new_files.keys())
        which = (
            "; ".join(
                f"{label}: {', '.join(files)}"
                for label, files in (("changed", changed), ("new", added), ("no longer used", removed))
                if files
            )
            or "the per-file hashes agree (the hash's method changed)"
        )
    command = result.get("command", "python experiments/extrapolation.py")
    return (
        f"posenc/results/{name}.json is stale: it was made by code with hash {recorded.get('sha256')}, "
        f"the installed code hashes to {current['sha256']} ({which}). Re-run `{command}`."
    )


def summarize(result: dict, metric: str = "loss_beyond") -> dict:
    """Mean, minimum and maximum over seeds: ``{variant: {key: (mean, min, max) or None}}``.

    Args:
        metric (str): ``"loss_beyond"``, ``"passkey"`` or ``"passkey_by_distance"`` (keys: lengths or
            distances, as ints), or ``"loss_at_L"`` (one key, the trained length).
    """
    if not isinstance(result, dict) or not isinstance(result.get("metrics"), dict):
        raise TypeError(
            f"result must be a dict with 'metrics' (from load_results or run_extrapolation), "
            f"got {type(result).__name__}"
        )
    check_choice("metric", metric, ("loss_at_L", "loss_beyond", "passkey", "passkey_by_distance"))
    table: dict = {}
    for name, per_seed in result["metrics"].items():
        runs = list(per_seed.values())
        if metric == "loss_at_L":
            runs = [{str(result["config"]["train_length"]): r["loss_at_L"]} for r in runs]
        else:
            runs = [r[metric] for r in runs]
        for key in runs[0]:
            values = [r[key] for r in runs]
            if any(v is None for v in values):
                table.setdefault(name, {})[int(key)] = None
                continue
            t = torch.tensor(values, dtype=torch.float64)
            table.setdefault(name, {})[int(key)] = (t.mean().item(), t.min().item(), t.max().item())
    return table


def format_mean_range(value: tuple[float, float, float] | None, *, percent: bool = False) -> str:
    """One entry of :func:`summarize` as the chapters print it: ``"2.31 (2.28–2.35)"`` (mean, then
    the range over seeds), ``"87 (80–93)"`` with ``percent`` (a fraction shown in %), ``"—"`` for None.

    Raises:
        TypeError: ``value`` is not None or a (mean, min, max) triple of numbers.
    """
    if not isinstance(percent, bool):
        raise TypeError(f"percent must be a bool, got {type(percent).__name__}")
    if value is None:
        return "—"
    if (
        isinstance(value, (str, bytes))
        or not hasattr(value, "__len__")
        or len(value) != 3
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise TypeError(f"value must be None or a (mean, min, max) triple of numbers, got {value!r}")
    if percent:
        mean, low, high = (100 * v for v in value)
        return f"{mean:.0f} ({low:.0f}–{high:.0f})"
    mean, low, high = value
    return f"{mean:.2f} ({low:.2f}–{high:.2f})"
