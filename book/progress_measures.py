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
# # Beyond Progress Measures — embedding uniformity, MED and the training-set distribution
#
# Gu, Chen, Zhang, Hu and Cao (*Beyond Progress Measures: Theoretical Insights into the Mechanism
# of Grokking*) argue that grokking has two ingredients: **weight decay drives the token
# embeddings towards uniformity** (Thm 3.8), and **the training set must cover the task** (Thm
# 3.12), which caps the test accuracy a model can reach. They propose a progress measure, the
# *Main Embedding Diff* $\mathrm{MED} = \frac1p\sum_{i}\lVert\varphi(i+1)-\varphi(i)\rVert_2$, and
# show grokking in one-layer transformers on $f(i,j) \bmod p$, in a 2-layer DNN and in a ResNet-18
# trained on a purpose-built image dataset. This chapter reproduces every figure and table:
# the transformer runs with the shared one-layer model, the ResNet-18 written in the library and
# trained from scratch, and the theory (coverage bound, App. C's ODE) numerically.
#
# The paper gives almost no transformer hyper-parameters; they come from the authors' code
# (Qihuai27/Grokking-Insight): d_model 128, 4 heads, d_mlp 512, no LayerNorm, every matrix
# initialised $\mathcal N(0,1)/\sqrt{d_\text{model}}$, full-batch AdamW (lr $10^{-3}$, weight decay 1,
# β = (0.9, 0.98), 10-step warm-up), 30 000 epochs, float32 cross-entropy. One epoch is one
# full-batch step. The `cpu` profile runs at p = 47 (α = 0.5, lr $3\cdot10^{-3}$, d_model 64, about
# 1 200 epochs) because p = 97 at 30 000 epochs is hours per run on a CPU; every reduction is listed below.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
import numpy as np
from IPython.display import Markdown, display

from companion import profiles
from companion.claims import Claims, at_least, at_most, close_to, greater_than, is_true, less_than
from companion.experiments import progress_measures as ex
from companion.figures import progress_measures as figs
from companion.theory import progress_measures as theory

ctx = profiles.setup(profile, device, seed)
claims = Claims("progress_measures", profile)
cfg = {name: ex.config(name, profile, seed) for name in ex.CONFIGS}
display(Markdown(ctx.describe()))

# %% [markdown]
# ## Departures from the paper at this profile
# Every field in which this profile's configurations differ from the paper's (empty at `paper`).

# %% tags=["remove-input"]
ex.departures_markdown(profile)

# %% [markdown]
# ## Fig. 1 — the two ingredients
# Fig. 1 is a concept diagram with no data: embedding uniformity under weight decay and the
# training-set distribution together produce grokking, in DNNs, transformers and ResNets.

# %% tags=["remove-input"]
figs.fig1_concept()

# %% [markdown]
# ## Theorem 3.12 — how much training data covers the task
# If a test pair is predicted correctly when some training pair lies within Manhattan distance
# $< k$ of it, one training pair covers $C = 1 + 2k(k-1)$ pairs, and the union bound
# $p^2(1 - C/p^2)^{\alpha p^2} < 1$ guarantees full coverage once $\alpha > 2\ln p / C$.
# The Monte-Carlo check draws random training sets at p = 97 and counts covered pairs, on the
# torus (the count $C$ assumes no boundary) and on the plain grid (the theorem ignores
# wrap-around mod p).

# %%
cov = ex.coverage_run(cfg["coverage"], ctx.device)
display(Markdown(figs.md_table(
    ["k", "C", "α > 2 ln p / C", "α", "union bound p²(1−C/p²)^{αp²}", "mean uncovered (MC)", "covered test share (torus)",
     "covered test share (no wrap)"],
    [[r["k"], r["C"], r["alpha_min"], r["alpha"], r["union_bound"], r["uncovered_mean"], r["covered_test_frac"],
      r["covered_test_frac_box"]] for r in cov["rows"]])))
figs.coverage_plot(cov)

# %%
claims.check("thm312_threshold", "Thm 3.12", "p = 97, k = 4: full coverage needs α > 2 ln 97 / 25 = 0.366",
             measured=theory.alpha_threshold(97, 4), expected=close_to(0.366, 0.001))
claims.check("thm312_union_bound", "Thm 3.12",
             "the union bound dominates the expected number of uncovered pairs (every k, α; Monte Carlo, torus)",
             measured=bool(all(r["uncovered_mean"] <= r["union_bound"] + 1e-9 for r in cov["rows"])),
             expected=is_true("bound ≥ Monte-Carlo mean everywhere"))
claims.check("thm312_above", "Thm 3.12",
             f"just above the threshold (α = {cov['alpha_above']:.3f}, k = 4) most random training sets cover every pair",
             measured=cov["above"]["all_covered_frac"], expected=at_least(0.5))

# %% [markdown]
# ## Fig. 2 — more transformer layers
# "As the number of transformer layers increases, the test accuracy fluctuates violently, while
# the MED keeps decreasing." Depths and settings are not stated; the authors' `base.py` uses
# p = 97, α = 0.5, so the `paper` profile runs 1, 2 and 3 layers there; the `cpu` profile compares
# 1 and 2 layers on its baseline (p = 47, d_model 64; the 1-layer run is the one Figs. 5 and 9 use).
# Fluctuation is the mean $|\Delta|$ of test accuracy between consecutive evaluations on the
# linear grid (every `eval_every` epochs) after test accuracy first reaches 0.9. The paper's
# reading (deeper networks carve the input space into smaller regions) is a conjecture that a
# curve cannot test; the claim is only the fluctuation.

# %%
depth = ex.depth_runs(cfg["fig2"], ctx.device)
figs.fig2_depth(depth)

# %%
every = cfg["fig2"].base.eval_every
fl = {L: ex.fluctuation(h, every) for L, h in depth.items()}
display(Markdown(figs.md_table(["layers", "first test acc ≥ 0.95", "post-grokking mean |Δ test acc|", "MED peak", "MED end"],
                               [[L, ex.grok_step(h), fl[L], float(h["med"].max()), float(h["med"][-1])] for L, h in depth.items()])))
L_lo, L_hi = min(depth), max(depth)
if L_hi > L_lo:  # (a page of paper-scale results may hold one depth only)
    claims.check("fig2_fluctuation", "Fig. 2", f"{L_hi} layers fluctuate more after grokking than {L_lo}",
                 measured=fl[L_hi] / fl[L_lo] if fl[L_lo] > 0 else float("nan"), expected=greater_than(1.0))
claims.check("fig2_med_falls", "Fig. 2", "MED keeps decreasing: MED at the end is below its peak, every depth",
             measured=bool(all(h["med"][-1] < h["med"].max() for h in depth.values())),
             expected=is_true("true for every depth"))

# %% [markdown]
# ## Fig. 3 — designed training-set layouts
# Random 30 % of the $97\times97$ pairs; a *square* hole $\{i\le k, j\le k\}$; a *strip* hole
# $\{i \le t\}$ (k = 40 and t = 50 here: the figure does not state them). Blue: training pairs;
# light grey: test pairs; dark grey: the hole (test). The remaining pairs are shuffled and the
# first $\lfloor 0.3 p^2\rfloor = 2\,822$ train, as in the authors' code.

# %%
layouts = ex.split_layouts()
figs.fig3_splits(layouts)

# %%
n_train = {name: int((g == 1).sum()) for name, g in layouts.items()}
claims.check("fig3_train_size", "Fig. 3", "every layout trains on int(0.3·97²) = 2 822 pairs, none of them in the hole",
             measured=bool(all(n == int(0.3 * 97 ** 2) for n in n_train.values())), expected=is_true("2 822 each"))

# %% [markdown]
# ## Table 1 — the distribution caps the test accuracy
# U-Acc is the highest test accuracy reached, L-Acc the lowest after it, GO-Epoch "when
# grokking occurs" (undefined in the paper; here the first epoch past the midpoint between the
# memorisation plateau and U-Acc). The paper's numbers are for p = 97, α = 0.3; at `cpu` the holes
# are scaled to p = 47 by area (square 14 ≈ 30·47/97, 29 ≈ 60·47/97) and by the strip that leaves
# (almost) no leftover test pairs (t = 22, the analogue of the paper's t = 67).

# %%
holes = ex.hole_runs(cfg["table1"], ctx.device)
stats = {k: ex.u_l_go(h) for k, h in holes.items()}
rows = []
for (shape, k), s in stats.items():
    pu, pl, pgo = ex.PAPER_TABLE1.get((shape, k), ("–", "–", "–"))
    h = holes[(shape, k)]
    rows.append([shape.upper(), k, round(100 * s["u_acc"], 2), pu, round(100 * s["l_acc"], 2), pl, s["go"], pgo,
                 round(100 * float(h["acc_hole"].max()), 1), round(100 * float(h["acc_rest"].max()), 1)])
display(Markdown(figs.md_table(["method", "para", "U-Acc % (here)", "U-Acc % (paper)", "L-Acc % (here)", "L-Acc % (paper)",
                                "GO-Epoch (here)", "GO-Epoch (paper)", "max acc in hole %", "max acc elsewhere %"], rows)))
if profile != "paper":
    display(Markdown("The paper's rows (p = 97, α = 0.3), for comparison:\n\n" + figs.md_table(
        ["method", "para", "U-Acc %", "L-Acc %", "GO-Epoch"],
        [[s.upper(), k, *v] for (s, k), v in ex.PAPER_TABLE1.items()])))
figs.table1_curves(holes)

# %%
for shape, name in (("square", "k"), ("strip", "t")):
    keys = sorted(k for k in stats if k[0] == shape)
    u = [stats[k]["u_acc"] for k in keys]
    claims.check(f"table1_{shape}_monotone", "Table 1",
                 f"the test-accuracy ceiling falls as the {shape} hole grows ({name} = {', '.join(str(k[1]) for k in keys)})",
                 measured=bool(len(u) > 1 and all(a > b for a, b in zip(u, u[1:]))), expected=is_true("strictly decreasing"))
small_sq = min(k for k in stats if k[0] == "square")
claims.check("table1_small_square", "Table 1", f"with the smallest square hole (k = {small_sq[1]}) the model still groks (U-Acc ≥ 0.85)",
             measured=stats[small_sq]["u_acc"], expected=at_least(0.85))
big_sq = max(k for k in stats if k[0] == "square")
claims.check("table1_hole_wrong", "Table 1", f"a large hole (square k = {big_sq[1]}) is mostly predicted wrongly: accuracy inside the hole below elsewhere",
             measured=float(holes[big_sq]["acc_hole"].max() - holes[big_sq]["acc_rest"].max()), expected=less_than(0.0))

# %% [markdown]
# ## Fig. 4 — $f(i,j) = i^2 + ij + j^2$: a ceiling that does not move
# The paper: the upper limit of test accuracy rises with α, but "the number of samples that can
# be correctly output in the test set has not increased", i.e. $\mathrm{Acc}\cdot(1-\alpha) \approx$ const,
# and a 2-layer DNN does not generalise at all. With a shared vocabulary f is symmetric, so a test
# pair $(i,j)$ whose mirror $(j,i)$ was trained can be answered by memorised commutativity; the
# middle panel splits test accuracy by that (not in the paper). p ≡ 1 (mod 3) keeps the
# factorisation of $i^2+ij+j^2$ over $\mathbb Z_p$ that p = 97 has.

# %%
comm = ex.commutativity_runs(cfg["fig4"], ctx.device)
figs.fig4_commutativity(comm)

# %%
fr = [f for f in comm if f != "mlp"]
rows = []
for f in fr:
    h = comm[f]
    i = int(np.argmax(h["test_acc"]))
    share_in = h["mirror_in_share"]
    explained = share_in * h["acc_mirror_in"][i] / max(h["test_acc"][i], 1e-9)
    rows.append([f, float(h["test_acc"][i]), (1 - f) * float(h["test_acc"][i]), float(h["acc_mirror_in"][i]),
                 float(h["acc_mirror_out"][i]), share_in, explained])
display(Markdown(figs.md_table(["α", "max test acc", "(1−α)·max acc", "acc, mirror in train", "acc, mirror not in train",
                                "share of test pairs with mirror in train", "share of correct answers explained by mirror"], rows)))
if len(fr) > 1:  # (a page of paper-scale results may hold one α only)
    claims.check("fig4_ceiling_rises", "Fig. 4", f"the ceiling rises with α (max test acc at α = {fr[-1]} over α = {fr[0]})",
                 measured=float(comm[fr[-1]]["test_acc"].max() - comm[fr[0]]["test_acc"].max()),
                 expected=greater_than(0.0))
    prod = [r[2] for r in rows if r[0] >= 0.6] or [r[2] for r in rows]
    claims.check("fig4_constant_count", "Fig. 4", "(1−α)·Acc is about constant (α ≥ 0.6: spread relative to the mean)",
                 measured=float((max(prod) - min(prod)) / np.mean(prod)), expected=at_most(0.25))
claims.check("fig4_commutativity", "Fig. 4 (not in paper)",
             "memorised commutativity explains the test accuracy: share of correct test answers whose mirror (j, i) was trained (smallest over α)",
             measured=float(min(r[6] for r in rows)), expected=at_least(0.8))
claims.check("fig4_dnn", "Fig. 4", "the 2-layer DNN does not generalise (final test accuracy < 0.05)",
             measured=float(comm["mlp"]["test_acc"][-1]), expected=less_than(0.05))

# %% [markdown]
# ## Fig. 5 — MED tracks the test loss
# For several primes: loss, MED (the caption's *sum* form, $p\cdot$MED) and accuracy. "In all four
# groups MED and test loss have consistent changing trends." The correlation is measured on the
# shaded window, from train accuracy 0.99 to test accuracy 0.95 (the specification found that MED
# can rise again during the late clean-up phase, so the full-run correlation is reported but not
# asserted). The weight-decay term $W(\theta) = \sum\lVert\theta\rVert^2$, which the theory says MED
# stands in for, is correlated on the same window as a baseline. Compare the two columns: where
# they are about equally high, MED's correlation is no evidence for MED over the plain weight
# norm; the runs that do not grok (Figs. 14–19 below) are where the two measures part ways.

# %%
primes = ex.prime_runs(cfg["fig5"], ctx.device)
wins = {p: ex.window(h) for p, h in primes.items()}
figs.fig5_primes(primes, wins)

# %%
corr_rows = [[p, ex.grok_step(h), ex.window_r(h, "med"), ex.window_r(h, "wnorm2"), ex.full_r(h, "med"), ex.full_r(h, "wnorm2"),
              float(h["med"][0]), float(h["med_sum"].min())] for p, h in primes.items()]
display(Markdown(figs.md_table(["p", "test acc ≥ 0.95 at", "r(MED, test loss) window", "r(W, test loss) window",
                                "r(MED) train-acc-1 → end", "r(W) train-acc-1 → end", "MED at init", "min MED (sum)"], corr_rows)))
for p, h in primes.items():
    claims.check(f"fig5_grok_p{p}", "Fig. 5", f"p = {p}: the model groks (final test accuracy ≥ 0.95)",
                 measured=float(h["test_acc"][-1]), expected=at_least(0.95))
    claims.check(f"fig5_med_r_p{p}", "Fig. 5", f"p = {p}: MED correlates with test loss between train acc 1 and test acc 0.95 (Pearson r > 0.7)",
                 measured=ex.window_r(h, "med"), expected=greater_than(0.7))

# %% [markdown]
# ### Not in the paper: MED beside the other progress measures
# The paper compares MED with earlier progress measures only in words. Here, on the first Fig. 5
# run: the squared weight norm, the Gini coefficient of the embedding's Fourier energy (Nanda et
# al.), and Nanda et al.'s restricted loss (only the key-frequency part of the MLP output kept; all
# pairs) and excluded loss (that part removed; training pairs), each scaled to [0, 1]. The key
# frequencies are the five strongest in $W_E$ at each evaluation.

# %%
p0 = min(primes)
figs.measure_comparison(primes[p0], wins[p0])

# %% [markdown]
# ## Fig. 6 — the polygon dataset
# A $2\times2$ grid of quadrants, each blank (weight 0) or a regular polygon with 3…12 sides
# (weight = sides), drawn with spokes; the label is the sum of the four weights; all
# $11^4 = 14\,641$ combinations. Generated offline in the library. The authors' radius clip
# `min(46, cx, cy, 112−cx, 112−cy)` is negative for three quadrants, which draws those polygons
# larger and rotated by 180°; this is reproduced (see the samples).

# %%
ds = ex.dataset_overview(seed=seed)
figs.fig6_dataset(ds["tiles"], ds["sides"], ds["samples"], ds["sample_labels"])

# %%
claims.check("fig6_classes", "Fig. 6", "14 641 images whose labels take 47 distinct values (0 and 3…48)",
             measured=bool(ds["n_images"] == 14_641 and ds["n_classes"] == 47 and ds["max_label"] == 48),
             expected=is_true("14 641 images, 47 labels"))

# %% [markdown]
# ## Fig. 7 — grokking in a ResNet-18
# The paper: ResNet-18, Adam (lr $10^{-3}$, weight decay $10^{-4}$), 25 % of the images for
# training; "training accuracy reaches 1 after approximately 100 epochs, while the test accuracy
# fluctuates between 0.3 and 0.4 for about 2800 epochs before rapidly rising to 1". The authors'
# code starts from ImageNet weights (not mentioned in the paper); no weights can be downloaded
# here, so the library's ResNet-18 is **trained from scratch**. At 224² the transition needs
# thousands of GPU epochs (≈ 17 CPU-days), so the `cpu` profile shows only the memorisation
# phase, with a narrow ResNet-18 on 24² renders of a 2 000-image subset; the full transition is
# the `paper` profile.

# %%
img = ex.image_run(cfg["fig7"], ctx.device)
figs.fig7_resnet(img)

# %%
claims.check("fig7_memorise", "Fig. 7", "the ResNet-18 fits its training set (train accuracy ≥ 0.99)",
             measured=float(img["train_acc"].max()), expected=at_least(0.99))
claims.check("fig7_test_lags", "Fig. 7", "test accuracy lags far behind (gap at the end ≥ 0.3)",
             measured=float(img["train_acc"][-1] - img["test_acc"][-1]), expected=at_least(0.3))
if profile == "paper":
    claims.check("fig7_groks", "Fig. 7", "test accuracy finally rises to ≥ 0.95",
                 measured=float(img["test_acc"][-1]), expected=at_least(0.95))

# %% [markdown]
# ## Table 2 — notation (App. A)

# %% tags=["remove-input"]
display(Markdown(figs.md_table(["notation", "description"], [list(r) for r in ex.NOTATION])))

# %% [markdown]
# ## Fig. 8 — the dynamical-system toy (App. C)
# Gradient flow of $\tfrac12(1-xwu)^2$: $\dot x = (1-xwu)wu$, $\dot w = (1-xwu)xu$,
# $\dot u = (1-xwu)xw$ (eqs. 14–16), with Lyapunov function $V = (x-1)^2 + (w-1)^2 + (u-1)^2$.
# The paper prints $\dot V = (3xwu - wu - xu - xw)(1 - xwu)$; the derivative is twice that
# (same sign, so the argument stands). Trajectories start uniformly in $(0,1]^3$. They converge to
# the *surface* $xwu = 1$, not all to $(1,1,1)$: the flow conserves $x^2 - w^2$ and $x^2 - u^2$.

# %%
ode = ex.ode_run(cfg["fig8"], ctx.device)
figs.fig8_ode(ode)

# %%
dV = np.diff(ode["V"], axis=1)
final = ode["traj"][:, -1]
xwu = final.prod(1)
claims.check("fig8_V_decreasing", "Fig. 8", "V never increases along a trajectory (largest increase between output steps; RK45 at rtol 1e-8)",
             measured=float(dV.max()), expected=at_most(1e-6))
claims.check("fig8_xwu", "Fig. 8", "trajectories reach xwu = 1 (largest |xwu − 1| at the end)",
             measured=float(np.abs(xwu - 1).max()), expected=less_than(1e-3))
display(Markdown(f"Median final distance to (1, 1, 1): **{np.median(np.linalg.norm(final - 1, axis=1)):.3f}**; "
                 f"largest final coordinate **{final.max():.3f}**."))

# %% [markdown]
# ## Figs. 9–11 — embedding dimension
# App. D.1: with the second operand offset by k (tokens $j + k$, label $f(i, j+k)$), a larger
# d_model groks earlier (Fig. 9: "> 20 000 epochs earlier" at p = 97, k = 85 for 256 vs 128;
# "> 10 000 earlier" at p = 47, k = 0 for 256 vs 64); Fig. 10 (p = 43) finds 512 generalises
# better than 128 and 1024 no better than 512; Fig. 11 (p, k unstated) pushes k until small widths
# stop grokking. These runs take up to 200 000 epochs at d_model 2048; the `cpu` profile keeps a
# Fig. 9 (right)-style contrast at p = 47, and Figs. 10–11 run at the `paper` profile.

# %%
widths = ex.width_runs(cfg["widths"], ctx.device)
figs.width_curves(widths)

# %%
rows = [[fig, d, ex.grok_step(h), float(h["test_acc"].max()), float(h["med_sum"].min())] for (fig, d), h in widths.items()]
display(Markdown(figs.md_table(["figure", "d_model", "first test acc ≥ 0.95", "max test acc", "min MED (sum)"], rows)))
for panel in dict.fromkeys(k[0] for k in widths):
    ds_ = sorted(k[1] for k in widths if k[0] == panel)
    t_small, t_big = ex.grok_step(widths[(panel, ds_[0])]), ex.grok_step(widths[(panel, ds_[-1])])
    claims.check(f"widths_{panel.split()[1]}_{ds_[-1]}", panel,
                 f"d_model {ds_[-1]} groks no later than d_model {ds_[0]} (ratio of first epochs with test acc ≥ 0.95)",
                 measured=t_big / t_small if np.isfinite(t_small) else (0.0 if np.isfinite(t_big) else float("nan")),
                 expected=at_most(1.0))

# %% [markdown]
# ## Figs. 12–19 — other functions (App. D.2)
# Loss, accuracy and MED for $x-y$, $x\cdot y$, $x^2+y^2$, $x^3+y^3$, $x^2+xy+y^2$ (three α/width
# settings) and $x^3+xy+y^3$. The paper: MED follows the test loss even where test accuracy stays
# below 1 (Figs. 16–19). At `cpu` the polynomial families run at p = 31, and Figs. 16–18 are Fig. 4's
# runs (α = 0.5, 0.6, 0.7). MED uses the natural token order; for $x\cdot y$ the natural "uniform"
# order would be the discrete-log order.

# %%
ops = ex.operation_runs(cfg["ops"], ctx.device)
figs.metric_rows({f"{fig}: {dict((c[0], c[1]) for c in cfg['ops'].cases)[fig]}": h for fig, h in ops.items()}, "Figs. 12–19")

# %%
rows = []
for fig, op, d, a, p in cfg["ops"].cases:
    h = ops[fig]
    rows.append([fig, op, p, d, a, float(h["test_acc"].max()), ex.grok_step(h), ex.window_r(h, "med"), ex.window_r(h, "wnorm2")])
display(Markdown(figs.md_table(["figure", "f", "p", "d_model", "α", "max test acc", "test acc ≥ 0.95 at",
                                "r(MED, test loss) window", "r(W, test loss) window"], rows)))
# Runs whose r(MED) fell short at this profile when the chapter was written, with the reason
# (the verdict is still computed: if one of them now holds, the build fails and this is revisited).
NO_GROK = ("reduced profile: at p = 31 this run does not generalise (test accuracy ≤ 0.7 after 1 500 epochs); over its "
           "plateau the test loss first climbs (confident errors, e.g. on pairs whose mirror was not trained) and "
           "then falls while MED drifts, so the two do not move together; the weight norm does worse (r < 0)")
OPS_DEVIATIONS = {"cpu": {"Fig. 15": ("no window to correlate on: x³ takes only 11 values mod 31, and test accuracy "
                                      "reaches 0.95 within one evaluation interval of train accuracy 1 (no delay), so "
                                      "the window holds < 3 evaluations and r is undefined"),
                          **{f: NO_GROK for f in ("Fig. 16", "Fig. 17", "Fig. 18", "Fig. 19")}}}.get(profile, {})
for r in rows:
    grokked = np.isfinite(r[6])
    claims.check(f"ops_med_r_{r[0].split()[1]}", r[0],
                 f"{r[1]}: MED correlates with test loss from train acc 1 to "
                 + ("test acc 0.95" if grokked else "the end (test accuracy stays below 0.95)") + " (r > 0.7)",
                 measured=r[7], expected=greater_than(0.7), known_deviation=OPS_DEVIATIONS.get(r[0]))
if "Fig. 12" in ops:
    claims.check("ops_sub_groks", "Fig. 12", "x − y groks (test accuracy ≥ 0.95)",
                 measured=float(ops["Fig. 12"]["test_acc"].max()), expected=at_least(0.95))

# %% [markdown]
# ## Fig. 20 — structured embedding initialisation (App. E)
# Replacing the random $W_E$ by a Toeplitz matrix ($v\sim U[0,1)^{d}$,
# $W_E = \mathrm{toeplitz}(v, v)[:, :d_\text{vocab}]/\sqrt{d}$, the authors' code; the paper says
# "circulant") should make "the number of epochs required for grokking to begin … only half".
# Onset: first epoch with test accuracy ≥ 0.5, per seed; the claim is on the median ratio over
# seeds (the specification's single-seed check found the opposite, a 2× *slowdown*; the
# per-seed ratios below spread widely, so a median over three seeds is a weak test). At `cpu` the
# runs stop once they are half again past their onset. The Toeplitz table needs
# $d_\text{vocab} \le d_\text{model}$, which p = 47 and d_model 64 satisfy.

# %%
struct = ex.structured_runs(cfg["fig20"], ctx.device)
figs.fig20_structured(struct)

# %%
rows, ratios = [], []
for a in cfg["fig20"].fracs:
    for s in cfg["fig20"].seeds:
        if ("random", a, s) not in struct or ("toeplitz", a, s) not in struct:
            continue  # (not computed at this scale)
        tr, tt = ex.grok_step(struct[("random", a, s)], 0.5), ex.grok_step(struct[("toeplitz", a, s)], 0.5)
        rows.append([a, s, tr, tt, tt / tr])
        ratios.append(tt / tr)
display(Markdown(figs.md_table(["α", "seed", "onset, random W_E", "onset, Toeplitz W_E", "ratio"], rows)))
claims.check("fig20_speedup", "Fig. 20", "Toeplitz init halves the epochs to grokking onset (median ratio over seeds ≤ 0.7)",
             measured=float(np.median(ratios)), expected=at_most(0.7))

# %% [markdown]
# ## Performance
# The authors' training loop runs four full forward passes per step (train loss, test loss with an
# autograd graph, two accuracy passes) and logs every epoch. The library trains with one
# forward/backward per step, computes only the last position in the final block (the only one the
# loss reads), and evaluates at log-spaced steps plus a linear grid; the math of a step is the
# same. `benchmarks/progress_measures_step.py` times both at p = 97, d_model 128, one layer, full
# batch, one thread, on the CPU and on a GPU (there also the authors' own `Trainer` from their
# repository, which rebuilds its label lists in Python every epoch):

# %% tags=["remove-input"]
bench, ensemble = ex.benchmark_result()
display(Markdown(bench if isinstance(bench, str) else figs.md_table(list(bench[0]), [list(r.values()) for r in bench])))

# %% [markdown]
# On a GPU one step of this model is a few milliseconds of kernel launches, so several seeds cost
# little more than one when they run as one program (`companion.train.ensemble`: the parameters of K
# models stacked, the forward `vmap`-ed, one AdamW over the stacks, which is exactly K AdamWs):

# %% tags=["remove-input"]
display(Markdown(figs.md_table(list(ensemble[0]), [list(r.values()) for r in ensemble]) if ensemble
                 else "*no GPU measurement on this checkout*"))

# %% [markdown]
# ## Claims

# %%
claims.table()
