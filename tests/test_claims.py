"""Claims: expectations, the verdict table (strict known deviations) and the sidecar."""

import json
import math

import numpy as np
import pytest

from companion.claims import (Claims, at_least, at_most, between, close_to, is_infinite, is_true,
                              load_claims, markdown_table, verdict, within)


@pytest.mark.parametrize("holds, deviation, expected", [
    (True, None, "held"),
    (False, None, "failed"),
    (False, "the paper's Eq. 15 is 2x too large", "known-deviation"),
    (True, "the paper's Eq. 15 is 2x too large", "failed"),  # strict: a deviation that holds fails
])
def test_verdict_table(holds, deviation, expected):
    assert verdict(holds, deviation) == expected


def test_expectations():
    assert at_least(5).holds(5) and not at_least(5).holds(4.99)
    assert at_most(1).holds(1) and not at_most(1).holds(1.01)
    assert between(0, 1).holds(0.5) and not between(0, 1).holds(1.5)
    assert within(10, 0.15).holds(11.4) and not within(10, 0.15).holds(11.6)
    assert close_to(1, 0.1).holds(0.95) and not close_to(1, 0.1).holds(1.2)
    assert is_true().holds(True) and not is_true().holds(False) and is_true().holds(np.bool_(True))
    assert is_infinite().holds(math.inf) and not is_infinite().holds(1e300)


def test_nan_and_wrong_types_never_hold():
    for e in (at_least(0), at_most(1e9), between(-1e9, 1e9), within(1, 10), close_to(0, 1e9)):
        assert not e.holds(math.nan)
        assert not e.holds("3")
        assert not e.holds(None)
    assert not within(1, 10).holds(math.inf)


def test_sidecar_records_every_check_at_once(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.check("a", "Fig. 1", "ratio at least 5", np.float64(7.0), at_least(5))
    on_disk = json.loads((tmp_path / "demo.json").read_text())
    assert on_disk[0]["verdict"] == "held" and on_disk[0]["measured"] == 7.0
    c.check("b", "Eq. 15", "late loss", 2.0, within(1.0, 0.1), known_deviation="factor 2")
    c.check("c", "Table 1", "monotone", False, is_true("monotone"))
    recs = load_claims(tmp_path)
    assert [r.verdict for r in recs] == ["held", "known-deviation", "failed"]
    assert {"id", "paper_ref", "statement", "measured", "expected", "verdict", "profile"} <= set(on_disk[0])
    assert c.summary() == {"held": 1, "failed": 1, "known-deviation": 1}
    assert "known deviation — factor 2" in markdown_table(recs)


def test_duplicate_claim_ids_are_refused(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.check("a", "Fig. 1", "s", 1, at_least(0))
    with pytest.raises(ValueError):
        c.check("a", "Fig. 1", "s", 1, at_least(0))
