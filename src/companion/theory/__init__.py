"""Closed-form and exact-recursion theory used by the chapters (one module per paper topic)."""
