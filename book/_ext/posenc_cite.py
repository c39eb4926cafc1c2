"""Citation links that read everywhere, and the bibliography in the HTML book.

The chapters cite with plain markdown links whose title names the BibTeX key::

    [Su et al. 2021](https://arxiv.org/abs/2104.09864 "cite:su2021roformer")

JupyterLab and Colab show a linked "Su et al. 2021" (the key is the link's tooltip). In the HTML
book this extension turns each such link into ``{cite:t}`su2021roformer``` before MyST-NB parses
the notebook, so the citation is rendered by sphinxcontrib-bibtex and links to the entry on the
references page, as a ``{cite}`` role did. A key that is not in ``references.bib`` fails the build
under ``-W`` exactly like a bad ``{cite}`` role.

Loaded through ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import json
import re

#: ``[label](url "cite:key")``: a one-line label without brackets, a url without spaces or ")".
CITE_LINK = re.compile(r'\[(?P<label>[^\[\]\n]+)\]\((?P<url>[^\s)]+) "cite:(?P<key>[\w:-]+)"\)')


def cite_links_to_roles(markdown: str) -> str:
    """Replace every citation link of ``markdown`` by the ``{cite:t}`` role of its key."""
    return CITE_LINK.sub(lambda m: "{cite:t}`" + m.group("key") + "`", markdown)


def _source_read(app, docname, source):
    text = source[0]
    if '\\"cite:' not in text and '"cite:' not in text:
        return
    if str(app.env.doc2path(docname)).endswith(".ipynb"):
        nb = json.loads(text)
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                src = cell["source"]
                joined = src if isinstance(src, str) else "".join(src)
                cell["source"] = cite_links_to_roles(joined)
        source[0] = json.dumps(nb, ensure_ascii=False)
    else:
        source[0] = cite_links_to_roles(text)


def setup(app):
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
