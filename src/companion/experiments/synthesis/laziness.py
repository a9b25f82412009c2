"""Laziness × transfer: GrokTransfer's FNN target, from scratch and with a
transferred embedding, at Kumar et al.'s output scales α.

Kumar et al. set the *laziness* of a network by its output scale: the model trained is α·f, and
α → ∞ is the lazy (kernel) limit (§3, "output rescaling ... can also induce lazy training
(Chizat et al., 2019)"; §5.1: "large α increases the timescale separation between the decrease in
train loss and that of test loss, while small α can eliminate grokking altogether"). Xu et al.
place the delay in the input embedding instead (Thm 3.2: the transferred target learns in "a
feature learning regime", not a kernel regime). Crossing the two — α × {scratch, transfer} — says
which dominates: does a transferred embedding still remove the delay when the target is made lazy?

The α = 1 arms are the chapter's own FNN clock runs (:func:`.experiments.clock_runs`); this module
trains the other α, each arm's seeds as one batch, on the same model, split, evaluation steps and
epoch budget. What changes with α (:class:`ScaledFNN`):

* the logits are α·f (uncentred: the FNN's initial logits are small, and at α ≤ 3 nothing needs
  the centring Kumar et al. App. 8.1 use for very large α; uncentred, α = 1 *is* the clock run);
* the learning rate is η₀/α. Kumar et al. App. 8.1 rescale "η = η₀/α²" to keep "the initial
  derivative d/dt f|_{t=0} independent of α" — under gradient descent, where the step in f is
  ∝ α²η. These targets train by AdamW, whose step in θ does not grow with the gradient, so the
  step in α·f is ∝ αη and the rule that keeps App. 8.1's initial derivative is η₀/α;
* the weight decay is λ₀·α, so that AdamW's decay per step ηλ is the α = 1 arm's (Kumar et al.
  App. 13: weight decay and α compete; holding ηλ keeps α the only change);
* a batch stops at the first evaluation at which every seed's test accuracy has reached the
  clock's 0.9 (the clocks cannot change after it), and otherwise at the α = 1 arm's budget.

Kumar et al.'s own rule, η₀/α² with weight decay λ₀·α² (the same decay per step), is run beside it on the
scratch arm at α = 0.3 and 3 (:data:`KUMAR_GRID`): the cells that decide their two predictions, under the rule
their paper states, whatever AdamW makes of it.

The kernel distance 1 − cos(K_t, K₀) of each seed's pNTK (the probe of the clock runs) is read at
the start and where the seed stops — at its test clock, or at the end of the budget — not at
every evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.events import observed
from companion.experiments.synthesis.configs import Setting
from companion.experiments.synthesis.experiments import diagnostics, setting
from companion.experiments.synthesis.settings import build
from companion.experiments.synthesis.summaries import run_clocks
from companion.models.lazy_rich import OutputScaled
from companion.profiles import select
from companion.settings import one_of
from companion.store.cache import experiment
from companion.train import train_batched

#: Kumar et al.'s output scales crossed with {scratch, transfer}; α = 1 is the chapter's clock run
ALPHAS = (0.3, 1.0, 3.0)
#: the two arms: the scratch target and the transferred one
ARMS = ("fnn_scratch", "fnn_transfer")
#: the (arm, α ≠ 1) cells trained at each profile. One cell costs at most about as much as the α = 1 arm's clock run
#: without its diagnostics (at cpu about 90 s of one core for three seeds over 1200 epochs, when a seed never
#: reaches the clock; a batch whose seeds all reach it stops there), so the cpu build trains the whole grid: the
#: α = 3 column decides Kumar et al.'s central prediction (lazier delays) and both papers' predictions for transfer
#: under laziness, the α = 0.3 column the richer side (Kumar et al.: grokking shortens; Xu et al.: transfer still
#: wins). Smoke, which must stay under a minute, trains the α = 3 column only
GRID = {"paper": tuple((a, al) for a in ARMS for al in ALPHAS if al != 1.0),
        "cpu": tuple((a, al) for a in ARMS for al in ALPHAS if al != 1.0),
        "smoke": (("fnn_scratch", 3.0), ("fnn_transfer", 3.0))}
#: the cells trained again under Kumar et al.'s own rule η₀/α² (App. 8.1): the scratch arm, richer and lazier
KUMAR_GRID = {"paper": (("fnn_scratch", 0.3), ("fnn_scratch", 3.0)),
              "cpu": (("fnn_scratch", 0.3), ("fnn_scratch", 3.0)), "smoke": (("fnn_scratch", 3.0),)}
#: the learning-rate rules for α: "adam" η₀/α with λ₀·α (this chapter's, for AdamW), "kumar" η₀/α² with λ₀·α²
#: (Kumar et al. App. 8.1, stated for gradient descent and used with AdamW in their Fig. 6b); both keep ηλ
LR_RULES = {"adam": 1, "kumar": 2}
#: the clock's accuracy (:data:`.summaries.THRESHOLD`)
CLOCK_ACC = 0.9


@dataclass(frozen=True)
class ScaledFNN:
    """One arm of laziness × transfer at one output scale (module docstring; none of it is in the papers)."""

    target: Setting  # the α = 1 arm at its profile (fnn_scratch or fnn_transfer): model, split, η₀, λ₀, budget
    alpha: float = 3.0  # Kumar et al.'s output scale: the logits are α·f
    lr_rule: str = "adam"  # one of LR_RULES: η₀/α (AdamW's step does not grow with the gradient) or η₀/α²

    def __post_init__(self):
        one_of("laziness × transfer arm", self.target.kind, ARMS)
        one_of("learning-rate rule for α", self.lr_rule, list(LR_RULES))
        if self.alpha <= 0:
            raise ValueError(f"the output scale α must be positive, not {self.alpha}")

    @property
    def train(self):
        """AdamW at η₀/αⁿ with decay λ₀·αⁿ (n = 1, or 2 under Kumar et al.'s rule: ηλ as at α = 1), stopping
        once every seed reaches the clock."""
        t, scale = self.target.train, self.alpha ** LR_RULES[self.lr_rule]
        return replace(t, lr=t.lr / scale, weight_decay=t.weight_decay * scale,
                       stop_after_test_acc=CLOCK_ACC, stop_patience=0.0)


@experiment
def scaled_runs(cfg: ScaledFNN, device: str = "cpu") -> list[dict]:
    """Every seed of ``cfg.target`` trained at output scale ``cfg.alpha`` as one batch
    (:func:`companion.train.train_batched`, the clock runs' evaluation steps): one history per seed,
    each with ``kernel_distance_end``, the kernel distance where the seed stopped."""
    models, datas = build(cfg.target, device)
    kd = [diagnostics(cfg.target, m, d, i)["kernel_distance"] for i, (m, d) in enumerate(zip(models, datas))]
    hists = train_batched([OutputScaled(m, cfg.alpha) for m in models], datas, cfg.train)
    for h, f, m, d in zip(hists, kd, models, datas):  # each module holds its parameters at its last record
        h["kernel_distance_end"] = float(f(m))
        h["n_train"], h["n_test"] = len(d.train_y), len(d.test_y)
    return hists


def laziness_runs(profile: str, device: str, runs: dict, seed: int = 0,
                  lr_rule: str = "adam") -> dict[tuple[str, float], list[dict]]:
    """{(arm, α): histories} over the cells of :data:`GRID` (``lr_rule`` "kumar": :data:`KUMAR_GRID`) at
    ``profile`` and the arms at α = 1 (from ``runs``, the clock runs: at α = 1 both rules are the same run); the
    other cells by :func:`scaled_runs`."""
    grid = select(GRID if lr_rule == "adam" else KUMAR_GRID, profile)
    arms = ARMS if lr_rule == "adam" else tuple(dict.fromkeys(a for a, _ in grid))
    return {(a, al): runs[a] if al == 1.0 else scaled_runs(ScaledFNN(setting(profile, a, seed), al, lr_rule), device)
            for a in arms for al in ALPHAS if al == 1.0 or (a, al) in grid}


def not_run(profile: str) -> list[tuple[str, float]]:
    """The (arm, α) cells of the full grid that :data:`GRID` leaves out at ``profile``."""
    grid = select(GRID, profile)
    return [(a, al) for a in ARMS for al in ALPHAS if al != 1.0 and (a, al) not in grid]


def kernel_distance_at_stop(hist: dict, t_test) -> float:
    """The kernel distance where a seed stops: ``kernel_distance_end`` of a scaled run, or the clock run's
    logged value at its test clock (at the last logged step if the clock is not observed)."""
    if "kernel_distance_end" in hist:
        return float(hist["kernel_distance_end"])
    steps = list(np.asarray(hist["step"]))
    i = steps.index(t_test) if observed(t_test) and t_test in steps else len(steps) - 1
    return float(hist["kernel_distance"][i])


def arm_name(arm: str, alpha: float, lr_rule: str = "adam") -> str:
    """The name of one (arm, α) cell of the grid in the clocks and tables (Kumar et al.'s rule named, off α = 1)."""
    return f"{arm} α={alpha:g}" + (", η₀/α²" if lr_rule == "kumar" and alpha != 1.0 else "")


def laziness_clocks(lruns: dict[tuple[str, float], list[dict]], first_seed: int = 0, lr_rule: str = "adam") -> list:
    """:func:`.summaries.run_clocks` of every seed of every (arm, α) of :func:`laziness_runs`, each named
    by :func:`arm_name`."""
    return [run_clocks(h, arm_name(a, al, lr_rule), first_seed + i)
            for (a, al), hs in lruns.items() for i, h in enumerate(hs)]
