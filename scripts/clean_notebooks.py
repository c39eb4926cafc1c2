"""Normalise chapter notebooks so that opening, running and saving one changes nothing else.

    python scripts/clean_notebooks.py notebooks/*.ipynb          # rewrite in place
    python scripts/clean_notebooks.py --check notebooks/*.ipynb  # exit 1 if any would change

`make notebooks` runs it after executing every chapter. What it does:

- stores the kernelspec JupyterLab and Colab write themselves ("Python 3 (ipykernel)", python3),
  so that JupyterLab does not rewrite it (and mark the notebook modified) on open;
- drops the volatile metadata an execution leaves behind and JupyterLab does not write back
  (per-cell execution timestamps, the notebook-level widget state with its random model ids), and
  the widget-view outputs' random model ids: a saved explorer cell keeps its text output (a
  one-line "run this cell" hint), which is what a reader sees before running it anyway;
- collapses the code of every cell tagged `hide-input` in JupyterLab too (`jupyter.source_hidden`, the
  metadata JupyterLab itself writes when a reader collapses a cell): the HTML book hides that code by
  its tag, and a notebook reader then sees the same main line, with the code a click away;
- collapses the output of every cell tagged `hide-output` the same way (`jupyter.outputs_hidden`, and
  the older `collapsed` flag, both of which JupyterLab writes when a reader collapses an output);
- merges consecutive stream outputs (stdout, stderr) as JupyterLab does: how a kernel's prints
  are split into messages depends on timing;
- writes the file exactly as JupyterLab's server does (nbformat: keys sorted, indent 1,
  UTF-8 not escaped, multi-line strings split into lines, a trailing newline).

A re-executed chapter is then byte-identical to the stored one unless an output really changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime", "jp-MarkdownHeadingCollapsed")


def _text(text) -> str:
    return text if isinstance(text, str) else "".join(text)


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Normalise ``nb`` in place and return it."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type != "code":
            continue
        if "hide-input" in cell.metadata.get("tags", []):
            cell.metadata["jupyter"] = {**cell.metadata.get("jupyter", {}), "source_hidden": True}
        if "hide-output" in cell.metadata.get("tags", []):
            cell.metadata["jupyter"] = {**cell.metadata.get("jupyter", {}), "outputs_hidden": True}
            cell.metadata["collapsed"] = True
        kept = []
        for out in cell.outputs:
            if out.get("output_type") in ("display_data", "execute_result") and WIDGET_VIEW in out.get("data", {}):
                del out["data"][WIDGET_VIEW]
                if not out["data"]:
                    continue
            if (
                out.get("output_type") == "stream"
                and kept
                and kept[-1].get("output_type") == "stream"
                and kept[-1].get("name") == out.get("name")
            ):
                kept[-1]["text"] = _text(kept[-1]["text"]) + _text(out["text"])  # as JupyterLab merges them
                continue
            kept.append(out)
        cell.outputs = kept
    return nb


def serialise(nb: nbformat.NotebookNode) -> str:
    """The text JupyterLab's server writes for ``nb`` (nbformat.write adds the final newline)."""
    text = nbformat.writes(nb, version=nbformat.NO_CONVERT)
    return text if text.endswith("\n") else text + "\n"


def clean_text(text: str) -> str:
    return serialise(normalise(nbformat.reads(text, as_version=nbformat.NO_CONVERT)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook is not clean")
    args = parser.parse_args(argv)
    dirty = []
    for path in args.notebooks:
        text = path.read_text(encoding="utf-8")
        clean = clean_text(text)
        if clean != text:
            dirty.append(path)
            if not args.check:
                path.write_text(clean, encoding="utf-8")
    verb = "not clean" if args.check else "cleaned"
    for path in dirty:
        print(f"{verb}: {path}")
    return 1 if (args.check and dirty) else 0


if __name__ == "__main__":
    sys.exit(main())
