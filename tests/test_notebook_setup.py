"""Every chapter notebook starts with the same Colab set-up cell, pointing at the repository URL
that `_config.yml` holds (the only place it is written down), and the cell is a no-op elsewhere."""

import functools
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


@functools.cache
def notebook(path: Path) -> dict:
    """The notebook as stored, read once per process: the tests below read each chapter (megabytes of JSON,
    most of it figures) several times and change none of it."""
    return json.loads(path.read_text(encoding="utf-8"))


def first_code_cell(path: Path) -> dict:
    return next(c for c in notebook(path)["cells"] if c["cell_type"] == "code")


def test_notebooks_exist():
    assert NOTEBOOKS, "no chapter notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_installs_from_the_configured_repository(path):
    """The first cell is the template of scripts/update_setup_cells.py for the configured URL
    (run that script after changing the template or `repository.url`)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from update_setup_cells import setup_source

    nb = notebook(path)
    cell = first_code_cell(path)
    assert nb["cells"][0] is not None and nb["cells"][0]["cell_type"] == "code", "the set-up cell comes first"
    src = "".join(cell["source"])
    assert src == setup_source(REPO_URL), (
        f"{path.name}: the set-up cell differs from the template; run `python scripts/update_setup_cells.py`"
    )
    assert f"posenc[widgets] @ git+{REPO_URL}" in src
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
    assert f"posenc[widgets] @ git+{REPO_URL}" in args[0]
    assert widgets == "widgets"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_with_outputs_and_widget_cells_tagged(path):
    nb = notebook(path)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert sum(c.get("execution_count") is not None for c in code) >= len(code) - 1
    for c in code:
        kinds = {k for o in c.get("outputs", []) for k in o.get("data", {})}
        tags = set(c.get("metadata", {}).get("tags", []))
        is_widget = "application/vnd.jupyter.widget-view+json" in kinds or "".join(c["source"]).rstrip().endswith(
            ".widget()"
        )  # stored without its widget view
        if is_widget:
            assert {"nbval-ignore-output", "remove-output"} <= tags, "widget cells: run, not compared, not in HTML"
        assert not any(o.get("output_type") == "error" for o in c.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_explorer_cell_is_followed_by_its_static_figure(path):
    """An explorer's cell is followed at once by a code cell with a stored figure: the web book shows that figure
    when JavaScript is off, and tests/test_browser.py looks for it right after the explorer (a cheap check here, so a
    reordering fails in the unit stage, not only in the browser stage)."""
    cells = notebook(path)["cells"]
    for i, c in enumerate(cells):
        if c["cell_type"] == "code" and "".join(c["source"]).rstrip().endswith(".widget()"):
            after = cells[i + 1] if i + 1 < len(cells) else {"cell_type": None}
            images = [o for o in after.get("outputs", []) if "image/png" in o.get("data", {})]
            assert after["cell_type"] == "code" and images, f"{path.name}: cell {i + 1} has no figure right after it"


# ---- one set-up: `book_setup()` replaces the preamble each chapter used to copy ----------------

PREAMBLE = ("torch.manual_seed(", "set_grad_enabled(", "plt.rcParams")


def code_cells(path: Path) -> list[dict]:
    nb = notebook(path)
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_second_cell_imports_and_calls_book_setup(path):
    src = "".join(code_cells(path)[1]["source"])
    assert "from posenc.book import book_setup" in src
    assert src.count("book_setup(") == 1, "call book_setup() once, in the imports cell"
    copied = [p for p in PREAMBLE if p in src]
    assert not copied, f"{path.name}: the set-up cell still copies {copied}; book_setup() does it"


def test_book_setup_sets_seed_grad_threads_and_figures():
    plt = pytest.importorskip("matplotlib.pyplot")
    import torch

    from posenc.book import FIGURE_DPI, book_setup

    threads, grad = torch.get_num_threads(), torch.is_grad_enabled()
    try:
        book_setup()
        first = torch.rand(5)
        assert not torch.is_grad_enabled() and torch.get_num_threads() == 1
        assert plt.rcParams["figure.dpi"] == FIGURE_DPI == plt.rcParams["savefig.dpi"]
        book_setup(seed=0, grad=True, threads=2)
        assert torch.equal(torch.rand(5), first), "the same seed gives the same draws"
        assert torch.is_grad_enabled() and torch.get_num_threads() == 2
        book_setup(seed=1)
        assert not torch.equal(torch.rand(5), first)
        with pytest.raises(ValueError, match="threads"):
            book_setup(threads=0)
        with pytest.raises(TypeError, match="seed"):
            book_setup(seed=1.5)
    finally:
        torch.set_num_threads(threads)
        torch.set_grad_enabled(grad)


# ---- show the code: `show_source` cells show the code that runs -----------------------------------


def _show_cells():
    for path in NOTEBOOKS:
        for cell in code_cells(path):
            src = "".join(cell["source"])
            if src.startswith("show_source("):
                yield pytest.param(path, cell, id=f"{path.name}:{cell['id']}")


def _function_without_docstring(obj):
    import ast
    import inspect
    import textwrap

    node = ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]
    if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
        node.body = node.body[1:]
    return ast.dump(node)


@pytest.mark.parametrize("obj_name", ["sinusoidal_encoding", "apply_rope", "alibi_slopes", "shaw_attention"])
def test_show_source_shows_the_function_that_runs(obj_name):
    import ast

    import posenc
    from posenc.book import show_source

    obj = getattr(posenc, obj_name)
    shown = show_source(obj)
    md = shown._repr_markdown_()
    assert md.startswith(f"`{obj.__module__.replace('.', '/')}.py`: `{obj_name}`")  # e.g. posenc/encodings/rope.py
    code = md.split("```python\n", 1)[1].rsplit("```", 1)[0]
    assert code == shown.code
    assert ast.dump(ast.parse(code).body[0]) == _function_without_docstring(obj)
    assert obj.__doc__.strip().splitlines()[0] not in code, "docstring omitted"
    assert obj.__doc__.strip().splitlines()[0] in show_source(obj, docstring=True).code
    with pytest.raises(TypeError, match="function or class|functions or classes"):
        show_source(posenc)


def test_collapsed_lines_start_closed_and_keep_every_line():
    from posenc.book import Collapsed

    shown = Collapsed("The table: `a` & b", ["row 1", "row 2"])
    md = shown._repr_markdown_()
    assert md.startswith("<details><summary>The table: <code>a</code> &amp; b</summary>")
    assert md.rstrip().endswith("</details>") and "```text\nrow 1\nrow 2\n```" in md
    assert repr(shown) == "The table: `a` & b\n\nrow 1\nrow 2"


def test_show_source_collapsed_is_a_details_block_with_the_same_code():
    import posenc
    from posenc.book import show_source

    plain = show_source(posenc.shaw_attention)
    folded = show_source(posenc.shaw_attention, collapsed=True)
    md = folded._repr_markdown_()
    assert md.startswith("<details><summary><code>posenc/") and md.rstrip().endswith("</details>")
    assert "`" not in md.split("</summary>", 1)[0], "the summary is HTML: no markdown backticks left"
    assert md.split("```python\n", 1)[1].rsplit("```", 1)[0] == plain.code


def test_chapters_show_their_central_functions():
    cells = {p.name: "\n".join("".join(c["source"]) for c in code_cells(p)) for p in NOTEBOOKS}
    wanted = {
        "02": ["sinusoidal_encoding"],
        "03": ["shaw_attention", "_t5_bucket"],
        "04": ["_core.rope.cos_sin", "_core.rope.rotate_reference"],
        "05": ["rope_decay_bound"],
        "06": ["alibi_slopes"],
        "07": ['ROPE_SCALINGS["yarn"]'],
    }
    for chapter, names in wanted.items():
        src = next(s for name, s in cells.items() if name.startswith(chapter))
        shown = [line for line in src.splitlines() if line.startswith("show_source(")]
        for name in names:
            assert any(name in line for line in shown), f"chapter {chapter} does not show {name}"


@pytest.mark.parametrize("path, cell", list(_show_cells()))
def test_stored_source_listing_is_current(path, cell):
    """The listing saved in the notebook (what the HTML book and a reader before Run All see) is the
    package's code now: re-execute the chapter after changing a function it shows."""
    import posenc
    from posenc.book import show_source

    src = "".join(cell["source"])
    namespace = {"posenc": posenc, "show_source": show_source}
    imports = "".join(code_cells(path)[1]["source"]).split("\n\n")[0:-1]  # the import block, not book_setup()
    exec("\n\n".join(block for block in imports if block.lstrip().startswith(("import ", "from "))), namespace)
    fresh = eval(src, namespace)._repr_markdown_()
    stored = [o for o in cell["outputs"] if o.get("output_type") == "execute_result"]
    assert stored, f"{path.name}: the show_source cell has no stored output"
    assert "".join(stored[0]["data"]["text/markdown"]) == fresh, (
        f"{path.name}: the stored listing of {src!r} is stale; re-execute the chapter"
    )
    assert "remove-input" in cell["metadata"].get("tags", []), "the HTML shows the listing, not the call"


# ---- citations: plain links that read in JupyterLab and Colab; the HTML book renders {cite:t} ---


def _bib_entries() -> dict[str, dict]:
    import re

    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = {}
    for m in re.finditer(r"@\w+\{([^,\s]+),(.*?)\n\}", text, re.S):
        fields = {}
        for f in re.finditer(r"^\s*(\w+)\s*=\s*\{(.*?)\}\s*,?\s*$", m.group(2), re.M):
            fields[f.group(1).lower()] = f.group(2)
        entries[m.group(1)] = fields
    return entries


def _cite_links():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from posenc_cite import CITE_LINK
    finally:
        sys.path.pop(0)
    for path in NOTEBOOKS:
        for cell in notebook(path)["cells"]:
            if cell["cell_type"] == "markdown":
                for m in CITE_LINK.finditer("".join(cell["source"])):
                    yield path, m


def _plain(tex: str) -> str:
    for a, b in (("{\\`e}", "è"), ("{\\'e}", "é"), ("{", ""), ("}", "")):
        tex = tex.replace(a, b)
    return tex


def _expected_name(fields: dict) -> str | None:
    """'Surname', 'A and B' or 'A et al.' from a BibTeX author field; None without one."""
    author = fields.get("author")
    if author is None:
        return None
    if author.startswith("{") and author.count(" and ") == 0:
        return _plain(author)  # a corporate author, e.g. {Meta AI}
    names = [n.strip() for n in author.split(" and ")]
    surnames = [_plain(n.split(",")[0]) for n in names]
    if len(names) == 1:
        return surnames[0]
    if len(names) == 2 and names[1] != "others":
        return f"{surnames[0]} and {surnames[1]}"
    return f"{surnames[0]} et al."


def test_markdown_cites_with_links_not_roles():
    for path in NOTEBOOKS:
        md = "".join("".join(c["source"]) for c in notebook(path)["cells"] if c["cell_type"] == "markdown")
        assert "{cite" not in md, f"{path.name}: a {{cite}} role shows raw in JupyterLab and Colab"
        assert md.count('"cite:') == len([1 for p, _ in _cite_links() if p == path]), (
            f"{path.name}: a citation link the book's extension would not convert"
        )
    assert len(list(_cite_links())) > 50


def test_citation_links_name_a_bib_entry_by_its_authors_and_year():
    entries = _bib_entries()
    assert len(entries) >= 30
    for path, m in _cite_links():
        key, label, url = m.group("key"), m.group("label"), m.group("url")
        where = f'{path.name}: [{label}]({url} "cite:{key}")'
        assert key in entries, f"{where}: no entry {key} in references.bib"
        fields = entries[key]
        year = fields.get("year")
        name = label[: -len(year)].rstrip() if year and label.endswith(year) else label
        assert (year is None) == (name == label), f"{where}: the label must end with the year {year}"
        assert name, f"{where}: the label names no one"
        expected = _expected_name(fields)
        if expected is None:  # no author: the label is the title's start
            assert _plain(fields["title"]).startswith(name), f"{where}: label is not the title"
        else:
            assert expected.startswith(name), f"{where}: label should name {expected!r}"
        if "eprint" in fields:
            assert url == f"https://arxiv.org/abs/{fields['eprint']}", f"{where}: link to the arXiv eprint"
        assert url.startswith("https://"), where


def test_book_extension_turns_citation_links_into_cite_roles():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from posenc_cite import cite_links_to_roles
    finally:
        sys.path.pop(0)
    text = (
        'RoPE ([Su et al. 2021](https://arxiv.org/abs/2104.09864 "cite:su2021roformer")) and '
        '[a plain link](https://example.org) and [Mao 2025](https://x.org/a.bib "cite:maosong2025pe").'
    )
    assert cite_links_to_roles(text) == (
        "RoPE ({cite:t}`su2021roformer`) and [a plain link](https://example.org) and {cite:t}`maosong2025pe`."
    )


# ---- a clean checkout: opening, running and saving a chapter changes nothing else ---------------


def _clean_notebooks():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import clean_notebooks
    finally:
        sys.path.pop(0)
    return clean_notebooks


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_normalised(path):
    """Stored exactly as JupyterLab's server writes it, with the kernelspec JupyterLab and Colab
    expect and no volatile metadata; `python scripts/clean_notebooks.py notebooks/*.ipynb` fixes it."""
    clean = _clean_notebooks()
    text = path.read_text(encoding="utf-8")
    assert clean.clean_text(text) == text, f"{path.name} is not normalised: run scripts/clean_notebooks.py"
    nb = json.loads(text)
    assert nb["metadata"]["kernelspec"] == clean.KERNELSPEC
    assert "widgets" not in nb["metadata"]
    for cell in nb["cells"]:
        assert "execution" not in cell["metadata"]


def test_normaliser_is_idempotent_and_strips_volatile_parts():
    import nbformat

    clean = _clean_notebooks()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    cell = nbformat.v4.new_code_cell("x", execution_count=1)
    cell.metadata["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00Z"}
    cell.metadata["tags"] = ["remove-input"]
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"text/plain": "Run this cell to explore", clean.WIDGET_VIEW: {"model_id": "abc", "version_major": 2}},
        )
    ]
    printed = nbformat.v4.new_code_cell("print(1); print(2)", execution_count=2)
    printed.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
    ]
    hidden = nbformat.v4.new_code_cell("y = 2")
    hidden.metadata["tags"] = ["hide-input"]
    folded = nbformat.v4.new_code_cell("z = 3")
    folded.metadata["tags"] = ["hide-input", "hide-output"]
    nb.cells = [cell, printed, hidden, folded]
    once = clean.clean_text(nbformat.writes(nb))
    assert clean.clean_text(once) == once and once.endswith("}\n")
    back = json.loads(once)
    assert back["metadata"]["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    assert "widgets" not in back["metadata"]
    assert back["cells"][0]["metadata"] == {"tags": ["remove-input"]}
    assert back["cells"][0]["outputs"][0]["data"] == {"text/plain": ["Run this cell to explore"]}
    assert [(o["name"], o["text"]) for o in back["cells"][1]["outputs"]] == [
        ("stdout", ["1\n", "2\n"]),
        ("stderr", ["warning\n"]),
    ], "consecutive prints merged as JupyterLab does"
    # a cell the HTML book shows without its code is collapsed in JupyterLab too
    assert back["cells"][2]["metadata"] == {"jupyter": {"source_hidden": True}, "tags": ["hide-input"]}
    # a cell whose output the HTML book folds too: its output collapsed in JupyterLab, with the metadata JupyterLab
    # writes on saving (outputs_hidden and the older collapsed flag), so opening and saving changes no byte
    assert back["cells"][3]["metadata"] == {
        "collapsed": True,
        "jupyter": {"outputs_hidden": True, "source_hidden": True},
        "tags": ["hide-input", "hide-output"],
    }


def test_running_a_chapter_in_place_changes_no_byte(tmp_path):
    """Execute a chapter on a scratch copy as `make notebooks` does (jupyter execute, then the
    normaliser): the file comes back byte-identical, so a re-run leaves `git diff` empty."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    clean = _clean_notebooks()
    path = ROOT / "notebooks" / "02_absolute.ipynb"  # explorers, hidden cells and figures: about 20 s
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    env_nb = tmp_path / path.name
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    env_nb.write_text(clean.serialise(clean.normalise(nb)), encoding="utf-8")
    stored, fresh = path.read_text(encoding="utf-8"), env_nb.read_text(encoding="utf-8")
    if fresh != stored:
        a, b = json.loads(stored), json.loads(fresh)
        changed = [
            f"{x['id']}: {sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))}"
            for x, y in zip(a["cells"], b["cells"])
            if x != y
        ]
        if a["metadata"] != b["metadata"]:
            changed.append("notebook metadata")
        pytest.fail(
            f"re-executing {path.name} changed it (stale stored outputs, or an output that is not "
            f"reproducible): " + "; ".join(changed or ["serialisation"])
        )


# ---- the repository and Colab buttons: off while repository.url is the placeholder ----------


def test_no_repository_or_colab_button_while_the_url_is_a_placeholder():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import posenc_book

    def configured(url):
        config = types.SimpleNamespace(
            html_theme_options={
                "repository_url": url,
                "use_repository_button": True,
                "launch_buttons": {"colab_url": "https://colab"},
            }
        )
        posenc_book._repository_buttons(None, config)
        return config.html_theme_options

    off = configured(posenc_book.PLACEHOLDER_REPOSITORY)
    assert off["use_repository_button"] is False and off["launch_buttons"] == {} and "repository_url" not in off
    on = configured("https://github.com/someone/posenc")
    assert on["use_repository_button"] is True and on["launch_buttons"] == {"colab_url": "https://colab"}
    # the book as configured: buttons exactly when the URL is a real one
    html = yaml.safe_load((ROOT / "_config.yml").read_text())["html"]
    assert html["use_repository_button"] is True  # turned off by the extension, not here
    assert posenc_book.repository_buttons_on(REPO_URL) == (REPO_URL != posenc_book.PLACEHOLDER_REPOSITORY)


def test_check_answer_hashes_integers_and_refuses_truncation(capsys):
    import hashlib

    from posenc.book import answer_digest, check_answer

    assert answer_digest(6) == hashlib.sha256(b"6").hexdigest()[:16]
    assert answer_digest([0, 16]) == answer_digest((0, 16)) == hashlib.sha256(b"(0, 16)").hexdigest()[:16]
    assert check_answer("e", 6, answer_digest(6)) and check_answer("e", 6.0, answer_digest(6))
    assert not check_answer("e", 6.9, answer_digest(6))  # not truncated to 6
    assert not check_answer("e", 7, answer_digest(6)) and not check_answer("e", "six", answer_digest(6))
    assert not check_answer("e", None, answer_digest(6))
    out = capsys.readouterr().out
    assert "e: not answered yet" in out and "not yet (6.9 is not the answer)" in out


@pytest.mark.parametrize(
    "call,exc,name",
    [
        (lambda b: b.check_answer(3, 6, "0" * 16), TypeError, "name"),
        (lambda b: b.check_answer("e", 6, "six"), ValueError, "digest"),
        (lambda b: b.check_answer("e", 6, None), ValueError, "digest"),
        (lambda b: b.answer_digest("six"), ValueError, "answer"),
        (lambda b: b.answer_digest(6.5), ValueError, "answer"),
        (lambda b: b.answer_digest(None), TypeError, "answer"),
        (lambda b: b.answer_digest([1, True]), TypeError, "answer"),
        (lambda b: b.book_setup(seed=2**64), ValueError, "seed"),
        (lambda b: b.book_setup(grad="yes"), TypeError, "grad"),
        (lambda b: b.book_setup(threads=1.0), TypeError, "threads"),
        (lambda b: b.show_source(), TypeError, "objs"),
        (lambda b: b.show_source(b.book_setup, docstring=1), TypeError, "docstring"),
        (lambda b: b.Source("t", None), TypeError, "code"),
    ],
)
def test_book_tools_refuse_bad_input_naming_the_argument(call, exc, name):
    import torch

    import posenc.book

    threads, grad = torch.get_num_threads(), torch.is_grad_enabled()
    try:
        with pytest.raises(exc) as info:
            call(posenc.book)
        assert name in str(info.value)
    finally:  # refused before any state was changed; restored anyway
        torch.set_num_threads(threads)
        torch.set_grad_enabled(grad)


def test_a_collapsed_blocks_summary_is_plain_html_in_every_document():
    """A ``<summary>`` is raw HTML: the book, JupyterLab, Colab and GitHub show it as written, so a ``$…$`` or a
    backtick in it would reach the reader as a dollar sign or a backtick. Code goes in ``<code>``, maths in words."""
    import re

    docs = sorted((ROOT / "book").glob("*.md")) + NOTEBOOKS
    found = []
    for path in docs:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
        summaries = re.findall(r"<summary>((?:(?!</summary>).)*)</summary>", text)  # one line each, any tags inside
        found += [f"{path.name}: {s}" for s in summaries if "$" in s or "`" in s]
    assert not found, found


def test_every_notebook_runs_in_ci_on_the_cpu_build():
    """The intro's "Every notebook runs on a CPU", checked: CI runs every chapter and Practice notebook under nbval,
    with the set-up's CPU build of torch."""
    import re
    import shutil

    import torch

    # what makes "Every notebook runs on a CPU" checked, not only stated: CI (.ci/run) runs `make test`, whose stages
    # include nbval-foreign; that stage runs nbval over NBVAL_FILES in the set-up's venv (--nbval-current-env), and
    # NBVAL_FILES is every notebook in notebooks/, each chapter 1 to 11 and each Practice notebook; the set-up
    # installs requirements.lock, whose torch is the CPU build, and so is the torch these tests run on. A CPU build
    # has no CUDA, so a notebook that needed a GPU would fail that stage. Read from make itself where it is installed.
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), flags=re.M)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^nbval-foreign: setup\n(\t.*\n)*\t.*\$\(PY\) \$\(NBVAL\)$", makefile, flags=re.M)
    assert "NBVAL := -m pytest --nbval $(NBVAL_FILES) --nbval-current-env" in makefile
    notebooks = sorted(str(nb.relative_to(ROOT)) for nb in (ROOT / "notebooks").glob("*.ipynb"))
    chapters = [nb for nb in notebooks if re.fullmatch(r"notebooks/\d\d_\w+\.ipynb", nb)]
    practice = [nb for nb in notebooks if re.fullmatch(r"notebooks/practice_\d_\w+\.ipynb", nb)]
    assert len(chapters) == 11 and len(practice) == 4 and len(notebooks) == 15, notebooks
    if shutil.which("make"):

        def make_var(name: str) -> list[str]:
            out = subprocess.run(
                ["make", "-s", "--no-print-directory", "--eval", "print-var-%: ; @echo $($*)", f"print-var-{name}"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            return out.stdout.split()

        assert "nbval-foreign" in make_var("TEST_STAGES")
        assert sorted(make_var("NBVAL_FILES")) == notebooks  # every notebook, each once
    else:
        assert "NBVAL_FILES := $(NBVAL_SLOW) $(filter-out $(NBVAL_SLOW),$(sort $(wildcard notebooks/*.ipynb)))" in (
            makefile
        )
        assert re.search(r"^TEST_LANE_env := nbval-foreign$", makefile, flags=re.M)
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert re.findall(r"^torch==(\S+)", lock, flags=re.M) == ["2.13.0+cpu"]
    assert torch.__version__.endswith("+cpu") and torch.version.cuda is None  # the venv's torch: no CUDA


def test_hidden_outputs_match_the_hide_output_tag():
    """A code cell's output is hidden in JupyterLab (`jupyter.outputs_hidden`) exactly when the web book hides it (the
    `hide-output` tag). A stale `outputs_hidden` without the tag makes JupyterLab rewrite the cell's metadata on save
    (the browser test's "opening and saving changed the file"), as chapter 10's cache cell did once its tag left."""
    stale = []
    for path in NOTEBOOKS:
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"], 1):
            if cell["cell_type"] != "code":
                continue
            hidden = cell["metadata"].get("jupyter", {}).get("outputs_hidden", False)
            if hidden != ("hide-output" in cell["metadata"].get("tags", [])):
                stale.append((path.name, i))
    assert not stale, stale
