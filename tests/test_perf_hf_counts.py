"""Chapter 9's operator counts of Hugging Face's RoPE, taken from transformers' own functions.

The chapter does not import transformers: it writes out `apply_rotary_pos_emb` and
`LlamaRotaryEmbedding.forward` as in transformers 5.24 and counts that copy. This test counts the real
functions with the chapter's own counter, `CountOps`, read from the notebook, so a change in either
shows here. It is skipped where transformers is not installed."""

import json
from pathlib import Path

import pytest
import torch

import posenc

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "09_performance.ipynb"


def _chapter():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _count_ops():
    # the chapter's counter, run from its own source: the lines of its cell before `def kernel_seen`
    src = next("".join(c["source"]) for c in _chapter() if "class CountOps(TorchDispatchMode)" in "".join(c["source"]))
    namespace = {"torch": torch}
    exec(src[: src.index("\ndef kernel_seen")], namespace)
    return namespace["CountOps"]


@pytest.mark.parametrize("heads, d", [(4, 64), (32, 128)])
def test_hf_rotary_operator_counts(heads, d):
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    CountOps = _count_ops()
    q, k = torch.randn(1, heads, 1, d), torch.randn(1, heads, 1, d)
    cos, sin = (t[None] for t in posenc.rope_cos_sin(1, d))  # [batch, seq, d], as HF passes them
    with CountOps() as counted:
        apply_rotary_pos_emb(q, k, cos, sin)
    assert sum(counted.ops.values()) == 16, counted.ops  # the chapter's 16: query and key

    config = transformers.LlamaConfig(
        hidden_size=heads * d, num_attention_heads=heads, num_key_value_heads=heads, max_position_embeddings=4096
    )
    rotary = LlamaRotaryEmbedding(config)
    x, position_ids = torch.randn(1, 1, heads * d), torch.tensor([[65]])  # the new token's position
    with CountOps() as counted:
        hf_cos, hf_sin = rotary(x, position_ids)
    assert sum(counted.ops.values()) == 8, counted.ops  # the chapter's 8, once per forward pass
    # the same cos as posenc's: float32 angles near 65 round by up to 4e-6, so 1e-5
    assert torch.allclose(hf_cos[0], posenc.rope_cos_sin(66, d)[0][65:], rtol=0, atol=1e-5)


def test_chapter_states_the_counts():
    text = "".join("".join(c["source"]) for c in _chapter() if c["cell_type"] == "markdown")
    assert "| 16; cos and sin take 8 more per forward pass |" in text
    assert "`tests/test_perf_hf_counts.py` counts transformers' own functions with the same counter: 16 and 8." in text
