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

from companion import profiles
from companion.claims import Claims, at_least, greater_than, less_than
from companion.experiments import grokking as ex
from companion.figures import grokking as figures

ctx = profiles.setup(profile, device, seed)
claims = Claims("grokking", profile)
cfg = ex.config(profile, seed)

# %% tags=["remove-input"]
Markdown(f"Run with {ctx.describe()}.")

# %% tags=["remove-input"]
profiles.departures_table({"training run": (cfg, ex.PAPER)}, profile)

# %% [markdown]
# ## The task and the model
#
# Each input is the token sequence $[a, b, =]$ with $a, b \in \{0,\dots,p-1\}$; the label is
# $c = (a + b) \bmod p$, read from the logits at the "=" position. The transformer
# (`companion.models.Transformer`) has learned token and position embeddings, one attention
# layer with 4 heads and a ReLU MLP of width 512, no LayerNorm, initialised as in Nanda et
# al.'s code. Training is full batch: every step sees all training pairs.

# %%
hist = ex.training_run(cfg, ctx.device)
marks = ex.milestones(hist)
Markdown(f"{hist['n_train']} training pairs, {hist['n_test']} test pairs, "
         f"{int(hist['step'][-1])} steps of {cfg.train.optimizer} (lr {cfg.train.lr}, weight decay "
         f"{cfg.train.weight_decay}).")

# %% [markdown]
# ## Fig. 1 — train accuracy saturates long before test accuracy
#
# Power et al.'s Fig. 1 (and Nanda et al.'s Fig. 2): accuracy on a logarithmic step axis.
# The dotted lines mark the first evaluated step at which train (blue) and test (red) accuracy
# reach 99%. On the right, the weight norm $\|\theta\|_2$: weight decay shrinks it once the
# training set is fit, and generalisation arrives as it falls.

# %% tags=["remove-input"] mystnb={"figure": {"caption": "Paper Fig. 1 (Power et al. 2022): train and test accuracy and loss of a one-layer transformer on addition mod p, and its weight norm.", "name": "grokking-fig1"}}
fig = figures.training_curves(hist, marks)
fig

# %% tags=["remove-input"]
Markdown(f"Train accuracy reached 99% at step **{marks['t_train']:.0f}**, test accuracy at step "
         f"**{marks['t_test']:.0f}**: a delay of **{marks['delay_ratio']:.1f}×**. Final test accuracy "
         f"**{marks['final_test_acc']:.3f}**; the weight norm at the test milestone is "
         f"**{marks['norm_ratio']:.2f}×** its value at the train milestone.")

# %%
claims.check("delay", "Fig. 1",
             "Train accuracy reaches 99% at least 5× earlier (in steps) than test accuracy does",
             measured=marks["delay_ratio"], expected=at_least(5))
claims.check("generalises", "Fig. 1", "Test accuracy ends above 95%",
             measured=marks["final_test_acc"], expected=greater_than(0.95))
claims.check("norm_falls", "Fig. 1",
             "The weight norm falls between memorisation and generalisation (Nanda et al. §5)",
             measured=marks["norm_ratio"], expected=less_than(1.0))

# %% [markdown]
# ## Claims
#
# Each row is computed from the run above; a verdict is *held* when the measured value meets
# the paper's statement.

# %%
claims.table()
