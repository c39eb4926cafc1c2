"""KERPLE, FIRE and CoPE: the properties their papers state, checked on random inputs.

Conventions: queries aligned at the end of the keys (query row r at position T - L + r);
a causal bias is -inf where key_pos > query_pos; CoPE counts inclusively (p = i - j + 1 when every
gate is 1).
"""

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import assert_close_ulps

import posenc
from posenc import alibi_bias, alibi_slopes
from posenc.methods.cope import CoPE
from posenc.methods.fire import FireBias
from posenc.methods.kerple import KerpleBias

exported = pytest.mark.skipif(
    not hasattr(posenc, "KerpleBias"), reason="the learned position methods are not exported from posenc yet"
)


def sdpa_with(method, q, k, v, causal):
    """Attention with the method's bias, as MultiHeadAttention uses it."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=method.logit_bias(q, k, causal=causal))


def random_qkv(b=2, h=4, L=6, T=9, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(b, h, L, d, generator=g),
        torch.randn(b, h, T, d, generator=g),
        torch.randn(b, h, T, d, generator=g),
    )


# ----------------------------------------------------------------------------------------- KERPLE


def random_kerple(kind, h=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    r1 = torch.rand(h, generator=g) * 3 + 0.05
    r2 = torch.rand(h, generator=g) * (1.9 if kind == "power" else 3.0) + 0.05
    return KerpleBias(h, kind=kind, r1=r1, r2=r2)


def projected_min_eig(kernel):
    """Smallest eigenvalue of P K P, P = I - 11^T/n (the projector onto sum(c) = 0), float64 [...]."""
    n = kernel.shape[-1]
    proj = torch.eye(n, dtype=torch.float64) - 1.0 / n
    return torch.linalg.eigvalsh(proj @ kernel @ proj).min(-1).values


@pytest.mark.parametrize("kind", ["log", "power"])
@pytest.mark.parametrize("n_points", [2, 5, 17, 40])
@pytest.mark.parametrize("seed", range(4))
def test_kerple_bias_is_cpd_on_random_point_sets(kind, n_points, seed):
    # the bias itself is the CPD kernel: c^T K c >= 0 whenever sum(c) = 0
    m = random_kerple(kind, seed=seed)
    g = torch.Generator().manual_seed(100 + seed)
    x = torch.rand(n_points, generator=g, dtype=torch.float64) * 10 ** (seed % 3 + 1)  # real positions
    K = m.bias_by_distance(x[:, None] - x[None, :]).detach()  # [h, n, n] float64
    assert K.dtype == torch.float64
    assert projected_min_eig(K).min() >= -1e-9 * K.abs().amax()
    c = torch.randn(64, n_points, generator=g, dtype=torch.float64)
    c = c - c.mean(-1, keepdim=True)  # sum(c) = 0
    quad = torch.einsum("sn,hnm,sm->hs", c, K, c)
    assert quad.min() >= -1e-9 * K.abs().amax() * (c**2).sum(-1).max()


def test_cpd_check_detects_a_kernel_that_is_not_cpd():
    # negative control: -|x - y|^3 (power > 2) is not CPD, and the same check says so
    x = torch.linspace(0, 10, 12, dtype=torch.float64)
    K = -((x[:, None] - x[None, :]).abs() ** 3)
    assert projected_min_eig(K) < -1.0


@pytest.mark.parametrize("n_heads", [1, 3, 8, 12, 16])
@pytest.mark.parametrize("q_len, k_len", [(1, 1), (5, 5), (3, 11), (16, 40)])
@pytest.mark.parametrize("causal", [True, False])
def test_kerple_power_with_r2_1_and_alibi_slopes_is_alibi(n_heads, q_len, k_len, causal):
    m = KerpleBias(n_heads, kind="power", r1=alibi_slopes(n_heads), r2=1.0, eps=1e-3)  # slopes >= 2**-8
    torch.testing.assert_close(
        m.bias(q_len, k_len, causal=causal).detach(),
        alibi_bias(n_heads, q_len, k_len, causal=causal),
        rtol=1e-6,
        atol=0,
    )


@pytest.mark.parametrize("kind", ["log", "power"])
def test_kerple_bias_is_zero_at_the_query_and_decreases_with_distance(kind):
    m = random_kerple(kind)
    values = m.bias_by_distance(torch.arange(0, 300, dtype=torch.float32)).detach()  # [h, 300]
    assert torch.equal(values[:, 0], torch.zeros(8))
    assert bool((values[:, 1:] < values[:, :-1]).all())
    assert torch.equal(values, m.bias_by_distance(-torch.arange(0, 300)).detach())  # symmetric


@pytest.mark.parametrize("kind", ["log", "power"])
@pytest.mark.parametrize("q_len, k_len", [(1, 9), (4, 9), (9, 9)])
def test_kerple_bias_is_aligned_at_the_end(kind, q_len, k_len):
    m = random_kerple(kind)
    full = m.bias(k_len).detach()
    # the same formula over fewer queries: equal up to rounding (an ulp apart under AVX2, issue 35)
    assert_close_ulps(m.bias(q_len, k_len).detach(), full[:, k_len - q_len :])
    assert torch.equal(torch.isinf(full[0]), torch.ones(k_len, k_len).triu(1).bool())


def test_kerple_coefficients_stay_in_range_and_gradients_pass_the_clamp():
    m = KerpleBias(4, kind="power", r1=[0.5, 0.5, 0.5, 0.5], r2=[0.5, 1.0, 1.5, 2.0])
    with torch.no_grad():
        m.r1[0] = -3.0  # an optimiser step took it below eps
        m.r2[3] = 2.7  # above the CPD limit
    r1, r2 = m.coefficients()
    assert r1[0].item() == pytest.approx(m.eps) and r2[3].item() == 2.0
    m.bias(6).masked_fill(torch.isinf(m.bias(6)), 0).sum().backward()
    assert m.r1.grad is not None and bool((m.r1.grad != 0).all()) and bool((m.r2.grad[:3] != 0).all())


def test_kerple_keeps_its_bias_only_without_gradients():
    m = random_kerple("log", h=4)
    q, k, _ = random_qkv()
    with torch.no_grad():
        first = m.logit_bias(q, k, causal=True)
        assert m.logit_bias(q, k, causal=True) is first  # kept
        m.r1.mul_(2)  # an optimiser step: the kept bias must not be served
        second = m.logit_bias(q, k, causal=True)
    assert second is not first
    torch.testing.assert_close(second[torch.isfinite(second)], 2 * first[torch.isfinite(first)])
    trained = m.logit_bias(q, k, causal=True)
    assert trained.requires_grad and trained is not m.logit_bias(q, k, causal=True)


# ------------------------------------------------------------------------------------------- FIRE


def fit(module, target_fn, steps, lr=1e-2):
    opt = torch.optim.Adam(module.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        pred, target = target_fn()
        loss = ((pred - target) ** 2).mean()
        loss.backward()
        opt.step()
    pred, target = target_fn()
    return (pred - target).abs().max().item(), target.abs().max().item()


@pytest.mark.parametrize("n_heads", [4, 8])
def test_fire_fits_alibi(n_heads):
    # below the threshold FIRE depends on i - j only, so fitting the distances 0..63 seen from the
    # last query of a 64-token window fits the whole causal grid. The claim is that FIRE can fit ALiBi;
    # one Adam run from one start may stall (measured here: 5 to 11 % of the largest |bias| from some
    # starts, and which starts depends on the CPU kernels), so one of three starts must fit: the starts
    # are tried in turn until one does (the first one usually; the best of three was the same claim)
    length = 64
    pos = torch.arange(length)
    target = alibi_bias(n_heads, 1, length)[:, 0]  # [h, 64]: -slope * distance, distances 63 .. 0
    errors = []
    for seed in range(3):
        torch.manual_seed(seed)
        f = FireBias(n_heads, L_thr_init=length)
        f.L_multiplier.requires_grad_(False)  # keep L_thr = 64: every query of the window is below it

        def target_fn(f=f):
            return f.bias_at(pos[-1:], pos)[:, 0], target

        err, scale = fit(f, target_fn, steps=600)
        errors.append(round(err / scale, 4))
        if err < 0.02 * scale:
            break
    assert err < 0.02 * scale, errors  # within 2 % of the largest |bias|
    full = f.bias(length).detach()  # and so the whole grid matches
    torch.testing.assert_close(full, alibi_bias(n_heads, length), atol=0.02 * scale, rtol=0)


@pytest.mark.parametrize("q_len, k_len", [(1, 1), (5, 5), (3, 11), (1, 70)])
@pytest.mark.parametrize("causal", [True, False])
def test_fire_bias_shape_and_causal_mask(q_len, k_len, causal):
    torch.manual_seed(0)
    f = FireBias(4, L_thr_init=8)
    q, k, _ = random_qkv(L=q_len, T=k_len)
    bias = f.logit_bias(q, k, causal=causal)
    assert bias.shape == (1, 4, q_len, k_len) and bias.dtype == torch.float32
    future = torch.arange(k_len)[None, :] > torch.arange(k_len - q_len, k_len)[:, None]
    assert torch.equal(torch.isinf(bias), (future & causal).expand_as(bias))
    assert bool((bias[torch.isinf(bias)] < 0).all())
    assert_close_ulps(bias[0], f.bias(k_len, causal=causal)[:, k_len - q_len :])  # other shapes: rounding only


@pytest.mark.parametrize("threshold", [4.0, 16.0, 64.0])
def test_fire_normalisation_keeps_inputs_in_unit_interval_at_unseen_lengths(threshold):
    torch.manual_seed(0)
    f = FireBias(4, L_thr_init=threshold)
    for length in (8, 64, 1000, 4096):
        pos = torch.arange(length)
        u = f.normalized_distance(pos, pos).detach()  # [L, L]
        causal = torch.ones(length, length).tril().bool()
        assert u[causal].min() >= 0 and u[causal].max() <= 1
        beyond = pos >= threshold  # queries past the threshold see their first key at 1 (up to eps / psi(L_thr))
        torch.testing.assert_close(u[beyond, 0], torch.ones(int(beyond.sum())), rtol=1e-5, atol=0)


def test_fire_depends_on_distance_only_below_the_threshold():
    torch.manual_seed(0)
    f = FireBias(2, L_thr_init=32)
    b = f.bias(64, causal=False).detach()  # [h, 64, 64]
    for d in (0, 3, 10):
        below = torch.diagonal(b[:, : 32 - d], offset=-d, dim1=-2, dim2=-1)  # queries i < 32 ... distance d
        below = torch.stack([b[:, i, i - d] for i in range(d, 32)], -1)
        torch.testing.assert_close(below, below[..., :1].expand_as(below), rtol=0, atol=1e-6)
    # beyond it the same distance is normalised by a growing divisor: the input shrinks with i
    u = f.normalized_distance(torch.arange(32, 64), torch.arange(64)).detach()
    same_distance = torch.stack([u[r, 32 + r - 5] for r in range(32)])
    assert bool((same_distance[1:] < same_distance[:-1]).all())


def test_fire_keeps_its_bias_only_without_gradients():
    torch.manual_seed(0)
    f = FireBias(4, L_thr_init=16)
    q, k, _ = random_qkv()
    with torch.no_grad():
        first = f.logit_bias(q, k, causal=True)
        assert f.logit_bias(q, k, causal=True) is first
        f.mlp[2].bias.add_(1.0)
        second = f.logit_bias(q, k, causal=True)
    finite = torch.isfinite(first)
    torch.testing.assert_close(second[finite], first[finite] + 1.0)
    assert f.logit_bias(q, k, causal=True).requires_grad


def fire_as_in_the_papers_listing(fire, seq_len):
    """FIRE's bias as the paper's appendix listing computes it (Li et al. 2024), restated in float64:
    ``log(|c * (i - j)| + 1) / (log(|c * max(i, L_thr)| + 1) + eps)`` through the MLP, ``[h, L, L]``."""
    pos = torch.arange(seq_len, dtype=torch.float64)
    c, eps = fire.c.detach().double(), fire.eps
    threshold = (fire.L_multiplier.detach() * fire.L_thr_init).abs().double()
    numerator = torch.log(torch.abs(c * (pos[:, None] - pos[None, :])) + 1)
    divisor = torch.log(torch.abs(c * torch.maximum(pos, threshold)[:, None]) + 1) + eps
    u = (numerator / divisor).float()  # the MLP runs in float32, as FireBias's does
    return fire.mlp(u.unsqueeze(-1)).permute(2, 0, 1).detach()


@pytest.mark.parametrize("c_value", [0.1, 2.0, -0.07, -1.5])
def test_fire_matches_the_papers_listing_for_either_sign_of_c(c_value):
    """The listing takes |c * distance| in both logs, so a negative c is as valid as a positive one."""
    torch.manual_seed(0)
    f = FireBias(4, L_thr_init=16)
    with torch.no_grad():
        f.c.fill_(c_value)
        f.L_multiplier.fill_(-1.3)  # |m * L0| = 20.8: the listing takes the absolute value here too
        ours = f.bias(48, causal=False).detach()
    torch.testing.assert_close(ours, fire_as_in_the_papers_listing(f, 48), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------- CoPE


def saturated(b, h, n, d, value):
    """q or k rows of one constant: q.k / sqrt(d) = value**2 sqrt(d) -> gates of exactly 1.0 in float32."""
    return torch.full((b, h, n, d), float(value))


@pytest.mark.parametrize("q_len, k_len", [(1, 1), (5, 5), (3, 11), (1, 9)])
def test_cope_positions_are_token_distances_when_every_gate_is_one(q_len, k_len):
    d = 16
    c = CoPE(d, npos_max=k_len + 1)
    q, k = saturated(2, 3, q_len, d, 10), saturated(2, 3, k_len, d, 10)
    pos = c.positions(q, k)  # [b, h, L, T]
    query_pos = torch.arange(k_len - q_len, k_len)[:, None]
    key_pos = torch.arange(k_len)[None, :]
    expected = torch.where(key_pos <= query_pos, query_pos - key_pos + 1, 0).to(torch.float32)  # inclusive count
    assert torch.equal(pos, expected.expand_as(pos))
    both = c.positions(q, k, causal=False)  # non-causal: the count between the two, either way
    assert torch.equal(both, ((query_pos - key_pos).abs() + 1).to(torch.float32).expand_as(both))


@pytest.mark.xfail(
    strict=True,
    reason="known defect: CoPE._positions keeps its running sum in the input's dtype; the fix (a float32 "
    "sum) changes code that chapter 8's saved runs hash, so it lands with a re-run of the experiment",
)
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("length", [256, 2048])
def test_cope_positions_in_bfloat16_keep_a_near_keys_count(length, seed):
    """bf16 q and k should give the positions of the same values in float64 to one bf16 unit of the
    position (2**-8 of it) plus 0.25: the gates' own bf16 rounding adds up over the keys (measured
    with a float32 running sum: at most 0.08 at 2048 keys). A running sum kept in bf16 is rounded to
    a multiple of 8 past 1024 keys, and the difference of two such sums is off by 0.5 to 7.6 for a
    near key (measured at 256 and 2048 keys, three seeds)."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, 2, length, 16, generator=g).bfloat16()
    k = torch.randn(1, 2, length, 16, generator=g).bfloat16()
    c = CoPE(16, npos_max=length + 1)
    pos = c.positions(q, k)
    assert pos.dtype == torch.bfloat16
    exact = c.positions(q.double(), k.double())
    assert bool(((pos.double() - exact).abs() <= 2**-8 * exact + 0.25).all())


def test_cope_interpolates_the_embeddings_linearly():
    # e[n] = n * u makes q.e(p) = p * (q.u) exact for fractional p: the interpolation is linear
    torch.manual_seed(0)
    d, npos = 8, 12
    c = CoPE(d, npos_max=npos)
    u = torch.randn(d)
    with torch.no_grad():
        c.pos_emb.copy_(u[:, None] * torch.arange(npos, dtype=torch.float32)[None, :])
    q, k, _ = random_qkv(L=7, T=7, d=d)
    bias = c.logit_bias(q, k, causal=True)
    pos = c.positions(q, k).clamp(max=npos - 1)
    expected = pos * (q @ u)[..., None] / math.sqrt(d)
    finite = torch.isfinite(bias)
    torch.testing.assert_close(bias[finite], expected[finite], rtol=1e-5, atol=1e-5)
    assert bool((pos.frac() != 0).any())  # the check did meet fractional positions


@pytest.mark.parametrize("seed", range(3))
def test_cope_is_invariant_to_inserting_gated_off_tokens(seed):
    g = torch.Generator().manual_seed(seed)
    d, n = 16, 10
    c = CoPE(d, npos_max=32)
    with torch.no_grad():
        c.pos_emb.normal_(generator=g)
    q = torch.rand(1, 2, n, d, generator=g) + 0.5  # positive queries ...
    k = torch.randn(1, 2, n, d, generator=g)
    off_k = torch.full((1, 2, 1, d), -30.0)  # ... so these keys get sigmoid(q.k/sqrt(d)) = 0
    keep = torch.tensor([True, False, True, True, False, False, True, True, True, False, True, True, True, True])
    q_ins = torch.empty(1, 2, len(keep), d)
    k_ins = torch.empty(1, 2, len(keep), d)
    q_ins[:, :, keep], k_ins[:, :, keep] = q, k
    q_ins[:, :, ~keep] = torch.rand(1, 2, int((~keep).sum()), d, generator=g) + 0.5
    k_ins[:, :, ~keep] = off_k
    assert c._gates(q_ins, k_ins)[:, :, keep][..., ~keep].max() < 1e-30
    before = c.logit_bias(q, k, causal=True)
    after = c.logit_bias(q_ins, k_ins, causal=True)[:, :, keep][..., keep]
    assert torch.equal(torch.isinf(before), torch.isinf(after))
    finite = torch.isfinite(before)
    torch.testing.assert_close(after[finite], before[finite], rtol=1e-5, atol=1e-5)
    # CoPE's positions of the original pairs do not move (up to float32 rounding of the running sums) ...
    torch.testing.assert_close(
        c.positions(q_ins, k_ins)[:, :, keep][..., keep], c.positions(q, k), rtol=1e-5, atol=1e-5
    )
    # ... while token distances do: a bias indexed by i - j (ALiBi's) changes for the same pairs
    past = torch.ones(n, n).tril().bool()
    by_distance_after = alibi_bias(2, len(keep), len(keep))[:, keep][:, :, keep][:, past]
    assert (by_distance_after - alibi_bias(2, n, n)[:, past]).abs().max() > 0.1


@pytest.mark.parametrize("q_len, k_len", [(1, 8), (3, 8), (8, 8)])
def test_cope_causal_mask_and_decoding_rows(q_len, k_len):
    torch.manual_seed(0)
    c = CoPE(16, npos_max=6)  # positions up to 8 are clamped at 5
    with torch.no_grad():
        c.pos_emb.normal_()
    q, k, v = random_qkv(L=k_len, T=k_len)
    full = c.logit_bias(q, k, causal=True)  # [b, h, T, T]
    part = c.logit_bias(q[:, :, k_len - q_len :], k, causal=True)  # the last q_len queries, a KV cache
    torch.testing.assert_close(part, full[:, :, k_len - q_len :], rtol=0, atol=1e-6)
    future = torch.ones(k_len, k_len).triu(1).bool()
    assert torch.equal(torch.isinf(full), future.expand_as(full))
    weights = torch.softmax(q @ k.transpose(-1, -2) / 4 + full, -1).detach()
    assert float(weights[..., future].abs().max()) == 0.0


def test_cope_gradients_reach_the_embeddings_and_the_gates():
    torch.manual_seed(0)
    c = CoPE(16, npos_max=10)
    with torch.no_grad():
        c.pos_emb.normal_()
    q, k, v = random_qkv(L=8, T=8)
    q.requires_grad_(True)
    sdpa_with(c, q, k, v, True).square().sum().backward()
    assert c.pos_emb.grad.abs().sum() > 0 and q.grad.abs().sum() > 0


def cope_as_in_the_reference_code(pos_emb, q, k):
    """The contextual logits of facebookresearch/RAM ``projects/cope/src/cope/context_position.py``
    (default options: gates from the attention's own ``q.k``, divided by sqrt(d) after adding), restated:
    gates of future keys zeroed, counts summed from the right, clamped, interpolated. ``[b, L, L]``."""
    d, n = q.shape[-1], q.shape[-2]
    npos = pos_emb.shape[-1]
    past = torch.ones(n, n).tril()
    gates = torch.sigmoid(q @ k.transpose(-1, -2) / math.sqrt(d)) * past
    positions = gates.flip(-1).cumsum(-1).flip(-1).clamp(max=npos - 1)
    fixed = q @ pos_emb  # [b, L, P]
    ceil, floor = positions.ceil().long(), positions.floor().long()
    w = positions - floor
    return (fixed.gather(-1, ceil) * w + fixed.gather(-1, floor) * (1 - w)) / math.sqrt(d)


@pytest.mark.parametrize("npos_max", [4, 13])
def test_cope_matches_the_reference_code(npos_max):
    """Same contextual logit as the reference (clamped or not), to float32 rounding of the two sums."""
    torch.manual_seed(0)
    c = CoPE(16, npos_max=npos_max)
    with torch.no_grad():
        c.pos_emb.normal_()
    q, k, _ = random_qkv(b=2, h=3, L=12, T=12)
    with torch.no_grad():
        ours = c.logit_bias(q, k, causal=True)
        ref = cope_as_in_the_reference_code(c.pos_emb, q.reshape(-1, 12, 16), k.reshape(-1, 12, 16)).view_as(ours)
    past = torch.ones(12, 12).tril().bool()
    torch.testing.assert_close(ours[..., past], ref[..., past], rtol=1e-5, atol=1e-5)
    assert bool(torch.isneginf(ours[..., ~past]).all())


# -------------------------------------------------------------------------- as attention methods


@pytest.mark.parametrize(
    "make",
    [
        lambda: KerpleBias(4),
        lambda: KerpleBias(4, kind="power"),
        lambda: FireBias(4, L_thr_init=4),
        lambda: CoPE(16, npos_max=12),
    ],
)
def test_methods_give_causal_attention_that_ignores_the_future(make):
    torch.manual_seed(0)
    m = make()
    q, k, v = random_qkv(L=7, T=7)
    out = sdpa_with(m, q, k, v, True)
    v2 = v.clone()
    v2[:, :, -1] += 100.0  # the last key's value only reaches the last query
    out2 = sdpa_with(m, q, k, v2, True)
    torch.testing.assert_close(out[:, :, :-1], out2[:, :, :-1], rtol=0, atol=0)
    assert not torch.allclose(out[:, :, -1], out2[:, :, -1])


@pytest.mark.parametrize(
    "make", [lambda: KerpleBias(4), lambda: FireBias(4, L_thr_init=4), lambda: CoPE(16, npos_max=12)]
)
@pytest.mark.parametrize("causal", [True, False])
def test_methods_run_inside_multi_head_attention_with_a_cache(make, causal):
    torch.manual_seed(0)
    mha = posenc.MultiHeadAttention(64, 4, position=make(), causal=causal)
    x = torch.randn(2, 6, 64)
    full = mha(x)
    assert full.shape == (2, 6, 64)
    if causal:  # decoding token by token with a cache gives the full forward's rows
        cache = posenc.KVCache()
        steps = torch.cat([mha(x[:, t : t + 1], cache=cache) for t in range(6)], 1)
        torch.testing.assert_close(steps, full, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------- bad input


def test_kerple_bad_input():
    with pytest.raises(ValueError, match="n_heads must be >= 1"):
        KerpleBias(0)
    with pytest.raises(ValueError, match=r"kind must be one of \('log', 'power'\)"):
        KerpleBias(4, kind="cubic")
    with pytest.raises(ValueError, match=r"r2 must be <= 2"):
        KerpleBias(4, kind="power", r2=2.5)
    with pytest.raises(ValueError, match=r"r1 must be > 0"):
        KerpleBias(4, r1=[1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"one entry per head \(n_heads=4\)"):
        KerpleBias(4, r1=[1.0, 2.0])
    with pytest.raises(TypeError, match="distance must be a real tensor"):
        KerpleBias(4).bias_by_distance(torch.tensor([True]))
    with pytest.raises(ValueError, match="k_len must be >= 5"):
        KerpleBias(4).bias(5, 3)


def test_fire_bad_input():
    with pytest.raises(ValueError, match="c_init must be > 0"):
        FireBias(4, c_init=0.0)
    with pytest.raises(ValueError, match="L_thr_init must be > 0"):
        FireBias(4, L_thr_init=-1.0)
    with pytest.raises(ValueError, match="hidden must be >= 1"):
        FireBias(4, hidden=0)
    with pytest.raises(TypeError, match="n_heads must be an int"):
        FireBias(4.0)
    with pytest.raises(ValueError, match="query_pos must hold real positions >= 0"):
        FireBias(4).normalized_distance(torch.tensor([-1]), torch.tensor([0]))


def test_cope_bad_input():
    with pytest.raises(ValueError, match="npos_max must be >= 2"):
        CoPE(16, npos_max=1)
    with pytest.raises(ValueError, match="head_dim must be >= 1"):
        CoPE(0, npos_max=8)
    with pytest.raises(ValueError, match="q and k must end in head_dim=16"):
        CoPE(16, npos_max=8).positions(torch.randn(3, 8), torch.randn(3, 8))
    with pytest.raises(ValueError, match="k must have at least as many positions as q"):
        CoPE(16, npos_max=8).positions(torch.randn(3, 16), torch.randn(2, 16))
    with pytest.raises(TypeError, match="q must be a floating-point tensor"):
        CoPE(16, npos_max=8).positions(torch.ones(3, 16, dtype=torch.long), torch.randn(3, 16))


@exported
def test_exported_names_bad_input():
    with pytest.raises(ValueError, match="kind must be one of"):
        posenc.KerpleBias(4, kind="linear")
    with pytest.raises(ValueError, match="c_init must be > 0"):
        posenc.FireBias(4, c_init=-0.1)
    with pytest.raises(ValueError, match="npos_max must be >= 2"):
        posenc.CoPE(16, npos_max=0)


@pytest.mark.parametrize("heads_seed", [0, 1])
def test_fire_squared_error_ratio_is_one_for_the_best_constant_and_below_for_a_fit(heads_seed):
    # chapter 11's saved FIRE fits record this ratio: the fit's mean squared error over that of each
    # head's mean. A FIRE whose MLP outputs exactly the heads' means (zero first layer) scores 1; an
    # L-BFGS fit to a smooth target, which every start fits to a fraction of a percent, scores far below
    from posenc.experiments.fire_fit import WINDOW, fire_curve, fit_lbfgs, fit_targets, squared_error_ratio

    target = torch.randn(4, WINDOW, generator=torch.Generator().manual_seed(heads_seed))
    flat = FireBias(4, L_thr_init=float(WINDOW))
    with torch.no_grad():
        flat.mlp[0].weight.zero_()
        flat.mlp[0].bias.zero_()
        flat.mlp[2].bias.copy_(target.mean(-1))
    # exact by construction: a zero first layer makes every hidden unit exactly 0, so the output is the bias
    assert torch.equal(fire_curve(flat).detach(), target.mean(-1, keepdim=True).expand(4, WINDOW))
    assert abs(squared_error_ratio(flat, target) - 1) < 1e-5  # float32 means of 256 terms
    kerple = fit_targets(0)["KERPLE (log)"]
    assert squared_error_ratio(fit_lbfgs(kerple, seed=heads_seed, max_iter=100), kerple) < 0.01


def test_fit_lbfgs_raises_when_the_fit_diverges():
    from posenc.experiments.fire_fit import WINDOW, fit_lbfgs

    target = torch.zeros(4, WINDOW)
    target[0, 3] = float("nan")  # a loss that is never finite
    with pytest.raises(RuntimeError, match="diverged"):
        fit_lbfgs(target, seed=0, max_iter=5)
