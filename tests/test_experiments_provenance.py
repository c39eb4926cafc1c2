"""Provenance of the experiments' results: one code hash, over exactly the code an entry module runs."""

import ast
import importlib
import shutil
from pathlib import Path

import pytest

import posenc
import posenc.experiments.results
from posenc.experiments import code_files, code_hash, code_record, load_results

ENTRY = "posenc.experiments.passkey"
ROOT = Path(posenc.__file__).parent


@pytest.fixture
def copy(tmp_path):
    root = tmp_path / "posenc"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "results", "data"))
    return root


def test_the_files_are_what_the_entry_runs_and_no_more():
    files = set(code_files(ENTRY))
    assert {
        "__init__.py",
        "experiments/__init__.py",
        "experiments/passkey.py",
        "experiments/model.py",
        "experiments/training.py",
        "attention/multihead.py",
        "methods/rope.py",
        "scaling/functions.py",
    } <= files
    # the other run, the results loader, the tooling and the library modules the run does not use
    assert not files & {
        "experiments/realtext.py",
        "experiments/results.py",
        "today/xpos.py",
        "practice/check.py",
        "encodings/rope_forms.py",
        "encodings/decay.py",
    }
    assert not any(f.startswith(("explorers/", "book/", "measure/", "practice/")) for f in files)
    text = set(code_files("posenc.experiments.realtext"))
    assert "experiments/realtext.py" in text and "experiments/passkey.py" not in text


def test_each_imported_name_leads_to_the_module_that_defines_it():
    # the resolution reads sources; it agrees with what Python imports: for every library name an
    # experiments module imports (from .. import X), the file of X.__module__ is among that module's files
    checked = 0
    for path in sorted((ROOT / "experiments").glob("[!_]*.py")):
        files = set(code_files(f"posenc.experiments.{path.stem}"))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module is None:  # from .. import X
                for alias in node.names:
                    obj = getattr(posenc, alias.name)
                    if not hasattr(obj, "__module__"):  # a constant (POSITION_METHODS): no record of its module
                        continue
                    module = importlib.import_module(obj.__module__)
                    assert Path(module.__file__).relative_to(ROOT).as_posix() in files, alias.name
                    checked += 1
    assert checked >= 5


def test_prose_comments_and_error_messages_do_not_count_code_does(copy):
    before = code_record(ENTRY, root=copy)
    assert code_files(ENTRY, root=copy) == code_files(ENTRY)
    path = copy / "attention" / "multihead.py"
    text = path.read_text()
    assert text.count('raise ValueError(f"') >= 1
    prose = (text.replace('"""', '"""Edited prose. ', 1) + "\n# a new comment\n").replace(
        'raise ValueError(f"', 'raise ValueError(f"Reworded: ', 1
    )
    path.write_text(prose)
    assert code_hash(ENTRY, root=copy) == before["sha256"]
    path.write_text(text.replace('raise ValueError(f"', 'raise TypeError(f"', 1))  # another exception is code
    assert code_hash(ENTRY, root=copy) != before["sha256"]
    path.write_text(text.replace("def ", "def _unused(): pass\n\n\ndef ", 1))
    after = code_record(ENTRY, root=copy)
    assert after["sha256"] != before["sha256"]
    changed = {f for f in before["file_sha256"] if before["file_sha256"][f] != after["file_sha256"][f]}
    assert changed == {"attention/multihead.py"}


def test_a_package_init_counts_by_its_own_statements(copy):
    before = code_hash(ENTRY, root=copy)
    init = copy / "__init__.py"
    text = init.read_text()
    # what only names things for the reader (re-exports, the version) does not count ...
    init.write_text(text.replace("__version__ =", "from .today import *\n__version__ = '9.9' or"))
    assert code_hash(ENTRY, root=copy) == before
    # ... a global setting does
    init.write_text(text + "\nimport torch\ntorch.set_default_dtype(torch.float64)\n")
    assert code_hash(ENTRY, root=copy) != before


def test_a_module_the_run_does_not_use_does_not_count(copy):
    before = code_hash(ENTRY, root=copy)
    for name in ("today/xpos.py", "encodings/rope_forms.py", "experiments/results.py"):
        path = copy / name
        path.write_text(path.read_text() + "\nX = 1\n")
    assert code_hash(ENTRY, root=copy) == before


def test_entry_must_be_a_module_of_the_package():
    with pytest.raises(ValueError, match="entry"):
        code_files("posenc.no_such_module")
    with pytest.raises(ValueError, match="entry"):
        code_hash("numpy")
    with pytest.raises(TypeError, match="entry"):
        code_files(ROOT / "experiments" / "passkey.py")


def test_a_stale_result_names_the_files_that_differ(monkeypatch, capsys):
    record = code_record(ENTRY)
    edited = {**record["file_sha256"], "experiments/model.py": "0" * 64}
    monkeypatch.setattr(posenc.experiments.results, "code_record", lambda *_, **__: {**record, "sha256": "1" * 64})
    result = load_results("extrapolation", check=False)
    result["code"] = {**record, "file_sha256": edited}
    monkeypatch.setattr(posenc.experiments.results.json, "loads", lambda *_: result)
    with pytest.raises(RuntimeError, match="changed: experiments/model.py"):
        load_results("extrapolation")
    result["code"] = {"sha256": "2" * 64}  # a file made before per-file hashes were kept
    load_results("extrapolation", check="report")
    out = capsys.readouterr().out
    assert "2" * 64 in out and "1" * 64 in out and "only the total hash" in out
