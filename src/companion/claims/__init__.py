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
(:func:`~companion.claims.expectations.undecided_reason`). An event that did
not happen is :data:`~companion.events.NOT_OBSERVED` and fails every expectation except
:func:`never`. A check that holds by construction (an identity, arithmetic on the paper's
numbers, theory against its own limit) is ``kind="consistency"``: computed and shown, but
counted apart from the paper's claims.

**Controls.** A held claim must be one that would have failed without the paper's effect, so a claim
from a trained run carries ``control=``: the same measurement on a run that lacks the effect
(:class:`~companion.claims.expectations.ControlRun`: weight decay 0, a large training fraction, a random
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

The package, bottom up: :mod:`~companion.claims.expectations` (what a value must meet, seed rules,
controls, predictions), :mod:`~companion.claims.record` (the record and the verdict vocabulary),
:mod:`~companion.claims.references` (paper items read from a reference), :mod:`~companion.claims.hypotheses`
(an explanation's test and the verdict table), :mod:`~companion.claims.tables` (how claims read),
:mod:`~companion.claims.recorder` (:class:`Claims`), :mod:`~companion.claims.text` (``companion claims``:
plain-text tables, ``--diff``, ``--weak``). Chapters import what they use from here.
"""

from companion.claims.expectations import (
    ALL_SEEDS,
    MEDIAN,
    ControlRun,
    Expectation,
    Prediction,
    Rule,
    _fmt,
    at_least,
    at_most,
    between,
    close_to,
    falls_by,
    greater_than,
    is_infinite,
    is_true,
    less_than,
    mean_over_seeds,
    never,
    rises_by,
    seeds_at_least,
    within,
)
from companion.claims.record import (
    HYPOTHESIS_VERDICTS,
    VERDICTS,
    Claim,
    badge,
    claim_files,
    load_claims,
    verdict,
)
from companion.claims.recorder import Claims
from companion.claims.tables import STATUSES, item_status, item_statuses, markdown_table, status_badge

__all__ = ["ALL_SEEDS", "HYPOTHESIS_VERDICTS", "MEDIAN", "STATUSES", "VERDICTS", "Claim", "Claims", "ControlRun",
           "Expectation", "Prediction", "Rule", "_fmt", "at_least", "at_most", "badge", "between", "claim_files",
           "close_to", "falls_by", "greater_than", "is_infinite", "is_true", "item_status", "item_statuses",
           "less_than", "load_claims", "markdown_table", "mean_over_seeds", "never", "rises_by", "seeds_at_least",
           "status_badge", "verdict", "within"]
