"""The real-text experiment (posenc.experiments.realtext): the shipped corpus, the evaluation protocol,
the run's shape."""

import math

import pytest
import torch

from posenc.experiments import (
    CharCorpus,
    code_hash,
    evaluate_windows,
    load_results,
    load_shakespeare,
    run_text_experiment,
    text_config,
)


@pytest.fixture(scope="module")
def corpus():
    return CharCorpus()


def test_shipped_text_is_tiny_shakespeare(corpus):
    text = load_shakespeare()
    assert len(text) == 1_115_394 and len(set(text)) == 65 and text.startswith("First Citizen:")
    assert corpus.vocab_size == 65 and corpus.decode(corpus.train[:14]) == "First Citizen:"
    assert len(corpus.train) + len(corpus.val) == len(text) and len(corpus.train) == int(0.9 * len(text))


def test_training_windows_come_from_the_training_part(corpus):
    x = corpus.sample(8, 33, generator=torch.Generator().manual_seed(0))
    assert x.shape == (8, 33)
    train_text = corpus.decode(corpus.train)
    assert all(corpus.decode(row) in train_text for row in x)


class _Bigram(torch.nn.Module):
    """Next-token logits from the current token alone: no use for a longer context."""

    position = "none"

    def __init__(self, v):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(v, v, generator=torch.Generator().manual_seed(1)))

    def forward(self, tokens):
        return self.table[tokens]


@pytest.mark.parametrize("lengths", [(4, 8, 16), (2, 32)])
def test_every_length_scores_the_same_targets(corpus, lengths):
    # a model that uses one token of context gets the same mean loss at every window length, because
    # the windows do not overlap and every target is scored once: what changes with the length is only
    # how much context the tokens have
    tokens = corpus.val[: 64 + 1]
    model = _Bigram(corpus.vocab_size)
    losses = [evaluate_windows(model, tokens, n)[0] for n in lengths]
    assert max(losses) - min(losses) < 1e-6 * max(losses)
    mean, per_position = evaluate_windows(model, tokens, lengths[0])
    assert per_position.shape == (lengths[0],) and math.isclose(per_position.mean().item(), mean, rel_tol=1e-12)


def test_evaluate_windows_refuses_a_ragged_cut(corpus):
    with pytest.raises(ValueError, match="m \\* length \\+ 1"):
        evaluate_windows(_Bigram(corpus.vocab_size), corpus.val[:64], 8)
    with pytest.raises(ValueError, match="train_fraction"):
        CharCorpus("abcdefgh", train_fraction=1.0)
    with pytest.raises(ValueError, match="text"):
        CharCorpus("ab")
    with pytest.raises(ValueError, match="val_tokens"):
        text_config(val_tokens=100)
    with pytest.raises(ValueError, match="unknown configuration entry"):
        text_config(stepz=3)


def test_run_text_experiment_structure():
    config = text_config(
        methods=["learned", "rope"],
        seeds=[0],
        steps=2,
        train_length=8,
        eval_lengths=[8, 16],
        val_tokens=32,
        model={"d_model": 16, "n_heads": 2},
        context_cut={"length": 16, "tokens": 32},
        finetune={"methods": []},
    )
    out = run_text_experiment(config)
    assert list(out["metrics"]) == ["learned", "rope", "rope+pi", "rope+dynamic", "rope+yarn"]
    learned, rope = out["metrics"]["learned"]["0"], out["metrics"]["rope"]["0"]
    assert learned["loss"]["16"] is None and learned["loss_by_position"] is None and learned["loss"]["8"] > 0
    assert len(rope["loss_by_position"]) == 16
    assert out["code"]["sha256"] == code_hash("posenc.experiments.realtext")
    assert "experiments/realtext.py" in out["code"]["files"] and "experiments/passkey.py" not in out["code"]["files"]


def test_shipped_text_results_come_from_this_code_and_configuration():
    # fails when the code that makes the numbers changed since posenc/results/extrapolation-text.json
    # was written: re-run `python experiments/extrapolation.py --text`
    result = load_results("extrapolation-text")
    assert result["config"] == text_config()
    assert len(result["config"]["seeds"]) >= 3
    assert result["command"].startswith("python experiments/extrapolation.py --text")
