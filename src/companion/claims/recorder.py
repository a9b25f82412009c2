"""The recorder of a chapter's claims, :class:`Claims`: each check decided from numbers as it is made.

See :mod:`companion.claims` for the verdict rules; the record it writes is
:class:`~companion.claims.record.Claim`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from companion.claims.expectations import (
    ALL_SEEDS,
    MIN_SEEDS,
    ControlRun,
    Expectation,
    Prediction,
    Rule,
    _plain,
    control_verdict,
    decide,
    deviation_within_spread,
    interval_reason,
    undecided_reason,
)
from companion.claims.hypotheses import decide_hypothesis, verdict_table, written_verdict
from companion.claims.record import KINDS, MEASURED_KINDS, STRICT_PROFILES, VERDICTS, Claim, claims_dir, verdict
from companion.claims.tables import item_statuses, markdown_table


class Claims:
    """The claims of one chapter at one profile."""

    def __init__(self, chapter: str, profile: str, directory: Path | None = None):
        self.chapter, self.profile = chapter, profile
        self.path = (directory or claims_dir()) / f"{chapter}.json"
        self.records: list[Claim] = []
        self._write()

    def check(self, id: str, paper_ref: str, statement: str, measured: Any,
              expected: Expectation, known_deviation: str | None = None) -> Claim:
        """Record one claim and return it; the verdict is computed from ``expected``.

        The older form: a chapter not yet migrated to :meth:`claim` (no quote, basis or seeds;
        ``companion claims --weak`` lists these)."""
        measured = _plain(measured)
        return self._add(Claim(id, paper_ref, statement, measured, str(expected),
                               verdict(expected.holds(measured), known_deviation), self.profile,
                               self.chapter, known_deviation, margin=expected.margin(measured)))

    def claim(self, id: str, *, ref: str, quantity: str, expected: Expectation, measured: Any = None,
              per_seed: list | None = None, rule: Rule = ALL_SEEDS, quote: str | None = None,
              basis: str | None = None, kind: str = "paper", known_deviation: str | None = None,
              one_value: str | None = None, interval: tuple[float, float] | None = None,
              control: ControlRun | list[ControlRun] | None = None, no_control: str | None = None,
              subset: str | None = None) -> Claim:
        """Record a claim that can fail; see the module docstring. Give ``measured`` (one value:
        say why in ``one_value`` if it comes from a trained run) or ``per_seed`` (one per seed). A value
        computed from several draws (a mean over them) may carry its 95% ``interval`` over the draws
        (:func:`~companion.claims.expectations.bootstrap_interval`): when it reaches across the bound the claim
        is undecided.

        ``control``: the same measurement on a run without the paper's effect (:class:`ControlRun`, or
        several): a held claim whose control passes too is ``vacuous``, one whose control meets the bound
        in some seeds ``undecided`` (:func:`~companion.claims.expectations.control_verdict`). A claim from a
        trained run with no control says in ``no_control`` why none applies; ``companion claims --weak``
        lists those with neither. ``subset`` says which seeds ``per_seed`` holds when the runs decide it (the
        seeds that generalise): fewer than 3 then read ``undecided``, with that reason, instead of an error."""
        if kind not in KINDS:
            raise ValueError(f"unknown claim kind {kind!r}; valid kinds: {', '.join(KINDS)}")
        if (measured is None) == (per_seed is None):
            raise ValueError(f"claim {id!r}: give exactly one of measured= and per_seed=")
        if self.profile in STRICT_PROFILES:
            if not basis or (kind == "paper" and not quote):  # a finding has no words of the paper to quote
                raise ValueError(f"claim {id!r} at profile {self.profile}: a claim needs quote= (the paper's words) "
                                 f"and basis= ('paper', or the argument for its bound); a consistency check basis=")
            if per_seed is not None and kind in MEASURED_KINDS and len(per_seed) < MIN_SEEDS \
                    and self.profile != "paper" and subset is None:
                raise ValueError(f"claim {id!r} at profile {self.profile}: {len(per_seed)} seed(s); a claim from "
                                 f"trained runs needs at least {MIN_SEEDS}")
        if per_seed is not None:
            values = [_plain(v) for v in per_seed]
            holds, shown, k, margin = decide(expected, values, rule)
            extra = dict(per_seed=values, rule=str(rule), seeds_held=k)
            why = undecided_reason(expected, values, rule, k)
            if kind in MEASURED_KINDS and len(values) < MIN_SEEDS:  # a subset of the seeds, or a kept result of fewer
                why = (f"{len(values)} seed(s): {subset}; a verdict needs at least {MIN_SEEDS}" if subset else
                       f"{len(values)} seed(s) at this scale (a kept result computed before the figure ran more "
                       f"seeds); a verdict needs at least {MIN_SEEDS}")
            if why is None and known_deviation is not None and not holds:
                why = deviation_within_spread(expected, values)
            if self.profile in STRICT_PROFILES and kind in MEASURED_KINDS and why:
                extra["undecided"] = why  # the seeds cannot tell which side of the bound the effect is on
        else:
            shown = _plain(measured)
            holds, margin, extra = expected.holds(shown), expected.margin(shown), {}
            why = interval_reason(expected, shown, interval) if interval is not None else None
            if self.profile in STRICT_PROFILES and (kind in MEASURED_KINDS or interval is not None) and why:
                extra["undecided"] = why  # a check from draws (with its interval) is undecided like a claim
        decided = "undecided" if extra.get("undecided") else verdict(holds, known_deviation)
        if control is not None:
            rule_used = rule if per_seed is not None else ALL_SEEDS
            extra["controls"] = [c.record(expected, rule_used) for c in
                                 ([control] if isinstance(control, ControlRun) else control)]
            decided, why_not = control_verdict(decided, extra["controls"])
            if decided == "vacuous":
                extra["vacuous"] = why_not
            elif why_not:
                extra["undecided"] = why_not
        return self._add(Claim(id, ref, quantity, shown, str(expected), decided,
                               self.profile, self.chapter, known_deviation, quantity=quantity, quote=quote,
                               basis=basis, kind=kind, margin=margin, one_value=one_value, no_control=no_control,
                               **extra))

    def hypothesis(self, id: str, *, ref: str, setting: str, quantity: str, prediction: Prediction,
                   measured: Any = None, per_seed: list | None = None, rule: Rule = ALL_SEEDS,
                   basis: str | None = None, group: str | None = None, applicable: list | None = None,
                   nulls: dict | None = None, controls: list | None = None, why_not: str | None = None) -> Claim:
        """Record a test of one paper's explanation in ``setting``:
        :func:`companion.claims.hypotheses.decide_hypothesis`."""
        return self._add(decide_hypothesis(self.chapter, self.profile, id, ref=ref, setting=setting, quantity=quantity,
                                           prediction=prediction, measured=measured, per_seed=per_seed, rule=rule,
                                           basis=basis, group=group, applicable=applicable, nulls=nulls,
                                           controls=controls, why_not=why_not))

    def verdict_table(self, records: list[Claim] | None = None):
        """The hypotheses' verdicts, explanation by setting (:func:`companion.claims.hypotheses.verdict_table`),
        of ``records`` (default: this chapter's), for display."""
        from IPython.display import Markdown  # IPython only where a chapter displays: the CLI reads claims without it

        return Markdown(verdict_table(self.records if records is None else records))

    def written_verdict(self, records: list[Claim] | None = None):
        """The verdict table in words, one paragraph per explanation
        (:func:`companion.claims.hypotheses.written_verdict`),
        for display."""
        from IPython.display import Markdown

        return Markdown(written_verdict(self.records if records is None else records))

    def _add(self, claim: Claim) -> Claim:
        if any(c.id == claim.id for c in self.records):
            raise ValueError(f"claim id {claim.id!r} recorded twice in chapter {self.chapter!r}")
        self.records.append(claim)
        self._write()
        return claim

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps([asdict(c) for c in self.records], indent=1, default=str))
        os.replace(tmp, self.path)

    def summary(self) -> dict[str, int]:
        """Verdict counts of the paper's claims (consistency checks and hypotheses apart)."""
        return {v: sum(c.verdict == v for c in self.records if c.kind == "paper") for v in VERDICTS}

    def table(self):
        """The chapter's claims table, for display as the last output of a chapter, under the status
        of each paper item its claims cover (:func:`item_statuses`)."""
        from IPython.display import Markdown

        return Markdown(item_statuses(self.records) + "\n\n" + markdown_table(self.records, with_chapter=False))


