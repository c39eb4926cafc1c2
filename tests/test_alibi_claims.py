"""Claims chapter 6 and ``posenc/encodings/alibi.py`` make about other code: BLOOM's ALiBi tensor and
PyTorch's choice of attention kernel for an ALiBi mask."""

import math
import warnings

import pytest
import torch
import torch.nn.functional as F

import posenc
from posenc.methods import AlibiMethod


@pytest.mark.parametrize("n", list(range(1, 41)) + [112])
def test_bloom_build_alibi_tensor_is_the_key_position_form(n):
    """transformers' ``build_alibi_tensor``: the official slopes (taken as float32 powers, so up to a
    few float32 roundings) times the key position, one row for every query."""
    transformers_bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    length = 9
    alibi = transformers_bloom.build_alibi_tensor(torch.ones(1, length, dtype=torch.long), n, torch.float32)
    assert alibi.shape == (n, 1, length)
    expected = posenc.alibi_bias_bloom(n, length)[:, -1]  # the last query sees every key: [h, L]
    torch.testing.assert_close(alibi[:, 0], expected, rtol=1e-6, atol=0)


def test_key_position_form_needs_the_causal_mask():
    scores = torch.randn(4, 7, 7, dtype=torch.float64)
    key_form = posenc.alibi_bias_bloom(4, 7).double()
    distance_form = posenc.alibi_bias(4, 7).double()
    torch.testing.assert_close(torch.softmax(scores + key_form, -1), torch.softmax(scores + distance_form, -1))
    unmasked = key_form.masked_fill(torch.isinf(key_form), 0.0)[:, -1:].expand(4, 7, 7)  # m_h * j everywhere
    symmetric = posenc.alibi_bias(4, 7, causal=False).double()
    assert not torch.allclose(torch.softmax(scores + unmasked, -1), torch.softmax(scores + symmetric, -1))


# Undocumented kernel behaviour, observed in PyTorch 2.13: checked on that version only.
pytorch_2_13 = pytest.mark.skipif(
    not torch.__version__.startswith("2.13."), reason="observed behaviour of PyTorch 2.13's CPU kernels, not documented"
)


def _runs_fused(mask: torch.Tensor, q: torch.Tensor) -> bool:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with warnings.catch_warnings(), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        warnings.simplefilter("ignore")  # a refusal comes with warnings saying why
        try:
            F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        except RuntimeError:
            return False
    return True


@pytorch_2_13
@pytest.mark.parametrize("heads,length", [(4, 64), (3, 33)])
def test_cpu_fused_kernel_takes_a_4d_mask_not_a_3d_one(heads, length):
    """Chapter 6: PyTorch's CPU flash-attention kernel accepts 2-D and 4-D masks only
    (``check_attn_mask_shape``); a 3-D ``[h, L, L]`` mask falls back to the math path."""
    q = torch.randn(1, heads, length, 32)
    mask3 = posenc.alibi_bias(heads, length)
    assert not _runs_fused(mask3, q)
    assert _runs_fused(mask3[None], q)


def test_multihead_attention_passes_the_alibi_mask_in_4d():
    method = AlibiMethod(4)
    q = torch.randn(1, 4, 48, 16)
    bias = method.logit_bias(q, q, causal=True)
    assert bias.shape == (1, 4, 48, 48)
    assert _runs_fused(bias, q)
    assert method.logit_bias(q, q, causal=True) is bias  # built once per length and kept


def test_bloom_padding_count_gives_the_same_weights_as_raw_key_indices():
    """Chapter 6's KV-cache row: with left padding, BLOOM's ``build_alibi_tensor`` counts key positions
    over non-padding tokens (``cumsum - 1``), so its biases differ from ``m_h * j`` with raw indices
    ``j``; on the keys a row may attend to (causal, not padding) they differ by one constant per
    batch row and head, so the softmax weights agree."""
    transformers_bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    heads, length = 4, 7
    padding = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1], [1] * length])
    counted = transformers_bloom.build_alibi_tensor(padding, heads, torch.float64).view(3, heads, 1, length)
    raw = posenc.alibi_slopes(heads).double()[None, :, None, None] * torch.arange(length, dtype=torch.float64)
    assert not torch.allclose(counted, raw.expand_as(counted))  # the biases differ under left padding
    visible = torch.ones(length, length).tril().bool()[None, None] & padding.bool()[:, None, None, :]
    scores = torch.randn(3, heads, length, length, dtype=torch.float64)

    def weights(bias):
        return torch.softmax((scores + bias).masked_fill(~visible, float("-inf")), dim=-1)

    rows = visible.any(-1)  # query rows that see at least one key (not the padding queries)
    torch.testing.assert_close(
        weights(counted)[rows.expand(3, heads, length)], weights(raw)[rows.expand(3, heads, length)]
    )


@pytest.mark.parametrize("alibi_bias_max", [4, 8, 12])
@pytest.mark.parametrize("n_heads", range(1, 65))
def test_mpt_builder_gives_the_official_slopes(n_heads, alibi_bias_max):
    """Chapter 6's box "Where sources differ: attention-gym's and MPT's slopes": transformers'
    `build_mpt_alibi_tensor`, with two positions, has as first column minus one slope per head, in the official order.
    ``alibi_bias_max`` replaces the 8 of the official rule, so each slope 2^(-8x) becomes 2^(-alibi_bias_max x)
    and the smallest is 2^-alibi_bias_max."""
    mpt = pytest.importorskip("transformers.models.mpt.modeling_mpt")
    first_column = mpt.build_mpt_alibi_tensor(n_heads, 2, alibi_bias_max=alibi_bias_max)[:, 0, 0].neg()
    expected = posenc.alibi_slopes(n_heads).double() ** (alibi_bias_max / 8)
    torch.testing.assert_close(first_column.double(), expected, rtol=1e-6, atol=0)
    assert math.isclose(first_column.min().item(), 2.0**-alibi_bias_max, rel_tol=1e-6)


def test_hf_mpt_model_leaves_alibi_bias_max_at_8():
    """Chapter 6's box on MPT's slopes: Hugging Face's ``MptModel`` calls ``build_mpt_alibi_tensor`` without the
    config's ``alibi_bias_max``, so its slopes are those of the 8 whatever the config says."""
    mpt = pytest.importorskip("transformers.models.mpt.modeling_mpt")
    from transformers import MptConfig

    config = MptConfig(
        d_model=16, n_heads=4, n_layers=1, max_seq_len=8, vocab_size=32, attn_config={"alibi_bias_max": 4}
    )
    assert config.attn_config.alibi_bias_max == 4
    model = mpt.MptModel(config).eval()
    built, original = [], model.build_mpt_alibi_tensor
    model.build_mpt_alibi_tensor = lambda *args, **kwargs: built.append(original(*args, **kwargs)) or built[-1]
    with torch.no_grad():
        model(torch.zeros(1, 4, dtype=torch.long))
    # the same function on the same arguments: equal bit for bit on any CPU
    assert torch.equal(built[0], mpt.build_mpt_alibi_tensor(4, 8))  # the 8, not the config's 4
    assert not torch.equal(built[0], mpt.build_mpt_alibi_tensor(4, 8, alibi_bias_max=4))


@pytorch_2_13
def test_cpu_fused_kernel_takes_a_mask_with_is_causal_aligned_top_left():
    """Chapter 6, "Why a mask never goes with is_causal=True". The documentation says SDPA raises when both
    ``attn_mask`` and ``is_causal`` are set. The math path does, and so does a 3-D mask (it falls back to the
    math path). PyTorch 2.13's fused CPU kernel instead takes the key form's row with ``is_causal=True``:
    square, it matches the reference; its causal bound counts from key 0 (top left), so one decoding query
    sees only key 0. Against float64 at L = 256 the row's error was at most 3.5e-6 (seeds 0-9, three CPU
    kernel sets); it grows with L, past 1e-5 at 1024 tokens, so 1e-5 leaves a margin of about 3 at 256 only."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 4, 256, 64, generator=g) for _ in range(3))
    stored = AlibiMethod(4).logit_bias(q, k, causal=True)  # [1, h, L, L], the distance form
    key_row = posenc.alibi_bias_bloom(4, 256)[:, -1:][None]  # the key form's last row, m_h j: [1, h, 1, L]
    exact = torch.softmax(q.double() @ k.double().transpose(-1, -2) / 8 + stored.double(), -1) @ v.double()
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # the fused kernel only; it raises if it refuses
        with_row = F.scaled_dot_product_attention(q, k, v, attn_mask=key_row, is_causal=True)
        decode = F.scaled_dot_product_attention(q[:, :, -1:], k, v, attn_mask=key_row, is_causal=True)
    assert torch.allclose(with_row.double(), exact, rtol=0, atol=1e-5)
    assert torch.allclose(decode, v[:, :, :1])  # top left: the decoding query sees key 0 only

    def raises(**mask):
        try:
            F.scaled_dot_product_attention(q, k, v, **mask)
        except RuntimeError:  # "Explicit attn_mask should not be set when is_causal=True"
            return True
        return False

    with sdpa_kernel(SDPBackend.MATH):
        assert raises(attn_mask=key_row, is_causal=True)  # the math path raises on the pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch explains the fused kernel's refusal in warnings
        assert raises(attn_mask=key_row[0], is_causal=True)  # a 3-D row falls back to the math path


def test_bfloat16_content_scores_the_key_form_moves_weights_ten_times_more_in_every_seed():
    """Chapter 6, "How we know: the sweep, and more cases" (bfloat16 section). Scores of std 2, 8 heads, 256 tokens,
    the sum of scores and bias stored in bfloat16: rounding the scores alone (a causal mask, no ALiBi) moves a
    weight by about 0.005, the distance form by about as much, the key form by about 0.1, over ten times the
    distance form's and the scores-alone error, in each of seeds 0-7 (measured 0.0047-0.0064, 0.0046-0.0065,
    0.080-0.113; 14-24 times the distance form's, 15-21 times the scores-alone error)."""
    distance = posenc.alibi_bias(8, 256)
    biases = {
        "none": torch.zeros(8, 256, 256).masked_fill(distance.isinf(), float("-inf")),
        "distance": distance,
        "key": posenc.alibi_bias_bloom(8, 256),
    }
    for seed in range(8):
        content = 2 * torch.randn(8, 256, 256, generator=torch.Generator().manual_seed(seed))
        error = {}
        for form, bias in biases.items():
            exact = torch.softmax((content + bias).double(), -1)
            error[form] = (torch.softmax((content + bias).bfloat16().double(), -1) - exact).abs().max().item()
        assert 0.003 < error["none"] < 0.008 and 0.003 < error["distance"] < 0.008, (seed, error)
        assert 0.05 < error["key"] < 0.15, (seed, error)
        assert error["key"] > 10 * error["distance"] and error["key"] > 10 * error["none"], (seed, error)


def test_flex_attention_with_a_kv_cache_needs_the_offset_in_score_mod_and_mask_mod():
    """Chapter 6, section "Masks with a KV cache": q_idx counts the new queries from 0, so both the score_mod and
    the mask_mod need q_idx + L_k - L_q; without the offset the result differs."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    g = torch.Generator().manual_seed(0)
    heads, n_new, n_keys = 4, 4, 16
    q = torch.randn(1, heads, n_new, 8, generator=g)
    k, v = (torch.randn(1, heads, n_keys, 8, generator=g) for _ in range(2))
    slope = posenc.alibi_slopes(heads)
    reference = F.scaled_dot_product_attention(q, k, v, attn_mask=posenc.alibi_bias(heads, n_keys)[:, -n_new:][None])

    def flex(offset):
        def score_mod(score, b, h, q_idx, kv_idx):
            return score - slope[h] * (q_idx + offset - kv_idx).abs()

        def mask_mod(b, h, q_idx, kv_idx):
            return q_idx + offset >= kv_idx

        block_mask = create_block_mask(mask_mod, None, None, n_new, n_keys, device="cpu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # flex_attention warns when it runs without torch.compile
            return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask)

    assert torch.allclose(flex(n_keys - n_new), reference, rtol=0, atol=1e-5)
    assert not torch.allclose(flex(0), reference, rtol=0, atol=1e-2)


def _exact_distance_weights(n, L):
    offset = posenc.relative_positions(L).double()  # key - query
    return torch.softmax(
        (posenc.alibi_slopes(n).double()[:, None, None] * offset).masked_fill(offset > 0, float("-inf")), -1
    )


def _float32_key_form_last_row_error(n: int, L: int) -> float:
    """The largest change of a weight of the last query's row (n heads, L keys) when the key form's bias
    ``m_h * j`` is taken in float32, against the exact distance form ``-m_h * (L - 1 - j)`` in float64.

    Head by head, only the last ``ceil(45 / m_h)`` keys (all of them up to that length) are summed: each
    key before them has an exact weight below ``e^-45`` of the last key's, and all of them together less
    than ``e^-45 / (1 - e^-m_h) < 8e-18`` of the row (``m_h >= 2^-8``). Leaving them out changes every
    weight by less than that (float64 rounds the sum by more), the float32 rounding of a bias (at most
    ``m_h * L * 2^-24 < 0.01``) does not change the bound, and the errors compared are 1e-6 and more. A
    steep head's row is then a few dozen keys at any length, the shallowest head's 11,520."""
    worst = 0.0
    for slope in posenc.alibi_slopes(n).split(1):  # [1] float32 each, as the key form multiplies
        j = torch.arange(L - min(L, math.ceil(45 / slope.item())), L)
        exact = torch.softmax(slope.double() * (j - (L - 1)).double(), -1)
        f32 = torch.softmax((slope * j.float()).double(), -1)  # the bias in float32
        worst = max(worst, (f32 - exact).abs().max().item())
    return worst


def test_float32_key_form_is_orders_of_magnitude_finer_and_its_last_row_error_over_1k_to_128k():
    """Chapter 6, "More cases" (bfloat16 section): in float32 both forms are exact for 8 heads at 1024 tokens, and
    the key form moves a weight by under 2e-5 with 12, 16 or 32 heads. Over the last row of 12, 16 and 32 heads at
    211 lengths from 1k to 128k tokens, 30 per octave, the float32 key form's error stays under 1e-4 up to 8k tokens,
    peaks at 1.5e-3 beyond (measured 1.47e-3) and from one length to the next can halve."""
    reference = _exact_distance_weights(8, 1024)
    for build in (posenc.alibi_bias, posenc.alibi_bias_bloom):
        assert (torch.softmax(build(8, 1024).double(), -1) - reference).abs().max() < 1e-12
    for n in (12, 16, 32):
        f32 = torch.softmax(posenc.alibi_bias_bloom(n, 1024).double(), -1)
        assert (f32 - _exact_distance_weights(n, 1024)).abs().max() < 2e-5, n
    sweep = sorted({round(1024 * 2 ** (k / 30)) for k in range(7 * 30 + 1)})  # 1k to 128k, 30 per octave
    f32_error = {(n, L): _float32_key_form_last_row_error(n, L) for n in (12, 16, 32) for L in sweep}
    assert max(e for (n, L), e in f32_error.items() if L <= 8192) < 1e-4
    assert 1.4e-3 < max(f32_error.values()) < 1.5e-3
    assert any(f32_error[n, a] > 2 * f32_error[n, b] for n in (12, 16, 32) for a, b in zip(sweep, sweep[1:]))


def test_bfloat16_decoding_row_and_float16_spacing_and_overflow():
    """Chapter 6, "More cases": up to eight heads the slopes are powers of two; a decoding query's row, 12 heads at
    1024 tokens, moves a weight by about 0.2 in bfloat16 in the key form and under 0.001 in the distance form.
    Beyond the chapter: float16's largest number 65504 is passed about 93,000 tokens along the steepest of twelve
    heads' key-form row, and the softmax turns NaN."""
    assert all(math.log2(s).is_integer() for n in range(1, 9) for s in posenc.alibi_slopes(n).tolist())
    row_exact = torch.softmax(posenc.alibi_bias(12, 1024)[:, -1].double(), -1)
    row_error = {
        form: (torch.softmax(build(12, 1024)[:, -1].bfloat16().double(), -1) - row_exact).abs().max().item()
        for form, build in (("key", posenc.alibi_bias_bloom), ("distance", posenc.alibi_bias))
    }
    assert 0.15 < row_error["key"] < 0.3 and row_error["distance"] < 1e-3, row_error
    steep_row = posenc.alibi_slopes(12).max() * torch.arange(100_000.0)  # key form, steepest of 12 heads
    overflow = int(torch.isinf(steep_row.half()).nonzero()[0])  # first key past float16's 65504
    assert 92_000 < overflow < 94_000 and torch.softmax(steep_row.half().float(), -1).isnan().all()
