"""The glossary's own numbers and formulas, derived rather than copied.

``book/glossary.md`` defines the book's terms. ``tests/test_summary.py`` checks its worked example, Llama 3.1's
bands, the betas row and the rows that repeat chapters 5 and 10 (``test_glossary_worked_examples``,
``test_glossary_rows_follow_the_chapters``). The tests below derive the page's other numbers and formulas from
``posenc``, the saved run ``posenc/results/extrapolation.json`` and the installed transformers, and read each one
from the page: change a number, an exponent or an inequality on the page and its test fails. A formula is read
from the page's LaTeX and evaluated (:func:`evaluate`), so a changed exponent changes the computed values.

Three values have no offline source but ``posenc/book/models.py``'s hand copies of the published configs: Llama 3's
base, Llama 3.1's two bounds and Gemma 3's factor. Their tests compare the page with those copies (a prose sync: a
wrong copy passes) and derive what the page says the values do.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from pathlib import Path

import pytest
import torch

import posenc
from posenc.book.models import MODEL_ROPE_CONFIGS
from posenc.experiments import PasskeyCorpus, load_results

ROOT = Path(__file__).resolve().parents[1]
transformers = pytest.importorskip("transformers")


def page() -> str:
    """The glossary, every run of whitespace one space."""
    return re.sub(r"\s+", " ", (ROOT / "book" / "glossary.md").read_text(encoding="utf-8"))


def row(term: str) -> str:
    """The table row whose first cell is ``term``, whitespace as in :func:`page`."""
    lines = [line for line in (ROOT / "book" / "glossary.md").read_text(encoding="utf-8").splitlines()]
    found = [line for line in lines if line.startswith(f"| {term} |")]
    assert len(found) == 1, (term, len(found))
    return re.sub(r"\s+", " ", found[0])


def chapter(name: str) -> str:
    """A chapter's markdown cells, every run of whitespace one space."""
    cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    return re.sub(r"\s+", " ", "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"))


def braced(text: str, start: int) -> str:
    """The contents of the balanced ``{...}`` group that opens at ``text[start]``."""
    assert text[start] == "{", text[start : start + 20]
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[start + 1 : end]
    raise AssertionError(f"unbalanced braces in {text[start : start + 40]!r}")


def exponent(text: str, before: str) -> str:
    """The exponent the page writes right after ``before``, as in ``b^{-2i/d}``: ``before`` ends with ``^``."""
    at = text.index(before) + len(before)
    return braced(text, at)


def evaluate(tex: str, **names: float):
    """The value of a small LaTeX expression (implicit products, ``\\,``, ``\\theta_i``, ``\\pi``, ``\\ge``, and
    ``d_{\\text{model}}`` and ``d_{\\text{rot}}`` read as the names ``dmodel`` and ``drot``) for the given names: a name
    the caller does not give fails."""
    text = tex.replace("\\,", " ").replace("\\theta_i", " theta ").replace("\\pi", " pi ")
    text = text.replace("\\ge", " >= ").replace("\\le", " <= ").replace("\u2212", "-")
    text = re.sub(r"d_\{\\text\{(model|rot)\}\}", r" d\1 ", text).replace("{", "(").replace("}", ")")
    tokens = re.findall(r"\d+(?:\.\d+)?|[A-Za-z]+|>=|<=|[-+*/()^]|\S", text)
    allowed = set(names) | {"pi"}
    out = []
    for token in tokens:
        operand = re.fullmatch(r"\d+(?:\.\d+)?|[A-Za-z]+", token) is not None
        if operand and not token[0].isdigit():
            assert token in allowed, f"{token!r} in {tex!r}"
        assert operand or token in {">=", "<=", "-", "+", "*", "/", "(", ")", "^"}, f"{token!r} in {tex!r}"
        if out and (operand or token == "(") and (re.fullmatch(r"[\w.]+", out[-1]) or out[-1] == ")"):
            out.append("*")  # an implicit product: 2i, (L - 1)theta, 2pi
        out.append("**" if token == "^" else token)
    return eval(" ".join(out), {"__builtins__": {}}, {"pi": math.pi, **names})  # noqa: S307 (checked tokens)


def test_evaluate_reads_the_pages_forms():
    assert evaluate("-2i/d", i=3, d=8) == -0.75
    assert evaluate("d/(d-2)", d=10) == 1.25
    assert evaluate("-2i/d_{\\text{model}}", i=1, dmodel=4) == -0.5
    assert evaluate("-2i/d_{\\text{rot}}", i=1, drot=8) == -0.25
    with pytest.raises(AssertionError):
        evaluate("-2i/d_{\\text{rot}}", i=1, d=8)  # a width the caller does not name
    assert evaluate("(L - 1)\\,\\theta_i \\ge 2\\pi", L=8, theta=1.0) is True
    assert evaluate("(L - 1)\\,\\theta_i \\ge 2\\pi", L=7, theta=1.0) is False


# ---- frequencies: theta_i's exponent in the RoPE, sinusoidal, partial rotary and p-RoPE rows ------------------


def test_ropes_frequency_exponent_is_the_codes():
    """The page: "RoPE sets $\\theta_i = b^{-2i/d}$": posenc's and transformers' frequencies, over widths and bases."""
    power = exponent(row("frequency"), "RoPE sets $\\theta_i = b^")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    for d in (8, 64, 128):
        for b in (10_000.0, 500_000.0):
            ours = torch.tensor([b ** evaluate(power, i=i, d=d) for i in range(d // 2)], dtype=torch.float64)
            assert torch.allclose(posenc.rope_inv_freq(d, b, dtype=torch.float64), ours, rtol=1e-12, atol=0), (d, b)
            cfg = transformers.LlamaConfig(
                hidden_size=2 * d,
                num_attention_heads=2,
                head_dim=d,
                rope_parameters={"rope_type": "default", "rope_theta": b},
            )
            hf, _ = LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
            assert torch.allclose(hf.double(), ours, rtol=1e-6, atol=0), (d, b)  # float32 frequencies


def test_sinusoidal_rows_formula_is_posencs_table():
    """The page: "coordinates $2i$ and $2i + 1$ of position $p$ are $\\sin(p\\,\\theta_i)$ and $\\cos(p\\,\\theta_i)$,
    with $\\theta_i = 10\\,000^{-2i/d_{\\text{model}}}$": posenc's sinusoidal table, entry by entry."""
    text = row("sinusoidal encoding")
    assert "coordinates $2i$ and $2i + 1$ of position $p$ are $\\sin(p\\,\\theta_i)$ and $\\cos(p\\,\\theta_i)$" in text
    (base,) = re.findall(r"\\theta_i = ([\d\\,]+)\^", text)
    base = float(base.replace("\\,", ""))
    power = exponent(text, f"$\\theta_i = {base:,.0f}^".replace(",", "\\,"))
    for d in (4, 16, 64):
        table = posenc.sinusoidal_encoding(50, d, dtype=torch.float64)
        p = torch.arange(50, dtype=torch.float64)[:, None]
        theta = torch.tensor([base ** evaluate(power, i=i, dmodel=d) for i in range(d // 2)], dtype=torch.float64)
        assert torch.allclose(table[:, 0::2], torch.sin(p * theta), atol=1e-12, rtol=0), d
        assert torch.allclose(table[:, 1::2], torch.cos(p * theta), atol=1e-12, rtol=0), d


def test_partial_rotary_and_p_rope_frequencies():
    """Partial rotary "$b^{-2i/d_{\\text{rot}}}$" against p-RoPE's full-width "$b^{-2i/d}$", in transformers: GPT-NeoX's
    default rule spaces the frequencies over the rotated part; `proportional` reads p-RoPE's share from the same field,
    `partial_rotary_factor`, keeps the full-width frequencies and sets the other pairs' to zero."""
    from transformers.modeling_rope_utils import _compute_proportional_rope_parameters
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    partial, prope = row("partial rotary"), row("p-RoPE, proportional RoPE")
    own = exponent(partial, "frequencies of its own, $b^")
    full = exponent(prope, "at the full-width frequencies $b^")
    assert (
        "*p-RoPE* keeps the full-width frequencies instead, and transformers' `proportional` type reads p-RoPE's"
        in (partial)
    )
    assert "share from the same field |" in partial and "their share set by `partial_rotary_factor`" in partial
    d, b = 128, 1e6
    for share in (0.25, 0.5):
        params = {"rope_theta": b, "partial_rotary_factor": share}
        neox = transformers.GPTNeoXConfig(
            hidden_size=2 * d, num_attention_heads=2, rope_parameters={"rope_type": "default", **params}
        )
        rotated, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(neox)
        d_rot = int(d * share)
        expected = torch.tensor([b ** evaluate(own, i=i, drot=d_rot) for i in range(d_rot // 2)], dtype=torch.float64)
        assert torch.allclose(rotated.double(), expected, rtol=1e-6, atol=0), share
        cfg = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            head_dim=d,
            rope_parameters={"rope_type": "proportional", **params},
        )
        prop, _ = _compute_proportional_rope_parameters(cfg, "cpu")
        turning = int(share * d // 2)
        expected = torch.tensor([b ** evaluate(full, i=i, d=d) for i in range(turning)], dtype=torch.float64)
        assert torch.allclose(prop[:turning].double(), expected, rtol=1e-6, atol=0), share
        assert prop.numel() == d // 2 and (prop[turning:] == 0).all(), share  # the other pairs: frequency zero


# ---- the base row, NTK-aware scaling and the fast pairs ----------------------------------------------------------


def test_base_row_roformer_and_llama_3():
    """The page: "`rope_theta` in a config: 10 000 in RoFormer, 500 000 in Llama 3". RoFormer's from transformers'
    RoFormer table; Llama 3's from posenc/book/models.py's copy of its config (a prose sync) and chapter 7's words."""
    from transformers.models.roformer.modeling_roformer import RoFormerSinusoidalPositionalEmbedding

    (roformer, llama) = re.findall(r"`rope_theta` in a config: ([\d ]+) in RoFormer, ([\d ]+) in Llama 3\.", page())[0]
    roformer, llama = float(roformer.replace(" ", "")), float(llama.replace(" ", ""))
    n, dim = 40, 16
    table = RoFormerSinusoidalPositionalEmbedding(n, dim).create_weight().double()
    theta = roformer ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    p = torch.arange(n, dtype=torch.float64)[:, None]
    assert torch.allclose(table[:, : dim // 2], torch.sin(p * theta), atol=1e-6, rtol=0)  # float32 table
    assert torch.allclose(table[:, dim // 2 :], torch.cos(p * theta), atol=1e-6, rtol=0)
    assert MODEL_ROPE_CONFIGS["llama-3-8b"]["rope_theta"] == llama == 500_000
    assert "Llama 3's case: a base of 500 000 from the start" in chapter("07_beyond")


def test_ntk_aware_base_keeps_the_fastest_pair_and_divides_the_slowest_by_s():
    """The page: "enlarges RoPE's base to $b\\,s^{d/(d-2)}$ ...: the fastest pair is kept, the slowest divided by $s$",
    and transformers' `dynamic`, whose base at an effective scale S is b S^(d/(d-2)), gives the same frequencies."""
    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters

    text = row("NTK-aware scaling")
    assert "the fastest pair is kept, the slowest divided by $s$" in text
    power = exponent(text, "enlarges RoPE's base to $b\\,s^")
    L = 1024
    for d in (16, 64, 128):
        for b in (10_000.0, 500_000.0):
            theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
            for s in (2.0, 8.0, 40.0):
                raised = (b * s ** evaluate(power, d=d)) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
                ratio = theta / raised
                assert ratio[0] == 1 and abs(ratio[-1] - s) < 1e-9 * s, (d, b, s, float(ratio[-1]))
                # transformers' dynamic with factor 1 at s L tokens: effective scale 1 * s L / L - 0 = s
                cfg = transformers.LlamaConfig(
                    hidden_size=2 * d,
                    num_attention_heads=2,
                    head_dim=d,
                    max_position_embeddings=L,
                    rope_parameters={"rope_type": "dynamic", "rope_theta": b, "factor": 1.0},
                )
                hf, _ = _compute_dynamic_ntk_parameters(cfg, "cpu", seq_len=int(s * L))
                assert torch.allclose(hf.double(), raised, rtol=1e-5, atol=0), (d, b, s)  # float32 frequencies


def test_fast_pair_condition_is_a_full_turn_over_trainings_offsets():
    """The page: "a pair that turns at least once over the offsets of training, up to $L - 1$: $(L - 1)\\,\\theta_i \\ge
    2\\pi$": the pairs the page's inequality picks are those whose angle, read back from posenc's cos and sin tables at
    positions 0 to L - 1, sweeps a full turn. The sweep includes pairs for which L theta_i >= 2 pi > (L - 1) theta_i, so
    writing L for L - 1 fails too."""
    text = row("fast pair")
    (inequality,) = re.findall(r"up to \$L - 1\$: \$([^$]+)\$, so training showed it its whole circle", text)
    boundary = 0
    for d in (8, 16, 32):
        for b in (10.0, 100.0, 10_000.0):
            for L in (7, 16, 50, 64, 100):
                theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
                cos, sin = posenc.rope_cos_sin(L, d, b, layout="half", dtype=torch.float64)
                angle = torch.atan2(sin[:, : d // 2], cos[:, : d // 2])  # [L, d/2], wrapped to (-pi, pi]
                step = torch.remainder(angle[1:] - angle[:-1], 2 * math.pi)  # each step is theta_i < pi: unwrap
                swept = step.sum(0)  # the angle at position L - 1, unwrapped
                for i in range(d // 2):
                    if abs(float(swept[i]) - 2 * math.pi) < 1e-9:
                        continue  # a tie: no test of the inequality's direction
                    page_says = evaluate(inequality, L=L, theta=float(theta[i]))
                    assert page_says == (float(swept[i]) >= 2 * math.pi), (d, b, L, i, float(swept[i]))
                    boundary += L * float(theta[i]) >= 2 * math.pi > (L - 1) * float(theta[i])
    assert boundary > 0  # L theta_i and (L - 1) theta_i disagree on some pair swept


# ---- models: Llama 3.1's bounds, Gemma 3, Qwen3-VL, DeepSeek ------------------------------------------------------


def test_llama3_bounds_are_turns_in_l():
    """The page: "bounds `high_freq_factor` and `low_freq_factor` in turns in $L$, 4 and 1 in Llama 3.1": the values
    against posenc/book/models.py's copy of Llama 3.1's config (a prose sync), and what they mean, from transformers'
    `llama3`: a pair turning more than `high_freq_factor` times in L is kept, one turning fewer than `low_freq_factor`
    times is divided by the factor."""
    from transformers.modeling_rope_utils import _compute_llama3_parameters

    (high, low) = re.findall(r"in turns in \$L\$, (\d+) and (\d+) in Llama 3\.1", row("Llama 3.1 scaling (`llama3`)"))[
        0
    ]
    high, low = float(high), float(low)
    copied = MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]
    assert (copied["high_freq_factor"], copied["low_freq_factor"]) == (high, low), copied
    for d, b, L in ((128, 500_000.0, 8192), (64, 10_000.0, 4096), (128, 10_000.0, 2048)):
        cfg = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            head_dim=d,
            rope_parameters={
                "rope_type": "llama3",
                "rope_theta": b,
                "factor": 8.0,
                "high_freq_factor": high,
                "low_freq_factor": low,
                "original_max_position_embeddings": L,
            },
        )
        scaled, _ = _compute_llama3_parameters(cfg, "cpu")
        theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        turns = L * theta / (2 * math.pi)
        divisor = theta / scaled.double()
        kept = torch.isclose(divisor, torch.ones_like(divisor), rtol=1e-5)
        divided = torch.isclose(divisor, torch.full_like(divisor, 8.0), rtol=1e-5)
        assert torch.equal(kept, turns > high) and torch.equal(divided, turns < low), (d, b, L)


def test_gemma_3_bases_and_factor():
    """The page: "Gemma 3 uses the base 10 000 in its local layers, which see only a window of recent tokens, and 1 000
    000 in its global ones ... the global layers also divide every frequency by 8, with `linear` scaling": the bases and
    layer kinds from transformers' Gemma3TextConfig defaults; the factor from posenc/book/models.py's copy of Gemma 3
    27B's config (a prose sync), and `linear` dividing every frequency by it, from posenc."""
    sentence = re.search(
        r"Gemma 3 uses the base ([\d ]+) in its local layers, which see only a window of recent tokens, and ([\d ]+) in"
        r" its global ones, which see the whole input\. In Gemma 3 4B to 27B, the global layers also divide every"
        r" frequency by (\d+), with `linear` scaling\.",
        page(),
    )
    assert sentence, "the Gemma 3 sentence"
    local, global_, factor = (float(g.replace(" ", "")) for g in sentence.groups())
    config = transformers.Gemma3TextConfig()
    assert config.rope_parameters["sliding_attention"]["rope_theta"] == local
    assert config.rope_parameters["full_attention"]["rope_theta"] == global_
    assert {"sliding_attention", "full_attention"} == set(config.layer_types) and config.sliding_window > 0
    gemma = MODEL_ROPE_CONFIGS["gemma-3-27b"]
    assert gemma["rope_theta"] == global_ and gemma["extra"]["rope_local_base_freq"] == local, gemma
    assert gemma["rope_scaling"] == {"rope_type": "linear", "factor": factor}, gemma["rope_scaling"]
    d = gemma["head_dim"]
    scaled, _ = posenc.rope_scaled_inv_freq(d, global_, rope_type="linear", factor=factor)
    plain = posenc.rope_inv_freq(d, global_, dtype=torch.float64)
    assert torch.allclose(plain / scaled.double(), torch.full_like(plain, factor), rtol=1e-6, atol=0)


def test_qwen3_vl_gives_its_slowest_pairs_to_time():
    """The page: "pairs dealt out in turn to the three axes, except the slowest few, which all go to time; so each axis
    gets fast and slow ones": transformers' Qwen3-VL recomposition with its default `mrope_section`, [24, 20, 20]."""
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    text = row("interleaved M-RoPE")
    assert "pairs dealt out in turn to the three axes, except the slowest few, which all go to time" in text
    assert "so each axis gets fast and slow ones" in text
    section = MODEL_ROPE_CONFIGS["qwen3-vl-8b"]["rope_scaling"]["mrope_section"]
    assert section == [24, 20, 20] and "[24, 20, 20]" in inspect.getsource(Qwen3VLTextRotaryEmbedding.__init__)
    pairs = sum(section)
    axes = torch.arange(3, dtype=torch.float32)[:, None, None].expand(3, 1, pairs).clone()  # axis id per pair
    holder = type("Holder", (), {"mrope_section": section})()
    owner = Qwen3VLTextRotaryEmbedding.recomposition_frequencies(holder, axes)[0, :pairs].long().tolist()
    # pairs count from the fastest (pair 0) to the slowest: a tail of pairs all given to time (axis 0)
    tail = next(i for i in range(pairs - 1, -1, -1) if owner[i] != 0) + 1
    assert 0 < pairs - tail <= 8 and owner[:tail] == [i % 3 for i in range(tail)], owner
    for axis in range(3):  # each axis gets fast and slow pairs: one in the fastest quarter, one in the slowest half
        mine = [i for i, a in enumerate(owner) if a == axis]
        assert min(mine) < pairs // 4 and max(mine) >= pairs // 2, (axis, mine)


def test_deepseek_v2_and_v3_not_v4_move_the_attention_factor_to_the_softmax_scale():
    """The page: "DeepSeek-V2's and V3's configurations make it 1 and sharpen through the softmax scale instead": with
    their `mscale` equal to `mscale_all_dim` (posenc/book/models.py's copies), transformers' YaRN puts 1 on cos and sin
    and the DeepSeek attention multiplies the softmax scale by more than 1. DeepSeek-V4's port sets the attention factor
    to 1 and keeps the plain softmax scale, so the page must not say "DeepSeek's" unqualified."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as ds3
    from transformers.models.deepseek_v4 import configuration_deepseek_v4 as v4_config, modeling_deepseek_v4 as v4

    assert "DeepSeek-V2's and V3's configurations make it 1 and sharpen through the softmax scale instead" in row(
        "attention factor"
    )
    assert "DeepSeek's configurations" not in page()
    for name in ("deepseek-v2", "deepseek-v3"):
        p = MODEL_ROPE_CONFIGS[name]["rope_scaling"]
        cfg = transformers.LlamaConfig(
            hidden_size=256,
            num_attention_heads=4,
            head_dim=64,
            rope_parameters={
                "rope_type": "yarn",
                "rope_theta": 10_000.0,
                "factor": p["factor"],
                "original_max_position_embeddings": p["original_max_position_embeddings"],
                "mscale": p["mscale"],
                "mscale_all_dim": p["mscale_all_dim"],
            },
        )
        assert ROPE_INIT_FUNCTIONS["yarn"](cfg, "cpu")[1] == 1.0, name
        rope = {"rope_type": "yarn", "factor": p["factor"], "mscale_all_dim": p["mscale_all_dim"]}
        assert ds3.yarn_apply_mscale(rope, 1.0) > 1, name  # the softmax scale grows: sharper attention
    assert 'compress.setdefault("attention_factor", 1.0)' in inspect.getsource(v4_config.DeepseekV4Config)
    attention = [c for n, c in inspect.getmembers(v4, inspect.isclass) if n.endswith("Attention")]
    scales = [re.findall(r"self\.scaling = (.+)", inspect.getsource(c.__init__)) for c in attention]
    assert any(s == ["self.head_dim**-0.5"] for s in scales), scales


# ---- temperature -----------------------------------------------------------------------------------------------


def test_a_larger_logit_factor_never_flattens_attention():
    """The page: "A logit factor multiplies every logit, and a larger one makes attention sharper; a temperature is its
    inverse", and the entropy row's "A logit factor above 1 never raises it": the entropy of softmax(c z) over random
    logits z never rises as c grows."""
    text = page()
    assert "A logit factor multiplies every logit, and a larger one makes attention sharper; a temperature is its" in (
        text
    )
    assert "A logit factor above 1 never raises it" in row("attention entropy")
    assert "| logit factor | logit 因子 | a number that multiplies every logit, $1/t$;" in text
    g = torch.Generator().manual_seed(0)
    factors = torch.linspace(0.05, 20, 200, dtype=torch.float64)
    for _ in range(200):
        n = int(torch.randint(2, 200, (1,), generator=g))
        z = torch.randn(n, generator=g, dtype=torch.float64) * float(
            10 * torch.rand(1, generator=g, dtype=torch.float64)
        )
        logp = torch.log_softmax(factors[:, None] * z, dim=-1)
        entropy = -(logp.exp() * logp).sum(-1)
        assert (entropy[1:] <= entropy[:-1] + 1e-12).all() and entropy[-1] < entropy[0], n


# ---- the worked example's last sentences and the primer of "Longer inputs" -------------------------------------


def test_over_dividing_the_slowest_pair_and_pis_fast_pairs():
    """The primer: "An input of $2L$ tokens has a *stretch* of two: halving the slowest pair's frequency makes it turn
    about as far as in training. A rule's *effective scale* is what it actually divides that pair by, for example $s$
    for position interpolation at any length". The worked example (Llama 3.1's head, L = 8192, "Each rule gets
    $s = 8$"): "So over the whole input the slowest pair turns less than it did over $L$ in training. PI also divides
    the fast pairs by $s$, while `llama3` leaves its fastest pairs unchanged"."""
    text = page()
    (stretch,) = re.findall(r"An input of \$2L\$ tokens has a \*stretch\* of (\w+): halving the slowest pair", text)
    assert {"two": 2}[stretch] == max(2 * 8192 / 8192, 1)  # the stretch row's max(l/L, 1) at l = 2L
    assert "for example $s$ for position interpolation at any length." in text
    assert "Each rule gets $s = 8$ and an input of $2L$ tokens:" in text
    quoted = (
        "So over the whole input the slowest pair turns less than it did over $L$ in training. PI also divides the fast"
        " pairs by $s$, while `llama3` leaves its fastest pairs unchanged."
    )
    assert quoted in text
    d, base, L, s = 128, 500_000.0, 8192, 8.0
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    # halving the slowest pair's frequency: over 2L positions it turns as far as over L, within one position's angle
    assert abs((2 * L - 1) * theta[-1] / 2 - (L - 1) * theta[-1]) <= theta[-1]
    for n in (L // 2, L, 2 * L, 16 * L):  # PI's effective scale is s at any length
        pi, _ = posenc.rope_scaled_inv_freq(
            d, base, rope_type="linear", factor=s, original_max_position_embeddings=L, seq_len=n
        )
        assert abs(float(theta[-1] / pi.double()[-1]) - s) < 1e-6 * s, n
    rules = {
        "pi": dict(rope_type="linear"),
        "llama3": dict(rope_type="llama3", low_freq_factor=1.0, high_freq_factor=4.0),
        "dynamic": dict(rope_type="dynamic", seq_len=2 * L),
    }
    fast = (L - 1) * theta >= 2 * math.pi
    for name, rule in rules.items():
        scaled, _ = posenc.rope_scaled_inv_freq(d, base, factor=s, original_max_position_embeddings=L, **rule)
        scaled = scaled.double()
        assert (2 * L - 1) * scaled[-1] < (L - 1) * theta[-1], name  # less of a turn over 2L than over L in training
        divisor = theta / scaled
        if name == "pi":
            assert torch.allclose(divisor[fast], torch.full_like(divisor[fast], s), rtol=1e-6), divisor[fast]
        if name == "llama3":
            kept = torch.isclose(divisor, torch.ones_like(divisor), rtol=1e-6)
            n_kept = int(kept.sum())
            assert n_kept > 0 and kept[:n_kept].all() and fast[:n_kept].all(), n_kept  # the fastest pairs, all fast


# ---- chapter 8's words -----------------------------------------------------------------------------------------


def test_chapter_8_words_from_the_saved_run():
    """The filler's "sixteen symbols", the trigram's "about 0.72 nats at every length tested", *breaks*'s "$\\ln 28
    \\approx 3.33$" and its 28 tokens, the nat's "$\\ln 2 \\approx 0.69$" and fine-tuning's "$8L$": from the saved run's
    configuration and metrics. *fine*'s "a tenth of a nat" and *kept*'s "95 %" are chapter 8's definitions, so they are
    compared with chapter 8's table of words."""
    run = load_results("extrapolation", check=False)
    config, trigram = run["config"], run["metrics"]["trigram"]
    corpus = PasskeyCorpus(**config["corpus"])
    L = config["train_length"]
    words = {16: "sixteen"}
    assert f"a random second-order Markov chain over {words[corpus.vocab_size]} symbols" in row("filler | 填充文本")
    beyond = [n for n in config["eval_lengths"] if n > L]
    losses = [seed["loss_beyond"][str(n)] for seed in trigram.values() for n in beyond]
    assert len(losses) == len(trigram) * len(beyond) == 15 and {f"{v:.2f}" for v in losses} == {"0.72"}, losses
    assert "with a loss of about 0.72 nats at every length tested" in row("trigram baseline")
    vocab = corpus.n_tokens
    assert vocab == corpus.vocab_size + corpus.n_digits + 2
    breaks = (
        f"a loss above uniform guessing among all {vocab} tokens, $\\ln {vocab} \\approx {math.log(vocab):.2f}$ nats;"
        f" the {vocab} are {corpus.vocab_size} filler symbols, {corpus.n_digits} digits, `KEY` and `QUERY`"
    )
    assert breaks in row("breaks (loss)"), breaks
    assert f"one bit is $\\ln 2 \\approx {math.log(2):.2f}$ nats" in row("nat")
    multiple = config["finetune"]["length"] // L
    assert multiple * L == config["finetune"]["length"]
    assert f"trained further on inputs of ${multiple}L$ tokens before the long tests" in row("fine-tuned")
    c8 = re.sub(r"\s+", " ", chapter("08_extrapolation"))
    (kept,) = re.findall(r"\| retrieval is \*kept\* \| (\d+) % of passkeys found or more, on average \|", c8)
    assert f"| kept (passkeys) | 保住 | {kept} % or more of the passkeys found, on average over the seeds;" in page()
    assert (
        f"| kept | a pair whose frequency a scaling leaves unchanged | in chapter 8's experiment, {kept} % or more"
        in page()
    )
    assert "| the loss is *fine* | within a tenth of a nat of the trigram's mean, or below it, at the same length" in c8
    assert "a loss within a tenth of a nat of the *trigram baseline*'s mean, or below it, at the same length" in row(
        "fine (loss)"
    )


# ---- the rows added for chapters 1 to 5 and 9 ---------------------------------------------------------------------


def test_matrix_forms_count():
    """The page: "RoPE written as a $d \\times d$ rotation matrix times each vector: $2d^2$ operations per vector,
    against about $3d$ for the element-wise form": torch's counter on posenc's rotation matrices, and chapter 9's hand
    count."""
    text = row("matrix form (of RoPE)")
    assert (
        "rotation matrix times each vector: $2d^2$ operations per vector, against about $3d$ for the element-wise"
        in (text)
    )
    from posenc.measure.costs import matmul_flops

    for d in (8, 64, 128):
        R = torch.stack([posenc.rope_matrix(p, d) for p in range(5)])  # [5, d, d]
        x = torch.randn(5, d, 1)
        assert matmul_flops(lambda R=R, x=x: R @ x) == 5 * 2 * d * d, d
    assert "The element-wise form does about $3d$ operations per vector." in chapter("09_performance")


def test_distance_and_offset_rows_name_the_chapters_that_use_them():
    """The distance row's warning, "Careful: chapters 3, 5 and 10 use the word for the signed *offset*, key minus
    query, which is negative for an earlier key", and the chapters listed for the offset and the unsigned distance,
    read from the chapters' own words."""
    signed = {
        "03_relative": "The distance is always the key's position minus the query's, $j - i$",
        "05_decay": "**Distance** $r = n - m$: the key's position minus the query's.",
        "10_rope_today": "the distance $\\Delta = n - m$, key minus query: negative for a key before the query",
    }
    for name, words in signed.items():
        assert words in chapter(name), name
    (first, second, third) = re.findall(
        r"Careful: chapters (\d+), (\d+) and (\d+) use the word for the signed \*offset\*, key minus query, which is"
        r" negative for an earlier key \|",
        row("distance | 距离"),
    )[0]
    assert [int(first), int(second), int(third)] == sorted(int(name[:2]) for name in signed), (first, second, third)
    unsigned = {
        "08_extrapolation": "A *distance* counts the tokens from `QUERY` back",
        "11_learned_position": "its *distance* is $|j - i|$",
    }
    offset = {
        "01_why_position": "the offset $j - i$",
        "02_absolute": "of the offset $\\Delta = n - m$ alone, key minus query",
        "04_rope": "the offset is $n - m$, key minus query",
    }
    for glossary_row, users in (("distance | 距离", unsigned), ("offset", offset)):
        for name, words in users.items():  # each chapter uses the word so, and the row links it
            assert words in chapter(name), name
            assert f"<../notebooks/{name}>`" in row(glossary_row), name
