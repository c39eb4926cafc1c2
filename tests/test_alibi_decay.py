import math

import pytest
import torch
from conftest import assert_close_ulps

import posenc
from posenc import (
    alibi_bias,
    alibi_bias_bloom,
    alibi_slopes,
    relative_positions,
    rope_decay_bound,
    rope_matching_stretch_means,
)


def official_get_slopes(n):
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py (the reference)."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + official_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


@pytest.mark.parametrize("n", list(range(1, 41)) + [64, 96, 128])
def test_slopes_match_official(n):
    got = alibi_slopes(n)
    assert got.dtype == torch.float32 and got.shape == (n,)
    # Python's float pow against torch's: equal up to rounding (identical where the slope is a power of 2)
    assert_close_ulps(got, torch.tensor(official_get_slopes(n), dtype=torch.float32), ulps=2)


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16, 32])
def test_power_of_two_slopes_are_geometric(n):
    expected = torch.tensor([2 ** (-8 * (h + 1) / n) for h in range(n)], dtype=torch.float32)
    torch.testing.assert_close(alibi_slopes(n), expected)


def test_non_power_of_two_slopes_are_not_monotonic():
    s = alibi_slopes(12)
    assert not torch.all(s[1:] < s[:-1])
    assert len(set(s.tolist())) == 12


@pytest.mark.parametrize("q_len,k_len", [(0, 0), (0, 4), (1, 1), (5, 5), (3, 8), (1, 6), (16, 16), (7, 30)])
@pytest.mark.parametrize("n", [1, 3, 8, 12])
def test_alibi_bias_values(q_len, k_len, n):
    """The bias spread from per-distance values equals the formula on the full distance grid."""
    bias = alibi_bias(n, q_len, k_len, causal=False)
    rel = relative_positions(q_len, k_len)
    torch.testing.assert_close(bias, -alibi_slopes(n)[:, None, None] * rel.abs().float())
    causal = alibi_bias(n, q_len, k_len)
    assert torch.all(torch.isinf(causal[:, rel > 0]))
    torch.testing.assert_close(causal[:, rel <= 0], bias[:, rel <= 0])


@pytest.mark.parametrize("q_len,k_len", [(6, 6), (2, 9)])
def test_bloom_form_gives_identical_attention(q_len, k_len):
    scores = torch.randn(4, q_len, k_len)
    a = torch.softmax(scores + alibi_bias(4, q_len, k_len), -1)
    b = torch.softmax(scores + alibi_bias_bloom(4, q_len, k_len), -1)
    torch.testing.assert_close(a, b)


@pytest.mark.parametrize("d", [2, 16, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_decay_bound_against_direct_sum(d, base):
    distances = [0, 1, 7, 50, 333]
    got = rope_decay_bound(d, distances, base)
    for value, r in zip(got.tolist(), distances):
        partial, total = 0j, 0.0
        for k in range(d // 2):
            theta = base ** (-2 * k / d)
            partial += complex(math.cos(r * theta), math.sin(r * theta))
            total += abs(partial)
        assert value == pytest.approx(total / (d // 2), rel=1e-10)
    assert got[0] == pytest.approx((d // 2 + 1) / 2)


def test_decay_bound_falls_on_average():
    b = rope_decay_bound(128, torch.arange(0, 2000))
    assert b[:50].mean() > b[200:400].mean() > b[1500:].mean()
    assert torch.all(b <= b[0])


@pytest.mark.parametrize("d", [64, 128, 256])
def test_larger_base_higher_bound_per_octave_not_pointwise(d):
    """Chapter 5: base 5e5 lies above base 1e4 on average over every octave of r, not pointwise."""
    r = torch.arange(1, 2**14)
    low, high = rope_decay_bound(d, r, 10000.0), rope_decay_bound(d, r, 500000.0)
    octave = torch.log2(r.double()).floor().long()  # 2^j <= r < 2^(j+1)
    counts = torch.bincount(octave).double()
    mean_low = torch.zeros(14, dtype=torch.float64).index_add_(0, octave, low) / counts
    mean_high = torch.zeros(14, dtype=torch.float64).index_add_(0, octave, high) / counts
    assert (mean_high > mean_low).all()
    assert (high <= low).any()  # pointwise it is not true (for d = 128 first at r = 328)


def _octave_means(d, base, n_octaves):
    r = torch.arange(1, 2**n_octaves)
    octave = torch.log2(r.double()).floor().long()  # 2^j <= r < 2^(j+1)
    bound = torch.cat([rope_decay_bound(d, c, base) for c in r.split(20_000)])
    return torch.zeros(n_octaves, dtype=torch.float64).index_add_(0, octave, bound) / torch.bincount(octave)


@pytest.mark.parametrize("d", [64, 128])
def test_larger_base_higher_per_octave_for_each_pair_of_bases(d):
    """Chapter 5: for d >= 64 every pair of the bases 1e4, 5e5, 1e6 keeps the order in every octave."""
    means = {b: _octave_means(d, b, 17) for b in (1e4, 5e5, 1e6)}
    assert (means[5e5] > means[1e4]).all() and (means[1e6] > means[1e4]).all() and (means[1e6] > means[5e5]).all()


def test_small_head_fails_in_single_octaves():
    """Chapter 5: for d = 32 the per-octave order breaks in one octave per pair (not for 1e6 vs 1e4)."""
    means = {b: _octave_means(32, b, 17) for b in (1e4, 5e5, 1e6)}
    assert (means[5e5] <= means[1e4]).nonzero().flatten().tolist() == [15]  # r in [32 768, 65 535]
    assert (means[1e6] <= means[5e5]).nonzero().flatten().tolist() == [10]  # r in [1024, 2047]
    assert (means[1e6] > means[1e4]).all()


@pytest.mark.parametrize("head_dim", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [100.0, 1e4, 5e5])
def test_matching_stretch_means_closed_form_is_the_plain_mean(head_dim, base):
    """Entry a - 1 is the mean of cos(r theta_k) over r = a .. 2a - 1 and the d/2 pairs, at every a checked."""
    got = rope_matching_stretch_means(head_dim, base, 400)
    theta = posenc.rope_inv_freq(head_dim, base).double()
    for a in (1, 2, 7, 100, 399, 400):
        plain = torch.cos(torch.arange(a, 2 * a, dtype=torch.float64)[:, None] * theta).mean()
        assert abs(float(got[a - 1]) - float(plain)) < 1e-12, (a, float(got[a - 1]), float(plain))
    assert got.shape == (400,) and got.dtype == torch.float64 and bool((got.abs() <= 1 + 1e-12).all())
    # freq_dtype=float64: the same closed form on float64 frequencies, against the plain mean on those
    exact = rope_matching_stretch_means(head_dim, base, 400, freq_dtype=torch.float64)
    theta64 = posenc.rope_inv_freq(head_dim, base, dtype=torch.float64)
    for a in (1, 7, 400):
        plain = torch.cos(torch.arange(a, 2 * a, dtype=torch.float64)[:, None] * theta64).mean()
        assert abs(float(exact[a - 1]) - float(plain)) < 1e-12, (a, float(exact[a - 1]), float(plain))


@pytest.mark.parametrize("head_dim, base", [(64, 1e4), (128, 1e4), (128, 5e5)])
def test_matching_trend_follows_the_sum_over_stretches(head_dim, base):
    """E(r) = 2 sum cos(r theta_k), averaged over stretches where r grows by half from 20 to b/2, stays within
    3 % of d of the trend d (1 - (ln r + gamma) / ln b); at d = 128 its mean over [0.5 b, 0.62 b), around the
    trend's zero b e^-gamma, is within 1 % of d of zero."""
    theta = posenc.rope_inv_freq(head_dim, base, dtype=torch.float64)
    r = torch.arange(1, int(0.62 * base) + 1, dtype=torch.float64)
    E = torch.cat([2 * torch.cos(chunk[:, None] * theta).sum(1) for chunk in r.split(20_000)])
    trend = posenc.rope_matching_trend(r, head_dim, base)
    assert trend.dtype == torch.float64 and trend.shape == r.shape
    cuts = [20]
    while cuts[-1] * 1.5 < base / 2:
        cuts.append(int(cuts[-1] * 1.5))
    cuts.append(int(base / 2))
    gaps = [
        abs(E[a - 1 : c - 1].mean() - trend[a - 1 : c - 1].mean()).item() / head_dim for a, c in zip(cuts, cuts[1:])
    ]
    assert max(gaps) < 0.03, max(gaps)
    if head_dim == 128:
        assert abs(E[int(0.5 * base) - 1 : int(0.62 * base) - 1].mean().item()) / head_dim < 0.01
