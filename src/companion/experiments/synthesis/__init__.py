"""Synthesis: the four papers' explanations of grokking, each tested on every paper's runs.

* :mod:`.configs` — the settings (one per paper's model family) and their profiles;
* :mod:`.settings` — each setting's modules and data, one module per seed;
* :mod:`.experiments` — the cached runs, with every diagnostic recorded at the same steps;
* :mod:`.predictions` — what each explanation predicts, fixed before any run;
* :mod:`.interventions` — transfer against laziness (kernel regression with a target's K₀);
* :mod:`.record_interventions` — the three interventions (threshold sweep, linearised network, uniform init);
* :mod:`.laziness` — laziness × transfer: GrokTransfer's FNN at Kumar et al.'s output scales α;
* :mod:`.critical` — the critical training fraction across p (Gu et al. Thm 3.12 against Levi et al.'s λ*);
* :mod:`.summaries` — the four clocks, Levi et al.'s forecast ratio, the pooled criteria.
"""

from __future__ import annotations

from companion.experiments.linear_estimators import networks
from companion.experiments.synthesis.configs import (  # noqa: F401  (the chapter's names)
    ALL_SETTINGS,
    CLOCK_SETTINGS,
    INTERVENTIONS,
    NOT_STATED,
    PAPER,
    PAPER_OF,
    PROFILES,
    REMOVES_GROKKING,
    UNIFORM_SETTINGS,
    WD_SETTINGS,
    Diagnostics,
    Setting,
)
from companion.experiments.synthesis.critical import (  # noqa: F401
    CRITICAL_PROFILES,
    CriticalFraction,
    critical_config,
    critical_runs,
    summarise,
)
from companion.experiments.synthesis.experiments import (  # noqa: F401
    DIAGNOSTICS,
    all_clock_runs,
    clock_runs,
    diagnostics,
    setting,
)
from companion.experiments.synthesis.interventions import LAZY_TARGETS, LazyFit, lazy_fit, lazy_fits  # noqa: F401
from companion.experiments.synthesis.laziness import (  # noqa: F401
    ALPHAS,
    ARMS,
    GRID,
    ScaledFNN,
    laziness_clocks,
    laziness_runs,
    scaled_runs,
)
from companion.experiments.synthesis.predictions import (  # noqa: F401
    BAND,
    CRITERIA,
    CRITICAL,
    EXPLAINS,
    FOURIER,
    LAZINESS,
    LAZY,
    LINEARISED,
    PREDICTIONS,
    THRESHOLD_SWEEP,
    WEIGHT_DECAY,
)
from companion.experiments.synthesis.record_interventions import (  # noqa: F401
    record_fourier,
    record_linearised,
    record_threshold,
)
from companion.experiments.synthesis.summaries import (  # noqa: F401
    CLOCK_DIAGNOSTICS,
    FRACTIONS,
    THRESHOLD,
    Criteria,
    RunClocks,
    all_clocks,
    clocks_table,
    criteria,
    figure_points,
    has,
    norm_ratio,
    paired_ratio,
    per_seed,
    run_clocks,
    transfer_ratio,
    uniformity,
)
from companion.experiments.synthesis.tables import (  # noqa: F401
    control_summary,
    criteria_table,
    critical_table,
    departure_pairs,
    findings,
    interventions_table,
    laziness_note,
    laziness_table,
    lazy_summary,
    predictions_table,
    profile_settings,
    rescoring_table,
    settings_table,
    uniformity_summary,
    weight_decay_table,
)

TITLE = "Synthesis: four explanations, every paper's runs"
#: no paper item of its own: its claims are hypotheses (kind "hypothesis"), reported apart
PAPER_ITEMS: tuple = ()


def run_all(profile: str, device: str, seed: int = 0) -> None:
    all_clock_runs(profile, device, ALL_SETTINGS, seed)
    lazy_fits(profile, device, seed)
    laziness_runs(profile, device, all_clock_runs(profile, device, ARMS, seed), seed)
    laziness_runs(profile, device, all_clock_runs(profile, device, ARMS, seed), seed, lr_rule="kumar")
    for trainer, c in critical_config(profile, seed).runs:  # what critical_runs reads (it reads their results)
        getattr(networks, trainer)(c, device)
