"""The book in two languages: the English source and its Chinese edition (中文版) from the same files.

The Chinese edition is Sphinx's own internationalisation: ``make i18n-update`` extracts every
paragraph, list item, heading and display equation of the book into gettext catalogs (one per
document), ``locales/zh_CN/LC_MESSAGES/**.po`` holds their translations, and ``make book-zh`` builds
the book again with ``language = "zh_CN"`` (``scripts/i18n.py`` writes its configuration). This
extension adds what Sphinx does not do by itself:

Collapsed blocks
    A collapsed block is raw HTML (``<details><summary>How we know: …</summary>``), which gettext
    does not extract. The gettext build gets each summary as a message of its document; the
    translated build puts its translation into the summary.

Nothing left in English by accident
    In the translated build, a message of a translated document (one with a catalog) with no
    translation (new, changed since it was translated, or marked fuzzy) is a warning, so the strict
    build (``-W``) fails: a change to the English text is not done until the Chinese follows. A
    document with no catalog yet is shown in English, and its page says so.

A link between the editions
    Every page starts with a link to the same page in the other edition (the two books are built
    side by side: ``_build/html`` and ``_build/zh/html``). Chinese pages also say what stays in
    English: figures, explorers, code and the Practice checker's messages, and the pages the
    edition does not translate (:data:`UNTRANSLATED`).

A faster Chinese search index
    Sphinx 7.4's ``SearchChinese`` keeps every Latin word it has met in a list and looks each word up in
    it before stemming, so the index takes time quadratic in the book's words: about 30 of the Chinese
    build's 90 CPU-seconds. :class:`_SearchChinese` keeps them in a set: the same lookups, the same index.
"""

from __future__ import annotations

import html
import re
from os import path

from docutils import nodes
from sphinx.locale import init as init_locale
from sphinx.search import zh as sphinx_zh
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import extract_messages

logger = logging.getLogger(__name__)

#: The languages the book is written in (its source) and translated into.
SOURCE_LANGUAGE = "en"
#: The pages the Chinese edition keeps in English (reference material: docstrings, design, bibliography).
UNTRANSLATED = ("book/api", "book/design", "book/references")
#: The summary of a collapsed block in a document's raw HTML.
SUMMARY = re.compile(r"(<summary>)(?P<text>.*?)(</summary>)", re.S)
#: Where each edition's HTML root is, seen from the other's (``_build/html`` and ``_build/zh/html``).
OTHER_EDITION = {"en": "../zh/html/", "zh_CN": "../../html/"}
EDITION_LINK = {"en": ("zh-CN", "中文版"), "zh_CN": ("en", "English edition")}
#: What a Chinese page says about the parts that stay in English.
ZH_NOTE = "本书的图、交互探索器、代码及其注释、练习检查器的提示均为英文。"
ZH_UNTRANSLATED_NOTE = "本页为参考资料，未翻译，保留英文原文。"
#: What a Chinese page says while its document has no catalog yet (``scripts/i18n.py start``).
ZH_PENDING_NOTE = "本页尚未翻译，以下为英文原文。"


def summaries(text: str) -> list[str]:
    """The summaries of the collapsed blocks in ``text`` (raw HTML or Markdown), in order."""
    return [match["text"].strip() for match in SUMMARY.finditer(text)]


TAG = re.compile(r"(</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?>)")


def translate_summaries(text: str, translate) -> str:
    """``text`` with each summary replaced by ``translate(summary)``, HTML-escaped as it was: the tags
    the English summary holds (``<code>``) stay tags, any other ``<`` or ``&`` is text."""

    def one(match: re.Match) -> str:
        source = html.unescape(match["text"].strip())
        tags = set(TAG.findall(match["text"]))
        parts = TAG.split(translate(source))
        escaped = "".join(
            part if i % 2 and part in tags else html.escape(part, quote=False) for i, part in enumerate(parts)
        )
        return match[1] + escaped + match[3]

    return SUMMARY.sub(one, text)


def _edition(app) -> str:
    return app.config.language if app.config.language in OTHER_EDITION else SOURCE_LANGUAGE


def _catalog(app, docname: str) -> dict[str, str] | None:
    """The document's translations (msgid -> msgstr) in the build's language, merged as Sphinx's own
    ``Locale`` transform merges them (Sphinx compiles the ``.po`` files); None without a catalog."""
    dirs = [path.join(app.srcdir, directory) for directory in app.config.locale_dirs]
    domain = docname_to_domain(docname, app.config.gettext_compact)
    catalog, has_catalog = init_locale(dirs, app.config.language, domain)
    if not has_catalog:
        return None
    catalogues = [getattr(catalog, "_catalog", None)]
    while (catalog := getattr(catalog, "_fallback", None)) is not None:
        catalogues.append(getattr(catalog, "_catalog", None))
    merged: dict[str, str] = {}
    for catalogue in filter(None, reversed(catalogues)):
        merged |= catalogue
    return merged


def _summaries_as_messages(app, doctree) -> None:
    """``doctree-read`` under the gettext builder: each summary of a collapsed block becomes a
    message of its document (a paragraph only the catalog sees)."""
    if app.builder.name != "gettext":
        return
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split():
            continue
        for text in summaries(raw.astext()):
            message = html.unescape(text)
            paragraph = nodes.paragraph(message, message)
            paragraph.source, paragraph.line = raw.source or app.env.doc2path(app.env.docname), raw.line or 1
            raw.parent.insert(raw.parent.index(raw) + 1, paragraph)


def _translate(app, doctree) -> None:
    """``doctree-read`` in a translated build: translate the summaries of collapsed blocks, and warn
    about every message of a translated document that has no translation."""
    if _edition(app) == SOURCE_LANGUAGE or app.builder.name == "gettext":
        return
    docname = app.env.docname
    if docname in UNTRANSLATED:
        return
    known = _catalog(app, docname)
    if known is None:
        return  # not translated yet: the page says so (_edition_link)
    missing = []
    for raw in doctree.findall(nodes.raw):
        if "html" not in raw.get("format", "").split() or "<summary>" not in raw.astext():
            continue

        def translate(text: str) -> str:
            if text not in known:
                missing.append(text)
                return text
            return known[text]

        new = translate_summaries(raw.astext(), translate)
        raw.children = [nodes.Text(new)]
    translations = set(known.values())  # an image's alt text is translated in place, without a "translated" mark
    for node, message in extract_messages(doctree):
        if node.get("translated") or message in known or message in translations or not re.search(r"[A-Za-z]", message):
            continue
        missing.append(message)
    for message in missing:
        short = message if len(message) < 120 else message[:117] + "..."
        logger.warning(f"{docname}: untranslated or fuzzy message (translate it in its .po): {short!r}")


def _edition_link(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``: the link to this page in the other edition, and the Chinese notes."""
    if "body" not in context:
        return
    edition = _edition(app)
    lang, label = EDITION_LINK[edition]
    href = "../" * pagename.count("/") + OTHER_EDITION[edition] + pagename + ".html"
    parts = [f'<a class="posenc-edition-link" href="{href}" hreflang="{lang}" lang="{lang}">{label}</a>']
    if edition != SOURCE_LANGUAGE:
        if pagename in UNTRANSLATED:
            note = ZH_UNTRANSLATED_NOTE
        elif _catalog(app, pagename) is None:
            note = ZH_PENDING_NOTE
        else:
            note = ZH_NOTE
        parts.append(html.escape(note))
    banner = '<p class="posenc-edition">' + " · ".join(parts) + "</p>\n"
    context["body"] = banner + context["body"]


class _SearchChinese(sphinx_zh.SearchChinese):
    """Sphinx's Chinese search language with the Latin words met so far in a set (a list upstream).

    Shared by the instances, as upstream's class-level list is."""

    latin_terms: set[str] = set()  # type: ignore[assignment]

    def split(self, input: str) -> list[str]:
        chinese = list(sphinx_zh.jieba.cut_for_search(input)) if sphinx_zh.JIEBA else []
        latin1 = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin1)
        return chinese + latin1

    def stem(self, word: str) -> str:
        lower = word.lower()
        stemmed = self.stemmer.stemWord(lower)
        if word in self.latin_terms and len(word) >= 3 and len(stemmed) < 3:
            return lower  # too short once stemmed: kept whole, as upstream
        return stemmed


def setup(app):
    app.add_search_language(_SearchChinese)
    app.connect("doctree-read", _summaries_as_messages)
    app.connect("doctree-read", _translate)
    app.connect("html-page-context", _edition_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
