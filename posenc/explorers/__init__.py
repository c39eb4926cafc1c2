"""The book's interactive explorers (tooling on the library; needs the ``widgets`` extra).

Each explorer is a small class (parameters, a plot kind, ``compute`` and a title) with three faces
drawn by the same code: ``SomeExplorer().widget()`` (live controls over a kernel),
``SomeExplorer.frames_widget()`` (the HTML book's kernel-less controls over pre-rendered frames) and
``SomeExplorer.static_companion()`` (small multiples for print).

Modules, one concept each:

- :mod:`posenc.explorers.params`: :class:`Param` (a parameter as data), :func:`nice_ceil`, the
  sizes figures and controls are shown at
- :mod:`posenc.explorers.plots`: the plot kinds :class:`Heatmap`, :class:`Curves`, :class:`Rotation`
- :mod:`posenc.explorers.canvas`: the layered drawing that redraws only what changed, and a fast PNG
  encoder
- :mod:`posenc.explorers.framework`: :class:`Explorer`, the headless path, the static companion and
  the kernel-less frames
- :mod:`posenc.explorers.controls`: the ipywidgets pieces both widget faces share
- :mod:`posenc.explorers.live`: the live widget's controls and their rendering ahead
- :mod:`posenc.explorers.catalog`: the book's explorers and ``EXPLORERS``

The explorers use the library through the top-level :mod:`posenc` only. Importing this package
imports neither matplotlib nor ipywidgets; they are imported when a figure or a widget is built.
"""

from . import catalog
from .catalog import (
    BASE,
    EXPLORERS,
    HEAD_DIM,
    AlibiBiasExplorer,
    DecayBoundExplorer,
    LearnedBiasExplorer,
    ModelScalingExplorer,
    RopeCosSinExplorer,
    RopeRotationExplorer,
    RopeScalingExplorer,
    RopeScoreExplorer,
    ShawIndexExplorer,
    SinusoidalHeatmapExplorer,
    SinusoidalSimilarityExplorer,
)
from .framework import Explorer
from .params import FRAME_FORMAT, HTML_SCALE, LIVE_SCALE, MIN_SLIDER_PX, PX_PER_INCH, TITLE_SIZE, Param, nice_ceil
from .plots import Curves, Heatmap, Plot, Rotation

# Spelled out: a type checker reads only a literal __all__ and explicit imports (a computed list hides
# the names from it); tests/test_package.py checks both against the modules' own __all__.
__all__ = [
    # this package
    "Explorer",
    "Param",
    "nice_ceil",
    "Plot",
    "Heatmap",
    "Curves",
    "Rotation",
    "PX_PER_INCH",
    "LIVE_SCALE",
    "HTML_SCALE",
    "FRAME_FORMAT",
    "TITLE_SIZE",
    "MIN_SLIDER_PX",
    # catalog
    "BASE",
    "HEAD_DIM",
    "SinusoidalHeatmapExplorer",
    "SinusoidalSimilarityExplorer",
    "ShawIndexExplorer",
    "RopeRotationExplorer",
    "RopeCosSinExplorer",
    "RopeScoreExplorer",
    "DecayBoundExplorer",
    "AlibiBiasExplorer",
    "RopeScalingExplorer",
    "ModelScalingExplorer",
    "LearnedBiasExplorer",
    "EXPLORERS",
]
