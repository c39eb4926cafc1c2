"""Reading model code (book/reading_code.md): its porting snippet and its left-padding check, run as pasted on the
installed transformers, and the sentences around them. Skipped without transformers 5.24."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def _raw() -> str:
    return (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")


def _page() -> str:
    return " ".join(_raw().split())


def _snippet(marker: str) -> str:
    return next(c for c in re.findall(r"```python\n(.*?)```", _raw(), re.S) if marker in c)


def test_porting_snippet_runs_as_pasted_on_gemma_3_and_llama():
    """The porting snippet defines every name it reads but `config`: run with only `config` given, it reads the base
    and the rule of Llama's flat default configuration and of Gemma 3's nested one, for the layer `layer_idx` names
    (Gemma 3's layer 0 is a sliding-window layer, base 10 000; its layer 5 a global one, base 10^6). Its comment on
    the other key sets: DeepSeek-V4's keys are `main` and `compress`, not its layer kinds, so the snippet's lookup
    fails there; Beam's default `full_attention` entry is None."""
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    code = _snippet("get_text_config()")
    assert "layer_idx = 0  # the layer at hand" in code
    for config, base in ((transformers.LlamaConfig(), 10000.0), (transformers.Gemma3Config(), 10000.0)):
        names = {"config": config}  # nothing else: a name the snippet only mentions would raise NameError
        exec(code, names)
        assert (names["base"], names["kind"], names["scaled"]) == (base, "default", False), type(config)
    gemma = transformers.Gemma3Config().get_text_config()
    assert gemma.layer_types[0] == "sliding_attention" and gemma.layer_types[5] == "full_attention"
    names = {"config": transformers.Gemma3Config()}
    exec(code.replace("layer_idx = 0  #", "layer_idx = 5  #"), names)  # the first global layer
    assert names["base"] == gemma.rope_parameters["full_attention"]["rope_theta"] == 1e6, names["base"]
    assert 'if "rope_type" not in rope:  # nested, as in Gemma 3: one dict per layer kind' in code

    # the comment line: "other key sets: DeepSeek-V4's are `main` and `compress`, and Beam's default `full_attention`
    # entry is None"
    assert (
        "# other key sets: DeepSeek-V4's are `main` and `compress`, and Beam's default `full_attention` entry is"
        in (code)
    )
    deepseek = CONFIG_MAPPING["deepseek_v4"]().get_text_config()
    assert set(deepseek.rope_parameters) == {"main", "compress"}
    assert not set(deepseek.rope_parameters) & set(deepseek.layer_types)
    with pytest.raises(KeyError):
        exec(code, {"config": CONFIG_MAPPING["deepseek_v4"]()})
    beam = CONFIG_MAPPING["beam"]().get_text_config()
    assert beam.rope_parameters["full_attention"] is None
    assert "full_attention" in beam.layer_types
    with pytest.raises(TypeError):  # a layer of that kind: None["rope_theta"]
        exec(
            code.replace("layer_idx = 0  #", f"layer_idx = {beam.layer_types.index('full_attention')}  #"),
            {"config": CONFIG_MAPPING["beam"]()},
        )


def test_left_padding_check_matches_the_rows_alone():
    """The collapsed check under "Positions at run time": a tiny random Llama (this seed, CPU, float32) gives a
    left-padded row, with `position_ids` counted from its first real token, the logits of the row run alone, within
    the tolerance 1e-5; float32 rounding on these logits is about 1e-7 (eps times the largest logit, and the
    difference that leaving out `position_ids` makes under plain RoPE); positions all 0, or no `attention_mask`,
    break the match, so the check can fail."""
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    code = _snippet("LlamaForCausalLM")
    out = io.StringIO()
    names: dict = {}
    with contextlib.redirect_stdout(out):
        exec(code, names)
    assert out.getvalue().split() == ["True", "True"], out.getvalue()
    assert "# True True" in code
    model, ids, mask, rows = names["model"], names["ids"], names["mask"], names["rows"]
    batch = names["batch"]
    assert int((mask == 0).sum()) == 2 and bool((mask[1, :2] == 0).all())  # "row 1: two pads on the left"
    assert names["position_ids"][1, 2:].tolist() == [0, 1, 2, 3]  # "each row from its first real token"
    assert float((batch[1, 2:] - rows[1]).abs().max()) <= 1e-5 and float((batch[0] - rows[0]).abs().max()) <= 1e-5

    noise = torch.finfo(torch.float32).eps * float(batch.abs().max())
    assert 1e-8 < noise < 1e-6, noise  # "float32 rounding, about 10^-7 on these logits"
    with torch.no_grad():
        unnumbered = model(ids, attention_mask=mask).logits
        zeros = model(ids, attention_mask=mask, position_ids=torch.zeros_like(ids)).logits
        unmasked = model(ids, position_ids=names["position_ids"]).logits
    off = float((unnumbered[1, 2:] - rows[1]).abs().max())
    assert off < 1e-6, off  # "leaving out `position_ids` changes its logits only by rounding"
    for broken in (zeros, unmasked):  # "positions all 0, or no `attention_mask`, break the match"
        assert float((broken[1, 2:] - rows[1]).abs().max()) > 1e-5 * 10
    assert model.config.rope_parameters["rope_type"] == "default"  # "The model uses plain RoPE"
    assert "The check's tolerance, $10^{-5}$, is far above float32 rounding, about $10^{-7}$ on these logits." in (
        _page()
    )
    assert "positions all 0, or no `attention_mask`, break the match." in _page()


def test_fast_pair_and_turns_in_l_share_one_span_in_llama_31():
    """The worked configuration counts turns over training's L positions, L theta_i / 2 pi, and calls a pair fast
    when it turns at least once over them; the fine print: the glossary's fast pair counts over offsets up to L - 1,
    and in Llama 3.1's head (d 128, base 500 000, L 8192) the two counts sort the pairs alike."""
    page = _page()
    assert "Over training's $L$ positions, pair $i$ makes $L\\theta_i/2\\pi$ *turns*, its *turns in $L$*." in page
    assert "*turns* in $L$" not in page  # the doubled "in L"
    assert "In Llama 3.1's head the two counts sort the pairs alike." in page
    d, base, L = 128, 500_000.0, 8192
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    by_l = [i for i in range(d // 2) if L * theta[i] >= 2 * math.pi]
    by_offsets = [i for i in range(d // 2) if (L - 1) * theta[i] >= 2 * math.pi]
    assert by_l == by_offsets == list(range(35)), by_l
    # "a pair at the edge can turn once in L and still not be fast": theta = 2 pi / L turns exactly once in L and
    # less than once by offset L - 1
    edge = 2 * math.pi / L
    assert L * edge / (2 * math.pi) >= 1 > (L - 1) * edge / (2 * math.pi)


def test_temperature_is_one_over_the_logit_multiplier():
    """Temperature rules: "Multiplying each logit by m(s)^2 is dividing it by a temperature 1/m(s)^2, so the
    temperature falls" (m(s) = 0.1 ln s + 1 > 1 for s > 1), and the block's t = 1/m(8)^2, about 0.69."""
    page = _page()
    assert (
        "Multiplying each logit by $m(s)^2$ is dividing it by a temperature $1/m(s)^2$, so the temperature falls."
        in (page)
    )
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    for s in (2.0, 8.0, 40.0):  # transformers' yarn factor m(s) on cos and sin: a logit temperature 1/m^2 below 1
        config = LlamaConfig(rope_scaling={"rope_type": "yarn", "factor": s, "original_max_position_embeddings": 64})
        _, m = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
        assert abs(m - (0.1 * math.log(s) + 1)) < 1e-12 and 1 / m**2 < 1, (s, m)
    _, m8 = ROPE_INIT_FUNCTIONS["yarn"](
        LlamaConfig(rope_scaling={"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 64}), "cpu"
    )
    t = 1 / m8**2
    assert f"the temperature $1/m(8)^2$ is $t \\approx {t:.2f}$." in page, t


def test_shift_cases_and_bfloat16_takeaway(tmp_path):
    """Positions at run time: "It changes the scores by more in two cases, and the frequencies in a third", the third
    being `dynamic` and `longrope`; the takeaway on bfloat16 matches its section: `model.to(torch.bfloat16)` rounds
    inv_freq and from_pretrained with a dtype keeps it in float32 (checked on a tiny random Llama)."""
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    from transformers import LlamaConfig, LlamaForCausalLM

    page = _page()
    assert "It changes the scores by more in two cases, and the frequencies in a third:" in page
    assert "- `dynamic` and `longrope`, which read the batch's highest position:" in page  # the third bullet
    takeaways = page[page.index("## Takeaways") : page.index("## Configuration fields")]
    assert (
        "- `model.to(torch.bfloat16)` rounds RoPE's frequencies, so angles drift with the key's distance back; pass"
        " the `dtype` to `from_pretrained` instead." in takeaways
    )
    section = page[page.index("### bfloat16 frequencies") : page.index("## Takeaways")]
    assert "a score's angle is off by the key's distance back times the rounding error of $\\theta_i$." in section
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4
    )
    model = LlamaForCausalLM(config)
    model.save_pretrained(tmp_path)
    loaded = LlamaForCausalLM.from_pretrained(tmp_path, dtype=torch.bfloat16)
    assert loaded.model.rotary_emb.inv_freq.dtype == torch.float32  # "pass the dtype to from_pretrained instead"
    assert next(loaded.parameters()).dtype == torch.bfloat16
    assert model.to(torch.bfloat16).model.rotary_emb.inv_freq.dtype == torch.bfloat16  # rounded by model.to


def test_llama_4_scaling_beta_row_says_where_transformers_reads_it():
    """The row `llama_4_scaling_beta`: a key inside `rope_parameters`, read there with L by transformers'
    modeling_ministral3.py and modeling_mistral4.py."""
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    import inspect

    from transformers.models.ministral3 import modeling_ministral3
    from transformers.models.mistral4 import modeling_mistral4

    for module in (modeling_ministral3, modeling_mistral4):
        source = inspect.getsource(module)
        assert 'self.config.rope_parameters.get("llama_4_scaling_beta")' in source, module.__name__
        assert 'self.config.rope_parameters.get("original_max_position_embeddings")' in source, module.__name__
        assert "config.llama_4_scaling_beta" not in source, module.__name__
    assert (
        "a key inside `rope_parameters`, not a top-level field: transformers' `modeling_ministral3.py` and"
        " `modeling_mistral4.py` read it there, as they read $L$ |" in _raw()
    )
