"""Small Sphinx fixes for the posenc book, loaded through `_config.yml` (sphinx.local_extensions).

- Jupyter Book 1 always loads sphinx-thebe, which registers its inline configuration script twice
  (``const THEBE_JS_URL`` declared twice: a JavaScript error on every page) and points at a CDN.
  The book does not offer Thebe (readers run chapters locally or on Colab), so its scripts are
  dropped from every page.
"""

from __future__ import annotations


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    kept = []
    for js in scripts:
        body = getattr(js, "attributes", {}).get("body", "") or ""
        name = str(js)
        if "THEBE_JS_URL" in body or "thebe" in name.rsplit("/", 1)[-1]:
            continue
        kept.append(js)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
