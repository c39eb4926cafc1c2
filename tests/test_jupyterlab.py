"""The chapters as a JupyterLab reader meets them, driven in headless Chromium (``make browser-lab``).

One JupyterLab server runs on a scratch copy of ``notebooks/`` (the checkout is never touched), with
a token, a free port, no announcement or update checks, fresh settings and workspace folders (all
cells rendered: ``windowingMode: none``), kernels with one thread; one browser tab opens the
chapters one after another. For every chapter (``test_chapter_in_jupyterlab``):

- opening it and saving it (Ctrl+S: ``docmanager:save``) leaves the file byte-identical, and it is
  not marked modified on open (so ``git status`` stays clean);
- before Run All no cell shows a ``VBox(children=...)`` repr;
- markdown shows no raw ``{cite}`` markup, and every citation link of the source is rendered.

For a chapter with explorers (code cells ``SomeExplorer(...).widget()``), after Run All on a copy
that keeps only its set-up and explorer cells (nbval and the strict build run every cell already):

- no cell shows an error, no request leaves the machine, no JavaScript error is logged;
- every explorer renders; every control has a label; sliders are at least ``MIN_SLIDER_PX`` wide and
  show their value; each inline image is shown at most ``MAX_UPSCALE`` times its natural size;
- moving each control (arrow keys on sliders, typing into boxes, choosing in dropdowns, clicking
  toggles) redraws the image; the end-to-end latency, from the key press (or click) to the first
  animation frame after the new image has decoded, is recorded, each input starting from a settled
  page (the kernel idle, two frames drawn, then a pause spread evenly over one frame);
- invalid values typed into each box (base 0, factor 0, an empty box, 1e400, a negative number, a
  value beyond the slider's maximum) show the \u26a0 message; the box returns to its last good value
  (or is marked invalid); the figure neither changes nor moves;
- dependent ranges follow their setting (pair < head_dim / 2, head < number of heads).

The latencies (per explorer: median, range, samples) are printed by ``test_report_latency`` and
written to ``_build/lab/latency.json``; with ``POSENC_SAVE_LAB_LATENCY=1`` also to
``posenc/results/bench_explorers_lab.json`` (:func:`posenc.measure.save_results`). Screenshots go to
``_build/screenshots/lab/``. The server and its kernels are killed at the end, also on failure.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.jupyterlab]

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BUILD = ROOT / "_build"
SHOTS = BUILD / "screenshots" / "lab"
LATENCY_JSON = BUILD / "lab" / "latency.json"
JUPYTER = ROOT / ".venv" / "bin" / "jupyter"
SERVER_CONFIG = ROOT / "lab" / "jupyter_server_config.py"  # as `make lab` starts it (kernel websockets without Nagle)

MIN_SLIDER_PX = 150  # issue 17: no slider track narrower than this
MIN_BOX_PX = 40  # a text box or dropdown must show a few characters
MAX_UPSCALE = 1.1  # issue 17: an image shown at most 1.1x its natural size
REDRAW_TIMEOUT_MS = 10_000  # a redraw that takes longer than this is a failure, not a slow sample
RUN_ALL_TIMEOUT_MS = 120_000
EXPLORER_CELL = re.compile(r"^\s*(\w+Explorer)\(.*\)\.widget\(\)\s*$", re.M)

# In-page probe shared with tests/test_browser.py. An explorer is a `.posenc-explorer` box (else
# the outermost widget box holding an image); its controls are `.posenc-control` cells (else single
# widgets), each with a label, a slider and/or a box (text box, dropdown, toggle), and a
# `.posenc-message` line; its figure is the visible `.posenc-image` (else the visible <img>).
PROBE_JS = r"""
(() => {
  const visible = e => { if (!e || !e.isConnected) return false; const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const roots = node => {
    const marked = [...node.querySelectorAll('.posenc-explorer')];
    if (marked.length) return marked;
    return [...node.querySelectorAll('.widget-box')]
      .filter(b => b.querySelector('img') && !b.parentElement.closest('.widget-box'));
  };
  const image = root => { const imgs = [...root.querySelectorAll('img.posenc-image, .posenc-image img')];
    return (imgs.length ? imgs : [...root.querySelectorAll('img')]).filter(visible)[0] || null; };
  const WIDGET = '.widget-slider, .widget-text, .widget-dropdown, .widget-checkbox, .widget-toggle-button, ' +
                 '.widget-toggle-buttons, .widget-radio';
  const cells = root => { const marked = [...root.querySelectorAll('.posenc-control')].filter(visible);
    if (marked.length) return marked;
    return [...root.querySelectorAll(WIDGET)].filter(c => !c.parentElement.closest(WIDGET)).filter(visible); };
  const textOf = e => e ? e.textContent.replace(/\s+/g, ' ').trim() : '';
  const parts = cell => {
    const q = s => [...cell.querySelectorAll(s)].filter(visible)[0] || null;
    const slider = q('.widget-slider');
    const handle = slider && (slider.querySelector('.noUi-handle') || slider.querySelector('input[type=range]'));
    const box = q('input[type=text], input[type=number]');
    const select = q('select');
    const toggles = [...cell.querySelectorAll('button.widget-toggle-button, .widget-toggle-buttons button, ' +
                                           'input[type=checkbox], input[type=radio]')].filter(visible);
    const readout = slider && slider.querySelector('.widget-readout');
    const labels = [...cell.querySelectorAll('.widget-html-content, .widget-label')]
      .filter(e => visible(e) && !e.closest('.posenc-message')).map(textOf).filter(Boolean);
    const message = cell.querySelector('.posenc-message');
    return { slider, handle, box, select, toggles, readout: readout && visible(readout) ? readout : null,
             label: labels[0] || '', message };
  };
  const messages = root => [...root.querySelectorAll('.posenc-message')].map(textOf).filter(Boolean).join(' | ')
    || [...root.querySelectorAll('.widget-html-content')].map(textOf).filter(t => t.includes('\u26a0')).join(' | ');
  const width = e => e ? e.getBoundingClientRect().width : null;
  const info = (root, j) => { const c = cells(root)[j]; const p = parts(c);
    const num = (h, a, prop) => h ? Number(h.getAttribute(a) ?? h[prop]) : null;
    return { label: p.label, className: c.className,
      slider: !!p.slider, box: !!p.box, select: !!p.select, toggles: p.toggles.length,
      trackPx: p.slider ? width(p.slider.querySelector('.noUi-target, .slider-container, input[type=range]')) : null,
      boxPx: width(p.box || p.select), readout: p.readout ? textOf(p.readout) : null,
      now: num(p.handle, 'aria-valuenow', 'value'), min: num(p.handle, 'aria-valuemin', 'min'),
      max: num(p.handle, 'aria-valuemax', 'max'), valuetext: p.handle ? p.handle.getAttribute('aria-valuetext') : null,
      value: p.box ? p.box.value : null, boxMax: p.box && p.box.max !== '' ? Number(p.box.max) : null,
      options: p.select ? [...p.select.options].map(o => o.value) : [], selected: p.select ? p.select.value : null,
      pressed: p.toggles.filter(b => b.matches('.mod-active') || b.getAttribute('aria-pressed') === 'true' || b.checked)
        .map(b => textOf(b) || b.value || 'checked').join(','),
      message: p.message ? textOf(p.message) : null }; };
  const P = { visible, roots, image, cells, parts, info, messages, t0: null, tSwap: null, done: null, armed: false };
  window.__posenc = P;
  // the input that starts a redraw: a key press, a click or a dropdown's change
  for (const type of ['keydown', 'pointerdown', 'change'])
    document.addEventListener(type, () => { if (P.armed && P.t0 === null) P.t0 = performance.now(); }, true);
  // P.done: when the figure first differs, and the first frame after that: the visible image
  // (decoded), or else the live widget's title line. A change whose image is the same bytes (a base
  // that the plotted ratio does not depend on) sends no image: a title change counts as the change
  // only if no new image follows within TITLE_GRACE_MS (the title may be applied first).
  const TITLE_GRACE_MS = 400, DECODE_MS = 2000;
  const titleOf = root => { const t = root.querySelector('.posenc-title'); return t ? textOf(t) : null; };
  const holdsImage = n => n.nodeType === 1 && (n.tagName === 'IMG' || n.querySelector('img') !== null);
  const mayShowImage = r => r.type === 'childList' ? [...r.addedNodes, ...r.removedNodes].some(holdsImage)
    : r.type === 'attributes' && holdsImage(r.target);
  P.arm = root => {
    const before = image(root); const src = before && before.src; const title = titleOf(root);
    P.t0 = null; P.tSwap = null; P.done = null; P.armed = true; P.before = { src, title };
    P.finished = new Promise(resolve => { P.finish = done => { P.done = done; P.armed = false; resolve(done); }; });
    let titleAt = null, titleFrame = null, timer = null;
    const check = records => {
      if (P.done !== null || !P.armed) return;
      // the visible image is looked for (which forces a layout) only after a mutation that can
      // change it: an image added or removed, or an attribute of an image or of a box holding one
      const img = records.some(mayShowImage) ? image(root) : before;
      if (img && !(img === before && img.src === src)) {
        if (timer) clearTimeout(timer);
        P.tSwap = performance.now(); P.observer.disconnect();
        // decoding is bounded: a decode that never settles must not hide a redraw that came
        Promise.race([img.decode().catch(() => null), new Promise(r => setTimeout(r, DECODE_MS))])
          .then(() => requestAnimationFrame(() => {
            P.finish({ t1: performance.now(), swap: P.tSwap, natural: img.naturalWidth, what: 'image' }); }));
      } else if (titleAt === null && titleOf(root) !== title) {
        titleAt = performance.now();
        requestAnimationFrame(() => { titleFrame = performance.now(); });
        timer = setTimeout(() => { P.observer.disconnect();
          P.finish({ t1: titleFrame ?? performance.now(), swap: titleAt, natural: null, what: 'title' }); },
          TITLE_GRACE_MS);
      }
    };
    P.observer = new MutationObserver(check);
    P.observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true,
                               attributeFilter: ['src', 'class', 'style', 'hidden'] });
  };
  // resolves with P.done, or with null after `ms`: one call that waits in the page (polling from
  // the test every animation frame would make the browser draw frames while it is being timed)
  P.wait = ms => Promise.race([P.finished, new Promise(resolve => setTimeout(() => resolve(null), ms))]);
  // resolves once the page is settled: the notebook's kernel (if any) idle, two animation frames,
  // then `phase` ms (spread over a frame by the caller, so that inputs do not all start just after a
  // frame). Each input is timed from there, as a reader moves a control after looking at the
  // figure; otherwise an input would overlap the previous one's trailing messages (the box's new
  // value, the kernel's "idle" and the toolbar that JupyterLab redraws for it).
  P.settle = async (ms, phase) => {
    const kernel = () => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
      const session = w && w.sessionContext && w.sessionContext.session; return session ? session.kernel : null; };
    const end = performance.now() + ms;
    while (kernel() && kernel().status !== 'idle' && performance.now() < end) await new Promise(r => setTimeout(r, 5));
    for (let i = 0; i < 2; i++) await new Promise(r => requestAnimationFrame(() => r()));
    await new Promise(r => setTimeout(r, phase));
  };
  P.disarm = () => { if (P.observer) P.observer.disconnect(); P.armed = false; };
  // what an input that saw no redraw left behind: whether the figure differs from the armed one all
  // the same (a change the observer missed), the input's timestamps, the kernel and its connection
  P.state = root => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const s = w && w.sessionContext && w.sessionContext.session; const k = s ? s.kernel : null;
    const img = image(root); const b = P.before || {};
    return { changed: !!b.src && (!img || img.src !== b.src) || titleOf(root) !== b.title,
             connected: root.isConnected, input: P.t0 !== null, swapped: P.tSwap !== null,
             kernel: k ? `${k.status}/${k.connectionStatus}` : 'none' }; };
})()
"""


# ---------------------------------------------------------------------------------------------
# the server and the browser
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _explorer_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [
        m.group(1)
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for m in [EXPLORER_CELL.search("".join(c["source"]))]
        if m
    ]


def _explorers_only(path: Path) -> str:
    """The chapter with only what its explorers need: the set-up cells (up to ``book_setup()``) and
    the explorer cells. Running the whole chapter again would repeat what nbval and the strict
    build already check, and take minutes."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    setup = next(i for i, c in enumerate(code) if "book_setup(" in "".join(c["source"]))
    nb["cells"] = code[: setup + 1] + [c for c in code[setup + 1 :] if EXPLORER_CELL.search("".join(c["source"]))]
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a scratch copy of the chapters: (base URL, token, scratch dir)."""
    if not JUPYTER.exists():
        pytest.fail(f"{JUPYTER} is missing: run `make setup`")
    scratch = tmp_path_factory.mktemp("lab")
    root = scratch / "root"
    (root / "chapters").mkdir(parents=True)
    (root / "explorers").mkdir()
    for nb in NOTEBOOKS:
        shutil.copy2(nb, root / "chapters" / nb.name)
        if _explorer_cells(nb):
            (root / "explorers" / nb.name).write_text(_explorers_only(nb), encoding="utf-8")
    settings = scratch / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell rendered (not virtualised), so the test sees all outputs and markdown
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    # no debugger: it asks a new kernel for its state, and closing the chapter before the reply logs
    # "Could not restore the debugger state" (a JavaScript error that is not the book's)
    (scratch / "config" / "labconfig").mkdir(parents=True)
    (scratch / "config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/debugger-extension": True}})
    )
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONHASHSEED="0",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        JUPYTER_CONFIG_DIR=str(scratch / "config"),
        JUPYTER_RUNTIME_DIR=str(scratch / "runtime"),
        PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    cmd = [
        str(JUPYTER),
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--config={SERVER_CONFIG}",
        f"--ServerApp.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.user_settings_dir={scratch / 'settings'}",
        f"--LabApp.workspaces_dir={scratch / 'workspaces'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(scratch / "server.log", "w")
    # its own process group: the kernels it starts die with it
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited ({proc.returncode}): {(scratch / 'server.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("jupyter lab did not answer within 60 s")
                time.sleep(0.2)
        yield {"base": base, "token": token, "root": root, "log": scratch / "server.log"}
    finally:
        try:  # SIGTERM: the server shuts its kernels down, then exits
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5)
        _kill_kernels(scratch / "runtime")
        log.close()


def _kill_kernels(runtime: Path) -> None:
    """Kill kernels still alive whose connection file is in this server's runtime folder (kernels
    run in their own process groups, so a killed server can leave them behind)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(str(runtime).encode()) for a in args) and b"ipykernel_launcher" in b" ".join(args):
            try:
                os.kill(int(cmdline.parent.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class _Page:
    """One JupyterLab tab for the whole module; it records requests leaving the machine and
    JavaScript errors. Chapters are opened in it one after another (``docmanager:open``)."""

    def __init__(self, browser, lab):
        self.lab = lab
        self.page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
        self.outside, self.js_errors = [], []

        # Requests are recorded, not routed: routing sends every request through this process and
        # slows the page (about 5 ms per explorer redraw). Nothing can leave anyway: the browser's
        # proxy (tests/conftest.py) is a closed local port, which everything but loopback must go through.
        def record(request):
            url = request.url
            if not (url.startswith(("data:", "blob:")) or urlparse(url).hostname in ("127.0.0.1", "localhost")):
                self.outside.append(url)

        self.page.on("request", record)
        self.page.on("pageerror", lambda e: self.js_errors.append(str(e)))
        self.page.on("console", lambda m: self.js_errors.append(m.text) if m.type == "error" else None)
        # generous: JupyterLab's first load parses megabytes of JavaScript, slow on a busy machine
        self.page.goto(f"{lab['base']}/lab?token={lab['token']}", timeout=120_000)
        self.page.wait_for_function(
            "() => !!(window.jupyterapp && window.jupyterapp.shell && document.querySelector('#jp-main-dock-panel'))",
            timeout=120_000,
        )
        self.page.evaluate(PROBE_JS)

    def open(self, rel: str):
        """Open a notebook (as a double click in the file browser does) and wait for its kernel."""
        self.page.evaluate(
            "(path) => { window.jupyterapp.commands.execute('docmanager:open', { path, factory: 'Notebook' }); }", rel
        )
        self.page.wait_for_function(
            """(path) => { const w = window.jupyterapp.shell.currentWidget;
               return !!(w && w.context && w.context.path === path && w.context.isReady && w.content
                         && w.sessionContext && w.sessionContext.isReady); }""",
            arg=rel,
            timeout=60_000,
        )
        self.wait_idle()

    def wait_idle(self, timeout=60_000):
        self.page.wait_for_function(
            """() => { const w = window.jupyterapp.shell.currentWidget;
               const k = w.sessionContext.session && w.sessionContext.session.kernel;
               return !!k && k.status === 'idle'; }""",
            timeout=timeout,
        )

    def run_all(self):
        """Run All Cells; wait until every code cell ran or one shows an error (Run All stops there)."""
        self.page.evaluate(
            "() => { window.__posencRunAllDone = false; window.jupyterapp.commands"
            ".execute('notebook:run-all-cells').then(() => { window.__posencRunAllDone = true; }); }"
        )
        try:
            self.page.wait_for_function(
                """() => { const w = window.jupyterapp.shell.currentWidget;
                   const k = w.sessionContext.session.kernel;
                   const code = w.content.widgets.filter(c => c.model.type === 'code');
                   const error = code.some(c => [...Array(c.model.outputs.length).keys()]
                     .some(k => c.model.outputs.get(k).type === 'error'));
                   return window.__posencRunAllDone === true && k.status === 'idle'
                     && (error || code.every(c => c.model.executionCount !== null
                                               || !c.model.sharedModel.source.trim())); }""",
                timeout=RUN_ALL_TIMEOUT_MS,
            )
        except Exception:
            state = self.page.evaluate(
                """() => { const w = window.jupyterapp.shell.currentWidget;
                   const k = w.sessionContext.session && w.sessionContext.session.kernel;
                   const waiting = w.content.widgets.map((c, i) => [i, c]).filter(([i, c]) => c.model.type === 'code'
                     && c.model.executionCount === null && c.model.sharedModel.source.trim())
                     .map(([i, c]) => i + ': ' + c.model.sharedModel.source.slice(0, 60));
                   return { kernel: k ? k.status : null, runAllReturned: window.__posencRunAllDone, waiting }; }"""
            )
            raise AssertionError(f"Run All did not finish within {RUN_ALL_TIMEOUT_MS / 1000:.0f} s: {state}") from None

    def save(self):
        self.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        self.page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")

    def close_notebook(self):
        """Shut its kernel down and close the tab without saving."""
        self.page.evaluate("""async () => { const w = window.jupyterapp.shell.currentWidget;
            if (!w || !w.sessionContext) return; await w.sessionContext.shutdown(); w.dispose(); }""")

    def close(self):
        self.page.close()


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    page = _Page(browser, lab)
    yield page
    page.close()


# ---------------------------------------------------------------------------------------------
# one test per chapter: open and save (nothing changes, no raw markup, no widget reprs), then,
# for a chapter with explorers, Run All and every explorer moved
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_in_jupyterlab(lab, lab_page, nb):
    page, p = lab_page, lab_page.page
    n_outside, n_errors = len(page.outside), len(page.js_errors)
    problems: list[str] = []
    rel = f"chapters/{nb.name}"
    path = lab["root"] / rel
    original = path.read_bytes()
    SHOTS.mkdir(parents=True, exist_ok=True)
    phases = PHASES.setdefault(nb.stem, {})
    t = time.monotonic()
    try:
        page.open(rel)
        phases["open"] = time.monotonic() - t
        report = p.evaluate(
            """() => { const w = window.jupyterapp.shell.currentWidget;
               const md = [...w.content.node.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')];
               const raw = md.map(e => e.innerText).filter(t => /\\{cite[:\\w]*\\}|\\{bibliography\\}/.test(t));
               const outputs = [...w.content.node.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText);
               const details = md.flatMap(e => [...e.querySelectorAll('details')]);
               return { dirty: w.context.model.dirty, markdown: md.length,
                        details: details.length, detailsOpen: details.filter(d => d.open).length,
                        collapsedShown: details.filter(d => !d.open).flatMap(d => [...d.children]
                          .filter(c => c.tagName !== 'SUMMARY' && c.checkVisibility())).length,
                        unrendered: w.content.widgets.filter(c => c.model.type === 'markdown' && !c.rendered).length,
                        rawCite: raw.map(t => t.slice(0, 160)),
                        reprs: outputs.filter(t => /\\b(VBox|HBox|GridBox)\\(children=/.test(t))
                          .map(t => t.slice(0, 120)),
                        citeLinks: md.flatMap(e => [...e.querySelectorAll('a[title^="cite:"]')])
                          .map(a => ({ text: a.textContent.trim(), key: a.title.slice(5),
                                       href: a.getAttribute('href') })) }; }"""
        )
        if report["markdown"] == 0 or report["unrendered"]:
            problems.append(f"markdown not rendered: {report['markdown']} rendered, {report['unrendered']} not")
        problems += [f"raw citation markup shown: {t!r}" for t in report["rawCite"][:3]]
        # issue 36: the evidence sits in <details> blocks that JupyterLab shows closed, content hidden
        if report["details"] == 0 or report["detailsOpen"] or report["collapsedShown"]:
            problems.append(
                f"collapsed blocks: {report['details']} found, {report['detailsOpen']} open, "
                f"{report['collapsedShown']} elements of a closed one on screen"
            )
        cited = sorted(k for _, k in _cite_links(nb))
        shown = sorted(a["key"] for a in report["citeLinks"] if a["text"] and a["href"])
        if shown != cited:
            problems.append(
                f"{len(cited)} citations in the source, {len(shown)} rendered as links "
                f"(missing: {sorted(set(cited) - set(shown))[:5]})"
            )
        problems += [f"a widget repr is shown before Run All: {t!r}" for t in report["reprs"][:2]]
        if report["dirty"]:
            problems.append("JupyterLab marks the chapter modified as soon as it opens it")
        t = time.monotonic()
        page.save()
        phases["save"] = time.monotonic() - t
        saved = path.read_bytes()
        if saved != original:
            diff = _json_diff(json.loads(original), json.loads(saved))
            problems.append(
                f"opening and saving changed the file: {diff[:5]}"
                + ("" if diff else " (formatting only: indentation, key order or trailing newline)")
            )
        p.screenshot(path=str(SHOTS / f"{nb.stem}__opened.png"))
        expected = _explorer_cells(nb)
        if expected:  # the set-up and explorer cells only (see _explorers_only)
            page.close_notebook()
            page.open(f"explorers/{nb.name}")
            t = time.monotonic()
            page.run_all()
            phases["run_all"] = time.monotonic() - t
            t = time.monotonic()
            problems += _live_explorers(p, nb, expected)
            phases["explore"] = time.monotonic() - t
    finally:
        page.close_notebook()
    problems += [f"request left the machine: {u}" for u in page.outside[n_outside:][:5]]
    problems += [f"JavaScript error: {e[:200]}" for e in page.js_errors[n_errors:][:5]]
    if any("did not change" in x for x in problems):  # what the server and its kernels logged, to diagnose it
        tail = Path(lab["log"]).read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        problems.append("server log, last lines:\n  " + "\n  ".join(tail))
    assert problems == [], "\n".join(problems)


# the chapters' citation form (book/_ext/posenc_cite.py): [Su et al. 2021](url "cite:key")
CITE_LINK = re.compile(r'\[(?P<label>[^\]]+)\]\((?P<url>[^\s)]+) "cite:(?P<key>[\w:-]+)"\)')


def _cite_links(path: Path) -> list[tuple[str, str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [
        (m["label"], m["key"])
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
        for m in CITE_LINK.finditer("".join(c["source"]))
    ]


def _json_diff(a, b, path="") -> list[str]:
    if type(a) is not type(b):
        return [f"{path}: {str(a)[:60]!r} -> {str(b)[:60]!r}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: {'added' if k not in a else 'removed'}")
            else:
                out += _json_diff(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} -> {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _json_diff(x, y, f"{path}/{i}")]
    return [] if a == b else [f"{path}: {str(a)[:60]!r} -> {str(b)[:60]!r}"]


# ---------------------------------------------------------------------------------------------
# moving controls: shared with tests/test_browser.py (the kernel-less explorers of the HTML book)
LATENCIES: dict[str, list[float]] = {}  # "chapter: n. ExplorerName" -> end-to-end ms per input
TITLE_ONLY: dict[str, int] = {}  # inputs whose image was the same bytes (timed to the title line)
RETRIED: list[str] = []  # inputs that did not redraw within REDRAW_TIMEOUT_MS and were made again
SLOW: list[str] = []  # inputs whose redraw came only in the SLOW_REDRAW_MS after the first timeout
SLOW_REDRAW_MS = 20_000
LATE_MS = 30_000  # then the figure itself is looked at this long, before the input is made again
PHASES: dict[str, dict[str, float]] = {}  # chapter -> seconds spent opening, saving, running, exploring
SAMPLES = 2  # inputs per slider, per box, per dropdown


FRAME_MS = 1000 / 60
_INPUTS = itertools.count()


def measure(page, root, act, fallback=None) -> dict:
    """Wait until the page is settled (``P.settle``: the kernel idle, two frames drawn, then a
    phase within a frame from the golden-ratio sequence), run
    ``act()`` (one input) and time it: ``{"ms": input -> new figure on screen, "swap_ms":
    input -> the visible figure changed, "what": "image" or "title"}`` (the title only when the new
    image is the same bytes; "late", with a lower bound for the times, when the figure changed only
    after the waits). Raises AssertionError if neither changes, after a second try, and after a third
    made after a round trip to the kernel (:func:`_probe_kernel`): through ``fallback`` (the same
    control's other part, another widget) when one is given, else through ``act``."""
    states: list[dict] = []
    for attempt in (1, 2):
        phase = next(_INPUTS) * 0.6180339887 % 1 * FRAME_MS  # evenly spread over a frame, deterministic
        settle(page, phase)
        page.evaluate("(root) => window.__posenc.arm(root)", root)
        act()
        if page.evaluate("(ms) => window.__posenc.wait(ms)", REDRAW_TIMEOUT_MS) is not None:
            break
        # a saturated machine (make test's lanes side by side keep both cores busy) can delay the
        # kernel's reply past the timeout: wait for the same input's redraw once more before sending it
        # again (stop 57's and stop 58's CI runs: a slider's redraw missed 10 s, twice); reported, not
        # asserted, as a timing is
        if page.evaluate("(ms) => window.__posenc.wait(ms)", SLOW_REDRAW_MS) is not None:
            SLOW.append(_title(page, root))
            break
        page.evaluate("() => window.__posenc.disarm()")
        # a stalled machine (stop 57's CI: two explorers' inputs in one run) can hold a redraw longer
        # still: look at the figure itself for LATE_MS more before the input is made again
        state = page.evaluate(
            """async ([r, ms]) => { const P = window.__posenc, end = performance.now() + ms; let s;
               while (!(s = P.state(r)).changed && performance.now() < end) await new Promise(f => setTimeout(f, 250));
               return s; }""",
            [root, LATE_MS],
        )
        if state["changed"] and state["input"]:  # the figure did change: a late redraw, or one the observer missed
            SLOW.append(f"seen after the wait: {state}")
            late = float(REDRAW_TIMEOUT_MS + SLOW_REDRAW_MS)  # a lower bound, not a timing: reported as slow
            return {"ms": late, "swap_ms": late, "what": "late"}
        states.append(state)
        # one input in ~1000 was lost on a loaded 2-core machine (the explorer's first input after
        # Run All, stop 44's CI): the same input once more, reported by test_report_latency; an
        # explorer that does not redraw fails both times
        if attempt == 2:
            # stop 60's CI: an input held twice, the kernel idle and connected. Ask the kernel itself,
            # over the page's own connection, what it holds (a shell round trip, then code whose
            # printout comes back on IOPub: each explorer's values beside its controls', which showed
            # stop 61 a slider at 2 and its explorer at 0: an input dropped between two kernel threads,
            # fixed in posenc/explorers/live.py). Then one more input, through the control's other part
            # (``fallback``, another widget) where it has one: an explorer that redraws from it is live,
            # and what the probe found is reported with the retry.
            probe = _probe_kernel(page)
            settle(page)
            page.evaluate("(root) => window.__posenc.arm(root)", root)
            (fallback or act)()
            if page.evaluate("(ms) => window.__posenc.wait(ms)", REDRAW_TIMEOUT_MS + SLOW_REDRAW_MS) is not None:
                RETRIED[-1] += f"; held, then redrawn after a round trip to the kernel ({probe})"
                break
            page.evaluate("() => window.__posenc.disarm()")
            raise AssertionError(
                f"the figure (image or title) did not change within "
                f"{(REDRAW_TIMEOUT_MS + SLOW_REDRAW_MS + LATE_MS) / 1000:.0f} s, twice "
                f"(after each try: {states}), nor after a round trip to the kernel ({probe})"
            )
        RETRIED.append(f"{_title(page, root)[:60]}: {state}")  # what the first try left: printed by test_report_latency
    t0, done = page.evaluate("() => [window.__posenc.t0, window.__posenc.done]")
    if t0 is None:
        raise AssertionError("no input event was seen before the image changed")
    return {"ms": done["t1"] - t0, "swap_ms": done["swap"] - t0, "what": done["what"]}


# run in the explorer's kernel by _probe_kernel: each live explorer's values, title and controls
_KERNEL_PROBE = """
import gc
from posenc.explorers.live import _LiveUI
for u in [o for o in gc.get_objects() if type(o) is _LiveUI]:
    print(type(u.explorer).__name__, u.explorer.values, repr(u.explorer.title_text[:60]),
          "syncing" if u.syncing else "", {n: [w.value for k, w in c.items() if k in ("slider", "input")]
                                            for n, c in u.controls.items()})
"""


def _probe_kernel(page, ms: int = 20_000) -> dict:
    """What the notebook's kernel answers over the page's connection: a kernel_info round trip
    (``info``, ms), and ``_KERNEL_PROBE`` run there (``printed``; ``exec`` 'ok' once its reply and
    its 'idle' came back). Nothing is added to the notebook. ``{}`` where the page has no kernel."""
    return page.evaluate(
        """async ([code, ms]) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
           const s = w && w.sessionContext && w.sessionContext.session; const k = s ? s.kernel : null;
           if (!k) return {};
           const within = p => Promise.race([p.then(() => 'ok', e => `error ${e}`),
                                             new Promise(f => setTimeout(() => f('timeout'), ms))]);
           const t0 = performance.now(), out = { info: await within(k.requestKernelInfo()) };
           out.info_ms = Math.round(performance.now() - t0);
           let printed = '';
           const future = k.requestExecute({ code, silent: false, store_history: false });
           future.onIOPub = m => { const t = m.header.msg_type, c = m.content;
                                   if (t === 'stream') printed += c.text;
                                   if (t === 'error') printed += `${c.ename}: ${c.evalue}`; };
           out.exec = await within(future.done);
           out.printed = printed.slice(0, 600);
           out.kernel = `${k.status}/${k.connectionStatus}`;
           return out; }""",
        [_KERNEL_PROBE, ms],
    )


def _title(page, root) -> str:
    """The live figure's title line (what RETRIED and SLOW name an input by)."""
    return page.evaluate("(r) => (r.querySelector('.posenc-title') || {}).textContent || '?'", root)


def part(page, root, j, name):
    """An element of control cell ``j``: 'handle', 'box', 'select', 'message' (or None)."""
    return page.evaluate_handle(
        "([r, j, name]) => { const P = window.__posenc; return P.parts(P.cells(r)[j])[name]; }", [root, j, name]
    ).as_element()


def cell_info(page, root, j) -> dict:
    return page.evaluate("([r, j]) => window.__posenc.info(r, j)", [root, j])


def _number_text(x: float) -> str:
    return str(int(x)) if float(x) == int(x) else f"{x:g}"


def move_cell(page, root, j, samples: int = SAMPLES) -> list[dict]:
    """Move every part of control cell ``j`` (slider: arrow keys; box: type a value and Enter;
    dropdown: the next options; toggles: click) and time each input (:func:`measure`)."""
    info = cell_info(page, root, j)
    out: list[dict] = []
    seen = [info["value"]] if info["box"] else []
    if info["slider"]:
        handle = part(page, root, j, "handle")
        key = "ArrowRight" if info["now"] < info["max"] else "ArrowLeft"
        for _ in range(samples):  # _press_within_range turns the key around at the end of the range
            # the handle is focused as part of the input (ElementHandle.press): JupyterLab can move
            # the focus to the notebook while measure() waits for the page to settle after Run All,
            # and an arrow key sent to the notebook moves nothing (stop 53's CI: twice, 10 s each)
            out.append(
                measure(
                    page,
                    root,
                    lambda key=key: _press_within_range(page, root, j, handle, key),
                    fallback=(lambda: _type_nearby(page, root, j)) if info["box"] else None,
                )
            )
            if info["box"]:
                settle(page)  # the box's new value is a message from the kernel after the figure's
                seen.append(cell_info(page, root, j)["value"])
    if info["box"]:
        box = part(page, root, j, "box")
        distinct = list(dict.fromkeys(v for v in seen if v not in (None, "")))
        current = cell_info(page, root, j)["value"]
        if len(distinct) >= 2:  # values the slider showed: known to be valid; first one that differs
            targets = [v for v in distinct if v != current] + [current]
        else:
            v = float(info["value"])
            step = max(abs(v) * 0.5, 1.0)
            bigger = v + step if info["boxMax"] is None or v + step <= info["boxMax"] else v - step
            targets = [_number_text(bigger), _number_text(v)]
        for text in targets[: 1 if info["slider"] else samples]:  # beside a slider, one typed value suffices
            fill_exactly(page, box, text)
            out.append(measure(page, root, lambda: box.press("Enter")))
    if info["select"]:
        select = part(page, root, j, "select")
        options, i = info["options"], info["options"].index(info["selected"])
        for _ in range(min(samples, len(options) - 1)):
            i = (i + 1) % len(options)
            out.append(measure(page, root, lambda i=i: select.select_option(options[i])))
    if info["toggles"]:
        buttons = page.evaluate_handle(
            "([r, j]) => { const P = window.__posenc; return P.parts(P.cells(r)[j]).toggles; }", [root, j]
        )
        n = info["toggles"]
        order = [1, 0] if n == 2 else ([0, 0] if n == 1 else list(range(n)))
        for k in order:
            b = page.evaluate_handle("([bs, k]) => bs[k]", [buttons, k]).as_element()
            pressed = b.evaluate(
                "b => b.matches('.mod-active') || b.getAttribute('aria-pressed') === 'true' || b.checked === true"
            )
            if n > 1 and pressed:
                continue
            out.append(measure(page, root, lambda b=b: b.click()))
    return out


def settle(page, phase: float = 0.0) -> None:
    """Wait until the page is settled (``P.settle``: the kernel idle, two frames drawn, then ``phase`` ms)."""
    page.evaluate("([ms, phase]) => window.__posenc.settle(ms, phase)", [REDRAW_TIMEOUT_MS, phase])


def fill_exactly(page, box, text: str) -> None:
    """Type ``text`` into a box from a settled page, and check that the box holds exactly ``text``:
    a value the kernel sends while Playwright's fill selects and types (a late echo of the previous
    input) can land inside the typed text (stop 58's CI: "202" typed over "200" read "202200")."""
    for _ in range(3):
        settle(page)
        box.fill(text)
        if box.input_value() == text:
            return
    raise AssertionError(f"the box does not hold the typed {text!r}: it shows {box.input_value()!r}, three times")


def _type_nearby(page, root, j) -> None:
    """Type into control ``j``'s box a valid value near its current one (2 more or less for a whole
    number, which keeps an even one even; 1.5 times or less for a fraction) and press Enter."""
    info = cell_info(page, root, j)
    v = float(info["value"])
    top = info["boxMax"]
    if v == int(v):
        target = v + 2 if top is None or v + 2 <= top else v - 2
    else:
        target = v * 1.5 if top is None or v * 1.5 <= top else v / 1.5
    box = part(page, root, j, "box")
    fill_exactly(page, box, _number_text(target))
    box.press("Enter")


def _press_within_range(page, root, j, handle, key) -> None:
    """Press ``key`` on a slider's handle, turned around at the end of its range: a second try of an
    input whose first press did move the slider (its redraw came late) must not press against the end."""
    now = cell_info(page, root, j)
    if key == "ArrowRight" and now["now"] >= now["max"]:
        key = "ArrowLeft"
    elif key == "ArrowLeft" and now["now"] <= now["min"]:
        key = "ArrowRight"
    handle.press(key)


def focus_select(box) -> None:
    """Focus a text box and select its text, as a reader's click and Ctrl+A would."""
    box.evaluate("""e => { e.focus(); if (e.select) { e.select(); return; }
        const r = document.createRange(); r.selectNodeContents(e);
        const s = getSelection(); s.removeAllRanges(); s.addRange(r); }""")


# ---------------------------------------------------------------------------------------------
# the live explorers
def _bad_values(info: dict, k: int) -> list[str]:
    """Invalid entries for a box: the issue's examples (base 0, factor 0), an empty box, 1e400, a
    negative number; and a value beyond its slider's maximum (which must not silently clamp)."""
    if re.search(r"posenc-param-(base|factor)\b", info["className"]):
        bad = ["0"]
    else:
        bad = [["-1", "1e400", ""][k % 3]]
    linear = (
        info["slider"]
        and info["value"] not in (None, "")
        and info["now"] is not None
        and _same_number(info["value"], info["now"])
    )
    if linear:
        bad.append(_number_text(info["max"] * 2 if info["max"] > 0 else 2))
    return bad


def _try_invalid(page, root, j, bad: str) -> dict:
    """Type ``bad`` into cell ``j``'s box and press Enter: what the reader then sees."""
    settle(page)  # no earlier input's message still on its way to the box
    box = part(page, root, j, "box")
    good = box.input_value()
    top = page.evaluate("(r) => window.__posenc.image(r).getBoundingClientRect().top", root)
    src = page.evaluate("(r) => window.__posenc.image(r).src", root)
    focus_select(box)
    if bad:
        page.keyboard.type(bad)
    else:
        page.keyboard.press("Delete")
    page.keyboard.press("Enter")
    try:
        page.wait_for_function(
            "([r, j]) => { const P = window.__posenc; const m = P.parts(P.cells(r)[j]).message;"
            " return (m ? m.textContent : P.messages(r)).includes('\u26a0'); }",
            arg=[root, j],
            timeout=5_000,
        )
        shown = True
    except Exception:
        shown = False
    try:  # the box settles: back to its last good value, or marked invalid (each a message from the kernel)
        page.wait_for_function(
            "([r, j, good]) => { const P = window.__posenc; const c = P.cells(r)[j]; const b = P.parts(c).box;"
            " return b.value === good || b.getAttribute('aria-invalid') === 'true'"
            " || /invalid|error/.test(c.className + ' ' + b.className); }",
            arg=[root, j, good],
            timeout=5_000,
        )
    except Exception:  # noqa: BLE001 - what the box shows then is reported below
        pass
    page.wait_for_timeout(150)
    after = page.evaluate(
        """([r, j]) => { const P = window.__posenc; const c = P.cells(r)[j]; const p = P.parts(c);
           return { value: p.box.value, message: p.message ? p.message.textContent.trim() : P.messages(r),
                    marked: p.box.getAttribute('aria-invalid') === 'true'
                            || /invalid|error/.test(c.className + ' ' + p.box.className),
                    top: P.image(r).getBoundingClientRect().top, src: P.image(r).src }; }""",
        [root, j],
    )
    return {"bad": bad, "good": good, "shown": shown, "top_before": top, "src_before": src, **after}


def _same_number(a, b) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


_DEPENDENT = [  # (dependent parameter, its setting, the dependent's largest valid value)
    ("pair", "head_dim", lambda d: d // 2 - 1),
    ("head", "n_heads", lambda n: n - 1),
]


def _dependent_ranges(page, root, name) -> list[str]:
    infos = page.evaluate("(r) => window.__posenc.cells(r).map((c, j) => window.__posenc.info(r, j))", root)
    by_param = {m.group(1): x for x in infos for m in [re.search(r"posenc-param-(\w+)", x["className"])] if m}
    out = []
    for dep, setting, largest in _DEPENDENT:
        d, s = by_param.get(dep), by_param.get(setting)
        if d is None or s is None:
            continue
        value = int(float(s["value"] if s["value"] not in (None, "") else s["now"]))
        if d["max"] is None or int(d["max"]) != largest(value):
            out.append(
                f"{name}: the '{d['label']}' slider goes to {d['max']} with {setting} = {value}; "
                f"valid up to {largest(value)}"
            )
    return out


def _live_explorers(p, nb: Path, expected: list[str]) -> list[str]:
    """After Run All: errors, image sizes, and every explorer of the chapter (:func:`_explore`)."""
    problems = _error_outputs(p)
    nbnode = p.evaluate_handle("() => window.jupyterapp.shell.currentWidget.content.node")
    roots = p.evaluate_handle("(n) => window.__posenc.roots(n)", nbnode)
    count = p.evaluate("(r) => r.length", roots)
    if count != len(expected):
        return problems + [f"{count} explorers rendered, {len(expected)} expected ({expected})"]
    # every inline image, explorer or not: not stretched beyond its rendered size
    stretched = p.evaluate(
        """([n, limit]) => [...n.querySelectorAll('.jp-OutputArea-output img')].filter(i => i.naturalWidth > 0)
           .map(i => ({ css: i.getBoundingClientRect().width, natural: i.naturalWidth }))
           .filter(r => r.css > 0 && r.css / r.natural > limit)""",
        [nbnode, MAX_UPSCALE],
    )
    problems += [
        f"an image is shown at {s['css']:.0f} px for {s['natural']} px rendered "
        f"({s['css'] / s['natural']:.2f}x > {MAX_UPSCALE}x)"
        for s in stretched
    ]
    for i in range(count):
        name = f"{nb.stem}: {i + 1}. {expected[i]}"
        root = p.evaluate_handle("([rs, i]) => rs[i]", [roots, i]).as_element()
        root.scroll_into_view_if_needed()
        problems += _explore(p, root, name, SHOTS / f"{nb.stem}__{i + 1}_{expected[i]}")
    return problems + _error_outputs(p)


def _error_outputs(p) -> list[str]:
    cells = p.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets.map((c, i) => ({ i,
             errors: c.model.type !== 'code' ? [] : [...Array(c.model.outputs.length).keys()]
               .map(k => c.model.outputs.get(k).toJSON()).filter(o => o.output_type === 'error')
               .map(o => o.ename + ': ' + o.evalue) })).filter(c => c.errors.length)"""
    )
    return [f"cell {c['i']} shows an error: {c['errors'][0][:200]}" for c in cells]


def _explore(p, root, name: str, shot: Path) -> list[str]:
    """Every check of one live explorer; returns the problems found."""
    problems = []
    message = p.evaluate("(r) => window.__posenc.messages(r)", root)
    if "\u26a0" in message:
        problems.append(f"{name}: a warning at its default settings: {message}")
    n = p.evaluate("(r) => window.__posenc.cells(r).length", root)
    if n == 0:
        return problems + [f"{name}: no controls found"]
    size = p.evaluate(
        "(r) => { const i = window.__posenc.image(r); return i && "
        "{ css: i.getBoundingClientRect().width, natural: i.naturalWidth }; }",
        root,
    )
    if not size:
        return problems + [f"{name}: no image"]
    root.screenshot(path=f"{shot}.png")
    samples: list[float] = []
    infos = []
    for j in range(n):
        info = cell_info(p, root, j)
        infos.append(info)
        label = info["label"] or f"control {j}"
        if not info["label"]:
            problems.append(f"{name}: control {j} has no label")
        if info["slider"] and (info["trackPx"] or 0) < MIN_SLIDER_PX:
            problems.append(f"{name}: the '{label}' slider is {info['trackPx']:.0f} px wide (< {MIN_SLIDER_PX})")
        if (info["box"] or info["select"]) and (info["boxPx"] or 0) < MIN_BOX_PX:
            problems.append(f"{name}: the '{label}' box is {info['boxPx']:.0f} px wide (< {MIN_BOX_PX})")
        if info["slider"] and not (info["box"] or info["readout"]):
            problems.append(f"{name}: the '{label}' slider does not show its value")
        try:
            moved = move_cell(p, root, j)
            samples += [m["ms"] for m in moved if m["what"] != "late"]  # a late one is a bound, not a timing
            TITLE_ONLY[name] = TITLE_ONLY.get(name, 0) + sum(m["what"] == "title" for m in moved)
        except AssertionError as exc:
            problems.append(f"{name}: moving '{label}': {exc}")
        after = p.evaluate("(r) => window.__posenc.messages(r)", root)
        if "\u26a0" in after:
            problems.append(f"{name}: a valid change of '{label}' shows a warning: {after}")
    LATENCIES[name] = samples
    problems += _dependent_ranges(p, root, name)
    boxes = [j for j, info in enumerate(infos) if info["box"]]
    if not boxes and any(info["slider"] for info in infos):  # numbers get a box; a menu alone takes no typing
        problems.append(f"{name}: no box to type a value into")
    shot_taken = False
    for k, j in enumerate(boxes):
        label = infos[j]["label"] or f"control {j}"
        for bad in _bad_values(cell_info(p, root, j), k):
            try:
                r = _try_invalid(p, root, j, bad)
            except Exception as exc:  # noqa: BLE001 - report it and go on with the next box
                problems.append(f"{name}: typing {bad!r} into '{label}' failed: {str(exc).splitlines()[0]}")
                continue
            if not r["shown"]:
                problems.append(
                    f"{name}: typing {bad!r} into '{label}' shows no \u26a0 message "
                    f"(message {r['message']!r}, box now {r['value']!r})"
                )
            elif not shot_taken:
                root.screenshot(path=f"{shot}__invalid.png")
                shot_taken = True
            if not (r["marked"] or _same_number(r["value"], r["good"])):
                problems.append(
                    f"{name}: after typing {bad!r} the box '{label}' shows {r['value']!r}, neither its "
                    f"last good value {r['good']!r} nor marked invalid"
                )
            if abs(r["top"] - r["top_before"]) > 1:
                problems.append(
                    f"{name}: the figure moved {r['top'] - r['top_before']:+.0f} px when '{label}' showed its message"
                )
            if r["src"] != r["src_before"]:
                problems.append(f"{name}: the figure changed after the invalid value {bad!r} in '{label}'")
            if not _same_number(r["value"], r["good"]):  # marked: put the good value back
                box = part(p, root, j, "box")
                fill_exactly(p, box, r["good"])
                box.press("Enter")
                p.wait_for_timeout(300)
    return problems


def test_kernel_websockets_without_nagle(lab):
    """The server runs with ``lab/jupyter_server_config.py`` (as ``make lab`` does): every kernel
    websocket it opened has Nagle's algorithm off (the config logs it per connection)."""
    log = Path(lab["log"]).read_text(encoding="utf-8", errors="replace")
    connected = len(re.findall(r"Connecting to kernel", log))
    if connected == 0:
        pytest.skip("no kernel was connected (run the whole module)")
    assert len(re.findall(r"websocket without Nagle's algorithm", log)) == connected, log[-2000:]


def test_report_latency(capsys):
    """Print and save the end-to-end latencies measured above (runs after the explorer tests)."""
    if not LATENCIES:
        pytest.skip("no explorer was measured (run the whole module)")
    rows = {
        name: {
            "median_ms": round(statistics.median(v), 1),
            "min_ms": round(min(v), 1),
            "max_ms": round(max(v), 1),
            "n": len(v),
            "title_only": TITLE_ONLY.get(name, 0),
            "samples_ms": [round(x, 1) for x in v],
        }
        for name, v in LATENCIES.items()
        if v
    }
    every = [x for v in LATENCIES.values() for x in v]
    summary = {
        "median_ms": round(statistics.median(every), 1),
        "min_ms": round(min(every), 1),
        "max_ms": round(max(every), 1),
        "n": len(every),
        "title_only": sum(TITLE_ONLY.values()),
    }
    settings = {
        "what": "JupyterLab in headless Chromium (1280x900, device pixel ratio 1): from the key press, "
        "click or dropdown change (each from a settled page: the kernel idle, two frames drawn, a "
        "pause spread over one frame) "
        "to the first animation frame after the new image decoded "
        "(title_only: inputs whose image was the same bytes, timed to the new title line)",
        "inputs": f"{SAMPLES} per slider, box and dropdown; every toggle",
        "kernel_threads": 1,
    }
    LATENCY_JSON.parent.mkdir(parents=True, exist_ok=True)
    LATENCY_JSON.write_text(json.dumps({"settings": settings, "all": summary, "explorers": rows}, indent=1) + "\n")
    if os.environ.get("POSENC_SAVE_LAB_LATENCY") == "1":
        from posenc.measure import RESULTS_DIR, save_results

        save_results("explorers_lab", {"all": summary, "explorers": rows}, settings=settings, out_dir=RESULTS_DIR)
    with capsys.disabled():
        print("\nJupyterLab explorers, input -> new image on screen (ms): median [min-max] over n inputs")
        for name, r in rows.items():
            print(f"  {name:45s} {r['median_ms']:6.0f}  [{r['min_ms']:.0f}-{r['max_ms']:.0f}]  n={r['n']}")
        print(
            f"  {'all explorers':45s} {summary['median_ms']:6.0f}  "
            f"[{summary['min_ms']:.0f}-{summary['max_ms']:.0f}]  n={summary['n']}"
        )
        print(
            "Seconds per chapter: "
            + "; ".join(f"{c} " + " ".join(f"{k} {v:.1f}" for k, v in ph.items()) for c, ph in PHASES.items())
        )
        if RETRIED:
            print(f"Inputs made twice (no redraw within {REDRAW_TIMEOUT_MS / 1000:.0f} s at first): {len(RETRIED)}")
            print("\n".join(f"  {r}" for r in RETRIED[:5]))
        if SLOW:
            late = f"{REDRAW_TIMEOUT_MS / 1000:.0f}-{(REDRAW_TIMEOUT_MS + SLOW_REDRAW_MS) / 1000:.0f} s"
            print(f"Redraws that came {late} after the input: {len(SLOW)} {SLOW[:3]}")
    assert all(x > 0 for x in every), "a latency that is not positive: the clock or the events are wrong"
    assert len(RETRIED) <= 2, f"{len(RETRIED)} inputs needed a second try: the explorers are not reliably live"


# ---------------------------------------------------------------------------------------------
# the Practice part, end to end: a learner types a wrong RoPE into the task cell, runs it and the
# check below it and reads the diagnosis and the picture of the difference; then types the right one and
# reads ✓ (issues 31, 39). The hints and solutions start collapsed (raw HTML <details>, issue 39).
PRACTICE_ROPE = ROOT / "notebooks" / "practice_2_rope.ipynb"
WRONG_ROPE = """def apply_rope_half(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos - torch.cat([-x2, x1], dim=-1) * sin"""
RIGHT_ROPE = """def apply_rope_half(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin"""


def _cell_source(p, index: int) -> str:
    return p.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.source", index)


def _output_text(p, index: int) -> str:
    return p.evaluate(
        "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].outputArea.node.innerText", index
    )


def _type_run_and_check(page, index: int, text: str) -> str:
    """Type ``text`` into code cell ``index`` (replacing what is there), run it and the check cell
    below it with Shift+Enter, as a learner does; return what the check cell shows."""
    p = page.page
    p.evaluate(
        """(i) => { const nb = window.jupyterapp.shell.currentWidget.content;
                  nb.activeCellIndex = i; nb.mode = 'edit'; nb.activeCell.editor.focus(); }""",
        index,
    )
    p.keyboard.press("Control+a")
    p.keyboard.press("Delete")
    p.keyboard.insert_text(text)
    typed = _cell_source(p, index)
    assert typed.strip() == text.strip(), f"the editor holds {typed!r}, not what was typed"
    before = p.evaluate(
        "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.executionCount", index + 1
    )
    p.keyboard.press("Shift+Enter")  # runs the task cell, selects the check cell
    p.keyboard.press("Shift+Enter")  # runs the check
    p.wait_for_function(
        """([i, before]) => { const w = window.jupyterapp.shell.currentWidget;
           const c = w.content.widgets[i].model; const k = w.sessionContext.session.kernel;
           return c.executionCount !== null && c.executionCount !== before && k.status === 'idle'; }""",
        arg=[index + 1, before],
        timeout=60_000,
    )
    return _output_text(p, index + 1)


def test_practice_rope_in_jupyterlab(lab, lab_page):
    page, p = lab_page, lab_page.page
    n_outside, n_errors = len(page.outside), len(page.js_errors)
    (lab["root"] / "practice").mkdir(exist_ok=True)
    shutil.copy2(PRACTICE_ROPE, lab["root"] / "practice" / PRACTICE_ROPE.name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page.open(f"practice/{PRACTICE_ROPE.name}")
        page.save()  # opened and saved as shipped, the file does not change (git status stays clean)
        assert (lab["root"] / "practice" / PRACTICE_ROPE.name).read_bytes() == PRACTICE_ROPE.read_bytes()
        page.run_all()  # as shipped: every check says "not implemented yet", nothing raises
        index = p.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
            .findIndex(c => c.model.sharedModel.source.startsWith('def apply_rope_half('))""")
        assert index > 0, "the task cell of apply_rope_half"
        assert _cell_source(p, index + 1).strip() == 'check("apply_rope_half", apply_rope_half)'
        assert "not implemented yet" in _output_text(p, index + 1)
        collapsed = p.evaluate("""() => { const md = [...document.querySelectorAll('.jp-MarkdownOutput details')];
            const sol = md.filter(d => (d.querySelector('summary') || {}).textContent?.startsWith('Solution'));
            return { details: md.length, solutions: sol.length, open: md.filter(d => d.open).length,
                     codeShown: sol.flatMap(d => [...d.querySelectorAll('pre')])
                       .filter(e => e.checkVisibility()).length }; }""")
        assert collapsed["solutions"] >= 1 and collapsed["open"] == 0, f"solutions start collapsed: {collapsed}"
        assert collapsed["codeShown"] == 0, f"a solution's code is on screen before it is opened: {collapsed}"

        wrong = _type_run_and_check(page, index, WRONG_ROPE)
        p.screenshot(path=str(SHOTS / "practice_rope__wrong.png"))
        assert "apply_rope_half: ✗ failed" in wrong, wrong
        assert "your rotation is clockwise (R_{-m})" in wrong, wrong
        assert "smallest failing input" in wrong, "the table's header"
        assert "the difference at" in wrong and "got − expected" in wrong, "the picture of the difference"

        right = _type_run_and_check(page, index, RIGHT_ROPE)
        p.screenshot(path=str(SHOTS / "practice_rope__right.png"))
        assert "apply_rope_half: ✓ passed" in right and "✗" not in right and "diagnosis" not in right, right
    finally:
        page.close_notebook()
    assert page.outside[n_outside:] == [], page.outside[n_outside:][:5]
    assert page.js_errors[n_errors:] == [], page.js_errors[n_errors:][:5]
