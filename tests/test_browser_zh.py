"""The Chinese edition (`make book-zh`, `_build/zh/html`) in headless Chromium, beside the English book.

Both editions are served from one root (``_build``), as they are built, so the link between the
editions is followed as a reader follows it. Each translated page is in Chinese (``lang="zh-CN"``,
its title translated), typeset, free of JavaScript errors, and links to the same page in English
and back; a chapter's explorers move in the Chinese book as in the English one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_browser import PROBE_JS, SHOTS, _explore_html, _explorer_cells, _guarded_page, serve

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
ZH = BUILD / "zh" / "html"
sys.path.insert(0, str(ROOT / "scripts"))
import i18n  # noqa: E402

pytestmark = pytest.mark.browser

TRANSLATED = [f"{name}.html" for name in i18n.translated()]
CHAPTERS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if _explorer_cells(p))


@pytest.fixture(scope="module")
def server():
    if not (ZH / "index.html").exists():
        pytest.fail("_build/zh/html is missing: build the Chinese book first (make book-zh)")
    yield from serve(BUILD)


def test_some_documents_are_translated():
    assert TRANSLATED, "no document has a catalog in locales/zh_CN"


@pytest.mark.parametrize("page_path", TRANSLATED)
def test_a_translated_page_reads_in_chinese_and_links_to_english(server, browser, page_path):
    ctx, page, log = _guarded_page(browser)
    try:
        page.goto(f"{server}/zh/html/{page_path}", wait_until="load")
        # fonts and styles that MathJax and the theme fetch after "load": leaving the page before they
        # arrive aborts them, which the log would count as failed requests
        page.wait_for_load_state("networkidle", timeout=90_000)  # a busy machine: slow, not broken
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
    finally:
        ctx.close()
    assert log["errors"] == [] and log["failed"] == [] and log["outside"] == [], log


def document_lang(page) -> str:
    return page.evaluate("() => document.documentElement.lang")


def test_an_explorer_moves_in_the_chinese_book(server, browser):
    """The first chapter with an explorer, in the Chinese build: its kernel-less explorers render
    from the embedded state and each control shows a new image, as in the English book."""
    nb = CHAPTERS[0]
    expected = _explorer_cells(nb)
    page_path = f"notebooks/{nb.stem}.html"
    ctx, page, log = _guarded_page(browser)
    problems: list[str] = []
    try:
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
    finally:
        ctx.close()
    assert problems == [], "\n".join(problems)
    assert log["errors"] == [] and log["outside"] == [], log
