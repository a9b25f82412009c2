"""Claims: each check a chapter makes of its paper, with a verdict computed from numbers.

A chapter records a claim with :meth:`Claims.check`, giving the paper reference
(``"Fig. 3"``, ``"Table 1"``, ``"Eq. 11"``), the paper's statement, the value this run
measured, and an *expectation* object (:func:`at_least`, :func:`within`, ...) that decides
whether the measured value agrees with the statement. The verdict is computed, never given:

============================  ==================  =====================================
``known_deviation``           expectation holds    verdict
============================  ==================  =====================================
``None``                      yes                  ``held``
``None``                      no                   ``failed``
a reason                      no                   ``known-deviation`` (the paper is wrong,
                                                   or a reduced profile cannot show it)
a reason                      yes                  ``failed`` -- a known deviation that
                                                   unexpectedly holds, like a strict xfail
============================  ==================  =====================================

For a known deviation the expectation still states *the paper's* claim (the one that does not
hold), so the record shows what the paper said and by how much the reproduction differs.

Every check rewrites ``<claims dir>/<chapter>.json`` at once, so a chapter that later raises
still leaves the claims it reached. :meth:`Claims.table` renders the chapter's claims table.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

VERDICTS = ("held", "failed", "known-deviation")


# --------------------------------------------------------------------------- expectations
@dataclass(frozen=True)
class Expectation:
    """A named predicate on the measured value, with the text shown in the claims table."""

    text: str
    predicate: Callable[[Any], bool]

    def holds(self, measured: Any) -> bool:
        try:
            return bool(self.predicate(measured))
        except (TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return self.text


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def at_least(bound: float) -> Expectation:
    return Expectation(f"≥ {_fmt(bound)}", lambda x: _num(x) and x >= bound)


def at_most(bound: float) -> Expectation:
    return Expectation(f"≤ {_fmt(bound)}", lambda x: _num(x) and x <= bound)


def greater_than(bound: float) -> Expectation:
    return Expectation(f"> {_fmt(bound)}", lambda x: _num(x) and x > bound)


def less_than(bound: float) -> Expectation:
    return Expectation(f"< {_fmt(bound)}", lambda x: _num(x) and x < bound)


def between(lo: float, hi: float) -> Expectation:
    return Expectation(f"in [{_fmt(lo)}, {_fmt(hi)}]", lambda x: _num(x) and lo <= x <= hi)


def within(target: float, rel: float) -> Expectation:
    """|measured − target| ≤ rel·|target| (relative agreement)."""
    return Expectation(f"{_fmt(target)} ± {rel:.0%}",
                       lambda x: _finite(x) and abs(x - target) <= rel * abs(target))


def close_to(target: float, tol: float) -> Expectation:
    """|measured − target| ≤ tol (absolute agreement)."""
    return Expectation(f"{_fmt(target)} ± {_fmt(tol)}", lambda x: _finite(x) and abs(x - target) <= tol)


def is_true(text: str = "true") -> Expectation:
    """For a measured boolean (e.g. 'monotone in λ'); ``text`` says what true means."""
    return Expectation(text, lambda x: x is True or (hasattr(x, "item") and bool(x.item()) is True))


def is_infinite() -> Expectation:
    return Expectation("∞ (never reached)", lambda x: _num(x) and math.isinf(x) and x > 0)


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


def _fmt(x: Any) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-3):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return str(x)


def _plain(x: Any) -> Any:
    """numpy/torch scalars -> Python numbers, so the sidecar is plain JSON."""
    if hasattr(x, "item") and getattr(x, "ndim", 0) == 0:
        x = x.item()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Claim:
    id: str
    paper_ref: str
    statement: str
    measured: Any
    expected: str
    verdict: str
    profile: str
    chapter: str
    reason: str | None = None  # why a known deviation is expected

    @property
    def ok(self) -> bool:
        return self.verdict in ("held", "known-deviation")

    def _repr_markdown_(self) -> str:
        """Shown in the chapter where the claim is checked."""
        reason = f" ({self.reason})" if self.reason else ""
        return (f"**{BADGE[self.verdict]}**{reason} — `{self.id}` ({self.paper_ref}): {self.statement}. "
                f"Measured **{_fmt(self.measured)}**, expected {self.expected}.")


def verdict(holds: bool, known_deviation: str | None) -> str:
    """The verdict table of the module docstring."""
    if known_deviation is None:
        return "held" if holds else "failed"
    return "failed" if holds else "known-deviation"


def claims_dir() -> Path:
    if os.environ.get("COMPANION_CLAIMS_DIR"):
        return Path(os.environ["COMPANION_CLAIMS_DIR"])
    from companion.cache import repo_root

    root = repo_root() or Path.cwd()
    return root / "_build" / "claims"


class Claims:
    """The claims of one chapter at one profile."""

    def __init__(self, chapter: str, profile: str, directory: Path | None = None):
        self.chapter, self.profile = chapter, profile
        self.path = (directory or claims_dir()) / f"{chapter}.json"
        self.records: list[Claim] = []
        self._write()

    def check(self, id: str, paper_ref: str, statement: str, measured: Any,
              expected: Expectation, known_deviation: str | None = None) -> Claim:
        """Record one claim and return it; the verdict is computed from ``expected``."""
        if any(c.id == id for c in self.records):
            raise ValueError(f"claim id {id!r} recorded twice in chapter {self.chapter!r}")
        measured = _plain(measured)
        claim = Claim(id, paper_ref, statement, measured, str(expected),
                      verdict(expected.holds(measured), known_deviation), self.profile,
                      self.chapter, known_deviation)
        self.records.append(claim)
        self._write()
        return claim

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps([asdict(c) for c in self.records], indent=1, default=str))
        os.replace(tmp, self.path)

    def summary(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.records) for v in VERDICTS}

    def table(self):
        """The chapter's claims table, for display as the last output of a chapter."""
        from IPython.display import Markdown

        return Markdown(markdown_table(self.records, with_chapter=False))


def load_claims(directory: Path | None = None) -> list[Claim]:
    """Every claim recorded under ``directory`` (default: the last build's claims)."""
    out: list[Claim] = []
    for f in sorted((directory or claims_dir()).glob("*.json")):
        out += [Claim(**d) for d in json.loads(f.read_text())]
    return out


BADGE = {"held": "✅ held", "failed": "❌ failed", "known-deviation": "⚠️ known deviation"}


def markdown_table(records: list[Claim], with_chapter: bool = True) -> str:
    if not records:
        return "*No claims recorded.*"
    head = (["chapter"] if with_chapter else []) + ["claim", "paper", "statement", "measured",
                                                    "expected", "verdict"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in records:
        note = f" — {c.reason}" if c.reason else ""
        cells = ([c.chapter] if with_chapter else []) + [
            f"`{c.id}`", c.paper_ref, c.statement.replace("|", "\\|"), _fmt(c.measured),
            c.expected, BADGE[c.verdict] + note.replace("|", "\\|")]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def text_table(records: list[Claim]) -> str:
    """A plain-text table for the terminal (``companion claims``)."""
    rows = [("chapter", "claim", "paper", "measured", "expected", "verdict", "profile")]
    rows += [(c.chapter, c.id, c.paper_ref, _fmt(c.measured), c.expected, c.verdict, c.profile)
             for c in records]
    widths = [min(max(len(str(r[i])) for r in rows), 40) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(v)[:40].ljust(w) for v, w in zip(r, widths)) for r in rows)
