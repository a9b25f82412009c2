"""How a config declares its settings: :func:`one_of` validates a named choice with a one-line
error that lists the valid values; :func:`unstated` marks a field whose value the paper does not
state (its default is ours, and the departures table says so).

A leaf module (no imports from the book), so that data, models and training code declare their
settings without depending on the book machine.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class ParameterError(ValueError):
    """A bad profile, device, chapter or parameter; the message lists the valid values."""


def one_of(kind: str, value: Any, valid: tuple | list) -> Any:
    """Return ``value`` if it is in ``valid``, else raise a one-line error listing them."""
    if value not in valid:
        raise ParameterError(f"unknown {kind} {value!r}; valid {kind}s: {', '.join(map(str, valid))}")
    return value


def unstated(default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING,
             note: str = "") -> Any:
    """A config field whose value the paper does not state (the default is ours)."""
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata={"stated": False, "note": note})
