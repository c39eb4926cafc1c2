"""Load every built page of the book in headless Chromium and check what a reader sees.

Run after a build (``make test`` does it in order): ``pytest -m browser``. Uses the system Chromium
(``CHROMIUM`` overrides the path); a browser that a test runner downloads itself is not available
on the CI machines. A screenshot of every page is saved under ``_build/screenshots/``.
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
PAGES = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
               if not p.relative_to(HTML).as_posix().startswith("_")) if HTML.is_dir() else []
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

# Raw TeX left on a page means MathJax did not typeset it.
RAW_TEX = r"/\\(frac|mathrm|sqrt|begin\{|top\b|theta|mathbb)|\$\$/"


def _chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("no system Chromium found: install Debian's 'chromium' (`.ci/run` does)")
    return path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output readable
        pass


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make book-strict)")
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_there_are_pages():
    assert "index.html" in PAGES and any(p.startswith("notebooks/") for p in PAGES)


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_cleanly(server, browser, page_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    outside, js_errors, failed = [], [], []

    def route(r):
        host = urlparse(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: js_errors.append(str(e)))
    page.on("requestfailed", lambda r: failed.append(r.url) if "127.0.0.1" in r.url else None)
    page.goto(f"{server}/{page_path}", wait_until="load")
    page.wait_for_load_state("networkidle")
    has_mathjax = page.evaluate("() => !!(window.MathJax && window.MathJax.startup)")
    if has_mathjax:
        page.evaluate("() => window.MathJax.startup.promise")
    report = page.evaluate(
        """(rawTex) => {
        const re = new RegExp(rawTex.slice(1, -1));
        const main = document.querySelector('main') || document.body;
        const untypeset = [...main.querySelectorAll('.math')].filter(e => !e.querySelector('mjx-container'));
        // text outside code, after typesetting: raw TeX here means MathJax failed
        const clone = main.cloneNode(true);
        clone.querySelectorAll('pre, code, mjx-container, script, style, .highlight').forEach(e => e.remove());
        const text = clone.innerText || '';
        const m = text.match(re);
        const imgs = [...document.images];
        return {
          untypeset: untypeset.length,
          rawTex: m ? text.slice(Math.max(0, m.index - 40), m.index + 40) : null,
          typeset: main.querySelectorAll('mjx-container').length,
          brokenImages: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
          images: imgs.length,
          errors: main.querySelectorAll('.output.error, .output.traceback, .output.stderr, .traceback').length,
          traceback: /Traceback \\(most recent call last\\)/.test(main.innerText),
          widgets: document.querySelectorAll('.jupyter-widgets, .widget-slider, input[type=range], '
            + 'script[type="application/vnd.jupyter.widget-view+json"]').length,
        };
    }""",
        RAW_TEX,
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / (page_path.replace("/", "__").removesuffix(".html") + ".png")), full_page=True)
    page.close()

    assert outside == [], f"requests left the machine: {outside[:5]}"
    assert failed == [], f"local requests failed: {failed[:5]}"
    assert js_errors == [], f"JavaScript errors: {js_errors[:3]}"
    assert report["untypeset"] == 0 and report["rawTex"] is None, f"math not typeset: {report}"
    assert report["brokenImages"] == [], f"images did not load: {report['brokenImages'][:5]}"
    assert report["errors"] == 0 and not report["traceback"], f"error output on the page: {report}"
    assert report["widgets"] == 0, "a widget renders as a control with no kernel behind it"
    if page_path.startswith("notebooks/"):
        assert report["typeset"] > 0 and report["images"] > 0, f"a chapter without math or figures: {report}"
