# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,mystnb,-all
#     notebook_metadata_filter: -all,kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Synthesis: four explanations, each tested on every paper's runs
#
# The four papers of this book explain grokking four different ways, and none tests its
# explanation on the others' settings:
#
# - **Kumar et al.** — a transition from *lazy* to *rich* training: the network first fits its
#   training set with its initial tangent kernel $K_0$ and generalises only when it leaves that
#   kernel and learns features aligned with the task;
# - **Gu et al.** — the embedding becomes *uniform* (measured by its MED) under weight decay, and
#   uniformity, with the distribution of the training set, is what generalises;
# - **Levi et al.** — in a linear model the delay is a *statistical artefact* of the accuracy
#   threshold: the test loss decays smoothly, and accuracy crosses its threshold late;
# - **Xu et al.** — the delay is the time it takes to learn a good *input embedding*; give the
#   network one (transfer it from a weak model) and the delay disappears.
#
# This chapter trains one model of each paper — the classic transformer on $a + b \bmod p$, Gu et
# al.'s transformer, the quadratic MLP of Levi et al. App. G and Kumar et al. App. 8.3 (one
# implementation, both papers' parameters), GrokTransfer's FNN from scratch and with a transferred
# embedding, and Levi et al.'s linear teacher–student as the negative control — and records the
# same diagnostics on every one at the same log-spaced steps. Each explanation's predictions are
# written in the library *before* the runs (shown below, above the cell that runs them), with the
# outcome that would refute them. A refuted prediction is a finding, not a failure of the build.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
from IPython.display import Markdown, display

from companion import profiles
from companion.claims import Claims
from companion.experiments import synthesis as ex
from companion.experiments.synthesis import record
from companion.figures import synthesis as figures
from companion.pipeline import runs

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("synthesis", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("synthesis", profile)
cfgs = ex.profile_settings(profile, seed)
labels = record.setting_labels(cfgs)

# %% tags=["remove-input"]
Markdown(f"Run with {ctx.describe()}.")

# %% tags=["remove-input"]
profiles.departures_table(ex.departure_pairs(profile, seed), profile, not_stated=ex.NOT_STATED)

# %% [markdown]
# ## The settings and the diagnostics
#
# Every setting trains its seeds as one batched program: three, and five for the two transformers
# (Nanda et al.'s and Gu et al.'s) and the α-scaled transformer, whose three seeds fell on both sides
# of a bound, which a verdict cannot rest on. At each evaluation step every seed records its losses and accuracies and:
#
# - the **kernel distance** $1 - \cos(K_t, K_0)$ of the empirical NTK (the gradient of
#   $\sum_c f_c/\sqrt{k}$) on a probe of training points stratified by class — Kumar et al.'s
#   lazy network keeps $K_0$;
# - the **alignment** of $K_t$ with the labels, by the unbiased centred kernel–target alignment
#   (the biased one drifts with the number of probe points) — Kumar et al.'s rich network aligns;
# - the **relabelling-invariant MED** of the embedding, normalised by its RMS norm — Gu et al.'s
#   uniformity (raw MED mostly reports *which* Fourier frequency an embedding uses, so it is
#   minimised over the relabellings $a \to ca$);
# - $\Sigma\|\theta\|^2$ — the weight norm that weight decay shrinks.

# %% tags=["remove-input"]
Markdown(ex.settings_table(cfgs, labels))

# %% [markdown]
# ## What each explanation predicts (fixed before the runs)
#
# Every clock is read after $t_\mathrm{tr}$, the first step at which training accuracy reaches 0.9;
# the *test clock* $t_\mathrm{test}$ is the first step at which test accuracy reaches 0.9. A
# diagnostic *crosses* at the first step after $t_\mathrm{tr}$ at which it has moved half of the way
# from its value at $t_\mathrm{tr}$ to its extremum after; the ¼ and ¾ crossings are the robustness
# row. Levi et al.'s forecast reads the losses at $t_\mathrm{tr}$ alone:
# $\hat{\Delta t} = \ln(L_\mathrm{te}/L_\mathrm{tr}) / r$ with $r$ the test loss's log-decay rate
# there (their Eqs. 9–11 without the linear model).

# %% tags=["remove-input"]
Markdown(ex.predictions_table())

# %% [markdown]
# ## The runs

# %%
runs = ex.all_clock_runs(profile, ctx.device, ex.ALL_SETTINGS, seed)  # {setting: one history per seed}
clocks = ex.all_clocks(runs, ex.INTERVENTIONS, seed)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Each setting's first seed: train (blue) and test (red) accuracy, and every diagnostic scaled to [0, 1] over the run.", "name": "synthesis-curves"}}
figures.setting_curves(runs, ex.CLOCK_SETTINGS)

# %% [markdown]
# ## The four clocks
#
# For every run and diagnostic, the step at which the diagnostic crosses halfway against the step
# at which test accuracy reaches 0.9, on log axes. A diagnostic that *is* the transition sits on
# the diagonal, inside the grey ×2 band; one that moves before test accuracy sits below it. Hollow
# markers are runs of an intervention expected to remove grokking (the transferred embedding, and the
# quadratic MLP at a smaller output scale α); the quadratic MLP with weight decay is drawn in its own
# colour (its runs are described below); ticks along the top are diagnostics that never cross in a run
# whose test accuracy did reach 0.9.

# %% tags=["remove-input"] mystnb={"figure": {"caption": "The four clocks: crossing step of each diagnostic (marker) in each setting (colour) against the test-accuracy clock; hollow: interventions expected to remove grokking (transfer, smaller \u03b1); top ticks: never crossed; right ticks: a diagnostic crossed in a run whose test accuracy never reached 0.9.", "name": "synthesis-four-clocks"}}
figures.four_clocks(ex.figure_points(clocks, hollow=ex.REMOVES_GROKKING), list(ex.ALL_SETTINGS))

# %% tags=["remove-input"]
Markdown(ex.clocks_table(clocks))

# %% [markdown]
# ### Each explanation, setting by setting
#
# Each diagnostic's crossing over the test clock, per seed, against the ×2 band; Levi et al.'s
# forecast ratio $\hat{\Delta t}/\Delta t$ against 1 (a ratio above 1: test accuracy arrived
# sooner than the loss trend at $t_\mathrm{tr}$ could carry it — a dynamical transition); and the
# transferred targets' test clock over the scratch targets'.
#
# A band test has little power on its own. A run's clocks all sit between $t_\mathrm{tr}$ and the
# end of the run, which is only a few times $t_\mathrm{test}$, so a clock that knows nothing but
# those two steps can land in the ×2 band too. Three such **null clocks** are computed on every
# run: the midpoint of $t_\mathrm{tr}$ and the last step, their geometric mean, and a step drawn
# log-uniformly between them (seeded). A diagnostic is *supported* only if its crossing is closer to
# $t_\mathrm{test}$ than the best null clock by a factor $\sqrt 2$ on the log axis (half the band's
# width) in every seed; if not, the hypothesis is *vacuous*: its prediction held, and so did a
# clock that knows no mechanism. Each hypothesis says how late a crossing could still have been
# seen (the runs' end over $t_\mathrm{test}$).
#
# Two more rules keep a verdict from resting on an artefact. Each diagnostic must move the way its
# explanation says — the kernel leaves $K_0$ and aligns with the task (rises), MED falls with the
# test loss and $\sum\|\theta\|^2$ falls under weight decay — by at least 10% of its size; a
# norm that grows, or MED drifting 1% from its initial value, does not cross. And a seed whose
# test clock never arrived cannot test a claim about that clock: it is left out, and a hypothesis
# with fewer than three seeds left (the seeds any test needs) is *not applicable*, never refuted.

# %%
record.record_hypotheses(claims, clocks, list(ex.CLOCK_SETTINGS), labels)
pooled = record.record_pooled(claims, clocks)

# %% [markdown]
# The same hypotheses on the four clocks — per setting, and the pooled criteria below — decided
# from these runs by the chapter's earlier rule (any move of 0.1% in either direction counted as a
# crossing, no null clock, a missing test clock refuted) and by the rule above:

# %% tags=["remove-input"]
Markdown(ex.rescoring_table(record.rescored(runs, list(ex.CLOCK_SETTINGS), labels, profile, ex.INTERVENTIONS, seed)))

# %% [markdown]
# ### Pooled criteria per diagnostic
#
# Over every grokking run (test accuracy reaches 0.9; the interventions apart): does the
# diagnostic's clock order the runs as test accuracy does (Spearman ρ), does it cross in most of
# them, and does it lead test accuracy — is the seed-bootstrap 95% interval of the median
# $\log_{10}(t_\mathrm{cross}/t_\mathrm{test})$ below zero? And under the interventions (the
# transferred embedding against scratch; weight decay and a smaller α against the plain quadratic MLP,
# seed against seed): in the pairs whose test clock moves, does the diagnostic's crossing move the
# same way? The last rows are the null clocks' scores on the same criteria, over every run: a
# criterion a null clock meets too is no evidence for a diagnostic, and its hypothesis reads *vacuous*.

# %% tags=["remove-input"]
Markdown(ex.criteria_table(pooled))

# %% [markdown]
# ## The control: a linear model has no mechanism
#
# In Levi et al.'s linear teacher–student the NTK is constant by construction — the model is
# linear in its parameters — so the kernel distance and the alignment cannot move: any delay there
# is the accuracy threshold's. A diagnostic that *does* cross in the linear model measures time,
# not mechanism.

# %% tags=["remove-input"]
display(Markdown(ex.control_summary(clocks)))

# %% tags=["remove-input"]
display(Markdown(ex.findings(clocks, pooled)))

# %% [markdown]
# ## Does uniformity need weight decay?
#
# Gu et al. place the essence of grokking in the uniformity of the embedding that the weight decay
# term induces; Kumar et al. show grokking without any weight decay, with a weight norm that *grows*,
# and a delay set by the output scale α. The quadratic MLP — which Kumar et al. (App. 8.3) and Levi
# et al. (App. G) train by plain gradient descent without weight decay — is run again with weight
# decay, at a smaller α, and with both, three seeds each as one batch. Gradient descent's weight
# decay λ is set by its decay per step, $\eta\lambda$: the strongest on a 1–2–5 grid at which every seed
# still fits its training pairs (90% train accuracy) within the budget — weight decay as strong as it can
# be while the network can still reach the solutions Gu et al.'s argument starts from. (Nanda et al.'s
# AdamW decays $10^{-3}$ a step — learning rate $10^{-3}$ × weight decay 1 — over runs of tens of thousands
# of steps (the paper profile's 50 000); the quadratic MLP's runs are far shorter (the settings table gives
# their steps), so the same rate per step would shrink its weights far less over a whole run.) The settings table above gives λ and α. The
# transformer — Nanda et al.'s, the model Gu et al.'s argument starts from — is run again without
# weight decay for twice its steps, so that "it does not generalise" would be read over twice the budget
# of the run with weight decay; and both ways at a small output scale α with Kumar et al.'s centred
# logits $\alpha(f - f_0)$ (their Fig. 6b), AdamW's learning rate $\eta/\alpha^2$ (their rule) and weight
# decay $\lambda\alpha^2$, so that the decay per step $\eta\lambda$ is the base's. The base at α = 1 is
# Nanda et al.'s transformer, not centred: subtracting $f_0$ is part of the small-α arms. (The lazy→rich
# chapter trains the centred transformer over more α, Kumar et al. Figs. 6b and 12.) Σ‖θ‖² at
# $t_{test}$ and the "sooner" ratios need the test clock of a run without weight decay, which Gu et al.
# predict never comes, so on the transformer the predictions recorded are Gu et al.'s — no
# generalisation without weight decay, at either α, and a weight norm that falls between the clocks
# with it — and Kumar et al.'s smaller delay at the small α.

# %% tags=["remove-input"]
Markdown(ex.weight_decay_table(cfgs, runs, clocks))

# %%
record.record_weight_decay(claims, runs, clocks, labels)

# %% [markdown]
# ## Transfer against laziness
#
# Does a transferred embedding remove grokking because it hands the target an initial tangent kernel
# that is already aligned with the task (Kumar et al.: raise the initial alignment and grokking
# vanishes), or does the target still learn features (Xu et al. Thm 3.2: GrokTransfer's target
# generalises "not in a kernel regime but a feature learning regime")? The lazy model answers it:
# kernel regression with each target's initial NTK $K_0$ (the pNTK of $\sum_c f_c/\sqrt{k}$, one
# kernel for every class) about the initial outputs, on the target's own training split — the
# squared-error minimiser its linearisation reaches. No training is needed: $K_0$ is the kernel of the
# runs above at step 0. The scratch target's $K_0$ is the control: both papers expect it misaligned.

# %%
lazy = ex.lazy_fits(profile, ctx.device, seed)  # {target: per-seed accuracies of the lazy model}
record.record_lazy(claims, lazy, labels)

# %% tags=["remove-input"]
display(Markdown(ex.lazy_summary(lazy, runs)))

# %% [markdown]
# ## A uniform embedding that has not generalised
#
# Gu et al. track grokking by the uniformity of the embedding (their MED; here the relabelling-invariant
# form) and say in the same abstract that token uniformity "is not a sufficient condition for grokking":
# the distribution of the training set decides how far test accuracy can go. GrokTransfer's targets show
# the gap between the two directly: they start from a weak model's embedding instead of a random one, and
# keep shaping it as they train. The finding compares the transferred target's embedding
# at the end of its budget with the scratch target's at the moment that one has grokked (test accuracy
# 0.9), seed $i$ against seed $i$:
#
# - `transfer_embedding_uniform` — a finding of this reproduction, not a claim of either paper: the ratio of
#   the two MEDs is at most ½, twice as uniform, a factor that no seed-to-seed wiggle of a grokked embedding
#   reaches. Control: the scratch target's own embedding at step 0, random, which must fail the same bound.
#
# Below it the page prints how far the transferred targets' test accuracy got. An embedding that uniform
# with test accuracy still below 0.9 says that uniformity of the embedding alone does not carry
# generalisation — as Gu et al. say themselves, and against reading uniformity as the whole mechanism.

# %%
uniform = ex.uniformity(runs, clocks)  # per seed: the MEDs and what the transferred targets reached
record.record_uniformity(claims, uniform, labels)

# %% tags=["remove-input"]
Markdown(ex.uniformity_summary(uniform))

# %% [markdown]
# ## Laziness × transfer
#
# The lazy model above asks what the transferred target's *initial* kernel can do. A second test makes the
# targets themselves lazier or richer. Kumar et al. set laziness by the output scale α — the network trained
# is $\alpha f$, and $\alpha \to \infty$ is the kernel limit — and find that "large α increases the timescale
# separation between the decrease in train loss and that of test loss, while small α can eliminate grokking
# altogether" (§5.1, Fig. 3a). Xu et al. place the delay in the embedding: with a transferred one the target
# generalises "not in a kernel regime but a feature learning regime" (Thm 3.2). The grid is
# α ∈ {0.3, 1, 3} × {scratch, transfer}: the GrokTransfer targets above are its α = 1 column, and every other
# cell trains three seeds as one batch with the same model, split, evaluation steps and epoch budget (the note
# under the table names the cells this build runs and the predictions it leaves untested). Kumar et al. (App. 8.1) rescale the learning rate so
# that the initial rate of change of the output does not depend on α; under their gradient descent that is
# $\eta_0/\alpha^2$, and under these targets' AdamW, whose step does not grow with the gradient, it is
# $\eta_0/\alpha$. The weight decay is scaled by α, so that AdamW's decay per step $\eta\lambda$ stays the
# α = 1 arm's (Kumar et al. App. 13: weight decay and α compete). A batch stops once every seed's test
# accuracy has reached 0.9. The kernel distance $1 - \cos(K, K_0)$ is read where each seed stops — is a
# transferred target that generalises lazy? If laziness dominates, the transferred targets at α = 3 are
# delayed too; if the embedding does, they stay at least twice as fast as the scratch targets at every α.

# %%
lruns = ex.laziness_runs(profile, ctx.device, runs, seed)  # {(arm, α): one history per seed}; α = 1 from above
lclocks = ex.laziness_clocks(lruns, seed)
record.record_laziness(claims, lclocks, labels)

# %% tags=["remove-input"]
Markdown(ex.laziness_table(lruns, lclocks, profile, seed) + "\n\n" + ex.laziness_note(profile))

# %% [markdown]
# Kumar et al. state their rule for gradient descent — "rescale learning rate as $\eta = \eta_0/\alpha^2$" (App.
# 8.1) — and grok with AdamW under it too (their Fig. 6b). The grid above scales AdamW's rate by $1/\alpha$ instead,
# the rule that keeps their initial derivative for an optimiser whose step does not grow with the gradient. So that
# a refutation cannot rest on that choice, the scratch target at α = 0.3 and 3 — the cells that decide Kumar et
# al.'s two predictions, `alpha_lazier_delays` and `alpha_richer_shortens` — is trained again under their own rule,
# $\eta_0/\alpha^2$ with weight decay $\lambda_0\alpha^2$ (the same decay per step), against the same α = 1 run;
# the claims carry the suffix `_kumar_lr`.

# %%
kruns = ex.laziness_runs(profile, ctx.device, runs, seed, lr_rule="kumar")  # {(arm, α): one history per seed}
kclocks = ex.laziness_clocks(kruns, seed, lr_rule="kumar")
record.record_laziness(claims, kclocks, labels, lr_rule="kumar")

# %% tags=["remove-input"]
Markdown(ex.laziness_table(kruns, kclocks, profile, seed, lr_rule="kumar"))

# %% [markdown]
# ## Three interventions, predicted before their runs
#
# The clocks above ask *when* each diagnostic moves. Three interventions ask whether each explanation's
# mechanism is what the network needs; their predictions are in the library (the table of predictions at the
# top, rows `threshold`, `linearised` and `uniform init`), written before any of their runs, each with the same
# measurement on a run that lacks the mechanism.
#
# **Levi et al.: is the delay the threshold's?** In their model accuracy is a function of the loss,
# $A = \mathrm{Erf}(\sqrt{\epsilon/2L})$ (Eq. 9), and "nothing particularly interesting is happening at this
# threshold" (§3.2): the loss decays exponentially late on (Eq. 10), at a rate that only slows. Accuracy then
# reaches $\theta$ when $L = \epsilon/(2\,\mathrm{erfinv}(\theta)^2)$, so climbing from 0.5 to 0.95 takes at least
# $\hat S = (2/r)\ln(\mathrm{erfinv}\,0.95/\mathrm{erfinv}\,0.5)$, with $r$ the test loss's log-decay rate at
# $t_\mathrm{tr}$ ($\epsilon$ drops out). The sweep reads the climb $S$ between the two crossings after
# $t_\mathrm{tr}$ (interpolated between logged steps, which can only widen a sharp climb):
#
# - `threshold_<setting>` — $S/\hat S \ge \tfrac12$, the ×2 band's lower edge; in the linear model the slowing
#   decay makes it at least 1. A cross-entropy network whose test loss is *rising* at $t_\mathrm{tr}$ has no
#   finite $\hat S$: its loss trend would never carry accuracy up, and the ratio reads 0. Control: the same
#   measurement on a jump of the test accuracy at the run's own first logged step at 0.95 — a transition of no
#   width, read on the same grid, which must fall below the bound (where it does not, the grid is too coarse to
#   tell, and a held prediction reads *vacuous*).
#
# **Kumar et al.: does the network have to leave its initial kernel?** The lazy network is the first-order
# expansion of the quadratic MLP about its initialisation, $f_0 + \nabla f(\theta_0)\cdot(\theta - \theta_0)$ —
# the same parameters, trained with the same loss, learning rate, seeds and steps, but with its tangent kernel
# frozen at $K_0$ — the regime in which, in Kumar et al.'s words, "the network behaves as a linearized model with
# features evaluated at initialization" (§1), and from which a network that groks must leave:
#
# - `linearised_no_grok` — its test accuracy does not reach 0.9 within the budget, counted over the seeds in which
#   it fits its training pairs (training accuracy 0.9). Control: the full network, which must reach it.
#
# **Gu et al.: is a uniform embedding what generalises?** Their Appendix E asks "can special initialization
# speed up grokking?" with a structured embedding; here the first layer of the quadratic MLP starts uniform
# outright: pairs of rows $\sqrt2\cos$, $\sqrt2\sin$ of $2\pi a/p$ with a random phase per pair, so that the
# tokens sit on a regular $p$-gon in every pair's plane (every token equally far from its neighbours, MED as small
# as a circle allows), with entries of the same mean square as the random init and the second layer the random
# run's own, seed for seed:
#
# - `uniform_init_sooner` — without weight decay, test accuracy reaches 0.9 at least 10% sooner than from the
#   random init; `uniform_init_sooner_wd` — the same with the weight decay of the runs above in both arms.
#   Control: the same rows with the tokens relabelled by a random permutation — the same point cloud, norms and
#   spectrum, not uniform in the task's order — which must not be 10% sooner.
# - `uniform_init_aligned_init` (Kumar et al.'s reading of the same start, App. 8: raising the initial alignment
#   removes grokking) — the uniform start's initial kernel is at least 10% more aligned with the labels than the
#   random one's, as a ratio of centred alignments; a ratio says "more aligned" only where the random kernel's
#   alignment is positive, so the seeds in which it is not cannot decide.
#
# The table gives each run's start (MED and alignment at step 0), its clocks, where it ended, and how far its
# kernel moved from $K_0$ (the linearised network's cannot move: a consistency check of the construction).

# %%
ex.record_threshold(claims, clocks, list(ex.CLOCK_SETTINGS), labels)
ex.record_linearised(claims, clocks, labels)
ex.record_fourier(claims, runs, clocks, labels)

# %% tags=["remove-input"]
Markdown(ex.interventions_table(runs, clocks))

# %% [markdown]
# ## The critical data fraction across $p$
#
# How much of the table must a network see to grok, and how does that change with $p$? Gu et al.
# (Thm 3.12) bound the training fraction from below by $2\ln p / C$, with $C$ the number of points
# within a fixed Manhattan distance of one point, which does not grow with $p$: the critical fraction
# *rises slowly* with $p$. Levi et al.'s linear picture puts the critical point at a ratio
# $\lambda^* = d_\mathrm{in}/N_\mathrm{tr}$, and on modular addition $\lambda = 2/(\alpha p)$ (their
# App. G): a constant $\lambda^*$ makes the critical fraction $\alpha^* = 2/(\lambda^* p)$ fall as $1/p$.
# The quadratic MLP of Levi et al.'s Fig. 8 (the linear-estimators chapter's network, whose runs at its
# own $p$ are reused) is trained at several training fractions at each of several $p$, three seeds as one
# batch. At each $p$ the delay $\Delta t = t_\mathrm{te} - t_\mathrm{tr}$ (Fig. 8's threshold) is fitted
# by $\Delta t = C(\lambda^* - \lambda)^{-2}$ in $\log \Delta t$, each seed alone and all seeds pooled;
# a run whose test accuracy never reaches the threshold within the budget is *censored* — it only says
# $\Delta t > $ steps $- t_\mathrm{tr}$, and counts against a fit only if the fit predicts a shorter
# delay. The exponent $s = d\ln\alpha^*/d\ln p$ decides: $-1$ for Levi et al., about $1/\ln p > 0$ for
# Gu et al.

# %%
crit_cfg = ex.critical_config(profile, seed)
critical = ex.summarise(crit_cfg, ex.critical_runs(crit_cfg, ctx.device), seed)

# %% tags=["remove-input"]
Markdown(ex.critical_table(critical))

# %%
record.record_critical(claims, critical, "quadratic MLP across p (Levi et al. App. G)")

# %% [markdown]
# ## The verdict table
#
# Each paper's explanation against each setting, computed from the hypotheses above: *supported*,
# *refuted*, *undecided* (seeds on both sides of the bound with fewer than five), *vacuous* (the
# prediction held, and so did a null clock), *definition-dependent* (the ¼, ½ and ¾ crossings
# disagree) or *not applicable* (no test: the linear student has no embedding, or the test clock
# arrived in fewer than three seeds).

# %%
claims.verdict_table()

# %% [markdown]
# ## The verdict, explanation by explanation
#
# The table above in words, generated from it: for each paper's explanation, the predictions that
# survived a test that could decide, those that were refuted, and how many tests could not tell
# and why. A test here is one prediction in one setting (its ¼, ½ and ¾ crossings together); a
# refuted prediction is a finding about this setting at this size, not about the paper's own runs.

# %% tags=["remove-input"]
claims.written_verdict()

# %% [markdown]
# ## Claims

# %%
claims.table()
