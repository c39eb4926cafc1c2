"""Deferred initialisation, as torchtune and FSDP2 do it: every module is built under
``with torch.device("meta"):`` (shapes only, no memory, no random draw), moved with
``to_empty(device="cpu")`` and initialised with ``reset_parameters()``; with the same seed it then
holds the same parameters and buffers as a normal build, bit for bit (the same draws in the same order,
the same buffer computations), and computes the same forward.

Exact comparisons: the two modules hold values made by the same operations on the same inputs
(the same generator state, the same formulas), so equality is by construction.
"""

import pytest
import torch

import posenc

METHODS = list(posenc.POSITION_METHODS)


def _deferred(build, seed=0):
    with torch.device("meta"):
        module = build()
    assert all(t.is_meta for t in [*module.parameters(), *module.buffers()])
    module = module.to_empty(device="cpu")
    torch.manual_seed(seed)
    module.reset_parameters()
    return module


def _normal(build, seed=0):
    torch.manual_seed(seed)
    return build()


def _assert_same_state(a, b):
    tensors_a = {**dict(a.named_parameters()), **dict(a.named_buffers())}
    tensors_b = {**dict(b.named_parameters()), **dict(b.named_buffers())}
    assert tensors_a.keys() == tensors_b.keys()
    assert tensors_a, "nothing compared"
    for name, t in tensors_a.items():
        assert t.dtype == tensors_b[name].dtype and t.device == tensors_b[name].device, name
        assert torch.equal(t, tensors_b[name]), name


@pytest.mark.parametrize("name", METHODS)
def test_every_method_builds_on_meta_and_initialises_later(name):
    def build():
        return posenc.build_method(name, d_model=32, n_heads=4, max_len=16)

    normal, deferred = _normal(build), _deferred(build)
    tensors = [*normal.parameters(), *normal.buffers()]
    if tensors:
        _assert_same_state(normal, deferred)
    # reset_parameters re-draws as the constructor does: a second seed gives other random parameters
    if any(p.requires_grad and p.numel() > 1 and p.std() > 0 for p in normal.parameters()):
        other = _deferred(build, seed=1)
        assert any(not torch.equal(p, q) for p, q in zip(normal.parameters(), other.parameters()))


@pytest.mark.parametrize("name", METHODS)
def test_attention_builds_on_meta_and_initialises_later(name):
    def build():
        return posenc.MultiHeadAttention(32, 4, name, max_len=16)

    normal, deferred = _normal(build), _deferred(build)
    _assert_same_state(normal, deferred)
    x = torch.randn(2, 12, 32)
    with torch.no_grad():
        assert torch.equal(deferred(x), normal(x))


@pytest.mark.parametrize("name", METHODS)
def test_tiny_lm_builds_on_meta_and_initialises_later(name):
    from posenc.experiments import TinyLM

    def build():
        return TinyLM(16, name, d_model=32, n_layers=2, n_heads=4, max_len=16)

    normal, deferred = _normal(build), _deferred(build)
    _assert_same_state(normal, deferred)
    tokens = torch.randint(0, 16, (2, 12))
    with torch.no_grad():
        assert torch.equal(deferred(tokens), normal(tokens))


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rotary_embedding_builds_on_meta_and_initialises_later(layout):
    def build():
        return posenc.RotaryEmbedding(16, 32, layout=layout)

    normal, deferred = _normal(build), _deferred(build)
    _assert_same_state(normal, deferred)
    x = torch.randn(2, 3, 40, 16)  # beyond the initial cache: both grow it
    assert torch.equal(deferred(x), normal(x))


def test_learned_table_builds_on_meta_and_initialises_later():
    def build():
        return posenc.LearnedPositionalEmbedding(16, 8, init_std=0.5)

    normal, deferred = _normal(build), _deferred(build)
    _assert_same_state(normal, deferred)
    assert torch.equal(deferred(torch.arange(16)), normal.weight)


def test_given_initial_values_are_kept_through_reset():
    """KERPLE's and FIRE's initial values given to the constructor (not drawn) come back after a reset."""

    def build():
        return posenc.KerpleBias(3, kind="power", r1=[0.5, 1.0, 2.0], r2=1.5)

    deferred = _deferred(build)
    assert torch.equal(deferred.r1, torch.tensor([0.5, 1.0, 2.0]))
    assert torch.equal(deferred.r2, torch.full((3,), 1.5))
    fire = _deferred(lambda: posenc.FireBias(2, c_init=0.25, L_thr_init=7.0))
    assert fire.c.item() == 0.25 and fire.L_thr_init.item() == 7.0 and fire.L_multiplier.item() == 1.0


def test_reset_parameters_clears_a_kept_bias():
    """A bias kept between calls (no gradient needed) was built from the old values: a reset drops it."""
    alibi = posenc.AlibiMethod(4)
    q = torch.randn(1, 4, 6, 8)
    before = alibi.logit_bias(q, q, causal=True)
    with torch.no_grad():
        alibi.slopes.mul_(2.0)  # a change the cache key cannot see (a buffer, not a parameter)
    alibi.reset_parameters()  # recomputes the slopes and drops the kept bias
    assert not alibi._bias_cache
    assert torch.equal(alibi.logit_bias(q, q, causal=True), before)


def test_sinusoidal_frequencies_are_a_float64_buffer_that_survives_a_dtype_cast():
    """No per-forward rebuild on the CPU: the float64 ladder is a buffer; ``.half()`` (a module-wide
    cast) recomputes it in float64 instead of rounding it, so the encoding keeps its precision."""
    method = posenc.SinusoidalMethod(16)
    assert method.inv_freq.dtype == torch.float64 and "inv_freq" not in method.state_dict()
    reference = posenc.sinusoidal_encoding_at(torch.arange(3000, 3010), 16, dtype=torch.float64)
    half = posenc.SinusoidalMethod(16).half()
    assert half.inv_freq.dtype == torch.float64
    assert torch.equal(half.inv_freq, method.inv_freq)
    x = torch.zeros(1, 10, 16, dtype=torch.float16)
    got = half.encode_input(x, torch.arange(3000, 3010))
    assert torch.equal(got, reference.to(torch.float16)[None])  # one rounding of the float64 table
