"""``python -m posenc.measure {shaw|attention} METHOD LENGTH HEADS HEAD_DIM {K|REPEAT}``: the fresh
process of :func:`posenc.measure.shaw_peak_memory` and :func:`posenc.measure.attention_cost`."""

import sys

from .costs import _main

_main(sys.argv[1:])
