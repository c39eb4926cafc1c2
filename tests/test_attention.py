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
