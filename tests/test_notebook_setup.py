"""Every chapter notebook starts with the same Colab set-up cell, pointing at the repository URL
that `_config.yml` holds (the only place it is written down), and the cell is a no-op elsewhere."""
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REPO_URL = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]


def first_code_cell(path: Path) -> dict:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return next(c for c in nb["cells"] if c["cell_type"] == "code")


def test_notebooks_exist():
    assert NOTEBOOKS, "no chapter notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_installs_from_the_configured_repository(path):
    cell = first_code_cell(path)
    src = "".join(cell["source"])
    assert f"posenc @ git+{REPO_URL}" in src, f"{path.name}: set-up cell does not use {REPO_URL}"
    assert src.count("git+") == 1
    assert "remove-cell" in cell.get("metadata", {}).get("tags", []), "the set-up cell is hidden in the HTML"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_is_a_no_op_off_colab_and_installs_on_colab(path, monkeypatch):
    src = "".join(first_code_cell(path)["source"])
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append((a, k)))
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    exec(compile(src, path.name, "exec"), {})
    assert calls == [], "the set-up cell ran pip outside Colab"

    # pretend to be on Colab
    google = types.ModuleType("google")
    colab = types.ModuleType("google.colab")
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: calls.append("widgets")
    colab.output = output
    google.colab = colab
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    exec(compile(src, path.name, "exec"), {})
    (args, kwargs), widgets = calls
    assert args[0][:4] == [sys.executable, "-m", "pip", "install"]
    assert f"posenc @ git+{REPO_URL}" in args[0]
    assert widgets == "widgets"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_with_outputs_and_widget_cells_tagged(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert sum(c.get("execution_count") is not None for c in code) >= len(code) - 1
    for c in code:
        kinds = {k for o in c.get("outputs", []) for k in o.get("data", {})}
        tags = set(c.get("metadata", {}).get("tags", []))
        if "application/vnd.jupyter.widget-view+json" in kinds:
            assert {"nbval-ignore-output", "remove-output"} <= tags, "widget cells: run, not compared, not in HTML"
        assert not any(o.get("output_type") == "error" for o in c.get("outputs", []))
