"""Chapter 11's fits of FIRE to other biases: can FIRE's MLP represent ALiBi, KERPLE and T5's buckets?

The target is each method's bias seen from the last query of a 256-token window, distances 0 to 255,
for 4 heads. FIRE's threshold is held at 256 (its multiplier frozen), so every query of the window is
below it and one curve holds for the whole causal grid. :func:`fit_lbfgs` fits the MLP and ``c`` to the
squared error by L-BFGS from a seeded start; :func:`fit_t5_by_construction` places two hidden units at
each bucket edge and solves the output layer by least squares. ``experiments/fire_fits.py`` runs the
L-BFGS fits from several starts (and several T5 tables) and saves ``posenc/results/fire-fits.json``;
:func:`load_fire_fits` reads it.
"""

from __future__ import annotations

import json
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from .. import FireBias, KerpleBias, T5RelativeBias, alibi_bias, t5_relative_bucket
from .provenance import code_record

__all__ = [
    "WINDOW",
    "FIRE_FIT_CONFIG",
    "fit_targets",
    "fire_curve",
    "fit_lbfgs",
    "fit_t5_by_construction",
    "relative_error",
    "squared_error_ratio",
    "near_flatness",
    "run_fire_fits",
    "load_fire_fits",
]

WINDOW = 256
#: The setting of the saved run. L-BFGS starts (seeds of FIRE's initialisation) and T5 tables.
FIRE_FIT_CONFIG: dict[str, Any] = {
    "window": WINDOW,
    "heads": 4,
    "hidden": 32,
    "max_iter": 300,
    "history_size": 50,
    "starts": list(range(8)),
    "t5_tables": list(range(3)),
    "wide_hidden": [64, 128],
}


def fit_targets(t5_table: int = 0) -> dict[str, torch.Tensor]:
    """``{"ALiBi", "KERPLE (log)", "T5 buckets"}`` -> bias [4, 256] at distance d from the last query.
    The T5 table is random, N(0, 1), drawn from seed ``t5_table`` (a stand-in for a learned one)."""
    pos = torch.arange(WINDOW)
    t5 = T5RelativeBias(4, num_buckets=32, max_distance=128, bidirectional=False)
    with torch.no_grad():
        t5.bias.weight.copy_(torch.randn(t5.bias.weight.shape, generator=torch.Generator().manual_seed(t5_table)))
    return {
        "ALiBi": alibi_bias(4, 1, WINDOW)[:, 0].flip(-1),
        "KERPLE (log)": KerpleBias(4, r1=[0.5, 1, 2, 4], r2=[0.05, 0.3, 1, 3]).bias_by_distance(pos).detach(),
        "T5 buckets": t5.bias_by_distance(-pos).detach(),
    }


def fire_curve(fire: FireBias) -> torch.Tensor:
    """FIRE's bias [h, d] at distance d = 0 .. 255 from the last query of the window."""
    pos = torch.arange(WINDOW)
    return fire.bias_at(pos[-1:], pos)[:, 0].flip(-1)


def fit_lbfgs(target: torch.Tensor, hidden: int = 32, seed: int = 0, max_iter: int = 300) -> FireBias:
    """FIRE (threshold frozen at 256) fitted to ``target`` [4, 256] by L-BFGS from the start ``seed``."""
    torch.manual_seed(seed)
    fire = FireBias(4, hidden=hidden, L_thr_init=WINDOW)
    fire.L_multiplier.requires_grad_(False)  # keep L_thr = 256
    opt = torch.optim.LBFGS(
        fire.parameters(),
        max_iter=max_iter,
        history_size=50,
        line_search_fn="strong_wolfe",
        tolerance_grad=1e-9,
        tolerance_change=1e-12,
    )

    def loss():
        opt.zero_grad()
        err = F.mse_loss(fire_curve(fire), target)
        err.backward()
        return err

    opt.step(loss)
    with torch.no_grad():  # LBFGS.step returns the first loss, not the last
        final = F.mse_loss(fire_curve(fire), target)
    if not torch.isfinite(final):
        raise RuntimeError(f"fit_lbfgs: L-BFGS from start seed={seed} diverged (loss {final.item()}); try another seed")
    return fire


def fit_t5_by_construction(table: torch.Tensor) -> tuple[FireBias, int, float, float]:
    """Hidden units in pairs at the bucket edges (c = 1), output layer by least squares.

    Returns (fire, number of edges, float64 residual / largest ``|bias|``, float32 rounding scale of the
    output layer / largest ``|bias|``)."""
    pos = torch.arange(WINDOW)
    fire = FireBias(4, hidden=64, c_init=1.0, L_thr_init=WINDOW)
    with torch.no_grad():
        u = fire.normalized_distance(pos[-1:], pos)[0].flip(-1)  # [d] input at distance d
        bucket = t5_relative_bucket(-pos, bidirectional=False)
        edges = torch.nonzero(bucket[1:] != bucket[:-1])[:, 0]  # between d and d + 1
        knots = torch.stack([u[edges], u[edges + 1]], 1).flatten()  # 2 per edge
        knots = torch.cat([knots, knots.new_full((64 - len(knots),), 2.0)])  # unused units: off in [0, 1]
        first, last = cast(nn.Linear, fire.mlp[0]), cast(nn.Linear, fire.mlp[2])  # the MLP's two layers
        first.weight.fill_(1.0)
        first.bias.copy_(-knots)
        features = torch.cat(
            [(u.double()[:, None] - knots.double()).relu(), torch.ones(WINDOW, 1, dtype=torch.float64)], 1
        )
        solution = torch.linalg.lstsq(features, table.T.double(), driver="gelsd").solution
        residual = ((features @ solution - table.T.double()).abs().max() / table.abs().max()).item()
        floor32 = (2**-24 * solution[:-1].abs().sum(0).max() / table.abs().max()).item()
        last.weight.copy_(solution[:-1].T.float())
        last.bias.copy_(solution[-1].float())
    return fire, len(edges), residual, floor32


def relative_error(fire: FireBias, target: torch.Tensor) -> float:
    """Largest ``|fit - target|`` / largest ``|target|``."""
    return ((fire_curve(fire).detach() - target).abs().max() / target.abs().max()).item()


def squared_error_ratio(fire: FireBias, target: torch.Tensor) -> float:
    """The fit's mean squared error (what :func:`fit_lbfgs` minimises) over that of the best constant per
    head, the head's mean: below 1, the fit beats every flat line in its own objective."""
    fitted = (fire_curve(fire).detach() - target).pow(2).mean()
    flat = (target - target.mean(-1, keepdim=True)).pow(2).mean()
    return (fitted / flat).item()


def near_flatness(fire: FireBias, target: torch.Tensor, near: int = 16) -> list[float]:
    """Per head: std of the fit / std of the target over distances 0 .. near - 1 (one distance a bucket)."""
    return (fire_curve(fire).detach()[:, :near].std(-1) / target[:, :near].std(-1)).tolist()


def run_fire_fits(starts=None, t5_tables=None, *, progress: bool = False) -> dict:
    """Every target fitted by L-BFGS from every start; T5 also with every table and wider MLPs.

    Returns ``{"config", "code", "fits": [{"target", "t5_table", "hidden", "start", "error",
    "squared_error_ratio", "abs_c", "near_flatness"}, ...]}``."""
    config = dict(FIRE_FIT_CONFIG)
    if starts is not None:
        config["starts"] = [int(s) for s in starts]
    if t5_tables is not None:
        config["t5_tables"] = [int(t) for t in t5_tables]
    fits = []
    for table in config["t5_tables"]:
        targets = fit_targets(table)
        for name, target in targets.items():
            if name != "T5 buckets" and table != config["t5_tables"][0]:
                continue  # ALiBi and KERPLE do not depend on the T5 table
            hiddens = [config["hidden"]] + (config["wide_hidden"] if name == "T5 buckets" else [])
            for hidden in hiddens:
                for start in config["starts"]:
                    fire = fit_lbfgs(target, hidden=hidden, seed=start, max_iter=config["max_iter"])
                    row = {
                        "target": name,
                        "t5_table": table if name == "T5 buckets" else None,
                        "hidden": hidden,
                        "start": start,
                        "error": relative_error(fire, target),
                        "squared_error_ratio": squared_error_ratio(fire, target),
                        "abs_c": fire.c.abs().item(),
                        "near_flatness": near_flatness(fire, target),
                    }
                    fits.append(row)
                    if progress:
                        print(row, flush=True)
    return {"config": config, "code": code_record(__name__), "fits": fits}


def load_fire_fits() -> dict:
    """``posenc/results/fire-fits.json``; prints a note (and returns it anyway) when the code that made it
    differs from the installed code, as :func:`~posenc.experiments.load_results` does with ``check="report"``."""
    from importlib import resources

    result = json.loads(resources.files("posenc").joinpath("results").joinpath("fire-fits.json").read_text())
    current = code_record(__name__)["sha256"]
    if result.get("code", {}).get("sha256") != current:
        print(
            f"NOTE: posenc/results/fire-fits.json was made by code with hash {result['code'].get('sha256')}, "
            f"the installed code hashes to {current}. Re-run `{result.get('command')}`. "
            "The numbers below are the saved ones."
        )
    return result
