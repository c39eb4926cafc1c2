import matplotlib
import pytest

from posenc.widgets import (
    EXPLORERS,
    DecayBoundExplorer,
    RopeRotationExplorer,
    RopeScoreExplorer,
    SinusoidalHeatmapExplorer,
)

matplotlib.use("Agg")


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_every_declared_value_draws(name):
    cls = EXPLORERS[name]
    explorer = cls()
    artists_before = {k: id(v) for k, v in explorer.artists.items()}
    for p in cls.params:
        for value in p.values():
            ok = explorer.update(**{p.name: value})
            assert ok or "pair" in (explorer.error or ""), explorer.error
    # redraw updated the same artists; it did not rebuild the figure
    assert {k: id(v) for k, v in explorer.artists.items()} == artists_before
    assert explorer.render_png().startswith(b"\x89PNG")


def test_sinusoidal_update_changes_image_data():
    e = SinusoidalHeatmapExplorer()
    assert e.update(d_model=32, length=50)
    assert e.artists["image"].get_array().shape == (50, 32)
    assert "d_model=32" in e.ax.get_title()


@pytest.mark.parametrize("changes,fragment", [
    ({"base": 1.0}, "base must be > 1"),
    ({"base": -5.0}, "base must be > 1"),
    ({"d_model": 7}, "d_model must be even"),
    ({"length": 0}, "length must be >= 2"),
    ({"colour": 3}, "unknown parameter"),
])
def test_bad_values_give_a_message_not_a_traceback(changes, fragment):
    e = SinusoidalHeatmapExplorer()
    before = dict(e.values)
    assert e.update(**changes) is False
    assert fragment in e.error
    assert e.values == before  # nothing changed
    assert e.update(base=500.0) and e.error is None


def test_rope_pair_out_of_range_message():
    e = RopeRotationExplorer(head_dim=8)
    assert not e.update(pair=4)
    assert "pair must be < head_dim // 2 = 4" in e.error


def test_rope_rotation_point_is_on_the_circle_at_m_theta():
    import math

    e = RopeRotationExplorer(head_dim=8, pair=1, base=10000.0, position=30)
    x, y = e.artists["arrow"].get_data()
    theta = 10000.0 ** (-2 / 8)
    assert x[-1] == pytest.approx(math.cos(30 * theta)) and y[-1] == pytest.approx(math.sin(30 * theta))


def test_widget_shows_error_message():
    pytest.importorskip("ipywidgets")
    e = SinusoidalHeatmapExplorer()
    box = e.widget()
    e._controls["base"].value = 0.5  # what a reader typing into the box does
    assert "base must be &gt; 1" in e._message.value
    e._controls["base"].value = 100.0
    assert e._message.value == ""
    assert e.values["base"] == 100.0 and len(box.children) == 3


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_static_companion_has_one_panel_per_setting(name):
    import matplotlib.pyplot as plt

    cls = EXPLORERS[name]
    fig = cls.static_companion()
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert len(visible) == len(cls.companion)
    assert all(ax.get_title() for ax in visible)
    plt.close(fig)


def test_rope_score_explorer_is_toeplitz_with_rope_and_constant_without():
    import torch

    with_rope = RopeScoreExplorer(head_dim=16, length=20).data
    for offset in (-5, 0, 7):
        diag = torch.diagonal(with_rope, offset)
        assert torch.allclose(diag, diag[0].expand_as(diag))
    assert not torch.allclose(with_rope, with_rope[0, 0].expand_as(with_rope))
    without = RopeScoreExplorer(head_dim=16, length=20, rope=0).data
    assert torch.allclose(without, without[0, 0].expand_as(without))


def test_decay_explorer_starts_at_the_maximum():
    e = DecayBoundExplorer(head_dim=64)
    assert e.data["bound"][0] == pytest.approx((32 + 1) / 2)


def test_alibi_explorer_head_out_of_range_and_choice_param():
    from posenc.widgets import AlibiBiasExplorer

    e = AlibiBiasExplorer(n_heads=4)
    assert not e.update(head=4) and "head must be < n_heads = 4" in e.error
    assert not e.update(causal="both") and "causal must be one of" in e.error
    assert e.update(causal="bidirectional") and e.values["causal"] == "bidirectional"


def test_scaling_explorer_linear_is_flat_at_one_over_factor():
    import numpy as np

    from posenc.widgets import RopeScalingExplorer

    e = RopeScalingExplorer(rope_type="linear", factor=4.0)
    assert np.allclose(e.data["ratio"], 0.25)
