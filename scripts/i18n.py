"""The Chinese edition (中文版): its configuration, its catalogs, its checks and its notebooks.

    python scripts/i18n.py config      # _build/zh/_config.yml: the book's configuration in Chinese
    python scripts/i18n.py update      # merge the extracted messages (_build/i18n) into locales/zh_CN
    python scripts/i18n.py start DOC   # begin translating DOC (e.g. notebooks/04_rope): create its catalog
    python scripts/i18n.py check       # every message translated, not fuzzy, its math, code, numbers
                                       # and terms kept (the same checks as tests/test_i18n.py)
    python scripts/i18n.py notebooks   # _build/zh/notebooks/*.ipynb: translated prose, same code and outputs

``make i18n-update`` runs the gettext build and ``update``: a changed English message comes back
fuzzy (or new), and ``make book-zh`` fails until its translation is updated. The Sphinx side (the
summaries of collapsed blocks, the untranslated-message warning, the link between editions) is
``book/_ext/posenc_i18n.py``.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import re
import sys
from pathlib import Path

import yaml
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from posenc_cite import CITE_LINK, cite_links_to_roles  # noqa: E402
from posenc_i18n import UNTRANSLATED, translate_summaries  # noqa: E402

LANGUAGE = "zh_CN"
CATALOGS = ROOT / "locales" / LANGUAGE / "LC_MESSAGES"
#: where ``make i18n-update`` has the gettext builder write the message templates
TEMPLATES = ROOT / "_build" / "i18n" / "_build" / "gettext"
ZH = ROOT / "_build" / "zh"
TITLE = "Transformer 中的位置编码"
FOOTER = (
    "本书给出的每个数字从何而来（断言检查、打印、已保存运行、计算或注明出处的引用），"
    "设计说明中关于文中数字种类的一节有说明；"
    "测试本书时测得的时间既不断言也不显示。"
    "本书的图、交互探索器、代码及其注释、练习检查器的提示均为英文。"
)

#: One Chinese term for each term of the glossary (book/glossary.md gives both): an English message
#: that uses the term has the Chinese term in its translation (or keeps the English, as in a title).
TERMS: tuple[tuple[str, str], ...] = (
    (r"position(?:al)? (?:encoding|embedding)s?", "位置编码"),
    (r"self-attention", "自注意力"),
    (r"causal mask", "因果掩码"),
    (r"permutation[- ]equivarian(?:t|ce)", "置换等变"),
    (r"permutation[- ]invarian(?:t|ce)", "置换不变"),
    (r"absolute position(?:al)? (?:encoding|embedding)s?", "绝对位置编码"),
    (r"sinusoidal (?:position(?:al)? )?encodings?", "正弦位置编码"),
    (r"wavelengths?", "波长"),
    (r"relative position(?:al)? (?:encoding|embedding)s?", "相对位置编码"),
    (r"relative (?:position )?bias(?:es)?", "相对位置偏置"),
    (r"linear attention", "线性注意力"),
    (r"rotary position(?:al)? embeddings?", "旋转位置编码"),
    (r"rotation matri(?:x|ces)", "旋转矩阵"),
    (r"long-term decay", "远程衰减"),
    (r"extrapolat(?:e|es|ed|ing|ion)", "外推"),
    (r"length generali[sz]ation", "长度泛化"),
    (r"context extension", "上下文扩展"),
    (r"position interpolation", "位置插值"),
    (r"interpolat(?:e|es|ed|ing|ion)", "插值"),
    (r"perplexity", "困惑度"),
    (r"chunked attention", "分块注意力"),
    (r"key/value cache|KV cache", "KV 缓存"),
    (r"weight absorption", "权重吸收"),
    (r"multi-head latent attention", "多头潜在注意力"),
    (r"attention sinks?", "注意力汇聚点"),
    (r"dynamic NTK", "动态 NTK"),
)
#: Other Chinese renderings of those terms: one of these in a translation is a term translated two ways.
VARIANTS: dict[str, str] = {
    "位置嵌入": "位置编码",
    "旋转式位置编码": "旋转位置编码",
    "旋转位置嵌入": "旋转位置编码",
    "因果遮罩": "因果掩码",
    "因果掩膜": "因果掩码",
    "排列等变": "置换等变",
    "排列不变": "置换不变",
    "长程衰减": "远程衰减",
    "远距离衰减": "远程衰减",
    "外插": "外推",
    "内插": "插值",
    "左填充": "左补齐",  # padding is 补齐; 填充 is the filler text of chapters 8 and 11
    "左侧填充": "左侧补齐",
    "填充下标": "补齐下标",
    "三角函数位置编码": "正弦位置编码",
    "正弦编码": "正弦位置编码",
    "注意力沉没": "注意力汇聚点",
    "键值缓存": "KV 缓存",
}

MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
CODE = re.compile(r"`[^`\n]+`")
URL = re.compile(r"\]\(([^)\s]+)")
#: A cross-reference role with its own link text, {doc}`text <target>`: the text is prose and is
#: translated; the role and the target must reappear unchanged.
ROLE_LINK = re.compile(r"\{(doc|ref)\}`([^`<\n]*?)\s*<([^>`\n]+)>`")
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")


# ---- the documents and their catalogs -----------------------------------------------------------


def documents() -> list[str]:
    """The translated documents, in the book's order (``_toc.yml`` less :data:`UNTRANSLATED`)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [name for name in names if name not in UNTRANSLATED]


def translated() -> list[str]:
    """The documents translated so far: those with a catalog. ``make i18n-update`` creates the catalog
    of a document when it is first extracted; from then on the strict Chinese build and the checks
    require every one of its messages."""
    return [name for name in documents() if catalog_path(name).exists()]


def catalog_path(docname: str) -> Path:
    return CATALOGS / f"{docname}.po"


def read_catalog(path: Path) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale=LANGUAGE)


def translations(docname: str) -> dict[str, str]:
    """msgid -> msgstr of the document's translated, non-fuzzy messages."""
    path = catalog_path(docname)
    if not path.exists():
        return {}
    return {m.id: m.string for m in read_catalog(path) if m.id and m.string and not m.fuzzy}


# ---- config ---------------------------------------------------------------------------------------


def zh_config(english: dict) -> dict:
    """The Chinese book's configuration from the English one: the same book, in ``zh_CN``, with
    paths made absolute (the file lives in ``_build/zh``) and the explorers' frames shared."""
    config = copy.deepcopy(english)
    config["title"] = TITLE
    config["html"]["extra_footer"] = FOOTER
    config["bibtex_bibfiles"] = [str(ROOT / f) for f in english["bibtex_bibfiles"]]
    sphinx = config["sphinx"]
    sphinx["local_extensions"] = {
        name: str(ROOT / where) for name, where in english["sphinx"]["local_extensions"].items()
    }
    sphinx["config"]["language"] = LANGUAGE
    sphinx["config"]["locale_dirs"] = [str(ROOT / "locales")]
    sphinx["config"]["posenc_explorer_cache"] = str(ROOT / "_build" / ".posenc_explorers")
    return config


def write_config() -> Path:
    english = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    ZH.mkdir(parents=True, exist_ok=True)
    target = ZH / "_config.yml"
    target.write_text(yaml.safe_dump(zh_config(english), allow_unicode=True, sort_keys=False), encoding="utf-8")
    return target


# ---- update ---------------------------------------------------------------------------------------


def update(start: list[str] | None = None) -> list[str]:
    """Merge the extracted templates into the catalogs of the translated documents (and create the
    catalogs of ``start``): new messages empty, changed ones fuzzy (with the old translation kept for
    reference), removed ones dropped. Returns a line per document."""
    report = []
    unknown = sorted(set(start or []) - set(documents()))
    if unknown:
        raise SystemExit(f"not documents of the book: {unknown} (choose from {documents()})")
    for docname in [d for d in documents() if d in translated() or d in (start or [])]:
        template_path = TEMPLATES / f"{docname}.pot"
        if not template_path.exists():
            raise SystemExit(f"{template_path} is missing: run `make i18n-update` (it extracts first)")
        with open(template_path, "rb") as f:
            template = read_po(f)
        path = catalog_path(docname)
        catalog = read_catalog(path) if path.exists() else Catalog(locale=LANGUAGE, project="posenc")
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            write_po(f, catalog, width=0, ignore_obsolete=True, omit_header=False, sort_output=False)
        todo = sum(1 for m in catalog if m.id and (not m.string or m.fuzzy))
        report.append(f"{docname}: {sum(1 for m in catalog if m.id)} messages, {todo} to translate")
    return report


# ---- checks ---------------------------------------------------------------------------------------


def _outside_code(text: str) -> str:
    return CODE.sub(" ", MATH.sub(" ", URL.sub("](", text)))


@functools.cache
def _commonmark():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _stray_asterisks(text: str) -> int:
    """Asterisks that Markdown prints as text, outside math and code: emphasis that does not render, as
    when a closing ``*`` follows full-width punctuation and precedes a Chinese character."""
    html = _commonmark().render(CODE.sub("x", MATH.sub("x", text)))  # a span reads as one word
    return re.sub(r"<code>.*?</code>", "", html, flags=re.S).count("*")


def message_problems(msgid: str, msgstr: str) -> list[str]:
    """What a translation loses of its message: a math span, an inline code span, a link target or a
    number that does not reappear unchanged, or emphasis that no longer renders."""
    problems = []
    if _stray_asterisks(msgstr) > _stray_asterisks(msgid):
        problems.append("emphasis not rendered: put a space outside a '*' that touches full-width punctuation")
    translated = {(kind, target) for kind, _, target in ROLE_LINK.findall(msgstr)}
    for kind, _, target in ROLE_LINK.findall(msgid):
        if (kind, target) not in translated:
            problems.append(f"link target {target!r} of {{{kind}}} not kept")
    plain_id, plain_str = ROLE_LINK.sub(" ", msgid), ROLE_LINK.sub(" ", msgstr)
    for kind, pattern in (("math", MATH), ("code", CODE)):
        for span in pattern.findall(plain_id):
            if plain_str.count(span) < plain_id.count(span):
                problems.append(f"{kind} {span!r} not kept")
    for url in URL.findall(msgid):
        if f"]({url}" not in msgstr:
            problems.append(f"link target {url!r} not kept")
    rest = NUMBER.findall(_outside_code(msgstr))
    for number in NUMBER.findall(_outside_code(msgid)):
        if number in rest:
            rest.remove(number)
        else:
            problems.append(f"number {number!r} not kept")
    return problems


def term_problems(msgid: str, msgstr: str) -> list[str]:
    """Terms of :data:`TERMS` rendered otherwise, and any of :data:`VARIANTS`."""
    problems = []
    english = _outside_code(msgid)
    for pattern, chinese in TERMS:
        found = re.search(rf"(?<![\w-]){pattern}(?![\w-])", english, re.I)
        if found and chinese not in msgstr and found[0].lower() not in msgstr.lower():
            problems.append(f"{found[0]!r} is {chinese!r} in this book")
    for variant, chinese in VARIANTS.items():
        if variant in msgstr:
            problems.append(f"{variant!r}: the book's term is {chinese!r}")
    return problems


def check(docnames: list[str] | None = None) -> list[str]:
    """Every problem of the catalogs of ``docnames`` (default: every document with a catalog)."""
    problems = []
    for docname in docnames or translated():
        path = catalog_path(docname)
        if not path.exists():
            problems.append(f"{docname}: no catalog ({path.relative_to(ROOT)})")
            continue
        for m in read_catalog(path):
            if not m.id:
                continue
            where = f"{path.relative_to(ROOT)}:{m.lineno}"
            if not m.string:
                problems.append(f"{where}: untranslated")
                continue
            if m.fuzzy:
                problems.append(f"{where}: fuzzy (the English changed: update the translation, drop the flag)")
            for problem in message_problems(m.id, m.string) + term_problems(m.id, m.string):
                problems.append(f"{where}: {problem}")
    return problems


# ---- translated notebooks -------------------------------------------------------------------------


def _markdown_parser():
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.base import DocutilsRenderer
    from myst_parser.parsers.mdit import create_md_parser

    english = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    extensions = set(english["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), DocutilsRenderer)


def _flexible(text: str) -> re.Pattern:
    """``text`` with any run of whitespace matching any run (a paragraph's continuation lines may be
    indented in the source, inside a list)."""
    return re.compile(r"\s+".join(re.escape(part) for part in text.split()))


def translate_markdown(source: str, table: dict[str, str], parser=None) -> tuple[str, list[str]]:
    """``source`` (one Markdown cell) with each paragraph, heading, list item and table cell replaced
    by its translation in ``table`` (msgid -> msgstr, as Sphinx extracts them), and the summaries of
    collapsed blocks translated; citation roles back to the cell's citation links. Returns the text
    and the messages that had no translation."""
    parser = parser or _markdown_parser()
    links = {m["key"]: m[0] for m in CITE_LINK.finditer(source)}
    missing: list[str] = []
    out, cursor = [], 0
    # where each source line starts: a message is looked for from its own line on, so that a word it shares
    # with an earlier HTML block (a collapsed block's summary) is not taken for it
    line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
    for token in parser.parse(source):
        if token.type != "inline" or not token.content.strip():
            continue
        message = cite_links_to_roles(token.content).replace("\n", " ").strip()
        if message not in table:
            if re.search(r"[A-Za-z]", message):
                missing.append(message)
            continue
        start = max(cursor, line_starts[token.map[0]]) if token.map and token.map[0] < len(line_starts) else cursor
        match = _flexible(token.content.strip()).search(source, start)
        if match is None:
            missing.append(message)
            continue
        out.append(source[cursor : match.start()])
        out.append(table[message])
        cursor = match.end()
    out.append(source[cursor:])
    text = "".join(out)

    def summary(text: str) -> str:
        if text not in table:
            missing.append(text)
            return text
        return table[text]

    text = translate_summaries(text, summary)

    def link(match: re.Match) -> str:
        key = match[1]
        if key not in links:
            missing.append(f"citation {key} (not cited in the English cell)")
            return match[0]
        return links[key]

    text = re.sub(r"\{cite:t\}`([\w:-]+)`", link, text)
    return text, missing


def translate_notebook(nb: dict, table: dict[str, str], parser=None) -> tuple[dict, list[str]]:
    """A copy of the notebook ``nb`` (its JSON) with its Markdown cells translated; code cells and
    their stored outputs unchanged; the notebook's language recorded in its metadata."""
    parser = parser or _markdown_parser()
    out = copy.deepcopy(nb)
    missing: list[str] = []
    for cell in out["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        text, lost = translate_markdown(source, table, parser)
        missing += lost
        cell["source"] = text.splitlines(keepends=True)
    out["metadata"]["language_info"] = dict(out["metadata"].get("language_info", {}))
    out["metadata"]["posenc"] = {"edition": LANGUAGE, "source": "translated from the English notebook"}
    return out, missing


def write_notebooks(target: Path = ZH / "notebooks") -> list[str]:
    """Write the chapters and Practice notebooks translated so far (:func:`translated`); returns every
    untranslated message."""
    parser = _markdown_parser()
    target.mkdir(parents=True, exist_ok=True)
    missing = []
    for docname in translated():
        if not docname.startswith("notebooks/"):
            continue
        source = ROOT / f"{docname}.ipynb"
        nb, lost = translate_notebook(json.loads(source.read_text(encoding="utf-8")), translations(docname), parser)
        missing += [f"{docname}: {m[:100]}" for m in lost]
        text = json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        (target / source.name).write_text(text, encoding="utf-8")
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["config", "update", "start", "check", "notebooks"])
    parser.add_argument("docs", nargs="*", help="for start: the documents to begin translating")
    args = parser.parse_args(argv)
    if args.command == "config":
        print(write_config().relative_to(ROOT))
        return 0
    if args.command in ("update", "start"):
        print("\n".join(update(args.docs if args.command == "start" else None)))
        return 0
    if args.command == "check":
        problems = check()
        done = translated()
        print("\n".join(problems) or f"{len(done)} of {len(documents())} documents translated; every message checked")
        return 1 if problems else 0
    missing = write_notebooks()
    if missing:
        print("untranslated:\n" + "\n".join(missing))
        return 1
    print(f"wrote {(ZH / 'notebooks').relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
