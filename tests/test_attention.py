import pytest
import torch

import posenc
from posenc import POSITION_METHODS, KVCache, MultiHeadAttention

#: the small settings of the methods with options, so that 12 tokens reach the clipped / bucketed range
OPTIONS = {"shaw": {"max_distance": 3}, "t5": {"num_buckets": 8, "max_distance": 16}}


@pytest.mark.parametrize("position", POSITION_METHODS)
def test_decoding_step_by_step_equals_full_forward(position):
    attn = MultiHeadAttention(32, 4, position, max_len=64, **OPTIONS.get(position, {})).double().eval()
    x = torch.randn(2, 12, 32, dtype=torch.float64)
    full = attn(x)
    cache = KVCache()
    prefix = attn(x[:, :5], cache=cache)  # prefill
    steps = [attn(x[:, t : t + 1], cache=cache) for t in range(5, 12)]
    torch.testing.assert_close(torch.cat([prefix, *steps], dim=1), full)
    assert cache.length == 12


@pytest.mark.parametrize("position", POSITION_METHODS)
def test_causality(position):
    attn = MultiHeadAttention(16, 2, position, max_len=32).double()
    x = torch.randn(1, 10, 16, dtype=torch.float64)
    y = x.clone()
    y[:, 6:] = torch.randn(1, 4, 16, dtype=torch.float64)
    torch.testing.assert_close(attn(x)[:, :6], attn(y)[:, :6])


def test_without_position_attention_is_permutation_equivariant():
    attn = MultiHeadAttention(16, 2, "none", causal=False).double()
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    perm = torch.randperm(7)
    torch.testing.assert_close(attn(x[:, perm]), attn(x)[:, perm])


@pytest.mark.parametrize("position", [p for p in POSITION_METHODS if p != "none"])
def test_with_position_attention_is_not_permutation_equivariant(position):
    attn = MultiHeadAttention(16, 2, position, causal=False).double()
    if position == "cope":  # its position embeddings start at zero (as the reference code): no position yet
        torch.nn.init.normal_(attn.method.pos_emb)
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    # not a reversal: the symmetric (bidirectional) ALiBi bias -m|i-j| is reversal-invariant
    perm = torch.tensor([1, 0, 2, 3, 4, 6, 5])
    assert not torch.allclose(attn(x[:, perm]), attn(x)[:, perm])


def test_rope_layouts_agree_after_weight_permutation():
    a = MultiHeadAttention(32, 4, "rope_interleaved", causal=True).double()
    b = MultiHeadAttention(32, 4, "rope", causal=True).double()
    wq, wk, wv = a.qkv.weight.data.chunk(3)
    b.qkv.weight.data = torch.cat(
        [posenc.permute_qk_weight_for_half(wq, 4), posenc.permute_qk_weight_for_half(wk, 4), wv]
    )
    b.out.weight.data = a.out.weight.data.clone()
    x = torch.randn(2, 9, 32, dtype=torch.float64)
    torch.testing.assert_close(a(x), b(x))


def test_learned_position_past_max_len_raises():
    attn = MultiHeadAttention(8, 2, "learned", max_len=4)
    with pytest.raises(ValueError, match="max_len=4"):
        attn(torch.randn(1, 5, 8))


def test_training_step_runs_for_every_method():
    for position in POSITION_METHODS:
        attn = MultiHeadAttention(16, 2, position, max_len=16)
        loss = attn(torch.randn(2, 8, 16)).pow(2).mean()
        loss.backward()
        assert all(p.grad is not None for p in attn.parameters()), position


def test_bidirectional_alibi_cannot_tell_a_sequence_from_its_reversal():
    attn = MultiHeadAttention(16, 2, "alibi", causal=False).double()
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    rev = torch.arange(6, -1, -1)
    torch.testing.assert_close(attn(x[:, rev]), attn(x)[:, rev])


@pytest.mark.parametrize("position", ["alibi", "t5"])
@pytest.mark.parametrize("causal", [True, False])
def test_cached_bias_equals_the_formula(position, causal):
    """The cached [1, h, L, T] bias gives the attention written out by hand, call after call."""
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, position, causal=causal).double()
    x = torch.randn(2, 11, 32, dtype=torch.float64)
    q, k, v = attn.qkv(x).view(2, 11, 3, 4, 8).permute(2, 0, 3, 1, 4)
    if position == "alibi":
        bias = posenc.alibi_bias(4, 11, causal=causal).double()
    else:
        bias = attn.method.t5(11)
        if causal:
            bias = bias.masked_fill(posenc.relative_positions(11) > 0, float("-inf"))
    ref = attn.out((torch.softmax(q @ k.transpose(-1, -2) / 8**0.5 + bias, -1) @ v).transpose(1, 2).reshape(2, 11, 32))
    with torch.no_grad():
        first, second = attn(x), attn(x)
    torch.testing.assert_close(first, ref)
    assert torch.equal(first, second)  # the same op on the same inputs, the cached bias reused
    assert len(attn.method._bias_cache) == 1


def test_t5_bias_cache_follows_training():
    """A cached T5 bias is never stale: gradients flow, and an updated table is used at once."""
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, "t5")
    x = torch.randn(2, 9, 32)
    attn(x).sum().backward()
    assert attn.method.t5.bias.weight.grad.abs().sum() > 0
    with torch.no_grad():
        before = attn(x)
        attn.method.t5.bias.weight.mul_(50.0)
        after = attn(x)
    assert (after - before).abs().max() > 1e-3


# ---- position methods as strategies (posenc.methods) ----


def _config(causal):
    return {"d_model": 32, "n_heads": 4, "causal": causal, "max_len": 16}


@pytest.mark.parametrize("name", list(posenc.POSITION_METHODS))
@pytest.mark.parametrize("causal", [True, False])
def test_every_registry_entry_decodes_with_a_cache_as_the_full_forward(name, causal):
    """float32: decoding token by token with a KVCache gives the full forward's rows.

    Causal: the full forward of all 12 tokens. Bidirectional: a query sees the keys so far, so row t of
    the decode equals the last row of the full forward of tokens 0..t. The paths differ only in how the
    same sums are blocked (SDPA with is_causal, a boolean mask or a float bias; cat-ed keys), so they
    agree to a few float32 ulps of outputs of size ~1: atol = rtol = 1e-5 (~80 eps).
    """
    torch.manual_seed(0)
    attn = MultiHeadAttention(32, 4, name, causal=causal, max_len=16, **OPTIONS.get(name, {})).eval()
    assert attn.position == name and isinstance(attn.method, posenc.PositionMethod)
    x = torch.randn(2, 12, 32)
    with torch.no_grad():
        cache = KVCache()
        steps = [attn(x[:, :5], cache=cache)] + [attn(x[:, t : t + 1], cache=cache) for t in range(5, 12)]
        got = torch.cat(steps, dim=1)
        if causal:
            want = attn(x)
        else:
            want = torch.cat([attn(x[:, :5])] + [attn(x[:, : t + 1])[:, -1:] for t in range(5, 12)], dim=1)
    assert cache.length == 12
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", list(posenc.POSITION_METHODS))
@pytest.mark.parametrize("causal", [True, False])
def test_a_method_object_gives_what_its_name_gives(name, causal):
    """The same draws in the same order: the projections first, then the method's own parameters."""
    x = torch.randn(2, 9, 32)
    torch.manual_seed(0)
    by_name = MultiHeadAttention(32, 4, name, causal=causal, max_len=16, **OPTIONS.get(name, {}))
    torch.manual_seed(0)
    projections = torch.nn.Linear(32, 96, bias=False), torch.nn.Linear(32, 32, bias=False)  # MHA's first draws
    method = posenc.build_method(name, **_config(causal), **OPTIONS.get(name, {}))
    by_object = MultiHeadAttention(32, 4, method, causal=causal)
    by_object.qkv.load_state_dict(projections[0].state_dict())
    by_object.out.load_state_dict(projections[1].state_dict())
    assert by_object.method is method and by_object.position == name
    assert list(dict(by_name.named_parameters())) == list(dict(by_object.named_parameters()))
    assert torch.equal(by_name(x), by_object(x))  # the same ops on the same inputs


class _HandAlibi(posenc.PositionMethod):
    """A method defined outside the package, through the public hook only."""

    def logit_bias(self, q, k, *, causal):
        return posenc.alibi_bias(q.shape[1], q.shape[-2], k.shape[-2], causal=causal).to(q.dtype)[None]


@pytest.mark.parametrize("causal", [True, False])
def test_a_method_from_outside_plugs_in_through_its_hooks(causal):
    torch.manual_seed(0)
    ref = MultiHeadAttention(32, 4, "alibi", causal=causal).double()
    mine = MultiHeadAttention(32, 4, _HandAlibi(), causal=causal).double()
    mine.load_state_dict(ref.state_dict())
    assert mine.position == "_HandAlibi"
    x = torch.randn(2, 10, 32, dtype=torch.float64)
    torch.testing.assert_close(mine(x), ref(x), atol=1e-12, rtol=0)
    cache, ref_cache = KVCache(), KVCache()
    mine(x[:, :6], cache=cache), ref(x[:, :6], cache=ref_cache)
    torch.testing.assert_close(mine(x[:, 6:7], cache=cache), ref(x[:, 6:7], cache=ref_cache), atol=1e-12, rtol=0)


def test_only_the_hooks_a_method_has_act():
    acts = {name: cls.acts_on_input() for name, cls in posenc.POSITION_METHODS.items()}
    assert [n for n, a in acts.items() if a] == ["sinusoidal", "learned"]
    methods = {name: posenc.build_method(name, **_config(True)) for name in posenc.POSITION_METHODS}
    x, q = torch.randn(1, 5, 32), torch.randn(1, 4, 5, 8)
    for name, m in methods.items():
        assert (m.encode_input(x, torch.arange(5)) is x) == (name not in ("sinusoidal", "learned")), name
        assert (m.rotate_qk(q, q, torch.arange(5))[0] is q) == (not name.startswith("rope")), name
        assert (m.logit_bias(q, q, causal=True) is None) == (name not in ("t5", "alibi", "kerple", "fire", "cope")), (
            name
        )
        assert (m.attend(q, q, q, causal=True) is None) == (name != "shaw"), name


@pytest.mark.parametrize("d_model,base", [(8, 10000.0), (32, 500.0), (64, 1e6)])
def test_sinusoidal_method_adds_the_sinusoidal_encoding(d_model, base):
    m = posenc.SinusoidalMethod(d_model, base)
    x = torch.randn(2, 6, d_model, dtype=torch.float64)
    pos = torch.tensor([3, 4, 5, 9, 10, 11])
    torch.testing.assert_close(
        m.encode_input(x, pos) - x,
        posenc.sinusoidal_encoding(12, d_model, base, dtype=torch.float64)[pos].expand(2, -1, -1),
        atol=1e-15,
        rtol=0,
    )


@pytest.mark.parametrize(
    "rope_type,kwargs",
    [
        ("linear", {"factor": 4.0}),
        ("dynamic", {"factor": 2.0, "original_max_position_embeddings": 16, "seq_len": 64}),
        ("yarn", {"factor": 4.0, "original_max_position_embeddings": 16, "beta_fast": 8.0}),
        ("llama3", {"factor": 8.0, "original_max_position_embeddings": 16}),
    ],
)
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_a_scaled_rope_method_rotates_with_the_scaled_frequencies(rope_type, kwargs, layout):
    m = posenc.RopeMethod(16, 32, 500.0, layout=layout)
    plain = m.inv_freq.clone()
    m.set_scaling(rope_type, **kwargs)
    inv_freq, scale = posenc.rope_scaled_inv_freq(16, 500.0, rope_type=rope_type, **kwargs)
    config = {k: v for k, v in kwargs.items() if k != "seq_len"}
    assert (
        m.scaling
        == posenc.rope_scaling(rope_type, **config)
        == posenc.RopeScaling.from_hf({"rope_type": rope_type, **config})
    )
    assert torch.equal(m.inv_freq, inv_freq) and m.attention_scaling == scale
    q = torch.randn(1, 2, 40, 16, dtype=torch.float64)
    pos = torch.arange(40)
    cos, sin = posenc.rope_cos_sin(pos, 16, inv_freq=inv_freq, layout=layout, dtype=torch.float64)
    want = posenc.apply_rope(q, cos * scale, sin * scale, layout=layout)
    torch.testing.assert_close(m.rotate_qk(q, q, pos)[0], want, atol=1e-6, rtol=1e-6)  # float32 tables
    m.set_scaling("default")
    assert torch.equal(m.inv_freq, plain) and m.attention_scaling == 1.0


POSITION_BAD_CALLS = [
    (lambda: posenc.SinusoidalMethod(7), ValueError, "d_model"),
    (lambda: posenc.SinusoidalMethod(8, base=1.0), ValueError, "base"),
    (lambda: posenc.LearnedMethod(8, 0), ValueError, "max_len"),
    (lambda: posenc.ShawMethod(8, -1), ValueError, "max_distance"),
    (lambda: posenc.T5Method(4, num_buckets=1), ValueError, "num_buckets"),
    (lambda: posenc.T5Method(4, causal=False, num_buckets=7), ValueError, "num_buckets"),
    (lambda: posenc.T5Method(0), ValueError, "n_heads"),
    (lambda: posenc.RopeMethod(7), ValueError, "head_dim"),
    (lambda: posenc.RopeMethod(8, layout="neox"), ValueError, "layout"),
    (lambda: posenc.RopeMethod(8, max_len=0), ValueError, "max_len"),
    (lambda: posenc.RopeMethod(8, base=float("nan")), ValueError, "base"),
    (lambda: posenc.RopeMethod(8).set_scaling("yarn", factor=2.0), ValueError, "original_max_position_embeddings"),
    (
        lambda: posenc.RopeMethod(8).set_scaling("yarn", factor=2.0, original_max_position_embeddings=0),
        ValueError,
        "original_max_position_embeddings",
    ),
    (lambda: posenc.RopeMethod(8).set_scaling("linear", factor=2.0, beta_fast=3.0), TypeError, "beta_fast"),
    (
        lambda: posenc.RopeMethod(8).set_scaling(posenc.rope_scaling("linear", factor=2.0), factor=3.0),
        TypeError,
        "rope_type",
    ),
    (lambda: posenc.RopeMethod(8, scaling="linear"), TypeError, "scaling"),
    (lambda: posenc.RopeMethod(8).set_scaling("pi", factor=2.0), ValueError, "rope_type"),
    (lambda: posenc.RopeMethod(8).set_scaling("linear", factor=0.5), ValueError, "factor"),
    (lambda: posenc.AlibiMethod(0), ValueError, "n_heads"),
    (lambda: posenc.build_method("rope", d_model=8, n_heads=2, num_buckets=3), TypeError, "num_buckets"),
    (lambda: posenc.build_method("rotary", d_model=8, n_heads=2), ValueError, "position"),
    (lambda: posenc.build_method("rope", d_model=9, n_heads=2), ValueError, "d_model"),
    (lambda: posenc.build_method("rope", d_model=8, n_heads=2, causal=1), TypeError, "causal"),
    (lambda: posenc.MultiHeadAttention(8, 2, "alibi", base=500.0), TypeError, "base"),
    (lambda: posenc.MultiHeadAttention(8, 2, posenc.AlibiMethod(2), max_distance=3), TypeError, "options"),
    (lambda: posenc.MultiHeadAttention(8, 2, torch.nn.Linear(2, 2)), TypeError, "position"),
    (lambda: posenc.MultiHeadAttention(6, 2, "sinusoidal", max_len=0), ValueError, "max_len"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.SinusoidalMethod(16)), ValueError, "d_model=16"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.AlibiMethod(8)), ValueError, "n_heads=8"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.RopeMethod(16)), ValueError, "head_dim=16"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.ShawMethod(4)), ValueError, "head_dim=4"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.LearnedMethod(8, 4)), ValueError, "d_model=8"),
    (lambda: posenc.MultiHeadAttention(32, 4, posenc.T5Method(2)), ValueError, "n_heads=2"),
]


@pytest.mark.parametrize("call,exc,name", POSITION_BAD_CALLS, ids=[f"bad{i}" for i in range(len(POSITION_BAD_CALLS))])
def test_position_methods_refuse_bad_input_naming_the_parameter(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


@pytest.mark.parametrize("position", ["alibi", "kerple", "fire"])
def test_a_bias_cached_under_inference_mode_does_not_break_training(position):
    # a bias built under torch.inference_mode() is an inference tensor: reusing it in a training
    # forward would fail with "Inference tensors cannot be saved for backward"
    from posenc.attention import MultiHeadAttention

    attn = MultiHeadAttention(16, 2, position, causal=True)
    x = torch.randn(1, 6, 16)
    with torch.inference_mode():
        attn(x)
    attn(x).sum().backward()


# --------------------------------------------------------------------------- sizes: only what is built


@pytest.mark.parametrize("position", ["none", "sinusoidal", "rope"])
def test_no_refusal_for_a_mask_the_fast_path_never_builds(position):
    """16K tokens over 32 heads: a [1, 32, 16384, 16384] float mask would take 32 GiB, but without a
    bias SDPA applies the causal mask itself and builds none. Run on the meta device (shapes only)."""
    with torch.device("meta"):
        attn = MultiHeadAttention(2048, 32, position, max_len=16)
    x = torch.empty(1, 16384, 2048, device="meta")
    assert attn(x).shape == (1, 16384, 2048)


@pytest.mark.parametrize("position", ["alibi", "t5", "shaw", "cope", "fire"])
def test_a_bias_above_the_limit_is_refused_and_the_limit_can_be_raised(position):
    """A method that does build a [.., 16384, 16384] tensor is refused before its hooks run, with a
    message that names the public way to raise the limit (and no internal name); raised, it runs."""
    with torch.device("meta"):
        attn = MultiHeadAttention(2048, 32, position, max_len=16)
    x = torch.empty(1, 16384, 2048, device="meta")
    with pytest.raises(ValueError, match=r"x of shape \(1, 16384, 2048\).*posenc.set_max_tensor_bytes") as info:
        attn(x)
    assert "_core" not in str(info.value) and "MAX_TENSOR_BYTES" not in str(info.value)
    with posenc.max_tensor_bytes(2**40):
        assert attn(x).shape == (1, 16384, 2048)
    assert posenc.get_max_tensor_bytes() == 8 * 2**30


def test_the_decoding_mask_is_counted_at_one_byte_per_pair():
    """Decoding with a cache builds the boolean [L, T] causal mask: refused only above the limit."""
    attn = MultiHeadAttention(8, 2, "none").eval()
    cache = KVCache()
    with torch.no_grad():
        attn(torch.randn(1, 6, 8), cache=cache)
        with posenc.max_tensor_bytes(3 * 9 - 1):  # the mask of 3 new tokens over 9 keys: 27 bytes
            with pytest.raises(ValueError, match="with 6 cached tokens"):
                attn(torch.randn(1, 3, 8), cache=cache)
        assert cache.length == 6  # refused before anything was appended
        with posenc.max_tensor_bytes(3 * 9):
            assert attn(torch.randn(1, 3, 8), cache=cache).shape == (1, 3, 8)


@pytest.mark.parametrize("position", POSITION_METHODS)
def test_workspace_is_what_the_hooks_build(position):
    """Each method's estimate covers the [L, T] tensor it hands to SDPA (its logit bias), or is None when it
    hands none; the size check then refuses exactly what would be built."""
    torch.manual_seed(0)
    attn = MultiHeadAttention(16, 2, position, max_len=16).eval()
    q = k = torch.randn(3, 2, 5, 8)
    need = attn.method.workspace(3, 2, 5, 5, q.element_size())
    with torch.no_grad():
        bias = attn.method.logit_bias(q, k, causal=True)
    if bias is not None:
        assert need is not None and need[0][-2:] == (5, 5)
        assert bias.numel() * bias.element_size() <= torch.Size(need[0]).numel() * need[1]
    elif type(attn.method).attend is posenc.PositionMethod.attend:
        assert need is None  # SDPA's is_causal: no [L, T] tensor
