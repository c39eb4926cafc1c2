"""KERPLE, FIRE and CoPE: the properties their papers state, checked on random inputs.

Conventions: queries aligned at the end of the keys (query row r at position T - L + r);
a causal bias is -inf where key_pos > query_pos; CoPE counts inclusively (p = i - j + 1 when every
gate is 1).
"""

import functools
import inspect
import json
import math
import pathlib
import re
import statistics

import pytest
import torch
import torch.nn.functional as F
from conftest import assert_close_ulps, assert_passkey_is_the_only_digit, chapter_markdown, collapsed

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


def _chapter_views() -> tuple[str, str, str]:
    """Chapter 11's markdown: as written, whitespace collapsed, and its main line (collapsed blocks removed) with
    whitespace collapsed."""
    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    return text, " ".join(text.split()), main


def _ch8_main(main: str) -> str:
    """The main line of chapter 11's section on chapter 8's experiment (fix pass 266, read r265 #3: the crossing about
    650 back is the KERPLE section's main line too, so checks that kept it off this section's main line are scoped
    here)."""
    return main[main.index("## In chapter 8's experiment") : main.index("## Takeaways")]


def _markdown_paragraphs() -> list[str]:
    """Chapter 11's markdown paragraphs (blank-line separated), whitespace collapsed."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    return [
        " ".join(p.split())
        for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
        for p in "".join(c["source"]).split("\n\n")
    ]


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


def smallest_psd_constant(kernel):
    """The smallest lambda with kernel + lambda free of negative eigenvalues, by doubling then bisection [...],
    within a rounding tolerance that grows with lambda: it cannot tell an r2 = 2 table, where no constant works."""

    def psd(lam):
        return torch.linalg.eigvalsh(kernel + lam).min() >= -1e-10 * (kernel.abs().max() + lam)

    hi = 1.0
    while not psd(hi):
        hi *= 2
        assert hi < 1e12, "no constant found"
    lo = 0.0
    for _ in range(50):
        lo, hi = (lo, (lo + hi) / 2) if psd((lo + hi) / 2) else ((lo + hi) / 2, hi)
    return hi


@pytest.mark.parametrize("kind", ["log", "power"])
def test_kerple_constant_that_leaves_no_negative_eigenvalue_grows_with_the_span(kind):
    """Chapter 11's KERPLE box: "For the log shape and powers below 2, a large enough constant added to every bias
    makes it so", "The constant turns the biases into dot products of position vectors. It grows with the
    input's length", and the appendix's "The constant grows with the span": the two end positions' 2 x 2 table of
    B + lambda has the eigenvalues 2 lambda + b and -b, so lambda >= |b(span)| / 2, "half the penalty at distance
    $d$"."""
    m = random_kerple(kind, h=4)  # powers up to 1.95
    for head in range(4):
        found = []
        for n in (3, 10, 30, 100):  # positions 0 to n - 1: each set contains the one before
            x = torch.arange(n, dtype=torch.float64)
            kernel = m.bias_by_distance(x[:, None] - x[None, :]).detach()[head]
            lam = smallest_psd_constant(kernel)  # up to eigvalsh's rounding; it exists, as the shape is strictly CPD
            assert lam >= -kernel[0, -1].item() / 2 * (1 - 1e-6)  # at least half the penalty at the span
            found.append(lam)
        assert all(a < b for a, b in zip(found, found[1:])), found  # it grows with the span


def test_kerple_power_at_r2_2_is_cpd_only_just_and_no_constant_makes_it_psd():
    # the module docstring's edge case, which chapter 11's appendix checks too: -(x - y)^2 on three adjacent
    # positions is CPD, with c^T K c = 0 for c = (1, -2, 1); lambda + K keeps a negative eigenvalue, -2.0 at
    # lambda = 1 and near -2 / (3 lambda) once lambda is large
    x = torch.arange(3, dtype=torch.float64)
    K = KerpleBias(1, kind="power", r1=1.0, r2=2.0).bias_by_distance(x[:, None] - x[None, :]).detach()
    assert projected_min_eig(K).min() > -1e-12
    c = torch.tensor([1.0, -2.0, 1.0], dtype=torch.float64)
    assert abs(c @ K[0] @ c) < 1e-12
    assert all(torch.linalg.eigvalsh(K[0] + lam).min() < -1e-7 for lam in (1.0, 10.0, 100.0, 1e4, 1e6))


@pytest.mark.parametrize("n_points", [3, 8, 32])
@pytest.mark.parametrize("seed", range(3))
def test_kerple_power_at_r2_2_no_constant_makes_it_psd_on_any_distinct_positions(n_points, seed):
    # chapter 11's box: v with v . x = 0, sum(v) = eps, v . x^2 = 1 gives v^T (K + lambda) v = -2 eps + lambda eps^2,
    # -1 / lambda at eps = 1 / lambda; float64 rounding here is below 1e-12, far under the 1e-3 / lambda tolerance
    g = torch.Generator().manual_seed(seed)
    x = torch.randperm(100, generator=g)[:n_points].to(torch.float64)  # distinct positions
    K = KerpleBias(1, kind="power", r1=1.0, r2=2.0).bias_by_distance(x[:, None] - x[None, :]).detach()[0]
    rows = torch.stack([x, torch.ones_like(x), x**2])
    for lam in (1.0, 1e2, 1e4, 1e6):
        v = torch.linalg.pinv(rows) @ torch.tensor([0.0, 1 / lam, 1.0], dtype=torch.float64)
        assert abs(v @ (K + lam) @ v + 1 / lam) < 1e-3 / lam


@pytest.mark.parametrize(
    "kind, r1, r2",
    [("log", 1.0, 1.0), ("log", 4.0, 0.02), ("power", 0.5, 0.5), ("power", 1.3, 1.5), ("power", 1.0, 1.9)],
)
def test_kerple_strictly_cpd_as_a_mixture_of_strictly_pd_kernels(kind, r1, r2):
    """Chapter 11's KERPLE box, "Why strictly": with sum(c) = 0, c^T B c = r1 int_0^inf e^-s / s sum c_a c_b
    e^(-s r2 |x_a - x_b|) ds for the log shape, and for a power r2 = 2 alpha the weight alpha / Gamma(1 - alpha)
    s^(-1 - alpha) on e^(-s (x_a - x_b)^2); each inner sum is positive for c != 0 (the kernel matrix on distinct
    points has a positive smallest eigenvalue). Quadrature in mpmath, which torch installs through sympy."""
    mp = pytest.importorskip("mpmath")
    g = torch.Generator().manual_seed(0)
    x = torch.randperm(60, generator=g)[:6].to(torch.float64)  # distinct positions
    c = torch.randn(6, generator=g, dtype=torch.float64)
    c = c - c.mean()  # sum(c) = 0
    B = KerpleBias(1, kind=kind, r1=r1, r2=r2).bias_by_distance(x[:, None] - x[None, :]).detach()[0]
    r1, r2 = (v.item() for v in KerpleBias(1, kind=kind, r1=r1, r2=r2).coefficients())  # as float32 stores them
    d = (x[:, None] - x[None, :]).abs().tolist()
    cc = (c[:, None] * c[None, :]).tolist()
    pairs = [(cc[a][b], d[a][b]) for a in range(6) for b in range(6)]
    if kind == "log":  # 1 - e^(-s r2 d) weighted by e^-s / s; the constant terms cancel as sum(c) = 0

        def integrand(s):
            return -mp.exp(-s) / s * sum(w * -mp.expm1(-s * r2 * t) for w, t in pairs)

        mixture = r1 * mp.quad(integrand, [0, 1e-6, 1e-4, 1e-2, 1, 100, mp.inf])
    else:  # over v = log s, from s = 1e-12 to 100; below and above, the integrand's limits, integrated exactly
        alpha = r2 / 2

        def integrand(v):  # s^(-1 - alpha) ds = s^(-alpha) dv
            return -mp.exp(-alpha * v) * sum(w * -mp.expm1(-mp.exp(v) * t * t) for w, t in pairs)

        low, high = mp.mpf(1e-12), mp.mpf(100)  # t >= 1 between distinct integers: e^(-100 t^2) is negligible
        near = -sum(w * t * t for w, t in pairs) * low ** (1 - alpha) / (1 - alpha)  # 1 - e^(-s t^2) ~ s t^2
        far = sum(w for w, t in pairs if t == 0) * high ** (-alpha) / alpha  # the sum tends to -sum(c^2)
        body = mp.quad(integrand, mp.linspace(mp.log(low), mp.log(high), 12))
        mixture = r1 * alpha / mp.gamma(1 - alpha) * (near + body + far)
    direct = (c @ B @ c).item()
    assert direct > 0 and abs(float(mixture) - direct) < 1e-6 * direct, (float(mixture), direct)
    for s in (1e-3, 0.1, 1.0, 10.0):  # the mixed kernels are strictly positive definite on distinct points
        t = (x[:, None] - x[None, :]).abs()
        kernel = torch.exp(-s * r2 * t) if kind == "log" else torch.exp(-s * t**2)
        assert torch.linalg.eigvalsh(kernel).min() > 0


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


def near_key_error(pos, exact):
    """The largest error of the positions of the keys 1 to 3 back from every query: [..., L, L] each."""
    i = torch.arange(pos.shape[-1])
    errors = [(pos.double()[..., i[b:], i[b:] - b] - exact[..., i[b:], i[b:] - b]).abs().max() for b in (1, 2, 3)]
    return max(e.item() for e in errors)


def test_cope_box_names_the_bfloat16_sum_a_known_defect():
    """The box "Counts in bfloat16" names posenc's bfloat16 running sum a known defect, a strict xfail in this file,
    not general CoPE advice: the sentence is in the box, with no roadmap ("fixed when", "Until then"), and the xfail
    test above is strict and names the defect (its reason also says why the fix waits for a re-run of the
    experiment: a test-side fact the box does not state)."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    box = next(
        " ".join("".join(c["source"]).split())
        for c in cells
        if "<summary>Counts in bfloat16</summary>" in "".join(c["source"])
    )
    assert (
        "`posenc.CoPE` sums in the dtype of $q$ and $k$, a known defect (a strict xfail in"
        " `tests/test_learned_position.py`): give it float32 $q$ and $k$." in box
    )
    assert "fixed when" not in box and "Until then" not in box  # states what is, no roadmap
    marks = [m for m in test_cope_positions_in_bfloat16_keep_a_near_keys_count.pytestmark if m.name == "xfail"]
    assert len(marks) == 1 and marks[0].kwargs["strict"] is True
    assert "known defect" in marks[0].kwargs["reason"] and "re-run of the experiment" in marks[0].kwargs["reason"]
    # the reason names a method posenc's CoPE has
    assert "_positions" in marks[0].kwargs["reason"] and hasattr(posenc.CoPE, "_positions")


@pytest.mark.parametrize("seed", range(4))
def test_cope_bfloat16_error_comes_from_the_difference_of_two_long_sums(seed):
    """Chapter 11's box "Counts in bfloat16": in bfloat16,
    "even a key 1 to 3 back can get a count off by about 2 or more at 1,024 tokens and by more than 3 at 2,048", checked
    over 24 draws in the test after this one. "The reference code sums from the query back, so a near key's
    count is a short sum; the same keys then stay within 0.02. A far key's count is large, and bfloat16 rounds it in
    either order: keep counts in float32. `posenc.CoPE` sums in the dtype of $q$ and $k$" (a known defect: see
    test_cope_box_names_the_bfloat16_sum_a_known_defect), "give it float32 $q$ and $k$. On the CPU,
    where PyTorch adds a float32 running sum in double precision, every count then stays within
    0.001 at 2,048 tokens. A running sum rounded to float32 at every step, as a plain loop over the keys adds it, is
    off by up to about 0.002 there" (0.0018 to 0.0020 on these draws, checked below at 2,048). Measured on seeds 0
    to 3 (the same under the generic, AVX2 and AVX-512 kernels): posenc's keys 1 to 3 back off by 2.44 to 3.55 at
    1,024 keys, 3.93 to 7.40 at 2,048; the reference order by at most 0.015, and its far keys by about 2 and 4; the
    same bfloat16 q and k cast to float32 give every count within 1.7e-4 at 2,048. The fix of the known defect
    (above) changes this test and the box."""
    for length, off in ((1024, 1.8), (2048, 3)):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(1, 2, length, 16, generator=g).bfloat16()
        k = torch.randn(1, 2, length, 16, generator=g).bfloat16()
        c = CoPE(16, npos_max=length + 1)
        exact = c.positions(q.double(), k.double())
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        # facebookresearch/RAM projects/cope/src/cope/context_position.py: masked gates, summed from the right
        gates = torch.sigmoid(q @ k.transpose(-1, -2) / math.sqrt(16)).masked_fill(~causal, 0)
        reference = gates.flip(-1).cumsum(dim=-1).flip(-1)
        pos = c.positions(q, k)
        assert pos.dtype == reference.dtype == torch.bfloat16
        assert near_key_error(pos, exact) > off, length
        assert near_key_error(reference, exact) < 0.02, length
        assert ((reference.double() - exact).abs() * causal).max().item() > 1, length  # far keys, in either order
        in_float32 = c.positions(q.float(), k.float())  # the box's advice: the same q and k, counted in float32
        assert ((in_float32.double() - exact).abs() * causal).max().item() < 1e-3, (
            length
        )  # "every count ... within 0.001"
    text = chapter_markdown("11_learned_position")
    assert (
        "A running sum rounded to float32 at every step, as a plain loop over the keys adds it, is off by up to"
        " about 0.002 there." in text
    )
    gates = torch.sigmoid(q.float() @ k.float().transpose(-1, -2) / 4).masked_fill(~causal, 0)  # length 2048
    prefix, run = torch.empty_like(gates), torch.zeros(gates.shape[:-1])
    for t in range(length):  # each addition rounded to float32: elementwise, the same on every kernel
        run = run + gates[..., t]
        prefix[..., t] = run
    before = torch.cat([torch.zeros(*prefix.shape[:-1], 1), prefix[..., :-1]], -1)  # the sum up to key j - 1
    looped = prefix.diagonal(dim1=-2, dim2=-1)[..., None] - before  # posenc's difference of two running sums
    assert 1e-3 < ((looped.double() - exact).abs() * causal).max().item() < 2.5e-3  # "up to about 0.002"


def test_cope_bfloat16_near_key_error_over_24_draws():
    """The box "Counts in bfloat16": "Over 24 draws of random $q$ and $k$, two heads each, that error at 1,024 tokens
    is above 2 in 23 draws and above 1.8 in all", and "by more than 3 at 2,048". Seeds 0 to 15 and 100 to 107:
    at 1,024 keys the near-key error runs 1.89 (seed 100) to 3.85, at 2,048 keys 3.93 to 7.67."""
    text = " ".join(chapter_markdown("11_learned_position").split())
    assert (
        # fix pass 241 (read r240 #2: the error is the worst query's, near_key_error's max over the queries)
        "Over 24 draws of random $q$ and $k$, from seeds 0 to 15 and 100 to 107, two heads each, that worst-query"
        " error at 1,024 tokens is above 2 in 23 draws and above 1.8 in all." in text
    )
    assert "so, from the worst query of an input, even a key 1 to 3 back can get a count off" in text
    errors = {1024: [], 2048: []}
    for seed in (*range(16), *range(100, 108)):
        for length in errors:
            g = torch.Generator().manual_seed(seed)
            q = torch.randn(1, 2, length, 16, generator=g).bfloat16()
            k = torch.randn(1, 2, length, 16, generator=g).bfloat16()
            c = CoPE(16, npos_max=length + 1)
            errors[length].append(near_key_error(c.positions(q, k), c.positions(q.double(), k.double())))
    assert len(errors[1024]) == 24
    assert min(errors[1024]) > 1.8
    assert sum(e > 2 for e in errors[1024]) == 23
    assert min(errors[2048]) > 3


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
    # float32, computed on a different query shape: the generic kernels differ here by 1.4e-6 on logits of about 0.3
    # (a few ulps of the running sums), so the bound is 1e-5, far below the logits' spread
    torch.testing.assert_close(part, full[:, :, k_len - q_len :], rtol=1e-5, atol=1e-5)
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


# ------------------------------------------- chapter 11's claims on chapter 8's saved run (posenc/results)
# Each test quotes the sentence of notebooks/11_learned_position.ipynb that it checks and loads the saved
# results as the notebook does: experiment_config(), load_results(..., check="report").


@functools.cache
def saved_run():
    from posenc.experiments import PasskeyCorpus, experiment_config, load_results

    config = experiment_config()
    full = load_results("extrapolation", check="report")
    return config, full, [str(s) for s in full["config"]["seeds"]], PasskeyCorpus(**config["corpus"])


def per_seed(name, metric, key):
    _, full, seeds, _ = saved_run()
    return [full["metrics"][name][s][metric][str(key)] for s in seeds]


def loss_8L(name):
    config, *_ = saved_run()
    return per_seed(name, "loss_beyond", config["eval_lengths"][-1])


# the caption of the table in the section on chapter 8's experiment (read r182: the column's distance, the farthest
# fixed one, said with the table, so that ALiBi's 76 % there is not read as its miss rate at every distance)
# read r183: the random-distance column joined the main table, so that ALiBi is not judged on its worst column alone
# fix pass 219: "the farthest fixed distance tested", shorter, to keep the main line's length (496 is the largest of
# chapter 8's fixed distances: test_passkey_table_caption_names_the_farthest_fixed_distance)
caption_8l = (
    "At $8L$, each passkey is hidden either 496 tokens back, the farthest fixed distance tested, or at a random"
    " distance:"
)
# fix pass 272 (read r269a #6, unclear: the grades that the table implies were defined only in the block): the two bars,
# one sentence on the main line before the caption (checked against chapter 8's grading table and this chapter's cells
# in test_a_low_passkey_score_sits_beside_a_penalty_past_the_trained_range)
grades_272 = "A loss is *fine* at most 0.1 nats above the trigram's; passkeys are *kept* when 95 % or more are found."
# that section's main line, read r191: its reading rule, "in this run a find says little about the position encoding,
# but a miss points to it", was the densest inference on the main line; the passkey's definition carries why content
# alone finds it, and the rule, scoped to the run, is the block's ("a missed passkey points to the position encoding")
passkey_defined = (
    "A *passkey* is the only digit of a test input, hidden in the filler and asked for at the end, so content alone"
    " can find it."
)
# read r205: with the rule in the block only, a learner saw no position encoding find every passkey and could read
# position encoding as harmful; one sentence after the definition draws the block's inference, scoped to the run
# ("So on this task, in this run's five seeds, a missed passkey points to the position encoding, not the content.")
# fix pass 255 (reads r250b #3 and r254 #1, overstated: the no-encoding control shows that content suffices, not that
# every other miss is the encoding's; KERPLE's own seeds range 89 to 100 %): what the control shows
passkey_miss_r265 = "So in this run, a missed passkey is rarely for lack of content."
# fix pass 266 (read r265 #4, unclear: the second "So" did not follow from the definition; its evidence, the model
# without position encoding's two misses, was the block's): the evidence in the sentence itself (two misses over the
# whole run, every length and distance: test_nope_finds_nearly_every_passkey_missing_two_probes_in_the_whole_run)
passkey_miss = (
    # fix pass 271 (read r269a #1, unclear: "find every passkey in the table below" then "misses only two passkeys"
    # read as a contradiction): both misses lie outside the table's two columns (random distances at 8L, 496 back)
    "The model without position encoding misses only two passkeys in the whole run, both outside the table's columns,"
    " so a missed passkey is rarely for lack of content."
)
# after the table, two sentences (read r191): the section's opening lesson already says that FIRE and CoPE find every
# passkey at a higher loss, so the table is read for KERPLE against ALiBi, and the counter-fact follows the lead it is
# about (reads r189-r191 asked for it on the main line)
# fix pass 253 (reads r252 #1 and r252b #2: the section ended on caveats with no result on the main line): the paired
# result, KERPLE's margin over ALiBi 496 tokens back in every seed (asserted in the appendix's paired cell)
result_8l_r272 = (
    "KERPLE and ALiBi keep the lowest losses, but ALiBi misses more far passkeys than KERPLE: in every seed, KERPLE"
    " finds 5 to 25 more of the 64 hidden 496 tokens back."
)
# fix pass 273 (read r270a #7 and r270b's hardest place, unclear: the section led with KERPLE alone, buried its result
# and ended its main line on an open question): the lesson (lesson_8l) now names KERPLE and ALiBi's lowest losses
# first; after the table, the counter-fact alone (result_8l), then the conclusion the measures block held (grades_8l,
# checked in test_a_low_passkey_score_sits_beside_a_penalty_past_the_trained_range); the paired margin (paired_273,
# test_kerple_finds_more_passkeys_496_back_than_alibi_by_5_to_25_of_64) and the open question (unsettled_273) open
# the first block
result_8l = "ALiBi misses more far passkeys than KERPLE."
grades_8l = "On their five-seed means, only KERPLE gets both grades; each other model misses one."
unsettled_273 = "Why KERPLE finds more far passkeys is not settled here."
# fix pass 274 (read r271a #1, unclear: the KERPLE section's headline edge, "far enough back a key keeps more weight",
# read as the reason for "ALiBi misses more far passkeys than KERPLE", while only the first block said that the trained
# heads never get that edge): one main-line sentence after the result says so, the measured fact that shows it (every
# trained head's bias below the line of ALiBi's flattest head, slope 1/256, at every distance 1 to 511: checked in
# test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head and in the appendix's cell, -2.4
# against -2 at 511 back), then the open question, moved from the first block's opening (unsettled_273), with a pointer
# to that block
edge_274 = (
    # scoped to ALiBi's flattest head, as the first block's counter_fact and the takeaway are (read r204: against
    # ALiBi's steeper heads every trained KERPLE head keeps more weight 496 back)
    "The KERPLE section's power-law edge over ALiBi's flattest head does not show at these lengths: no trained KERPLE"
    " head's bias rises above that head's line, up to 511 tokens back."
)
open_274 = "So why KERPLE finds more far passkeys is open; the first block below compares the heads."
# fix pass 274 (read r271b #4, unclear: "only KERPLE gets both grades" read as robust, while one KERPLE seed of five is
# under the 95 % bar in both passkey columns): the exception, right after the grades, in the words of the measures
# block's mean_only (checked seed by seed in test_one_kerple_seed_finds_under_nine_in_ten_passkeys_in_both_columns
# and in the appendix's cell: under_95 == [seeds[2]])
weak_seed_274 = "These grades hold on the means only: one KERPLE seed of five falls below the passkey bar."
main_8l_274 = f"{result_8l} {edge_274} {open_274} {grades_8l} {weak_seed_274}"
# fix pass 279 (reads r275a #3 and r275b #1, unclear: the yardstick, two grades and their caveats came before the
# section's idea): the main line is the set-up in two sentences (setup_279), the table, the lesson (lesson_279, checked
# in test_section_8l_lesson_holds_on_the_saved_run), one sentence pointing to the first block (open_279) and the
# crossing in the KERPLE section's words (crossing_279; reads r275a #4 and r275b #2). main_8l_274 left the main line:
# result_8l opens the first block joined to paired_273 (result_paired_279), with the passkey-content sentence
# (passkey_miss); edge_274 is the first block's power_law_not_why and counter_fact; grades_8l moved to the measures
# block; weak_seed_274 is the lesson's last clause and the measures block's mean_only
setup_279 = (
    "[Chapter 8](08_extrapolation.ipynb) trains tiny models on $L = 64$ tokens of filler text, in which each symbol"
    # fix pass 285 (read r280b #1, unclear: the table never said its length or which positions the loss covers): 8L,
    # 512 tokens, and the loss from position L on (test_section_8l_table_is_at_8l_from_position_l)
    " depends on the two before it, and tests them on inputs of $8L$, 512 tokens, without further training. The table"
    " gives each model's loss on the filler and the share of *passkeys* it finds: single digits hidden in the filler"
    " and asked for at the end. The loss covers positions $L$ and beyond."
    # fix pass 282 (read r278b #2, unclear: the table's "a random distance" was defined only in a block): what it is,
    # in the set-up's paragraph (random_distance_282, checked in test_random_distance_is_uniform_from_1_to_510_back)
    " A random distance is 1 to 510 tokens back, each equally likely."
)
lesson_279_r280 = (
    "KERPLE's and ALiBi's models predict the filler nearly as well as a trigram model, which predicts each symbol from"
    " the two before it and scores 0.72 nats. The FIRE, CoPE and T5 models and the model without position encoding"
    " find every passkey in both columns. But they predict the filler worse than KERPLE's and ALiBi's models. Only"
    " KERPLE, on its five-seed mean, is within 0.1 nats of the trigram and finds 95 % or more of the passkeys in both"
    " columns; one of its five seeds finds under 95 %."
)
# fix pass 281 (reads r277a #1 and r277b #3, unclear: one dense paragraph held two bars, two columns and six models at
# once): the trigram's score, one bullet per measure, then the conclusion; each checked in
# test_section_8l_lesson_holds_on_the_saved_run
lesson_279 = (
    # fix pass 285 (reads r280a #1 and r280b #1, unclear: "does well" used bars defined only in a block): each bullet
    # states its bar; "a passkey is the input's only digit" stays in the block "How the measures are scored" too
    "A trigram model, which predicts each symbol from the two before it, scores 0.72 nats on the filler. - Predicting"
    " the filler: doing well means a loss within 0.1 nats of the trigram's; only KERPLE and ALiBi do. - Finding"
    # fix pass 286 (read r281a #6, unclear: the grading took a learner too long to rebuild): the passkey bullet says
    # only who falls short, "every model but ALiBi does" (on the five-seed means, test_section_8l_lesson_holds_on_the_
    # saved_run); the words pay for the takeaway's crossing (r281b #7)
    " passkeys: doing well means finding 95 % or more in both columns; every model but ALiBi does."
    # fix pass 287 (read r282a #3, unclear: T5's and NoPE's 100 % read as a position-encoding success on the main
    # line): why, in one sentence, also on the main line (checked in test_passkey_column_credits_no_encoding_for_a_find)
    " A passkey is the input's only digit, so content alone can find it."
    # fix pass 288 (read r283a #4, overstated, mild: KERPLE clears the passkey bar by 2 to 3 points, 97 % and 98 %):
    # "narrowly" (checked in test_section_8l_lesson_holds_on_the_saved_run: each mean under 3 points above 95 %)
    " So only KERPLE does well at both, narrowly, on its five-seed mean; one of its seeds finds under 95 %."
)
# fix pass 280 (read r276a #1, overstated: NoPE's seed 4 misses one passkey outside the table): "find every passkey
# in both columns"; (read r276a #6, unclear: "does well in both measures" used grades defined only in a block): the
# grades in plain words, checked in test_section_8l_lesson_holds_on_the_saved_run
# fix pass 280 (reads r276a #3 and r276b #1 and #6, unclear: the crossing sentence stood on two main lines and apart
# from the open question): the open question and what the trained heads' lack of the power-law edge means for it; the
# crossing about 650 back is the KERPLE section's block's (kerple_crossing_279) and this section's first block's
open_279_r280 = (
    "Why KERPLE finds more far passkeys than ALiBi is open. Its trained heads never catch up with ALiBi's flattest head"
    " within these inputs, up to 511 tokens back. So the KERPLE section's power-law edge does not show here; the first"
    " block below compares their heads."
)
# fix pass 281 (reads r277a #1 and r277b #3, unclear: the paragraph took back the KERPLE section's lesson with no
# takeaway in its place): the takeaway, the table's ranking, then the open question, in two sentences
# fix pass 282 (reads r278a #1 and r278b #1, unclear: "the table's ranking is the result" had no clear meaning): the
# edge is said to be absent in these heads, and the open question follows
# fix pass 285 (reads r280a #1 and r280b #2, unclear: the catch-up sentence leaned on the block's 1/256 head): it
# moved into the first block (edge_285); the open question stays
open_279 = "Why KERPLE finds more far passkeys than ALiBi is open; the first block below compares their heads."
edge_285 = (
    "So KERPLE's trained heads never catch up with ALiBi's flattest head up to 511 tokens back, and the KERPLE"
    " section's edge does not show in these heads."
)
assert "ranking is the result" not in open_279
# the KERPLE section's main line says the same in the same words, then points here (kerple_crossing_279)
crossing_279 = (
    "Chapter 8's trained log heads never catch up with that chapter's flattest ALiBi head within its inputs, up to 511"
    " tokens back; the earliest would catch up about 650 back"
)
kerple_crossing_279 = f"{crossing_279}, as the section *In chapter 8's experiment* notes."
main_8l_279 = f"{lesson_279} {open_279}"
result_paired_279 = (
    "ALiBi misses more far passkeys than KERPLE: in every seed, KERPLE finds 5 to 25 more than ALiBi of the 64 passkeys"
    " hidden 496 tokens back."
)
paired_273 = "In every seed, KERPLE finds 5 to 25 more than ALiBi of the 64 passkeys hidden 496 tokens back."
counter_fact = (
    # read r202: the two measures (relative weight, then the share of the row) read as evidence, not a lesson; the
    # main line keeps one: the KERPLE section's argument, more weight against the query's own token far back, does not
    # reach the tested lengths (checked below: every trained head's bias lies under ALiBi's flattest line at every
    # distance 1 to 511); the shares and why they can differ are the block's
    # read r203: one 40-word sentence held three terms at once; two short ones say it. The first names the argument,
    # the power law's advantage far back, not the log shape itself; "every tested distance": 1 to 511 back, the
    # farthest key of the longest tested input (test_every_trained_kerple_head_penalises_each_key_more_than_alibis_
    # flattest_head checks each of the 40 trained heads there)
    # read r204: "does not reach these lengths" was overstated: against ALiBi's steeper heads (slopes 1/4, 1/16) every
    # trained KERPLE head keeps more weight 496 back; the claim is scoped to ALiBi's flattest head, and to the weight
    # against the query's own token (the block's softmax shares of the row can favour KERPLE's gentlest head)
    # read r205: "Nor do ..." read as contradicting the KERPLE section's headline; one sentence links to it instead:
    # its power law is not the reason, since each trained head's bias lies above ALiBi's flattest line only beyond
    # the tested distances (checked below: below the line 1 to 511 back, each solved log shape crossing past 511).
    # "Bias", not "weight": the block's shares of the row can favour KERPLE's gentlest head 496 back
    # read r206: "is not the reason" ruled out a cause on one comparison, while the block's shares leave it open; the
    # narrower sentence says only that the edge is absent at the tested distances (each trained head's bias below the
    # flattest line 1 to 511 back, checked below), and leaves the cause to the block
    # read r207: "power-law edge ... within the tested distances" could not be decoded without the block's numbers; the
    # sentence names what is measured (every trained head's bias below ALiBi's flattest line, 1 to 511 back, checked in
    # test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head) before what it means
    # read r208: "below" left the learner to work out that it means a stronger penalty; the sentence says "penalises"
    # and adds the fact that explains it, each head's start steeper than the line near the query (every solved log
    # shape's r1 r2 above 1/256, checked in test_every_trained_kerple_head_penalises_each_key_more_than_alibis_...)
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: the first block and the end of the measures block said the
    # KERPLE-against-ALiBi analysis twice): one copy, in the first block; the steeper start and the bias below the
    # line are power_law_not_why's, so this sentence keeps only what they mean
    # fix pass 285 (reads r280a #1 and r280b #2): the main line's catch-up sentence (edge_285) took its place
    edge_285
)
counter_fact_r271 = (
    "Each trained KERPLE head falls faster than ALiBi's flattest line near the query, and penalises a key more at"
    " every tested distance, so its power-law edge over that line, in bias, does not show here."
)
counter_fact_r207 = (
    "Each trained KERPLE head's bias lies below even ALiBi's flattest line at every tested distance, so their"
    " power-law edge over that line does not show here."
)
counter_fact_r206 = (
    "The KERPLE section's power-law edge over ALiBi's flattest line does not appear within the tested distances."
)
counter_fact_r205 = (
    "The KERPLE section's power law is not the reason here: each trained KERPLE head's bias lies above ALiBi's"
    " flattest line only beyond the tested distances."
)
counter_fact_r204 = (
    "Nor do KERPLE's heads keep more weight far back, against the query's own token, than ALiBi's flattest head."
)
counter_fact_r203 = (
    "The KERPLE section's power-law advantage does not reach these lengths. At every tested distance, each trained"
    " KERPLE head penalises a key more than ALiBi's flattest head does."
)
counter_fact_r202 = (
    "The KERPLE section's argument does not reach these lengths: at equal content scores, no trained KERPLE head gives"
    " any key in the tested inputs more weight, against the query's own token, than ALiBi's flattest head does."
)
# read r192: the counter-fact left the KERPLE section's lesson unresolved on the main line. Read r199: one conclusion
# closes it, scoped to the measure above ("such weight"), the weight against the query's own token, and to what ALiBi
# "can" keep, through its flattest head; the crossing past the tested lengths (about 650 back) is the block's
# (crossing_8l), with no "fade" as a noun
# read r200: that conclusion ("KERPLE's lead does not come from keeping more such weight on far keys than ALiBi
# can") rested on one measure, while the block's softmax shares of the far key point the other way in most seeds;
# the section's lesson is that these runs do not settle why (unsettled_8l, right after the result), then the two
# measures, the relative weight (counter_fact) and the share of the row (closing_8l, checked in
# test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_gentlest_kerple_head)
unsettled_8l = "These runs do not settle why."
# read r209: the main line ended on two open ends ("These runs do not settle why." and the counter-fact); it ends on
# what to take away instead, and the open question is the block's ("What does explain KERPLE's lead is not measured
# here."). The takeaway follows from the counter-fact: KERPLE's formula allows a power-law edge over ALiBi's flattest
# line, yet every trained head penalises each tested key more (checked in
# test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head)
# read r211: the takeaway left the learner with a paradox (more penalty everywhere, yet more far passkeys); the main
# line resolves it with the row's normalisation and the per-seed shares of the key 496 back (the appendix asserts
# 10.9, 11.5, 0.15, 6.6 and 9.0 parts in 10 000 against ALiBi's 6.5: above it in seeds 0, 1, 3 and 4; read r213
# found r212's 'three of five' false, as seed 3's 6.6 is above 6.5 too, by 1.7 %; read r214 found 'four of five' at
# odds with the block's "about as much in seed 3": the main line now says both, in the block's words, at equal
# content scores (the appendix asserts seeds 0, 1 and 4 above 1.3 times ALiBi's share and seed 3 within 5 %)
# structural pass 217 (supersedes r211's decision to hold this paragraph on the main line; a hardest place in every
# read): the counter-fact and this paragraph are a collapsed block of their own (kerple_alibi_block), right after the
# result; the main line keeps the result and one plain sentence, unsettled_217: the block's "Five seeds do not show
# that this explains KERPLE's lead." and the section block's "What does explain KERPLE's lead is not measured here."
# (checked in test_kerple_sections_power_law_argument_does_not_explain_the_far_passkey_lead)
# fix pass 219 (read r218 #3): after the two sentences that cut the link, the general lesson the block below supports
# (its "Softmax shares each row's weight among its keys, though, so a head that is steep near the query can still leave
# a far key more weight", and the measures block's "a key's share of the weight depends on its bias against every key
# in the row"): softmax's share of a key is e^b_j / sum_k e^b_k, which changes when any other key's bias changes, with
# the key's bias against the query's own token held fixed (test_a_far_keys_share_depends_on_every_key_in_the_row)
row_lesson_219 = (
    "Yet a far key's weight depends on its bias against every key in the row, not just the query's own token."
)
unsettled_217 = (
    "These five seeds do not settle why KERPLE finds more far passkeys; the block below compares the two methods'"
    " heads."
)
kerple_alibi_block = "<summary>Comparing trained KERPLE heads with ALiBi's heads</summary>"
# fix pass 220 (read r219 #1, hardest place in every read): said once on the main line, in one sentence after the
# result: the measured fact (every trained head's bias below ALiBi's flattest line at every distance 1 to 511, checked
# in test_the_main_line_cuts_the_link_from_kerples_slow_fade_to_its_far_passkey_lead) and what it rules out. "Penalises
# a key more", not "steeper": at 511 some heads' local slope is below 1/256 (test_every_trained_kerple_head_penalises_
# each_key_more_than_alibis_flattest_head). row_lesson_219 and the unsettled sentence open the block instead
slow_fade_220 = (
    "At every tested distance, each trained KERPLE head penalises a key more than ALiBi's flattest head does, so the"
    " KERPLE section's slow fade does not explain KERPLE's lead on far passkeys."
)
unsettled_220 = (
    "These five seeds do not settle why KERPLE finds more far passkeys; this block compares the two methods' heads."
)
# fix pass 221 (read r220 #1): slow_fade_220's "does not explain" was stronger than the block's evidence (its softmax
# shares of the key 496 back "hint at a link"); the main line keeps the measured fact, as weight against the query's
# own token (e^bias, both biases 0 on the own token: every head's bias below the 1/256 line 1 to 511 back, checked in
# test_the_main_line_cuts_the_link_from_kerples_slow_fade_to_its_far_passkey_lead), and says the question is open.
# The block's opening no longer repeats that question (unsettled_221), and (read r220 #5) its first sentence stands
# alone, without "Yet" (row_lesson_221)
# fix pass 226 (reads r223, r224, r225: the main line left the KERPLE section's lesson and this result as a puzzle):
# one bridge sentence between them, with no numbers: the section's edge needs keys beyond the tested ones (each solved
# log shape crosses ALiBi's flattest line only past 511, the block's crossing_8l, checked in
# test_the_main_line_cuts_the_link_from_kerples_slow_fade_to_its_far_passkey_lead), and a key's share of the row
# depends on the nearer keys too (test_a_far_keys_share_depends_on_every_key_in_the_row); the shares are the block's
# fix pass 243 (reads r240 #1, r241 #2, r242 #1 and r242b #1, the chapter's hardest place four reads running: the
# caveats took back the KERPLE section's lesson with no conclusion): the conclusion first, scoped to the section's
# edge (more weight against the query's own token, which every trained head lacks 1 to 511 back: checked in
# test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head), then the shares (the block's)
# and the open question; a key's share of the row is not that edge, so "does not explain" stays within what is measured
slow_fade_221 = (
    # structural pass 254 (reads r252 #1, r252b #2, r253 #1 and r253b #6: caveats after the table buried the
    # section's result): the main line ends on the paired result and the open question; the edge (no trained KERPLE
    # head's bias above ALiBi's flattest line at any tested distance) and the shares are the first block's, which
    # already says both (kerple_alibi_sentence, row_lesson_221)
    "Why KERPLE finds more far passkeys is not settled here: the first block below compares the two methods' trained"
    " heads."
)
# fix pass 258b (reads r258 #1 and r258b #3: the takeaway named an edge the main line never said was absent, so a
# learner credits KERPLE's lead to the first section's power law): one sentence between the result and the open
# question, as passes 218 and 220 had it (checked in test_every_trained_kerple_head_penalises_each_key_more_than_
# alibis_flattest_head: every trained head's bias below ALiBi's flattest line 1 to 511 back, each solved log shape
# crossing it only past 511)
edge_258 = (
    "At these lengths, every trained KERPLE head still penalises a far key more than ALiBi's flattest head: the power"
    " law's edge from the first section has not set in."
)
# fix pass 264 (reads r263 #2 and r263b #3, unclear: two caveat sentences right after the headline took back the first
# section's lesson): one sentence says the result and the measured fact (every trained head's bias below ALiBi's
# flattest line 1 to 511 back, checked in test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_
# head); the edge not showing is the block's counter_fact, and the open question its not_measured_8l
verdict_264 = (
    "This run does not show why: at these lengths, every trained KERPLE head still penalises far keys more than"
    " ALiBi's flattest head."
)
# fix pass 265 (reads r264 #1 and r264b #3, and r263's two reads, unclear: four reads running found verdict_264 undid
# the KERPLE section's lesson and gave the learner nothing in its place): the main line says only that the question is
# open and where the comparison is; the measured fact (every trained head's bias below ALiBi's flattest line 1 to 511
# back, checked in test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head) is the first
# block's counter_fact, once
verdict_265 = (
    "Why KERPLE finds more far passkeys is not settled here; the first block below compares the trained heads."
)
# fix pass 266 (read r265b #4, unclear: the table gives five-seed means, and "most passkeys" left "most" and "reliably"
# apart only in the block): between the result and the open question, the weak seed in words, no digits (checked in
# test_one_kerple_seed_finds_under_nine_in_ten_passkeys_in_both_columns)
weak_seed_266 = "Still, one KERPLE seed of the five finds fewer than nine in ten passkeys in both columns."
# fix pass 267 (read r266 #4, unclear: caveats stacked on the main line): weak_seed_266 is gone; the block that defines
# the grades says it (mean_only in test_the_section_main_line_defines_its_measures..., checked seed by seed in
# test_one_kerple_seed_finds_under_nine_in_ten_passkeys_in_both_columns)
row_lesson_221 = (
    "A far key's share of the row depends on its bias against every key in the row, not just against the query's own"
    " token."
)
unsettled_221 = "This block compares the two methods' heads."
# fix pass 218 (read r217, a hardest place): the KERPLE section's slow fade on the main line, right after the result,
# was left linked to KERPLE's lead; two sentences cut the link, scoped to ALiBi's flattest head and to the penalty
# (checked in test_the_main_line_cuts_the_link_from_kerples_slow_fade_to_its_far_passkey_lead: every trained head's
# bias below ALiBi's flattest line 1 to 511 back, each solved log shape crossing that line only past 511)
slow_fade_218 = (
    "At every distance tested, each trained KERPLE head penalises a key more than ALiBi's flattest head does."
    " So the KERPLE section's argument, a slow fade that leaves far keys more weight, does not apply at these"
    " distances."
)
takeaway_8l = (
    # fix pass 250 (reads r249 #3 and r249b #1: "weight" named both e^bias against the own token and the share of
    # the row, which read as a contradiction): bias for the first, share for the second
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: the seed counts here and the per-seed shares at the end of
    # the measures block said the same twice): the shares themselves follow, once (share_8l, then closing_8l and
    # link_8l, checked in test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_gentlest_kerple_head)
    "Softmax shares each row's weight among all 512 keys, though, so a head that is steep near the query can still"
    " leave a far key a larger share."
)
takeaway_8l_r271 = (
    "Softmax shares each row's weight among its keys, though, so a head that is steep near the query can still leave a"
    " far key a larger share. At equal content scores, in three of five seeds a KERPLE head leaves the key 496 back a"
    " clearly larger share than ALiBi's flattest head does, and about as large in a fourth. Five seeds do not show"
    " that this explains KERPLE's lead."
)
# the per-seed shares of the key 496 back, once, in the first block (fix pass 272: moved from the measures block)
share_8l = (
    "At equal content scores, the key 496 back gets 6.5 parts in 10,000 of the row's weight under ALiBi's head of slope"
    " 1/256. Under each seed's gentlest KERPLE head, the one that gives that key the largest share, it gets 10.9, 11.5,"
    " 0.15, 6.6 and 9.0 parts in 10,000 in seeds 0 to 4. That is more than ALiBi's in seeds 0, 1 and 4, about as much"
    " in seed 3, and the least in seed 2, the seed under 95 %."
)
# right after the shares: what they do not show
# fix pass 280 (read r276a #2, overstated: "hints at a link" while seed 3 works against it): what five seeds show,
# with seed 3's passkeys 496 back (checked in test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_
# gentlest_kerple_head)
# fix pass 282 (read r278a #3, unclear: the shares' order pointed to a link, then "no clear link" took it back): seed 2
# fits the link, seed 3 does not, then the verdict (seed 2 the least share and the seed under 95 %, seed 3's shares
# within 5 % of each other: checked in test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_
# gentlest_kerple_head)
# fix pass 290 (read r285b #1, overstated: "Seed 2 fits a link" though in seed 2 KERPLE, with a fortieth of ALiBi's
# share, still finds more of these passkeys than ALiBi): seed 2 named as KERPLE's least share and worst seed that still
# beats ALiBi (checked in test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_gentlest_kerple_head)
link_8l = (
    "Seed 2, KERPLE's least share and its worst seed, still finds more of these passkeys than ALiBi; in seed 3 the two"
    " shares are about equal, yet KERPLE finds every one of these passkeys and ALiBi 39 of 64. Five seeds show no"
    " clear link."
)
assert "So read a trained bias from the model" not in takeaway_8l
# read r201: the two measures read as a contradiction; the closing says why both hold (checked in
# test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_gentlest_kerple_head)
closing_8l = (
    # read r202: the block's, with "in most seeds" made exact there (seeds 0, 1 and 4, about as much in seed 3)
    "Where that key's share beats ALiBi's, the keys nearer the query weigh much less in total under that head, against"
    " the query's own token, so less of the row goes to them."
)
# the section's lesson, its second sentence, after the one that sets up chapter 8's run
# read r203: the section opens with its lesson, in plain words, before the terms (filler loss, trigram, passkey) that
# the list below it defines; "predict the text well": KERPLE's loss at 8L is within 0.1 nats of the trigram's;
# "most digits hidden far back": its five-seed mean 496 back is above 90 %; "worse than KERPLE's": FIRE's and CoPE's
# mean losses are above KERPLE's by more than 0.1 nats (checked where lesson_8l is read)
lesson_8l_r264 = (
    "Far past their training length, chapter 8's KERPLE models still predict the filler text well and find most digits"
    " hidden far back."
)
lesson_8l_r272 = (
    # fix pass 226 (read r225 #5: "the text" read as language; it is chapter 8's synthetic filler)
    # fix pass 265 (read r264b #5, unclear: filler, passkey and "digits hidden far back" came before the list that
    # defines them): each glossed at first use, the lesson still first: the filler is the synthetic text the models
    # train on, a passkey a single digit hidden in it and asked for at the end (checked where lesson_8l is read)
    "Far past their training length, chapter 8's KERPLE models still predict their synthetic filler text well. They"
    " also find most passkeys hidden"
    # fix pass 261 (read r261 #2, unfair comparison: finding every digit read as FIRE's and CoPE's strength, while the
    # table's last two models, T5's and the one without position encoding, find every one too: checked below)
    # fix pass 262 (read r262 #1, overstated: the model without position encoding misses two probes outside the
    # table): scoped to the table's two columns, where the four models find every passkey in every seed
    # fix pass 264 (read r263 #1, unclear: "its last two models" came before the table that names them): named, and
    # "all four" worse than KERPLE's (FIRE's, CoPE's, T5's and NoPE's mean losses at 8L: checked where lesson_8l is
    # read)
    # fix pass 272 (read r269a #1, unclear: "every passkey in the table below" still read against the bullet on the
    # model without position encoding's two misses): "in both of the table's columns", where all four find every one
    " far back in it: single digits, asked for at the end of the input. The FIRE and CoPE models find every passkey in"
    " both of the table's columns, as do T5's model and the model without position encoding. But all four predict the"
    " filler text worse than KERPLE's."
)
# fix pass 273 (read r270a #7 and r270b's hardest place, unclear: the section's result was buried; its lesson named
# KERPLE alone): the result first, KERPLE's and ALiBi's losses the two lowest of the table's six (checked where
# lesson_8l is read: loss_means), "most passkeys hidden far back" for both (five-seed means above one half in both
# columns), and all four others worse than both
# fix pass 276 (read r273a #3, unclear: chapter 8's RoPE models fine-tuned at 512 tokens, which the table leaves
# out, score lower losses at 8L than KERPLE's and ALiBi's): "of the six kinds of model in the table below"
# (test_lowest_losses_are_of_the_tables_six_kinds_of_model)
lesson_8l = (
    "Far past their training length, chapter 8's KERPLE and ALiBi models keep the lowest losses of the six kinds of"
    " model in the table below, on their synthetic filler text. They also find most passkeys hidden far back in it:"
    " single digits, asked for at the end of the input. The FIRE and CoPE models find every passkey in both of the"
    " table's columns, as do T5's model and the model without position encoding. But all four predict the filler text"
    " worse than KERPLE's and ALiBi's models do."
)
lesson_8l_r275 = (
    "Far past their training length, chapter 8's KERPLE and ALiBi models keep the lowest losses on their synthetic"
    " filler text."
)
lesson_8l_r261 = (
    "The FIRE and CoPE models find every passkey in the table below, as its last two models do, but predict the text"
    " worse than KERPLE's."
)
lesson_8l_r202 = (
    "There, KERPLE keeps a low loss and finds most far passkeys, while FIRE and CoPE find every passkey at a higher"
    " loss."
)
# the paragraph of that section's block that says why the KERPLE section's argument does not explain KERPLE's lead on
# far passkeys (read r183: without it a learner credits the lead to the KERPLE section's power law, which keeps more
# far weight only beyond the tested lengths; read r186: on the main line it undid the first section's lesson in one
# sentence, so it sits in the block; read r192: the main line states the counter-fact, so the block gives its
# numbers, once, where the appendix's per-seed box used to repeat them, and says what is not known at its end)
power_law_not_why = (
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: said in both of the section's blocks): once, in the first
    # block, with the first block's steeper start joined to it (every solved log shape's r1 r2 above 1/256, checked in
    # test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head)
    "ALiBi's flattest head here has slope 1/256. The KERPLE section's argument needs more weight on a far key against"
    " the query's own token. Yet each trained KERPLE head falls faster than that head's line near the query, and no"
    " trained KERPLE head's bias lies above that line at any distance tested: at 511 back, each of the 40 heads has a"
    " bias of \u22122.4 or lower, against the line's \u22122."
)
# the block's crossing, right after that paragraph's numbers
crossing_8l = (
    "Beyond the tested lengths, their log shapes would cross that line and keep more weight against the query's own"
    " token, the earliest at about 650 tokens back."
)
not_measured_8l = "What does explain KERPLE's lead is not measured here."


def test_section_8l_lesson_holds_on_the_saved_run():
    """Fix pass 279 (reads r275a #3 and r275b #1): the lesson after chapter 8's table (lesson_279), on the saved run
    at 8L, the table's length: KERPLE's and ALiBi's mean filler losses within a tenth of a nat of the trigram's, 0.72
    ("nearly as well as a trigram model"); the other four kinds of model find every passkey in both columns in every
    seed, each at a mean loss above both KERPLE's and ALiBi's; only KERPLE is within that tenth and at 95 % or more in
    both columns on its mean; one KERPLE seed of five is under 95 % in both columns."""
    from posenc.experiments import summarize

    _, flat, main = _chapter_views()
    assert main.count(lesson_279) == 1 and main.count(setup_279) == 1
    config, full, _, _ = saved_run()
    n = config["eval_lengths"][-1]
    assert n == 8 * config["train_length"] and config["train_length"] == 64  # the set-up's $L = 64$ and $8L$
    names = ("kerple", "alibi", "fire", "cope", "t5", "none")
    loss = {m: summarize(full, "loss_beyond")[m][n][0] for m in ("trigram", *names)}
    assert f"{loss['trigram']:.2f}" == "0.72"
    assert all(loss[m] - loss["trigram"] < 0.1 for m in ("kerple", "alibi"))
    others = names[2:]
    assert all(v == 1 for m in others for column in far_and_random(m) for v in column)
    assert all(loss[m] > max(loss["kerple"], loss["alibi"]) + 0.1 for m in others)
    both = [
        m
        for m in names
        if loss[m] - loss["trigram"] < 0.1 and all(statistics.mean(c) >= 0.95 for c in far_and_random(m))
    ]
    assert both == ["kerple"]
    # fix pass 280 (read r276a #6, unclear: "does well in both measures" named grades defined only in a block): the
    # lesson states the grades that `both` computes, in plain words
    assert (
        "Only KERPLE, on its five-seed mean, is within 0.1 nats of the trigram and finds 95 % or more"
        in lesson_279_r280
    )
    # fix pass 281 (reads r277a #1 and r277b #3): the two bullets and the conclusion; "the other four do not" come
    # within 0.1 nats; KERPLE at 95 % or more on its mean in both columns, "ALiBi fewer": under 95 % and under
    # KERPLE's mean in each column
    assert lesson_279_r280 not in flat and open_279_r280 not in flat
    assert "doing well means a loss within 0.1 nats of the trigram's; only KERPLE and ALiBi do." in lesson_279
    assert all(loss[m] - loss["trigram"] >= 0.1 for m in others)
    # fix pass 286 (read r281a #6): "every model but ALiBi does", on the five-seed means of both columns
    assert "doing well means finding 95 % or more in both columns; every model but ALiBi does." in lesson_279
    assert [m for m in names if any(statistics.mean(c) < 0.95 for c in far_and_random(m))] == ["alibi"]
    kerple_means = [statistics.mean(c) for c in far_and_random("kerple")]
    alibi_means = [statistics.mean(c) for c in far_and_random("alibi")]
    assert all(v >= 0.95 for v in kerple_means)
    assert all(a < 0.95 and a < k for a, k in zip(alibi_means, kerple_means))
    # fix pass 288 (read r283a #4, overstated, mild): "narrowly", each KERPLE mean under 3 points above the bar
    assert (
        "So only KERPLE does well at both, narrowly, on its five-seed mean; one of its seeds finds under 95 %."
        in lesson_279
    )
    assert all(0 <= v - 0.95 < 0.03 for v in kerple_means)  # 97.2 % and 97.5 %
    per_seed_columns = list(zip(*far_and_random("kerple")))
    assert len(per_seed_columns) == 5 and sum(max(c) < 0.95 for c in per_seed_columns) == 1


def far_and_random(name):
    """Passkeys found 496 tokens back, and at random distances at 8L, per seed."""
    config, *_ = saved_run()
    return (
        per_seed(name, "passkey_by_distance", config["distances"][-1]),
        per_seed(name, "passkey", config["eval_lengths"][-1]),
    )


def worst_fixed(name):
    """Per seed: the lowest passkey accuracy over the fixed distances."""
    _, full, seeds, _ = saved_run()
    return [min(full["metrics"][name][s]["passkey_by_distance"].values()) for s in seeds]


def test_lowest_losses_are_of_the_tables_six_kinds_of_model():
    """The section on chapter 8's experiment opens: "Far past their training length, chapter 8's KERPLE and ALiBi
    models keep the lowest losses of the six kinds of model in the table below" (fix pass 276, read r273a #3: without
    the scope, the sentence read against chapter 8's RoPE models fine-tuned at 512 tokens, which the saved run holds
    and the table leaves out, and whose five-seed mean losses at 8L are lower than both)."""
    text, flat, main = _chapter_views()
    # fix pass 279 (reads r275a #3 and r275b #1): lesson_8l gave way to the set-up and lesson_279; the table below
    # still lists the six kinds of model, with KERPLE's and ALiBi's the lowest two losses
    assert lesson_8l not in flat and lesson_8l_r275 not in flat and main.count(lesson_279) == 1
    section = main[main.index("## In chapter 8's experiment") : main.index("## What this scale")]
    header = "| method, mean of five seeds |"
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cell = next(
        "".join(c["source"])
        for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        if "".join(c["source"]).startswith("## In chapter 8's experiment")
    )
    lines = cell.split("<details>")[0].splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith(header))
    table_lines = []
    for line in lines[at + 2 :]:  # after the header and its rule
        if not line.startswith("|"):
            break
        table_lines.append(line)
    labels = [line.split("|")[1].strip() for line in table_lines]
    rows_named = {
        "KERPLE, log shape": "kerple",
        "ALiBi": "alibi",
        "FIRE": "fire",
        "CoPE": "cope",
        "T5": "t5",
        "no position encoding": "none",
    }
    assert labels == list(rows_named)  # the table's six kinds of model
    config, full, seeds, _ = saved_run()
    n = config["eval_lengths"][-1]
    assert n == 8 * config["train_length"]
    mean = {m: statistics.mean(loss_8L(m)) for m in full["metrics"] if m != "learned"}  # learned: no loss past L
    six = sorted(rows_named.values(), key=mean.get)
    assert six[:2] == ["kerple", "alibi"]  # the lowest two of the six
    # the saved run's fine-tuned RoPE models, further trained at 512 tokens, score lower at 8L; they are not in the
    # table, so the scope is needed
    tuned = [m for m in full["metrics"] if m.endswith(" ft")]
    assert tuned == ["rope ft", "rope+pi ft", "rope+yarn ft"] and config["finetune"]["length"] == n
    assert all(mean[m] < mean["kerple"] < mean["alibi"] for m in tuned)
    table = "\n".join(lines[at : at + 2] + table_lines)
    assert "RoPE" not in table and "fine-tuned" not in table and " ft" not in table and header in section


def test_kerple_and_alibi_stay_within_003_nats_of_the_trigram():
    """ "Both stay within 0.03 nats of the trigram's 0.72 at $2L$, $4L$ and $8L$ in every seed." """
    config, _, seeds, _ = saved_run()
    for n in config["eval_lengths"][1:]:
        trigram = per_seed("trigram", "loss_beyond", n)
        for m in ("kerple", "alibi"):
            assert all(abs(a - t) < 0.03 for a, t in zip(per_seed(m, "loss_beyond", n), trigram)), (m, n)
    assert f"{sum(loss_8L('trigram')) / len(seeds):.2f}" == "0.72"


def test_kerple_is_lower_than_alibi_in_4_of_5_seeds_by_at_most_003():
    """ "Paired per seed, KERPLE is lower ... in 4 of 5 at $8L$, by at most 0.03 nats" """
    diff = [a - b for a, b in zip(loss_8L("kerple"), loss_8L("alibi"))]
    assert len(diff) == 5 and sum(d < 0 for d in diff) == 4
    assert max(abs(d) for d in diff) < 0.03


def test_kerple_finds_more_passkeys_496_back_than_alibi_by_5_to_25_of_64():
    """ "KERPLE finds more far passkeys: 5 to 25 more of 64 probes 496 tokens back" """
    config, *_ = saved_run()
    (kerple, _), (alibi, _) = far_and_random("kerple"), far_and_random("alibi")
    probes = config["distance_batch"]
    margins = [round((k - a) * probes) for k, a in zip(kerple, alibi)]
    assert config["distances"][-1] == 496 and probes == 64
    assert min(margins) > 0 and (min(margins), max(margins)) == (5, 25)


def test_kerple_margin_at_random_distances_is_3_to_19_of_128():
    """ "and 3 to 19 more of 128 at random distances" """
    _, full, _, _ = saved_run()
    (_, kerple), (_, alibi) = far_and_random("kerple"), far_and_random("alibi")
    batch = full["config"]["eval_batch"]
    margins = [round((k - a) * batch) for k, a in zip(kerple, alibi)]
    assert batch == 128 and all(k > a for k, a in zip(kerple, alibi))
    assert (min(margins), max(margins)) == (3, 19)


def test_within_a_seed_kerple_and_alibi_answer_the_same_probes():
    """ "Both models answer the same probes, so each margin is a paired count." """
    import posenc.experiments.passkey as passkey

    config, *_ = saved_run()
    calls = []
    record = lambda *a, **kw: calls.append((kw["length"], kw["seed"], kw.get("distance"))) or 0.5  # noqa: E731
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(passkey, "evaluate_passkey", record)
        mp.setattr(passkey, "evaluate_lm", record)
        by_model = []
        for position in ("alibi", "kerple"):
            calls.clear()
            model = type("Model", (), {"position": position})()
            passkey._evaluate_all(model, None, config, seed=3)
            by_model.append(list(calls))
    assert by_model[0] == by_model[1] and len(by_model[0]) > len(config["distances"])


def test_kerple_keeps_the_passkeys_on_average_and_alibi_does_not():
    """KERPLE finds 98 % of the passkeys at random distances, its worst seed 89 %; ALiBi's mean is under chapter 8's
    bar of 95 %, and it finds fewer 496 back than 8 back (the appendix printout; "ALiBi misses far passkeys")."""
    config, _, seeds, _ = saved_run()
    (_, kerple), (alibi_far, alibi) = far_and_random("kerple"), far_and_random("alibi")
    assert sum(kerple) / len(seeds) >= 0.95 > sum(alibi) / len(seeds)
    kerple_far, _ = far_and_random("kerple")  # "finds, on the five-seed mean, 95 % or more": 496 back too
    assert len(kerple_far) == len(seeds) == 5 and sum(kerple_far) / len(seeds) >= 0.95 > min(kerple_far)
    assert round(100 * min(kerple)) == 89 and sum(v < 1 for v in kerple) == 2
    near = per_seed("alibi", "passkey_by_distance", config["distances"][0])  # 8 tokens back
    assert all(a < b for a, b in zip(alibi_far, near))
    _, full, _, _ = saved_run()
    missed_at = {
        m: {int(d) for s in seeds for d, v in full["metrics"][m][s]["passkey_by_distance"].items() if v < 1}
        for m in ("kerple", "alibi")
    }  # both miss passkeys, and only beyond L
    assert all(missed_at.values()) and min(min(v) for v in missed_at.values()) > config["train_length"]


def test_fire_and_cope_find_every_passkey_nope_in_4_of_5_seeds_kerple_and_alibi_in_fewer():
    """ "Like T5, they find every passkey, at random and at each fixed distance. NoPE does in 4 of 5 seeds: it misses
    1 of 64 probes 384 tokens back, in one seed. KERPLE and ALiBi do in fewer seeds" (the appendix's box), and the
    table's FIRE and CoPE rows, every passkey found (every seed, every distance) in both passkey columns; the main
    line's table carries the measured numbers only, the box the grades."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text, flags=re.S)
    assert "| FIRE | 0.95 nats | 100 % | 100 % |" in main and "| CoPE | 1.44 nats | 100 % | 100 % |" in main
    assert "| T5 | 2.67 nats | 100 % | 100 % |" in main  # fix pass 240: T5's row, its loss from the saved run below
    assert main.index("| CoPE | 1.44 nats") < main.index("| T5 | 2.67 nats") < main.index("| no position encoding |")
    config, full, seeds, _ = saved_run()
    n = config["eval_lengths"][-1]
    assert f"{sum(per_seed('t5', 'loss_beyond', n)) / len(seeds):.2f} nats" == "2.67 nats"  # the row's mean
    every_both = {
        m: sum(min(full["metrics"][m][s]["passkey"][str(n)], worst) == 1 for s, worst in zip(seeds, worst_fixed(m)))
        for m in ("alibi", "kerple", "fire", "cope", "t5", "none")
    }
    assert len(seeds) == 5 and every_both == {"alibi": 0, "kerple": 2, "fire": 5, "cope": 5, "t5": 5, "none": 4}
    probes = config["distance_batch"]
    lost = sum(
        round((1 - v) * probes) for s in seeds for v in full["metrics"]["none"][s]["passkey_by_distance"].values()
    )
    assert lost == 1  # NoPE misses one probe in all
    assert all(v == 1 for m in ("fire", "cope", "t5", "none") for v in per_seed(m, "passkey", n))
    assert all(v == 1 for m in ("fire", "cope") for s in seeds for v in full["metrics"][m][s]["passkey"].values())
    every_fixed = {m: sum(v == 1.0 for v in worst_fixed(m)) for m in ("alibi", "kerple", "none")}
    assert every_fixed["none"] == len(seeds) - 1 and min(worst_fixed("none")) == 1 - 1 / probes
    assert max(every_fixed["kerple"], every_fixed["alibi"]) < every_fixed["none"]


def test_fire_cope_t5_and_nope_losses_rise_with_length_in_every_seed():
    """ "Their loss beyond $L$ rises with length." (FIRE's and CoPE's; T5's and NoPE's too)"""
    config, *_ = saved_run()
    for m in ("fire", "cope", "t5", "none"):
        assert all(a < b < c for a, b, c in zip(*(per_seed(m, "loss_beyond", n) for n in config["eval_lengths"][1:])))


def test_fire_loss_at_8L_is_above_kerples_and_below_copes_and_copes_below_t5_and_nope():
    """ "FIRE's loss at $8L$ is more than 0.1 nats above KERPLE's and below CoPE's, and CoPE's below T5's
    and NoPE's." """
    fire, cope, kerple = loss_8L("fire"), loss_8L("cope"), loss_8L("kerple")
    assert all(c > k for c, k in zip(cope, kerple))
    assert all(f > k + 0.1 for f, k in zip(fire, kerple))
    assert all(f < c for f, c in zip(fire, cope))
    assert all(c < min(t, n) for c, t, n in zip(cope, loss_8L("t5"), loss_8L("none")))


def test_raised_losses_stay_below_uniform_guessing_and_nope_ends_near_ln_16():
    """The verdict "loss raised" for FIRE, CoPE (the section's table), T5 and NoPE (the appendix's numbers) in every
    seed, and the section's box: "It *breaks* when it is worse than guessing uniformly among the 28 tokens, above
    $\\ln 28 \\approx 3.33$ nats, and is *raised* in between. No model in the table breaks." NoPE's loss ends near
    that of guessing uniformly among the filler's 16 symbols, ln 16 = 2.77 nats: the section box's "within a tenth of
    a nat of $\\ln 16 \\approx 2.77$ nats, that of a uniform guess among the 16 filler symbols, in every seed"."""
    _, _, seeds, corpus = saved_run()
    trigram = loss_8L("trigram")
    assert corpus.n_tokens == 28 and f"{math.log(corpus.n_tokens):.2f}" == "3.33"
    assert all(
        t + 0.1 < a < math.log(corpus.n_tokens)
        for m in ("fire", "cope", "t5", "none")
        for a, t in zip(loss_8L(m), trigram)
    )
    table = ("kerple", "alibi", "fire", "cope", "none")  # the section's table: none breaks, in any seed
    assert all(a < math.log(corpus.n_tokens) for m in table for a in loss_8L(m))
    assert abs(sum(loss_8L("none")) / len(seeds) - math.log(corpus.vocab_size)) < 0.05
    assert all(abs(a - math.log(corpus.vocab_size)) < 0.1 for a in loss_8L("none"))
    text = chapter_markdown("11_learned_position")
    assert "without position encoding is within a tenth of a nat of $\\ln 16 \\approx 2.77$ nats" in text
    assert "that of a uniform guess among the 16 filler symbols, in every seed" in text
    assert "No model in the table breaks." in text


def test_the_trigram_sits_003_nats_above_ln_2_and_kerple_lands_below_it_in_most_seeds():
    """ "It sits about 0.03 nats above the floor of $\\ln 2$ nats per filler symbol" and "a trained model can
    land below it, as KERPLE does in most seeds." """
    trigram, kerple = loss_8L("trigram"), loss_8L("kerple")
    assert all(0.025 < t - math.log(2) < 0.035 for t in trigram)
    assert 2 * sum(k < t for k, t in zip(kerple, trigram)) > len(trigram)


def test_the_sections_table_at_8L_matches_the_saved_run():
    """The section's table "At $8L$, mean of five seeds" (KERPLE, ALiBi, FIRE, CoPE) and the appendix box's T5 and NoPE
    ("theirs are 2.67 and 2.79 nats"): each method's mean filler loss; the passkeys found at random distances, mean
    (the table's column "passkeys found at random distances"; "KERPLE finds 98 % on average and ALiBi 91 %") and
    worst seed; FIRE's and CoPE's losses at $8L$ stay below T5's
    and NoPE's."""
    from posenc.experiments import summarize

    config, full, _, _ = saved_run()
    n = config["eval_lengths"][-1]
    beyond, passkey = summarize(full, "loss_beyond"), summarize(full, "passkey")
    assert f"{beyond['trigram'][n][0]:.2f}" == "0.72"
    for name, said, keys, worst in (
        ("kerple", 0.72, 98, 89),
        ("alibi", 0.73, 91, 84),
        ("fire", 0.95, 100, 100),
        ("cope", 1.44, 100, 100),
        ("t5", 2.67, 100, 100),
        ("none", 2.79, 100, 100),
    ):
        assert abs(beyond[name][n][0] - said) < 0.005, name
        assert f"{100 * passkey[name][n][0]:.0f}" == str(keys), name
        assert f"{100 * passkey[name][n][1]:.0f}" == str(worst), name
    assert max(beyond[m][n][2] for m in ("fire", "cope")) < min(beyond[m][n][1] for m in ("t5", "none"))


def learned_heads(name, n):
    """(seed, layer, head) -> the bias the last query of n tokens gives each distance, in the saved run."""
    _, full, seeds, _ = saved_run()
    return {
        (s, layer, h): values
        for s in seeds
        for layer, by_head in enumerate(full["metrics"][name][s]["learned_bias"][str(n)])
        for h, values in enumerate(by_head)
    }


def log_r2(b1, b2):
    """r2 of -r1 log(1 + r2 d) from b(1) and b(2), by bisection: log(1 + 2 r2) / log(1 + r2) falls from 2 to 1."""
    lo, hi = 1e-6, 1e3
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if math.log1p(2 * mid) / math.log1p(mid) > b2 / b1 else (lo, mid)
    return mid


def test_kerple_penalty_passes_1_at_distance_1_and_about_8_at_63_in_most_heads():
    """ "In 28 of 40 heads the bias is below −1 already at distance 1 ... In 35 of 40 heads it is below −3 by
    distance 63, about −8 in the median head." """
    config, *_ = saved_run()
    L = config["train_length"]
    kerple = learned_heads("kerple", config["eval_lengths"][-1])
    assert len(kerple) == 40
    assert sum(v[1] < -1 for v in kerple.values()) == 28 and sum(v[L - 1] < -3 for v in kerple.values()) == 35
    assert -9 < torch.tensor([v[L - 1] for v in kerple.values()]).median().item() < -7


def test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head():
    """Chapter 8's section's block (read r192: said there once; the appendix's per-seed box points to it): "ALiBi's
    flattest head here has slope 1/256. The KERPLE section's argument needs more weight on a far key against the
    query's own token. Yet no trained KERPLE head's bias lies above that head's line at any distance tested: at 511
    back, each of the 40 heads has a bias of -2.4 or lower, against the line's -2." Then "Beyond the tested lengths,
    their log shapes would cross that line ..., the earliest at about 650 tokens back." (checked in
    test_kerple_log_shapes_cross_alibis_flattest_line_about_650_back), then "That crossing alone does not say why
    KERPLE finds more passkeys: a key's share of the weight depends on its bias against every key in the row."
    (Softmax is unchanged by a constant added to every logit, checked below.) The main line states the counter-fact
    (test_kerple_sections_power_law_argument_does_not_explain_the_far_passkey_lead). Each of the 40 heads' saved
    biases from the last of 512 tokens, at every distance 1 to 511, lies below ALiBi's flattest line in chapter 8's
    4-head model, slope 1/256 (by 0.17 or more; the saved biases are rounded to 1e-4). "Penalises more", not
    "steeper": at 511 some heads' local slope is below 1/256 and others' above it."""
    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    flat = " ".join(text.split())
    # read r192: said once, in chapter 8's section's block, where the appendix's per-seed box pointed to it
    # fix pass 272: "that line", ALiBi's flattest head's, named in the sentence before (power_law_not_why)
    assert "no trained KERPLE head's bias lies above that line at any distance tested" in flat
    assert "No trained KERPLE head's bias lies above ALiBi's flattest line" not in flat
    paragraph = (
        "That crossing alone does not say why KERPLE finds more passkeys: a key's share of the weight depends on its"
        " bias against every key in the row."
    )
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: the analysis was said in both blocks): one copy, in the first
    # block, whose opening row_lesson_221 already says what this paragraph said; the shares follow the crossing
    assert paragraph not in flat and "The KERPLE section's lesson is about" not in text
    # the block's caveat, not an inference: a trained head's bias lies below ALiBi's flattest line, yet 9 of the 40
    # heads fall less than that line from 256 to 496 back, so the level does not rule the log shape out as a cause
    sentence = power_law_not_why
    assert "does not explain these passkeys" not in text
    # what the passkey column can show, about the task (the NoPE sentence stays in the block): test_passkey_column_
    # credits_no_encoding_for_a_find. Read r178: the reading rule comes before the table, the caveat goes to the block;
    # read r191: the passkey's definition carries it, and the rule itself is the block's
    column = passkey_defined
    # read r192: the KERPLE paragraphs close the block, so the pointer "The end of this block shows why ..." is gone
    caveat = "The end of this block shows why comparing their penalty curves alone cannot tell."
    assert caveat not in flat
    # once, in the section's block, off the main line: the numbers, the crossing, then why the crossing cannot tell
    assert sentence not in main and flat.count(sentence) == 1
    # fix pass 279 (reads r275a #3 and r275b #1): the set-up, the table, then the lesson; the passkey's definition
    # (column) and the table's caption left the main line, the result opens the first block
    assert column not in flat and caption_8l not in flat and main.count(result_paired_279) == 0
    assert main.index(setup_279) < main.index("| KERPLE, log shape |") < main.index(lesson_279)
    assert collapsed(flat, "Comparing trained KERPLE heads with ALiBi's heads").count(result_paired_279) == 1
    in_block = crossing_8l
    # once, in the block, just before the paragraph that refers to it ("That crossing")
    assert flat.count(in_block) == 1 and in_block not in main
    assert flat.index(f"{sentence} {counter_fact} {in_block} {takeaway_8l}") >= 0
    # fix pass 279 (reads r275a #4 and r275b #2): the crossing about 650 back is on this section's main line once, in
    # the KERPLE section's words (crossing_279)
    assert "Up to 511 tokens back" not in flat and "comes late" not in flat
    # fix pass 280 (reads r276a #3 and r276b #1): the main line ties the 511 to the open question (open_279); the
    # crossing about 650 back is the blocks' (crossing_8l here, kerple_crossing_279 in the KERPLE section's block)
    assert _ch8_main(main).count("650") == 0 and _ch8_main(main).count(open_279) == 1
    # fix pass 285 (reads r280a #1 and r280b #2): the 511 sentence moved into the first block (edge_285)
    assert "up to 511 tokens back" in edge_285 and crossing_279 not in main and edge_285 not in main
    # the main line says it, once (structural pass 217: in unsettled_217, not the counter-fact, now the block's)
    # fix pass 220: in the block's opening (unsettled_220), off the main line
    # fix pass 221 (read r220 #1): on the main line, once (slow_fade_221); the block no longer repeats it
    # fix pass 264 (reads r263 #2 and r263b #3): verdict_264 says it on the main line, once; the block's "What does
    # explain KERPLE's lead is not measured here." keeps the open question
    # fix pass 265 (reads r264 #1 and r264b #3): verdict_265 on the main line, once; the measured fact is the first
    # block's counter_fact, once, off the main line
    # fix pass 273 (read r270a #7): the open question opens the first block (unsettled_273); the main line ends on the
    # conclusion, grades_8l
    # fix pass 279 (reads r275a #3 and r275b #1): grades_8l moved to the measures block
    assert verdict_265 not in flat and grades_8l not in main and flat.count(grades_8l) == 1 and verdict_264 not in flat
    assert grades_8l in collapsed(flat, "How the measures are scored, and what is not tested")
    # fix pass 274 (read r271a #1): the open question back on the main line, after the edge it follows from (open_274);
    # the first block no longer opens on it
    # fix pass 279 (reads r275a #3 and r275b #1): the edge is the first block's (power_law_not_why, counter_fact); one
    # main-line sentence points there (open_279)
    assert unsettled_273 not in flat and open_274 not in flat and edge_274 not in flat and main.count(open_279) == 1
    assert slow_fade_221 not in flat and edge_258 not in flat
    assert flat.count(counter_fact) == 1 and counter_fact not in main
    assert counter_fact in collapsed(flat, "Comparing trained KERPLE heads with ALiBi's heads")
    assert unsettled_220 not in flat and unsettled_217 not in flat and flat.count(unsettled_221) == 1
    assert "Why KERPLE finds more far passkeys than ALiBi is not tested here." not in text  # said once, as above
    assert "lies below ALiBi's flattest head's line" not in flat  # not repeated in the block
    assert "steeper than ALiBi's flattest" not in flat  # near 511 a log head's slope is the gentler one (below)
    logits = torch.randn(7, dtype=torch.float64)
    torch.testing.assert_close(torch.softmax(logits - 3.0, -1), torch.softmax(logits, -1))
    # in the section's first block, after the table (on the main line) and the results it explains (fix pass 272:
    # the first block, which compares the trained heads; the measures block no longer repeats it)
    block = flat.index(kerple_alibi_block)
    assert flat.index("## In chapter 8's experiment") < flat.index("| KERPLE, log shape |") < block
    assert block < flat.index(sentence) < flat.index("</details>", block)  # in the block, after the table it reads
    assert caption_8l not in flat  # fix pass 279 (reads r275a #3 and r275b #1): the set-up leads to the table
    assert block < flat.index(in_block) < flat.index(takeaway_8l) < flat.index("</details>", block)
    assert sentence not in collapsed(flat, "How the measures are scored, and what is not tested")
    config, *_ = saved_run()
    n = config["eval_lengths"][-1]
    assert n == max(config["eval_lengths"]) == 8 * config["train_length"] == 512  # the table's 8L
    slope = alibi_slopes(config["model"]["n_heads"])[-1].item()
    assert slope == 1 / 256
    kerple = learned_heads("kerple", n)
    assert len(kerple) == 40 and all(len(v) == n for v in kerple.values())
    assert all(v[d] < -slope * d - 0.1 for v in kerple.values() for d in range(1, n))  # every key 1 to 511 back
    # fix pass 274: edge_274's "no trained KERPLE head's bias rises above the line of ALiBi's flattest head, up to 511
    # tokens back": the check above, 1 to n - 1 = 511 back, the farthest key of the longest tested input
    assert n - 1 == 511 and "up to 511 tokens back" in edge_274
    # fix pass 279 (reads r275a #4 and r275b #2): crossing_279's "never catch up with that chapter's flattest ALiBi head
    # within its inputs, up to 511 tokens back", on both sections' main lines: the same check (its "about 650 back" is
    # test_kerple_log_shapes_cross_alibis_flattest_line_about_650_back's)
    assert "up to 511 tokens back" in crossing_279
    # the block's numbers: "at 511 back, each of the 40 heads has a bias of -2.4 or lower, against the line's -2"
    assert round(max(v[n - 1] for v in kerple.values()), 1) == -2.4 and round(-slope * (n - 1), 1) == -2.0
    # "penalises more", the bias below the line, and not "steeper": at 511 the solved log shape's local slope,
    # r1 r2 / (1 + r2 d), is below ALiBi's 1/256 in some heads and above it in others
    local = [
        r1 * r2 / (1 + r2 * (n - 1))
        for r1, r2 in ((-v[1] / math.log1p(r), r) for v in kerple.values() for r in [log_r2(v[1], v[2])])
    ]
    assert min(local) < slope < max(local)
    # the main line's "falls faster than ALiBi's flattest line near the query": each solved log shape's slope at
    # distance 0, r1 r2, is above 1/256, and each saved bias is already below the line one key back
    starts = [-v[1] / math.log1p(r) * r for v in kerple.values() for r in [log_r2(v[1], v[2])]]
    assert min(starts) > slope and all(v[1] < -slope for v in kerple.values())
    # the per-head slopes: ALiBi's flattest is the smallest of chapter 8's 4 heads
    assert slope == min(alibi_slopes(config["model"]["n_heads"]).tolist())


def test_kerple_sections_power_law_argument_does_not_explain_the_far_passkey_lead():
    """The section on chapter 8's experiment, in its block (read r183: the main line let a learner credit KERPLE's lead
    on far passkeys to the KERPLE section's "Far enough back, a power law keeps more weight than any exponential";
    read r186: said on the main line, it undid that section's lesson in one sentence, so it is the block's, with what
    is not known said plainly; reads r189-r191: the counter-fact is the main line's, "The KERPLE section's slow fade
    does not explain KERPLE's lead: every trained KERPLE head penalises the key 496 back more than ALiBi's flattest
    head does."; read r192: one more sentence closes it, "The trained heads' fade would pull them ahead of ALiBi's
    flattest head only beyond the lengths tested.", and the block gives the numbers and ends "What does explain
    KERPLE's lead is not measured here."). The lead: KERPLE's five-seed mean 496 back is above ALiBi's. The
    argument compares a key's weight against the query's own token, e^bias. From
    the last of 512 tokens, each of the 40 trained KERPLE heads gives the key 496 back a bias below that of ALiBi's
    flattest head, -496/256 = -1.94 (the highest KERPLE bias there is -2.42), so each keeps less such weight on that
    key, and the argument, which needs more, cannot account for the lead. The sentence names the argument, not the
    log shape: whether the shape helps some other way stays the block's "not tested"."""
    text, flat, main = _chapter_views()
    assert power_law_not_why not in main and flat.count(power_law_not_why) == 1
    # the main line ends on its result: the table's reading, then the section's block
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    # read r188: a learner joined the KERPLE section's far weights to this lead; reads r189-r191 asked for the
    # counter-fact on the main line (r186 had moved it to the block): one sentence names what does not explain the
    # lead, with its measured reason (checked below: every head's bias 496 back is below ALiBi's flattest line); the
    # block keeps what is not known. Read r191: it follows the sentence on the lead it is about, and names the lead
    unknown = counter_fact
    # read r192: the counter-fact left the KERPLE section's lesson hanging; the closing sentence says when that fade
    # would win, beyond the tested lengths (checked below: every solved log shape crosses past 511 back)
    # structural pass 217: the main line ends on the result and unsettled_217; the counter-fact and the softmax
    # paragraph (takeaway_8l) are the next block's, before the section's measures block
    # fix pass 218: slow_fade_218 between the result and unsettled_217
    # fix pass 220 (read r219 #1): the main line ends on the result and one sentence, slow_fade_220; the row's lesson
    # and the unsettled question open the block
    # fix pass 221 (read r220 #1, #5): slow_fade_221 ends the main line; the block opens with row_lesson_221 and
    # unsettled_221
    # fix pass 264 (reads r263 #2 and r263b #3): verdict_264 ends the main line, in place of edge_258 and slow_fade_221
    # fix pass 265 (reads r264 #1 and r264b #3): verdict_265 in place of verdict_264
    # fix pass 266 (read r265b #4): weak_seed_266 between them
    # fix pass 267 (read r266 #4): weak_seed_266 back in the grades' block
    # fix pass 273 (read r270a #7): the main line ends on the counter-fact and the conclusion, grades_8l
    # fix pass 274 (reads r271a #1 and r271b #4): then the edge not showing and the open question, after the result;
    # the weak seed after the grades
    # fix pass 279 (reads r275a #3, #4 and r275b #1, #2): the lesson, the pointer to the first block, then the crossing
    assert " ".join(cells["c29"].split("<details>")[0].split()).endswith(main_8l_279)
    assert weak_seed_266 not in flat
    # fix pass 272 (reads r269a #6 and r269b #3): the measures block's KERPLE-against-ALiBi paragraphs joined this
    # block, the one copy: the bias below the line, what it means, the crossing, then the shares and the open question
    assert (
        # fix pass 279 (reads r275a #3 and r275b #1): the result and the passkey-content sentence open the block
        f"{main_8l_279} <details>{kerple_alibi_block} {result_paired_279} {passkey_miss} {row_lesson_221}"
        f" {unsettled_221}"
        f" {power_law_not_why} {unknown} {crossing_8l} {takeaway_8l} {share_8l} {link_8l} {closing_8l}"
        f" {not_measured_8l} </details>"
        " <details><summary>How the measures are scored" in flat
    )
    for old in (slow_fade_218, unsettled_217, slow_fade_220, unsettled_220, row_lesson_219):
        assert old not in flat, old
    assert "does not explain KERPLE's lead" not in flat  # read r220 #1: stronger than the block's evidence
    assert row_lesson_221 not in main and flat.count(row_lesson_221) == 1
    assert "steeper than ALiBi's flattest" not in flat  # "penalises a key more": at 511 some heads are gentler
    assert unsettled_8l not in main and "What does explain KERPLE's lead is not measured here." in flat
    assert takeaway_8l not in main and flat.count(takeaway_8l) == 1
    assert unknown not in main and flat.count(unknown) == 1
    # fix pass 279 (reads r275a #4 and r275b #2): the crossing about 650 back on the main line once, as crossing_279
    assert closing_8l not in main and flat.count(closing_8l) == 1
    assert _ch8_main(main).count("650") == 0  # fix pass 280 (reads r276a #3 and r276b #1): the blocks' number
    for seed_count in ("three of five", "Softmax shares", "496"):  # the softmax argument is the block's
        assert seed_count not in main[main.index(lesson_279) : main.index("## Takeaways")], seed_count
    assert counter_fact_r202 not in text  # read r203: a 40-word sentence, split in two
    assert counter_fact_r203 not in text  # read r204: overstated, scoped to ALiBi's flattest head
    assert counter_fact_r204 not in text  # read r205: read as undoing the KERPLE section, with no link to it
    # read r199: the main line draws one conclusion; what is not measured, and when the log shapes would cross ALiBi's
    # flattest line, are the block's alone
    assert "is not measured here" not in main and "beyond the lengths tested" not in main
    # read r205: the main line names where the crossing lies, past the tested distances, without its number
    # read r206: scoped to the tested distances, without ruling out a cause
    # read r207: the measured fact first, "at every tested distance", then what it means
    # structural pass 217: the counter-fact is the block's that follows the result (kerple_alibi_block)
    kerple_alibi = flat[flat.index(kerple_alibi_block) : flat.index("</details>", flat.index(kerple_alibi_block))]
    assert f"{power_law_not_why} {counter_fact}" in kerple_alibi  # fix pass 272: the measured fact, then what it means
    assert "penalises a key more at every tested distance" not in main and "would cross" not in main
    assert counter_fact_r207 not in " ".join(text.split())  # read r208: "below" read as the weaker penalty
    assert counter_fact_r205 not in text and "is not the reason here" not in text
    assert counter_fact_r206 not in text  # read r207: not decodable without the block's numbers
    assert "would pull them ahead" not in text and "The trained heads' fade" not in text
    assert flat.count(crossing_8l) == 1
    assert crossing_8l in kerple_alibi  # fix pass 272: in the first block, no longer the measures block
    kerple_section = main[main.index("## KERPLE: a learned shape") : main.index("## FIRE: an MLP")]
    assert "Far enough back, a power law keeps more weight than any exponential." in kerple_section
    assert "does not explain these passkeys" not in text  # the log shape is not ruled out as a cause
    block = kerple_alibi  # fix pass 272: the first block, the one copy of the analysis
    assert power_law_not_why in block and block.rstrip().endswith(not_measured_8l)  # the block's last sentence
    measures = collapsed(flat, "How the measures are scored, and what is not tested")
    assert all(x not in measures for x in (power_law_not_why, crossing_8l, share_8l, closing_8l, not_measured_8l))
    assert flat.count(not_measured_8l) == 1
    config, *_ = saved_run()
    n, far, n_heads = config["eval_lengths"][-1], config["distances"][-1], config["model"]["n_heads"]
    assert (n, far) == (512, 496)
    far_found = {m: statistics.mean(far_and_random(m)[0]) for m in ("kerple", "alibi")}
    assert far_found["kerple"] > far_found["alibi"] + 0.1  # "this lead": 0.97 against 0.76
    flattest = alibi_bias(n_heads, 1, n)[-1, 0].flip(0)[far].item()  # ALiBi's last head, the key 496 back
    assert alibi_slopes(n_heads).min().item() == 1 / 256 and abs(flattest + far / 256) < 1e-5
    kerple = learned_heads("kerple", n)
    assert len(kerple) == 40 and max(v[far] for v in kerple.values()) < flattest - 0.4  # -2.42 against -1.94
    assert max(math.exp(v[far]) for v in kerple.values()) < 0.7 * math.exp(flattest)  # less weight, own token = 1
    # "ALiBi's flattest head keeps more weight on the key 496 back than any trained KERPLE head": above, -1.94 against
    # -2.42 at most; it is the ALiBi head that keeps the most there (the highest of chapter 8's four heads' biases),
    # while ALiBi's steepest head keeps less than every KERPLE head, so the sentence names the flattest, not "ALiBi"
    alibi_far = alibi_bias(n_heads, 1, n)[:, 0].flip(-1)[:, far]  # each of chapter 8's ALiBi heads, 496 back
    assert abs(alibi_far.max().item() - flattest) < 1e-6 and int(alibi_far.argmax()) == n_heads - 1
    assert alibi_far.min().item() < min(v[far] for v in kerple.values())
    # the conclusion, "KERPLE's lead does not come from keeping more such weight on far keys than ALiBi": no head
    # keeps more weight than ALiBi's flattest line at any tested distance (bias below it, 1 to 511 back), and each
    # head's solved log shape crosses that line only past 511, the farthest key of the longest tested input (the
    # block's crossing)
    slope = alibi_slopes(n_heads).min().item()
    # the main line's "At every tested distance, each trained KERPLE head penalises a key more than ALiBi's flattest
    # head does" (counter_fact): 1 to 511 back, the farthest key of the longest tested input; KERPLE's bias depends on
    # the distance alone, so the shorter inputs' distances are among these
    assert all(v[d] < -slope * d for v in kerple.values() for d in range(1, n))
    for v in kerple.values():
        r2 = log_r2(v[1], v[2])
        r1 = -v[1] / math.log1p(r2)
        cross = next(d for d in range(1, 10**5) if r1 * math.log1p(r2 * d) <= slope * d)
        assert cross > n - 1 == max(config["eval_lengths"]) - 1


def test_kerple_penalty_grows_by_less_than_a_factor_of_2_from_63_to_511():
    """ "From 63 to 511 its size grows by less than a factor of 2 in every head, where ALiBi's grows
    eightfold." """
    config, *_ = saved_run()
    L, n = config["train_length"], config["eval_lengths"][-1]
    assert all(1 < v[n - 1] / v[L - 1] < 2 for v in learned_heads("kerple", n).values())


def test_kerple_log_fit_gives_r2_from_047_to_157():
    """ "solving the log shape at distances 1 and 2 gives each head's $r_2$, from 0.47 to 1.57" """
    config, *_ = saved_run()
    L, n = config["train_length"], config["eval_lengths"][-1]
    kerple = learned_heads("kerple", n)
    r2_fit = [log_r2(v[1], v[2]) for v in kerple.values()]
    for v, r2 in zip(kerple.values(), r2_fit):  # the fit reproduces the head's bias far away too
        r1 = -v[1] / math.log1p(r2)
        assert all(abs(-r1 * math.log1p(r2 * x) - v[x]) < 0.01 for x in (L - 1, n - 1))
    assert (f"{min(r2_fit):.2f}", f"{max(r2_fit):.2f}") == ("0.47", "1.57")


def test_t5_far_buckets_stay_near_zero_and_rank_a_far_key_above_the_key_63_back():
    """ "Training pushed the bias of the key 63 back below zero in 39 of 40 heads. The far key, 496 back, gets
    a *higher* bias than the key 63 back in 39 of 40 heads too." """
    config, *_ = saved_run()
    L, far = config["train_length"], config["distances"][-1]
    t5 = learned_heads("t5", config["eval_lengths"][-1])
    assert len(t5) == 40 and sum(v[L - 1] < 0 for v in t5.values()) == 39
    assert sum(v[far] > v[L - 1] for v in t5.values()) == 39
    assert max(abs(v[far]) for v in t5.values()) < 0.1


def test_fire_later_query_gives_every_distance_a_higher_bias():
    """The appendix's box: "Seen from the last query, the farthest key's bias is the same at 64 and 512 tokens. ... From
    the last of 512 tokens the bias is higher at every distance from 1 to 63 in every head, by more than 0.2 logits.
    At distances 8 and 63 it is higher by at least 0.97" and "Every curve falls with distance, at both lengths"
    (queries 63 and 511: only their saved biases are checked, at integer distances: "falls as $u$ grows" claimed
    more, every $u$). The section on chapter 8's experiment: "In every head of chapter 8's FIRE models, a later query
    lifts the bias of every key 1 to 63 back: query 511 gives each a higher bias than query 63 does" (query 511: the
    last of 512 tokens; query 63: the last of 64; 40 heads)."""
    text = chapter_markdown("11_learned_position")
    assert (
        "In every head of chapter 8's FIRE models, a later query lifts the bias of every key 1 to 63 back: query 511"
        " gives each a higher bias than query 63 does." in text
    )
    main = re.sub(r"<details>.*?</details>", " ", text)  # the FIRE section's last sentence: a measurement, pointed to
    # the step from "treats that key as nearer" to "lifts its bias" needs the curves' fall, said on the main
    # line, from the two queries the appendix measures (queries 63 and 511; "every curve falls": rise < -2e-4 there)
    assert "measured in the appendix, a later query lifts the bias" not in text
    # "thus" made a measurement read as a deduction from the starting values: stated as a measurement
    assert "thus gets the higher bias of a nearer key" not in text
    # the fall is stated as a fact of the saved curves, checked below for every head and both queries; "a smaller
    # $u$ gives a higher bias" was a deduction from queries 63's and 511's sample points of u, which needs f monotone
    # between them, so it is gone
    assert "so a smaller $u$ gives a higher bias" not in text
    # read r176: the main line says why the check is needed (training sets c, L_thr and the MLP) and what it shows
    # (on long inputs the trained bias depends on the query's position too, as the takeaways' table says); the method
    # asides, the unrecorded |c| and L_thr and the bound at distance 0, are the block's, with the latter's purpose
    # read r186: the main line read the trained result as following from the starting values (its example echoed the
    # u-figure's), and its "nearer" chain was the section's hardest paragraph. The lesson comes first, then that it is
    # a measurement of the trained heads, then the drawn head and the count; the "nearer" reading and the key-8 example
    # are the block's
    # read r187 (review): "the same distance gets a higher bias from a later query" was wider than the check (queries
    # 63 and 511, distances 1 to 63); the measured sentence names them
    # read r191: the argument ran backwards, from the trained bias to u, with no stated takeaway. The takeaway comes
    # first, then the argument forward: what u does past the threshold, what the MLP can therefore do, what the trained
    # heads show, then the drawn head and the count. Five sentences; "the bias falls with distance" and the "nearer"
    # reading stay the block's
    # read r192: the step from a smaller u to a higher bias needs the premise that the bias falls as u grows; it is
    # stated for what the run measures, queries 63 and 511 (every saved curve falls with distance, checked below, and
    # at a fixed query u grows with distance), and the conclusion says "can": the measurement follows it
    # read r199: the paragraph was a hardest place. Its lesson opens it, in the terms the FIRE section just defined;
    # then the premise, the fall with u in every trained head (checked below), and the conclusion without a hedge, as
    # the measured lift itself (checked below, all 40 heads); then one sentence on why the lift matters, a measured
    # fact: at equal content scores the query's own token and the key one back lose weight (checked below, all 40
    # heads); the guess that links this to FIRE's loss stays the appendix's
    # read r203: the paragraph was a hardest place again: its point, the lost weight, came last. It opens with that
    # point, then the premise, the lift (as that key's u is smaller) and why the two nearest keys lose; the same
    # checks below hold each step (all 40 heads)
    # read r204: the opening stacked two comparisons (later against earlier query, near against far key), and the
    # next sentences restated it. The lift leads, then the own token, then the consequence for the weight, "taken
    # together": the key one back alone can gain share (test_fire_later_query_raises_the_keys_2_to_63_back_more_than_
    # the_two_the_filler_needs); the fall with u, the premise, is the block's
    # read r205: the jump from a smaller u (the FIRE section's figure) to a higher bias needs the premise that links
    # them; it opens the paragraph, scoped to what is checked (every saved curve from queries 63 and 511 falls with
    # distance, rise < -2e-4 below and in the appendix, and at one query u grows with distance), then the lift as its
    # consequence (query 511 lies past the learned threshold: the block's inference, checked in test_fire_higher_
    # biases_from_the_later_query_put_the_threshold_below_511)
    # read r207: "So query 511, which gives each key a smaller u, gives it a higher bias" presented a measurement as
    # derived, and the smaller u is itself inferred from the higher biases (the block). The measured lift comes first
    # (checked below, all 40 heads), then FIRE's rule as its explanation: past a threshold below 511 (the block's
    # inference, test_fire_higher_biases_from_the_later_query_put_the_threshold_below_511) a later query gives each
    # key behind it a smaller u (FireBias, checked below), and the trained bias falls as u grows (every saved curve
    # from queries 63 and 511 falls with distance, below)
    lesson = (
        # read r208 (hardest place): the lesson, the weight moved, opens the paragraph before the numbers; then the
        # measured lift, the own token, and FIRE's rule as a condition ("explains the lift: past a learned threshold
        # below 511" was partly circular: the run does not record the thresholds; the block infers them from the lift)
        # read r209 (hardest place): the lesson, the weight moved, opens the FIRE passage (lesson_r209, the u-rule's
        # paragraph); this paragraph gives the chain in order, one step a sentence, each named as the trained heads':
        # u gets smaller (query 511 lies past each learned threshold: the block's inference, test_fire_higher_biases_
        # from_the_later_query_put_the_threshold_below_511), a smaller u means a larger bias in these trained heads
        # (every saved curve from queries 63 and 511 falls with distance, below), then softmax moves weight from the two
        # nearest tokens, taken together (near_63 against near_511 below, all 40 heads). "falls as u grows" is a
        # property of these trained heads, not of FIRE's rule
        # read r213: the inference's reason in one clause (below the threshold both queries divide by psi(L_thr), so
        # every distance would get the same bias; the saved curves differ: checked in the appendix's test)
        # structural pass 217 (hardest place in every read): the main line gives the measured result only, in every
        # one of the 40 heads (the lift at every distance 1 to 63, the key one back gaining least, the own token
        # unchanged, and the two nearest tokens' lost share: gains, near_63 and near_511 below); the inference (query
        # 511 past each learned threshold, a smaller u, a bias that falls as u grows) is the block's (trained_read)
        # fix pass 218 (read r217, hardest place): the point first, the two nearest tokens' lost share (near_63
        # against near_511 and whole_511 below, all 40 heads: over the same 64 keys and over query 511's whole row),
        # then the measured lift, then why it may matter, the guess the block held (the filler's next symbol depends
        # only on the two tokens before it: test_fire_later_query_raises_the_keys_2_to_63_back_more_than_the_two_the_
        # filler_needs), said as untested. "query 511 ... than query 63", not "a later query": the run saves these two
        # fix pass 219 (read r218 #1): "less weight" held for any encoding, as query 511 shares its row among 512
        # keys and query 63 among 64; the point is scoped to the 64 nearest keys, the share the loop of near_63 and
        # near_511 below measures (over keys 0 to 63 back, all 40 heads: 0.41-0.94 at query 63, 0.24-0.77 at query
        # 511 on the saved run). "than query 63 does": the bias it gives each key 1 to 63 back, distance by distance
        # (gains below)
        # fix pass 224 (read r223 #2: a 35-word opening with four qualifiers, before the idea): the link first, then
        # the measured lift, then the weight moved, in short sentences
        # fix pass 265 (read r264 #2, overstated: "the bias falls as u grows, so a later query's smaller u lifts the
        # bias of each key behind the query" was inferred; the run stores neither |c| nor L_thr, and the saved curves
        # show only that the bias from each of the two queries falls with distance, so with that query's u): scoped
        # to the two queries the run saved, 63 and 511, which the next sentence names (every saved curve falls with
        # distance, and at one query u grows with distance: both checked below, and the run's saved lengths, 64 and
        # 512 tokens, are its only two); the lift itself is the next sentence's, measured
        # fix pass 266 (reads r265 #1 and #2, r265b #2: "the two queries the run saved" was jargon, the fall with u read
        # as observed, and the filler sentence, last, read as the cause of FIRE's loss): a chain in order. Why the two
        # nearest tokens matter (chapter 8's generator, checked below), FIRE's rule (a later query past the threshold
        # gives each key behind it a smaller u: FireBias, test_fire_long_input_puts_the_key_one_back_in_a_gap_inside_
        # the_trained_range), the measured lift from query 511 over query 63 at every distance 1 to 63 (gains below,
        # all 40 heads), the key one back gaining least and the own token keeping its bias, so every key 2 to 63 back
        # gaining more than both (gain below: min(gain[2:]) > max(gain[:2])), then the lost share, and that its effect
        # on FIRE's loss is not measured (the block's guess says "no run here tests it")
        # fix pass 268 (read r267b #2 and r267 #2, overstated: "the two nearest tokens are the ones a model needs"
        # left out the passkey and its markers): scoped to a run of filler, the targets the generator check below reads
        # fix pass 272 (reads r269a #3 and r269b #2, unclear: two of the section's main-line paragraphs argued about
        # chapter 8's trained heads, burying its lesson): the lesson (FIRE's rule past the threshold), the measured
        # lift, the lost share and that its effect is not measured; the chain that gives the share's fall is the
        # block's first paragraph (chain_272, below)
        # fix pass 274 (reads r271a #3 and r271b #2, unclear: the section's idea, a later query's smaller u, is
        # complete in cells 11-12; this paragraph added a second idea, the two nearest tokens' share, with evidence
        # from an experiment the reader meets only later): the main line is the visible check of the idea in the
        # trained models, leading into the figure. "the effect of a later query's smaller u": the saved biases from
        # queries 63 and 511 differ at every distance 1 to 63, so each learned threshold lies below 511 and query 511
        # gives each key a smaller u (the block's inference, test_fire_higher_biases_from_the_later_query_put_the_
        # threshold_below_511; FireBias's MLP sees u alone, checked below with early and late); the lift, at every
        # distance 1 to 63 in all 40 heads and in the head drawn (gains and drawn below); the share is the block's
        # (share_274)
        # fix pass 275 (reads r272a #4 and r272b #3, unclear: the main line showed the lift but not its stake, which
        # only the block gave): one sentence after the lift, the lost share and its size in the head drawn (stake_275:
        # the figure's cell asserts 0.9 and 0.7 on the same saved curves, at equal content scores over keys 0 to 63
        # back; the lowering holds at any content scores, near_63 against near_511 in the appendix's test); the
        # reasoning stays the block's (share_274)
        # fix pass 276 (read r273b #3, unclear: the main line gave the share's size but not why the two tokens
        # matter): a clause on the stake's sentence, scoped as the block's guess is, to a run of filler (fix pass 268):
        # every scored filler target, whose two tokens before are filler too, is one of the continuations the
        # generator's table allows for those two tokens (the generator check below, in this test; the share's size
        # stays the figure cell's and the appendix test's, on the saved curves)
        # fix pass 277 (reads r274a #2 and r274b #2, unclear: "at equal content scores" let the share read as the
        # model's real attention weight): the share named as what it is, a softmax of the biases alone over the 64
        # nearest keys (the figure's cell and at_equal in the appendix's test take exactly that softmax, v[:L])
        # fix pass 279 (reads r275a #1 and r275b #5, unclear: the filler was first defined fifteen cells later, and the
        # lost share then the filler's two tokens read as the cause of FIRE's rising loss): chapter 8's filler defined
        # where first used (its generator, checked below: each continuation set changes with the first of the two
        # tokens before, and the run's train_length is 64), and the main line itself says the cause is untested
        # fix pass 280 (reads r276a #4 and r276b #2, unclear: the main line went on to a softmax share and an
        # untested cause): the idea only, the fall with u (every saved curve from queries 63 and 511 falls with the
        # distance, and u grows with it, checked below), query 511's smaller u (the block's inference from the saved
        # biases) and so the lift (gains below, all 40 heads); the share, the filler and "untested" are the block's
        # fix pass 281 (reads r277a #3 and r277b #2, overstated: the smaller u from query 511 needs each learned
        # threshold below 511, which only the block derived): the premise on the main line, its evidence the block's
        # (the saved biases of queries 63 and 511 differ at every distance 1 to 63, checked below)
        # fix pass 282 (reads r278a #2 and r278b #3, unclear: the fall with u is measured on the saved curves, not on
        # the MLP as a function): "every saved curve falls with distance" (each saved curve falls strictly, checked
        # below)
        # fix pass 285 (read r280a #2, unclear: the thresholds read as measured; the run does not record them): "The
        # saved biases imply"; (read r280b #3, unclear: the lift had no lesson): the share it costs in this head and
        # the guess, below (test_fire_lift_share_in_the_main_line_is_the_appendix_cells)
        # fix pass 283 (read r279b #1, unclear: the higher bias read as derived from curves that fall over each
        # query's own points; it is measured, the gains below in all 40 heads): a sentence of its own
        # fix pass 286 (reads r281a #5 and r281b hardest #1, unclear: four inferences came before the idea): the idea
        # first (the lift), then the measured lift, then why (thresholds below 511, smaller u, curves that fall);
        # (read r281b #2, unclear: the share is over the 64 nearest keys only): "of the 64 nearest keys"
        # fix pass 287 (read r282b #2, unclear: the step that makes the deduction valid was only in the block, and
        # "and" joined it to a separate measurement): the counterfactual first (neither query past the threshold:
        # both divide by psi(L_thr), so equal u and equal curves; the saved curves differ at every distance, checked
        # below), then the conclusion, then the measured fall as a sentence of its own; (reads r282a #2 and r282b #1,
        # overstated: the shares are one head's, seed 0, layer 0, head 0): "In that head"
        "In chapter 8's FIRE models, trained on 64-token inputs, a later query lifts the biases of nearby keys. The"
        " saved biases show query 511 giving every key 1 to 63 back a higher bias than query 63 does. If neither query"
        " passed the threshold, the curves would match. They differ, so the learned thresholds lie below 511, and"
        " query 511 gives these keys a smaller $u$. Every saved curve falls with distance."
        # fix pass 288 (word budget): "The figure below draws this lift for one head. In that head" joined
        " In the head drawn below, at equal content scores, the lift cuts the two nearest"
        " tokens' share of the 64 nearest keys from about nine tenths to seven tenths."
        # fix pass 288 (read r283a #1 and r283b #1, unclear: the guess used 8L before chapter 8's section defines it,
        # and explained a rise not yet shown): the section that shows the rise named, then the guess (fire_rise_288)
        " Chapter 8's section below shows FIRE's loss rising on long inputs; this lift may be one reason, untested."
    )  # fix pass 276 (my review): the 41-word sentence split, its reason a sentence of its own
    # fix pass 276 (my review: one 41-word sentence split in two, the reason as its own short sentence)
    stake_275 = (
        "In a softmax of the biases alone over the 64 nearest keys, the lift lowers the two nearest tokens' share from"
        " about nine tenths to seven tenths in the head drawn. Inside a run of filler, the next symbol depends on these"
        " two alone."
    )  # fix pass 277 (reads r274a #2 and r274b #2): the share named as a softmax of the biases alone
    assert stake_275 not in " ".join(text.split())  # fix pass 280 (reads r276a #4 and r276b #2): the block's stake_280
    stake_r276 = (
        "At equal content scores, the lift lowers the share of the 64 nearest keys' weight that the two nearest tokens"
        " get, from about nine tenths to seven tenths in the head drawn."
    )
    assert stake_r276 not in " ".join(text.split())  # fix pass 277: "at equal content scores" read as the real weight
    stake_r275 = (
        "At equal content scores, the lift lowers the two nearest tokens' share of the 64 nearest keys' weight, from"
        " about nine tenths to seven tenths in the head drawn."
    )
    assert stake_r275 not in " ".join(text.split())  # fix pass 276 (read r273b #3): the reason joined the sentence
    lesson_r273 = (
        "Past the threshold, a later query gives each key behind it a smaller $u$, as the figure above shows. In"
        " chapter 8's trained FIRE models, query 511 gives every key 1 to 63 back a higher bias than query 63 does,"
        " the key one back the smallest gain, and the query's own token keeps its bias."
    )
    assert lesson_r273 not in " ".join(text.split())  # fix pass 274: the share argument is the block's
    # fix pass 274 (reads r271a #3 and r271b #2): the share argument, first in the block: the two nearest tokens
    # named, the key one back's smallest gain and the own token's kept bias (fix pass 273's premise: gains below,
    # min(gain[2:]) > gain[1] > 0 and gain[0] within the saved biases' rounding, in all 40 heads and the head drawn),
    # every other key's larger gain (min(gain[2:]) > max(gain[:2])), softmax's step, the lost share (near_63 against
    # near_511 below, all 40 heads) and its size in the head drawn (fix pass 249: asserted in the figure's cell from
    # the same saved curves, 0.90 and 0.69 on the saved run; fix pass 258: the figure's note prints both)
    share_274 = (
        "The two nearest tokens are the query's own token and the key one back. From query 511, the key one back gets"
        " the smallest gain, and the own token keeps its bias. Every other key up to 63 back gains more bias than"
        " these two. Softmax gives each key a share in proportion to $e^{\\text{logit}}$. So, at equal content scores,"
        " the two nearest tokens get a smaller share of the 64 nearest keys' weight from query 511 than from query 63."
        # fix pass 279 (read r275a #1, unclear: why 64 keys, while query 511 attends over 512, was not said): query 63,
        # the last of 64 tokens, has keys 0 to 63 back and no more
        " The softmax takes only the 64 nearest keys because query 63 has no more: so both queries share the same"
        " distances."
    )
    # fix pass 275 (reads r272a #4 and r272b #3): the share's size moved to the main line (stake_275)
    assert "as the note in the figure gives" not in text
    assert "the two nearest tokens are the ones a model needs" not in text  # fix pass 268 (read r267b #2)
    # fix pass 272 (reads r269a #3 and r269b #2): the chain, first in the block, as the reasoning for the share's fall
    chain_272 = (
        "Inside a run of chapter 8's filler, the next symbol depends only on the two nearest tokens: the query's own"
        " token and the key one back."
        # fix pass 267 (read r266b #4, unclear: the main line went from a smaller u to a higher bias without the step
        # that joins them): the measured link, scoped to the two queries (every saved curve from queries 63 and 511
        # falls with the distance, all 40 heads, and at one query u grows with the distance: both checked below)
        # fix pass 272: the two queries named, as the block no longer follows the sentence that names them
        " From query 63 and from query 511, the trained bias falls with the distance, so with $u$."
        " The key one back gains the least and the own token keeps its bias, so every other key up to 63 back"
        " gains more than these two."
        " So the two together get less of the weight on the 64 nearest keys from query 511 than from query 63."
    )
    assert chain_272 not in " ".join(text.split())
    # fix pass 273 (reads r270a #1 and r270b #1): the premise moved to the main line (lesson); the block keeps
    # softmax's step from it: a share in proportion to e to the logit, so keys whose biases gain less than every
    # other key's lose share together (checked below: near_63 against near_511, all 40 heads)
    chain_273 = (
        "Inside a run of chapter 8's filler, the next symbol depends only on the two nearest tokens: the query's own"
        " token and the key one back."
        " From query 63 and from query 511, the trained bias falls with the distance, so with $u$."
        " Softmax gives each key a share in proportion to $e^{\\text{logit}}$. Every other key up to 63 back gains more"
        " bias than these two, so at equal content scores the two together get less of the weight on the 64 nearest"
        " keys from query 511 than from query 63."
    )
    assert chain_273 not in " ".join(text.split())  # fix pass 274: share_274 in its place; the filler is the guess's
    lesson_r271 = (
        "So, at equal content scores, the own token and the key one back together get less of the weight on the 64"
        " nearest keys from query 511 than from query 63."
    )
    assert lesson_r271 not in " ".join(text.split())
    lesson_r265 = (
        "In chapter 8's trained FIRE models, the bias from each of the two queries the run saved falls as $u$ grows."
        " In every head, query 511 gives each key 1 to 63 back a higher bias than query 63 does. The key one back gains"
        " the least, and the own token keeps its bias. Every other key up to 63 back gains more than either of these"
        " two nearest tokens."
    )
    assert lesson_r265 not in " ".join(text.split())  # fix pass 266 (read r265 #2): jargon, and inferred as observed
    assert (
        "These two matter most for chapter 8's filler text" not in text
    )  # fix pass 266 (read r265 #1): read as a cause
    lesson_r264 = (
        "In chapter 8's trained FIRE models, the bias falls as $u$ grows, so a later query's smaller $u$ lifts the bias"
        " of each key behind the query."
    )
    assert lesson_r264 not in " ".join(text.split())  # fix pass 265 (read r264 #2): inferred, not measured
    from posenc.experiments import PasskeyCorpus as _Corpus, experiment_config as _config

    # fix pass 276 (read r273b #3): the generator check below backs the main line's sentence (stake_275), "Inside a
    # run of filler, the next symbol depends on these two alone.", as well as the block's guess
    # fix pass 280 (reads r276a #4 and r276b #2): the filler's gloss moved to the block, with the share
    assert "Inside a run of filler, the next symbol depends on these two alone." not in text
    assert "Chapter 8's filler text is one in which each symbol depends on the two before it." in collapsed(
        " ".join(text.split()), "What the lift does to the two nearest tokens' share, and how the check reads the heads"
    )
    filler_corpus = _Corpus(**_config()["corpus"])
    table = filler_corpus.filler_corpus.next_tokens  # [V, V, branching]: the allowed continuations of (a, b)
    allowed = [[set(table[a, b].tolist()) for b in range(len(table))] for a in range(len(table))]
    assert any(allowed[a][0] != allowed[0][0] for a in range(1, len(table)))  # the set changes with the first token
    assert _config()["train_length"] == 64  # fix pass 279 (read r275a #1): "64-token inputs of filler text"
    assert any(allowed[0][b] != allowed[0][0] for b in range(1, len(table)))  # and with the second
    for sample in (
        filler_corpus.sample_probe(16, 512, generator=torch.Generator().manual_seed(2)),
        filler_corpus.sample_text(16, 512, generator=torch.Generator().manual_seed(3)),
    ):
        x, scored = sample.tokens, sample.filler  # scored: a filler target whose two tokens before are filler too
        rows, at = scored.nonzero(as_tuple=True)  # target at position at + 1, its two tokens before at at - 1, at
        assert len(rows) > 1000 and (x[rows, at - 1] < filler_corpus.vocab_size).all()
        assert all(int(x[r, t + 1]) in allowed[int(x[r, t - 1])][int(x[r, t])] for r, t in zip(rows, at))
    lesson_r218 = (
        "In chapter 8's trained FIRE models, query 511 gives its own token and the key one back less weight, taken"
        " together, than query 63 does, at equal content scores."
    )
    assert lesson_r218 not in " ".join(text.split())  # fix pass 219: true of any encoding, as read r218 found
    lesson_r217 = (
        "In every head of chapter 8's trained FIRE models, query 511 gives each key 1 to 63 back a higher bias than"
        " query 63 gives the key at that distance."
    )
    assert lesson_r217 not in " ".join(text.split())  # fix pass 218: the point comes first
    lesson_r213 = (
        "The saved biases imply that in the trained heads, query 511 lies past the learned threshold: otherwise queries"
        " 63 and 511 would give every distance the same bias."
    )
    assert lesson_r213 not in " ".join(text.split())
    lesson_r208 = (
        "In chapter 8's trained FIRE models, a later query moves weight from its own token and the key one back, taken"
        " together, to keys farther back, at equal content scores."
    )
    assert lesson_r208 not in " ".join(text.split()) and "FIRE's rule gives such a lift if" not in text
    lesson_r206 = (
        "In chapter 8's trained FIRE models, measured from query 63 and query 511, the bias falls as $u$ grows. So"
        " query 511, which gives each key 1 to 63 back a smaller $u$"
    )
    assert lesson_r206 not in " ".join(text.split())
    assert "less weight against farther keys" not in text
    assert "turn a later query's smaller $u$ into a higher bias" not in text
    assert "can give a key a higher bias" not in text
    assert lesson in " ".join(main.split())
    # "The MLP sees only u": FireBias's bias at any query and key positions is its MLP applied to u alone, so two
    # (query, key) pairs with one u get one bias, and a different bias at one distance needs a different u
    # (below the threshold 16, queries 5 and 10 share the divisor, so the keys 3 back from each get one u and one
    # bias, whatever their positions), while one distance from two queries past the threshold gets two values
    fire = FireBias(2, c_init=0.1, L_thr_init=16.0)
    with torch.no_grad():
        early = fire.bias_at(torch.tensor([5.0, 10.0]), torch.tensor([2.0, 7.0]))  # [h, 2, 2]: 3 back on the diagonal
        late = fire.bias_at(torch.tensor([63.0, 511.0]), torch.tensor([55.0, 503.0]))  # the keys 8 back from 63, 511
    torch.testing.assert_close(early[:, 0, 0], early[:, 1, 1], rtol=0, atol=1e-6)
    assert float((late[:, 0, 0] - late[:, 1, 1]).abs().max()) > 1e-4
    assert "Does a trained FIRE model then treat a later query's keys as nearer?" not in text
    # read r177: the chain, one step a sentence, in a paragraph of its own: the fall, what a higher bias means, the
    # lift, the conclusion. Read r181: "In each" had no antecedent, and the double comparison ("nearer than query 63
    # treats a key as far back") was hard to parse: the conclusion compares the two queries at the same key, then one
    # concrete case, the key 8 back, checked below in all 40 heads. Read r183: the chain of "So" steps was the main
    # line's hardest paragraph, and its last sentence, "The starting values predict this same shift for $u$, and every
    # trained head shows it", overstated what the run shows (it records no learned |c| or L_thr): the answer comes
    # first, then its two facts in one sentence (the fall and the lift, which together make a lifted bias that of a
    # nearer key), then the example
    # pass 258: two paragraphs, the lift, then the lost share; fix pass 272: one short paragraph
    # fix pass 258b (read r258b #2: the share's purpose was the block's alone): the filler's dependence, a fact of
    # chapter 8's generator (test_fire_later_query_raises_the_keys_2_to_63_back_more_than_the_two_the_filler_needs),
    # and the guess said as untested
    # fix pass 259 (read r259 #1, overstated: a filler symbol depends on the two before it only inside a run of
    # filler; read r259b #4: the untested guess then appeared four times): the block's alone again
    paragraphs = _markdown_paragraphs()
    # fix pass 266 (read r265 #1): the paragraph opens on why the two nearest tokens matter
    # fix pass 268 (read r267b #2): it opens on a run of chapter 8's filler
    # fix pass 272: that paragraph is the block's first; the main line is one paragraph, the lesson first
    lift_opening = "Inside a run of chapter 8's filler, the next symbol depends only on the two nearest tokens"
    assert not [p for p in paragraphs if p.startswith(lift_opening)]  # fix pass 274: the guess's paragraph says it
    assert lesson in paragraphs and share_274 in paragraphs  # fix pass 274: the share, a paragraph of the block
    # four sentences (read r202: r200's sixth, the untested guess on why the lift may matter, is the block's; read
    # r203: the conclusion opens the paragraph, so it is not said again at its end)
    # fix pass 267: the link, the fall with the distance, so with u
    # fix pass 274 (reads r271a #3 and r271b #2): two sentences, the effect, then the lift drawn below
    # fix pass 275 (reads r272a #4 and r272b #3): three, the lift's stake last (stake_275)
    assert (
        # fix pass 288 (word budget): seven, the figure's sentence joined to the share's
        len(re.findall(r"[.:;] (?=[A-Z])", lesson)) + 1 == 7
    )  # fix pass 280 (reads r276a #4 and r276b #2): five, the share and its untested cause in the block
    # fix pass 283 (read r279b #1): six, the measured higher bias a sentence of its own
    # fix pass 287 (read r282b #2): eight, the counterfactual and the measured fall sentences of their own
    # fix pass 276: four, the stake's reason its own sentence; fix pass 279 (read r275a #1): six, with the filler's
    # gloss second and the untested cause last
    # fix pass 221: the weight moved, the fall with u, the lift, the key one back, the own token; 249: its size;
    # fix pass 264: every other key's larger gain; fix pass 265: why the two nearest tokens matter; fix pass 266: the
    # filler first, FIRE's rule, the lift, the key one back with the own token and every other key, the share, and
    # that its effect on the loss is not measured; fix pass 272: FIRE's rule, the lift, the share, the two tokens
    # named, its size, and that its effect is not measured (the chain is the block's, chain_272)
    assert "Yes: in every trained head" not in text and "For example, query 511 gives the key 8 back" not in text
    assert "The starting values predict this same shift" not in text and "every trained head shows it" not in text
    assert "In each, the saved bias falls" not in text and "treats a key as far back" not in text
    fire_block_title = (
        # fix pass 272: the block opens on the chain, the reasoning for the share's fall
        # fix pass 274 (reads r271a #3 and r271b #2): its title starts with the share, the block's first paragraph;
        # "how the check reads the heads" covers the threshold's inference (trained_read)
        "<summary>What the lift does to the two nearest tokens' share, and how the check reads the heads</summary>"
    )
    assert "Why the two nearest tokens lose weight, how the check reads the heads" not in text
    flat_text = " ".join(text.split())
    fire_block = flat_text[
        flat_text.index(fire_block_title) : flat_text.index("</details>", flat_text.index(fire_block_title))
    ]
    assert flat_text.count(fire_block_title) == 1
    # fix pass 280 (reads r276a #4 and r276b #2): the filler's gloss, the share's size and its untested cause open
    # the block, before the reasoning (share_274)
    share_opening_280 = (
        "Chapter 8's filler text is one in which each symbol depends on the two before it. In a softmax of the biases"
        " alone over the 64 nearest keys, the lift lowers the two nearest tokens' share from about nine tenths to"
        " seven tenths in the head drawn. Whether their smaller share is why FIRE's loss rises on long inputs is"
        " untested."
    )
    # fix pass 281 (read r277a #3, unclear: the untested guess was said twice in this block): the opening keeps the
    # filler's gloss and the share's size; the guess is the block's last paragraph (guess, below)
    share_opening_281 = share_opening_280.removesuffix(
        " Whether their smaller share is why FIRE's loss rises on long inputs is untested."
    )
    assert share_opening_281 != share_opening_280 and share_opening_280 not in flat_text
    assert fire_block.startswith(f"{fire_block_title} {share_opening_281} {share_274} Each model trained its own")
    # "taken together": the two nearest tokens' share of the row falls from query 63 to query 511 in every head,
    # checked in the loop of near_63 and near_511 below
    # the count of heads and the threshold's inference, off the main line (read r199: a learner asks whether query
    # 511 lies past the learned threshold; test_fire_higher_biases_from_the_later_query_put_the_threshold_below_511)
    # structural pass 217: the inference, in full, is the block's (the appendix's inference from the same biases,
    # test_fire_higher_biases_from_the_later_query_put_the_threshold_below_511; the fall with u and the smaller u,
    # checked below)
    trained_read = (
        "The appendix checks all 40 trained heads. The saved biases from queries 63 and 511 differ at every distance"
        " from 1 to 63. With a learned threshold at 511 or more they would not: both queries would divide by"
        " $\\psi(L_{\\text{thr}})$, so they would give every distance the same $u$ and the same bias. So each learned"
        " $L_{\\text{thr}}$ ended below 511, and query 511 lies past it. Past the threshold, a later query gives each"
        # fix pass 265 (read r264 #2): scoped to the two queries, as on the main line
        " key 1 or more back a smaller $u$. From either query, the bias of these trained heads falls as $u$ grows:"
        " every saved curve falls with distance, and $u$ grows with it. The saved biases show each key 1 to 63 back"
        " gaining from query 511."
        " The query's own token has $u = 0$ from any query, so its bias stays."
    )
    assert trained_read in fire_block and "From the higher biases it also infers" not in text
    assert (
        "Each model trained its own $|c|$ and $L_{\\text{thr}}$, which the run does not record, so the check reads the"
        " saved biases directly." in fire_block
    )
    assert (
        "Each lifted bias stays below query 63's bias at distance 0. As query 63's curve falls, it reaches that"
        " bias between distance 0 and the key's own: the key reads as nearer, but never as near as the query's own"
        " token." in fire_block
    )
    # the link to the appendix's guess stays off the main line (fix pass 218: the guess itself is the main line's)
    assert "The appendix's part *A guess about FIRE's rising loss* spells out the guess above." in fire_block
    fire_main = " ".join(main[main.index("## FIRE: an MLP") : main.index("## CoPE: count only")].split())
    for aside in ("does not record", "never above", "never as near", "A guess about FIRE"):
        assert aside not in fire_main, aside
    # fix pass 279 (reads r275a #1 and r275b #5, unclear: the lost share next to the filler's two tokens read as the
    # cause of FIRE's rising loss, and only the blocks said it was a guess): the main line says so itself, once
    untested_279 = "Whether their smaller share is why FIRE's loss rises on long inputs is untested."
    # fix pass 280 (reads r276a #4 and r276b #2): in the block, with the share it qualifies
    # fix pass 281 (read r277a #3, unclear: the block said the untested guess twice): once, in the block's last
    # paragraph (guess, "no run here tests it", checked below)
    # fix pass 285 (read r280b #3, unclear: the lift had no lesson on the main line): the lost share and the guess are
    # back on the main line once, said to be a guess; the block keeps its reasoning
    assert fire_main.count("untested") == 1 and untested_279 not in text
    # fix pass 288 (read r283a #1 and r283b #1, unclear: 8L before its definition, the guess before the rise): the
    # section that shows the rise, then the guess; "rising": FIRE's loss grows from L to 2L, 4L and 8L in every seed
    assert "Perhaps that raises FIRE's loss" not in text
    fire_rise_288 = (
        "Chapter 8's section below shows FIRE's loss rising on long inputs; this lift may be one reason, untested."
    )
    assert fire_rise_288 in fire_main and "$8L$" not in fire_main
    assert text.index(fire_rise_288) < text.index("## In chapter 8's experiment")
    _, run, run_seeds, _ = saved_run()
    for seed in run_seeds:
        fire = run["metrics"]["fire"][seed]
        losses = [fire["loss_at_L"]] + [fire["loss_beyond"][str(n)] for n in (128, 256, 512)]
        assert all(a < b for a, b in zip(losses, losses[1:])), (seed, losses)
    # fix pass 285 (word budget): "Chapter 8's FIRE models, trained on 64-token inputs, show the effect ..."
    # fix pass 286 (reads r281a #5 and r281b hardest #1): the paragraph opens on the lift itself
    effect = "In chapter 8's FIRE models, trained on 64-token inputs, a later query lifts the biases of nearby keys."
    trained_main = fire_main[  # fix pass 274: the paragraph opens on the effect it checks in the trained models
        fire_main.index(effect) : fire_main.index("To remember:")
    ]
    assert "nearer" not in trained_main and "keys 3 and 4" not in trained_main  # the block's, below
    # structural pass 217: the inference is the block's; fix pass 221 (read r220 #7): the premise, the fall with u,
    # is the main line's too, in one sentence; the threshold and the inference from the saved biases stay the block's
    # fix pass 265 (read r264 #2): the fall with u, from each of the two saved queries
    # fix pass 266 (read r265 #2): the main line no longer says the trained bias falls as u grows (the block's, from
    # the saved curves); it gives FIRE's rule, past the threshold, before the measured lift
    # fix pass 274: FIRE's rule is the u paragraph's (cell 11), so "threshold" is not said again here
    # fix pass 280 (reads r276a #4 and r276b #2): the main line's step from a smaller u to a higher bias is the fall
    # with u, once (checked below: every saved curve falls with the distance, and u grows with it)
    # fix pass 281 (reads r277a #3 and r277b #2): the learned thresholds' place below 511, the premise of the smaller
    # u, is the main line's, once; the block derives it from the saved biases
    # fix pass 282 (reads r278a #2 and r278b #3, unclear: "in every trained head the bias falls as u grows" stated
    # for the MLP what is measured on the saved curves): "every saved curve falls with distance", the measured form
    # (checked below: every saved curve falls strictly at every step, in all 40 heads, from both queries)
    # fix pass 287 (read r282b #2): the counterfactual names the threshold too, so twice
    assert trained_main.count("threshold") == 2 and "the bias falls as $u$ grows" not in trained_main
    # fix pass 285 (read r280a #2): the thresholds are implied by the saved biases, not recorded
    # fix pass 286 (reads r281a #5 and r281b hardest #1): the same inference, after the measured lift
    # fix pass 287 (read r282b #2, unclear: the deduction's step was the block's, and "and" joined it to a separate
    # measurement): the counterfactual, the conclusion, then the measured fall as its own sentence
    assert "a smaller $u$, and every saved curve falls with distance." not in trained_main
    assert trained_main.count("Every saved curve falls with distance.") == 1
    assert "They imply learned thresholds below 511" not in trained_main
    assert (
        "If neither query passed the threshold, the curves would match. They differ, so the learned thresholds lie"
        " below 511, and query 511 gives these keys a smaller $u$." in trained_main
    )
    assert "So each learned $L_{\\text{thr}}$ ended below 511, and query 511 lies past it." in fire_block
    # fix pass 267 (read r266b #4): "From each of these two queries, the trained bias falls with the distance, so with
    # $u$." follows the sentence that names the two queries; every saved curve, from query 63 (64 tokens) and from
    # query 511 (512 tokens), falls strictly at every step, in all 40 heads; at one query past or below the threshold,
    # FireBias's u rises strictly with the distance for any c != 0 (a c of 0 would give every key one bias, which the
    # saved curves' fall rules out)
    link = "From query 63 and from query 511, the trained bias falls with the distance, so with $u$."
    assert "From each of these two queries" not in text  # fix pass 272: no antecedent at the block's start
    # fix pass 274: the share needs only the gains, not u, so the link left the share's paragraph; trained_read, in the
    # same block, says it ("From either query, the bias of these trained heads falls as $u$ grows: every saved curve
    # falls with distance, and $u$ grows with it."), checked below
    assert link not in text and "falls as $u$ grows: every saved curve falls with distance" in fire_block
    link_config, *_ = saved_run()
    for length in (link_config["train_length"], link_config["eval_lengths"][-1]):
        curves = learned_heads("fire", length)
        assert len(curves) == 40 and length - 1 in (63, 511)
        assert all(all(b < a for a, b in zip(v, v[1:])) for v in curves.values())
    for c_value, l_thr in ((0.1, 16.0), (-2.0, 100.0), (1e-3, 700.0)):
        probe = FireBias(1, L_thr_init=l_thr)
        with torch.no_grad():
            probe.c.fill_(c_value)  # a trained c may end below 0; c_init itself must be positive
            for query in (63.0, 511.0):
                u_row = probe.normalized_distance(torch.tensor([query]), query - torch.arange(0.0, query + 1))[0]
                assert bool((u_row.diff() > 0).all()), (c_value, l_thr, query)
    assert (
        trained_main.index(effect)
        < (
            # fix pass 281: "So ... and a higher bias", after the thresholds and the fall with u
            # fix pass 283 (read r279b #1, unclear: the higher bias does not follow from curves falling over each
            # query's own points; it is measured, cell 65's lift in all 40 heads): "The saved biases show ..."
            # fix pass 286 (reads r281a #5 and r281b hardest #1, unclear: the idea came fourth): the lift opens the
            # paragraph (effect), the measured lift follows, then the reason
            trained_main.index("The saved biases show query 511 giving every key 1 to 63 back a higher bias")
        )
        # fix pass 287 (read r282b #2): the counterfactual, then "They differ, so ..."
        < trained_main.index("If neither query passed the threshold")
        < trained_main.index("and query 511 gives these keys a smaller $u$")
    )
    assert "the two queries the run saved" not in text  # fix pass 266 (read r265b #2): jargon
    # fix pass 266 (read r265 #1, overstated by implication): the lost share's effect on FIRE's loss, once, as not
    # measured, after the share; the guess stays the block's
    # fix pass 274 (reads r271a #3 and r271b #2): the share and its size are the block's; "Whether this raises
    # FIRE's loss is not measured." joined the block's guess, which says it once ("no run here tests it", guess below)
    assert "Whether this raises FIRE's loss is not measured." not in text
    # fix pass 275 (reads r272a #4 and r272b #3): the size is the main line's, once, right after the lift; the block
    # keeps the reasoning (share_274) and the guess, whose "no run here tests it" says the loss is not measured
    # fix pass 280 (reads r276a #4 and r276b #2): the share's size is the block's again, first in it
    stake_280 = (
        "In a softmax of the biases alone over the 64 nearest keys, the lift lowers the two nearest tokens' share from"
        " about nine tenths to seven tenths in the head drawn."
    )
    # fix pass 285 (read r280b #3, unclear: the lift had no lesson on the main line): the size, in this head, is the
    # main line's once more, with the guess; the block keeps stake_280 and the reasoning
    assert trained_main.count("nine tenths to seven tenths") == 1 and fire_block.count(stake_280) == 1
    assert fire_block.index(stake_280) < fire_block.index("no run here tests it")  # fix pass 281: the guess, once
    assert all(
        sorted(fire_seed["learned_bias"]) == ["512", "64"] for fire_seed in saved_run()[1]["metrics"]["fire"].values()
    )
    # read r192: the fall is stated once, with u, not again with the distance
    assert "Each head's bias falls as the distance grows." not in text
    # read r205: the premise of the lift is the main line's first sentence, said once
    assert "each trained head's bias falls as the key's $u$ grows." not in text
    # read r207: the measured lift opens the paragraph; FIRE's rule follows as its explanation (structural pass
    # 217: in the block)
    # fix pass 224 (read r223 #2): the link opens it, the lift follows
    # fix pass 268 (read r267b #2): scoped to a run of filler
    # fix pass 272 (reads r269a #3 and r269b #2): the section's lesson opens it; the filler sentence is the block's
    assert trained_main.startswith(effect)  # fix pass 274
    assert "Inside a run of chapter 8's filler" not in fire_main
    assert (
        "In every trained head, for example, query 511 gives the key 8 back a bias between those that query 63 gives"
        " the keys 3 and 4 back. At the starting values, $u$ shows the same shift; the trained biases are measured,"
        " not derived from it." in fire_block
    )
    assert "### A guess about FIRE's rising loss" in text and "This guess is untested." in text
    # "The rule alone cannot say, as training sets $c$, $L_{\\text{thr}}$ and the MLP's shape": all three are trained
    # parameters; a threshold of 511 or more, or an MLP that ignores u, leaves queries 63 and 511 the same bias at
    # every distance, while the starting values lift it
    d_back = torch.arange(1, 64)
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(0)
        start, wide, flat_mlp = (
            FireBias(1, L_thr_init=16.0),
            FireBias(1, L_thr_init=512.0),
            FireBias(1, L_thr_init=16.0),
        )
        flat_mlp.mlp[-1].weight.zero_()  # the MLP's output no longer depends on u
        assert all(p.requires_grad for p in (start.c, start.L_multiplier, *start.mlp.parameters()))
        rows = {
            name: [m.bias_at(torch.tensor([i]), i - d_back)[0, 0] for i in (63, 511)]
            for name, m in (("start", start), ("wide", wide), ("flat", flat_mlp))
        }
    assert not torch.allclose(*rows["start"], atol=1e-3)
    torch.testing.assert_close(*rows["wide"], rtol=0, atol=1e-6)
    torch.testing.assert_close(*rows["flat"], rtol=0, atol=1e-6)
    # "as nearer than query 63 does", not "the bias query 63 would give a nearer distance": for the
    # keys 1 and 2 back from query 511 that nearer distance is a fraction of a token, which no key has (their biases
    # lie between query 63's on its own token and one back, checked below for every head). Read r178: "nearer than it
    # is" read as absolute; the check is relative, query 511 against query 63 at the same distance, 1 to 63 back
    assert "nearer than it is" not in text
    assert "a nearer, often fractional, distance" not in text
    assert "the bias that query 63 gives a nearer one" not in text  # read as an actual nearer key
    # the FIRE section's "To remember", with the same qualifier; read r209: cause and effect in one sentence, the
    # smaller u (FireBias, test_fire_long_input_puts_the_key_one_back_in_a_gap_inside_the_trained_range) and, in the
    # trained heads, the lift of the keys 2 or more back above the two nearest tokens' and the weight they take
    # (gains and near_63 against near_511 below, all 40 heads)
    assert "as if the key were nearer." not in text
    assert (
        # fix pass 224 (read r223 #1: one saved run's result read as a general lesson, without its condition)
        # fix pass 267 (read r266 #3, unclear: the "To remember" repeated cell 13's trained-run detail, which is not a
        # property of FIRE): FIRE's rule alone, past the threshold, as the u-rule's paragraph says it ("the later the
        # query, the nearer a given distance looks to FIRE's MLP"): the divisor psi(max(i, L_thr)) grows with i there,
        # so one distance gets a smaller u from a later query (checked below), the u a nearer key gets from the earlier
        # query; the trained heads' gains and lost share stay in cell 13 (lesson, above)
        # fix pass 276 (read r273b #2, overstated: a key after the query can pass 1, as cell 9 says; read r273a #2,
        # overstated: u is 0 at distance 0 from every query): "for keys up to the query", as the takeaway says, and
        # "each distance of 1 or more", as the u-rule's block says (checked below: u at distance 0 is 0 from any
        # query, smaller from a later query at each distance 1 or more past the threshold, and above 1 for a key
        # after the query)
        "To remember: FIRE keeps $u$ in $[0, 1]$ for keys up to the query. Past $L_{\\text{thr}}$, $u$ depends on the"
        " query's position, not just the distance: a later query gives each distance of 1 or more a smaller $u$, so"
        " the same distance looks nearer to FIRE's MLP." in " ".join(main.split())
    )
    assert "To remember: FIRE keeps $u$ in $[0, 1]$. Past" not in " ".join(text.split())  # fix pass 276
    assert "a later query gives each distance a smaller $u$" not in " ".join(text.split())  # fix pass 276
    # fix pass 276 (read r273a #2, overstated: "a fixed distance" included distance 0): the takeaway's FIRE bullet
    true_main = _chapter_views()[2]
    flat_takeaways = true_main[true_main.index("## Takeaways") : true_main.index("## Exercises")]
    assert (
        "- FIRE's MLP input $u$ stays in $[0, 1]$ at any length for keys up to the query. Past $L_{\\text{thr}}$, a"
        " later query gives each distance of 1 or more a smaller $u$." in flat_takeaways
    )
    assert "gives a fixed distance a smaller $u$" not in text
    assert "keys two to sixty-three back gained more bias" not in text
    remember_fire = FireBias(1, c_init=0.1, L_thr_init=16.0)
    with torch.no_grad():
        u_63 = remember_fire.normalized_distance(torch.tensor([63.0]), 63.0 - torch.arange(0.0, 64.0))[0]
        u_511 = remember_fire.normalized_distance(torch.tensor([511.0]), 511.0 - torch.arange(0.0, 64.0))[0]
    assert bool((u_511[1:] < u_63[1:]).all())  # past the threshold 16: a later query, a smaller u at each distance
    # fix pass 276 (read r273a #2): "each distance of 1 or more": at distance 0 every query gives u = 0, so no later
    # query gives it a smaller u; at each distance 1 or more, each later query past the threshold gives a smaller u
    queries = torch.arange(0.0, 600.0)
    with torch.no_grad():
        own = remember_fire.normalized_distance(queries, queries).diagonal()
        rows = remember_fire.normalized_distance(queries, queries)  # [query, key]: key positions 0 to 599
    assert bool((own == 0).all()) and u_63[0] == u_511[0] == 0
    past = int(remember_fire.threshold.item())  # 16: from query 16 on, a later query divides by a larger psi
    for d in (1, 2, 8, 15, 16, 63, 300):
        by_query = torch.stack([rows[q, q - d] for q in range(max(past, d), 600)])  # distance d from each query
        assert bool((by_query.diff() < 0).all()), d
    # "for keys up to the query": a key after the query can pass 1 (key 50 from query 10, as cell 9 says)
    with torch.no_grad():
        after = remember_fire.normalized_distance(torch.tensor([10.0]), torch.tensor([50.0]))[0, 0]
    assert after > 1 and rows[rows.new_ones(rows.shape).tril().bool()].max() <= 1 + 1e-6
    # "looks nearer": the u query 511 gives a distance d is one query 63 gives a distance below d
    assert bool((u_511[1:] > 0).all()) and bool((u_63.diff() > 0).all())
    # fix pass 221 (read r220 #3): query 63 has no keys 64 or more back, so the comparison covers keys 2 to 63 back
    # (gains below: min(gain[2:]) > gain[1], over distances 0 to 63)
    assert "keys two or more back gained" not in text
    # the takeaway first, then the argument forward (u, then what the MLP can do), then the measurement, then the drawn
    # head and the count of heads
    flat_main_fire = " ".join(main.split())
    # read r209: the passage opens with its lesson (lesson_r209 in the u-rule's paragraph), then, for the trained
    # heads, the chain in order: the smaller u, the higher bias, the weight moved
    # structural pass 217: the smaller u and the fall with u are the block's; the main line's chain is the lift, the
    # key one back, the own token, the weight moved
    # fix pass 218: the weight moved comes first, then the lift, the key one back and the own token
    # fix pass 224 (read r223 #2): the link, the lift, the key one back, the own token, then the weight moved
    # fix pass 272 (reads r269a #3 and r269b #2): the main line keeps the lift and the share; the key one back, the own
    # token and every other key's larger gain are the block's chain (chain_272), in that order
    # fix pass 274 (reads r271a #3 and r271b #2): the share is the block's (share_274); the main line keeps the lift
    matters = fire_block.index(
        "So, at equal content scores, the two nearest tokens get a smaller share of the 64 nearest keys' weight from"
        " query 511 than from query 63."
    )
    assert "the two nearest tokens get a smaller share" not in flat_main_fire
    # fix pass 273 (reads r270a #1 and r270b #1, unclear: the "So" lacked its premise on the main line): the lift, the
    # key one back's smallest gain and the own token's kept bias, one sentence, then the share; the block keeps
    # softmax's step
    # fix pass 274: the key one back's smallest gain and the own token's kept bias open the block's share paragraph
    # fix pass 280 (reads r276a #4 and r276b #2): the lift follows the fall with u, as "so a higher bias"
    # fix pass 281 (reads r277a #3 and r277b #2): "So ..., and a higher bias", after the learned thresholds
    # fix pass 286 (reads r281a #5 and r281b hardest #1): the measured lift first, its reason after
    first = flat_main_fire.index("The saved biases show query 511 giving every key 1 to 63 back a higher bias")
    # fix pass 287 (read r282b #2): "They differ, so the learned thresholds lie below 511, and query 511 gives ..."
    assert "and query 511 gives these keys a smaller $u$" in flat_main_fire[first:]  # fix pass 283: measured
    smallest = fire_block.index("From query 511, the key one back gets the smallest gain, and the own token keeps")
    assert "the bias from query 63 or query 511 falls" not in text
    assert "The key one back gains the least" not in text
    takeaway = fire_block.index("Softmax gives each key a share in proportion to $e^{\\text{logit}}$.")
    own = fire_block.index("Every other key up to 63 back gains more bias than these two")
    assert smallest < own < takeaway < matters  # fix pass 274: the gains, softmax's step, then the share
    # read r210: the trained heads' result follows the mechanism (cell 13), not before it: the opening is the rule's
    # plain lesson alone
    # fix pass 288 (read r283b #6, overstated, trivial): "of 1 or more"; the own token's u is 0 from every query
    opening = flat_main_fire.index("the later the query, the nearer a given distance of 1 or more looks to FIRE's MLP.")
    assert "a later query raises the bias of keys two or more back most" not in text
    # read r200: "both" pointed two sentences back, and the point of the lift was the appendix's alone: the main line
    # names the two tokens and says, as a guess no run tests, why it may matter (chapter 8's filler: the next symbol
    # depends only on the two tokens before it, checked in the appendix's guess test)
    # read r202: an untested causal guess on the main line; it is the block's, with the appendix's part named
    guess_r217 = (
        "In chapter 8's filler, the next symbol depends only on the query's own token and the key one back, so this"
        " lift may be why FIRE's loss rises on long inputs."
    )
    # fix pass 218 (read r217): why the lift matters is the main line's, once, said as untested; the block only points
    # to the appendix's part
    guess_r218 = (
        "Chapter 8's next filler symbol depends only on those two tokens, so this may be why FIRE's loss rises on long"
        " inputs; no run here tests it."
    )
    # fix pass 220 (read r219 #2): the guess is the block's, its last paragraph, before the pointer to the appendix's
    # part; it names the two tokens, as "those two" has no antecedent there, and "their lost share" is the main line's
    # point (near_63 against near_511 below, all 40 heads)
    # fix pass 268 (read r267b #2, overstated: the main line's filler sentence; the block's says the same, so it is
    # scoped the same way, to a run of filler)
    guess_r273 = (
        # fix pass 272: the block now opens on the filler's dependence (chain_272), so its last paragraph refers to it
        "As the filler's next symbol depends only on these two tokens, their lost share may be why FIRE's loss rises on"
        " long inputs; no run here tests it."
    )
    assert guess_r273 not in " ".join(text.split())
    guess = (
        # fix pass 274 (reads r271a #3 and r271b #2): the block opens on the share (share_274), so the filler's
        # dependence on the two nearest tokens, a fact of chapter 8's generator (checked above on the corpus's
        # next-token table), joins the guess, and "Whether this raises FIRE's loss is not measured." is said once, here,
        # as "no run here tests it"
        "Inside a run of chapter 8's filler text, the next symbol depends only on these two tokens. So their lost share"
        " may be why FIRE's loss rises on long inputs; no run here tests it."
    )
    guess_r271 = (
        "Inside a run of chapter 8's filler, the next symbol depends only on the query's own token and the key one"
        " back, so their lost share may be why FIRE's loss rises on long inputs; no run here tests it."
    )
    assert guess_r271 not in " ".join(text.split())
    assert "Chapter 8's next filler symbol depends only on" not in text
    assert guess_r217 not in " ".join(text.split()) and guess_r218 not in " ".join(text.split())
    assert " ".join(text.split()).count(guess) == 1 and guess not in main and "may be why" not in fire_main
    assert fire_block.rstrip().endswith(
        f"{guess} The appendix's part *A guess about FIRE's rising loss* spells out the guess above."
    )
    assert (
        # fix pass 218: the rule's lesson, then the weight moved, then the lift, the key one back, the own token
        # fix pass 272: on the main line, the rule's lesson, the lift, then the share (the chain is the block's)
        # fix pass 274: on the main line, the rule's lesson, then the lift; the share is the block's (matters, above)
        opening < first
    )
    # read r189: "not implied by the starting values" left the learner unsure whether the u-picture explains the
    # figure; read r190: "the run cannot show that u causes it" was a hedge the model rules out: FIRE's MLP takes u
    # alone (posenc's FireBias: the bias at a query and distance is mlp(u) and nothing else), so a different bias at
    # one distance means a different u
    # read r191: the backward step "so query 511 must give these keys other values of $u$" is gone; the forward
    # "can" is checked below (the starting values give queries 63 and 511 different biases at every distance)
    assert "must give these keys other values of $u$" not in text
    # read r199: the figure's legend names its seed, layer and head; the main line ends on why the lift matters
    assert "The figure draws one head" not in flat_main_fire
    # it says what the bias does, not what the model "reads" (the figure's cell asserts, for its head, that every
    # lifted bias lies below query 63's bias at distance 0, so query 63's falling curve meets it nearer)
    assert "reads each distance as nearer" not in text
    # "The figure draws one head": the figure's cell reads one seed's one layer's one head; "the appendix checks every
    # trained head", all 40: the appendix's cell loops over every seed, layer and head (40, counted below and asserted
    # there: len(fire_short) == 40)
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert 'seed8, layer, head = str(ch8["config"]["seeds"][0]), 0, 0' in cells["r11-fire-trained"]
    assert "assert all(short_curve[0] > long_curve[d] for d in range(1, L8))" in cells["r11-fire-trained"]
    assert "fire_bias[n8][layer][head]" in cells["r11-fire-trained"]
    assert "Each count is over 40 heads: 5 seeds, 2 layers, 4 heads." in text
    # the premise, inferred from the same measured biases (below): a threshold at 511 or above would give queries 63
    # and 511 the same u for each key, so the same bias; the run stores biases, not the thresholds. It is evidence,
    # so the appendix states it
    flat = " ".join(text.split())
    assert "So each layer's learned threshold ended below 511" not in main
    assert "show that it ended below 511 in every layer" in flat
    # the trained models' paragraph is chapter 8's experiment's; the guess at the cost is the box's
    # "In every head, the saved bias falls": checked below, every head, both queries, at integer distances
    # not a deduction from the table above it, which shows the starting values, not the learned c and threshold
    assert "In chapter 8's trained models every FIRE bias falls with distance, so" not in text
    # read r206: the fall with u is said once, scoped to the two queries whose saved biases are checked below
    # (structural pass 217: in the block)
    assert " ".join(text.split()).count("In chapter 8's trained FIRE models, the bias from each of the two") == 0
    # fix pass 221: the main line's, and the block's; fix pass 265: each scoped to the two saved queries; fix pass 266
    # (read r265 #2): the block's alone, from the saved curves
    # fix pass 280 (reads r276a #4 and r276b #2): the main line's again, as the step to the lift, and the block's
    # fix pass 282 (reads r278a #2 and r278b #3): the main line's is now the measured "every saved curve falls with
    # distance"; the block's alone says it with u
    assert " ".join(text.split()).count("falls as $u$ grows") == 1
    # read r209: the chain's first step, for the trained heads: query 511 lies past the learned threshold (the
    # appendix's inference from the same biases, "show that it ended below 511 in every layer", above), so its u of
    # each key 1 to 63 back is smaller than query 63's
    # read r213: the inference's reason (below the threshold both queries divide by psi(L_thr), so every distance
    # would get the same bias; the saved curves differ: checked in the appendix's test); structural pass 217: the
    # block's, off the main line (trained_read, above)
    assert "So each learned $L_{\\text{thr}}$ ended below 511, and query 511 lies past it." not in main
    assert "differ at every distance from 1 to 63" not in main
    assert "Every curve falls with distance, at both lengths." in text
    config, *_ = saved_run()
    L = config["train_length"]
    short, long = learned_heads("fire", L), learned_heads("fire", config["eval_lengths"][-1])
    assert len(short) == len(long) == 40
    assert all(abs(s[L - 1] - long[key][-1]) <= 2e-4 for key, s in short.items())
    assert min(long[key][d] - s[d] for key, s in short.items() for d in range(1, L)) > 0.2
    assert min(min(long[key][8] - s[8], long[key][L - 1] - s[L - 1]) for key, s in short.items()) >= 0.97
    for v in [*short.values(), *long.values()]:  # the bias never rises with d: the penalty grows with u
        assert v[0] > max(v[1:]) and all(b < a for a, b in zip(v, v[1:]))  # strictly: "falls"
    # "each trained head's bias falls as the key's $u$ grows", from queries 63 and 511: at a fixed query, u grows
    # strictly with the distance for any learned |c| > 0 and threshold (FireBias's own u, over a spread of both), so
    # the saved curves' fall with distance, above, is a fall with u
    for c_init, thr in ((0.01, 4.0), (0.1, 16.0), (1.0, 63.0), (3.0, 600.0)):
        fire_u_check = FireBias(1, c_init=c_init, L_thr_init=thr)
        for i in (63, 511):
            u = fire_u_check.normalized_distance(torch.tensor([i]), i - torch.arange(i + 1)).detach()[0]
            assert (u.diff() > 0).all(), (c_init, thr, i)
    # "a later query gives each distance the bias that query 63 would give a nearer ... distance": with both curves
    # falling, this
    # also needs each lifted bias (keys 1 to 63 back from query 511) below query 63's bias at distance 0, in every
    # one of the 40 heads, not only the drawn one (0.41 or more on the saved run; the appendix cell asserts > 0.2)
    assert min(s[0] - max(long[key][1:L]) for key, s in short.items()) > 0.2
    # the main line's example: "query 511 gives the key 8 back a bias between those that query 63 gives the keys 3
    # and 4 back", in every one of the 40 heads, by more than the saved biases' rounding (0.1 or more on the saved run;
    # the appendix cell asserts between_3_4 > 0.1)
    assert all(s[3] - 1e-3 > long[key][8] > s[4] + 1e-3 for key, s in short.items())
    # "The query's own token keeps its bias and the key one back gains least, so at equal content scores both lose
    # weight to farther keys, in every trained head": the own token's u is 0 from both queries (its saved biases agree
    # to their rounding), each key 2 to 63 back gains more than the key one back, and the two nearest tokens' softmax
    # share at equal content scores falls from query 63 to query 511, over the same 64 keys (by 0.17 or more on the
    # saved run) and over query 511's whole row
    with torch.random.fork_rng():  # "as its $u$ stays 0": psi(0) = 0 from any query, at any |c| and threshold
        for c_init, thr in ((0.1, 16.0), (1.0, 600.0)):
            own = FireBias(1, c_init=c_init, L_thr_init=thr).normalized_distance(
                torch.tensor([63, 511]), torch.arange(512)
            )
            assert own[0, 63].item() == 0 and own[1, 511].item() == 0
    for key, s in short.items():
        gain = [long[key][d] - s[d] for d in range(L)]
        assert abs(gain[0]) <= 2e-4 and min(gain[2:]) > gain[1] > 0
        assert min(gain[2:]) > max(gain[:2])  # fix pass 264: "Every other key up to 63 back gains more than either"
        near_63 = torch.tensor(s, dtype=torch.float64).softmax(0)[:2].sum().item()
        near_511 = torch.tensor(long[key][:L], dtype=torch.float64).softmax(0)[:2].sum().item()  # "its 64 nearest keys"
        assert len(s) == len(long[key][:L]) == 64
        whole_511 = torch.tensor(long[key], dtype=torch.float64).softmax(0)[:2].sum().item()
        assert near_511 < near_63 - 0.1 and whole_511 <= near_511, key
    # fix pass 273 (reads r270a #1 and r270b #1): the FIRE section's main line now states the premise, "query 511 gives
    # every key 1 to 63 back a higher bias than query 63 does, the key one back the smallest gain, and the query's own
    # token keeps its bias", of chapter 8's trained FIRE models and of the head its figure draws (the first seed,
    # layer 0, head 0, as the figure's cell reads it): checked for that head on its own too
    drawn_seed = saved_run()[2][0]
    drawn = [long[(drawn_seed, 0, 0)][d] - short[(drawn_seed, 0, 0)][d] for d in range(L)]
    assert abs(drawn[0]) <= 2e-4 and min(drawn[1:]) == drawn[1] > 0 and min(drawn[2:]) > drawn[1]
    # "as above" carries the rule's "often between two keys" to the saved biases: most lifted biases (2,501 of
    # the 40 x 63 on the saved run) lie more than 1e-3 from every bias query 63 gives a whole distance 0 to 63 back,
    # so the nearer distance lies between two whole keys; a few come within 1e-3 (the closest 1e-4), hence "often"
    gaps = torch.cat(
        [
            (torch.as_tensor(long[key][1:L])[:, None] - torch.as_tensor(s[:L])[None, :]).abs().min(1).values
            for key, s in short.items()
        ]
    )
    assert len(gaps) == 40 * (L - 1) and int((gaps > 1e-3).sum()) > 0.9 * len(gaps) and int((gaps <= 1e-3).sum()) >= 1
    assert "below_own = min(short[0] - max(fire_long[key][1:L]) for key, short in fire_short.items())" in cells["c38"]
    # fix pass 221 (read r220 #2): the appendix cell asserts the two nearest tokens' lost share in all 40 heads too
    assert "assert len(near_drop) == 40 and min(near_drop) > 0.15 and max(near_drop) < 0.3" in cells["c38"]
    drops = [
        torch.tensor(s, dtype=torch.float64).softmax(0)[:2].sum().item()
        - torch.tensor(long[key][:L], dtype=torch.float64).softmax(0)[:2].sum().item()
        for key, s in short.items()
    ]
    assert 0.15 < min(drops) and max(drops) < 0.3  # the cell's bars: 0.17 to 0.29 on the saved run
    assert "assert below_own > 0.2" in cells["c38"]


def test_fire_later_query_raises_the_keys_2_to_63_back_more_than_the_two_the_filler_needs():
    """The appendix's collapsed block "A guess about FIRE's rising loss" (the main line's table only points to it): "The
    guess: each symbol of chapter 8's filler depends only on the two before it. So the filler needs mostly two
    tokens: the query's own and the one before. A later query lifts these two least. The own token keeps its bias,
    as its $u$ stays 0, and the key one back gains less than any farther key the figure shows" (up to 63 back, in all
    40 heads). "So, for the same content scores, the two together get a smaller share of the weight", its drawn
    head's "their share of the keys 0 to 63 back falls from about nine tenths to seven tenths. Query 511 also sees
    448 farther keys, which only lower that share", and "This guess is untested". "The two together": the key one
    back alone can gain share (it does in the drawn head, 0.15 to 0.18). The appendix's box: "The query's own token
    keeps its bias", "Each key 2 to 63 back gains at least 0.26
    more than the key one back" (the gain: the bias from the last of 512 tokens minus that from the last of 64, at
    the same distance) and its untested guess, "a later query lifts every key 2 to 63 back more than these two,
    moving weight away from them". "For the same content scores" holds for any scores: the own token gains 0, the key
    one back gains g1 > 0 and every other key more than g1, so the two tokens' weight is multiplied by at most e^g1
    and the total by more (query 511's keys 64 back and beyond only add to the total)."""
    text = chapter_markdown("11_learned_position")
    assert "and a later query raises the bias of the keys 2 to 63 back more than theirs." not in text
    assert "The key one back gains less bias than each key 2 to 63 back." not in text
    assert "Moving weight away from them may be why" not in text
    assert "query 511 gives these two tokens a smaller share of the weight than query 63" not in text
    # the guess follows the result it explains, collapsed: the section's main line ends with the table and a pointer
    assert "Why might FIRE's loss rise on long inputs?" not in text and "The FIRE section gives one guess" not in text
    assert text.index("| FIRE | 0.95 nats |") < text.index("The guess: each symbol of chapter 8's filler")
    assert "For FIRE, its learned biases, after the figures, suggest a guess." not in text
    assert "For FIRE, the appendix draws its learned biases and gives a guess." not in text
    # the main line says only that the cause is untested; the guess lives in the appendix under its own heading
    assert "the appendix guesses for FIRE" not in text
    assert "FIRE and CoPE find every passkey, but their loss rises; why is not tested" not in text
    # the main line states the result; that its cause is untested, with the pointer, sits in the section's block
    assert "Why FIRE's and CoPE's losses rise is not tested; the appendix gives a guess for FIRE's." in text
    # both guesses sit in collapsed blocks only: FIRE's under its own heading, CoPE's in "What the models learned"
    main = re.sub(r"<details>.*?</details>", " ", text, flags=re.S)
    assert "Why FIRE's and CoPE's losses rise is not tested" not in main
    for guess in ("The guess: each symbol of chapter 8's filler", "a possible cause of CoPE's rising loss"):
        assert guess in text and guess not in main, guess
    assert "### A guess about FIRE's rising loss" in text
    # the lead for CoPE stays in the box "What the models learned"
    assert "One lead for CoPE: its counts of 64 or more" not in text
    assert "a possible cause of CoPE's rising loss" in text
    block = text.index("<details><summary>How a later query lifts FIRE's biases, and an untested guess</summary>")
    assert block < text.index("In every head of chapter 8's FIRE models") < text.index("The guess: each symbol")
    assert text.index("This guess is untested.") < text.index("</details>", block)
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    order = [c.get("id") for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]]
    assert "r11m-fire-read" not in order and order.index("c29") < order.index("c32") < order.index("r11m08")
    assert order.index("r11m08") < order.index("c38") < order.index("d4f418f4") < order.index("be599f5e")
    assert order.index("be599f5e") < order.index("c36") < order.index("r11m12")
    # the u-figure's reading precedes it; the drawn trained head sits beside its sentence; the box keeps the shares
    assert order.index("c13") < order.index("c14") < order.index("r11e-fire-trained-read")
    assert order.index("r11e-fire-trained-read") < order.index("r11-fire-trained")
    assert order.index("r11-fire-trained") < order.index("r11m-fire-remember") < order.index("c29")
    assert (
        "The guess: each symbol of chapter 8's filler depends only on the two before it. So the filler needs mostly"
        " two tokens:"
        " the query's own and the one before. A later query lifts these two least. The own token keeps its bias, as"
        " its $u$ stays 0, and the key one back gains less than any farther key the figure shows. So, for the same"
        " content"
        " scores, the two together get a smaller share of the weight. In the head drawn in the FIRE section, at equal"
        " scores, their"
        " share of the keys 0 to 63 back falls from about nine tenths to seven tenths. Query 511 also sees 448 farther"
        " keys, which only lower that share. This guess is untested." in text
    )
    config, *_ = saved_run()
    L = config["train_length"]
    short, long = learned_heads("fire", L), learned_heads("fire", config["eval_lengths"][-1])
    assert len(short) == 40
    gains = {key: [long[key][d] - s[d] for d in range(L)] for key, s in short.items()}
    # the saved biases are rounded to 1e-4: the own token's two biases are the same MLP output, and the margin over
    # 0.26 is 0.005, far above that rounding
    assert all(abs(g[0]) <= 2e-4 for g in gains.values())
    assert all(g[1] > 0.2 and min(g[2:]) > max(g[:2]) for g in gains.values())  # "lifted least of the keys 1 to 63"
    assert min(min(g[2:]) - g[1] for g in gains.values()) > 0.26
    # "more weight relative to its own token" (every gain g[1:] > 0.2, above) and the guess's "moving weight away
    # from them": for the same content scores on the keys 0 to 63 back (zero, and a random draw),
    # the two tokens' share of the weight falls in every head (by 0.2 % or more of it; the rounding moves it ~1e-4)
    g = torch.Generator().manual_seed(0)
    for key, s in short.items():
        draws = [torch.zeros(L, dtype=torch.float64)]
        draws += [scale * torch.randn(L, generator=g, dtype=torch.float64) for scale in (0.5, 2.0, 8.0)]
        for scores in draws:
            share = [(torch.tensor(v[:L], dtype=torch.float64) + scores).softmax(0)[:2].sum() for v in (s, long[key])]
            assert share[1] < 0.999 * share[0], key
    drawn = next(iter(short))  # the section's figure: the first seed, layer 0, head 0
    assert drawn[1:] == (0, 0)
    at_equal = [torch.tensor(v[:L], dtype=torch.float64).softmax(0) for v in (short[drawn], long[drawn])]
    assert [round(w[:2].sum().item(), 1) for w in at_equal] == [0.9, 0.7]  # "about nine tenths to seven tenths"
    assert at_equal[1][1] > at_equal[0][1]  # the key one back alone gains share: "the two together"
    _, full, seeds, _ = saved_run()  # "Query 511 also sees 448 farther keys, which only lower that share"
    every_key = full["metrics"]["fire"][seeds[0]]["learned_bias"]["512"][0][0]  # the drawn head, all 512 keys
    assert len(every_key) == 512 == L + 448
    whole = torch.tensor(every_key, dtype=torch.float64).softmax(0)[:2].sum().item()
    assert whole < at_equal[1][:2].sum().item()


def test_fire_key_8_back_from_query_511_looks_like_a_key_3_to_4_back_from_query_63():
    """The FIRE section (read r182: its two "between the keys 3 and 4 back", one of u at the starting values, one of the
    trained biases, read as one fact; read r183: the main line's link between them, "The starting values predict this
    same shift for $u$, and every trained head shows it", overstated it, as the run records no learned |c| or L_thr,
    so it is gone and the two facts are checked apart). The figure's u, and the key 8 back in the appendix's box: "At
    FIRE's starting values, the key 8 back has $u = 0.30$ from query 63 but 0.15 from query 511, the $u$ of a key 3 to
    4 back from query 63", and the box's
    "from the last of 512 tokens the key 8 back gets a bias between those of the keys 3 and 4 back from the last of
    64, in every head" (the notebook asserts it too, in the section's figure cell for its head and in the appendix for
    all 40)."""
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire = FireBias(4, L_thr_init=16.0)  # chapter 8's starting values: |c| = 0.1, a threshold of 16
    u = lambda query, d: fire.normalized_distance(torch.tensor([query]), torch.tensor([query - d]))[0, 0].item()  # noqa: E731
    assert abs(fire.c.abs().item() - 0.1) < 1e-7
    assert (round(u(63, 8), 2), round(u(511, 8), 2)) == (0.30, 0.15)
    assert u(63, 3) < u(511, 8) < u(63, 4)
    config, *_ = saved_run()
    L = config["train_length"]
    short, long = learned_heads("fire", L), learned_heads("fire", config["eval_lengths"][-1])
    assert len(short) == 40
    # the saved biases are rounded to 1e-4; every margin here is above 0.15
    assert all(s[4] + 0.1 < long[key][8] < s[3] - 0.1 for key, s in short.items())
    text = chapter_markdown("11_learned_position")
    assert "The starting values predict this same shift" not in text
    # read r186: on the main line this example echoed the u-figure's and read as following from the starting values;
    # it sits in the trained-heads block, beside the sentence that says it is measured, not derived
    example = (
        "In every trained head, for example, query 511 gives the key 8 back a bias between those that query 63 gives"
        " the keys 3 and 4 back."
    )
    flat = " ".join(text.split())
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    block = collapsed(  # fix pass 272: the block's title names the chain that now opens it
        flat,
        # fix pass 274 (reads r271a #3 and r271b #2): the title starts with the share, which now opens the block
        "What the lift does to the two nearest tokens' share, and how the check reads the heads",
    )
    assert example in block and "keys 3 and 4 back. At the starting values, $u$ shows the same shift" in block
    assert "query 511 gives the key 8 back a bias" not in main


def kerple_gaps():
    """Per method and length beyond L: each seed's loss beyond L minus KERPLE's."""
    config, *_ = saved_run()
    return {
        m: {
            n: [a - b for a, b in zip(per_seed(m, "loss_beyond", n), per_seed("kerple", "loss_beyond", n))]
            for n in config["eval_lengths"][1:]
        }
        for m in ("rope", "sinusoidal", "t5")
    }


def test_kerple_beats_rope_t5_and_sinusoidal_with_a_growing_gap_to_rope():
    """ "Here KERPLE beats RoPE, T5 and the sinusoidal encoding at $2L$, $4L$ and $8L$ in every seed" and
    "KERPLE's gap to RoPE grows with length in every seed, from under 1 nat at $2L$ to more than 3 at $8L$. The
    gap to the sinusoidal encoding is more than 3 nats at each of these lengths." """
    config, *_ = saved_run()
    lengths, gaps = config["eval_lengths"][1:], kerple_gaps()
    assert all(v > 0 for by_n in gaps.values() for seeds in by_n.values() for v in seeds)
    for seed_gaps in zip(*(gaps["rope"][n] for n in lengths)):
        assert all(a < b for a, b in zip(seed_gaps, seed_gaps[1:]))
    assert max(gaps["rope"][lengths[0]]) < 1 and min(gaps["rope"][lengths[-1]]) > 3
    assert min(min(gaps["sinusoidal"][n]) for n in lengths) > 3


def test_fire_ends_behind_kerple_and_alibi_at_8L_in_every_seed():
    """ "Here FIRE ends behind KERPLE and ALiBi on filler loss at $8L$ in every seed." """
    assert min(loss_8L("fire")) > max(loss_8L("kerple") + loss_8L("alibi"))


def test_shakespeare_fire_ahead_at_L_then_behind_and_kerple_below_alibi():
    """ "On Shakespeare (...three seeds), FIRE is ahead of KERPLE at $L$, by 0.02 to 0.03 nats. At $2L$
    the two are within 0.01 nats in every seed; from $4L$ FIRE is behind in all three. Its loss rises to $16L$ in
    every seed, while KERPLE's falls slightly.
    There KERPLE's loss is also
    about a tenth of a nat below ALiBi's at every length in all three seeds" """
    from posenc.experiments import load_results

    text = load_results("extrapolation-text", check="report")
    lengths = text["config"]["eval_lengths"]
    L_text, longest = text["config"]["train_length"], lengths[-1]
    assert lengths[0] == L_text and longest == 16 * L_text
    run = {
        m: [(r["loss"][str(L_text)], r["loss"][str(longest)]) for r in text["metrics"][m].values()]
        for m in ("fire", "kerple")
    }
    assert len(run["fire"]) == 3
    at_2L = {m: [r["loss"][str(2 * L_text)] for r in text["metrics"][m].values()] for m in ("fire", "kerple")}
    assert max(abs(f - k) for f, k in zip(at_2L["fire"], at_2L["kerple"])) < 0.01  # within 0.01 nats at 2L
    for n in (n for n in lengths if n >= 4 * L_text):  # "from 4L FIRE is behind in all three"
        at_n = {m: [r["loss"][str(n)] for r in text["metrics"][m].values()] for m in ("fire", "kerple")}
        assert all(f > k for f, k in zip(at_n["fire"], at_n["kerple"])), n
    assert all(0 <= a - b < 0.05 for a, b in run["kerple"])  # KERPLE falls slightly
    assert all(b < a for a, b in run["kerple"])
    for r in text["metrics"]["fire"].values():  # FIRE rises at each length
        losses = [r["loss"][str(n)] for n in lengths]
        assert all(a < b for a, b in zip(losses, losses[1:]))
    assert all(f[1] > k[1] and 0.015 < k[0] - f[0] < 0.035 for f, k in zip(run["fire"], run["kerple"]))
    below = [
        text["metrics"]["alibi"][seed]["loss"][n] - r["loss"][n]
        for seed, r in text["metrics"]["kerple"].items()
        for n in r["loss"]
    ]
    assert 0.05 < min(below) and max(below) < 0.2


def counting_runs():
    """(method, sentences) -> per-seed accuracy by k, from the saved ten-seed counting run, as the notebook loads it."""
    from posenc.experiments.counting import load_counting_sweep

    sweep = load_counting_sweep()
    runs = {}
    for name, per_seed in sweep["accuracy"].items():
        for seed in sweep["config"]["seeds"]:
            for n, by_k in per_seed[str(seed)].items():
                runs.setdefault((name, int(n)), []).append(by_k)
    return sweep, runs


def test_cope_beats_rope_at_k_2_and_3_in_every_saved_counting_seed():
    """The counting box: "in these ten seeds, CoPE answers at least 0.72 of the questions for every $k$ at both
    lengths, and RoPE at most 0.57 for the second and third sentence back" (the saved ten-seed run); the section's
    "at $k = 2$ and 3, CoPE's worst seed beats RoPE's best at both lengths". Its bullet "A guess that ignores
    order": "RoPE still beats that guess for every $k$ at both lengths in every seed", right
    "just under a third of the time on 8 sentences, and about a quarter on 16": its expected accuracy on the run's
    own evaluation questions (ties broken at random), for each k; RoPE stays above it by as little as 0.04 (k = 3,
    16 sentences)."""
    from posenc.experiments.counting import COUNTING_CONFIG, N_LABELS, counting_batch

    sweep, runs = counting_runs()
    cope = [a for n in (8, 16) for by_k in runs["CoPE", n] for a in by_k]
    rope_far = [a for n in (8, 16) for by_k in runs["RoPE", n] for a in by_k[1:]]  # k = 2, 3
    assert len(sweep["config"]["seeds"]) >= 10 and all(len(runs[key]) == len(sweep["config"]["seeds"]) for key in runs)
    assert min(cope) > max(rope_far) and min(rope_far) > 1 / N_LABELS
    assert min(cope) >= 0.72 and round(max(rope_far), 2) <= 0.57  # the box's "at most 0.57", at its rounding
    for n, (low, high) in ((8, (0.28, 1 / 3)), (16, (0.24, 0.29))):
        g = torch.Generator().manual_seed(COUNTING_CONFIG["eval_seed"])
        tokens, answers, k = counting_batch(COUNTING_CONFIG["eval_questions"], n, g)
        counts = torch.stack([(tokens[:, :-1] == label).sum(1) for label in range(N_LABELS)], 1)  # [b, labels]
        most = counts.max(1).values
        guess = (counts.gather(1, answers[:, None])[:, 0] == most).double() / (counts == most[:, None]).sum(1)
        for kk in (1, 2, 3):
            assert low < guess[k == kk].mean().item() < high, (n, kk)
            assert min(by_k[kk - 1] for by_k in runs["RoPE", n]) > guess[k == kk].mean().item(), (n, kk)


def test_counting_task_puts_the_kth_label_back_at_a_varying_token_distance():
    """The counting task's main line (read r177: it never said why counting sentences is hard for a token-distance
    encoding): "Each *sentence* of this small task is one of eight label tokens followed by up to five filler tokens,
    so its length varies." (read r191: its own sentence, "Sentences differ in length: the $k$-th label back sits at a
    token distance that varies from input to input", restated the lesson; the clause keeps the reason), after the
    section's lesson, "With gates that count sentences, CoPE can find the $k$-th sentence back,
    which no fixed token distance finds in every input." A property of the task, from its generator: a
    sentence is a label and 0 to 5 fillers, so the distance from the question to the k-th label back is the length of
    the last k sentences. Whether this is why CoPE wins stays the box's, untested ("Why CoPE may win, untested")."""
    from posenc.experiments.counting import COUNTING_CONFIG, K_MAX, N_LABELS, counting_batch

    text, flat, main = _chapter_views()
    said = (
        "Each *sentence* of this small task is one of eight label tokens followed by up to five filler tokens, so its"
        " length varies."
    )
    assert "Sentences differ in length" not in text
    assert main.count(said) == 1 and main.index(said) < main.index("Take an ideal head")
    # read r186: the section opens on its lesson, which carries the former "So no fixed token distance points at it
    # in every input"; the ideal head's count finds it in every input (cell c11new1's check_counts, 200 inputs), and
    # no token distance does (below: none holds in even a quarter of the inputs)
    lesson = (
        "With gates that count sentences, CoPE can find the $k$-th sentence back, which no fixed token distance finds"
        " in every input."
    )
    assert main.count(lesson) == 1 and main.index("### A counting task") < main.index(lesson) < main.index(said)
    assert "So no fixed token distance points at it in every input." not in text
    # the cause of CoPE's win stays a hedge in the box, not on the main line
    assert "no run here checks that this is the reason." in flat and "may win" not in main
    for n in (COUNTING_CONFIG["train_sentences"], *COUNTING_CONFIG["eval_sentences"]):
        g = torch.Generator().manual_seed(COUNTING_CONFIG["eval_seed"])
        tokens, answers, k = counting_batch(COUNTING_CONFIG["eval_questions"], n, g)
        question = tokens.shape[1] - 1
        for kk in range(1, K_MAX + 1):
            rows = (k == kk).nonzero().flatten().tolist()
            distances = []
            for row in rows:
                labels = (tokens[row, :question] < N_LABELS).nonzero().flatten()
                assert len(labels) == n and tokens[row, labels[-kk]] == answers[row]  # the k-th label back: the answer
                gaps = labels.diff().tolist() + [question - labels[-1].item()]  # each sentence's length, 1 to 6
                assert min(gaps) >= 1 and max(gaps) <= 6
                distances.append(question - labels[-kk].item())
            share = max(distances.count(d) for d in set(distances)) / len(distances)
            # the distance takes every value from k to 6k, and no single one holds in even a quarter of the inputs
            assert sorted(set(distances)) == list(range(kk, 6 * kk + 1)) and share < 0.25, (n, kk, share)


def test_rope_at_k_1_is_less_accurate_at_16_sentences_than_at_8_in_every_seed():
    """ "RoPE's lower accuracy at $k = 1$ on 16 sentences than on 8" (the appendix), in every saved seed. Named so, not
    a "drop", a word the chapter no longer uses for RoPE's accuracy across k either."""
    text = " ".join(chapter_markdown("11_learned_position").split())
    # fix pass 265 (read r264b #1, unclear: the figure cell asserted RoPE's mean at k = 1 above its k = 2 and 3, under
    # the comment "the title's 'RoPE drops after k = 1'", a title and a claim the chapter no longer has): the assert is
    # gone; the figure's title, "at k = 2 and 3, CoPE's worst seed beats RoPE's best", is asserted in that cell seed by
    # seed, and the appendix's comment names the claim it checks
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "RoPE drops after" not in cells["c27"] and "RoPE drops" not in text
    assert "at k = 2 and 3, CoPE's worst seed beats RoPE's best" in cells["c27"]
    assert '> max(saved["RoPE", n_sent, seed][kk] for seed in seeds_all) for kk in (1, 2))' in cells["c27"]
    assert "RoPE's drop at k = 1" not in cells["c11new1"]
    # "more padding tokens": the padding's share is about 41 % at both lengths, so only its count grows
    assert (
        "So in the saved ten seeds, RoPE's lower accuracy at $k = 1$ on 16 sentences than on 8 may come from more"
        " padding tokens" in " ".join(text.split())
    )  # scoped to the saved run (read r174: another seed, 42, scores 0.98 and 0.99)
    assert "RoPE's drop at $k = 1$" not in text
    _, runs = counting_runs()
    assert all(a[0] < b[0] for a, b in zip(runs["RoPE", 16], runs["RoPE", 8]))


def test_no_training_input_of_the_counting_task_has_a_label_or_filler_more_than_46_back():
    """The counting task's block, *Padding* (fix pass 266, read r265b #5, assert-cannot-fail: "tokens more than 48
    back, a distance no training input reaches" was checked on the padded width, 49 in every batch by construction):
    "RoPE's lower accuracy at $k = 1$ on 16 sentences than on 8 may come from more padding tokens, or from labels and
    fillers more than 46 back, where no training input has one." Checked on the data: every training batch of the
    saved sweep's seeds, drawn as train_counter draws them, has its farthest label or filler (non-padding token) from
    the question at most the said distance, and some batch reaches it; the 16-sentence test inputs (the evaluation
    seed) hold such tokens farther back."""
    from posenc.experiments.counting import COUNTING_CONFIG, PAD, counting_batch, load_counting_sweep

    text = " ".join(chapter_markdown("11_learned_position").split())
    said = re.findall(
        r"may come from more padding tokens, or from labels and fillers more than (\d+) back, where no training input"
        r" has one\.",
        text,
    )
    assert len(said) == 1 and "a distance no training input reaches" not in text
    run = load_counting_sweep()["config"]

    def reach(tokens):  # the farthest non-padding token from the question (the last token), per input
        return tokens.shape[1] - 1 - (tokens != PAD).int().argmax(1)

    train_reach = 0
    for seed in run["seeds"]:
        data = torch.Generator().manual_seed(seed)
        for _ in range(run["steps"]):
            train_reach = max(
                train_reach, reach(counting_batch(run["batch"], run["train_sentences"], data)[0]).max().item()
            )
    assert train_reach == int(said[0])
    test_16 = counting_batch(
        COUNTING_CONFIG["eval_questions"], 16, torch.Generator().manual_seed(COUNTING_CONFIG["eval_seed"])
    )[0]
    assert (reach(test_16) > train_reach).float().mean() > 0.5  # most 16-sentence test inputs hold such tokens


def test_fire_bias_takes_the_absolute_value_of_c_as_the_papers_pseudo_code_does():
    """The appendix's FIRE box (fix pass 266, read r265b #7, an omission: the chapter writes psi(x) = log(|c| x + 1)
    without saying where that differs from the paper; fix pass 267, reads r266 #1 and r266b #1, overstated: the
    sentence sat under *Choices that differ from the official code*, yet the paper's pseudo-code already takes
    |c * distance| in both logs, so FireBias differs from the paper's equation only): "FIRE's paper writes
    $\\psi(x) = \\log(cx + 1)$ with a learned $c > 0$. Its pseudo-code takes the absolute value,
    $\\log(\\lvert c x \\rvert + 1)$, and so do `FireBias` and this chapter's $\\psi$: a $c$ that training drives below
    0 acts as its absolute value." FireBias's u with c = -0.1 equals its u with c = 0.1 at every query and key, its
    bias with a negative c matches the pseudo-code's (fire_as_in_the_papers_listing), and the chapter's formula is
    written with |c|."""
    text, flat, main = _chapter_views()
    block = collapsed(flat, "How we know: the range of u, the worked values, and u in bfloat16")
    assert (
        "- **The sign of $c$.** FIRE's paper writes $\\psi(x) = \\log(cx + 1)$ with a learned $c > 0$. Its pseudo-code"
        " takes the absolute value, $\\log(\\lvert c x \\rvert + 1)$, and so do `FireBias` and this chapter's $\\psi$:"
        " a $c$ that training drives below 0 acts as its absolute value." in block
    )
    # fix pass 267 (reads r266 #1 and r266b #1): no longer listed as a choice that differs from the official code
    differs = collapsed(flat, "Choices that differ from the official code")
    assert "FIRE's paper writes" not in differs and "`FireBias` takes $\\lvert c \\rvert$, as this" not in flat
    assert flat.count("with a learned $c > 0$") == 1
    assert "\\psi(x) = \\log(\\lvert c\\rvert x + 1)" in main
    with torch.random.fork_rng():
        torch.manual_seed(0)
        pos, neg = FireBias(2, c_init=0.1, L_thr_init=16.0), FireBias(2, c_init=0.1, L_thr_init=16.0)
    with torch.no_grad():
        neg.c.fill_(-0.1)
        q, k = torch.arange(600.0), torch.arange(600.0)
        torch.testing.assert_close(neg.normalized_distance(q, k), pos.normalized_distance(q, k), rtol=0, atol=0)
        assert neg.c.item() < 0 < pos.c.item()
        # "its pseudo-code takes the absolute value ... and so does FireBias": the listing's bias, negative c
        listing = fire_as_in_the_papers_listing(neg, 48)
        torch.testing.assert_close(neg.bias(48, causal=False), listing, rtol=1e-5, atol=1e-5)


def test_alibi_appears_in_transformers_only_in_bloom_falcon_and_mpt():
    """Going further's box: "In the modeling code of transformers 5.24, ALiBi appears only in BLOOM, Falcon and MPT",
    a grep of the installed transformers' models/*/modeling_*.py for "alibi"; skipped where it is not installed. The
    sentence names the version it was checked on, so a later release that adds ALiBi does not make it false."""
    text = " ".join(chapter_markdown("11_learned_position").split())
    assert (
        "In the modeling code of transformers 5.24, ALiBi appears only in BLOOM, Falcon and MPT, models from 2022"
        in text
    )
    assert "In transformers' code, ALiBi appears only" not in text
    # fix pass 266 (read r265 #6): the main line of Going further says it too, right after "None of this chapter's
    # three methods is built into Hugging Face's transformers.", as the support for "mainly in research"
    assert (
        "None of this chapter's three methods is built into Hugging Face's transformers. Even ALiBi appears there only"
        " in BLOOM, Falcon and MPT," in text
    )
    transformers = pytest.importorskip("transformers")
    models = pathlib.Path(transformers.__file__).parent / "models"
    with_alibi = {
        p.parent.name for p in models.glob("*/modeling_*.py") if "alibi" in p.read_text(encoding="utf-8").lower()
    }
    assert with_alibi == {"bloom", "falcon", "mpt"}


def test_the_open_models_of_chapter_10s_table_all_use_rope():
    """Going further, on the main line (read r203: only the block said that no widely used open model uses these
    methods): "The open models in chapter 10's table all use RoPE; this chapter's three methods appear mainly in
    research." Chapter 10's full table has one row per entry of posenc's MODEL_ROPE_CONFIGS, and every entry rotates
    part or all of each head (rotary_dim > 0) with a RoPE base; "mainly in research": the block names the one
    framework that offers KERPLE, NeMo, and no model in transformers builds any of the three
    (test_transformers_builds_in_none_of_kerple_fire_and_cope)."""
    from posenc.book.models import MODEL_ROPE_CONFIGS

    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    further = main[main.index("## Going further") :]
    sentence_r265 = (
        "The open models in chapter 10's table all use RoPE; this chapter's three methods appear mainly in research."
    )
    # fix pass 266 (read r265 #6, unclear: chapter 10's table, the RoPE chapter's, was circular support for "mainly in
    # research"): the checkable facts first, transformers' ALiBi models (test_alibi_appears_in_transformers_only_in_
    # bloom_falcon_and_mpt, by a grep of the installed package) beside its none of the three (test_transformers_
    # builds_in_none_of_kerple_fire_and_cope), then the conclusion
    sentence = (
        "Even ALiBi appears there only in BLOOM, Falcon and MPT, and the open models in chapter 10's table all use"
        " RoPE. So this chapter's three methods appear mainly in research."
    )
    assert f"None of this chapter's three methods is built into Hugging Face's transformers. {sentence}" in further
    assert sentence_r265 not in text
    block = collapsed(" ".join(text.split()), "Which models use these methods")
    assert "NVIDIA NeMo's documentation lists KERPLE" in block
    rows = MODEL_ROPE_CONFIGS.values()
    assert all(cfg["rotary_dim"] > 0 and cfg["rope_theta"] > 0 for cfg in rows)
    ch10 = " ".join(chapter_markdown("10_rope_today").split())
    start = ch10.index("| model | position method | rotated / head |")
    table = ch10[start : ch10.index("</details>", start)]
    table_rows = re.findall(r"\| [^|]+ \| [^|]+ \| \d+ / \d+ \|", table)
    assert len(table_rows) == len(MODEL_ROPE_CONFIGS) == 17


def test_transformers_builds_in_none_of_kerple_fire_and_cope():
    """Chapter 11's Going further: "None of this chapter's three methods is built into Hugging Face's transformers",
    on the installed transformers (5.24 when this was written), on the main line; skipped where it is not installed.
    FIRE and CoPE are matched case-sensitively: kosmos2's docstrings mention "a fire"."""
    text = chapter_markdown("11_learned_position")
    assert "None of this chapter's three methods is built into Hugging Face's transformers." in text
    assert "None of the three is built" not in text  # "the three" after "Two optional parts" read as a third part
    further = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    further = further[further.index("## Going further") :]
    assert "None of this chapter's three methods is built into Hugging Face's transformers." in further
    transformers = pytest.importorskip("transformers")
    models = pathlib.Path(transformers.__file__).parent / "models"
    pattern = re.compile(r"(?i:kerple|contextual position|functional interpolation)|\bFIRE\b|\bCoPE\b")
    assert not {p.parent.name for p in models.glob("*/*.py") if pattern.search(p.read_text(encoding="utf-8"))}


def test_transformers_t5_draws_its_bias_table_with_std_d_model_to_the_minus_half():
    """Chapter 11's appendix: "`_init_weights` in transformers' `modeling_t5.py` draws it with std
    $d_{\\text{model}}^{-1/2}$", read from the installed source; skipped where transformers is not installed."""
    transformers = pytest.importorskip("transformers")
    source = (pathlib.Path(transformers.__file__).parent / "models" / "t5" / "modeling_t5.py").read_text(
        encoding="utf-8"
    )
    assert "relative_attention_bias.weight, mean=0.0, std=factor * ((d_model) ** -0.5)" in source


def test_jamba_and_nemotron_h_apply_no_rotary_embedding_in_attention():
    """Chapter 11's first box: "Hybrids such as Jamba and Nemotron-H use none in attention": their modeling files
    define `apply_rotary_pos_emb` but never call it; skipped where transformers is not installed."""
    transformers = pytest.importorskip("transformers")
    models = pathlib.Path(transformers.__file__).parent / "models"
    for name in ("jamba", "nemotron_h"):
        source = (models / name / f"modeling_{name}.py").read_text(encoding="utf-8")
        assert "def apply_rotary_pos_emb(" in source
        assert "apply_rotary_pos_emb(query" not in source and "rotary_emb(" not in source


def test_chapter_11_config_guards():
    """Chapter 11's fixed settings, which its cells quote rather than measure: "two hidden units at each of the 31
    bucket edges, 62 of a 64-unit MLP" (the placed units), "fitted at FIRE's 32" (FireBias's default width), and
    T5's std "$d_{\\text{model}}^{-1/2}$, 0.125 here" (chapter 8's model). The appendix's float32 bound on the placed
    units: 72 roundings (a 64-term sum, plus input and weights) of at most 2^-24 sum|w| each, whose sum typically
    grows as sqrt(72), not 72 (Higham and Mary 2019); the notebook asserts the measured error against it."""
    from posenc.experiments import experiment_config
    from posenc.experiments.fire_fit import fit_t5_by_construction, fit_targets

    fire, n_edges, exact, _ = fit_t5_by_construction(fit_targets(t5_table=0)["T5 buckets"])
    assert 2 * n_edges == 62 and fire.mlp[0].out_features == 64 and exact < 1e-9
    assert FireBias(1).mlp[0].out_features == 32
    assert experiment_config()["model"]["d_model"] ** -0.5 == 0.125


def test_alibi_needs_exactly_half_its_slope_times_the_span():
    """Exercise 2's answer: the constant "must exceed slope × span / 2. For ALiBi that bound is also enough, on any
    set of positions, so it is exact." The smallest constant that leaves -m|x_a - x_b| + lambda free of negative
    eigenvalues is m * span / 2, on adjacent and on random positions: 2 and 4 on the exercise's two and three
    positions one step apart, slope 4."""
    # fix pass 278 (read r275b #7, unclear: the question asks when the matrix becomes positive definite, and at the
    # bound it is only positive semidefinite): the answer says both, and the sweep below checks both, the smallest
    # eigenvalue 0 at the bound within float64 rounding (the first and last positions' rows sum to a null vector,
    # the "two ends' variables sum to 0") and positive just above it
    answer = chapter_markdown("11_learned_position")
    assert (
        "For ALiBi that bound is also enough, on any set of positions, so it is exact: at the bound no eigenvalue is"
        " negative, and above it the matrix is positive definite." in " ".join(answer.split())
    )
    assert (
        "Its smallest eigenvalue is 0 there, as the two ends' variables sum to 0. Above the bound every eigenvalue is"
        " positive, since ALiBi's bias is strictly CPD." in " ".join(answer.split())
    )
    # the notebook's answer cell sweeps 300 seeded random position sets with random slopes, besides equal spacing
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "for _ in range(300):" in cells["ex_sol"]
    assert "assert min(ratio_above) >= -1e-12 and max(ratio_below) < -1e-3" in cells["ex_sol"]
    g = torch.Generator().manual_seed(0)
    sets = [torch.arange(n, dtype=torch.float64) for n in (2, 3, 5, 17, 60)]
    sets += [
        torch.randperm(500, generator=g)[: int(n)].to(torch.float64) * 0.37
        for n in torch.randint(2, 40, (30,), generator=g)
    ]
    for n_set, x in enumerate(sets):
        slope = 4.0 if n_set < 2 else (4.0, 0.5, 1 / 256)[n_set % 3]
        kernel = -slope * (x[:, None] - x[None, :]).abs()
        half = slope * (x.max() - x.min()).item() / 2
        assert abs(smallest_psd_constant(kernel) / half - 1) < 1e-6, (n_set, len(x))
        assert n_set >= 2 or half == (2.0, 4.0)[n_set]  # the exercise's answer
        # just below the bound a negative eigenvalue remains, just above it none
        assert torch.linalg.eigvalsh(kernel + 0.99 * half).min() < 0 < torch.linalg.eigvalsh(kernel + 1.01 * half).min()
        # at the bound: positive semidefinite, smallest eigenvalue 0 up to float64 rounding, the ends' null vector
        at_bound = kernel + half
        assert abs(torch.linalg.eigvalsh(at_bound).min().item()) < 1e-12 * half * len(x), (n_set, len(x))
        ends = torch.zeros(len(x), dtype=torch.float64)
        ends[x.argmin()], ends[x.argmax()] = 1.0, 1.0
        assert (at_bound @ ends).abs().max().item() < 1e-12 * half, (n_set, len(x))
        # just above the bound (by a thousandth): positive definite, clear of rounding
        assert torch.linalg.eigvalsh(kernel + 1.001 * half).min().item() > 1e-9 * half, (n_set, len(x))


def test_narrowed_wordings():
    """The wordings a truth audit found overstated or unclear, and their narrower forms. On the counting task, the
    trained model's counts are described once, after its training ("about one per sentence, plus a little from
    fillers", test_trained_counts_sentence_rests_on_the_live_asserts); the task's paragraph only says what an ideal
    head does with it. KERPLE's and FIRE's bias "can be written as a FlexAttention `score_mod`": the notebook's
    last-but-one cell checks each against SDPA with the stored bias, eagerly on the CPU; no compiled or GPU kernel
    is checked, so the chapter claims no fused speed."""
    text = chapter_markdown("11_learned_position")
    assert "On a small task, CoPE counts sentences." not in text
    assert "On a small task, CoPE counts mostly labels" not in text
    assert "On a small task, the CoPE model trained below counts mostly labels" not in text
    # the task is defined before its result
    task = text.index("Each *sentence* of this small task is one of eight label tokens")
    assert "counts mostly labels, one per sentence" not in text
    assert "answers at most a little over half beyond the nearest sentence" not in text  # the figure's caption says it
    assert (
        "A head that counts only labels can read the answer off its counts." not in text
    )  # the next paragraph says it
    assert task < text.index("The answer is the only label at count $k$.")
    # the decoded table closes the question's own gate, which the first table opens: said before the table
    assert "1 on labels and 0 elsewhere, the question included. So the counts start at" not in text
    # one rule: the question is not a label, so the ideal head closes its gate, as the first table's last row does
    assert "Unlike in the table above, the question's own gate is closed" not in text
    # the CoPE table carries one idea; its hypothetical own-gate-closed row is gone, and the rule is stated once,
    # where the counting task first needs it (cell c23 asserts the counts 2, 2, 1, 0, 0 for that case)
    assert "| count if the query's own gate were closed |" not in text
    assert "The query's own gate counts too: open, the counts start at 1" not in text
    # fix pass 277 (read r274a #3, unclear: the sentence read as the trained model's counts, which sit about 1
    # higher as its question's gate opens, cell 54 and its blocks): "in the ideal head" scopes it to the table
    # fix pass 279 (read r275a #2, unclear: two count origins to carry, in cells 16 and 21): the convention is stated
    # once, in the CoPE section (convention_279); the counting task only refers back to its table
    assert (
        "The question is not a label, so in the ideal head its own gate is closed and the counts start at 0, as in the"
        " CoPE section's table. The answer is the only label at count $k$." in " ".join(text.split())
    )
    assert "The question is not a label, so its own gate is closed" not in text
    # read r206: the worked table's query closes its own gate before gates are explained; one clause says why such a
    # query exists, the counting task's question, whose own gate is closed (the sentence above), later in the text
    # read r208: only the hand-set ideal head closes the question's gate; the trained CoPE model leaves it about two
    # thirds open, so the example points to the ideal head
    # read r209: a learner met "count 0" in the table before learning when it happens; one sentence says it first (a
    # count includes the query's own gate, so with gates of 0 or 1 it is 0 only if that gate is closed; with every
    # gate open each count is the distance plus 1, so they start at 1: checked below on CoPE and in the notebook)
    # fix pass 221 (read r220 #4): "only when the query closes its own gate" read as "exactly when"; the condition
    # named in full, every gate from the key to the query closed (checked below on CoPE, every 0/1 gate row)
    zero = (
        "A count is 0 only when every gate from that key to the query is closed, the query's own included. With every"
        " gate open, counts start at 1: each is the distance plus 1, a plain relative position."
    )
    assert "So a count is 0 only when the query closes its own gate." not in text
    example = (
        "In this example, the query's own token at position 4 is not one of the things counted, so it closes its own"
        " gate. Below, $g_{4j}$ is query 4's gate on key $j$, and $p_{4j}$ is key $j$'s count:"
    )
    # fix pass 279 (read r275a #2, unclear: the worked examples' closed own gate and "counts start at 1" were two
    # origins, and a trained model's fractional gate on the query was said only in the appendix): one convention, for
    # the table and the ideal head (exercise 3's query opens its gate, so "worked examples" would be too wide), the
    # open-gate case, and a trained model's fractional start (checked below on CoPE: the count at the query is its own
    # gate, a sigmoid strictly between 0 and 1; the appendix's live cell prints it, cell c56)
    convention_279 = (
        "A count is 0 only when every gate from that key to the query is closed, the query's own included. In the"
        " table below and in the counting task's ideal head, the query is not one of the things counted. So it closes"
        " its own gate, and their counts start at 0 at the query. With every gate open, counts would start at 1: each"
        " would be the distance plus 1, a plain relative position. A trained model's gate is a sigmoid of its"
        " query\u2013key score, a fraction, so its counts start at a fraction. The appendix's part *A counting task*"
        " shows this in a trained model. Below, $g_{4j}$ is query 4's gate on key $j$, and $p_{4j}$ is key $j$'s"
        " count:"
    )
    # fix pass 280 (reads r276a #5 and r276b #3, unclear: three count origins on the main line before the table hid
    # the key fact): the main line says a count includes the query's own gate and that the table's query closes it
    # (convention_280); the other origins, the ideal head and a trained model's fraction go to a block under the table
    convention_280 = (
        # fix pass 285 (read r280b #4, unclear: counts shown only from a closed own gate): the examples close it, a
        # trained head opens it partly
        # fix pass 286 (reads r281a #1 and r281b #1, overstated: "about two thirds" was one seed's, 0.35 to 0.97 over
        # seeds): no number (test_cope_trained_own_gate_is_open)
        "So a count includes the query's own gate. The examples here close it: their counts start at 0. A trained head"
        " may open it, so its counts need not start at 0. Below, $g_{4j}$ is query 4's gate on key $j$, and $p_{4j}$"
        " is key $j$'s count:"
    )
    origins_280 = (
        "A count is 0 only when every gate from that key to the query is closed, the query's own included. The"
        " counting task's ideal head, too, closes the query's own gate: the query is not one of the things counted."
        " With every gate open, counts would start at 1: each would be the distance plus 1, a plain relative position."
        # fix pass 282 (read r278b #6, omission: no link to chapter 3's Shaw et al.): the open-gate case read as
        # Shaw's relative key vectors, shifted by one (test_all_open_cope_is_shaws_key_term_shifted_by_one)
        f" {shaw_282}"
        " A trained model's gate is a sigmoid of its query\u2013key score, a fraction, so its counts start at a"
        " fraction. The appendix's part *A counting task* shows this in a trained model."
    )
    main_flat = _chapter_views()[2]
    assert zero not in " ".join(text.split()) and example not in " ".join(text.split())
    # fix pass 287 (reads r282a #5 and r282b #7, unclear: three own-gate caveats came before the table that defines a
    # count): one sentence after the table, right after key 1's sum that includes the query's gate; the trained
    # head's open gate is the block's ("A trained model's gate is a sigmoid ..., so its counts start at a fraction.")
    convention_287 = (
        "Key 1's count sums the gates of keys 1 to 4, its own and the query's included: $1 + 1 + 0 + 0 = 2$. So a count"
        " includes the query's own gate; these examples close it, so their counts start at 0."
    )
    assert convention_279 not in " ".join(text.split()) and convention_280 not in main_flat
    assert main_flat.count(convention_287) == 1
    assert main_flat.index("| count $p_{4j}$ | 2 | 2 | 1 | 0 | 0 |") < main_flat.index(convention_287)
    assert "Below, $g_{4j}$ is query 4's gate on key $j$, and $p_{4j}$ is key $j$'s count:" in main_flat
    assert origins_280 in " ".join(text.split()) and origins_280 not in main_flat
    assert " ".join(text.split()).index("| count $p_{4j}$ |") < " ".join(text.split()).index(origins_280)
    assert text.index("The counting task's ideal head, too, closes") < text.index(
        "The question is not a label, so in the ideal head its own gate"
    )
    q, k = torch.randn(2, 1, 9, 8).unbind(0)  # random content: the count at the query is its own gate, a fraction
    counts = CoPE(8, npos_max=16).positions(q[0], k[0])
    own = torch.sigmoid((q[0] * k[0]).sum(-1) / math.sqrt(8))
    torch.testing.assert_close(counts.diagonal(), own)
    assert ((0 < own) & (own < 1)).all()
    assert "gates $(1, 0, 1, 0, 0, 1)$ on keys 0 to 5; key 5 is the" in text  # exercise 3's query opens its gate
    flat_cope = " ".join(text.split())  # fix pass 279: the convention, right before the table
    # fix pass 287 (reads r282a #5 and r282b #7): now right after the table, in one sentence
    assert flat_cope.index("| gate $g_{4j}$ |") < flat_cope.index(convention_287)
    # fix pass 220 (read r219 #3): the counting task names the contrast where its ideal head closes the question's
    # gate: "With such gates, counts start at 1 when the query's own gate is open, and at 0 when it is closed, as in
    # the table above." With gates of 0 or 1 the smallest count is the query's own token's, its own gate alone (a
    # count sums the gates from the key to the query, both included: below), and the table's query closes its gate
    origin = (
        "With such gates, counts start at 1 when the query's own gate is open, and at 0 when it is closed, as in the"
        " table above. The question is not a label, so in the ideal head its own gate is closed and the counts start"
        " at 0."
    )
    # fix pass 279 (read r275a #2): said once, in the CoPE section (convention_279); the counting task refers back
    assert "With such gates, counts start at 1" not in text
    origin = (
        "The question is not a label, so in the ideal head its own gate is closed and the counts start at 0, as in the"
        " CoPE section's table."
    )
    flat_text = " ".join(text.split())
    assert "1 on labels and 0 elsewhere. " + origin in flat_text
    assert flat_text.index("| gate $g_{4j}$ |") < flat_text.index(origin)
    assert "| gate $g_{4j}$ | 0 | 1 | 1 | 0 | 0 |" in text and "| count $p_{4j}$ | 2 | 2 | 1 | 0 | 0 |" in text
    for bits in range(32):  # every 0/1 gate row on keys 0 to 4, query at 4: a count is 0 only with the own gate closed
        gates = torch.tensor([(bits >> k) & 1 for k in range(5)], dtype=torch.float32)
        counts = CoPE(1, npos_max=8).positions(torch.ones(5, 1), (400 * gates - 200)[:, None])[4]
        assert bool((counts == 0).any()) == (gates[4] == 0), gates
        assert counts.min().item() == counts[4].item() == gates[4].item(), gates  # "start at 1 ... and at 0"
        assert counts.tolist() == gates.flip(0).cumsum(0).flip(0).tolist(), gates  # key to query, both included
        for j in range(5):  # fix pass 221: key j's count is 0 exactly when every gate from j to the query is closed
            assert (counts[j].item() == 0) == bool((gates[j:] == 0).all()), (gates, j)
        if bool((gates == 1).all()):
            assert counts.tolist() == [5, 4, 3, 2, 1]
    assert "FlexAttention can compute it score by score" not in text
    assert "so each can be written as a FlexAttention `score_mod`" not in text  # the appendix says it, with its term
    assert "FlexAttention computes a bias inside one when it is given as a `score_mod`" in text
    assert "its position term hides no far passkey" not in text
    # the takeaways use no term the main line has not met: FlexAttention and `score_mod` live in the appendix
    assert "FlexAttention" not in text[text.index("## Takeaways") : text.index("## Exercises")]
    # the cost table is Going further's
    assert "| FIRE | its MLP, 32 hidden units here; past $L_{\\text{thr}}$ each new query runs it again" in text


def test_costs_stay_in_their_blocks_not_in_the_takeaways():
    """Each method's cost when generating text is taught in collapsed material only: the FIRE section's block "What
    this costs when generating text" ("Past $L_{\text{thr}}$, each new query rescales all its keys' $u$, so FIRE reruns
    its MLP over every key for each new token. KERPLE's bias for each distance can be computed once and reused.";
    its two claims are checked in test_fire_long_input_puts_the_key_one_back_in_a_gap_inside_the_trained_range) and
    the appendix's cost table, whose rows the notebook's last cells check (FlexAttention's `score_mod` against SDPA;
    CoPE's walk in blocks). Read r206: a takeaway restates the main line, and the main line never taught the costs, so
    the takeaways' cost bullet (reads r178-r188) is gone; its claims stay checked here, against the block and the
    table (history: read r178 replaced a pointer "see *Going further*" with that bullet; read r188 added CoPE's)."""
    text = chapter_markdown("11_learned_position")
    takeaways = " ".join(text[text.index("## Takeaways") : text.index("## Exercises")].split())
    old_line = (
        "- KERPLE's bias for each distance can be computed once and reused. Past $L_{\\text{thr}}$, FIRE reruns its MLP"
        " over every key for each new token."
    )
    assert old_line not in takeaways and "see *Going further*" not in takeaways
    for word in ("reruns", "recomputes", "computed once", "cache"):
        assert word not in takeaways, word
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]]
    (takeaway_cell,) = [c for c in cells if c.startswith("## Takeaways")]
    bullets = re.findall(r"^- ", takeaway_cell, flags=re.M)
    assert len(bullets) == 4  # the three methods' lessons and chapter 8's result, each taught on the main line
    # CoPE's row of the cost table, "every gate of the row, then their running sum, for each new token; no position
    # can be cached": two queries that differ only in their vector, at the same position, give the same keys different
    # counts; the same query vector gives the same counts
    cope = CoPE(8, npos_max=16)
    gen = torch.Generator().manual_seed(0)
    k = torch.randn(1, 1, 6, 8, generator=gen, dtype=torch.float64)
    q1, q2 = (torch.randn(1, 1, 1, 8, generator=gen, dtype=torch.float64) for _ in range(2))
    p1, p2 = (cope.positions(q, k, causal=True).double() for q in (q1, q2))
    assert float((p1 - p2).abs().max()) > 0.1
    torch.testing.assert_close(cope.positions(q1.clone(), k, causal=True).double(), p1)
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    flat = " ".join(text.split())
    fire_section = flat[flat.index("## FIRE: an MLP") : flat.index("## CoPE: count only")]
    cost = collapsed(fire_section, "What this costs when generating text")
    assert (
        "FIRE reruns its MLP over every key for each new token. KERPLE's bias for each distance can be computed once"
        " and reused." in cost
    )
    # fix pass 225 (read r224 #5, an omission: a 2025-26 engineer asks first whether a method decodes cheaply): one
    # main-line sentence per method in *Going further* (test_decoding_cost_of_each_method_on_the_main_line); the FIRE
    # section's main line and the takeaways stay without it
    further = main[main.index("## Going further") :]
    assert main.count("FIRE reruns its MLP") == 1 and "FIRE reruns its MLP" in further
    assert "what each method costs inside a *fused attention routine*, one that never stores the matrix of logits" in (
        further
    )
    assert "### Going further: what they cost in a fused routine" in text
    costs = " ".join(text[text.index("### Going further: what they cost in a fused routine") :].split())
    for row in (
        "| KERPLE | one lookup per distance; with a cache, kept and extended |",
        "| FIRE | its MLP, 32 hidden units here; past $L_{\\text{thr}}$ each new query runs it again over all its"
        " keys |",
        "| CoPE | every gate of the row, then their running sum, for each new token; no position can be cached |",
    ):
        assert row in costs, row


def test_fire_long_input_puts_the_key_one_back_in_a_gap_inside_the_trained_range():
    """The FIRE section's table at the starting values (|c| = 0.1, threshold 16): keys 1, 8 and 63 back from queries
    63 and 511, and its consequence, concrete first: "The MLP maps $u$ alone to a bias. So it treats the key 8 back
    from query 511 like a key 3 to 4 back from query 63: its $u$ lies between theirs." (asserted in the figure's
    cell: 0.132 < 0.149 < 0.169, and below with the library's FireBias), then the general rule. The keys one and two
    back from query 511 lie between two values a 64-token input does produce (0 on the query's own token, 0.048 one key
    back); the main line names them, scoped to the starting values: "At these starting values, the $u$ of a
    64-token input lie close together but for one gap: none lies between 0, on the query's own token, and about 0.05.
    From query 511, only the keys 1 and 2 back fall in that gap." The FIRE box keeps them, with that reading: "From
    query 511, the keys
    1 and 2 back get a smaller $u$
    than any key before the query in a 64-token input. Both lie between two values such an input does produce: 0, on
    the query's own token, and 0.048, one key back from query 63. So the MLP interpolates there. These are starting
    values: chapter 8's run keeps no learned $|c|$ or $L_{\\text{thr}}$". Over every causal pair of a 64-token input,
    the smallest u above 0 is 0.048 (query 63, key one back), and u = 0 only on the query's own token; from query 511
    the keys 1 and 2 back get less, but more than 0, the key 3 back more."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    assert "**Check.** Staying inside $[0, 1]$ is not staying among the values" not in text
    assert "the grey band in the figure" not in text and "that no 64-token input produces" not in text
    assert "a $u$ that training on 64 tokens never fitted" not in text
    assert "So $u$ stays in the trained range, but" not in text
    flat_main = " ".join(main.split())
    # no fractional "key 3 to 4 back": the two whole keys, and the reason in one clause (the MLP meets no new input
    # there: both neighbours' u come from query 63, inside a 64-token input)
    assert "a key 3 to 4 back" not in main
    # the rule, scoped (an MLP that sees u alone; keys 1 or more back; a later query past L_thr), then one concrete
    # case in place of a chain of pronouns: the u that query 511 gives the key 8 back is the u query 63 would give a
    # distance of about 3.4, between two whole keys (checked below from FireBias and the formula)
    # read r191: the figure's reading was a hardest place (a log axis, "the dotted line"): the rule first, then one
    # sentence on what the figure draws and why its axis is logarithmic, then the dotted line defined by what it joins
    # (the figure's cell draws it level at the u of the key 8 back from query 511, to query 63's curve between its keys
    # 3 and 4; checked at the end of this test), then the case
    # read r199: the paragraph was a hardest place; its lesson comes first, in plain words ("the later the query, the
    # nearer each key before it looks": a comparison between queries, not "nearer than it is"), then the rule, then
    # the dotted line in two sentences; the log axis and the match point between two dots are the figure block's
    # read r204: "each key" meant a fixed distance, while a learner following one token sees it move farther back as
    # the query advances: the lesson and the rule compare queries at the same distance; the dotted line is the
    # figure block's, and the example needs no figure (both of query 63's neighbouring u checked at the end)
    # read r207: "the threshold" names the term before its symbol
    # read r209 (hardest place): the FIRE passage opens with its one lesson, the nearer look and, in the trained heads,
    # what it does to the weight (the lift of the keys 2 or more back above the two nearest tokens', and their lost
    # share: test_fire_later_query_gives_every_distance_a_higher_bias, all 40 heads)
    # fix pass 288 (read r283b #6, overstated, trivial: at distance 0, u is 0 from every query): "of 1 or more", as
    # the block under it says
    lesson = (
        "Past the threshold $L_{\\text{thr}}$, the later the query, the nearer a given distance of 1 or more looks to"
        " FIRE's MLP."
    )
    # read r203: the dotted line in one step, from the far key to the point of query 63's curve with its u; "as its
    # divisor grows" said whose divisor and why it grows: psi(max(i, L_thr)) rises with the query's position i
    # structural pass 217 (a hardest place): the main line keeps the lesson, the example and what the MLP sees; the
    # rule's three steps are a short block right after it (why_smaller), checked below at queries 16, 63, 511, 4095
    # fix pass 281 (read r277a #2, unclear: the main line needed the figure's block to be read): the dotted line
    # named as the example's key, then its u and what the MLP sees
    rule = (
        # fix pass 282 (read r278a #4, unclear: "the figure's dotted line" came before the figure): "In the figure
        # below"; the figure is the next cell's
        f"{lesson} In the figure below, drawn at the starting values, the dotted line marks the key 8 back from query"
        " 511. Its $u$ lies"
        " between those that query 63 gives its keys 3 and 4 back. The MLP sees only $u$, so to the MLP, that key looks"
        " like one 3 to 4 back from query 63."
    )
    why_smaller = (
        "<details><summary>Why a later query gives a smaller u</summary> Up to position $L_{\\text{thr}}$, a query's"
        " $u$ depends on the distance only. Past it, a later query gives each key 1 or more back a smaller $u$ than an"
        " earlier query gives at that distance, since its divisor $\\psi(i)$ is larger."
        # fix pass 285 (read r280a #7, omission: the origin of FIRE's i): the book's 0-based positions are FIRE's
        " Positions count from 0, so FIRE's $i$ is the book's 0-based query position, and query 0 divides by"
        " $\\psi(L_{\\text{thr}})$. From any one query, a nearer key gets a smaller $u$. </details>"
    )
    assert "where no key sits" not in flat_main
    # fix pass 218 (read r217): the example is the main line's and the figure's; the block keeps what only it says,
    # the log axis, the dots and why the dotted line ends between two of them (its left end, between, lies between
    # query 63's dots at 3 and 4, and u from one query grows strictly with the distance: both checked below)
    figure_block = (
        "<details><summary>Reading the figure</summary> The figure draws $u$ for three queries, on a log axis so that"
        " distances from one to thousands fit. Keys sit at whole distances, marked by dots near the query. The dotted"
        " line ends between two of query 63's dots: no key of query 63 gets exactly the $u$ it marks. </details>"
    )
    assert "Its dotted line joins the key 8 back from query 511" not in " ".join(text.split())
    assert "The figure draws $u$ for three queries" not in flat_main and "log axis" not in flat_main
    # the lesson's comparison: past the threshold 16, each later query gives every key 1 or more back a smaller u,
    # and from any one query u grows with the distance, so the later query's u is an earlier query's u of a nearer
    # key (both checked below, for queries 16, 63, 511 and 4095)
    assert "An earlier query would give that $u$ to a nearer distance" not in text  # the pronoun chain, replaced
    assert "a smaller $u$: the $u$ an earlier query gives a nearer distance" not in text  # three ideas, one sentence
    # the concrete gap, in place of "can fall between the values a 64-token input gives": its numbers are read from
    # the text here and checked against FireBias at the end of this test (the length, 0.05, the query, the keys).
    # The narrower true claim: almost every u from query 511 is one that no 64-token input gives exactly, so "only
    # the keys 1 and 2 back get unseen inputs" would be false; the one wide stretch with no 64-token input is (0, 0.048)
    # the gap itself is the FIRE box's (read r168: evidence the main line never used again); its numbers are read from
    # the box here and checked against FireBias at the end of this test (the query, the keys, the length, 0.048)
    assert "lie close together but for one gap" not in flat_main
    gap_said = re.findall(
        r"From query (\d+), the keys (\d+) and (\d+) back get a smaller \$u\$ than any key before the query in a"
        r" (\d+)-token input\. Both lie between two values such an input does produce: 0, on the query's own token,"
        r" and ([0-9.]+), one key back from query 63\.",
        " ".join(text.split()),
    )
    assert len(gap_said) == 1
    # "every u of a long input lies inside the range a 64-token input spans, only packed closer together" was true
    # only as u in [0, 1]: from query 511 the keys 1 and 2 back fall between two values a 64-token input gives (0 and
    # 0.048; asserted at the end of this test and in the notebook's FIRE box cell)
    assert "lies inside the range a 64-token input spans" not in text
    assert "Every $u$ of a long input lies inside the range" not in text  # the range claim is scoped to L_thr = 16
    assert "So there the MLP interpolates" not in text  # "there" had no clear referent
    # "$u$ stays in $[0, 1]$" at 16 (the range), and a long input's u sit closer together: from the last of 512
    # and of 4096 tokens, every key's u (own token included) lies within the u of the last of 64 tokens, 0 to 1,
    # and both the largest and the median gap between neighbouring values are smaller (the median by over tenfold)
    with torch.random.fork_rng():
        fire_range = FireBias(4, L_thr_init=16.0)

    def all_u(q):
        return fire_range.normalized_distance(torch.tensor([q]), q - torch.arange(q + 1)).detach()[0].sort().values

    short_u = all_u(63)
    assert short_u[0] == 0 and abs(short_u[-1] - 1) < 1e-6
    for q in (511, 4095):
        long_u = all_u(q)
        assert long_u[0] >= short_u[0] and long_u[-1] <= short_u[-1] + 1e-6
        assert long_u.diff().max() < short_u.diff().max() and long_u.diff().median() < short_u.diff().median() / 10
    # the scope is needed: with the threshold at 128 (above 63), a 64-token input never reaches u = 1 (its largest u
    # is psi(63)/psi(128) = 0.757 at |c| = 0.1), while query 511 gives key 0 u = 1, outside the short input's range
    with torch.random.fork_rng():
        fire_128 = FireBias(4, L_thr_init=128.0)

    def all_u_128(q):
        return fire_128.normalized_distance(torch.tensor([q]), q - torch.arange(q + 1)).detach()[0].sort().values

    short_128 = torch.cat([all_u_128(q) for q in range(64)]).max()
    assert abs(short_128 - math.log(7.3) / math.log(13.8)) < 1e-4 and short_128 < 0.76
    assert abs(all_u_128(511)[-1] - 1) < 1e-6 and all_u_128(511)[-1] > short_128 + 0.2
    # the cost sentences, in a block of their own after the figure's case (read r191: a second idea beside the
    # section's lesson); past the threshold a new query changes the u
    # (so the bias) of every key 1 or more back, while up to it the u depends on the distance only; KERPLE's bias
    # depends on the distance alone, so each distance's value, once computed, serves every later query (checked
    # below); the appendix's cost table says the same in FIRE's and KERPLE's rows
    cache = (
        "Past $L_{\\text{thr}}$, each new query rescales all its keys' $u$, so FIRE reruns its MLP over every key for"
        " each new token. KERPLE's bias for each distance can be computed once and reused."
    )
    assert "cache cannot keep" not in text  # a key-value cache stores no biases, for any method
    assert rule in flat_main and cache not in flat_main
    flat_text = " ".join(text.split())
    cost_block = "<details><summary>What this costs when generating text</summary> " + cache + " </details>"
    assert flat_text.count(cost_block) == 1 and flat_text.count(why_smaller) == 1
    # fix pass 273 (read r270b #8, unclear: the dotted line the figure draws was explained only in the figure's block):
    # one main-line sentence after the rule says what it marks (the figure's cell: level at late_8, the u of the key 8
    # back from query 511, from that key to query 63's curve, checked at the end of this test)
    dotted = "In the figure below, the dotted line marks that key's $u$, from the key 8 back to query 63's curve."
    # fix pass 281 (read r277a #2): the dotted line is the rule's second sentence (rule)
    assert dotted not in flat_text
    assert flat_text.index(rule + " " + why_smaller + " " + figure_block + " " + cost_block) >= 0
    assert (
        "| FIRE | its MLP, 32 hidden units here; past $L_{\\text{thr}}$ each new query runs it again over all its"
        " keys |" in text
    )
    assert "| KERPLE | one lookup per distance; with a cache, kept and extended |" in text
    with torch.random.fork_rng():
        kerple = KerpleBias(4)
    for n in (17, 200, 512):  # the last query of n + 1 keys gives each key d back the bias the last of n gave it
        before = kerple.bias(1, n).detach()[:, 0].flip(-1)  # [h, n]: keys 0 to n - 1 back
        after = kerple.bias(1, n + 1).detach()[:, 0].flip(-1)[:, :n]
        # the same bias up to float32 rounding (different shapes may take vectorized or scalar log paths): a few ulps
        # of biases below 20 in size, far under the gap between neighbouring distances' biases
        by_distance = kerple.bias_by_distance(torch.arange(n)).detach()
        torch.testing.assert_close(after, before, rtol=0, atol=1e-5)
        torch.testing.assert_close(by_distance, before, rtol=0, atol=1e-5)
        assert float(before.abs().max()) < 20 and float(before.diff(dim=-1).abs().min()) > 1e-4
    # "The MLP maps $u$ alone to a bias": up to the threshold the same distance has the same u from every query, so
    # queries 8 and 16 give the keys 0 to 8 back the same bias, key by key, though they sit 8 positions apart
    with torch.random.fork_rng():
        fire_mlp = FireBias(4, L_thr_init=16.0)
    near = fire_mlp.bias_at(torch.tensor([8]), torch.arange(9)).detach()[:, 0].flip(-1)  # keys 0 to 8 back
    same = fire_mlp.bias_at(torch.tensor([16]), torch.arange(8, 17)).detach()[:, 0].flip(-1)
    # the same bias up to float32 rounding (the MLP runs on inputs of different shapes): a few ulps of biases of size
    # about 1, far under the gap between the nearest keys' biases
    torch.testing.assert_close(near, same, rtol=0, atol=1e-5)
    assert float(near.abs().max()) < 10 and float(near[:, :2].diff(dim=-1).abs().max()) > 1e-3

    def u_by_distance(q):  # the u of the keys 1 to q back from query q
        return fire_range.normalized_distance(torch.tensor([q]), q - torch.arange(1, q + 1)).detach()[0]

    for q in (200, 511):  # past 16: query q + 1 rescales the u of every distance 1 to q by psi(q) / psi(q + 1) < 1
        scale = math.log(0.1 * q + 1) / math.log(0.1 * (q + 1) + 1)
        assert scale < 1 - 4e-4
        assert torch.allclose(u_by_distance(q + 1)[:q] / u_by_distance(q), torch.full((q,), scale), atol=1e-5)
    for q in (8, 14):  # up to 16: the same distance gets the same u from query q and query q + 1 (cacheable)
        assert torch.allclose(u_by_distance(q + 1)[:q], u_by_distance(q), atol=1e-6)
    # read r206: the reason folded into the rule, "since its divisor $\psi(i)$ is larger": past the threshold a query
    # i divides by psi(i), so u psi(i) = psi(d) for each key d back, and any earlier query divides by less
    # (psi(max(i', 16)) < psi(i) for i' < i), checked on FireBias for queries past 16 and earlier ones on either side
    for q in (63, 511):
        d = torch.arange(1, q + 1, dtype=torch.float32)
        torch.testing.assert_close(u_by_distance(q) * math.log(0.1 * q + 1), torch.log(0.1 * d + 1), atol=1e-5, rtol=0)
        for earlier in (5, 16, q - 1):
            assert math.log(0.1 * max(earlier, 16) + 1) < math.log(0.1 * q + 1) - 1e-3, (q, earlier)
    assert "The reason is that $u$'s divisor grows with the query's position." not in text
    assert "the input of a nearer key" not in text  # split: the smaller u, then whose u it is
    assert flat_main.count("between those that query 63 gives its keys 3 and 4 back") == 1
    assert "between those of the keys 3 and 4" not in flat_main and flat_main.count("dotted line") == 1  # fix pass 273
    # "At the starting values": fire_u's defaults are the starting values the section names, and the FIRE box says
    # the same of its worked values ("chapter 8's run keeps no learned |c| or L_thr"), which the main line leaves there
    assert "These are the starting values' numbers" not in text
    assert "In code, at chapter 8's starting values, $|c| = 0.1$ and $L_{\\text{thr}} = 16$:" in flat_main
    assert "These are starting values: chapter 8's run keeps no learned $|c|$ or $L_{\\text{thr}}$" in text
    assert "From an earlier query, that smaller $u$ belongs to a nearer key" not in text  # the rule is stated once
    assert "so it gives that key the input of a nearer key" not in text
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire0 = FireBias(4, L_thr_init=16.0)  # the section's starting values, |c| = 0.1 and threshold 16

    def u_last(n, d):  # the key d back from the last of n tokens
        return fire0.normalized_distance(torch.tensor([n - 1]), torch.tensor([n - 1 - d]))[0, 0].item()

    assert u_last(64, 3) + 0.01 < u_last(512, 8) < u_last(64, 4) - 0.01  # "between those of the keys 3 and 4 back"
    # the FIRE box's "the $u$ that query 63 would give a distance of about 3.4" (the main line says only "between those
    # of the keys 3 and 4 back"): solve psi(d) / psi(63) = u for d, at |c| = 0.1
    box_said = re.findall(
        r"From query 511, the key 8 back gets the \$u\$ that query 63 would give a distance of about"
        r" (\d+\.\d)\.",
        " ".join(text.split()),
    )
    assert len(box_said) == 1 and "about 3.4" not in flat_main
    same_d = (math.exp(u_last(512, 8) * math.log(0.1 * 63 + 1)) - 1) / 0.1
    assert (
        round(same_d, 1) == float(box_said[0]) == 3.4
        and abs(u_last(64, same_d) - u_last(512, 8)) < 1e-5
        and 3 < same_d < 4
    )
    # the dotted line: level at the u of the key 8 back from query 511, from there to where query 63's curve, drawn
    # straight on the log axis between its keys 3 and 4 back, reaches that u
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    figure = next(c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c.get("id") == "c14")
    figure = "".join(figure["source"])
    assert "between = 3 * (4 / 3) ** ((late_8 - near_3) / (near_4 - near_3))" in figure
    # "three queries, on a log axis so that distances from one to thousands fit": queries 63, 511 and 4095, each drawn
    # from the key 1 back to its farthest key
    assert "for n, query in enumerate((63, 511, 4095)):" in figure and 'ax.set_xscale("log")' in figure
    assert "d = torch.arange(1, query + 1)" in figure and "xlim=(1, 5000)" in figure
    assert 'ax.plot([between, 8], [late_8, late_8], color="black", ls=":"' in figure
    # the figure block's "Keys sit at whole distances, marked by dots near the query": dots on the first 8 distances
    assert 'ax.plot(d[:8], u[:8], color=f"C{n}", ls="none", marker="o", ms=3)' in figure
    assert "assert 3 < between < 4" not in figure  # implied by the assert on late_8 just above it
    assert "u_of[q].diff().median()" not in figure  # no text claims that a long input's u sit closer (read r169)
    assert "u_of[q][0] >= u_of[63][0]" not in figure  # the range holds by the formula: not asserted in the figure
    t = (u_last(512, 8) - u_last(64, 3)) / (u_last(64, 4) - u_last(64, 3))
    assert 3.1 < 3 * (4 / 3) ** t < 3.9
    # the table of keys 1, 8 and 63 back lives in the FIRE box; the main line states its one point once
    assert "| $u$ from query 63 |" not in main
    assert (
        "| key, tokens back | 1 | 8 | 63 | |---|---|---|---| | $u$ from query 63 | 0.048 | 0.30 | 1.00 | | $u$ from"
        " query 511 | 0.024 | 0.15 | 0.50 |" in text
    )
    # the bound u <= 1 comes from d <= max(i, L_thr), said with the rule; the divisor's growth causes the squeeze
    assert "so no key's $u$ passes 1" not in text
    # "Below $L_{thr}$" read as distances below 16, false: from query 511, keys 1 and 2 back get a u that
    # depends on the query. The sentence names the query's position
    assert "Below $L_{\\text{thr}}$, $u$ depends" not in text
    assert "Up to position $L_{\\text{thr}}$, a query's $u$ depends on the distance only. Past it," in why_smaller
    assert "a query's $u$ depends on the distance only" not in flat_main  # structural pass 217: the block's
    assert "so the MLP sees a different input" not in text
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire16 = FireBias(1, L_thr_init=16.0)

    def u_of(i, d):
        return fire16.normalized_distance(torch.tensor([i]), torch.tensor([i - d]))[0, 0].item()

    for d in (1, 2, 8):  # the same u from every query at position 16 or before; a smaller one from any later query
        at_16 = u_of(16, d)
        assert all(abs(u_of(i, d) - at_16) < 1e-6 for i in range(d, 17))
        assert all(u_of(i, d) < at_16 - 1e-4 for i in (17, 64, 511))
    # "An earlier query would give that $u$ to a nearer ... distance": u rises with the distance from any one query,
    # so the earlier query meets the later query's smaller u at a nearer distance (d = 0 gives u = 0 from every query)
    for early, late in ((16, 64), (63, 511), (511, 4095)):
        dists = torch.arange(early + 1)
        early_u = fire16.normalized_distance(torch.tensor([early]), early - dists).detach()[0]
        assert (early_u.diff() > 0).all() and early_u[0] == 0
        for d in (1, 2, 8, early):
            later = u_of(late, d)
            assert 0 < later < u_of(early, d) and int((early_u <= later).sum()) - 1 < d  # matched below d
    # "often between two keys": from query 511, most keys (409 of 511) get a u more than 1e-3 from every whole
    # key's u from query 63, so the nearer distance lies between two whole keys; some come close (the key 511 back
    # gets u = 1, as the key 63 back from query 63), hence "often", not "always"
    whole = fire16.normalized_distance(torch.tensor([63]), 63 - torch.arange(64)).detach()[0]
    late_all = fire16.normalized_distance(torch.tensor([511]), 511 - torch.arange(1, 512)).detach()[0]
    gap = (late_all[:, None] - whole[None, :]).abs().min(1).values
    assert int((gap > 1e-3).sum()) > 511 // 2 and int((gap < 1e-5).sum()) >= 1
    # structural pass 217: the bound's derivation is a short block under the rule; the main line keeps its purpose
    # ("Its goal: however long the input, $u$ stays in $[0, 1]$", test_fire_goal_and_teaching_function) and the floor
    # fix pass 223 (read r222: the opening promises to "explain why it stays in [0, 1]", and only a block did): the
    # two-sentence reason is the main line's again, right after the floor (the bound itself: checked just below)
    assert "<summary>Why u stays in [0, 1]</summary>" not in text
    assert (
        "Why $u$ stays in $[0, 1]$: a key up to the query is at most $i$ back, so $d \\le \\max(i, L_{\\text{thr}})$."
        " For any $c \\ne 0$ and $L_{\\text{thr}} > 0$, $\\psi$ rises from $\\psi(0) = 0$, so $0 \\le u \\le 1$ at any"
        " length." in flat_main
    )
    assert "explain why it stays in $[0, 1]$ for every key up to the query" in flat_main
    assert flat_main.index("The threshold sets a floor on the divisor") < flat_main.index("Why $u$ stays in")
    assert (
        "The threshold sets a floor on the divisor, so an early query does not spread its few keys over the whole of"
        " $[0, 1]$." in flat_main
    )
    assert "the keys 1 and 2 back get a smaller $u$ than any key before the query in a 64-token input." in text
    assert (
        "Both lie between two values such an input does produce: 0, on the query's own token, and 0.048, one key back"
        " from query 63. So the MLP interpolates there." in text
    )
    assert "These are starting values: chapter 8's run keeps no learned $|c|$ or $L_{\\text{thr}}$" in text
    _, full, seeds, _ = saved_run()  # what the run keeps of each FIRE model: no |c|, no threshold
    for seed in seeds:
        kept = set(full["metrics"]["fire"][seed])
        assert "learned_bias" in kept and not any(re.search(r"thr|threshold|\bc\b|abs_c", k) for k in kept), kept
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire = FireBias(4, L_thr_init=16.0)
    pos = torch.arange(64)
    u = fire.normalized_distance(pos, pos).detach()
    causal = torch.ones(64, 64).tril().bool()
    assert torch.equal(u[causal] == 0, torch.eye(64).bool()[causal])  # 0 only on the query's own token
    nearest = u[causal][u[causal] > 0].min().item()
    assert float(u[causal].min()) == 0  # the own token's u, psi(0) = 0 exactly: "the two smallest values", 0 and 0.048
    assert round(nearest, 3) == 0.048 and abs(nearest - u[63, 62].item()) < 1e-7
    far = fire.normalized_distance(torch.tensor([511]), torch.tensor([510]))[0, 0].item()
    assert round(far, 3) == 0.024 and 0 < far < nearest
    late = fire.normalized_distance(torch.tensor([511]), 511 - torch.arange(1, 512))[0].detach()  # keys 1 to 511 back
    assert (late[:2] < nearest).all() and (late[2:] > nearest).all()  # "the keys 1 and 2 back get a smaller u"
    # the main line's "only the keys 1 and 2 back get a $u$ between 0 and 0.048, the two smallest values a 64-token
    # input gives": every key 1 to 511 back scanned; 0 (the own token) and 0.048 are the 64-token input's two smallest
    # u (above)
    query_said, *keys_said, length_said, top_said = gap_said[0]
    below = [d for d in range(1, 512) if 0 < late[d - 1] < nearest]
    assert int(query_said) == 511 and [int(k) for k in keys_said] == below == [1, 2]
    assert top_said == f"{nearest:.3f}" == "0.048" and int(length_said) == pos.numel() == 64
    # over every causal pair of a 64-token input, the widest gap between neighbouring u is this one, 0 to 0.048, and
    # every other is under a fifth of it (the next, just below 1, 0.007): the only stretch the long input's keys 1 and
    # 2 back fall into
    gaps = u[causal].double().unique().diff()
    assert gaps[0] == gaps.max() and abs(gaps[0].item() - nearest) < 1e-7 and gaps[1:].max() < gaps[0] / 5
    # ... but above 0, the own token's u: "between two values such an input does produce"
    assert (late[:2] > 0.02).all()
    u = lambda query, d: fire.normalized_distance(torch.tensor([query]), torch.tensor([query - d]))[0, 0].item()  # noqa: E731
    table = [[u(query, d) for d in (1, 8, 63)] for query in (63, 511)]  # the section's table, from FireBias itself
    assert [[round(x, 3 if d == 1 else 2) for x, d in zip(row, (1, 8, 63))] for row in table] == [
        [0.048, 0.30, 1.00],
        [0.024, 0.15, 0.50],
    ]
    assert u(63, 3) + 0.01 < u(511, 8) < u(63, 4) - 0.01  # "between those of the keys 3 and 4 back from query 63"


def test_fire_cell_asserts_the_table_and_the_key_8_back_it_draws():
    """The FIRE section's cell asserts its table (keys 1, 8 and 63 back) and that the key 8 back from query 511 lies
    between the keys 3 and 4 back from query 63, which its figure draws as a dotted segment. The band it used to shade
    (the u that no 64-token input produces) is gone from the main line; the FIRE box keeps it, checked in the
    appendix's cell. Every distance 1 to 63 gets a smaller u from query 511 ("Past it, a later query gives the same
    distance a smaller $u$"), checked below from FireBias."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "ax.axhspan(0, band" not in cells["c14"] and "in_band" not in cells["c14"]
    # fix pass 285 (read r280a #4, assert-cannot-fail: the cell pinned its own arithmetic): it checks the block's
    # claim on FireBias instead, one u up to L_thr and a falling u past it; the box's table is the appendix's
    assert "for d in (1, 8, 63)] for q in (63, 511)] == [[0.048, 0.3, 1.0]," not in cells["c14"]
    assert "assert all(a > b for a, b in zip(u_by_query[16 - d :], u_by_query[17 - d :]))" in cells["c14"]
    assert "assert near_3 + 0.01 < late_8 < near_4 - 0.01" in cells["c14"]
    assert "below64 == [1, 2]" in cells["r11c10"]  # the box's band, asserted in the appendix
    with torch.random.fork_rng():
        fire = FireBias(4, L_thr_init=16.0)
    u = lambda query, d: fire.normalized_distance(torch.tensor([query]), torch.tensor([query - d]))[0, 0].item()  # noqa: E731
    assert all(u(511, d) < u(63, d) for d in range(1, 64))


def test_fire_higher_biases_from_the_later_query_put_the_threshold_below_511():
    """The appendix's box, the only place the chapter draws this inference (the main line states the higher biases
    only, which is simpler for a learner to follow), gives the step in full: "with a threshold at 511 or above,
    queries 63 and 511 would both divide by $\\psi(L_{\\text{thr}})$ and give each key the same $u$. Only below 511 do
    their divisors differ". With a threshold at 511 or above, the last of 512 tokens and the last of 64 divide by the
    same psi(L_thr), so every key gets the same u and the same bias; below 511, every key 1 to 63 back gets a smaller u
    from the later query. The 40 heads' higher biases are checked by
    test_fire_later_query_gives_every_distance_a_higher_bias."""
    text = chapter_markdown("11_learned_position")
    assert "So, if their learned thresholds end below 511" not in text
    assert "only there do the two queries' divisors differ" not in text
    assert "A threshold at 511 or above would give each key the same $u$ from both queries" not in text
    assert "the higher biases from the last of 512 tokens show that it ended below 511 in every layer" in text
    assert (
        "with a threshold at 511 or above, queries 63 and 511 would both divide by $\\psi(L_{\\text{thr}})$ and give"
        " each key the same $u$. Only below 511 do their divisors differ" in text
    )
    for threshold, c_value in ((511.0, 0.1), (600.0, 0.1), (4096.0, 2.0), (510.0, 0.1), (64.0, 2.0), (16.0, 0.01)):
        with torch.random.fork_rng():  # the global RNG stream is left as it was
            fire = FireBias(2, c_init=c_value, L_thr_init=threshold)
        late, early = (fire.normalized_distance(torch.tensor([q]), q - torch.arange(64))[0].detach() for q in (511, 63))
        biases = [fire.bias(n)[:, -1, n - 64 :].detach() for n in (512, 64)]  # the last query's keys 63 to 0 back
        if threshold >= 511:  # the same divisor
            assert torch.equal(late, early)  # u: the same op on the same distances, so exact
            # the bias: float32 MLP output on grids of two shapes, whose rounding may differ by CPU kernel
            torch.testing.assert_close(biases[0], biases[1], rtol=1e-5, atol=1e-6)
        else:
            assert (late[1:] < early[1:]).all() and late[0] == early[0] == 0


def test_alibi_bound_is_a_brownian_covariance():
    """Exercise 2's answer: "Shift the positions into $[0, s]$, with $s$ the span. For a Brownian motion $W$,
    $s/2 - |x - y|$ is twice the covariance of" W_x minus half of W_s and W_y minus half of W_s, "so at the bound the
    matrix is a covariance matrix, with no negative eigenvalue." Cov(W_x, W_y) = min(x, y) is the overlap of the
    intervals [0, x] and [0, y]; on integer positions, W_x minus half of W_s is the indicator of [0, x) minus one half
    on [0, s), and each covariance is a dot product of two such vectors: exact in float64."""
    assert "is twice the covariance of $W_x - \\tfrac12 W_s$ and $W_y - \\tfrac12 W_s$" in chapter_markdown(
        "11_learned_position"
    )
    g = torch.Generator().manual_seed(1)
    for n in (2, 3, 7, 25):
        x = torch.randperm(200, generator=g)[:n].to(torch.float64)
        x = x - x.min()  # shifted into [0, s]
        s = int(x.max())
        grid = torch.arange(s, dtype=torch.float64)
        z = (grid[None, :] < x[:, None]).to(torch.float64) - 0.5  # W_x - W_s / 2, one row per position
        covariance = z @ z.T
        assert torch.equal(2 * covariance, s / 2 - (x[:, None] - x[None, :]).abs())
        for slope in (4.0, 0.5):  # the matrix at the bound, slope x span / 2: slope x 2 x covariance
            at_bound = -slope * (x[:, None] - x[None, :]).abs() + slope * s / 2
            assert torch.equal(at_bound, slope * 2 * covariance)
            assert torch.linalg.eigvalsh(at_bound).min() > -1e-9 * slope * s


def test_passkey_figure_labels_every_tested_distance():
    """The passkey figure of the section on chapter 8's experiment labels each of the nine tested distances, so the
    box's miss "384 tokens back" can be read off it."""
    from posenc.experiments import experiment_config

    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "ax.set_xticks(distances, [str(x) for x in distances], fontsize=8)" in cells["c32"]
    assert 'distances = config["distances"]' in cells["c32"]
    assert experiment_config()["distances"] == [8, 24, 40, 56, 96, 160, 256, 384, 496]


# fix pass 219 (read r218 #2): "occurs on average once more than any other" did not say what it compares
beats_chance = (
    # fix pass 252 (read r251b #2: "It" could read as the figure or the models)
    "That guess beats chance because the answer always appears at least once: on average, once more than each other"
    " label."
)


live_279 = (
    "The live cell below trains seed 0 only; on another machine, its numbers can differ from the saved ten-seed run."
)


def test_live_counting_cell_trains_seed_0_only():
    """Fix pass 279 (read r275a #8): "The live cell below trains seed 0 only" — the code cell right after that
    paragraph trains each model with seed=0 alone, while the saved run holds ten seeds."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    at = next(k for k, c in enumerate(cells) if live_279.split(";")[0] in " ".join("".join(c["source"]).split()))
    live = "".join(cells[at + 1]["source"])
    assert cells[at + 1]["cell_type"] == "code" and "train_counter(" in live
    assert re.findall(r"seed=(\w+)", live) == ["0"]


def test_the_most_frequent_label_guess_beats_chance_as_the_answer_occurs_once_more_on_average():
    """The counting section's main line, after the black ticks (fix pass 218, read r217): "It beats chance because the
    answer, one of the input's labels, occurs on average once more than any other." counting_batch draws each
    sentence's label uniformly from 8, and the answer is the label of one of them, so the answer occurs at least once,
    with an expected count of 1 + (n - 1) / 8 against (n - 1) / 8 for each other label: one more. Checked on the
    task's own generator, at the figure's lengths, 8 and 16 sentences, over 3000 questions from three seeds each (the
    mean difference, answer minus each other label, was 0.97 to 1.03 there; its standard error is about 0.03), and the
    guess itself against chance, 1 in 8, with each tie among the most frequent labels broken at random."""
    from posenc.experiments.counting import COUNTING_CONFIG, N_LABELS, counting_batch

    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    ticks = "The figure's black ticks mark a guess that ignores order: the input's most frequent label."
    # fix pass 265 (reads r264 #5 and r264b #6, unclear: a caveat on a baseline on the main line): the ticks stay on
    # the main line, why their guess beats chance opens the block right under them
    block_title = "<summary>Why the guess beats chance, and what the run does not test</summary>"
    assert main.count(ticks) == 1 and beats_chance not in main
    # fix pass 279 (read r275a #8, unclear: the live cell below printed seed 0's numbers under the saved ten-seed
    # result, and no main-line sentence said they can differ): one sentence between the ticks and the block (cell c24
    # trains seed 0 only: test_live_counting_cell_trains_seed_0_only)
    # fix pass 280 (read r276b #4, unclear: a machine caveat on the main line): live_279 opens the block instead
    assert f"{ticks} <details>{block_title} {live_279} {beats_chance}" in " ".join(text.split())
    assert live_279 not in main
    assert "occurs on average once more than any other." not in main
    questions = COUNTING_CONFIG["eval_questions"]
    for n_sent in COUNTING_CONFIG["eval_sentences"]:
        for seed in (1, 2, 3):
            tokens, answer, _ = counting_batch(questions, n_sent, torch.Generator().manual_seed(seed))
            counts = torch.stack([(tokens[:, :-1] == label).sum(1) for label in range(N_LABELS)], 1).double()
            rows = torch.arange(questions)
            own = counts[rows, answer]
            others = (counts.sum(1) - own) / (N_LABELS - 1)  # the mean count of the 7 other labels, per input
            assert own.min() >= 1  # "the answer always appears at least once"
            assert abs((own - others).mean().item() - 1) < 0.1, (n_sent, seed)  # "on average, once more than each"
            assert abs(own.mean().item() - others.mean().item() - 1) < 0.1
            # no other label alone comes near: each one's mean count is about one below the answer's
            per_label = torch.stack([counts[answer != label, label].mean() for label in range(N_LABELS)])
            assert (own.mean() - per_label).min().item() > 0.8
            top = counts == counts.max(1, keepdim=True).values
            guess = (top[rows, answer].double() / top.sum(1)).mean().item()
            assert guess > 2 / N_LABELS  # "beats chance": more than twice 1 in 8


def test_the_main_line_cuts_the_link_from_kerples_slow_fade_to_its_far_passkey_lead():
    """Chapter 8's section, right after its result (fix pass 218, read r217's hardest place): "At every distance
    tested, each trained KERPLE head penalises a key more than ALiBi's flattest head does. So the KERPLE section's
    argument, a slow fade that leaves far keys more weight, does not apply at these distances." The first: each of
    the 40 trained heads' saved biases from the last of 512 tokens, at every distance 1 to 511, lies below ALiBi's
    flattest line, slope 1/256 (by more than 0.1; the saved biases are rounded to 1e-4), and both are 0 on the query's
    own token. The second: the log shape solved from each head's biases at distances 1 and 2 fits every saved
    distance, starts steeper than that line and crosses it once, past 511 (the earliest about 650 back), so only
    farther back than tested would a head penalise a key less than ALiBi's flattest head. Scoped to that head: ALiBi's
    steeper heads penalise the key 496 back more than every trained KERPLE head (read r204). Fix pass 220 (read r219
    #1): one sentence, slow_fade_220, "At every tested distance, each trained KERPLE head penalises a key more than
    ALiBi's flattest head does, so the KERPLE section's slow fade does not explain KERPLE's lead on far passkeys.",
    checked the same way:
    the slow fade is a far key's weight against the query's own token, which every head keeps below that line's."""
    text, flat, main = _chapter_views()
    # fix pass 221 (read r220 #1): slow_fade_221, "At no tested distance does a trained KERPLE head give a key more
    # weight, relative to the query's own token, than ALiBi's flattest head does.": that relative weight is e^bias,
    # both biases 0 on the own token, and every head's bias lies below the line at every distance 1 to 511 (below)
    # fix pass 267 (read r266 #4): weak_seed_266 is the grades' block's, no longer between the result and verdict_265
    assert (
        # fix pass 279 (reads r275a #3 and r275b #1): main_8l_279 in place of main_8l_274
        main.count(main_8l_279) == 1 and main_8l_274 not in flat and slow_fade_220 not in flat
    )  # fix pass 221 (read r220 #1); fix pass 264 (reads r263 #2 and r263b #3): verdict_264, one sentence; fix pass
    # 265 (reads r264 #1 and r264b #3): verdict_265, the open question, and the measured fact the first block's
    # fix pass 279 (reads r275a #4 and r275b #2): "650" once, in crossing_279
    # fix pass 280 (reads r276a #3 and r276b #1): "650" is the blocks' only, the 511 ties to the open question
    assert _ch8_main(main).count("650") == 0 and "tail" not in verdict_265 and "steeper" not in verdict_265
    config, *_ = saved_run()
    n = max(config["eval_lengths"])
    slopes = alibi_slopes(config["model"]["n_heads"]).tolist()
    slope = min(slopes)
    kerple = learned_heads("kerple", n)
    assert n == 512 and slope == 1 / 256 and len(kerple) == 40
    assert all(abs(v[0]) < 1e-6 for v in kerple.values())  # the own token: bias 0, as ALiBi's
    assert all(v[d] < -slope * d - 0.1 for v in kerple.values() for d in range(1, n))  # "more ... from one key back"
    for v in kerple.values():
        r2 = log_r2(v[1], v[2])
        r1 = -v[1] / math.log1p(r2)
        assert max(abs(-r1 * math.log1p(r2 * d) - v[d]) for d in range(n)) < 0.005  # the solved shape fits
        assert r1 * r2 > slope  # steeper than the line at the query, so the concave log shape crosses it once
        cross = next(d for d in range(1, 10**5) if r1 * math.log1p(r2 * d) <= slope * d)
        assert cross > n - 1  # "only farther back" than the tested 511
    # ALiBi's steeper heads: the scope "flattest head" is needed (slope 1/4 at 496 back: -124)
    assert all(v[496] > -max(slopes) * 496 for v in kerple.values())


def test_trained_counts_sentence_rests_on_the_live_asserts():
    """The counting section's one sentence on the trained counts: "In this seed's CoPE model, trained above, the
    question's gates open mostly on labels, and each sentence back adds on average about one or more to the count. That
    is fine: a count only needs to keep the labels apart. The appendix sets these counts beside the ideal ones." The
    model is one seed trained live, and another CPU or PyTorch build trains in effect another seed, so the text claims
    only what holds across seeds. "About one or more" is what the measurement supports with room: over seeds 0 to 39
    (single-threaded, one machine) the mean step within an input, over the two heads, was 1.099 (seed 16) at the least
    and 1.745 at the most, and each head's own 1.03 at the least; the live cell's bar is 0.9, a margin of 0.199. "More
    than 0.7", the former sentence, was the bar, not the measurement. "So its counts grow by about one per sentence,
    plus a little from fillers" is gone: the fillers' part ranged from below 0.2 to 0.81 per step over seeds 0 to 19,
    against the label's 0.82 to 0.99. The counting box: "a label's gate above 0.7", "Over 200 inputs, the mean count at
    the $k$-th label back is above $k$, the ideal count", and "Within one input, each sentence back adds about one or
    more on average over the two heads, more than 0.7 in each head, and less than one half in under a tenth of the
    steps". The other bars asserted in the live cells lie beyond the range of seeds 0 to 9 (on the machine that wrote
    the chapter) by more than that range's width: label gates 0.86 to 0.98 (bar 0.7), fillers' and padding's mean gates
    at most 0.25 and 0.06 (bar 0.5), count - k 0.71 or more (bar 0), steps of k 1.13 or more (bar 0.5), steps below one
    half at most 4.5 % in seeds 0 to 39 (bar 10 %). The thin bars of earlier versions are gone: a label's gate above 0.8
    (0.86 at the least), fillers below half the label per step (failed in 12 of seeds 0 to 19), the trained count above
    the ideal one at every token of one input (0.22 at the least, spread 0.76), and the overlap of counts across inputs.
    The decoded input's table of trained counts, and its reading (a mean of two heads, one live seed, the fillers'
    share), are evidence about one seed: collapsed, in the appendix's counting part."""
    text = chapter_markdown("11_learned_position")
    flat = " ".join(text.split())
    assert "like the ideal head's" not in text
    assert "plus a little from fillers" not in text
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    # "So its count rises with each sentence back" is gone: a count sums gates in [0, 1] from the key to the query,
    # so it never falls as the key moves back, in any head; it showed nothing about the trained one
    assert "So its count rises with each sentence back" not in text
    # the main line: the saved ten-seed result, the depth caveat, then one sentence on the trained counts
    # "That is fine": the ideal head adds exactly one, so "more than one" alone read as a flaw; the box's "they need
    # only keep the labels apart" (asserted below), said on the main line in one clause
    # "Its gate on the question itself ...": the ideal head's counts start at 0 (its own gate closed), the trained
    # head's near 1; without this clause the appendix's trained counts, about one above the ideal ones, had no reason
    # "In this seed's CoPE model" and "in this seed": the model is one live seed, and the main line shows none of its
    # numbers (the appendix's counting cells print and assert them)
    # "Its counts sit above the ideal ones": the live bar count_at > k below; "about one or more": the bar 0.9 below;
    # the key just before the question (own gate plus the question's, the ideal head's 0) is in the counting box
    # the main line's figure shows accuracies only, so the sentence points to the appendix and describes no count
    # (the sentence "Its counts sit above the ideal ones, but each sentence back adds about one or more" described a
    # table the main line does not show); the box and the live asserts below keep those claims
    # read r186: the figure shows accuracy while the counts are in the appendix; one sentence says what the figure
    # shows and what it means for counting, then where the counts are
    # read r191: a caveat on the figure, not the section's lesson: it sits in a block right under the figure, whose
    # summary asks the learner's question
    verdict = (
        "The figure shows accuracy, not counts, so it cannot show that CoPE counts sentences. For the CoPE model"
        " trained above, the appendix shows its gates and sets its counts beside the ideal ones."
    )
    assert verdict not in main and verdict in collapsed(
        " ".join(text.split()), "Does the trained CoPE model count sentences?"
    )
    for claim in ("Its counts sit above the ideal ones", "each sentence back adds about one or more", "open mostly on"):
        assert claim not in main, claim
    for moved in ("the key just before the question", "its own gate plus the question's", "counts 0 unless"):
        assert moved not in main, moved
    assert "from the question's own gate and the fillers' gates" not in text
    # "its own gate plus the question's": CoPE's count of key j seen from query i sums the gates of keys j to i, the
    # query's own included, and the question is the last token with a real token just before it (right-aligned
    # sentences), so count_of[:, :, -2] in the live cell, whose bar 0.5 < start < 1.5 backs "near 1", is exactly
    # the gate of the key just before the question plus the question's own gate
    from posenc.experiments.counting import PAD, QUESTION, counting_batch

    probe = counting_batch(200, 8, torch.Generator().manual_seed(2))[0]
    assert (probe[:, -1] >= QUESTION).all() and (probe[:, -2] != PAD).all() and (probe[:, -2] < QUESTION).all()
    gates = torch.rand(2, 3, probe.shape[1], probe.shape[1], generator=torch.Generator().manual_seed(0))
    counts = CoPE._positions(gates, causal=True)[:, :, -1]  # the last query's row, as the live cell reads it
    assert torch.allclose(counts, gates[:, :, -1].flip(-1).cumsum(-1).flip(-1), atol=1e-5)  # the live cell's count_of
    assert torch.allclose(counts[..., -2], gates[:, :, -1, -2] + gates[:, :, -1, -1], atol=1e-6)
    # the RoPE model's depth, said on the main line in the setup ("one attention layer"): without it a learner who
    # skips the blocks would read the run as "RoPE cannot count"
    # the setup and the result in paragraphs of their own; the caveats in the block right under the result
    # read r192: the main line did not say how short the training is; one clause says it (150 steps, the one
    # COUNTING_CONFIG for both models and every seed, checked below). Read r199: "with one setting" was opaque; the
    # settings are one COUNTING_CONFIG, the same for both models, tuned for neither (the limits block's "One short
    # schedule, tuned for neither model")
    # fix pass 219: "briefly" on the main line, the run's length and settings in the block right under it (the limits
    # block says it too), to keep the main line's length
    setup = (
        "A CoPE model and a RoPE model each have one attention layer with an MLP. Both are trained briefly on inputs of"
        " 8 sentences and tested on 8 and on 16 sentences, twice the trained length."
    )
    # fix pass 254 (read r253b #1, overstated: CoPE's P = 16 was chosen for this task): the training settings
    short_run = (
        "Both models train in one short run of 150 steps, with training settings tuned for neither; CoPE's table"
        " size, $P = 16$, was chosen for this task."
    )
    assert "with one setting" not in text and "One short schedule, tuned for neither model" in text
    import inspect as _inspect

    from posenc.experiments.counting import COUNTING_CONFIG, load_counting_sweep, train_counter

    assert COUNTING_CONFIG["steps"] == 150 == _inspect.signature(train_counter).parameters["steps"].default
    assert COUNTING_CONFIG["train_sentences"] == 8 and COUNTING_CONFIG["eval_sentences"] == [8, 16]
    saved_sweep = load_counting_sweep()["config"]  # the saved ten-seed run: the same setting, for both methods
    assert saved_sweep["steps"] == 150 and saved_sweep["methods"] == ["CoPE", "RoPE"]
    assert {k: v for k, v in saved_sweep.items() if k != "seeds"} == {
        k: v for k, v in COUNTING_CONFIG.items() if k != "seeds"
    }
    result = (
        "In a saved run of ten seeds, at $k = 2$ and 3, CoPE's worst seed beats the one-layer RoPE model's best at both"
        " lengths."
    )
    # read r176: the result's scope, on the main line right after it, in the words of the block and of takeaway 3
    # (one layer, unmasked padding); whether the padding favours CoPE stays the block's, "not tested". Read r177: the
    # learner never saw the padding (the decoded example filters it out), so its first mention says what it is. Read
    # r178: that first mention belongs where the task's inputs are described. Read r183: the main line's scope
    # sentence named a caveat ("unmasked padding that CoPE's gates can leave out") that the learner could not weigh;
    # read r214: the figure's black ticks named on the main line, in the block's words (cell 51's "a guess that
    # ignores order: the input's most frequent label")
    ticks = "The figure's black ticks mark a guess that ignores order: the input's most frequent label."
    # fix pass 218 (read r217): why that guess beats chance, in one sentence right after it (checked on the task's
    # generator in test_the_most_frequent_label_guess_beats_chance_as_the_answer_occurs_once_more_on_average)
    # fix pass 265 (reads r264 #5 and r264b #6): that sentence opens the block under the ticks instead
    not_tested = "Why the guess beats chance, and what the run does not test"
    # the block right under the result holds it, with the one-layer limit (the setup says "one attention layer")
    scope = "This is one setup, with one-layer models and unmasked padding that CoPE's gates can leave out."
    padded = "The inputs of a batch are left-padded to one length, and no mask hides the padding."
    # fix pass 268 (read r267b #5, unfair comparison: the main line listed two of the comparison's three caveats;
    # the padding was the blocks' alone): the third, in the block's words and its mean share (about 41 %, "about two
    # fifths"), checked below
    unmasked_r273 = (
        "Also, on average about two fifths of an input is padding that no mask hides, and CoPE's gates can leave it out"
        " of their counts."
    )
    narrow_r273 = (
        "The comparison is narrow: CoPE's table size was chosen for this task, and a deeper RoPE model might count too."
    )
    # fix pass 274 (read r271b #3, unclear: two main-line sentences of caveats, repeated by the block under them,
    # diluted the section's lesson): one short main-line sentence names the three reasons the comparison is narrow
    # (the RoPE model's one layer, CoPE's table size chosen for the task, the unmasked padding only its gates can skip:
    # each checked below); "may favour": whether the padding favours CoPE is not tested, as the block says. The deeper
    # RoPE model and the padding's share, about 41 %, are the block's (deeper and padding, below)
    narrow_r274 = (
        "The comparison is narrow and may favour CoPE: a one-layer RoPE model, CoPE's table size chosen for the task,"
        " and unmasked padding that only CoPE's gates can skip."
    )
    # fix pass 275 (read r272b #1, overstated: the padding lies before every label, so no padding gate enters a label's
    # count and no question-to-label distance changes; the skip it named changed nothing): the main line keeps the
    # two reasons that hold; what the padding does and does not do is the block's (padding, below)
    narrow = (
        "The comparison is narrow and may favour CoPE: a one-layer RoPE model and CoPE's table size chosen for the"
        " task."
    )
    assert narrow_r274 not in " ".join(text.split()) and "only CoPE's gates can skip" not in text
    deeper = "A deeper RoPE model might count too."  # the setup says both models have one attention layer
    flat = " ".join(text.split())
    assert unmasked_r273 not in flat and narrow_r273 not in flat and "two fifths" not in flat
    assert (
        # fix pass 258b (read r258b #6, unfair comparison disclosed only in the block): one sentence after the result
        # fix pass 279 (read r275a #8): live_279 after the ticks
        # fix pass 280 (read r276b #4): live_279 opens the block
        f"{setup} {result} {narrow} {ticks} <details><summary>{not_tested}</summary> {live_279} {beats_chance}"
        f" {short_run} {deeper} The inputs of a batch" in flat
    )
    assert scope not in text and "favours CoPE" not in main and "gates can leave out" not in main
    paras = _markdown_paragraphs()
    assert setup in paras and f"{result} {narrow} {ticks}" in paras and live_279 in paras
    # "a one-layer RoPE model": the counter has one attention layer (n_layers absent: one self.attn, checked below)
    # read r186: the padding sentence stood on the main line with its reason only in a block; it sits in the block
    # under the result, with that reason, and the main line first names padding in takeaway 3's "unmasked padding"
    block = collapsed(flat, not_tested)
    assert padded not in main and flat.count(padded) == 1 and padded in block
    # fix pass 268 (read r267b #5): the main line names the padding once, in the caveat after the result (fix pass
    # 274: the one sentence that names the three reasons; fix pass 275, read r272b #1: the block's alone, as it
    # enters no label's count)
    assert main.count("padding") == 0 and " ".join(main.split()).count(narrow) == 1
    assert main.index("The cell decodes one short input: labels") < main.index(result)
    # read r203: takeaway 3 named the padding, a caveat the main line never showed; it is the block's alone
    assert "padding" not in main[main.index("## Takeaways") :]
    # "left-padded to one length": every input of a batch has the same length, its padding all before the first
    # sentence; "no mask hides the padding": the counter's attention takes no mask, only the tokens; the decoded
    # example drops the padding: the cell keeps only the tokens that are not PAD
    import inspect

    from posenc.experiments.counting import Counter

    for sentences in (8, 16):
        batch = counting_batch(200, sentences, torch.Generator().manual_seed(3))[0]
        is_pad = batch == PAD
        assert is_pad.any(1).all() and torch.equal(is_pad, is_pad.int().cummin(1).values.bool())  # a prefix
    forward = inspect.getsource(Counter.forward)
    assert "self.attn(self.norm(z))" in forward and "mask" not in forward
    # fix pass 274 (read r271b #3): the main line's "a one-layer RoPE model" and "only CoPE's gates": the RoPE counter
    # has one attention layer and no CoPE module, so nothing in it gates tokens out of a count
    rope_counter = Counter("rope")
    assert sum(isinstance(m, posenc.MultiHeadAttention) for m in rope_counter.modules()) == 1
    assert not any(isinstance(m, posenc.CoPE) for m in rope_counter.modules())
    assert not any("mask" in name for name in inspect.signature(posenc.MultiHeadAttention.forward).parameters)
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    decoding = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    # the block's "The decoded input above does not show it": the decoding cell drops the padding
    assert "words = [decode(t) for t in tokens[0].tolist() if t != PAD]" in decoding["c25"]
    # fix pass 265 (reads r264 #5 and r264b #6: said three times): the deeper RoPE model, once, on the main line (fix
    # pass 274, read r271b #3: once, in the block under the result)
    assert flat.count("deeper RoPE model might count") == 1 and "might count sentences too" not in flat
    # the setup's advantage for CoPE, said on the main line beside the result: the padding share is the saved run's
    # (cell 50 asserts 0.40 to 0.42 at both lengths), and the block's "whether that favours CoPE is not tested"
    # fix pass 275 (read r272b #1, overstated: "CoPE's gates can leave it out of their counts"): what the left padding
    # does and does not do, each checked on the task's batches in test_counting_left_padding_enters_no_label_count_
    # and_changes_no_distance; its effect on accuracy, untested, as before
    padding = (
        f"{padded} The decoded input above does not show it. On average, about 41 % of an input is this padding."
        " It lies before every label, so it enters no label's count and changes no distance to a label. The padding"
        " keys still take some of the question's weight, in both models. What the padding does to either model's"
        " accuracy is not tested."
    )
    assert "CoPE's gates can leave it out of their counts" not in text and "learn to leave it out" not in text
    assert flat.count(padding) == 1 and flat.index(narrow) < flat.index(padding)
    assert padding in block
    for sentences in (8, 16):  # "about 41 %": the padding share at both lengths, as the box's "On average 41 %"
        batch = counting_batch(200, sentences, torch.Generator().manual_seed(1))[0]
        share = (batch == PAD).float().mean().item()  # a mean over the inputs, as both sentences say
        assert 0.40 < share < 0.42  # 0.408 and 0.407; cell 52 asserts the same range
        # fix pass 268 (read r267b #5): "on average about two fifths", the same mean share, rounded (fix pass 274: the
        # block's 41 % alone says it now; the rounding stays checked)
        per_input = (batch == PAD).float().mean(1)
        assert round(share * 5) == 2 and abs(share - 2 / 5) < 0.01 and per_input.min() < 0.3 < 0.5 < per_input.max()
    # takeaway 3 keeps the same scope in the block's words ("unmasked left padding"): its comparison with the one-layer
    # RoPE model is the result this padding may favour
    takeaways = " ".join(main[main.index("## Takeaways") : main.index("## Exercises")].split())
    scoped = (
        # fix pass 283 (read r279a #4, unclear: "this chapter's run" could be the live seed; the claim is the saved
        # run's)
        "CoPE counts what its gates select. On a small counting task, in the saved ten-seed run, it finds the second"
        " and third sentence back far more often than a one-layer RoPE model."
    )
    assert scoped in takeaways and "unmasked left padding" in flat
    # CoPE's main line (read r169: the library's bfloat16 defect stood only in a block; read r170: a takeaway must
    # restate the main line, so the sentence sits where the count is defined; read r173: the library sums in its
    # inputs' dtype, the strict xfail, so the main line says what to pass; read r177: it gives the main reason, near
    # keys' counts, whose numbers test_cope_bfloat16_near_key_error_over_24_draws asserts: off by more than 1.8 at
    # 1,024 tokens in all 24 draws and by more than 2 in 23; read r178: a library defect inside the definition, so the
    # main line keeps one sentence of advice with its reason, and the defect and the numbers are the appendix box's,
    # "Counts in bfloat16", in the appendix's CoPE part; read r182: a defect of the book's library, not an idea of
    # CoPE, it interrupted gates -> embeddings -> position logit, so the advice and its reason went into the section's
    # own block, under the four steps, with the appendix box named)
    precision = (
        "In practice, give `posenc.CoPE` float32 $q$ and $k$. It takes each count as a difference of two long running"
        " sums from the start of the input, which bfloat16 gets wrong on long inputs, even for near keys. CoPE's"
        " reference code sums from the query back instead, so in bfloat16 its near keys' counts stay nearly exact. The"
        " appendix's block *Counts in bfloat16* shows both."
    )
    appendix = flat[flat.index("## Appendix: how we know") :]
    box = collapsed(appendix, "Counts in bfloat16")
    assert appendix.index("### CoPE") < appendix.index("<summary>Counts in bfloat16</summary>")
    near = "even a key 1 to 3 back can get a count off by about 2 or more at 1,024 tokens"
    assert near in box and "1,024" not in main and "known defect" not in main  # the numbers and the defect: the box's
    # the smaller reason moved to the box "Counts in bfloat16": every quarter-step count from 256 to 2 047 rounds to
    # an even number, and to multiples of 8 from 1 024, while below 256 every whole count is kept
    rounding = (
        "A far key's count is large, and bfloat16 rounds it in either order: every count from 256 on becomes an even"
        " number or coarser. Keep counts in float32."
    )
    assert flat.count(rounding) == 1 and rounding not in main
    assert "bfloat16 rounds every count from 256" not in text
    cope_main = main[main.index("## CoPE: count only what matters") : main.index("### A counting task")]
    cope_flat = flat[flat.index("## CoPE: count only what matters") : flat.index("### A counting task")]
    section_block = collapsed(
        cope_flat, "How the reference code clamps, scales and shares, and why posenc's CoPE needs float32"
    )
    assert precision in section_block and flat.count(precision) == 1
    assert "float32" not in cope_main and "bfloat16" not in cope_main and precision not in takeaways
    # read r176: after the definition's four steps (gate, count, interpolated embedding, logit), not inside it
    assert cope_flat.index("is added to the content logit.") < cope_flat.index(precision)
    assert "Keep these sums" not in text
    for lo, hi, step in ((256, 512, 2), (512, 1024, 4), (1024, 2048, 8)):
        counts = torch.arange(lo * 4, hi * 4, dtype=torch.float64) / 4  # quarter steps, as fractional counts
        rounded = counts.to(torch.bfloat16).double()
        assert bool((rounded % step == 0).all()) and float((rounded - counts).abs().max()) == step / 2
    whole = torch.arange(0, 256, dtype=torch.float64)
    assert torch.equal(whole.to(torch.bfloat16).double(), whole)
    assert "About 40 %" not in text and "On average 41 % of each input" in " ".join(text.split())
    assert "About 41 % of each input" not in text  # a mean over inputs, said as one
    limits = text[text.index("<summary>Limits of these runs</summary>") :]
    # fix pass 265 (reads r264 #5 and r264b #6): the deeper RoPE model is the main line's, once
    assert "a one-layer RoPE baseline; no deeper RoPE model and no model without position encoding is trained." in (
        " ".join(limits.split())
    )
    assert "each have one attention layer with an MLP" in main
    assert "the question's gates open mostly on labels; the appendix" not in text
    # the former main-line numbers and the table's reading left the main line for the counting box
    for moved in (
        "more than 0.7",
        "a mean of its two heads",
        "one live seed",
        "the fillers' gates add to",
        "The table below adds, for the decoded input",
    ):
        assert moved not in main, moved
    assert "Yet each sentence back still adds more than 0.7 on average." not in text
    box = collapsed(flat, "How we know: the saved ten-seed run, and its caveats")
    assert (
        "**The trained counts.** The third cell below prints, for the decoded input, the trained model's counts under"
        " the ideal ones, a mean of its two heads. It comes from one live seed, so its numbers change from seed to"
        " seed. A trained head's counts need not equal the ideal ones; they need only keep the labels apart. The"
        " fourth and fifth cells check the trained counts across inputs." in box
    )
    assert (
        "Over 200 inputs, the mean count at the $k$-th label back is above $k$, the ideal count: the question's own"
        " gate and the fillers' gates add to it. In this seed the key just before the question counts close to 1 on"
        " average, within a half: its own gate plus the question's. Under the ideal head it counts 0 unless it is a"
        " label. CoPE learns its embeddings from these counts, so a count need not equal $k$ to mark the $k$-th label"
        " back."
        " Within one input, each sentence back adds about one or more on average over the two heads, more than 0.7"
        " in each head, and less than one half in under a tenth of the steps, so the labels' counts stay apart." in box
    )
    assert "so a count need not equal $k$ to mark the $k$-th label back" not in main
    assert "a label's gate above 0.8" not in text and "a label's gate above 0.7" in text
    assert "On the decoded input each trained count is above the ideal one" not in text
    assert "Across inputs the counts drift" not in text
    # how the bars were tuned is a note for the code, not for a learner: it sits in the live cell's comment
    assert "The first three bars lie below" not in box and "a loose bar" not in box
    assert (
        'averaged over the two heads. The last bears "about one or more" below: in seeds'
        " 0 to 39 that two-head mean was 1.099 to 1.745, so its margin over the bar of 0.9 is about 0.2, and each"
        " head's own was 1.03 or more." in box
    )
    # the box names the cells by their place under it: the saved run's verdict and ranges, the decoded input's
    # table, then the live gates and counts
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    order = [c.get("id") for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]]
    assert order.index("c28") + 1 == order.index("34f6e0ce") and order.index("34f6e0ce") + 1 == order.index("c11new1")
    assert order.index("c11new1") + 1 == order.index("r11c-counts-main")
    assert order.index("r11c-counts-main") + 1 == order.index("cope-trained-gates")
    assert order.index("cope-trained-gates") + 1 == order.index("r11c-drift") < order.index("c29b-t5")
    assert "r11m-counts-above" not in order and "r11c-counts-table" not in order
    # on the main line the verdict on the saved run sits under its figure, then the section's "To remember"
    assert order[order.index("c27") + 1] == "r11m-count-verdict" and order[order.index("c27") + 2] == "r11m02"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    tags = {c.get("id"): c.get("metadata", {}).get("tags", []) for c in cells}
    # the table's cell: hidden input, and its live numbers vary, so nbval ignores its output
    assert {"hide-input", "nbval-ignore-output"} <= set(tags["r11c-counts-main"])
    cells = {c.get("id"): "".join(c["source"]) for c in cells}
    table = cells["r11c-counts-main"]
    assert 'print("trained " + ' in table and "assert " not in table
    assert "def gates_from_question(" in table
    assert "question_gates = gates_from_question(" in cells["cope-trained-gates"]
    live = cells["cope-trained-gates"] + cells["r11c-drift"]
    assert (
        "# the first three bars of the counting box (0.7, above k, one half) lie below the lowest of ten seeds on one"
        " machine\n# by more than their spread; one half is a loose bar, not a threshold the head needs" in live
    )
    for thin in (
        "assert label_gate > 0.8",
        'steps["fillers"] < 0.5 * steps["labels"]',
        'assert (steps["labels"] > steps["fillers"]).all()',
        "assert (trained > torch.tensor([c for _, c in ideal])).all()",
        "assert (first.amax(0) > second.amin(0)).all()",
        "assert (own_gate > 0.25).all()",
        "assert (steps_in.mean((0, 2)) > 0.7).all() and",
    ):
        assert thin not in live, thin
    for bar in (
        'mostly_labels = mean_gate["labels"] > 0.5 > max(mean_gate["fillers"], mean_gate["padding"])',
        "assert mostly_labels",
        "assert label_gate > 0.7",
        'assert (steps["labels"] > 0.7).all()',
        "assert (count_at > torch.arange(1, K_MAX + 1)).all() and (count_at.diff(dim=-1) > 0.5).all()",
        # "about one or more on average", bar 0.9 (inputs, heads and k), "more than 0.7 in each head", "under a tenth"
        "assert steps_in.mean().item() > 0.9 and (steps_in.mean((0, 2)) > 0.7).all()"
        " and (steps_in < 0.5).float().mean() < 0.1",
        # "its counts start near 1": the key just before the question, over both heads; 0.70 to 1.33 in seeds 0 to 19
        "assert 0.5 < start < 1.5",
    ):
        assert bar in live, bar
    # "each sentence back": steps_in is the count at the (k + 1)-th label back minus that at the k-th, per input
    assert (
        "steps_in = torch.stack([count_of[inputs, :, labels_at[:, -kk - 1]] - count_of[inputs, :, labels_at[:, -kk]]"
        in live
    )
    # every assert in the live cells is one of those
    assert "start = count_of[:, :, -2].mean().item()" in live
    # "In this run, ... about 0.7" is the live seed's own gate, printed (0.70 and 0.65 per head on the machine that
    # wrote it); over seeds 0 to 59 its two-head mean ranged 0.35 to 0.97, 0.65 on average, too wide for a bar, so the
    # main line scopes it to this run, and the cell says so
    assert "Its gate on the question itself is about 0.7" not in main and "about 0.7" not in main
    # the text quotes no number for that gate, on the main line or in the box: its seed spread is in the comment only
    assert "0.35" not in box and "0.97" not in box
    # the reason a start near 1 is harmless ("they need only keep the labels apart") comes before the trained start
    # and the contrast with the ideal head, in the box
    assert box.index("they need only keep the labels apart") < box.index(
        "Under the ideal head it counts 0 unless it is a label"
    )
    # fix pass 258 (read r254b: seed 43's start, 0.597, had less room than the comment's 0.2): a sweep of seeds 0 to 59
    # (single-threaded, AMD EPYC; every assert of the live cells held in each) widened the ranges the comment gives
    assert "ranged from 0.35 to 0.97, 0.65 on average" in live and "on its own token " in live
    assert "0.60 (seed 43) to 1.33 (seed 18)" in live and "0.10 and 0.17 of room" in live
    asserts = re.findall(r"^assert .*$", live, flags=re.M)
    assert len(asserts) == 6, asserts


def test_passkey_column_credits_no_encoding_for_a_find():
    """The section on chapter 8's experiment, on the main line before its table: "The passkey is the input's only
    digit, so content alone can find it. So in this run a find says little about the position encoding, but a miss
    points to it." (read r181: stated as a general rule, it rested on this run's model without position encoding,
    which finds every passkey 496 back in every seed; narrowed to the run, while the NoPE sentence itself stays in the
    block. Read r183: "earns an encoding no credit, as the table's last row shows" was an idiom that leaned on a row
    not yet read; said plainly, with no pointer to the row). Then, after the table:
    "KERPLE and ALiBi keep the lowest losses, and ALiBi misses more far passkeys than KERPLE." Read r176: "FIRE and
    CoPE find every passkey" read as a merit of FIRE and CoPE. Read r177: "finding it
    earns an encoding no credit, and only misses tell methods apart" pulled against "KERPLE finds more far passkeys",
    read as a win; the sentence now says the lead is ALiBi's misses. Read r178: a learner who reads the table first
    sees no position encoding at 100 % passkeys, so the reading rule comes before the table, and the result sentence
    after it names ALiBi's misses.
    "Points to", the block's word, not "hides far keys" (overstated: see
    test_a_low_passkey_score_sits_beside_a_penalty_past_the_trained_range). The sentence is about the task, not about
    the model without position encoding, whose near-perfect score stays in the block
    (test_nope_finds_nearly_every_passkey_missing_two_probes_in_the_whole_run). "The input's only digit": in each probe
    the input holds one KEY, its one digit and no other, and a later QUERY whose target is that digit.
    Read r191: the reading rule was the main line's densest inference; the passkey's definition says why content
    alone finds it, "A *passkey* is the only digit of a test input, hidden in the filler and asked for at the end, so
    content alone can find it.", and the rule, scoped to the run, is the block's: "So on this task, in this run's five
    seeds, a missed passkey points to the position encoding, not the content." After the table, the lesson's FIRE and
    CoPE result is not said again."""
    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    column = passkey_defined
    result = result_8l
    # fix pass 279 (reads r275a #3 and r275b #1): the passkey's definition is the set-up's gloss (setup_279), and
    # passkey_miss and the result open the first block; the measures block keeps the reading rule (below)
    assert column not in text and result not in text and passkey_miss not in main
    assert "a find says little about the position encoding" not in text and "a miss points to it" not in text
    first = collapsed(" ".join(text.split()), "Comparing trained KERPLE heads with ALiBi's heads")
    assert f"{result_paired_279} {passkey_miss}" in first  # fix pass 279: in the first block, after the result
    assert passkey_miss_r265 not in text  # fix pass 266 (read r265 #4): the evidence named in the sentence
    # the run behind "in this run": the model without position encoding finds at least 99 % of the passkeys at every
    # fixed distance and at random distances at 8L, averaged over the five seeds, so content alone does find them
    config, *_ = saved_run()
    found = [per_seed("none", "passkey_by_distance", d) for d in config["distances"]]
    found.append(per_seed("none", "passkey", config["eval_lengths"][-1]))
    assert all(statistics.mean(x) >= 0.99 for x in found)
    # fix pass 279 (reads r275a #3 and r275b #1): the set-up, the table, then the lesson
    assert main.index(f"{setup_279} | method, mean of five seeds |") < main.index("| no position encoding |")
    assert main.index("| no position encoding | 2.79 nats | 100 % | 100 % | " + lesson_279) >= 0
    assert "FIRE and CoPE find every passkey, at a higher loss." not in text  # the lesson's, said once
    block = collapsed(" ".join(text.split()), "How the measures are scored, and what is not tested")
    assert "a missed passkey points to the position encoding, not the content." in block
    assert "earns an encoding no credit" not in text and "as the table's last row shows" not in text
    # "in this run a find says little": the table's last row, the model without position encoding, finds every
    # passkey in both columns, in each of the five seeds
    table = main[main.index("| method, mean of five seeds |") : main.index(lesson_279)]
    assert table.rstrip().endswith("| no position encoding | 2.79 nats | 100 % | 100 % |")
    assert all(v == 1 for column in far_and_random("none") for v in column)
    section = main[main.index("## In chapter 8's experiment") : main.index("## What this scale")]
    # the NoPE sentence stays off the main line: the section's main line names the model only in the table's row
    # fix pass 264 (read r263 #1): and in the lesson's sentence, where "its last two models" came before the table
    # fix pass 279 (reads r275a #3 and r275b #1): the lesson after the table, lesson_279, names it
    assert "| no position encoding |" in section and section.count(lesson_279) == 1
    # fix pass 266 (read r265 #4): and in passkey_miss, which names the model's two misses as its evidence
    for nope in ("without position encoding", "with no position encoding", "NoPE"):
        assert nope not in section.replace(lesson_279, ""), nope
    assert "nearly always does" not in main and "hides far keys" not in text
    assert "only misses tell methods apart" not in text  # read r177: it pulled against KERPLE's result
    config, *_, corpus = saved_run()
    assert config["corpus"]["passkey_len"] == 1
    assert_passkey_is_the_only_digit(corpus)
    # fix pass 287 (read r282a #3): the lesson's "A passkey is the input's only digit, so content alone can find it.":
    # one digit per probe (above), and the model without position encoding finds every passkey in both columns
    assert "A passkey is the input's only digit, so content alone can find it." in lesson_279
    # fix pass 265 (read r264b #5): the lesson's gloss, "single digits, asked for at the end of the input": one digit
    # per passkey (above), and every probe's question, QUERY, is its input's last token, whose target is the digit;
    # "their synthetic filler text": the filler of the probes is the training text's, one Markov chain
    assert lesson_8l_r264 not in " ".join(text.split()) and "single digits, asked for at the end" in lesson_8l
    # fix pass 279 (reads r275a #3 and r275b #1): the set-up's gloss says the same, checked by the same probe
    assert "single digits hidden in the filler and asked for at the end." in setup_279 and setup_279 in main
    probe = corpus.sample_probe(32, 128, generator=torch.Generator().manual_seed(1))
    inputs = probe.tokens[:, :-1]
    assert (inputs[:, -1] == corpus.query_token).all() and probe.answer[:, -1].all() and probe.answer.sum() == 32
    assert ((probe.tokens[:, -1] >= corpus.vocab_size) & (probe.tokens[:, -1] < corpus.key_token)).all()
    # "ALiBi misses more far passkeys than KERPLE": more probes missed by ALiBi than by KERPLE in every seed, in both
    # of the table's passkey columns (496 back and at random distances, at 8L)
    for kerple, alibi in zip(far_and_random("kerple"), far_and_random("alibi")):
        assert len(kerple) == len(alibi) == 5 and all(1 - a > 1 - k for k, a in zip(kerple, alibi))


def test_cope_table_size_is_said_beside_its_rising_loss():
    """The section on chapter 8's experiment, in its block, right after "Why FIRE's and CoPE's losses rise is not
    tested; the appendix gives a guess for each." (read r178: the main line said that CoPE's loss rises at 8L, but only
    the appendix said that its table ends at e[64]; read r181: on the main line the fact said nothing of why it
    matters, in a crowded section, so it moved into the block with its point, a possible cause, as the appendix's
    "What the models learned" says it): "Chapter 8's CoPE has $P = L + 1$ embeddings, the default of CoPE's reference
    code. So every count of 64 or more reads the last one, $e[64]$. If a head's counts reach 64 on long inputs, every
    key at count 64 or more gets the same position logit: a possible cause of CoPE's rising loss." The reference
    default: facebookresearch/RAM projects/cope/src/cope/context_position.py sets
    `self.npos = cfg.block_size + 1` when `--cope-npos` is not given ("If not set, will use block size + 1"), and
    `CoPE.build` does the same with the trained length. Every TinyLM layer of chapter 8's CoPE model has P = 65 = L + 1
    embeddings, and counts of 64 or more all give the position logit of e[64] (the appendix cell chk4b19668b asserts
    the same on one CoPE of that size). The guess that this raises CoPE's loss stays in the appendix's block,
    untested (test_fire_later_query_raises_the_keys_2_to_63_back_more_than_the_two_the_filler_needs)."""
    from posenc.experiments import TinyLM, experiment_config

    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    size = (
        "Chapter 8's CoPE has $P = L + 1$ embeddings, the default of CoPE's reference code. So every count of 64 or"
        " more reads the last one, $e[64]$."
    )
    flat = " ".join(text.split())
    block = collapsed(flat, "How the measures are scored, and what is not tested")
    point = (
        " If a head's counts reach 64 on long inputs, every key at count 64 or more gets the same position logit: a"
        " possible cause of CoPE's rising loss."
    )
    # read r192: the guess for CoPE's loss is this block's, so the appendix gives a guess for FIRE's only
    untested = "Why FIRE's and CoPE's losses rise is not tested; the appendix gives a guess for FIRE's."
    assert flat.count(size) == 1 and size not in main and (untested + " " + size + point) in block
    assert "a possible cause of CoPE's rising loss" not in main and "e[64]" not in main
    # read r192: said once; the appendix's "What the models learned" points to this block, and its cell checks e[64]
    learned = collapsed(flat, "How we know: the learned curves in every seed, layer and head, and T5's buckets")
    assert "gets the same position logit" not in learned and "Counts beyond $P - 1 = 64$" not in learned
    assert (
        "**CoPE: far counts can look alike,** a possible cause of its rising loss that the block of chapter 8's section"
        " explains." in learned
    )
    assert flat.count("a possible cause of CoPE's rising loss") == 1
    config = experiment_config()
    L = config["train_length"]
    assert L == 64
    model = TinyLM(16, "cope", max_len=L, **config["model"])
    copes = [m for m in model.modules() if isinstance(m, CoPE)]
    assert len(copes) == config["model"]["n_layers"] and all(m.npos_max == L + 1 == 65 for m in copes)
    assert CoPE.build(d_model=32, n_heads=2, head_dim=16, causal=True, max_len=L).npos_max == L + 1
    # every gate 1: the last of 3L tokens gives the key d back the count d + 1, 1 to 3L; counts of 64 and beyond
    # read e[64] alone, while count 63 reads e[63]
    cope = CoPE(16, npos_max=L + 1)
    with torch.no_grad():
        cope.pos_emb.copy_(torch.randn(16, L + 1, generator=torch.Generator().manual_seed(0)))
        big = saturated(1, 1, 3 * L, 16, 5)
        row = cope.logit_bias(big, big, causal=True)[0, 0, -1].flip(0)  # by distance d = 0 .. 3L - 1: count d + 1
    counts = cope.positions(big, big)[0, 0, -1].flip(0)
    assert torch.equal(counts, torch.arange(1, 3 * L + 1, dtype=torch.float32))
    assert torch.equal(row[L - 1 :], row[L - 1].expand(2 * L + 1)) and not torch.equal(row[L - 2], row[L - 1])


def test_one_kerple_seed_finds_under_nine_in_ten_passkeys_in_both_columns():
    """Chapter 8's section, the block that defines the grades (fix pass 266, read r265b #4, on the main line; fix pass
    267, read r266 #4, unclear: a caveat stacked on the main line, so back in the block, which said it already):
    "KERPLE keeps a low loss but misses some far passkeys: one seed of five falls below the passkey bar, with under 90 %
    in both passkey columns." The table's two columns at 8L: passkeys at random distances on 512-token inputs, and
    passkeys 496 back. Exactly one of the five saved KERPLE seeds is under 0.9 in both; each other seed is at 0.9 or
    more in both."""
    text, flat, main = _chapter_views()
    assert weak_seed_266 not in flat and "nine in ten" not in _ch8_main(main)
    # fix pass 274 (read r271b #4): the main line names the exception after the grades, without the numbers
    # fix pass 279 (reads r275a #3 and r275b #1): the lesson's last clause names it, "one of its five seeds finds
    # under 95 % of the passkeys" (the seed below: under 0.9 in both columns); the grades are the block's
    assert weak_seed_274 not in flat and "90 %" not in _ch8_main(main)
    assert (
        lesson_279.endswith(  # fix pass 280 (read r276a #6): the grades in plain words, then the weak seed
            # fix pass 281 (reads r277a #1 and r277b #3): the conclusion after the two bullets
            # fix pass 288 (read r283a #4): "narrowly"
            "So only KERPLE does well at both, narrowly, on its five-seed mean; one of its seeds finds under 95 %."
        )
        and main.count(lesson_279) == 1
    )
    block = collapsed(flat, "How the measures are scored, and what is not tested")
    assert (
        "KERPLE keeps a low loss but misses some far passkeys: one seed of five falls below the passkey bar, with under"
        " 90 % in both passkey columns." in block
    )
    config, full, seeds, _ = saved_run()
    n, far = config["eval_lengths"][-1], config["distances"][-1]
    assert (n, far) == (512, 496)  # the table's columns: random distances at 8L, and 496 back
    kerple = full["metrics"]["kerple"]
    columns = [(kerple[s]["passkey"][str(n)], kerple[s]["passkey_by_distance"][str(far)]) for s in seeds]
    assert len(seeds) == 5 and sum(max(c) < 0.9 for c in columns) == 1 and sum(min(c) >= 0.9 for c in columns) == 4


def test_nope_finds_nearly_every_passkey_missing_two_probes_in_the_whole_run():
    """The section on chapter 8's experiment: the passkey is the input's only digit, "so content alone can find it, and
    the model without position encoding nearly always does" ("as the model without position encoding does" claimed
    every probe). Its box: "The model without position encoding misses 2 probes in the whole run: 1 of 128 at random
    distances at $2L$, and 1 of 64 probes 384 tokens back at $8L$, both in one seed." """
    text = chapter_markdown("11_learned_position")
    assert "content alone can find it, as the model without position encoding does." not in text
    assert "content alone can find it, and the model without position encoding nearly always does." in text
    # what a miss means: the token that content alone finds, so the miss points to the position encoding; scoped to
    # what was measured, one model without position encoding on this task, over the run's five seeds (checked below)
    assert (
        "nearly always does. So on this task, in this run's five seeds, a missed passkey points to the position"
        " encoding, not the content." in text
    )
    assert "nearly always does. So a missed passkey points" not in text
    assert (
        "The model without position encoding misses 2 probes in the whole run: 1 of 128 at random distances at $2L$,"
        " and 1 of 64 probes 384 tokens back"
        " at $8L$, both in one seed." in text
    )
    config, full, seeds, _ = saved_run()
    L, batch, probes = config["train_length"], full["config"]["eval_batch"], config["distance_batch"]
    assert (batch, probes) == (128, 64)
    random_misses = [
        (s, int(n), round((1 - v) * batch))
        for s in seeds
        for n, v in full["metrics"]["none"][s]["passkey"].items()
        if v < 1
    ]
    fixed_misses = [
        (s, int(d), round((1 - v) * probes))
        for s in seeds
        for d, v in full["metrics"]["none"][s]["passkey_by_distance"].items()
        if v < 1
    ]
    assert len(seeds) == 5  # "in this run's five seeds"
    assert random_misses == [("4", 2 * L, 1)] and fixed_misses == [("4", 384, 1)]
    # fix pass 266 (read r265 #4): the main line's "misses only two passkeys in the whole run": every length's random
    # distances and every fixed distance, all five seeds, 2 misses in all (the lists above cover every entry)
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    # fix pass 279 (reads r275a #3 and r275b #1): that sentence, passkey_miss, moved into the section's first block
    first = collapsed(" ".join(text.split()), "Comparing trained KERPLE heads with ALiBi's heads")
    assert "The model without position encoding misses only two passkeys in the whole run," in first
    # fix pass 271 (read r269a #1): "both outside the table's columns", the table's random distances at 8L and its
    # fixed distance, 496 back
    assert "both outside the table's columns" in first
    header = (
        # fix pass 285 (read r280b #1): each column names its length, 8L
        "| method, mean of five seeds | filler loss at $8L$ | passkeys found 496 tokens back at $8L$ | passkeys found"
        " at a random distance at $8L$ |"
    )
    assert header in main  # the table's two passkey columns: 496 back, and random distances (at 8L, the table's length)
    assert all(n != 8 * L for _, n, _ in random_misses) and all(d != 496 for _, d, _ in fixed_misses)
    assert len(random_misses) + len(fixed_misses) == 2 and all(m == 1 for *_, m in random_misses + fixed_misses)
    assert {n for s in seeds for n in full["metrics"]["none"][s]["passkey"]} == {str(n) for n in config["eval_lengths"]}
    assert config["eval_lengths"][-1] == 8 * L  # the fixed distances are scored on 8L-token inputs


def test_fire_u_in_bfloat16_autocast_shares_one_input_across_many_far_keys():
    """The FIRE box: "Under bfloat16 autocast, FIRE's first linear layer rounds $u$ to 8 significant bits. At the
    starting values, from query 4095, the 2,048 keys 2,048 to 4,095 back then share 30 inputs, up to 95 keys each.
    Compute $u$ and that layer in float32." Checked with CPU autocast, which, like CUDA's, runs nn.Linear in
    bfloat16: the layer's outputs take 30 distinct rows over those keys, and in float32 2,048."""
    assert (
        "Under bfloat16 autocast, FIRE's first linear layer rounds $u$ to 8 significant bits. At the starting values,"
        " from query 4095, the 2,048 keys 2,048 to 4,095 back then share 30 inputs, up to 95 keys each."
        in chapter_markdown("11_learned_position")
    )
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire = FireBias(4, L_thr_init=16.0)  # chapter 8's starting values
    query = 4095
    u = fire.normalized_distance(torch.tensor([query]), query - torch.arange(2048, 4096)).detach()[0]  # 2,048 keys
    assert u.unique().numel() == 2048  # float32 tells every key apart
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = fire.mlp[0](u[:, None])
    assert hidden.dtype == torch.bfloat16
    layer = fire.mlp[0]  # the same layer by hand in bfloat16, leaving the module in float32
    by_hand = F.linear(*(t.to(torch.bfloat16) for t in (u[:, None], layer.weight, layer.bias)))
    assert torch.equal(hidden, by_hand)  # the input rounded
    rows, runs = hidden.float().unique_consecutive(dim=0, return_counts=True)
    assert len(rows) == 30 and runs.max().item() == 95
    assert u.to(torch.bfloat16).unique().numel() == 30  # the distinct inputs: 8 significant bits


def test_fire_fit_figure_cites_only_the_saved_runs_c():
    """The fits box: "In the saved run, the figure's start, start 0 at 64 units on the first table, ends with $|c|$
    below $10^{-5}$ ... The figure refits it live; its legend prints the $|c|$ reached." The figure's fit is a live
    L-BFGS refit whose path can change across CPUs, and no cell asserts its |c|, so the text no longer says that the
    figure's fit is "one of the small ones". The saved start is asserted in the notebook; here from the saved file."""
    from posenc.experiments.fire_fit import load_fire_fits

    text = chapter_markdown("11_learned_position")
    assert "The figure's fit is one of the small ones" not in text
    assert (
        "In the saved run, the figure's start, start 0 at 64 units on the first table, ends with $|c|$ below"
        " $10^{-5}$, so $u$ becomes nearly proportional to the distance." in text
    )
    saved = [
        r
        for r in load_fire_fits()["fits"]
        if r["target"] == "T5 buckets" and r["t5_table"] == 0 and r["hidden"] == 64 and r["start"] == 0
    ]
    assert len(saved) == 1 and saved[0]["abs_c"] < 1e-5
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    # it followed by arithmetic from drawn_c < 1e-5 and could not fail on its own
    assert "assert (u_drawn - d_fit / 256).abs().max() < 1e-3" not in cells["chk96016888"]


def test_placed_units_hit_the_steps_only_below_the_threshold():
    """The fitting section: "For queries below $L_{\\text{thr}}$, where $u$ depends on the distance only, an MLP of 64
    units, twice FIRE's, can hit T5's steps." (It said "can hit T5's steps" without the threshold: past it, $u$ moves
    with the query while a bucket edge stays at a fixed distance.) The placed units hit every step from query 100 as
    from query 255; from query 1023, past L_thr = 256, the same distances get other u and the steps are missed."""
    from posenc.experiments.fire_fit import fit_t5_by_construction, fit_targets

    text = chapter_markdown("11_learned_position")
    assert "An MLP of 64 units, twice FIRE's, can hit T5's steps, but" not in text
    assert (
        "For queries below $L_{\\text{thr}}$, where $u$ depends on the distance only, an MLP of 64 units, twice FIRE's,"
        " can hit T5's steps." in text
    )
    target = fit_targets(t5_table=0)["T5 buckets"]  # [4 heads, distances 0 to 255]
    with torch.random.fork_rng():
        placed, *_ = fit_t5_by_construction(target)
    scale = target.abs().max()
    for query in (100, 200, 255):
        got = placed.bias_at(torch.tensor([query]), torch.arange(query + 1))[:, 0].flip(-1).detach()
        assert (got - target[:, : query + 1]).abs().max() / scale < 0.003, query
    late = placed.bias_at(torch.tensor([1023]), 1023 - torch.arange(256))[:, 0].detach()  # distances 0 to 255
    assert (late - target).abs().max() / scale > 0.1  # past the threshold the same units miss
    # the part's main line answers its question (read r191: it pointed to "the block under the figure"): "Hidden units
    # placed by hand hit every step, but every L-BFGS fit tried here misses them." The placed units, above; every saved
    # L-BFGS fit of a random step table misses by more than four fifths of the largest bias, as the block says
    from posenc.experiments.fire_fit import load_fire_fits

    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    # fix pass 265 (read r264 #3, overstated: the targets are random step tables on T5's bucket edges, not a trained T5
    # bias, which only the block's last sentence said): the main line says what is fitted before the answer
    answer = (
        "Can FIRE's MLP take the shape of T5's step-shaped bias? The targets here are random step tables: T5's"
        " buckets, each given a random value, not a trained T5 bias. Hidden units placed by hand hit every step, but"
        " every L-BFGS fit tried here misses them."
    )
    assert answer in main and "The block under the figure says" not in text
    t5_fits = [r for r in load_fire_fits()["fits"] if r["target"] == "T5 buckets"]
    assert len(t5_fits) == 72 and min(r["error"] for r in t5_fits) > 0.8
    # "T5's buckets, each given a random value": on each of T5's 32 causal buckets (posenc's t5_relative_bucket, over
    # distances 0 to 255) the target is one value per head, a standard normal draw (seed 0), not a trained table
    buckets = posenc.t5_relative_bucket(-torch.arange(target.shape[-1]), bidirectional=False)
    drawn = torch.randn(32, 4, generator=torch.Generator().manual_seed(0))  # [bucket, head], as fit_targets draws it
    assert buckets.unique().tolist() == list(range(32))
    for b in range(32):
        assert torch.equal(target[:, buckets == b], drawn[b][:, None].expand(4, int((buckets == b).sum()))), b


def test_each_method_adds_a_learned_term_and_copes_need_not_penalise_distance():
    """The opening: "This chapter's three methods each add a learned term to the logits instead, and leave the queries
    and keys unchanged." It said "Each of this
    chapter's three methods learns more of it", the distance penalty, which is false for CoPE: its term
    q_i . e(p_ij) / sqrt(d_h) follows the query and a count, and can favour a far key over a near one. Each method's
    term reaches its learned parameters through the gradient; a CoPE head whose embedding grows with the count gives
    the farthest key the largest term."""
    text = chapter_markdown("11_learned_position")
    assert "learns more of it, as a term added to the logits" not in text
    assert (
        "This chapter's three methods each add a learned term to the logits instead, and leave the queries and keys"
        " unchanged." in " ".join(text.split())
    )
    q, k, _ = random_qkv(b=1, h=2, L=6, T=6, d=16, seed=3)
    with torch.random.fork_rng():
        methods = [KerpleBias(2, kind="log"), FireBias(2, L_thr_init=4.0), CoPE(16, npos_max=8)]
    for method in methods:
        bias = method.logit_bias(q, k, causal=True)
        bias[torch.isfinite(bias)].sum().backward()
        grads = [p.grad for p in method.parameters() if p.requires_grad]
        assert grads and all(g is not None for g in grads) and any(g.abs().sum() > 0 for g in grads)
    # read r205: "leave the queries and keys unchanged": none of the three overrides the hooks that change the input
    # or rotate q and k, so attention's q and k are the projections themselves; the term is added to the logits
    x, pos = torch.randn(1, 6, 16), torch.arange(6)
    for method in methods:
        assert type(method).rotate_qk is posenc.methods.base.PositionMethod.rotate_qk
        assert type(method).encode_input is posenc.methods.base.PositionMethod.encode_input
        assert type(method).attend is posenc.methods.base.PositionMethod.attend
        q2, k2 = method.rotate_qk(q, k, pos)
        assert q2 is q and k2 is k and method.encode_input(x, pos) is x
    cope = CoPE(1, npos_max=8)
    with torch.no_grad():
        cope.pos_emb.copy_(torch.arange(8.0)[None, :])  # e[n] = n: a larger count, a larger term
    ones = torch.ones(1, 1, 6, 1)
    row = cope.logit_bias(ones, 10 * ones, causal=True)[0, 0, -1]  # gates near 1: the count grows with distance
    assert row.argmax().item() == 0 and (row.diff() < 0).all()  # the farthest key gets the largest term


def test_cope_box_says_which_logits_the_listing_and_nodiv_divide():
    """The CoPE box: "The paper's short code listing, like the reference's `--cope-nodiv` option, divides the content
    and gate logits by $\\sqrt{d_h}$ but adds $q_i \\cdot e(p_{ij})$ undivided." In the reference's
    context_position.py, `cope_nodiv` runs `attn_logits /= math.sqrt(head_dim)` before `attn_logits += pos_logits`;
    "divides only the gate's logit" read as if the content logit stayed unscaled."""
    text = chapter_markdown("11_learned_position")
    assert "option, divides only the gate's logit" not in text
    assert (
        "like the reference's `--cope-nodiv` option, divides the content and gate logits by $\\sqrt{d_h}$ but adds"
        " $q_i \\cdot e(p_{ij})$ undivided." in text
    )


def test_cope_main_line_says_where_it_divides_by_sqrt_d_h():
    """The CoPE section's four steps, one a paragraph: "In CoPE a gate is computed from the content, $g_{ij} = ...$,
    where $d_h$ is the width of one attention head." and "The position logit $q_i \\cdot e(p_{ij})/\\sqrt{d_h}$ is
    added to the content logit." (read r183: a learner comparing with the paper, whose equations omit it, saw a
    mismatch that only the block explained, so the gate's sentence named the reference code; read r191: a convention,
    not the step, so it is the block's alone, which says whose it is; fix pass 265, read r264 #4: each of the two
    sentences names the reference code in a short clause, and the block keeps the detail)
    Its block says whose convention this is: "Both $\\sqrt{d_h}$, in the gate and in the
    position logit, are the reference code's default; the paper's equations omit them." The reference's
    context_position.py, default options, computes `torch.sigmoid(gate_logits / math.sqrt(head_dim))` and then
    `attn_logits += pos_logits; attn_logits /= math.sqrt(head_dim)`: the content and position logits are both divided.
    Rebuilt here from those lines and compared with the library's CoPE, whose bias is added to q.k / sqrt(d_h); the
    undivided variants differ."""
    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    # fix pass 265 (read r264 #4, unclear: both sqrt(d_h) read as CoPE's definition, and only the block said they are
    # the reference code's default): a short clause at each, the detail stays the block's
    gate = (
        "In CoPE a gate is computed from the content, $g_{ij} = \\sigma\\big(q_i \\cdot k_j / \\sqrt{d_h}\\big)$ as in"
        " the reference code, where $d_h$ is the width of one attention head."
    )
    assert "follows CoPE's reference code" not in main
    logit = (
        "The position logit $q_i \\cdot e(p_{ij})/\\sqrt{d_h}$, scaled as in the reference code too, is added to the"
        " content logit."
    )
    assert main.count(gate) == 1 and main.count(logit) == 1 and main.index(gate) < main.index(logit)
    # fix pass 279 (read r275b #10, omission: the mixed scaling, which matters when comparing sizes across methods,
    # was only the block's): one main-line sentence after the logit's; the block's sentence on posenc's attention
    # (checked in the block's own test: KERPLE's and FIRE's biases go to scaled_dot_product_attention as attn_mask,
    # added to q.k / sqrt(d_h)) and this test's rebuild of the reference code's division back it
    mixed_279 = (
        "So CoPE's position logit is divided by $\\sqrt{d_h}$, while KERPLE's and FIRE's biases are added after that"
        " scaling."
    )
    # fix pass 280 (read r276b #4, unclear: an implementation detail on the main line): mixed_279 left again; the
    # block says both halves (the reference code's default divides the position logit; posenc adds KERPLE's and
    # FIRE's biases undivided, after q.k / sqrt(d_h))
    assert mixed_279 not in " ".join(text.split())
    assert "posenc adds KERPLE's and FIRE's biases undivided" in " ".join(text.split())
    assert "As in the reference code, $\\sqrt{d_h}$ divides" not in text  # said once, in the block
    assert (
        "Both $\\sqrt{d_h}$, in the gate and in the position logit, are the reference code's default; the paper's"
        " equations omit them." in " ".join(text.split())
    )
    n, d, P = 6, 16, 8
    gen = torch.Generator().manual_seed(5)
    q, k = torch.randn(n, d, generator=gen, dtype=torch.float64), torch.randn(n, d, generator=gen, dtype=torch.float64)
    with torch.random.fork_rng():
        cope = CoPE(d, npos_max=P)
    with torch.no_grad():
        cope.pos_emb.copy_(torch.randn(d, P, generator=gen))
    e = cope.pos_emb.detach().double()

    def reference(divide_gate=True, divide_pos=True):  # the reference's forward, one head, no batch, causal
        gate_logits = q @ k.T
        gates = torch.sigmoid(gate_logits / (d**0.5 if divide_gate else 1)).tril()
        positions = gates.flip(-1).cumsum(-1).flip(-1).clamp(max=P - 1)
        fixed = q @ e  # [n, P]
        lo, hi = positions.floor().long(), positions.ceil().long()
        w = positions - lo
        pos_logits = fixed.gather(-1, hi) * w + fixed.gather(-1, lo) * (1 - w)
        logits = (gate_logits + pos_logits) / d**0.5 if divide_pos else gate_logits / d**0.5 + pos_logits
        return logits.masked_fill(torch.ones(n, n).triu(1).bool(), -math.inf)

    ours = (q @ k.T) / d**0.5 + cope.logit_bias(q[None, None], k[None, None], causal=True)[0, 0]
    torch.testing.assert_close(ours, reference(), rtol=1e-9, atol=1e-9)
    for variant in (reference(divide_gate=False), reference(divide_pos=False)):
        assert (ours.tril() - variant.tril()).nan_to_num().abs().max() > 1e-3


def test_fire_sliding_window_bound_is_psi_of_w_minus_1():
    """The FIRE box: "Its farthest key is $W - 1$ back, so every key in the window gets $u \\le \\psi(W - 1)/\\psi(i)$".
    A window of W keys, the query's own included, reaches W - 1 back; the bound psi(W) / psi(i) was not sharp, and a
    check against it passed a window of W + 1 keys. The notebook asserts the bound is reached."""
    text = chapter_markdown("11_learned_position")
    assert "gets $u \\le \\psi(W)/\\psi(i)$" not in text
    assert "Its farthest key is $W - 1$ back, so every key in the window gets $u \\le \\psi(W - 1)/\\psi(i)$" in text
    with torch.random.fork_rng():
        fire = FireBias(1, L_thr_init=16.0)
    psi = lambda x: math.log(0.1 * x + 1)  # noqa: E731
    for last in (63, 511, 4095):
        top = fire.normalized_distance(torch.tensor([last]), torch.arange(last - 63, last + 1)).detach()[0].max()
        assert abs(top.item() - psi(63) / psi(last)) < 1e-5
        if last < 64:
            continue  # no key 64 back
        wider = fire.normalized_distance(torch.tensor([last]), torch.arange(last - 64, last + 1)).detach()[0].max()
        assert wider.item() > psi(63) / psi(last) + 1e-4  # one key more breaks the bound: the check can fail
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "assert abs(u_window.max() - psi(63) / psi(last)) < 1e-5" in cells["r11c10"]


def test_swin_v2_divides_offsets_by_the_pretrained_window_when_set():
    """The models box: "Swin V2 scales the offsets by a window's size, the pretrained window's when that is set, not by
    the query's position." In transformers' modeling_swinv2.py the relative coordinates are divided by
    pretrained_window_size - 1 when that is set, and otherwise by window_size - 1."""
    import inspect

    swin = pytest.importorskip("transformers.models.swinv2.modeling_swinv2")
    text = chapter_markdown("11_learned_position")
    assert "offsets by the trained window's size" not in text
    assert "Swin V2 scales the offsets by a window's size, the pretrained window's when that is set, not by" in text
    source = inspect.getsource(swin.Swinv2SelfAttention)
    assert "if self.pretrained_window_size[0] > 0:" in source
    assert "/= self.pretrained_window_size[0] - 1" in source and "/= self.window_size[0] - 1" in source


def test_nope_row_of_the_table_reads_as_a_uniform_guess():
    """The section's table: "| no position encoding | 2.79 nats | 100 % |", on the main line;
    its box says what the number means: "At $8L$, the loss of the model without position encoding is within a tenth of
    a nat of $\\ln 16 \\approx 2.77$ nats, that of a uniform guess among the 16 filler symbols, in every seed"
    (test_raised_losses_stay_below_uniform_guessing_and_nope_ends_near_ln_16)."""
    text = chapter_markdown("11_learned_position")
    assert "| no position encoding | 2.79 nats | 100 % |" in text
    assert "raised: near a uniform guess among the 16 filler symbols |" not in text
    assert "that of a uniform guess among the 16 filler symbols, in every seed." in text
    _, _, _, corpus = saved_run()
    assert corpus.vocab_size == 16 and all(abs(a - math.log(16)) < 0.1 for a in loss_8L("none"))


def test_fire_goal_and_teaching_function():
    """The FIRE section states its goal before the rule: "Its goal: however long the input, $u$ stays in $[0, 1]$,
    so the MLP's input range does not grow with the length." Then a teaching function `fire_u(i, d, c, L_thr)` in
    the main line, with one printed row (the learning objective "build FIRE's normalised distance"). The notebook
    checks fire_u against FireBias; here the same function, copied from the cell, against FireBias and the range."""
    text = chapter_markdown("11_learned_position")
    assert (
        "Its goal: however long the input, $u$ stays in $[0, 1]$, so the MLP's input range does not grow with"
        " the length." in " ".join(text.split())
    )
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    order = [c.get("id") for c in cells]
    assert order.index("c11") < order.index("c11-fire-u") < order.index("c13") and "c11b" not in order
    cell = next(c for c in cells if c.get("id") == "c11-fire-u")
    assert "tags" not in cell["metadata"] or not {"hide-input", "remove-input"} & set(cell["metadata"]["tags"])
    scope = {"math": math}
    exec("".join(cell["source"]).split("\n\n\nprint")[0], scope)
    fire_u = scope["fire_u"]
    with torch.random.fork_rng():
        fire = FireBias(1, L_thr_init=16.0)
    for query in (5, 63, 511, 4095):
        lib = fire.normalized_distance(torch.tensor([query]), query - torch.arange(query + 1))[0].detach()
        mine = torch.tensor([fire_u(query, d) for d in range(query + 1)])
        assert (lib - mine).abs().max() < 1e-5 and 0 <= mine.min() and mine.max() <= 1 + 1e-12, query
    assert [round(fire_u(511, d), 3) for d in (0, 63, 511)] == [0.0, 0.503, 1.0]
    printed = "".join(cell["outputs"][0]["text"])  # the cell's stored output
    assert "[0.0, 0.503, 1.0]" in printed


def test_library_u_at_63_is_a_hair_below_a_third():
    """Exercise 1's answer: "`FireBias` adds a millionth to the divisor, which puts its $u$ at $i = 63$ a hair below
    $1/3$". The hair, log 4 / (log 64 + 1e-6) = 1/3 - 8.0e-8, is a property of the formula.
    ``FireBias.normalized_distance`` computes u in float32 (it casts the positions to float32, and its 0-dimensional
    parameters do not promote them, even after ``.double()``), where one step near 1/3 is 3e-8. So the hair is checked
    on the float64 formula with FireBias's own eps, and the module is checked to follow that formula to 1e-6, a bound
    far above float32 rounding on any CPU."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "assert 5e-8 < 1 / 3 - u63 < 1e-7" not in cells["ex_sol"]  # the float32 value, read to a 1e-8 band
    # the notebook's float64 check of the hair, arithmetic on constants, left it; the hair is checked here, with
    # FireBias's own eps, and the notebook keeps its check of the module's u against the formula
    assert "5e-8 < 1 / 3 - exact_u[63]" not in cells["ex_sol"]
    assert "assert all(abs(u[i] - exact_u[i]) < 1e-6 for i in exact_u)" in cells["ex_sol"]
    with torch.random.fork_rng():
        fire = FireBias(1, c_init=1.0, L_thr_init=8.0)
    exact = math.log(4) / (math.log(64) + fire.eps)  # float64, FireBias's eps
    assert 5e-8 < 1 / 3 - exact < 1e-7
    u63 = fire.normalized_distance(torch.tensor([63]), torch.tensor([60]))[0, 0].item()
    assert abs(u63 - exact) < 1e-6
    fire.eps = 0.0  # without the millionth the formula gives 1/3 exactly; the module follows it to float32 rounding
    assert abs(fire.normalized_distance(torch.tensor([63]), torch.tensor([60]))[0, 0].item() - 1 / 3) < 1e-6


def test_random_distance_is_defined_in_the_box_and_cable_is_listed():
    """The section's table, on the main line, has one measure a column, measured numbers only: the filler loss and the
    passkeys found 496 tokens back and at a random distance, each mean in whole units (read r183: with the random
    column only in the box, ALiBi was judged on the main line by its worst column alone). The grades are the box's,
    where the random distance is defined: "The other, as chapter 8's table, scores passkeys at a *random distance*, 1
    to 510 tokens back, each distance equally likely. Both columns give the same grades." And "Which
    models use these methods" lists CABLE (arXiv 2503.08067), whose abstract calls it "an additive RPE" that "learns
    token-specific, context-aware biases for each attention head"."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    # the table sits on the main line, above the result sentences that read it; one measure a column, the measured
    # means only (no grade: the terms *fine* and *kept* and their bars are the box's). The random distance is defined
    # in the box "How the measures are scored"; the main line's caption names it
    header = (
        # fix pass 285 (read r280b #1): each column names its length, 8L
        "| method, mean of five seeds | filler loss at $8L$ | passkeys found 496 tokens back at $8L$ | passkeys found"
        " at a random distance at $8L$ | |---|---|---|---|"
    )
    flat, flat_main = " ".join(text.split()), " ".join(main.split())
    assert flat.count(header) == 1 and header in flat_main and flat.count("| method, mean of five seeds |") == 1
    assert "*random distance*" not in main and "| grade |" not in text and ", kept |" not in text
    assert "It gives the same grades" not in text  # the box's second table is gone: its column is the main table's
    from posenc.experiments import summarize

    alibi_random = summarize(saved_run()[1], "passkey")["alibi"][512][0]
    assert round(100 * alibi_random) == 91 and "| ALiBi | 0.73 nats | 76 % | 91 % |" in flat_main
    assert (
        "The other, as chapter 8's table, scores passkeys at a *random distance*, 1 to 510 tokens back, each distance"
        " equally likely. Both columns give the same grades." in flat
    )
    # the table's rows, both passkey columns, against the saved run's means at 8L
    config, full, _, corpus = saved_run()
    n, far = config["eval_lengths"][-1], config["distances"][-1]
    assert far == 496
    loss, random_d = summarize(full, "loss_beyond"), summarize(full, "passkey")
    fixed = summarize(full, "passkey_by_distance")
    # ALiBi's 91 % at random distances: more than its 76 % at 496 back, yet still under the 95 % bar
    assert fixed["alibi"][far][0] + 0.1 < random_d["alibi"][n][0] < 0.95
    rows = {
        "kerple": "KERPLE, log shape",
        "alibi": "ALiBi",
        "fire": "FIRE",
        "cope": "CoPE",
        "none": "no position encoding",
    }
    fine = loss["trigram"][n][0] + 0.1  # chapter 8's grade: fine within a tenth of a nat of the trigram, or below
    both_grades = []
    for name, label in rows.items():
        mean = loss[name][n][0]
        # "A loss is *fine* at most 0.1 nats above the trigram's, and passkeys are *kept* when 95 % or more are found on
        # average": each on the five-seed mean, *kept* in each passkey column
        is_fine = mean <= fine
        kept_far, kept_random = fixed[name][far][0] >= 0.95, random_d[name][n][0] >= 0.95
        assert kept_far == kept_random, name  # the box's "Both columns give the same grades"
        assert is_fine or kept_far, name  # every row earns one grade or both
        # the main line: no grade
        row = f"| {label} | {mean:.2f} nats | {100 * fixed[name][far][0]:.0f} % | {100 * random_d[name][n][0]:.0f} % |"
        # whole percents; a printed 100 % is a full score, every probe found in every seed, not a near one rounded up
        for share in (fixed[name][far][0], random_d[name][n][0]):
            assert share == 1 or f"{100 * share:.0f}" != "100", (name, share)
        found = re.search(
            rf"\| {re.escape(label)} \| [0-9.]+ nats[a-z, ]* \| [0-9.]+ %[a-z, ]* \| [0-9.]+ %[a-z, ]* \|", main
        )
        assert found is not None and found[0] == row, (found and found[0], row)
        assert "fine" not in found[0] and "kept" not in found[0], found[0]
        if is_fine and kept_far and kept_random:
            both_grades.append(label)
    assert both_grades == ["KERPLE, log shape"]  # the box: "On their five-seed means, only KERPLE gets both grades"
    assert (
        'CABLE ([Veisi et al. 2025](https://arxiv.org/abs/2503.08067 "cite:veisi2025cable")) is another additive bias'
        in text
    )
    *_, corpus = saved_run()
    assert corpus.distances(512) == (1, 510)  # uniform over these, as sample_probe draws a distance by default


def test_a_low_passkey_score_sits_beside_a_penalty_past_the_trained_range():
    """Cell "In chapter 8's experiment": the measures first ("The passkey is the test input's only digit, so content
    alone can find it, and the model without position encoding nearly always does."), the grades after them, and the
    reading under the table, narrowed to what the run measured: "Beyond the trained length, KERPLE keeps a low loss but
    misses some far passkeys. Like ALiBi's, its penalty keeps growing past the trained length, beyond any value met in
    training. FIRE's bias stays within its trained range, the goal of its bounded $u$." A truth audit found the former
    reading, "its distance penalty, like ALiBi's, gets in the way of the lookup", overstated: FIRE's penalty on a far
    key is as steep or steeper, yet FIRE finds every passkey. The checks: in every KERPLE and ALiBi head every key 64 to
    511 back gets a bias below every bias of the 64-token input; every FIRE bias from the last of 512 tokens lies within
    that head's range from the last of 64 (up to the saved biases' rounding, 1e-4). The box: "Every FIRE head lowers the
    key 496 back by more than 4 logits relative to the key one back, more than ALiBi's flattest head's 1.9, yet FIRE
    finds every passkey." KERPLE and ALiBi, the same model as the one without position encoding with a penalty added,
    find fewer passkeys than it on average, at random distances and 496 back. "So no method in the table keeps both a
    fine loss and every passkey": of the table's five methods at 8L, none has both a fine mean loss (at most 0.1 nats
    above the trigram's) and a mean of 100 % in both passkey columns. RoPE, the same model with another position term,
    misses most passkeys at 8L, near keys too (not in the table)."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    assert "A low score thus means the position term gets in the way of the lookup." not in text
    assert "hides far keys" not in text and "gets in the way of a far key" not in text
    assert "gets in the way of the lookup" not in text
    assert "A steep penalty can hide far keys, as ALiBi's does" not in text
    # "So no method in the table keeps both a fine loss and every passkey" set a 100 % bar the book never
    # defines; by chapter 8's grades (kept: 95 % of passkeys or more on average) KERPLE passes both. The growing
    # penalty, placed beside the misses, read as their cause: it lives in the box, beside "not tested"
    assert "So no method in the table keeps both a fine loss and every passkey." not in text
    assert "Like ALiBi's, its penalty keeps growing past the trained length" not in main
    # the main line: the question, the two terms, the table of measured numbers and one result sentence; "KERPLE and
    # ALiBi keep the lowest losses" is the figure's assert (below == ["kerple", "alibi"]); "FIRE and CoPE find every
    # passkey" is the appendix's every_both, and "at a higher loss" is checked below
    flat_main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    # the main line defines the trigram (its 8L loss asserted in the figure's cell) and the passkey, then gives the
    # table with no grades; the grades and chapter 8's own use of *kept* are the block's
    # read r191: one claim a sentence, and the passkey's definition carries why content alone finds it
    # read r203: the three terms as a short list, one item each, after the lesson and the setup
    terms = (
        "- A model's *filler loss* is its mean loss over filler tokens from position $L$ on. - Each filler symbol"
        " depends on the two before it. So a *trigram* model, which predicts each token from the two before it, is the"
        f" yardstick: 0.72 nats at $2L$, $4L$ and $8L$. - {passkey_defined} {passkey_miss}"
    )
    # fix pass 277 (read r274a #5, unclear: "every tested length" took in L, where no position from L on is scored):
    # the three lengths named, the ones checked below (eval_lengths[1:], 2L, 4L and 8L)
    assert "0.72 nats at every tested length" not in text
    # fix pass 279 (reads r275a #3 and r275b #1, unclear: the terms list, the yardstick and the grades stood between
    # the lesson and the table): the terms left the main line; the filler loss is defined in the measures block's
    # first paragraph, the yardstick and the grades open its second (yardstick_279), and the main line gives the
    # set-up, the table and the lesson (setup_279, lesson_279)
    assert terms not in " ".join(text.split())
    yardstick_279 = (
        # the summary page quotes "a *trigram* model, which predicts each token from the two before it," (test_summary)
        "The yardstick is a *trigram* model, which predicts each token from the two before it, with 0.72 nats at $2L$,"
        f" $4L$ and $8L$. {grades_272} {grades_8l}"
    )
    assert "A model's *filler loss* is its mean loss over filler tokens from position $L$ on; it asks whether" in (
        collapsed(" ".join(text.split()), "How the measures are scored, and what is not tested")
    )
    # read r207: "at $8L$" suggested a length-dependent loss; the trigram's five-seed mean filler loss is 0.72 at every
    # tested length past L (2L, 4L, 8L)
    # read r205: the passkey's item ends on what a miss points to
    assert "0.72 nats at $8L$" not in text
    from posenc.experiments import summarize as _summarize

    config_run, full_run, _, _ = saved_run()
    tested = config_run["eval_lengths"][1:]
    trigram_means = _summarize(full_run, "loss_beyond")["trigram"]
    assert len(tested) == 3 and all(f"{trigram_means[n][0]:.2f}" == "0.72" for n in tested)
    assert tested == [2 * config_run["train_length"], 4 * config_run["train_length"], 8 * config_run["train_length"]]
    # the grades, their bars and chapter 8's own use of *kept* are the block's; the main line's table has no grade
    # fix pass 272 (read r269a #6, unclear: the densest stretch of the main line, and the grades the table and the
    # figure's "fine line" imply were defined only in the block): the two bars, one short sentence, right before the
    # table; chapter 8's own use of *kept* stays the block's (grades)
    grades_r271 = (
        "Chapter 8 grades a loss *fine* at most 0.1 nats above the trigram's, and passkeys *kept* when 95 % or more are"
        " found on average. It applies *kept* to passkeys at random distances only; this chapter applies it to both"
        " columns."
    )
    grades = "Chapter 8 applies *kept* to passkeys at random distances only; this chapter applies it to both columns."
    flat_text0 = " ".join(text.split())
    assert grades_r271 not in flat_text0
    assert flat_text0.count(grades) == 1 and grades not in flat_main
    # fix pass 279 (reads r275a #3 and r275b #1): the bars are the measures block's, once; the main line has no grade
    assert grades_272 not in flat_main and flat_text0.count(grades_272) == 1
    assert "*fine*" not in flat_main and "*kept*" not in flat_main
    # the bars are chapter 8's (its grading table: "within a tenth of a nat of the trigram's mean, or below it" and
    # "95 % of passkeys found or more, on average") and the ones this chapter's cells apply: the figure's fine line
    # at the trigram's loss plus 0.1, and kept at a five-seed mean of 0.95 or more in both columns
    ch8 = " ".join(chapter_markdown("08_extrapolation").split())
    assert "| retrieval is *kept* | 95 % of passkeys found or more, on average |" in ch8
    assert "| the loss is *fine* | within a tenth of a nat of the trigram's mean, or below it," in ch8
    nb11 = json.loads(
        (pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb").read_text(encoding="utf-8")
    )
    code11 = "".join("".join(c["source"]) for c in nb11["cells"] if c["cell_type"] == "code")
    assert "ax.axhline(trigram + 0.1," in code11 and "passkey[m][n_8l][0] >= 0.95)" in code11
    # "Of these five models": the table's, just above ("At $8L$, on 512-token inputs, mean of five seeds"). Chapter
    # 8's fine-tuned RoPE models (rope ft, rope+pi ft, rope+yarn ft) meet both bars too, but they are further trained
    # and not in the table (the box: "Five models carry ...")
    from posenc.experiments import summarize

    config8, full8, _, _ = saved_run()
    verdict_line = (
        # the lesson, first: the grade column's one "fine loss, passkeys kept"; every other row has exactly one grade
        "On their five-seed means, only KERPLE gets both grades; each other model misses one."
    )
    assert "At $8L$, on average, only KERPLE" not in flat_main
    assert "Of this section's five models, at $8L$ and on average over five seeds" not in flat_main
    assert "fine loss and nearly every passkey" not in flat_main and "under 90 %" not in flat_main
    # the definitions first, in their own paragraphs; then the table, visible; then the verdict that reads it
    # the block's sentence after the definition of the two passkey columns compares them: "no easier to
    # find ... and harder for ALiBi" (no row finds more 496 back than at random distances; ALiBi finds fewer by far
    # more than its probes' standard error, KERPLE's 97.2 against 97.5 % is within one, so it is not named), "get the
    # same grades"
    # (kept in both columns or in neither, row by row: test_random_distance_is_defined_in_the_box_and_cable_is_listed,
    # and below)
    caption = caption_8l
    # fix pass 244 (read r243b #4: KERPLE's seed 3 finds 100 % 496 back against 98.4 % at random distances; the
    # asserts below compare the five-seed means)
    compared = (
        "On the five-seed means, passkeys 496 back are no easier to find than at random distances, and harder for"
        " ALiBi."
    )
    assert caption not in flat_text0  # fix pass 279: the set-up leads into the table, whose header names the columns
    assert flat_main.index(setup_279) < flat_main.index("| no position encoding |")
    fixed8, random8 = summarize(full8, "passkey_by_distance"), summarize(full8, "passkey")
    n8, far8 = config8["eval_lengths"][-1], config8["distances"][-1]
    caption_rows = ("kerple", "alibi", "fire", "cope", "none")
    assert far8 == 496 and n8 == 512
    assert all(fixed8[m][far8][0] <= random8[m][n8][0] for m in caption_rows)
    assert [m for m in caption_rows if fixed8[m][far8][0] < random8[m][n8][0]] == ["kerple", "alibi"]
    # "harder for ALiBi" and not for KERPLE: binomial standard error of the difference of the two pooled shares, over
    # the run's probes (distance_batch per seed 496 back, eval_batch per seed at random distances)
    n_far, n_random = 5 * config8["distance_batch"], 5 * config8["eval_batch"]

    def gap_in_errors(m: str) -> float:
        p_far, p_random = fixed8[m][far8][0], random8[m][n8][0]
        err = math.sqrt(p_far * (1 - p_far) / n_far + p_random * (1 - p_random) / n_random)
        return (p_random - p_far) / err

    assert gap_in_errors("alibi") > 4 and gap_in_errors("kerple") < 1, (gap_in_errors("alibi"), gap_in_errors("kerple"))
    assert all((fixed8[m][far8][0] >= 0.95) == (random8[m][n8][0] >= 0.95) for m in caption_rows)
    # chapter 8's second passkey measure is the box's: the main line's verdict follows the table directly. The box
    # says the two chapters' passkey columns differ, with chapter 8's ALiBi number and the agreement of the grades
    # (asserted, column by column and against the saved run, in
    # test_random_distance_is_defined_in_the_box_and_cable_is_listed)
    assert "Unlike the table below" not in text and "Unlike the table above" not in text
    # the comparison with chapter 8's passkeys follows the table, where its passkey column is read, then the verdict
    # the comparison sits in the block, right after the definition of the columns it reads; the verdict follows the
    # table
    # fix pass 273 (read r270a #7): after the table, the counter-fact, then the conclusion (verdict_line, moved up
    # from the measures block); "KERPLE and ALiBi keep the lowest losses" now opens the section (lesson_8l)
    # fix pass 274 (reads r271a #1 and r271b #4): the edge and the open question after the result, the weak seed after
    # the grades
    assert verdict_line == grades_8l
    # fix pass 279 (reads r275a #3 and r275b #1): the lesson, the pointer and the crossing after the table
    assert f"| no position encoding | 2.79 nats | 100 % | 100 % | {main_8l_279} <details>" in flat_text0
    assert compared not in flat_main and "no easier" not in flat_main
    flat_all = " ".join(text.split())
    # read r192: the weak seed is said once, with the grades (mean_only below); the columns' paragraph ends here
    assert f"Both columns give the same grades. {compared} Why FIRE's and CoPE's losses rise" in flat_all
    alibi_random = summarize(full8, "passkey")["alibi"][config8["eval_lengths"][-1]][0]
    assert f"| ALiBi | 0.73 nats | 76 % | {100 * alibi_random:.0f} % |" in flat_main and alibi_random < 0.95
    assert "ALiBi finds 91 %" not in flat_main
    table_at = flat_main.index("| method, mean of five seeds |")
    assert flat_main.index(setup_279) < table_at  # fix pass 279
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    section = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    paragraphs = [" ".join(p.split()) for p in section["c29"].split("<details>")[0].split("\n\n")]
    assert setup_279 in paragraphs  # fix pass 279: in a paragraph of its own, apart from the lesson
    measures = section["c29"].index("<details><summary>How the measures are scored")  # structural pass 217: the
    # section's second block; the first holds the KERPLE-against-ALiBi paragraphs
    block_paragraphs = [" ".join(p.split()) for p in section["c29"][measures:].split("\n\n")]
    # fix pass 279: the yardstick and the bars open the paragraph, before chapter 8's own use of *kept*
    assert any(p.startswith(f"{yardstick_279} {grades}") for p in block_paragraphs)
    # fix pass 272: the bars' sentence, on the main line between the passkey's item and the table's caption; fix pass
    # 279 (reads r275a #3 and r275b #1): in the measures block (yardstick_279), the set-up right before the table
    assert f"{setup_279} | method, mean of five seeds |" in flat_main
    # the bars are the mean's; the one KERPLE seed under them is named on the main line, its numbers in the box
    # "of far passkeys": the main table's column, 496 back (seed 2: 0.875; the other four 0.98 or more, below)
    mean_only = (
        "KERPLE keeps a low loss but misses some far passkeys: one seed of five falls below the passkey bar, with under"
        " 90 % in both passkey columns."
    )
    assert "The bars apply to the five-seed mean" not in flat_main
    assert "The grades are the mean's; one KERPLE seed alone finds under 95 %" not in text  # moved to the main line
    assert mean_only not in flat_main and " ".join(text.split()).count(mean_only) == 1  # the block's hedge
    # the main line: the reading rule before the table (test_passkey_column_credits_no_encoding_for_a_find), the
    # result after it, then CoPE's table size (test_cope_table_size_is_said_beside_its_rising_loss); the grades'
    # verdict, the weak seed and the caveat on why KERPLE finds more far passkeys (read r178: it stood alone on the
    # main line) are the block's, in that order
    result = result_8l
    not_the_tail = power_law_not_why  # read r186: the block's, no longer the main line's last sentence
    column = passkey_defined
    table_size = (
        "Chapter 8's CoPE has $P = L + 1$ embeddings, the default of CoPE's reference code. So every count of 64 or"
        " more reads the last one, $e[64]$."
    )
    # read r181: the table size moved into the block (test_cope_table_size_is_said_beside_its_rising_loss)
    verdict = result
    assert table_size not in flat_main and " ".join(text.split()).count(table_size) == 1
    # fix pass 279 (reads r275a #3 and r275b #1): the passkey's definition and the caption left the main line
    assert column not in flat_text0 and caption not in flat_text0 and not_the_tail not in flat_main
    block_verdict = (  # fix pass 273 (read r270a #7): verdict_line ends the main line, no longer the block's
        grades
        + " ALiBi's loss is fine too, but it finds fewer far passkeys; FIRE's and CoPE's losses are not fine."
        # fix pass 240: T5's row (its grades below; "nearly as high": within 0.15 nats, the chapter's figure cell)
        + " T5's model finds every passkey, yet its loss is nearly as high as that of the model without position"
        + " encoding. "
        + mean_only
    )
    # fix pass 279 (reads r275a #3 and r275b #1): the grades' verdict is the measures block's, with the bars
    assert (
        flat_text0.count(block_verdict) == 1 and verdict_line not in flat_main and flat_text0.count(verdict_line) == 1
    )
    assert flat_text0.index("<summary>How the measures are scored") < flat_text0.index(block_verdict)
    # the result, measured: KERPLE's and ALiBi's the two lowest of the five losses; KERPLE finds more 496 back than
    # ALiBi; FIRE and CoPE every passkey (both columns), each at a loss above both KERPLE's and ALiBi's
    loss_means = {m: summarize(full8, "loss_beyond")[m][n8][0] for m in caption_rows}
    assert sorted(loss_means, key=loss_means.get)[:2] == ["kerple", "alibi"]
    assert fixed8["kerple"][far8][0] > fixed8["alibi"][far8][0] + 0.1
    for m in ("fire", "cope"):
        assert fixed8[m][far8][0] == random8[m][n8][0] == 1
        assert loss_means[m] > max(loss_means["kerple"], loss_means["alibi"]) + 0.1
    # the caveat follows the passkey sentences; the 650 crossing moved into the block: the table's 512-token inputs
    # have their farthest key (511 back) before the crossing (checked here and in
    # test_kerple_log_shapes_cross_alibis_flattest_line_about_650_back), so the bias comparison "cannot tell"; the
    # block's row-share measure, from the same biases through softmax,
    # "hints at a link" (3 of 5 seeds above ALiBi, checked in its own test; fix pass 280, read r276a #2: "Five seeds
    # show no clear link", with seed 3)
    assert "the slower fade does not explain" not in text
    late_said = re.findall(
        r"keep more weight against the query's own token, the earliest at about (\d+) tokens back\.", flat_all
    )
    # fix pass 279 (reads r275a #4 and r275b #2): "650" on this section's main line once, in crossing_279
    # fix pass 280 (reads r276a #3 and r276b #1): no longer; the main line keeps the 511 (open_279), the blocks the 650
    assert _ch8_main(flat_main).count("650") == 0 and "512-token" not in flat_main  # fix pass 266: this section's
    assert caption not in flat_text0 and len(late_said) == 1 and n8 == 8 * config8["train_length"]
    assert int(late_said[0]) > n8 - 1  # the crossing said lies beyond the farthest key of these inputs
    # the NoPE sentence ("also finds every passkey in the table; its loss is the highest") left the main line: the
    # table's row shows both, and the box says content alone finds the passkey; its checks below stay
    assert "The model with no position encoding also finds every passkey" not in text
    # fix pass 279 (reads r275a #3 and r275b #1): the lesson after the table; the result opens the first block
    assert flat_main.index("| no position encoding |") < flat_main.index(lesson_279) and verdict not in flat_text0
    # "fewer far passkeys": ALiBi's mean 496 back over five seeds, from chapter 8's saved run (0.76, the table's 76 %)
    from posenc.experiments import load_results

    saved = load_results("extrapolation", check="report")
    alibi_far = [saved["metrics"]["alibi"][s]["passkey_by_distance"]["496"] for s in map(str, saved["config"]["seeds"])]
    assert len(alibi_far) == 5 and abs(sum(alibi_far) / 5 - 0.75) < 0.03
    # the table's NoPE row, "100 %, kept" and the highest loss (the sentence that said it left the main line): every
    # probe found in both of the table's columns (496 back and at random distances, at 8L), in every seed; its one
    # miss at 8L, 1 of 64 probes 384 back in one seed, is outside the table (the box counts it)
    nope, rows_8l = saved["metrics"]["none"], ("kerple", "alibi", "fire", "cope", "t5", "none")
    assert all(nope[s]["passkey_by_distance"]["496"] == 1 and nope[s]["passkey"]["512"] == 1 for s in nope)
    t5 = saved["metrics"]["t5"]  # "as the table's last two models also do": T5's rows, 496 back and at random, at 8L
    assert all(t5[s]["passkey_by_distance"]["496"] == 1 and t5[s]["passkey"]["512"] == 1 for s in t5)
    assert rows_8l[-2:] == ("t5", "none")
    assert sorted((s, d) for s in nope for d, v in nope[s]["passkey_by_distance"].items() if v < 1) == [("4", "384")]
    loss_8l = {m: sum(saved["metrics"][m][s]["loss_beyond"]["512"] for s in nope) for m in rows_8l}
    assert max(loss_8l, key=loss_8l.get) == "none"  # the highest of the table's five means
    # read r186: the section opens on its lesson, in place of the question "Do this chapter's methods still work
    # there?", and ends on the result that the table shows (the lesson's claims are the result's, checked above;
    # "most far passkeys": KERPLE's five-seed mean 496 back, 97 %). Read r203: the lesson opens the section, in plain
    # words, before the chapter-8 setup and the list of terms (lesson_8l); "worse than KERPLE's": FIRE's and CoPE's
    # mean losses exceed KERPLE's by more than 0.1 nats (checked above)
    lesson = lesson_8l
    assert "Do this chapter's methods still work there?" not in text and lesson_8l_r202 not in text
    # fix pass 264 (read r263 #1): the table's last two models named, and "all four predict the text worse than
    # KERPLE's": FIRE's, CoPE's, T5's and NoPE's five-seed mean losses at 8L each above KERPLE's by more than 0.1 nats
    assert lesson_8l_r261 not in text and "as do T5's model and the model without position encoding." in lesson
    assert all(loss_8l[m] / 5 > loss_8l["kerple"] / 5 + 0.1 for m in ("fire", "cope", "t5", "none"))
    # fix pass 273 (read r270a #7): "worse than KERPLE's and ALiBi's models do", and both "find most passkeys hidden
    # far back": five-seed means above one half, 496 back and at random distances
    assert all(loss_8l[m] > loss_8l["alibi"] + 0.5 for m in ("fire", "cope", "t5", "none"))
    assert all(fixed8[m][far8][0] > 0.5 and random8[m][n8][0] > 0.5 for m in ("kerple", "alibi"))
    assert lesson_8l_r272 not in " ".join(text.split()) and result_8l_r272 not in " ".join(text.split())
    # fix pass 272 (read r269a #1): "find every passkey in both of the table's columns": every seed, 496 back and at
    # random distances at 8L
    assert all(fixed8[m][far8][1] == random8[m][n8][1] == 1 for m in ("fire", "cope", "t5", "none"))
    # fix pass 279 (reads r275a #3 and r275b #1): the section opens on the set-up, then the table, then the lesson
    # (lesson_279, checked in test_section_8l_lesson_holds_on_the_saved_run)
    assert lesson not in flat_text0 and flat_main.count(lesson_279) == 1
    assert flat_main.index("## In chapter 8's experiment " + setup_279 + " | method, mean of five seeds |") >= 0
    assert fixed8["kerple"][far8][0] > 0.9 and random8["kerple"][n8][0] > 0.9
    trigram_mean = summarize(full8, "loss_beyond")["trigram"][n8][0]
    assert loss_means["kerple"] <= trigram_mean + 0.1  # "a low loss": within chapter 8's bar for *fine*
    # the block: "Chapter 8's KERPLE models use the log shape only": every KerpleBias in that model is the log shape
    # (the table's row names it too: "KERPLE, log shape")
    # read r192: "Five models carry this chapter's three methods, ALiBi, or no position encoding" was hard to parse
    log_only = (
        # fix pass 240 (read r236: the table left out T5, the chapter's other learned bias, whose numbers stood only in
        # the appendix's printout): six kinds, T5's row between CoPE's and NoPE's (checked below)
        "The table compares six kinds of model: one for each of this chapter's three methods, one with ALiBi, one with"
        " T5's buckets and one with no position encoding. Chapter 8's KERPLE models"
    )
    assert flat_text0.count(log_only + " use the log shape only.") == 1 and "log shape only" not in flat_main
    from posenc.experiments import PasskeyCorpus, TinyLM, experiment_config

    cfg = experiment_config()
    with torch.random.fork_rng():
        lm = TinyLM(PasskeyCorpus(**cfg["corpus"]).n_tokens, "kerple", max_len=cfg["train_length"], **cfg["model"])
    assert {m.kind for m in lm.modules() if isinstance(m, KerpleBias)} == {"log"}
    # the bar: the block's; fix pass 272 (read r269a #6): on the main line once, in the bars' sentence (grades_272)
    assert "Of the two, only KERPLE also finds 95 %" not in text
    # fix pass 279 (reads r275a #3 and r275b #1): on the main line once, in the lesson's weak seed; the bar is the
    # block's
    # fix pass 280 (read r276a #6): twice, in the lesson's grades in plain words and its weak seed
    assert flat_main.count("95 %") == 2 == lesson_279.count("95 %") and grades_272 not in flat_main
    far_kerple = [saved["metrics"]["kerple"][s]["passkey_by_distance"]["496"] for s in sorted(nope)]
    assert sum(v < 0.95 for v in far_kerple) == 1 and sum(far_kerple) / 5 >= 0.95  # "one KERPLE seed alone"
    # "each other model misses one": ALiBi misses the passkey grade only, FIRE, CoPE and NoPE the loss grade only
    trigram_8l = sum(saved["metrics"]["trigram"][s]["loss_beyond"]["512"] for s in nope) / 5
    for m in ("alibi", "fire", "cope", "t5", "none"):
        fine_m = loss_8l[m] / 5 <= trigram_8l + 0.1
        kept_m = sum(saved["metrics"][m][s]["passkey_by_distance"]["496"] for s in nope) / 5 >= 0.95
        assert fine_m != kept_m, m
    # after the answer, the block, whose summary names what is not tested; the block holds the caveat on why KERPLE
    # finds more far passkeys than ALiBi, and its argument, the paragraph on the trained KERPLE
    # heads against ALiBi's flattest line (the KERPLE section's far-back gain is not what the table shows; asserted in
    # the appendix cell c38 and in test_every_trained_kerple_head_penalises_each_key_more_than_alibis_flattest_head)
    caveat = "The end of this block shows why comparing their penalty curves alone cannot tell."
    after = " ".join(text.split())
    after = after[after.index(lesson_279) + len(lesson_279) :]  # fix pass 279: after the lesson, lesson_279
    # read r183: the random-distance column is the main table's, and the sentence that sent the reader to the block
    # for it is gone; the main line's last sentence says the KERPLE section's argument does not explain KERPLE's lead
    # (test_kerple_sections_power_law_argument_does_not_explain_the_far_passkey_lead), then the block
    assert "the block below gives both columns" not in text
    assert caveat not in flat_all  # read r192: the KERPLE paragraphs end the block, so no pointer to its end
    assert flat_all.count(not_the_tail) == 1 and after.index(not_the_tail) >= 0
    # CoPE's table size, then the KERPLE paragraphs, which close the block
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: the KERPLE paragraphs repeated the first block's analysis):
    # the measures block ends on CoPE's table size; the KERPLE paragraphs are the first block's, the one copy
    measures_at = after.index("<summary>How the measures are scored")  # structural pass 217: the second block
    first_at = after.index(kerple_alibi_block)
    assert first_at < after.index(not_the_tail) < after.index("</details>", first_at) < measures_at
    assert measures_at < after.index(table_size) < after.index("</details>", measures_at)
    assert after[measures_at : after.index("</details>", measures_at)].rstrip().endswith("cause of CoPE's rising loss.")
    assert not_the_tail.startswith("ALiBi's flattest head here has slope 1/256.")
    for untested in ("why is not tested", "that is not tested", "gives a guess"):
        section_main = flat_main[flat_main.index("## In chapter 8's experiment") : flat_main.index("## Takeaways")]
        assert untested not in section_main, untested
    assert "Five models carry this chapter's three methods" not in text
    # read r192: it repeated the main line's result sentence, "KERPLE and ALiBi keep the lowest losses, but ALiBi
    # misses more far passkeys than KERPLE."; its first half leads the weak seed's sentence (mean_only)
    assert "KERPLE keeps a low loss but misses some far passkeys, and ALiBi misses more." not in text
    # the box opens on the measures; the main line's verdict is not repeated there ("In short" is gone), and the weak
    # seed's detail (checked seed by seed below) sits under the box's definition of the two passkey columns
    assert (
        after.lstrip()
        # fix pass 273 (read r270a #7): the conclusion ends the main line; fix pass 274: with the weak seed after it
        # fix pass 279 (reads r275a #3 and r275b #1): the pointer and the crossing end the main line
        # fix pass 280 (reads r276a #3 and r276b #1 and #6): the open question, tied to the 511, ends it
        .removeprefix(open_279)
        .lstrip()
        .removeprefix(  # fix pass 221: the row's lesson, standing alone, and what the block compares open the block
            # fix pass 273 (read r270a #7): after the open question and the paired margin, both moved from the main line
            # fix pass 279: the result joined to the paired margin, then the passkey-content sentence
            f"<details>{kerple_alibi_block} {result_paired_279} {passkey_miss} {row_lesson_221} {unsettled_221}"
            f" {power_law_not_why} {counter_fact}"
            f" {crossing_8l} {takeaway_8l} {share_8l} {link_8l} {closing_8l} {not_measured_8l} </details>"
        )
        .lstrip()
        .startswith(
            "<details><summary>How the measures are scored, and what is not tested</summary> The table compares six"
        )
    )
    assert "In short:" not in text
    # read r192: the weak seed was said twice in the block; once now, with the grades (mean_only)
    weak_seed = "One of KERPLE's five seeds finds under 90 % in both passkey columns."
    assert weak_seed not in text and flat_all.count("under 90 %") == 1
    flat_text = " ".join(text.split())
    assert flat_text.index(mean_only) > flat_text.index("<summary>How the measures are scored")  # in the block
    assert "KERPLE's mean hides one weak seed" not in text
    assert (
        "A steep penalty need not hide far keys. Every FIRE head lowers the key 496 back by more than 4 logits relative"
        " to the key one back, more than ALiBi's flattest head's 1.9, yet FIRE finds every passkey. Past the trained"
        " length, ALiBi's and KERPLE's penalty grows past any value met in training, while FIRE's biases at 512 tokens"
        " stay within their range at 64. Whether that explains the misses is not tested." in text
    )
    # the grades and the bar moved into the scoring box; the main line keeps the measures and the table
    # the main line defines the trigram and the passkey; the box defines *fine* and *kept*, once
    assert "This chapter applies the main line's *kept* to both columns." not in text
    assert "Passkeys are *kept* when 95 %" not in text and flat_all.count("*kept* when 95 %") == 1
    # fix pass 281 (reads r277a #1 and r277b #3): the trigram's score opens the lesson, lesson_279, once
    assert "A trigram model" not in " ".join(text.split()).replace(lesson_279, "")
    assert "A *passkey* is one of 10 digits" not in text
    assert "A full score needs no position information" not in text
    assert "A loss is *fine* within a tenth of a nat of the trigram's mean" not in text
    bar = re.search(r"The trigram's (\d\.\d\d) nats puts the bar for \*fine\* at (\d\.\d\d) nats at \$8L\$\.", text)
    assert bar and "With 10 digits, a blind guess finds 10 %." in text
    section = main[main.index("## In chapter 8's experiment") : main.index("## What this scale can and cannot say")]
    assert " ".join(section.split()).endswith(
        "To remember: at $8L$, KERPLE keeps its loss near the trigram's and finds most far passkeys; FIRE and CoPE"
        " find every passkey, but their loss rises."
    )
    # chapter 8 grades *kept* at random distances only; this chapter applies the bar to both columns (in grades)
    assert "The loss grades are chapter 8's; chapter 8 applies *kept* to passkeys at random distances only." not in text
    assert "chapter 8's bars" not in main
    assert "This chapter extends chapter 8's passkey bar" not in text
    from posenc.experiments import summarize

    config, full, seeds, _ = saved_run()
    eight_l, far = config["eval_lengths"][-1], config["distances"][-1]
    loss, random_d = summarize(full, "loss_beyond"), summarize(full, "passkey")
    fixed = summarize(full, "passkey_by_distance")
    fine = loss["trigram"][eight_l][0] + 0.1
    assert (f"{loss['trigram'][eight_l][0]:.2f}", f"{fine:.2f}") == bar.groups()  # "The trigram's 0.72 ... at 0.82"
    passing = [
        m
        for m in ("kerple", "alibi", "fire", "cope", "none")
        if loss[m][eight_l][0] <= fine and min(random_d[m][eight_l][0], fixed[m][far][0]) >= 0.95
    ]
    assert passing == ["kerple"]  # "Of these five, on the mean of five seeds, only KERPLE keeps a fine loss at $8L$"
    # the main line's "only KERPLE gets a fine loss and keeps its passkeys" names no table: it holds across
    # chapter 8's whole run of models tested with no further training; only the fine-tuned RoPE models (" ft") pass too
    untrained = [m for m in loss if m != "trigram" and not m.endswith(" ft") and loss[m].get(eight_l)]
    assert len(untrained) >= 10
    assert [m for m in untrained if loss[m][eight_l][0] <= fine and random_d[m][eight_l][0] >= 0.95] == ["kerple"]
    # "one weak seed: it finds under 90 % of passkeys in both columns": seed by seed, random distances and 496 back
    kerple_seeds = zip(per_seed("kerple", "passkey", eight_l), per_seed("kerple", "passkey_by_distance", far))
    assert sorted(r < 0.9 and f < 0.9 for r, f in kerple_seeds) == [False] * (len(seeds) - 1) + [True]
    assert len(seeds) == 5
    # mean_only: "One KERPLE seed of five falls below the passkey bar" (95 %), in both columns (seed 2: 89.1 %, 87.5 %)
    kerple_seeds = zip(per_seed("kerple", "passkey", eight_l), per_seed("kerple", "passkey_by_distance", far))
    below = [(round(100 * r, 1), round(100 * f, 1)) for r, f in kerple_seeds if min(r, f) < 0.95]
    assert below == [(89.1, 87.5)], below
    # the table's ALiBi row: 76 % found 496 tokens back
    alibi_far = f"{100 * fixed['alibi'][far][0]:.0f}"  # the table's mean, rounded as the table prints it
    assert f"| ALiBi | 0.73 nats | {alibi_far} % |" in text and far == 496 and alibi_far == "76"
    # "To remember: at $8L$, KERPLE keeps a fine loss and most far passkeys; FIRE and CoPE find every passkey, but
    # their loss rises." (most: over half in each passkey column, on the means). It names no mean, and holds seed by
    # seed too: KERPLE fine and over half in each column in every seed; FIRE and CoPE find every passkey in every
    # seed (their means are exactly 1), and their loss beyond L rises from 2L to 4L to 8L in every seed
    assert min(random_d["kerple"][eight_l][0], fixed["kerple"][far][0]) > 0.5
    assert all(
        loss[m][eight_l][0] > fine and random_d[m][eight_l][0] == fixed[m][far][0] == 1 for m in ("fire", "cope")
    )
    assert all(x <= fine for x in per_seed("kerple", "loss_beyond", eight_l))
    assert min(per_seed("kerple", "passkey", eight_l) + per_seed("kerple", "passkey_by_distance", far)) > 0.5
    for m in ("fire", "cope"):
        by_length = list(zip(*(per_seed(m, "loss_beyond", n) for n in config["eval_lengths"][1:])))
        assert len(by_length) == len(seeds) and all(a < b < c for a, b, c in by_length), m
    config, full, seeds, _ = saved_run()
    eight_l, far = config["eval_lengths"][-1], config["distances"][-1]
    assert saved_run()[-1].distances(eight_l) == (1, 510)  # "random distances up to 510"
    L = config["train_length"]
    for name in ("kerple", "alibi"):  # "grows past any value met in training": every key 64 to 511 back
        short, long = learned_heads(name, L), learned_heads(name, eight_l)
        # the key 64 back, the nearest, is 0.004 or more below the key 63 back: far above the saved rounding, 1e-4
        assert len(long) == 40 and all(max(v[L:]) < min(short[key]) - 1e-3 for key, v in long.items()), name
    short, long = learned_heads("fire", L), learned_heads("fire", eight_l)  # "stays within its trained range"
    assert len(long) == 40
    assert all(min(s) - 2e-4 <= min(long[key]) and max(long[key]) <= max(s) + 2e-4 for key, s in short.items())
    drop = {m: max(v[far] - v[1] for v in learned_heads(m, eight_l).values()) for m in ("fire", "alibi")}
    assert drop["fire"] < -4 and round(drop["alibi"], 1) == -1.9  # the gentlest heads: -4.17 and 495 / 256
    assert min(per_seed("fire", "passkey_by_distance", far)) == min(per_seed("fire", "passkey", eight_l)) == 1
    mean = statistics.mean
    for name in ("kerple", "alibi"):  # below the model without position encoding
        assert mean(per_seed(name, "passkey", eight_l)) < mean(per_seed("none", "passkey", eight_l)) - 0.01
        assert mean(per_seed(name, "passkey_by_distance", far)) < mean(per_seed("none", "passkey_by_distance", far))
    fine = mean(per_seed("trigram", "loss_beyond", eight_l)) + 0.1
    both = []  # "only KERPLE keeps a fine loss at $8L$ and finds 95 % or more of passkeys", both columns, on the mean
    for name in ("kerple", "alibi", "fire", "cope", "none"):  # the table's rows
        keeps_loss = mean(per_seed(name, "loss_beyond", eight_l)) <= fine
        kept = min(mean(per_seed(name, "passkey", eight_l)), mean(per_seed(name, "passkey_by_distance", far))) >= 0.95
        both += [name] if keeps_loss and kept else []
    assert both == ["kerple"]
    # "ALiBi misses more": fewer far passkeys found than KERPLE, on the mean the table prints
    assert mean(per_seed("alibi", "passkey_by_distance", far)) < mean(per_seed("kerple", "passkey_by_distance", far))
    # not "of a far key" either: at 8L plain RoPE misses even keys 8 tokens back in most probes
    assert statistics.mean(per_seed("rope", "passkey_by_distance", 8)) < 0.5
    config, *_ = saved_run()
    eight_l = config["eval_lengths"][-1]
    assert min(per_seed("none", "passkey", eight_l)) >= 0.99
    assert max(per_seed("rope", "passkey", eight_l)) < 0.5


def test_counting_section_names_the_order_blind_guess_beside_chance():
    """The counting box's bullet on the figure's black ticks: "The counting figure's black ticks mark a guess that
    ignores order: the input's most frequent label. RoPE still beats that guess for every $k$ at both lengths in
    every seed. ... At $k = 2$ and 3, CoPE's mean leads RoPE's by more than RoPE's leads the guess." On the saved
    ten seeds: RoPE above the guess for every k, length and seed; at k = 2 and 3, the mean gap from RoPE down to the
    guess (0.16 to 0.24) is smaller than the gap up to CoPE's mean (0.39 to 0.49), at both lengths. Per seed it
    would not hold: at 8 sentences and k = 2, RoPE's best seed is 0.25 above the guess and 0.25 below CoPE's worst.
    The figure draws the guess (the cell asserts the sentence)."""
    from posenc.experiments.counting import COUNTING_CONFIG, N_LABELS, counting_batch

    text = " ".join(chapter_markdown("11_learned_position").split())
    assert (
        "The counting figure's black ticks mark a guess that ignores order: the input's most frequent label. RoPE"
        " still beats that guess for every $k$ at both lengths in every seed." in text
    )
    assert (
        "and about a quarter on 16. At $k = 2$ and 3, CoPE's mean leads RoPE's by more than RoPE's leads the guess."
        in text
    )
    sweep, runs = counting_runs()
    for n in (8, 16):
        g = torch.Generator().manual_seed(COUNTING_CONFIG["eval_seed"])
        tokens, answers, k = counting_batch(COUNTING_CONFIG["eval_questions"], n, g)
        counts = torch.stack([(tokens[:, :-1] == label).sum(1) for label in range(N_LABELS)], 1)
        most = counts.max(1).values
        hit = (counts.gather(1, answers[:, None])[:, 0] == most).double() / (counts == most[:, None]).sum(1)
        guess = [hit[k == kk].mean().item() for kk in (1, 2, 3)]
        assert all(by_k[i] > guess[i] for by_k in runs["RoPE", n] for i in range(3)), n  # "in every seed"
        for i in (1, 2):  # k = 2, 3
            rope = statistics.mean(by_k[i] for by_k in runs["RoPE", n])
            cope = statistics.mean(by_k[i] for by_k in runs["CoPE", n])
            assert rope - guess[i] < cope - rope, (n, i + 1)
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert "a guess that ignores order: the input's most frequent label" in cells["c27"]  # the figure's legend


def test_kerple_layer_sharing_is_in_the_deviations_block_not_the_main_line():
    """A truth audit found the main-line aside "Here each layer learns its own position parameters; KERPLE's code
    shares one set." gave the learner no reason to care. The block "Choices that differ from the official code" says
    it, with the file; the main line of "What this scale can and cannot say" ends on what the experiment cannot
    rank. NVIDIA NeMo's positional-embeddings page (docs/source/nlp/nemo_megatron/positional_embeddings.rst) lists
    `model.position_embedding_type='kerple'` for GPT and T5 and repeats that CPD kernels become PD "by adding a
    constant offset", which the KERPLE block shows fails at r2 = 2."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    assert "KERPLE's code shares one set" not in text
    assert (
        "Every layer of `TinyLM` has its own position parameters, where KERPLE's official code shares one set across"
        " the layers (`megatron/model/gpt2_model.py`)" in text
    )
    # fix pass 258b (read r258b #7: "the experiment" was two): plural
    assert "They cannot rank methods for language modelling." in main
    assert "The two experiments' tiny models, briefly trained on synthetic text" in " ".join(main.split())
    assert (
        "NVIDIA NeMo's documentation lists KERPLE for its Megatron GPT and T5 models, as"
        " `model.position_embedding_type='kerple'` for GPT, and under `model.encoder` and `model.decoder` for T5."
        in text
    )
    assert "No constant at $r_2 = 2$." in text  # the appendix's proof the NeMo sentence points to


def test_stick_breaking_gate_carries_the_same_scale_as_the_glossary():
    """The fused-routine block: "Stick-breaking attention ... has gates of the same kind,
    $\\sigma(q_i \\cdot k_t / \\sqrt{d_h})$, one per query–key pair." Its authors' reference code
    (shawntan/stickbreaking-attention) computes the logits as q k^T / sqrt(d) before the log-sigmoid, and the
    glossary writes the share as sigma(q . k / sqrt d); the block wrote sigma(q_i . k_t), without the scale."""
    text = chapter_markdown("11_learned_position")
    assert "gates of the same kind, $\\sigma(q_i \\cdot k_t)$" not in text
    assert "gates of the same kind, $\\sigma(q_i \\cdot k_t / \\sqrt{d_h})$, one per query–key pair." in text
    glossary = (pathlib.Path(__file__).parents[1] / "book" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| stick-breaking attention |"))
    assert "\\sigma(q \\cdot k/\\sqrt d)" in row


def test_fire_bias_computed_once_and_shared_keeps_its_hidden_layer_once():
    """The fused-routine block: "A FIRE bias computed once per input and reused by every layer would keep them once;
    chapter 8's models do not share it." Counted with autograd's saved-tensor hooks: two layers that each build their
    own bias keep two [T, T, 32] hidden layers; one bias built once and added in both layers keeps one."""
    text = chapter_markdown("11_learned_position")
    assert (
        "A FIRE bias computed once per input and reused by every layer would keep them once; chapter 8's models do"
        " not share it." in text
    )
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        fire = FireBias(2, L_thr_init=16.0)
    q = torch.randn(1, 2, 24, 8, generator=torch.Generator().manual_seed(0))

    def kept(shared):
        shapes = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(tuple(t.shape)) or t, lambda t: t):
            x = q
            bias = fire.bias(24) if shared else None
            for _ in range(2):  # two layers
                b = bias if shared else fire.bias(24)
                x = F.scaled_dot_product_attention(x, x, x, attn_mask=b)
        return sum(s == (24, 24, fire.hidden) for s in shapes)

    assert kept(shared=False) == 2 and kept(shared=True) == 1
    # chapter 8's models: each TinyLM layer builds its own FIRE module
    from posenc.experiments import TinyLM, experiment_config

    config = experiment_config()
    model = TinyLM(16, "fire", max_len=config["train_length"], **config["model"])
    fires = [m for m in model.modules() if isinstance(m, FireBias)]
    assert len(fires) == config["model"]["n_layers"] >= 2 and len({id(m) for m in fires}) == len(fires)
    # the deviations block: "CoPE's embeddings are per layer here, as in its reference code's default" (cope_shared
    # off in facebookresearch/RAM's context_position.py); each TinyLM layer builds its own CoPE module
    text = chapter_markdown("11_learned_position")
    assert "CoPE's embeddings are per layer here, as in its reference code's default." in " ".join(text.split())
    model = TinyLM(16, "cope", max_len=config["train_length"], **config["model"])
    copes = [m for m in model.modules() if isinstance(m, CoPE)]
    assert len(copes) == config["model"]["n_layers"] >= 2 and len({id(m) for m in copes}) == len(copes)
    assert len({id(p) for m in copes for p in m.parameters()}) == sum(len(list(m.parameters())) for m in copes) > 0


def test_takeaway_kerple_finds_more_far_passkeys_than_alibi_in_every_seed():
    """Takeaway 4: "On chapter 8's task at $8L$, KERPLE kept a fine loss, as ALiBi did, and found more far passkeys.
    FIRE and CoPE found every passkey, but in every seed their loss was higher than KERPLE's and ALiBi's." ("than
    both" read as FIRE and CoPE against the model with no position encoding, the nearest pair.) It names only what the
    section's figures show: the loss figure's ranges put KERPLE and ALiBi below the fine line and FIRE and CoPE above
    it in every seed, and the passkey figure's means put KERPLE above ALiBi. Paired seed by seed at 8L, KERPLE also
    finds more passkeys than ALiBi both 496 tokens back and at random distances (the appendix's box). And the
    appendix's "Why CoPE may win, untested": the CoPE reading is marked untested."""
    text = chapter_markdown("11_learned_position")
    flat = " ".join(text.split())
    assert (
        # fix pass 219 (read r218 #4): "than ALiBi", whom KERPLE beats (FIRE, CoPE and NoPE found more); the NoPE
        # clause is the section's table's, to keep the main line's length
        # fix pass 243 (reads r241 #2, r242b #1: takeaway 1's power-law edge read as the cause of this one): the link
        # cut in a clause, as the section's main line now says it (slow_fade_221)
        "- On chapter 8's task at $8L$, KERPLE and ALiBi kept their losses near the trigram's; KERPLE found more far"
        # fix pass 252 (read r251 #2, overstated): the edge scoped to ALiBi's flattest head, as cell 28 says
        # fix pass 286 (read r281b #7, unclear: the KERPLE section's lesson was left hanging): the link back, with the
        # blocks' tested crossing (test_kerple_log_shapes_cross_alibis_flattest_line_about_650_back)
        " passkeys than ALiBi, though in its trained heads the first bullet's power-law edge over ALiBi's flattest head"
        " would start no earlier than about 650 tokens back, beyond the 511 tested."
        " FIRE and CoPE found every passkey, but in every seed their loss was higher than KERPLE's"
        " and ALiBi's." in flat
    )
    assert "but their loss was higher than both" not in flat
    assert (
        "KERPLE matched ALiBi's loss at $8L$ and, in every seed, found more far passkeys; why is not tested."
        not in flat
    )
    config, *_ = saved_run()
    eight_l, far = config["eval_lengths"][-1], config["distances"][-1]
    fine = sum(loss_8L("trigram")) / len(loss_8L("trigram")) + 0.1
    assert max(loss_8L("kerple") + loss_8L("alibi")) <= fine < min(loss_8L("fire") + loss_8L("cope"))
    assert min(loss_8L("fire") + loss_8L("cope")) > max(
        loss_8L("kerple") + loss_8L("alibi")
    )  # "than KERPLE's and ALiBi's"
    for metric, key in (("passkey", eight_l), ("passkey_by_distance", far)):  # "found more far passkeys", the means
        assert sum(per_seed("kerple", metric, key)) > sum(per_seed("alibi", metric, key))
        assert all(v == 1 for m in ("fire", "cope") for v in per_seed(m, metric, key))  # "every passkey"
    assert "**Why CoPE may win, untested.**" in text and "no run here checks that this is the reason" in " ".join(
        text.split()
    )
    for kerple, alibi in zip(far_and_random("kerple"), far_and_random("alibi"), strict=True):  # 496 back, random
        assert all(k > a for k, a in zip(kerple, alibi, strict=True)), (kerple, alibi)


def test_fire_small_c_makes_u_linear_and_c_zero_gives_zero():
    """The FIRE box: "As $|c| \\to 0$, $\\psi(x) \\approx |c| x$, so $u$ tends to
    $d/\\max(i, L_{\\text{thr}})$, linear in the distance. At $c = 0$, $u$ would be $0/0$; `FireBias` adds
    $10^{-6}$ to the divisor, which makes it 0." And the
    FIRE section's "For any $c \\ne 0$, ... $0 \\le u \\le 1$ at any length", at a few values of $c$."""
    text = chapter_markdown("11_learned_position")
    assert "`FireBias` adds $10^{-6}$ to the divisor, which makes it 0." in text
    assert (
        "For any $c \\ne 0$ and $L_{\\text{thr}} > 0$, $\\psi$ rises from $\\psi(0) = 0$, so $0 \\le u \\le 1$ at any"
        " length." in text
    )
    f = FireBias(1, L_thr_init=16)
    assert f.eps == 1e-6
    q, k = torch.arange(200.0), torch.arange(200.0)
    dist = (q[:, None] - k[None, :]).abs()
    causal = k[None, :] <= q[:, None]
    linear = dist / torch.maximum(q, torch.tensor(16.0))[:, None]
    with torch.no_grad():
        for c in (1e-4, 0.1, 3.0, -0.5):
            f.c.fill_(c)
            u = f.normalized_distance(q, k)[causal]
            assert u.min() >= 0 and u.max() <= 1 + 1e-6
        f.c.fill_(1e-4)  # |c| max(i, L_thr) = 0.02 at most: log1p is linear to about 1 %
        gap = (f.normalized_distance(q, k) - linear)[causal].abs().max()
        assert gap < 0.02
        f.c.fill_(0.1)  # not linear at the starting value: the key one back from query 199 gets far more
        assert f.normalized_distance(q, k)[199, 198] > 5 * linear[199, 198]
        f.c.fill_(0.0)
        assert (f.normalized_distance(q, k) == 0).all()
        # "and $L_{\text{thr}} > 0$": with L_thr = 0 (L_multiplier 0) the divisor at query 0 is psi(0) = 0; the code's
        # eps makes u 0 there, and every other query divides by psi(i) > 0, so u stays in [0, 1]
        f.c.fill_(0.1)
        f.L_multiplier.fill_(0.0)
        assert f.threshold.item() == 0
        assert math.log1p(0.1 * max(0, f.threshold.item())) == 0  # the formula's divisor at query 0, without eps
        u = f.normalized_distance(q, k)
        assert u[0, 0].item() == 0 and u[causal].min() >= 0 and u[causal].max() <= 1 + 1e-6


def test_going_further_cost_sentence_points_to_the_checked_routes():
    """Going further's fused-routine block: "KERPLE's and FIRE's biases depend on $i$ and $j$ alone, so such a routine
    can compute each as needed; a CoPE count needs every gate from the key to the query." The main line keeps the
    pointer and the definition of a fused attention routine. The routes are the last two code
    cells: KERPLE and FIRE as a `score_mod` of the score and its indices only, against SDPA with the stored bias, and
    CoPE's walk over key blocks carrying each query's gate sum; nbval runs their asserts."""
    text, flat, main = _chapter_views()
    cost = (
        "KERPLE's and FIRE's biases depend on $i$ and $j$ alone, so such a routine can compute each as needed; a CoPE"
        " count needs every gate from the key to the query."
    )
    assert (
        cost not in main
        and "what each method costs inside a *fused attention routine*, one that never stores the" in main
    )
    block = flat.index("### Going further: what they cost in a fused routine")
    assert block < flat.index("A *fused attention routine* never stores the matrix of logits") < flat.index(cost, block)
    assert flat.index(cost, block) < flat.index("| method | work per score |")
    assert "| FIRE | its MLP, 32 hidden units here; past $L_{\\text{thr}}$ each new query runs it again" in text
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert [c.get("id") for c in code[-2:]] == ["cost2", "r11c-copeblocks"]
    flex, walk = ("".join(c["source"]) for c in code[-2:])
    assert "kerple_mod = lambda score, b, h, q_idx, kv_idx:" in flex
    assert "def fire_mod(score, b, h, q_idx, kv_idx):" in flex
    assert "flex_attention(" in flex and "scaled_dot_product_attention(" in flex
    assert "for start in reversed(range(0, n_tok, block)):" in walk and "carry = carry + gates.sum(" in walk


def test_kerple_upper_bound_on_r2_belongs_to_the_power_shape_only():
    """The KERPLE section: "KERPLE learns the shape of the distance penalty with two numbers per head, $r_1 > 0$ and
    $r_2 > 0$.", its lesson, then the formulas, then "KERPLE's paper limits the power shape to $r_2 \\le 2$: only then
    are its penalties squared distances between points, one point per position, the condition its theory builds on."
    (read r186: it said "the block below says why", and the block sent the reader on twice; the reason is one plain
    sentence, Schoenberg's reading of CPD, checked below, and CPD itself stays the block's. Read r182: the main line's
    purpose of CPD, "meant to let each biased logit stay one dot product", was undercut by its block, as no constant
    gives it at r2 = 2 and softmax ignores it, so the term and its purpose are the block's; and "two families" came
    before the formulas that show them. Read r180: "a mathematical condition rather than a training limit" clashed with
    the official code, which clamps it in training. Read r177: the kind of limit, on the main line, and the official
    code clamps the power shape's $r_2$ at 2 rather than letting training find the bound; read r178: the main line named
    a condition without saying which, and exercise 2 leaned on collapsed material, so it names CPD, which the block
    right under the formulas defines, as the appendix does). The log shape has no upper bound on $r_2$, in the paper, in
    the official code (`ParallelKerpleLog` clamps `bias_a` with `min=self.eps` only) and in `KerpleBias`; the power
    shape's $r_2$ is clamped at 2. Every sentence of the chapter that bounds $r_2$ by 2 names the power shape, and the
    library keeps a log $r_2$ above 2 while it clamps a power $r_2$ there."""
    text, flat, main = _chapter_views()
    # read r186: the section opens on its lesson, the limit on r2 gets a one-sentence reason in plain words (squared
    # distances, checked below), with no pointer to the block and no hop. Read r191: the lesson needs the log shape
    # only; the power shape's limit is a fact of KERPLE's theory, so its sentence opens the block whose summary names
    # it, "Why the power shape stops at r₂ = 2", and ALiBi's exponential fade is said in the next cell, from e^bias
    lesson_r280 = (
        # read r197: the power shape's limit stated where the numbers are introduced (the reference code clamps it)
        # read r203: the limit follows the formula that shows the power shape, not before the shapes are named
        # fix pass 260 (read r260 #1, overstated: the power shape needs r2 <= 2): the bound in a clause, its reason the
        # block's
        "KERPLE learns the shape of the distance penalty with two numbers per head, $r_1 > 0$ and $r_2 > 0$, with"
        # fix pass 263 (read r263 #3, mildly overstated: "fade more slowly" read as "keep more weight" everywhere;
        # near the query the trained heads keep less): the rate, then the level, "far enough back" (checked below)
        # fix pass 270 (read r268a #1, overstated: near the query the log head falls faster, slope 0.5 against
        # ALiBi's 0.125 at distance 1): "Far back" scopes the rate as "far enough back" scopes the level
        " $r_2 \\le 2$ for the power shape. Far back, its log shape fades much more slowly than ALiBi's line, so far"
        " enough back"
        # fix pass 274 (read r271b #1, unclear: "keeps more weight" held only relative to the query's own token, at
        # equal content scores, as the next cell says; a key's share of the row can move the other way, as chapter 8's
        # section's block shows): the reference named, in a few words (the ratio e^bias, checked below at 10^8 back)
        " a key keeps more weight, relative to the query's own token. A KERPLE model uses one of"
        " two shapes, a log and a power: $$ b_{\\log}(i, j)"
    )
    assert lesson_r280 not in main
    # fix pass 281 (read r277a #4, unclear: the bound on r2 and the power and log shapes were named before the formula
    # that defines them): the two numbers, the formulas, then the bound and the far-back fade
    kerple_open = (
        "KERPLE learns the shape of the distance penalty with two numbers per head, $r_1 > 0$ and $r_2 > 0$. A KERPLE"
        " model uses one of two shapes, a log and a power: $$ b_{\\log}(i, j)"
    )
    after_formula = (
        # fix pass 288 (read r283a #3, unclear: the shape "fades", but it is the weight that fades): the penalty
        # grows much more slowly (its rate r1 r2 / (1 + r2 d) against ALiBi's slope, checked below)
        "$$ The power shape keeps $r_2 \\le 2$. Far back, the log penalty grows much more slowly than ALiBi's line,"
        " so far enough back a key keeps more weight, relative to the query's own token. ALiBi is the power shape"
    )
    assert main.count(kerple_open) == 1 and main.index(kerple_open) < main.index(after_formula)
    assert (
        # read r206: the limit's source, in a clause: the theory (the block under it) and the official code, whose
        # `ParallelKerplePower` clamps `bias_p`, the power, with max=2 (chijames/KERPLE megatron/mpu/layers.py)
        # read r208: the main line's "KERPLE's theory and its code both cap ..." named a theory it never gave; the
        # cap is the block's, next to that theory
        # read r214: what each number controls, in the log shape (bend near d = 1/r2, where r2 d = 1; r1 scales it)
        # fix pass 281 (read r277a #4): the bound and the far-back fade now sit between the formula and ALiBi's case
        "relative to the query's own token. ALiBi is the power shape with $r_2 = 1$ and $r_1$ the head's slope, both"
        " fixed."
        " In the log shape, $r_1$ scales the whole penalty and $r_2$ sets where it bends, about $1/r_2$ tokens back."
        " <details><summary>Why the power shape stops at r\u2082 = 2</summary>" in flat
    )
    limit = (
        "KERPLE's paper limits the power shape to $r_2 \\le 2$: only then are its penalties squared distances between"
        " points, one point per position, the condition its theory builds on."
    )
    assert "the block below says why" not in text
    assert "KERPLE's theory and its code both cap" not in text
    assert "The power shape also keeps $r_2 \\le 2$." not in text  # read r206: no subject, no source
    kerple_main = main[main.index("## KERPLE:") : main.index("To remember:")]
    # fix pass 219 (read r218 #5): ALiBi's slope as its number, not r_1, which names the log head's exponent (1) in the
    # same comparison; the head of slope 1/8 that the cells print
    assert "Under ALiBi's line of slope 1/8, it is $e^{-|j - i|/8}$, an exponential." in kerple_main
    assert "$e^{-r_1 |j - i|}$" not in kerple_main
    assert limit not in kerple_main and collapsed(flat, "Why the power shape stops at r₂ = 2").startswith(
        f"<summary>Why the power shape stops at r₂ = 2</summary> {limit} Its code caps the power shape's $r_2$ at 2 as"
        " well. KERPLE's paper asks"
    )
    for term in ("conditionally positive definite", "CPD", "dot product", "two families"):
        assert term not in kerple_main, term
    # read r181: the main line used the term without saying what it buys. "Meant to", as the block says ("KERPLE's
    # authors want each logit, bias included, to stay one dot product"): for the log shape a constant lam makes the
    # table B + lam positive semidefinite, so B + lam = X X^T and each biased logit q_i . k_j + B_ij + lam is one dot
    # product, of (q_i, x_i) and (k_j, x_j); softmax ignores lam. At r2 = 2 no constant works (the block and
    # test_kerple_power_at_r2_2_no_constant_makes_it_psd_on_any_distinct_positions), hence "meant to"
    n_pos = 12
    x = torch.arange(n_pos, dtype=torch.float64)
    table = -torch.log1p((x[:, None] - x[None, :]).abs())  # KERPLE's log shape, r1 = r2 = 1
    lam = 2 * n_pos
    values, vectors = torch.linalg.eigh(table + lam)
    assert values.min() > 0  # positive definite: a Gram matrix of position vectors
    pos_vec = vectors * values.sqrt()  # row i: x_i, with x_i . x_j = B_ij + lam
    q_rows, k_rows = torch.randn(n_pos, 4, dtype=torch.float64), torch.randn(n_pos, 4, dtype=torch.float64)
    one_dot = torch.cat([q_rows, pos_vec], -1) @ torch.cat([k_rows, pos_vec], -1).T
    torch.testing.assert_close(one_dot, q_rows @ k_rows.T + table + lam)
    torch.testing.assert_close(one_dot.softmax(-1), (q_rows @ k_rows.T + table).softmax(-1))
    # the block right under the formulas gives the mathematics: the definition of CPD, in the appendix's terms, then
    # the dot-product reading; the appendix's KERPLE part proves it
    why = collapsed(flat, "Why the power shape stops at r₂ = 2")
    reason = (
        "KERPLE's paper asks every bias table to be *conditionally positive definite*, CPD. A table $B$ of biases is"
        " CPD when $c^\\top B c \\ge 0$ for every vector $c$ of weights that sum to 0. A KERPLE table has zeros on its"
        " diagonal, and for such a table CPD means that the penalties $-B$ are squared distances between points, one"
        " point per position: this is Schoenberg's theorem. The log shape passes for every $r_2 > 0$, and the power"
        " shape for $0 < r_2 \\le 2$. Powers above 2 fail on any three positions one step apart. Their points would"
        " lie $\\sqrt{r_1}$ apart for neighbours, and $\\sqrt{r_1}\\, 2^{r_2/2}$, more than $2\\sqrt{r_1}$, for the"
        " two ends. No points lie so: the ends can be no farther apart than the two steps through the middle point."
        " Why ask for it? KERPLE's authors want each logit"
    )
    assert reason in why and flat.index(limit) < flat.index(reason)
    # "for such a table CPD means that the penalties -B are squared distances between points" (Schoenberg 1935): a
    # symmetric table D with zeros on its diagonal is a table of squared distances between points exactly when the
    # doubly centred -D/2 is positive semidefinite, its Gram matrix; and that holds exactly when -D is CPD. Checked
    # both ways on random positions: the main line's "only then" (power shapes up to 2 pass, above 2 fail), the log
    # shape at every r2, and the points rebuilt from the Gram matrix give back the penalties
    g = torch.Generator().manual_seed(7)
    for shape, r2, passes in (
        ("power", 0.5, True),
        ("power", 1.0, True),
        ("power", 2.0, True),
        ("power", 2.05, False),
        ("power", 3.0, False),
        ("log", 0.05, True),
        ("log", 1.0, True),
        ("log", 50.0, True),
    ):
        worst_gram, worst_cpd = math.inf, math.inf
        for n_pos in (3, 9, 25):
            xs = torch.rand(n_pos, generator=g, dtype=torch.float64) * 40
            if n_pos == 3:
                xs = torch.arange(3, dtype=torch.float64)  # three positions one step apart
            gap = (xs[:, None] - xs[None, :]).abs()
            penalty = 1.5 * (gap**r2 if shape == "power" else torch.log1p(r2 * gap))  # r1 = 1.5
            bias = -penalty
            if passes:  # the library's table, where it accepts the shape (it refuses a power above 2)
                library = KerpleBias(1, kind=shape, r1=1.5, r2=r2).to(torch.float64).bias_by_distance(gap).detach()[0]
                torch.testing.assert_close(library, bias, rtol=1e-6, atol=1e-9)
            assert torch.equal(penalty.diagonal(), torch.zeros(n_pos, dtype=torch.float64))  # zeros on the diagonal
            centre = torch.eye(n_pos, dtype=torch.float64) - 1 / n_pos
            gram = -centre @ penalty @ centre / 2
            values, vectors = torch.linalg.eigh(gram)
            scale = penalty.abs().max().item()
            worst_gram = min(worst_gram, values.min().item() / scale)
            worst_cpd = min(worst_cpd, projected_min_eig(bias).item() / scale)
            if passes:
                points = vectors * values.clamp(min=0).sqrt()  # one point per position
                squared = torch.cdist(points, points) ** 2
                assert (squared - penalty).abs().max() < 1e-9 * scale, (shape, r2, n_pos)
        assert (worst_gram > -1e-12) == passes and (worst_cpd > -1e-12) == passes, (shape, r2, worst_gram, worst_cpd)
    # the three-point argument: with penalties r1 and r1 2^r2, the points lie sqrt(r1) and sqrt(r1) 2^(r2 / 2)
    # apart, and the ends lie farther apart than the two steps through the middle exactly when r2 > 2
    for r2 in (1.0, 1.99, 2.0, 2.01, 3.0):
        assert (math.sqrt(1.5) * 2 ** (r2 / 2) > 2 * math.sqrt(1.5) + 1e-12) == (r2 > 2), r2
    # the lesson's "Far back, the log penalty grows much more slowly than ALiBi's line" (fix pass 288): the
    # penalty r1 log(1 + r2 d), minus the log of the weight, grows at the rate r1 r2 / (1 + r2 d), which tends to 0,
    # while ALiBi's grows at its slope m at every distance; for any head and slope, past d = 10 r1 / m the rate is
    # under a tenth of m.
    # Checked on the library's biases, by differences one token apart
    for r1, r2 in ((0.1, 0.01), (1.0, 1.0), (2.0, 0.1), (4.0, 0.02), (8.0, 5.0)):
        for slope in alibi_slopes(8).tolist():
            far_d = torch.tensor([10 * r1 / slope, 10 * r1 / slope + 1], dtype=torch.float64)
            b = KerpleBias(1, kind="log", r1=r1, r2=r2).to(torch.float64).bias_by_distance(far_d).detach()[0]
            assert 0 < (b[0] - b[1]).item() < slope / 10, (r1, r2, slope)
            # "so far enough back a key keeps more weight, relative to the query's own token": that weight over the
            # own token's is e^bias (the own token's bias is 0), and at 10^8 tokens back the log head's bias is above
            # the line
            assert -r1 * math.log1p(r2 * 1e8) > -slope * 1e8, (r1, r2, slope)
    # "The log shape passes for every $r_2 > 0$": no upper bound, checked here at large r2 (small and middle r2 in
    # test_kerple_bias_is_cpd_on_random_point_sets), on the weights that sum to 0
    for n_pos in (3, 12, 40):
        xs = torch.rand(n_pos, generator=torch.Generator().manual_seed(n_pos), dtype=torch.float64) * 50
        for r2 in (0.01, 10.0, 1e3):
            log_table = KerpleBias(1, kind="log", r1=1.0, r2=r2).bias_by_distance(xs[:, None] - xs[None, :])
            assert projected_min_eig(log_table.detach()[0]) > -1e-9, (n_pos, r2)
    assert "*conditionally positive definite* (CPD) when $c^\\top B c \\ge 0$ for every weight vector $c$ whose" in flat
    assert "KERPLE's paper asks for this. Powers above 2 fail it:" in flat  # the appendix's definition and proof
    # "Larger powers fail it": on positions 0, 1, 2 the weights (1, -2, 1) sum to 0 and give c^T B c =
    # r1 (8 - 2^(r2 + 1)), negative for every r2 > 2 (the appendix's counterexample); r2 = 2 gives 0
    x3, c3 = torch.arange(3, dtype=torch.float64), torch.tensor([1.0, -2.0, 1.0], dtype=torch.float64)
    for r2 in (2.0, 2.01, 2.5, 3.0, 4.0):
        table = -((x3[:, None] - x3[None, :]).abs() ** r2)
        assert abs(c3 @ table @ c3 - (8 - 2 ** (r2 + 1))) < 1e-12 and ((c3 @ table @ c3) < 0) == (r2 > 2), r2
    sentences = re.split(r"(?<=[.:;])\s+", text)
    bounding = [
        s for s in sentences if re.search(r"r_2 *(\\le|\\leq|<=|≤) *2|(clamps|cap)[^.]*r_2\$? at 2|r_2 *\\in *\[", s)
    ]
    assert len(bounding) >= 3, bounding
    for sentence in bounding:
        assert "power" in sentence, sentence
    log = KerpleBias(2, kind="log", r1=[1.0, 1.0], r2=[3.0, 50.0])
    assert torch.allclose(log.coefficients()[1].detach(), torch.tensor([3.0, 50.0]))
    with pytest.raises(ValueError, match=r"r2 must be in \(0, 2\]"):
        KerpleBias(2, kind="power", r1=[1.0, 1.0], r2=[3.0, 50.0])
    power = KerpleBias(1, kind="power", r1=1.0, r2=2.0)
    with torch.no_grad():
        power.r2.fill_(3.0)  # a step past 2: the value used is clamped at 2
    assert torch.allclose(power.coefficients()[1].detach(), torch.tensor([2.0]))


def test_deviations_block_names_kerples_optional_weight_kernel():
    """The block "Choices that differ from the official code": KERPLE's `ParallelKerplePower` (chijames/KERPLE,
    megatron/mpu/layers.py) returns `x*wei + bias` with `wei = exp(-wei_a*|m-n|^wei_p)` when its `pos_emb` name asks
    for the weight kernel; `KerpleBias` only adds its bias, so scaling the logits leaves it unchanged."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    sentence = (
        "KERPLE's official power class, `ParallelKerplePower`, can also multiply each logit by a learned weight,"
        " $e^{-a |j - i|^{p}}$, before adding the bias. `KerpleBias` adds the bias only."
    )
    assert sentence in text and sentence not in main
    m = KerpleBias(4, kind="power")
    q, k, v = random_qkv(h=4)  # 6 queries aligned at the end of 9 keys
    r1, r2 = (x.detach()[:, None, None] for x in m.coefficients())
    distance = (torch.arange(9.0)[None, :] - torch.arange(3.0, 9.0)[:, None]).abs()
    logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) - r1 * distance**r2  # content logits times 1
    assert torch.allclose(sdpa_with(m, q, k, v, causal=False), logits.softmax(-1) @ v, atol=1e-5)


def test_glance_table_cope_row_sums_the_gates_from_key_to_query_both_included():
    """The opening's table, CoPE's row: its bias depends on "the query, and the gates from the key to the query, both
    included" (the Takeaways' wording, with "both included"; "how many tokens ... the gates let through" was a
    garden path). On random gates, CoPE's p_ij is the sum of query i's gates on keys j to i: key j's and the query's
    own gate both count."""
    text = chapter_markdown("11_learned_position")
    assert "| the query, and the gates from the key to the query, both included |" in text
    assert "the gates let through" not in text
    torch.manual_seed(0)
    cope = CoPE(8, npos_max=16)
    q, k = torch.randn(6, 8, dtype=torch.float64), torch.randn(6, 8, dtype=torch.float64)
    gates = torch.sigmoid(q @ k.T / math.sqrt(8))
    p = cope.positions(q, k)
    for i in range(6):
        for j in range(i + 1):
            assert abs(p[i, j].item() - gates[i, j : i + 1].sum().item()) < 1e-9
            assert abs(p[i, j].item() - gates[i, j + 1 : i].sum().item()) > 0.01  # without both ends: differs


def test_kerple_log_head_keeps_about_2660_times_alibis_weight_100_back():
    """The KERPLE section: "At 100 keys back, the log head $r_1 = r_2 = 1$ keeps over two thousand times as much
    weight as ALiBi's head of slope 1/8." (read r176: the main line's
    "ratio ... about 2,660 times that of ALiBi's head", a ratio of ratios, hid the idea; the number is its block's,
    "the appendix's KERPLE part asserts both this and the ratio of about 2,660", and the cells' printouts).
    The ratio, scoped to the two heads the cell prints (the next sentence says the crossing depends on ALiBi's slope),
    is read from the block's text and compared with the library's own biases (KerpleBias, log shape r1 = r2 = 1, and
    posenc.alibi_bias's head of slope 1/8), not with the closed form e^12.5 / 101 = 2656.8: "about" is rounding to the
    nearest ten, and the code cell and the appendix's KERPLE check cell both print "about 2,660", the text's one
    number; the figure's cell keeps only the plot and one check, the library's head against the section's formula."""
    text = chapter_markdown("11_learned_position")
    main = re.sub(r"<details>.*?</details>", " ", text)
    # read r191: one sentence names both heads where the comparison is made
    # fix pass 264 (read r263b #4, unclear: "weight" read as the softmax share): the sentence names its measure,
    # relative to the query's own token (e^bias, both heads' own token at bias 0: the ratio below)
    # fix pass 265 (read r264b #2, mild unfair comparison: "that ALiBi head" let the number read as against any
    # ALiBi head): the sentence names the slope, 1/8, of the head the ratio is taken against (checked below)
    sentence = (
        r"At (\d+) keys back, the log head \$r_1 = r_2 = 1\$ keeps over two thousand times as much weight, relative to"
        r" the query's own token, as ALiBi's head of slope 1/(\d+)\."
    )
    found = re.findall(sentence, " ".join(main.split()))
    assert found == [("100", "8")]
    in_block = re.findall(
        r"the appendix's KERPLE part asserts both this and the ratio of about ([\d,]+)\.", " ".join(text.split())
    )
    assert len(in_block) == 1 and "2,660" not in " ".join(main.split())  # the exact figure: the block's
    stated = int(in_block[0].replace(",", ""))
    assert stated % 10 == 0
    with torch.no_grad():
        kerple = KerpleBias(1, kind="log", r1=[1.0], r2=[1.0])
        kept = kerple.bias_by_distance(torch.tensor([100.0]))[0, 0].double().exp().item()
    assert alibi_slopes(8)[2].item() == 1 / 8
    alibi_kept = alibi_bias(8, 1, 101)[2, 0, 0].double().exp().item()  # ALiBi's head 2 of 8, query 100 on key 0
    ratio = kept / alibi_kept
    assert abs(ratio - stated) < 5, ratio  # rounds to the stated ten
    assert 2000 < ratio < 3000  # the main line's "over two thousand times as much weight"
    assert abs(ratio / (math.exp(12.5) / 101) - 1) < 1e-4  # and agrees with the closed form, as a cross-check
    # the block's "The next cell prints ... then each head's ratio 100 back" (off the main line): the cell's stored
    # output shows both ratios and their ratio, which must match the library's and round to the stated ten
    printed_said = "The next cell prints both heads' biases one and 100 keys back, then each head's ratio 100 back."
    assert printed_said in " ".join(text.split()) and printed_said not in " ".join(main.split())
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cell = next(
        c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c.get("id") == "r11-kerple-code"
    )
    printed = "".join(cell["outputs"][0]["text"])
    shown = re.search(
        r"Ratio 100 back: KERPLE ([\d.]+), ALiBi ([\d.e+-]+); KERPLE's is about ([\d,]+) times ALiBi's", printed
    )
    assert shown, printed
    log_shown, alibi_shown, times = float(shown[1]), float(shown[2]), int(shown[3].replace(",", ""))
    assert abs(log_shown - kept) < 1e-5 and abs(alibi_shown / alibi_kept - 1) < 0.01  # printed to 5 places, 3 digits
    assert abs(times - ratio) <= 5 and times % 10 == 0 and times == stated  # 2,656.8 printed as "about 2,660"
    assert "2,657" not in printed
    cells = {c.get("id"): c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    checks = cells["r11-kerple-figure-checks"]
    said = re.search(r"keeps about ([\d,]+) times as much weight", "".join(checks["outputs"][0]["text"]))
    assert said and int(said[1].replace(",", "")) == stated  # the appendix's check cell prints the text's number
    figure = cells["c10"]  # the figure's cell: the plot and one check, no second print of the ratio
    assert not any("keeps about" in "".join(o.get("text", "")) for o in figure["outputs"])
    assert "kerple_log_bias(distance, 1.0, 1.0), log_biases.bias_by_distance(distance)[0]" in "".join(figure["source"])


def test_kerple_abstract_at_r2_2_is_corrected_in_one_where_sources_differ_block():
    """KERPLE's abstract says a CPD kernel becomes PD "by adding a constant offset"; at r2 = 2 no constant works. One
    collapsed block "Where sources differ: KERPLE's abstract at r₂ = 2" makes the correction; the KERPLE section's box
    and the list of models only point to it."""
    text = chapter_markdown("11_learned_position")
    title = "<summary>Where sources differ: KERPLE's abstract at r₂ = 2</summary>"
    assert text.count(title) == 1
    block = text[text.index(title) : text.index("</details>", text.index(title))]
    assert "a CPD kernel can be transformed into a PD kernel by adding a constant offset" in block
    assert text.count("by adding a constant offset") == 1
    # read r205: both failures, the length-dependent constant (the block "The constant grows with the span") and no
    # constant at r2 = 2 on three or more positions (the block "No constant at $r_2 = 2$", checked in this file)
    assert (
        "read literally, fails in two ways, as the block above shows. For any unbounded shape, the constant must grow"
        " with the input's length. For the power shape at $r_2 = 2$, no constant works on three or more positions."
        in " ".join(block.split())
    )
    assert text.index("**The constant grows with the span.**") < text.index(title)
    assert "it clamps the power shape's $r_2$ at 2." in block
    assert text.count("fails at $r_2 = 2$") == 0 and text.count("read literally") == 1
    assert "yet KERPLE's code allows" not in text
    assert text.index("**No constant at $r_2 = 2$.**") < text.index(title)  # "as the block above shows"
    # read r186: the KERPLE section's block sent the reader on twice, to the appendix and then to this block; it
    # names the appendix's KERPLE part once, and the list of models points here
    assert "its block *Where sources differ* compares this with KERPLE's abstract and code." not in text
    why = collapsed(" ".join(text.split()), "Why the power shape stops at r₂ = 2")
    assert why.count("appendix") == 1 and "The appendix's KERPLE part proves these claims." in why
    assert "that the appendix's block *Where sources differ: KERPLE's abstract at r₂ = 2* corrects." in text


def test_kerple_weight_is_stated_relative_to_the_querys_own_token():
    """The KERPLE section's "To remember" and the takeaway say whose weight fades as a power law: a key's
    weight relative to the query's own token, as the section states it ("a key's weight over the query's own token's
    weight is $e^{\text{bias}}$, whatever the row's other keys"). A key's absolute softmax share also falls as the row
    grows. The section's main line keeps one rounded comparison, over two thousand times as much weight 100
    back; the exact ratio, about 2,660, the near regime and the crossing at 26 tokens sit in its block, asserted in
    the appendix's KERPLE check cell (moved from the figure's cell, which keeps the plot and one check). The negative
    assert on raw shares, which no sentence claimed and which passed for almost any implementation, is gone."""
    text, flat, main = _chapter_views()
    # the objective names the skill, not the section's conclusion (read r178: at 34 words, the opening's longest
    # sentence packed the conclusion into an objective)
    assert "- compare how a far key's weight fades under KERPLE's log penalty and under ALiBi's line;" in main
    # the answer the objective asks for, as the former objective said it: "far enough back, the log penalty lets a
    # key's weight fade more slowly than under any ALiBi slope" (the appendix's "A flatter line crosses the log head
    # later"): for the log head r1 = r2 = 1 and every slope m > 0, the gap
    # g(d) = log(1 + d) - m d is concave with g(0) = 0, so once negative it stays negative: past one distance the log
    # head keeps more weight, and its fade rate 1 / (1 + d) falls below m. That distance grows as m shrinks (the
    # appendix's crossings, 380, 865 and 1937 back for ALiBi's 1/64, 1/128 and 1/256), checked here in float64
    far_d = torch.arange(1, 400_000, dtype=torch.float64)
    crossings = []
    for m in [2.0**-k for k in range(0, 13)] + [1.5, 3.0]:
        gap = torch.log1p(far_d) - m * far_d
        first = int(far_d[(gap < 0).nonzero()[0]])
        assert (gap[first - 1 :] < 0).all() and (1 / (1 + far_d[first - 1 :]) < m).all()
        crossings.append(first)
    assert crossings[6:9] == [381, 866, 1938]  # slopes 1/64, 1/128, 1/256: the appendix's "up to 380, 865 and 1937"
    assert all(a < b for a, b in zip(crossings[:13], crossings[1:13]))  # flatter slopes cross farther back
    # the objective states no measure; the section states it (the weight relative to the query's own token,
    # e^bias, at equal content scores). Within one softmax row every key is divided by the same sum, so how a key's
    # weight fades with distance is the same whether read absolutely or relative to the own token: checked below on
    # one row at equal content scores, for the log head r1 = r2 = 1 and ALiBi's slope 1/8, from 27 back (the block's
    # crossing) to 511, where each doubling of the distance costs the log head less than the line
    objective = main[main.index("After this chapter you will be able to:") : main.index("build FIRE's normalised")]
    assert "far enough back, at equal content scores" not in objective and objective.count("own token") == 0
    d_row = torch.arange(512, dtype=torch.float64)
    log_w = torch.softmax(-torch.log1p(d_row), 0)  # one row, equal content scores: weights by distance 0 to 511
    line_w = torch.softmax(-d_row / 8, 0)
    for d in (27, 64, 128, 255):
        assert log_w[2 * d] / log_w[d] > line_w[2 * d] / line_w[d]  # absolute weights: the log head fades more slowly
        torch.testing.assert_close(log_w[2 * d] / log_w[d], (log_w[2 * d] / log_w[0]) / (log_w[d] / log_w[0]))
    assert (
        "To remember: far enough back, at equal content scores, a key's weight relative to the query's own token fades"
        " as a"
        " power law under a KERPLE log head, and exponentially under ALiBi's line." in main
    )
    assert (
        "- Under KERPLE's log bias, at equal content scores, a key's weight relative to the query's own token fades as"
        " $|j - i|^{-r_1}$, a power of the distance, once $r_2 |j - i| \\gg 1$" in main
    )
    assert "a key's weight fades as" not in flat and "log head's weight fades" not in flat
    # one number on the section's main line: the ratio; the crossing and the near regime in the block
    section = main[main.index("## KERPLE: a learned shape") : main.index("To remember: far enough back")]
    # fix pass 265 (read r264b #2): the ratio's sentence names the slope of the head it is taken against, so "1/8"
    # twice: the line's definition and that sentence
    assert (
        "keeps over two thousand times as much weight, relative to the query's own token, as ALiBi's head of slope 1/8."
        in " ".join(section.split())
        and section.count("1/8") == 2
    )
    assert section.index("Under ALiBi's line of slope 1/8") < section.index("that ALiBi head")  # "that": named before
    assert "2,660" not in section  # the exact ratio: the block's, asserted in the appendix's KERPLE check cell
    assert "26" not in section and "\\ll 1" not in section
    # fix pass 272 (reads r269a #2 and r269b #1): the title names chapter 8's trained heads, now the block's too
    # fix pass 287 (read r282a #1, unclear: "Near the query, where the log head overtakes ALiBi" said the reverse; near
    # the query the log head keeps less, and overtakes only from 27 back): retitled "How far back the log head
    # overtakes ALiBi"
    assert "Near the query, where the log head overtakes" not in flat
    title = "<summary>How far back the log head overtakes ALiBi, and chapter 8's trained heads</summary>"
    block = flat[flat.index(title) : flat.index("</details>", flat.index(title))]
    assert (
        "The log head $r_1 = r_2 = 1$ keeps less weight than ALiBi's head of slope 1/8 up to 26 tokens back, and"
        in block
    )
    assert "the appendix's KERPLE part asserts both this and the ratio of about 2,660." in block
    # the crossing depends on ALiBi's slope: against ALiBi's three flattest heads (8 heads: slopes 1/64, 1/128 and
    # 1/256) the log head r1 = r2 = 1 keeps less weight out to hundreds or thousands of tokens, checked from the
    # formulas here and asserted (380, 865 and 1937) in the appendix's KERPLE check cell
    # read r181: the main line keeps the lesson, power law against exponential; the crossing's dependence on ALiBi's
    # slope and the figure's two other heads are the block's. Read r191: the comparison with the head of slope 1/8
    # alone read as a comparison with every ALiBi head, so one sentence names the flattest heads where it is made
    # read r197: the two "thousands" (a ratio, then a distance) read alike: the distances are given
    crossing = (
        # read r198: an 8-head ALiBi's three flattest slopes; read r200: three heads and three distances in one line,
        # and an 8-head ALiBi beside chapter 8's 4 heads, read as a knot: one head, chapter 8's flattest, slope 1/256
        # (alibi_slopes of its 4 heads, checked below), crossed at 1938 (the appendix asserts 1937 as the last
        # distance before it)
        # read r203: the sentence made whole, with its own verb
        "ALiBi's flattest line in chapter 8's models, of slope 1/256, crosses this log head only about two thousand"
        " tokens back."
    )
    assert "A flatter ALiBi line crosses this log head farther back" not in text
    # read r204: one ALiBi slope on the section's main line; the flattest line's crossing is the block's
    assert crossing in block and crossing not in " ".join(main.split())
    assert block.index("the ratio of about 2,660.") < block.index(crossing)
    # read r199: the main line blurred a slower fade (a rate) with more weight kept (a level), so chapter 8's section
    # read like a contradiction; one sentence separates them, scoped to the heads just named: near the query the log
    # head r1 = r2 = 1 keeps less weight than ALiBi's head of slope 1/8 (its bias below the line, 1 to 26 back, more
    # from 27), and a flatter ALiBi line crosses it farther back (the crossings above rise as the slope falls)
    rate_not_level = (
        "But fading more slowly is not keeping more weight everywhere: near the query, this log head starts steeper and"
        " keeps less than that ALiBi head."
    )
    flat_section = " ".join(section.split())
    assert flat_section.count(rate_not_level) == 1
    assert flat_section.index("keeps over two thousand times") < flat_section.index(rate_not_level)
    assert "1/256" not in section
    d_near = torch.arange(1, 27, dtype=torch.float64)
    assert (-torch.log1p(d_near) < -d_near / 8).all() and -math.log1p(27) > -27 / 8 and crossings[3] == 27
    # "starts steeper": the log bias -log(1 + d) falls at the rate r1 r2 / (1 + r2 d) = 1 at distance 0, eight times
    # the line's 1/8, and faster than the line up to distance 7
    rate = 1 / (1 + torch.arange(0, 9, dtype=torch.float64))
    assert rate[0] == 1 and (rate[:7] > 1 / 8).all() and not (rate[7:] > 1 / 8).any()
    assert crossings[3] < crossings[6] < crossings[7] < crossings[8]  # 1/8, then 1/64, 1/128 and 1/256
    assert "Where the curves cross depends on ALiBi's slope" not in flat
    # the log-log panel's reading is its title's, in the figure's cell (read r191: the sentence repeated it)
    assert "The figure's right panel uses log–log axes" not in flat
    assert (
        "The appendix's KERPLE part gives the later crossings with ALiBi's flattest heads, and asserts them." in block
    )
    d_far = torch.arange(1, 4000, dtype=torch.float64)
    last_alibi_ahead = [int(d_far[-m * d_far >= -torch.log1p(d_far)].max()) for m in (1 / 64, 1 / 128, 1 / 256)]
    assert last_alibi_ahead == [380, 865, 1937] and min(last_alibi_ahead) >= 100 and max(last_alibi_ahead) >= 1000
    # "about four hundred, nine hundred and two thousand": each within 6 % of the exact crossing
    assert all(abs(c - r) / c < 0.06 for c, r in zip(last_alibi_ahead, (400, 900, 2000), strict=True))
    # "the flattest line in chapter 8's models, of slope 1/256, only about two thousand tokens back": chapter 8's
    # ALiBi heads' flattest slope is 1/256, crossed at 1938, within 4 % of two thousand
    config, *_ = saved_run()
    assert alibi_slopes(config["model"]["n_heads"]).min().item() == 1 / 256
    assert crossings[8] == 1938 and abs(crossings[8] - 2000) / 2000 < 0.04
    # "pulls ahead only hundreds or thousands of tokens back": the log head keeps less weight than ALiBi's three
    # flattest heads of 8 up to 380, 865 and 1937 back, more from the next distance on (concave minus linear: once
    # ahead, it stays ahead, checked above for every slope)
    assert [c - 1 for c in crossings[6:9]] == last_alibi_ahead
    assert "ALiBi's exponential with slope $r_1 r_2$." in block
    # the near-query regime is scoped to the heads it explains (C1 and C2 in the figure's cell: r2 = 0.1 and 0.02),
    # after the sentence on the head r1 = r2 = 1, for which no whole-number distance has r2 |j - i| << 1
    assert block.index("up to 26 tokens back") < block.index("Log heads with a small $r_2$")
    # the block names the figure's two other heads, in one sentence, with the regime it gives them (read r181: off
    # the main line): while r2 |j - i| stays small (0.1 or less here), each head's bias lies within 5 % of ALiBi's
    # line of slope r1 r2, since log(1 + x) / x > 0.95 for x <= 0.1
    # fix pass 264 (read r263 #4, unclear: the block named these heads and their regime twice in a row): once
    # fix pass 267 (reads r266 #2 and r266b #2, unclear: the main line's "In its left panel, very near the query, each
    # falls almost like a straight line of slope r1 r2" pointed to a few pixels of the panel): merged into the block's
    # sentence on the regime, which now names the straight line that "that line" below refers to (within 5 % while
    # r2 |j - i| <= 0.1, checked below)
    # fix pass 273 (read r270a #2, overstated: the figure drew these two heads, but their near-linear stretch, 1 and 5
    # keys, cannot be seen on its 0-128 axis): the figure draws the head (1, 1) alone; the block names the two heads as
    # not drawn, and says which is which by its (r1, r2), no longer by colour
    others = (
        "Log heads with a small $r_2$, such as $(r_1, r_2) = (2, 0.1)$ and $(4, 0.02)$, not drawn, show the regime near"
        " the query, where $r_2 |j - i| \\ll 1$. There a log head's bias falls almost like a straight line of slope"
        " $r_1 r_2$, so its ratio is about $e^{-r_1 r_2 |j - i|}$: ALiBi's exponential with slope $r_1 r_2$."
    )
    assert "(2, 0.1)" not in section and others in block and block.count("(2, 0.1)") == 2
    assert "orange" not in text and "green" not in text
    assert "The figure also draws the log heads" not in block and "These orange and green heads" not in block
    for r1_h, r2_h in ((2.0, 0.1), (4.0, 0.02)):
        near_d = torch.arange(1.0, 0.1 / r2_h + 1e-6)  # whole distances with r2 d <= 0.1: 1, and 1 to 5
        head = KerpleBias(1, kind="log", r1=r1_h, r2=r2_h).bias_by_distance(near_d).detach()[0]
        assert len(near_d) >= 1 and bool(((head / (-r1_h * r2_h * near_d) - 1).abs() < 0.05).all())
    # fix pass 266 (read r265 #5, unclear: "near the query, each falls almost like a straight line of slope r1 r2" did
    # not match the panel, where both curves bend within its 128 tokens): the main line says "very near", and the
    # block gives how near: the last whole distance with the bias within 5 % of the line r1 r2 d is 1 for the orange
    # head (2, 0.1) and 5 for the green head (4, 0.02); log(1 + x) / x falls with x, so the gap only grows after it
    # fix pass 267 (reads r266 #2 and r266b #2): the main line no longer points to the figure's near-query regime;
    # the block says it once (others, above)
    assert "In its left panel, very near the query, each falls almost like a straight line" not in text
    assert "The figure also draws two log heads with a small $r_2$" not in text
    assert "In its left panel, near the query, each" not in main
    assert "straight line of slope $r_1 r_2$" not in main and flat.count("straight line of slope $r_1 r_2$") == 1
    assert (  # fix pass 273 (read r270a #2): the heads named by their (r1, r2)
        # fix pass 286 (read r281a #3, unclear: the 5 % read as on the weight ratio; it is on the bias, gap below)
        "The bias of the head $(2, 0.1)$ stays within 5 % of that line only one key back, that of the head $(4, 0.02)$"
        " up to five back; farther back, both bend away from it." in block
    )
    d_near = torch.arange(1.0, 129.0, dtype=torch.float64)  # the left panel's distances past 0
    within = []
    for r1_h, r2_h in ((2.0, 0.1), (4.0, 0.02)):
        head = KerpleBias(1, kind="log", r1=r1_h, r2=r2_h).bias_by_distance(d_near).detach()[0].double()
        gap = (head / (-r1_h * r2_h * d_near) - 1).abs()
        assert bool((gap.diff() > 0).all())  # the gap grows with the distance: they bend away
        within.append(int((gap < 0.05).sum()))
    # both sides of "only one key back" and "up to five back" (read r270a #3: d = 1 in and d = 2 out for (2, 0.1), d = 5
    # in and d = 6 out for (4, 0.02)): the gap grows with the distance (above), so within counts a prefix of distances;
    # the notebook's KERPLE check cell asserts the four distances too (gap[1, 0] < 0.05 < gap[1, 1] and so on)
    assert within == [1, 5]
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = {c.get("id"): "".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]}
    assert any("assert len(flattest) == 3 and cross == [381, 866, 1938]" in source for source in cells.values())
    figure, checks = cells["c10"], cells["r11-kerple-figure-checks"]
    # fix pass 273 (read r270a #2): the figure draws the log head (1, 1) and ALiBi's line; the two small-r2 heads are
    # built in the check cell, which asserts their near-query regime on both sides (read r270a #3)
    assert 'KerpleBias(1, kind="log", r1=1.0, r2=1.0)' in figure and "r2=[1.0, 0.1, 0.02]" not in figure
    kerple_checks = cells["cee027ff"]  # the appendix's KERPLE check cell, right before the figure's checks
    assert 'log_heads = KerpleBias(3, kind="log", r1=[1.0, 2.0, 4.0], r2=[1.0, 0.1, 0.02])' in kerple_checks
    assert "assert gap[1, 0] < 0.05 < gap[1, 1] and gap[2, 4] < 0.05 < gap[2, 5]" in kerple_checks
    # the right panel's title carries its reading: log-log axes, where the blue head's power law is a straight line
    assert 'ax_weight.set(xscale="log", yscale="log"' in figure
    assert '"Weight, on log–log axes: the log head becomes a straight line,\\n"' in figure  # fix pass 273: one head
    assert '"a power law; ALiBi\'s curves down"' in figure
    # the evidence asserts sit in the appendix's KERPLE check cell, after the cell that first uses them, not in the
    # learner's figure cell, which keeps one check (the library's head against the section's formula)
    order = list(cells)
    assert order.index("c10") < order.index("cee027ff") < order.index("r11-kerple-figure-checks")
    assert "assert torch.equal(log_less, torch.arange(27.0, 129.0))" in checks  # "up to 26 tokens back"
    assert "log_less" not in figure and "alibi_kept" not in figure and "math.log(2)" not in figure
    assert "assert abs(alibi_one_back + 0.125) < 1e-12 and abs(one_back + math.log(2)) < 1e-6" in checks
    # a ratio of two softmax weights in one row is e to the difference of their logits ("whatever the row's other
    # keys"), an identity checked once below; the figure's cell keeps the test that can fail, the library's biases
    # (KerpleBias and posenc.alibi_bias) against the closed form e^12.5 / 101
    assert "for n in (101, 512):" not in figure + checks and "w_alibi" not in figure + checks
    assert "assert abs(kept / alibi_kept / (math.exp(12.5) / 101) - 1) < 1e-4 and ratio == 2660" in checks
    assert "# the library's biases do not depend on the row's length n" not in figure
    assert '"whatever the row\'s other keys": same at 101 and 512' not in figure
    # the ratio, in two sentences (read r191: three sentences before its one idea)
    assert (
        "Compare a key's weight with that of the query's own token, whose bias is 0, at equal content scores. Softmax"
        " divides both by the same row sum, so their ratio is $e^{\\text{bias}}$, whatever the row's other keys. For"
        " the log bias it is" in main
    )
    # "the sum cancels": the ratio of two softmax weights is e to their logits' difference, at any row length
    row = torch.randn(9, dtype=torch.float64)
    weights = torch.softmax(row, 0)
    torch.testing.assert_close(weights[2] / weights[-1], (row[2] - row[-1]).exp())
    assert "2000 <" not in figure
    # the crossing, recomputed here: the log head's bias is above ALiBi's line exactly from 27 tokens back
    d = torch.arange(1.0, 129.0, dtype=torch.float64)
    with torch.no_grad():
        log_bias = KerpleBias(1, kind="log", r1=[1.0], r2=[1.0]).bias_by_distance(d)[0].double()
    assert torch.equal(d[log_bias > -d / 8], torch.arange(27.0, 129.0, dtype=torch.float64))
    # exact by construction: the selected distances are whole numbers, and no distance lies within 0.01 of the
    # crossing (0.046 at 26, 0.043 at 27), far above float32 noise, so no CPU's rounding can flip the selection
    assert float((log_bias + d / 8).abs().min()) > 0.01


def test_going_further_names_flash_attention_2s_one_bias_and_the_absolute_tables_limit():
    """Chapter 11's Going further, on the main line: "FlashAttention-2's kernel, one such routine, takes ALiBi's slopes
    but no KERPLE, FIRE or CoPE bias." It states what the kernel takes, not a reason transformers lacks the three
    methods (transformers ships T5's learned bias through its eager and SDPA paths). flash_attn is not installed here:
    its `flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
    return_attn_probs)` takes no bias tensor (flash-attn 2.x), as the appendix's last block says. And, opening the box
    "Which models use these methods": "Chapter 2's learned absolute table, as in GPT-2, has no row past the length it
    was trained on": GPT-2 was trained on 1,024 tokens, and transformers' `GPT2Config` defaults to `n_positions` 1024,
    the rows of `wpe`; skipped where transformers is not installed."""
    text = chapter_markdown("11_learned_position")
    main = " ".join(re.sub(r"<details>.*?</details>", " ", text, flags=re.S).split())
    further = main[main.index("## Going further") :]
    assert (
        "FlashAttention-2's kernel, one such routine, takes ALiBi's slopes but no KERPLE, FIRE or CoPE bias." in further
    )
    assert "One obstacle" not in text
    flat = " ".join(text.split())
    assert (
        "FlashAttention-2's `flash_attn_func` computes ALiBi's bias inside the kernel, from `alibi_slopes`; it takes no"
        " KERPLE, T5 or FIRE bias." in flat
    )
    sentence = "Chapter 2's learned absolute table, as in GPT-2, has no row past the length it was trained on."
    # it opens the box whose next sentence, "Such a table, one trained vector per position, ...", it introduces; on
    # the main line it stood unlinked among three other topics
    assert sentence not in further
    box = flat.index("<summary>Which models use these methods</summary>")
    assert flat.index(sentence, box) < flat.index("Such a table, one trained vector per position", box)
    # the main line: one idea per paragraph, the two appendix parts as a list
    assert (
        "Two optional parts come at the end of the appendix: - fitting FIRE's MLP to other biases; - what each method"
        " costs" in further
    )
    transformers = pytest.importorskip("transformers")
    assert transformers.GPT2Config().n_positions == 1024
    small = transformers.GPT2Config(n_positions=16, n_embd=8, n_layer=1, n_head=2, vocab_size=10)
    wpe = transformers.GPT2Model(small).wpe
    assert wpe.num_embeddings == small.n_positions == 16  # one row per trained position, none beyond
    with pytest.raises(IndexError):
        wpe(torch.tensor([16]))


def test_opening_places_the_three_biases_beside_the_absolute_table_that_ships():
    """The opening, on the main line (read r181: only the box "Which models use these methods" placed the three learned
    biases beside the learned position that ships; read r183: its two named models interrupted the opening, so it is
    one short sentence at the end of the opening paragraph, and Whisper's decoder is the box's; read r191: on the
    main line it added a fourth method to an opening about three, so it sits in the opening's glance block, right under
    the three methods' table): "GPT-2 learns
    position more simply, with chapter 2's table: one trained vector per position, added to the input." In
    transformers, GPT-2's `wpe` (and, for the box, Whisper's decoder's `embed_positions`) are trainable tables, one row
    per position, and the first layer's input is the token's embedding plus its position's row; skipped where
    transformers is not installed."""
    text, flat, main = _chapter_views()
    sentence = (
        "GPT-2 learns position more simply, with chapter 2's table: one trained vector per position, added to the"
        " input."
    )
    opening = main[: main.index("After this chapter you will be able to:")]
    glance = collapsed(flat, "The three methods at a glance, with their papers")
    assert sentence not in main and flat.count(sentence) == 1 and sentence in glance
    assert glance.index("| CoPE |") < glance.index(sentence)  # beside the three methods' table, after it
    assert opening.rstrip().endswith("such as a sentence instead of a token.") and "Whisper" not in opening
    # true to the box, which names the same table and Whisper's decoder
    box = collapsed(flat, "Which models use these methods")
    assert "Chapter 2's learned absolute table, as in GPT-2" in box and "Whisper's decoder have one" in box
    transformers = pytest.importorskip("transformers")
    from transformers.models.whisper.modeling_whisper import WhisperDecoder

    gpt2 = transformers.GPT2Model(
        transformers.GPT2Config(n_positions=16, n_embd=8, n_layer=1, n_head=2, vocab_size=10)
    ).eval()
    whisper = WhisperDecoder(
        transformers.WhisperConfig(
            d_model=8,
            decoder_layers=1,
            decoder_attention_heads=2,
            decoder_ffn_dim=8,
            vocab_size=20,
            max_target_positions=16,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
            decoder_start_token_id=1,
        )
    ).eval()
    ids = torch.tensor([[3, 4, 5, 6, 7]])
    for model, tokens, table, first in (
        (gpt2, gpt2.wte, gpt2.wpe, gpt2.h[0]),
        (whisper, whisper.embed_tokens, whisper.embed_positions, whisper.layers[0]),
    ):
        assert isinstance(table, torch.nn.Embedding) and table.weight.requires_grad  # one trained row per position
        assert table.num_embeddings == 16
        seen = []

        def record(module, args, kwargs, seen=seen):  # the first layer's input
            seen.append(args[0] if args else kwargs["hidden_states"])

        hook = first.register_forward_pre_hook(record, with_kwargs=True)
        with torch.no_grad():
            model(input_ids=ids)
        hook.remove()
        scale = getattr(model, "embed_scale", 1.0)  # Whisper's: 1 unless scale_embedding
        with torch.no_grad():
            added = tokens(ids) * scale + table.weight[: ids.shape[1]]  # added to the input, position by position
        torch.testing.assert_close(seen[0], added, rtol=0, atol=1e-6)


def test_cope_definition_is_split_around_its_first_code_cell():
    """CoPE's section: the main line first defines counts with gates of 0 or 1 ("both included", with key 1's sum as
    the example), then a code cell checks the table with `CoPE`; only after it come the soft gates, the fractional
    positions and the position logit, one per paragraph; the clamp is in the block under them. The example's sum,
    1 + 1 + 0 + 0 = 2, is key 1's
    count in the table, recomputed here."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    order = [c.get("id") for c in cells]
    source = {c.get("id"): "".join(c["source"]) for c in cells}
    assert order.index("c20") + 1 == order.index("c23-hard") == order.index("c20-soft") - 1
    assert order.index("c20-soft") + 1 == order.index("c21") == order.index("c23") - 1
    hard, soft = source["c20"], source["c20-soft"]
    assert "both included" in hard and "Key 1's count sums the gates of keys 1 to 4, its own and the query's" in hard
    assert "$1 + 1 + 0 + 0 = 2$" in hard
    for later in ("\\sigma", "mixes the embeddings", "clamps", "position logit", "d_h"):
        assert later not in hard and later in soft, later
    paragraphs = [p for p in soft.split("<details>")[0].split("\n\n") if p.strip()]
    # read r176: the float32 warning interrupted the definition; it follows the four steps, in a paragraph of its own.
    # Read r178: advice with its reason; the defect and its numbers are the appendix box's. Read r181: the main line
    # says the fault is posenc's difference of two long sums, not CoPE's: the reference order keeps near keys within
    # 0.02 in bfloat16 (test_cope_bfloat16_error_comes_from_the_difference_of_two_long_sums)
    # Read r182: a defect of the book's library, not a step of CoPE: the paragraph moved into the block under the
    # four steps, as its last paragraph
    warning = (
        "In practice, give `posenc.CoPE` float32 $q$ and $k$. It takes each count as a difference of two long running"
        " sums from the start of the input, which bfloat16 gets wrong on long inputs, even for near keys. CoPE's"
        " reference code sums from the query back instead, so in bfloat16 its near keys' counts stay nearly exact. The"
        " appendix's block *Counts in bfloat16* shows both."
    )
    block_paragraphs = [" ".join(p.split()) for p in soft.split("<details>")[1].split("</details>")[0].split("\n\n")]
    assert [p for p in block_paragraphs if p][-1] == warning
    # the chain on the main line: one step a sentence, one paragraph each (gate, count, the embeddings and their
    # clamp, the mix for a fractional count, logit); read r192: "Positions are fractional" switched from "count" to
    # "position" and packed three formulas into one step, and the clamp the teaching code uses stood only in the
    # block, so the embeddings and their clamp come first, then the mix, with one formula; the per-query recount is the
    # block's; after it, the teaching code's lead-in
    steps = (
        "In CoPE a gate is computed from the content",
        "A key's count sums these gates from that key up to the",
        # read r207: P named as the number of embeddings before "P - 1" and "P = L + 1" use it
        "CoPE learns $P$ embeddings, for the whole counts 0 to $P - 1$, and clamps larger counts to $P - 1$.",
        "For a fractional count, CoPE mixes the embeddings of the two whole counts around it:",
        "The position logit",
    )
    assert len(paragraphs) == 5 and [p.startswith(t) for p, t in zip(paragraphs, steps)] == [True] * 5
    assert all(p.count(". ") == 0 and p.rstrip().endswith(".") for p in paragraphs)  # one sentence each
    # the paper's word, in the block only: "CoPE's paper and code call a count a *position*. Positions are
    # fractional, so CoPE interpolates between embeddings, as above."
    main_soft = soft.split("<details>")[0]
    assert "Positions are fractional" not in main_soft and "interpolates" not in main_soft
    assert (
        "CoPE's paper and code call a count a *position*. Positions are fractional, so CoPE interpolates between"
        " embeddings, as above." in " ".join(soft.split("<details>")[1].split())
    )
    assert soft.split("</details>")[1].strip() == "A teaching version for one head, with `e[:, n]` for $e[n]$:"
    assert "clamps larger counts" in soft.split("<details>")[0] and "clamped" not in soft
    # the teaching code clamps where the main line says: the count at most P - 1
    assert ".clamp(max=P - 1)" in source["c21"]
    assert "def hard_gates(" in source["c23-hard"] and "cope_position_logits" not in source["c23-hard"]
    assert "assert example[1].item() == 1 + 1 + 0 + 0" not in source["c23-hard"]  # it followed from the line above
    # read r191: the cell's second assert, the table's hard-coded counts against the rule applied to its hard-coded
    # gates, could not fail once the first (the library's counts against the same numbers) passed; the rule is checked
    # here, on the table's rows as the markdown prints them: each count sums the gates from key j to the query
    assert "assert example.tolist() == [table_gates[j:].sum().item() for j in range(5)]" not in source["c23-hard"]
    assert "assert example.tolist() == [2, 2, 1, 0, 0]" in source["c23-hard"]
    rows = {line.split("|")[1].strip(): line for line in hard.splitlines() if line.startswith("| ")}
    gate_row = [float(x) for x in rows["gate $g_{4j}$"].split("|")[2:-1]]
    count_row = [float(x) for x in rows["count $p_{4j}$"].split("|")[2:-1]]
    gates = torch.tensor(gate_row)
    assert gate_row == [0, 1, 1, 0, 0] and count_row == gates.flip(0).cumsum(0).flip(0).tolist() == [2, 2, 1, 0, 0]
    assert gates[1:].sum().item() == 2 == count_row[1]


def test_cope_counts_are_clamped_at_p_minus_1_in_the_sections_block():
    """CoPE's section, on its main line (read r192: the teaching code clamps, so the main line names it): "CoPE learns
    one embedding per whole count, up to a largest count $P - 1$, and clamps a larger count to it.", and in the block
    under its steps: "The reference code clamps the same way, so every count of $P - 1$ or more reads $e[P-1]$." The
    reference code's `pos.clamp(max=self.npos_max - 1)` (facebookresearch/RAM, projects/cope), and posenc's CoPE: with
    every gate open, counts 1 to 8 at P = 4 read e[1], e[2], then e[3] for every count of 3 or more."""
    text = chapter_markdown("11_learned_position")
    flat = " ".join(text.split())
    start = flat.index("## CoPE: count only what matters")
    cope = flat[start : re.compile(r"(?<!#)## ").search(flat, start + 3).start()]  # up to the next section
    sentence = "The reference code clamps the same way, so every count of $P - 1$ or more reads $e[P-1]$."
    block = cope.index("<summary>How the reference code clamps, scales and shares, and why posenc's CoPE needs")
    main_clamp = "and clamps larger counts to $P - 1$."
    assert cope.index(main_clamp) < block < cope.index(sentence) < cope.index("</details>", block)
    assert flat.count("clamps larger counts") == 1 and "Counts above $P - 1$ are clamped" not in flat  # said once
    P, n = 4, 8
    cope_module = CoPE(1, npos_max=P)
    assert cope_module.pos_emb.shape == (1, P)  # "CoPE learns $P$ embeddings, for the whole counts 0 to $P - 1$"
    with torch.no_grad():
        cope_module.pos_emb.copy_(torch.arange(float(P)).view(1, P))  # e[n] = n
    q = saturated(1, 1, n, 1, 20.0)  # q.k = 400: gates of exactly 1, count = distance + 1; the logit is 20 e(count)
    row = cope_module.logit_bias(q, q, causal=True)[0, 0, -1].flip(0) / 20  # by distance 0 .. n - 1
    assert torch.equal(row, torch.tensor([1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]))


def test_kerple_log_shapes_cross_alibis_flattest_line_about_650_back():
    """Chapter 8's section's block: the log shapes solved from each KERPLE head's saved biases at distances 1 and 2
    "would cross that line ..., the earliest at about 650 tokens back", beyond the tested 511. 651 on the saved run,
    but the saved biases are rounded to 4 decimals and the first head's gap at 650 is 8e-5, so the bar has a
    tolerance."""
    text = " ".join(chapter_markdown("11_learned_position").split())
    # read r192: said once, in chapter 8's section's block; the appendix's per-seed box points there
    assert "crosses that line only about 650 tokens back or more" not in text
    assert "651 or more" not in text
    # "the earliest at about 650": the first head's crossing; the others cross later, up to about 6,360 back
    found = re.findall(
        # fix pass 272: the block's one copy, with what the bias below the line means between the two (counter_fact)
        # fix pass 285 (reads r280a #1, r280b #2): the main line's catch-up sentence replaced the block's edge sentence
        r"against the line's \u22122\. So KERPLE's trained heads never catch up with ALiBi's flattest head up to 511"
        r" tokens back, and the KERPLE section's edge does not show in these heads\. Beyond the"
        r" tested lengths, their log shapes would cross that line and keep more weight against the query's own token,"
        r" the earliest at about (\d+) tokens back\.",
        text,
    )
    assert len(found) == 1
    stated = int(found[0])
    config, full, seeds, _ = saved_run()
    long_n = config["eval_lengths"][-1]
    kerple = [
        v for s in seeds for by_head in full["metrics"]["kerple"][s]["learned_bias"][str(long_n)] for v in by_head
    ]
    slope = alibi_slopes(config["model"]["n_heads"])[-1].item()
    cross = []
    for v in kerple:
        r2 = log_r2(v[1], v[2])
        r1 = -v[1] / math.log1p(r2)
        cross.append(next(d for d in range(1, 10**5) if r1 * math.log1p(r2 * d) <= slope * d))
    assert 640 <= min(cross) <= 660 and min(cross) > long_n - 1 == 511
    assert stated == 650 and abs(min(cross) - stated) <= 10 and stated > long_n - 1  # "about", beyond 511
    # chapter 8's section's main line leaves the crossing to this block (found above, once): no number there
    main = " ".join(re.sub(r"<details>.*?</details>", " ", chapter_markdown("11_learned_position"), flags=re.S).split())
    # fix pass 279 (reads r275a #4 and r275b #2): this section's main line gives it once too, in the KERPLE section's
    # words (crossing_279)
    # fix pass 280 (reads r276a #3 and r276b #1): no longer; its main line ties the 511 to the open question
    assert _ch8_main(main).count("650") == 0 and crossing_279 not in main and "comes late" not in main
    # fix pass 266 (reads r265 #3 and r265b #1, unclear: six reads asked for the trained heads' crossing where the
    # KERPLE section teaches the edge): the KERPLE section's main line gives it once, with the same number, and the
    # farthest key chapter 8 tests, 511 back (long_n - 1)
    kerple_main = main[main.index("## KERPLE: a learned shape") : main.index("## FIRE: an MLP")]
    # fix pass 268 (read r267b #1, overstated: "only from about 650" read as every head's crossing; 650 is the
    # earliest of the 40, min(cross) above, and the others reach 6360): "at the earliest", as the block says
    # fix pass 272 (reads r269a #2 and r269b #1, unclear: the section's main line ended on chapter 8's trained heads,
    # which pulled away from its lesson, and "it tests" had no clear antecedent): the main line ends on "The flatter
    # the ALiBi head, the farther back this log head catches up."; the two sentences are its block's, retitled to
    # name chapter 8's trained heads, with "the farthest key chapter 8 tests"
    kerple_block_title = "How far back the log head overtakes ALiBi, and chapter 8's trained heads"
    kerple_block = collapsed(text, kerple_block_title)
    said_block = re.findall(
        r"Chapter 8's trained log heads would catch up with that chapter's flattest ALiBi line at the earliest about"
        # fix pass 273 (read r270b #2, unclear: three "farthest" distances, 511, 496 and 1 to 510, read alike): the
        # farthest key of chapter 8's longest inputs, named by their length (8L = 512 tokens, last position 511), apart
        # from the passkey's farthest fixed distance (496) and its random distances (1 to 510)
        r" (\d+) tokens back, past the farthest key in chapter 8's (\d+)-token inputs, (\d+) back\.",
        kerple_block,
    )
    # fix pass 279 (reads r275a #4 and r275b #2, unclear: the KERPLE section taught the edge, and only its block said
    # that chapter 8's trained heads do not reach it): decided once, the KERPLE section's main line ends on it
    # (kerple_crossing_279), and chapter 8's section says the same in the same words (crossing_279); the block's copy
    # is gone. "up to 511 tokens back": the farthest key of the longest inputs (long_n - 1); "about 650": stated
    assert said_block == [] and f"up to {long_n - 1} tokens back; the earliest would catch up about {stated} back" in (
        crossing_279
    )
    # fix pass 280 (reads r276a #3 and r276b #1, unclear: a forward reference to trained heads in the middle of the
    # KERPLE idea, and the same sentence on two main lines): the sentence once, in the KERPLE section's block, after
    # the later crossings it extends; the 650 is also the chapter 8 section's block's (crossing_8l, found above)
    assert kerple_crossing_279 not in kerple_main and kerple_block.count(kerple_crossing_279) == 1
    # fix pass 286 (read r281b #7, unclear: the KERPLE section's lesson was left hanging after chapter 8's result):
    # the 650 once on the main line, in the takeaways' last bullet, with the 511 tested
    assert main.count("650") == 1 and text.count("650") == 3
    assert "would start no earlier than about 650 tokens back, beyond the 511 tested." in main
    assert long_n == 8 * saved_run()[0]["train_length"] == max(saved_run()[0]["eval_lengths"])
    assert "the farthest key chapter 8 tests" not in text
    assert "past the farthest key it tests" not in text and "only from about 650" not in text
    assert "Where a log head catches up also depends on its $r_1$ and $r_2$." in kerple_block
    assert "Where a log head catches up" not in kerple_main
    ends = "The flatter the ALiBi head, the farther back this log head catches up."
    assert " ".join(text[text.index("## KERPLE: a learned shape") : text.index(kerple_block_title)].split()).endswith(
        f"{ends} <details><summary>"  # fix pass 280: the main line ends on the idea; the trained heads are the block's
    )
    assert (
        "The appendix's KERPLE part gives the later crossings with ALiBi's flattest heads, and asserts them."
        f" {kerple_crossing_279}" in kerple_block
    )

    # the crossing in closed form, apart from the scan: r1 log(1 + r2 d) = m d has, with a = m / (r1 r2) < 1, the
    # root d = (-W_-1(-a e^-a) / a - 1) / r2; W_-1 by bisection on w e^w, which falls on w < -1
    def w_low(z):
        lo, hi = -800.0, -1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mid * math.exp(mid) > z else (lo, mid)
        return (lo + hi) / 2

    closed = []
    for v in kerple:
        r2 = log_r2(v[1], v[2])
        r1 = -v[1] / math.log1p(r2)
        a = slope / (r1 * r2)
        assert a < 1
        closed.append((-w_low(-a * math.exp(-a)) / a - 1) / r2)
    assert [math.ceil(x) for x in closed] == cross and round(min(closed), -1) == stated  # 650.03
    assert max(cross) > 5000  # "the earliest": the crossings spread far beyond it (6360 in the appendix's cell)


def test_far_key_share_of_the_row_under_alibis_flattest_head_and_each_seeds_gentlest_kerple_head():
    """Chapter 8's section's block: "Softmax also shares the weight among all 512 keys. At equal content scores, the
    key 496 back gets 6.5 parts in 10,000 of the row's weight under ALiBi's head of slope 1/256. Under each seed's
    gentlest KERPLE head, the one that gives that key the largest share, it gets 10.9, 11.5, 0.15, 6.6 and 9.0 parts
    in 10,000 in seeds 0 to 4. That is more than ALiBi's in seeds 0, 1 and 4, about as much in seed 3, and the least
    in seed 2, the seed under 95 %. Seed 2, KERPLE's least share and its worst seed, still finds more of these
    passkeys than ALiBi; in seed 3 the two shares are about equal, yet KERPLE finds every one of these passkeys and
    ALiBi 39 of 64. Five seeds show no clear link." (fix pass 290) Each number is read from the
    text and compared with the share computed from the saved biases from the last of 512 tokens (softmax over the
    distances 0 to 511, equal content scores), and the stated ordering is asserted with margins: seeds 0, 1 and 4 by
    more than 30 %, seed 3 within 5 %, seed 2 the least, under a tenth of ALiBi's."""
    text, flat, main = _chapter_views()
    found = re.search(
        r"the key (\d+) back gets ([\d.]+) parts in 10,000 of the row's weight under ALiBi's head of slope 1/256\."
        r" Under each seed's gentlest KERPLE head, the one that gives that key the largest share, it gets"
        r" ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+) and ([\d.]+) parts in 10,000 in seeds 0 to 4\.",
        flat,
    )
    assert found and "parts in 10,000" not in main  # in the block only
    scoped = (
        "That is more than ALiBi's in seeds 0, 1 and 4, about as much in seed 3, and the least in seed 2, the seed"
        f" under 95 %. {link_8l}"
    )
    assert scoped in flat and flat.index(found.group(0)) < flat.index(scoped)
    # fix pass 272 (reads r269a #6 and r269b #3, unclear: said in both blocks): once, in the first block
    block = flat.index(kerple_alibi_block)
    assert block < flat.index(found.group(0)) < flat.index("</details>", block)
    assert found.group(0) not in collapsed(flat, "How the measures are scored, and what is not tested")
    assert flat.count("parts in 10,000") == 2 and share_8l in flat
    far = int(found.group(1))
    config, full, seeds, _ = saved_run()
    n = config["eval_lengths"][-1]
    assert far == 496 == config["distances"][-1] and n == 512 and seeds == ["0", "1", "2", "3", "4"]
    flattest = alibi_bias(config["model"]["n_heads"], 1, n)[-1, 0].flip(0).double()  # distance 0 to 511
    assert alibi_slopes(config["model"]["n_heads"])[-1].item() == 1 / 256
    alibi_share = flattest.softmax(0)[far].item()
    kerple_share = [
        max(
            torch.tensor(v, dtype=torch.float64).softmax(0)[far].item()
            for layer in full["metrics"]["kerple"][s]["learned_bias"][str(n)]
            for v in layer
        )
        for s in seeds
    ]
    stated = [float(x) for x in found.groups()[2:]]
    assert abs(alibi_share * 1e4 - float(found.group(2))) < 0.05
    assert all(abs(x * 1e4 - y) < (0.005 if y < 1 else 0.05) for x, y in zip(kerple_share, stated))
    assert all(kerple_share[i] > 1.3 * alibi_share for i in (0, 1, 4))  # "more than ALiBi's in seeds 0, 1 and 4"
    assert abs(kerple_share[3] / alibi_share - 1) < 0.05  # "about as much in seed 3"
    assert min(kerple_share) == kerple_share[2] < alibi_share / 10  # "the least in seed 2"
    # the block's closing_8l follows the seed list (read r202: "in most seeds" on the main line was loose; the block
    # names the seeds): more in four of five (seeds 0, 1 and 4 by over 30 %, seed 3 by a little), fewer in one
    assert closing_8l in flat and closing_8l not in main and flat.index(scoped) < flat.index(closing_8l)
    assert sum(x > alibi_share for x in kerple_share) >= 3 and sum(x > 1.3 * alibi_share for x in kerple_share) >= 3
    # "That head gives the keys nearer the query much less weight in total, measured the same way, so less of the row
    # goes to them": in every seed where the far key's share beats ALiBi's, the gentlest head's weights on the keys 1
    # to 495 back, each against the query's own token, add up to under 40 % of ALiBi's flattest head's (0.12 to 0.34),
    # and those keys' share of the row is below theirs under ALiBi
    # fix pass 278 (read r275b #6, overstated, minor: the reader found no check of closing_8l, "Where that key's share
    # beats ALiBi's, the keys nearer the query weigh much less in total under that head, against the query's own
    # token, so less of the row goes to them"): this loop is its check; it must run on every seed where the far key's
    # share beats ALiBi's, seeds 0, 1, 3 and 4, so it cannot pass vacuously
    alibi_row = flattest.softmax(0)
    checked = []
    for s in seeds:
        rows = [
            torch.tensor(v, dtype=torch.float64).softmax(0)
            for layer in full["metrics"]["kerple"][s]["learned_bias"][str(n)]
            for v in layer
        ]
        gentlest = max(rows, key=lambda p: p[far].item())
        if gentlest[far].item() > alibi_share:
            nearer_total = (gentlest[1:far] / gentlest[0]).sum().item()
            assert nearer_total < 0.4 * (alibi_row[1:far] / alibi_row[0]).sum().item(), s
            assert gentlest[1:far].sum().item() < alibi_row[1:far].sum().item(), s
            checked.append(s)
    assert checked == ["0", "1", "3", "4"]
    far_found = [full["metrics"]["kerple"][s]["passkey_by_distance"][str(far)] for s in seeds]
    assert [s for s, v in zip(seeds, far_found) if v < 0.95] == ["2"]  # "the seed under 95 %"
    # fix pass 280 (read r276a #2, overstated: "hints at a link" though seed 3 works against it): link_8l's seed 3,
    # where the shares are within 5 % (above): KERPLE finds all 64 passkeys 496 back, ALiBi 39 of 64
    probes = config["distance_batch"]  # probes per fixed distance
    alibi_far = [full["metrics"]["alibi"][s]["passkey_by_distance"][str(far)] for s in seeds]
    assert far_found[3] == 1.0 and round(alibi_far[3] * probes) == 39 and abs(alibi_far[3] * probes - 39) < 1e-6
    assert probes == 64 and "ALiBi 39 of 64" in link_8l and "every one of these passkeys" in link_8l
    # fix pass 290 (read r285b #1): seed 2, the least share and KERPLE's worst seed at 496 back, still finds more than
    # ALiBi there (56 and 51 of 64 in the saved run)
    assert min(far_found) == far_found[2] and far_found[2] > alibi_far[2], (far_found, alibi_far)
    assert "Seed 2, KERPLE's least share and its worst seed, still finds more of these passkeys than ALiBi" in link_8l


def test_passkey_table_caption_names_the_farthest_fixed_distance():
    """The section on chapter 8's experiment, on the main line (read r182: the column "passkeys found 496 tokens back"
    gave no reason for 496, so ALiBi's 76 % read as its miss rate at any distance; read r183: chapter 8's own measure,
    at a random distance, stood only in the block, so the main table judged ALiBi on its worst column alone): the
    caption "At $8L$, each passkey is hidden either 496 tokens back, the farthest fixed distance chapter 8 tests, or
    at a random distance:" over a table with both columns. 496 is the last and largest of chapter 8's fixed
    distances; random distances run from 1 to 510 back, defined in the block; ALiBi's five-seed mean at random
    distances, 91 %, is above its 76 % at 496 back."""
    text, flat, main = _chapter_views()
    # fix pass 279 (reads r275a #3 and r275b #1): the caption left; the set-up leads into the table, whose header
    # names both columns, and the measures block says why 496 (below)
    assert caption_8l not in flat and "the block below gives both columns" not in text
    assert (
        main.index(setup_279) < main.index("| KERPLE, log shape | 0.72 nats | 97 % | 98 % |") < main.index(lesson_279)
    )
    assert "One column scores passkeys 496 back, the farthest of the fixed distances tested." in flat
    assert main.count("| ALiBi | 0.73 nats | 76 % | 91 % |") == 1
    block = collapsed(flat, "How the measures are scored, and what is not tested")
    assert "scores passkeys at a *random distance*, 1 to 510 tokens back" in block and "| ALiBi |" not in block
    config, *_ = saved_run()
    assert config["distances"][-1] == max(config["distances"]) == 496
    far, at_random = far_and_random("alibi")
    assert statistics.mean(at_random) > statistics.mean(far) + 0.1  # 0.91 against 0.76


def test_siglip_vision_table_interpolates_to_other_image_sizes():
    """The box "Which models use these methods" (read r182: "has no row past the length it was trained on" read as
    true of every learned table): "SigLIP's can still take other image sizes: with `interpolate_pos_encoding`, it
    resizes its grid of trained vectors by interpolation." In transformers' `modeling_siglip.py`, the vision
    embeddings hold an `nn.Embedding` with one row per patch of the trained image size, and `interpolate_pos_encoding`
    resizes that grid (bicubic) to a larger image's patches; without it, the larger image fails. Skipped where
    transformers is not installed."""
    text, flat, main = _chapter_views()
    box = collapsed(flat, "Which models use these methods")
    sentence = (
        "SigLIP's can still take other image sizes: with `interpolate_pos_encoding`, it resizes its grid of trained"
        " vectors by interpolation."
    )
    assert box.index("SigLIP's vision encoder and Whisper's decoder have one.") < box.index(sentence)
    transformers = pytest.importorskip("transformers")
    from transformers.models.siglip.modeling_siglip import SiglipVisionEmbeddings

    config = transformers.SiglipVisionConfig(
        image_size=32, patch_size=8, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2
    )
    with torch.random.fork_rng():  # the global RNG stream is left as it was
        model = transformers.SiglipVisionModel(config).eval()
    (embeddings,) = [m for m in model.modules() if isinstance(m, SiglipVisionEmbeddings)]
    table = embeddings.position_embedding
    assert isinstance(table, torch.nn.Embedding) and table.num_embeddings == (32 // 8) ** 2  # a 4 x 4 grid of rows
    larger = torch.randn(1, 3, 48, 48, generator=torch.Generator().manual_seed(0))  # a 6 x 6 grid of patches
    with torch.no_grad():
        assert model(pixel_values=larger, interpolate_pos_encoding=True).last_hidden_state.shape == (1, 36, 16)
        with pytest.raises(RuntimeError):
            model(pixel_values=larger)  # the trained table alone has 16 rows for 36 patches
        same = embeddings.interpolate_pos_encoding(torch.zeros(1, 16, 16), 32, 32)
    torch.testing.assert_close(same[0], table.weight)  # at the trained size, the table itself


@pytest.mark.parametrize("r2", [2.5, 3.0, 4.0])
def test_kerple_power_above_2_built_directly_is_not_cpd(r2):
    """The appendix's KERPLE box: "Powers above 2 fail it: on positions 0, 1, 2 the weights $c = (1, -2, 1)$ give
    $c^\\top B c = r_1 (8 - 2^{r_2 + 1})$, negative for $r_2 > 2$", and the section's block "powers above 2 fail".
    `KerpleBias` clamps r2 at 2 and cannot build such a table (read r182: the notebook checked the formula through it
    only), so the table -r1 |x_a - x_b|^r2 is built directly here: the quadratic form at (1, -2, 1) matches the
    formula and is negative, and on random distinct positions the table, restricted to weights that sum to 0, has a
    negative eigenvalue: it is not CPD."""
    text = chapter_markdown("11_learned_position")
    assert "Powers above 2 fail it: on positions 0, 1, 2 the weights $c = (1, -2, 1)$ give" in " ".join(text.split())
    r1 = 0.5
    x3, c = torch.arange(3, dtype=torch.float64), torch.tensor([1.0, -2.0, 1.0], dtype=torch.float64)
    table = -r1 * (x3[:, None] - x3[None, :]).abs() ** r2
    form = (c @ table @ c).item()
    assert abs(form - r1 * (8 - 2 ** (r2 + 1))) < 1e-12 and form < -1  # -1.66, -4 and -12
    g = torch.Generator().manual_seed(int(10 * r2))
    for n_pos in (3, 8, 32):
        x = torch.randperm(100, generator=g)[:n_pos].to(torch.float64)
        assert projected_min_eig(-r1 * (x[:, None] - x[None, :]).abs() ** r2) < -0.1, n_pos
    power = KerpleBias(1, kind="power", r1=r1, r2=2.0)
    with torch.no_grad():
        power.r2.fill_(r2)
    assert torch.allclose(power.coefficients()[1].detach(), torch.tensor([2.0]))  # the library's clamp


def test_takeaway_1_ends_on_the_power_law_and_the_crossing_stays_in_the_block():
    """Takeaway 1 ends on what the KERPLE section taught, the power law against ALiBi's exponential (read r199: its
    last sentence, "Chapter 8's trained KERPLE heads would pull ahead of ALiBi's flattest head only beyond the lengths
    tested.", was a caveat, and it blurred a slower fade with more weight kept). Read r192 had added it because,
    beside takeaway 4, a learner credited KERPLE's extra passkeys to the power law; chapter 8's section now says so on
    its main line (closing_8l), and its block keeps the crossing past the tested lengths (crossing_8l). At every
    tested distance, 1 to 511 back in the 512-token inputs, every one of the 40 trained heads' biases lies below
    ALiBi's flattest line, slope 1/256, so each keeps less weight against the query's own token; the log shape solved
    from each head's biases at distances 1 and 2 crosses that line only past 511 (650 and beyond)."""
    text, flat, main = _chapter_views()
    takeaways = main[main.index("## Takeaways") : main.index("## Exercises")]
    first = takeaways[takeaways.index("- Under KERPLE's log bias") : takeaways.index("- FIRE's MLP input")]
    assert first.rstrip().endswith("under ALiBi's line it fades exponentially.")
    assert "would pull ahead" not in flat and "only beyond the lengths tested" not in flat
    assert "Chapter 8's trained KERPLE heads" not in takeaways
    assert counter_fact not in main and flat.count(counter_fact) == 1  # structural pass 217: the block's
    assert flat.count(crossing_8l) == 1 and crossing_8l not in main
    config, *_ = saved_run()
    n = max(config["eval_lengths"])
    slope = alibi_slopes(config["model"]["n_heads"]).min().item()
    kerple = learned_heads("kerple", n)
    assert n == 512 and slope == 1 / 256 and len(kerple) == 40
    assert all(v[d] < -slope * d for v in kerple.values() for d in range(1, n))
    for v in kerple.values():
        r2 = log_r2(v[1], v[2])
        r1 = -v[1] / math.log1p(r2)
        assert all(-r1 * math.log1p(r2 * d) < -slope * d for d in range(1, n))  # behind the line to 511
        assert any(-r1 * math.log1p(r2 * d) > -slope * d for d in range(n, 10**4))  # ahead of it further back


def test_mamba2_and_gated_deltanet_layers_run_a_short_causal_convolution():
    """Going further's block on hybrids: "Both kinds of layer also run a short causal convolution over their projected
    inputs, by default over each token and the three before it, which gives them local order." (read r192: an
    omission). The reference code: state-spaces/mamba `mamba_ssm/modules/mamba2.py` (`nn.Conv1d` with
    `kernel_size=d_conv`, `padding=d_conv - 1`, `d_conv=4`), fla-org/flash-linear-attention
    `fla/layers/gated_deltanet.py` (`ShortConvolution` on q, k and v, `conv_size=4`). Checked on the installed
    transformers: Nemotron-H's Mamba-2 mixer and Qwen3-Next's Gated DeltaNet build a depthwise convolution of width
    4, padded by 3, whose output the modeling code cuts to the input's length, so position t reads positions t - 3 to
    t only, each with its own weight; skipped where transformers is not installed."""
    text = chapter_markdown("11_learned_position")
    block = collapsed(" ".join(text.split()), "Which models use these methods")
    assert (
        "apply such gates too, with a delta-rule update. Both kinds of layer also run a short causal convolution over"
        " their projected inputs, by default over each token and the three before it, which gives them local order."
        in block
    )
    transformers = pytest.importorskip("transformers")
    from transformers.models.nemotron_h import modeling_nemotron_h
    from transformers.models.qwen3_next import modeling_qwen3_next

    assert transformers.NemotronHConfig().conv_kernel == 4 == transformers.Qwen3NextConfig().linear_conv_kernel_dim
    with torch.random.fork_rng():
        torch.manual_seed(0)
        mamba = modeling_nemotron_h.NemotronHMamba2Mixer(
            transformers.NemotronHConfig(
                hidden_size=64, mamba_num_heads=4, mamba_head_dim=16, ssm_state_size=16, n_groups=1
            ),
            layer_idx=0,
        )
        delta = modeling_qwen3_next.Qwen3NextGatedDeltaNet(
            transformers.Qwen3NextConfig(
                hidden_size=64,
                linear_num_key_heads=2,
                linear_num_value_heads=2,
                linear_key_head_dim=16,
                linear_value_head_dim=16,
            ),
            layer_idx=0,
        )
    for module, source in ((mamba, modeling_nemotron_h), (delta, modeling_qwen3_next)):
        conv = module.conv1d
        assert conv.kernel_size == (4,) and conv.padding == (3,) and conv.groups == conv.in_channels
        code = pathlib.Path(source.__file__).read_text(encoding="utf-8")
        assert "padding = weight.shape[-1] - 1" in code and ")[:, :, :seq_len]" in code  # causal_conv1d_fn
        x = torch.randn(1, conv.in_channels, 12, generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            base = conv(x)[:, :, :12]
            for t in (2, 5, 8):
                moved = x.clone()
                moved[:, :, t] += 1.0
                changed = (conv(moved)[:, :, :12] - base).abs().amax(1)[0] > 1e-6
                assert changed.nonzero().flatten().tolist() == [t, t + 1, t + 2, t + 3]  # read by t to t + 3 only


def test_fire_fits_block_names_the_best_constant_for_each_error_measure():
    """The FIRE-fits block (read r208: "the best constant" named two constants): "the midrange midway between the
    head's extremes, which is the best constant for it" (the largest error) and "every fit beats the head's mean, the
    best constant for that measure" (the squared error). The midrange minimises the largest error and the mean the
    squared error, over all constants."""
    flat = " ".join(chapter_markdown("11_learned_position").split())
    assert "the midrange midway between the head's extremes, which is the best constant for it" in flat
    assert "every fit beats the head's mean, the best constant for that measure" in flat
    x = torch.randn(200, dtype=torch.float64).cumsum(0)
    grid = torch.linspace(float(x.min()), float(x.max()), 4001, dtype=torch.float64)
    largest = (x[None, :] - grid[:, None]).abs().amax(-1)
    squared = ((x[None, :] - grid[:, None]) ** 2).mean(-1)
    midrange, mean = (x.max() + x.min()) / 2, x.mean()
    assert (x - midrange).abs().max() <= largest.min() + 1e-12
    assert ((x - mean) ** 2).mean() <= squared.min() + 1e-12
    assert abs(float(grid[largest.argmin()] - midrange)) < 0.01 and abs(float(grid[squared.argmin()] - mean)) < 0.01


def test_a_far_keys_share_depends_on_every_key_in_the_row():
    """Chapter 8's section, the opening of its KERPLE-ALiBi block (fix pass 220; fix pass 219, read r218 #3, had it
    on the main line), after the sentence that cuts the link from the KERPLE section's slow fade: "Yet a far key's
    weight depends on its bias against every key in the row, not just the query's own token." Checked on the saved
    run, at equal content scores, for the key 496 back from the last of 512 tokens: in some seed, the trained KERPLE
    head that gives that key the largest share has a lower bias on it than ALiBi's flattest line, so a lower weight
    against the query's own token, yet a larger share of the row than under that line (the block's "Softmax shares
    each row's weight among its keys, though, so a head that is steep near the query can still leave a far key more
    weight"). And, by the formula, moving the other keys' biases while the far key's bias and the own token's stay
    fixed changes the far key's share."""
    text, flat, main = _chapter_views()
    assert row_lesson_221 not in main and flat.count(row_lesson_221) == 1 and row_lesson_219 not in flat
    kerple_alibi = collapsed(flat, "Comparing trained KERPLE heads with ALiBi's heads")
    # fix pass 273 (read r270a #7): the open question and the paired margin, moved from the main line, come first
    assert (
        kerple_alibi.removeprefix(kerple_alibi_block)
        .lstrip()
        # fix pass 274: unsettled_273 left (open_274); fix pass 279 (reads r275a #3 and r275b #1): the result joined
        # to the paired margin, and the passkey-content sentence, open it
        .startswith(f"{result_paired_279} {passkey_miss} {row_lesson_221} {unsettled_221}")
    )
    assert not kerple_alibi.removeprefix(kerple_alibi_block).lstrip().startswith("Yet")  # fix pass 221 (read r220 #5)
    assert main.index(open_279) < flat.index(kerple_alibi_block) < flat.index(row_lesson_221)  # fix pass 279
    # fix pass 272: "among all 512 keys", the row of the shares that follow it (share_8l)
    assert "Softmax shares each row's weight among all 512 keys" in takeaway_8l and takeaway_8l in flat
    config, full, seeds, _ = saved_run()
    n, far = config["eval_lengths"][-1], config["distances"][-1]
    flattest = alibi_bias(config["model"]["n_heads"], 1, n)[-1, 0].flip(0).double()  # distance 0 to 511
    alibi_share = flattest.softmax(0)[far].item()
    beats = 0
    for s in seeds:
        heads = [
            torch.tensor(v, dtype=torch.float64)
            for layer in full["metrics"]["kerple"][s]["learned_bias"][str(n)]
            for v in layer
        ]
        best = max(heads, key=lambda v: v.softmax(0)[far].item())
        if best.softmax(0)[far].item() > 1.3 * alibi_share:
            assert best[far] - best[0] < flattest[far] - flattest[0] - 0.1  # lower against the own token
            beats += 1
    assert beats >= 2
    row = flattest.clone()
    row[1:far] -= 1.0  # only the other keys move
    assert row.softmax(0)[far].item() > 1.5 * alibi_share


def test_a_flatter_alibi_head_is_overtaken_farther_back():
    """KERPLE's section, main line (fix pass 224, read r223 #4: the two-thousand-times figure is against slope 1/8; the
    experiment's flatter heads change it): "The flatter the ALiBi head, the farther back this log head catches up."
    The log head r1 = r2 = 1 keeps the weight 1 / (1 + d) against the query's own token, ALiBi's line e^(-m d); the
    first distance where the log head keeps more grows as the slope m shrinks, over ALiBi's slopes from 1/2 to 1/256
    (d up to 10^5). In closed form: log(1 + d) / d falls with d, and the log head leads once it drops below m."""
    text, flat, main = _chapter_views()
    assert "The flatter the ALiBi head, the farther back this log head catches up." in " ".join(main.split())
    d = torch.arange(1, 100_001, dtype=torch.float64)
    firsts = []
    for m in (1 / 2, 1 / 8, 1 / 16, 1 / 64, 1 / 128, 1 / 256):
        ahead = -torch.log1p(d) > -m * d  # the log head's bias above the line: more weight against the own token
        assert bool(ahead[-1]), m
        first = int(ahead.nonzero()[0]) + 1
        assert bool(ahead[first - 1 :].all()), m  # and it stays ahead from there on
        firsts.append(first)
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts), firsts
    assert firsts[1] == 27  # slope 1/8: the crossing between 26 and 27 that the section's block gives


def test_decoding_cost_of_each_method_on_the_main_line():
    """*Going further*, main line (fix pass 225, read r224 #5, an omission: the decoding cost was only in blocks):
    "When generating text, KERPLE's bias, like ALiBi's, depends on the distance alone. FIRE reruns its MLP over every
    key for each new query past $L_{\\text{thr}}$, and CoPE recomputes every key's count for each new query." Checked
    on posenc's modules: KERPLE's bias is one function of the distance (the same at every query); past the threshold
    FIRE's u for one key changes from query to query, so no bias can be kept; CoPE's count of an old key changes when
    the new query's gates differ."""
    text, flat, main = _chapter_views()
    said = (
        "When generating text, KERPLE's bias, like ALiBi's, depends on the distance alone. FIRE reruns its MLP over"
        " every key for each new query past $L_{\\text{thr}}$, and CoPE recomputes every key's count for each new"
        " query."
    )
    assert said in " ".join(main.split())
    with torch.random.fork_rng():
        torch.manual_seed(0)
        kerple = KerpleBias(2)
        fire = FireBias(2, L_thr_init=16.0)
        cope = CoPE(8, npos_max=64)
    with torch.no_grad():
        bias = kerple.bias(40, 40)  # [heads, query, key]
        for dist in (0, 3, 17):
            diag = torch.diagonal(bias, offset=-dist, dim1=-2, dim2=-1)
            # one value per distance, at every query: each entry is the same float32 function of the same distance,
            # so they agree to float32 rounding (the kernels' vector lanes and tails may round the last bit apart)
            torch.testing.assert_close(diag, diag[:, :1].expand_as(diag), rtol=1e-6, atol=0)
        u = [float(fire.normalized_distance(torch.tensor([q]), torch.tensor([q - 5]))[0, 0]) for q in (31, 32, 33)]
        assert u[0] > u[1] > u[2]  # the key 5 back gets a new u from each later query: its bias is recomputed
        g = torch.Generator().manual_seed(1)
        q, k = torch.randn(2, 12, 8, generator=g)
        counts = cope.positions(q, k)  # [query, key]
        assert bool((counts[10, :5] != counts[11, :5]).all())  # keys 0-4 get new counts from the next query


def test_kerple_figure_draws_one_log_head_against_alibis_line():
    """Fix pass 273 (read r270a #2, overstated mild: the figure drew two more log heads, (2, 0.1) and (4, 0.02), and
    the sentence under it said their bias "falls almost like a straight line" near the query, a stretch of 1 and 5
    keys that the figure's 0-128 axis cannot show): one idea a figure. It draws the log head r1 = r2 = 1 and ALiBi's
    line of slope 1/8, in both panels; the sentence under it is gone (the cell now opens on "To remember:"), and the
    section's block describes the two small-r2 heads in words, as not drawn (test_kerple_weight_is_stated_relative_to_
    the_querys_own_token checks its wording and both sides of its 5 % claim). Fix pass 272's sentence, "In the figure,
    the orange and green log heads have a small $r_2$. Near the query, ...", is gone."""
    text, flat, main = _chapter_views()
    old = (
        "In the figure, the orange and green log heads have a small $r_2$. Near the query, their bias falls almost like"
        " a straight line, as ALiBi's does; the block above says how near."
    )
    assert old not in flat and "orange" not in text and "green" not in text
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    ids = [c.get("id") for c in cells]
    remember = " ".join("".join(cells[ids.index("r11m-kerple-remember")]["source"]).split())
    assert remember.startswith("To remember:")
    figure = "".join(cells[ids.index("r11m-kerple-remember") - 1]["source"])  # the figure, right above
    assert 'KerpleBias(1, kind="log", r1=1.0, r2=1.0)' in figure and "plt.show()" in figure
    assert figure.count("ax_bias.plot(") == figure.count("ax_weight.plot(") == 2  # the log head and ALiBi's line
    assert "fig.suptitle(\"KERPLE's log shape, one hand-set head, against ALiBi's line (dashed)\")" in figure
    block = collapsed(flat, "How far back the log head overtakes ALiBi, and chapter 8's trained heads")
    assert "such as $(r_1, r_2) = (2, 0.1)$ and $(4, 0.02)$, not drawn," in block
    # the outputs: the saved figure is the one this source draws (two lines a panel), checked on the executed cell
    fig_cell = cells[ids.index("r11m-kerple-remember") - 1]
    assert any("image/png" in o.get("data", {}) for o in fig_cell["outputs"])


def test_cope_logit_bias_takes_no_padding_or_document_mask():
    """Fix pass 272 (read r269a #9, omission: the chapter said the reference code masks the gates, not that posenc's
    CoPE cannot): the CoPE section's block, "posenc's `CoPE.logit_bias(q, k, *, causal)` takes no padding or document
    mask, so its counts also take in the gates on padding, as in this chapter's counting task, whose padding no mask
    hides." The signature has no mask argument, nor do `CoPE.positions` and the attention layer the counting task's
    model calls; a padding key between a key and the query adds its gate to that key's count. Fix pass 275 (read
    r272b #1, overstated: left padding, as in the counting task, lies before every label, so it enters no label's
    count): the block says what holds for tokens before a key (left padding, an earlier packed document) and for
    padding between a key and the query, each checked below."""
    import inspect

    from posenc.attention.multihead import MultiHeadAttention
    from posenc.experiments.counting import Counter

    flat = " ".join(chapter_markdown("11_learned_position").split())
    block = collapsed(flat, "How the reference code clamps, scales and shares, and why posenc's CoPE needs float32")
    said_r274 = (
        "posenc's `CoPE.logit_bias(q, k, *, causal)` takes no padding or document mask, so its counts also take in the"
        " gates on padding, as in this chapter's counting task, whose padding no mask hides."
    )
    assert said_r274 not in flat
    # fix pass 275 (read r272b #1): before a key, nothing enters its count; between a key and the query, unmasked
    # padding does; the counting task's left padding enters the padding keys' counts only
    before_key = (
        "A key's count sums the gates from that key up to the query, so no token before the key adds to it. Left"
        " padding, or an earlier document packed into the same input, thus adds no gate to a later key's count."
        " Unmasked, those tokens are still keys: they take some of the query's weight, and their own counts run on up"
        " to the query. Unmasked padding inside an input, between a key and the query, adds its gates to that key's"
        " count."
    )
    said = (
        "posenc's `CoPE.logit_bias(q, k, *, causal)` takes no padding or document mask. In this chapter's counting"
        " task, no mask hides the left padding: the padding keys' counts take in padding gates, and no label's count"
        " does."
    )
    assert before_key in block and said in block
    assert (
        block.index(before_key)
        < block.index("The reference code multiplies the gates by the attention mask")
        < block.index(said)
    )
    bias_sig = inspect.signature(CoPE.logit_bias)
    assert list(bias_sig.parameters) == ["self", "q", "k", "causal"]
    assert bias_sig.parameters["causal"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(CoPE.positions).parameters) == ["self", "q", "k", "causal"]
    assert list(inspect.signature(MultiHeadAttention.forward).parameters) == ["self", "x", "position_ids", "cache"]
    assert list(inspect.signature(Counter.forward).parameters) == ["self", "tokens"]
    # the counts take in every key's gate between a key and the query: change one key (a padding token's) and the
    # counts of the keys before it change, by that key's gate difference
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 1, 6, 8, generator=g), torch.randn(1, 1, 6, 8, generator=g)
    cope = CoPE(8, npos_max=8)
    padded = k.clone()
    padded[..., 2, :] = torch.randn(8, generator=g)  # key 2 stands for a padding token
    before, after = cope.positions(q, k, causal=True)[0, 0, -1], cope.positions(q, padded, causal=True)[0, 0, -1]
    gate = lambda kk: torch.sigmoid((q[0, 0, -1] @ kk[0, 0, 2]) / 8**0.5)  # noqa: E731
    torch.testing.assert_close(after[:3] - before[:3], (gate(padded) - gate(k)).expand(3))
    torch.testing.assert_close(after[3:], before[3:])
    # fix pass 275: tokens before a key (left padding, an earlier packed document: keys 0 to 2 here) add no gate to
    # its count, whatever they are, while their own counts run on to the query and they keep a share of its weight
    cope_w = CoPE(8, npos_max=8)
    with torch.no_grad():
        cope_w.pos_emb.normal_(generator=g)
    rows = []
    for trial in range(3):
        other = k.clone()
        other[..., :3, :] = torch.randn(3, 8, generator=g) * (1 + 4 * trial)  # another prefix each time
        rows.append(cope_w.positions(q, other, causal=True)[0, 0, -1])
        weight = (
            q[..., -1:, :] @ other.transpose(-1, -2) / 8**0.5 + cope_w.logit_bias(q, other, causal=True)[..., -1:, :]
        )
        assert bool((weight.softmax(-1)[0, 0, 0, :3] > 0).all())  # "they take some of the query's weight"
        assert bool((rows[-1][:3] >= rows[-1][3]).all())  # their counts take in every later gate
    for later in rows[1:]:
        torch.testing.assert_close(later[3:], rows[0][3:], rtol=0, atol=1e-6)  # float32 running sums
        assert not torch.allclose(later[:3], rows[0][:3], atol=1e-3)  # the prefix's own counts change with it


def test_counting_left_padding_enters_no_label_count_and_changes_no_distance():
    """Fix pass 275 (read r272b #1, overstated: "unmasked padding that only CoPE's gates can skip" and "CoPE's gates can
    (learn to) leave it out of their counts"): the counting task pads on the left (counting_batch right-aligns the
    sentences), so the padding lies before every label: "It lies before every label, so it enters no label's count and
    changes no distance to a label" (the counting section's block, the counting box's *Padding* bullet and the limits
    block). Checked on the task's batches, at both lengths, for a counter with CoPE and one with RoPE (float64; the
    counter's q and k depend on each token alone, one attention layer, so the gates are fixed): from the question, the
    logits of every key at or after the first label, and CoPE's counts there, are the same with and without the
    padding; the first token after the padding is a label; every padding key's count is above the first label's, as
    it takes in the padding gates after it. "The padding keys still take some of the question's weight, in both
    models": no mask, so the question's softmax gives the padding keys a positive share in both counters."""
    import inspect

    from posenc.experiments.counting import N_LABELS, PAD, Counter, counting_batch

    flat = " ".join(chapter_markdown("11_learned_position").split())
    before = "It lies before every label, so it enters no label's count and changes no distance to a label."
    assert flat.count(before) == 2 and flat.count("it enters no label's count and changes no distance to a label;") == 1
    assert "The padding keys still take some of the question's weight, in both models." in flat
    assert "its keys still take some of the question's weight in both models" in flat  # the limits block
    assert "Its keys still take some of the question's weight, in both models;" in flat  # the counting box
    assert flat.count("accuracy is not tested") == 3
    with torch.random.fork_rng():
        torch.manual_seed(0)
        counters = {"CoPE": Counter(CoPE(16, npos_max=16)).double(), "RoPE": Counter("rope").double()}
    with torch.no_grad():
        counters["CoPE"].attn.method.pos_emb.normal_(generator=torch.Generator().manual_seed(1))

    def q_and_k(model, tokens):  # the attention's q and k, as MultiHeadAttention.forward computes them
        attn, width = model.attn, tokens.shape[1]
        x = attn.method.encode_input(model.norm(model.embed(tokens)), torch.arange(width))
        q, k, _ = attn.qkv(x).view(1, width, 3, attn.n_heads, attn.head_dim).permute(2, 0, 3, 1, 4)
        return attn.method.rotate_qk(q, k, torch.arange(width))

    def question_row(model, tokens):  # the question's logits over every key and its softmax weights
        q, k = q_and_k(model, tokens)
        logits = q[..., -1:, :] @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        bias = model.attn.method.logit_bias(q, k, causal=True)
        return (logits if bias is None else logits + bias[..., -1:, :])[0, :, 0]  # [heads, keys]

    assert "mask" not in inspect.getsource(Counter.forward)
    padded_rows = 0
    with torch.no_grad():
        for sentences in (8, 16):
            batch = counting_batch(32, sentences, torch.Generator().manual_seed(5))[0]
            for row in batch:
                first = int((row != PAD).int().argmax())
                assert (row[:first] == PAD).all() and int(row[first]) < N_LABELS  # padding, then a label
                padded, bare = row[None], row[None, first:]
                padded_rows += first > 0
                cope = counters["CoPE"].attn.method
                counts = [cope.positions(*q_and_k(counters["CoPE"], t))[0, :, -1] for t in (padded, bare)]
                torch.testing.assert_close(counts[0][:, first:], counts[1], rtol=0, atol=1e-12)
                if first:
                    assert bool((counts[0][:, :first] > counts[0][:, first : first + 1]).all())
                for name, model in counters.items():
                    with_pad, without = question_row(model, padded), question_row(model, bare)
                    # RoPE's cos and sin tables are float32: a key's angle at another absolute position rounds
                    # differently, about 1e-7 here; a changed distance would move a logit by far more
                    torch.testing.assert_close(
                        with_pad[:, first:], without, rtol=0, atol=1e-12 if name == "CoPE" else 1e-6
                    )
                    if first:
                        assert bool((with_pad.softmax(-1)[:, :first].sum(-1) > 0).all()), name
                    # the control: the same padding token put between the first label and the question moves that
                    # label one token farther back and adds its gate to the label's count, so the check can fail
                    # (for CoPE, its count: a count past P - 1 is clamped, so the logit may not move)
                    inside = torch.cat([bare[:, :1], torch.tensor([[PAD]]), bare[:, 1:]], 1)
                    if name == "CoPE":
                        moved = cope.positions(*q_and_k(model, inside))[0, :, -1, 0] - counts[1][:, 0]
                    else:
                        moved = question_row(model, inside)[:, 0] - without[:, 0]
                    assert float(moved.abs().min()) > 1e-4, name
    assert padded_rows == 64


def test_shared_scale_figure_says_what_flattens_it_and_where_fires_lift_shows():
    """Fix pass 272 (read r269b #4, unclear: one vertical scale, set by ALiBi's steepest head, flattens T5's, KERPLE's
    and FIRE's panels, so FIRE's lift that the text above discusses cannot be seen): the FIRE section's figure already
    draws that lift for one trained head (queries 63 and 511, distances 0 to 63, its title "A later query lifts the
    bias of every key 1 to 63 back"), so no second figure; the text above the four-panel figure says why the scale
    flattens those panels and points there, and the figure's title names what sets the scale. Rebuilt here: ALiBi's
    steepest head, slope 1/4, reaches -127.75 at 511 and sets the lower limit; each other panel's curves span less
    than an eighth of the shared range.

    Fix pass 280 (reads r276a #7 and r276b #5, unclear: on that scale three of four panels looked flat, so the figure
    showed little): one shared scale still, fitted to T5's, KERPLE's and FIRE's curves with a margin of a twentieth,
    so their shapes show; ALiBi's two steeper heads run off its bottom. Rebuilt here: KERPLE's and FIRE's widest heads
    each span over half the scale, and ALiBi's heads of slope 1/4 and 1/16 fall below it, those of 1/64 and 1/256
    stay inside."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from posenc.explorers.catalog import LearnedBiasExplorer

    text, flat, main = _chapter_views()
    said = (
        "The figure below draws chapter 8's heads for four methods, seen from the last query. One vertical scale lets"
        # fix pass 283 (read r279a #3, overstated: T5's heads vary by about 2.5 logits on the shared scale, so its shape
        # barely shows): "so KERPLE's and FIRE's shapes show; T5's steps stay small on it" (T5's span checked below)
        " their sizes compare. It fits T5's, KERPLE's and FIRE's curves, so KERPLE's and FIRE's shapes show; T5's steps"
        " stay small on it. ALiBi's two steeper"
        " heads run off the bottom of it. FIRE's lift shows in the FIRE section's figure of a trained head, drawn from"
        " queries 63 and 511 over the 64 nearest keys."
    )
    assert "look flat" not in text
    assert main.count(said) == 1
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells]
    at = next(i for i, src in enumerate(sources) if " ".join(src.split()).endswith(said))
    assert "LearnedBiasExplorer().widget()" in sources[at + 1]  # the explorer, then the four panels
    panels_src = sources[at + 2]
    assert "static_companion" in panels_src and "ALiBi's two steeper heads run off the bottom" in panels_src
    assert "one vertical scale set by ALiBi's steepest head" not in panels_src
    fire_src = sources[[c.get("id") for c in cells].index("r11-fire-trained")]
    # fix pass 285 (read r280a #3, unclear: the title read as covering every head): "In this head"
    assert 'ax.set_title(f"In this head, a later query lifts the bias of every key 1 to {L8 - 1} back"' in fire_src
    assert "ax.set(xlim=(0, L8 - 1)" in fire_src and "fire_bias[n8][layer][head][:L8]" in fire_src
    assert "fire_bias[str(L8)][layer][head]" in fire_src
    config, *_ = saved_run()
    assert (config["train_length"] - 1, config["eval_lengths"][-1] - 1) == (63, 511)
    fig = LearnedBiasExplorer.static_companion([{"method": m} for m in ("t5", "alibi", "kerple", "fire")], ncols=2)
    try:
        panel = dict(zip(("t5", "alibi", "kerple", "fire"), fig.axes))
        heads = {
            m: [line.get_ydata() for line in ax.lines if line.get_label().startswith("head")] for m, ax in panel.items()
        }
        assert all(len(v) == config["model"]["n_heads"] == 4 for v in heads.values())
        three = [y for m in ("t5", "kerple", "fire") for curve in heads[m] for y in curve]
        margin = (max(three) - min(three)) / 20  # the figure's cell: the scale fitted to these three, a 5 % margin
        low, high = min(three) - margin, max(three) + margin
        assert "margin = (max(three) - min(three)) / 20" in panels_src and "ax.set_ylim(low, high)" in panels_src
        # fix pass 283: "T5's steps stay small on it": T5's widest head spans under a quarter of the scale
        assert max(curve.max() - curve.min() for curve in heads["t5"]) < (high - low) / 4
        for m in ("kerple", "fire"):  # "their shapes show": each method's widest head spans over half the scale
            assert max(curve.max() - curve.min() for curve in heads[m]) > (high - low) / 2, m
        steepest = -alibi_slopes(config["model"]["n_heads"])[0].item() * (config["eval_lengths"][-1] - 1)
        assert steepest == -127.75 and min(heads["alibi"][0]) == steepest < low
        # fix pass 281 (read r277b #7, unclear: the figure hid how far ALiBi's steepest head falls): the title gives
        # its value at the last key, from the cell's own `steepest` and `lengths`: "−127.75 at 511 back"
        title = 'f"the steepest reaches \\N{MINUS SIGN}{-steepest:.2f} at {lengths[-1] - 1} back"'
        assert title in panels_src and "steepest = -posenc.alibi_slopes(n_heads)[0].item() * (lengths[-1] - 1)" in (
            panels_src
        )
        last = config["eval_lengths"][-1] - 1
        assert f"the steepest reaches \N{MINUS SIGN}{-steepest:.2f} at {last} back" == (
            "the steepest reaches −127.75 at 511 back"
        )
        # "ALiBi's two steeper heads run off the bottom": slopes 1/4 and 1/16 below the scale, 1/64 and 1/256 inside
        assert [curve.min() < low for curve in heads["alibi"]] == [True, True, False, False]
        assert [curve.max() <= high for curve in heads["alibi"]] == [True] * 4
    finally:
        plt.close(fig)


def test_kerple_and_fire_biases_enter_after_the_scaling():
    """Fix pass 273 (read r270b #9, omission minor: the chapter said where CoPE's position logit meets the 1/sqrt(d_h)
    scaling, not where KERPLE's and FIRE's biases do): the CoPE block's paragraph, "posenc adds KERPLE's and FIRE's
    biases undivided: its attention passes them to PyTorch's `scaled_dot_product_attention` as `attn_mask`, which adds
    them to q_i . k_j / sqrt(d_h). KERPLE's official code, with its default settings, also adds its bias after that
    division." posenc's order, tested here: MultiHeadAttention's output with either method equals
    softmax(q k^T / sqrt(d_h) + bias) v from its own projections and the method's logit_bias, and differs from the
    order that divides the bias too. KERPLE's official code (chijames/KERPLE, megatron/model/transformer.py) computes
    the scores with baddbmm(alpha=1 / norm_factor), norm_factor = sqrt(d_h) unless apply_query_key_layer_scaling,
    default False in its neox_args.py, then applies the bias (self.rpe(attention_scores)); read from the repository,
    not tested here."""
    from posenc.attention.multihead import MultiHeadAttention

    text, flat, main = _chapter_views()
    said = (
        "posenc adds KERPLE's and FIRE's biases undivided: its attention passes them to PyTorch's"
        " `scaled_dot_product_attention` as `attn_mask`, which adds them to $q_i \\cdot k_j / \\sqrt{d_h}$. KERPLE's"
        " official code, with its default settings, also adds its bias after that division."
    )
    block = collapsed(flat, "How the reference code clamps, scales and shares, and why posenc's CoPE needs float32")
    assert said in block and flat.count(said) == 1
    d_model, n_heads, n = 32, 4, 12
    d_h = d_model // n_heads
    for position in ("kerple", "fire"):
        with torch.random.fork_rng():
            torch.manual_seed(0)
            attn = MultiHeadAttention(d_model, n_heads, position, max_len=8).double()
            x = torch.randn(2, n, d_model, dtype=torch.float64)
        with torch.no_grad():
            q, k, v = attn.qkv(x).view(2, n, 3, n_heads, d_h).permute(2, 0, 3, 1, 4)
            bias = attn.method.logit_bias(q, k, causal=True)  # [1, h, n, n], -inf above the diagonal
            assert bias.shape == (1, n_heads, n, n) and bias[..., 1:, :-1].tril().abs().max() > 0.1
            ys = {}
            for name, scores in (
                ("after", q @ k.transpose(-1, -2) / d_h**0.5 + bias),
                ("divided", (q @ k.transpose(-1, -2) + bias) / d_h**0.5),
            ):
                y = scores.softmax(-1) @ v
                ys[name] = attn.out(y.transpose(1, 2).reshape(2, n, d_model))
            out = attn(x)
        torch.testing.assert_close(out, ys["after"], rtol=1e-10, atol=1e-10)
        assert (out - ys["divided"]).abs().max() > 1e-3, position


def test_sink_leaves_a_keys_ratio_to_the_query_s_own_token_unchanged():
    """Fix pass 279 (read r275b #9, omission: the KERPLE section compares a key's weight with the query's own token's,
    while recent models put much weight on an attention sink): its block says "A sink takes a share of the row from
    every other key, but it leaves a key's ratio to the query's own token unchanged." Checked with softmax: a large
    logit on the first key lowers every other key's share and leaves the ratio of any two other keys' weights as it
    was."""
    text = " ".join(chapter_markdown("11_learned_position").split())
    kerple_block = collapsed(text, "How far back the log head overtakes ALiBi, and chapter 8's trained heads")
    assert (
        "This comparison is against the query's own token. Many recent models put much of a head's weight on an early"
        " token, often the first, an *attention sink* ([chapter 10](10_rope_today.ipynb)); this comparison does not"
        " model one. A sink takes a share of the row from every other key, but it leaves a key's ratio to the query's"
        " own token unchanged." in kerple_block
    )
    logits = -torch.arange(1, 65, dtype=torch.float64).log1p()  # a log head's biases, key 63 back first ... own token
    logits[-1] = 0.0
    with_sink = logits.clone()
    with_sink[0] = 8.0  # the first token as a sink
    plain, sunk = torch.softmax(logits, -1), torch.softmax(with_sink, -1)
    assert (sunk[1:] < plain[1:]).all() and sunk[0] > 0.5
    torch.testing.assert_close(sunk[1:-1] / sunk[-1], plain[1:-1] / plain[-1])


def test_fire_left_padded_row_needs_positions_from_its_first_real_token():
    """Fix pass 281 (read r277a #7, omission: FIRE with left-padded batched generation): the FIRE block's "**Left-padded
    batches.** In batched generation, a row padded on the left must count positions from its first real token;
    otherwise the pads move the query's position, and past $L_{\\text{thr}}$ they change $u$. `FireBias.bias` reads
    positions from the index in the input, so such a row needs `FireBias.bias_at` with its own positions." Checked
    with FireBias at the section's starting values (|c| = 0.1, L_thr = 16): a row of 40 real tokens after 5 pads gets,
    from `bias`, other biases on its real keys than alone; `bias_at` with positions counted from its first real token
    gives the row's own; below the threshold the pads change nothing."""
    text, flat, main = _chapter_views()
    said = (
        "- **Left-padded batches.** In batched generation, a row padded on the left must count positions from its first"
        " real token; otherwise the pads move the query's position, and past $L_{\\text{thr}}$ they change $u$."
        " `FireBias.bias` reads positions from the index in the input, so such a row needs `FireBias.bias_at` with its"
        " own positions."
    )
    assert flat.count(said) == 1 and said not in main
    assert said in collapsed(flat, "How we know: the range of u, the worked values, and u in bfloat16")
    assert "positions" not in inspect.signature(FireBias.bias).parameters  # it reads them from the index
    assert list(inspect.signature(FireBias.bias_at).parameters) == ["self", "query_pos", "key_pos"]
    torch.manual_seed(0)
    fire = FireBias(2, L_thr_init=16.0)
    with torch.no_grad():
        for real, pads in ((40, 5), (10, 5)):  # past the threshold, then below it (query 14 at most, L_thr 16)
            alone = fire.bias(real)[:, -1]  # [h, T]: the row's last query, unpadded
            padded = fire.bias(real + pads)[:, -1, pads:]  # the same query's real keys, positions from the index
            own = torch.arange(real)
            counted = fire.bias_at(own[-1:], own)[:, 0]  # positions from the row's first real token
            torch.testing.assert_close(counted, alone)
            pad_u = fire.normalized_distance(torch.tensor([real + pads - 1.0]), torch.arange(pads, real + pads).float())
            own_u = fire.normalized_distance(own[-1:].float(), own.float())
            if real + pads - 1 > 16:  # "past L_thr they change u"
                assert not torch.allclose(padded, alone) and bool((pad_u[0, :-1] < own_u[0, :-1]).all())
            else:  # both queries below the threshold: the divisor is psi(L_thr) for each
                torch.testing.assert_close(padded, alone)
                torch.testing.assert_close(pad_u, own_u)


# fix pass 282 (read r278b #2, unclear: the main line never said what "a random distance" is): one main-line sentence,
# checked on posenc's PasskeyCorpus at the table's length, 8L
random_distance_282 = "A random distance is 1 to 510 tokens back, each equally likely."


def test_random_distance_is_uniform_from_1_to_510_back():
    """Chapter 8's section, main line: "A random distance is 1 to 510 tokens back, each equally likely." At 8L, the
    table's length, PasskeyCorpus.sample_probe with no distance draws the passkey's distance from distances(8L); here
    10,200 draws cover each distance 1 to 510, none outside, with a mean near 255.5 and a chi-square against the
    uniform counts within the range of 509 degrees of freedom."""
    text, flat, main = _chapter_views()
    assert _ch8_main(main).count(random_distance_282) == 1
    assert setup_279.endswith(random_distance_282) and main.index(setup_279) < main.index("| KERPLE, log shape |")
    config, _, _, corpus = saved_run()
    eight_l = config["eval_lengths"][-1]
    assert eight_l == 8 * config["train_length"] == 512 and corpus.distances(eight_l) == (1, 510)
    gen = torch.Generator().manual_seed(0)
    drawn = torch.cat([corpus.sample_probe(2040, eight_l, generator=gen).distance for _ in range(5)])
    counts = torch.bincount(drawn, minlength=512)
    assert counts[0] == 0 and counts[511:].sum() == 0 and (counts[1:511] > 0).all()  # 1 to 510, each one drawn
    expected = len(drawn) / 510  # 20 draws per distance if uniform
    chi2 = ((counts[1:511] - expected) ** 2 / expected).sum().item()  # 509 degrees of freedom: about 509 +- 32
    assert (
        abs(drawn.double().mean().item() - 255.5) < 6 and chi2 < 650
    )  # uniform; a linear tilt from 2 to 1 adds about 380


# fix pass 282 (read r278b #6, omission: chapter 11 never tied CoPE's open-gate case to chapter 3's Shaw et al.): one
# block sentence, checked on posenc's CoPE with every gate forced open against Shaw's key term on chapter 3's labels
shaw_282 = (
    "With $P$ embeddings $e[0]$ to $e[P - 1]$, defined below, CoPE's position term"
    " $q \\cdot e[\\min(\\lvert j - i\\rvert + 1, P - 1)]$ would then read one learned vector per clipped distance,"
    ' like the relative key vectors of [Shaw et al. 2018](https://arxiv.org/abs/1803.02155 "cite:shaw2018relative") in'
    " [chapter 3](03_relative.ipynb), shifted by one."
)


def test_all_open_cope_is_shaws_key_term_shifted_by_one():
    """The block "Where counts start with other gates": with every gate open, CoPE's position logit for key j of query
    i is q_i . e[min(|j - i| + 1, P - 1)] / sqrt(d), which is Shaw's key term q_i . w^K[clip(j - i, k) + k] / sqrt(d)
    (chapter 3's labels, posenc.shaw_relative_index) with k = P - 2 and w^K[k - m] = e[m + 1]: one vector per
    distance clipped at k, read one embedding later. Checked on posenc's CoPE in float64, 12 keys past P = 6, so the
    clip is reached; chapter 3 teaches Shaw's relative key vectors under the same citation."""
    text, flat, main = _chapter_views()
    block = collapsed(flat, "Where counts start with other gates")
    assert block.count(shaw_282) == 1 and shaw_282 not in main
    chapter3 = chapter_markdown("03_relative")
    assert "## Shaw et al.: relative keys and values" in chapter3 and "cite:shaw2018relative" in chapter3
    assert "learned vectors looked up by the clipped distance" in chapter3
    gen = torch.Generator().manual_seed(0)
    d, n, P = 4, 12, 6
    cope = CoPE(d, npos_max=P)
    with torch.no_grad():
        cope.pos_emb.normal_(generator=gen)
    q = torch.rand(1, 1, n, d, generator=gen, dtype=torch.float64) + 0.5
    k = 100 * (torch.rand(1, 1, n, d, generator=gen, dtype=torch.float64) + 0.5)  # q . k / sqrt(d) >= 50
    assert (cope._gates(q, k) == 1).all()  # every gate open: sigmoid(50) is 1 in float64
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    past = j <= i
    assert torch.equal(cope.positions(q, k)[0, 0][past], (i - j + 1).expand(n, n)[past].double())  # distance + 1
    with torch.no_grad():
        bias = cope.logit_bias(q, k, causal=True)[0, 0]
    clip = P - 2
    emb = cope.pos_emb.detach().double().T  # [P, d]: e[0] .. e[P - 1]
    w_key = torch.zeros(2 * clip + 1, d, dtype=torch.float64)  # Shaw's table, labels 0 .. 2k; later keys unused here
    for m in range(clip + 1):
        w_key[clip - m] = emb[m + 1]  # label k - m, the key m back (or k or more back at m = k): e[m + 1]
    labels = posenc.shaw_relative_index(n, clip)  # [L, L]: clip(j - i, k) + k
    shaw_key = (q[0, 0] @ w_key.T / d**0.5).gather(-1, labels)  # q_i . w^K[label_ij] / sqrt(d)
    torch.testing.assert_close(bias[past], shaw_key[past], rtol=1e-12, atol=1e-12)
    assert (i - j)[past].max() > clip  # some keys lie past the clip, sharing e[P - 1]


def _cell_output(marker: str) -> str:
    """The saved text output of chapter 11's one code cell whose source contains marker."""
    notebook = pathlib.Path(__file__).parents[1] / "notebooks" / "11_learned_position.ipynb"
    cells = [c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    (cell,) = [c for c in cells if marker in "".join(c["source"])]
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def test_section_8l_table_is_at_8l_from_position_l():
    """Fix pass 285 (read r280b #1, unclear: the table's length and the loss's positions were unstated): "tests them
    on inputs of $8L$, 512 tokens" and "The loss covers positions $L$ and beyond": the saved run's longest length is
    8 x 64 = 512, and loss_beyond scores the last n - L positions of an n-token input, positions L to n - 1."""
    from posenc.experiments import passkey

    _, _, main = _chapter_views()
    assert "tests them on inputs of $8L$, 512 tokens, without further training." in main
    assert "The loss covers positions $L$ and beyond." in main
    config, *_ = saved_run()
    assert config["eval_lengths"][-1] == 8 * config["train_length"] == 512
    src = inspect.getsource(passkey)
    assert 'out["loss_beyond"][str(n)] = evaluate_lm(' in src and "length=n, batch=batch, last=n - L," in src


def test_fire_lift_share_in_the_main_line_is_the_appendix_cells():
    """Fix pass 285 (read r280b #3, unclear: the lift had no lesson on the main line): "at equal content scores, it
    cuts the two nearest tokens' share from about nine tenths to seven tenths", read from the appendix cell's printed
    shares (0.90 and 0.69 on the saved run)."""
    _, _, main = _chapter_views()
    # fix pass 286 (read r281b #2, unclear: the share is a softmax over the 64 nearest keys only): said on the main line
    # fix pass 288 (word budget): "it cuts" is "the lift cuts", the figure's sentence joined to this one
    assert (
        "the lift cuts the two nearest tokens' share of the 64 nearest keys from about nine tenths to seven tenths."
        in main
    )
    out = _cell_output("the FIRE section's figure cell asserts these shares")
    before, after = map(
        float, re.search(r"get (\d\.\d\d) of the weight .* and (\d\.\d\d) from query 511", out).groups()
    )
    assert round(before, 1) == 0.9 and round(after, 1) == 0.7


def test_cope_trained_own_gate_is_open():
    """Fix pass 285 (read r280b #4, unclear: counts were shown only from a closed own gate), fix pass 286 (reads r281a
    #1 and r281b #1, overstated: "about two thirds" was one seed's own gate, 0.35 to 0.97 over seeds): "A trained head
    may open it, so its counts need not start at 0", read from the counting cell's printed own gates, one per head:
    each above 0; a key's count at the query is its own gate alone."""
    _, flat, main = _chapter_views()
    # fix pass 287 (reads r282a #5 and r282b #7, unclear: a third own-gate caveat before the table): the main line
    # leaves it to the block under the table, which says a trained gate is a fraction (open in part)
    assert "A trained head may open it, so its counts need not start at 0." not in flat
    assert "A trained model's gate is a sigmoid of its query\u2013key score, a fraction, so its counts start at a" in (
        collapsed(flat, "Where counts start with other gates")
    )
    assert "about two thirds" not in main
    out = _cell_output("assert 0.5 < start < 1.5")
    gates = [float(g) for g in re.search(r"on its own token (\d\.\d\d) and (\d\.\d\d) per head", out).groups()]
    assert len(gates) == 2 and all(g > 0 for g in gates)


def test_released_learned_position_is_an_absolute_table_in_siglip_and_whisper():
    """Fix pass 285 (read r280b #6, omission: the learned position that released models use was block-only), fix pass
    286 (reads r281a #4 and r281b #6, overstated and unclear: "most" had no count in the text, and the sentence
    interrupted the opening): off the opening; the block "Which models use these methods" says it: "in transformers,
    SigLIP's vision encoder and Whisper's decoder have one."
    In transformers, SigLIP's vision and text embeddings and Whisper's decoder hold a learned nn.Embedding of positions
    (the encoder's table is frozen, a sinusoid)."""
    import transformers

    text, flat, main = _chapter_views()
    assert "Most of transformers' models that learn position" not in flat
    assert "in transformers, SigLIP's vision encoder and Whisper's decoder have one." in collapsed(
        flat, "Which models use these methods"
    )
    models = pathlib.Path(transformers.__file__).parent / "models"
    siglip = (models / "siglip" / "modeling_siglip.py").read_text()
    whisper = (models / "whisper" / "modeling_whisper.py").read_text()
    assert siglip.count("self.position_embedding = nn.Embedding(") == 2  # vision and text towers
    assert "class WhisperPositionalEmbedding(nn.Embedding):" in whisper
    decoder = whisper[whisper.index("class WhisperDecoder(") :]
    decoder = decoder[: decoder.index("def forward")]
    assert "self.embed_positions = WhisperPositionalEmbedding(" in decoder and "requires_grad_(False)" not in decoder
