"""Hypotheses: one paper's explanation of grokking, tested in a setting (possibly another paper's).

The papers explain grokking four ways (a lazy-to-rich kernel transition, Kumar et al.; embedding
uniformity under weight decay, Gu et al.; a statistical artefact of the accuracy threshold, Levi
et al.; the quality of the input embedding, Xu et al.), and none tests its explanation on the
others' settings. The synthesis chapter does, with pre-registered criteria:

* a :class:`~companion.claims.expectations.Prediction` is written in the library before its experiment
  runs: whose explanation, what it predicts, the expectation that decides it, and the outcome that
  would refute it;
* :meth:`companion.claims.Claims.hypothesis` records the test with :func:`decide_hypothesis`:
  ``supported``, ``refuted`` or ``undecided`` (at cpu and paper: fewer than 3 seeds, or seeds on
  both sides of the bound with fewer than 5). A refuted hypothesis is a finding, not a bug, so it
  never fails a build;
* :func:`verdict_table` sets the verdicts out, explanation by setting. Claims that are one test
  under different definitions (the ½, ¼ and ¾ crossings of a diagnostic) share a ``group``; a
  group whose verdicts disagree is *definition-dependent*.
"""

from __future__ import annotations

import math
from typing import Any

from companion.claims.expectations import (
    ALL_SEEDS,
    MIN_SEEDS,
    Prediction,
    Rule,
    _fmt,
    _plain,
    decide,
    undecided_reason,
)
from companion.claims.record import STRICT_PROFILES, Claim, _cell, badge, control_text
from companion.events import NOT_OBSERVED, observed

#: the four explanations, in the order the verdict table lists them
EXPLANATIONS = ("Kumar et al.", "Gu et al.", "Levi et al.", "Xu et al.")


#: a diagnostic's clock beats the null clocks when it is closer to t_test than the best of them by at least
#: this factor (on the log axis: half the ×2 band's width)
NULL_FACTOR = 2 ** 0.5


def null_beaten(values: list, nulls: dict[str, list], factor: float = NULL_FACTOR) -> list[tuple[bool, str, Any]]:
    """Per seed: whether the clock ratio ``values[i]`` (t_cross / t_test) is closer to 1 on the log axis than every
    null clock's ratio (``nulls``: name → per-seed t_null / t_test) by at least ``factor``, with the best null's
    name and ratio. A crossing that was not observed beats nothing; a null that was not observed is skipped."""
    out = []
    for i, v in enumerate(values):
        cands = [(abs(math.log(r)), n, r) for n, rs in nulls.items() if _positive(r := rs[i])]
        best = min(cands) if cands else (math.inf, "—", NOT_OBSERVED)
        out.append((_positive(v) and abs(math.log(v)) + math.log(factor) <= best[0], best[1], best[2]))
    return out


def _positive(x: Any) -> bool:
    return observed(x) and isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 and math.isfinite(x)


def decide_hypothesis(chapter: str, profile: str, id: str, *, ref: str, setting: str, quantity: str,
                      prediction: Prediction, measured: Any = None, per_seed: list | None = None,
                      rule: Rule = ALL_SEEDS, basis: str | None = None, group: str | None = None,
                      applicable: list | None = None, nulls: dict | None = None,
                      controls: list | None = None, why_not: str | None = None) -> Claim:
    """The record of one hypothesis (kind ``"hypothesis"``): ``prediction.expected`` decides
    ``measured`` or ``per_seed`` (aggregated by ``rule`` as for a claim of the paper). ``ref`` is
    where the explanation comes from (``"Kumar et al. §5"``); ``basis`` says why the bound follows
    from it (required at cpu and paper).

    ``applicable`` (per seed): whether the event the test needs happened — a test clock that never
    arrived. Only those seeds decide; with none the verdict is ``not applicable``, never ``refuted`` (``why_not``
    says what was missing, when it is not a test clock). At cpu and paper, fewer than ``MIN_SEEDS`` seeds with
    the event is ``not applicable`` too: the premise is what is missing, not the evidence on the bound (a
    verdict that would otherwise turn on whether a third seed's clock arrived).
    ``nulls`` (name → per-seed t_null / t_test, for a clock ratio t_cross / t_test): a supported
    hypothesis whose clock does not beat the best null clock by :data:`NULL_FACTOR` in every deciding
    seed (:func:`null_beaten`) is ``vacuous``: a clock that knows only the train clock and the run's
    length does as well. With ``measured`` (a pooled criterion), ``nulls`` maps each null clock to the same
    criterion computed on it: a supported hypothesis that a null clock meets too is ``vacuous``.
    ``controls`` (per-seed :class:`~companion.claims.ControlRun` records: the same measurement on runs without the
    mechanism): a supported hypothesis that a control meets in some deciding seed is ``vacuous`` too."""
    if (measured is None) == (per_seed is None):
        raise ValueError(f"hypothesis {id!r}: give exactly one of measured= and per_seed=")
    if profile in STRICT_PROFILES and not basis:
        raise ValueError(f"hypothesis {id!r} at profile {profile}: give basis= (why the prediction's bound "
                         f"follows from the explanation)")
    expected, extra, undecided, vacuous = prediction.expected, {}, None, None
    if per_seed is not None:
        values = [_plain(v) for v in per_seed]
        ok = [bool(a) for a in applicable] if applicable is not None else [True] * len(values)
        deciding = [v for v, a in zip(values, ok) if a]
        extra = dict(per_seed=values, rule=str(rule), applicable=None if all(ok) else ok)
        skipped = len(values) - len(deciding)
        if not deciding:
            shown, margin = NOT_OBSERVED, None
            extra["seeds_held"] = 0
            outcome = "not applicable"
            undecided = why_not or "the event the test needs (its test clock) never arrived in any seed"
        elif profile in STRICT_PROFILES and skipped and len(deciding) < MIN_SEEDS:
            # the premise, not the bound, is what is missing: too few seeds had the event to test anything
            shown, margin = NOT_OBSERVED, None
            extra["seeds_held"] = 0
            outcome = "not applicable"
            undecided = (why_not or f"the event the test needs (its test clock) arrived in {len(deciding)} of "
                         f"{len(values)} seeds") + f"; a test from trained runs needs it in at least {MIN_SEEDS}"
        else:
            holds, shown, k, margin = decide(expected, deciding, rule)
            extra["seeds_held"] = k
            if profile in STRICT_PROFILES and len(deciding) < MIN_SEEDS:
                undecided = f"{len(deciding)} seed(s); a hypothesis from trained runs needs at least {MIN_SEEDS}"
            elif profile in STRICT_PROFILES:
                undecided = undecided_reason(expected, deciding, rule, k)
            outcome = "undecided" if undecided else ("supported" if holds else "refuted")
            if nulls:
                beats = null_beaten(values, nulls)
                extra["controls"] = [dict(name=f"null clock ({n})", why="knows only t_tr and the run's length",
                                          per_seed=[_plain(r) for r in rs], measured=None,
                                          seeds_held=sum(expected.holds(r) for r, a in zip(rs, ok) if a),
                                          passes=None) for n, rs in nulls.items()]
                lost = [(i, b) for i, (b, a) in enumerate(zip(beats, ok)) if a and not b[0]]
                if outcome == "supported" and lost:
                    outcome = "vacuous"
                    i, (_, name, r) = lost[0]
                    vacuous = (f"in {len(lost)} of {len(deciding)} seeds the clock is not closer to t_test than the "
                               f"best null clock by ×{NULL_FACTOR:.2g} (seed {i}: t_cross/t_test {_fmt(values[i])}, "
                               f"{name} {_fmt(r)})")
    else:
        shown = _plain(measured)
        holds, margin = expected.holds(shown), expected.margin(shown)
        outcome = "supported" if holds else "refuted"
        if nulls:  # one value per null clock: the same criterion computed on the null clocks of the same runs
            extra["controls"] = [dict(name=f"null clock ({n})", why="knows only t_tr and the run's length",
                                      per_seed=None, measured=_plain(v), seeds_held=int(expected.holds(_plain(v))),
                                      passes=expected.holds(_plain(v))) for n, v in nulls.items()]
            passing = [c for c in extra["controls"] if c["passes"]]
            if outcome == "supported" and passing:
                outcome = "vacuous"
                vacuous = f"the {passing[0]['name']} meets it too ({_fmt(passing[0]['measured'])})"
    if controls and per_seed is not None:
        ok = [bool(a) for a in applicable] if applicable is not None else [True] * len(per_seed)
        rows = [dict(name=c.name, why=c.why, per_seed=[_plain(v) for v in c.per_seed], measured=None,
                     seeds_held=sum(expected.holds(_plain(v)) for v, a in zip(c.per_seed, ok) if a),
                     passes=any(expected.holds(_plain(v)) for v, a in zip(c.per_seed, ok) if a)) for c in controls]
        extra["controls"] = extra.get("controls", []) + rows
        passing = [r for r in rows if r["passes"]]
        if outcome == "supported" and passing:
            outcome = "vacuous"
            vacuous = (f"the control ({passing[0]['name']}) meets it too in {passing[0]['seeds_held']} seed(s): "
                       f"{', '.join(_fmt(v) for v in passing[0]['per_seed'])}")
    elif controls:
        raise ValueError(f"hypothesis {id!r}: controls= needs per_seed= (one value per seed, as the run's)")
    return Claim(id, ref, prediction.says, shown, str(expected), outcome, profile, chapter, quantity=quantity,
                 basis=basis, kind="hypothesis", margin=margin, undecided=undecided, vacuous=vacuous,
                 explanation=prediction.paper, setting=setting, refuted_if=prediction.refuted_if, group=group,
                 **extra)


def group_verdict(records: list[Claim]) -> str:
    """One test's verdict over its definitions: the common verdict, ``definition-dependent`` when
    some definitions decide it one way and others another, ``undecided`` when none decides
    (``not applicable`` when none could be made)."""
    decided = {r.verdict for r in records} - {"undecided", "not applicable"}
    if len(decided) > 1:
        return "definition-dependent"
    if decided:
        return decided.pop()
    return "not applicable" if all(r.verdict == "not applicable" for r in records) else "undecided"


def cell_verdicts(records: list[Claim]) -> list[tuple[str, list[str]]]:
    """The tests of one explanation in one setting: ``(verdict, claim ids)`` per test (a group, or
    a claim with no group), in the order they were recorded."""
    groups: dict[str, list[Claim]] = {}
    for r in records:
        groups.setdefault(r.group or r.id, []).append(r)
    return [(group_verdict(g), [r.id for r in g]) for g in groups.values()]


def verdict_table(records: list[Claim]) -> str:
    """Markdown: one row per explanation, one column per setting; each cell lists its tests'
    verdicts (with claim ids), or *not applicable* where no test was made."""
    hyps = [r for r in records if r.kind == "hypothesis"]
    if not hyps:
        return "*No hypotheses recorded.*"
    settings = list(dict.fromkeys(r.setting for r in hyps))
    papers = [p for p in EXPLANATIONS if any(r.explanation == p for r in hyps)]
    papers += [p for p in dict.fromkeys(r.explanation for r in hyps) if p not in papers]
    rows = ["| explanation | " + " | ".join(_cell(s) for s in settings) + " |", "|---|" + "---|" * len(settings)]
    for p in papers:
        cells = []
        for s in settings:
            tests = cell_verdicts([r for r in hyps if r.explanation == p and r.setting == s])
            cells.append("<br>".join(f"{badge(v)} " + ", ".join(f"`{i}`" for i in ids) for v, ids in tests)
                         if tests else badge("not applicable"))
        rows.append(f"| {_cell(p)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def hypothesis_table(records: list[Claim], with_chapter: bool = False) -> str:
    """Markdown: every hypothesis with its prediction, the refuting outcome, the measured value(s)
    and the verdict."""
    hyps = [r for r in records if r.kind == "hypothesis"]
    if not hyps:
        return ""
    head = (["chapter"] if with_chapter else []) + ["hypothesis", "explanation", "setting", "prediction",
                                                    "refuted if", "measured", "seeds", "verdict"]
    rows = ["**Hypotheses** (each paper's explanation tested in a setting; the prediction was written down "
            "before the run; a refuted hypothesis is a finding, not a failure of the build):", "",
            "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in hyps:
        seeds = f"{c.seeds}: {_fmt(c.per_seed)}" if c.per_seed else "—"
        seeds += f" ({c.undecided})" if c.undecided else ""
        seeds += "".join(f"<br>{control_text(x)}" for x in c.controls or ())
        seeds += f" ({c.vacuous})" if c.vacuous else ""
        cells = ([c.chapter] if with_chapter else []) + [
            f"`{c.id}`", f"{c.explanation} ({c.paper_ref})", c.setting, f"{c.statement}: {c.quantity} {c.expected}",
            c.refuted_if, _fmt(c.measured), seeds, badge(c.verdict)]
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    basis = [f"- `{c.id}`: {c.basis}." for c in hyps if c.basis]
    return "\n".join(rows + (["", "**Why each prediction's bound follows from its explanation:**", ""] + basis
                             if basis else []))


#: verdicts of tests that could not decide, and why each could not (the written verdict's words)
CANNOT_TELL = {"undecided": "the seeds fell on both sides of the bound",
               "vacuous": "a null clock met the prediction too",
               "definition-dependent": "the ¼, ½ and ¾ crossings disagreed",
               "not applicable": "the event the test needs did not happen in enough seeds"}


def _short(setting: str) -> str:
    """A setting's name without its parenthesised source: "transformer (Nanda et al. 2023, p = 47)" → "transformer"."""
    return setting.split(" (")[0] + (setting.split(")", 1)[1] if ")" in setting else "")


def _where(tests: list) -> str:
    """``(statement, setting, claim id)`` triples as "“statement”: setting (`id`), …; …", one clause per
    prediction."""
    by: dict[str, list[str]] = {}
    for says, setting, i in tests:
        by.setdefault(says, []).append(f"{setting} (`{i}`)")
    return "; ".join(f"“{says}” — {', '.join(where)}" for says, where in by.items())


def written_verdict(records: list[Claim]) -> str:
    """Markdown: one paragraph per explanation, in plain words, generated from the verdict table (a test is
    a group of definitions, :func:`cell_verdicts`): where it survived, where it was refuted and where the
    tests could not tell, each prediction in its own words with the claim ids to check it against."""
    hyps = [r for r in records if r.kind == "hypothesis"]
    if not hyps:
        return "*No hypotheses recorded.*"
    papers = [p for p in EXPLANATIONS if any(r.explanation == p for r in hyps)]
    papers += [p for p in dict.fromkeys(r.explanation for r in hyps) if p not in papers]
    out = []
    for p in papers:
        tests: dict[str, list[tuple[str, str, str]]] = {}  # verdict -> [(prediction, setting, first claim id)]
        for s in dict.fromkeys(r.setting for r in hyps if r.explanation == p):
            mine = [r for r in hyps if r.explanation == p and r.setting == s]
            for v, ids in cell_verdicts(mine):
                says = next(r.statement for r in mine if r.id == ids[0])
                tests.setdefault(v, []).append((says, _short(s), ids[0]))
        sup, ref = tests.get("supported", []), tests.get("refuted", [])
        unclear = {v: tests[v] for v in CANNOT_TELL if tests.get(v)}
        n = len(sup) + len(ref) + sum(map(len, unclear.values()))
        if sup and not ref:
            head = f"survives every test that could decide ({len(sup)} of {n} tests)"
        elif ref and not sup:
            head = f"is refuted wherever a test could decide ({len(ref)} of {n} tests)"
        elif sup and ref:
            head = f"is mixed: supported by {len(sup)} and refuted by {len(ref)} of {n} tests"
        else:
            head = f"is not decided by these tests (none of {n} could decide)"
        parts = [f"**{p}** {head}."]
        if sup:
            parts.append(f"Supported: {_where(sup)}.")
        if ref:
            parts.append(f"Refuted: {_where(ref)}.")
        if unclear:
            parts.append(f"Could not tell in {sum(map(len, unclear.values()))}: "
                         + "; ".join(f"{len(t)} {v} ({CANNOT_TELL[v]})" for v, t in unclear.items()) + ".")
        out.append(" ".join(parts))
    return "\n\n".join(out)
