"""Gu et al., "Beyond Progress Measures: Theoretical Insights into the Mechanism of Grokking".

The paper's transformer runs (Table 1, Figs. 2–5, 9–20) are one-layer transformers on
f(i, j) mod p with full-batch AdamW (lr 1e-3, weight decay 1, β = (0.9, 0.98), 10-step warm-up,
30 000 epochs; the hyper-parameters the paper leaves out are the authors' code's), the image run
(Figs. 6–7) a ResNet-18 on the polygon dataset, and the theory a coverage bound (Thm 3.12) and an
ODE (App. C, Fig. 8). Every config's defaults are the paper's; the reduced profiles are the
``replace`` lines of :mod:`.configs`.

Modules: :mod:`.runs` (one transformer run, cached, and batches of them; the commutativity
split), :mod:`.sweeps` (the figure groups of the transformer part, over seeds), :mod:`.seeded`
(the seeds of a run as one batch, onsets on mirror-untrained pairs, the per-seed claim values),
:mod:`.holes` (Table 1's ceilings and Thm 3.10's distance profile per seed),
:mod:`.images` (Figs. 6–7), :mod:`.theory` (Thm 3.12,
Fig. 8), :mod:`.tables` (data-only items), :mod:`.summaries` (what the chapter reads off the
runs), :mod:`.configs` (the profiles).
"""

from __future__ import annotations

from .configs import CONFIGS, PAPER_IMAGES, config, configs, departures_table, paper_setting
from .holes import PLATEAU_GAIN, holes_seeds, near_profile
from .images import ImageRun, dataset_overview, image_run, image_seeded, image_seeds, image_summary
from .runs import (
    COMMUTATIVE,
    PAPER_TRAIN,
    Run,
    batch_signature,
    batch_tasks,
    eval_grid,
    mirror_split,
    modular_run,
    modular_runs,
    setup_run,
)
from .seeded import (
    class_consistency,
    commutativity_seeds,
    depth_seeds,
    downward_steps,
    grokked,
    levelled,
    med_end_over_fit,
    med_levels,
    med_tracking,
    onset,
    onset_on,
    operations_seeds,
    seeded,
    structured_ratios,
    tracking,
    width_ceilings,
    width_ratios,
    window_mask,
)
from .summaries import (
    commutativity_summary,
    coverage_summary,
    depth_summary,
    fluctuation,
    full_r,
    grok_step,
    holes_summary,
    layouts_train_size_ok,
    ode_summary,
    operations_summary,
    primes_summary,
    structured_summary,
    u_l_go,
    widths_summary,
    window,
    window_r,
)
from .sweeps import (
    Commutativity,
    Depth,
    Holes,
    Operations,
    Primes,
    Structured,
    Widths,
    commutativity_runs,
    commutativity_seeded,
    depth_runs,
    depth_seeded,
    first_grokking,
    first_seed,
    hole_runs,
    holes_seeded,
    most_seeded,
    nongrokking_at,
    operation_runs,
    operations_seeded,
    prime_runs,
    primes_seeded,
    structured_runs,
    structured_seeded,
    width_runs,
    widths_seeded,
    without_weight_decay,
)
from .tables import NOTATION, PAPER_TABLE1, benchmark_result, split_layouts
from .theory import ODE, Coverage, coverage_run, ode_run

TITLE = "Beyond Progress Measures"
#: seed offsets of the Fig. 7 image run (the paper shows one run)
IMAGE_SEEDS = (0, 1, 2)

def fig2_runs(cfg: Depth, device: str = "cpu") -> dict:
    """Fig. 2 over seeds and its control without weight decay."""
    return {"depth": depth_seeded(cfg, device), "no decay": without_weight_decay(cfg.base, cfg.seeds, device)}


def fig5_runs(cfg: Primes, device: str = "cpu") -> dict:
    """Fig. 5 over seeds and its control without weight decay at each prime."""
    return {"primes": primes_seeded(cfg, device),
            "no decay": {p: without_weight_decay(cfg.base, cfg.seeds, device, p) for p in cfg.primes}}


def fig7_runs(cfg: ImageRun, device: str = "cpu") -> list[dict]:
    """Fig. 7's image run at each of :data:`IMAGE_SEEDS`."""
    return image_seeded(cfg, IMAGE_SEEDS, device)


RUNNERS = {"fig2": fig2_runs, "table1": holes_seeded, "fig4": commutativity_seeded, "fig5": fig5_runs,
           "widths": widths_seeded, "ops": operations_seeded, "fig20": structured_seeded, "fig7": fig7_runs,
           "fig8": ode_run, "coverage": coverage_run}


def run(name: str, profile: str, device: str = "cpu", seed: int = 0):
    """The cached results of one experiment of the chapter (:func:`config` gives its settings)."""
    return RUNNERS[name](config(name, profile, seed), device)


def run_all(profile: str, device: str = "cpu", seed: int = 0) -> None:
    """Every experiment of the chapter at ``profile`` (``companion run``)."""
    for name in CONFIGS:
        run(name, profile, device, seed)


__all__ = [
    "COMMUTATIVE", "CONFIGS", "PLATEAU_GAIN", "Commutativity", "Coverage", "Depth", "Holes", "IMAGE_SEEDS",
    "ImageRun", "NOTATION",
    "ODE", "Operations", "PAPER_IMAGES", "PAPER_TABLE1", "PAPER_TRAIN", "Primes", "RUNNERS", "Run", "Structured",
    "TITLE",
    "Widths", "batch_signature", "batch_tasks", "benchmark_result", "class_consistency", "commutativity_runs",
    "commutativity_seeded",
    "commutativity_seeds", "commutativity_summary", "config", "configs", "coverage_run", "coverage_summary",
    "dataset_overview", "departures_table", "paper_setting", "fig2_runs", "fig5_runs", "fig7_runs", "depth_runs",
    "depth_seeded", "depth_seeds", "depth_summary",
    "downward_steps", "eval_grid", "first_seed", "fluctuation", "full_r", "grok_step", "hole_runs", "holes_seeded",
    "holes_seeds", "holes_summary", "near_profile", "image_run", "image_seeded", "image_seeds", "image_summary",
    "layouts_train_size_ok", "med_levels", "med_tracking", "mirror_split", "modular_run", "modular_runs", "ode_run",
    "ode_summary", "onset", "onset_on", "operation_runs", "operations_seeded", "operations_seeds", "operations_summary",
    "first_grokking", "grokked", "med_end_over_fit", "most_seeded", "nongrokking_at", "without_weight_decay",
           "prime_runs", "primes_seeded", "primes_summary", "run", "run_all", "seeded", "setup_run", "split_layouts",
    "structured_ratios", "structured_runs", "structured_seeded", "structured_summary", "tracking", "u_l_go",
    "levelled", "width_ceilings", "width_ratios", "width_runs", "widths_seeded", "widths_summary", "window",
    "window_mask", "window_r",
]
