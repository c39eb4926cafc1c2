"""The book's explorers: each is data for the framework in :mod:`posenc.explorers.framework`
(parameters, a plot kind, ``compute`` and a title), and ``EXPLORERS`` names them all.

Every explorer has three faces drawn by the same code:

- ``SomeExplorer().widget()``: live controls in Jupyter or Colab (a kernel recomputes);
- ``SomeExplorer.frames_widget()``: the HTML book's kernel-less controls over pre-rendered frames;
- ``SomeExplorer.static_companion()``: small multiples, for print and readers without JavaScript.

``SomeExplorer(**values).update(**changes)`` is the headless path: it validates, recomputes and
redraws in place, or records a message (``error``) instead of raising, which is what the widget
shows beside the control ("base must be > 1, got 1") rather than a traceback.

Shared parameters (``BASE``, ``HEAD_DIM``) are declared once and adapted with ``Param.replace``.
The numbers come from the library's public names (top-level :mod:`posenc`) and the model table
(:mod:`posenc.book.models`); the learned-bias explorer reads chapter 8's saved run
(:mod:`posenc.experiments`, imported when it first draws).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import torch

from .. import (
    DEFAULT_BASE,
    ROPE_TYPES,
    alibi_bias,
    alibi_slopes,
    apply_rope,
    rope_angles,
    rope_cos_sin,
    rope_decay_bound,
    rope_inv_freq,
    rope_scaled_inv_freq,
    shaw_relative_index,
    sinusoidal_encoding,
)
from ..book.models import MODEL_ROPE_CONFIGS, SCALING_EXAMPLES, scaled_wavelengths
from .framework import Explorer
from .params import Param, nice_ceil
from .plots import Curves, Heatmap, Rotation

__all__ = [
    "BASE",
    "HEAD_DIM",
    "SinusoidalHeatmapExplorer",
    "SinusoidalSimilarityExplorer",
    "ShawIndexExplorer",
    "RopeRotationExplorer",
    "RopeCosSinExplorer",
    "RopeScoreExplorer",
    "DecayBoundExplorer",
    "AlibiBiasExplorer",
    "RopeScalingExplorer",
    "ModelScalingExplorer",
    "LearnedBiasExplorer",
    "EXPLORERS",
]

#: The wavelength base of sinusoidal and rotary encodings (a log slider with a text box).
BASE = Param(
    "base",
    DEFAULT_BASE,
    "log",
    1.0,
    1e7,
    label="base",
    open_low=True,
    sweep=(100.0, DEFAULT_BASE, 500000.0),
    frames=(100.0, 1000.0, DEFAULT_BASE, 100000.0, 1000000.0),
)
#: The dimension that sin/cos or rotation pairs split (even).
HEAD_DIM = Param(
    "head_dim", 64, "even", 2, 256, label="head_dim", unit="dims", sweep=(8, 64, 128), frames=(8, 16, 32, 64, 128)
)


class SinusoidalHeatmapExplorer(Explorer):
    """Heatmap of :func:`posenc.sinusoidal_encoding` over dimension, base and length."""

    topic = "the sinusoidal encoding table"
    params = (
        HEAD_DIM.replace(
            name="d_model",
            label="d_model",
            default=128,
            low=4,
            high=512,
            sweep=(16, 64, 128, 512),
            frames=(16, 32, 64, 128, 256),
        ),
        BASE.replace(sweep=(10.0, 100.0, DEFAULT_BASE, 1e6)),
        Param("length", 100, "int", 2, 1024, label="positions", unit="tokens", sweep=(20, 100, 500)),
    )
    plot = Heatmap(xlabel="encoding dimension", ylabel="position p", colorbar="PE(p) entry", limits=(-1, 1))
    companion = ({"d_model": 32}, {"d_model": 128}, {"d_model": 128, "base": 100.0})
    figsize = (6.4, 4.2)

    @staticmethod
    def compute(*, d_model: int, base: float, length: int) -> dict:
        return {"z": sinusoidal_encoding(length, d_model, base).numpy()}  # [length, d_model]

    @staticmethod
    def title(data: dict, *, d_model: int, base: float, length: int) -> str:
        return f"d_model={d_model}, base={base:g}: fast columns left"


class SinusoidalSimilarityExplorer(Explorer):
    """``PE(p) . PE(p + delta) / (d/2)`` against the distance ``delta``: falls, but not monotonically."""

    topic = "how sinusoidal encodings' similarity falls with distance"
    params = (
        HEAD_DIM.replace(
            name="d_model",
            label="d_model",
            default=128,
            low=2,
            high=1024,
            sweep=(2, 16, 128, 512),
            frames=(2, 8, 16, 64, 128, 512),
        ),
        BASE,
        Param("max_distance", 200, "int", 10, 5000, label="max distance", unit="tokens", sweep=(50, 200, 2000)),
    )
    plot = Curves(xlabel="distance Δ = q − p (tokens)", ylabel="PE(p)·PE(q) / (d/2)", zero_line=True)
    companion = ({"d_model": 16}, {"d_model": 128}, {"d_model": 128, "base": 100.0})
    figsize = (6.4, 3.6)

    @staticmethod
    def compute(*, d_model: int, base: float, max_distance: int) -> dict:
        pe = sinusoidal_encoding(max_distance + 1, d_model, base, dtype=torch.float64)  # [D+1, d]
        sim = (pe @ pe[0]) / (d_model // 2)  # PE(0).PE(delta) = sum_i cos(omega_i delta), normalised
        return {"x": torch.arange(max_distance + 1).numpy(), "ys": [sim.numpy()]}

    @staticmethod
    def title(data: dict, *, d_model: int, base: float, max_distance: int) -> str:
        return f"d_model={d_model}, base={base:g}"


class ShawIndexExplorer(Explorer):
    """Shaw et al.'s relative label ``clip(j - i, -k, k) + k`` for every query ``i`` and key ``j``."""

    topic = "Shaw et al.'s clipped relative labels"
    params = (
        Param(
            "seq_len",
            16,
            "int",
            2,
            128,
            label="sequence length",
            unit="tokens",
            sweep=(2, 16, 64),
            frames=(8, 16, 32, 64),
        ),
        Param(
            "max_distance",
            4,
            "int",
            0,
            64,
            label="clip distance k",
            unit="tokens",
            sweep=(0, 2, 4, 20),
            frames=(0, 1, 2, 4, 8, 16),
        ),
    )
    plot = Heatmap(
        xlabel="key position j",
        ylabel="query position i",
        colorbar="clip(j − i, −k, k)",
        cmap="coolwarm",
        aspect="equal",
    )
    companion = (
        {"seq_len": 12, "max_distance": 1},
        {"seq_len": 12, "max_distance": 3},
        {"seq_len": 12, "max_distance": 11},
    )
    figsize = (5.4, 4.4)

    @staticmethod
    def compute(*, seq_len: int, max_distance: int) -> dict:
        k = max_distance
        return {"z": (shaw_relative_index(seq_len, k) - k).numpy(), "limits": (-max(k, 1), max(k, 1))}  # [L, L]

    @staticmethod
    def title(data: dict, *, seq_len: int, max_distance: int) -> str:
        return f"L={seq_len}, k={max_distance}: {2 * max_distance + 1} labels"


class RopeRotationExplorer(Explorer):
    """One RoPE pair rotating as the position grows: the point ``(cos m theta_i, sin m theta_i)``."""

    topic = "one RoPE pair rotating with the position"
    params = (
        HEAD_DIM.replace(frames=(8, 64, 128)),
        Param(
            "pair",
            1,
            "int",
            0,
            127,
            label="pair i",
            sweep=(0, 1, 3),
            frames=(0, 1, 2, 3),
            limit=("head_dim", lambda d: d // 2, "head_dim // 2"),
        ),
        BASE.replace(frames=(100.0, 1000.0, DEFAULT_BASE, 100000.0)),
        Param("position", 12, "int", 0, 4096, label="position m", unit="tokens", sweep=(0, 12, 200)),
    )
    plot = Rotation(xlabel="first coordinate of the pair", ylabel="second coordinate of the pair")
    companion = (
        {"pair": 0, "position": 12},
        {"pair": 1, "position": 12},
        {"pair": 1, "position": 12, "base": 100.0},
        {"pair": 3, "position": 200},
        {"pair": 3, "position": 200, "base": 500000.0},
        {"pair": 3, "position": 200, "head_dim": 8},
    )
    figsize = (4.6, 4.4)

    @staticmethod
    def compute(*, head_dim: int, pair: int, base: float, position: int) -> dict:
        theta = rope_inv_freq(head_dim, base, dtype=torch.float64)[pair : pair + 1]  # [1]
        angles = rope_angles(position + 1, theta)[:, 0]  # [position + 1]
        return {"theta": float(theta), "x": angles.cos().numpy(), "y": angles.sin().numpy()}

    @staticmethod
    def title(data: dict, *, head_dim: int, pair: int, base: float, position: int) -> str:
        turns = position * data["theta"] / (2 * torch.pi)
        return (
            f"pair {pair} of d={head_dim}, base {base:g}: θ={data['theta']:.3g} rad/token\n"
            f"position {position} → {turns:.2f} turns"
        )


class RopeCosSinExplorer(Explorer):
    """The ``cos(m theta_i)`` table of RoPE over positions ``m`` and pairs ``i``."""

    topic = "RoPE's cos(m θ_i) table"
    params = (
        HEAD_DIM,
        BASE,
        Param("length", 128, "int", 2, 2048, label="positions", unit="tokens", sweep=(16, 128, 1024)),
    )
    plot = Heatmap(
        xlabel="pair i (frequency θ_i falls to the right)", ylabel="position m", colorbar="cos(m θ_i)", limits=(-1, 1)
    )
    companion = ({"base": 100.0}, {}, {"base": 500000.0})
    figsize = (6.4, 4.2)

    @staticmethod
    def compute(*, head_dim: int, base: float, length: int) -> dict:
        angles = rope_angles(length, rope_inv_freq(head_dim, base, dtype=torch.float64))  # [L, d/2]
        return {"z": angles.cos().numpy()}

    @staticmethod
    def title(data: dict, *, head_dim: int, base: float, length: int) -> str:
        return f"cos(m θ_i), head_dim={head_dim}, base={base:g}"


class RopeScoreExplorer(Explorer):
    """Scores ``q_m . k_n`` for one query vector and one key vector placed at every position.

    Without RoPE every entry is the same number; with RoPE the matrix is constant along diagonals
    (a function of ``n - m`` only), and the pattern depends on ``head_dim`` and ``base``.
    """

    topic = "RoPE attention scores of one q and one k at every position"
    params = (
        HEAD_DIM.replace(frames=(8, 16, 32, 64, 128)),
        BASE.replace(frames=(100.0, DEFAULT_BASE, 1000000.0)),
        Param("length", 48, "int", 2, 256, label="positions", unit="tokens", sweep=(8, 48, 200)),
        Param("seed", 0, "int", 0, 1000, label="random q, k seed", sweep=(0, 1, 7)),
        Param("rope", True, "bool", label="RoPE", frames=(False, True)),
    )
    plot = Heatmap(
        xlabel="key position n",
        ylabel="query position m",
        colorbar="q_m · k_n / √d",
        limits="symmetric",
        aspect="equal",
    )
    companion = ({"rope": False}, {"rope": True}, {"rope": True, "head_dim": 8})
    figsize = (5.4, 4.4)

    @staticmethod
    def compute(*, head_dim: int, base: float, length: int, seed: int, rope: bool) -> torch.Tensor:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(2, head_dim, generator=g, dtype=torch.float64)
        qs, ks = q.expand(length, head_dim), k.expand(length, head_dim)  # same content everywhere
        if rope:
            cos, sin = rope_cos_sin(length, head_dim, base, dtype=torch.float64)
            qs, ks = apply_rope(qs, cos, sin), apply_rope(ks, cos, sin)
        return (qs @ ks.T) / head_dim**0.5  # [L, L]

    @staticmethod
    def title(data: torch.Tensor, *, head_dim: int, base: float, length: int, seed: int, rope: bool) -> str:
        return f"RoPE, d={head_dim}, base={base:g}: constant along diagonals" if rope else "no RoPE: one value"


class DecayBoundExplorer(Explorer):
    """RoFormer's relative upper bound ``(1/(d/2)) sum_j |S_j|`` against the distance."""

    topic = "RoFormer's long-term decay bound"
    params = (
        HEAD_DIM.replace(default=128, high=512, sweep=(16, 64, 128), frames=(16, 32, 64, 128, 256)),
        BASE,
        Param("max_distance", 1000, "int", 10, 20000, label="max distance", unit="tokens", sweep=(100, 1000, 10000)),
    )
    plot = Curves(xlabel="relative distance r (tokens)", ylabel="relative upper bound")
    companion = ({"head_dim": 128}, {"head_dim": 128, "base": 500000.0}, {"head_dim": 32})
    figsize = (6.4, 3.8)

    @staticmethod
    def compute(*, head_dim: int, base: float, max_distance: int) -> dict:
        # every integer distance: a coarser grid aliases the ripples (a few tokens long) and draws a wrong curve
        r = torch.arange(max_distance + 1, dtype=torch.float64)
        bound = rope_decay_bound(head_dim, r, base)
        return {"x": r.numpy(), "ys": [bound.numpy()], "ylim": (0.0, nice_ceil(float(bound.max()) * 1.05))}

    @staticmethod
    def title(data: dict, *, head_dim: int, base: float, max_distance: int) -> str:
        return f"head_dim={head_dim}, base={base:g}"


class AlibiBiasExplorer(Explorer):
    """One head's ALiBi bias ``-m_h |j - i|`` (with the causal mask) for a chosen head count."""

    topic = "one head's ALiBi bias"
    params = (
        Param("n_heads", 8, "int", 1, 64, label="heads", sweep=(1, 8, 12, 16), frames=(4, 8, 16)),
        Param(
            "head",
            0,
            "int",
            0,
            63,
            label="head h",
            sweep=(0, 3, 7),
            frames=(0, 1, 2, 3),
            limit=("n_heads", lambda n: n, "n_heads"),
        ),
        Param("seq_len", 32, "int", 2, 256, label="sequence length", unit="tokens", sweep=(8, 32, 128)),
        Param("causal", True, "bool", label="causal mask", frames=(False, True)),
    )
    plot = Heatmap(
        xlabel="key position j",
        ylabel="query position i",
        colorbar="bias added to the logit",
        cmap="viridis",
        aspect="equal",
    )
    companion = ({"head": 0}, {"head": 3}, {"head": 7})
    figsize = (5.4, 4.4)

    @staticmethod
    def compute(*, n_heads: int, head: int, seq_len: int, causal: bool) -> dict:
        bias = alibi_bias(n_heads, seq_len, causal=causal)[head]  # [L, L]
        bias = bias.masked_fill(torch.isinf(bias), float("nan"))  # masked entries drawn blank
        low = float(torch.nan_to_num(bias, nan=0.0).min())
        return {
            "z": bias.numpy(),
            "limits": (-nice_ceil(max(-low, 1e-3)), 0.0),
            "slope": float(alibi_slopes(n_heads)[head]),
        }

    @staticmethod
    def title(data: dict, *, n_heads: int, head: int, seq_len: int, causal: bool) -> str:
        return f"head {head} of {n_heads}: slope m = {data['slope']:.4g} ({'causal' if causal else 'bidirectional'})"


class RopeScalingExplorer(Explorer):
    """How each context-extension method rescales RoPE's frequencies, pair by pair."""

    topic = "how context-extension methods rescale RoPE's frequencies"
    params = (
        # longrope is left out: it takes per-pair factor lists, not one factor
        Param(
            "rope_type",
            "yarn",
            "choice",
            label="scaling",
            options=tuple(t for t in ROPE_TYPES[1:] if t != "longrope"),
            frames=("linear", "dynamic", "yarn", "llama3"),
        ),
        Param(
            "factor",
            4.0,
            "float",
            1.0,
            64.0,
            label="factor s",
            unit="×",
            sweep=(1.0, 2.0, 4.0, 16.0),
            frames=(2.0, 4.0, 8.0, 16.0, 32.0),
        ),
        HEAD_DIM.replace(default=128, low=4, sweep=(16, 64, 128), frames=()),
        BASE.replace(frames=()),
        Param(
            "original_length",
            4096,
            "int",
            16,
            131072,
            label="trained length",
            unit="tokens",
            log=True,
            sweep=(64, 2048, 8192),
        ),
    )
    plot = Curves(
        xlabel="pair i (low frequency to the right)",
        ylabel="scaled θ_i / original θ_i",
        marker="o",
        guide_labels=("1 / s (interpolate)", "1 (unchanged)"),
        ylim=(0, 1.08),
    )
    companion = ({"rope_type": "linear"}, {"rope_type": "yarn"}, {"rope_type": "llama3", "base": 500000.0})
    figsize = (6.4, 3.8)

    @staticmethod
    def compute(*, rope_type: str, factor: float, head_dim: int, base: float, original_length: int) -> dict:
        default = rope_inv_freq(head_dim, base, dtype=torch.float64)
        scaled, _ = rope_scaled_inv_freq(
            head_dim,
            base,
            rope_type=rope_type,
            factor=factor,
            original_max_position_embeddings=original_length,
            seq_len=int(factor * original_length),
        )
        return {
            "x": torch.arange(head_dim // 2).numpy(),
            "ys": [(scaled.double() / default).numpy()],
            "guides": (1 / factor, 1.0),
        }

    @staticmethod
    def title(data: dict, *, rope_type: str, factor: float, head_dim: int, base: float, original_length: int) -> str:
        return f"{rope_type}, s = {factor:g}, d = {head_dim}, base {base:g}, trained length {original_length}"


class ModelScalingExplorer(Explorer):
    """Per-pair wavelengths ``2 pi / theta_i`` before and after a model's published RoPE scaling
    (or a named scaling at base 10000, trained length 4096, factor 8), against the length the scaling
    is defined from (``original_max_position_embeddings``; for a model this is not always its
    training length) and the target length: which wavelengths each method stretches. Numbers from
    :func:`posenc.book.models.scaled_wavelengths`."""

    topic = "how a model's RoPE scaling reshapes the per-pair wavelengths"
    params = (
        Param(
            "scaling",
            "yarn",
            "choice",
            label="model or scaling",
            options=SCALING_EXAMPLES + tuple(MODEL_ROPE_CONFIGS),
            frames=SCALING_EXAMPLES + tuple(MODEL_ROPE_CONFIGS),
        ),
    )
    plot = Curves(
        xlabel="pair i (low frequency to the right)",
        ylabel="wavelength 2π/θ_i (tokens)",
        yscale="log",
        labels=("before", "after"),
        colors=("0.6", "tab:blue"),
        guide_labels=("scaled from", "target length"),
        guide_colors=("tab:red", "tab:green"),
        legend_loc="upper left",
    )
    companion = (
        {"scaling": "pi"},
        {"scaling": "ntk"},
        {"scaling": "yarn"},
        {"scaling": "llama3"},
        {"scaling": "longrope"},
        {"scaling": "raised_base"},
    )
    figsize = (6.4, 4.0)

    @staticmethod
    def compute(*, scaling: str) -> dict:
        w = scaled_wavelengths(scaling)
        return {
            "x": torch.arange(len(w["wavelength_before"])).numpy(),
            "ys": [w["wavelength_before"].numpy(), w["wavelength_after"].numpy()],
            "guides": (w["trained_length"], w["target_length"]),
            "info": w,
        }

    @staticmethod
    def title(data: dict, *, scaling: str) -> str:
        w = data["info"]
        note = f"\n{w['note']}" if w.get("note") else ""
        return (
            f"{scaling}: {w['rope_type']}, rotated d={w['head_dim']}, base {w['base']:g}\n"
            f"scaled from {w['trained_length']}, target {w['target_length']}, "
            f"×{w['attention_scaling']:.2f} on cos, sin{note}"
        )


@functools.lru_cache(maxsize=1)
def _saved_biases() -> dict:
    """``{method: {seed: {length: [layer][head][distance]}}}`` from chapter 8's saved run."""
    from ..experiments import BIAS_METHODS, load_results

    metrics = load_results(check=False)["metrics"]  # the chapter reports a stale file; the unit tests refuse it
    return {
        m: {int(s): {int(n): rows for n, rows in run["learned_bias"].items()} for s, run in metrics[m].items()}
        for m in BIAS_METHODS
    }


class LearnedBiasExplorer(Explorer):
    """The logit bias each distance-bias method has after training in chapter 8's run (saved, not
    recomputed): one curve per head against the distance back from the last query."""

    topic = "the distance biases learned in chapter 8's experiment"
    params = (
        Param(
            "method",
            "kerple",
            "choice",
            options=("t5", "alibi", "kerple", "fire"),
            label="method",
            frames=("t5", "alibi", "kerple", "fire"),
        ),
        Param("layer", 0, "int", 0, 1, label="layer", sweep=(0, 1), frames=(0, 1)),
        Param("seed", 0, "int", 0, 4, label="seed", sweep=(0, 2, 4), frames=(0, 2, 4)),
        Param(
            "length", "512", "choice", options=("64", "512"), label="input length", unit="tokens", frames=("64", "512")
        ),
    )
    plot = Curves(
        xlabel="distance back from the last query (tokens)",
        ylabel="logit bias",
        labels=("head 0", "head 1", "head 2", "head 3"),
        zero_line=True,
        legend_loc="upper right",
    )
    companion = ({"method": "alibi"}, {"method": "t5"}, {"method": "kerple"}, {"method": "fire"})
    figsize = (6.4, 3.8)

    @staticmethod
    def compute(*, method: str, layer: int, seed: int, length: str) -> dict:
        heads = _saved_biases()[method][seed][int(length)][layer]  # [h][length], index = distance back
        return {"x": np.arange(int(length)), "ys": [np.asarray(h) for h in heads]}

    @staticmethod
    def title(data: dict, *, method: str, layer: int, seed: int, length: str) -> str:
        return f"{method}, layer {layer}, seed {seed}: a {length}-token input (trained at 64)"


EXPLORERS: dict[str, Callable[..., Explorer]] = {
    "sinusoidal_heatmap": SinusoidalHeatmapExplorer,
    "sinusoidal_similarity": SinusoidalSimilarityExplorer,
    "shaw_index": ShawIndexExplorer,
    "rope_rotation": RopeRotationExplorer,
    "rope_cos_sin": RopeCosSinExplorer,
    "rope_scores": RopeScoreExplorer,
    "decay_bound": DecayBoundExplorer,
    "alibi_bias": AlibiBiasExplorer,
    "rope_scaling": RopeScalingExplorer,
    "model_scaling": ModelScalingExplorer,
    "learned_bias": LearnedBiasExplorer,
}
