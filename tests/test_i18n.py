"""The Chinese edition: the catalogs' checks catch what a translation can lose, the translated
notebooks keep the English code and outputs, and every translated document is complete.
(The strict Chinese book build, `make book-zh`, and its browser test are stages of `make test`.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("myst_parser", reason="the book toolchain (myst-parser) is not installed here")
sys.path.insert(0, str(ROOT / "scripts"))
import i18n  # noqa: E402

# ---- the checks catch each kind of loss -----------------------------------------------------------

GOOD = (
    "Rotate pair $i$ by $p\\theta_i$ with `apply_rope` in [chapter 4](04_rope.ipynb): 64 positions.",
    "用 `apply_rope` 把第 $i$ 对旋转 $p\\theta_i$，见[第 4 章](04_rope.ipynb)：64 个位置。",
)


def test_a_faithful_translation_passes():
    assert i18n.message_problems(*GOOD) == []
    assert i18n.term_problems(*GOOD) == []


@pytest.mark.parametrize(
    "broken, kind",
    [
        (GOOD[1].replace("$p\\theta_i$", "$p \\theta_i$"), "math"),
        (GOOD[1].replace("`apply_rope`", "apply_rope"), "code"),
        (GOOD[1].replace("(04_rope.ipynb)", "(03_relative.ipynb)"), "link target"),
        (GOOD[1].replace("64 个", "六十四个"), "number"),
    ],
)
def test_a_lost_span_is_found(broken, kind):
    problems = i18n.message_problems(GOOD[0], broken)
    assert len(problems) == 1 and problems[0].startswith(kind), problems


def test_emphasis_that_does_not_render_is_found():
    english = "The loss is *fine* here."
    assert i18n.message_problems(english, "损失在这里是 *良好* 的。") == []
    problems = i18n.message_problems(english, "损失在这里是*良好（fine）*的。")  # `*` after `）`, before `的`
    assert len(problems) == 1 and problems[0].startswith("emphasis"), problems


def test_a_cross_reference_keeps_its_target_and_translates_its_text():
    english = "{doc}`The summary <summary>` puts every method side by side."
    assert i18n.message_problems(english, "{doc}`总结 <summary>` 把每种方法并排列出。") == []
    problems = i18n.message_problems(english, "{doc}`总结 <glossary>` 把每种方法并排列出。")
    assert len(problems) == 1 and problems[0].startswith("link target"), problems
    problems = i18n.message_problems(english, "总结把每种方法并排列出。")
    assert len(problems) == 1 and problems[0].startswith("link target"), problems


def test_a_number_inside_math_or_code_is_not_counted_twice():
    assert i18n.message_problems("Use $d = 64$ and `base=10000`.", "用 $d = 64$ 和 `base=10000`。") == []


@pytest.mark.parametrize(
    "msgid, msgstr, bad",
    [
        ("Extrapolation fails here.", "这里外插失败。", True),  # a variant of the book's term
        ("Extrapolation fails here.", "这里超出长度就失败。", True),  # the term lost
        ("Extrapolation fails here.", "这里外推失败。", False),
        ("See *Position Interpolation* (the title).", "见 *Position Interpolation*（标题）。", False),  # kept
        ("A relative position encoding.", "一种相对位置编码。", False),
        ("The KV cache grows.", "键值缓存增长。", True),
    ],
)
def test_one_term_for_each_glossary_entry(msgid, msgstr, bad):
    assert bool(i18n.term_problems(msgid, msgstr)) == bad


def test_every_term_is_the_glossarys():
    """The checked terms are the glossary's Chinese terms, and no glossary row lists a variant."""
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    for _, chinese in i18n.TERMS:
        assert chinese in glossary, chinese
    for variant in i18n.VARIANTS:
        assert variant not in glossary, variant


# ---- translated Markdown and notebooks -------------------------------------------------------------

CELL = """## A heading

A paragraph that cites [Su et al. 2021](https://arxiv.org/abs/2104.09864 "cite:su2021roformer")
over two lines.

- item one;
- item two.

<details>
<summary>How we know: a check</summary>

Inside.

</details>
"""
TABLE = {
    "A heading": "一个标题",
    "A paragraph that cites {cite:t}`su2021roformer` over two lines.": "引用 {cite:t}`su2021roformer` 的段落。",
    "item one;": "第一项；",
    "item two.": "第二项。",
    "How we know: a check": "我们如何知道：一个检查",
    "Inside.": "里面。",
}


def test_markdown_is_translated_block_by_block():
    text, missing = i18n.translate_markdown(CELL, TABLE)
    assert missing == []
    assert text.startswith("## 一个标题\n")
    assert '引用 [Su et al. 2021](https://arxiv.org/abs/2104.09864 "cite:su2021roformer") 的段落。' in text
    assert "- 第一项；\n- 第二项。" in text
    assert "<summary>我们如何知道：一个检查</summary>" in text and "\n里面。\n" in text


def test_a_word_of_a_collapsed_blocks_summary_is_not_taken_for_a_table_cell():
    cell = (
        "<details><summary>Where sources differ: the claims checked</summary>\n\n"
        "| claim | verdict |\n|---|---|\n| one | ✓ |\n\n</details>\n"
    )
    table = {
        "Where sources differ: the claims checked": "各家说法的分歧：核对的断言",
        "claim": "断言",
        "verdict": "结论",
        "one": "一",
    }
    text, missing = i18n.translate_markdown(cell, table)
    assert not missing and "<summary>各家说法的分歧：核对的断言</summary>" in text and "| 断言 | 结论 |" in text, text


def test_an_untranslated_block_is_reported():
    table = {k: v for k, v in TABLE.items() if k != "item two."}
    text, missing = i18n.translate_markdown(CELL, table)
    assert missing == ["item two."] and "- item two." in text


def test_the_chinese_configuration_is_the_english_one_in_chinese():
    import yaml

    english = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    zh = i18n.zh_config(english)
    assert zh["sphinx"]["config"]["language"] == "zh_CN"
    assert all(Path(p).is_absolute() and Path(p).exists() for p in zh["sphinx"]["local_extensions"].values())
    assert all(Path(p).exists() for p in zh["bibtex_bibfiles"])
    assert zh["parse"] == english["parse"] and zh["execute"] == english["execute"]
    assert english["sphinx"]["config"]["gettext_compact"] is False  # one catalog per document


# ---- the committed catalogs --------------------------------------------------------------------------


def test_every_translated_document_has_a_complete_checked_catalog():
    problems = i18n.check()
    assert not problems, f"{len(problems)} problems in locales/zh_CN:\n" + "\n".join(problems[:40])


def test_the_chinese_notebooks_keep_the_code_and_outputs(tmp_path):
    missing = i18n.write_notebooks(tmp_path)
    assert not missing, "\n".join(missing[:20])
    written = sorted(tmp_path.glob("*.ipynb"))
    assert len(written) == len([d for d in i18n.translated() if d.startswith("notebooks/")])
    for path in written:
        english = json.loads((ROOT / "notebooks" / path.name).read_text(encoding="utf-8"))
        chinese = json.loads(path.read_text(encoding="utf-8"))
        assert len(chinese["cells"]) == len(english["cells"])
        for en, zh in zip(english["cells"], chinese["cells"]):
            assert zh["cell_type"] == en["cell_type"]
            if en["cell_type"] == "code":
                assert zh["source"] == en["source"] and zh.get("outputs") == en.get("outputs")
                assert zh["metadata"] == en["metadata"]
            else:
                assert "{cite:t}" not in "".join(zh["source"])  # citations read as links in JupyterLab


def test_a_summarys_own_tags_stay_tags_and_other_brackets_stay_text():
    cell = (
        "<details><summary>fairseq's <code>get_embedding</code> is close &amp; a&lt;b</summary>\n\nin\n\n</details>\n"
    )
    table = {
        "fairseq's <code>get_embedding</code> is close & a<b": "fairseq 的 <code>get_embedding</code> 与之接近 & a<b"
    }
    text = i18n.translate_summaries(cell, table.__getitem__)
    assert "<summary>fairseq 的 <code>get_embedding</code> 与之接近 &amp; a&lt;b</summary>" in text, text


def test_the_chinese_search_language_indexes_as_sphinxs_own():
    """book/_ext/posenc_i18n.py's _SearchChinese keeps the Latin words met so far in a set, not Sphinx 7.4's list:
    the same terms and the same stems, word by word, as SearchChinese on the same texts in the same order."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from posenc_i18n import _SearchChinese, sphinx_zh

    SearchChinese = sphinx_zh.SearchChinese  # Sphinx's own, which the book's subclasses

    texts = [
        "旋转位置编码 RoPE rotates the queries and keys; ALiBi adds a bias.",
        "The KV cache holds keys: kv, ids, pos, a, is, as, the, RoPE again, 底数 base 10000.",
        "running runs ran cached caching cache dynamic NTK YaRN llama3 mscale_all_dim",
    ]
    ours, theirs = _SearchChinese({}), SearchChinese({})
    for text in texts:
        words = theirs.split(text)
        assert ours.split(text) == words
        assert [ours.stem(w) for w in words] == [theirs.stem(w) for w in words]
        assert [ours.word_filter(ours.stem(w)) for w in words] == [theirs.word_filter(theirs.stem(w)) for w in words]
