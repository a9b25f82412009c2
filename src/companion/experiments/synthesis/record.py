"""The synthesis chapter's hypothesis claims, recorded from the clocks (:mod:`.summaries`) against
the predictions fixed in :mod:`.predictions`: one function, so the chapter holds no loop.

Every per-setting test uses every seed (rule: all seeds); the ½ crossing is the definition, and
the ¼ and ¾ crossings are the same test under other definitions (one ``group``): where their
verdicts differ the verdict table says *definition-dependent*. A seed whose test clock (or the
base's, for a ratio) never arrived cannot test anything: it is left out, and a hypothesis with no
seed left is *not applicable*, never refuted. Each band hypothesis is set against null clocks on
the same runs: supported only if the diagnostic's crossing is closer to t_test than every null.
"""

from __future__ import annotations

from companion.claims import HYPOTHESIS_VERDICTS, Claims, ControlRun, at_most
from companion.events import observed
from companion.experiments.synthesis.configs import INTERVENTIONS, PAPER_OF
from companion.experiments.synthesis.laziness import arm_name
from companion.experiments.synthesis.predictions import (
    CRITICAL,
    EXPLAINS,
    LAZINESS,
    LAZY,
    POOLED,
    PREDICTIONS,
    WEIGHT_DECAY,
)
from companion.experiments.synthesis.summaries import (
    CLOCK_DIAGNOSTICS,
    FRACTIONS,
    all_clocks,
    criteria,
    has,
    norm_ratio,
    null_criteria,
    null_ratios,
    paired_ratio,
    per_seed,
    transfer_ratio,
    window,
)

#: where each explanation is stated
REFS = {"Kumar et al.": "Kumar et al. §1, §5", "Gu et al.": "Gu et al. §4", "Levi et al.": "Levi et al. Eqs. 9–11",
        "Xu et al.": "Xu et al. §3, Fig. 1b"}
BASIS = {
    "band": "an explanation that names the mechanism of the transition predicts that its diagnostic moves when "
            "test accuracy does; ×2 on a log axis where the runs' clocks span decades (the figure's band)",
    "forecast": "in the linear model ln L_te is convex in t (a Laplace transform of the spectrum), so the "
                "decay rate at t_tr only slows and the forecast cannot exceed the delay",
    "transfer": "Xu et al. present the transferred embedding as removing the delay; ×2 is the least "
                "speed-up that can be told from seed noise on a log axis",
    "rank": "a clock that explains grokking orders the runs as the test-accuracy clock does; ½ is the "
            "midpoint between no and perfect monotone agreement",
    "defined": "a diagnostic that is the mechanism moves in most runs where the transition happens",
    "leads": "a cause precedes its effect: the median lead is below zero beyond seed-resampling noise",
    "shifts": "a clock that is the mechanism moves with the transition it explains, earlier when it comes "
              "earlier; 'most' is more than half of the pairs",
    "needed": "Gu et al. give no delay without weight decay: 'never' is the only reading of 'does not occur'",
    "norm": "a fall or a rise is a change of at least 10% between the two clocks; a smaller one is a wiggle",
    "speeds": "sooner is at least 10% sooner: the clocks are read at the same logged steps, about that far apart",
    "gu_rises": "0 separates a critical fraction that rises with p from one that does not; Thm 3.12's 2 ln p / C "
                "rises with p for any fixed C",
    "levi_inverse": "a constant λ* makes α* = 2/(λ* p) exactly ∝ p⁻¹; ±½ is half the distance from that exponent "
                    "to 0, a critical fraction that does not depend on p",
    "alpha": "longer or shorter is by at least 10%; the delays are read at the same logged steps, "
             "seed i against seed i (one split, one initialisation, only α and the learning rate it sets differ)",
    "lazy": "0.9 is the accuracy at which every clock of the chapter is read, the yardstick by which a run has "
            "generalised: the lazy model 'reaches the target's accuracy' when it generalises by the same yardstick "
            "(the trained targets' own final accuracies are shown beside it)",
}
#: each lazy-fit prediction: (the target whose K₀ is read, where the explanation says it)
LAZY_OF = {"transfer_aligned": ("fnn_transfer", "Kumar et al. §4, App. 8 Fig. 10"),
           "transfer_features": ("fnn_transfer", "Xu et al. Thm 3.2"),
           "scratch_misaligned": ("fnn_scratch", "Kumar et al. §1, §4")}


def arrived(clocks: list, setting: str, field: str = "t_test") -> list[bool]:
    """Per seed of ``setting``: whether its clock ``field`` (the test clock, or the delay) was observed — the
    seeds in which a test that reads it can be made at all (the others are not applicable)."""
    return [observed(v) for v in per_seed(clocks, setting, field)]


def record_hypotheses(claims, clocks: list, settings: list[str], labels: dict[str, str], nulls: bool = True) -> None:
    """Every hypothesis of the chapter (module docstring) into ``claims``; ``labels`` names each
    setting in the verdict table. A band hypothesis is set against the null clocks of the same runs
    (:func:`.summaries.null_ratios`) and says how late a crossing could still be seen (t_end / t_test).
    ``nulls=False``: the rule before null clocks and 'not applicable' (a missing test clock refutes),
    for :func:`rescored`."""
    def arrived_if(setting: str) -> list | None:
        return arrived(clocks, setting) if nulls else None

    for s in settings:
        seen = window(clocks, s)
        span = f"; runs end at {seen[0]:.2g}–{seen[1]:.2g} × t_test" if seen else ""
        for d in CLOCK_DIAGNOSTICS:
            if not has(clocks, s, d):
                continue
            pr = PREDICTIONS[d]
            for f in FRACTIONS:
                claims.hypothesis(f"{d}_{s}_{round(100 * f)}", ref=REFS[pr.paper], setting=labels[s],
                                  quantity=f"t_cross ({f:g} of the way) / t_test{span}", prediction=pr,
                                  per_seed=per_seed(clocks, s, "", d, f), basis=BASIS["band"], group=f"{d}:{s}",
                                  applicable=arrived_if(s), nulls=null_ratios(clocks, s) if nulls else None)
        claims.hypothesis(f"forecast_{s}", ref=REFS["Levi et al."], setting=labels[s],
                          quantity="Levi et al.'s forecast Δt̂ / measured delay Δt", prediction=PREDICTIONS["forecast"],
                          per_seed=per_seed(clocks, s, "forecast_ratio"), basis=BASIS["forecast"],
                          applicable=arrived_if(s))
    if "fnn_transfer" in settings and "fnn_scratch" in settings:
        claims.hypothesis("transfer_removes_delay", ref=REFS["Xu et al."], setting=labels["fnn_transfer"],
                          quantity="t_test(transfer) / t_test(scratch)", prediction=PREDICTIONS["transfer"],
                          per_seed=transfer_ratio(clocks), basis=BASIS["transfer"],
                          applicable=arrived_if("fnn_scratch"))


def rescored(runs: dict, settings: list[str], labels: dict[str, str], profile: str, interventions=(),
             first_seed: int = 0) -> dict[str, dict[str, int]]:
    """The hypotheses on the four clocks (:func:`record_hypotheses`, :func:`record_pooled`) decided twice from the
    same runs — by the rule before (crossings in either direction, any move above 0.1%; no null clocks; a test
    clock that never arrived refutes) and by the chapter's rule — as verdict counts: ``{"before": {verdict: n},
    "after": {…}}``."""
    import tempfile
    from pathlib import Path

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, signed in (("before", False), ("after", True)):
            scratch = Claims("rescored", profile, Path(tmp) / name)
            clocks = all_clocks(runs, interventions, first_seed, signed=signed)
            record_hypotheses(scratch, clocks, settings, labels, nulls=signed)
            record_pooled(scratch, clocks, nulls=signed)
            out[name] = {v: sum(r.verdict == v for r in scratch.records) for v in HYPOTHESIS_VERDICTS}
    return out


def record_lazy(claims, lazy: dict[str, dict], labels: dict[str, str]) -> None:
    """Transfer against laziness (:func:`.interventions.lazy_fit`): each prediction of
    :data:`.predictions.LAZY` on the per-seed test accuracy of kernel regression with the target's K₀."""
    for k, (target, ref) in LAZY_OF.items():
        if target in lazy:
            claims.hypothesis(f"lazy_{k}", ref=ref, setting=labels[target],
                              quantity="test accuracy of kernel regression with the target's initial pNTK K₀",
                              prediction=LAZY[k], per_seed=lazy[target]["test_acc"], basis=BASIS["lazy"])


#: each weight-decay claim (``wd_<key>``): (its prediction in :data:`.predictions.WEIGHT_DECAY`, the setting it
#: reads, the base setting or None, what, where the explanation says it, the basis). The quadratic MLP carries
#: weight decay × α; the transformer (Nanda et al.'s, which Gu et al.'s Fig. 1 argument starts from) is run
#: without weight decay (twice the base's steps), at a small α with centred logits, and with both.
WD_OF = {"needed": ("needed", "quadratic", None, "t_test", "Gu et al. §5, Fig. 1", "needed"),
         "norm_grows": ("norm_grows", "quadratic", None, "norm", "Kumar et al. §3, Fig. 2", "norm"),
         "norm_falls": ("norm_falls", "quadratic_wd", None, "norm", "Gu et al. §3.2", "norm"),
         "speeds": ("speeds", "quadratic_wd", "quadratic", "t_test", "Gu et al. §5", "speeds"),
         "speeds_kumar": ("speeds_kumar", "quadratic_wd", "quadratic", "t_test", "Kumar et al. App. 13", "speeds"),
         "alpha_shortens": ("alpha_shortens", "quadratic_alpha_small", "quadratic", "delay", "Kumar et al. Fig. 3a",
                            "speeds"),
         "needed_transformer": ("needed", "transformer_wd0", None, "t_test", "Gu et al. §5, Fig. 1", "needed"),
         "norm_falls_transformer": ("norm_falls", "transformer", None, "norm", "Gu et al. §3.2", "norm"),
         "needed_transformer_alpha_small": ("needed", "transformer_wd0_alpha_small", None, "t_test",
                                            "Gu et al. §5, Fig. 1", "needed"),
         "norm_falls_transformer_alpha_small": ("norm_falls", "transformer_alpha_small", None, "norm",
                                                "Gu et al. §3.2", "norm"),
         "alpha_shortens_transformer": ("alpha_shortens", "transformer_alpha_small", "transformer", "delay",
                                        "Kumar et al. Fig. 6b", "speeds")}
#: not recorded on the transformer: "norm_grows" and the "speeds" ratios read t_test without weight decay, which
#: is not observed where Gu et al. are right, and a ratio with a missing clock would read as refuting them
QUANTITY = {"t_test": "step test accuracy reaches 0.9", "norm": "Σ‖θ‖² at t_test / Σ‖θ‖² at t_tr",
            "delay": "delay t_test − t_tr"}


def record_weight_decay(claims, runs: dict, clocks: list, labels: dict[str, str]) -> None:
    """Does uniformity need weight decay (the quadratic MLP's interventions, the transformer without
    it): each claim of :data:`WD_OF` on its setting's seeds (against the base's same seed)."""
    for k, (pred, s, base, what, ref, basis) in WD_OF.items():
        if s not in runs or (base is not None and base not in runs):
            continue
        applicable = None  # "needed": a test clock that never arrives is the outcome it predicts
        if what == "norm":
            values, applicable = norm_ratio(runs, clocks, s), arrived(clocks, s)
        elif base is None:
            values = per_seed(clocks, s, what)
        else:
            values, applicable = paired_ratio(clocks, s, base, what), arrived(clocks, base, what)
        budget = f" (runs of {int(runs[s][0]['step'][-1])} steps)" if what == "t_test" and base is None else ""
        claims.hypothesis(f"wd_{k}", ref=ref, setting=labels[s],
                          quantity=QUANTITY[what] + budget + ("" if base is None else f", over {base}'s"),
                          prediction=WEIGHT_DECAY[pred], per_seed=values, basis=BASIS[basis], applicable=applicable)


def record_pooled(claims, clocks: list, label: str = "all grokking runs",
                  shifts_label: str = "all interventions", nulls: bool = True) -> list:
    """The pooled criteria of every diagnostic (:func:`.summaries.criteria`), ½ crossings and the
    robustness row (¼, ¾) in one group per criterion; returns the ½ :class:`Criteria` (then the null
    clocks' over every run). The
    "shifts" criterion reads the interventions (:data:`.configs.INTERVENTIONS`) against their bases.
    Each criterion is computed for the null clocks too, over the same runs (:func:`.summaries.null_criteria`):
    a diagnostic that meets it is supported only if no null clock does (``nulls=False``: the rule before)."""
    out = []
    for d in EXPLAINS:
        rows = {f: criteria(clocks, d, f, interventions=INTERVENTIONS) for f in FRACTIONS}
        null_rows = {f: null_criteria(clocks, d, f, INTERVENTIONS) for f in FRACTIONS} if nulls else {}
        out.append(rows[0.5])
        for k, attr in (("rank", "rank"), ("defined", "defined"), ("leads", "lead_upper"), ("shifts", "shifts")):
            for f, c in rows.items():
                over = (f"{c.n_shift_pairs} intervention seed pairs whose test clock moves" if k == "shifts"
                        else f"{c.n_crossed} of {c.n_grokking} runs cross")
                claims.hypothesis(f"{k}_{d}_{round(100 * f)}", ref=REFS[EXPLAINS[d]],
                                  setting=shifts_label if k == "shifts" else label,
                                  quantity=f"{k} ({f:g} crossing; {over})",
                                  prediction=POOLED[(d, k)], measured=getattr(c, attr), basis=BASIS[k],
                                  group=f"{k}:{d}",
                                  nulls={n: getattr(x, attr) for n, x in null_rows[f].items()} if nulls else None)
    if nulls:  # the null clocks' own criteria over every run, for the chapter's table
        out += list(null_criteria(clocks, None, 0.5, INTERVENTIONS).values())
    return out


def setting_labels(profile_settings: dict) -> dict[str, str]:
    """Each setting's name in the tables: family, whose run, and its size."""
    return {n: f"{n} ({PAPER_OF[c.kind]}{'' if c.kind == 'linear' else f', p = {c.p}'})"
            for n, c in profile_settings.items()}


#: each critical-fraction prediction: where the explanation says it
CRITICAL_OF = {"gu_rises": "Gu et al. Thm 3.12", "levi_inverse": "Levi et al. §3, App. G (λ = 2/(αp))"}


def record_critical(claims, summary, label: str) -> None:
    """The critical fraction across p (:func:`.critical.summarise`): each prediction of
    :data:`.predictions.CRITICAL` on the per-seed exponent s = d ln α*/d ln p (every seed)."""
    for k, ref in CRITICAL_OF.items():
        claims.hypothesis(f"critical_{k}", ref=ref, setting=label,
                          quantity=f"exponent d ln α*/d ln p of the critical fraction over p = "
                                   f"{', '.join(str(p) for p in summary.ps)} (censored (λ* − λ)⁻² fit per seed)",
                          prediction=CRITICAL[k], per_seed=summary.exponent_per_seed, basis=BASIS[k])


#: each laziness × transfer prediction: (arm, α, what it reads: its delay over the same arm's at α = 1, or
#: t_test over the scratch arm's at the same α; where the explanation says it)
LAZINESS_OF = {"lazier_delays": ("fnn_scratch", 3.0, "delay", "Kumar et al. §5.1, Fig. 3a, e"),
               "richer_shortens": ("fnn_scratch", 0.3, "delay", "Kumar et al. §5.1, Fig. 3a"),
               "transfer_lazier_delays": ("fnn_transfer", 3.0, "delay", "Kumar et al. §5.1, App. 8 Fig. 10"),
               "transfer_rich": ("fnn_transfer", 0.3, "t_test", "Xu et al. Thm 3.2, Fig. 1b"),
               "transfer_lazy": ("fnn_transfer", 3.0, "t_test", "Xu et al. Thm 3.2, Fig. 1b")}


def record_laziness(claims, lclocks: list, labels: dict[str, str], lr_rule: str = "adam") -> None:
    """Laziness × transfer (:mod:`.laziness`): each prediction of :data:`.predictions.LAZINESS` on the
    per-seed ratio, seed i against seed i (``lclocks``: :func:`.laziness.laziness_clocks`). Under Kumar et al.'s
    own rule (``lr_rule`` "kumar") the claims are named ``alpha_<prediction>_kumar_lr``; only the cells run exist."""
    for k, (arm, alpha, what, ref) in LAZINESS_OF.items():
        name = arm_name(arm, alpha, lr_rule)
        if what == "delay":
            base, quantity, basis = arm_name(arm, 1.0), f"delay t_test − t_tr at α = {alpha:g} over α = 1's", "alpha"
        else:
            base, quantity, basis = arm_name("fnn_scratch", alpha, lr_rule), f"t_test(transfer) / t_test(scratch) " \
                                                                             f"at α = {alpha:g}", "transfer"
        if not any(c.setting == name for c in lclocks) or not any(c.setting == base for c in lclocks):
            continue
        rule = "" if lr_rule == "adam" else " (Kumar et al.'s η₀/α², λ₀·α²)"
        claims.hypothesis(f"alpha_{k}" + ("" if lr_rule == "adam" else "_kumar_lr"), ref=ref,
                          setting=f"{labels[arm]}, α = {alpha:g}{rule}", quantity=quantity,
                          prediction=LAZINESS[k], per_seed=paired_ratio(lclocks, name, base, what),
                          basis=BASIS[basis], applicable=arrived(lclocks, base, what))


def record_uniformity(claims, u, labels: dict[str, str]) -> None:
    """A finding (no paper states it): the transferred target's embedding ends at least twice as uniform as
    the grokked scratch embedding at its test clock (relabelling-invariant MED, seed i against seed i;
    :func:`.summaries.uniformity`), against the control of a random embedding (the scratch target's at step 0).
    What the transferred targets then reach is shown beside it, not claimed: Gu et al. themselves call token
    uniformity "not a sufficient condition for grokking" (abstract)."""
    claims.claim("transfer_embedding_uniform", ref="Gu et al. Def. 4.2 (MED), Xu et al. §2.2", kind="finding",
                 quantity=f"invariant MED of {labels['fnn_transfer']}'s embedding at the end of its budget / "
                          f"{labels['fnn_scratch']}'s at its test clock",
                 per_seed=u.transfer_ratio, expected=at_most(0.5),
                 basis="twice as uniform on MED's own scale: a factor no seed-to-seed wiggle of a grokked "
                       "embedding reaches (argued above)",
                 control=ControlRun("random embedding", "the scratch target's own embedding at step 0, before "
                                    "any training: not uniform", per_seed=u.random_ratio))
