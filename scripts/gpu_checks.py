"""Checks that need a CUDA GPU (CI has none): run `python scripts/gpu_checks.py` on a machine with one.

1. Every registered method's MultiHeadAttention, RotaryEmbedding and TinyLM compile whole with the
   default backend (inductor, Triton kernels) at several lengths in a row and over KV-cache decoding,
   equal to eager on the GPU.
2. Growing RotaryEmbedding's cache and a forward with position_ids never synchronise with the host
   (torch.cuda.set_sync_debug_mode("error") turns a synchronisation into an error).
3. apply_rope in bf16 and fp16 on the GPU: the error against a float64 reference, computed in float32
   inside, as on the CPU.
Prints one line per check and exits non-zero on the first failure. Arguments pick checks by name
(`compile`, `sync`, `precision`); none runs all three.
"""

import sys

import torch

import posenc
from posenc.experiments import TinyLM

if not torch.cuda.is_available():
    sys.exit("no CUDA device: nothing to check")
dev = torch.device("cuda")
print(torch.__version__, torch.cuda.get_device_name(), flush=True)
torch.manual_seed(0)
LENGTHS = (12, 13, 17, 24)
CHECKS = set(sys.argv[1:]) or {"compile", "sync", "precision"}


def over_lengths(eager, compiled, make, tol):
    for n in LENGTHS:
        args = make(n)
        torch.testing.assert_close(compiled(*args), eager(*args), **tol)


# 1. compile, every method, several lengths, then decoding with a KV cache
tol = {"rtol": 2e-3, "atol": 2e-3}  # TF32 may differ between the fused and eager kernels
for name in posenc.POSITION_METHODS if "compile" in CHECKS else ():
    torch._dynamo.reset()
    attn = posenc.MultiHeadAttention(32, 4, name, max_len=32).to(dev).eval()
    comp = torch.compile(attn, fullgraph=True)
    with torch.no_grad():
        over_lengths(attn, comp, lambda n: (torch.randn(2, n, 32, device=dev),), tol)
        cache_e, cache_c = posenc.KVCache(), posenc.KVCache()
        dyn = torch.compile(attn, fullgraph=True, dynamic=True)
        x = torch.randn(2, 8, 32, device=dev)
        torch.testing.assert_close(dyn(x, cache=cache_c), attn(x, cache=cache_e), **tol)
        for _ in range(6):
            x = torch.randn(2, 1, 32, device=dev)
            torch.testing.assert_close(dyn(x, cache=cache_c), attn(x, cache=cache_e), **tol)
    print(f"compile ok: MultiHeadAttention({name!r}), lengths {LENGTHS} and 6 decoding steps", flush=True)

for layout in ("half", "interleaved") if "compile" in CHECKS else ():
    torch._dynamo.reset()
    rot = posenc.RotaryEmbedding(16, layout=layout).to(dev)
    rot.reserve(64)
    comp = torch.compile(rot, fullgraph=True)
    over_lengths(rot, comp, lambda n: (torch.randn(2, 4, n, 16, device=dev),), {"rtol": 1e-5, "atol": 1e-5})
    dyn = torch.compile(rot, fullgraph=True, dynamic=True)
    for p in range(10, 16):
        x, pos = torch.randn(2, 4, 1, 16, device=dev), torch.tensor([p], device=dev)
        torch.testing.assert_close(dyn(x, pos), rot(x, pos), rtol=1e-5, atol=1e-5)
    print(f"compile ok: RotaryEmbedding(layout={layout!r}), lengths and decoding", flush=True)

for name in ("rope", "alibi", "learned", "cope") if "compile" in CHECKS else ():
    torch._dynamo.reset()
    model = TinyLM(16, name, d_model=32, n_layers=1, n_heads=4, max_len=32).to(dev).eval()
    comp = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        over_lengths(model, comp, lambda n: (torch.randint(0, 16, (2, n), device=dev),), tol)
    print(f"compile ok: TinyLM({name!r}), lengths {LENGTHS}", flush=True)

# 2. no host synchronisation when the cache grows or positions are given
if "sync" in CHECKS:
    rot = posenc.RotaryEmbedding(64).to(dev)
    x = torch.randn(1, 2, 100, 64, device=dev)
    pos = torch.arange(100, device=dev)
    rot(x, pos)  # warm-up: kernels loaded, cache grown once
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        rot.reserve(5000)  # grows the cache on the GPU
        y = rot(x, pos + 4000)
        y2 = rot(torch.randn(1, 2, 3000, 64, device=dev))  # no position_ids: from the shape
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert rot.cache_len >= 5000
    print(f"no sync: reserve(5000), forward with position_ids and without (cache {rot.cache_len})", flush=True)

# 3. low precision: rotated in float32 inside, one rounding; the reference rotates the same (rounded)
# input in float64, so the error is the computation's, not the input's rounding
if "precision" in CHECKS:
    x64 = torch.randn(4, 8, 256, 128, dtype=torch.float64, device=dev)
    for start in (0, 100_000):
        p = torch.arange(start, start + 256)
        cos, sin = (t.to(dev) for t in posenc.rope_cos_sin(p, 128, dtype=torch.float64))
        for dt in (torch.bfloat16, torch.float16):
            x = x64.to(dt)
            ref = posenc.apply_rope(x.double(), cos, sin)
            # one rounding to dt: at most half an ulp, u * |y| (u = eps / 2), plus float32 noise
            bound = torch.finfo(dt).eps / 2 * ref.abs().max().item() + 1e-5
            c, s = (t.to(dev) for t in posenc.rope_cos_sin(p, 128, dtype=torch.float32))
            got = posenc.apply_rope(x, c, s).double()
            err = (got - ref).abs().max().item()
            assert got.dtype == torch.float64 and err < bound, (dt, start, err)
            print(
                f"{str(dt):>15} positions {start}..{start + 255}: error {err:.2e} (one rounding: <= {bound:.2e})",
                flush=True,
            )
print("gpu checks: all passed")
