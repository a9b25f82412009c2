"""Grokking, Reproduced: the shared library behind the book.

Importing ``companion`` is cheap (no torch, no Jupyter) so that the ``companion`` command
starts fast; submodules import their heavy dependencies themselves.
"""

__version__ = "0.1.0"

from companion.numerics import pin as _pin_numerics

_pin_numerics()  # the CPU kernels every process runs (companion.numerics), before torch runs any
