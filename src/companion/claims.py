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

**Claims that can fail** (:meth:`Claims.claim`, the form every migrated chapter uses) state
each number once, with keywords: ``ref`` (the paper item), ``quantity`` (what is measured),
``expected``, and either ``measured`` or ``per_seed`` with an aggregation ``rule``
(:data:`ALL_SEEDS`, :data:`MEDIAN`, :func:`seeds_at_least`). Each carries ``quote`` (the paper's
words it tests) and ``basis`` (``"paper"`` when the number is the paper's, else a one-line
argument for the bound — never where the measurements fell); at the cpu and paper profiles a
claim without them is an error, and a per-seed claim needs at least 3 seeds (at the paper profile a kept
result of fewer seeds reads ``undecided``) — 5 when its seeds fall
on both sides of the bound (with fewer it fails, saying so: ``undecided``); under :data:`MEDIAN` the
median's 95% order-statistics interval must also clear the bound, or the claim is ``undecided``
(:func:`~companion.expectations.undecided_reason`). An event that did
not happen is :data:`~companion.events.NOT_OBSERVED` and fails every expectation except
:func:`never`. A check that holds by construction (an identity, arithmetic on the paper's
numbers, theory against its own limit) is ``kind="consistency"``: computed and shown, but
counted apart from the paper's claims.

**Controls.** A held claim must be one that would have failed without the paper's effect, so a claim
from a trained run carries ``control=``: the same measurement on a run that lacks the effect
(:class:`~companion.expectations.ControlRun`: weight decay 0, a large training fraction, a random
embedding, a shortcut-only model). It is ``held`` only when the run meets the expectation and the
control meets it in no seed; ``vacuous`` (counted apart, never held, never failing the build) when the
control passes the claim's rule too; ``undecided`` when the control meets it in some seeds. A claim
from a trained run without a control says why in ``no_control=``; ``companion claims --weak`` lists the
held ones with neither. Changes are signed and sized (:func:`falls_by`, :func:`rises_by`), so growth
or a 1% wiggle cannot pass a claim that something falls.

**Hypotheses** (:meth:`Claims.hypothesis`, the synthesis chapter's form) test one paper's
*explanation* of grokking in a setting, possibly another paper's: a :class:`Prediction` written
in the library before the run (whose explanation, what it predicts, the expectation that decides
it, and the outcome that would refute it), checked against measured per-seed values. The verdict
is ``supported``, ``refuted`` or ``undecided`` (too few seeds, or seeds on both sides of the bound
with fewer than 5); a refuted hypothesis is a finding, not a bug, so it never fails the build.
:func:`verdict_table` sets them out, explanation by setting.

Every check rewrites ``<claims dir>/<chapter>.json`` at once, so a chapter that later raises
still leaves the claims it reached. :meth:`Claims.table` renders the chapter's claims table.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.claims_tables import (  # noqa: F401  (re-exported: chapters and the report import them from here)
    BADGE,
    HYPOTHESIS_BADGE,
    STATUSES,
    _cell,
    badge,
    control_text,
    item_status,
    item_statuses,
    markdown_table,
    status_badge,
)
from companion.events import NOT_OBSERVED
from companion.expectations import (  # noqa: F401  (re-exported: chapters import them from here)
    ALL_SEEDS,
    MEDIAN,
    MIN_SEEDS,
    NEVER_TEXT,
    STRADDLE_SEEDS,
    ControlRun,
    Expectation,
    Prediction,
    Rule,
    _finite,
    _fmt,
    _median,
    _num,
    _plain,
    _scale,
    at_least,
    at_most,
    between,
    close_to,
    control_verdict,
    decide,
    deviation_within_spread,
    falls_by,
    greater_than,
    interval_reason,
    is_infinite,
    is_true,
    less_than,
    never,
    rises_by,
    seeds_at_least,
    undecided_reason,
    within,
)

#: the verdicts of a claim of the paper; only ``failed`` fails a build (``undecided``: the seeds could not
#: decide it, shown amber with their values and counted apart; ``vacuous``: it held, but so did its control,
#: a run without the paper's effect — never counted as held)
VERDICTS = ("held", "failed", "known-deviation", "undecided", "vacuous")
#: the verdicts of a hypothesis (:meth:`Claims.hypothesis`); none fails the build (``not applicable``: the
#: event the test needs — a test clock — never arrived; ``vacuous``: the prediction held, and so did a null clock)
HYPOTHESIS_VERDICTS = ("supported", "refuted", "undecided", "not applicable", "vacuous")
#: claims of the paper, checks that hold by construction (counted apart), and hypotheses that test
#: one paper's explanation in a setting (the synthesis chapter; counted apart, never failing a build)
KINDS = ("paper", "finding", "consistency", "hypothesis")
#: kinds decided from trained runs, with the seed rules and controls of the paper's claims: "finding" is a result
#: of this reproduction that the paper does not state (often one against it), counted apart from the paper's claims
MEASURED_KINDS = ("paper", "finding")
#: profiles at which a claim must carry its quote and basis, and trained claims ≥ 3 seeds
STRICT_PROFILES = ("cpu", "paper")


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
    # the form of Claims.claim (absent from claims made with the older Claims.check)
    quantity: str | None = None  # what is measured, e.g. "t_test / t_train"
    quote: str | None = None  # the paper's words the claim tests
    basis: str | None = None  # "paper", or the argument for the bound
    kind: str = "paper"  # or "consistency": holds by construction, counted apart
    per_seed: list | None = None  # one value per seed
    rule: str | None = None  # how per_seed decides
    seeds_held: int | None = None  # seeds whose own value meets the expectation
    margin: float | None = None  # distance of the deciding value from the bound, relative
    one_value: str | None = None  # why a claim from a trained run rests on one value
    undecided: str | None = None  # why the seeds could not decide (too few, on both sides of the bound)
    # controls: the same measurement on runs without the paper's effect (ControlRun.record), or why none applies
    controls: list | None = None
    no_control: str | None = None
    vacuous: str | None = None  # why the claim is vacuous (a control passed too)
    applicable: list | None = None  # hypotheses: per seed, whether the event the test needs happened
    # hypotheses (Claims.hypothesis) only
    explanation: str | None = None  # whose explanation is tested, e.g. "Kumar et al."
    setting: str | None = None  # where it is tested, e.g. "transformer, a + b mod 47"
    refuted_if: str | None = None  # the outcome that would refute it, stated before the run
    group: str | None = None  # claims that are one test under different definitions

    @property
    def ok(self) -> bool:
        return self.verdict != "failed"

    @property
    def seeds(self) -> str:
        """``"3/3"`` (seeds that hold of seeds run), or ``"—"`` for a single value."""
        return f"{self.seeds_held}/{len(self.per_seed)}" if self.per_seed else "—"

    def _repr_markdown_(self) -> str:
        """Shown in the chapter where the claim is checked."""
        reason = f" ({self.reason})" if self.reason else ""
        seeds = f", held in {self.seeds} seeds ({_fmt(self.per_seed)})" if self.per_seed else ""
        seeds += f"; {self.undecided}" if self.undecided else ""
        seeds += "".join(f"; {control_text(c)}" for c in self.controls or ())
        seeds += f"; {self.vacuous}" if self.vacuous else ""
        return (f"{badge(self.verdict)}{reason} — `{self.id}` ({self.paper_ref}): {self.statement}. "
                f"Measured **{_fmt(self.measured)}**, expected {self.expected}{seeds}.")


def verdict(holds: bool, known_deviation: str | None) -> str:
    """The verdict table of the module docstring."""
    if known_deviation is None:
        return "held" if holds else "failed"
    return "failed" if holds else "known-deviation"


#: where a chapter executed outside ``companion build`` (papermill, JupyterLab, ``python``) writes its
#: claims, under the repository: beside the published book, never into it
RERUN_CLAIMS = Path("_build") / "reruns" / "claims"


def claims_dir() -> Path:
    """Where this process's chapters write their claims: the folder it is given in
    ``COMPANION_CLAIMS_DIR`` (a build gives each build its own), else :data:`RERUN_CLAIMS`. Never the
    published ``_build/claims``: only ``companion build`` publishes claims."""
    if os.environ.get("COMPANION_CLAIMS_DIR"):
        return Path(os.environ["COMPANION_CLAIMS_DIR"])
    from companion.cache import repo_root

    return (repo_root() or Path.cwd()) / RERUN_CLAIMS


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
        (:func:`~companion.expectations.bootstrap_interval`): when it reaches across the bound the claim
        is undecided.

        ``control``: the same measurement on a run without the paper's effect (:class:`ControlRun`, or
        several): a held claim whose control passes too is ``vacuous``, one whose control meets the bound
        in some seeds ``undecided`` (:func:`~companion.expectations.control_verdict`). A claim from a
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
                   nulls: dict | None = None) -> Claim:
        """Record a test of one paper's explanation in ``setting``: :func:`companion.hypotheses.decide_hypothesis`."""
        from companion.hypotheses import decide_hypothesis

        return self._add(decide_hypothesis(self.chapter, self.profile, id, ref=ref, setting=setting, quantity=quantity,
                                           prediction=prediction, measured=measured, per_seed=per_seed, rule=rule,
                                           basis=basis, group=group, applicable=applicable, nulls=nulls))

    def verdict_table(self, records: list[Claim] | None = None):
        """The hypotheses' verdicts, explanation by setting (:func:`companion.hypotheses.verdict_table`),
        of ``records`` (default: this chapter's), for display."""
        from IPython.display import Markdown

        from companion.hypotheses import verdict_table

        return Markdown(verdict_table(self.records if records is None else records))

    def written_verdict(self, records: list[Claim] | None = None):
        """The verdict table in words, one paragraph per explanation (:func:`companion.hypotheses.written_verdict`),
        for display."""
        from IPython.display import Markdown

        from companion.hypotheses import written_verdict

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


def claim_files(directory: Path) -> list[Path]:
    """The chapters' claim files under ``directory`` (``<chapter>.json``; hidden files such as a build's
    lock are not claims)."""
    return sorted(f for f in Path(directory).glob("*.json") if not f.name.startswith("."))


def load_claims(directory: Path) -> list[Claim]:
    """Every claim recorded under ``directory`` (a build's ``claims`` folder, or a re-run's)."""
    out: list[Claim] = []
    def back(v: Any) -> Any:  # the sidecar spells NOT_OBSERVED as its name
        return NOT_OBSERVED if v == repr(NOT_OBSERVED) else v

    for f in claim_files(directory):
        for d in json.loads(f.read_text()):
            d["measured"] = back(d["measured"])
            if d.get("per_seed"):
                d["per_seed"] = [back(v) for v in d["per_seed"]]
            out.append(Claim(**d))
    return out
