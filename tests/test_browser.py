"""Load every built page of the book in headless Chromium and check what a reader sees.

Run after a build (``make test`` does it in order): ``pytest -m browser``. Uses the system Chromium
(``CHROMIUM`` overrides the path); a browser that a test runner downloads itself is not available
on the CI machines. With ``POSENC_SCREENSHOTS=1`` a full-page screenshot of every page is saved under
``_build/screenshots/`` (a record for people, not a check; the long API page takes tens of seconds).
``POSENC_BOOK_HTML`` points the tests at another build's ``html`` folder.

The kernel-less explorers (issue 14): on every page with an explorer cell, each explorer renders
from the widget state embedded in the page; moving each control (arrow keys on sliders, the options
of dropdowns, clicks on toggles) shows a new image (the input-to-image times are printed by
``test_report_html_latency``, never asserted: a wall-clock bound fails on a busy machine; the timed
runs with their spread are ``benchmarks/bench_explorers.py``); each control shows a
label and its value; nothing is requested from outside the machine (no CDN); no JavaScript error.
With JavaScript off, each explorer's static companion figure is shown instead. Citations read as
author-year links to entries of the bibliography page.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import statistics
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from test_jupyterlab import MIN_SLIDER_PX, PROBE_JS, RETRIED, _cite_links, _explorer_cells, cell_info, move_cell

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("POSENC_BOOK_HTML") or ROOT / "_build" / "html")
SHOTS = ROOT / "_build" / "screenshots"
SAVE_SHOTS = os.environ.get("POSENC_SCREENSHOTS") == "1"
PAGES = (
    sorted(
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if not p.relative_to(HTML).as_posix().startswith("_")
    )
    if HTML.is_dir()
    else []
)

# Raw TeX left on a page means MathJax did not typeset it.
RAW_TEX = r"/\\(frac|mathrm|sqrt|begin\{|top\b|theta|mathbb)|\$\$/"


def track(pending: dict) -> dict:
    """Handlers (event -> callables) that keep ``pending`` the page's requests still open (request -> URL)."""
    return {
        "request": [lambda r: pending.__setitem__(r, r.url)],
        "requestfinished": [lambda r: pending.pop(r, None)],
        "requestfailed": [lambda r: pending.pop(r, None)],
    }


@contextlib.contextmanager
def listening(page, route, handlers: dict):
    """While the block runs, route ``page``'s requests through ``route`` and add ``handlers`` (event ->
    callables); then take them off and leave for about:blank, so that the shared tab (conftest's
    ``tab``) comes clean to the next test and nothing of this page reaches its listeners."""
    page.route("**/*", route)
    for event, fns in handlers.items():
        for fn in fns:
            page.on(event, fn)
    try:
        yield
    finally:
        for event, fns in handlers.items():
            for fn in fns:
                page.remove_listener(event, fn)
        page.unroute("**/*", route)
        with contextlib.suppress(Exception):  # a failure of the test itself, not this, is what to report
            page.goto("about:blank")


def settle(page, pending: dict, timeout_s: float = 180.0, quiet_s: float = 0.5) -> None:
    """Wait for what a page fetches after "load": MathJax's typesetting (it fetches its fonts lazily),
    the fonts in use, then ``quiet_s`` with no request of ``pending`` open. Not Playwright's
    "networkidle", which its documentation discourages: here it once waited its full 180 s on the
    glossary page with no request open (stop 72) and, in a CI run of stop 71, on chapter 9's. A busy
    machine is slow, not broken (stop 54's CI: the 1.4 MB API page took over 90 s), hence the bound."""
    for attempt in range(3):  # a page that redirects (the book's index.html) loads its target first
        try:
            page.evaluate(
                "async () => { if (window.MathJax && window.MathJax.startup) await window.MathJax.startup.promise;"
                " await document.fonts.ready; }"
            )
            break
        except Exception as exc:
            if "context was destroyed" not in str(exc) or attempt == 2:
                raise
            page.wait_for_load_state("load", timeout=timeout_s * 1000)
    deadline, quiet_since = time.monotonic() + timeout_s, None
    while True:
        now = time.monotonic()
        if pending:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= quiet_s:
            return
        assert now < deadline, f"requests still open after {timeout_s:.0f} s: {list(pending.values())[:5]}"
        page.wait_for_timeout(50)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output readable
        pass


def serve(directory: Path):
    """Serve ``directory`` on a free local port while the generator is open; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make book-strict)")
    yield from serve(HTML)


def test_there_are_pages():
    assert "index.html" in PAGES and any(p.startswith("notebooks/") for p in PAGES)


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_cleanly(server, tab, page_path):
    page = tab
    outside, js_errors, failed, pending = [], [], [], {}

    def route(r):
        host = urlparse(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    handlers = track(pending)
    handlers["pageerror"] = [lambda e: js_errors.append(str(e))]
    handlers["requestfailed"].append(lambda r: failed.append(r.url) if "127.0.0.1" in r.url else None)
    with listening(page, route, handlers):
        page.goto(f"{server}/{page_path}", wait_until="load")
        settle(page, pending)  # MathJax has typeset the page
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
              // the Practice part's hints and solutions: raw HTML <details>, closed, their code not on screen
              details: main.querySelectorAll('details').length,
              detailsOpen: [...main.querySelectorAll('details')].filter(d => d.open).length,
              solutionsShown: [...main.querySelectorAll('details pre')].filter(p => p.checkVisibility()).length,
              // a chapter's evidence: collapsed blocks whose content is off screen until opened
              collapsedShown: [...main.querySelectorAll('details')].filter(d => !d.open)
                .flatMap(d => [...d.children].filter(c => c.tagName !== 'SUMMARY' && c.checkVisibility())).length,
              traceback: /Traceback \\(most recent call last\\)/.test(main.innerText),
              // widgets outside a kernel-less explorer would be snapshots of live widgets: dead controls
              widgets: [...document.querySelectorAll('.jupyter-widgets, .widget-slider, input[type=range], '
                + 'script[type="application/vnd.jupyter.widget-view+json"]')]
                .filter(e => !e.closest('.posenc-html-explorer, .posenc-frames')).length,
            };
        }""",
            RAW_TEX,
        )
        if SAVE_SHOTS:  # a record for people, not a check: the long API page takes tens of seconds
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(SHOTS / (page_path.replace("/", "__").removesuffix(".html") + ".png")),
                full_page=True,
                timeout=180_000,
            )

    assert outside == [], f"requests left the machine: {outside[:5]}"
    assert failed == [], f"local requests failed: {failed[:5]}"
    assert js_errors == [], f"JavaScript errors: {js_errors[:3]}"
    assert report["untypeset"] == 0 and report["rawTex"] is None, f"math not typeset: {report}"
    assert report["brokenImages"] == [], f"images did not load: {report['brokenImages'][:5]}"
    assert report["errors"] == 0 and not report["traceback"], f"error output on the page: {report}"
    assert report["widgets"] == 0, "a widget outside a kernel-less explorer: a control with no kernel behind it"
    if page_path.startswith("notebooks/practice_"):  # the Practice part: tasks and checks, no figures
        assert report["typeset"] > 0, f"a practice page without math: {report}"
        assert report["details"] >= 3, f"hints and a solution per task, collapsed: {report}"
        assert report["detailsOpen"] == 0 and report["solutionsShown"] == 0, f"a solution shows uncollapsed: {report}"
    elif page_path.startswith("notebooks/"):
        assert report["typeset"] > 0 and report["images"] > 0, f"a chapter without math or figures: {report}"
        # issue 36: the evidence is collapsed (raw HTML <details> and the hidden cells' toggles), closed
        assert report["details"] > 0, f"a chapter without a collapsed block: {report}"
        assert report["detailsOpen"] == 0 and report["collapsedShown"] == 0, f"a collapsed block shows: {report}"


# ---------------------------------------------------------------------------------------------
# the kernel-less explorers
PAGE_EXTRA_BYTES = 3 * 2**20  # issue 14: the explorers add at most 3 MB to a page
EXPLORER_PAGES = [
    (f"notebooks/{nb.stem}.html", _explorer_cells(nb))
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if _explorer_cells(nb)
]
HTML_LATENCIES: dict[str, list[dict]] = {}


@contextlib.contextmanager
def guarded(page, math: bool = True):
    """While the block runs, ``page`` refuses (and records) every request not to the local server, and
    records JavaScript errors, console errors, failed local requests and the requests still open;
    yields that log. ``math=False`` serves MathJax as an empty script, for a test of something else:
    typesetting took about a third of a page's CPU time (test_page_renders_cleanly checks the math)."""
    log: dict = {"outside": [], "errors": [], "failed": [], "requests": [], "pending": {}}

    def route(r):
        url = r.request.url
        log["requests"].append(url)
        if not math and "/mathjax/" in url:
            r.fulfill(body="", content_type="text/javascript")
        elif url.startswith(("data:", "blob:")) or urlparse(url).hostname in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            log["outside"].append(url)
            r.abort()

    handlers = track(log["pending"])
    handlers["pageerror"] = [lambda e: log["errors"].append(str(e))]
    handlers["console"] = [lambda m: log["errors"].append(m.text) if m.type == "error" else None]
    # a request cancelled because the page was left (net::ERR_ABORTED: MathJax fetches its fonts
    # lazily, so one may still be in flight) is not a failure of the book
    handlers["requestfailed"].append(
        lambda r: (
            log["failed"].append(f"{r.url} ({r.failure})")
            if "127.0.0.1" in r.url and r.failure != "net::ERR_ABORTED"
            else None
        )
    )
    with listening(page, route, handlers):
        yield log


@pytest.mark.parametrize("page_path,expected", EXPLORER_PAGES, ids=[p for p, _ in EXPLORER_PAGES])
def test_html_explorers_move_without_a_kernel(server, tab, page_path, expected):
    page, problems = tab, []
    with guarded(page, math=False) as log:
        page.goto(f"{server}/{page_path}", wait_until="load")
        page.evaluate(PROBE_JS)
        try:  # the widget manager renders the embedded state after load
            page.wait_for_function(
                "(n) => window.__posenc.roots(document).length >= n "
                "&& window.__posenc.roots(document).every(r => window.__posenc.image(r))",
                arg=len(expected),
                timeout=20_000,
            )
        except Exception:
            pass
        state = page.evaluate("""() => ({
            embedded: document.querySelectorAll('.posenc-html-explorer').length,
            rendered: window.__posenc.roots(document).length,
            bytes: [...document.querySelectorAll('.posenc-html-explorer')].reduce((a, e) => a + e.outerHTML.length, 0),
            scripts: [...document.querySelectorAll('script[src]')].map(s => s.src),
            cdnAttrs: [...document.querySelectorAll('[data-jupyter-widgets-cdn]')]
                .map(s => s.getAttribute('data-jupyter-widgets-cdn')) })""")
        assert state["embedded"] == len(expected) and state["rendered"] == len(expected), (
            f"{len(expected)} explorers expected ({expected}); embedded {state['embedded']}, "
            f"rendered {state['rendered']}"
        )
        if state["bytes"] > PAGE_EXTRA_BYTES:
            problems.append(
                f"the explorers weigh {state['bytes'] / 2**20:.1f} MB (> {PAGE_EXTRA_BYTES / 2**20:.0f} MB)"
            )
        problems += [
            f"a script from another host: {u}"
            for u in state["scripts"]
            if urlparse(u).hostname not in ("127.0.0.1", "localhost")
        ]
        problems += [f"a widget CDN is configured: {u}" for u in state["cdnAttrs"] if "//" in u]
        roots = page.evaluate_handle("() => window.__posenc.roots(document)")
        for i, name in enumerate(expected):
            root = page.evaluate_handle("([rs, i]) => rs[i]", [roots, i]).as_element()
            root.scroll_into_view_if_needed()
            problems += _explore_html(
                page,
                root,
                f"{page_path}: {i + 1}. {name}",
                SHOTS / f"{page_path.replace('/', '__').removesuffix('.html')}__{i + 1}_{name}",
            )
    problems += [f"request left the machine: {u}" for u in log["outside"][:5]]
    problems += [f"a request to a CDN: {u}" for u in log["requests"] if re.search(r"cdn|unpkg|jsdelivr", u)][:3]
    problems += [f"local request failed: {u}" for u in log["failed"][:5]]
    problems += [f"JavaScript error: {e[:200]}" for e in log["errors"][:5]]
    assert problems == [], "\n".join(problems)


def _explore_html(page, root, name: str, shot: Path) -> list[str]:
    problems = []
    n = page.evaluate("(r) => window.__posenc.cells(r).length", root)
    if n == 0:
        return [f"{name}: no controls"]
    if SAVE_SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        root.screenshot(path=f"{shot}.png")
    samples = []
    for j in range(n):
        info = cell_info(page, root, j)
        label = info["label"] or f"control {j}"
        if not info["label"]:
            problems.append(f"{name}: control {j} has no label")
        if info["slider"] and (info["trackPx"] or 0) < MIN_SLIDER_PX:
            problems.append(f"{name}: the '{label}' slider is {info['trackPx']:.0f} px wide (< {MIN_SLIDER_PX})")
        if info["slider"] and not (info["readout"] or info["box"]):
            problems.append(f"{name}: the '{label}' slider does not show its value")
        if not (info["slider"] or info["select"] or info["toggles"]):
            problems.append(f"{name}: '{label}' is not a control a reader can move")
        shown_before = _shown_value(page, root, j)
        try:
            moves = move_cell(page, root, j)
        except AssertionError as exc:
            problems.append(f"{name}: moving '{label}': {exc}")
            continue
        samples += [m for m in moves if m["what"] != "late"]  # a late one is a bound, not a timing
        if moves and _shown_value(page, root, j) == shown_before and len(moves) % 2 == 1:
            problems.append(f"{name}: '{label}' shows the same value after it moved: {shown_before!r}")
    HTML_LATENCIES[name] = samples
    return problems


def _shown_value(page, root, j) -> str:
    info = cell_info(page, root, j)
    if info["readout"] is not None:
        return info["readout"]
    return str(info["value"] if info["box"] else info["selected"] if info["select"] else info["pressed"])


@pytest.mark.parametrize("page_path,expected", EXPLORER_PAGES, ids=[p for p, _ in EXPLORER_PAGES])
def test_html_explorers_fall_back_without_javascript(server, tab_without_js, page_path, expected):
    page = tab_without_js
    with guarded(page) as log:
        page.goto(f"{server}/{page_path}", wait_until="load")
        fallbacks = page.evaluate("""() => [...document.querySelectorAll('.posenc-html-explorer')].map(e => {
            const cell = e.closest('.cell');
            let next = cell && cell.nextElementSibling;
            while (next && !next.matches('.cell')) next = next.nextElementSibling;
            const imgs = next ? [...next.querySelectorAll('img')] : [];
            const shown = imgs.filter(i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0);
            // with JavaScript off the <noscript> content is parsed and shown
            const note = e.querySelector('.posenc-noscript') || e.querySelector('noscript');
            return { companion: shown.length,
                     noscript: !!note && (note.matches('noscript') || note.getBoundingClientRect().height > 0),
                     controls: e.querySelectorAll('input, select, button, .widget-slider').length }; })""")
        if SAVE_SHOTS:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(SHOTS / (page_path.replace("/", "__").removesuffix(".html") + "__nojs.png")), full_page=True
            )
    assert len(fallbacks) == len(expected), f"{len(fallbacks)} explorers in the page, {len(expected)} expected"
    for name, f in zip(expected, fallbacks):
        assert f["companion"] > 0, f"{name}: without JavaScript no static companion figure follows the explorer"
        assert f["noscript"], f"{name}: without JavaScript the page does not say the explorer needs it"
        assert f["controls"] == 0, f"{name}: dead controls without JavaScript"
    assert log["outside"] == [], f"requests left the machine: {log['outside'][:5]}"


CHAPTER_SOURCES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("nb", [p for p in CHAPTER_SOURCES if _cite_links(p)], ids=lambda p: p.stem)
def test_citations_link_to_the_bibliography(nb):
    """Every citation of a chapter is an author-year citation whose year links to its entry on the
    bibliography page (sphinxcontrib-bibtex, ``bibtex_reference_style: author_year``)."""
    from html.parser import HTMLParser

    keys = {key for _, key in _cite_links(nb)}
    page = HTML / "notebooks" / f"{nb.stem}.html"
    assert page.exists(), f"{page} is missing: build the book first"

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.links, self.ids, self._href, self._text, self.main = [], set(), None, [], False

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "id" in a:
                self.ids.add(a["id"])
            if tag == "a" and a.get("href"):
                self._href, self._text = a["href"], []

        def handle_data(self, data):
            if self._href is not None:
                self._text.append(data)

        def handle_endtag(self, tag):
            if tag == "a" and self._href is not None:
                self.links.append((self._href, "".join(self._text).strip()))
                self._href = None

    chapter = Links()
    text = page.read_text(encoding="utf-8")
    chapter.feed(text)
    body = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
    assert "{cite" not in body and '"cite:' not in body, "raw citation markup in the HTML"
    cites = [(h, t) for h, t in chapter.links if "references.html#" in h]
    assert len(cites) >= len(keys), f"{len(keys)} works cited in the source, {len(cites)} citation links in the page"
    # author-year style: the link is the year ("n.d." for an undated web page, as the style prints it)
    undated = [t for _, t in cites if not re.fullmatch(r"(19|20)\d\d[a-z]?|n\.d\.", t)]
    assert not undated, f"a citation link that is not a year: {undated[:3]}"
    targets = {}
    for href, _ in cites:
        file, anchor = href.split("#", 1)
        targets.setdefault((page.parent / file).resolve(), set()).add(anchor)
    for file, anchors in targets.items():
        bib = Links()
        bib.feed(file.read_text(encoding="utf-8"))
        missing = anchors - bib.ids
        assert not missing, f"citation links to {file.name} point at no entry: {sorted(missing)[:3]}"


def test_report_html_latency(capsys):
    """Print the kernel-less explorers' input-to-image times measured above."""
    if not HTML_LATENCIES:
        pytest.skip("no HTML explorer was measured (run the whole module)")
    every = [m for v in HTML_LATENCIES.values() for m in v]
    with capsys.disabled():
        print(
            "\nHTML book explorers (no kernel), input -> new image on screen, ms: median [min-max]; frame swap median"
        )
        for name, v in HTML_LATENCIES.items():
            if v:
                ms = [m["ms"] for m in v]
                print(
                    f"  {name:55s} {statistics.median(ms):5.0f} [{min(ms):.0f}-{max(ms):.0f}]  "
                    f"swap {statistics.median(m['swap_ms'] for m in v):.1f}  n={len(v)}"
                )
        ms = [m["ms"] for m in every]
        print(
            f"  {'all':55s} {statistics.median(ms):5.0f} [{min(ms):.0f}-{max(ms):.0f}]  "
            f"swap {statistics.median(m['swap_ms'] for m in every):.1f}  n={len(every)}"
        )
        if RETRIED:
            print(f"  inputs made twice (no redraw the first time): {len(RETRIED)} {RETRIED[:3]}")
    assert all(m["ms"] > 0 for m in every)
    assert len(RETRIED) <= 2, f"{len(RETRIED)} inputs needed a second try: the explorers are not reliably live"
