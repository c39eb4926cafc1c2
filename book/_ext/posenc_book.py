"""Sphinx additions for the posenc book, loaded through `_config.yml` (sphinx.local_extensions).

Kernel-less explorers
    A code cell whose source is ``SomeExplorer().widget()`` (a live explorer: it needs a kernel)
    gets, in the HTML, the same explorer over pre-rendered frames: ``SomeExplorer.frames_embed()``
    renders the figure for a grid of parameter values and lays the frames out in nested
    ``Stack`` widgets whose selection is ``jslink`` ed to the controls, and this extension embeds
    that widget state in the page (the ``ipywidgets.embed`` format), with the widget manager
    ``@jupyter-widgets/html-manager`` vendored into ``_static/vendor/html-manager`` by
    scripts/vendor_js.sh. Only pages with an explorer load it; nothing comes from a CDN. The
    frames are cached in ``_build/.posenc_explorers`` by a hash of the explorer, its frame grid and
    the posenc code, so a rebuild renders nothing new; a page whose explorers' hash changed since
    it was read is read again (``env-get-outdated``), so an incremental build is never stale. The
    notebooks keep no frames.

    The explorer cell's own output stays removed (tag ``remove-output``: a snapshot of a live
    widget is a dead control), and the static companion cell that follows shows several settings
    at once for print and for readers without JavaScript.

Repository and Colab buttons
    While ``repository.url`` in ``_config.yml`` is the placeholder :data:`PLACEHOLDER_REPOSITORY`
    (no such repository exists yet), the book shows no repository button and no launch (Colab)
    button: a dead link is worse than none. Setting the URL to the real repository turns them on
    (``use_repository_button`` and ``launch_buttons`` as ``_config.yml`` sets them); the chapters'
    set-up cells follow with ``python scripts/update_setup_cells.py``.

Thebe
    Jupyter Book 1 always loads sphinx-thebe, which registers its inline configuration script
    twice (``const THEBE_JS_URL`` declared twice: a JavaScript error on every page) and points at a
    CDN. The book does not offer Thebe (readers run chapters locally or on Colab), so its scripts
    are dropped from every page. So is the widget state myst-nb copies from a notebook's metadata:
    it belongs to the executing kernel's live widgets, which the page never shows.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The source of an explorer cell: ``SomeExplorer().widget()`` (optionally after comments).
EXPLORER_CELL = re.compile(r"^(?:\s*#[^\n]*\n)*\s*(?P<name>[A-Z]\w*Explorer)\(\)\.widget\(\)\s*$")
#: Where the widget manager sits under _static (scripts/vendor_js.sh puts it there).
MANAGER_JS = "vendor/html-manager/embed.js"
#: Bump to invalidate every cached frame set (e.g. when this file's embedding changes).
CACHE_VERSION = "2"
EXPLORERS_KEY = "posenc_explorer_pages"
#: The most the kernel-less explorers may add to one page (issue 14), bytes.
PAGE_BUDGET = 3_000_000
#: ``repository.url`` while the book has no public repository: no repository or Colab button then.
PLACEHOLDER_REPOSITORY = "https://github.com/posenc-book/posenc"


def repository_buttons_on(url: str | None) -> bool:
    """Whether the book links to its repository (and launches chapters in Colab) for ``url``."""
    return bool(url) and url.rstrip("/") != PLACEHOLDER_REPOSITORY


def _repository_buttons(app, config) -> None:
    """``config-inited``: no repository, issues, edit or launch button while the URL is the placeholder."""
    options = dict(config.html_theme_options or {})
    if repository_buttons_on(options.get("repository_url")):
        return
    for key in ("use_repository_button", "use_issues_button", "use_edit_page_button", "use_source_button"):
        options[key] = False
    options["launch_buttons"] = {}
    options.pop("repository_url", None)
    config.html_theme_options = options
    logger.info("posenc: repository.url is the placeholder %s: no repository or Colab buttons", PLACEHOLDER_REPOSITORY)


def _code_hash(root: Path) -> str:
    """The hash of the code the explorers' frames come from: :func:`posenc.experiments.provenance.code_hash`
    of the explorers' catalogue and everything it imports (the one code hash of the package; comments,
    docstrings and error messages do not count). ``root`` is the checkout holding ``posenc/``."""
    from posenc.experiments.provenance import code_hash

    return code_hash("posenc.explorers.catalog", root=root / "posenc")


def _cache_path(app, name: str) -> Path:
    """Where the embedded explorer ``name`` is cached, keyed by everything its frames depend on."""
    import matplotlib

    import posenc.explorers as explorers
    from posenc.explorers import FRAME_FORMAT, HTML_SCALE

    if not hasattr(app, "_posenc_code_hash"):
        app._posenc_code_hash = _code_hash(Path(app.confdir))
    cls = getattr(explorers, name)
    grid = [(p.name, p.frames) for p in cls.frame_params()]
    key = hashlib.sha256(
        json.dumps(
            [
                CACHE_VERSION,
                name,
                repr(grid),
                HTML_SCALE,
                FRAME_FORMAT,
                cls.plot.frame_colors,
                matplotlib.__version__,
                app._posenc_code_hash,
            ]
        ).encode()
    ).hexdigest()[:20]
    return _cache_dir(app) / f"{name}-{key}.html"


def _cache_dir(app) -> Path:
    """The frame cache: ``posenc_explorer_cache`` when set (the Chinese edition shares the English
    book's cache: the frames do not depend on the language), else ``.posenc_explorers`` beside the
    output folder."""
    return Path(app.config.posenc_explorer_cache or Path(app.outdir).parent / ".posenc_explorers")


def render_explorer(name: str, path: str) -> str:
    """Render the kernel-less explorer ``name`` and write its HTML to ``path`` (runs in a worker)."""
    import matplotlib

    matplotlib.use("Agg")
    import posenc.explorers as explorers

    embed = getattr(explorers, name).frames_embed()
    state = json.dumps(embed["state"], separators=(",", ":")).replace("</", "<\\/")
    view = json.dumps(embed["view"], separators=(",", ":"))
    text = (
        f'<div class="posenc-html-explorer" data-explorer="{name}">\n'
        f'<script type="application/vnd.jupyter.widget-state+json">{state}</script>\n'
        f'<script type="application/vnd.jupyter.widget-view+json">{view}</script>\n'
        '<noscript><p class="posenc-noscript">This explorer needs JavaScript; the figure below shows '
        "several settings at once.</p></noscript>\n</div>\n"
    )
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return name


def _prerender(app) -> None:
    """Render every explorer the chapters use and the cache lacks, in parallel (one per core, at
    most 2), before the pages are read."""
    if app.builder.format != "html":
        return  # a message catalog (gettext) or any other output has no explorers
    names = set()
    for notebook in sorted(Path(app.srcdir).glob("notebooks/*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            match = EXPLORER_CELL.match("".join(cell["source"])) if cell["cell_type"] == "code" else None
            if match:
                names.add(match["name"])
    todo = sorted(name for name in names if not _cache_path(app, name).exists())
    if not todo:
        return
    start = time.perf_counter()
    workers = min(len(todo), os.cpu_count() or 1, 2)
    jobs = [(name, str(_cache_path(app, name))) for name in todo]
    if workers > 1:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(render_explorer, *zip(*jobs)))
    else:
        for job in jobs:
            render_explorer(*job)
    logger.info(f"posenc: rendered {len(todo)} kernel-less explorers in {time.perf_counter() - start:.1f} s")


def _explorer_html(app, name: str) -> tuple[str, int]:
    """The embedded kernel-less explorer ``name`` (cached), and its size in bytes."""
    path = _cache_path(app, name)
    if not path.exists():
        render_explorer(name, str(path))
    text = path.read_text(encoding="utf-8")
    return text, len(text.encode())


def _source(cell: nodes.Element) -> str:
    for child in cell.children:
        if child.get("nb_element") == "cell_code_source":
            return child.astext()
    return ""


def _insert_explorers(app, doctree) -> None:
    """After each explorer cell, the kernel-less explorer (see the module docstring)."""
    if app.builder.format != "html":
        return
    docname = app.env.docname
    found = []
    for cell in list(doctree.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code":
            continue
        match = EXPLORER_CELL.match(_source(cell))
        if not match:
            continue
        text, size = _explorer_html(app, match["name"])
        output = nodes.container(nb_element="cell_code_output", classes=["cell_output", "posenc-explorer-output"])
        output += nodes.raw("", text, format="html")
        cell += output
        found.append((match["name"], size, _cache_path(app, match["name"]).name))
    pages = getattr(app.env, EXPLORERS_KEY, {})
    pages.pop(docname, None)
    if found:
        pages[docname] = found
        total = sum(size for _, size, _ in found)
        logger.info(f"posenc: {docname}: {len(found)} explorer(s), {total / 1e6:.2f} MB of embedded frames")
        if total > PAGE_BUDGET:
            logger.warning(
                f"{docname}: the explorers embed {total / 1e6:.2f} MB, over the page budget of "
                f"{PAGE_BUDGET / 1e6:.0f} MB: shrink their frame grids (posenc/explorers/catalog.py)"
            )
    setattr(app.env, EXPLORERS_KEY, pages)


def _outdated(app, env, added, changed, removed) -> list[str]:
    """Pages whose explorers would embed different frames now (the posenc code, a frame grid or
    the cache version changed since the page was read): read again, so that an incremental
    ``make book`` never serves stale explorers."""
    stale = []
    for docname, found in getattr(env, EXPLORERS_KEY, {}).items():
        if docname in removed:
            continue
        if any(len(entry) < 3 or entry[2] != _cache_path(app, entry[0]).name for entry in found):
            stale.append(docname)
    if stale:
        logger.info(f"posenc: {len(stale)} page(s) with explorers to embed again: {', '.join(sorted(stale))}")
    return stale


def _purge(app, env, docname) -> None:
    getattr(env, EXPLORERS_KEY, {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    pages = getattr(env, EXPLORERS_KEY, {})
    pages.update({d: v for d, v in getattr(other, EXPLORERS_KEY, {}).items() if d in docnames})
    setattr(env, EXPLORERS_KEY, pages)


def _load_manager(app, pagename, templatename, context, doctree) -> None:
    """The widget manager, on pages with an explorer only."""
    if pagename in getattr(app.env, EXPLORERS_KEY, {}):
        app.add_js_file(MANAGER_JS, priority=600)


def _drop_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    kept = []
    for js in scripts:
        attributes = getattr(js, "attributes", {})
        body = attributes.get("body", "") or ""
        name = str(js)
        if "THEBE_JS_URL" in body or "thebe" in name.rsplit("/", 1)[-1]:
            continue
        if attributes.get("type") == "application/vnd.jupyter.widget-state+json":
            continue  # myst-nb's copy of the notebook's widget metadata (see the module docstring)
        kept.append(js)
    context["script_files"] = kept


def import_path(path: str) -> tuple[bool, object]:
    """``(True, object)`` if ``path`` names something importable (a module, or an attribute chain from
    the longest importable module prefix), else ``(False, None)``. A ``__main__`` module is never
    imported (it would run its command)."""
    import importlib

    parts = path.split(".")
    if "__main__" in parts:
        return False, None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False, None
            obj = getattr(obj, name)
        return True, obj
    return False, None


def reference_candidates(target: str, module: str | None = None, cls: str | None = None) -> list[str]:
    """The full names a cross-reference ``target`` may mean, in the order they are tried: in its
    class and module (as Sphinx looks), as a package above its module exports it (``apply_rope``
    written in ``posenc.today.mrope`` is ``posenc.apply_rope``), then as written."""
    candidates = []
    if module:
        if cls:
            candidates.append(f"{module}.{cls}.{target}")
        parts = module.split(".")
        candidates += [f"{'.'.join(parts[:i])}.{target}" for i in range(len(parts), 0, -1)]
    candidates.append(target)
    return candidates


def resolve_by_import(target: str, module: str | None = None, cls: str | None = None) -> str | None:
    """The first of :func:`reference_candidates` that imports, or None: a reference to a module or
    name that no longer exists (``posenc.rope.apply_rope``) resolves to nothing."""
    for candidate in reference_candidates(target, module, cls):
        if import_path(candidate)[0]:
            return candidate
    return None


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    func_a, func_b = getattr(a, "__func__", None), getattr(b, "__func__", None)  # classmethods: new bound objects
    return func_a is not None and func_a is func_b and getattr(a, "__self__", None) is getattr(b, "__self__", None)


def documented_target(target: str, documented, module: str | None = None, cls: str | None = None) -> str | None:
    """The one documented full name (of ``documented``) that ``target`` means, or None.

    ``target`` must resolve by import (:func:`resolve_by_import`); the object it imports must then be
    documented exactly once, under any path (the API page documents each object in the module that
    defines it, while docstrings name it as the package exports it). A reference to a module or name
    that no longer exists, or to an object the API page does not document, resolves to nothing: the
    strict build then fails on it.
    """
    path = resolve_by_import(target, module, cls)
    if path is None:
        return None
    obj = import_path(path)[1]
    tail = path.rsplit(".", 1)[-1]
    found = sorted(
        {
            name
            for name in documented
            if name.startswith("posenc") and name.rsplit(".", 1)[-1] == tail and _same(import_path(name)[1], obj)
        }
    )
    return found[0] if len(found) == 1 else None


def _resolve_by_import(app, env, node, contnode):
    """``missing-reference``: a Python cross-reference that names a documented object by a path the
    API page does not use (see :func:`documented_target`)."""
    if node.get("refdomain") != "py":
        return None
    objects = env.get_domain("py").objects  # full name -> (docname, node_id, objtype, aliased)
    name = documented_target(node.get("reftarget", ""), objects, node.get("py:module"), node.get("py:class"))
    if name is None:
        return None
    from sphinx.util.nodes import make_refnode

    return make_refnode(app.builder, node["refdoc"], objects[name][0], objects[name][1], contnode, name)


def setup(app):
    app.add_config_value("posenc_explorer_cache", None, "env")
    app.connect("missing-reference", _resolve_by_import)
    app.connect("config-inited", _repository_buttons, priority=900)
    app.connect("builder-inited", _prerender)
    app.connect("doctree-read", _insert_explorers)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _load_manager, priority=400)
    app.connect("html-page-context", _drop_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
