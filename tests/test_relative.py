import pytest
import torch

import posenc
from posenc import (
    T5RelativeBias,
    relative_positions,
    shaw_attention,
    shaw_attention_naive,
    shaw_relative_index,
    t5_relative_bucket,
)


@pytest.mark.parametrize("q_len,k_len", [(1, 1), (4, 4), (3, 7), (1, 9)])
def test_relative_positions_align_queries_at_end(q_len, k_len):
    rel = relative_positions(q_len, k_len)
    assert rel.dtype == torch.int64 and rel.shape == (q_len, k_len)
    for i in range(q_len):
        for j in range(k_len):
            assert rel[i, j] == j - (i + k_len - q_len)
    assert (rel[:, -1][-1] == 0).item()  # the last query sits on the last key


@pytest.mark.parametrize("k", [0, 1, 3, 50])
def test_shaw_index_clips(k):
    idx = shaw_relative_index(6, k, 10)
    rel = relative_positions(6, 10)
    assert torch.equal(idx, rel.clamp(-k, k) + k)
    assert idx.min() >= 0 and idx.max() <= 2 * k


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("q_len,k_len,k", [(1, 1, 2), (7, 7, 2), (5, 12, 3), (16, 16, 40)])
def test_efficient_shaw_equals_naive(causal, q_len, k_len, k):
    d = 8
    q = torch.randn(2, 3, q_len, d, dtype=torch.float64)
    kk = torch.randn(2, 3, k_len, d, dtype=torch.float64)
    v = torch.randn(2, 3, k_len, d, dtype=torch.float64)
    rk = torch.randn(2 * k + 1, d, dtype=torch.float64)
    rv = torch.randn(2 * k + 1, d, dtype=torch.float64)
    torch.testing.assert_close(
        shaw_attention(q, kk, v, rk, rv, causal=causal), shaw_attention_naive(q, kk, v, rk, rv, causal=causal)
    )


def test_shaw_with_zero_tables_is_plain_attention():
    q, k, v = (torch.randn(1, 2, 6, 4, dtype=torch.float64) for _ in range(3))
    z = torch.zeros(5, 4, dtype=torch.float64)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(shaw_attention(q, k, v, z, z), ref)


def test_shaw_gradients_flow_to_tables():
    m = posenc.ShawRelativePosition(4, 2)
    q, k, v = (torch.randn(1, 1, 5, 4) for _ in range(3))
    m(q, k, v).sum().backward()
    assert m.rel_k.grad.abs().sum() > 0 and m.rel_v.grad.abs().sum() > 0


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (16, 64), (8, 20)])
def test_t5_buckets_match_hugging_face(bidirectional, num_buckets, max_distance):
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    rel = torch.arange(-600, 601)
    got = t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    ref = t5.T5Attention._relative_position_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert torch.equal(got, ref)
    assert got.min() >= 0 and got.max() < num_buckets


def test_t5_buckets_monotone_in_distance():
    past = t5_relative_bucket(-torch.arange(0, 500), bidirectional=False)
    assert torch.all(past[1:] >= past[:-1])
    assert torch.all(t5_relative_bucket(torch.arange(1, 50), bidirectional=False) == 0)


def test_t5_bias_module_shape_and_values():
    m = posenc.T5RelativeBias(4, bidirectional=False)
    bias = m(5, 9)
    assert bias.shape == (4, 5, 9)
    buckets = t5_relative_bucket(relative_positions(5, 9), bidirectional=False)
    torch.testing.assert_close(bias[2], m.bias.weight[buckets, 2])


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("q_len,k_len", [(0, 0), (0, 3), (1, 1), (4, 4), (3, 9), (40, 200)])
def test_t5_bias_is_the_table_gathered_at_each_bucket(bidirectional, q_len, k_len):
    """Built from the L + T - 1 distances, the bias equals the table looked up pair by pair."""
    torch.manual_seed(0)
    t5 = T5RelativeBias(3, num_buckets=16, max_distance=64, bidirectional=bidirectional)
    rel = relative_positions(q_len, k_len)
    buckets = t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=16, max_distance=64)
    assert torch.equal(t5.buckets(q_len, k_len), buckets)
    bias = t5(q_len, k_len)
    assert bias.is_contiguous() and torch.equal(bias, t5.bias(buckets).permute(2, 0, 1))
    if q_len:
        bias.sum().backward()  # gradients reach the table: each bucket's count of pairs, per head
        counts = torch.bincount(buckets.flatten(), minlength=16).float()
        torch.testing.assert_close(t5.bias.weight.grad, counts[:, None].expand(16, 3))


_Q = torch.zeros(1, 2, 3, 4)
_TABLE = torch.zeros(5, 4)

#: Shaw attention's arguments refused with the argument named, before torch's own errors (a list's
#: missing ``element_size``, a matmul's "expected both to have the same dtype").
SHAW_BAD_CALLS = [
    (lambda: shaw_attention([[0.0] * 4] * 3, _Q, _Q, _TABLE, _TABLE), TypeError, "q must be a torch.Tensor"),
    (lambda: shaw_attention_naive([[0.0] * 4] * 3, _Q, _Q, _TABLE, _TABLE), TypeError, "q must be a torch.Tensor"),
    (lambda: shaw_attention(_Q, _Q.tolist(), _Q, _TABLE, _TABLE), TypeError, "k must be a torch.Tensor"),
    (lambda: shaw_attention(_Q, _Q, _Q, _TABLE.tolist(), _TABLE), TypeError, "rel_k must be a torch.Tensor"),
    (lambda: shaw_attention(_Q, _Q.double(), _Q, _TABLE, _TABLE), TypeError, "k must have q's dtype"),
    (lambda: shaw_attention(_Q, _Q, _Q.half(), _TABLE, _TABLE), TypeError, "v must have q's dtype"),
    (lambda: shaw_attention(_Q, _Q, _Q, _TABLE.double(), _TABLE), TypeError, "rel_k must have q's dtype"),
    (
        lambda: shaw_attention_naive(_Q.double(), _Q.double(), _Q.double(), _TABLE.double(), _TABLE),
        TypeError,
        "rel_v must have q's dtype",
    ),
    (lambda: shaw_attention(_Q, _Q, _Q, _TABLE, _TABLE, causal=1), TypeError, "causal must be a bool"),
    (lambda: shaw_attention(_Q, _Q, _Q, _TABLE, _TABLE, causal=torch.tensor(True)), TypeError, "causal"),
]


@pytest.mark.parametrize("call,exc,text", SHAW_BAD_CALLS, ids=[f"shaw{i}" for i in range(len(SHAW_BAD_CALLS))])
def test_shaw_bad_input_names_the_argument(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_shaw_under_autocast_takes_float32_tables(dtype):
    """Mixed dtypes are refused only outside autocast: there, autocast casts the products' operands."""
    q, table = torch.randn(1, 2, 5, 4), torch.randn(5, 4)
    low = q.to(dtype)
    with pytest.raises(TypeError, match="rel_k must have q's dtype"):
        shaw_attention(low, low, low, table, table)
    with torch.autocast("cpu", dtype=dtype):
        out = shaw_attention(low, low, low, table, table)
    ref = shaw_attention(low.float(), low.float(), low.float(), table, table)
    assert out.shape == ref.shape
    torch.testing.assert_close(out.float(), ref, rtol=0.05, atol=0.05)  # low-precision products
