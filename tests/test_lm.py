import pytest
import torch

from posenc.attention import POSITION_METHODS
from posenc.lm import SyntheticCorpus, TinyLM, evaluate_lm, run_extrapolation, train_lm


def test_corpus_is_seeded_and_follows_its_rules():
    corpus = SyntheticCorpus(copy_prob=0.0)
    a = corpus.sample(4, 50, generator=torch.Generator().manual_seed(1))
    b = corpus.sample(4, 50, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, b) and a.shape == (4, 50) and a.min() >= 0 and a.max() < 32
    for row in a:
        for t in range(2, 50):
            assert row[t] in corpus.next_tokens[row[t - 2], row[t - 1]]


def test_corpus_copies_earlier_spans():
    corpus = SyntheticCorpus(copy_prob=0.2, branching=32)   # any token may follow: copies stand out
    x = corpus.sample(8, 200, generator=torch.Generator().manual_seed(0))
    repeats = 0
    for row in x:
        for t in range(40, 196):
            window = row[t:t + 4]
            earlier = row[:t - 12].unfold(0, 4, 1)
            repeats += bool((earlier == window).all(1).any())
    assert repeats > 50          # 4-grams reappear far more often than chance (32^-4 per pair)


@pytest.mark.parametrize("position", POSITION_METHODS)
def test_tiny_lm_is_causal(position):
    torch.manual_seed(0)
    model = TinyLM(16, position, d_model=16, n_heads=2, max_len=12).eval()
    x = torch.randint(0, 16, (2, 12))
    y = x.clone()
    y[:, 8:] = (y[:, 8:] + 1) % 16
    with torch.no_grad():
        torch.testing.assert_close(model(x)[:, :8], model(y)[:, :8])


def test_learned_lm_refuses_longer_inputs_and_scaling_needs_rope():
    model = TinyLM(16, "learned", d_model=16, n_heads=2, max_len=8)
    with pytest.raises(ValueError, match="max_len=8"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="RoPE model"):
        model.set_rope_scaling("linear", factor=2.0)


def test_rope_scaling_swaps_frequencies_and_default_restores_them():
    torch.manual_seed(0)
    model = TinyLM(16, "rope", d_model=16, n_heads=2).eval()
    x = torch.randint(0, 16, (1, 10))
    with torch.no_grad():
        before = model(x)
        model.set_rope_scaling("linear", factor=4.0, original_length=8)
        assert not torch.allclose(model(x), before)
        model.set_rope_scaling("default")
        torch.testing.assert_close(model(x), before)


def test_training_lowers_the_loss():
    torch.manual_seed(0)
    corpus = SyntheticCorpus(vocab_size=8, branching=1, copy_prob=0.0)
    model = TinyLM(8, "alibi", d_model=16, n_heads=2)
    before = evaluate_lm(model, corpus, length=16, batch=8)
    losses = train_lm(model, corpus, length=16, steps=40, batch=8, lr=1e-2)
    assert len(losses) == 40 and evaluate_lm(model, corpus, length=16, batch=8) < before - 0.3


def test_run_extrapolation_structure():
    out = run_extrapolation(methods=("learned", "rope"), steps=2, eval_factors=(1, 2), d_model=16,
                            n_heads=2, train_length=8, eval_batch=2)
    assert out["config"]["eval_lengths"] == [8, 16]
    assert out["loss"]["learned"]["0"]["16"] is None and out["loss"]["learned"]["0"]["8"] > 0
    assert set(out["loss"]) == {"learned", "rope", "rope+linear", "rope+dynamic", "rope+yarn"}


def test_lm_bad_arguments():
    with pytest.raises(ValueError, match="position"):
        TinyLM(16, "rotary")
    with pytest.raises(ValueError, match="branching"):
        SyntheticCorpus(vocab_size=4, branching=5)
    with pytest.raises(ValueError, match="steps"):
        train_lm(TinyLM(16, "none", d_model=16, n_heads=2), SyntheticCorpus(vocab_size=16), length=8, steps=0)


def test_summarize_means_over_seeds():
    from posenc.lm import summarize

    result = {"loss": {"a": {"0": {"8": 1.0, "16": None}, "1": {"8": 3.0, "16": None}}}}
    table = summarize(result)
    assert table["a"][16] is None
    mean, std = table["a"][8]
    assert mean == 2.0 and abs(std - 2 ** 0.5) < 1e-12
