import math

import pytest
import torch

import posenc
import posenc.experiments
import posenc.experiments.results
from posenc import POSITION_METHODS, NoPEMethod, RopeMethod, rope_scaling
from posenc.experiments import (
    PasskeyCorpus,
    SyntheticCorpus,
    TinyLM,
    TrigramBaseline,
    code_hash,
    evaluate_lm,
    evaluate_passkey,
    experiment_config,
    experiment_scaling,
    finetune_corpus,
    load_results,
    run_extrapolation,
    summarize,
    train_lm,
)


def test_corpus_is_seeded_and_follows_its_rules():
    corpus = SyntheticCorpus(copy_prob=0.0)
    a = corpus.sample(4, 50, generator=torch.Generator().manual_seed(1))
    b = corpus.sample(4, 50, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, b) and a.shape == (4, 50) and a.min() >= 0 and a.max() < 32
    for row in a:
        for t in range(2, 50):
            assert row[t] in corpus.next_tokens[row[t - 2], row[t - 1]]


def test_corpus_copies_earlier_spans():
    corpus = SyntheticCorpus(copy_prob=0.2, branching=32)  # any token may follow: copies stand out
    x = corpus.sample(8, 200, generator=torch.Generator().manual_seed(0))
    repeats = 0
    for row in x:
        for t in range(40, 196):
            window = row[t : t + 4]
            earlier = row[: t - 12].unfold(0, 4, 1)
            repeats += bool((earlier == window).all(1).any())
    assert repeats > 50  # 4-grams reappear far more often than chance (32^-4 per pair)


@pytest.mark.parametrize("k", [1, 3])
def test_passkey_text_follows_its_rules(k):
    corpus = PasskeyCorpus(passkey_len=k)
    data = corpus.sample_text(64, 80, generator=torch.Generator().manual_seed(0))
    x = data.tokens
    assert x.shape == (64, 81) and data.filler.shape == data.answer.shape == (64, 80)
    assert torch.equal(x, corpus.sample_text(64, 80, generator=torch.Generator().manual_seed(0)).tokens)
    with_query = 0
    for row, filler, answer, dist in zip(x, data.filler, data.answer, data.distance):
        keys = (row == corpus.key_token).nonzero().flatten().tolist()
        queries = (row == corpus.query_token).nonzero().flatten().tolist()
        assert len(keys) <= 1 and len(queries) <= 1 and (not queries or keys)
        if queries:
            a, q = keys[0], queries[0]
            with_query += 1
            assert q > a + k and dist == q - a - 1
            n_ans = min(k, 80 - q)
            assert torch.equal(row[q + 1 : q + 1 + n_ans], row[a + 1 : a + 1 + n_ans])  # the digits asked for
            assert answer.nonzero().flatten().tolist() == list(range(q, q + n_ans))  # targets t + 1
        else:
            assert dist == -1 and not answer.any()
        for t in filler.nonzero().flatten().tolist():  # target t + 1 follows the chain from its predecessors
            assert row[t + 1] in corpus.filler_corpus.next_tokens[row[t - 1], row[t]]
    assert with_query > 32


def test_passkey_text_is_memoryless():
    # the key starts with the same probability at every position it has not started before:
    # nothing in the text tells a model its absolute position
    corpus = PasskeyCorpus()
    x = corpus.sample_text(20000, 48, generator=torch.Generator().manual_seed(0)).tokens
    is_key = x == corpus.key_token
    started_before = (is_key.cumsum(1) - is_key.long()) > 0
    at_risk = (~started_before).sum(0)[:40].double()  # rows still waiting at positions 0..39
    hazard = is_key.sum(0)[:40].double() / at_risk
    se = (corpus.key_rate * (1 - corpus.key_rate) / at_risk).sqrt()
    assert ((hazard - corpus.key_rate).abs() < 4 * se).all()
    assert abs(hazard[:20].mean() - hazard[20:].mean()) < 0.01


def test_passkey_probe_puts_the_key_at_the_distance():
    corpus = PasskeyCorpus(passkey_len=2)
    n, d = 40, 17
    data = corpus.sample_probe(8, n, generator=torch.Generator().manual_seed(3), distance=d)
    x = data.tokens
    assert (x[:, n - 2] == corpus.query_token).all() and (x[:, n - 2 - d - 1] == corpus.key_token).all()
    assert torch.equal(x[:, n - 1 :], x[:, n - 2 - d : n - d])  # the digits after QUERY are the key's
    assert (data.distance == d).all() and data.answer[:, -2:].all() and data.answer.sum() == 16
    with pytest.raises(ValueError, match="distance"):
        corpus.sample_probe(2, n, generator=torch.Generator(), distance=n)


def test_trigram_reaches_the_filler_entropy_and_guesses_passkeys():
    corpus = PasskeyCorpus()
    tri = TrigramBaseline(corpus, length=64, sequences=2048)
    loss = evaluate_lm(tri, corpus, length=256, batch=64, last=192)
    assert math.log(2) < loss < math.log(2) + 0.1  # filler entropy ln 2, plus the chance of KEY/QUERY
    acc = evaluate_passkey(tri, corpus, length=128, batch=500)
    assert acc < 0.2  # chance is 1/10; it cannot see the key


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
        model.set_rope_scaling(rope_scaling("linear", factor=2.0))


def test_rope_scaling_swaps_frequencies_and_default_restores_them():
    torch.manual_seed(0)
    model = TinyLM(16, "rope", d_model=16, n_heads=2).eval()
    x = torch.randint(0, 16, (1, 10))
    with torch.no_grad():
        before = model(x)
        model.set_rope_scaling(rope_scaling("linear", factor=4.0))
        assert not torch.allclose(model(x), before)
        model.set_rope_scaling(None)
        torch.testing.assert_close(model(x), before)


def _hf_dynamic(head_dim, base, factor, trained, seq_len):
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = transformers.LlamaConfig(
        hidden_size=head_dim * 4,
        num_attention_heads=4,
        head_dim=head_dim,
        max_position_embeddings=trained,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": factor},
    )
    return ROPE_INIT_FUNCTIONS["dynamic"](cfg, "cpu", seq_len=seq_len)[0]


@pytest.mark.parametrize("factor", [1.0, 2.0])
@pytest.mark.parametrize("s", [2, 4, 8])
def test_experiment_dynamic_ntk_is_hugging_faces(factor, s):
    # the experiment's dynamic NTK at 2L, 4L, 8L: a fixed factor, the length through seq_len only
    config = experiment_config(dynamic_factor=factor)
    L, d = config["train_length"], config["model"]["d_model"] // config["model"]["n_heads"]
    scaling, seq_len = experiment_scaling(config, "dynamic", s * L)
    assert scaling == rope_scaling("dynamic", factor=factor, original_max_position_embeddings=L) and seq_len == s * L
    model = TinyLM(26, "rope", max_len=L, **config["model"])
    model.set_rope_scaling(scaling, seq_len=seq_len)
    got = model.blocks[0].attn.method.inv_freq
    torch.testing.assert_close(got, _hf_dynamic(d, 10000.0, factor, L, s * L), rtol=1e-6, atol=0)
    # effective base: base * (factor * s - factor + 1) ** (d / (d - 2)); with factor 1 exactly the NTK-aware base for s
    scale = factor * s - (factor - 1)
    assert scale == (s if factor == 1.0 else 2 * s - 1)
    effective_base = got[1].double() ** (-d / 2)
    assert effective_base / (10000.0 * scale ** (d / (d - 2))) == pytest.approx(1.0, rel=1e-5)


def test_experiment_yarn_ramp_for_its_head_dimension():
    # head_dim 16, L = 64, base 10000: pairs turn 10.2, 3.2, 1.02, 0.32, ... times within L.
    # beta_fast = 2, beta_slow = 1 keep pairs 0 and 1, ramp pair 2 halfway, interpolate pairs 3-7 like PI
    from posenc import rope_inv_freq

    config = experiment_config()
    model = TinyLM(26, "rope", max_len=64, **config["model"])
    for s in (2, 4, 8):
        scaling, seq_len = experiment_scaling(config, "yarn", 64 * s)
        model.set_rope_scaling(scaling, seq_len=seq_len)
        ratio = model.blocks[0].attn.method.inv_freq / rope_inv_freq(16)
        expected = torch.tensor([1, 1, 0.5 + 0.5 / s, *[1 / s] * 5])
        torch.testing.assert_close(ratio, expected, rtol=1e-5, atol=0)
        assert model.blocks[0].attn.method.attention_scaling == pytest.approx(0.1 * math.log(s) + 1)


def test_training_lowers_the_loss():
    torch.manual_seed(0)
    corpus = SyntheticCorpus(vocab_size=8, branching=1, copy_prob=0.0)
    model = TinyLM(8, "alibi", d_model=16, n_heads=2)
    before = evaluate_lm(model, corpus, length=16, batch=8)
    steps = []
    losses = train_lm(model, corpus, length=16, steps=40, batch=8, lr=1e-2, on_step=steps.append)
    assert len(losses) == 40 and steps == list(range(1, 41))
    assert evaluate_lm(model, corpus, length=16, batch=8) < before - 0.3


def test_answer_weight_multiplies_the_loss_of_the_digits_after_query():
    import copy

    import torch.nn.functional as F

    corpus = PasskeyCorpus()
    torch.manual_seed(0)
    model = TinyLM(corpus.n_tokens, "rope", d_model=16, n_heads=2)
    start = copy.deepcopy(model)
    reported = train_lm(model, corpus, length=32, steps=1, batch=8, answer_weight=16.0, seed=5)[0]
    data = corpus.sample_text(8, 32, generator=torch.Generator().manual_seed(5))  # the batch it trained on
    assert data.answer.any()
    nll = F.cross_entropy(start(data.tokens[:, :-1]).transpose(1, 2), data.tokens[:, 1:], reduction="none")
    w = torch.where(data.answer, 16.0, 1.0)
    assert reported == pytest.approx(((nll * w).sum() / w.sum()).item(), rel=1e-5)


def test_run_extrapolation_structure():
    config = experiment_config(
        methods=["learned", "rope"],
        seeds=[0],
        steps=2,
        train_length=8,
        eval_lengths=[8, 16],
        eval_batch=2,
        distances=[3, 12],
        distance_batch=2,
        model={"d_model": 16, "n_heads": 2},
        trigram_sequences=8,
        finetune={"length": 16, "steps": 4, "batch": 2, "checkpoints": [0, 2, 4]},
    )
    out = run_extrapolation(config)
    assert list(out["metrics"]) == [
        "trigram",
        "learned",
        "rope",
        "rope+pi",
        "rope+dynamic",
        "rope+yarn",
        "rope+yarn b32",
        "rope+yarn t1",
        "rope+yarn b32 t1",
        "rope+dynamic f2",
        "rope+pi fixed",
        "rope+yarn fixed",
        "rope ft",
        "rope+pi ft",
        "rope+yarn ft",
    ]
    learned = out["metrics"]["learned"]["0"]
    assert learned["loss_beyond"] == {"16": None} and learned["passkey"]["16"] is None and learned["loss_at_L"] > 0
    for arm in ("rope ft", "rope+pi ft", "rope+yarn ft"):  # one schedule: the same checkpoints for every arm
        assert list(out["metrics"][arm]["0"]["finetune_curve"]) == ["0", "2", "4"]
    # every checkpoint's passkey score is an accuracy over the eval_batch = 2 probes
    for arm in ("rope ft", "rope+pi ft", "rope+yarn ft"):
        assert all(c["passkey"] in (0.0, 0.5, 1.0) for c in out["metrics"][arm]["0"]["finetune_curve"].values())
    assert out["code"]["sha256"] == code_hash("posenc.experiments.passkey")
    assert {"experiments/passkey.py", "experiments/model.py", "attention/multihead.py"} <= set(out["code"]["files"])
    assert set(out["code"]["file_sha256"]) == set(out["code"]["files"])
    with pytest.raises(ValueError, match="unknown configuration entry"):
        experiment_config(step=3)


def test_finetune_text_asks_across_the_whole_window():
    # the fine-tuning text must ask what the test asks: late questions about far keys
    config = experiment_config()
    ft = config["finetune"]
    g = torch.Generator().manual_seed(0)
    scaled = finetune_corpus(config).sample_text(800, ft["length"], generator=g)
    plain = PasskeyCorpus(**config["corpus"]).sample_text(800, ft["length"], generator=g)
    asked = scaled.distance >= 0
    query_pos = (scaled.tokens == finetune_corpus(config).query_token).float().argmax(dim=1)[asked]
    assert scaled.distance.max() > 0.8 * max(config["distances"]) > plain.distance.max()
    assert query_pos.max() > 0.9 * ft["length"]
    assert finetune_corpus(experiment_config(finetune={"scale_waits": False})).key_rate == config["corpus"]["key_rate"]


def test_sensitivity_settings_reach_the_scaling():
    config = experiment_config()
    model = TinyLM(PasskeyCorpus().n_tokens, "rope", max_len=64, **config["model"])
    model.set_rope_scaling(experiment_scaling(config, "yarn", 512, attention_factor=1.0)[0])
    assert model.blocks[0].attn.method.attention_scaling == 1.0
    model.set_rope_scaling(experiment_scaling(config, "yarn", 512)[0])
    assert model.blocks[0].attn.method.attention_scaling == pytest.approx(0.1 * math.log(8) + 1)
    assert experiment_scaling(config, "dynamic", 256, factor=2.0)[0].factor == 2.0
    with pytest.raises(ValueError, match="overrides"):
        experiment_scaling(config, "pi", 256, beta_fast=32.0)


def test_stale_results_are_refused_by_default_and_reported_on_request(monkeypatch, capsys):
    monkeypatch.setattr(
        posenc.experiments.results, "code_record", lambda *_, **__: {"sha256": "0" * 64, "file_sha256": {}}
    )
    with pytest.raises(RuntimeError, match="stale"):
        load_results("extrapolation")
    result = load_results("extrapolation", check="report")
    out = capsys.readouterr().out
    assert "is stale" in out and "0" * 64 in out and result["metrics"]
    with pytest.raises(ValueError, match="check"):
        load_results("extrapolation", check="warn")


def test_a_different_torch_version_is_reported_not_refused(monkeypatch, capsys):
    monkeypatch.setattr(posenc.experiments.results.torch, "__version__", "0.0.0-other")
    load_results("extrapolation", check=False)
    assert "made with torch" in capsys.readouterr().out


def test_shipped_results_come_from_this_code_and_configuration():
    # fails when the code that makes the numbers changed since posenc/results/extrapolation.json was
    # written: re-run `python experiments/extrapolation.py`
    result = load_results("extrapolation")
    assert result["config"] == experiment_config()
    assert len(result["config"]["seeds"]) >= 3
    # provenance: how it was run (the time is reported, not asserted: it depends on the machine's load)
    assert {"torch", "cpus", "workers", "threads_per_worker", "seconds"} <= set(result["environment"])
    assert result["command"].startswith("python experiments/extrapolation.py")
    from posenc.experiments import finetune_schedule

    for arm in ("rope ft", "rope+pi ft", "rope+yarn ft"):  # the saved runs record the one schedule
        assert all(
            run["schedule"]["steps"] == finetune_schedule(result["config"])["steps"]
            for run in result["metrics"][arm].values()
        )


def test_lm_bad_arguments():
    with pytest.raises(ValueError, match="position"):
        TinyLM(16, "rotary")
    with pytest.raises(ValueError, match="branching"):
        SyntheticCorpus(vocab_size=4, branching=5)
    with pytest.raises(ValueError, match="steps"):
        train_lm(TinyLM(16, "none", d_model=16, n_heads=2), SyntheticCorpus(vocab_size=16), length=8, steps=0)
    with pytest.raises(ValueError, match="key_rate"):
        PasskeyCorpus(key_rate=0.0)


def test_summarize_gives_mean_and_range_over_seeds():
    result = {
        "config": {"train_length": 8},
        "metrics": {
            "a": {
                "0": {"loss_at_L": 1.0, "passkey": {"8": 1.0, "16": None}},
                "1": {"loss_at_L": 3.0, "passkey": {"8": 0.5, "16": None}},
            }
        },
    }
    assert summarize(result, "passkey") == {"a": {8: (0.75, 0.5, 1.0), 16: None}}
    assert summarize(result, "loss_at_L") == {"a": {8: (2.0, 1.0, 3.0)}}


@pytest.mark.parametrize("position", list(POSITION_METHODS))
def test_tiny_lm_uses_method_objects_where_they_act(position):
    """An absolute encoding is one object at the embedding; every other method, one object per layer."""
    model = TinyLM(16, position, d_model=16, n_layers=3, n_heads=2, max_len=12)
    methods = [block.attn.method for block in model.blocks]
    method = POSITION_METHODS[position]
    if method.acts_on_input():
        assert isinstance(model.input_encoding, method) and model.input_encoding.name == position
        assert all(isinstance(m, NoPEMethod) for m in methods)
    else:
        assert isinstance(model.input_encoding, NoPEMethod)
        assert all(isinstance(m, method) and m.name == position for m in methods)
        assert len({id(m) for m in methods}) == 3


def test_tiny_lm_adds_the_absolute_encoding_once_to_the_embeddings():
    torch.manual_seed(0)
    model = TinyLM(16, "sinusoidal", d_model=16, n_layers=1, n_heads=2, base=100.0).eval()
    tokens = torch.randint(0, 16, (2, 9))
    seen = {}
    model.blocks[0].register_forward_pre_hook(lambda module, args: seen.setdefault("x", args[0]))
    with torch.no_grad():
        model(tokens)
    want = model.embed(tokens) + posenc.sinusoidal_encoding(9, 16, 100.0)
    assert torch.equal(seen["x"], want)  # the same float64 angles, one rounding, one addition


@pytest.mark.parametrize("position", ["sinusoidal", "rope", "rope_interleaved"])
def test_tiny_lm_base_reaches_its_methods(position):
    torch.manual_seed(0)
    a = TinyLM(16, position, d_model=16, n_heads=2, base=10000.0).eval()
    b = TinyLM(16, position, d_model=16, n_heads=2, base=500.0).eval()
    b.load_state_dict(a.state_dict())
    x = torch.randint(0, 16, (1, 12))
    with torch.no_grad():
        assert not torch.allclose(a(x), b(x))
    if position.startswith("rope"):
        assert torch.equal(b.blocks[1].attn.method.inv_freq, posenc.rope_inv_freq(8, 500.0))


def test_set_rope_scaling_gives_each_layer_the_scaled_frequencies():
    model = TinyLM(16, "rope", d_model=32, n_heads=4, max_len=16)
    model.set_rope_scaling(
        rope_scaling("yarn", factor=4.0, original_max_position_embeddings=16, beta_fast=8.0, beta_slow=1.0)
    )
    inv_freq, scale = posenc.rope_scaled_inv_freq(
        8, rope_type="yarn", factor=4.0, original_max_position_embeddings=16, beta_fast=8.0
    )
    for block in model.blocks:
        assert isinstance(block.attn.method, RopeMethod)
        assert torch.equal(block.attn.method.inv_freq, inv_freq) and block.attn.method.attention_scaling == scale


def test_experiment_scalings_are_the_experiments_not_the_registry():
    assert posenc.experiments.EXPERIMENT_SCALINGS == ("pi", "dynamic", "yarn")
    assert not hasattr(posenc.experiments, "ROPE_SCALINGS")
    config = experiment_config()
    for scaling in posenc.experiments.EXPERIMENT_SCALINGS:
        rope, seq_len = experiment_scaling(config, scaling, 4 * config["train_length"])
        assert isinstance(rope, posenc.RopeScaling) and rope.rope_type in posenc.ROPE_TYPES
        assert rope.factor == (1.0 if scaling == "dynamic" else 4.0)
        assert seq_len == (4 * config["train_length"] if scaling == "dynamic" else None)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: TinyLM(16, "rope", n_layers=0), "n_layers"),
        (lambda: TinyLM(16, "rope", n_layers=-1), "n_layers"),
        (lambda: TinyLM(16, "rope", base=1.0), "base"),
        (lambda: rope_scaling("yarn", factor=2.0), "original_max_position_embeddings"),
        (
            lambda: rope_scaling("dynamic", factor=2.0, original_max_position_embeddings=-4),
            "original_max_position_embeddings",
        ),
        (lambda: rope_scaling("pi"), "rope_type"),
        (lambda: TinyLM(16, "sinusoidal", d_model=15, n_heads=3), "d_model"),
    ],
)
def test_tiny_lm_refuses_bad_input_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_tiny_lm_passes_only_the_methods_own_options():
    with pytest.raises(TypeError, match="num_buckets"):
        TinyLM(16, "rope", d_model=16, n_heads=2, num_buckets=8)
    torch.manual_seed(0)
    model = TinyLM(16, "t5", d_model=16, n_heads=2, num_buckets=8, max_distance=20)
    assert all(
        block.attn.method.t5.num_buckets == 8 and block.attn.method.t5.max_distance == 20 for block in model.blocks
    )


@pytest.mark.parametrize(
    "value,percent,text",
    [
        ((2.3149, 2.2801, 2.351), False, "2.31 (2.28–2.35)"),
        ((0.8749, 0.8, 0.93), True, "87 (80–93)"),
        ((1, 0, 2), False, "1.00 (0.00–2.00)"),
        (None, False, "—"),
    ],
)
def test_format_mean_range(value, percent, text):
    from posenc.experiments import format_mean_range

    assert format_mean_range(value, percent=percent) == text


def test_format_mean_range_formats_what_summarize_returns():
    from posenc.experiments import format_mean_range, load_results, summarize

    table = summarize(load_results("extrapolation", check=False), "passkey")
    for row in table.values():
        for value in row.values():
            text = format_mean_range(value, percent=True)
            if value is None:
                assert text == "—"
            else:  # the three numbers printed are the rounded mean, min and max, in that order
                shown = [float(x) for x in text.replace("(", " ").replace(")", " ").replace("–", " ").split()]
                assert len(shown) == 3 and all(abs(s - 100 * v) <= 0.5 + 1e-9 for s, v in zip(shown, value))


@pytest.mark.parametrize("bad", [(1.0, 2.0), "1 2 3", (1.0, "a", 2.0), 3.0, (True, 0.0, 1.0)])
def test_format_mean_range_bad_input(bad):
    from posenc.experiments import format_mean_range

    with pytest.raises(TypeError, match="value must be None or a"):
        format_mean_range(bad)


@pytest.mark.parametrize("position", posenc.experiments.BIAS_METHODS)
def test_learned_bias_is_per_layer_head_and_distance(position):
    from posenc.experiments import learned_bias

    torch.manual_seed(0)
    model = TinyLM(16, position, d_model=16, n_heads=2, n_layers=3, max_len=8)
    rows = learned_bias(model, 12)
    assert len(rows) == 3 and all(len(layer) == 2 and all(len(head) == 12 for head in layer) for layer in rows)
    if position == "alibi":  # ALiBi's fixed slopes: the bias falls linearly with the distance, from 0
        assert all(head[0] == 0 and all(a > b for a, b in zip(head, head[1:])) for layer in rows for head in layer)
