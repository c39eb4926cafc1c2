"""rope_scaled_inv_freq against Hugging Face transformers' ROPE_INIT_FUNCTIONS, plus properties."""

import math

import pytest
import torch

import posenc
from posenc import rope_inv_freq, rope_scaled_inv_freq


def hf_inv_freq(head_dim, base, rope_type, max_pos, seq_len=None, **params):
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rope_parameters = {"rope_type": rope_type, "rope_theta": base, **params}
    cfg = transformers.LlamaConfig(
        hidden_size=head_dim * 4,
        num_attention_heads=4,
        head_dim=head_dim,
        max_position_embeddings=max_pos,
        rope_parameters=rope_parameters,
    )
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
    got, scale = rope_scaled_inv_freq(
        head_dim, 10000.0, rope_type="dynamic", factor=factor, original_max_position_embeddings=2048, seq_len=seq_len
    )
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == 1.0
    if seq_len is None or seq_len <= 2048:
        torch.testing.assert_close(got, rope_inv_freq(head_dim))


@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
@pytest.mark.parametrize("l_orig", [64, 2048, 4096])
@pytest.mark.parametrize("betas", [(32.0, 1.0), (16.0, 2.0)])
def test_yarn_matches_hf(head_dim, factor, l_orig, betas):
    ref, ref_scale = hf_inv_freq(
        head_dim,
        10000.0,
        "yarn",
        int(l_orig * factor),
        factor=factor,
        original_max_position_embeddings=l_orig,
        beta_fast=betas[0],
        beta_slow=betas[1],
    )
    got, scale = rope_scaled_inv_freq(
        head_dim,
        10000.0,
        rope_type="yarn",
        factor=factor,
        original_max_position_embeddings=l_orig,
        beta_fast=betas[0],
        beta_slow=betas[1],
    )
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == pytest.approx(ref_scale)
    assert scale == pytest.approx(0.1 * math.log(factor) + 1)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("factor", [8.0, 32.0])
@pytest.mark.parametrize("bands", [(1.0, 4.0), (2.0, 8.0)])
def test_llama3_matches_hf(head_dim, factor, bands):
    ref, _ = hf_inv_freq(
        head_dim,
        500000.0,
        "llama3",
        131072,
        factor=factor,
        low_freq_factor=bands[0],
        high_freq_factor=bands[1],
        original_max_position_embeddings=8192,
    )
    got, scale = rope_scaled_inv_freq(
        head_dim,
        500000.0,
        rope_type="llama3",
        factor=factor,
        original_max_position_embeddings=8192,
        low_freq_factor=bands[0],
        high_freq_factor=bands[1],
    )
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

    cfg = transformers.LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        head_dim=64,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    got, scale = rope_scaled_inv_freq(64, 10000.0)
    torch.testing.assert_close(got, LlamaRotaryEmbedding(cfg).inv_freq, rtol=0, atol=0)
    assert scale == 1.0


# --- the registry -------------------------------------------------------------------------------


def test_registry_names_every_type_and_takes_only_its_own_parameters():
    import inspect

    from posenc import ROPE_SCALINGS, ROPE_TYPES

    assert (
        tuple(ROPE_SCALINGS)
        == ROPE_TYPES
        == ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional")
    )
    own = {name: set(inspect.signature(fn).parameters) - {"head_dim", "base"} for name, fn in ROPE_SCALINGS.items()}
    assert own == {
        "default": set(),
        "linear": {"factor"},
        "dynamic": {"factor", "train_length", "seq_len"},
        "yarn": {
            "factor",
            "train_length",
            "beta_fast",
            "beta_slow",
            "attention_factor",
            "mscale",
            "mscale_all_dim",
            "truncate",
        },
        "llama3": {"factor", "train_length", "low_freq_factor", "high_freq_factor"},
        "longrope": {"factor", "train_length", "seq_len", "short_factor", "long_factor", "attention_factor"},
        "proportional": {"factor", "partial_rotary_factor"},
    }


@pytest.mark.parametrize("head_dim", [8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_dispatcher_equals_the_registered_function(head_dim, base):
    from posenc import ROPE_SCALINGS

    hf_names = {"train_length": "original_max_position_embeddings"}
    params = {
        "factor": 4.0,
        "train_length": 256,
        "seq_len": 2048,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "attention_factor": None,
        "mscale": None,
        "mscale_all_dim": None,
        "truncate": True,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "partial_rotary_factor": 0.5,
        "short_factor": torch.linspace(1, 2, head_dim // 2),
        "long_factor": torch.linspace(1, 40, head_dim // 2),
    }
    for name, fn in ROPE_SCALINGS.items():
        import inspect

        own = [p for p in inspect.signature(fn).parameters if p not in ("head_dim", "base")]
        direct, direct_scale = fn(head_dim, base, **{p: params[p] for p in own})
        got, scale = rope_scaled_inv_freq(
            head_dim, base, rope_type=name, **{hf_names.get(p, p): params[p] for p in own}
        )
        torch.testing.assert_close(got, direct, rtol=0, atol=0)
        assert scale == direct_scale


@pytest.mark.parametrize("rope_type", ["yarn", "llama3"])
@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("factor", [2.0, 8.0, 32.0])
@pytest.mark.parametrize("l_orig", [64, 4096])
def test_blended_scalings_move_from_kept_to_interpolated(rope_type, head_dim, factor, l_orig):
    """Per pair, new/old frequency falls monotonically from 1 (kept) towards 1/factor (interpolated)."""
    got, _ = rope_scaled_inv_freq(
        head_dim, 10000.0, rope_type=rope_type, factor=factor, original_max_position_embeddings=l_orig
    )
    ratio = got.double() / rope_inv_freq(head_dim).double()
    assert (ratio <= 1 + 1e-6).all() and (ratio >= 1 / factor - 1e-6).all()
    assert (ratio.diff() <= 1e-6).all()


def test_one_frequency_function_behind_every_ladder():
    """Every public route to the ladder gives rope_inv_freq's values: equal by construction (one function,
    the same float ops on the same inputs), in float32 and float64."""
    from posenc import DEFAULT_BASE, RopeScaling, sinusoidal_frequencies

    assert DEFAULT_BASE == 10000.0
    for d in (2, 8, 64, 128, 130):
        for base in (100.0, DEFAULT_BASE, 500000.0):
            for dtype in (torch.float32, torch.float64):
                assert torch.equal(sinusoidal_frequencies(d, base, dtype=dtype), rope_inv_freq(d, base, dtype=dtype))
            unscaled, scale = rope_scaled_inv_freq(d, base)
            assert torch.equal(unscaled, rope_inv_freq(d, base)) and scale == 1.0
            assert torch.equal(RopeScaling().inv_freq(d, base)[0], rope_inv_freq(d, base))
            # and the ladder is the formula: float32 rounding of base ** (-2i/d) only
            exact = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)
            torch.testing.assert_close(rope_inv_freq(d, base, dtype=torch.float64), exact, rtol=1e-14, atol=0)


# --------------------------------------------------------------------------- LongRoPE (Phi-3)


def _longrope_lists(n, seed):
    g = torch.Generator().manual_seed(seed)
    short = (1 + torch.rand(n, generator=g)).tolist()  # stretches in [1, 2)
    long_ = (1 + 60 * torch.rand(n, generator=g).sort().values).tolist()  # growing to ~60, as Phi-3's
    return short, long_


@pytest.mark.parametrize("head_dim", [16, 96, 128])
@pytest.mark.parametrize("factor", [None, 1.0, 8.0, 32.0])
@pytest.mark.parametrize("seq_len", [None, 0, 1, 4095, 4096, 4097, 131072])
def test_longrope_matches_hf_on_both_sides_of_the_switch(head_dim, factor, seq_len):
    short, long_ = _longrope_lists(head_dim // 2, head_dim)
    params = {"short_factor": short, "long_factor": long_, "original_max_position_embeddings": 4096}
    if factor is not None:
        params["factor"] = factor
    ref, ref_scale = hf_inv_freq(head_dim, 10000.0, "longrope", 131072, seq_len=seq_len, **params)
    # Phi-3 names no factor: HF then uses max_position_embeddings / original_max_position_embeddings
    got, scale = rope_scaled_inv_freq(
        head_dim,
        10000.0,
        rope_type="longrope",
        factor=131072 / 4096 if factor is None else factor,
        original_max_position_embeddings=4096,
        seq_len=seq_len,
        short_factor=short,
        long_factor=long_,
    )
    torch.testing.assert_close(got, ref, rtol=0, atol=0)  # the same float32 ops on the same inputs
    assert scale == pytest.approx(ref_scale, rel=1e-15)
    chosen = long_ if seq_len is not None and seq_len > 4096 else short
    torch.testing.assert_close(got, rope_inv_freq(head_dim, 10000.0) / torch.tensor(chosen), rtol=1e-6, atol=0)


@pytest.mark.parametrize("attention_factor", [0.5, 1.3])
def test_longrope_attention_factor_override_matches_hf(attention_factor):
    short, long_ = _longrope_lists(8, 0)
    params = {
        "short_factor": short,
        "long_factor": long_,
        "original_max_position_embeddings": 256,
        "factor": 16.0,
        "attention_factor": attention_factor,
    }
    ref, ref_scale = hf_inv_freq(16, 10000.0, "longrope", 4096, seq_len=1000, **params)
    got, scale = rope_scaled_inv_freq(
        16,
        rope_type="longrope",
        factor=16.0,
        original_max_position_embeddings=256,
        seq_len=1000,
        short_factor=short,
        long_factor=long_,
        attention_factor=attention_factor,
    )
    torch.testing.assert_close(got, ref, rtol=0, atol=0)
    assert scale == ref_scale == attention_factor


@pytest.mark.parametrize("head_dim,partial", [(128, 0.75), (96, 0.5)])
def test_longrope_with_partial_rotary_matches_hf(head_dim, partial):
    """Phi-4-mini style: the factor lists cover the rotated width r = head_dim * partial_rotary_factor."""
    r = int(head_dim * partial)
    short, long_ = _longrope_lists(r // 2, r)
    params = {
        "short_factor": short,
        "long_factor": long_,
        "original_max_position_embeddings": 4096,
        "partial_rotary_factor": partial,
    }
    for seq_len in (100, 5000):
        ref, ref_scale = hf_inv_freq(head_dim, 10000.0, "longrope", 131072, seq_len=seq_len, **params)
        got, scale = rope_scaled_inv_freq(
            r,
            10000.0,
            rope_type="longrope",
            factor=32.0,
            original_max_position_embeddings=4096,
            seq_len=seq_len,
            short_factor=short,
            long_factor=long_,
        )
        torch.testing.assert_close(got, ref, rtol=0, atol=0)
        assert scale == pytest.approx(ref_scale, rel=1e-15)


@pytest.mark.parametrize("factor,length", [(2.0, 2048), (32.0, 4096), (64.0, 8192)])
def test_longrope_attention_factor_formula(factor, length):
    ones = [1.0] * 8
    _, scale = rope_scaled_inv_freq(
        16,
        rope_type="longrope",
        factor=factor,
        original_max_position_embeddings=length,
        short_factor=ones,
        long_factor=ones,
    )
    assert scale == pytest.approx(math.sqrt(1 + math.log(factor) / math.log(length)), rel=1e-15)
    assert 1 < scale < math.sqrt(2)  # factor < L_orig here: ln(factor) / ln(L_orig) < 1


@pytest.mark.parametrize(
    "bad,name",
    [
        (dict(short_factor=[1.0] * 3), "short_factor"),
        (dict(long_factor=[1.0] * 4 + [0.0] * 4), "long_factor"),
        (dict(long_factor=[1.0] * 7 + [float("nan")]), "long_factor"),
        (dict(short_factor="11111111"), "short_factor"),
        (dict(short_factor=None), "short_factor"),
        (dict(original_max_position_embeddings=1), "original_max_position_embeddings"),
        (dict(seq_len=-1), "seq_len"),
        (dict(attention_factor=0.0), "attention_factor"),
    ],
)
def test_longrope_bad_input_names_the_parameter(bad, name):
    kwargs = dict(
        rope_type="longrope",
        factor=4.0,
        original_max_position_embeddings=64,
        seq_len=10,
        short_factor=[1.0] * 8,
        long_factor=[2.0] * 8,
    )
    kwargs.update(bad)
    with pytest.raises((ValueError, TypeError), match=name):
        rope_scaled_inv_freq(16, **kwargs)


@pytest.mark.parametrize("head_dim", [64, 128])
def test_llama3_with_equal_band_edges_matches_hf(head_dim):
    """Llama 4 Scout: low_freq_factor == high_freq_factor == 1, a hard switch at L_orig."""
    ref, _ = hf_inv_freq(
        head_dim,
        500000.0,
        "llama3",
        10485760,
        factor=16.0,
        low_freq_factor=1.0,
        high_freq_factor=1.0,
        original_max_position_embeddings=8192,
    )
    got, _ = rope_scaled_inv_freq(
        head_dim,
        500000.0,
        rope_type="llama3",
        factor=16.0,
        original_max_position_embeddings=8192,
        low_freq_factor=1.0,
        high_freq_factor=1.0,
    )
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    wavelength = 2 * math.pi / rope_inv_freq(head_dim, 500000.0)
    torch.testing.assert_close(
        got,
        torch.where(wavelength > 8192, rope_inv_freq(head_dim, 500000.0) / 16, rope_inv_freq(head_dim, 500000.0)),
        rtol=1e-6,
        atol=0,
    )


# --------------------------------------------------------------------------- YaRN of 2025 configs (round 2)


@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("factor", [4.0, 32.0, 40.0])
@pytest.mark.parametrize("mscales", [(None, None), (0.707, 0.707), (1.0, 1.0), (1.0, 0.5), (0.8, None)])
@pytest.mark.parametrize("truncate", [True, False])
def test_yarn_mscale_and_truncate_match_hf(head_dim, factor, mscales, truncate):
    """DeepSeek's mscale / mscale_all_dim and gpt-oss's truncate=False, against HF's yarn init."""
    mscale, mscale_all_dim = mscales
    extra = {k: v for k, v in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)) if v is not None}
    ref, ref_scale = hf_inv_freq(
        head_dim,
        10000.0,
        "yarn",
        int(4096 * factor),
        factor=factor,
        original_max_position_embeddings=4096,
        beta_fast=32.0,
        beta_slow=1.0,
        truncate=truncate,
        **extra,
    )
    got, scale = rope_scaled_inv_freq(
        head_dim,
        10000.0,
        rope_type="yarn",
        factor=factor,
        original_max_position_embeddings=4096,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
        truncate=truncate,
    )
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=0)
    assert scale == pytest.approx(ref_scale, rel=1e-12)


def test_truncate_changes_the_ramp_only_between_whole_pairs():
    kept, _ = rope_scaled_inv_freq(64, 150000.0, rope_type="yarn", factor=32.0, original_max_position_embeddings=4096)
    exact, _ = rope_scaled_inv_freq(
        64, 150000.0, rope_type="yarn", factor=32.0, original_max_position_embeddings=4096, truncate=False
    )
    assert not torch.equal(kept, exact)  # gpt-oss's setting moves the ramp
    torch.testing.assert_close(kept[:2], exact[:2], rtol=0, atol=0)  # the fastest pairs are kept by both
    torch.testing.assert_close(kept[-2:], exact[-2:], rtol=0, atol=0)  # the slowest interpolated by both


@pytest.mark.parametrize("head_dim,factor,l_orig", [(16, 4.0, 64), (64, 8.0, 2048), (128, 16.0, 4096)])
def test_yarn_defaults_are_the_papers_formula(head_dim, factor, l_orig):
    """YaRN with only factor and L_orig (beta 32 and 1, rounded ramp, 0.1 ln s + 1) against the formula written
    here in float64 from Peng et al. 2023 (eqs. 18-20): float32 rounding of the frequencies only."""
    got, scale = rope_scaled_inv_freq(
        head_dim, rope_type="yarn", factor=factor, original_max_position_embeddings=l_orig
    )
    base, d = 10000.0, head_dim

    def pair(rotations):  # the pair index whose wavelength fits `rotations` times into L_orig
        return d * math.log(l_orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(pair(32.0)), 0), min(math.ceil(pair(1.0)), d - 1)
    high = high + 0.001 if low == high else high
    want = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        gamma = 1 - min(max((i - low) / (high - low), 0.0), 1.0)  # 1: keep, 0: interpolate
        want.append(theta * gamma + theta / factor * (1 - gamma))
    torch.testing.assert_close(got.double(), torch.tensor(want, dtype=torch.float64), rtol=1e-6, atol=0)
    assert scale == pytest.approx(0.1 * math.log(factor) + 1.0, rel=1e-15)


@pytest.mark.parametrize("factor", [0.5, 1.0, 2.0, 40.0])
@pytest.mark.parametrize("mscale", [0.0, 0.707, 1.0])
def test_yarn_mscale_matches_deepseek_and_hf(factor, mscale):
    pytest.importorskip("transformers")
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_get_mscale

    from posenc import yarn_mscale

    assert yarn_mscale(factor, mscale) == yarn_get_mscale(factor, mscale)
    assert yarn_mscale(factor) == yarn_get_mscale(factor)


@pytest.mark.parametrize("mscale_all_dim", [0.707, 1.0])
def test_deepseek_v3_temperature_matches_hf(mscale_all_dim):
    """DeepSeek-V3's rotary embedding (64 rotary dims) and its softmax scale, from a small random config."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention, DeepseekV3RotaryEmbedding

    from posenc import yarn_mscale

    rope = {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 40.0,
        "original_max_position_embeddings": 4096,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "mscale": mscale_all_dim,
        "mscale_all_dim": mscale_all_dim,
    }
    cfg = transformers.DeepseekV3Config(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=2,
        q_lora_rank=16,
        kv_lora_rank=16,
        qk_nope_head_dim=16,
        qk_rope_head_dim=8,
        v_head_dim=16,
        intermediate_size=32,
        moe_intermediate_size=16,
        num_hidden_layers=1,
        n_routed_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=163840,
        rope_parameters=rope,
    )
    emb = DeepseekV3RotaryEmbedding(cfg)
    inv, scale = rope_scaled_inv_freq(
        8,
        10000.0,
        rope_type="yarn",
        factor=40.0,
        original_max_position_embeddings=4096,
        mscale=mscale_all_dim,
        mscale_all_dim=mscale_all_dim,
    )
    torch.testing.assert_close(inv, emb.inv_freq, rtol=1e-6, atol=0)  # YaRN on the 8 rotary dims only
    assert scale == pytest.approx(emb.attention_scaling, rel=1e-12) and scale == 1.0
    attn = DeepseekV3Attention(cfg, layer_idx=0)
    assert attn.scaling == pytest.approx((16 + 8) ** -0.5 * yarn_mscale(40.0, mscale_all_dim) ** 2, rel=1e-12)


def test_gpt_oss_rotary_embedding_matches_hf():
    transformers = pytest.importorskip("transformers")
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssRotaryEmbedding

    cfg = transformers.GptOssConfig(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=64,
        num_hidden_layers=2,
        num_local_experts=4,
        intermediate_size=32,
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 150000.0,
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
            "original_max_position_embeddings": 4096,
        },
    )
    emb = GptOssRotaryEmbedding(cfg)
    inv, scale = rope_scaled_inv_freq(
        64, 150000.0, rope_type="yarn", factor=32.0, original_max_position_embeddings=4096, truncate=False
    )
    torch.testing.assert_close(inv, emb.inv_freq, rtol=1e-6, atol=0)
    assert scale == pytest.approx(emb.attention_scaling, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs,exc,name",
    [
        (dict(mscale=0.0, mscale_all_dim=1.0), ValueError, "mscale"),
        (dict(mscale=1.0, mscale_all_dim=float("nan")), ValueError, "mscale_all_dim"),
        (dict(mscale="1"), TypeError, "mscale"),
        (dict(truncate=0), TypeError, "truncate"),
        (dict(truncate="no"), TypeError, "truncate"),
    ],
)
def test_yarn_round2_bad_input_names_the_parameter(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        rope_scaled_inv_freq(64, rope_type="yarn", factor=8.0, original_max_position_embeddings=4096, **kwargs)


@pytest.mark.parametrize(
    "args,exc,name",
    [
        ((0.0,), ValueError, "factor"),
        ((float("inf"),), ValueError, "factor"),
        (("8",), TypeError, "factor"),
        ((8.0, -0.1), ValueError, "mscale"),
        ((8.0, None), TypeError, "mscale"),
    ],
)
def test_yarn_mscale_bad_input_names_the_parameter(args, exc, name):
    import posenc

    with pytest.raises(exc, match=name):
        posenc.yarn_mscale(*args)


# ---- RopeScaling.from_hf reads a model config's lengths as transformers 5 does -------------------------


def _hf_rope_init():
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    return transformers, ROPE_INIT_FUNCTIONS


@pytest.mark.parametrize("seq_len", [4000, 4096, 4097, 8000])
def test_from_hf_reads_phi3s_top_level_original_length(seq_len):
    """Phi-3 keeps original_max_position_embeddings outside rope_scaling and names no factor: transformers
    takes the top-level length and the factor max / original (here 32, attention factor 1.19)."""
    import posenc

    transformers, init = _hf_rope_init()
    hd = 32
    short = [1.0 + 0.01 * i for i in range(hd // 2)]
    long_ = [1.5 + 0.1 * i for i in range(hd // 2)]
    rope = {"type": "longrope", "short_factor": short, "long_factor": long_}
    cfg = transformers.Phi3Config(
        hidden_size=hd * 4,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        rope_scaling=dict(rope),
        rope_theta=10000.0,
    )
    want, want_scale = init["longrope"](cfg, "cpu", seq_len=seq_len)
    scaling = posenc.RopeScaling.from_hf(rope, max_position_embeddings=131072, original_max_position_embeddings=4096)
    got, scale = scaling.inv_freq(hd, 10000.0, seq_len=seq_len)
    torch.testing.assert_close(got, want.float(), rtol=0, atol=0)
    assert scale == pytest.approx(want_scale, rel=1e-12) and scaling.factor == 32.0


@pytest.mark.parametrize("seq_len", [2048, 4096, 16384])
def test_from_hf_reads_dynamic_ntks_trained_length_from_max_position_embeddings(seq_len):
    import posenc

    transformers, init = _hf_rope_init()
    hd = 32
    cfg = transformers.LlamaConfig(
        hidden_size=hd * 4,
        num_attention_heads=4,
        head_dim=hd,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0},
    )
    want, _ = init["dynamic"](cfg, "cpu", seq_len=seq_len)
    # a dict that names another length: transformers does not read it for dynamic NTK
    scaling = posenc.RopeScaling.from_hf(
        {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 999}, max_position_embeddings=4096
    )
    got, _ = scaling.inv_freq(hd, 10000.0, seq_len=seq_len)
    torch.testing.assert_close(got, want.float(), rtol=1e-6, atol=0)
    assert scaling.original_max_position_embeddings == 4096


def test_from_hf_takes_a_missing_yarn_factor_from_the_two_lengths():
    import posenc

    transformers, init = _hf_rope_init()
    hd = 32
    cfg = transformers.LlamaConfig(
        hidden_size=hd * 4,
        num_attention_heads=4,
        head_dim=hd,
        max_position_embeddings=16384,
        rope_parameters={
            "rope_type": "yarn",
            "factor": None,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
        },
    )
    want, want_scale = init["yarn"](cfg, "cpu")
    scaling = posenc.RopeScaling.from_hf(
        {"rope_type": "yarn", "original_max_position_embeddings": 4096}, max_position_embeddings=16384
    )
    got, scale = scaling.inv_freq(hd, 10000.0)
    torch.testing.assert_close(got, want.float(), rtol=1e-6, atol=0)
    assert scaling.factor == 4.0 and scale == pytest.approx(want_scale, rel=1e-12)
    with pytest.raises(ValueError, match="max_position_embeddings"):  # no lengths, no factor: refused, not guessed
        posenc.RopeScaling.from_hf({"rope_type": "yarn", "original_max_position_embeddings": 4096})


# ---- "proportional" (transformers 5; Gemma 4's full-attention layers) --------------------------------


@pytest.mark.parametrize(
    "head_dim,partial,factor,base",
    [
        (512, 0.25, 1.0, 1e6),  # Gemma 4's full-attention layers
        (256, 0.25, 1.0, 1e6),
        (64, 0.5, 2.0, 10000.0),
        (96, 0.3, 1.0, 10000.0),
        (128, 1.0, 1.0, 10000.0),
        (16, 0.0, 1.0, 10000.0),
        (18, 0.5, 0.5, 500.0),
    ],
)
def test_proportional_matches_hf(head_dim, partial, factor, base):
    """transformers 5.24's proportional init: the same float32 ops on the same inputs, so equal exactly."""
    ref, ref_scale = hf_inv_freq(head_dim, base, "proportional", 4096, partial_rotary_factor=partial, factor=factor)
    got, scale = rope_scaled_inv_freq(
        head_dim, base, rope_type="proportional", partial_rotary_factor=partial, factor=factor
    )
    torch.testing.assert_close(got, ref, rtol=0, atol=0)
    assert scale == ref_scale == 1.0
    # the first int(partial * d // 2) pairs keep the full width's ladder (over d, not over the rotated width)
    kept = int(partial * head_dim // 2)
    torch.testing.assert_close(got[:kept], rope_inv_freq(head_dim, base)[:kept] / factor, rtol=0, atol=0)
    assert got.shape == (head_dim // 2,) and (got[kept:] == 0).all() and (got[:kept] > 0).all()


def test_gemma4_rotary_embedding_matches_hf_through_from_hf():
    """Gemma 4's two layer types from its config dict; the full-attention layers' tables and rotated queries."""
    transformers = pytest.importorskip("transformers")
    gemma4 = pytest.importorskip("transformers.models.gemma4.modeling_gemma4")
    import posenc

    cfg = transformers.Gemma4TextConfig(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        global_head_dim=64,
        num_hidden_layers=6,
        intermediate_size=32,
        vocab_size=100,
        vocab_size_per_layer_input=100,
        hidden_size_per_layer_input=8,
    )
    emb = gemma4.Gemma4TextRotaryEmbedding(cfg)
    full, sliding = cfg.rope_parameters["full_attention"], cfg.rope_parameters["sliding_attention"]
    assert full["rope_type"] == "proportional" and full["partial_rotary_factor"] == 0.25
    scaling = posenc.RopeScaling.from_hf(full)
    assert isinstance(scaling, posenc.ProportionalScaling) and scaling.partial_rotary_factor == 0.25
    got, _ = scaling.inv_freq(64, full["rope_theta"])
    torch.testing.assert_close(got, emb.full_attention_inv_freq, rtol=0, atol=0)
    got, _ = posenc.RopeScaling.from_hf(sliding).inv_freq(32, sliding["rope_theta"])
    torch.testing.assert_close(got, emb.sliding_attention_inv_freq, rtol=0, atol=0)
    # the rotated queries: HF forms float32 angles, posenc float64 ones (error <= position * 2**-24 rad)
    q = torch.randn(1, 2, 40, 64, dtype=torch.float64)
    ids = torch.arange(960, 1000)
    cos, sin = emb(q.float(), ids[None], "full_attention")
    want = gemma4.apply_rotary_pos_emb(q.float(), cos, sin)
    rope = posenc.RotaryEmbedding(64, 16, full["rope_theta"], scaling=scaling)
    torch.testing.assert_close(rope(q.float(), ids), want, rtol=0, atol=1000 * 2.0**-24 * 8)
    # the pairs with frequency 0 pass through: dims [8, 32) and [40, 64) of the half layout
    out = rope(q, ids)
    torch.testing.assert_close(out[..., 8:32], q[..., 8:32], rtol=0, atol=0)
    torch.testing.assert_close(out[..., 40:], q[..., 40:], rtol=0, atol=0)


def test_proportional_bad_input_and_partial_rotary_factor_elsewhere():
    import posenc

    with pytest.raises(ValueError, match="partial_rotary_factor"):
        rope_scaled_inv_freq(64, rope_type="proportional", partial_rotary_factor=1.5)
    with pytest.raises(ValueError, match="factor"):
        rope_scaled_inv_freq(64, rope_type="proportional", factor=0.0)
    with pytest.raises(TypeError, match="rotated width"):  # other types take the rotated width as head_dim
        rope_scaled_inv_freq(64, rope_type="linear", factor=2.0, partial_rotary_factor=0.5)
    with pytest.raises(ValueError, match="rotary_dim"):  # a partial width on top of proportional's own
        posenc.RotaryEmbedding(
            64, rotary_dim=32, scaling=posenc.rope_scaling("proportional", partial_rotary_factor=0.5)
        )
    # from_hf keeps partial_rotary_factor for proportional only (elsewhere it describes the model)
    linear = posenc.RopeScaling.from_hf({"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": 0.5})
    assert linear == posenc.rope_scaling("linear", factor=2.0)
    assert posenc.RopeScaling.from_hf(
        posenc.rope_scaling("proportional", partial_rotary_factor=0.25).to_hf()
    ) == posenc.ProportionalScaling(partial_rotary_factor=0.25)


#: Bad input of the names added for "proportional" (run here and by tests/test_bad_input_meta.py).
PROPORTIONAL_BAD_CALLS = [
    (lambda: posenc.ProportionalScaling(partial_rotary_factor=1.5), ValueError, "partial_rotary_factor"),
    (lambda: posenc.ProportionalScaling(partial_rotary_factor="0.25"), TypeError, "partial_rotary_factor"),
    (lambda: posenc.ProportionalScaling(factor=-1.0), ValueError, "factor"),
    (lambda: posenc.RotaryEmbedding(8, seq_dim=1), ValueError, "seq_dim"),
]


@pytest.mark.parametrize("call,exc,text", PROPORTIONAL_BAD_CALLS)
def test_proportional_bad_calls(call, exc, text):
    with pytest.raises(exc, match=text):
        call()
