"""The summary page cannot go stale: every number in its tables is checked against its source.

Each table row of ``book/summary.md`` is matched, by a phrase it contains, to a rule below. A rule
recomputes the row's measured numbers from the same saved runs (``posenc/results/*.json``) or library
computations its chapter uses, formats them as the row prints them, and lists the row's other numbers
(parameters of the claim: ``8L``, ``d = 128``, a chapter number) as literals. The numbers in the row must
equal that list as a multiset: change a number in a chapter's source without its summary row, or in the
row alone, and this test fails. A row with numbers and no rule fails too, unless :data:`UNCHECKED` names
it with the reason. Chapters whose numbers live only in a notebook's text are listed there until they
read a saved run or a library function.
"""

from __future__ import annotations

import collections
import functools
import math
import re
from pathlib import Path

import pytest
import torch

import posenc
from posenc.experiments import load_results, summarize

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ROOT / "book" / "summary.md"


def numbers(text: str) -> collections.Counter:
    """The numbers of a row as a multiset of strings ("36 000" and "36\\,000" -> "36000")."""
    text = re.sub(r"\{[a-z:]+\}`[^`]*`", " ", text)  # {cite}`...`, {doc}`...`
    text = re.sub(r"`[^`]*`", " ", text)  # code spans: names, paths
    text = re.sub(r"(?<=\d)\\,(?=\d{3})", "", text)
    text = re.sub(r"(?<=\d)[ ,](?=\d{3}\b)", "", text)
    return collections.Counter(re.findall(r"\d+(?:\.\d+)?", text))


def table_rows() -> list[str]:
    return [
        line.strip()
        for line in SUMMARY.read_text(encoding="utf-8").splitlines()
        if line.startswith("|") and not re.fullmatch(r"\|[-| :]+\|", line.strip())
    ]


# --- the sources ---------------------------------------------------------------------------------


@functools.cache
def passkey_run():
    full = load_results("extrapolation", check=False)
    return {metric: summarize(full, metric) for metric in ("loss_beyond", "passkey", "passkey_by_distance")}


def loss(method, n):  # mean over seeds, 2 decimals
    return f"{passkey_run()['loss_beyond'][method][n][0]:.2f}"


def key(method, n, which=0):  # percent, 0: mean, 1: min
    return f"{100 * passkey_run()['passkey'][method][n][which]:.0f}"


def key_at(method, distance):
    return f"{100 * passkey_run()['passkey_by_distance'][method][distance][0]:.0f}"


@functools.cache
def per_seed(method, metric, n):
    full = load_results("extrapolation", check=False)
    return [run[metric][str(n)] for run in full["metrics"][method].values()]


@functools.cache
def counting():
    from posenc.experiments.counting import load_counting_sweep

    acc = load_counting_sweep()["accuracy"]
    cope = [a for per_seed_ in acc["CoPE"].values() for by_k in per_seed_.values() for a in by_k]
    rope_far = [a for per_seed_ in acc["RoPE"].values() for by_k in per_seed_.values() for a in by_k[1:]]
    return {"seeds": len(acc["CoPE"]), "cope_min": min(cope), "rope_min": min(rope_far), "rope_max": max(rope_far)}


@functools.cache
def fire_fits():
    from posenc.experiments.fire_fit import load_fire_fits

    return load_fire_fits()


def pct_floor(x):  # "at least x %": never round up
    return f"{math.floor(100 * x + 1e-9):.0f}"


def pct_ceil(x):  # "at most x %"
    return f"{math.ceil(100 * x - 1e-9):.0f}"


# --- the rules: phrase -> (computed numbers, literal numbers) ----------------------------------


def _kerple_row():
    return [loss("kerple", 512), key("kerple", 512), key_at("kerple", 496), key_at("alibi", 496)]


def _counting_row():
    c = counting()
    assert c["cope_min"] > c["rope_max"] > 1 / 8  # the row's claim, on the saved run
    return [pct_floor(c["cope_min"]), str(c["seeds"]), pct_floor(c["rope_min"]), pct_ceil(c["rope_max"])]


def _fire_fit_row():
    fits = fire_fits()
    rows = fits["fits"]
    easy = [r for r in rows if r["target"] in ("ALiBi", "KERPLE (log)")]
    t5 = [r for r in rows if r["target"] == "T5 buckets"]
    assert max(r["error"] for r in easy) < 0.01 and min(r["error"] for r in t5) > 0.5
    edges = int((posenc.t5_relative_bucket(-torch.arange(256), bidirectional=False).diff() != 0).sum())
    return [str(len(fits["config"]["starts"])), str(edges)]


def _saved_run_row():
    kerple, alibi = per_seed("kerple", "passkey_by_distance", 496), per_seed("alibi", "passkey_by_distance", 496)
    gains = [100 * (k - a) for k, a in zip(kerple, alibi)]
    seeds = len(kerple)
    worst = max(max(per_seed(m, "loss_beyond", 512)) for m in ("kerple", "alibi"))
    assert worst < 0.75
    gaps = {  # [method][length] -> per-seed loss beyond L minus KERPLE's
        m: [
            [a - b for a, b in zip(per_seed(m, "loss_beyond", n), per_seed("kerple", "loss_beyond", n))]
            for n in (128, 256, 512)
        ]
        for m in ("rope", "sinusoidal")
    }
    assert all(g > 0 for m in gaps for by_n in gaps[m] for g in by_n)
    assert all(a < b < c for a, b, c in zip(*gaps["rope"])) and min(gaps["rope"][-1]) > 3
    assert min(min(by_n) for by_n in gaps["sinusoidal"]) > 3
    text = load_results("extrapolation-text", check=False)
    return [
        str(seeds),
        f"{min(gains):.0f}",
        f"{max(gains):.0f}",
        str(len(text["config"]["seeds"])),
        str(text["config"]["eval_lengths"][-1] // text["config"]["train_length"]),
    ]


def _shakespeare_row():
    text = load_results("extrapolation-text", check=False)
    L = str(text["config"]["train_length"])
    gaps = [
        a["loss"][L] - r["loss"][L] for a, r in zip(text["metrics"]["alibi"].values(), text["metrics"]["rope"].values())
    ]
    return [str(text["config"]["eval_lengths"][-1] // int(L)), f"{min(gaps):.2f}", f"{max(gaps):.2f}"]


def _ntk(b_new, d=128):
    return f"{(b_new / 1e4) ** ((d - 2) / d):.0f}"


def _xpos_limit():
    return f"{512 * math.log(torch.finfo(torch.float32).max) / math.log(3.5):.0f}"


def _mla_row():
    # DeepSeek-V2: 60 layers, 128 heads of 128, latent 512 + rotary 64, 2 bytes a value
    from posenc.book import MODEL_ROPE_CONFIGS
    from posenc.today import kv_cache_bytes_per_token

    ds = MODEL_ROPE_CONFIGS["deepseek-v2"]["extra"]
    mla = kv_cache_bytes_per_token(
        "mla",
        n_layers=ds["num_hidden_layers"],
        kv_lora_rank=ds["kv_lora_rank"],
        qk_rope_head_dim=ds["qk_rope_head_dim"],
    )
    mha = kv_cache_bytes_per_token("mha", n_layers=ds["num_hidden_layers"], n_kv_heads=128, head_dim=128)
    return [str(ds["kv_lora_rank"] + ds["qk_rope_head_dim"]), f"{mla / 1024:g}", f"{mha / 1024:g}"]


def _mla_claim_row():
    from posenc.book import MODEL_ROPE_CONFIGS
    from posenc.today import kv_cache_bytes_per_token

    ds = MODEL_ROPE_CONFIGS["deepseek-v2"]["extra"]
    mla = kv_cache_bytes_per_token(
        "mla", n_layers=60, kv_lora_rank=ds["kv_lora_rank"], qk_rope_head_dim=ds["qk_rope_head_dim"]
    )
    one = kv_cache_bytes_per_token("gqa", n_layers=60, n_kv_heads=1, head_dim=128)
    # the 85 % is chapter 10's stored output of the absorbed form's relative error
    absorbed = _stored_float("10_rope_today", "c36", r"relative error of the absorbed form = ([0-9.]+)")
    return [f"{mla / one:.2f}", f"{round(100 * absorbed):.0f}"]


def _stored_float(notebook, cell_id, pattern):
    import json

    nb = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == cell_id)
    text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
    return float(re.search(pattern, text).group(1))


def _decay_row():
    theta = posenc.rope_inv_freq(128).double()
    r = torch.arange(0, 20001, dtype=torch.float64)
    E = 2 * torch.cos(r[:, None] * theta).sum(-1)
    assert E[1030] > E[300]
    lobes = [float(E[10000:15000].mean()), float(E[15000:20000].mean())]
    assert all(abs(x + 6) < 0.5 for x in lobes)  # "about -6"
    return [str(int((E < 0).nonzero()[0]))]


def _t5_row():
    dec = posenc.t5_relative_bucket(-torch.arange(300), bidirectional=False)
    enc = posenc.t5_relative_bucket(-torch.arange(300), bidirectional=True)
    exact_dec, exact_enc = (int((b[1:] == b[:-1]).nonzero()[0]) for b in (dec, enc))  # first shared bucket
    return [str(exact_enc), str(exact_dec), str(int((dec == dec.max()).nonzero()[0]))]


def _alibi_reach_row():
    linear = [0.1 * (h + 1) for h in range(8)]
    paper = posenc.alibi_slopes(8).tolist()
    cut = [math.log(10) / s for s in linear], [math.log(10) / s for s in paper]
    return [
        f"{max(linear) / min(linear):.0f}",
        f"{min(cut[0]):.0f}",
        f"{max(cut[0]):.0f}",
        f"{max(paper) / min(paper):.0f}",
        f"{min(cut[1]):.0f}",
        f"{max(cut[1]):.0f}",
    ]


RULES: dict[str, tuple] = {
    # the methods table: definitions, checked against the library where it holds them
    "| sinusoidal {cite}`vaswani2017attention`": (lambda: [], "2 0"),
    "| Shaw et al. {cite}`shaw2018relative`": (lambda: [], "2 2 1"),
    "| T5 bias {cite}`raffel2020t5`": (lambda: [], "5"),
    "| RoPE {cite}`su2021roformer`": (lambda: [], "0"),
    "| ALiBi {cite}`press2022alibi`": (lambda: [], "0"),
    "| NoPE {cite}`kazemnejad2023nope`": (lambda: [], "0"),
    "| KERPLE {cite}`chi2022kerple`": (lambda: [str(2 * 1)], "1 1 1 2 2"),
    "| FIRE {cite}`li2024fire`": (lambda: [str(posenc.FireBias(4).mlp[0].out_features)], "1 2"),
    "| CoPE {cite}`golovneva2024cope`": (lambda: [], "1"),
    "| scaled RoPE {cite}`chen2023pi": (lambda: [], "3.1 0"),
    "| partial rotary {cite}`black2022gptneox": (lambda: [], "2 0"),
    "| larger base {cite}`roziere2023codellama": (lambda: [], "5 10 5 10 6 2 0"),
    "| LongRoPE {cite}`ding2024longrope": (lambda: [], "1 2 2"),
    "| M-RoPE {cite}`wang2024qwen2vl`": (lambda: [], "3 0"),
    "| iRoPE (Llama 4) {cite}`meta2025llama4`": (
        lambda: [f"{float(posenc.today.llama4_attention_temperature(torch.tensor([8192 - 1])) - 1) / math.log(2):.1f}"],
        "4 8192 3 4 4 1 1 8192 1 0",
    ),
    "| xPos {cite}`sun2022xpos`": (lambda: [], "0"),
    "| attention sinks {cite}`xiao2023streamingllm`": (lambda: [], "0"),
    "| learned sink (gpt-oss)": (lambda: [], "1"),
    # how each behaves: chapter 8's saved passkey run (means over seeds) and chapters 10-11
    "| sinusoidal | ✗ defined everywhere": (
        lambda: [f"{float(loss('sinusoidal', 256)):.1f}", key("sinusoidal", 512), key("sinusoidal", 512, 1)],
        "2 8",
    ),
    "| learned absolute |": (lambda: [], ""),
    "| Shaw et al. | ✓": (lambda: [], "2 1"),
    "| T5 bias | ~ the last bucket": (
        lambda: [f"{float(loss('t5', 128)):.1f}", f"{float(loss('t5', 512)):.1f}"],
        "5 2 8 5 5 5 2",
    ),
    "| RoPE | ✗ alone": (lambda: [loss("rope", 512), key("rope", 512)], "8 7 8"),
    "| ALiBi | ✓ loss beyond": (lambda: [loss("alibi", 512), loss("trigram", 512), key_at("alibi", 496)], "8 16 496"),
    "| NoPE | learns position": (
        lambda: [
            pct_floor(min(v[1] for v in passkey_run()["passkey_by_distance"]["none"].values())),
            f"{float(loss('none', 128)):.1f}",
            f"{float(loss('none', 512)):.1f}",
        ],
        "7 8 2 8 4 3",
    ),
    "| KERPLE | ✓ loss beyond": (_kerple_row, "8 8 496 11 8 5"),
    "| FIRE | ~ every passkey": (lambda: [loss("fire", 128), loss("fire", 512)], "2 8 11 11"),
    "| CoPE | ~ every passkey": (lambda: [loss("cope", 128), loss("cope", 512)], "2 8 11"),
    "| partial rotary | as RoPE": (lambda: [], "2"),
    "| larger base | more slow pairs": (lambda: [], "16 16383 10 128 3"),
    "| LongRoPE | built for it": (lambda: [], "3 4 128 3 3.5"),
    "| M-RoPE | as RoPE": (lambda: [], "2 2.5"),
    "| iRoPE | RoPE layers never": (lambda: [], "8192 1 0.1 8192 4"),
    "| MLA decoupled RoPE | via YaRN": (_mla_row, "2 3 40 2 2 3"),
    "| xPos | decays": (lambda: [f"{round(float(_xpos_limit()), -3):.0f}"], "32"),
    # the claims: chapters 10 and 11, and what chapters 3, 5, 6, 7, 8 compute in the library
    "| Shaw logits depend on": (lambda: [], "13 10 4 64 512"),
    "| The key-position form": (lambda: [], "16 8 256 12 16"),
    "| T5 buckets: exact for the nearest": (_t5_row, "5 0 128"),
    "| Independent $q, k$": (
        _decay_row,
        "0 2 128 10 4 500 47 2 5000 8 500 1000 1030 300 10 4 5000 4 10 6 10 20 20 1.9",
    ),
    "| NTK-aware scaling divides pair": (lambda: [_ntk(1e6)], "2 2 10 6 10 4"),
    "| Character-level Shakespeare": (_shakespeare_row, ""),
    "| KERPLE's log and power biases are CPD": (lambda: [], "1 9 100 3"),
    "| KERPLE power with $r_2 = 1$": (lambda: [], "2 1 1"),
    "| FIRE's MLP input lies in": (lambda: [], "0 1 4096 16"),
    "| FIRE fits ALiBi and KERPLE": (_fire_fit_row, "1 5 1 9 64"),
    "| CoPE's positions are the inclusive": (lambda: [], "1 1"),
    "| Saved run (chapter 8's task, 5 seeds)": (_saved_run_row, "5 8 8 8 8 8 0.75 0.72 496 64 512 63 2 4 3 3 2"),
    "| On the counting task": (_counting_row, "1 2 3 2 3"),
    "| A base $b'$ is NTK-aware scaling": (
        lambda: [_ntk(5e5), _ntk(1e6)],
        "2 500000 10 6 16 16383 10 4 10 7 32 256 128",
    ),
    '| `rope_scaled_inv_freq(rope_type="longrope")`': (lambda: [], "3 17 12 32"),
    # the fastest width pair of Qwen2-VL's [16, 24, 24]: pair 40 at base 1e6, in rad per patch
    "| `mrope_cos_sin` equals": (
        lambda: [f"{float(posenc.rope_inv_freq(128, 1e6)[40]):.1e}".split("e")[0]],
        "2 3 10 4",
    ),
    "| `llama4_attention_temperature` reproduces": (lambda: [], "0.1 2 100 100"),
    "| Absorbing $W_{UK}$": (_mla_claim_row, "10 15"),
    "| `xpos_scale` equals": (lambda: [_xpos_limit()], "64 511 32 1024 32 512 32"),
}

#: Rows with numbers that no rule checks yet, with the reason. Each is a chapter whose number lives
#: only in its notebook's text or a random draw inside it; move a row out once its chapter computes the
#: number from a saved run or a library function this test can call.
UNCHECKED: dict[str, str] = {
    "| scaled RoPE | zero-shot": "chapter 8: several settings' per-seed comparisons; not yet one rule",
    "| method | 1 unique": "the header of the property checklist: property numbers",
    "| binary | ✓ up to": "a definition ($2^n$)",
    "| T5 | ~ bucketed": "the name T5",
    "| FIRE | ~ distances": "a definition ([0, 1])",
    "| CoPE | ~ counts": "a definition (P - 1)",
    "| M-RoPE | ✓ | ✓ per axis": "a definition (3 axes)",
    "| Self-attention without position or mask": "chapter 1: 100 random permutations, a notebook parameter",
    "| Integer positions have an affine shift map": "chapter 1: notebook text",
    "| Without position, both": "chapter 1: notebook text",
    "| A causal mask alone": "chapter 1: notebook text",
    "| LayerNorm erases": "chapter 2: the 300x is a notebook output",
    "| Binary steps between": "chapter 2: notebook text",
    "| float32 tutorial code": "chapter 2: notebook text",
    "| In float32, `pow`": "chapter 2: the 1,533-setting sweep is a notebook cell",
    "| Linear attention equals": "chapter 3: notebook text",
    "| Angles formed in bf16": "chapter 4: notebook text",
    "| With linear attention, rotated": "chapter 4: 129 of 256 is a random draw in the notebook",
    "| Summation by parts": "chapter 5: notebook text",
    "| ALiBi slopes are geometric": "chapter 6: notebook text",
    "| `posenc.alibi_slopes` equals": "tests/test_alibi_decay.py: head counts tested",
    "| YaRN keeps pairs turning": "chapter 7: notebook text",
    "| `posenc.rope_scaled_inv_freq` (PI": "tests/test_scaling.py: a formula",
    "| 2-D RoPE scores depend": "chapter 7: notebook text",
    "| Trained at 64 tokens": "chapter 8's quick run: margins in extrapolation-quick-seeds.json, not yet one rule",
    "| Five seeds, each comparison": "chapter 8: several per-seed comparisons, not yet one rule",
    "| RoPE's $d \\times d$ matrix": "chapter 9: FlopCounterMode counts in the notebook",
    "| Bias methods (ALiBi, T5)": "chapter 9: TensorMemory counts in the notebook",
    "| Binary codes satisfy": "chapter 1: notebook text",
    '| "exp-log is numerically': "chapter 2: notebook text",
    "| The period of pair $i$": "chapter 2: a formula",
    '| "`rotate_half` rotates': "chapter 4: a definition",
    "| A tutorial RoPE module": "chapter 4: notebook text",
    "| RoPE was first used in LLaMA": "history: years",
    '| "RoPE attention scores decay': "chapter 5: same numbers as the claims row, which is checked",
    "| $S(20) = 1.4": "chapter 5: the three-frequency example lives in the notebook",
    "| ALiBi slopes linear in the head": "chapter 6: the tenfold-cut distances (3 to 23, 5 to 590) round ln 10 / slope "
    "inconsistently (23.03 -> 23 but 589.5 -> 590): the chapter's rule is needed",
    "| Linear slopes $0.1(h+1)$": "chapter 6: as the row above (see _alibi_reach_row, not yet enabled)",
    '| "RoPE extrapolates well"': "chapter 8: literals only",
    '| "Direct fine-tuning extends': "chapter 8: per-step fine-tuning numbers in the notebook",
}


def _match(row: str, table: dict) -> str | None:
    hits = [phrase for phrase in table if row.startswith(phrase) or phrase in row]
    assert len(hits) <= 1, f"several rules match {row[:80]!r}: {hits}"
    return hits[0] if hits else None


def test_every_row_with_numbers_has_a_rule_or_a_reason():
    missing = [
        row[:100]
        for row in table_rows()
        if numbers(row) and _match(row, RULES) is None and _match(row, UNCHECKED) is None
    ]
    assert not missing, "summary rows with numbers and no rule (add one to RULES):\n" + "\n".join(missing)


def test_every_rule_and_reason_names_a_row():
    rows = table_rows()
    stale = [p for p in [*RULES, *UNCHECKED] if not any(p in row for row in rows)]
    assert not stale, f"rules for rows no longer on the page: {stale}"


@pytest.mark.parametrize("phrase", list(RULES))
def test_row_numbers_equal_their_source(phrase):
    row = next(r for r in table_rows() if phrase in r)
    computed, literals = RULES[phrase]
    expected = sum((numbers(item) for item in computed()), collections.Counter())
    expected += collections.Counter(literals.split())
    found = numbers(row)
    assert found == expected, (
        f"summary row {row[:90]!r}:\n  in the row, not from the source: "
        f"{sorted((found - expected).elements())}\n  from the source, not in the row: "
        f"{sorted((expected - found).elements())}"
    )
