import pytest
import torch

import posenc
from posenc.measure import median_seconds, shaw_peak_memory
from posenc.attention.linear import kernel_attention, linear_attention


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
    torch.testing.assert_close(linear_attention(q, k, v, causal=causal, rope_q=rope, rope_k=rope),
                               kernel_attention(q, k, v, causal=causal, rope_q=rope, rope_k=rope))


def test_median_seconds_and_shaw_memory():
    assert median_seconds(lambda: sum(range(100)), repeat=3, warmup=1) >= 0
    naive = shaw_peak_memory("naive", 256, heads=1, head_dim=32, k=4)
    eff = shaw_peak_memory("efficient", 256, heads=1, head_dim=32, k=4)
    assert set(naive) == {"peak_mib", "seconds"}
    assert naive["peak_mib"] > eff["peak_mib"]
    with pytest.raises(ValueError, match="method"):
        shaw_peak_memory("fast", 8)


def test_attention_cost_measures_in_a_subprocess():
    from posenc.measure import attention_cost

    cost = attention_cost("alibi", 64, heads=2, head_dim=16, repeat=1)
    assert cost["seconds"] > 0 and cost["peak_mib"] >= 0
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

    names = sorted(p.stem[len("bench_"):] for p in RESULTS_DIR.glob("bench_*.json"))
    assert {"attention", "linear", "rope", "shaw"} <= set(names)
    for name in names:
        saved = load_results(name)
        assert set(saved) == {"machine", "settings", "results"}
        assert str(saved["machine"]["cores"]) in describe_machine(saved["machine"])
    with pytest.raises(ValueError, match="name"):
        load_results("warp_drive")
