"""The library's internal layer: validation, the query/key grid, the frequency ladder and the RoPE and
bias cores that the public modules share.

Everything here trusts its inputs (the public functions of :mod:`posenc.encodings`,
:mod:`posenc.scaling`, :mod:`posenc.methods` and :mod:`posenc.attention` validate them once, at
the boundary) and imports nothing from the rest of the package, so any module may use it without
an import cycle. The names are not part of the public API.
"""
