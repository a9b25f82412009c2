"""Sentences of the lazy→rich chapter formatted from its measured numbers (Kumar et al.): the headline of
Fig. 1 set against its rich control, and the per-seed lines under its figures. The chapter narrates; every
number in these sentences comes from the summaries passed in. The known-deviation texts of its claims live
beside them, in :mod:`companion.figures.lazy_rich_deviations`."""

from __future__ import annotations

from companion.events import fmt_value as _fmt
from companion.events import observed


def _seeds(values) -> str:
    return _fmt(list(values))


def _count(values, test) -> int:
    return sum(1 for v in values if observed(v) and test(float(v)))


def fig1_headline(s1, s1r, run, rich_alpha: float, low: float, delayed: float) -> str:
    """Fig. 1's headline (the abstract: "a generalizing solution is identified after train loss is already
    low") decided from the runs: where the train loss is when the test loss halves, and the delay ratio, at
    α = 1 and in the rich control; the conclusion follows the counts."""
    n = len(s1.train_at_test_half)
    k_low = _count(s1.train_at_test_half, lambda v: v <= low)
    k_del = _count(s1.delay_ratio, lambda v: v >= delayed)
    k_rise = _count(s1r.rise, lambda v: v >= 1.1)
    if k_low == n and k_del == n:
        verdict = "Here the run does first fit and later generalise, as the paper says."
    elif k_low == 0 and k_del == 0:
        verdict = ("Here the run does not first memorise and later generalise: the test loss halves while the train "
                   "loss is still falling.")
    else:
        verdict = (f"The seeds fall on both sides of these bounds ({k_low} and {k_del} of {n}): these seeds do not "
                   "decide the headline.")
    return (f"**The headline, measured.** At the paper's Fig. 1 setting (here D = {run.D}, P = {run.P}, "
            f"N = {run.N}, ε = {run.eps}, α = {run.alpha:g}), when the test loss has halved the train loss is at "
            f"{_seeds(s1.train_at_test_half)} of its start (per seed): {k_low} of {n} seeds are a decade down "
            f"(≤ {low:g}) by then. The test loss halves {_seeds(s1.delay_ratio)}× as late as the train loss "
            f"({k_del} of {n} seeds at the chapter's criterion of {delayed:g}). {verdict} The rich control — the same "
            f"data and initialisations at α = {rich_alpha:g}, the smallest α of the paper's Fig. 3a — gives "
            f"{_seeds(s1r.train_at_test_half)} and {_seeds(s1r.delay_ratio)}×, and its test loss rises by 10% or more "
            f"in {k_rise} of {len(s1r.rise)} seeds (max / initial {_seeds(s1r.rise)}). Lazy memorisation as the "
            "paper describes it is tested at larger α in the authors' Fig. 3a cell (below).")


def fig3a_lazy_text(s3a, alphas) -> str:
    """Fig. 3a's lazy memorisation: where the train loss is when the test loss halves, smallest and largest α."""
    return (f"When the test loss halves, the train loss is at {_seeds(s3a.rich_train_at_test_half)} of its start at "
            f"α = {alphas[0]:g} and at {_seeds(s3a.lazy_train_at_test_half)} at the laziest α whose test loss halves "
            f"(α = {_seeds(s3a.laziest_generalising)}; per seed); the "
            f"delay ratio t_te(½)/t_tr(½) over α = {_fmt(list(alphas))} is, seed by seed, "
            f"{'; '.join(_fmt(list(r)) for r in s3a.ratios)}.")


def ratios_by_seed(ratios) -> str:
    """Per-seed lists of ratios, one list per seed, separated by semicolons."""
    return "; ".join(_fmt(list(r)) for r in ratios)
