"""Every network of the book, one module per family.

Model modules import :mod:`companion.data` at most, nothing of the book machine.
"""
