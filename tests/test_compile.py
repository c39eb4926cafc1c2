"""Forward passes compile the way users call them: ``torch.compile(fullgraph=True)`` (which fails on
any graph break) with the default dynamic-shape handling, called at several lengths in a row, and with
``dynamic=True`` over key/value-cache decoding (a prefill, then one token at a time), for
MultiHeadAttention with every registered method, RotaryEmbedding and the experiments' TinyLM; the
compiled result equals the eager one.

Recompiles stay bounded: a counting backend records every graph dynamo hands over (a graph break or a
recompilation adds one), and ``torch._dynamo.config.error_on_recompile`` is on for the calls that must
reuse a graph. Over the lengths 12, 13, 17, 24: one graph for the first length, one with a symbolic
length at the second (dynamo's automatic dynamic shapes), none after. Over decoding with
``dynamic=True``: the prefill, the first one-token step (a length of 1 is always specialised) and the
second (the cache's keys are then a concatenation, no longer a view of the projection), none after.

Tolerance: the eager and aot_eager backends run the same kernels as eager mode on the same inputs,
but a compiled forward may take another (mathematically equal) path: a bias spread with ``as_strided``
instead of ``unfold``, CoPE's bias for all rows at once instead of in chunks. Outputs are O(1);
atol = rtol = 1e-5 is ~80 float32 ulps, far below the O(1) change a wrong position makes. Inductor
fuses and reorders float32 sums: 1e-4 there.
"""

import contextlib

import pytest
import torch
import torch._dynamo

import posenc

METHODS = list(posenc.POSITION_METHODS)
LENGTHS = (12, 13, 17, 24)
TOL = {"atol": 1e-5, "rtol": 1e-5}


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """A fresh dynamo per test, tracing without the fake-tensor dispatch cache: a cache of operator outputs
    during tracing that is rebuilt with every trace here (new shape environments), and whose entries cost
    about as much to build as the dispatch they save (about 30 % of this file's CPU time, torch 2.13). It
    changes no graph, guard or graph break: the cache only memoises fake-tensor metadata."""
    torch._dynamo.reset()
    with torch._dynamo.config.patch(fake_tensor_cache_enabled=False):
        yield
    torch._dynamo.reset()


class Counting:
    """A dynamo backend that counts the graphs it is given and runs them with ``backend``."""

    def __init__(self, backend: str = "eager") -> None:
        self.graphs = 0
        self.backend = torch._dynamo.lookup_backend(backend)

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return self.backend(gm, example_inputs)


def _no_recompile(active: bool):
    return torch._dynamo.config.patch(error_on_recompile=True) if active else contextlib.nullcontext()


def _over_lengths(eager, compiled, make_input, counter, tol=TOL, graphs=2):
    """Call at every length of LENGTHS; from the third on, a recompilation is an error."""
    for i, length in enumerate(LENGTHS):
        args = make_input(length)
        with _no_recompile(i >= 2):
            got = compiled(*args)
        torch.testing.assert_close(got, eager(*args), **tol)
    assert counter.graphs == graphs, f"{counter.graphs} graphs for {len(LENGTHS)} lengths, want {graphs}"


#: the methods whose position parameters or own attention take gradients (and RoPE), trained compiled
TRAINED = ["learned", "shaw", "t5", "rope", "cope"]
#: inference through inductor's generated C++ kernels with a symbolic length (a bias spread over the grid
#: by the compiled path's index, ``posenc._core.grid.toeplitz``, and a rotation); the rest through eager
INDUCTOR = ["alibi", "rope"]


@pytest.mark.parametrize(
    "name,train",
    [(n, False) for n in METHODS] + [(n, True) for n in TRAINED],
    ids=[f"{n}-inference" for n in METHODS] + [f"{n}-training" for n in TRAINED],
)
def test_attention_compiles_whole_at_several_lengths(name, train):
    """Inference traced by dynamo, for every method, run by the eager backend or (INDUCTOR) by the
    default one, which generates and compiles kernels with a symbolic length; training (gradients on,
    the bias caches bypassed) also through AOTAutograd's joint forward/backward graph (aot_eager), for the
    methods whose gradients take a path of their own: a learned table, Shaw's attention, a bias kept
    between calls in inference (T5's; KERPLE's and FIRE's take the same path), CoPE's content-dependent
    bias, and RoPE; the gradients flow."""
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, name, max_len=32).train(train)
    inductor = not train and name in INDUCTOR
    counter = Counting("aot_eager" if train else "inductor" if inductor else "eager")
    compiled = torch.compile(attn, fullgraph=True, backend=counter)
    tol = {"atol": 1e-4, "rtol": 1e-4} if inductor else TOL
    with torch.set_grad_enabled(train):
        _over_lengths(attn, compiled, lambda n: (torch.randn(2, n, 32),), counter, tol=tol)
        if train:
            compiled(torch.randn(2, 24, 32)).sum().backward()
            assert attn.qkv.weight.grad is not None and bool(attn.qkv.weight.grad.abs().sum() > 0)


@pytest.mark.parametrize("name", METHODS)
def test_attention_compiles_whole_over_kv_cache_decoding(name):
    torch.manual_seed(0)
    attn = posenc.MultiHeadAttention(32, 4, name, max_len=32).eval()
    counter = Counting()
    compiled = torch.compile(attn, fullgraph=True, backend=counter, dynamic=True)
    cache, eager_cache = posenc.KVCache(), posenc.KVCache()
    full = torch.randn(2, 16, 32)
    with torch.no_grad():
        outs = [compiled(full[:, :10], cache=cache)]
        want = [attn(full[:, :10], cache=eager_cache)]
        for step in range(10, 16):  # prefill of 10, then 6 one-token steps
            with _no_recompile(step >= 12):
                outs.append(compiled(full[:, step : step + 1], cache=cache))
            want.append(attn(full[:, step : step + 1], cache=eager_cache))
        whole = attn(full)  # decoding reproduces one causal pass over the 16 tokens
    assert counter.graphs == 3, f"{counter.graphs} graphs for a prefill and 6 decoding steps"
    assert cache.length == 16
    torch.testing.assert_close(torch.cat(outs, 1), torch.cat(want, 1), **TOL)
    torch.testing.assert_close(torch.cat(outs, 1), whole, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rotary_embedding_compiles_whole_at_several_lengths_and_decoding(layout):
    """With explicit positions (as attention calls it) in both layouts; without, in one."""
    rot = posenc.RotaryEmbedding(16, 64, layout=layout)
    counter = Counting()
    compiled = torch.compile(rot, fullgraph=True, backend=counter)
    _over_lengths(rot, compiled, lambda n: (torch.randn(2, 3, n, 16), torch.arange(5, 5 + n)), counter)
    if layout == "half":  # dynamo already knows the length varies: one graph, with a symbolic length
        counter.graphs = 0
        _over_lengths(rot, compiled, lambda n: (torch.randn(2, 3, n, 16),), counter, graphs=1)

    torch._dynamo.reset()
    counter = Counting()
    compiled = torch.compile(rot, fullgraph=True, backend=counter, dynamic=True)
    for step, (start, stop) in enumerate([(0, 10)] + [(p, p + 1) for p in range(10, 16)]):
        x, pos = torch.randn(2, 3, stop - start, 16), torch.arange(start, stop)
        with _no_recompile(step >= 2):
            torch.testing.assert_close(compiled(x, pos), rot(x, pos), **TOL)
    assert counter.graphs == 2, f"{counter.graphs} graphs for a prefill and 6 one-token steps"


@pytest.mark.parametrize("name", ["learned", "rope", "alibi", "cope"])
def test_tiny_lm_compiles_whole_at_several_lengths(name):
    """An absolute encoding added once to the embeddings (learned), and a method in every layer: a
    rotation, a cached distance bias and a content-dependent bias (every method's attention is above)."""
    from posenc.experiments import TinyLM

    torch.manual_seed(0)
    model = TinyLM(16, name, d_model=32, n_layers=1, n_heads=4, max_len=32).eval()
    counter = Counting()
    compiled = torch.compile(model, fullgraph=True, backend=counter)
    with torch.no_grad():
        _over_lengths(model, compiled, lambda n: (torch.randint(0, 16, (2, n)),), counter)


def test_rotary_embedding_decodes_with_inductor():
    """KV-cache decoding with explicit positions through generated kernels (``dynamic=True``): the
    in-graph range check of the positions compiles, and each step equals eager."""
    torch.manual_seed(0)
    rot = posenc.RotaryEmbedding(16)
    rot.reserve(64)
    counter = Counting("inductor")
    compiled = torch.compile(rot, fullgraph=True, backend=counter, dynamic=True)
    for p in range(10, 16):
        x = torch.randn(2, 4, 1, 16)
        pos = torch.tensor([p])
        torch.testing.assert_close(compiled(x, pos), rot(x, pos))
    assert counter.graphs <= 2  # one graph for the first step, at most one more once sizes turn symbolic


def test_rotary_cache_grows_outside_the_compiled_region():
    """Eager calls grow the cache; a compiled call reads it as built, so reserve() comes first."""
    rot = posenc.RotaryEmbedding(8, 4)
    x = torch.randn(1, 1, 10, 8)
    want = rot(x)  # eager: grows the cache to cover 10 positions
    assert rot.cache_len >= 10
    fresh = posenc.RotaryEmbedding(8, 4)
    fresh.reserve(10)
    torch.testing.assert_close(torch.compile(fresh, fullgraph=True, backend="eager")(x), want)
