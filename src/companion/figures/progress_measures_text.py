"""Sentences of the progress-measures chapter (Gu et al.) formatted from its runs: the known-deviation texts of
its claims, each named after the claim it explains and reading the summary that claim reads, and the
paragraphs under its tables. The chapter narrates; every number here comes from the summaries and configs passed
in (the paper's own numbers are named as the paper's)."""

from __future__ import annotations

from operator import gt

from companion.events import fmt_value as fmt
from companion.events import observed


def _thousands(n: int) -> str:
    """An integer as the chapter writes it: 1 000, 30 000."""
    return f"{n:,}".replace(",", " ")


# ------------------------------------------------------------------------------- Fig. 2
def fig2_fluctuation_deviation(depth_x: dict, depth_best: dict, epochs: int) -> str:
    """``fig2_fluctuation`` at the reduced profile: neither depth has a post-grokking stretch to compare
    (``depth_x``: :func:`~companion.experiments.progress_measures.depth_seeds`; ``depth_best``: the best test and
    mirror-untrained accuracy per seed of each depth)."""
    lo, hi = depth_x["lo"], depth_x["hi"]
    down = depth_x["downward"][lo]
    return (f"reduced profile, not observed: in {epochs} epochs the {hi}-layer model never reaches test accuracy 0.9 "
            f"(best {fmt(depth_best[hi]['best'])} per seed; mirror-untrained {fmt(depth_best[hi]['untrained_best'])}) "
            f"and the {lo}-layer model in {sum(map(observed, down))} of {len(depth_x['excess'])} seeds (sum of its "
            f"downward steps after 0.9: {fmt(list(map(abs, down)))}): there is no post-grokking stretch to compare")


# ------------------------------------------------------------------------------- Table 1 and Fig. 4
def strip_deviation(holes_x: dict, t: int) -> str:
    """``table1_strip_disappears``: plain U-Acc of strip ``t`` and the share of its pairs with a trained mirror."""
    return ("seeds on both sides (best mirror-untrained accuracy per seed in the claims table); plain U-Acc "
            f"{fmt(holes_x['u'][('strip', t)])}, against the paper's 7.56% at t = 67: a share "
            f"{holes_x['share'][('strip', t)][1]:.2f} of the strip's pairs have a trained mirror, and those are what "
            "is answered")


def dnn_deviation(dnn_best: dict, p: int) -> str:
    """``fig4_dnn``: the DNN's best test accuracy crosses the bound on noise; chance at ``p`` and its best
    mirror-untrained accuracy."""
    return ("the DNN does not generalise, but the best of its noisy test curve (per seed in the claims table) crosses "
            f"0.05 in some seeds on noise (chance at p = {p} is {1 / p:.3f}; its mirror-untrained accuracy peaks at "
            f"{fmt(dnn_best['untrained_best'])})")


# ------------------------------------------------------------------------------- Fig. 5 and Thm 3.5
def fig5_full_deviation(med_g: dict) -> str:
    """``fig5_med_r_full``: MED over the whole run, in the seeds that grok (``med_g``: ``med_tracking``)."""
    return (f"over the whole run r(MED, test loss) is {fmt(med_g['med_full'])} in the seeds that grok: MED rises "
            "while the model memorises and ends above its start, while the test loss ends far below its start")


def fig5_beats_deviation(med_g: dict) -> str:
    """``fig5_med_beats_baselines``: MED's window r against the better baseline's."""
    return (f"not reproduced: in the window MED's r ({fmt(med_g['med_window'])}) is below the better baseline's in "
            f"the seeds that grok (W(θ) {fmt(med_g['wnorm2_window'])}; the Fourier Gini's −r "
            f"{fmt(med_g['gini_window'])}; margins in the claims table): the window rewards anything that decays "
            "while the test loss falls")


def fig5_beats_full_deviation(med_g: dict) -> str:
    """``fig5_med_beats_baselines_full``: MED's whole-run r against W(θ)'s."""
    return (f"not reproduced: over the whole run MED's r ({fmt(med_g['med_full'])}) is below W(θ)'s "
            f"({fmt(med_g['wnorm2_full'])}) in the seeds that grok (margins in the claims table)")


def fig5_med_r_deviation(med_g: dict) -> str:
    """``fig5_med_r`` on the kept paper-scale runs: MED's window r against the baselines'."""
    return (f"not reproduced: in the window r(MED, test loss) is {fmt(med_g['med_window'])} in the seeds that grok, "
            f"against W(θ)'s {fmt(med_g['wnorm2_window'])} and the Fourier Gini's −r {fmt(med_g['gini_window'])}")


def fig5_level_deviation(med_x: dict) -> str:
    """``fig5_med_level``: the share of its memorisation rise MED gives back."""
    return ("MED ends above its initial value in every seed (end / start in the claims table) and gives back only "
            f"a share {fmt(med_x['recovered'])} of the rise it makes while the model memorises; the test loss ends "
            "far below its start")


def fig5_control_note(p: int, n_runs: int, med_c: dict) -> str:
    """Fig. 5's control in words: MED's and W(θ)'s r with the test loss in the ``n_runs`` runs at ``p`` that
    never grok."""
    return (f"Control, {n_runs} run(s) at p = {p} that never grok: r(MED, test loss) {fmt(med_c['med_window'])} in "
            f"the window and {fmt(med_c['med_full'])} over the run; W(θ)'s {fmt(med_c['wnorm2_window'])} and "
            f"{fmt(med_c['wnorm2_full'])}.")


THM35_NOT_LOGGED = ("**Not measured in these runs:** they predate the class-spread log (the kept paper-scale runs), "
                    "so Thm 3.5 is neither shown nor claimed here; re-running them at this profile adds it.")


def thm35_paragraph(p: int, spread_x: dict, med_x: dict) -> str:
    """Thm 3.5 at ``p``: the class spread at memorisation and at the end, its correlations with test accuracy and
    (beside MED's) with the test loss, and the same spread before the MLP."""
    return (f"At p = {p} the class spread falls from {fmt(spread_x['at_fit'])} at memorisation to "
            f"{fmt(spread_x['end'])} at the end (per seed), in step with test accuracy (rank correlation "
            f"{fmt(spread_x['rho_acc'])}). Beside MED as a tracker of the test *loss* (Pearson r per seed): "
            f"{fmt(med_x['class_spread_window'])} from memorisation to the onset and "
            f"{fmt(med_x['class_spread_full'])} over the run, against MED's {fmt(med_x['med_window'])} and "
            f"{fmt(med_x['med_full'])}. The theorem ties the spread to what the model answers correctly, not to the "
            "loss, which first rises while the model memorises. "
            f"Before the MLP the spread ends at {fmt(spread_x['attn_end'])} (rank correlation with test accuracy "
            f"{fmt(spread_x['attn_rho_acc'])}): the embeddings and attention alone do not gather a class's pairs; the "
            "class structure the theorem describes is made by the MLP, in the layer the logits read.")


# ------------------------------------------------------------------------------- Fig. 7
def fig7_memorisation_note(img_x: dict) -> str:
    """Fig. 7's memorisation: best train accuracy per seed and how many seeds sit at 1."""
    return (f"Memorisation: best train accuracy per seed {fmt(img_x['best_train'])}, read against 'reaches 1' with "
            f"one image in a hundred allowed; {img_x['best_train'].count(1.0)} of {len(img_x['best_train'])} seeds "
            "are at 1, the highest value it can take, so the distance to the bound there is the slack of the bound, "
            "not noise.")


def fig7_plateau_deviation(img_x: dict, run) -> str:
    """``fig7_plateau`` at the reduced profile (``run``: the ImageRun config): the ResNet fits its training set
    but its test accuracy is the largest-class rate."""
    return (f"not reproduced at the reduced profile ({run.size}² renders, {int(run.n_images * run.train_frac)} "
            f"training images, {run.epochs} epochs, from scratch): the ResNet fits its training set (best train "
            f"accuracy {fmt(img_x['best_train'])}) but its test accuracy over the second half (per seed in the claims "
            f"table) is about the largest-class rate ({fmt(img_x['chance'])}), i.e. nothing is learned that "
            "transfers; no 0.3–0.4 plateau")


def fig7_jump_deviation(img_x: dict) -> str:
    """``fig7_jump`` at the reduced profile: the runs are far shorter than the paper's 2800 epochs."""
    return (f"not observed: the reduced profile's runs are {fmt(img_x['epochs'])} epochs long (per seed), far short "
            f"of the paper's 2800; best test accuracy per seed {fmt(img_x['best_test'])}. The jump is the paper "
            "profile's")


# ------------------------------------------------------------------------------- Fig. 8
def fig8_attracts_deviation(ode_s) -> str:
    """``fig8_attracts``: the trajectories end on the surface xwu = 1, not at (1, 1, 1)."""
    return (f"not reproduced: the trajectories end on the surface xwu = 1 (largest |xwu − 1| "
            f"{ode_s.largest_xwu_error:.2g}), a median {ode_s.median_distance_to_one:.3f} from (1, 1, 1): the flow "
            "conserves x² − w² and x² − u², so only the diagonal reaches (1, 1, 1); V decreases along every "
            "trajectory but stops falling where the trajectory meets the surface, above 0")


# ------------------------------------------------------------------------------- Figs. 9–11
def widths_9_deviation(w: tuple, w_best: dict, epochs: int) -> str:
    """``widths_9`` at the reduced profile (``w``: ``width_ratios``; ``w_best``: onsets and best mirror-untrained
    accuracy per seed of both widths): no seed has both onsets."""
    lo, hi = w[0], w[1]
    ahead = sum(map(gt, w_best[hi]["untrained_best"], w_best[lo]["untrained_best"]))
    return (f"reduced profile, not observed: in {epochs} epochs no seed has both onsets (first epoch with "
            f"mirror-untrained accuracy ≥ 0.95): d_model {lo} {fmt(w_best[lo]['onset'])} (best "
            f"{fmt(w_best[lo]['untrained_best'])}), d_model {hi} {fmt(w_best[hi]['onset'])} (best "
            f"{fmt(w_best[hi]['untrained_best'])}); the wider model's best is the higher (the paper's direction) in "
            f"{ahead} of {len(w[2])} seeds, but the claim needs both events")


def fig10_note(w10: dict, panels: tuple) -> str:
    """Fig. 10 in words: best mirror-untrained accuracy of both widths per seed (its p read from ``panels``)."""
    lo, hi = w10["narrow"], w10["wide"]
    p = next(p for name, p, _, _ in panels if name == "Fig. 10")
    return (f"Fig. 10 at p = {p}, same epochs: best mirror-untrained accuracy d_model {lo} {fmt(w10['best'][lo])} "
            f"against d_model {hi} {fmt(w10['best'][hi])} per seed.")


def widths_11_deviation(w11: dict, panels: tuple, epochs: int) -> str:
    """``widths_11_reemerges`` at the reduced profile: neither width of Fig. 11's panel (its p and offset k read
    from ``panels``) generalises."""
    p, k = next((p, k) for name, p, k, _ in panels if name == "Fig. 11")
    lo, hi = w11["narrow"], w11["wide"]
    return (f"not observed at p = {p}, k = {k}: neither width generalises in {epochs} epochs — best test accuracy "
            f"d_model {lo} {fmt(w11['best'][lo])}, d_model {hi} {fmt(w11['best'][hi])}, final "
            f"{fmt(w11['final'][lo])} and {fmt(w11['final'][hi])}, below chance (1/{p} ≈ {1 / p:.3f}): with disjoint "
            "operand tokens the models fit the training pairs and answer the test pairs systematically wrong")


# ------------------------------------------------------------------------------- Figs. 12–19 and Fig. 20
def ops_no_grok_deviation(case: dict, epochs: int) -> str:
    """``ops_med_r_16``–``18`` at the reduced profile: x² + xy + y² does not generalise (``case``: one figure of
    ``operations_seeds``)."""
    return (f"at p = {case['p']} in {_thousands(epochs)} epochs x² + xy + y² does not generalise, as in the paper's "
            f"Figs. 16–19: best mirror-untrained accuracy per seed {fmt(case['untrained_best'])}; over the window "
            "(memorisation to the end) the test loss and MED do not move together: "
            f"α = {case['alpha']}, r per seed in the claims table (W: {fmt(case['wnorm2_window'])})")


def fig20_deviation(struct_x: dict, epochs: int) -> str:
    """``fig20_speedup`` at the reduced profile: onsets of both arms and how often the Toeplitz init is ahead on
    best mirror-untrained accuracy (``struct_x``: ``structured_ratios``)."""
    n = len(struct_x["random"])
    best_random, best_toeplitz = struct_x["max_out"][:n], struct_x["max_out"][n:]
    return (f"not observed: in {epochs} epochs mirror-untrained accuracy reaches 0.95 only in some seeds — onsets "
            f"with random W_E {fmt(struct_x['random'])}, with the Toeplitz W_E {fmt(struct_x['toeplitz'])} (ratios "
            f"in the claims table); best mirror-untrained accuracy random {fmt(best_random)} vs Toeplitz "
            f"{fmt(best_toeplitz)}: the Toeplitz init is ahead on best accuracy in "
            f"{sum(map(gt, best_toeplitz, best_random))} of {n} seeds, no halving")


def fig20_paper_deviation(p: int, alpha: float) -> str:
    """``fig20_speedup`` on the kept paper-scale runs (onset read on all test pairs: they predate the mirror
    split)."""
    return (f"not reproduced at p = {p}, α = {alpha} (kept runs, onset = test accuracy 0.95 since those runs predate "
            "the mirror split): the Toeplitz / random onset ratios (per seed and median in the claims table) show no "
            "halving")
