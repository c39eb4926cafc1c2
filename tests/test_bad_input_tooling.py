"""The book's tooling (posenc.experiments, posenc.measure, posenc.explorers, posenc.book, posenc.practice)
refuses bad input with a ValueError or TypeError naming the argument, before any large allocation or
any change of state. Each list entry is ``(call, exception, text the message must contain)``; the
meta-test (tests/test_bad_input_meta.py) requires a case for every public callable and runs them all.
posenc.measure's own cases are in tests/test_measure.py."""

import pytest
import torch

from posenc import book, experiments, explorers, measure, practice

NAN = float("nan")
HUGE = 10**9
LM = experiments.TinyLM(16, "rope", d_model=16, n_heads=2, max_len=8)  # a small model the calls refuse to run
ALIBI_LM = experiments.TinyLM(16, "alibi", d_model=16, n_heads=2, max_len=8)
PASSKEY = experiments.PasskeyCorpus()
CONFIG = experiments.experiment_config(quick=True)
TOKENS = torch.zeros(20, dtype=torch.long)

EXPERIMENTS_BAD_CALLS = [
    (lambda: experiments.SyntheticCorpus(vocab_size=1), ValueError, "vocab_size"),
    (lambda: experiments.SyntheticCorpus(copy_prob=NAN), ValueError, "copy_prob"),
    (lambda: experiments.SyntheticCorpus(seed=0.5), TypeError, "seed"),
    (lambda: experiments.PasskeyCorpus(n_digits=0), ValueError, "n_digits"),
    (lambda: experiments.PasskeyCorpus(key_rate=NAN), ValueError, "key_rate"),
    (lambda: experiments.PasskeyCorpus(passkey_len=0), ValueError, "passkey_len"),
    (lambda: experiments.CharCorpus(b"bytes are not text"), TypeError, "text"),
    (lambda: experiments.CharCorpus("abcdefgh", train_fraction=NAN), ValueError, "train_fraction"),
    (lambda: experiments.TinyLM(0, "rope"), ValueError, "vocab_size"),
    (lambda: experiments.TinyLM(16, "rotary"), ValueError, "position"),
    (lambda: experiments.TinyLM(16, "rope", n_layers=0), ValueError, "n_layers"),
    (lambda: experiments.TinyLM(16, "rope", num_buckets=3), TypeError, "num_buckets"),
    (lambda: experiments.train_lm(None, PASSKEY, length=8, steps=1), TypeError, "model"),
    (lambda: experiments.train_lm(LM, PASSKEY, length=8, steps=0), ValueError, "steps"),
    (lambda: experiments.train_lm(LM, PASSKEY, length=8, steps=1, lr=NAN), ValueError, "lr"),
    (lambda: experiments.train_lm(LM, PASSKEY, length=8, steps=1, warmup=-1), ValueError, "warmup"),
    (lambda: experiments.train_lm(LM, PASSKEY, length=8, steps=1, answer_weight=NAN), ValueError, "answer_weight"),
    (lambda: experiments.train_lm(LM, PASSKEY, length=HUGE, steps=1), ValueError, f"length={HUGE}"),
    (lambda: experiments.evaluate_lm(LM, PASSKEY, length=8, batch=0), ValueError, "batch"),
    (lambda: experiments.evaluate_lm(LM, PASSKEY, length=8, seed=0.5), TypeError, "seed"),
    (lambda: experiments.evaluate_lm(LM, PASSKEY, length=8, last=9), ValueError, "last"),
    (lambda: experiments.evaluate_passkey(LM, PASSKEY, length=8, distance=100), ValueError, "distance"),
    (lambda: experiments.evaluate_passkey(LM, experiments.SyntheticCorpus(), length=8), TypeError, "corpus"),
    (lambda: experiments.evaluate_windows(LM, TOKENS, 4, chunk=0), ValueError, "chunk"),
    (lambda: experiments.evaluate_windows(LM, [0, 1, 2], 2), TypeError, "tokens"),
    (lambda: experiments.TrigramBaseline("corpus", length=8, sequences=2), TypeError, "corpus"),
    (lambda: experiments.TrigramBaseline(PASSKEY, length=8, sequences=2, alpha=NAN), ValueError, "alpha"),
    (lambda: experiments.TrigramBaseline(PASSKEY, length=8, sequences=0), ValueError, "sequences"),
    (lambda: experiments.learned_bias(None, 8), TypeError, "model"),
    (lambda: experiments.learned_bias(ALIBI_LM, 0), ValueError, "length"),
    (lambda: experiments.experiment_config(warp=1), ValueError, "warp"),
    (lambda: experiments.text_config(warp=1), ValueError, "warp"),
    (lambda: experiments.experiment_scaling(CONFIG, "ntk", 128), ValueError, "scaling"),
    (lambda: experiments.experiment_scaling(CONFIG, "pi", 0), ValueError, "length"),
    (lambda: experiments.experiment_scaling(CONFIG, "pi", 128, beta_fast=2.0), ValueError, "overrides"),
    (
        lambda: experiments.finetune_corpus({**CONFIG, "corpus": {**CONFIG["corpus"], "vocab_size": 1}}),
        ValueError,
        "vocab_size",
    ),
    (lambda: list(experiments.run_jobs(None, [])), TypeError, "run"),
    (lambda: list(experiments.run_jobs(lambda job: {}, [1], workers=0)), ValueError, "workers"),
    (lambda: experiments.run_extrapolation("quick"), TypeError, "config"),
    (lambda: experiments.run_extrapolation(CONFIG, workers=0), ValueError, "workers"),
    (lambda: experiments.run_text_experiment("quick"), TypeError, "config"),
    (lambda: experiments.run_text_experiment(experiments.text_config(quick=True), workers=0), ValueError, "workers"),
    (lambda: experiments.code_files("posenc.no_such_module"), ValueError, "entry"),
    (lambda: experiments.code_hash(3), TypeError, "entry"),
    (lambda: experiments.code_record(root=3), TypeError, "root"),
    (lambda: experiments.load_results("warp_drive"), ValueError, "name"),
    (lambda: experiments.load_results("extrapolation", check=1.5), TypeError, "check"),
    (lambda: experiments.summarize(None), TypeError, "result"),
    (
        lambda: experiments.summarize(experiments.load_results("extrapolation", check=False), metric="speed"),
        ValueError,
        "metric",
    ),
    (lambda: experiments.format_mean_range("x"), TypeError, "value"),
    (lambda: experiments.format_mean_range((1.0, 2.0)), TypeError, "value"),
]

#: posenc.measure's cases are tests/test_measure.py's BAD_CALLS; a name two packages export is called
#: through its package here
MEASURE_BAD_CALLS = [
    (lambda: measure.load_results("warp_drive"), ValueError, "name"),
    (lambda: measure.load_results(None), TypeError, "name"),
]

EXPLORERS_BAD_CALLS = [
    (lambda: explorers.Explorer(x=1), TypeError, "['x']"),
    (lambda: explorers.Param("n", 4, "integer", 1, 10), ValueError, "kind"),
    (lambda: explorers.Param("n", 4, "int", 1, 10).validate(11), ValueError, "n must be <= 10"),
    (lambda: explorers.Param("n", 4, "int", 1, 10).parse("seven"), ValueError, "n must be a number"),
    (lambda: explorers.SinusoidalHeatmapExplorer(d_model=7), ValueError, "d_model"),
    (lambda: explorers.SinusoidalHeatmapExplorer(scale=0), ValueError, "scale"),
    (lambda: explorers.SinusoidalSimilarityExplorer(base=NAN), ValueError, "base"),
    (lambda: explorers.ShawIndexExplorer(seq_len=1.5), TypeError, "seq_len"),
    (lambda: explorers.RopeRotationExplorer(head_dim=8, pair=4), ValueError, "pair"),
    (lambda: explorers.RopeCosSinExplorer(length=10**6), ValueError, "length"),
    (lambda: explorers.RopeScoreExplorer(rope="yes"), TypeError, "rope"),
    (lambda: explorers.DecayBoundExplorer(max_distance=0), ValueError, "max_distance"),
    (lambda: explorers.AlibiBiasExplorer(n_heads=4, head=4), ValueError, "head"),
    (lambda: explorers.RopeScalingExplorer(rope_type="ntk"), ValueError, "rope_type"),
    (lambda: explorers.ModelScalingExplorer(scaling="gpt-5"), ValueError, "scaling"),
    (lambda: explorers.LearnedBiasExplorer(method="rope"), ValueError, "method"),
    (lambda: explorers.LearnedBiasExplorer(warp=1), TypeError, "warp"),
    (lambda: explorers.nice_ceil(0), ValueError, "x must be > 0"),
    (lambda: explorers.nice_ceil(-2.5), ValueError, "x must be > 0"),
    (lambda: explorers.nice_ceil(NAN), ValueError, "x must be finite"),
    (lambda: explorers.nice_ceil(float("inf")), ValueError, "x must be finite"),
    (lambda: explorers.nice_ceil("1"), TypeError, "x must be a real number"),
    (lambda: explorers.Heatmap(None, "row"), TypeError, "xlabel"),
    (lambda: explorers.Heatmap("col", "row", colorbar=1), TypeError, "colorbar"),
    (lambda: explorers.Heatmap("col", "row", cmap=""), ValueError, "cmap must be a matplotlib colormap name"),
    (lambda: explorers.Heatmap("col", "row", cmap=3), TypeError, "cmap"),
    (lambda: explorers.Heatmap("col", "row", cmap="RdBu_rr"), ValueError, "cmap"),  # matplotlib is imported (conftest)
    (lambda: explorers.Heatmap("col", "row", limits="sym"), ValueError, "limits must be None, 'symmetric'"),
    (lambda: explorers.Heatmap("col", "row", limits=(1, -1)), ValueError, "low < high"),
    (lambda: explorers.Heatmap("col", "row", limits=(0, NAN)), ValueError, "limits"),
    (lambda: explorers.Heatmap("col", "row", limits=[-1, 1]), TypeError, "limits"),
    (lambda: explorers.Heatmap("col", "row", limits=(-1, 0, 1)), TypeError, "limits"),
    (lambda: explorers.Heatmap("col", "row", aspect="square"), ValueError, "aspect must be 'auto', 'equal'"),
    (lambda: explorers.Heatmap("col", "row", aspect=0), ValueError, "aspect"),
    (lambda: explorers.Heatmap("col", "row", aspect=None), TypeError, "aspect"),
    (lambda: explorers.Curves("x", 2), TypeError, "ylabel"),
    (lambda: explorers.Curves("x", "y", labels=["a"]), TypeError, "labels must be a tuple of str"),
    (lambda: explorers.Curves("x", "y", guide_labels=("a", 1)), TypeError, "guide_labels"),
    (lambda: explorers.Curves("x", "y", marker=None), TypeError, "marker"),
    (lambda: explorers.Curves("x", "y", zero_line=1), TypeError, "zero_line must be True or False"),
    (lambda: explorers.Curves("x", "y", yscale="logarithmic"), ValueError, "yscale must be one of"),
    (lambda: explorers.Curves("x", "y", ylim=(1, 1)), ValueError, "ylim"),
    (lambda: explorers.Curves("x", "y", ylim=(0, 1), yscale="log"), ValueError, "ylim must have low > 0"),
    (lambda: explorers.Curves("x", "y", ylim=("0", 1)), TypeError, "ylim"),
    (lambda: explorers.Curves("x", "y", colors=("tab:blue", "")), ValueError, "colors"),
    (lambda: explorers.Curves("x", "y", colors=("not a colour",)), ValueError, "colors"),  # matplotlib is imported
    (lambda: explorers.Curves("x", "y", guide_colors=("tab:red", 0.5)), TypeError, "guide_colors"),
    (lambda: explorers.Curves("x", "y", legend_loc="top"), ValueError, "legend_loc must be one of"),
    (lambda: explorers.Curves("x", "y", legend_loc=2), TypeError, "legend_loc"),
    (lambda: explorers.Rotation("x", None), TypeError, "ylabel"),
    (lambda: explorers.Rotation("x", "y", trail_label=0), TypeError, "trail_label must be a str"),
    (lambda: explorers.Rotation("x", "y", arrow_label=b"m"), TypeError, "arrow_label"),
    # static companions: refused before a figure is made (ncols -1 used to fail inside matplotlib)
    (lambda: explorers.RopeCosSinExplorer.static_companion(ncols=-1), ValueError, "ncols"),
    (lambda: explorers.RopeCosSinExplorer.static_companion(ncols=0), ValueError, "ncols"),
    (lambda: explorers.RopeCosSinExplorer.static_companion([{}, {}], ncols=3), ValueError, "ncols must be <= 2"),
    (lambda: explorers.RopeCosSinExplorer.static_companion(ncols=2.0), TypeError, "ncols"),
    (lambda: explorers.RopeCosSinExplorer.static_companion({"length": 8}), TypeError, "settings"),
    (lambda: explorers.RopeCosSinExplorer.static_companion([8]), TypeError, "settings[0]"),
    (lambda: explorers.RopeCosSinExplorer.static_companion([]), ValueError, "settings"),
    (lambda: explorers.RopeCosSinExplorer.static_companion([{}, {"length": 10**6}]), ValueError, "length"),
]

BOOK_BAD_CALLS = [  # each refused before any state (seed, threads, autograd) is changed
    (lambda: book.book_setup(seed=2**64), ValueError, "seed"),
    (lambda: book.book_setup(grad="yes"), TypeError, "grad"),
    (lambda: book.book_setup(threads=1.0), TypeError, "threads"),
    (lambda: book.Source("title", None), TypeError, "code"),
    (lambda: book.Source(1, "code"), TypeError, "title"),
    (lambda: book.show_source(), TypeError, "objs"),
    (lambda: book.show_source(3), TypeError, "objs"),
    (lambda: book.show_source(book.book_setup, docstring=1), TypeError, "docstring"),
    (lambda: book.show_source(book.book_setup, collapsed="yes"), TypeError, "collapsed"),
    (lambda: book.Collapsed(None, ["row"]), TypeError, "summary"),
    (lambda: book.Collapsed("title", "one string"), TypeError, "lines"),
    (lambda: book.answer_digest(None), TypeError, "answer"),
    (lambda: book.answer_digest(6.5), ValueError, "answer"),
    (lambda: book.check_answer(3, 6, "0" * 16), TypeError, "name"),
    (lambda: book.check_answer("e", 6, "six"), ValueError, "digest"),
    # toy data (posenc.book.toy)
    (lambda: book.toy_vocabulary("the dog"), TypeError, "tokens"),
    (lambda: book.toy_vocabulary(None), TypeError, "tokens"),
    (lambda: book.toy_vocabulary(3), TypeError, "tokens"),
    (lambda: book.toy_vocabulary(["a", 1]), TypeError, "tokens must hold str"),
    (lambda: book.toy_embeddings(["a", "b"], 4, vocabulary=["a"]), ValueError, "vocabulary"),
    (lambda: book.toy_embeddings(["a"], 0), ValueError, "d_model"),
    (lambda: book.toy_embeddings(["a"], HUGE**2), ValueError, "d_model"),
    (lambda: book.toy_embeddings("a b", 4), TypeError, "tokens"),
    (lambda: book.toy_embeddings(["a", None], 4), TypeError, "tokens"),
    (lambda: book.toy_embeddings(["a"], 4.0), TypeError, "d_model"),
    (lambda: book.toy_embeddings(["a"], True), TypeError, "d_model"),
    (lambda: book.toy_embeddings(["a"], 4, seed=0.5), TypeError, "seed"),
    (lambda: book.toy_embeddings(["a"], 4, seed=2**64), ValueError, "seed"),
    (lambda: book.toy_embeddings(["a"], 4, vocabulary="a"), TypeError, "vocabulary"),
    (lambda: book.toy_embeddings(["a"], 4, vocabulary=["a", 2]), TypeError, "vocabulary"),
    (lambda: book.toy_embeddings(["a"], 4, vocabulary=["a", "b", "a"]), ValueError, "vocabulary must list each"),
    # the properties' checks (posenc.book.properties)
    (lambda: book.min_pairwise_distance(torch.zeros(1, 4)), ValueError, "pe"),
    (lambda: book.min_pairwise_distance(torch.zeros(4)), ValueError, "pe"),
    (lambda: book.min_pairwise_distance(torch.zeros(10**6, 1)), ValueError, "pe of shape"),
    (lambda: book.min_pairwise_distance(torch.full((5, 2), NAN)), ValueError, "pe must be finite"),
    (lambda: book.min_pairwise_distance(torch.zeros(3, 2, dtype=torch.complex64)), TypeError, "pe"),
    (lambda: book.first_repeat([[0.0, 1.0]]), TypeError, "pe"),
    (lambda: book.first_repeat(torch.zeros(3, 2), atol=-1.0), ValueError, "atol"),
    (lambda: book.first_repeat(torch.full((5, 2), NAN)), ValueError, "pe must be finite"),
    (lambda: book.first_repeat(torch.zeros(3, 2), atol=NAN), ValueError, "atol"),
    (lambda: book.first_repeat(torch.zeros(3, 2), atol="0"), TypeError, "atol"),
    (lambda: book.first_repeat(torch.zeros(3)), ValueError, "pe"),
    (lambda: book.diagonal_spread(torch.zeros(3)), ValueError, "matrix"),
    (lambda: book.diagonal_spread(torch.zeros(3, 3, dtype=torch.long)), TypeError, "matrix"),
    (lambda: book.diagonal_spread(torch.full((3, 3), NAN)), ValueError, "matrix"),
    (lambda: book.diagonal_spread([[1.0]]), TypeError, "matrix"),
    (lambda: book.shift_map(torch.zeros(5, 2), 5), ValueError, "k"),
    (lambda: book.shift_map(torch.full((5, 2), NAN), 1), ValueError, "pe must be finite"),
    (lambda: book.shift_map(torch.zeros(1, 2), 1), ValueError, "pe must have at least 2 rows"),
    (lambda: book.shift_map(torch.zeros(4, 2), 1.0), TypeError, "k"),
    (lambda: book.shift_map(torch.zeros(4, 2), 1, affine=1), TypeError, "affine"),
    (lambda: book.shift_map_residual(torch.zeros(5, 2), 0), ValueError, "k"),
    (
        lambda: book.shift_map_residual(torch.tensor([[0.0, 1.0], [float("inf"), 2.0], [1.0, 2.0]]), 1),
        ValueError,
        "pe must be finite",
    ),
    (lambda: book.shift_map_residual(torch.zeros(4, 2, dtype=torch.complex64), 1), TypeError, "pe"),
    (lambda: book.shift_map_residual(torch.zeros(4, 2), 1, affine="yes"), TypeError, "affine"),
    (lambda: book.attention_entropy(torch.tensor([0.0, NAN])), ValueError, "logits"),
    (lambda: book.attention_entropy(torch.tensor(1.0)), ValueError, "logits"),
    (lambda: book.attention_entropy(torch.zeros(3, dtype=torch.long)), TypeError, "logits"),
    (lambda: book.attention_entropy([0.0, 1.0]), TypeError, "logits"),
    # the model table (posenc.book.models; more in tests/test_rope_today.py)
    (lambda: book.scaled_wavelengths("gpt-5"), ValueError, "model_or_scaling"),
    (lambda: book.scaled_wavelengths("yarn", seq_len=0), ValueError, "seq_len"),
]

PRACTICE_BAD_CALLS = [
    (lambda: practice.check("warp_drive", lambda *args: None), ValueError, "task"),
    (lambda: practice.check("rope_inv_freq", 3), TypeError, "fn"),
    (lambda: practice.reference("warp_drive"), ValueError, "task"),
    (lambda: practice.Report("warp_drive"), ValueError, "task must be one of"),
    (lambda: practice.Report(None), TypeError, "task"),
    (
        lambda: practice.Report("rope_inv_freq", rows=[practice.Row("runs"), "runs"]),
        TypeError,
        "rows must be a list of Row",
    ),
    (lambda: practice.Report("rope_inv_freq", rows=(practice.Row("runs"),)), TypeError, "rows"),
    (lambda: practice.Report("rope_inv_freq", diagnoses="wrong sign"), TypeError, "diagnoses must be a list of str"),
    (lambda: practice.Report("rope_inv_freq", implemented=None), TypeError, "implemented must be True or False"),
    (lambda: practice.Report("rope_inv_freq", n_cases=-1), ValueError, "n_cases must be >= 0"),
    (lambda: practice.Report("rope_inv_freq", n_cases=2.0), TypeError, "n_cases"),
    (lambda: practice.Report("rope_inv_freq", raised_in=None), TypeError, "raised_in"),
    (lambda: practice.Row(""), ValueError, "name must be a non-empty str"),
    (lambda: practice.Row(3), TypeError, "name"),
    (lambda: practice.Row("runs", ok=1), TypeError, "ok must be True, False or None"),
    (lambda: practice.Row("runs", where=None), TypeError, "where"),
    (lambda: practice.Row("runs", detail=0), TypeError, "detail"),
]

CASES = {
    "experiments": EXPERIMENTS_BAD_CALLS,
    "measure": MEASURE_BAD_CALLS,
    "explorers": EXPLORERS_BAD_CALLS,
    "book": BOOK_BAD_CALLS,
    "practice": PRACTICE_BAD_CALLS,
}


@pytest.fixture(autouse=True)
def _state():
    """A case that wrongly passed validation could change the process's state: put it back."""
    threads, grad = torch.get_num_threads(), torch.is_grad_enabled()
    yield
    torch.set_num_threads(threads)
    torch.set_grad_enabled(grad)


@pytest.mark.parametrize(
    "call,exc,name",
    [c for cases in CASES.values() for c in cases],
    ids=[f"{key}{i}" for key, cases in CASES.items() for i in range(len(cases))],
)
def test_bad_input_raises_an_error_naming_the_argument(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)
