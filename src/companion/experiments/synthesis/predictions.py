"""What each paper's explanation of grokking predicts for the synthesis chapter's experiments,
fixed here, in the library, before any run (the chapter shows them above the cell that runs).

Each :class:`~companion.claims.Prediction` names whose explanation it is, says the prediction in
words, the expectation that decides it, and the outcome that would refute it. The bounds:

* a mechanism that *is* the transition moves when the transition happens: its crossing step is
  within a factor 2 of the step at which test accuracy reaches 0.9 (the ×2 band of the figure),
  read on log axes, where the runs' clocks span decades;
* a statistical artefact is the test loss's own trend at t_tr: in the linear model the test loss's
  log-decay rate only slows down, so Levi et al.'s forecast Δt̂ (Eqs. 9–11) cannot exceed the
  measured delay, Δt̂/Δt ≤ 1; a ratio above 1 means test accuracy arrived sooner than the loss
  trend at t_tr could carry it there: a dynamical transition;
* a better embedding removes the delay: transferred targets reach 0.9 test accuracy at most half
  as late as the same targets from scratch (Xu et al. Fig. 1b shows orders of magnitude).
"""

from __future__ import annotations

from companion.claims import Prediction, at_least, at_most, between, falls_by, greater_than, less_than, never, rises_by

#: the least change a ratio of two runs' norms, clocks or delays must show to count as a fall or a rise: a smaller
#: one is within one step of the log-spaced evaluation grid and the seed-to-seed wiggle
SIZE = 0.1

#: the ×2 band of the four-clocks figure, as an expectation on t_cross / t_test
BAND = between(0.5, 2.0)

PREDICTIONS = {
    # per setting and seed: crossing step of a diagnostic / step at which test accuracy reaches 0.9
    "kernel_distance": Prediction(
        "Kumar et al.",
        "the empirical NTK leaves its initial value (lazy → rich) when the network groks: its distance "
        "to K₀ crosses halfway within ×2 of the test-accuracy clock",
        BAND, "the kernel distance crosses more than ×2 away from the test clock, or never moves"),
    "alignment": Prediction(
        "Kumar et al.",
        "the kernel aligns with the task (centred kernel–target alignment rises) when the network groks",
        BAND, "the alignment crosses more than ×2 away from the test clock, or never moves"),
    "med_invariant": Prediction(
        "Gu et al.",
        "the embedding becomes uniform (relabelling-invariant MED moves to its extremum) when the network "
        "groks",
        BAND, "the MED crosses more than ×2 away from the test clock, or never moves"),
    "param_sq": Prediction(
        "Gu et al.",
        "weight decay shrinks Σ‖θ‖² as the network groks (the norm clock of Liu et al. and Varma et al. that "
        "Gu et al.'s uniformity argument rests on)",
        BAND, "Σ‖θ‖² crosses more than ×2 away from the test clock, or never moves"),
    # per setting and seed: Levi et al.'s forecast Δt̂ over the measured delay Δt
    "forecast": Prediction(
        "Levi et al.",
        "the delay is the time the test loss's own decay needs to reach the training loss at t_tr, a decay "
        "that only slows: the forecast Δt̂ = ln(L_te/L_tr)/r does not exceed the measured delay, Δt̂/Δt ≤ 1",
        at_most(1.0), "Δt̂/Δt > 1: test accuracy arrives sooner than the loss trend at t_tr forecasts (a "
        "dynamical transition), or no delay is measured"),
    # per seed: t_test(transfer) / t_test(scratch), the same targets and budget
    "transfer": Prediction(
        "Xu et al.",
        "a weak model's embedding removes the delay: transferred targets reach 0.9 test accuracy at most "
        "half as late as from scratch",
        at_most(0.5), "the transferred targets are no more than ×2 faster, or never generalise"),
}

#: per seed: test accuracy of kernel regression with a GrokTransfer target's initial pNTK K₀
#: (:func:`.interventions.lazy_fit`), against the accuracy every clock is read at
LAZY = {
    "transfer_aligned": Prediction(
        "Kumar et al.",
        "the transferred embedding removes grokking by aligning the initial kernel with the task (raising "
        "the initial alignment makes grokking vanish, App. 8, Fig. 10): the lazy model, kernel regression "
        "with the transferred target's K₀, already reaches the accuracy the target reaches, 0.9",
        at_least(0.9), "kernel regression with the transferred target's K₀ stays below 0.9 test accuracy"),
    "transfer_features": Prediction(
        "Xu et al.",
        "the transferred target generalises in a feature-learning regime, not a kernel regime (Thm 3.2): "
        "kernel regression with its K₀ stays below the accuracy the target reaches, 0.9",
        less_than(0.9), "kernel regression with the transferred target's K₀ reaches 0.9 test accuracy"),
    "scratch_misaligned": Prediction(
        "Kumar et al.",
        "a network groks when its initial kernel is misaligned with the task: kernel regression with the "
        "scratch target's K₀ stays below 0.9 test accuracy",
        less_than(0.9), "kernel regression with the scratch target's K₀ reaches 0.9 test accuracy (the "
        "target would not need to leave its initial kernel)"),
}

#: does uniformity need weight decay? Per seed, on the quadratic MLP (α = 1 unless named): the test clock
#: without weight decay; Σ‖θ‖² at t_test over Σ‖θ‖² at t_tr; the test clock with weight decay over without;
#: the delay t_test − t_tr at the small α over α = 1
WEIGHT_DECAY = {
    "needed": Prediction(
        "Gu et al.",
        "the essence of grokking is the uniformity induced by the weight decay term (§5, Fig. 1): without "
        "weight decay test accuracy does not reach 0.9", never(),
        "test accuracy reaches 0.9 without weight decay"),
    "norm_falls": Prediction(
        "Gu et al.",
        "weight decay guides the parameters after training accuracy saturates (§3.2) and uniformity is what "
        "lowers its term: with weight decay Σ‖θ‖² at t_test is at least 10% below its value at t_tr",
        falls_by(SIZE), "Σ‖θ‖² at t_test is less than 10% below its value at t_tr, or above it"),
    "norm_grows": Prediction(
        "Kumar et al.",
        "grokking is a lazy-to-rich transition, not a fall of the weight norm: without weight decay the net "
        "groks while Σ‖θ‖² grows (§3, Fig. 2): Σ‖θ‖² at t_test is at least 10% above its value at t_tr",
        rises_by(SIZE), "Σ‖θ‖² at t_test is less than 10% above its value at t_tr, or below it"),
    "speeds": Prediction(
        "Gu et al.",
        "uniformity comes from weight decay, so adding it brings generalisation sooner: t_test with weight "
        "decay over t_test without is at least 10% below 1", falls_by(SIZE),
        "weight decay does not bring the test clock 10% earlier"),
    "speeds_kumar": Prediction(
        "Kumar et al.",
        "weight decay moves the network out of the lazy regime (App. 13: the NTK moves at O(κ)), so adding "
        "it brings generalisation sooner: t_test with weight decay over t_test without is at least 10% below 1",
        falls_by(SIZE), "weight decay does not bring the test clock 10% earlier"),
    "alpha_shortens": Prediction(
        "Kumar et al.",
        "the output scale α sets the delay, and a small α removes it (Fig. 3a, Fig. 2c): the delay at the "
        "small α over the delay at α = 1 is at least 10% below 1", falls_by(SIZE),
        "a smaller α does not shorten the delay by 10%"),
}

#: pooled over every grokking run (not an intervention, test accuracy reaching 0.9), per diagnostic
CRITERIA = {
    "rank": Prediction(
        "(each diagnostic)", "its crossing step orders the runs as the test-accuracy clock does: Spearman ρ ≥ ½",
        at_least(0.5), "ρ < ½: the diagnostic's clock does not track when runs grok"),
    "defined": Prediction(
        "(each diagnostic)", "it crosses in most grokking runs", at_least(0.5),
        "it never moves in half the grokking runs or more"),
    "shifts": Prediction(
        "(each diagnostic)", "under every intervention (an input embedding transferred; weight decay; a smaller "
        "α) its crossing moves the way the test clock moves, in most seed pairs in which the test clock moves",
        at_least(0.5), "its crossing moves against the test clock, or not at all, in half of those pairs or more"),
    "leads": Prediction(
        "(each diagnostic)", "it moves before test accuracy: the seed-bootstrap 95% interval of the median "
        "log₁₀(t_cross/t_test) lies below zero (its upper end is < 0)",
        less_than(0.0), "the interval reaches zero or above"),
}
#: which explanation each diagnostic's pooled criteria test
EXPLAINS = {"kernel_distance": "Kumar et al.", "alignment": "Kumar et al.", "med_invariant": "Gu et al.",
            "param_sq": "Gu et al."}

#: the pooled criteria, one per (diagnostic, criterion), in the name of the explanation it tests
POOLED = {(d, k): Prediction(EXPLAINS[d], f"{d}: {p.says}", p.expected, p.refuted_if)
          for d in EXPLAINS for k, p in CRITERIA.items()}

#: the critical training fraction across p (:mod:`.critical`), per seed: the exponent s = d ln α*/d ln p of the
#: critical fraction α*(p) = 2/(λ* p) fitted from the delays Δt = C(λ* − λ)⁻² (censored) at each p
CRITICAL = {
    "gu_rises": Prediction(
        "Gu et al.",
        "the training fraction needed to grok is bounded below by 2 ln p / C, C not growing with p (Thm 3.12): the "
        "critical fraction rises slowly with p, an exponent s = d ln α*/d ln p ≈ 1/ln p above zero",
        greater_than(0.0), "the critical fraction does not rise with p (s ≤ 0)"),
    "levi_inverse": Prediction(
        "Levi et al.",
        "the critical point is a critical ratio λ* = d_in/N_tr of dimension to samples (§3, App. G: λ = 2/(αp)), "
        "the same at every p: the critical fraction α* = 2/(λ* p) falls as 1/p, an exponent s = −1 (±½)",
        between(-1.5, -0.5), "s above −½ (closer to a fraction that does not depend on p than to 1/p) or below −1.5"),
}

#: laziness × transfer (:mod:`.laziness`): GrokTransfer's FNN at output scales α ∈ {0.3, 1, 3}, scratch and transfer.
#: Per seed, seed i against seed i: a delay t_test − t_tr over the same arm's at α = 1, or t_test(transfer) over
#: t_test(scratch) at one α
LAZINESS = {
    "lazier_delays": Prediction(
        "Kumar et al.",
        "large α increases the timescale separation between the fall of the train and the test loss (§5.1, "
        "Fig. 3a, e): the scratch target's delay at α = 3 over its delay at α = 1 is at least 10% above 1",
        rises_by(SIZE), "the delay at α = 3 is not 10% longer than at α = 1"),
    "richer_shortens": Prediction(
        "Kumar et al.",
        "small α can eliminate grokking altogether (§5.1, Fig. 3a): the scratch target's delay at α = 0.3 over "
        "its delay at α = 1 is at least 10% below 1", falls_by(SIZE),
        "the delay at α = 0.3 is not 10% shorter than at α = 1"),
    "transfer_lazier_delays": Prediction(
        "Kumar et al.",
        "the transferred target's initial kernel is misaligned too (if the lazy model above stays far below 0.9), so "
        "laziness delays it as it delays the scratch target: its delay at α = 3 over its delay at α = 1 is at "
        "least 10% above 1", rises_by(SIZE), "the transferred target's delay at α = 3 is not 10% longer than at α = 1"),
    "transfer_rich": Prediction(
        "Xu et al.",
        "the embedding, not the kernel regime, sets the delay (Thm 3.2): at α = 0.3 too the transferred targets "
        "reach 0.9 test accuracy at most half as late as from scratch",
        at_most(0.5), "at α = 0.3 the transferred targets are no more than ×2 faster, or never generalise"),
    "transfer_lazy": Prediction(
        "Xu et al.",
        "the embedding, not the kernel regime, sets the delay (Thm 3.2): at α = 3, lazier, the transferred "
        "targets still reach 0.9 test accuracy at most half as late as from scratch",
        at_most(0.5), "at α = 3 the transferred targets are no more than ×2 faster, or never generalise"),
}

#: Levi et al.'s threshold sweep, per setting and seed. In their model the accuracy is a function of the loss,
#: A = Erf(√(ε/2L)) (Eq. 9), and the loss decays exponentially late on (Eq. 10), at a rate that only slows (ln L is
#: convex in t): accuracy reaches θ when L = ε/(2 erfinv(θ)²), so climbing from θ₁ to θ₂ takes at least
#: Ŝ = (2/r)·ln(erfinv θ₂ / erfinv θ₁), r the test loss's log-decay rate at t_tr (ε drops out). The measured
#: stretch S is read between the (interpolated) crossings of 0.5 and 0.95 after t_tr
#: (:func:`companion.measures.clocks.threshold_stretch`)
THRESHOLD_SWEEP = Prediction(
    "Levi et al.",
    "the delay is the accuracy threshold's: accuracy is a function of the test loss (Eq. 9), which decays at its "
    "rate at t_tr or slower (Eq. 10), so test accuracy needs at least Ŝ = (2/r)·ln(erfinv 0.95 / erfinv 0.5) to "
    "climb from 0.5 to 0.95: the stretch measured, over Ŝ, is at least ½",
    at_least(0.5), "test accuracy climbs from 0.5 to 0.95 in less than half the time the loss trend at t_tr needs "
    "(a transition sharper than the metric), or the test loss is not falling at t_tr (Ŝ infinite)")

#: the lazy network beside the full one (Kumar et al. §3): the quadratic MLP linearised about its initialisation,
#: f₀ + ∇f₀·(θ − θ₀), trained exactly as the full network (same seeds, loss, learning rate, steps). Per seed: the
#: step its test accuracy reaches 0.9 (a seed whose linearised network never fits its training pairs cannot test it)
LINEARISED = {
    "no_grok": Prediction(
        "Kumar et al.",
        "grokking is the network leaving its initial kernel: the lazy network — the linearisation "
        "f₀ + ∇f₀·(θ − θ₀) about the initialisation, its tangent kernel frozen at K₀ — fits its training pairs "
        "but its test accuracy does not reach 0.9 within the budget in which the full network's does",
        never(), "the linearised network's test accuracy reaches 0.9 within the full network's budget"),
}

#: a uniform embedding at initialisation (Gu et al. App. E's question, "can special initialization speed up
#: grokking?", with the uniform embedding itself): the quadratic MLP's first layer W₁ = [U V] set to Fourier rows
#: (:func:`companion.models.quadratic_mlp.fourier_rows`: pairs of rows cos, sin of the frequency k = 1, a random
#: phase per pair, entries of unit mean square as N(0, 1)'s), so that the tokens' embeddings are a regular p-gon in
#: every pair's plane: every token equidistant from its neighbours a ± 1, MED at its least. (Amended before any run:
#: every frequency in turn gives an equidistant orbit too, but one whose normalised MED, 1.37 at the cpu size, is
#: that of a random table, 1.41 — not uniform by the measure Gu et al. track uniformity with.) Control: the same
#: rows with the tokens relabelled by a random permutation — the same point cloud, norms and spectrum, not uniform
#: in the task's own order. Per seed, seed i against seed i
FOURIER = {
    "sooner": Prediction(
        "Gu et al.",
        "the uniformity of the embedding is what makes the network generalise (§3.3, Thm 3.8), and weight decay's "
        "role is to induce it: a network that starts from a uniform embedding reaches 0.9 test accuracy at least "
        "10% sooner than from a random one (no weight decay in either)",
        falls_by(SIZE), "a uniform embedding at init does not bring the test clock 10% earlier"),
    "sooner_wd": Prediction(
        "Gu et al.",
        "the same with weight decay in both arms: a uniform embedding at init reaches 0.9 test accuracy at least "
        "10% sooner than a random one under the same weight decay",
        falls_by(SIZE), "under weight decay a uniform embedding at init does not bring the test clock 10% earlier"),
    "aligned_init": Prediction(
        "Kumar et al.",
        "a structured start removes grokking by aligning the initial kernel with the task (App. 8, Fig. 10): the "
        "uniform embedding's initial NTK is at least 10% more aligned with the labels (centred kernel–target "
        "alignment at step 0) than the random one's",
        rises_by(SIZE), "the uniform embedding's initial kernel is not 10% more aligned with the task"),
}
