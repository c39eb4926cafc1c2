"""Rewrite the first cell of every notebook (the hidden Colab set-up) from one template.

    python scripts/update_setup_cells.py                 # rewrite notebooks/*.ipynb in place
    python scripts/update_setup_cells.py --check         # exit 1 if a notebook's first cell differs
    python scripts/update_setup_cells.py PATH.ipynb ...  # only these

The cell installs ``posenc`` with its ``widgets`` extra (matplotlib, ipywidgets, Pillow: what the
explorers need) from the repository that ``_config.yml`` names (``repository.url``, the one place
it is written) when, and only when, it runs on Colab; anywhere else it does nothing. The cell keeps
its tag ``remove-cell`` (hidden in the HTML book), has no outputs and is written as
scripts/clean_notebooks.py writes notebooks. tests/test_notebook_setup.py checks every notebook
against :func:`setup_source`, and `make test` installs ``posenc[widgets] @ git+file://<a clone>``
the same way, in the Colab stage (scripts/colab_env.sh).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from clean_notebooks import serialise  # noqa: E402

TEMPLATE = """\
# Set-up: on Google Colab, install the book's package `posenc` with its explorers' extra.
# Anywhere else this cell does nothing.
import sys

if "google.colab" in sys.modules:
    import subprocess

    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    "posenc[widgets] @ git+{url}"], check=True)
    from google.colab import output

    output.enable_custom_widget_manager()"""


def repository_url() -> str:
    """``repository.url`` of ``_config.yml``."""
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]


def setup_source(url: str | None = None) -> str:
    """The set-up cell's source for the repository ``url`` (default: the configured one)."""
    return TEMPLATE.format(url=url or repository_url())


def update(path: Path, source: str) -> bool:
    """Give ``path`` 's first cell ``source`` (a hidden code cell); True if the file changed."""
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    cell = nb.cells[0]
    if cell.cell_type != "code":
        raise SystemExit(f"{path}: the first cell is not the set-up code cell")
    cell.source = source
    tags = cell.metadata.setdefault("tags", [])
    if "remove-cell" not in tags:
        tags.append("remove-cell")
    new = serialise(nb)
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a first cell differs")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    source = setup_source()
    differ = []
    for path in paths:
        nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
        if nb.cells[0].source != source:
            differ.append(path)
            if not args.check:
                update(path, source)
    for path in differ:
        print(f"{'differs' if args.check else 'updated'}: {path}")
    return 1 if (args.check and differ) else 0


if __name__ == "__main__":
    sys.exit(main())
