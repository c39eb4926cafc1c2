"""posenc.experiments refuses bad input with an error naming the argument, before any large allocation,
and keeps accepting valid unusual input."""

import pytest
import torch

from posenc._core.validate import MAX_TENSOR_BYTES
from posenc.experiments import (
    RESULT_NAMES,
    CharCorpus,
    PasskeyCorpus,
    SyntheticCorpus,
    TinyLM,
    evaluate_lm,
    evaluate_passkey,
    evaluate_windows,
    experiment_config,
    experiment_scaling,
    learned_bias,
    load_results,
    run_extrapolation,
    run_jobs,
    run_text_experiment,
    summarize,
    train_lm,
)
from posenc.experiments.runner import threads_per_worker

HUGE = 10**9


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return TinyLM(16, "rope", d_model=16, n_heads=2, max_len=8)


def g():
    return torch.Generator().manual_seed(0)


def test_synthetic_corpus_refuses_a_vocabulary_whose_table_would_not_finish():
    # the table draws a permutation of V for each of V * V contexts: V = 10**5 used to run for ever
    with pytest.raises(ValueError, match="vocab_size must be <= 1024"):
        SyntheticCorpus(vocab_size=10**5)
    with pytest.raises(ValueError, match="vocab_size"):
        PasskeyCorpus(vocab_size=10**5)


@pytest.mark.parametrize("corpus", [SyntheticCorpus(), PasskeyCorpus()], ids=["synthetic", "passkey"])
@pytest.mark.parametrize("batch,length,name", [(HUGE, 16, "batch"), (2, HUGE, "length")])
def test_sampling_refuses_sizes_above_the_library_limit(corpus, batch, length, name):
    with pytest.raises(ValueError, match=rf"{name}={HUGE}.*GiB"):
        corpus.sample(batch, length, generator=g())


def test_passkey_text_and_probes_refuse_huge_sizes():
    corpus = PasskeyCorpus()
    with pytest.raises(ValueError, match="batch=1000000000"):
        corpus.sample_text(HUGE, 16, generator=g())
    with pytest.raises(ValueError, match="n=1000000000"):
        corpus.sample_probe(2, HUGE, generator=g())
    with pytest.raises(TypeError, match="generator"):
        corpus.sample_text(2, 16, generator=0)


def test_train_lm_refuses_before_sampling(model):
    corpus = PasskeyCorpus()
    with pytest.raises(ValueError, match=f"length={HUGE}"):
        train_lm(model, corpus, length=HUGE, steps=1)
    with pytest.raises(ValueError, match=f"batch={HUGE}"):
        train_lm(model, corpus, length=8, steps=1, batch=HUGE)
    with pytest.raises(TypeError, match="model must be a TinyLM"):
        train_lm(None, corpus, length=8, steps=1)
    with pytest.raises(TypeError, match="corpus"):
        train_lm(model, "some text", length=8, steps=1)
    with pytest.raises(TypeError, match="on_step"):
        train_lm(model, corpus, length=8, steps=1, on_step=3)


def test_forward_refuses_tokens_that_are_not_ids(model):
    with pytest.raises(TypeError, match="tokens"):
        model(torch.zeros(1, 4))
    with pytest.raises(ValueError, match="tokens"):
        model(torch.zeros(4, dtype=torch.long))
    with pytest.raises(ValueError, match=r"\[0, 16\)"):
        model(torch.tensor([[0, 16]]))
    with pytest.raises(ValueError, match=r"\[0, 16\)"):
        model(torch.tensor([[-1, 3]]))
    with pytest.raises(ValueError, match="empty"):
        model(torch.zeros(1, 0, dtype=torch.long))
    assert model(torch.tensor([[0, 15]], dtype=torch.int32)).shape == (1, 2, 16)  # any integer dtype


def test_evaluations_refuse_wrong_models_and_corpora(model):
    corpus = PasskeyCorpus()
    with pytest.raises(TypeError, match="model"):
        evaluate_lm("a model", corpus, length=8)
    with pytest.raises(TypeError, match="model"):
        evaluate_passkey(None, corpus, length=8)
    with pytest.raises(TypeError, match="corpus must be a PasskeyCorpus"):
        evaluate_passkey(model, SyntheticCorpus(), length=8)
    with pytest.raises(TypeError, match="corpus"):
        evaluate_lm(model, [1, 2, 3], length=8)
    with pytest.raises(ValueError, match=f"length={HUGE}"):
        evaluate_lm(model, corpus, length=HUGE)
    with pytest.raises(ValueError, match="last"):
        evaluate_lm(model, corpus, length=8, last=9)
    with pytest.raises(TypeError, match="model"):
        learned_bias(None, 8)
    with pytest.raises(ValueError, match="logit bias"):
        learned_bias(model, 8)


def test_char_corpus_refuses_bad_text():
    with pytest.raises(TypeError, match="text must be a str"):
        CharCorpus(b"bytes are not text")
    with pytest.raises(ValueError, match="at least 4 characters"):
        CharCorpus("abc")
    with pytest.raises(ValueError, match="train_fraction"):
        CharCorpus("abcdefgh", train_fraction=0.1)  # no training window left
    corpus = CharCorpus("abcdefgh", train_fraction=0.5)  # unusual but valid
    with pytest.raises(ValueError, match="length"):
        corpus.sample(1, 5, generator=g())
    assert corpus.sample(3, 4, generator=g()).shape == (3, 4)


def test_evaluate_windows_refuses_bad_tokens(model):
    with pytest.raises(TypeError, match="tokens"):
        evaluate_windows(model, [0, 1, 2], 2)
    with pytest.raises(TypeError, match="tokens"):
        evaluate_windows(model, torch.zeros(5), 2)
    with pytest.raises(ValueError, match="1-D"):
        evaluate_windows(model, torch.zeros(1, 5, dtype=torch.long), 2)
    with pytest.raises(ValueError, match="m >= 1"):
        evaluate_windows(model, torch.zeros(1, dtype=torch.long), 2)
    with pytest.raises(ValueError, match=r"\[0, 16\)"):
        evaluate_windows(model, torch.full((5,), 99), 2)
    with pytest.raises(TypeError, match="model"):
        evaluate_windows("model", torch.zeros(5, dtype=torch.long), 2)


def test_results_names_and_message_agree(capsys):
    for name in RESULT_NAMES:  # every name the message lists loads
        assert load_results(name, check=False)["metrics"]
    with pytest.raises(ValueError) as info:
        load_results("extrapolation-quick")
    assert all(repr(name) in str(info.value) for name in RESULT_NAMES)
    with pytest.raises(TypeError, match="check"):
        load_results("extrapolation", check=1.5)
    with pytest.raises(TypeError, match="result"):
        summarize(None)


def test_configurations_and_runs_refuse_bad_arguments():
    config = experiment_config()
    with pytest.raises(ValueError, match="scaling"):
        experiment_scaling(config, "ntk", 128)
    with pytest.raises(ValueError, match="length"):
        experiment_scaling(config, "pi", 0)
    with pytest.raises(ValueError, match="workers"):
        run_extrapolation(experiment_config(quick=True), workers=0)
    with pytest.raises(TypeError, match="config"):
        run_text_experiment("quick")
    with pytest.raises(TypeError, match="run"):
        list(run_jobs(None, []))


def test_valid_unusual_inputs_stay_accepted():
    corpus = SyntheticCorpus(vocab_size=2, branching=2)
    torch.manual_seed(0)
    model = TinyLM(2, "none", d_model=4, n_heads=1, n_layers=1)
    assert len(train_lm(model, corpus, length=1, steps=2, batch=1)) == 2  # one input token per sequence
    assert evaluate_lm(model, corpus, length=1, batch=1) > 0
    rope, seq_len = experiment_scaling(experiment_config(), "yarn", 16)  # shorter than trained: factor 1
    assert rope.factor == 1.0 and seq_len is None


def test_parallel_workers_share_out_the_cores():
    import os

    cores = os.cpu_count() or 1
    assert threads_per_worker(1) == cores and threads_per_worker(10**6) == 1
    assert all(1 <= threads_per_worker(w) <= cores for w in (1, 2, 3, 64))
    assert list(run_jobs(sum, [(1, 2), (3, 4)])) == [((1, 2), 3), ((3, 4), 7)]
    assert MAX_TENSOR_BYTES >= 2**30


#: The gaps an outside reading found after the split: configurations, the job runner, the formatter and
#: the batch record refuse bad input by name (the meta-test runs these too).
EXPERIMENT_GAPS_BAD_CALLS = [
    (lambda: experiment_config(quick="yes"), TypeError, "quick"),
    (lambda: __import__("posenc.experiments", fromlist=["x"]).text_config(quick=2), TypeError, "quick"),
    (lambda: experiment_scaling("config", "pi", 128), TypeError, "config"),
    (lambda: experiment_scaling({}, "pi", 128), ValueError, "train_length"),
    (lambda: __import__("posenc.experiments", fromlist=["x"]).finetune_corpus([]), TypeError, "config"),
    (lambda: __import__("posenc.experiments", fromlist=["x"]).finetune_corpus({}), ValueError, "finetune"),
    (lambda: run_jobs(len, 3), TypeError, "jobs"),
    (lambda: run_jobs(len, [(1, 2)], progress="yes"), TypeError, "progress"),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).format_mean_range((1.0, 0.5, 2.0), percent=1),
        TypeError,
        "percent",
    ),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).PasskeyBatch(
            torch.zeros(2, 5, dtype=torch.long),
            torch.zeros(2, 4, dtype=torch.bool),
            torch.zeros(2, 3, dtype=torch.bool),
            torch.zeros(2, dtype=torch.long),
        ),
        ValueError,
        "answer",
    ),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).PasskeyBatch(
            torch.zeros(2, 5),
            torch.zeros(2, 4, dtype=torch.bool),
            torch.zeros(2, 4, dtype=torch.bool),
            torch.zeros(2, dtype=torch.long),
        ),
        TypeError,
        "tokens",
    ),
    # issue 35 item 9: one sequence of 10**9 tokens (its draws would take five 4-8 GiB tensors) and a
    # partial configuration are refused by name before anything is allocated or run
    (lambda: SyntheticCorpus().sample(1, HUGE, generator=g()), ValueError, f"length={HUGE}"),
    (lambda: PasskeyCorpus().sample(1, HUGE, generator=g()), ValueError, f"length={HUGE}"),
    (lambda: run_extrapolation({"methods": ["rope"], "steps": 10}), ValueError, "seeds"),
    (lambda: run_extrapolation({**experiment_config(quick=True), "finetune": {"methods": []}}), ValueError, "finetune"),
    (lambda: run_text_experiment({"methods": ["rope"]}), ValueError, "seeds"),
    # the equal-terms pieces
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).evaluate_context_cut(
            TinyLM(16, "rope", d_model=16, n_heads=2), torch.zeros(17, dtype=torch.long), 8, 9
        ),
        ValueError,
        "context",
    ),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).evaluate_context_cut(
            TinyLM(16, "rope", d_model=16, n_heads=2), [0] * 17, 8, 4
        ),
        TypeError,
        "tokens",
    ),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).evaluate_context_cut(
            TinyLM(16, "rope", d_model=16, n_heads=2), torch.zeros(17, dtype=torch.long), 8, 4, start=8
        ),
        ValueError,
        "start",
    ),
    (lambda: __import__("posenc.experiments", fromlist=["x"]).finetune_schedule({}), ValueError, "finetune"),
    (lambda: __import__("posenc.experiments", fromlist=["x"]).finetune_schedule([]), TypeError, "config"),
    (
        lambda: __import__("posenc.experiments", fromlist=["x"]).finetune_arms(
            TinyLM(16, "rope", d_model=16, n_heads=2),
            SyntheticCorpus(),
            {"train_length": 8},
            seed=0,
            evaluate=lambda m, s: {},
        ),
        ValueError,
        "finetune",
    ),
    (lambda: experiment_scaling(experiment_config(), "pi", 128, beta_fast=2.0), ValueError, "beta_fast"),
]


@pytest.mark.parametrize("call,exc,match", EXPERIMENT_GAPS_BAD_CALLS)
def test_experiment_gaps_are_refused_by_name(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_valid_records_and_jobs_are_accepted():
    from posenc.experiments import PasskeyBatch, format_mean_range

    batch = PasskeyBatch(
        torch.zeros(2, 5, dtype=torch.long),
        torch.zeros(2, 4, dtype=torch.bool),
        torch.zeros(2, 4, dtype=torch.bool),
        torch.full((2,), -1),
    )
    assert batch.tokens.shape == (2, 5)
    assert list(run_jobs(len, [(1, 2), (3, 4, 5)])) == [((1, 2), 2), ((3, 4, 5), 3)]
    assert format_mean_range((0.5, 0.25, 0.75), percent=True).startswith("50")
