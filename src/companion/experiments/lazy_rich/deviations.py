"""Known deviations of the lazy-to-rich chapter: for each claim, the profiles at which this
reproduction does not show the paper's effect, and the measured numbers that say so
(``deviations.json`` beside this module: data, so that recording a measured number does not
invalidate the results cache). A claim listed there whose expectation starts to hold fails the
build (a strict expected failure), so each entry must be re-examined when the runs change."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def _known() -> dict[str, dict[str, str]]:
    """claim id -> {profile: the reason, with the numbers measured at that profile}."""
    return json.loads((Path(__file__).parent / "deviations.json").read_text())


def known_deviation(claim_id: str, profile: str) -> str | None:
    """The reason ``claim_id`` is a known deviation at ``profile`` (None: the paper's claim is expected to hold)."""
    return _known().get(claim_id, {}).get(profile)
