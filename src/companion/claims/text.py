"""Claims on the terminal (``companion claims``): the table, the fragile held claims, and the diff of
two builds' verdicts — the check that a verdict is a fact about the paper, not about one seed set or one
machine (build the book at ``--seed 0`` and ``--seed 1000``, or on two CPUs, and compare)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.claims.expectations import _fmt
from companion.claims.record import HYPOTHESIS_VERDICTS, VERDICTS, Claim, load_claims

#: verdicts that decide a build: a claim of the paper that is held, failed or a known deviation. An
#: ``undecided`` claim and every hypothesis are reported, not gated.
GATING = ("held", "failed", "known-deviation")


def weak(records: list[Claim], near: float = 0.05) -> list[tuple[Claim, list[str]]]:
    """Held claims of the paper that are fragile: on one value of a trained run, within ``near``
    (relative) of their bound, with a seed on the other side, without the paper's words, or from a
    trained run with no control and no reason why none applies."""
    out = []
    for c in records:
        if c.kind not in ("paper", "finding") or c.verdict != "held":
            continue
        why = []
        if c.quote is None and c.kind == "paper":  # a finding is this reproduction's, with no words of the paper
            why.append("no quote or basis (older claim form)")
        if c.kind == "finding" and not c.basis:
            why.append("no basis (the argument for its bound)")
        if not c.per_seed and c.one_value is None and c.quote is None:
            why.append("one value")
        if c.one_value:
            why.append(f"one value ({c.one_value})")
        if c.per_seed and c.seeds_held is not None and c.seeds_held < len(c.per_seed):
            why.append(f"a seed on the other side ({c.seeds} hold)")
        if c.margin is not None and abs(c.margin) < near:
            why.append(f"within {near:.0%} of its bound (margin {c.margin:+.1%})")
        if (c.per_seed or c.one_value) and not c.controls and not c.no_control:
            why.append("no control (a run without the effect, measured the same way), and no reason why none applies")
        if why:
            out.append((c, why))
    return out


def text_table(records: list[Claim]) -> str:
    """A plain-text table for the terminal (``companion claims``)."""
    rows = [("chapter", "claim", "paper", "measured", "expected", "seeds", "verdict", "profile")]
    rows += [(c.chapter, c.id + (f" ({c.kind})" if c.kind != "paper" else ""), c.paper_ref, _fmt(c.measured),
              c.expected, c.seeds, c.verdict, c.profile) for c in records]
    widths = [min(max(len(str(r[i])) for r in rows), 40) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(v)[:40].ljust(w) for v, w in zip(r, widths)) for r in rows)


# --------------------------------------------------------------------------- two builds
@dataclass(frozen=True)
class Change:
    """One claim as two builds decided it (a missing side: the claim exists in one build only)."""

    chapter: str
    id: str
    kind: str
    a: Claim | None
    b: Claim | None

    @property
    def verdicts(self) -> tuple[str, str]:
        return (self.a.verdict if self.a else "absent", self.b.verdict if self.b else "absent")

    @property
    def flipped(self) -> bool:
        return self.verdicts[0] != self.verdicts[1]

    @property
    def gating_flip(self) -> bool:
        """A verdict change that would change whether a build passes, or what it publishes as decided:
        between two gating verdicts, or between a gating one and undecided or absent."""
        va, vb = self.verdicts
        return self.kind in ("paper", "finding") and self.flipped and (va in GATING or vb in GATING)

    @property
    def moved(self) -> bool:
        """Whether a value changed, bit for bit (NaN equals NaN: both builds measured the same nothing)."""
        def same(x: Any, y: Any) -> bool:
            return json.dumps(x, default=str) == json.dumps(y, default=str)

        return self.a is not None and self.b is not None and not (
            same(self.a.measured, self.b.measured) and same(self.a.per_seed, self.b.per_seed))

    def line(self) -> str:
        va, vb = self.verdicts

        def values(c: Claim | None) -> str:
            if c is None:
                return "—"
            return _fmt(c.measured) + (f" [{_fmt(c.per_seed)}]" if c.per_seed else "")

        kind = "" if self.kind == "paper" else f" ({self.kind})"
        head = f"{va} → {vb}" if self.flipped else va
        return f"{self.chapter}/{self.id}{kind}: {head}; {values(self.a)} → {values(self.b)}"


def diff(a: list[Claim], b: list[Claim]) -> list[Change]:
    """Every claim of either build, paired by (chapter, id), in the order of ``a`` then ``b``'s new ones."""
    ka = {(c.chapter, c.id): c for c in a}
    kb = {(c.chapter, c.id): c for c in b}
    keys = list(ka) + [k for k in kb if k not in ka]
    return [Change(ch, i, (ka.get((ch, i)) or kb[(ch, i)]).kind, ka.get((ch, i)), kb.get((ch, i)))
            for ch, i in keys]


def counts(records: list[Claim]) -> dict[str, dict[str, int]]:
    """Per chapter: claims of the paper by verdict, and hypotheses by verdict."""
    out: dict[str, dict[str, int]] = {}
    for c in records:
        row = out.setdefault(c.chapter, {**{v: 0 for v in VERDICTS},
                                         **{f"hypotheses {v}": 0 for v in HYPOTHESIS_VERDICTS}})
        if c.kind == "paper":
            row[c.verdict] += 1
        elif c.kind == "hypothesis":
            row[f"hypotheses {c.verdict}"] += 1
    return out


def diff_text(a_dir: Path, b_dir: Path) -> tuple[str, int]:
    """``companion claims --diff A B``: verdict changes first (gating ones marked), then values that moved
    with the same verdict; returns the text and the number of gating flips."""
    changes = diff(load_claims(a_dir), load_claims(b_dir))
    if not changes:
        return f"no claims under {a_dir} or {b_dir}", 0
    gating = [c for c in changes if c.gating_flip]
    other = [c for c in changes if c.flipped and not c.gating_flip]
    moved = [c for c in changes if c.moved and not c.flipped]
    lines = [f"A = {a_dir}", f"B = {b_dir}", "",
             f"{len(gating)} gating verdict(s) differ (claims of the papers: held / failed / known deviation):"]
    lines += [f"  {c.line()}" for c in gating] or ["  none"]
    lines += ["", f"{len(other)} other verdict(s) differ (undecided claims, hypotheses, consistency checks):"]
    lines += [f"  {c.line()}" for c in other] or ["  none"]
    lines += ["", f"{len(moved)} value(s) moved with the same verdict:"]
    lines += [f"  {c.line()}" for c in moved] or ["  none"]
    same = len(changes) - len(gating) - len(other) - len(moved)
    lines += ["", f"{len(changes)} claims: {len(gating)} gating flips, {len(other)} other flips, "
                  f"{len(moved)} moved, {same} identical"]
    return "\n".join(lines), len(gating)
