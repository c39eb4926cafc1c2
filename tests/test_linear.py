import pytest
import torch

import posenc
from posenc.attention.linear import kernel_attention, linear_attention
from posenc.measure import shaw_peak_memory

q4 = torch.randn(2, 3, 5, 4)
rope4 = (*posenc.rope_cos_sin(5, 4), "half")
NAN = float("nan")

LINEAR_BAD_CALLS = [
    # leading dimensions, dtypes and devices that used to reach torch's own errors
    (lambda: posenc.linear_attention(q4, torch.randn(3, 3, 5, 4), q4), ValueError, "q, k and v"),
    (lambda: posenc.linear_attention(q4, q4, torch.randn(3, 3, 5, 4), causal=True), ValueError, "q, k and v"),
    (lambda: posenc.kernel_attention(q4, q4, torch.randn(3, 3, 5, 4)), ValueError, "q, k and v"),
    (lambda: posenc.linear_attention(q4, q4.double(), q4), TypeError, "k must have q's dtype"),
    (lambda: posenc.linear_attention(q4, q4, q4.double(), causal=True), TypeError, "v must have q's dtype"),
    (lambda: posenc.kernel_attention(q4.double(), q4.double(), q4), TypeError, "v must have q's dtype"),
    (lambda: posenc.linear_attention(q4, q4.to("meta"), q4), ValueError, "k must be on q's device"),
    (
        lambda: posenc.kernel_attention(q4, q4, q4, weight=torch.ones(5, 5, device="meta")),
        ValueError,
        "weight must be on q's device",
    ),
    (
        lambda: posenc.linear_attention(q4, q4, q4, rope_q=(rope4[0].to("meta"), rope4[1], "half"), rope_k=rope4),
        ValueError,
        "rope_q's cos and sin must be on",
    ),
    (lambda: posenc.linear_attention(q4[0, 0, 0], q4, q4), ValueError, "q must have at least 2"),
    (lambda: posenc.linear_attention(q4, q4, q4, causal="yes"), TypeError, "causal"),  # used to be read as True
    (lambda: posenc.kernel_attention(q4, q4, q4, causal=None), TypeError, "causal"),
    (lambda: posenc.kernel_attention(q4, q4, q4[..., :3, :]), ValueError, "q, k, v"),
    (lambda: posenc.kernel_attention(q4, q4[..., :3, :], q4[..., :3, :], causal=True), ValueError, "q_len <= k_len"),
    # the weight: shape, broadcasting, values
    (lambda: posenc.kernel_attention(q4, q4, q4, weight=torch.ones(7, 5, 5)), ValueError, "weight"),
    (lambda: posenc.kernel_attention(q4, q4, q4, weight=torch.ones(5)), ValueError, "weight"),
    (lambda: posenc.kernel_attention(q4, q4, q4, weight=-torch.ones(5, 5)), ValueError, "weight must be >= 0"),
    (lambda: posenc.kernel_attention(q4, q4, q4, weight=torch.full((5, 5), NAN)), ValueError, "weight must be finite"),
    (lambda: posenc.kernel_attention(q4, q4, q4, weight=[[1.0]]), TypeError, "weight"),
    # the feature map
    (lambda: posenc.linear_attention(q4, q4, q4, feature_map="elu"), TypeError, "feature_map"),
    (lambda: posenc.linear_attention(q4, q4, q4, feature_map=lambda x: x.sum(-2)), ValueError, "feature_map"),
    (lambda: posenc.kernel_attention(q4, q4, q4, feature_map=lambda x: x.double()), ValueError, "feature_map"),
    (lambda: posenc.linear_attention(q4, q4, q4, feature_map=lambda x: x.tolist()), ValueError, "feature_map"),
    (
        lambda: posenc.linear_attention(
            q4, q4, q4, feature_map=lambda x: torch.cat([x, x], -1), rope_q=rope4, rope_k=rope4
        ),
        ValueError,
        "feature_map",
    ),
    (lambda: posenc.elu_feature_map([1.0]), TypeError, "x must be a torch.Tensor"),
    (lambda: posenc.elu_feature_map(torch.ones(3, dtype=torch.long)), TypeError, "x must be a floating"),
    # the RoPE tables
    (lambda: posenc.linear_attention(q4, q4, q4, rope_q=rope4[:2], rope_k=rope4), TypeError, "rope_q"),
    (
        lambda: posenc.kernel_attention(q4, q4, q4, rope_q=rope4, rope_k=(*posenc.rope_cos_sin(4, 4), "half")),
        ValueError,
        "rope_k's cos",
    ),
    # huge: the prefix sums of a feature map that widens the features, 8 to 32768 (a view: the width alone
    # sets the size refused; x.repeat built 2.6 GB of features first, 1.5 s of CPU each time the case runs)
    (
        lambda: posenc.linear_attention(
            *[torch.zeros(1, 10**4, 8)] * 3, causal=True, feature_map=lambda x: x[..., :1].expand(1, 10**4, 32768)
        ),
        ValueError,
        "k of shape",
    ),
]


@pytest.mark.parametrize("call,exc,name", LINEAR_BAD_CALLS, ids=[f"bad{i}" for i in range(len(LINEAR_BAD_CALLS))])
def test_bad_input_raises_an_error_naming_the_argument(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value)


@pytest.mark.parametrize("where", ["q", "k", "v"])
def test_a_nan_after_the_query_stays_out_of_earlier_causal_rows(where):
    # causal rows i < 3 never see position 3, so a NaN there must not reach them; in kernel_attention
    # a masked score used to be multiplied by 0 (nan * 0 = nan) and poisoned every row
    q, k, v = (torch.rand(1, 2, 6, 4, dtype=torch.float64) for _ in range(3))
    {"q": q, "k": k, "v": v}[where][..., 3, 0] = NAN
    lin = linear_attention(q, k, v, causal=True)
    assert not lin[..., :3, :].isnan().any() and lin[..., 3, :].isnan().any(-1).all()
    if where != "v":  # a NaN value still meets a 0 weight inside the product with v (as SDPA's math path)
        ker = kernel_attention(q, k, v, causal=True)
        assert not ker[..., :3, :].isnan().any()
        torch.testing.assert_close(ker[..., :3, :], lin[..., :3, :])


def test_a_pair_of_weight_zero_is_left_out():
    q, k, v = (torch.rand(1, 5, 4, dtype=torch.float64) for _ in range(3))
    weight = torch.ones(5, 5, dtype=torch.float64)
    weight[:, 4] = 0.0
    want = kernel_attention(q, k[:, :4], v[:, :4])
    torch.testing.assert_close(kernel_attention(q, k, v, weight=weight), want)
    k[:, 4] = float("inf")  # a key left out by its weight: an inf score there does not reach the rows
    torch.testing.assert_close(kernel_attention(q, k, v, weight=weight), want)


def test_leading_dimensions_broadcast():
    # valid unusual input: one query set for every batch entry, one weight for every head
    q = torch.randn(1, 3, 6, 4, dtype=torch.float64)
    k, v = (torch.randn(2, 3, 6, 4, dtype=torch.float64) for _ in range(2))
    for causal in (False, True):
        torch.testing.assert_close(
            linear_attention(q, k, v, causal=causal), linear_attention(q.expand(2, 3, 6, 4), k, v, causal=causal)
        )
    weight = torch.rand(3, 6, 6, dtype=torch.float64)
    torch.testing.assert_close(
        kernel_attention(q, k, v, weight=weight),
        kernel_attention(q.expand(2, 3, 6, 4), k, v, weight=weight.expand(2, 3, 6, 6)),
    )


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("L,d", [(1, 4), (9, 8), (33, 16)])
def test_linear_equals_quadratic_kernel_attention(causal, L, d):
    q, k, v = (torch.randn(2, 3, L, d, dtype=torch.float64) for _ in range(3))
    torch.testing.assert_close(linear_attention(q, k, v, causal=causal), kernel_attention(q, k, v, causal=causal))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_linear_attention_with_rope_matches_quadratic(causal, layout):
    L, d = 12, 8
    q, k, v = (torch.randn(1, 2, L, d, dtype=torch.float64) for _ in range(3))
    cos, sin = posenc.rope_cos_sin(L, d, layout=layout, dtype=torch.float64)
    rope = (cos, sin, layout)
    torch.testing.assert_close(
        linear_attention(q, k, v, causal=causal, rope_q=rope, rope_k=rope),
        kernel_attention(q, k, v, causal=causal, rope_q=rope, rope_k=rope),
    )


def test_shaw_memory_of_the_naive_form_is_above_the_efficient_one():
    """The naive form's count comes from the fresh process ``shaw_peak_memory`` starts; the efficient form's
    from the same runner called here (``_shaw_run``: the function that process runs; its count of the tensors
    one call creates does not depend on the process, and one process start less saves 3.5 CPU-s)."""
    # (median_seconds is checked on a fake clock in tests/test_measure.py: no test compares wall-clock times)
    from posenc.measure.costs import _shaw_run

    naive = shaw_peak_memory("naive", 256, heads=1, head_dim=32, k=4)
    eff = _shaw_run("efficient", 256, heads=1, head_dim=32, k=4)
    assert set(naive) == set(eff) == {"peak_mib", "seconds"}
    assert naive["peak_mib"] > eff["peak_mib"]
    with pytest.raises(ValueError, match="method"):
        shaw_peak_memory("fast", 8)


def test_attention_cost_measures_in_a_subprocess():
    """The fresh process's count sees what the forward allocates: ALiBi's forward, counted in the process
    ``attention_cost`` starts, holds its float32 [heads, L, L] bias at once with everything NoPE's holds
    (counted here by the runner that process runs, ``_attention_run``: the count of the tensors one forward
    creates does not depend on the process), and both at least their [1, L, d_model] output."""
    from posenc.measure import attention_cost
    from posenc.measure.costs import _attention_run

    heads, head_dim, length = 2, 16, 64
    alibi = attention_cost("alibi", length, heads=heads, head_dim=head_dim, repeat=1)
    none = _attention_run("none", length, heads=heads, head_dim=head_dim, repeat=1)
    assert set(alibi) == set(none) == {"peak_mib", "seconds"}
    bias_bytes, output_bytes = heads * length * length * 4, length * heads * head_dim * 4
    assert none["peak_mib"] * 2**20 >= output_bytes
    assert (alibi["peak_mib"] - none["peak_mib"]) * 2**20 >= bias_bytes
    with pytest.raises(ValueError, match="method"):
        attention_cost("xpos", 64)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 5, 7), (16, 8, 4)])
def test_matmul_flops_counts_multiply_adds(m, n, k):
    from posenc.measure import matmul_flops

    a, b = torch.randn(m, k), torch.randn(k, n)
    assert matmul_flops(lambda: a @ b) == 2 * m * n * k
    assert matmul_flops(lambda: a + 1) == 0  # element-wise work is not counted


def test_saved_benchmarks_name_their_machine():
    from posenc.measure import RESULTS_DIR, describe_machine, load_results

    names = sorted(p.stem[len("bench_") :] for p in RESULTS_DIR.glob("bench_*.json"))
    assert {"attention", "linear", "rope", "shaw"} <= set(names)
    for name in names:
        saved = load_results(name)
        assert set(saved) == {"machine", "settings", "results"}
        assert str(saved["machine"]["cores"]) in describe_machine(saved["machine"])
    with pytest.raises(ValueError, match="name"):
        load_results("warp_drive")
