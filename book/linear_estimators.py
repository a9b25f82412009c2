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
# # Grokking in linear estimators — a solvable model that groks without understanding
#
# Levi, Beck & Bar Sinai (ICLR 2024, *Grokking in Linear Estimators – A Solvable Model that
# Groks without Understanding*) show that a **linear** student trained by gradient descent on a
# linear Gaussian teacher already "groks": when accuracy is defined by a threshold ε on the
# per-sample error, train accuracy saturates long before test accuracy, and the delay
# $\Delta t_{\rm grok}$ is fixed by the spectrum of the empirical covariance (Marchenko–Pastur
# with ratio $\lambda = d_{\rm in}/N_{\rm tr}$). The dynamics are solvable, so this chapter can
# be exact: every theory curve comes from the paper's formulas
# (`companion.theory.linear_estimators`), every simulation is exact full-batch GD evaluated in
# the eigenbasis of $\Sigma_{\rm tr}$ (`companion.theory.linear_estimators.LinearGD`), and the agreement is
# measured. Where the paper's own formulas are wrong, the Errata section at the end gives the
# numbers.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
from IPython.display import Markdown

from companion import profiles
from companion.claims import (
    ALL_SEEDS,
    MEDIAN,
    Claims,
    ControlRun,
    at_least,
    at_most,
    is_true,
    less_than,
    never,
    within,
)
from companion.experiments import linear_estimators as ex
from companion.experiments.linear_estimators import summaries, summaries_draws, summaries_late
from companion.figures import linear_estimators as figures
from companion.pipeline import runs

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("linear_estimators", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("linear_estimators", profile)

# the bases several figures' claims share (defined here, before any experiment, so that every view of the
# chapter — a page of kept paper-scale results too — reaches them)
LOSS_BASIS = ("0.05 decades (12%): curves that overlap on the paper's log axes; compared where Eq. 8 ≥ ε/40 "
              "(ε = 1e-3), below which both accuracies are 1 (erf√20 ≈ 1)")
AGREEMENT = ("an agreement with a parameter-free formula: a simulation the formula did not describe fails the "
             "bound; no run lacks the effect while keeping the formula")
DT_BASIS = "15%: the chapter's agreement bound for simulated against exact grokking times"

# %% tags=["remove-input"]
Markdown(f"Run with {ctx.describe()}.")

# %% tags=["remove-input"]
ex.departures_table(profile)

# %% [markdown]
# ## The model
#
# Teacher and student are linear maps $f(x) = W^\top x$ with $T, S \in \mathbb{R}^{d_{\rm in}\times
# d_{\rm out}}$, inputs $x\sim\mathcal N(0, I)$, entries of $S_0$ and $T$ drawn from
# $\mathcal N(0, 1/(2d_{\rm in}d_{\rm out}))$, so $\|D_0\|_F^2 \approx 1$ for $D = S - T$. The
# loss is PyTorch's `MSELoss`, $\mathcal L_{\rm tr} = \frac1{d_{\rm out}}{\rm Tr}[D^\top\Sigma_{\rm tr}D]$,
# $\mathcal L_{\rm gen} = \frac1{d_{\rm out}}\|D\|_F^2$, and a sample counts as correct when
# $\frac1{d_{\rm out}}\|S^\top x - T^\top x\|^2 < \epsilon$. Gradient flow gives (Eqs. 5–8)
#
# $$\mathcal L_{\rm tr}(t) = \mathbb E_{\nu\sim{\rm MP}(\lambda)}\big[\nu e^{-4\eta_0\nu t}\big],\qquad
#   \mathcal L_{\rm gen}(t) = \mathbb E_{\nu\sim{\rm MP}(\lambda)}\big[e^{-4\eta_0\nu t}\big],$$
#
# and since $D^\top x$ is Gaussian the accuracy is a function of the loss alone (Eq. 9/12):
# $\mathcal A = P\big(\tfrac{d_{\rm out}}2, \tfrac{d_{\rm out}\epsilon}{2\mathcal L}\big)$, i.e.
# ${\rm erf}\sqrt{\epsilon/2\mathcal L}$ for $d_{\rm out}=1$. The MP expectation is computed by
# the substitution $\nu = 1+\lambda-2\sqrt\lambda\cos\theta$, which makes the integrand smooth
# and periodic (midpoint rule, exponentially convergent); the train loss also has the closed
# Bessel form of Eq. 19, $\mathcal L_{\rm tr} = e^{-4\eta_0t(1-\sqrt\lambda)^2}\,2I_1(x)/x$ with
# $x = 8\eta_0t\sqrt\lambda$ (the unit tests check the two against each other).
#
# **Simulation.** Full-batch GD with `SGD(lr=η, weight_decay=γ)` is a linear recursion that is
# diagonal in the eigenbasis $\Sigma_{\rm tr} = V{\rm diag}(\nu)V^\top$:
# $\bar S_t = \bar S^* + c^t(\bar S_0 - \bar S^*)$ with $c = 1-\eta(2\nu/d_{\rm out}+\gamma)$, so any
# step $t$ (even $10^7$) costs one vector power — no loop over steps. A unit test checks it
# against a literal `nn.Linear` + `MSELoss` + `SGD` loop. Grokking times are found by bisection
# on the integer step, all seeds at once. The grokking time is
# $\Delta t_{\rm grok} = t^*_{\rm gen} - t^*_{\rm tr}$, each the first step at which the accuracy
# reaches the threshold ($\mathrm{erf}\sqrt2 \approx 0.9545$, i.e. $\mathcal L = \epsilon/4$, in
# Fig. 1 as in the paper's text; 0.95 elsewhere as in Fig. 7).

# %% [markdown]
# ## Fig. 1 — grokking as a function of λ
#
# Left/centre: losses and accuracies for λ = 0.1, 0.9, 1.5 (seed 0, coloured; train dashed,
# test solid) against Eqs. 8/9 (black). Right: $\Delta t_{\rm grok}$ against λ for two ε —
# simulation (seed mean ± sd), the *exact* theory (roots of $\mathcal A(t)$ = threshold from
# Eqs. 8–9) and the paper's closed form Eq. 11,
# $\Delta t_{\rm grok} \simeq -\log(1-\sqrt\lambda)/(2\eta_0(1-\sqrt\lambda)^2)$.
# For λ > 1 the null space of $\Sigma_{\rm tr}$ is never learned and the test loss plateaus at
# $1 - 1/\lambda$.

# %%
r1 = ex.fig1(ex.config("fig1", profile, seed), ctx.device)
m1 = summaries.fig1(r1)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 1: losses (left) and accuracies (centre) for \u03bb = 0.1, 0.9, 1.5 \u2014 simulation coloured (one draw; train dashed, test solid), theory thick grey; right: grokking time against \u03bb for two \u03b5, simulation (mean \u00b1 sd of draws), exact theory and Eq. (11).", "name": "le-fig1"}}
figures.fig1(r1)

# %% tags=["remove-input"]
figures.fig1_table(m1)

# %% [markdown]
# The paper's Fig. 1 shows one run. Its theory is an average over draws of the data, teacher and
# student: Eq. 8 averages over the Marchenko–Pastur law, the $d_{\rm in}\to\infty$ limit of the
# spectrum of $\Sigma_{\rm tr}$. So the claims below compare like with like — the **expected loss**
# at the paper's $d_{\rm in} = 1000$ with Eq. 8, and the grokking time of that expected loss with
# the exact theory's — and test Eq. 9 (the accuracy is a function of the loss) on each draw's own
# loss. The expected loss is estimated from many training spectra: a run's losses depend on the
# data only through the eigenvalues of $\Sigma_{\rm tr}$, and on teacher and student only through
# their coordinates in its eigenbasis, which are isotropic Gaussians independent of the spectrum; so
# each spectrum is drawn (exactly, from a bidiagonal model of the Wishart matrix) and its loss is
# averaged over teacher and student in closed form (`companion.theory.spectral_gd`; a unit test
# checks it against the full simulation draw by draw). Single draws of data, teacher and student
# (`fig1_seeds`, the full simulation with fresh test sets) are listed beside it.

# %%
r1s = ex.fig1_seeds(ex.config("fig1_seeds", profile, seed), ctx.device)
m1s = summaries_draws.fig1_seeds(r1s)

# %%
rE = ex.expected_losses(ex.config("expected_losses", profile, seed), ctx.device)
mE = summaries_draws.expected(rE)

# %% tags=["remove-input"]
figures.fig1_agreement_table(mE, m1s)

# %% tags=["remove-input"]
figures.fig1_dt_table(mE, m1)

# %% [markdown]
# **Finite size.** Near the lower edge of the MP law, $(1-\sqrt\lambda)^2 = 0.0026$ at λ = 0.9, the
# late loss is carried by the few smallest eigenvalues of $\Sigma_{\rm tr}$, whose distribution at
# finite $d_{\rm in}$ differs from the limit law (on the Tracy–Widom scale, $\propto d_{\rm in}^{-2/3}$).
# Whether a late gap is that, or a defect of the theory, is decided by a sweep of $d_{\rm in}$ at the
# same λ: a finite-size gap shrinks as $d_{\rm in}$ grows.

# %% tags=["remove-input"]
figures.finite_size_table(mE)

# %% tags=["remove-input"]
figures.finite_size_paragraph(mE, 0.9)

# %%
FIG1_QUOTE = ("In Fig. 1 we show that these analytical predictions are in excellent agreement with numerical "
              "experiments, with no fitting parameters, in both regimes (§3.1.1)")
ACC_BASIS = ("0.05: five points of accuracy. Eq. 9 is tested on each draw's own loss (Eq. 8 by fig1_loss_*), so "
             "the mean over draws of the gap carries only the sampling error of finite train and test sets")
LOSS = dict(ref="Fig. 1", expected=at_most(0.05), quote=FIG1_QUOTE, basis=LOSS_BASIS, no_control=AGREEMENT)
claims.claim("fig1_loss_lam0.1", quantity="max over t of |log₁₀(expected L / Eq. 8)|, train and test, λ = 0.1",
             measured=mE.loss_dev[0.1], interval=mE.loss_dev_interval[0.1], one_value=figures.expected_note(mE, 0.1),
             **LOSS)
claims.claim("fig1_loss_lam0.9", quantity="max over t of |log₁₀(expected L / Eq. 8)|, train and test, λ = 0.9",
             measured=mE.loss_dev[0.9], interval=mE.loss_dev_interval[0.9], one_value=figures.expected_note(mE, 0.9),
             known_deviation=None if profile == "smoke" else figures.finite_size_deviation(mE, 0.9), **LOSS)
claims.claim("fig1_loss_lam1.5", quantity="max over t of |log₁₀(expected L / Eq. 8)|, train and test, λ = 1.5",
             measured=mE.loss_dev[1.5], interval=mE.loss_dev_interval[1.5], one_value=figures.expected_note(mE, 1.5),
             **LOSS)
ACC = dict(ref="Fig. 1 / Eq. 9", expected=at_most(0.05), quote=FIG1_QUOTE, basis=ACC_BASIS, no_control=AGREEMENT)
ACC_QUANTITY = "max over t, train and test, both ε of |mean over draws of A_sim − Eq. 9(L_sim)|"
ACC_NOTE = ("the mean over the draws of data, teacher and student of the gap between each draw's accuracy and "
            "Eq. 9 of its own loss (single draws in the table above)")
claims.claim("fig1_acc_lam0.1", quantity=ACC_QUANTITY + ", λ = 0.1", measured=m1s.acc_dev_mean[0.1],
             interval=m1s.acc_dev_mean_interval[0.1], one_value=ACC_NOTE, **ACC)
claims.claim("fig1_acc_lam0.9", quantity=ACC_QUANTITY + ", λ = 0.9", measured=m1s.acc_dev_mean[0.9],
             interval=m1s.acc_dev_mean_interval[0.9], one_value=ACC_NOTE, **ACC)
claims.claim("fig1_acc_lam1.5", quantity=ACC_QUANTITY + ", λ = 1.5", measured=m1s.acc_dev_mean[1.5],
             interval=m1s.acc_dev_mean_interval[1.5], one_value=ACC_NOTE, **ACC)
DT_QUOTE = ("Eq. (11) indicates that the maximal grokking time difference occurs near λ ≃ 1 … These "
            "predictions are verified in Fig. 1(right) (§3.1.3); exact Δt here, Eq. 11 being its ε → 0 limit")
DT = dict(ref="Fig. 1", quote=DT_QUOTE, basis=DT_BASIS, no_control=AGREEMENT,
          one_value="the grokking time of the expected loss (through Eq. 9), like the exact theory's, which is that "
                    "of Eq. 8's loss; single draws scatter about it (table above)")
claims.claim("fig1_dt_theory",
             quantity=f"max over λ ≤ {summaries.LOW_LAM} and both ε of |Δt of the expected loss / exact Δt − 1|",
             measured=mE.low_dev, interval=mE.low_dev_interval, expected=at_most(0.15), **DT)
claims.claim("fig1_dt_lam0.9", quantity="Δt of the expected loss / exact Δt at λ = 0.9 (the ε farther from 1)",
             measured=mE.dt_worst[0.9][0], interval=mE.dt_worst[0.9][1], expected=within(1.0, 0.15), **DT)
claims.claim("fig1_dt_lam0.95", quantity="Δt of the expected loss / exact Δt at λ = 0.95 (the ε farther from 1)",
             measured=mE.dt_worst[0.95][0], interval=mE.dt_worst[0.95][1], expected=within(1.0, 0.15), **DT)
claims.claim("fig1_dt_increasing", ref="Fig. 1", quantity="smallest ratio of neighbouring exact Δt on the λ markers",
             measured=m1.min_step_ratio, expected=at_least(1.15 / 0.85), kind="consistency",
             basis="steps of more than 1.15/0.85 = 1.35× between neighbouring λ: with every simulated Δt within 15% "
                   "of the exact one (fig1_dt_theory, fig1_dt_lam0.9) the simulated Δt increase as well")
claims.claim("fig1_plateau", ref="Fig. 1 / Eq. 8", quantity=f"late L_gen at λ = {m1s.lam_hi:g}, per draw",
             per_seed=m1s.plateau_per_seed, expected=within(m1s.plateau_theory, 0.10), rule=MEDIAN,
             quote="e^{−4η₀νt}|_{ν=0} = 1 contributes a nonzero constant 1 − 1/λ to the loss, preventing perfect "
                   "generalization (§3.1.1)",
             basis="the null-space share of ‖D₀‖² is a χ² with d_in − N_tr = 333 degrees of freedom (7.7% relative "
                   "sd per draw): 10% is finite-size scatter the d_in → ∞ theory cannot have; the median of the "
                   "draws decides, and its 95% interval must clear the bound",
             control=ControlRun("λ = 0.9", "N_tr > d_in: Σ_tr has no null space, so nothing holds the test loss up",
                                per_seed=m1s.below_plateau_per_seed))

# %% [markdown]
# ### Eq. 11 is the ε → 0 limit
#
# Eq. 11 drops the ε-dependence of the crossing times, so at the paper's ε it overestimates the
# exact grokking time, and the ratio tends to 1 only logarithmically as ε → 0 (table below). The
# paper's own App. B does better: Eq. 25 adds the first finite-ε correction. And at λ = 1, where Eq. 11 diverges, the exact Δt at fixed ε is
# finite: the loss decays as a power law there, not exponentially.

# %%
q = summaries.eq11(ex.eq11_ratios())
th = summaries_late.theory_checks(ex.theory_checks())
figures.eq11_table(q)

# %% tags=["remove-input"]
Markdown(f"At ε = 10⁻³ Eq. 11 is {q.ratio_at_paper_eps:.2f}× the exact Δt at λ = 0.5 "
         f"({summaries.listing(q.at_paper_eps.values(), '.2f')} at λ = {summaries.listing(q.at_paper_eps, 'g')}); "
         f"the paper's Eq. 25 is {q.eq25_ratio:.2f}× at λ = 0.5.")

# %%
EQ11_QUOTE = ("solving for the difference t*_gen − t*_tr, and expanding the result in the limit of ε ≪ 1, one "
              "obtains an analytic expression for the grokking time difference (Eq. 11)")
claims.claim("eq11_eps1e-3", ref="Eq. 11", quantity="Eq. 11 / exact Δt (λ = 0.5, ε = 1e-3)",
             measured=q.ratio_at_paper_eps, expected=within(1.0, 0.15), quote=EQ11_QUOTE,
             basis="15%: the chapter's agreement bound for grokking times",
             known_deviation=f"Eq. 11 is only the ε → 0 limit: at ε = 1e-3 it is {q.ratio_at_paper_eps:.2f}× the "
                             f"exact Δt (λ = 0.5)")
claims.claim("eq25_eps1e-3", ref="Eq. 25 (App. B)", quantity="Eq. 25 / exact Δt (λ = 0.5, ε = 1e-3)",
             measured=q.eq25_ratio, expected=within(1.0, 0.15), kind="consistency",
             basis="the paper's own finite-ε correction of Eq. 11 (App. B) against the exact theory: it removes most "
                   "of Eq. 11's overestimate at the paper's ε, where it is defined (see Errata)")
claims.claim("eq11_limit", ref="Eq. 11", quantity="Eq. 11 / exact Δt at ε = 1e-12 (λ = 0.5; nan unless monotone in ε)",
             measured=q.limit_ratio, expected=within(1.0, 0.15), kind="consistency",
             basis="Eq. 11 is the ε → 0 limit of the exact Δt, so the ratio must approach 1")
claims.claim("eq11_lambda1", ref="Eq. 11 / §3.1.3", quantity="exact t*_gen at λ = 1 (ε = 1e-3, A = erf√2)",
             measured=th.lam1_t_gen, expected=never(),
             quote="the grokking time diverges quadratically as Δt_grok(λ → 1) ∼ log(4/(1−λ)²)/(η₀(λ−1)²) (§3.1.3)",
             basis="paper",
             known_deviation=f"at fixed ε the exact generalisation accuracy reaches erf√2 at t = {th.lam1_t_gen:.3g} "
                             f"even at λ = 1 (Δt = {th.lam1_dt:.3g}): the divergence is that of Eq. 11, the ε → 0 "
                             f"limit")

# %% [markdown]
# ### The initialisation scale (§3.1.3)
#
# A student initialised at $\alpha S_0$ starts from $D_0 = \alpha S_0 - T$ with
# $\mathbb E\|D_0\|^2 = (1+\alpha^2)/2$, and since GD is linear in $D$ every expected loss is rescaled
# by that factor — the same as a threshold $\epsilon \to \epsilon' = 2\epsilon/(1+\alpha^2)$, which moves
# both $t^*_{\rm tr}$ and $t^*_{\rm gen}$ later by amounts the exact theory gives. The same runs (spectra,
# teacher and student drawn, `companion.theory.spectral_gd`) are trained from $S_0$ and from $\alpha S_0$
# (λ = 0.5); the check compares the measured shifts of each arm's mean loss crossing with the predicted
# ones. α = 3 makes the predicted shifts larger than the chapter's 15% agreement bound, so a run that
# ignored α — shift 1 — fails it.

# %%
ri = ex.init_rescaling(ex.config("init_rescaling", profile, seed), ctx.device)
mi = summaries_late.init_rescaling(ri)

# %% tags=["remove-input"]
Markdown(f"Over {mi.n} runs at α = {mi.alpha:g}: the mean losses differ by the factor (1+α²)/2 = {mi.factor:g} to "
         f"within {mi.loss_dev:.1%} at every step (95% interval {mi.loss_dev_interval[0]:.1%}–"
         f"{mi.loss_dev_interval[1]:.1%}); $t^*_{{\\rm tr}}$ moves by {mi.shift['t_tr']:.3f}× "
         f"({mi.shift_interval['t_tr'][0]:.3f}–{mi.shift_interval['t_tr'][1]:.3f}) against a predicted "
         f"{mi.predicted['t_tr']:.3f}×, and $t^*_{{\\rm gen}}$ by {mi.shift['t_gen']:.3f}× "
         f"({mi.shift_interval['t_gen'][0]:.3f}–{mi.shift_interval['t_gen'][1]:.3f}) against "
         f"{mi.predicted['t_gen']:.3f}×.")

# %%
INIT_QUOTE = ("rescaling the student weights S → αS leads to a trivial rescaling of both the training and "
              "generalization loss functions as L → (1+α²)/2 L, which is tantamount to choosing a different threshold "
              "parameter ϵ → 2ϵ/(1+α²) (§3.1.3)")
claims.claim("init_loss_rescaling", ref="§3.1.3", quantity=f"max over t, train and test of |mean L_αS₀ / mean L_S₀, "
             f"over (1+α²)/2, − 1| (α = {mi.alpha:g})", measured=mi.loss_dev, interval=mi.loss_dev_interval,
             expected=at_most(0.10), quote=INIT_QUOTE,
             basis="10%: the ratio of the mean losses of the same runs, whose expectation is (1+α²)/2 at every t",
             one_value=f"the rescaling holds for the expected loss (a single run's late loss is carried by its few "
                       f"slowest directions): the mean losses of {mi.n} runs are compared",
             control=ControlRun("α ignored", "the S₀ runs read as the αS₀ runs: their ratio is 1, not (1+α²)/2",
                                measured=abs(1 / mi.factor - 1)))
claims.claim("init_shifts", ref="§3.1.3", quantity=f"measured shift of t* from S₀ to αS₀ (each arm's mean loss) / "
             f"the exact theory's shift from ε to ε' = 2ε/(1+α²), t*_tr or t*_gen, the one farther from 1 "
             f"(α = {mi.alpha:g}, λ = 0.5)", measured=mi.agreement, interval=mi.agreement_interval,
             expected=within(1.0, 0.15), quote=INIT_QUOTE,
             basis="15%: the chapter's agreement bound for grokking times",
             one_value=f"the crossing times of the mean losses of {mi.n} runs per arm (the theory's t* are those "
                       f"of the expected loss)",
             control=ControlRun("α ignored", "a model without the rescaling: t* unmoved (shift 1), read against the "
                                "predicted shift", measured=mi.ignored))

# %% [markdown]
# ## Fig. 2 — output dimension $d_{\rm out} > 1$
#
# With $d_{\rm out}$ outputs the loss is an average over columns and the effective learning
# rate is $\eta_0/d_{\rm out}$ (Eq. 12): $\mathcal L^{(d_{\rm out})}(\eta_0,\lambda,t) =
# \frac1{d_{\rm out}}\mathcal L^{(1)}(\eta_0/d_{\rm out},\lambda,t)$, and the accuracy is the
# regularised incomplete gamma function of $d_{\rm out}\epsilon/2\mathcal L$. Left/centre:
# λ = 0.9, $d_{\rm out}$ = 1, 50, 700. Right: theory $\Delta t(d_{\rm out})$ for several λ (a
# single maximum, and $\Delta t = 0$ at large $d_{\rm out}$, where both accuracies start above
# threshold), with simulation markers at λ = 0.5.

# %%
r2 = ex.fig2(ex.config("fig2", profile, seed), ctx.device)
m2 = summaries.fig2(r2)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 2: losses and accuracies for d_out = 1, 50, 700 at \u03bb = 0.9 (simulation coloured, theory thick grey); right: grokking time against d_out for several \u03bb (theory curves; simulation markers at \u03bb = 0.5).", "name": "le-fig2"}}
figures.fig2(r2)

# %% tags=["remove-input"]
Markdown(f"The simulated markers of the right panel (this chapter's; the paper draws theory only) come from a "
         f"second experiment over several draws per $d_{{\\rm out}}$ (`fig2_markers`; the figure shows one draw). "
         f"$\\Delta t$ reaches 0 once *both* accuracies start above 95%, i.e. once the 95% quantile of "
         f"$\\chi^2_{{d_{{\\rm out}}}}$ is below $d_{{\\rm out}}^2\\epsilon$ — at $d_{{\\rm out}}$ = "
         f"{th.dout_zero_chi2} for ε = 10⁻³, not at $1/d_{{\\rm out}} = \\epsilon$: at $d_{{\\rm out}}$ = 1000 "
         f"the exact $\\Delta t$ is still {th.dt_dout1000:.0f} steps (λ = 0.5).")

# %%
r2m = ex.fig2_markers(ex.config("fig2_markers", profile, seed), ctx.device)
m2m = summaries.fig2_markers(r2m)

# %% tags=["remove-input"]
figures.fig2_markers_text(m2m)

# %%
FIG2_QUOTE = ("Empirical results for training (dashed) and generalization (solid) losses, for d_out = 1, 50, 700 "
              "(blue, red, violet) against analytical solutions (black), for λ = 0.9 (Fig. 2)")
DOUT = dict(ref="Fig. 2 / Eq. 12", expected=at_most(0.05), quote=FIG2_QUOTE, basis=LOSS_BASIS, no_control=AGREEMENT,
            one_value=f"the expected loss of {mE.n[mE.dout_lam]} spectra, as for Fig. 1 (Eq. 12 averages over the MP "
                      f"law); single draws are in the figure")
claims.claim("fig2_losses_dout50", quantity=f"max over t of |log₁₀(expected L / Eq. 12)|, train and test, d_out = 50 "
             f"(λ = {mE.dout_lam:g}, where Eq. 12 ≥ ε/40)", measured=mE.dout_dev[50], interval=mE.dout_dev_interval[50],
             **DOUT)
claims.claim("fig2_losses_dout700", quantity=f"max over t of |log₁₀(expected L / Eq. 12)|, train and test, d_out = 700 "
             f"(λ = {mE.dout_lam:g}, where Eq. 12 ≥ ε/40)", measured=mE.dout_dev[700],
             interval=mE.dout_dev_interval[700], **DOUT)
M2_QUOTE = ("The loss evolution follows the same functional form as Eq. (8), with the replacement η₀ → η₀/d_out, and "
            "a correction to Eq. (9) (§3.3.1)")
claims.claim("fig2_markers", ref="Fig. 2 / Eq. 12",
             quantity=f"Δt_sim/Δt_Eq.12 at λ = {m2m.lam}, per draw the d_out farthest from 1 (d_out = "
                      f"{', '.join(map(str, m2m.small_douts))}, at most a tenth of d_in)",
             per_seed=m2m.per_seed, expected=within(1.0, 0.15), rule=MEDIAN, quote=M2_QUOTE,
             basis="15%: the chapter's agreement bound for simulated against exact grokking times", no_control=AGREEMENT)
FIG2_MAX_QUOTE = ("These two competing effects … give rise to a non-monotonic dependence of the grokking time on "
                  "d_out, which attains a maximum at a specific value d_out^max (§3.3.1)")
claims.claim("fig2_dout_max", ref="Fig. 2 / §3.3.1",
             quantity=f"simulated Δt: largest over d_out = {', '.join(map(str, m2m.douts[1:-1]))} / the larger of "
                      f"d_out = {m2m.douts[0]} and {m2m.douts[-1]}, per draw (λ = {m2m.lam})",
             per_seed=m2m.peak, expected=at_least(1.15 / 0.85), rule=ALL_SEEDS, quote=FIG2_MAX_QUOTE,
             basis="a maximum that survives the chapter's 15% agreement bound on either side: above 1.15/0.85 = 1.35× "
                   "both ends",
             control=ControlRun("η ∝ d_out", "the same draws with η = η₀·d_out, which undoes the slowing η₀ → η₀/d_out "
                                "(one of the two competing effects): Δt falls with d_out", per_seed=m2m.peak_control))
claims.claim("fig2_unimodal", ref="Fig. 2", quantity="Δt(d_out) rises to a single maximum and does not rise after it, "
             "on the d_out grid (theory, every λ)", measured=m2.unimodal, expected=is_true("one maximum"),
             kind="consistency", basis="the theory curves of the right panel, checked on their grid: the shape the "
                                       "simulated markers are tested against (fig2_dout_max)")
claims.claim("fig2_interior_max", ref="Fig. 2", quantity="smallest over λ of max Δt(d_out) / Δt(d_out = 1) (theory)",
             measured=m2.peak_over_start, expected=at_least(1.15 / 0.85), kind="consistency",
             basis="the theory's maximum rises above 1.35× its value at d_out = 1, so a simulation within the 15% "
                   "agreement bound can show it (fig2_dout_max tests that it does)")
claims.claim("fig2_no_grok_large_dout", ref="Fig. 2 / Eq. 12", quantity="Δt = 0 for every d_out ≥ 1200 and every λ "
             "(theory)", measured=m2.zero_big, expected=is_true("Δt = 0 there"), kind="consistency",
             basis="the paper's 'd_out → ∞, no grokking' (§3.3.1) in the exact theory; the boundary itself is "
                   "fig2_dout_boundary")
claims.claim("fig2_dout_boundary", ref="Eq. 12", quantity="smallest d_out with exact Δt = 0 (λ = 0.5, ε = 1e-3)",
             measured=th.dout_zero, expected=within(th.dout_zero_chi2, 0.01), kind="consistency",
             basis="Δt = 0 exactly when both accuracies start at or above 95%: the χ²_{d_out} 95% quantile ≤ "
                   "d_out²ε (L(0) = 1/d_out)")

# %% [markdown]
# ## Fig. 3 — weight decay
#
# With weight decay γ (torch `weight_decay`, Eq. 13) the losses follow Eq. 38,
#
# $$\mathcal L_{\rm tr/gen} = \tfrac12\,\mathbb E\Big[\Big(e^{-4\eta(\nu+\gamma/2)t} +
# \Big(\frac{e^{-2\eta(\nu+\gamma/2)t}\nu+\gamma/2}{\nu+\gamma/2}\Big)^2\Big)q_{\rm tr/gen}\Big],
# \quad q_{\rm tr}=\nu,\ q_{\rm gen}=1,$$
#
# which saturate at $\gamma^2/(8(1-\lambda))$ and $\gamma^2/(8(1-\lambda)^3)$ for small γ — half
# of the paper's Eq. 15. Once the generalisation plateau lies above the accuracy threshold the
# test accuracy never reaches it: $\Delta t = \infty$ (grey) beyond a critical $\gamma_c(\lambda)$.

# %%
r3 = ex.fig3(ex.config("fig3", profile, seed), ctx.device)
m3 = summaries.fig3(r3)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 3: losses and accuracies for \u03b3 = 1e-5, 1e-3, 1e-2 at \u03bb = 0.9 (simulation coloured, Eq. 38 thick grey); right: grokking time against \u03b3 for several \u03bb \u2014 theory curves, simulation markers at \u03bb = 0.5, and a bar in each curve's colour along the top from the \u03b3 where its test accuracy saturates below threshold (no grokking).", "name": "le-fig3"}}
figures.fig3(r3)

# %% tags=["remove-input"]
figures.fig3_table(m3)

# %%
FIG3_QUOTE = ("Empirical results for training (dashed) and generalization (solid) losses, for γ = 1e-5, 1e-3, 1e-2 "
              "(blue, red, violet) against analytical solutions (black), for λ = 0.9 (Fig. 3)")
FIG3_PLATEAU_BASIS = ("0.05 decades, as for Fig. 1's curves (the same figure style and the same 'against analytical "
                      "solutions')")
PLATEAU = dict(ref="Fig. 3 / Eq. 38", expected=at_most(0.05), quote=FIG3_QUOTE, basis=FIG3_PLATEAU_BASIS,
               no_control=AGREEMENT,
               one_value=f"Eq. 38 is an average over the MP law: the expected late loss of {mE.n[mE.wd_lam]} spectra at "
                         f"d_in = {mE.d_in} is compared (single draws in the table above scatter, carried by their few "
                         f"eigenvalues near the MP edge; the d_in sweep in Fig. 1's section shows the gap shrink with d_in)")
claims.claim("fig3_plateaus_train", quantity=f"max over γ of |log₁₀(expected L_tr(t = {mE.wd_t:.0e}) / Eq. 38)| "
             f"(λ = {mE.wd_lam:g})", measured=mE.wd_dev[mE.d_in]["train"],
             interval=mE.wd_dev_interval[mE.d_in]["train"], **PLATEAU)
claims.claim("fig3_plateaus_test", quantity=f"max over γ of |log₁₀(expected L_gen(t = {mE.wd_t:.0e}) / Eq. 38)| "
             f"(λ = {mE.wd_lam:g})", measured=mE.wd_dev[mE.d_in]["test"],
             interval=mE.wd_dev_interval[mE.d_in]["test"], **PLATEAU)
claims.claim("fig3_eq38_limit", ref="Eq. 38", quantity="max rel. error of Eq. 38 at t = 1e9 against γ²/(8(1−λ)), "
             "γ²/(8(1−λ)³) (γ ≤ 1e-4)", measured=m3.limit_rel_err, expected=at_most(0.02), kind="consistency",
             basis="the small-γ limit of Eq. 38 itself: they must agree to the order of γ")
claims.claim("fig3_eq15", ref="Eq. 15", quantity=f"Eq. 15's L_gen(∞) / expected late L_gen (γ = {m3.g15:g}, "
             f"λ = {mE.wd_lam:g}, t = {mE.wd_t:.0e})", measured=m3.eq15_gen[m3.g15] / mE.wd_mean["test"][m3.g15],
             expected=within(1.0, 0.12),
             quote="approximating for small γ ≪ 1, we obtain the asymptotic expressions L_tr ≃ γ²/(4(1−λ)), "
                   "L_gen ≃ γ²/(4(1−λ)³) (Eq. 15)", basis="12%, the 0.05 decades of fig3_plateaus_train/test",
             one_value=f"the expected late loss of {mE.n[mE.wd_lam]} spectra, as fig3_plateaus_test",
             no_control=AGREEMENT,
             known_deviation="Eq. 15 is 2× too large; Eq. 38 gives γ²/(8(1−λ)³) (see Errata)")
claims.claim("fig3_markers", ref="Fig. 3", quantity=f"max over finite γ of |Δt of the expected loss / exact Δt − 1| at "
             f"λ = {mE.marker_lam:g}", measured=mE.marker_dev, interval=mE.marker_dev_interval, expected=at_most(0.15),
             quote="Different solid curves are numerical solutions for the expressions given in Section 3.3.1 (Fig. 3 "
                   "right)", basis="15%: the chapter's agreement bound for simulated against exact grokking times",
             one_value=f"the grokking time of the expected loss of {mE.n[mE.marker_lam]} spectra per γ, like the exact "
                       f"theory's (single draws are the figure's markers)", no_control=AGREEMENT)
claims.claim("fig3_infinite", ref="Fig. 3", quantity=f"simulated Δt at λ = {m3.marker_lam}, γ = {m3.inf_gamma} (past "
             f"γ_c), per draw", per_seed=m3.sim_dt_at_inf_per_seed, expected=never(), rule=ALL_SEEDS,
             quote="the shaded gray region corresponds to training/generalization saturation, without perfect "
                   "generalization (Fig. 3)", basis="paper",
             control=ControlRun(f"γ = {m3.below_inf_gamma:g}", "the same draws at the largest marker γ below γ_c, where "
                                "the test loss's plateau lies under the threshold", per_seed=m3.dt_below_inf_per_seed))
claims.claim("fig3_gamma_c", ref="Fig. 3", quantity="the critical γ_c(λ) is non-increasing in λ (theory grid)",
             measured=m3.gamma_c_decreasing, expected=is_true("non-increasing in λ"), kind="consistency",
             basis="the plateau γ²/(8(1−λ)³) of Eq. 38 grows with λ, so the γ at which it exceeds the threshold falls")
WD_QUOTE = ("For ϵ above this threshold, WD has no effect, and below it, the grokking time decreases as given by "
            "Eq. (15) (§3.3.2)")
claims.claim("fig3_wd_flat", ref="§3.3.2", quantity=f"max over γ ≤ 1e-4 of |Δt(γ)/Δt(0) − 1| (exact, λ = {th.wd_lam})",
             measured=th.flat_small, expected=at_most(0.05), kind="consistency",
             basis="the paper's “no effect” (§3.3.2) in the exact theory, read as a change below 5%, a third of the "
                   "chapter's 15% agreement bound")
claims.claim("fig3_wd_decreases", ref="§3.3.2 / Eq. 15",
             quantity=f"exact Δt at the largest γ below γ_c / Δt(γ = 0) (λ = {th.wd_lam}, ε = 1e-3)",
             measured=th.wd_rise, expected=less_than(1.0), quote=WD_QUOTE, basis="a decrease is any ratio below 1",
             known_deviation=f"at fixed ε the exact Δt rises with γ, from {th.wd_dt0:.0f} (γ = 0) to "
                             f"{th.wd_dt_range[1]:.0f} just below γ_c ≈ {th.gamma_c:.2g}, then becomes ∞")
claims.claim("fig3_eq15_dt", ref="Eq. 15", quantity=f"Eq. 15's Δt / exact Δt with WD, the γ < γ_c closest to 1 "
             f"(λ = {th.wd_lam})", measured=th.eq15_best_ratio, expected=within(1.0, 0.15),
             quote="Δt_grok ≃ log(1+√λ)/(2η₀(1−√λ)²) (Eq. 15)",
             basis="15%: the chapter's agreement bound for grokking times",
             known_deviation=f"Eq. 15 gives Δt = {th.eq15_dt:.0f} at λ = {th.wd_lam}; the exact Δt with weight decay "
                             f"is {th.wd_dt_range[0]:.0f}–{th.wd_dt_range[1]:.0f} for every γ below γ_c")
claims.claim("fig3_wd_overparam", ref="§3.3.2", quantity=f"exact L_gen(t → ∞) at λ = {th.over_lam}, γ = "
             f"{th.over_gamma:g} (Eq. 38)", measured=th.over_gen_inf, expected=at_most(th.eps / 4),
             quote="In the overparameterized regime, where λ > 1 … Introducing weight decay … ensuring that better "
                   "generalization performance is reached. Still, the late time behavior is the same as Eq. (15) (§3.3.2)",
             basis="Eq. 15's late-time behaviour is a loss of order γ²; grokking at ε needs L_gen below ε/4 "
                   "(A = erf√2)",
             known_deviation=f"with weight decay the null directions of Σ_tr decay to S = 0, leaving the teacher's "
                             f"share there: L_gen(∞) = {th.over_gen_inf:.4f} ≈ ½(1 − 1/λ) = {th.over_half_null:.4f}, "
                             f"so at ε = 1e-3 the test accuracy never reaches the threshold (no grokking)")
claims.claim("fig3_wd_better_overparam", ref="§3.3.2", quantity=f"exact L_gen(t → ∞) with γ = {th.over_gamma:g} / "
             f"without weight decay (1 − 1/λ), λ = {th.over_lam}", measured=th.over_gen_inf / (1 - 1 / th.over_lam),
             expected=less_than(1.0), kind="consistency",
             basis="the paper is right here (“Introducing weight decay … ensuring that better generalization "
                   "performance is reached”, §3.3.2): the plateau halves, since the null directions lose the student's "
                   "share of ‖D₀‖² and keep the teacher's; neither run groks at ε = 1e-3, so “L₂ regularization "
                   "suppresses grokking in overparameterized networks” (§1) holds, but not because of L₂")

# %% [markdown]
# ## Fig. 4 — a two-layer network, linear and tanh
#
# For the MLP $d_{\rm in}$–$d_h$–$d_{\rm out}$ (no biases, teacher of the same architecture,
# every layer $\sim\mathcal N(0, 1/(2d_{l-1}d_l))$) the end-to-end error $D = S^{(0)}S^{(1)} - T$
# obeys $\dot D = -2\eta_0 (h/d_{\rm out}^2)\Sigma_{\rm tr}D$ with $h \approx h_0 = 1/2$ (Eq. 41), so the
# one-layer solution applies with $\eta_0 \to \eta_0/(2d_{\rm out}^2)$ (Eq. 18). With the paper's
# loss normalisation the prefactor is the initial *loss* $\mathcal L(0) = \|D_0\|^2/d_{\rm out}
# \approx 1/(2d_hd_{\rm out})$, not $\|D_0\|^2$ (see Errata). The tanh network is indistinguishable
# because its pre-activations are $O((2d_h)^{-1/2})$. The time axis shows equivalent steps at
# $\eta_0 = 0.01$, so the reduced profile (larger η, fewer steps) reads like the paper's.

# %%
r4 = ex.fig4(ex.config("fig4", profile, seed), ctx.device)
m4 = summaries_late.fig4(r4)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 4: two-layer MLP with linear (left) and tanh (right) activations, d_h = 50, 200; losses (top) and accuracies (bottom), simulation coloured (train dashed, test solid), corrected Eq. 18 thick grey.", "name": "le-fig4"}}
figures.fig4(r4)

# %% tags=["remove-input"]
figures.fig4_table(m4)

# %% tags=["remove-input"]
Markdown(f"Here $d_{{\\rm in}}$ = {m4.d_in} (the paper: 1000), {len(m4.h0)} draws of data, teacher and student per "
         f"width, trained as one batch; t* are read on an evaluation grid whose steps near the crossings are at "
         f"most {m4.step_resolution:.1%} apart. The kernel $h = \\tfrac12(\\|S_0\\|^2 + \\|S_1\\|^2)$ of Eq. 17 "
         f"starts at {min(m4.h0):.3f}–{max(m4.h0):.3f} and moves by at most {max(m4.h_drift):.1%} during training.")

# %%
FIG4_QUOTE = "We experimentally verify that Eq. (18) correctly predicts the performance metrics and their dynamics in Fig. 4"
claims.claim("fig4_eq18", ref="Fig. 4 / Eq. 18 (corrected)", quantity=f"max over activations and (t*_tr, t*_gen) of "
             f"|t*_sim/t*_Eq.18 − 1| at d_h = {m4.d_h_big}", per_seed=m4.rel_err_big, expected=at_most(0.15),
             rule=ALL_SEEDS, quote=FIG4_QUOTE + " (left column) (§4.1)",
             basis="15%: the chapter's agreement bound for simulated against theory times", no_control=AGREEMENT)
claims.claim("fig4_eq18_small", ref="Fig. 4 / Eq. 18 (corrected)", quantity=f"the same at d_h = {m4.d_h_small}",
             per_seed=m4.rel_err_small, expected=at_most(0.15), rule=ALL_SEEDS,
             quote=FIG4_QUOTE + " (left column) (§4.1)",
             basis="15%, as at the larger width (the paper's h ≃ ½ holds 'for d_h ≫ d_out', and d_h = 50 is 10 d_out)",
             no_control=AGREEMENT,
             known_deviation=ex.known_deviation("fig4_eq18_small", profile))
claims.claim("fig4_tanh_linear", ref="Fig. 4 (right column)",
             quantity="max over d_h and t* of |t*_tanh/t*_linear − 1|", per_seed=m4.tanh_vs_linear,
             expected=at_most(0.05), rule=ALL_SEEDS, kind="consistency",
             basis="tanh and linear runs share data and initialisation, and at this initialisation the "
                   "pre-activations are about 0.05–0.1, where tanh is linear to 0.3%: the runs must agree, so this "
                   "does not test the paper's 'our predictions hold beyond the linear regimes' (§4.2), which would "
                   "need pre-activations of order 1; 5% is a third of the agreement bound")
claims.claim("fig4_initial_loss", ref="Eq. 18", quantity=f"initial loss of the linear run at d_h = {m4.d_h_big}",
             per_seed=m4.loss0_big, expected=within(m4.loss0_theory_big, 0.10), rule=ALL_SEEDS, kind="consistency",
             basis="E L(0) = 1/(2 d_h d_out) for the stated variances (§4.1), checked on the draws: the prefactor of "
                   "the corrected Eq. 18; 10% allows the draw-to-draw scatter of a sum over d_h·d_out = 1000 products")
claims.claim("fig4_h_const", ref="Eq. 17", quantity=f"max over t and activations of |h(t)/h(0) − 1| at d_h = {m4.d_h_big}",
             per_seed=m4.h_drift, expected=at_most(0.05), rule=ALL_SEEDS,
             quote="we may ignore the time evolution and consider the trace (or kernel) as fixed to its "
                   "initialization value, which is h ≃ 1/2 for d_h ≫ d_out (§4.1)",
             basis="5%: a drift of h rescales Eq. 18's time axis by as much, a third of the 15% agreement bound",
             no_control="an assumption of Eq. 17 checked on the run that Eq. 18 describes (fig4_eq18)")
claims.claim("fig4_h0", ref="Eq. 17", quantity=f"h(0) = ½(‖S₀‖² + ‖S₁‖²) at d_h = {m4.d_h_big}", per_seed=m4.h0,
             expected=within(0.5, 0.05), kind="consistency",
             basis="E‖S₀‖² = E‖S₁‖² = ½ for the stated variances, so h(0) ≈ ½ by construction")
claims.claim("fig4_grokking", ref="Fig. 4 / Eq. 18", quantity="max over runs of |(t*_gen/t*_tr)_sim / Eq. 18's − 1|",
             per_seed=m4.gen_over_tr_rel, expected=at_most(0.15), rule=ALL_SEEDS, quote=FIG4_QUOTE + " (§4.1)",
             basis="15%: the chapter's agreement bound for simulated against theory times",
             no_control=f"Eq. 18 predicts a delay t*_gen/t*_tr = {m4.gen_over_tr_theory[0]:.2f}–"
                        f"{m4.gen_over_tr_theory[1]:.2f} (measured {min(m4.gen_over_tr):.2f}–{max(m4.gen_over_tr):.2f}):"
                        f" a run without the delay (ratio 1) misses it by more than 15%")

# %% [markdown]
# ## Fig. 5 — late-time approximations
#
# App. B expands Eq. 8 near the lower MP edge: Eq. 21,
# $\mathcal L_{\rm tr} \simeq e^{-4\eta_0(1-\sqrt\lambda)^2t}/(16\sqrt\pi\lambda^{3/4}(\eta_0t)^{3/2})$,
# Eq. 22 for $\mathcal L_{\rm gen}$ (with the upper incomplete gamma function), and the main
# text's Eq. 10, $\mathcal L_{\rm gen}\simeq\mathcal L_{\rm tr}/(1-\sqrt\lambda)^2$. Eqs. 21–22
# converge quickly; Eq. 10 lies above the exact loss and approaches it only slowly — which is why
# Eq. 11, built on it, overestimates Δt.

# %%
r5 = ex.fig5()
m5 = summaries_late.fig5(r5)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 5: exact losses (Eq. 8; pink train, light blue generalization) against Eq. (21) (dashed red), Eq. (22) (dashed blue) and Eq. (10) (dash-dotted blue), \u03bb = 0.9.", "name": "le-fig5"}}
figures.fig5(r5)

# %%
APPROX = "an asymptotic form of the exact Eq. 8 (theory against its own late-time limit)"
claims.claim("fig5_eq21", ref="Fig. 5 / Eq. 21", quantity="max rel. error of Eq. 21 against exact L_tr, t ≥ 10³ (λ = 0.9)",
             measured=m5.eq21, expected=at_most(0.01), kind="consistency", basis=APPROX + "; 1% at late times")
claims.claim("fig5_eq22", ref="Fig. 5 / Eq. 22", quantity="max rel. error of Eq. 22 against exact L_gen, t ≥ 10³ (λ = 0.9)",
             measured=m5.eq22, expected=at_most(0.01), kind="consistency", basis=APPROX + "; 1% at late times")
claims.claim("fig5_eq10", ref="Fig. 5 / Eq. 10", quantity="exact L_gen / Eq. 10 at t = 10⁶ (nan unless below 1 and rising)",
             measured=m5.eq10_ratio_end_if_below_rising, expected=within(1.0, 0.05), kind="consistency",
             basis=APPROX + "; the ratio approaches 1 from below (Eq. 10 lies above the exact loss)")
claims.claim("eq23_24_lambert", ref="Eqs. 23/24", quantity="max over λ ∈ {0.3, 0.5, 0.7, 0.9} and (t*_tr, t*_gen) of "
             "|t*_Lambert/t*_exact − 1| (ε = 1e-3)", measured=th.lambert_err, expected=at_most(0.15), kind="consistency",
             basis="the late-time Lambert-W solutions of the exact crossing (App. B); 15%, the chapter's bound for "
                   "grokking times")

# %% [markdown]
# ## Fig. 6 — training-label noise
#
# App. C adds label noise $\delta\sim\mathcal N(0,\sigma^2)$ and argues the dynamics are
# unchanged, so $\mathcal L_{\rm tr}\to\sigma^2$ while the test loss still goes to 0 ("perfect
# generalization for any noise level"); the top row redraws the paper's figure from that
# argument. For noisy labels drawn **once** (the usual meaning) this is wrong: the gradient has
# the extra term $-2X^\top\delta/N$, GD fits the noise, and with $e = e^{-2\eta_0\nu t}$
#
# $$\mathcal L_{\rm tr} = \mathbb E[\nu e^2] + \sigma^2(1-\lambda+\lambda\mathbb E[e^2]),\qquad
# \mathcal L_{\rm gen} = \mathbb E[e^2] + \sigma^2\lambda\,\mathbb E[(1-e)^2/\nu],$$
#
# with floors $\sigma^2(1-\lambda)$ and $\sigma^2\lambda/(1-\lambda)$. The bottom row compares
# this with the simulation (seed means, markers).

# %%
r6 = ex.fig6(ex.config("fig6", profile, seed), ctx.device)
m6 = summaries_late.fig6(r6)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 6: losses (left) and accuracies (right) for several label-noise variances, \u03bb = 0.9, \u03b5 = 0.01. Top: the paper's App. C curves (pink train, light blue generalization). Bottom: corrected theory for fixed noisy labels (lines) and simulation (markers).", "name": "le-fig6"}}
figures.fig6(r6)

# %%
APPC_QUOTE = ("the noise can induce grokking … the training loss function would receive a constant contribution, "
              "proportional to the noise variance (§3.1.3; App. C: 'perfect generalization for any noise level')")
FIG6_MEAN = ("the fitted noise leaves a χ² with N_tr − d_in = 111 degrees of freedom, 13% sd per draw (draws: "
             + summaries.listing(m6.train_floor_per_seed) + "), so the mean of the draws is compared")
claims.claim("fig6_train_floor", ref="Fig. 6 (corrected)",
             quantity=f"late L_tr, mean over draws, fixed noisy labels σ² = {m6.sigma2:g}", measured=m6.train_floor,
             interval=m6.train_floor_interval,
             expected=within(m6.train_floor_theory, 0.15), kind="consistency", one_value=FIG6_MEAN,
             basis="this chapter's corrected App. C (σ²(1−λ)) against the simulation; 15% as for the other agreements")
claims.claim("fig6_test_floor", ref="Fig. 6 (corrected)",
             quantity=f"late L_gen, mean over draws, fixed noisy labels σ² = {m6.sigma2:g}", measured=m6.test_floor,
             interval=m6.test_floor_interval,
             expected=within(m6.test_floor_theory, 0.15), kind="consistency",
             one_value=f"the mean of the draws (per draw: {summaries.listing(m6.test_floor_per_seed)}) is compared",
             basis="this chapter's corrected App. C (σ²λ/(1−λ)) against the simulation; 15%")
claims.claim("fig6_paper_train", ref="App. C / Fig. 6", quantity=f"late L_tr, per draw (σ² = {m6.sigma2:g})",
             per_seed=m6.train_floor_per_seed,
             expected=within(m6.sigma2, 0.15), rule=ALL_SEEDS, quote=APPC_QUOTE,
             basis="App. C: L_tr → Tr(DDᵀΣ_tr) + σ² ≥ σ²; 15% as for the other agreements",
             known_deviation=f"GD fits fixed noisy labels: L_tr(∞) = σ²(1−λ) = {m6.train_floor_theory:.3g}, not "
                             f"σ² = {m6.sigma2:g}")
claims.claim("fig6_paper_gen", ref="App. C / Fig. 6", quantity="late L_gen, per draw", per_seed=m6.test_floor_per_seed,
             expected=at_most(0.01 * m6.sigma2), rule=ALL_SEEDS, quote=APPC_QUOTE,
             basis="“driven to 0” read as below 1% of the noise variance",
             known_deviation=f"fitting the noise costs L_gen(∞) = σ²λ/(1−λ) = {m6.test_floor_theory:.3g}")

# %% [markdown]
# ## Fig. 7 — phase diagrams of the grokking time
#
# $\Delta t_{\rm grok}$ from the exact theory with $\mathcal A(t^*) = 0.95$, η₀ = 0.01,
# ε = 10⁻³. Left: (γ, $d_{\rm out}$) at λ = 0.5 (weight decay in Eq. 3's convention, divided by
# $d_{\rm out}$); centre: (γ, λ) at $d_{\rm out}$ = 1; right: ($d_{\rm out}$, λ) at γ = 0. Colour is
# log₁₀ Δt (viridis: dark short, yellow long; the paper uses red for short and blue for long), white no grokking (test accuracy never reaches 95%, or both accuracies
# start above it). The paper leaves the fixed parameters and ranges open; ours are in the
# departures table.

# %%
r7 = ex.fig7(ex.config("fig7", profile, seed), ctx.device)
m7 = summaries_late.fig7(r7)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 7: log\u2081\u2080 of the grokking time from the exact theory over (\u03b3, d_out), (\u03b3, \u03bb) and (d_out, \u03bb); white: no grokking.", "name": "le-fig7"}}
figures.fig7(r7)

# %%
claims.claim("fig7_white", ref="Fig. 7", quantity="fraction of no-grokking cells, centre panel (theory)",
             measured=m7.white_fraction_centre, expected=at_least(0.05), kind="consistency",
             basis="Eq. 38's plateau exceeds ε/4 for large γ, so a no-grokking region exists by construction")
claims.claim("fig7_gamma_c", ref="Fig. 7", quantity="γ_c(λ) non-increasing on the centre panel's grid (theory)",
             measured=m7.gamma_c_nonincreasing, expected=is_true("non-increasing"), kind="consistency",
             basis="as fig3_gamma_c, on Fig. 7's grid")
claims.claim("fig7_dout", ref="Fig. 7", quantity="Δt(d_out) unimodal for each λ and 0 for d_out ≥ 1200 (theory)",
             measured=m7.unimodal_and_zero_big, expected=is_true("unimodal, 0 at large d_out"), kind="consistency",
             basis="fig2_unimodal and fig2_no_grok_large_dout on Fig. 7's grid")

# %% [markdown]
# ## Fig. 8 — modular addition (App. G)
#
# Gromov's (2023) two-layer MLP with quadratic activation, one-hot inputs ($d_{\rm in} = 2p$)
# and MSE loss, trained by full-batch GD with η = 500 on a fraction α of the $p^2$ sums, plotted
# like the teacher–student model: accuracy against training loss (top), and $\Delta t_{\rm grok}$
# against $\lambda = d_{\rm in}/N_{\rm tr} = 2/(\alpha p)$ with a fit $C(\lambda^*-\lambda)^{-2}$
# (bottom). The top-left panel is the teacher–student theory (d_out = 1, ε = 10⁻³): train
# accuracy is the same function of the train loss for every λ, while the test curve shifts.
# The MSE is summed over classes and averaged over samples — with torch's mean over classes
# the gradient is p times smaller, and nothing is learned at η = 500 in 2000 steps.

# %%
r8 = ex.fig8(ex.config("fig8", profile, seed), ctx.device)
m8 = summaries_late.fig8(r8)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 8: accuracy against training loss for the teacher\u2013student model (top left, theory, shades of \u03bb) and for modular addition (top right, shades of \u03b1; blue = fewest samples); bottom: grokking time against \u03bb = 2/(\u03b1p) for modular addition with a (\u03bb* \u2212 \u03bb)\u207b\u00b2 fit.", "name": "le-fig8"}}
figures.fig8(r8)

# %% tags=["remove-input"]
figures.fig8_table(m8)

# %%
FIG8_RANGE_QUOTE = "Here, α ranges between 0.5 and 0.9, since below α = 0.5, the network cannot generalize (App. G)"
claims.claim("fig8_dt_grows", ref="Fig. 8", quantity="one-sided p-value of Spearman's ρ(λ, Δt) > 0, per draw",
             per_seed=m8.trend_p, expected=at_most(0.05), rule=ALL_SEEDS,
             quote="Blue indicates the smallest number of training samples, leading to longer grokking time, while "
                   "yellow curves correspond to more training samples, therefore shorter grokking time differences",
             basis="a rising trend at the conventional 5% level; a draw with an α that never groks has no Δt there "
                   "and fails",
             no_control="the p-value is the test against its own null, Δt unrelated to λ")
claims.claim("fig8_exponent", ref="Fig. 8", quantity="exponent k of C(λ* − λ)^(−k) fitted to every draw's Δt "
             "(λ*, C and k free; 95% profile-likelihood interval)", measured=m8.exponent, interval=m8.exponent_interval,
             expected=within(2.0, 0.25),
             quote="there is some indication that the grokking time difference in modular addition depends on λ as "
                   "∼(λ − c)⁻², which is reminiscent of the linear model (App. G)",
             basis="k within 1.5–2.5: nearer the paper's 2 than 1 or 3; the interval decides",
             one_value=f"one fit to the {m8.n_finite} finite Δt of all draws "
                       f"pooled (a per-draw fit has {len(m8.alpha)} points for 3 parameters)",
             no_control="a fitted parameter against the paper's value: its interval, not a control, decides")

# %% [markdown]
# Below α = 0.5 (App. G, footnote 3: "the network cannot generalize") the same network, learning
# rate and number of steps are trained at training fractions below 0.5 — and, as the control, at the
# paper's two lowest fractions, 0.5 and 0.55, which it says do generalise — as one batch. The claim
# can only be evidence where the control generalises: where it does not, the network at this
# profile's size cannot generalise at 0.5 either, and the claim is vacuous.

# %%
r8b = ex.fig8_below(ex.config("fig8_below", profile, seed), ctx.device)
m8b = summaries_late.fig8_below(r8b)
m8p = ex.config("fig8", "paper")

# %% tags=["remove-input"]
Markdown(f"At α = {summaries.listing(m8b.alpha, 'g')} (λ = {summaries.listing(m8b.lam, '.3f')}) the "
         f"train accuracy reaches {min(m8b.best_train_acc):.0%} in every draw, while the best test accuracy over "
         f"{m8b.steps} steps is {summaries.listing(m8b.best_test_acc, '.1%')} per draw (chance: 1/p = {1 / m8b.p:.1%}); "
         f"at the control's α = {summaries.listing(m8b.control_alpha, 'g')} the test accuracy reaches "
         f"{m8b.thr:.0%} at step {summaries.listing(m8b.control_first_gen, 'g')} per draw. "
         f"The paper's λ range is {2 / (max(m8p.alphas) * m8p.p):.3f}–"
         f"{2 / (min(m8p.alphas) * m8p.p):.3f} (p = {m8p.p}, d_h = {m8p.d_h}, α = {min(m8p.alphas):g}–"
         f"{max(m8p.alphas):g}); this profile's p = {m8b.p} and d_h = {ex.config('fig8', profile).d_h} give "
         f"λ = {min(m8.lam):.3f}–{max(m8.lam):.3f} for α = {min(m8.alpha):g}–{max(m8.alpha):g}. App. G's boundary at "
         f"α = 0.5 is a statement about the paper's p and width; the paper profile runs them.")

# %%
claims.claim("fig8_all_grok", ref="Fig. 8 / App. G",
             quantity=f"highest over α = {min(m8.alpha):g}–{max(m8.alpha):g} of the lowest test error (1 − accuracy) "
                      f"reached, per draw", per_seed=m8.worst_test_err, expected=at_most(0.05), rule=ALL_SEEDS,
             quote=FIG8_RANGE_QUOTE,
             basis="the accuracy that counts as reached in Figs. 7 and 8 (95%), stated as an error of at most 5% so "
                   "that the margin reads against the 5% left to miss",
             control=ControlRun(f"α = {summaries.listing(m8b.alpha, 'g')}", "training fractions below the paper's "
                                "range, the same network and budget (next section)", per_seed=m8b.worst_test_err))
claims.claim("fig8_below_no_gen", ref="App. G (footnote 3)",
             quantity=f"first step at which the test accuracy reaches {m8b.thr:.0%}, earliest over α = "
                      f"{summaries.listing(m8b.alpha, 'g')}, per draw ({m8b.steps} steps, as the α ≥ "
                      f"{min(m8.alpha):g} runs)", per_seed=m8b.first_gen, expected=never(), rule=ALL_SEEDS,
             quote=FIG8_RANGE_QUOTE, basis="paper",
             control=ControlRun(f"α = {summaries.listing(m8b.control_alpha, 'g')}", "the paper's lowest training "
                                "fractions, which it says generalise", per_seed=m8b.control_first_gen))

# %% [markdown]
# ## Errata
#
# Each place where the paper's formula or statement disagrees with the exact theory or with
# the simulation, with the numbers measured in this run.

# %% tags=["remove-input"]
figures.errata_table(m1, q, m3, m4, m6, th)

# %% [markdown]
# Notational slips (no numbers needed): the MP eigenvectors are uniform on the sphere in
# $\mathbb R^{d_{\rm in}}$, not $\mathbb R^{d_{\rm out}}$; in Eq. 9, $D^\top\Sigma D = \mathcal L$ is
# the variance, not the standard deviation; §3.3.1 defines $\Gamma(a,z)$ with its arguments
# swapped (App. B has it right); Eqs. 24–25 write η for η₀; Eq. 17's "$S_t(t)$" is $S_1(t)$; the
# caption of Fig. 3 cites §3.3.1 for §3.3.2; Eq. 3 divides the weight-decay term by $d_{\rm out}$
# while torch's `weight_decay` does not (this matters only for Fig. 7 left, drawn in Eq. 3's
# convention); the text's threshold ${\rm erf}\sqrt2 = 0.9545$ and Fig. 7's 0.95 differ.

# %% [markdown]
# ## Claims

# %%
claims.table()
