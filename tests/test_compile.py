"""Forward passes compile whole: ``torch.compile(fullgraph=True)`` (which fails on any graph break) on
RotaryEmbedding, MultiHeadAttention with every registered method and the experiments' TinyLM, with the
eager backend (dynamo's trace only) and the default inductor backend on CPU, and the compiled result
equals the eager one.

Tolerance: inductor fuses and reorders float32 sums, so outputs of size ~1 differ from eager by a few
float32 ulps; atol = rtol = 1e-4 is ~800 eps, far below the O(1) change a wrong position would make.
"""
import pytest
import torch
import torch._dynamo

import posenc

BACKENDS = ["eager", "inductor"]


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _compile(module, backend):
    return torch.compile(module, fullgraph=True, backend=backend, dynamic=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rotary_embedding_compiles_whole(backend, layout):
    rot = posenc.RotaryEmbedding(16, 64, layout=layout)
    x = torch.randn(2, 3, 40, 16)
    pos = torch.arange(5, 45)
    compiled = _compile(rot, backend)
    torch.testing.assert_close(compiled(x, pos), rot(x, pos), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(compiled(x), rot(x), atol=1e-4, rtol=1e-4)


def test_rotary_cache_grows_outside_the_compiled_region():
    """Eager calls grow the cache; a compiled call reads it as built, so reserve() comes first."""
    rot = posenc.RotaryEmbedding(8, 4)
    x = torch.randn(1, 1, 10, 8)
    want = rot(x)  # eager: grows the cache to cover 10 positions
    assert rot.cache_len >= 10
    fresh = posenc.RotaryEmbedding(8, 4)
    fresh.reserve(10)
    torch.testing.assert_close(_compile(fresh, "eager")(x), want)


# training mode (grad enabled, the bias caches bypassed) traced by dynamo; inference compiled by both backends
@pytest.mark.parametrize("backend,train", [("eager", False), ("eager", True), ("inductor", False)])
@pytest.mark.parametrize("name", list(posenc.POSITION_METHODS))
def test_attention_compiles_whole_with_every_method(name, train, backend):
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, name, max_len=32).train(train)
    x = torch.randn(2, 12, 32)
    with torch.set_grad_enabled(train):
        want = attn(x)
        got = _compile(attn, backend)(x)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    if train:  # gradients flow through the compiled graph
        got.sum().backward()
        assert attn.qkv.weight.grad is not None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("position", ["rope", "alibi", "learned"])
def test_tiny_lm_forward_compiles_whole(position, backend):
    from posenc.experiments import TinyLM

    torch.manual_seed(0)
    model = TinyLM(16, position, d_model=32, n_layers=2, n_heads=4, max_len=32).eval()
    tokens = torch.randint(0, 16, (2, 24))
    with torch.no_grad():
        want = model(tokens)
        got = _compile(model, backend)(tokens)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)


def test_no_graph_breaks_counted_by_dynamo_explain():
    """The counts the issue measured (6 per RotaryEmbedding call, 7 per RoPE attention) are now 0."""
    rot = posenc.RotaryEmbedding(16, 64)
    x = torch.randn(2, 4, 32, 16)
    assert torch._dynamo.explain(rot)(x, torch.arange(32)).graph_break_count == 0
    for name in posenc.POSITION_METHODS:
        torch._dynamo.reset()
        attn = posenc.MultiHeadAttention(32, 4, name, max_len=64)
        assert torch._dynamo.explain(attn)(torch.randn(2, 16, 32)).graph_break_count == 0, name
