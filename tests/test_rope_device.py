"""RotaryEmbedding and the RoPE method as users run them: built on the meta device and initialised later
(FSDP2, torchtune's rope_init), a cache that grows on its own device, and torch.compile(fullgraph=True) at
several lengths in a row and over key/value-cache decoding."""

import pytest
import torch

import posenc

LAYOUTS = ["half", "interleaved"]
SCALINGS = [
    None,
    posenc.rope_scaling("yarn", factor=4.0, original_max_position_embeddings=16),
    posenc.rope_scaling("proportional", partial_rotary_factor=0.25),
]


def _same_buffers(a, b):
    """Equal by construction: the same float ops on the same inputs, on the same device."""
    assert torch.equal(a.inv_freq, b.inv_freq) and a.attention_scaling == b.attention_scaling
    assert torch.equal(a.cos_cached, b.cos_cached) and torch.equal(a.sin_cached, b.sin_cached)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("scaling", SCALINGS, ids=["plain", "yarn", "proportional"])
def test_built_on_meta_then_to_empty_and_reset_parameters(layout, scaling):
    with torch.device("meta"):
        rope = posenc.RotaryEmbedding(32, 24, layout=layout, scaling=scaling)
    assert rope.inv_freq.is_meta and rope.cos_cached.is_meta and rope.cache_len == 24
    rope.reserve(100)  # growing the cache copies nothing to the host, so it works on meta too
    assert rope.cache_len == 100 and rope.cos_cached.is_meta
    rope.to_empty(device="cpu")
    rope.reset_parameters()
    eager = posenc.RotaryEmbedding(32, 100, layout=layout, scaling=scaling)
    _same_buffers(rope, eager)
    x = torch.randn(2, 3, 9, 32)
    assert torch.equal(rope(x), eager(x))


def test_own_frequencies_survive_to_empty():
    inv, scale = posenc.rope_scaled_inv_freq(16, rope_type="yarn", factor=8.0, original_max_position_embeddings=32)
    with torch.device("meta"):
        rope = posenc.RotaryEmbedding(16, 8, inv_freq=inv, attention_scaling=scale)  # inv is a CPU tensor
    rope.to_empty(device="cpu")
    rope.rope_init()  # torchtune's name
    _same_buffers(rope, posenc.RotaryEmbedding(16, 8, inv_freq=inv, attention_scaling=scale))
    with torch.device("meta"):  # frequencies made under the meta device have no values to rebuild from
        lost = posenc.RotaryEmbedding(16, 8, inv_freq=posenc.rope_inv_freq(16) * 0.5)
    lost.to_empty(device="cpu")
    with pytest.raises(ValueError, match="meta"):
        lost.reset_parameters()


@pytest.mark.parametrize("name", ["rope", "rope_interleaved"])
def test_attention_with_rope_built_on_meta(name):
    torch.manual_seed(0)
    eager = posenc.MultiHeadAttention(32, 4, name)
    with torch.device("meta"):
        late = posenc.MultiHeadAttention(32, 4, name)
    late.to_empty(device="cpu")
    for module in late.modules():  # FSDP2 / torchtune's deferred initialisation
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    late.load_state_dict(eager.state_dict())  # the weights; the RoPE buffers are not in the state dict
    _same_buffers(late.method.rotary, eager.method.rotary)
    x = torch.randn(2, 11, 32)
    torch.testing.assert_close(late(x), eager(x), rtol=0, atol=0)


def test_set_scaling_builds_on_the_methods_device():
    with torch.device("meta"):
        method = posenc.RopeMethod(16, 32)
        method.set_scaling("linear", factor=2.0)
    assert method.rotary.inv_freq.is_meta and method.rotary.cache_len == 32


# ---- compile: several lengths in a row (default dynamic handling) and decoding (dynamic=True) -----------
# The eager backend runs dynamo's trace (graph breaks, recompiles, fake-tensor errors); tests/test_compile.py
# also runs inductor. The compiled graph runs the readable reference form and eager the fast paths, so they
# agree to rounding: torch's default tolerances for the dtype (float32: rtol 1.3e-6; bfloat16: rtol 1.6e-2,
# which holds one bfloat16 ulp, 2**-8 relative, where the float32 values round to neighbours).


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("seq_dim", [-2, -3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rotary_embedding_compiles_at_several_lengths_and_over_decoding(layout, seq_dim, dtype):
    torch._dynamo.reset()
    rope = posenc.RotaryEmbedding(16, 64, layout=layout, seq_dim=seq_dim)

    def shaped(n):  # [b, h, n, d] or [b, n, h, d]
        return torch.randn(2, 4, n, 16).to(dtype) if seq_dim == -2 else torch.randn(2, n, 4, 16).to(dtype)

    compiled = torch.compile(rope, fullgraph=True, backend="eager")
    for n in (12, 13, 17, 5):
        x = shaped(n)
        torch.testing.assert_close(compiled(x), rope(x))
    decode = torch.compile(rope, fullgraph=True, dynamic=True, backend="eager")
    for p in range(20, 26):
        x = shaped(1)
        ids = torch.tensor([p])
        torch.testing.assert_close(decode(x, ids), rope(x, ids))


@pytest.mark.parametrize("name", ["rope", "rope_interleaved"])
def test_rope_method_compiles_at_several_lengths_and_over_decoding(name):
    torch._dynamo.reset()
    method = posenc.build_method(name, d_model=64, n_heads=4, causal=True, max_len=64)  # head_dim 16

    def rotate(q, k, ids):
        return method.rotate_qk(q, k, ids)

    compiled = torch.compile(rotate, fullgraph=True, backend="eager")
    for n in (12, 13, 17):
        q, k = torch.randn(2, 2, 4, n, 16)
        ids = torch.arange(n)
        for got, want in zip(compiled(q, k, ids), method.rotate_qk(q, k, ids)):
            torch.testing.assert_close(got, want)
    decode = torch.compile(rotate, fullgraph=True, dynamic=True, backend="eager")
    for p in range(17, 22):
        q, k = torch.randn(2, 2, 4, 1, 16)
        ids = torch.tensor([p])
        for got, want in zip(decode(q, k, ids), method.rotate_qk(q, k, ids)):
            torch.testing.assert_close(got, want)
