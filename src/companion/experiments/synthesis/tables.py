"""The synthesis chapter's tables and sentences, formatted from configs and results (the chapter
types no number)."""

from __future__ import annotations

import math

from companion.events import observed
from companion.experiments.synthesis.configs import ALL_SETTINGS, PAPER, PAPER_OF, UNIFORM_SETTINGS, Setting
from companion.experiments.synthesis.critical import CRITICAL as CRIT_PAPER
from companion.experiments.synthesis.critical import critical_config
from companion.experiments.synthesis.experiments import setting
from companion.experiments.synthesis.laziness import ScaledFNN, arm_name, kernel_distance_at_stop, not_run
from companion.experiments.synthesis.predictions import (
    CRITERIA,
    CRITICAL,
    FOURIER,
    LAZINESS,
    LAZY,
    LINEARISED,
    PREDICTIONS,
    THRESHOLD_SWEEP,
    WEIGHT_DECAY,
)
from companion.experiments.synthesis.record import LAZINESS_OF
from companion.experiments.synthesis.summaries import norm_ratio


def profile_settings(profile: str, seed: int = 0, names=ALL_SETTINGS) -> dict[str, Setting]:
    """Every setting (default: the four clocks' and the quadratic MLP's interventions) at ``profile``,
    first seed ``seed``."""
    return {n: setting(profile, n, seed) for n in names}


def departure_pairs(profile: str, seed: int = 0) -> dict:
    """``{setting: (config at profile, the paper's)}`` for :func:`companion.profiles.departures_table`."""
    from dataclasses import replace

    pairs = {n: (c, replace(PAPER[n], seed=seed)) for n, c in profile_settings(profile, seed).items()}
    crit = critical_config(profile, seed)
    pairs.update({f"critical fraction, run {i + 1} ({t})": (c, replace(CRIT_PAPER.runs[i][1], seed=seed))
                  for i, (t, c) in enumerate(crit.runs)})
    pairs["critical fraction (fit)"] = (replace(crit, runs=()), replace(CRIT_PAPER, runs=()))
    return pairs


def _cell(x) -> str:
    return str(x).replace("|", "\\|")


def settings_table(cfgs: dict[str, Setting], labels: dict[str, str]) -> str:
    """One row per setting: whose run, the task, the model's size, the optimiser, the seeds."""
    rows = ["| setting | whose run | task | size | training | seeds |", "|---|---|---|---|---|---|"]
    for n, c in cfgs.items():
        t = c.train
        task = (f"linear teacher–student, d_in = {c.width}, λ = d_in/N_tr = {1 / c.train_frac:.2g}, ε = {c.acc_eps:g}"
                if c.kind == "linear" else f"a + b mod {c.p}, {c.train_frac:.0%} of the pairs")
        size = {"transformer": f"d_model {c.width}" + ("" if c.alpha == 1 else f", centred logits × α = {c.alpha:g}"),
                "gu": f"d_model {c.width}", "linear": f"d_in {c.width}",
                "quadratic": f"d_h {c.width}, α = {c.alpha:g}"}.get(
            c.kind, f"embedding {c.d_embed}, width {c.width}, init scale {c.alpha:g}")
        train = f"{t.optimizer} lr {t.lr:g}, wd {t.weight_decay:g}, {t.steps} steps"
        rows.append(f"| {_cell(labels[n])} | {PAPER_OF[c.kind]} | {task} | {size} | {train} | {c.n_seeds} |")
    return "\n".join(rows)


def predictions_table() -> str:
    """Every prediction of :mod:`.predictions` as fixed in the library."""
    rows = ["| test | explanation | prediction | decided by | refuted if |", "|---|---|---|---|---|"]
    tests = {**PREDICTIONS, **{f"pooled: {k}": v for k, v in CRITERIA.items()},
             **{f"lazy: {k}": v for k, v in LAZY.items()}, **{f"wd: {k}": v for k, v in WEIGHT_DECAY.items()},
             **{f"critical: {k}": v for k, v in CRITICAL.items()}, **{f"α: {k}": v for k, v in LAZINESS.items()},
             "threshold": THRESHOLD_SWEEP, **{f"linearised: {k}": v for k, v in LINEARISED.items()},
             **{f"uniform init: {k}": v for k, v in FOURIER.items()}}
    for k, p in tests.items():
        rows.append(f"| `{k}` | {p.paper} | {_cell(p.says)} | {_cell(p.expected)} | {_cell(p.refuted_if)} |")
    return "\n".join(rows)


def _f(x) -> str:
    return f"{x:.3g}" if observed(x) else "not observed"


def criteria_table(pooled: list) -> str:
    """The pooled criteria (½ crossings) of each diagnostic, with their numbers."""
    rows = ["| diagnostic | grokking runs | crossed | Spearman ρ | median log₁₀(t_cross/t_test) | 95% interval | "
            "shifts the right way (intervention seed pairs) |", "|---|---|---|---|---|---|---|"]
    for c in pooled:
        lo, hi = c.lead_interval
        rows.append(f"| {c.diagnostic} | {c.n_grokking} | {c.n_crossed} | {_f(c.rank)} | {_f(c.lead_median)} | "
                    f"[{_f(lo)}, {_f(hi)}] | {_f(c.shifts)} ({c.n_shift_pairs}) |")
    return "\n".join(rows)


def control_summary(clocks: list, name: str = "linear") -> str:
    """What the linear control shows: its test clocks, and which diagnostics cross there."""
    runs = [c for c in clocks if c.setting == name]
    if not runs:
        return "*The linear control was not run.*"
    t = ", ".join(_f(c.t_test) for c in runs)
    crossed = sorted({d for c in runs for (d, f), v in c.crossing.items() if f == 0.5 and observed(v)})
    still = sorted({d for c in runs for (d, f), v in c.crossing.items() if f == 0.5 and not observed(v)} - set(crossed))
    ratio = ", ".join(_f(c.forecast_ratio) for c in runs)
    out = (f"In the linear control test accuracy reaches 0.9 at steps {t} (one per seed); Levi et al.'s forecast "
           f"ratio Δt̂/Δt is {ratio}. ")
    out += (f"Never crossing there: {', '.join(still)} — no mechanistic transition. " if still else "")
    out += (f"Crossing there all the same: **{', '.join(crossed)}** — in this book's runs such a diagnostic "
            f"measures time, not mechanism." if crossed else "No diagnostic crosses there.")
    return out


def findings(clocks: list, pooled: list, control: str = "linear") -> str:
    """Statistical or dynamical, in numbers: how many runs outside the control have a forecast
    ratio above 1 (or a test loss rising at t_tr), the control's ratios, and each diagnostic's
    median lead over the test clock as a factor."""
    others = [c for c in clocks if c.setting != control and not c.intervention and observed(c.t_test)]
    dyn = [c for c in others if (observed(c.forecast_ratio) and c.forecast_ratio > 1) or c.test_loss_rising]
    rising = sum(c.test_loss_rising for c in others)
    lin = [c for c in clocks if c.setting == control]
    out = [f"**Statistical or dynamical?** Of the {len(others)} grokking runs outside the linear control, "
           f"{len(dyn)} show a dynamical transition by Levi et al.'s own yardstick — a forecast ratio Δt̂/Δt "
           f"above 1 (infinite where the test loss is not decaying at t_tr), or a test loss rising at t_tr "
           f"({rising} of them). "
           f"In the linear control the ratio is {', '.join(_f(c.forecast_ratio) for c in lin)}."]
    leads = [f"{c.diagnostic} at {10 ** c.lead_median:.2f}× t_test" for c in pooled if observed(c.lead_median)]
    if leads:
        out.append("**Which clock moves first?** Median crossing (½ of the way) over the grokking runs: "
                   + "; ".join(leads) + ".")
    return "\n\n".join(out)


def lazy_summary(lazy: dict[str, dict], runs: dict[str, list[dict]]) -> str:
    """Transfer against laziness in numbers: per target, the lazy model's test accuracy (kernel
    regression with K₀) beside the trained target's final test accuracy, per seed."""
    out = []
    for name, r in lazy.items():
        final = ", ".join(_f(float(h["test_acc"][-1])) for h in runs.get(name, []))
        out.append(f"- **{name}**: kernel regression with K₀ reaches test accuracy "
                   f"{', '.join(_f(a) for a in r['test_acc'])} (training accuracy "
                   f"{', '.join(_f(a) for a in r['train_acc'])}; chance {_f(r['chance'])}); the trained targets "
                   f"end at {final or 'not run'}.")
    return "\n".join(out)


def weight_decay_table(cfgs: dict[str, Setting], runs: dict, clocks: list,
                       names=("quadratic", "quadratic_alpha_small", "quadratic_wd", "quadratic_wd_alpha_small",
                              "transformer", "transformer_wd0", "transformer_alpha_small",
                              "transformer_wd0_alpha_small")) -> str:
    """Markdown: the weight-decay interventions and their bases (``cfgs``: the settings), per seed: weight
    decay, α, steps, the clocks, the delay, the final test accuracy, Σ‖θ‖² at t_test over t_tr and at the
    start and the end, the relabelling-invariant MED at the start and the end."""
    rows = ["| setting | weight decay λ | α | steps | seed | t_tr | t_test | delay | final test accuracy | "
            "Σ‖θ‖²(t_test)/Σ‖θ‖²(t_tr) | Σ‖θ‖² start → end | MED (invariant) start → end |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in [n for n in names if n in runs]:
        c0 = cfgs[n]
        for c, h, r in zip([c for c in clocks if c.setting == n], runs[n], norm_ratio(runs, clocks, n)):
            alpha = (f"{c0.alpha:g}" if c0.kind == "quadratic" else  # the transformer's is centred when ≠ 1
                     "1 (not centred)" if c0.alpha == 1 else f"{c0.alpha:g} (centred)")
            rows.append(f"| {n} | {c0.train.weight_decay:.3g} | {alpha} | {c0.train.steps} | {c.seed} | "
                        f"{_f(c.t_tr)} | {_f(c.t_test)} | {_f(c.delay)} | {_f(float(h['test_acc'][-1]))} | {_f(r)} | "
                        f"{_f(float(h['param_sq'][0]))} → {_f(float(h['param_sq'][-1]))} | "
                        f"{_f(float(h['med_invariant'][0]))} → {_f(float(h['med_invariant'][-1]))} |")
    return "\n".join(rows)


def critical_table(summary) -> str:
    """Markdown: the critical fraction per p (:class:`.critical.CriticalSummary`): the runs, the pooled
    censored fit's λ* and α* = 2/(λ* p) with their 95% profile intervals, α* per seed; then the exponent."""
    rows = ["| p | runs censored (never reach the threshold) | λ* (95% interval) | α* = 2/(λ* p) (95% interval) | "
            "α* per seed |", "|---|---|---|---|---|"]

    def iv(lo, hi) -> str:
        return f"[{_f(lo) if observed(lo) else 'unbounded'}, {_f(hi) if observed(hi) else 'unbounded'}]"

    for p in summary.ps:
        fit, (a, alo, ahi), (nc, n) = summary.pooled[p], summary.alpha_star[p], summary.n_censored[p]
        rows.append(f"| {p} | {nc} of {n} | {_f(fit['lam_star'])} {iv(*fit['interval'])} | {_f(a)} {iv(alo, ahi)} | "
                    f"{', '.join(_f(x) for x in summary.per_seed[p])} |")
    lo, hi = summary.exponent_interval
    rows += ["", f"Exponent s = d ln α*/d ln p: per seed {', '.join(_f(x) for x in summary.exponent_per_seed)}; "
                 f"of the pooled α*(p) {_f(summary.exponent)}, seed-bootstrap 95% interval {iv(lo, hi)} "
                 f"(Levi et al.'s constant λ*: −1; Gu et al.'s 2 ln p / C: ≈ 1/ln p = "
                 f"{', '.join(f'{1 / math.log(p):.2g}' for p in summary.ps)})."]
    return "\n".join(rows)


def laziness_table(lruns: dict, lclocks: list, profile: str, seed: int = 0, lr_rule: str = "adam") -> str:
    """Markdown: laziness × transfer (:mod:`.laziness`), per (arm, α) and seed: AdamW's η and λ (by ``lr_rule``),
    the clocks, the delay, the kernel distance 1 − cos(K, K₀) where the seed stopped, and the steps trained."""
    by = {(c.setting, c.seed): c for c in lclocks}
    rows = ["| arm | α | AdamW η, λ | seed | t_tr | t_test | delay | kernel distance where it stopped | steps |",
            "|---|---|---|---|---|---|---|---|---|"]
    for (arm, alpha), hists in lruns.items():
        base = setting(profile, arm, seed)
        t = base.train if alpha == 1.0 else ScaledFNN(base, alpha, lr_rule).train
        for i, h in enumerate(hists):
            c = by[(arm_name(arm, alpha, lr_rule), seed + i)]
            rows.append(f"| {arm} | {alpha:g} | {t.lr:.3g}, {t.weight_decay:.3g} | {c.seed} | {_f(c.t_tr)} | "
                        f"{_f(c.t_test)} | {_f(c.delay)} | {_f(kernel_distance_at_stop(h, c.t_test))} | "
                        f"{int(h['step'][-1])} |")
    return "\n".join(rows)


def laziness_note(profile: str) -> str:
    """Which cells of laziness × transfer this profile leaves out, and so which predictions it cannot test."""
    missing = not_run(profile)
    if not missing:
        return "Every cell of the grid is run at this profile."
    untested = [k for k, (arm, alpha, what, _) in LAZINESS_OF.items()
                if (arm, alpha) in missing or (what == "t_test" and ("fnn_scratch", alpha) in missing)]
    return (f"Not run at this profile: {', '.join(f'{a} at α = {al:g}' for a, al in missing)} (each costs about "
            f"as much as its arm's clock run). Not tested here, so: "
            f"{', '.join(f'`α: {k}`' for k in untested)} — nothing here stands in for them.")


def rescoring_table(counts: dict[str, dict[str, int]]) -> str:
    """Markdown: the per-setting hypotheses' verdict counts by the rule before null clocks, signed crossings and
    'not applicable', and by the chapter's rule (:func:`.record.rescored`), on the same runs."""
    verdicts = [v for v in counts["after"] if counts["before"].get(v) or counts["after"].get(v)]
    rows = ["| rule | " + " | ".join(verdicts) + " |", "|---|" + "---|" * len(verdicts)]
    names = {"before": "before: any move, either way; no null; a missing test clock refutes",
             "after": "this chapter: signed crossings of ≥ 10%; null clocks; a missing test clock is not applicable"}
    for k in ("before", "after"):
        rows.append(f"| {names[k]} | " + " | ".join(str(counts[k].get(v, 0)) for v in verdicts) + " |")
    return "\n".join(rows)


def uniformity_summary(u, threshold: float = 0.9) -> str:
    """Markdown under the uniformity finding (:func:`.summaries.uniformity`): the MEDs and what the
    transferred targets reached."""
    def f(xs, spec=".3f") -> str:
        return " / ".join("not observed" if not observed(x) else format(x, spec) for x in xs)

    reached = sum(observed(t) for t in u.transfer_t_test)
    return (f"Relabelling-invariant MED per seed: the transferred targets' embeddings end at {f(u.transfer_end)}, "
            f"the scratch targets' start (random) at {f(u.random)} and stand at {f(u.grokked)} when their test "
            f"accuracy reaches {threshold:g} — so the transferred embeddings are {f(u.transfer_ratio, '.2f')} of the "
            f"grokked ones. Their test accuracy ends at {f(u.transfer_final_acc)}; {reached} of "
            f"{len(u.transfer_t_test)} transferred targets reached {threshold:g} in the budget.")


def interventions_table(runs: dict, clocks: list, names=UNIFORM_SETTINGS, base=("quadratic", "quadratic_wd")) -> str:
    """Markdown: the quadratic MLP's interventions beside its own runs, per seed — its first layer's
    relabelling-invariant MED and the kernel's centred alignment at step 0, the train and test clocks, the final
    accuracies and how far the kernel moved from K₀ by the end."""
    by = {(c.setting, c.seed): c for c in clocks}
    rows = ["| setting | seed | MED at step 0 | alignment at step 0 | t_tr | t_test | final train / test accuracy | "
            "1 − cos(K, K₀) at the end |", "|---|---|---|---|---|---|---|---|"]
    for n in (*base, *names):
        for h, c in zip(runs.get(n, []), [c for c in clocks if c.setting == n]):
            c = by[(n, c.seed)]
            rows.append(f"| {n} | {c.seed} | {float(h['med_invariant'][0]):.3g} | {float(h['alignment'][0]):.3g} | "
                        f"{_f(c.t_tr)} | {_f(c.t_test)} | {float(h['train_acc'][-1]):.3f} / "
                        f"{float(h['test_acc'][-1]):.3f} | {float(h['kernel_distance'][-1]):.2g} |")
    return "\n".join(rows)
