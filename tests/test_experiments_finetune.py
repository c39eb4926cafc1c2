"""The experiment on equal terms: one fine-tuning schedule for every arm, compared at equal steps from
step 0; the context cut (the same characters scored with the whole left context and with the last L);
dynamic and fixed scaling factors. Tiny models, seconds."""

import time

import pytest
import torch
import torch.nn.functional as F

import posenc.experiments.finetune as finetune_module
from posenc import rope_inv_freq
from posenc.experiments import (
    FINETUNE_SCHEDULE,
    FINETUNED,
    CharCorpus,
    SyntheticCorpus,
    TinyLM,
    evaluate_context_cut,
    evaluate_windows,
    experiment_config,
    experiment_scaling,
    finetune_arms,
    finetune_schedule,
    run_extrapolation,
    run_text_experiment,
    text_config,
)

TEXT = "to be, or not to be, that is the question: whether 'tis nobler in the mind to suffer " * 8


def tiny_config(**finetune):
    return experiment_config(
        train_length=8,
        model={"d_model": 16, "n_heads": 2},
        finetune={"length": 16, "steps": 6, "batch": 2, "warmup": 2, "checkpoints": [0, 2, 6], **finetune},
    )


def tiny_rope(vocab=16):
    torch.manual_seed(0)
    return TinyLM(vocab, "rope", d_model=16, n_heads=2, max_len=8)


def test_both_runs_fine_tune_with_the_one_schedule():
    for config in (experiment_config(), text_config()):
        schedule = finetune_schedule(config)
        assert {k: v for k, v in schedule.items() if k != "decay"} == {
            k: config["finetune"][k] for k in ("length", "steps", "batch", "lr", "warmup")
        }
        assert schedule == finetune_schedule(experiment_config())  # the passkey and text runs agree
        assert list(config["finetune"]["methods"]) == list(FINETUNED)
        assert config["finetune"]["checkpoints"][0] == 0  # the model before fine-tuning
        assert max(config["finetune"]["checkpoints"]) == config["finetune"]["steps"]
    assert "direct_steps" not in experiment_config()["finetune"]  # no arm has steps of its own


def test_every_arm_trains_with_the_same_arguments_and_is_evaluated_at_the_same_steps(monkeypatch):
    calls = []
    real = finetune_module.train_lm

    def recording(model, corpus, **kwargs):
        calls.append({k: v for k, v in kwargs.items() if k != "on_step"})
        return real(model, corpus, **kwargs)

    monkeypatch.setattr(finetune_module, "train_lm", recording)
    model, corpus = tiny_rope(), SyntheticCorpus(vocab_size=16)
    config = tiny_config()
    out = finetune_arms(model, corpus, config, seed=3, evaluate=lambda m, step: {"step": step})
    assert list(out) == ["rope ft", "rope+pi ft", "rope+yarn ft"]
    assert len(calls) == 3 and all(call == calls[0] for call in calls)  # steps, warm-up, lr, batch, data seed
    assert calls[0]["steps"] == 6 and calls[0]["warmup"] == 2 and calls[0]["seed"] == 1003
    for arm in out.values():
        assert list(arm["finetune_curve"]) == ["0", "2", "6"]  # equal steps, from step 0
        assert arm["schedule"] == out["rope ft"]["schedule"]  # and the results record it
        assert arm["schedule"]["steps"] == 6 and arm["schedule"]["decay"] == "cosine"


def test_arms_start_from_the_same_weights_and_the_model_is_restored():
    model, corpus = tiny_rope(), SyntheticCorpus(vocab_size=16)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    starts = []

    def evaluate(m, step):
        if step == 0:
            starts.append({k: v.clone() for k, v in m.state_dict().items()})
        return {}

    finetune_arms(model, corpus, tiny_config(), seed=0, evaluate=evaluate)
    assert len(starts) == 3
    for state in [*starts, model.state_dict()]:  # copies of the same tensors: exact by construction
        assert all(torch.equal(state[k], before[k]) for k in before)
    method = model.blocks[0].attn.method  # plain RoPE again
    torch.testing.assert_close(method.inv_freq, rope_inv_freq(method.head_dim), rtol=1e-6, atol=0)


@pytest.mark.parametrize("arm,factor", [("pi", 2.0), ("yarn", 2.0)])
def test_pi_and_yarn_fine_tune_with_the_fixed_factor_of_the_new_length(arm, factor):
    model, corpus = tiny_rope(), SyntheticCorpus(vocab_size=16)
    config = tiny_config(methods=[arm])
    seen = []
    finetune_arms(
        model,
        corpus,
        config,
        seed=0,
        evaluate=lambda m, step: seen.append(m.blocks[0].attn.method.inv_freq.clone()) or {},
    )
    plain = rope_inv_freq(model.blocks[0].attn.method.head_dim)
    want = experiment_scaling(config, arm, 16)[0]
    assert want.factor == factor  # 16 / 8
    assert all(torch.equal(f, seen[0]) for f in seen)  # the same at every checkpoint
    assert torch.allclose(seen[0][-1], plain[-1] / factor, rtol=1e-5)  # the slowest pair: interpolated by s


def test_zero_shot_scalings_are_dynamic_and_a_factor_override_fixes_them():
    config = experiment_config()
    L = config["train_length"]
    for scaling in ("pi", "yarn"):
        assert [experiment_scaling(config, scaling, n)[0].factor for n in (L // 2, L, 2 * L, 8 * L)] == [1, 1, 2, 8]
        assert {experiment_scaling(config, scaling, n, factor=8.0)[0].factor for n in (L, 2 * L, 8 * L)} == {8.0}
    fixed = {name: spec for name, spec in config["sensitivity"].items() if "fixed" in name}
    assert {spec["scaling"] for spec in fixed.values()} == {"pi", "yarn"}
    assert all(spec["factor"] == config["finetune"]["length"] / L for spec in fixed.values())


@pytest.mark.parametrize("position", ["rope", "alibi", "sinusoidal", "none", "learned"])
@pytest.mark.parametrize("length,context,start", [(8, 8, 0), (12, 5, 0), (12, 5, 3), (16, 16, 4)])
def test_context_cut_equals_full_scoring_where_the_whole_context_fits(position, length, context, start):
    # targets predicted at positions p < context have at most `context` tokens before them: nothing to cut
    torch.manual_seed(1)
    model = TinyLM(16, position, d_model=16, n_heads=2, max_len=16)
    tokens = torch.randint(0, 16, (3 * length + 1,), generator=torch.Generator().manual_seed(2))
    full, cut = evaluate_context_cut(model, tokens, length, context, start=start)
    assert full.shape == cut.shape == (3, length - start)
    fits = slice(0, max(context - start, 0))
    torch.testing.assert_close(cut[:, fits], full[:, fits], rtol=1e-5, atol=1e-5)  # float32, other shapes
    _, per_position = evaluate_windows(model, tokens, length)  # the full scoring is evaluate_windows'
    torch.testing.assert_close(full.mean(0), per_position[start:], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("position", ["rope", "alibi", "none"])
def test_context_cut_scores_the_last_context_tokens_alone(position):
    torch.manual_seed(0)
    model = TinyLM(16, position, d_model=16, n_heads=2, max_len=16)
    length, context = 12, 4
    tokens = torch.randint(0, 16, (2 * length + 1,), generator=torch.Generator().manual_seed(5))
    full, cut = evaluate_context_cut(model, tokens, length, context)  # start = context
    windows, targets = tokens[:-1].view(2, length), tokens[1:].view(2, length)
    for w in range(2):
        for p in range(context, length):
            alone = model(windows[w : w + 1, p - context + 1 : p + 1])[0, -1]
            nll = F.cross_entropy(alone[None], targets[w, p : p + 1]).double()
            torch.testing.assert_close(cut[w, p - context], nll, rtol=1e-5, atol=1e-5)
    assert (full - cut).abs().max() > 1e-3  # an untrained model reads every token before it: cutting changes it


def test_text_run_fine_tunes_and_cuts_on_equal_terms():
    config = text_config(
        methods=["learned", "rope", "alibi"],
        seeds=[0],
        steps=2,
        train_length=8,
        eval_lengths=[8, 16],
        val_tokens=64,
        model={"d_model": 16, "n_heads": 2},
        context_cut={"length": 16, "tokens": 32},
        finetune={"length": 16, "steps": 3, "batch": 2, "checkpoints": [0, 1, 3]},
    )
    cpu_before = time.process_time()
    out = run_text_experiment(config)["metrics"]  # workers=1: every job runs in this process
    cpu_spent = time.process_time() - cpu_before
    assert list(out) == [
        "learned",
        "rope",
        "rope+pi",
        "rope+dynamic",
        "rope+yarn",
        "rope ft",
        "rope+pi ft",
        "rope+yarn ft",
        "alibi",
    ]
    assert "context_cut" not in out["learned"]["0"]  # its table ends at L
    for method in ("rope", "alibi"):
        cut = out[method]["0"]["context_cut"]
        assert cut["targets"] == 2 * (16 - 8) and cut["full"] > 0 and cut["cut"] > 0
    # each job's CPU time is its own share of this process's, rounded to 0.1 s (not the process's total)
    jobs = [out[method]["0"]["cpu_seconds"] for method in ("learned", "rope", "alibi")]
    assert all(0 <= s <= cpu_spent + 0.05 for s in jobs) and sum(jobs) <= cpu_spent + 0.05 * len(jobs)
    curves = [out[name]["0"]["finetune_curve"] for name in ("rope ft", "rope+pi ft", "rope+yarn ft")]
    assert all(list(c) == ["0", "1", "3"] for c in curves)
    assert all({"loss", "loss_beyond"} == set(c["3"]) for c in curves)
    # step 0 of the direct arm is the trained model itself, scored at the new length
    assert curves[0]["0"]["loss"] == pytest.approx(out["rope"]["0"]["loss"]["16"], rel=1e-6)


def test_passkey_run_records_the_schedule_of_each_arm():
    config = experiment_config(
        methods=["rope"],
        seeds=[0],
        steps=2,
        train_length=8,
        eval_lengths=[8, 16],
        eval_batch=2,
        distances=[],
        distance_batch=2,
        model={"d_model": 16, "n_heads": 2},
        trigram_sequences=8,
        sensitivity={},
        finetune={"length": 16, "steps": 2, "batch": 2, "checkpoints": [0, 2]},
    )
    out = run_extrapolation(config)["metrics"]
    schedules = [out[name]["0"]["schedule"] for name in ("rope ft", "rope+pi ft", "rope+yarn ft")]
    assert all(
        s == {**finetune_schedule(config), "data_seed": 1000, "answer_weight": config["answer_weight"]}
        for s in schedules
    )


def test_char_corpus_fine_tuning_text_is_the_training_part():
    corpus = CharCorpus(TEXT, train_fraction=0.5)
    batch = corpus.sample(4, 16, generator=torch.Generator().manual_seed(0))
    joined = corpus.decode(corpus.train)
    assert all(corpus.decode(row) in joined for row in batch)
    assert (
        FINETUNE_SCHEDULE["length"] == 512
        and FINETUNE_SCHEDULE["batch"] * FINETUNE_SCHEDULE["length"]
        == experiment_config()["batch"] * experiment_config()["train_length"]
    )  # the tokens a step of pre-training
