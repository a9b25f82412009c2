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
# # Grokking: memorise first, generalise much later
#
# Every paper in this book starts from one observation. Power et al. (2022, *Grokking:
# generalization beyond overfitting on small algorithmic datasets*) trained a small transformer
# on part of the table of $a + b \bmod p$. The network fits its training pairs early, while its
# accuracy on the held-out pairs stays at chance; then, long after the training loss has
# flattened, test accuracy climbs to 100%. Nanda et al. (2023, *Progress measures for grokking
# via mechanistic interpretability*, §3) made the setting canonical — a one-layer transformer,
# $p = 113$, 30% of the $p^2$ pairs for training, full-batch AdamW with weight decay 1 — and
# showed that the total weight norm falls while the generalising circuit forms.
#
# This chapter reproduces that curve with the book's shared library: the same dataset, model
# and training loop that the later chapters use.

# %% tags=["parameters"]
profile = "cpu"  # smoke | cpu | paper
device = "auto"  # auto | cpu | cuda
seed = 0

# %% tags=["remove-cell"]
from IPython.display import Markdown

from companion import profiles, runs
from companion.claims import Claims, at_least, at_most, greater_than, less_than
from companion.experiments import grokking as ex
from companion.figures import grokking as figures

ctx = profiles.setup(profile, device, seed)
ctx = runs.precompute("grokking", ctx)  # its experiments first, one process per core where cores allow
claims = Claims("grokking", profile)
cfg = ex.config(profile, seed)

# %% tags=["remove-input"]
Markdown(f"Run with {ctx.describe()}.")

# %% tags=["remove-input"]
profiles.departures_table({"training run": (cfg, ex.PAPER)}, profile)

# %% [markdown]
# Every claim below is measured on three seeds (each seed draws its own training pairs and
# initialisation) and holds only if it holds for every seed; the figure shows the first seed,
# and the other two train together as one batched program.
#
# ## The task and the model
#
# Each input is the token sequence $[a, b, =]$ with $a, b \in \{0,\dots,p-1\}$; the label is
# $c = (a + b) \bmod p$, read from the logits at the "=" position. The transformer
# (`companion.models.transformer.Transformer`) has learned token and position embeddings, one attention
# layer with 4 heads and a ReLU MLP of width 512, no LayerNorm, initialised as in Nanda et
# al.'s code. Training is full batch: every step sees all training pairs.

# %%
hist = ex.training_run(cfg, ctx.device)  # the first seed; the claims below add two more
Markdown(f"{hist['n_train']} training pairs, {hist['n_test']} test pairs, "
         f"{int(hist['step'][-1])} steps of {cfg.train.optimizer} (lr {cfg.train.lr}, weight decay "
         f"{cfg.train.weight_decay}), seed {cfg.seed}.")

# %% [markdown]
# ## Fig. 1 — train accuracy saturates long before test accuracy
#
# Power et al.'s Fig. 1 (and Nanda et al.'s Fig. 2): accuracy on a logarithmic step axis.
# The dotted lines mark the first evaluated step at which train (blue) and test (red) accuracy
# reach 99%. On the right, the weight norm $\|\theta\|_2$: weight decay shrinks it once the
# training set is fit, and generalisation arrives as it falls.

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 1 (Power et al. 2022): train and test accuracy and loss of a one-layer transformer on addition mod p, and its weight norm.", "name": "grokking-fig1"}}
m = ex.milestones(hist)
fig = figures.training_curves(hist, m)
fig

# %% tags=["remove-input"]
Markdown(f"Seed {cfg.seed}: train accuracy reached 99% at step **{m.t_train:.0f}**, test accuracy at step "
         f"**{m.t_test:.0f}**: a delay of **{m.delay_ratio:.1f}×**. Test accuracy when the training "
         f"set was fit: **{m.test_acc_at_fit:.3f}** (chance: {1 / cfg.p:.3f}); final test accuracy "
         f"**{m.final_test_acc:.3f}**; the weight norm at the test milestone is "
         f"**{m.norm_ratio:.2f}×** its value at the train milestone.")

# %%
hists = ex.training_runs(ex.seed_configs(cfg), ctx.device)  # the seed above is cached: the others train as a batch
seeds = ex.per_seed(hists)  # each milestone as a list over the seeds
POWER = ("we show that neural networks learn through a process of “grokking” a pattern in the data, "
         "improving generalization performance from random chance level to perfect generalization, and "
         "that this improvement in generalization can happen well past the point of overfitting "
         "(Power et al. 2022, abstract)")
claims.claim("delay", ref="Fig. 1", quantity="t_test / t_train (steps to 99% test vs train accuracy)",
             per_seed=seeds.delay_ratio, expected=at_least(5), quote=POWER,
             basis="“well past the point of overfitting” read as at least 5× the steps it took to fit; Power et "
                   "al.'s Fig. 1 shows about two orders of magnitude, and a run whose test accuracy never "
                   "reaches 99% has no delay (not observed), so it fails")
claims.claim("near_chance_at_fit", ref="Fig. 1",
             quantity="test accuracy at t_train (when train accuracy first reaches 99%)",
             per_seed=seeds.test_acc_at_fit, expected=at_most(3 / cfg.p), quote=POWER,
             basis=f"chance is 1/p = {1 / cfg.p:.3f}; 3/p allows a few times chance and excludes any real "
                   f"generalisation at the moment the training set is fit",
             known_deviation=ex.known_deviation("near_chance_at_fit", profile, cfg))
claims.claim("generalises", ref="Fig. 1", quantity="final test accuracy",
             per_seed=seeds.final_test_acc, expected=greater_than(0.95), quote=POWER,
             basis="“perfect generalization”, with 5% slack for the few test pairs a finite run leaves wrong")
claims.claim("norm_falls", ref="Fig. 1", quantity="weight norm at t_test / weight norm at t_train",
             per_seed=seeds.norm_ratio, expected=less_than(1.0),
             quote="Previous explanations of grokking rely on weight norm decreases at late time (Kumar et "
                   "al. 2024, §1, on Liu et al. 2022 and Varma et al. 2023; with weight decay 1, as here)",
             basis="a decrease is any ratio below 1")

# %% [markdown]
# ## Claims
#
# Each row is computed from the three runs above; a verdict is *held* when every seed's
# value meets the bound, and the list under the table gives the paper's words each claim
# tests and where its bound comes from.

# %%
claims.table()
