"""rope_scaled_inv_freq against Hugging Face transformers' ROPE_INIT_FUNCTIONS, plus properties."""
import math

import pytest
import torch

from posenc import rope_inv_freq, rope_scaled_inv_freq


def hf_inv_freq(head_dim, base, rope_type, max_pos, seq_len=None, **params):
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rope_parameters = {"rope_type": rope_type, "rope_theta": base, **params}
    cfg = transformers.LlamaConfig(hidden_size=head_dim * 4, num_attention_heads=4, head_dim=head_dim,
                                   max_position_embeddings=max_pos, rope_parameters=rope_parameters)
    return ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)


@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
@pytest.mark.parametrize("factor", [2.0, 8.0])
def test_linear_matches_hf(head_dim, base, factor):
    ref, ref_scale = hf_inv_freq(head_dim, base, "linear", 2048, factor=factor)
    got, scale = rope_scaled_inv_freq(head_dim, base, rope_type="linear", factor=factor)
    torch.testing.assert_close(got, ref, rtol=0, atol=0)
    assert scale == ref_scale


@pytest.mark.parametrize("head_dim", [16, 128])
@pytest.mark.parametrize("seq_len", [None, 1024, 2048, 3000, 8192])
@pytest.mark.parametrize("factor", [2.0, 4.0])
def test_dynamic_matches_hf(head_dim, seq_len, factor):
    # HF v5 reads max_position_embeddings as the trained length of dynamic NTK
    ref, _ = hf_inv_freq(head_dim, 10000.0, "dynamic", 2048, seq_len=seq_len, factor=factor)
    got, scale = rope_scaled_inv_freq(head_dim, 10000.0, rope_type="dynamic", factor=factor,
                                      original_max_position_embeddings=2048, seq_len=seq_len)
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == 1.0
    if seq_len is None or seq_len <= 2048:
        torch.testing.assert_close(got, rope_inv_freq(head_dim))


@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
@pytest.mark.parametrize("l_orig", [64, 2048, 4096])
@pytest.mark.parametrize("betas", [(32.0, 1.0), (16.0, 2.0)])
def test_yarn_matches_hf(head_dim, factor, l_orig, betas):
    ref, ref_scale = hf_inv_freq(head_dim, 10000.0, "yarn", int(l_orig * factor), factor=factor,
                                 original_max_position_embeddings=l_orig, beta_fast=betas[0], beta_slow=betas[1])
    got, scale = rope_scaled_inv_freq(head_dim, 10000.0, rope_type="yarn", factor=factor,
                                      original_max_position_embeddings=l_orig, beta_fast=betas[0],
                                      beta_slow=betas[1])
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == pytest.approx(ref_scale)
    assert scale == pytest.approx(0.1 * math.log(factor) + 1)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("factor", [8.0, 32.0])
@pytest.mark.parametrize("bands", [(1.0, 4.0), (2.0, 8.0)])
def test_llama3_matches_hf(head_dim, factor, bands):
    ref, _ = hf_inv_freq(head_dim, 500000.0, "llama3", 131072, factor=factor, low_freq_factor=bands[0],
                         high_freq_factor=bands[1], original_max_position_embeddings=8192)
    got, scale = rope_scaled_inv_freq(head_dim, 500000.0, rope_type="llama3", factor=factor,
                                      original_max_position_embeddings=8192, low_freq_factor=bands[0],
                                      high_freq_factor=bands[1])
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == 1.0


@pytest.mark.parametrize("rope_type", ["linear", "yarn", "llama3"])
def test_scaled_frequencies_never_exceed_default(rope_type):
    base_freq = rope_inv_freq(64, 10000.0)
    got, _ = rope_scaled_inv_freq(64, 10000.0, rope_type=rope_type, factor=4.0, original_max_position_embeddings=512)
    assert torch.all(got <= base_freq * (1 + 1e-6))
    assert torch.all(got >= base_freq / 4.0 * (1 - 1e-6))


def test_default_matches_hf_model_rope():
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(hidden_size=256, num_attention_heads=4, head_dim=64,
                                   rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    got, scale = rope_scaled_inv_freq(64, 10000.0)
    torch.testing.assert_close(got, LlamaRotaryEmbedding(cfg).inv_freq, rtol=0, atol=0)
    assert scale == 1.0


# --- the registry -------------------------------------------------------------------------------

def test_registry_names_every_type_and_takes_only_its_own_parameters():
    import inspect

    from posenc import ROPE_SCALINGS, ROPE_TYPES

    assert tuple(ROPE_SCALINGS) == ROPE_TYPES == ("default", "linear", "dynamic", "yarn", "llama3")
    own = {name: set(inspect.signature(fn).parameters) - {"head_dim", "base"} for name, fn in ROPE_SCALINGS.items()}
    assert own == {
        "default": set(),
        "linear": {"factor"},
        "dynamic": {"factor", "train_length", "seq_len"},
        "yarn": {"factor", "train_length", "beta_fast", "beta_slow", "attention_factor"},
        "llama3": {"factor", "train_length", "low_freq_factor", "high_freq_factor"},
    }


@pytest.mark.parametrize("head_dim", [8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_dispatcher_equals_the_registered_function(head_dim, base):
    from posenc import ROPE_SCALINGS

    hf_names = {"train_length": "original_max_position_embeddings"}
    params = {"factor": 4.0, "train_length": 256, "seq_len": 2048, "beta_fast": 32.0, "beta_slow": 1.0,
              "attention_factor": None, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    for name, fn in ROPE_SCALINGS.items():
        import inspect

        own = [p for p in inspect.signature(fn).parameters if p not in ("head_dim", "base")]
        direct, direct_scale = fn(head_dim, base, **{p: params[p] for p in own})
        got, scale = rope_scaled_inv_freq(head_dim, base, rope_type=name,
                                          **{hf_names.get(p, p): params[p] for p in own})
        torch.testing.assert_close(got, direct, rtol=0, atol=0)
        assert scale == direct_scale


@pytest.mark.parametrize("rope_type", ["yarn", "llama3"])
@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("factor", [2.0, 8.0, 32.0])
@pytest.mark.parametrize("l_orig", [64, 4096])
def test_blended_scalings_move_from_kept_to_interpolated(rope_type, head_dim, factor, l_orig):
    """Per pair, new/old frequency falls monotonically from 1 (kept) towards 1/factor (interpolated)."""
    got, _ = rope_scaled_inv_freq(head_dim, 10000.0, rope_type=rope_type, factor=factor,
                                  original_max_position_embeddings=l_orig)
    ratio = got.double() / rope_inv_freq(head_dim).double()
    assert (ratio <= 1 + 1e-6).all() and (ratio >= 1 / factor - 1e-6).all()
    assert (ratio.diff() <= 1e-6).all()


def test_one_frequency_function_behind_every_ladder():
    from posenc import DEFAULT_BASE, inv_freq, sinusoidal_frequencies

    assert DEFAULT_BASE == 10000.0
    for d in (2, 8, 64, 128, 130):
        for base in (100.0, DEFAULT_BASE, 500000.0):
            assert torch.equal(rope_inv_freq(d, base), inv_freq(d, base))
            assert torch.equal(sinusoidal_frequencies(d, base, dtype=torch.float32), inv_freq(d, base))
            assert torch.equal(sinusoidal_frequencies(d, base), inv_freq(d, base, dtype=torch.float64))
            unscaled, _ = rope_scaled_inv_freq(d, base)
            assert torch.equal(unscaled, inv_freq(d, base))
