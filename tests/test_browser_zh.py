"""The Chinese edition (`make book-zh`, `_build/zh/html`), read from its files and in headless Chromium.

Every translated page, read from the built HTML: in Chinese (``lang="zh-CN"``, its title and text
translated), its math handed to MathJax (no ``$`` left in the prose), and linked to the same page in
English, which links back. The Chinese pages share every script, style and asset with each other, so
a sample of them, one of each kind (a book page, a chapter, a Practice notebook), is opened in
Chromium beside the English book: both editions are served from one root (``_build``), as they are
built, so the link between the editions is followed as a reader follows it; the page is typeset and
free of JavaScript errors and failed requests. A chapter's explorers move in the Chinese book as in
the English one. (The English book opens every page in Chromium: ``test_browser.py``.)
"""

from __future__ import annotations

import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_browser import PROBE_JS, SHOTS, _explore_html, _explorer_cells, guarded, serve, settle

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
ZH = BUILD / "zh" / "html"
sys.path.insert(0, str(ROOT / "scripts"))
import i18n  # noqa: E402

pytestmark = pytest.mark.browser

TRANSLATED = [f"{name}.html" for name in i18n.translated()]
#: Opened in Chromium: one page of each kind. The others are read from their files (test_a_translated_page_...).
IN_BROWSER = ["book/summary.html", "notebooks/05_decay.html", "notebooks/practice_2_rope.html"]
HAN = re.compile(r"[\u4e00-\u9fff]")


class _Page(HTMLParser):
    """What a reader sees of a built page: its language, title, text, the prose of its paragraphs, list
    items and table cells, and the link to the other edition."""

    PROSE = {"p", "li", "td"}

    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.lang = self.title = self.link = None
        self.text: list[str] = []
        self.prose: list[str] = []
        self._stack: list[str] = []
        self._skip = 0
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang")
        if tag == "a" and "posenc-edition-link" in (attrs.get("class") or "").split():
            self.link = attrs.get("href")
        if tag in ("script", "style"):
            self._skip += 1
        if tag not in ("br", "img", "meta", "link", "input", "hr", "source", "col", "wbr"):
            self._stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        if tag in self._stack:
            while self._stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self._skip:
            return
        if self._stack and self._stack[-1] == "title":
            self.title = (self.title or "") + data
        self.text.append(data)
        if self.PROSE & set(self._stack):
            self.prose.append(data)


def _target(page: Path, href: str) -> Path:
    return Path(os.path.normpath(page.parent / href.split("#")[0]))


CHAPTERS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if _explorer_cells(p))


@pytest.fixture(scope="module")
def server():
    if not (ZH / "index.html").exists():
        pytest.fail("_build/zh/html is missing: build the Chinese book first (make book-zh)")
    yield from serve(BUILD)


def test_some_documents_are_translated():
    assert TRANSLATED, "no document has a catalog in locales/zh_CN"


def test_the_pages_opened_in_the_browser_are_translated_pages():
    assert set(IN_BROWSER) <= set(TRANSLATED), set(IN_BROWSER) - set(TRANSLATED)
    kinds = {p.split("/")[-1].split("_")[0].isdigit() for p in IN_BROWSER if p.startswith("notebooks/")}
    assert kinds == {True, False}  # a chapter and a Practice notebook


@pytest.mark.parametrize("page_path", TRANSLATED)
def test_a_translated_page_reads_in_chinese_and_links_to_english(page_path):
    path = ZH / page_path
    if not path.exists():
        pytest.fail(f"{path} is missing: build the Chinese book first (make book-zh)")
    zh = _Page(path)
    assert zh.lang == "zh-CN", zh.lang
    assert zh.title and HAN.search(zh.title), zh.title
    assert len(HAN.findall("".join(zh.text))) > 50
    raw = re.search(r"\$[^$\n]+\$", " ".join(zh.prose))
    assert raw is None, f"math left as $...$ in the prose: {raw.group(0)[:80]!r}"
    english = _target(path, zh.link or "")
    assert english == BUILD / "html" / page_path and english.exists(), (zh.link, english)
    en = _Page(english)
    assert en.lang == "en" and en.link and _target(english, en.link) == path, en.link


@pytest.mark.parametrize("page_path", IN_BROWSER)
def test_a_translated_page_in_the_browser(server, tab, page_path):
    page = tab
    with guarded(page) as log:
        page.goto(f"{server}/zh/html/{page_path}", wait_until="load")
        # fonts and styles that MathJax and the theme fetch after "load": leaving the page before they
        # arrive aborts them, which the log would count as failed requests
        settle(page, log["pending"])
        report = page.evaluate("""() => ({
            lang: document.documentElement.lang,
            title: document.title,
            han: (document.querySelector('article, main, body').innerText.match(/[\\u4e00-\\u9fff]/g) || []).length,
            rawTex: /\\$[^$]+\\$/.test([...document.querySelectorAll('p, li, td')].map(e => e.innerText).join(' ')),
            link: (document.querySelector('a.posenc-edition-link') || {}).href || null })""")
        assert report["lang"] == "zh-CN", report
        assert report["han"] > 50 and any("\u4e00" <= ch <= "\u9fff" for ch in report["title"]), report
        assert not report["rawTex"], f"untypeset math on the Chinese page: {report}"
        assert report["link"] and report["link"].endswith(f"/html/{page_path}"), report
        # the English page itself is checked by test_browser.py; here only its language and its link back
        page.goto(report["link"], wait_until="domcontentloaded")
        back = page.evaluate("() => (document.querySelector('a.posenc-edition-link') || {}).href || null")
        assert document_lang(page) == "en" and back and back.endswith(f"/zh/html/{page_path}"), back
    assert log["errors"] == [] and log["failed"] == [] and log["outside"] == [], log


def document_lang(page) -> str:
    return page.evaluate("() => document.documentElement.lang")


def test_an_explorer_moves_in_the_chinese_book(server, tab):
    """The first chapter with an explorer, in the Chinese build: its kernel-less explorers render
    from the embedded state and each control shows a new image, as in the English book."""
    nb = CHAPTERS[0]
    expected = _explorer_cells(nb)
    page_path = f"notebooks/{nb.stem}.html"
    page, problems = tab, []
    with guarded(page, math=False) as log:
        page.goto(f"{server}/zh/html/{page_path}", wait_until="load")
        page.evaluate(PROBE_JS)
        page.wait_for_function(
            "(n) => window.__posenc.roots(document).length >= n "
            "&& window.__posenc.roots(document).every(r => window.__posenc.image(r))",
            arg=len(expected),
            timeout=20_000,
        )
        assert document_lang(page) == "zh-CN"
        roots = page.evaluate_handle("() => window.__posenc.roots(document)")
        root = page.evaluate_handle("([rs, i]) => rs[i]", [roots, 0]).as_element()
        root.scroll_into_view_if_needed()
        problems += _explore_html(page, root, f"zh {page_path}: {expected[0]}", SHOTS / f"zh__{nb.stem}__1")
    assert problems == [], "\n".join(problems)
    assert log["errors"] == [] and log["outside"] == [], log
