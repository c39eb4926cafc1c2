import math

import pytest
import torch

import posenc
from posenc import binary_encoding, book, integer_encoding, sinusoidal_encoding, sinusoidal_frequencies


@pytest.mark.parametrize("d_model", [2, 8, 64, 130])
@pytest.mark.parametrize("base", [10.0, 10000.0, 500000.0])
def test_sinusoidal_matches_float64_formula(d_model, base):
    pe = sinusoidal_encoding(257, d_model, base, dtype=torch.float64)
    assert pe.shape == (257, d_model)
    for p in (0, 1, 17, 256):
        for i in range(d_model // 2):
            angle = p / base ** (2 * i / d_model)
            assert pe[p, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)


@pytest.mark.parametrize("d_model", [4, 32, 128])
def test_sinusoidal_pairs_lie_on_unit_circle(d_model):
    pe = sinusoidal_encoding(300, d_model, dtype=torch.float64).view(300, d_model // 2, 2)
    torch.testing.assert_close(pe.norm(dim=-1), torch.ones(300, d_model // 2, dtype=torch.float64))


@pytest.mark.parametrize("k", [-7, 1, 5, 40])
@pytest.mark.parametrize("d", [2, 16, 64])
def test_sinusoidal_shift_is_a_fixed_rotation(k, d):
    pe = sinusoidal_encoding(200, d, dtype=torch.float64)
    m = posenc.sinusoidal_shift_matrix(k, d)
    a, b = (slice(0, 200 - k), slice(k, 200)) if k > 0 else (slice(-k, 200), slice(0, 200 + k))
    torch.testing.assert_close(pe[b], pe[a] @ m.T)
    torch.testing.assert_close(m @ m.T, torch.eye(d, dtype=torch.float64))
    # the counter-clockwise matrix is M_{-k}
    torch.testing.assert_close(posenc.sinusoidal_shift_matrix(-k, d), m.T)


def test_sinusoidal_dtype_device_and_empty():
    assert sinusoidal_encoding(0, 4).shape == (0, 4)
    assert sinusoidal_encoding(3, 4, dtype=torch.float16).dtype == torch.float16
    # angles are formed in float64: a bf16 table at large positions is the rounded true value
    pe16 = sinusoidal_encoding(60001, 8, dtype=torch.bfloat16)[-1].double()
    pe64 = sinusoidal_encoding(60001, 8, dtype=torch.float64)[-1]
    assert (pe16 - pe64).abs().max() < 2**-8


@pytest.mark.parametrize("method", ["pow", "exp_log"])
@pytest.mark.parametrize("d_model", [8, 512])
def test_frequency_methods_agree_in_float64(method, d_model):
    ref = torch.tensor([10000.0 ** (-2 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)
    torch.testing.assert_close(sinusoidal_frequencies(d_model, method=method), ref)


def test_integer_encoding():
    pe = integer_encoding(5, 3)
    assert pe.shape == (5, 3)
    assert torch.equal(pe[:, 0], torch.arange(5.0))
    norm = integer_encoding(5, normalize=True)[:, 0]
    assert norm[0] == 0 and norm[-1] == 1
    # normalised, the step between neighbours depends on the length
    assert integer_encoding(5, normalize=True)[1, 0] != integer_encoding(9, normalize=True)[1, 0]


@pytest.mark.parametrize("n", [1, 2, 7, 8, 100, 1024])
def test_binary_encoding_is_unique_and_decodes(n):
    bits = binary_encoding(n)
    weights = 2 ** torch.arange(bits.shape[1])
    assert torch.equal((bits.long() * weights).sum(1), torch.arange(n))
    assert set(bits.unique().tolist()) <= {0.0, 1.0}


def test_learned_embedding_lookup_and_limit():
    emb = posenc.LearnedPositionalEmbedding(16, 8)
    assert emb(10).shape == (10, 8)
    assert torch.equal(emb(torch.tensor([3, 3])), emb.weight[[3, 3]])
    with pytest.raises(ValueError, match="max_len=16"):
        emb(17)
    with pytest.raises(ValueError, match="positions"):
        emb(torch.tensor([16]))
    assert emb.weight.requires_grad


def test_properties_helpers():
    pe = posenc.sinusoidal_encoding(50, 8, dtype=torch.float64)
    assert book.first_repeat(pe) is None
    assert book.min_pairwise_distance(pe) > 0
    assert book.first_repeat(torch.tensor([[0.0], [1.0], [0.0], [1.0]])) == (0, 2)
    assert book.min_pairwise_distance(torch.tensor([[0.0], [3.0], [7.0]])) == 3.0
    m, b = book.shift_map(pe, 4)
    assert b is None and book.shift_map_residual(pe, 4) < 1e-9
    torch.testing.assert_close(pe[:-4] @ m.T, pe[4:])


def test_toy_embeddings_equal_tokens_equal_vectors():
    x = book.toy_embeddings("the dog chased another dog".split(), 16, seed=3)
    assert x.shape == (5, 16) and torch.equal(x[1], x[4]) and not torch.equal(x[0], x[1])
    assert torch.equal(x, book.toy_embeddings("the dog chased another dog".split(), 16, seed=3))
    assert book.toy_vocabulary(["b", "a", "b"]) == ["b", "a"]


@pytest.mark.parametrize("new_len", [2, 16, 31, 64])
def test_learned_resized_interpolates_rows(new_len):
    emb = posenc.LearnedPositionalEmbedding(16, 4)
    big = emb.resized(new_len)
    assert big.weight.shape == (new_len, 4)
    torch.testing.assert_close(big.weight[0], emb.weight[0])
    torch.testing.assert_close(big.weight[-1], emb.weight[-1])
    if new_len == 31:  # every other row is an original row, the rest midpoints
        torch.testing.assert_close(big.weight[::2], emb.weight.detach())
        torch.testing.assert_close(big.weight[1], (emb.weight[0] + emb.weight[1]).detach() / 2)


@pytest.mark.parametrize("d_model", [2, 16, 64])
def test_sinusoidal_encoding_at_matches_table_rows(d_model):
    table = sinusoidal_encoding(300, d_model, dtype=torch.float64)
    pos = torch.tensor([[0, 7, 299], [5, 5, 123]])
    torch.testing.assert_close(posenc.sinusoidal_encoding_at(pos, d_model, dtype=torch.float64), table[pos])
    assert posenc.sinusoidal_encoding_at(pos, d_model).dtype == torch.float32


@pytest.mark.parametrize("rows,cols", [(1, 1), (5, 5), (3, 8), (8, 3)])
def test_diagonal_spread_is_zero_exactly_for_functions_of_the_offset(rows, cols):
    torch.manual_seed(0)
    values = torch.randn(rows + cols - 1, dtype=torch.float64)  # one value per offset j - i
    offset = torch.arange(cols)[None, :] - torch.arange(rows)[:, None]
    toeplitz = values[offset + rows - 1]
    assert book.diagonal_spread(toeplitz) == 0.0  # the same numbers along each diagonal
    if rows > 1 and cols > 1:
        bumped = toeplitz.clone()
        bumped[1, 1] += 0.25  # the main diagonal now holds two different values
        assert book.diagonal_spread(bumped) == pytest.approx(0.25)
    assert book.diagonal_spread(torch.zeros(0, cols)) == 0.0


@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_attention_entropy_is_log_n_for_uniform_and_zero_for_one_hot(n):
    torch.testing.assert_close(
        book.attention_entropy(torch.zeros(3, n, dtype=torch.float64)),
        torch.full((3,), math.log(n), dtype=torch.float64),
    )
    one_hot = torch.full((n,), float("-inf"), dtype=torch.float64)
    one_hot[0] = 0.0
    assert book.attention_entropy(one_hot).item() == 0.0  # masked keys weigh 0, not NaN
    logits = torch.randn(5, n, dtype=torch.float64)
    assert torch.all(book.attention_entropy(2 * logits) <= book.attention_entropy(logits) + 1e-12)


def test_attention_entropy_bad_input():
    with pytest.raises(TypeError, match="logits"):
        book.attention_entropy(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="logits"):
        book.attention_entropy(torch.tensor(1.0))


def test_binary_code_shift_maps_exist_only_for_some_shifts():
    # chapter 1: carries make short shifts non-affine; a shift by a quarter or half of the table is exact
    table = binary_encoding(64, dtype=torch.float64)
    residual = {k: book.shift_map_residual(table, k, affine=True) for k in range(1, 64)}
    assert min(residual[k] for k in range(1, 16)) > 0.5
    assert residual[16] < 1e-9 and residual[32] < 1e-9
    assert [k for k in range(1, 40) if residual[k] < 1e-9] == [16, 32]


def test_pow_frequencies_in_float16_overflow_at_the_base_not_at_the_power():
    # chapter 2: 500000 is inf in float16, so every power is inf and every later frequency 0, although
    # the exact powers base ** (2i/d) pass float16's largest number only from i = 217 (d = 512)
    assert torch.tensor(500000.0, dtype=torch.float16).isinf()
    w16 = sinusoidal_frequencies(512, 500000.0, method="pow", dtype=torch.float16)
    assert w16[0] == 1 and (w16[1:] == 0).all()
    exact = 500000.0 ** (torch.arange(0, 512, 2, dtype=torch.float64) / 512)
    assert (exact > torch.finfo(torch.float16).max).nonzero()[0].item() == 217
    # base 10000 fits in float16: pow only loses precision; exp-log never overflows
    w16 = sinusoidal_frequencies(512, 10000.0, method="pow", dtype=torch.float16)
    assert torch.isfinite(w16).all() and (w16 > 0).all()
    assert (sinusoidal_frequencies(512, 500000.0, method="exp_log", dtype=torch.float16) > 0).all()


@pytest.mark.parametrize("base", [10000.0, 500000.0])
@pytest.mark.parametrize("d_model", [6, 64, 100, 512, 1000])
def test_float32_frequency_error_follows_the_exponent_rounding(d_model, base):
    # chapter 2's error analysis: each form's float32 error is the rounding error of its float32
    # exponent (pow: 2i/d times ln b; exp-log: -2i ln(b)/d), plus a few units 2^-24 from the kernels
    u = 2.0**-24
    ref = sinusoidal_frequencies(d_model, base)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    exponent_err = {
        "pow": ((two_i.float() / d_model).double() - two_i / d_model).abs() * math.log(base),
        "exp_log": ((two_i.float() * (-math.log(base) / d_model)).double() - two_i * (-math.log(base) / d_model)).abs(),
    }
    for method, predicted in exponent_err.items():
        w = sinusoidal_frequencies(d_model, base, method=method, dtype=torch.float32).double()
        measured = ((w - ref).abs() / ref).max().item()
        assert abs(measured - predicted.max().item()) < 3 * u
    if d_model & (d_model - 1) == 0:
        assert exponent_err["pow"].max() == 0  # 2i/d is exact when d is a power of two


@pytest.mark.parametrize("init_std", [0.0, 0.01, 0.02])
def test_learned_embedding_init_std(init_std):
    torch.manual_seed(0)
    emb = posenc.LearnedPositionalEmbedding(1024, 64, init_std=init_std)
    assert emb.weight.std().item() == pytest.approx(init_std, rel=0.02, abs=1e-12)
    torch.manual_seed(0)
    assert posenc.LearnedPositionalEmbedding(1024, 64).weight.std().item() == pytest.approx(0.02, rel=0.02)
    with pytest.raises(ValueError, match="init_std"):
        posenc.LearnedPositionalEmbedding(4, 4, init_std=-1.0)


def test_learned_resized_keeps_the_end_rows_unlike_timm():
    # posenc: linear, align_corners=True, end rows kept. timm's resample_abs_pos_embed: bicubic,
    # antialias=True, align_corners=False (reads row p at (p + 0.5) * L / L' - 0.5): end rows not kept
    torch.manual_seed(0)
    emb = posenc.LearnedPositionalEmbedding(8, 3)
    old = emb.weight.detach()
    big = emb.resized(16)
    torch.testing.assert_close(big.weight[[0, -1]], old[[0, -1]])
    grid = old.T[None, :, None, :]  # [1, d, 1, 8]: a one-row image, as timm resamples a 2-D grid
    timm_like = torch.nn.functional.interpolate(grid, size=(1, 16), mode="bicubic", antialias=True)[0, :, 0].T
    assert (timm_like[[0, -1]] - old[[0, -1]]).abs().max() > 1e-3


@pytest.mark.parametrize("d_model", [8, 64, 128])
def test_tensor2tensor_table_is_not_a_column_permutation(d_model):
    """tensor2tensor's get_timing_signal_1d (and fairseq) use base**(-i/(d/2-1)), not base**(-2i/d):
    only omega_0 is shared, so no reordering of the columns turns one table into the other. With
    the paper's ladder, the [sin | cos] layout is a column permutation of the interleaved one."""
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega_t2t = 10000.0 ** (-i / (d_model // 2 - 1))
    omega = sinusoidal_frequencies(d_model)
    assert omega_t2t[-1].item() == pytest.approx(1e-4, rel=1e-12)
    nearest = (omega_t2t[:, None] / omega[None, :] - 1).abs().min(dim=1).values
    assert nearest[0] == 0 and (nearest[1:] > 1e-3).all()
    pe = sinusoidal_encoding(50, d_model, dtype=torch.float64)
    angles = torch.arange(50, dtype=torch.float64)[:, None] * omega
    halves = torch.cat((angles.sin(), angles.cos()), dim=1)
    perm = torch.cat((torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)))
    torch.testing.assert_close(halves, pe[:, perm])
