"""Named choices: the one-line error for a setting outside its valid values.

A leaf module (no imports from the book), so that data, models and training code can validate
their ``kind``-like settings without depending on the book machine.
"""

from __future__ import annotations

from typing import Any


class ParameterError(ValueError):
    """A bad profile, device, chapter or parameter; the message lists the valid values."""


def one_of(kind: str, value: Any, valid: tuple | list) -> Any:
    """Return ``value`` if it is in ``valid``, else raise a one-line error listing them."""
    if value not in valid:
        raise ParameterError(f"unknown {kind} {value!r}; valid {kind}s: {', '.join(map(str, valid))}")
    return value
