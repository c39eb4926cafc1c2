"""posenc.practice: every mutant is rejected with its own diagnosis, every correct solution passes.

The mutants and the differently computed correct solutions live in ``tests/practice_mutants.py``.
``python tests/test_practice.py`` prints, per task, the mutants killed, the mutants diagnosed
correctly and the correct variants accepted (``test_summary_table`` prints it too, with ``-s``).
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import posenc  # noqa: E402
from posenc import practice  # noqa: E402
from posenc.practice import TASKS, check  # noqa: E402
from practice_mutants import CORRECT, MUTANTS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PRACTICE_NOTEBOOKS = sorted((ROOT / "notebooks").glob("practice_*.ipynb"))

# the contract's ten tasks (../shared/posenc-api.md, section "practice")
CONTRACT = ("sinusoidal_encoding", "rope_inv_freq", "rope_cos_sin", "apply_rope_half", "apply_rope_interleaved",
            "alibi_slopes", "alibi_bias", "t5_relative_bucket", "shaw_relative_index", "yarn_inv_freq")


def test_contract_tasks_are_there():
    assert set(CONTRACT) <= set(TASKS)
    assert set(MUTANTS) == set(TASKS) == set(CORRECT)


@pytest.mark.parametrize("task", TASKS)
def test_reference_and_correct_variants_pass(task):
    r = check(task, practice.reference(task))
    assert r.passed and r.diagnoses == [], str(r)
    assert CORRECT[task], "at least one differently computed correct solution"
    for fn in CORRECT[task]:
        r = check(task, fn)
        assert r.passed, f"{getattr(fn, '__name__', fn)} is correct but was rejected:\n{r}"
        assert r.diagnoses == []


@pytest.mark.parametrize("task", TASKS)
def test_every_mutant_is_rejected_with_its_own_diagnosis(task):
    assert len(MUTANTS[task]) >= 5, "at least five known-wrong implementations per task"
    for expected, fn in MUTANTS[task]:
        r = check(task, fn)
        assert not r.passed, f"{fn.__name__} survived"
        assert r.diagnoses, f"{fn.__name__}: failed without a diagnosis"
        assert expected in r.diagnoses[0], f"{fn.__name__}: expected {expected!r}, got {r.diagnoses}"
        assert r.diagnoses[0] in str(r) and "✗" in str(r)


@pytest.mark.parametrize("task", TASKS)
def test_diagnoses_tell_mutants_apart(task):
    """Mutants expecting different diagnoses get different ones (not one generic "wrong")."""
    seen: dict[str, str] = {}
    for expected, fn in MUTANTS[task]:
        diagnosis = check(task, fn).diagnoses[0]
        seen.setdefault(expected, diagnosis)
    texts = list(seen.values())
    assert len(set(texts)) == len(texts), seen


def test_named_diagnoses_of_the_issue():
    """The mistakes issue 31 names are diagnosed in these words."""
    from practice_mutants import (attn_once, cs_fp16, half_clockwise, inter_as_half, sin_from_one, sin_i_over_d,
                                  slopes_any_n, slopes_linear, t5_q_minus_k, yarn_reversed)
    cases = [("apply_rope_half", half_clockwise, "your rotation is clockwise (R_{-m})"),
             ("sinusoidal_encoding", sin_i_over_d, "frequencies use base^(-i/d) instead of base^(-2i/d)"),
             ("apply_rope_interleaved", inter_as_half, "interleaved pairs applied with the half layout"),
             ("sinusoidal_encoding", sin_from_one, "positions start at 1"),
             ("rope_cos_sin", cs_fp16, "angles computed in float16"),
             ("alibi_slopes", slopes_linear, "ALiBi slopes linear in the head index"),
             ("alibi_slopes", slopes_any_n, "non-power-of-two heads: the extra slopes come from 2c heads"),
             ("t5_relative_bucket", t5_q_minus_k, "T5 relative position taken as query − key"),
             ("yarn_inv_freq", yarn_reversed, "YaRN ramp reversed"),
             ("attention", attn_once, "attention factor applied to the logits once instead of to cos and sin")]
    for task, fn, words in cases:
        assert words in check(task, fn).diagnoses[0]


def test_float32_angles_pass_and_bfloat16_angles_are_diagnosed():
    def hf_float32(positions, head_dim, base=10000.0):  # what Hugging Face computes
        pos = torch.arange(positions) if isinstance(positions, int) else positions
        inv = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim)
        emb = (pos.float()[:, None] @ inv[None, :])
        emb = torch.cat([emb, emb], -1)
        return emb.cos(), emb.sin()

    assert check("rope_cos_sin", hf_float32).passed

    def bf16(positions, head_dim, base=10000.0):
        c, s = hf_float32(positions, head_dim, base)
        pos = torch.arange(positions) if isinstance(positions, int) else positions
        ang = pos.to(torch.bfloat16).float()[:, None] * (1.0 / base ** (torch.arange(0, head_dim, 2) / head_dim))
        ang = torch.cat([ang, ang], -1)
        return ang.cos(), ang.sin()

    assert check("rope_cos_sin", bf16).diagnoses == ["angles computed in bfloat16"]


def test_not_implemented_reports_and_raises_nothing():
    def skeleton(*args, **kwargs):
        raise NotImplementedError("write me")

    for task in TASKS:
        r = check(task, skeleton)
        assert not r.passed and r.diagnoses == ["not implemented yet"] and not r.implemented
        assert "not implemented yet" in str(r) and "not implemented yet" in r._repr_html_()


@pytest.mark.parametrize("fn", [lambda *a, **k: 1 / 0, lambda *a, **k: None, lambda *a, **k: "text",
                                lambda *a, **k: (torch.zeros(1),) * 3, lambda *a, **k: torch.full((2,), float("nan"))],
                         ids=["raises", "none", "string", "tuple", "nan"])
def test_a_crashing_or_odd_function_fails_without_raising(fn):
    for task in TASKS:
        r = check(task, fn)
        assert not r.passed and r.diagnoses
    assert "ZeroDivisionError" in check("rope_inv_freq", lambda *a: 1 / 0).diagnoses[0]


@pytest.mark.parametrize("task", ["rope_inv_freq", "pi_inv_freq", "ntk_inv_freq", "yarn_inv_freq", "sinusoidal_encoding",
                                  "rope_cos_sin", "alibi_slopes", "attention"])
def test_nan_anywhere_fails_with_a_nan_diagnosis(task):
    """The reference with NaN in all but its first entry (or in YaRN's attention_scaling) fails, and says NaN."""
    ref = practice.reference(task)

    def poison(t):
        t = t.clone()
        t.view(-1)[1:] = float("nan")
        return t

    def nan_tail(*a, **k):
        out = ref(*a, **k)
        if task == "yarn_inv_freq":
            return poison(out[0]), out[1]
        return tuple(poison(o) for o in out) if isinstance(out, tuple) else poison(out)

    r = check(task, nan_tail)
    assert not r.passed and r.diagnoses[0].startswith("your output contains NaN"), str(r)
    if task == "yarn_inv_freq":
        r = check(task, lambda *a: (ref(*a)[0], float("nan")))
        assert not r.passed and "attention_scaling" in r.diagnoses[0] and "NaN" in r.diagnoses[0], str(r)


def test_yarn_sweep_reaches_low_equal_high():
    """At least one YaRN input has low == high after rounding and clamping (Hugging Face's 0.001 guard)."""
    def low_high(d, base, factor, L0, bf, bs):
        def cdim(n):
            return d * math.log(L0 / (n * 2 * math.pi)) / (2 * math.log(base))
        return max(math.floor(cdim(bf)), 0), min(math.ceil(cdim(bs)), d - 1)

    pairs = [low_high(*c.args) for c in practice._tasks()["yarn_inv_freq"].cases()]
    assert any(lo == hi for lo, hi in pairs), pairs


def test_low_precision_is_told_apart_from_nan_and_from_a_cast_result():
    from practice_mutants import cs_all_nan, cs_cast_half, sin_all_nan, sin_cast_half
    for task, fn in [("sinusoidal_encoding", sin_all_nan), ("rope_cos_sin", cs_all_nan)]:
        assert "computed in" not in check(task, fn).diagnoses[0]
    for task, fn in [("sinusoidal_encoding", sin_cast_half), ("rope_cos_sin", cs_cast_half)]:
        assert check(task, fn).diagnoses[0].split(":")[0].endswith("returned in float16")


def test_unknown_mistake_is_one_line_not_the_table_again():
    def off(x, cos, sin):
        return posenc.apply_rope(x, cos, sin) * 1.01

    r = check("apply_rope_half", off)
    assert r.diagnoses == [practice.UNKNOWN]


def test_learned_lookup_refuses_only_with_value_or_index_error():
    from practice_mutants import learned_assert, learned_typo
    assert "AssertionError" in check("learned_lookup", learned_assert).diagnoses[0]
    assert "NameError" in check("learned_lookup", learned_typo).diagnoses[0]


def test_not_implemented_names_the_helper_that_raised():
    def rope_inv_freq(head_dim, base=10000.0):
        raise NotImplementedError

    def rope_cos_sin(positions, head_dim, base=10000.0):
        return rope_inv_freq(head_dim, base)

    r = check("rope_cos_sin", rope_cos_sin)
    assert not r.implemented and r.diagnoses == ["not implemented yet"]
    assert "rope_inv_freq()" in str(r) and "rope_inv_freq()" in r._repr_html_()
    r = check("rope_inv_freq", rope_inv_freq)
    assert "(your function raises NotImplementedError)" in str(r)


def test_check_validates_its_arguments():
    with pytest.raises(ValueError, match="rope_cos_sin") as e:
        check("rope", practice.reference("rope_inv_freq"))
    assert all(t in str(e.value) for t in CONTRACT)
    with pytest.raises(TypeError, match="fn"):
        check("rope_inv_freq", 3)
    with pytest.raises(ValueError, match="task"):
        practice.reference("nope")


def test_inputs_are_not_shared_with_the_learner():
    def in_place(x, cos, sin):  # scribbles on its inputs, then answers right
        out = posenc.apply_rope(x.clone(), cos, sin)
        x.zero_()
        cos.zero_()
        return out

    assert check("apply_rope_half", in_place).passed
    assert check("apply_rope_half", practice.reference("apply_rope_half")).passed


def test_report_as_text_and_html():
    from practice_mutants import half_clockwise

    bad = check("apply_rope_half", half_clockwise)
    text, page = str(bad), bad._repr_html_()
    assert text.startswith("apply_rope_half: ✗") and "smallest failing input" in text
    assert page.count("<tr>") == len(bad.rows) + 1 and "✗" in page and "✓" in page
    assert "R_{-m}" in page and "<script" not in page
    assert re.search(r"<td[^>]*>x \[2, 4\] float32, positions \[0, 1\]</td>", page), "the smallest failing input"
    good = check("apply_rope_half", posenc.apply_rope)
    assert "✗" not in good._repr_html_() and "passed" in str(good)
    # html special characters in a learner's exception are escaped
    r = check("rope_inv_freq", lambda *a: (_ for _ in ()).throw(RuntimeError("<b>&")))
    assert "&lt;b&gt;&amp;" in r._repr_html_()


def summary() -> list[tuple[str, int, int, int, int, int]]:
    rows = []
    for task in TASKS:
        killed = diagnosed = 0
        for expected, fn in MUTANTS[task]:
            r = check(task, fn)
            killed += not r.passed
            diagnosed += bool(r.diagnoses) and expected in r.diagnoses[0]
        accepted = sum(check(task, fn).passed for fn in [practice.reference(task), *CORRECT[task]])
        rows.append((task, len(MUTANTS[task]), killed, diagnosed, accepted, 1 + len(CORRECT[task])))
    return rows


def format_summary(rows) -> str:
    lines = [f"{'task':24} {'mutants':>7} {'killed':>6} {'diagnosed':>9} {'correct accepted':>16}"]
    lines += [f"{t:24} {n:7d} {k:6d} {d:9d} {a:>13d}/{c}" for t, n, k, d, a, c in rows]
    tot = [sum(r[i] for r in rows) for i in range(1, 6)]
    lines.append(f"{'all':24} {tot[0]:7d} {tot[1]:6d} {tot[2]:9d} {tot[3]:>13d}/{tot[4]}")
    return "\n".join(lines)


def test_summary_table():
    rows = summary()
    print("\n" + format_summary(rows))
    assert all(n == k == d and a == c for _, n, k, d, a, c in rows)


# ---- the practice notebooks: skeletons as shipped, solutions in the book -----------------------
def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


SOLUTION = re.compile(r"(?:```|:::)\{dropdown\}[^\n]*\n(?:[^\n]*\n)*?```python\n(?P<code>.*?)\n```", re.S)


def _solutions(path):
    out = []
    for c in _cells(path):
        if c["cell_type"] == "markdown":
            out += [m.group("code") for m in SOLUTION.finditer("".join(c["source"]))]
    return out


def test_practice_notebooks_exist():
    names = [p.name for p in PRACTICE_NOTEBOOKS]
    assert names == ["practice_1_absolute_relative.ipynb", "practice_2_rope.ipynb",
                     "practice_3_alibi_scaling.ipynb", "practice_4_attention.ipynb"]


@pytest.mark.parametrize("path", PRACTICE_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_ships_skeletons_and_collapsed_solutions_that_pass(path):
    cells = _cells(path)
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    checks = [re.fullmatch(r'check\("(\w+)", (\w+)\)', c.strip()) for c in code]  # the task checks
    checked = [(m.group(1), m.group(2)) for m in checks if m]
    assert checked, "a practice notebook checks something"
    for task, name in checked:
        skeleton = next(c for c in code if re.search(rf"^def {name}\(", c, re.M))
        assert "raise NotImplementedError" in skeleton, f"{name}: the task cell holds the skeleton"
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert sum("not implemented yet" in json.dumps(o) for o in outputs) >= len(checked)
    solutions = _solutions(path)
    assert len(solutions) >= len(checked), "every task has its solution in a dropdown"
    namespace: dict = {}
    exec("import math\nimport torch\nimport posenc\n", namespace)
    for src in solutions:
        exec(src, namespace)
    for task, name in checked:
        r = check(task, namespace[name])
        assert r.passed, f"{path.name}: the solution of {name} fails:\n{r}"


@pytest.mark.parametrize("path", PRACTICE_NOTEBOOKS, ids=lambda p: p.stem)
def test_every_task_links_back_to_its_chapter(path):
    md = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    links = re.findall(r"\]\((\d\d_[a-z_]+)\.ipynb", md)
    assert links, "links back to the chapters"
    for name in links:
        assert (ROOT / "notebooks" / f"{name}.ipynb").exists(), name


if __name__ == "__main__":
    print(format_summary(summary()))
