"""Measures computed on trained models and kernels (one module per kind of measure)."""
