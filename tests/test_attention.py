import pytest
import torch

import posenc
from posenc import POSITION_METHODS, KVCache, MultiHeadAttention


@pytest.mark.parametrize("position", POSITION_METHODS)
def test_decoding_step_by_step_equals_full_forward(position):
    attn = MultiHeadAttention(32, 4, position, max_len=64, shaw_max_distance=3).double().eval()
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
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    # not a reversal: the symmetric (bidirectional) ALiBi bias -m|i-j| is reversal-invariant
    perm = torch.tensor([1, 0, 2, 3, 4, 6, 5])
    assert not torch.allclose(attn(x[:, perm]), attn(x)[:, perm])


def test_rope_layouts_agree_after_weight_permutation():
    a = MultiHeadAttention(32, 4, "rope_interleaved", causal=True).double()
    b = MultiHeadAttention(32, 4, "rope", causal=True).double()
    wq, wk, wv = a.qkv.weight.data.chunk(3)
    b.qkv.weight.data = torch.cat([posenc.permute_qk_weight_for_half(wq, 4), posenc.permute_qk_weight_for_half(wk, 4), wv])
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
        bias = attn.t5(11)
        if causal:
            bias = bias.masked_fill(posenc.relative_positions(11) > 0, float("-inf"))
    ref = attn.out((torch.softmax(q @ k.transpose(-1, -2) / 8**0.5 + bias, -1) @ v).transpose(1, 2).reshape(2, 11, 32))
    with torch.no_grad():
        first, second = attn(x), attn(x)
    torch.testing.assert_close(first, ref)
    assert torch.equal(first, second)  # the same op on the same inputs, the cached bias reused
    assert len(attn._bias_cache) == 1


def test_t5_bias_cache_follows_training():
    """A cached T5 bias is never stale: gradients flow, and an updated table is used at once."""
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, "t5")
    x = torch.randn(2, 9, 32)
    attn(x).sum().backward()
    assert attn.t5.bias.weight.grad.abs().sum() > 0
    with torch.no_grad():
        before = attn(x)
        attn.t5.bias.weight.mul_(50.0)
        after = attn(x)
    assert (after - before).abs().max() > 1e-3


@pytest.mark.parametrize("q_len,k_len", [(1, 1), (5, 5), (3, 8), (16, 16)])
def test_float_relative_positions_match_integer(q_len, k_len):
    exact = posenc.relative_positions(q_len, k_len)
    assert torch.equal(posenc.relative_positions(q_len, k_len, dtype=torch.float32), exact.float())
