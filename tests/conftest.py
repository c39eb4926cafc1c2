import getpass
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
os.environ.setdefault("PYTHONHASHSEED", "0")


def _inductor_cache_dir() -> str:
    """One inductor cache per kernel set: a kernel that inductor compiled and cached under ATEN_CPU_CAPABILITY=avx2
    (make unit) aborts when a later run with the machine's own AVX-512 kernels loads it from the shared default
    cache (measured with torch 2.13 on an AVX-512 AMD machine; a fresh cache passes)."""
    try:
        user = getpass.getuser()
    except Exception:  # no user name (some containers): the cache is still per kernel set
        user = "user"
    kernels = os.environ.get("ATEN_CPU_CAPABILITY", "native")
    return os.path.join(tempfile.gettempdir(), f"torchinductor_{user}_posenc_{kernels}")


os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", _inductor_cache_dir())


def pytest_report_header(config):
    """The kernels this run uses (make unit forces AVX2; nbval-foreign the generic ones)."""
    return (
        f"torch {torch.__version__}, CPU kernels: {torch.backends.cpu.get_cpu_capability()} "
        f"(ATEN_CPU_CAPABILITY={os.environ.get('ATEN_CPU_CAPABILITY', 'unset')}, "
        f"MKL_CBWR={os.environ.get('MKL_CBWR', 'unset')})"
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "jupyterlab: drives JupyterLab in headless Chromium (make browser-lab)")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    yield


#: The glossary's slow-pair row, as tests/test_summary.py and tests/test_intro_page.py quote it
SLOW_PAIR_ROW = "| slow pair | 慢速对 | a pair that turns less than once over training's largest distance, $L - 1$"


def chapter_markdown(name: str) -> str:
    """A chapter's markdown cells as one string, every run of whitespace one space (sentences wrap across lines)."""
    notebook = Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return re.sub(r"\s+", " ", "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"))


def hf_dynamic_ntk_freqs(d: int, base: float, trained: int, seq_len: int):
    """Transformers' `dynamic` frequencies (`_compute_dynamic_ntk_parameters`, `factor` 1) for one head of width d at
    base `base`, trained length `trained`, on an input of `seq_len` tokens."""
    import transformers
    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters

    cfg = transformers.LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        head_dim=d,
        max_position_embeddings=trained,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": 1.0},
    )
    freqs, _ = _compute_dynamic_ntk_parameters(cfg, "cpu", seq_len=seq_len)
    return freqs


def hf_inv_freq(d: int, max_position_embeddings: int | None = None, seq_len: int | None = None, **rope_parameters):
    """transformers' own frequencies for a head of width ``d``: the installed version's init function of
    ``rope_parameters["rope_type"]``, on a small Llama config (``max_position_embeddings`` and, for `dynamic`, the
    input's ``seq_len`` where given)."""
    import transformers
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    sizes = {} if max_position_embeddings is None else {"max_position_embeddings": max_position_embeddings}
    cfg = transformers.LlamaConfig(
        hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=rope_parameters, **sizes
    )
    extra = {} if seq_len is None else {"seq_len": seq_len}
    return ROPE_INIT_FUNCTIONS[rope_parameters["rope_type"]](cfg, "cpu", **extra)[0]


def divisor_bands(divisors, factor: float, rtol: float = 1e-5) -> tuple[list[int], list[int], list[int]]:
    """A scaled RoPE's pairs sorted by ``divisors``, what the rule divides each plain frequency by (plain over
    scaled, one per pair): *kept* (1), *divided* (the ``factor``) and *ramped*, every other pair, each of which must
    lie strictly between. Index lists, in that order."""
    by = torch.as_tensor(divisors, dtype=torch.float64).tolist()
    kept = [i for i, x in enumerate(by) if abs(x - 1) < rtol]
    divided = [i for i, x in enumerate(by) if abs(x - factor) < rtol * factor]
    ramped = [i for i in range(len(by)) if i not in kept and i not in divided]
    assert all(1 < by[i] < factor for i in ramped), [(i, by[i]) for i in ramped]
    return kept, ramped, divided


def rotate_in_layout(layout: str, v: torch.Tensor) -> torch.Tensor:
    """v [n, heads, hd] (n positions) rotated by posenc's RoPE, base 10^4, with its pairs laid out as `layout` says:
    "interleaved", rows 2i and 2i + 1, or "half", rows i and i + hd/2; returned as [heads, n, hd]."""
    import posenc

    n, _, hd = v.shape
    cos, sin = posenc.rope_cos_sin(torch.arange(n), hd, layout=layout, dtype=torch.float64)
    return posenc.apply_rope(v.transpose(0, 1), cos, sin, layout=layout)


def layout_scores(layout: str, w_q, w_k, x, heads: int) -> torch.Tensor:
    """Scores [heads, n, n] of the queries and keys that w_q and w_k project from x [n, width], each head rotated in
    `layout` (:func:`rotate_in_layout`)."""
    q, k = (rotate_in_layout(layout, (x @ w.T).view(x.shape[0], heads, -1)) for w in (w_q, w_k))
    return torch.einsum("hnd,hmd->hnm", q, k)


def collapsed(text: str, summary: str) -> str:
    """The collapsed block of ``text`` whose summary is ``summary``: from its summary up to its closing tag."""
    start = text.index(f"<summary>{summary}</summary>")
    return text[start : text.index("</details>", start)]


def assert_passkey_is_the_only_digit(corpus, n: int = 16, length: int = 512) -> None:
    """Each probe of the passkey corpus holds one KEY, its one digit and no other, and a later QUERY; the target
    after QUERY is that digit (chapters 8 and 11: "the input's only digit, asked for later")."""
    probe = corpus.sample_probe(n, length, generator=torch.Generator().manual_seed(0))
    inputs, targets = probe.tokens[:, :-1], probe.tokens[:, 1:]
    digits = (inputs >= corpus.vocab_size) & (inputs < corpus.key_token)
    for row in range(n):
        (key,) = (inputs[row] == corpus.key_token).nonzero().flatten().tolist()
        (query,) = (inputs[row] == corpus.query_token).nonzero().flatten().tolist()
        assert digits[row].nonzero().flatten().tolist() == [key + 1] and key < query, row  # the digit, once
        assert probe.answer[row].nonzero().flatten().tolist() == [query] and targets[row, query] == inputs[row, key + 1]


def f64(x):
    return x.to(torch.float64)


def assert_close_ulps(actual, expected, ulps=8):
    """Equal up to ``ulps`` units of rounding of their dtype, relative to each value (infinities equal).

    For values computed by the same formula from tensors of different shapes: the vectorised body and
    the scalar tail of a kernel (and AVX-512, AVX2 or generic kernels) may round transcendental
    functions differently by an ulp or two, so exact equality holds on one CPU and not on another.
    """
    eps = torch.finfo(expected.dtype).eps
    torch.testing.assert_close(actual, expected, rtol=ulps * eps, atol=ulps * torch.finfo(expected.dtype).tiny)


#: Headless Chromium for the browser tests (test_browser.py, test_jupyterlab.py). Every request but
#: loopback goes to the proxy, a port nothing listens on, so nothing can leave the machine; the
#: tests also record such requests and fail on them.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--proxy-server=http://127.0.0.1:9",
]


def _chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("no system Chromium found: install Debian's 'chromium' (`make system-chromium`)")
    return path


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (the system one: Playwright's download is not used)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        yield b
        b.close()


def _tab(browser, **options):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="module")
def tab(browser):
    """One tab that a module's tests load their pages into, one after another (each test adds its own
    listeners and removes them: tests/test_browser.py's ``guarded``). A fresh tab per page started and
    stopped a renderer each time: on the 2-core test machine, 26 book pages (MathJax served empty) took
    64 CPU-s in fresh tabs against 29 in one tab, most of a page's cost."""
    yield from _tab(browser)


@pytest.fixture(scope="module")
def tab_without_js(browser):
    """As ``tab``, with JavaScript off (a context option, hence a tab of its own)."""
    yield from _tab(browser, java_script_enabled=False)
