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
# # Grokking as the transition from lazy to rich training dynamics
#
# Kumar, Bordelon, Gershman & Pehlevan (ICLR 2024) argue that grokking without weight decay
# is a network that first fits its training set *lazily*, like kernel regression with its initial
# neural tangent kernel (NTK), and only later learns features (*rich* dynamics) that generalise.
# Two knobs control the delay: the output scale $\alpha$ (laziness) and how well the initial NTK
# is aligned with the task (set by $\varepsilon$ in their toy model). This chapter re-draws the paper's
# figures and checks each statement against runs over several seeds. The polynomial-regression
# figures run on an **exact closure** of gradient descent in the sufficient statistics
# $(\bar w, M)$, cheap and independent of the width; the other figures train the networks at
# reduced size. Which figures reproduce at this build — reproduced, partly, not reproduced, not
# observed — is computed from their claims and listed above the claims table at the end of the
# chapter (and in the book's Reproduction report); the claims table has every number. The main
# substitutions: Fig. 6a runs scikit-learn's 8×8 digits instead of MNIST (no copy of MNIST is
# available offline), and the authors' N = 2, D = 40 cell of Figs. 4 and 10 runs beside Fig. 1's
# centred setting. Not drawn: the schematics of Figs. 3c, d.
#
# **The headline, up front.** The paper's Fig. 1 is its headline: a network that first fits its training
# set lazily while the test loss stays high, and generalises only after the train loss is low. The
# Fig. 1 section decides it at this build's scale and, from kept results, at the paper's: where the train
# loss is when the test loss halves (`fig1_train_low`) and how much later the test loss halves
# (`fig1_delay`), each against an otherwise identical *rich* run (α = 1/32) that the paper says does not
# grok. Lazy memorisation is also tested where the paper says laziness controls it, in the authors' Fig. 3a
# cell at large α (`fig3a_lazy_memorises`). The claims table at the end gives every verdict.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
import numpy as np
from IPython.display import Markdown, display

from companion import profiles
from companion.claims import (
                              MEDIAN,
                              Claims,
                              ControlRun,
                              at_least,
                              at_most,
                              between,
                              close_to,
                              greater_than,
                              is_true,
                              less_than,
                              never,
                              within,
)
from companion.claims.expectations import _fmt
from companion.experiments import lazy_rich as ex
from companion.figures import lazy_rich as pl
from companion.figures import lazy_rich_text as tx
from companion.pipeline import runs

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("lazy_rich", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("lazy_rich", profile)
# known deviations are formatted from this run's numbers (the paper profile: from its kept results)
MEASURED = profile in ("cpu", "paper")


# %% [markdown]
# This run: the context line below, and every departure of this profile from the paper's
# settings (the `paper` profile holds the paper's own: D = 100, P = 550, N = 500, 100k steps;
# the transformer at p = 113).

# %% tags=["remove-input"]
display(Markdown(ctx.describe()))
ex.departures_table(profile)

# %% [markdown]
# ## The model and the exact closure
#
# The network is a "committee machine" $f(x) = \frac{\alpha}{N}\sum_{i=1}^N \phi(w_i\cdot x)$ with
# $\phi(h) = h + \frac{\varepsilon}{2}h^2$, inputs $x\sim\mathcal N(0, I/D)$ and target
# $y = \tfrac12(\beta_*\cdot x)^2$; it is trained by full-batch gradient descent on the centred
# output $\tilde f = f - f(W_0)$ with $\eta = \eta_0 N/\alpha^2$ and no regularisation. It depends on
# the weights only through $\bar w = \frac1N\sum_i w_i$ and $M = \frac1N\sum_i w_iw_i^\top$:
# $f(x) = \alpha\,\bar w\cdot x + \frac{\alpha\varepsilon}{2}x^\top M x$ (eq. 4). Every neuron follows the
# same affine update $w_i \leftarrow Bw_i - b$ with $B = I - k\varepsilon X^\top\mathrm{diag}(r)X$,
# $b = kX^\top r$, $k = 2\eta_0/(\alpha P)$, so
# $\bar w \leftarrow B\bar w - b$ and $M \leftarrow BMB - (B\bar w)b^\top - b(B\bar w)^\top + bb^\top$ *exactly*.
# The width enters only through $(\bar w_0, M_0)$; $N\to\infty$ is $\bar w_0 = 0$, $M_0 = I$.
# The test loss is the exact population loss (eq. 6):
# $\mathcal L = \tfrac14(|\beta|^2/D - \alpha\varepsilon\,\mathrm{Tr}M/D)^2 + \tfrac1{2D^2}\|\alpha\varepsilon M - \beta\beta^\top\|_F^2 + \tfrac{\alpha^2}{D}|\bar w|^2$
# (variance, misalignment, power in linear modes). The linearised network closes too and is
# solved in closed form (kernel gradient descent with the initial NTK). The unit tests check the
# closure against the neuron-level simulation, eq. 6 against Monte Carlo, and the NTK against
# autograd.

# %% [markdown]
# **One criterion for grokking, throughout.** A run *groks* when its test loss halves at least
# twice as late as its train loss, $t_{te}(\tfrac12)/t_{tr}(\tfrac12) \ge 2$ — a visible gap on the
# paper's log-time axes — and it *generalises* when its test loss halves at all. A time that a run
# never reaches is *not observed* (never ∞): a ratio built from it is not observed too, and fails
# every claim except one that says the event never happens. Every claim from a trained run is
# checked on every seed (held in k/n seeds in the table).

# %% [markdown]
# ## Fig. 1a — lazy and rich trajectories in weight space
# The paper's schematic: a linearised network stays in the affine space
# $S(X, w_0) = w_0 + \mathrm{span}\{\nabla_w f(x_\mu)\}$ and converges to the kernel solution
# $w_{lazy}$; the network leaves $S$ towards a feature-learning solution. Here both trajectories
# come from actual small runs (sizes below; the first seed drawn, the claim checked on every seed
# the profile runs): the horizontal axis is the displacement inside $S$ along $w_{lazy} - w_0$,
# the vertical axis the distance from $S$.

# %% tags=["remove-input"]
c1a = ex.config("fig1a", profile).run
display(Markdown(f"Runs of Fig. 1a: D = {c1a.D}, P = {c1a.P}, N = {c1a.N}, ε = {c1a.eps}."))

# %%
r1a = ex.run("fig1a", profile, ctx.device, seed)
pl.fig1a(r1a)

# %%
s1a = ex.fig1a_summary(r1a)
claims.claim("fig1a_leaves_subspace", ref="Fig. 1a",
             quantity="network: final distance from S / final displacement inside S",
             **ex.seed_values(s1a.network, "an illustration of the schematic from one small run"),
             expected=greater_than(0.3),
             quote="S(X, w_0) is an affine subspace of parameter space reachable by models linearized around w_0 "
                   "(Fig. 1a caption); the network's trajectory leaves it",
             basis="leaving S means a distance from S comparable to the displacement inside it; 0.3 is a third",
             control=ControlRun("linearised network", "the same runs linearised about W0: they cannot leave S",
                                per_seed=s1a.linearised))
claims.claim("fig1a_lin_in_subspace", ref="Fig. 1a", quantity="linearised: distance from S / displacement inside S",
             measured=max(s1a.linearised), expected=less_than(1e-6), kind="consistency",
             basis="identity: the linearised update lies in the span of the initial gradients (round-off only)")

# %% [markdown]
# ## Fig. 1b, c — grokking in the loss, weight norm and alignment
# Paper (Fig. 1, §5, D = 100, P = 550, N = 500, ε = 0.02, α = 1): the test loss first *rises* while
# the train loss falls, tracking the linearised network; much later the test loss falls far
# below the K0 kernel-regression line, while the weight norm *grows* and the NTK aligns with the
# target. Curves for the first seed; claims over all seeds. The dotted curve is the
# infinite-width closure. The horizontal line is kernel regression with the *initial* NTK K0
# (the legend's K0); the alignment curve is that of the current kernel $K_t$.

# %%
r1 = ex.run("fig1", profile, ctx.device, seed)
pl.fig1(r1)

# %%
s1 = ex.fig1_summary(r1)
c1 = ex.config("fig1", profile).run
r1r = ex.run("fig1_rich", profile, ctx.device, seed)
s1r = ex.fig1_summary(r1r)
AT1 = (f"at the paper's size (D = {c1.D}, kept result)" if profile == "paper"
       else f"at the cpu size (D = {c1.D}, P = {c1.P}, N = {c1.N})")
RICH = f"rich control, α = {ex.RICH_ALPHA:g}"
RICH_WHY = ("the same data and initialisations at the smallest α of the paper's Fig. 3a, where 'small α can eliminate "
            "grokking altogether' (§5.1)")
LOW = 0.1  # "already low": a decade below its start on the paper's log-loss axis
display(Markdown(tx.fig1_headline(s1, s1r, c1, ex.RICH_ALPHA, LOW, ex.DELAYED)))

# %%
FIG1 = ("Green and blue loss curves in (b) correspond to sketched green and blue parameter dynamics in (a). "
        "Horizontal line (black) in (b) is the mean-squared error of best kernel regression estimate with the NTK "
        "at initialization (Fig. 1 caption)")
claims.claim("fig1_linear_early", ref="Fig. 1b",
             quantity="last step the test loss is within 2% of the linearised network's / t_tr(½)",
             per_seed=s1.tracks_linear_until, rule=MEDIAN, expected=at_least(1.0), quote=FIG1,
             basis="the network starts lazy: it should track its linearisation at least until the train loss halves",
             control=ControlRun(RICH, RICH_WHY, per_seed=s1r.tracks_linear_until),
             known_deviation=(
                 f"{AT1} the network's test loss leaves its linearisation's (2% gap) at {_fmt(s1.tracks_linear_until)} "
                 "of t_tr(½) per seed, before the train loss halves: the lazy phase ends early"
                 if MEASURED else None))
claims.claim("fig1_test_rises", ref="Fig. 1b", quantity="max test loss / initial test loss", per_seed=s1.rise,
             rule=MEDIAN, expected=at_least(1.1),
             quote="the initial peak in test error is associated with the model attempting to learn a linear "
                   "function of the input (§5.3)",
             basis="a peak is a rise above the start; 10% is well above the run's numerical noise",
             control=ControlRun(RICH, RICH_WHY, per_seed=s1r.rise))
claims.claim("fig1_train_falls_at_peak", ref="Fig. 1b", quantity="train loss / initial at the test-loss peak",
             per_seed=s1.train_at_rise, rule=MEDIAN, expected=at_most(0.9),
             quote="the initial rise in test loss comes from the network putting power in the linear component "
                   "from its initial NTK (Fig. 4 caption)",
             basis="the rise happens while the train loss falls: at least 10% down at the peak",
             control=ControlRun(RICH, RICH_WHY, per_seed=s1r.train_at_rise))
claims.claim("fig1_delay", ref="Fig. 1b", quantity="t_te(½) / t_tr(½)", per_seed=s1.delay_ratio,
             rule=MEDIAN, expected=at_least(ex.DELAYED), quote=FIG1 + "; grokking: delayed generalisation",
             basis="the chapter's grokking criterion (test loss halves ≥ 2× later than train loss)",
             control=ControlRun(RICH, RICH_WHY, per_seed=s1r.delay_ratio),
             known_deviation=tx.fig1_delay_deviation(s1, AT1, ex.DELAYED) if MEASURED else None)
claims.claim("fig1_train_low", ref="Abstract / Fig. 1b",
             quantity="train loss / initial when the test loss halves", per_seed=s1.train_at_test_half,
             rule=MEDIAN, expected=at_most(LOW),
             quote="grokking arises in this setting when the network first attempts to fit a kernel regression "
                   "solution with its initial features, followed by late-time feature learning where a generalizing "
                   "solution is identified after train loss is already low (Abstract)",
             basis="'already low': a decade below its start on the paper's log-loss axis",
             control=ControlRun(RICH, RICH_WHY, per_seed=s1r.train_at_test_half),
             known_deviation=tx.fig1_low_deviation(s1, AT1) if MEASURED else None)
claims.claim("fig1_beats_k0", ref="Fig. 1b", quantity="final test loss / K0 kernel-regression test loss",
             per_seed=s1.final_over_k0, rule=MEDIAN, expected=at_most(0.2), quote=FIG1,
             basis="'far below' the K0 line: at least 5× lower",
             control=ControlRun("linearised network", "the same runs kept lazy (kernel gradient descent with the "
                                "initial NTK): no feature learning", per_seed=s1.linearised_over_k0))
claims.claim("fig1_lin_fails", ref="Fig. 1b", quantity="linearised network: final test / initial test",
             per_seed=s1.linearised_final, expected=at_least(0.5), kind="consistency",
             basis="a property of the closed form: kernel regression with the misaligned initial NTK at P ≪ D² cannot "
                   "learn the quadratic target (App. 11.1), so its test loss never halves")
claims.claim("fig1c_norm_grows", ref="Fig. 1c", quantity="final / initial weight norm", per_seed=s1.norm_growth,
             expected=at_least(1.1), kind="consistency",
             basis=f"implied by fitting the target: the solution αεM = β*β*ᵀ has |w|² ~ 1/(αε), a growth of about "
                   f"1/√ε = {1 / c1.eps ** 0.5:.2g}× at ε = {c1.eps}, so the weight norm must grow whatever the "
                   "dynamics (the paper's point is only that weight decay is absent)")
claims.claim("fig1c_alignment_grows", ref="Fig. 1c", quantity="final / initial NTK–target alignment",
             per_seed=s1.alignment_growth, rule=MEDIAN, expected=at_least(1.1),
             quote="Features get aligned (grey) in a way we make precise in Section 5 (Fig. 1c caption)",
             basis="an increase beyond noise: at least 10%",
             no_control="a run without feature learning is the linearised network, whose kernel is fixed (alignment "
                        "ratio exactly 1 by construction); the rich control learns the same features, sooner")

# %% [markdown]
# ## Fig. 2 — modular addition without weight decay: the weight norm grows
# App. 8.3: p = 23, one-hot inputs, a two-layer MLP with $x^2$ activation and output scale $s$
# (applied twice in the authors' code, so $\alpha_{eff} = s^2$), MSE, plain GD, no weight decay.
# Grokking happens while the weight norm *increases*, and the delay grows with $s$. Epochs are
# reported in the paper's learning-rate units; the initialisations of the profile, batched.

# %% tags=["remove-input"]
c2, c2p = ex.config("fig2", profile), ex.config("fig2", "paper")
display(Markdown(
    f"Scales s run here: {_fmt(list(c2.scales))} (the paper's: {_fmt(list(c2p.scales))}), {len(c2.init_seeds)} "
    f"initialisations, {c2.steps} steps at learning rate {c2.lr0:g}/s² ({c2.steps * c2.lr0 / c2p.lr0:g} of the "
    f"paper's epochs; the paper runs {c2p.steps}). A larger s generalises later, so the paper's larger scales need "
    "its full length."))

# %%
r2 = ex.run("fig2", profile, ctx.device, seed)
s2 = ex.fig2_summary(r2)
pl.fig2(r2, s2.shown[0])

# %%
claims.claim("fig2_delay_s1", ref="Fig. 2a / App. 16",
             quantity="s = 1: epoch test acc ≥ 0.9 / epoch train acc first perfect", per_seed=s2.delay_ratio,
             expected=at_least(1.5),
             quote="Train accuracy reaches perfect classification in 2k epochs ... the test loss only dips below "
                   "this amount around 3-4k epochs, precisely when the network generalizes in accuracy (App. 16)",
             basis="paper: generalisation at 3–4k epochs after perfect train accuracy at 2k, a ratio of 1.5–2",
             no_control="the paper's own number (a ratio of 1.5–2) is the bound; the scale sweep below compares "
                        "lazier runs with it",
             known_deviation=(
                 f"with a {c2.lr0 / c2p.lr0:g}× learning rate and {c2.steps} steps ({profile}; epochs are counted in "
                 f"the paper's units, at its learning rate {c2p.lr0:g}) test accuracy reaches 0.9 at "
                 f"{_fmt((np.array(s2.t_test, dtype=object) / 1000).tolist())} thousand paper epochs, after train "
                 f"accuracy is first perfect at {_fmt((np.array(s2.t_train, dtype=object) / 1000).tolist())} thousand "
                 "(per seed; ratios in the claims table); the paper's 2k → 3–4k is a ratio of 1.5–2"
                 if MEASURED else None))
claims.claim("fig2_norm_grows", ref="Fig. 2a", quantity="s = 1: final / initial ‖W1‖ + ‖W2‖",
             per_seed=s2.norm_growth, expected=at_least(1.1),
             quote="grokking on a modular arithmetic task that shows an increase in parameter weight norm during "
                   "training (Fig. 2 caption)",
             basis="an increase beyond noise: at least 10%",
             no_control="the paper's point is that the norm grows in a run that groks without weight decay (against "
                        "theories in which grokking needs a shrinking norm); a run that did not grok would not bear on it")
claims.claim("fig2c_scale_delays", ref="Fig. 2c",
             quantity="t_te / t_tr (epoch test acc ≥ 0.9 / epoch train acc perfect) increases with s",
             per_seed=s2.delay_increases_with_scale, expected=is_true("increasing"),
             quote="a sweep over the laziness parameter α ... showcasing how it can continuously control grokking "
                   "(Fig. 2c caption)",
             basis="control by laziness, on the chapter's criterion: a larger scale delays generalisation relative to "
                   "fitting (every scale must generalise); absolute epochs grow with any slower training",
             no_control="a trend across the sweep: its least lazy scale is the comparison")
display(Markdown(f"t_te / t_tr per scale s = {_fmt(r2['scales'])}, seed by seed: {tx.ratios_by_seed(s2.ratios)}."))

# %% tags=["remove-input"]
st2 = ex.fig2_scale_times(r2, c2p.scales)
display(Markdown(
    f"Epochs to test accuracy 0.9 at s = {_fmt(st2.scales)} (in order of s, init seed after init seed): "
    f"{_fmt(st2.t_test)} (paper's epochs). As a power law in s (exponent {_fmt(st2.exponent)} per seed), the "
    f"paper's s = {_fmt(st2.missing)} would need up to {_fmt(st2.largest)} epochs (s = {_fmt(st2.missing[-1:])}), "
    f"against this run's {st2.run_epochs:g}"
    + (f": the profile leaves them out, since running every scale that long would cost {_fmt(st2.cost_factor)}× "
       "this figure's run" if st2.missing else "") + "."))

# %% [markdown]
# ## Fig. 3a — laziness α controls the delay
# The authors' cell: ε = 0.25, target $(\beta\cdot x)^2$ (no ½), η₀ = 0.5, α from 1/32 to 16 (the cpu profile
# halves η₀ for twice the steps, the same gradient flow: at its smaller D the richest run oscillated).
# Losses normalised by their initial values (first seed). The caption says "the final test loss
# decreases with α"; §5.1 and the physics say the opposite (large α → the kernel limit, which
# generalises poorly), and so do the numbers below.

# %%
r3a = ex.run("fig3a", profile, ctx.device, seed)
pl.fig3a(r3a)

# %%
s3a = ex.fig3a_summary(r3a)
s3a_alphas = ex.sweep_values(r3a)
ALPHA = ("large α increases the timescale separation between the decrease in train loss and that of test loss, "
         "while small α can eliminate grokking altogether ... the α → ∞ limit gives poor final performance since "
         "it corresponds to regression with the initial (misaligned) NTK (§5.1)")
claims.claim("fig3a_delay_alpha", ref="Fig. 3a",
             quantity="Spearman ρ(α, t_te(½) / t_tr(½)) over the α whose test loss halves (at least 5 of them)",
             per_seed=s3a.delay_trend, rule=MEDIAN, expected=at_least(0.8), quote=ALPHA,
             basis="paper, on the chapter's criterion (the ratio: η ∝ 1/α² keeps the early dynamics' time scale); "
                   "'increases' as a rank correlation of at least 0.8, which 8 values in random order reach with "
                   "probability about 1%, so that a 3% wiggle between neighbours does not decide it. An α whose test "
                   "loss never halves (the α → ∞ end, K0 regression) has no ratio and is left out",
             no_control="a trend across the sweep: its smallest α is the no-delay end (next claims)")
display(Markdown(tx.fig3a_lazy_text(s3a, s3a_alphas)))
claims.claim("fig3a_lazy_memorises", ref="Abstract / Fig. 3a",
             quantity="the laziest α whose test loss halves: train loss / initial when it halves",
             per_seed=s3a.lazy_train_at_test_half, rule=MEDIAN, expected=at_most(LOW),
             quote="a generalizing solution is identified after train loss is already low (Abstract); large α "
                   "increases the timescale separation between the decrease in train loss and that of test loss (§5.1)",
             basis="'already low': a decade below its start, as for Fig. 1",
             control=ControlRun(f"α = {s3a_alphas[0]:g}", "the sweep's richest run, which 'can eliminate grokking'",
                                per_seed=s3a.rich_train_at_test_half))
claims.claim("fig3a_final_alpha", ref="Fig. 3a / §5.1", quantity="final / initial test loss increases with α",
             per_seed=s3a.final_increasing, expected=is_true("increasing"), quote=ALPHA,
             basis="paper (§5.1: the α → ∞ limit is the misaligned kernel's regression)",
             no_control="a trend across the sweep: its large-α end is the lazy limit, compared with K0 below")
claims.claim("fig3a_small_alpha", ref="Fig. 3a", quantity=f"t_te(½) / t_tr(½) at α = {s3a.smallest_alpha[0]:g}",
             per_seed=s3a.smallest_alpha_ratio, rule=MEDIAN, expected=less_than(ex.DELAYED),
             quote="At small α, the grokking effect disappears as the generalizing features are extracted "
                   "immediately (Fig. 3 caption)",
             basis="disappears = below the chapter's grokking criterion (ratio 2)",
             control=ControlRun("α = 1", "the same cell at Fig. 1's α, which the paper shows grokking",
                                per_seed=s3a.unit_alpha_ratio))
claims.claim("fig3a_k0_limit", ref="§5.1", quantity="|log(final test / K0 test)| decreases with α over α ≥ 1",
             per_seed=s3a.k0_gap_shrinks, expected=is_true("decreasing"), quote=ALPHA,
             basis="the α → ∞ limit is K0 regression: the gap to it shrinks as α grows", kind="consistency")

# %% [markdown]
# ## Fig. 3b — initial alignment ε controls the delay
# No code survives for this panel; it is reconstructed as Fig. 1's setup with an ε sweep at
# infinite width (the closure with $M_0 = I$; every setting of this sweep is ours, see the
# departures table). Larger ε puts more of the initial kernel's power on the quadratic target
# (higher initial alignment): the delay shrinks. The paper also says worse alignment ends at a
# *lower* final loss.

# %%
r3b = ex.run("fig3b", profile, ctx.device, seed)
pl.fig3b(r3b)

# %%
s3b = ex.fig3b_summary(r3b)
s3b_eps = ex.sweep_values(r3b)
EPS = ("small ϵ networks have a longer time delay between training loss reduction and test loss reduction and "
       "that large ϵ networks have a nearly immediate reduction in test loss. Interestingly, worse initial "
       "alignment caused by smaller ϵ leads to lower final test loss (§5.2)")
claims.claim("fig3b_cka_eps", ref="Fig. 3b", quantity="initial kernel–target alignment increases with ε",
             per_seed=s3b.alignment_increasing, expected=is_true("increasing"), kind="consistency",
             basis="follows from the kernel's form: ε² multiplies its quadratic (target) part")
claims.claim("fig3b_delay_eps", ref="Fig. 3b", quantity="t_te(½) / t_tr(½) decreases with ε",
             per_seed=s3b.delay_decreasing, expected=is_true("decreasing in ε"), quote=EPS,
             basis="paper, on the chapter's criterion (absolute delays also grow as a smaller ε slows all learning)",
             no_control="a trend across the sweep: its largest ε is the no-delay end",
             known_deviation=(
                 f"t_te(½)/t_tr(½) over ε = {_fmt(s3b_eps)}, seed by seed: {tx.ratios_by_seed(s3b.ratios)}: the ratio "
                 "does not fall with ε throughout (an absolute delay would: a smaller ε slows fitting too)"
                 if MEASURED else None))
claims.claim("fig3b_final_eps", ref="Fig. 3b", quantity="final / initial test loss non-decreasing in ε (ε ≥ 0.1)",
             per_seed=s3b.final_nondecreasing, expected=is_true("non-decreasing in ε"), quote=EPS,
             basis="paper; smaller ε have not finished learning by the end of the run, so their final loss is not final",
             no_control="a trend across the sweep, of final losses (no delay is read)")

# %% [markdown]
# ## §5, App. 11 — the initial kernel's eigenvalues
# At infinite width the initial NTK is $K(x,x') = x\cdot x' + \varepsilon^2(x\cdot x')^2$ (eq. 5 with
# $\bar w = 0$, $M = I$). Over Gaussian data its eigenvalue on linear functions is $1/D$ and on
# quadratic ones $2\varepsilon^2/D^2$; §5 prints the latter as $2\varepsilon D^{-2}$. Monte Carlo
# Rayleigh quotients (one sample per seed; its size in the claims' basis) decide between the two.

# %%
sk = ex.kernel_spectrum()
EIGQ = ("linear functions all have eigenvalue λ_lin = D^-1 while quadratic functions have eigenvalue "
        "λ_quadr = 2ϵD^-2 (§5, App. 11)")
claims.claim("app11_lambda_lin", ref="App. 11", quantity=f"λ_lin · D (Monte Carlo, D = {sk.D})",
             per_seed=sk.lin_times_D, expected=within(1.0, 0.1), quote=EIGQ,
             basis=f"paper (1/D), with 10% for the Monte Carlo error of {sk.n} points; a property of the kernel, "
                   "no training", kind="consistency")
claims.claim("app11_lambda_quad_printed", ref="§5", quantity=f"λ_quad / (2ε/D²), the printed formula (ε = {sk.eps})",
             per_seed=sk.quad_over_printed, expected=within(1.0, 0.1), quote=EIGQ,
             basis="paper (2εD⁻²), with 10% for the Monte Carlo error",
             known_deviation=(
                 f"the printed 2εD⁻² is off by a factor ε = {sk.eps}: Monte Carlo gives {_fmt(sk.quad_over_eps2)} of "
                 "2ε²D⁻², the value eq. 5's ε² implies (the consistency check below; the ratios to the printed value "
                 "are in the claims table)"
                 if MEASURED else None))
claims.claim("app11_lambda_quad", ref="App. 11", quantity="λ_quad / (2ε²/D²)", per_seed=sk.quad_over_eps2,
             expected=within(1.0, 0.1), kind="consistency",
             basis="theory against Monte Carlo: the ε² of eq. 5's quadratic part gives 2ε²/D² (10% Monte Carlo error)")

# %% [markdown]
# App. 11.1 draws a consequence of these eigenvalues: the target's $|x|^2$ part sits on an
# eigenvalue of order $1/D$ and the rest on $2\varepsilon^2/D^2$, so "a kernel method would learn the
# function $\frac{1}{2D}|x|^2$ at sample sizes $P \approx D$ but will only learn the full target
# function at $P \approx D^2$". Here: ridgeless regression with this kernel (the K0 line of Fig. 1 at
# infinite width) on the quadratic task, P from 1 up to the kernel's feature count $D + D(D+1)/2$
# (where ridgeless regression becomes exact), at two input dimensions; each error curve is the mean
# over a few data sets, its parts split along the eigenfunctions (the $|x|^2$ direction, the
# traceless quadratics, the linear modes).

# %%
sp = ex.kernel_sample_size()
display(Markdown(
    f"D = {_fmt(list(sp.dims))}, ε = {sp.eps}: the |x|² part of the error halves at P = {_fmt(sp.p_trace)} and "
    f"the whole error falls to 10% at P = {_fmt(sp.p_full)} (per seed, one pair per seed); the feature counts "
    f"are {_fmt(list(sp.features))}, so the full target needs about D²/2 samples here, the same order as the "
    "paper's D²."))

# %%
A11 = ("This suggests a kernel method would learn the function 1/(2D)|x|² at sample sizes P ≈ D but will only learn "
       "the full target function at P ≈ D² (App. 11.1)")
claims.claim("app11_sample_trace", ref="App. 11.1",
             quantity="P where the |x|² error halves / D (of D = 8 and 16, the one farther from 1)",
             per_seed=sp.trace_over_D, expected=between(0.5, 2.0), kind="consistency",
             basis="theory against its own computation: 'P ≈ D' within a factor 2")
claims.claim("app11_sample_full", ref="App. 11.1",
             quantity="exponent in D of the P where the whole error falls to 10% (D = 8 → 16)",
             per_seed=sp.full_exponent, expected=within(2.0, 0.25), kind="consistency",
             basis="'P ≈ D²' is an exponent 2; ±0.5 is halfway to the |x|² part's exponent 1")

# %% [markdown]
# ## App. 11.2, eq. 20 — the alignment rises as M aligns to the target
# App. 11.2 computes the numerator of the kernel–task alignment for the NTK of eq. 18,
# $K(x,x') = x\cdot x' + \varepsilon(x\cdot x')\bar w\cdot(x+x') + \varepsilon^2(x\cdot x')x^\top Mx'$:
# $\langle yKy'\rangle = \frac{\varepsilon^2}{D^4}|\beta_*|^4\mathrm{Tr}M + \frac{8\varepsilon^2}{D^4}\beta_*^\top M\beta_*|\beta_*|^2$
# ($\bar w$ drops out: its terms are odd in $x$ or $x'$). A Monte Carlo over independent pairs
# $x, x'$ checks it for a random anisotropic $M$ and a random nonzero $\bar w$, one draw per seed.

# %%
an = ex.alignment_numerator()
display(Markdown(
    f"D = {an.D}, ε = {an.eps}, {an.batches} batches of 2 × {an.n} points. Monte Carlo / eq. 20 for the target "
    f"(β·x)²: {_fmt(an.ratio)} (standard error {_fmt(an.rel_se)}); for §5's target ½(β·x)²: {_fmt(an.half_ratio)}. "
    "Eq. 20 is the numerator for (β·x)², the target of the authors' Fig. 3a cell; with §5's ½ the numerator, "
    "quadratic in the labels, is a quarter of it."))

# %%
claims.claim("eq20_numerator", ref="App. 11.2, eq. 20", quantity="(Monte Carlo − eq. 20) / its standard error",
             per_seed=an.z, expected=close_to(0.0, 4.0), kind="consistency",
             basis="theory against Monte Carlo: 4 standard errors (a correct formula fails one seed with "
                   "probability 6·10⁻⁵)")

# %% [markdown]
# The paper reads eq. 20 as a link between the alignment and eq. 6: "the numerator in the kernel
# alignment formula increases with the alignment of M to the $\beta_*\beta_*^\top$ direction. This
# term also appears in the alignment error of the MSE decomposition". On the Fig. 1 runs above, the
# alignment of the current NTK (Fig. 1c) against eq. 6's misalignment term over training, as a rank
# correlation per seed (the misalignment interpolated onto the alignment's evaluation steps).

# %%
at1 = ex.fig1_alignment_tracking(r1)
display(Markdown(
    f"Spearman ρ over {at1.points} evaluations, per seed: alignment against misalignment {_fmt(at1.rho_misalignment)}; "
    f"alignment against the step {_fmt(at1.rho_step)}. The second is the caveat: where the alignment rises "
    "monotonically in time, any quantity that falls monotonically correlates as strongly, so this claim checks the "
    "direction of the link, not its mechanism."))

# %%
claims.claim("eq20_alignment_tracks_misalignment", ref="App. 11.2 / §5",
             quantity="Spearman ρ over training: NTK–target alignment against the misalignment term of eq. 6",
             **ex.seed_values(at1.rho_misalignment, "one run (the kept result is of one seed)"),
             expected=at_most(-0.7),
             quote="It is closely related and strongly correlated to its general counterpart, the CKA (§5); the "
                   "numerator in the kernel alignment formula increases with the alignment of M to the β*β*ᵀ "
                   "direction (App. 11.2)",
             basis="the alignment rises as the misalignment error falls; 'strongly correlated' read as |ρ| ≥ 0.7. A "
                   "consistency check only: any quantity monotone in time correlates as strongly (ρ with the step "
                   "above)", kind="consistency")

# %% [markdown]
# ## App. 12, eq. 23 — the initial NTK with trained readouts
# With readouts $v_i$ trained too, App. 12 gives the initial kernel
# $K = 2x\cdot x' + \frac{3\varepsilon^2}{2}(x\cdot x')^2 + \frac{\varepsilon^2}{4}|x|^2|x'|^2$. It is the kernel of
# $f = \frac{1}{\sqrt N}\sum_i v_i\phi(w_i\cdot x)$ (the $1/N$ of eq. 21 with the chapter's learning rate
# $\eta \propto N$ is the same dynamics; with $1/N$ and a fixed rate the kernel is $N$ times smaller),
# $v_i \sim \mathcal N(0,1)$, $w_i \sim \mathcal N(0, I)$: the readouts contribute
# $\langle\phi(h)\phi(h')\rangle = x\cdot x' + \frac{\varepsilon^2}{4}(|x|^2|x'|^2 + 2(x\cdot x')^2)$, the input
# weights $(1 + \varepsilon^2 x\cdot x')\,x\cdot x'$. The check: the empirical NTK of one wide network per
# seed, from its per-parameter gradients, entry by entry against eq. 23 in units of each entry's
# standard error over the neurons (which shrinks like $1/\sqrt N$).

# %%
rk = ex.readout_kernel()
display(Markdown(
    f"D = {rk.D}, ε = {rk.eps}, N = {rk.N}, {rk.n} points ({rk.n * (rk.n + 1) // 2} entries); median standard "
    f"error {_fmt(rk.rel_se)} of the entry. Largest |z| against eq. 23: {_fmt(rk.max_z)}; against the kernel "
    f"with fixed readouts, x·x' + ε²(x·x')²: {_fmt(rk.rival_z)}."))

# %%
claims.claim("eq23_readout_kernel", ref="App. 12, eq. 23",
             quantity="largest |empirical NTK − eq. 23| / standard error over the entries",
             per_seed=rk.max_z, expected=at_most(5.0), kind="consistency",
             basis="theory against a finite-width network: the largest of ~500 normal deviates exceeds 5 with "
                   "probability < 10⁻³")

# %% [markdown]
# ## App. 10, eqs. 8–9 — task difficulty and the weight change
# App. 10 calls a task hard for the initial kernel when $y^\top K^{-1} y \gg 1$ (eq. 8, $K$ the
# initial NTK on the training set) and says that near the kernel limit the weights move by
# $|w - w_0|^2 \sim y^\top K^{-1} y$ (eq. 9). The paper runs no experiment for it. Here: the
# quadratic task at α = 256 (lazy), its difficulty varied through the initial alignment ε
# (for the quadratic target $y^\top K^{-1} y$ grows like $1/\varepsilon^2$), and the final
# $\|W - W_0\|_F^2$ set against $y^\top K^{-1} y$, both per neuron (divided by N). A weight change
# that did not follow the kernel's difficulty would give an exponent far from 1; in the rich regime
# the network reaches the solution $\Delta M \propto 1/(\alpha\varepsilon)$, whose squared size grows
# only like the square root of the difficulty (exponent ½).

# %%
c9 = ex.config("eq9", profile)
r9k = ex.run("eq9", profile, ctx.device, seed)
s9k = ex.eq9_summary(r9k)
display(Markdown(
    f"α = {c9.base.alpha:g}, ε = {_fmt(np.ravel(r9k['values']).tolist())}, D = {c9.base.D}, P = {c9.base.P}. Per seed, "
    f"yᵀK⁻¹y / N: {_fmt(s9k.difficulty)}; ‖W − W0‖² / N: {_fmt(s9k.change)}; their ratio: {_fmt(s9k.ratio)}."))

# %%
EQ9Q = ("near the kernel limit, the amount that the parameters move during training under MSE is precisely given by "
        "this quantity |w − w0|² ∼ yᵀK⁻¹y (App. 10, eq. 9)")
claims.claim("eq9_change_scales", ref="App. 10, eq. 9",
             quantity="exponent of ‖W − W0‖² against yᵀK⁻¹y over the ε sweep (α = 256)", per_seed=s9k.exponent,
             expected=within(1.0, 0.25), quote=EQ9Q,
             basis="'∼' is proportionality, exponent 1; ±0.25 is halfway to the rich regime's ½ (ΔM ∝ 1/(αε)). Near "
                   "the kernel limit this is the kernel regression's own identity |w − w0|² = yᵀK⁻¹y, so a "
                   "consistency check", kind="consistency")
claims.claim("eq9_change_value", ref="App. 10, eq. 9", quantity="smallest ‖W − W0‖² / yᵀK⁻¹y over the ε sweep",
             per_seed=s9k.min_ratio, expected=between(0.5, 2.0), quote=EQ9Q,
             basis="'precisely given by': equal up to a factor 2 (the hardest task, ε smallest, is the furthest from "
                   "the kernel limit)",
             no_control="a statement about the kernel limit (α = 256), checked against its own formula; the rich "
                        "regime's exponent ½ is the alternative the exponent claim separates from")

# %% [markdown]
# ## Fig. 3c, d — schematics
# Panels (c)–(d) are drawings of parameter dynamics for several α and ε; they are not re-drawn.
# Fig. 1a above draws the same picture from an actual run.
#
# ## Fig. 3e — phase diagram of the delay
# The authors' heat map is an *absolute* time to grok, $\max(0, t_{te}(0.1) - t_{tr}(0.1))$, over α and ε
# (the paper's grid is α = 0.4i, ε = 0.02i, i ≤ 14). An absolute time grows with anything that slows
# training — a smaller ε slows the fit as well as the generalisation — so here every cell is the chapter's
# criterion, the ratio $t_{te}(\tfrac12)/t_{tr}(\tfrac12)$, each cell drawn at its own (ε, α) with its value
# (blank where a loss never halves). A reduced profile takes part of the grid: the number of points below.
# Map of the first seed; the claims read every seed.

# %% tags=["remove-input"]
display(Markdown(f"This profile's grid: {len(ex.config('fig3e', profile).values)} (α, ε) points."))

# %%
r3e = ex.run("fig3e", profile, ctx.device, seed)
s3e = ex.fig3e_summary(r3e)
pl.fig3e(r3e, s3e.time_to_grok[0])

# %%
PHASE = "lazy, misaligned networks grok the most intensely (Fig. 3e caption)"
NO_CONTROL_3E = "a comparison across the grid: its small-α, large-ε cells are the runs without a delay"
claims.claim("fig3e_alpha", ref="Fig. 3e", quantity="t_te(½) / t_tr(½) increases with α at the smallest ε",
             per_seed=s3e.increases_with_alpha, expected=is_true("increasing"), quote=PHASE, basis="paper",
             no_control=NO_CONTROL_3E)
claims.claim("fig3e_eps", ref="Fig. 3e", quantity="for every α, the smallest ε has the largest t_te(½) / t_tr(½)",
             per_seed=s3e.smallest_eps_longest, expected=is_true(), quote=PHASE, basis="paper",
             no_control=NO_CONTROL_3E, known_deviation=tx.fig3e_deviation(s3e) if MEASURED else None)
claims.claim("fig3e_corner", ref="Fig. 3e", quantity="the largest t_te(½) / t_tr(½) lies at the largest α and smallest ε",
             per_seed=s3e.max_in_lazy_misaligned_corner, expected=is_true(), quote=PHASE, basis="paper",
             no_control=NO_CONTROL_3E, known_deviation=tx.fig3e_deviation(s3e) if MEASURED else None)

# %% [markdown]
# ## Fig. 4 — the loss decomposition
# The authors' cell for Fig. 4 is a committee machine with **N = 2**, D = 40, P = 120, ε = 0.25,
# η = 1 and the *uncentred* loss (none of these is stated in the paper; they are the authors'
# code). It runs here as published, in float64, over the seeds below, and a run that diverges
# stays in the record as diverged (its values are not observed). The same decomposition of the
# Fig. 1 runs (centred) follows.

# %% tags=["remove-input"]
display(Markdown(f"Seeds of the N = 2 cell: {len(ex.config('fig10', profile).seeds)}."))

# %%
r10 = ex.run("fig10", profile, ctx.device, seed)
s4n = ex.fig4_n2_summary(r10)
pl.fig4(r10, setting="N = 2 cell")

# %%
FIG4 = ("the initial peak in test error is associated with the model attempting to learn a linear function of the "
        "input (orange curve) before later improving the alignment (dashed green loss falling at late time) and "
        "reducing the scale of the linear component (dashed black) (§5.3)")
claims.claim("fig4_n2_rise", ref="Fig. 4", quantity="N = 2: max test loss / initial", per_seed=s4n.rise,
             rule=MEDIAN, expected=at_least(1.1), quote=FIG4, basis="a peak is a rise above the start; 10% is well above noise",
             known_deviation=(
                 "in the authors' N = 2 cell the test loss does not rise 10% above its start (max / initial per seed "
                 "in the claims table): the uncentred N = 2 init already puts much of the test loss in linear modes, "
                 f"whose power peaks at {_fmt(s4n.linear_peak)} of the initial test loss, hardly above its start (next "
                 "claim)"
                 if MEASURED else None))
claims.claim("fig4_n2_linear_rises", ref="Fig. 4", quantity="N = 2: peak / initial power in linear modes",
             per_seed=s4n.linear_rise, rule=MEDIAN, expected=at_least(1.1), quote=FIG4,
             basis="the network puts power in the linear component: it grows beyond its initial value",
             known_deviation=(
                 "the power in linear modes starts high (uncentred init) and hardly rises above its start (per-seed "
                 "peak / initial in the claims table)"
                 if MEASURED else None))
claims.claim("fig4_n2_linear_gone", ref="Fig. 4", quantity="N = 2: final linear power / initial test loss",
             per_seed=s4n.linear_final, rule=MEDIAN, expected=at_most(0.02), quote=FIG4,
             basis="'reducing the scale of the linear component': to within 2% of the initial loss",
             known_deviation=(
                 f"after {ex.config('fig10', profile).base.steps} steps the linear power has not fallen to 2% of the "
                 "initial test loss in every seed (per-seed values in the claims table): those seeds have not "
                 f"generalised (at {ex.config('fig10', 'paper').base.steps} steps, the paper profile, they diverge to "
                 "NaN)"
                 if MEASURED else None))

# %%
pl.fig4(r1)

# %%
s4 = ex.fig4_summary(r1)
s4r = ex.fig4_summary(r1r)
claims.claim("fig4_linear_peak", ref="Fig. 4 (Fig. 1 setting)", quantity="peak linear power / initial test loss",
             per_seed=s4.linear_peak, rule=MEDIAN, expected=at_least(0.1), quote=FIG4,
             basis="the linear power makes up a visible part (≥ 10%) of the test loss at its peak",
             control=ControlRun(RICH, RICH_WHY, per_seed=s4r.linear_peak))
claims.claim("fig4_peak_before_fit", ref="Fig. 4 (Fig. 1 setting)", quantity="t(linear-power peak) / t_tr(½)",
             per_seed=s4.peak_over_train_half_time, rule=MEDIAN, expected=less_than(1.0), quote=FIG4,
             basis="the linear power peaks while the network is still fitting (before the train loss halves)",
             control=ControlRun(RICH, RICH_WHY, per_seed=s4r.peak_over_train_half_time))
claims.claim("fig4_alignment_late", ref="Fig. 4 (Fig. 1 setting)",
             quantity="misalignment at the linear-power peak / initial (runs that later halve it)",
             per_seed=s4.misalignment_at_peak, rule=MEDIAN, expected=at_least(0.9), quote=FIG4,
             basis="alignment improves only later: the misalignment has fallen by less than 10% at the peak, and "
                   "halves afterwards (a run that never aligns is not observed)",
             control=ControlRun(RICH, RICH_WHY, per_seed=s4r.misalignment_at_peak))
claims.claim("fig4_linear_gone", ref="Fig. 4 (Fig. 1 setting)", quantity="final linear power / initial test loss",
             per_seed=s4.linear_final, rule=MEDIAN, expected=at_most(0.02), quote=FIG4,
             basis="'reducing the scale of the linear component': to within 2% of the initial loss",
             no_control="the removal of the linear part is the generalisation itself (the linear power is part of "
                        "the test loss); the runs that keep it are those that do not generalise (fig1_lin_fails)")

# %% [markdown]
# ## Fig. 5 — NTK-eigenvector labels
# §6.1: Gaussian data, N = 2, labels = the j-th eigenvector of the initial NTK on all 2P points.
# Top eigenvectors (high alignment) are learnt at once, mid-spectrum ones are grokked, tail ones
# are not learnt at all. The profile's data seeds, batched.

# %%
r5 = ex.run("fig5", profile, ctx.device, seed)
pl.fig5(r5)

# %%
s5 = ex.fig5_summary(r5)
EIG = ("If the network begins highly aligned as in (a), learning curves move together. If the network features are "
       "poorly aligned at initialization, as in (c), the network cannot generalize. In the middle, as in (b), the "
       "network groks (Fig. 5 caption)")
claims.claim("fig5_top_no_delay", ref="Fig. 5a", quantity="top eigenvector (j = 1): t_te(½) / t_tr(½)",
             per_seed=s5.top_ratio, expected=less_than(ex.DELAYED), quote=EIG,
             basis="move together = below the chapter's grokking criterion (ratio 2)",
             control=ControlRun(f"j = {s5.mid_j[0]}", "the mid-spectrum labels, which the paper shows grokking",
                                per_seed=s5.mid_ratio))
claims.claim("fig5_mid_groks", ref="Fig. 5b", quantity=f"j = {s5.mid_j[0]}: t_te(½) / t_tr(½)", per_seed=s5.mid_ratio,
             expected=at_least(ex.DELAYED), quote=EIG, basis="the chapter's grokking criterion",
             control=ControlRun("j = 1", "the top eigenvector, learnt at once", per_seed=s5.top_ratio))
claims.claim("fig5_tail_fits", ref="Fig. 5c", quantity=f"j = {s5.tail_j[0]}: final / initial train loss",
             per_seed=s5.tail_train_final, expected=at_most(0.01), kind="consistency",
             basis="the premise of the next claim: the run has fitted its train set (≤ 1% of the start), so its test "
                   "loss is read after training")
claims.claim("fig5_tail_fails", ref="Fig. 5c", quantity=f"j = {s5.tail_j[0]}: time the test loss halves",
             per_seed=s5.tail_test_half, expected=never(), quote=EIG,
             basis="cannot generalise = the test loss never halves in the run (which has fitted its train set)",
             control=ControlRun("j = 1", "the top eigenvector, on the same data and network", per_seed=s5.top_test_half))
claims.claim("fig5_alignment", ref="Fig. 5", quantity="initial kernel–label alignment decreases with j",
             per_seed=s5.alignment_decreasing, expected=is_true("decreasing"), kind="consistency",
             basis="holds by construction: the alignment of the j-th eigenvector is its eigenvalue's share")

# %% [markdown]
# ## Fig. 6a — digits, α sweep
# The Omnigrok MNIST protocol (1000 training images, large initialisation, AdamW) with the output
# scaled by α and centred. MNIST cannot be downloaded in this build and no installed package ships
# it, so the run uses the data set named below; every α of every seed of the profile (its own data
# split, init and mini-batch order) is one batched tensor program; curves of the first seed.

# %%
r6a = ex.run("fig6a", profile, ctx.device, seed)
display(Markdown(f"Data: **{r6a['source']}**."))
pl.fig6a(r6a)

# %%
s6a = ex.fig6a_summary(r6a)
MNIST = ("Continuously controlling grokking on MNIST by only varying laziness, α, including making it vanish by "
         "encouraging fast feature learning at α = 0.0001 (Fig. 6a caption)")
claims.claim("fig6a_large_alpha_groks", ref="Fig. 6a",
             quantity="largest α: step test acc ≥ 0.9 / step train acc ≥ 0.9", per_seed=s6a.delay_ratio,
             expected=at_least(ex.DELAYED), quote=MNIST, basis="the chapter's grokking criterion, on accuracy",
             known_deviation=None if s6a.is_mnist[0] else (
                 f"on 8×8 digits the laziest run (α = {r6a['alphas'][-1]:g}) reaches test accuracy 0.9 "
                 f"{_fmt(s6a.delay_ratio)}× the step train accuracy reaches 0.9 (per seed): no delay; the lazy network "
                 f"already has {_fmt(s6a.lazy_test_at_fit)} test accuracy when it fits (consistency check below), so "
                 "there is no grokking to remove"
                 if MEASURED else None))
claims.claim("fig6a_lazy_kernel_easy", ref="Fig. 6a (our reason)",
             quantity="largest α: test accuracy when train accuracy first reaches 0.9", per_seed=s6a.lazy_test_at_fit,
             expected=at_least(0.8), kind="consistency",
             basis="the measured reason for the deviation: the lazy network already generalises while it fits "
                   "(≥ 0.8 when train accuracy reaches 0.9), so there is no delay to remove")

# %% [markdown]
# ## Fig. 6b — one-layer transformer, α sweep
# Nanda et al.'s transformer on modular addition with centred logits scaled by α and AdamW with
# lr ∝ 1/α². Smaller α → the delay between fitting and generalising shrinks. Every α of every seed
# of the profile is one member of a batched tensor program (each run leaves the program once its
# delay is decided: train and test cross-entropy both at or below 0.1; its curve ends there);
# curves of the first seed.

# %%
r6b = ex.run("fig6b", profile, ctx.device, seed)
pl.fig6b(r6b)

# %%
s6b = ex.fig6b_summary(r6b)
c6b, c12 = ex.config("fig6b", profile), ex.config("fig12", profile)
TRANSFORMER = ("Continuously controlling grokking on a one-layer Transformer from Nanda et al. (2023) using the scale "
               "parameter α. Note how grokking has vanished for α = 0.15 (Fig. 6b caption)")
claims.claim("fig6b_alpha_delay", ref="Fig. 6b", quantity="t_te(0.1) / t_tr(0.1) increases with α",
             per_seed=s6b.increasing, expected=is_true("increasing"), quote=TRANSFORMER,
             basis="control by laziness: the delay ratio grows with α (every α must generalise)",
             known_deviation=(
                 f"at the {profile} size (p = {c6b.p}, d_model {c6b.d_model}, up to {c6b.steps} steps) t_te(0.1) / t_tr(0.1) "
                 f"for α = {_fmt(s6b.alphas[0])} is {_fmt(s6b.ratios[0])} (seed 0), {_fmt(s6b.ratios[1])} (seed 1), "
                 f"{_fmt(s6b.ratios[2])} (seed 2): an α whose "
                 "run never reaches test cross-entropy 0.1 has its delay not observed, and so has the increase"
                 if MEASURED else None))
claims.claim("fig6b_small_alpha", ref="Fig. 6b", quantity=f"α = {s6b.alphas[0][0]}: t_te(0.1) / t_tr(0.1)",
             per_seed=s6b.smallest_alpha_ratio, expected=less_than(ex.DELAYED), quote=TRANSFORMER,
             basis="vanished = below the chapter's grokking criterion (ratio 2)",
             known_deviation=(
                 tx.fig6b_small_alpha_deviation(s6b, c6b, ex.config('fig6b', 'paper').lr0, profile)
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 7 — σ²α, not the weight norm alone, sets the laziness
# App. 8.2: sweeps of α, of the init scale σ, and joint (σ, α = 1/σ²); the relative parameter
# change and the final loss depend on σ²α. Learning rate η = η₀N/(σ²α²), as in the authors' cells.

# %%
r7b = ex.run("fig7b", profile, ctx.device, seed)
r7c = ex.run("fig7c", profile, ctx.device, seed)
pl.fig7(r3a, r7b, r7c)

# %%
s7 = ex.fig7_summary(r3a, r7b, r7c)
SIGMA = ("approximate preservation of the feature learning can be achieved by choosing α ∼ σ^-2. (d)-(f) The "
         "relative parameter change |w − w_0|/|w_0| and final test loss is controlled through the quantity σ²α "
         "(Fig. 7 caption)")
claims.claim("fig7_sigma_alpha_rel", ref="Fig. 7d",
             quantity="max |rel. change(σ sweep) / rel. change(α sweep) − 1| at equal σ²α",
             per_seed=s7.sigma_alpha_rel_dev, expected=at_most(0.05), quote=SIGMA,
             basis="'controlled through σ²α': runs of equal σ²α agree to within 5%. Near an identity: with η = "
                   "η0·N/(σ²α²) the closure's dynamics depend on σ and α mostly through σ²α", kind="consistency")
claims.claim("fig7_joint_rel", ref="Fig. 7c", quantity="α = 1/σ²: max / min relative change over σ, minus 1",
             per_seed=s7.joint_rel_dev, expected=at_most(0.05), quote=SIGMA,
             basis="'approximate preservation': within 5%; near an identity, as the previous check",
             kind="consistency")
claims.claim("fig7_joint_final", ref="Fig. 7c", quantity="α = 1/σ²: max / min final test loss over σ",
             per_seed=s7.joint_final_spread, expected=at_most(1.25), quote=SIGMA,
             basis="'approximate preservation' of the final loss, which varies over orders of magnitude with σ²α: "
                   "within 25%",
             control=ControlRun("σ sweep at α = 1", "the same σ without the compensating α = 1/σ²: σ²α varies",
                                per_seed=s7.sigma_final_spread))
claims.claim("fig7_rel_monotone", ref="Fig. 7d", quantity="relative change decreases with σ²α",
             per_seed=s7.rel_decreasing, expected=is_true("decreasing"), quote=SIGMA,
             basis="a lazier network (larger σ²α) moves its weights less: the definition of laziness",
             kind="consistency")

# %% [markdown]
# ## Fig. 8 — student–teacher (Omnigrok), α sweep
# App. 8.3.1: Liu et al.'s student–teacher task (tanh MLPs, student init × 2, AdamW), output ×
# scale; "accuracy" = fraction of samples with MSE < 10⁻³. Scale 1 is Liu et al.'s experiment.
# The profile's teacher/student/data seeds (5 at cpu), batched with the scales. Whether scale 1 groks is read on the
# Fig. 17 run below: the same scale-1 student and seeds alone, run for longer than this sweep.

# %%
r8 = ex.run("fig8", profile, ctx.device, seed)
pl.fig8(r8)

# %%
s8 = ex.fig8_summary(r8)
c8, c17 = ex.config("fig8", profile), ex.config("fig17", profile)
ST = ("by tuning our scaling parameter to be smaller α → 0, we can make that induced grokking vanish ... and in "
      "fact, we can even make grokking more pronounced by increasing it (Fig. 8 caption)")
claims.claim("fig8_scale_delays", ref="Fig. 8", quantity="t_te(acc 0.5) / t_tr(acc 0.9) increases with the scale",
             per_seed=s8.ratio_increasing, expected=is_true("increasing"), quote=ST,
             basis="'more pronounced' grokking on the chapter's criterion: the delay ratio grows with the scale (every "
                   "scale must generalise in the run)",
             no_control="a trend across the sweep: its smallest scale is the no-delay end (fig8_small_vanishes)",
             known_deviation=(
                 f"t_te(acc 0.5) / t_tr(acc 0.9) over the scales {_fmt(s8.scales[0])}, seed by seed: "
                 f"{tx.ratios_by_seed(s8.ratios)} ({c8.steps} steps): not observed where a scale's test accuracy "
                 "never reaches 0.5, so the increase is not observed"
                 if MEASURED else None))
liu = ex.scale_one_delay(ex.run("fig17", profile, ctx.device, seed))
claims.claim("fig8_liu_groks", ref="Fig. 8",
             quantity=f"scale 1: t_te(acc 0.5) / t_tr(acc 0.9) over {c17.steps} steps (the Fig. 17 run)",
             per_seed=liu, rule=MEDIAN, expected=at_least(ex.DELAYED), quote=ST,
             basis="the chapter's grokking criterion, on accuracy",
             control=ControlRun(f"scale {s8.scales[0][0]}", "the smallest scale, where the paper makes grokking vanish",
                                per_seed=s8.smallest_ratio),
             known_deviation=(
                 f"the scale-1 student (Fig. 17's run of it: the same seeds, {c17.steps} AdamW steps; paper: "
                 f"{ex.config('fig8', 'paper').steps}) has t_te(acc 0.5) / t_tr(acc 0.9) = {_fmt(liu)} per seed: "
                 "not observed where test accuracy never reaches 0.5 in the run; in this sweep's "
                 f"{c8.steps} steps the first seed's ratios over the scales {_fmt(s8.scales[0])} are {_fmt(s8.ratios[0])}"
                 if MEASURED else None))
claims.claim("fig8_small_vanishes", ref="Fig. 8", quantity=f"scale {s8.scales[0][0]}: t_te(acc 0.5) / t_tr(acc 0.9)",
             per_seed=s8.smallest_ratio, rule=MEDIAN, expected=less_than(ex.DELAYED), quote=ST,
             basis="vanish = below the chapter's grokking criterion",
             control=ControlRun("scale 1", "Liu et al.'s student, which the paper shows grokking (the Fig. 17 run)",
                                per_seed=liu))

# %% [markdown]
# ## Fig. 9 — a "goldilocks" dataset size
# App. 8.3.2, P ∈ {50, 120, 500} (the authors' cell: D = 40, N = 100, ε = 0.5, η₀ = 0.5): too
# little data cannot generalise, enough data generalises at once, and in between the network
# groks. The criterion is the chapter's (stated above, before measuring).

# %%
r9 = ex.run("fig9", profile, ctx.device, seed)
pl.fig9(r9)

# %%
s9 = ex.fig9_summary(r9)
GOLD = ("Here we see the three regimes of train set size: too little (a, d), just right (b, e), and too much (c, f) "
        "... failure to generalize (a) comes from power in linear modes ... grokking comes from a rise then fall in "
        "power in linear modes (b) (App. 8.3.2, Fig. 9 caption)")
claims.claim("fig9_small_fails", ref="Fig. 9a", quantity=f"P = {s9.sizes[0][0]}: time the test loss halves",
             per_seed=s9.small_test_half, expected=never(), quote=GOLD,
             basis="failure to generalise = the test loss never halves in the run",
             control=ControlRun(f"P = {s9.sizes[0][-1]}", "the largest data set, same network and task",
                                per_seed=s9.large_test_half))
claims.claim("fig9a_worse_than_random", ref="Fig. 9a", quantity=f"P = {s9.sizes[0][0]}: final / initial test loss",
             per_seed=s9.small_final, rule=MEDIAN, expected=greater_than(1.0),
             quote="This attempted (approximate) kernel method helps us interpolate the train set, but leads to worse "
                   "than random behavior (App. 8.3.2)",
             basis="worse than the initial (random) network: the final test loss above the initial one",
             control=ControlRun(f"P = {s9.sizes[0][-1]}", "the largest data set, which generalises",
                                per_seed=s9.large_final),
             known_deviation=(
                 f"P = {s9.sizes[0][0]} does not end above its initial test loss in every seed (per-seed final / "
                 "initial in the claims table): it is not worse than the initial network throughout"
                 if MEASURED else None))
claims.claim("fig9_mid_groks", ref="Fig. 9b", quantity=f"P = {s9.sizes[0][1]}: t_te(½) / t_tr(½)",
             per_seed=s9.mid_ratio, rule=MEDIAN, expected=at_least(ex.DELAYED), quote=GOLD, basis="the chapter's grokking criterion",
             control=ControlRun(f"P = {s9.sizes[0][-1]}", "too much data for grokking", per_seed=s9.large_ratio),
             known_deviation=(
                 f"P = {s9.sizes[0][1]}: t_te(½)/t_tr(½) is {_fmt(s9.mid_ratio)} per seed in "
                 f"{ex.config('fig9', profile).base.steps} steps (not observed: the test loss never halves); the "
                 "criterion is not met in every seed"
                 if MEASURED else None))
claims.claim("fig9_mid_linear", ref="Fig. 9e", quantity=f"P = {s9.sizes[0][1]}: peak / final power in linear modes",
             per_seed=s9.mid_linear_rise_fall, rule=MEDIAN, expected=at_least(10.0), quote=GOLD,
             basis="'a rise then fall': the final linear power at least 10× below its peak",
             control=ControlRun(f"P = {s9.sizes[0][0]}", "too little data: the linear power stays (paper: 'failure to "
                                "generalize comes from power in linear modes')", per_seed=s9.small_linear_rise_fall),
             known_deviation=(
                 f"after {ex.config('fig9', profile).base.steps} steps the linear power of P = {s9.sizes[0][1]} is "
                 f"{_fmt(s9.mid_linear_rise_fall)}× below its peak per seed: it rises and falls, but not 10× in every "
                 "seed"
                 if MEASURED else None))
claims.claim("fig9_large_no_delay", ref="Fig. 9c", quantity=f"P = {s9.sizes[0][-1]}: t_te(½) / t_tr(½)",
             per_seed=s9.large_ratio, rule=MEDIAN, expected=less_than(ex.DELAYED), quote=GOLD,
             basis="too much data for grokking: below the chapter's grokking criterion",
             control=ControlRun(f"P = {s9.sizes[0][1]}", "the just-right data set, which the paper shows grokking",
                                per_seed=s9.mid_ratio),
             known_deviation=(
                 f"P = {s9.sizes[0][-1]}: t_te/t_tr reaches the criterion's edge of 2 in at least one seed (per-seed "
                 "ratios in the claims table)"
                 if MEASURED else None))
claims.claim("fig9_large_best", ref="Fig. 9c", quantity=f"P = {s9.sizes[0][-1]} ends at the lowest test loss",
             per_seed=s9.large_best, expected=is_true(), quote=GOLD,
             basis="more data, better generalisation ('full generalization' in (c)): expected of any learner",
             kind="consistency")

# %% [markdown]
# ## Fig. 10 — starting partly at the solution removes the test-loss rise
# App. 8.3.3 in the authors' N = 2 setting (Fig. 4 above): $W_0 \leftarrow (1-\lambda)W_0 + \lambda W_{sol}$
# with $W_{sol} = \pm\beta/\sqrt{\alpha\varepsilon}$ on the two neurons, every seed of the N = 2 cell.
# First seed shown.

# %%
pl.fig10(r10)

# %%
s10 = ex.fig10_summary(r10)
SOL = ("increasing alignment by even a little bit makes dramatic grokking (increase in test loss alongside an initial "
       "decrease in test loss) vanish (App. 8.3.3)")
claims.claim("fig10_rise_at_zero", ref="Fig. 10", quantity="λ = 0: max test loss / initial",
             per_seed=s10.zero_lam_rise, rule=MEDIAN, expected=at_least(1.1), quote=SOL,
             basis="the rise that the solution component removes: 10% above the start",
             known_deviation=(
                 "in the authors' N = 2 cell the test loss does not rise 10% above its start at λ = 0 (max / initial "
                 "per seed in the claims table), so there is no rise for the solution component to remove"
                 if MEASURED else None))
claims.claim("fig10_delay_shrinks", ref="Fig. 10", quantity="t_te(½) / t_tr(½) decreases with λ (λ ≥ 0.2)",
             per_seed=s10.delay_decreasing, expected=is_true("decreasing"), quote=SOL,
             basis="more alignment at the start, less delay ('evidence that initial NTK alignment controls ...')",
             no_control="a trend across the λ sweep: λ = 0 is the unaligned end")
claims.claim("fig10_small_lambda", ref="Fig. 10", quantity=f"λ = {ex.SMALL_LAM}: t_te(½) / t_tr(½)",
             per_seed=s10.small_lam_ratio, rule=MEDIAN, expected=less_than(ex.DELAYED), quote=SOL,
             basis="'even a little bit' makes grokking vanish: below the chapter's grokking criterion",
             known_deviation=(
                 f"λ = {ex.SMALL_LAM} still delays generalisation (per-seed ratios in the claims table; λ = 0: "
                 f"{_fmt(np.array(s10.ratios, dtype=object)[:, 0].tolist())}); the delay shrinks with λ (claim above) "
                 f"but only λ = {s10.lams[0][-1]} comes near 2 "
                 f"({_fmt(np.array(s10.ratios, dtype=object)[:, -1].tolist())})"
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 11 — the same mechanism with trained readouts
# App. 12: N = 2 with trained readouts $a_i$; the eq. 6 terms use $\bar w = \sum a_iw_i/N$,
# $M = \sum a_iw_iw_i^\top/N$. The profile's seeds, batched.

# %%
r11 = ex.run("fig11", profile, ctx.device, seed)
pl.fig11(r11)

# %%
s11 = ex.fig11_summary(r11)
READ = "Grokking decomposition for an ordinary 2-layer MLP ... The same mechanism holds as posited (Fig. 11 caption)"
NOT_GEN_WHY = "the seeds of the same cell whose test loss never halves: no late alignment, no grokking"
GEN = f"the seeds whose test loss halves, {s11.n_generalised} of {len(s11.final)}"
claims.claim("fig11_generalises", ref="Fig. 11", quantity="final / initial population test loss",
             per_seed=s11.final, rule=MEDIAN, expected=at_most(0.5), quote=READ, basis="generalises: the test loss halves",
             no_control="the outcome the other Fig. 11 claims are conditioned on (they read the seeds that generalise)",
             known_deviation=(
                 f"{s11.n_generalised} of {len(s11.final)} seeds generalise (final / initial "
                 f"{_fmt(s11.final)}): where the test loss does not halve, the N = 2 network finds no solution"
                 if MEASURED else None))
claims.claim("fig11_linear_rise_fall", ref="Fig. 11",
             quantity="seeds that generalise: peak / final power in linear modes",
             per_seed=s11.among("linear_peak_over_final"), subset=GEN, rule=MEDIAN, expected=at_least(10.0), quote=READ,
             basis="as Fig. 4: the linear power rises, then falls at least 10× below its peak",
             control=ControlRun("seeds that do not generalise", NOT_GEN_WHY,
                                per_seed=s11.among("linear_peak_over_final", False)))
claims.claim("fig11_alignment_late", ref="Fig. 11",
             quantity="seeds that generalise: misalignment at the linear-power peak / initial",
             per_seed=s11.among("misalignment_at_peak"), subset=GEN, rule=MEDIAN, expected=at_least(0.9), quote=READ,
             basis="as Fig. 4: alignment improves only later (less than 10% gone at the peak)",
             control=ControlRun("seeds that do not generalise", NOT_GEN_WHY,
                                per_seed=s11.among("misalignment_at_peak", False)))
claims.claim("fig11_test_rises", ref="Fig. 11", quantity="seeds that generalise: test loss at the peak / its earlier "
             "minimum", per_seed=s11.among("test_rise"), subset=GEN, rule=MEDIAN, expected=at_least(1.1), quote=READ,
             basis="as Fig. 4: a rise of 10% above noise",
             control=ControlRun("seeds that do not generalise", NOT_GEN_WHY, per_seed=s11.among("test_rise", False)))

# %% [markdown]
# ## Fig. 12 — weight decay versus laziness (transformer)
# App. 13: (a) α = 0.5, wd = 1 groks late; (b) wd = 5 removes the delay; (c) α = 1.4 with wd = 5
# restores it. Compared as $t_{te}/t_{tr}$ (absolute delays grow with α simply because lr ∝ 1/α²).
# The three panels of every seed the profile runs are one batched tensor program, each run
# leaving it once train and test cross-entropy have both reached 0.1 (its curve ends there);
# curves of the first seed.

# %%
r12 = ex.run("fig12", profile, ctx.device, seed)
pl.fig12(r12)

# %%
s12 = ex.fig12_summary(r12)
display(Markdown(f"t_te(0.1) / t_tr(0.1) per seed: (a) {_fmt(s12.a)}; (b) {_fmt(s12.b)}; (c) {_fmt(s12.c)}. (c) is "
                 "claimed against (b), the run whose delay the paper says weight decay removed; (a) is the delay it "
                 "says (c) recovers."))
WD = ("(a) Start with large grokking time delay with α = 0.5, wd = 1. (b) Increasing weight decay to wd = 5 (keep "
      "α = 0.5) makes grokking vanish ... (c) Then commensurately increasing laziness to α = 1.4 (keep wd = 5) "
      "recovers grokking (Fig. 12 caption)")
ONE12 = "one run per panel (no kept result over seeds)"
claims.claim("fig12a_groks", ref="Fig. 12a", quantity="(a): t_te(0.1) / t_tr(0.1)", **ex.seed_values(s12.a, ONE12),
             expected=at_least(ex.DELAYED), quote=WD, basis="the chapter's grokking criterion",
             control=ControlRun(f"(b) wd = {c12.runs[1][1]:g}", "the same α with the weight decay that 'makes grokking "
                                "vanish'", **ex.control_values(s12.b)),
             known_deviation=(
                 f"(a) α = {c12.runs[0][0]:g}, wd = {c12.runs[0][1]:g}: t_te(0.1) / t_tr(0.1) is {_fmt(s12.a)} in the {profile} runs "
                 f"(p = {c12.p}, "
                 f"{c12.steps} steps, per seed); "
                 "not observed means the test cross-entropy never reaches 0.1, so the delay is not observed"
                 if MEASURED else None))
claims.claim("fig12b_wd_removes", ref="Fig. 12b", quantity="(b): t_te(0.1) / t_tr(0.1)",
             **ex.seed_values(s12.b, ONE12),
             expected=less_than(ex.DELAYED), quote=WD, basis="vanish = below the chapter's grokking criterion",
             control=ControlRun(f"(a) wd = {c12.runs[0][1]:g}", "the same α with less weight decay, which groks",
                                **ex.control_values(s12.a)),
             known_deviation=(
                 f"(b) wd = {c12.runs[1][1]:g} has t_te/t_tr = {_fmt(s12.b)} per seed at the {profile} size (c: {_fmt(s12.c)}): weight decay "
                 "does not remove the delay in every seed here"
                 if MEASURED else None))
claims.claim("fig12c_alpha_restores", ref="Fig. 12c", quantity="(c): t_te(0.1) / t_tr(0.1)",
             **ex.seed_values(s12.c, ONE12),
             expected=at_least(ex.DELAYED), quote=WD, basis="recovers = meets the chapter's grokking criterion again",
             control=ControlRun(f"(b) α = {c12.runs[1][0]:g}", "the same weight decay at the smaller α, where it "
                                "'makes grokking vanish'", **ex.control_values(s12.b)))

# %% [markdown]
# ## App. 13 — the time to generalise against the weight decay
# App. 13 reads the time to generalise as linear in the weight decay κ, in the sense of Nanda et
# al.'s "drops by a factor of ten when weight decay is increased by a factor of [ten]": $t \propto
# 1/\kappa$, because the NTK moves at $O(\kappa)$. The exact closure takes weight decay (each step
# multiplies every weight by $1 - \eta_0\kappa$, still an affine map of each neuron). The setting
# is ours (the paper gives none): Fig. 3a's task made lazy (α = 64) and not centred, so that the
# generalising solution has a smaller weight norm than $W_0$, App. 13's premise; κ = 0 is the
# control. Time to generalise: the step the test loss first halves.

# %%
cwd = ex.config("wd13", profile)
rwd = ex.run("wd13", profile, ctx.device, seed)
swd = ex.wd13_summary(rwd)
display(Markdown(
    f"κ = {_fmt(list(swd.wds[0]))}; steps to halve the test loss, per seed: {_fmt(swd.t_gen)}. Without weight decay "
    f"the final weight norm² is {_fmt(swd.norm_ratio0)} of the initial (the premise)."))

# %%
WDQ = ("Liu et al. (2022a) found that time to generalize in the grokking setting there was linear in the amount of "
       "weight decay, κ. Moreover, Nanda et al. (2023) finds that the time taken to generalize drops by a factor of "
       "ten ... when weight decay is increased by a factor of again, again linear ... our theory ... exactly predicts "
       "the quantitative effect weight decay has on grokking timescales (App. 13)")
claims.claim("app13_wd_timescale", ref="App. 13", quantity="exponent of t_te(½) against κ over κ > 0",
             per_seed=swd.exponent, expected=within(-1.0, 0.25), quote=WDQ,
             basis="a tenfold κ gives a tenfold shorter time: exponent −1; ±0.25 is halfway to the rival powers "
                   "−½ and −3/2",
             known_deviation=(
                 f"the exponent is {_fmt(swd.exponent)} per seed (κ = {_fmt(list(swd.wds[0][1:]))}, {cwd.base.steps} steps, "
                 f"D = {cwd.base.D}): weight decay shortens the time to generalise, more weakly than 1/κ; the paper's "
                 "statement is about a transformer and Omnigrok's MLP under AdamW, which this closure does not run"
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 13 — momentum and Adam
# App. 14: (a) Fig. 1 with heavy-ball momentum 0.95, network and linearised network (three
# seeds); (b) a student–teacher network trained with AdamW and its linearisation trained the
# same way (the profile's seeds, batched; the first drawn). Panel (c), the transformer's
# linearisation, is in the next section.

# %%
r13a = ex.run("fig13a", profile, ctx.device, seed)
r13b = ex.run("fig13b", profile, ctx.device, seed)
pl.fig13(r13a, r13b)

# %%
s13a = ex.fig13a_summary(r13a)
MOM = "Learning curves for grokking with momentum and adaptive optimizers (Fig. 13 caption)"
claims.claim("fig13a_bump", ref="Fig. 13a", quantity="max / initial test loss", per_seed=s13a.rise,
             expected=at_least(1.1), quote=MOM, basis="the Fig. 1 rise (10% above the start) persists",
             no_control="Fig. 1's rise under momentum; its rich control (fig1_test_rises) applies to it")
claims.claim("fig13a_net", ref="Fig. 13a", quantity="final / initial test loss", per_seed=s13a.final,
             expected=at_most(0.5), quote=MOM, basis="generalises: the test loss halves",
             control=ControlRun("linearised network", "the same runs kept lazy, trained with the same momentum",
                                per_seed=s13a.linearised_final))
claims.claim("fig13a_lin", ref="Fig. 13a", quantity="linearised: final test / initial", per_seed=s13a.linearised_final,
             expected=at_least(0.5), kind="consistency",
             basis="the linearised network does not generalise: kernel regression with the misaligned initial NTK "
                   "(a property of the closed form, as fig1_lin_fails)")
claims.claim("fig13b_tracks_until_half", ref="Fig. 13b",
             quantity="last step the linearised student's test loss is within 5% of the network's / step the "
                      "network's test loss halves",
             **ex.seed_values(ex.fig13b_tracking_over_half(r13b), "one run (the kept result is of one seed)"),
             expected=between(0.5, 2.0),
             quote="That task uses AdamW as well, again showing the linearization tracking the model until the loss "
                   "halves, before diverging then (App. 14)",
             basis="'until the loss halves': the two part within a factor 2 of the halving, on the paper's log-step "
                   "axis",
             no_control="the linearisation is the lazy reference itself; a run cannot be compared with a lazier one",
             known_deviation=(
                 f"the linearised student's test loss stays within 5% of the network's until step "
                 f"{_fmt(ex.fig13b_tracking(r13b))}, {_fmt(ex.fig13b_tracking_over_half(r13b))}× the step the "
                 "network's test loss halves (per seed): the linearisation tracks the network well past the halving"
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 13c — the transformer against its linearisation
# App. 14: the one-layer transformer of Fig. 6b at α = 1, AdamW with weight decay 2, and its
# first-order Taylor model about the initial weights, $f(\theta_0) + J(\theta_0)(\theta - \theta_0)$
# (one `torch.func.jvp` per forward; no Jacobian is formed), trained the same way. The seeds'
# networks and linearisations are one batched tensor program; the run stops once every seed's
# train loss has halved and left its linearisation's by 5% (the two events read below), so the
# curves end before any late generalisation. Curves of the first seed: train dashed, test solid.

# %%
r13c = ex.run("fig13c", profile, ctx.device, seed)
pl.fig13c(r13c)

# %% tags=["remove-input"]
s13c = ex.fig13c_summary(r13c)
s13c0 = ex.fig13c_summary(ex.run("fig13c_nowd", profile, ctx.device, seed))
display(Markdown(
    f"The network's train loss stays within 5% of its linearisation's until step {_fmt(s13c.leaves)} and "
    f"halves at step {_fmt(s13c.halves)} (per seed). Without weight decay (the control): until step "
    f"{_fmt(s13c0.leaves)}, halving at step {_fmt(s13c0.halves)}."))

# %%
claims.claim("fig13c_quick_deviation", ref="Fig. 13c",
             quantity="last step train loss within 5% of the linearisation's / step it halves",
             per_seed=s13c.ratio, expected=less_than(1.0),
             quote="Note how due to weight decay, the network loss actually quickly deviates from its linearization, "
                   "despite the presence of grokking (App. 14)",
             basis="quickly = before the train loss halves, where (b)'s student still tracks its linearisation "
                   "\"until the loss halves\" (App. 14)",
             control=ControlRun("weight decay 0", "the same runs without weight decay: the paper says the quick "
                                "deviation is 'due to weight decay'", per_seed=s13c0.ratio))

# %% [markdown]
# ## Fig. 14 — multi-index targets
# App. 15.1 (its printed target "β₁·x + β₂·x" is linear, a typo; the caption is a copy of
# Fig. 15's): $y = \tfrac12\sum_{k\le K}(\beta_k\cdot x)^2$, K = 1, 2, 3, same quadratic network.
# The paper gives no sizes: ours are in the departures table.

# %%
r14 = ex.run("fig14", profile, ctx.device, seed)
pl.fig14(r14)

# %%
s14 = ex.fig14_summary(r14)
MULTI = "Grokking in our set-up persists when the target function is a higher-degree polynomial (Fig. 14 caption)"
claims.claim("fig14_rise", ref="Fig. 14", quantity="min over K of max / initial test loss", per_seed=s14.smallest_rise,
             expected=at_least(1.1), quote=MULTI, basis="as Fig. 1: the test loss rises 10% above its start first",
             known_deviation=(
                 f"at D = {ex.config('fig14', profile).base.D} the test loss rises to {_fmt(s14.smallest_rise)} of its "
                 "start (min over K = 1, 2, 3, per seed): a rise is there, but not 10% in every seed"
                 if MEASURED else None))
claims.claim("fig14_generalise", ref="Fig. 14", quantity="max over K of final / initial test loss",
             per_seed=s14.largest_final, expected=at_most(0.5), quote=MULTI, basis="generalises: the test loss halves",
             no_control="Fig. 1's network with more indices; its linearised control (fig1_beats_k0) is not run here")

# %% [markdown]
# ## Fig. 15 — Hermite targets
# App. 15.2: target $He_k(\beta\cdot x)$ and $\phi(z) = z + \frac{\varepsilon}{2}He_k(z)$. The paper
# shows $He_3$ and $He_4$ and gives no sizes; one configuration is run here, $He_3$, at the sizes of
# the departures table ($He_4$ and other sizes are not tried).

# %% tags=["remove-input"]
cfg15 = ex.config("fig15", profile)
display(Markdown(f"Degree k = {cfg15.hermite_k}; D = {cfg15.quad.D}, P = {cfg15.quad.P}, N = {cfg15.quad.N}, "
                 f"ε = {cfg15.quad.eps}, η₀ = {cfg15.quad.eta0}, {cfg15.quad.steps} steps; {len(cfg15.seeds)} seeds."))

# %%
r15 = ex.run("fig15", profile, ctx.device, seed)
pl.fig15(r15)

# %%
s15 = ex.fig15_summary(r15)
c15 = ex.config("fig15", profile).quad
HERM = ("Grokking when learning the Hermite polynomials of varying degree ... generalization delayed (grokking) by "
        "several thousand epochs (Fig. 15 caption)")
claims.claim("fig15_groks", ref="Fig. 15", quantity="He₃ target: t_te(½) / t_tr(½)", per_seed=s15.ratio,
             expected=at_least(ex.DELAYED), quote=HERM, basis="the chapter's grokking criterion",
             known_deviation=(
                 f"the He₃ network fits (final / initial train loss {_fmt(s15.train_final)}) but its test loss does "
                 "not halve 2× later than the train loss in every seed (ratios in the claims table; final / initial "
                 f"test loss {_fmt(s15.test_final)}): no grokking in the one configuration tried (He₃, D = {c15.D}, "
                 f"P = {c15.P}, N = {c15.N}, ε = {c15.eps}, {c15.steps} steps; the paper states no sizes, and "
                 "He₄ is not run)"
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 16 — accuracy and loss of the same run
# App. 16: the Fig. 2 run (s = 1) seen in accuracy and in loss.

# %%
pl.fig16(r2, s2.shown[0])

# %%
claims.claim("fig16_loss_moves", ref="Fig. 16", quantity="min test MSE before train acc is perfect / initial",
             per_seed=s2.loss_before_fit, expected=at_most(0.95),
             quote="Test accuracy is flat early in training, but test loss moves ... during memorization, test loss "
                   "decreases (App. 16)",
             basis="'moves': a fall of at least 5% below the start",
             known_deviation=(
                 "before train accuracy is perfect the test MSE does not fall 5% below its start in every init seed "
                 "(per-seed min / initial in the claims table): the fall is close to the 5% bound"
                 if MEASURED else None))
claims.claim("fig16_loss_dip_at_acc", ref="Fig. 16",
             quantity="epoch test MSE falls below the train MSE at perfect train acc / epoch test acc ≥ 0.9",
             per_seed=s2.loss_dip_over_acc, expected=between(2 / 3, 1.5),
             quote="the test loss only dips below this amount around 3-4k epochs, precisely when the network "
                   "generalizes in accuracy (App. 16)",
             basis="'precisely when': within a factor 1.5 on the paper's log-epoch axis",
             no_control="a coincidence of two events in one run; no run without the effect has either event")

# %% [markdown]
# ## Figs. 17, 18 — "grokking" in accuracy is a threshold artefact
# App. 16.2–16.3: one student–teacher run (scale 1; each seed of the profile), accuracy under several
# thresholds θ, and its losses. The comparison uses the tightest of θ = 10⁻³, 5·10⁻³, 10⁻² that
# every seed reaches in the run (both events observed, same budget) against θ = 0.1.

# %%
r17 = ex.run("fig17", profile, ctx.device, seed)
pl.fig17(r17)

# %%
pl.fig18(r17)

# %%
s17 = ex.fig17_summary(r17)
display(Markdown(
    f"Per seed: test accuracy reaches 0.9 at θ = {s17.tight_theta[0]:g} {_fmt(s17.threshold_ratio)}× as late as at "
    f"θ = 0.1; the delay t_te(acc 0.9) / t_tr(acc 0.9) is {_fmt(s17.tight_delay)} at θ = {s17.tight_theta[0]:g} and "
    f"{_fmt(s17.loose_delay)} at θ = 0.1."))
claims.claim("fig17_threshold", ref="Fig. 17",
             quantity=f"θ = {s17.tight_theta[0]:g}: step test acc ≥ 0.9 / step train acc ≥ 0.9",
             per_seed=s17.tight_delay, rule=MEDIAN, expected=at_least(ex.DELAYED),
             quote="Grokking on this particular task depends on the choice of threshold ... the exact same network "
                   "run (Fig. 17 caption)",
             basis="at a tight threshold the run 'groks' on the chapter's criterion (ratio ≥ 2) ...",
             control=ControlRun("θ = 0.1", "... and the same run read at a loose threshold does not: the control is "
                                "the same measurement on the same run, only θ changed", per_seed=s17.loose_delay))
claims.claim("fig18_tracks", ref="Fig. 18", quantity="largest test / train loss over the whole run",
             per_seed=s17.gap_whole_run, expected=at_most(10.0),
             quote="the train loss tracks the test loss throughout (Fig. 18 caption)",
             basis="tracks = within a decade of each other on the paper's log-loss axis",
             known_deviation=(
                 f"over the whole run ({c17.steps} steps) test / train loss exceeds a decade (per-seed maxima in the claims "
                 "table): the train loss falls far below the test loss, which plateaus; over the first 10% of the run "
                 f"the ratio is at most {_fmt(s17.gap_first_tenth)}"
                 if MEASURED else None))

# %% [markdown]
# ## Fig. 19 — data set size versus task difficulty
# App. 17: the Fig. 5 protocol over label index j (rows) and data set size P (columns); every seed
# of the profile.

# %%
r19 = ex.run("fig19", profile, ctx.device, seed)
pl.fig19(r19)

# %%
s19 = ex.fig19_summary(r19)
SIZE = ("moving left to right illustrates (1), how increasing data for a fixed task difficult j, suffices to allow "
        "the network to generalize, but moving top to bottom ... some tasks cannot be learned (Fig. 19 caption)")
claims.claim("fig19_more_data", ref="Fig. 19", quantity=f"j = {s19.mid_j[0]}: final test loss decreases with P",
             per_seed=s19.more_data_better, expected=is_true("decreasing in P"), quote=SIZE,
             basis="paper; note that with j fixed, a larger P makes the j-th of 2P eigenvectors relatively higher in "
                   "the spectrum (better aligned), so data and alignment change together here, as in the paper",
             no_control="a trend across the grid (App. 17 states no control)")
claims.claim("fig19_harder", ref="Fig. 19", quantity=f"P = {s19.smallest_P[0]}: final test loss increases with j",
             per_seed=s19.harder_worse, expected=is_true("increasing in j"), quote=SIZE, basis="paper",
             no_control="a trend across the grid (App. 17 states no control)")

# %% [markdown]
# ## Claims

# %%
claims.table()
