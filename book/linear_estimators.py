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
#
# The paper's thesis is in its title and in §3.2: "nothing particularly interesting is happening at this
# threshold, and the loss dynamics are oblivious to its existence. In other words, grokking in this setting
# … is an artifact of the definition of accuracy and does not represent a transition from 'memorization'
# to 'understanding'". Everything below follows from one fact — the accuracy is a function of the loss —
# and from the spectrum of $\Sigma_{\rm tr}$, which sets how fast each loss falls.

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
from companion.figures import linear_estimators_text as text
from companion.pipeline import runs

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("linear_estimators", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("linear_estimators", profile)

# the bases several figures' claims share (defined here, before any experiment, so that every view of the
# chapter — a page of kept paper-scale results too — reaches them)
LOSS_BASIS = "0.05 decades (12%): curves that overlap on the paper's log axes, where Eq. 8 ≥ ε/40 (argued above)"
AGREEMENT = ("an agreement with a parameter-free formula: a simulation the formula did not describe fails the "
             "bound; no run lacks the effect while keeping the formula")
DT_BASIS = "15%: the chapter's agreement bound for simulated against exact grokking times (argued above)"

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
# Why the test loss lags: the training gradient shrinks each eigendirection of $D$ at the rate set by its
# own eigenvalue ν of $\Sigma_{\rm tr}$, and the train loss weighs that direction by ν while the test loss
# weighs every direction equally. The slow directions — small ν, near the lower edge
# $(1-\sqrt\lambda)^2$ of the Marchenko–Pastur law — hardly count in the train loss but carry the test
# loss long after. As the paper puts it (§3.2), the generalisation loss "also vanishes exponentially but
# somewhat slower". The closer λ is to 1, the closer that edge is to zero, and the longer the lag.
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
#
# ### How the claims are read
#
# Each section ends with its claims, and a list above them — **What is checked** — gives, for each claim
# id, the paper's words it tests, the bound and the argument for it, and, where one applies, the control
# run that lacks the effect. Two kinds of claim appear. A *paper* claim tests a statement of the paper; a
# *consistency* check tests this chapter's own theory or a property its other claims rely on, and says
# nothing about the paper by itself. Where the paper's statement is wrong for a reason the chapter
# explains (and the Errata list), the claim records that reason as a *known deviation* rather than a bare
# failure.
#
# Most claims are agreements between a simulation and a formula without free parameters, and they share
# two bounds. **Losses**: at most 0.05 decades (12%) between the two curves — curves that close overlap on
# the paper's logarithmic loss axes, which is what the paper's "excellent agreement" shows a reader.
# **Times**: at most 15% between a simulated and a predicted grokking time — on the logarithmic step
# axes of the loss and accuracy panels, 0.06 decades, about the overlap asked of the losses. Every
# comparison of times in the chapter uses this one bound; where a quantity must hold more tightly (a third
# of it, 5%), the list says why. Such agreements have no control: a simulation that the formula did not describe
# fails the bound by itself, and there is no run that lacks the effect while keeping the formula.
#
# A value computed from many draws (a mean, a median) carries a 95% interval over the draws, and the claim
# is *undecided* when that interval reaches across the bound. A claim with a control holds only if the
# control fails the bound; it is *vacuous* when the control meets it too.

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

# %% [markdown]
# **What is checked.** §3.1.1 closes the warm-up with one sentence: "In Fig. 1 we show that these analytical
# predictions are in excellent agreement with numerical experiments, with no fitting parameters, in both
# regimes." The figure carries three predictions — the losses of Eq. 8, the accuracy as a function of the
# loss (Eq. 9), and the grokking time — and, for λ > 1, a plateau of the test loss. Each becomes a claim;
# only the plateau has a control, since the others are agreements with parameter-free formulas.
#
# - `fig1_loss_lam0.1`, `fig1_loss_lam0.9`, `fig1_loss_lam1.5` — the largest distance between the expected
#   loss and Eq. 8, $\max_t|\log_{10}(\mathcal L/\mathcal L_{\rm Eq.\,8})|$ over train and test, at most 0.05
#   decades: the chapter's bound for losses. The comparison stops where Eq. 8 falls below ε/40 (ε = 10⁻³):
#   there both accuracies are ${\rm erf}\sqrt{20} \approx 1$, so a gap in the loss can no longer move an
#   accuracy or a grokking time. At λ = 0.9 the late gap is the finite-size effect of the sweep above; at
#   every profile but the smoke test (which only exercises the code) the claim records it as a known
#   deviation.
# - `fig1_acc_lam0.1`, `fig1_acc_lam0.9`, `fig1_acc_lam1.5` — Eq. 9: "in the limit of large sample sizes,
#   the empirical averages converge to" $\operatorname{Erf}(\sqrt{\epsilon/2\mathcal L})$; "This result implies
#   that the increase in accuracy in the late stages of training can be simply mapped to the decrease of the
#   loss below $\epsilon$" (§3.1.2). Tested on each draw's own loss: the gap between the draw's accuracy and
#   Eq. 9 of its loss, averaged over the draws of data, teacher and student, largest over time, train and
#   test and both ε; at most 0.05, five points of accuracy. Since Eq. 9 is fed the draw's own loss (whether
#   that loss follows Eq. 8 is the question of `fig1_loss_*`), the averaged gap carries only the sampling
#   error of finite train and test sets.
# - `fig1_dt_theory`, `fig1_dt_lam0.9`, `fig1_dt_lam0.95` — §3.1.3: "Eq. (11) indicates that the maximal
#   grokking time difference occurs near $\lambda \simeq 1$ … These predictions are verified in Fig.
#   1(right)." Eq. 11 is only the ε → 0 limit of the grokking time (next section), so the yardstick is the
#   exact Δt of Eqs. 8–9 at the paper's ε, and the grokking time of the expected loss is held to it: the
#   largest $|\Delta t/\Delta t_{\rm exact} - 1|$ over λ ≤ 0.8 and both ε, and the ratio at λ = 0.9 and at
#   λ = 0.95 (the ε farther from 1), each within 15%, the chapter's bound for times. The two λ nearest 1
#   are claimed apart because the finite-size gap of the late loss reaches their crossing times.
# - `fig1_dt_increasing` (consistency) — "the maximal grokking time difference occurs near λ ≃ 1" needs
#   Δt to rise with λ. The smallest ratio of neighbouring exact Δt on the figure's λ markers must be at
#   least 1.15/0.85 ≈ 1.35: if every simulated Δt lies within 15% of its exact value, as the claims above
#   ask, steps that large make the simulated Δt rise too.
# - `fig1_plateau` — §3.1.1, for λ > 1: "$e^{-4\eta_0\nu t}|_{\nu=0}=1$ contributes a nonzero constant
#   $1-1/\lambda$ to the loss, preventing perfect generalization." The late test loss at λ = 1.5 must lie
#   within 10% of $1-1/\lambda$. Per draw, the null-space share of $\|D_0\|^2$ is a χ² with
#   $d_{\rm in} - N_{\rm tr}$ degrees of freedom — 333 at $d_{\rm in} = 1000$, a relative sd of 7.7% — a
#   finite-size scatter that the $d_{\rm in} \to \infty$ theory cannot have; so the median of the draws
#   decides, and its 95% interval must clear the bound. Control: λ = 0.9, where $N_{\rm tr} > d_{\rm in}$,
#   $\Sigma_{\rm tr}$ has no null space, and nothing holds the test loss up.

# %%
FIG1_QUOTE = ("In Fig. 1 we show that these analytical predictions are in excellent agreement with numerical "
              "experiments, with no fitting parameters, in both regimes (§3.1.1)")
ACC_BASIS = "0.05, five points of accuracy; Eq. 9 is tested on each draw's own loss (argued above)"
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
DT_QUOTE = ("Eq. (11) indicates that the maximal grokking time difference occurs near λ ≃ 1 … These predictions are "
            "verified in Fig. 1(right) (§3.1.3)")
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
             basis="steps above 1.15/0.85 = 1.35×, so simulated Δt within 15% rise too (argued above)")
claims.claim("fig1_plateau", ref="Fig. 1 / Eq. 8", quantity=f"late L_gen at λ = {m1s.lam_hi:g}, per draw",
             per_seed=m1s.plateau_per_seed, expected=within(m1s.plateau_theory, 0.10), rule=MEDIAN,
             quote="e^{−4η₀νt}|_{ν=0} = 1 contributes a nonzero constant 1 − 1/λ to the loss, preventing perfect "
                   "generalization (§3.1.1)",
             basis="10%: a draw's null-space share scatters as a χ², so the median decides (argued above)",
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
text.eq11_paragraph(q)

# %% [markdown]
# **What is checked.** §3.1.3 introduces Eq. 11 as a limit: "solving for the difference between
# $t^*_{\mathrm{gen}}-t^*_{\mathrm{tr}}$, and expanding the result in the limit of $\epsilon\ll 1$, one
# obtains an analytic expression for the grokking time difference". App. B gives the next order, Eq. 25,
# "where the second term goes to zero as $\epsilon \to 0$, quoted in the main text as Eq. (11)". The
# yardstick for both is the exact Δt at λ = 0.5, the roots of Eqs. 8–9.
#
# - `eq11_eps1e-3` — Eq. 11 over the exact Δt at the paper's ε = 10⁻³, within 15%, the chapter's bound for
#   times. Eq. 11 keeps only the leading term in ε, and the claim records its overestimate at this ε as a
#   known deviation.
# - `eq25_eps1e-3` (consistency) — Eq. 25 against the same exact Δt and the same 15%: the paper's own
#   finite-ε correction should remove most of Eq. 11's overestimate at the paper's ε, where it is defined
#   (the Errata say where it is not).
# - `eq11_limit` (consistency) — Eq. 11 over the exact Δt at ε = 10⁻¹², within 15%: if Eq. 11 is the
#   ε → 0 limit, the ratio must come near 1 as ε shrinks. It must also move towards 1 monotonically over
#   the ε of the table; otherwise the value is not-a-number and the check fails.
# - `eq11_lambda1` — §3.1.3: "the grokking time diverges quadratically as $\Delta t_{\rm grok}(\lambda \to
#   1) \sim \frac{1}{\eta_0(\lambda-1)^2} \log\left(\frac{4}{(1-\lambda)^2}\right)$". Read at λ = 1, the test
#   accuracy would never reach ${\rm erf}\sqrt2$: the claim asks that the exact $t^*_{\rm gen}$ never comes
#   (ε = 10⁻³), the paper's statement with no bound of ours. At fixed ε it does come — at λ = 1 the loss
#   decays as a power law, not exponentially — and the claim records that the divergence belongs to Eq. 11,
#   the ε → 0 limit: a known deviation.

# %%
EQ11_QUOTE = ("solving for the difference t*_gen − t*_tr, and expanding the result in the limit of ε ≪ 1, one "
              "obtains an analytic expression for the grokking time difference (Eq. 11)")
claims.claim("eq11_eps1e-3", ref="Eq. 11", quantity="Eq. 11 / exact Δt (λ = 0.5, ε = 1e-3)",
             measured=q.ratio_at_paper_eps, expected=within(1.0, 0.15), quote=EQ11_QUOTE, basis=DT_BASIS,
             known_deviation=text.eq11_deviation(q))
claims.claim("eq25_eps1e-3", ref="Eq. 25 (App. B)", quantity="Eq. 25 / exact Δt (λ = 0.5, ε = 1e-3)",
             measured=q.eq25_ratio, expected=within(1.0, 0.15), kind="consistency",
             basis="the paper's own finite-ε correction of Eq. 11 against the exact theory; 15% (argued above)")
claims.claim("eq11_limit", ref="Eq. 11", quantity="Eq. 11 / exact Δt at ε = 1e-12 (λ = 0.5; nan unless monotone in ε)",
             measured=q.limit_ratio, expected=within(1.0, 0.15), kind="consistency",
             basis="Eq. 11 is the ε → 0 limit of the exact Δt, so the ratio must approach 1 (argued above)")
claims.claim("eq11_lambda1", ref="Eq. 11 / §3.1.3", quantity="exact t*_gen at λ = 1 (ε = 1e-3, A = erf√2)",
             measured=th.lam1_t_gen, expected=never(),
             quote="the grokking time diverges quadratically as Δt_grok(λ → 1) ∼ log(4/(1−λ)²)/(η₀(λ−1)²) (§3.1.3)",
             basis="paper", known_deviation=text.lambda1_deviation(th))

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
text.init_paragraph(mi)

# %% [markdown]
# **What is checked.** §3.1.3: "rescaling the student weights $S \to \alpha S$ leads to a trivial rescaling
# of both the training and generalization loss functions as $\mathcal{L} \to \frac{1+\alpha^2}{2}\mathcal{L}$,
# which is tantamount to choosing a different threshold parameter $\epsilon \to \frac{2\epsilon}{1+\alpha^2}$".
# Both halves are tested: the rescaling of the losses directly, and the equivalence with a new threshold
# through the crossing times it predicts. Both claims compare the mean losses of many runs, since the
# rescaling is a statement about the expected loss: a single run's late loss is carried by its few slowest
# directions.
#
# - `init_loss_rescaling` — the ratio of the mean losses of the $\alpha S_0$ and $S_0$ arms, divided by
#   $(1+\alpha^2)/2$, off 1 by at most 10% at every step, train and test. The two arms share spectra,
#   teachers and students, and the expectation of the ratio is $(1+\alpha^2)/2$ at every $t$; 10% leaves
#   room for the scatter of a finite number of runs. Control: α ignored — the $S_0$ runs read as the
#   $\alpha S_0$ runs, whose ratio is 1, not $(1+\alpha^2)/2$.
# - `init_shifts` — the measured shift of $t^*$ from the $S_0$ to the $\alpha S_0$ arm, over the exact
#   theory's shift from ε to $\epsilon' = 2\epsilon/(1+\alpha^2)$, for $t^*_{\rm tr}$ and $t^*_{\rm gen}$, the
#   one farther from 1; within 15%, the chapter's bound for times. Control: α ignored — a model without the
#   rescaling leaves $t^*$ where it was (shift 1), which at α = 3 lies outside the bound.

# %%
claims.claim("init_loss_rescaling", ref="§3.1.3", quantity=f"max over t, train and test of |mean L_αS₀ / mean L_S₀, "
             f"over (1+α²)/2, − 1| (α = {mi.alpha:g})", measured=mi.loss_dev, interval=mi.loss_dev_interval,
             expected=at_most(0.10),
             quote="rescaling the student weights S → αS leads to a trivial rescaling of both the training and "
                   "generalization loss functions as L → (1+α²)/2 L (§3.1.3)",
             basis="10%: the expectation of the ratio is (1+α²)/2 at every t (argued above)",
             one_value=text.init_loss_note(mi),
             control=ControlRun("α ignored", "the S₀ runs read as the αS₀ runs: their ratio is 1, not (1+α²)/2",
                                measured=abs(1 / mi.factor - 1)))
claims.claim("init_shifts", ref="§3.1.3", quantity=f"measured shift of t* from S₀ to αS₀ (each arm's mean loss) / "
             f"the exact theory's shift from ε to ε' = 2ε/(1+α²), t*_tr or t*_gen, the one farther from 1 "
             f"(α = {mi.alpha:g}, λ = 0.5)", measured=mi.agreement, interval=mi.agreement_interval,
             expected=within(1.0, 0.15),
             quote="which is tantamount to choosing a different threshold parameter ϵ → 2ϵ/(1+α²) (§3.1.3)",
             basis=DT_BASIS, one_value=text.init_shift_note(mi),
             control=ControlRun("α ignored", "a model without the rescaling: t* unmoved (shift 1)", measured=mi.ignored))

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
text.dout_zero_paragraph(th)

# %%
r2m = ex.fig2_markers(ex.config("fig2_markers", profile, seed), ctx.device)
m2m = summaries.fig2_markers(r2m)

# %% tags=["remove-input"]
figures.fig2_markers_text(m2m)

# %% [markdown]
# **What is checked.** §3.3.1: "The loss evolution follows the same functional form as Eq. (8), with the
# replacement $\eta_0 \to \eta_0/d_{\rm out}$, and a correction to Eq. (9)". The effects of $d_{\rm out}$
# "are twofold": the accuracy approaches 1 as $d_{\rm out}$ grows, for any loss, while the learning rate
# "becomes effectively smaller", and "These two competing effects, along with the monotonicity of the loss
# functions, give rise to a non-monotonic dependence of the grokking time on $d_{\rm out}$, which attains a
# maximum at a specific value $d_{\mathrm{out}}^{\mathrm{max}}$".
#
# - `fig2_losses_dout50`, `fig2_losses_dout700` — the caption's "Empirical results for training (dashed)
#   and generalization (solid) losses, for $d_{\rm out} = 1,50,700$ (blue, red, violet) against analytical
#   solutions (black)", tested as Fig. 1's losses are: the expected loss of many spectra against Eq. 12,
#   at most 0.05 decades where Eq. 12 ≥ ε/40.
# - `fig2_markers` — the grokking time of Eq. 12 against the simulation at λ = 0.5: per draw the ratio
#   $\Delta t_{\rm sim}/\Delta t_{\rm Eq.\,12}$ farthest from 1 over the $d_{\rm out}$ up to a tenth of
#   $d_{\rm in}$, and the median of the draws within 15%. The restriction is the argument under the
#   markers above: Eq. 12's accuracy takes the error $\frac1{d_{\rm out}}\|D^\top x\|^2$ to be
#   $\mathcal L\,\chi^2_{d_{\rm out}}/d_{\rm out}$, which needs $D^\top D \propto I$, true only for
#   $d_{\rm out} \ll d_{\rm in}$; the larger $d_{\rm out}$ are reported there, not claimed.
# - `fig2_dout_max` — the paper's maximum, in the simulation: per draw, the largest Δt over the inner
#   $d_{\rm out}$ divided by the larger of the two ends, at least 1.15/0.85 ≈ 1.35 in every draw — a
#   maximum that survives the 15% agreement bound on either side. Control: the same draws with
#   η = η₀·$d_{\rm out}$, which undoes the slowing $\eta_0 \to \eta_0/d_{\rm out}$, one of the two competing
#   effects; left with the other alone, Δt falls with $d_{\rm out}$.
# - `fig2_unimodal`, `fig2_interior_max` (consistency) — the theory curves of the right panel, on their
#   grid, rise to a single maximum and do not rise after it; and for every λ that maximum is at least
#   1.15/0.85 ≈ 1.35 times the value at $d_{\rm out} = 1$, so that a simulation within the 15% bound can
#   show it (`fig2_dout_max` tests that it does).
# - `fig2_no_grok_large_dout` (consistency) — "in the limit of $d_{\rm out} \to \infty$, both training and
#   generalization accuracies must be close to 100% shortly after initialization and no grokking occurs",
#   in the exact theory: Δt = 0 for every $d_{\rm out} \ge 1200$ and every λ of the panel.
# - `fig2_dout_boundary` (consistency) — where that begins. Δt = 0 exactly when both accuracies start at or
#   above 95%: with $\mathcal L(0) = 1/d_{\rm out}$, when the 95% quantile of $\chi^2_{d_{\rm out}}$ is at
#   most $d_{\rm out}^2\epsilon$. The smallest $d_{\rm out}$ at which the exact Δt is 0 (λ = 0.5,
#   ε = 10⁻³, found by bisection) and the smallest that meets the quantile condition are one condition
#   computed two ways, so they must agree, to 1%.

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
             basis="15%, on the d_out ≤ d_in/10 where Eq. 12's accuracy applies (argued above)", no_control=AGREEMENT)
claims.claim("fig2_dout_max", ref="Fig. 2 / §3.3.1",
             quantity=f"simulated Δt: largest over d_out = {', '.join(map(str, m2m.douts[1:-1]))} / the larger of "
                      f"d_out = {m2m.douts[0]} and {m2m.douts[-1]}, per draw (λ = {m2m.lam})",
             per_seed=m2m.peak, expected=at_least(1.15 / 0.85), rule=ALL_SEEDS,
             quote="a non-monotonic dependence of the grokking time on d_out, which attains a maximum at a specific "
                   "value d_out^max (§3.3.1)",
             basis="a maximum that survives the 15% bound on either side: 1.15/0.85 = 1.35× (argued above)",
             control=ControlRun("η ∝ d_out", "η = η₀·d_out undoes the slowing η₀ → η₀/d_out: Δt falls with d_out",
                                per_seed=m2m.peak_control))
claims.claim("fig2_unimodal", ref="Fig. 2", quantity="Δt(d_out) rises to a single maximum and does not rise after it, "
             "on the d_out grid (theory, every λ)", measured=m2.unimodal, expected=is_true("one maximum"),
             kind="consistency", basis="the shape fig2_dout_max tests the simulation against (argued above)")
claims.claim("fig2_interior_max", ref="Fig. 2", quantity="smallest over λ of max Δt(d_out) / Δt(d_out = 1) (theory)",
             measured=m2.peak_over_start, expected=at_least(1.15 / 0.85), kind="consistency",
             basis="1.35×, so a simulation within 15% can show the maximum (argued above)")
claims.claim("fig2_no_grok_large_dout", ref="Fig. 2 / Eq. 12", quantity="Δt = 0 for every d_out ≥ 1200 and every λ "
             "(theory)", measured=m2.zero_big, expected=is_true("Δt = 0 there"), kind="consistency",
             basis="the paper's 'd_out → ∞, no grokking' (§3.3.1) in the exact theory (argued above)")
claims.claim("fig2_dout_boundary", ref="Eq. 12", quantity="smallest d_out with exact Δt = 0 (λ = 0.5, ε = 1e-3)",
             measured=th.dout_zero, expected=within(th.dout_zero_chi2, 0.01), kind="consistency",
             basis="Δt = 0 exactly when the χ²_{d_out} 95% quantile ≤ d_out²ε: one condition two ways (argued above)")

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

# %% [markdown]
# **What is checked.** The caption: "Empirical results for training (dashed) and generalization (solid)
# losses, for $\gamma=10^{-5}, 10^{-3}, 10^{-2}$ (blue, red, violet) against analytical solutions (black)";
# on the right, "Different solid curves are numerical solutions for the expressions given in Section 3.3.1,
# while the shaded gray region corresponds to training/generalization saturation, without perfect
# generalization." §3.3.2 adds the small-γ limits of Eq. 15 and what weight decay does to the grokking
# time in the under- and the overparameterised regime.
#
# *The curves.*
#
# - `fig3_plateaus_train`, `fig3_plateaus_test` — the expected late loss (λ = 0.9) against Eq. 38, the
#   largest distance over γ at most 0.05 decades, as for Fig. 1's curves: the same figure style and the
#   same "against analytical solutions". Eq. 38 averages over the MP law, so the expected loss of many
#   spectra is compared; single draws scatter with their few eigenvalues near the MP
#   edge, and the $d_{\rm in}$ sweep of Fig. 1's section shows that gap shrink as $d_{\rm in}$ grows.
# - `fig3_eq38_limit` (consistency) — Eq. 38 at $t = 10^9$ against its own small-γ limits
#   $\gamma^2/(8(1-\lambda))$ and $\gamma^2/(8(1-\lambda)^3)$, for γ ≤ 10⁻⁴: the limits are Eq. 38's, so the
#   two must agree up to corrections of higher order in γ; 2% leaves room for those.
# - `fig3_eq15` — §3.3.2: "approximating for small $\gamma \ll 1$, we obtain the asymptotic expressions
#   $\mathcal{L}_{\rm tr} \simeq \frac{\gamma^2}{4(1-\lambda)}, \mathcal{L}_{\rm gen} \simeq
#   \frac{\gamma^2}{4(1-\lambda)^3}$". Eq. 15's test plateau over the expected late test loss, within 12%:
#   the 0.05 decades of the plateau claims, since $10^{0.05} \approx 1.12$. Eq. 38 itself gives half of
#   Eq. 15 (Errata), and the claim records that as its known deviation.
#
# *The grokking time.*
#
# - `fig3_markers` — the right panel's curves against simulation at λ = 0.5: for each finite γ, the
#   grokking time of the expected loss over the exact Δt, the largest $|\Delta t/\Delta t_{\rm exact} - 1|$ at
#   most 15%, the chapter's bound for times. The figure's markers are single draws; the claim uses the
#   expected loss of many, like the exact theory.
# - `fig3_infinite` — the gray region, "saturation, without perfect generalization": at a γ past
#   $\gamma_c$ the simulated test accuracy must never reach the threshold, in any draw (the paper's
#   statement; no bound of ours). Control: the same draws at the largest marker γ below $\gamma_c$, where
#   the test loss's plateau lies under the threshold.
# - `fig3_gamma_c` (consistency) — $\gamma_c(\lambda)$ is non-increasing in λ on the theory grid: the plateau
#   $\gamma^2/(8(1-\lambda)^3)$ of Eq. 38 grows with λ, so the γ at which it crosses the threshold falls.
# - `fig3_wd_flat`, `fig3_wd_decreases` — §3.3.2: "Thus, there is a value of ϵ below which perfect
#   generalization cannot be obtained. For ϵ above this threshold, WD has no effect, and below it, the
#   grokking time decreases as given by Eq. (15)." Both in the exact theory at λ = 0.5, ε = 10⁻³. "No
#   effect" is read as a change of Δt below 5% for γ ≤ 10⁻⁴, a third of the 15% bound for times (a
#   consistency check: that weak weight decay leaves the grokking time alone is what the theory must give).
#   "Decreases" is read as any ratio below 1 between Δt at the largest γ below $\gamma_c$ and Δt at γ = 0.
#   At fixed ε the exact Δt rises with γ instead, until it becomes infinite at $\gamma_c$; the claim records
#   the rise as a known deviation.
# - `fig3_eq15_dt` — Eq. 15's "$\Delta t_{\rm grok} \simeq \frac{\log(1+\sqrt{\lambda})}{2\eta_0
#   (1-\sqrt{\lambda})^2}$" over the exact Δt with weight decay, at the γ below $\gamma_c$ that brings the
#   two closest; within 15%. The claim records, as its known deviation, Eq. 15's value beside the range
#   the exact Δt covers below $\gamma_c$.
#
# *The overparameterised regime*, λ = 1.5 and γ = 10⁻³.
#
# - `fig3_wd_overparam` — §3.3.2: "Introducing weight decay changes this picture somewhat, causing the
#   null eigenvalues to be shifted by a factor of $\gamma/2$ and ensuring that better generalization
#   performance is reached. Still, the late time behavior is the same as Eq. (15)". Eq. 15's late-time
#   behaviour is a loss of order γ², and grokking at ε needs the test loss below ε/4 (accuracy
#   ${\rm erf}\sqrt2$): the exact late test loss must be at most ε/4. With weight decay the null directions
#   of $\Sigma_{\rm tr}$ decay to $S = 0$, which leaves the teacher's share of $\|D_0\|^2$ there, about
#   $\frac12(1-1/\lambda)$: a known deviation.
# - `fig3_wd_better_overparam` (consistency) — where the paper is right, "ensuring that better
#   generalization performance is reached": the same late test loss over the one without weight decay,
#   $1-1/\lambda$, must be below 1. The null directions lose the student's share of $\|D_0\|^2$ and keep the
#   teacher's, so the plateau halves. Neither run groks at ε = 10⁻³, so "L₂ regularization suppresses
#   grokking in overparameterized networks" (§1) holds — but not because of L₂.

# %%
FIG3_QUOTE = ("Empirical results for training (dashed) and generalization (solid) losses, for γ = 1e-5, 1e-3, 1e-2 "
              "(blue, red, violet) against analytical solutions (black), for λ = 0.9 (Fig. 3)")
PLATEAU = dict(ref="Fig. 3 / Eq. 38", expected=at_most(0.05), quote=FIG3_QUOTE,
               basis="0.05 decades, as for Fig. 1's curves (argued above)", no_control=AGREEMENT,
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
             basis="the small-γ limit of Eq. 38 itself: they must agree to the order of γ (argued above)")
claims.claim("fig3_eq15", ref="Eq. 15", quantity=f"Eq. 15's L_gen(∞) / expected late L_gen (γ = {m3.g15:g}, "
             f"λ = {mE.wd_lam:g}, t = {mE.wd_t:.0e})", measured=m3.eq15_gen[m3.g15] / mE.wd_mean["test"][m3.g15],
             expected=within(1.0, 0.12), quote="approximating for small γ ≪ 1, we obtain the asymptotic expressions "
             "L_tr ≃ γ²/(4(1−λ)), L_gen ≃ γ²/(4(1−λ)³) (Eq. 15)",
             basis="12%, the 0.05 decades of fig3_plateaus_train/test (argued above)",
             one_value=f"the expected late loss of {mE.n[mE.wd_lam]} spectra, as fig3_plateaus_test",
             no_control=AGREEMENT, known_deviation=text.EQ15_DEVIATION)
claims.claim("fig3_markers", ref="Fig. 3", quantity=f"max over finite γ of |Δt of the expected loss / exact Δt − 1| at "
             f"λ = {mE.marker_lam:g}", measured=mE.marker_dev, interval=mE.marker_dev_interval, expected=at_most(0.15),
             quote="Different solid curves are numerical solutions for the expressions given in Section 3.3.1 (Fig. 3 "
                   "right)", basis=DT_BASIS,
             one_value=f"the grokking time of the expected loss of {mE.n[mE.marker_lam]} spectra per γ, like the exact "
                       f"theory's (single draws are the figure's markers)", no_control=AGREEMENT)
claims.claim("fig3_infinite", ref="Fig. 3", quantity=f"simulated Δt at λ = {m3.marker_lam}, γ = {m3.inf_gamma} (past "
             f"γ_c), per draw", per_seed=m3.sim_dt_at_inf_per_seed, expected=never(), rule=ALL_SEEDS,
             quote="the shaded gray region corresponds to training/generalization saturation, without perfect "
                   "generalization (Fig. 3)", basis="paper",
             control=ControlRun(f"γ = {m3.below_inf_gamma:g}", "the same draws at the largest marker γ below γ_c",
                                per_seed=m3.dt_below_inf_per_seed))
claims.claim("fig3_gamma_c", ref="Fig. 3", quantity="the critical γ_c(λ) is non-increasing in λ (theory grid)",
             measured=m3.gamma_c_decreasing, expected=is_true("non-increasing in λ"), kind="consistency",
             basis="the plateau γ²/(8(1−λ)³) of Eq. 38 grows with λ (argued above)")
WD_QUOTE = ("For ϵ above this threshold, WD has no effect, and below it, the grokking time decreases as given by "
            "Eq. (15) (§3.3.2)")
claims.claim("fig3_wd_flat", ref="§3.3.2", quantity=f"max over γ ≤ 1e-4 of |Δt(γ)/Δt(0) − 1| (exact, λ = {th.wd_lam})",
             measured=th.flat_small, expected=at_most(0.05), kind="consistency",
             basis="“no effect” as a change below 5%, a third of the 15% bound (argued above)")
claims.claim("fig3_wd_decreases", ref="§3.3.2 / Eq. 15",
             quantity=f"exact Δt at the largest γ below γ_c / Δt(γ = 0) (λ = {th.wd_lam}, ε = 1e-3)",
             measured=th.wd_rise, expected=less_than(1.0), quote=WD_QUOTE, basis="a decrease is any ratio below 1 (argued above)",
             known_deviation=text.wd_rises_deviation(th))
claims.claim("fig3_eq15_dt", ref="Eq. 15", quantity=f"Eq. 15's Δt / exact Δt with WD, the γ < γ_c closest to 1 "
             f"(λ = {th.wd_lam})", measured=th.eq15_best_ratio, expected=within(1.0, 0.15),
             quote="Δt_grok ≃ log(1+√λ)/(2η₀(1−√λ)²) (Eq. 15)", basis=DT_BASIS,
             known_deviation=text.eq15_dt_deviation(th))
claims.claim("fig3_wd_overparam", ref="§3.3.2", quantity=f"exact L_gen(t → ∞) at λ = {th.over_lam}, γ = "
             f"{th.over_gamma:g} (Eq. 38)", measured=th.over_gen_inf, expected=at_most(th.eps / 4),
             quote="Still, the late time behavior is the same as Eq. (15) (§3.3.2)",
             basis="Eq. 15's late loss is of order γ²; grokking at ε needs L_gen below ε/4 (argued above)",
             known_deviation=text.overparam_deviation(th))
claims.claim("fig3_wd_better_overparam", ref="§3.3.2", quantity=f"exact L_gen(t → ∞) with γ = {th.over_gamma:g} / "
             f"without weight decay (1 − 1/λ), λ = {th.over_lam}", measured=th.over_gen_inf / (1 - 1 / th.over_lam),
             expected=less_than(1.0), kind="consistency",
             basis="the paper's “better generalization performance” (§3.3.2): the plateau halves (argued above)")

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
c4 = ex.config("fig4", profile, seed)
r4 = ex.fig4(c4, ctx.device)
m4 = summaries_late.fig4(r4)

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 4: two-layer MLP with linear (left) and tanh (right) activations, d_h = 50, 200; losses (top) and accuracies (bottom), simulation coloured (train dashed, test solid), corrected Eq. 18 thick grey.", "name": "le-fig4"}}
figures.fig4(r4)

# %% tags=["remove-input"]
figures.fig4_table(m4)

# %% tags=["remove-input"]
text.fig4_paragraph(m4)

# %% [markdown]
# **What is checked.** §4.1: "We experimentally verify that Eq. (18) correctly predicts the performance
# metrics and their dynamics in Fig. 4 (left column)". Behind Eq. 18 is one approximation of the kernel:
# "we may ignore the time evolution and consider the trace (or kernel) as fixed to its initialization value,
# which is $h \simeq 1/2$ for $d_h \gg d_{\rm out}$". Eq. 18 is taken with the corrected prefactor, the
# initial loss (above, and the Errata). The agreements have no control, for the reason given at the top.
#
# - `fig4_eq18` — per draw, the largest $|t^*_{\rm sim}/t^*_{\rm Eq.\,18} - 1|$ over the two activations and
#   over $t^*_{\rm tr}$ and $t^*_{\rm gen}$, at the larger width; at most 15% in every draw, the chapter's
#   bound for times.
# - `fig4_eq18_small` — the same at $d_h = 50$, with the same 15%. The paper's $h \simeq \frac12$ holds
#   "for $d_h \gg d_{\rm out}$", and $d_h = 50$ is only $10\,d_{\rm out}$. At the cpu and paper profiles the
#   draws cross later than the corrected Eq. 18, and the claim records that as a known deviation: the
#   kernel is ½ only for $d_h \gg d_{\rm out}$, and a draw's initial loss scatters from draw to draw.
# - `fig4_tanh_linear` (consistency) — the right column against the left. The tanh and linear runs share
#   data and initialisation, and at this initialisation the pre-activations are about 0.05–0.1, where
#   tanh is linear to 0.3%: the runs must agree, and their $t^*$ may differ by at most 5%, a third of the
#   bound for times. So this does not test §4.2's "empirically verifying that our predictions hold beyond
#   the linear regimes, in some cases", which would need pre-activations of order 1.
# - `fig4_initial_loss` (consistency) — the prefactor of the corrected Eq. 18: $\mathbb E\,\mathcal L(0) =
#   1/(2d_hd_{\rm out})$ for the stated variances, checked on the draws of the linear run at the larger
#   width. 10% allows the draw-to-draw scatter of a sum over $d_h d_{\rm out}$ products (1000 at the
#   paper's $d_h = 200$, $d_{\rm out} = 5$).
# - `fig4_h_const` — the kernel approximation quoted above: the largest drift $|h(t)/h(0) - 1|$ over time
#   and activations at the larger width, at most 5% in every draw. A drift of h rescales Eq. 18's time axis
#   by as much, so 5% is a third of the 15% bound. No control: it checks an assumption of Eq. 17 on the very
#   run that Eq. 18 describes (`fig4_eq18`).
# - `fig4_h0` (consistency) — $h(0) = \frac12(\|S_0\|^2 + \|S_1\|^2)$ at the larger width within 5% of ½:
#   $\mathbb E\|S_0\|^2 = \mathbb E\|S_1\|^2 = \frac12$ for the stated variances, so $h(0) \approx \frac12$
#   by construction.
# - `fig4_grokking` — the delay itself: per run, the simulated $t^*_{\rm gen}/t^*_{\rm tr}$ over Eq. 18's,
#   within 15%. No control: Eq. 18 predicts a delay, and a run without one (ratio 1) would miss it by more
#   than 15%; the claims table gives the predicted and the measured ratios.

# %%
FIG4_QUOTE = "We experimentally verify that Eq. (18) correctly predicts the performance metrics and their dynamics in Fig. 4"
claims.claim("fig4_eq18", ref="Fig. 4 / Eq. 18 (corrected)", quantity=f"max over activations and (t*_tr, t*_gen) of "
             f"|t*_sim/t*_Eq.18 − 1| at d_h = {m4.d_h_big}", per_seed=m4.rel_err_big, expected=at_most(0.15),
             rule=ALL_SEEDS, quote=FIG4_QUOTE + " (left column) (§4.1)", basis=DT_BASIS, no_control=AGREEMENT)
claims.claim("fig4_eq18_small", ref="Fig. 4 / Eq. 18 (corrected)", quantity=f"the same at d_h = {m4.d_h_small}",
             per_seed=m4.rel_err_small, expected=at_most(0.15), rule=ALL_SEEDS,
             quote=FIG4_QUOTE + " (left column) (§4.1)",
             basis="15%, as at the larger width, though d_h = 50 is only 10 d_out (argued above)", no_control=AGREEMENT,
             known_deviation=None if profile == "smoke" else text.fig4_eq18_small_deviation(m4.d_h_small, c4.d_out))
claims.claim("fig4_tanh_linear", ref="Fig. 4 (right column)",
             quantity="max over d_h and t* of |t*_tanh/t*_linear − 1|", per_seed=m4.tanh_vs_linear,
             expected=at_most(0.05), rule=ALL_SEEDS, kind="consistency",
             basis="pre-activations of 0.05–0.1, where tanh is linear: the runs must agree; 5% (argued above)")
claims.claim("fig4_initial_loss", ref="Eq. 18", quantity=f"initial loss of the linear run at d_h = {m4.d_h_big}",
             per_seed=m4.loss0_big, expected=within(m4.loss0_theory_big, 0.10), rule=ALL_SEEDS, kind="consistency",
             basis="E L(0) = 1/(2 d_h d_out), the prefactor of the corrected Eq. 18; 10% (argued above)")
claims.claim("fig4_h_const", ref="Eq. 17", quantity=f"max over t and activations of |h(t)/h(0) − 1| at d_h = {m4.d_h_big}",
             per_seed=m4.h_drift, expected=at_most(0.05), rule=ALL_SEEDS,
             quote="we may ignore the time evolution and consider the trace (or kernel) as fixed to its "
                   "initialization value, which is h ≃ 1/2 for d_h ≫ d_out (§4.1)",
             basis="5%: a drift of h rescales Eq. 18's time axis by as much (argued above)",
             no_control="an assumption of Eq. 17 checked on the run that Eq. 18 describes (fig4_eq18)")
claims.claim("fig4_h0", ref="Eq. 17", quantity=f"h(0) = ½(‖S₀‖² + ‖S₁‖²) at d_h = {m4.d_h_big}", per_seed=m4.h0,
             expected=within(0.5, 0.05), kind="consistency",
             basis="E‖S₀‖² = E‖S₁‖² = ½ for the stated variances, so h(0) ≈ ½ by construction (argued above)")
claims.claim("fig4_grokking", ref="Fig. 4 / Eq. 18", quantity="max over runs of |(t*_gen/t*_tr)_sim / Eq. 18's − 1|",
             per_seed=m4.gen_over_tr_rel, expected=at_most(0.15), rule=ALL_SEEDS, quote=FIG4_QUOTE + " (§4.1)",
             basis=DT_BASIS, no_control=text.fig4_delay_note(m4))

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

# %% [markdown]
# **What is checked.** App. B: "The approximations hold quite well even at somewhat early times, and become
# increasingly more accurate for later epochs." Each approximation is held against the exact Eq. 8 it
# approximates — theory against its own late-time limit — so these are consistency checks, with no
# simulation and no control.
#
# - `fig5_eq21`, `fig5_eq22` — the largest relative error of Eq. 21 against the exact $\mathcal L_{\rm tr}$,
#   and of Eq. 22 against the exact $\mathcal L_{\rm gen}$, for $t \ge 10^3$ at λ = 0.9. From there on
#   $\eta_0 t \ge 10$, inside the paper's late-time regime $\eta_0 t \gg \sqrt\lambda$, where approximations
#   that "hold quite well" should be within 1%, a gap invisible on the figure's logarithmic axes.
# - `fig5_eq10` — Eq. 10 against the exact $\mathcal L_{\rm gen}$ at $t = 10^6$, within 5%. Eq. 10 keeps only
#   the leading term of Eq. 22, so it approaches the exact loss slowly and from above: the ratio exact/Eq. 10
#   must be below 1 and still rising at $t = 10^6$ (otherwise the value is not-a-number), and by then within
#   5% of 1 — a looser bound than Eqs. 21–22's 1%, for the slower approach.
# - `eq23_24_lambert` — App. B's Lambert-W solutions for $t^*_{\rm tr}$ and $t^*_{\rm gen}$ (Eqs. 23–24)
#   against the exact crossing times, for λ ∈ {0.3, 0.5, 0.7, 0.9} at ε = 10⁻³: the largest relative error
#   at most 15%, the chapter's bound for times.

# %%
APPROX = "an asymptotic form of the exact Eq. 8 (theory against its own late-time limit)"
claims.claim("fig5_eq21", ref="Fig. 5 / Eq. 21", quantity="max rel. error of Eq. 21 against exact L_tr, t ≥ 10³ (λ = 0.9)",
             measured=m5.eq21, expected=at_most(0.01), kind="consistency", basis=APPROX + "; 1% (argued above)")
claims.claim("fig5_eq22", ref="Fig. 5 / Eq. 22", quantity="max rel. error of Eq. 22 against exact L_gen, t ≥ 10³ (λ = 0.9)",
             measured=m5.eq22, expected=at_most(0.01), kind="consistency", basis=APPROX + "; 1% (argued above)")
claims.claim("fig5_eq10", ref="Fig. 5 / Eq. 10", quantity="exact L_gen / Eq. 10 at t = 10⁶ (nan unless below 1 and rising)",
             measured=m5.eq10_ratio_end_if_below_rising, expected=within(1.0, 0.05), kind="consistency",
             basis=APPROX + "; the ratio approaches 1 from below, slowly: 5% (argued above)")
claims.claim("eq23_24_lambert", ref="Eqs. 23/24", quantity="max over λ ∈ {0.3, 0.5, 0.7, 0.9} and (t*_tr, t*_gen) of "
             "|t*_Lambert/t*_exact − 1| (ε = 1e-3)", measured=th.lambert_err, expected=at_most(0.15), kind="consistency",
             basis="the late-time Lambert-W solutions of the exact crossing (App. B); 15% (argued above)")

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

# %% [markdown]
# **What is checked.** §3.1.3: "In the case of training label noise $y \to y + \delta$, where
# $\delta \sim \mathcal{N}(0, \sigma_\delta^2)$, the student dynamics don't change, but the training loss
# function would receive a constant contribution, proportional to the noise variance". App. C: "the training
# loss is bounded from below by $\sigma_{\delta}^2$, while the generalization loss can be driven to 0", and
# in Fig. 6 "test loss and accuracy show perfect generalization for any noise level". The paper's two
# floors are claims of the paper; the corrected floors are consistency checks of this chapter's own theory.
# All four are read at the largest noise variance σ² of the figure, late in training.
#
# - `fig6_train_floor`, `fig6_test_floor` (consistency) — the late train and test losses, each the mean
#   over draws, within 15% of the corrected floors $\sigma^2(1-\lambda)$ and $\sigma^2\lambda/(1-\lambda)$,
#   the bound of the chapter's other agreements. The fitted noise leaves a χ² with $N_{\rm tr} - d_{\rm in}$
#   degrees of freedom in the train loss — 111 at $d_{\rm in} = 1000$ and λ = 0.9, a relative sd of 13% per
#   draw — so the mean of the draws is compared, not each draw.
# - `fig6_paper_train` — App. C's $\mathcal L_{\rm tr} \simeq {\rm Tr}(DD^T\Sigma_{\rm tr}) + \sigma_\delta^2$,
#   whose floor is $\sigma^2_\delta$: each draw's late train loss within 15% of σ². GD fits the fixed noisy
#   labels, and the floor is $\sigma^2(1-\lambda)$ instead: a known deviation.
# - `fig6_paper_gen` — "the generalization loss can be driven to 0", read as a late test loss below 1% of
#   the noise variance in every draw. Fitting the noise costs $\sigma^2\lambda/(1-\lambda)$ of test loss: a
#   known deviation.

# %%
FIG6_MEAN = ("the fitted noise leaves a χ² with N_tr − d_in = 111 degrees of freedom, 13% sd per draw (draws: "
             + summaries.listing(m6.train_floor_per_seed) + "), so the mean of the draws is compared")
claims.claim("fig6_train_floor", ref="Fig. 6 (corrected)",
             quantity=f"late L_tr, mean over draws, fixed noisy labels σ² = {m6.sigma2:g}", measured=m6.train_floor,
             interval=m6.train_floor_interval,
             expected=within(m6.train_floor_theory, 0.15), kind="consistency", one_value=FIG6_MEAN,
             basis="this chapter's corrected App. C (σ²(1−λ)) against the simulation; 15% (argued above)")
claims.claim("fig6_test_floor", ref="Fig. 6 (corrected)",
             quantity=f"late L_gen, mean over draws, fixed noisy labels σ² = {m6.sigma2:g}", measured=m6.test_floor,
             interval=m6.test_floor_interval,
             expected=within(m6.test_floor_theory, 0.15), kind="consistency",
             one_value=f"the mean of the draws (per draw: {summaries.listing(m6.test_floor_per_seed)}) is compared",
             basis="this chapter's corrected App. C (σ²λ/(1−λ)) against the simulation; 15% (argued above)")
claims.claim("fig6_paper_train", ref="App. C / Fig. 6", quantity=f"late L_tr, per draw (σ² = {m6.sigma2:g})",
             per_seed=m6.train_floor_per_seed, expected=within(m6.sigma2, 0.15), rule=ALL_SEEDS,
             quote="the training loss is bounded from below by σ_δ² (App. C)",
             basis="App. C: L_tr → Tr(DDᵀΣ_tr) + σ² ≥ σ²; 15% (argued above)",
             known_deviation=text.noise_train_deviation(m6))
claims.claim("fig6_paper_gen", ref="App. C / Fig. 6", quantity="late L_gen, per draw", per_seed=m6.test_floor_per_seed,
             expected=at_most(0.01 * m6.sigma2), rule=ALL_SEEDS,
             quote="the generalization loss can be driven to 0 (App. C)",
             basis="“driven to 0” read as below 1% of the noise variance (argued above)", known_deviation=text.noise_gen_deviation(m6))

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

# %% [markdown]
# **What is checked.** The caption: "White regions indicate no grokking, as generalization accuracy does not
# converge to 95%." Fig. 7 is drawn from the exact theory ("obtained by numerically finding the grokking
# time, using the definition $\mathcal{A}(t^*)=0.95$ and the analytic formulas quoted in the main text"),
# so its checks are consistency checks: the diagrams must show the shapes that Figs. 2 and 3 established.
#
# - `fig7_white` — the fraction of no-grokking cells in the centre panel, at least 5%: Eq. 38's plateau
#   exceeds ε/4 for large γ, so a white region exists by construction, and on the panel's grid it must
#   cover a visible share of the cells.
# - `fig7_gamma_c` — $\gamma_c(\lambda)$ non-increasing on the centre panel's grid, as `fig3_gamma_c`.
# - `fig7_dout` — on the right panel, Δt($d_{\rm out}$) unimodal for each λ and 0 for $d_{\rm out} \ge 1200$:
#   `fig2_unimodal` and `fig2_no_grok_large_dout` on Fig. 7's grid.

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

# %% [markdown]
# **What is checked.** App. G, on modular addition: "We find that there is some indication that the grokking
# time difference in modular addition depends on λ as $\sim (\lambda - c)^{-2}$, which is reminiscent of the
# linear model." And the caption: "Blue indicates the smallest number of training samples, leading to longer
# grokking time, while yellow curves correspond to more training samples, therefore shorter grokking time
# differences."
#
# - `fig8_dt_grows` — the caption's trend, per draw: the one-sided p-value of Spearman's ρ between λ and
#   Δt at most 0.05, the conventional level, in every draw. A draw with an α that never groks has no Δt
#   there, and fails. No control: the p-value is already the test against its own null, Δt unrelated to λ.
# - `fig8_exponent` — the exponent $k$ of $C(\lambda^* - \lambda)^{-k}$, with λ*, C and k free, fitted to the
#   finite Δt of all draws pooled (one draw alone has as many points as α values, too few for three
#   parameters). It must lie within 1.5–2.5, nearer the paper's 2 than 1 or 3, and its 95%
#   profile-likelihood interval decides: a fitted parameter is judged against the paper's value by its
#   interval, not by a control.

# %%
FIG8_RANGE_QUOTE = "Here, α ranges between 0.5 and 0.9, since below α = 0.5, the network cannot generalize (App. G)"
claims.claim("fig8_dt_grows", ref="Fig. 8", quantity="one-sided p-value of Spearman's ρ(λ, Δt) > 0, per draw",
             per_seed=m8.trend_p, expected=at_most(0.05), rule=ALL_SEEDS,
             quote="Blue indicates the smallest number of training samples, leading to longer grokking time, while "
                   "yellow curves correspond to more training samples, therefore shorter grokking time differences",
             basis="a rising trend at the conventional 5% level (argued above)",
             no_control="the p-value is the test against its own null, Δt unrelated to λ")
claims.claim("fig8_exponent", ref="Fig. 8", quantity="exponent k of C(λ* − λ)^(−k) fitted to every draw's Δt "
             f"(λ*, C and k free; 95% profile-likelihood interval {m8.exponent_interval[0]:.2f}–"
             f"{m8.exponent_interval[1]:.2f}" + (", which reaches the end of the fit's grid of k: the data bound k from "
                                                 "below only" if m8.exponent_open else "") + ")",
             measured=m8.exponent, interval=m8.exponent_interval,
             expected=within(2.0, 0.25),
             quote="there is some indication that the grokking time difference in modular addition depends on λ as "
                   "∼(λ − c)⁻², which is reminiscent of the linear model (App. G)",
             basis="k within 1.5–2.5: nearer the paper's 2 than 1 or 3 (argued above)",
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
text.fig8_below_paragraph(m8b, m8, m8p, ex.config("fig8", profile).d_h)

# %% [markdown]
# **What is checked.** App. G, footnote 3: "Here, α ranges between 0.5 and 0.9, since below $\alpha = 0.5$,
# the network cannot generalize." The footnote makes two statements, and each is a claim with the other's
# runs as its control.
#
# - `fig8_all_grok` — over the paper's range the network generalises: per draw, the highest over α of the
#   lowest test error reached, at most 5% in every draw. That is the 95% accuracy that counts as reached in
#   Figs. 7 and 8, stated as an error so that the margin reads against the 5% left to miss. Control: the
#   training fractions below the paper's range, with the same network and budget.
# - `fig8_below_no_gen` — below α = 0.5 it does not: the first step at which the test accuracy reaches
#   the threshold, earliest over the α below 0.5, must never come, in any draw (the paper's statement; no
#   bound of ours). Control: the paper's lowest fractions, which it says generalise; where they do not
#   either, the claim is vacuous, as said above.

# %%
claims.claim("fig8_all_grok", ref="Fig. 8 / App. G",
             quantity=f"highest over α = {min(m8.alpha):g}–{max(m8.alpha):g} of the lowest test error (1 − accuracy) "
                      f"reached, per draw", per_seed=m8.worst_test_err, expected=at_most(0.05), rule=ALL_SEEDS,
             quote=FIG8_RANGE_QUOTE, basis="95% accuracy, the level of Figs. 7 and 8, as an error of 5% (argued above)",
             control=ControlRun(f"α = {summaries.listing(m8b.alpha, 'g')}", "training fractions below the paper's "
                                "range, the same network and budget", per_seed=m8b.worst_test_err))
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
#
# Each row is computed from the runs and theory above. A paper claim is *held* when its value meets the
# bound (for per-draw values, in every draw, or in the median where the list says so) and no draw of its
# control does; *failed* when it does not; a *known deviation* when it fails for the reason the list above
# gives and the Errata show; *undecided* when the 95% interval of a value from many draws reaches across
# the bound; and *vacuous* when the control meets the bound too. Consistency checks are marked as such and
# read the same way. The list above each group of claims gives the paper's words each claim tests, where
# its bound comes from, and why its control lacks the effect.

# %%
claims.table()
