"""Experiments of "Let Me Grok for You" (Xu, Ni, Wang & Hu, ICLR 2025), one module per figure
group: configurations whose defaults are the paper's values (App. A.3; unspecified values are
ours, marked), the reduced profiles as literal ``replace`` of them, the cached experiment
functions the chapter calls, and per-figure summaries.

* :mod:`.common` — the (init, lr, wd) triple, the weak model, weak-checkpoint selection, delays;
* :mod:`.modular` — modular FNNs: Figs. 1b, 6a/b, 7, 12, 15; :mod:`.table1` — Table 1's cost and FLOPs;
* :mod:`.fair_arms` — each arm's (init, lr, wd) by the paper's grid rule (A.3.1) for the Fig. 1b comparison;
* :mod:`.fixed_embeddings` — Figs. 2, 3; :mod:`.xor` — Figs. 4, 5, 9–11;
* :mod:`.parity` — Fig. 6c; :mod:`.transformers` — Figs. 8, 13, 15a, 16; :mod:`.digits` — Fig. 14.

:data:`CONFIGS` and :data:`RUNNERS` name each figure's runs; :func:`run_all` computes them all.
"""

from __future__ import annotations

from dataclasses import replace

from companion import profiles
from companion.data.digits import SKLEARN_DIGITS, digits_source
from companion.data.embeddings import text_embedding_model
from companion.experiments.groktransfer.common import (  # noqa: F401  (the chapter's names)
    Delays,
    Hyperparams,
    Outcomes,
    Split,
    TransferDelays,
    WeakModel,
    delays,
    first_member_delays,
    join_values,
    outcomes,
    premise_met,
    ratios,
    seed_delays,
    seed_finals,
    seeded,
    seeds_count,
    seeds_sooner,
    select,
    select_crossing,
    select_partial,
    select_weak,
    selection_record,
    surpass,
    test90_epochs,
    test_at_fit,
    time_gap,
    transfer_delays,
)
from companion.experiments.groktransfer.digits import DIGITS, Digits, DigitsGaps, digits, digits_gaps  # noqa: F401
from companion.experiments.groktransfer.fair_arms import (  # noqa: F401
    GRIDS,
    MORE_DATA_FRACTION,
    ArmGrids,
    Comparison,
    FairPair,
    GridChoice,
    comparison,
    fair_pair,
    more_data_control,
    random_control,
    seeded_pair,
)
from companion.experiments.groktransfer.fixed_embeddings import (  # noqa: F401
    FIG2,
    FixedEmbeddings,
    FixedEmbeddingSummary,
    FixedRun,
    fig2,
    fixed_embedding_summary,
)
from companion.experiments.groktransfer.modular import (  # noqa: F401
    FIG1B,
    FIG6,
    FIG7,
    FIG15,
    Ablations,
    CheckpointSweep,
    TargetBatch,
    TransferPair,
    checkpoint_sweep,
    fnn_targets,
    transferred_embedding,
    weak_modular,
)
from companion.experiments.groktransfer.parity import PARITY, Parity, parity  # noqa: F401
from companion.experiments.groktransfer.table1 import Cost, cost, flops_a41  # noqa: F401
from companion.experiments.groktransfer.transformers import (  # noqa: F401
    TF_RUNS,
    TFPAR,
    ParityTransformerDelays,
    TransformerParity,
    TransformerRace,
    TransformerRun,
    parity_deviation,
    parity_transformer_delays,
    race_sooner,
    seed_test_epochs,
    test_epoch,
    tf_parity,
    tf_parity_seeds,
    tf_run,
    tf_runs,
    transformer_race,
    transformer_results,
)
from companion.experiments.groktransfer.xor import (  # noqa: F401
    RATIO,
    XOR,
    NormRatioConfig,
    RatioSlopes,
    XORConfig,
    XORSummary,
    loglog_slope,
    ratio_slopes,
    xor_ratio,
    xor_summary,
    xor_weak,
    xor_wide,
)
from companion.profiles import departures_table as table
from companion.profiles import one_of
from companion.train.precision import override


def substitutions() -> dict:
    """What replaces a paper's dataset or pretrained model here (departure rows at every profile)."""
    out = {"Fig. 2 text": [("text embedding", "OpenAI text-embedding-3-small (128-d, an API)",
                            text_embedding_model() or "none: the panel is skipped")]}
    if digits_source() == SKLEARN_DIGITS:
        out["Fig. 14"] = [("dataset", "MNIST", "scikit-learn 8×8 digits")]
    return out


def departures_table(profile: str):
    """:func:`companion.profiles.departures_table` of every experiment of the chapter."""
    grid = " ((init, lr, wd): its grid's choice)" if GRIDS[profile] is not None else ""
    pairs = {f"Fig. 1b GrokTransfer{grid}": (FIG1B["add"][profile].transfer, FIG1B["add"]["paper"].transfer),
             f"Fig. 1b scratch{grid}": (FIG1B["add"][profile].scratch, FIG1B["add"]["paper"].scratch),
             "Fig. 6a GrokTransfer": (FIG6["add"][profile].transfer, FIG6["add"]["paper"].transfer),
             "Fig. 6a scratch": (FIG6["add"][profile].scratch, FIG6["add"]["paper"].scratch),
             "Fig. 6b GrokTransfer": (FIG6["mul"][profile].transfer, FIG6["mul"]["paper"].transfer),
             "Fig. 6b scratch": (FIG6["mul"][profile].scratch, FIG6["mul"]["paper"].scratch),
             "Fig. 7": (FIG7[profile], FIG7["paper"]),
             "Fig. 2/3": (FIG2[profile], FIG2["paper"]), "Fig. 6c parity": (PARITY[profile], PARITY["paper"]),
             "Figs. 4, 9–11 XOR": (XOR[profile], XOR["paper"]), "Fig. 5b/c": (RATIO[profile], RATIO["paper"]),
             "Fig. 13 right": (override("groktransfer.fig13_right", profile, TFPAR[profile]), TFPAR["paper"]),
             "Fig. 14": (DIGITS[profile], DIGITS["paper"])}
    ab, ab_paper = FIG15[profile], FIG15["paper"]
    pairs |= {"Fig. 15a random A·B": (ab.random, ab_paper.random), "Fig. 15b merged": (ab.merge, ab_paper.merge),
              "Fig. 15c same d_embed": (ab.same_dim, ab_paper.same_dim)}
    for op, figs in (("add", {"8a": "8a", "8b": "8b"}), ("mul", {"8a": "13 left", "8b": "16"})):
        for fig, name in figs.items():
            here, paper = tf_runs(profile, op, fig), TF_RUNS[fig][op]["paper"]  # the paper's: float32
            pairs |= {f"Fig. {name} {k}": (here[k], paper.get(k, paper["transfer"])) for k in here}
    return table(pairs, profile, substitutions())


def fig15_results(profile: str, seed: int, device: str) -> dict:
    """Fig. 15's three ablation batches (:data:`FIG15`), by name."""
    return ablation_targets(config("fig15", profile, seed), device)


# --------------------------------------------------------------------------- registry
def fair_comparison(cfg: Comparison, device: str = "cpu") -> FairPair | None:
    """Fig. 1b: :func:`fair_pair` of ``cfg``'s arms and grids."""
    return fair_pair(cfg.pair, cfg.grids, device)


def pair_targets(pairs: tuple, device: str = "cpu") -> list[dict]:
    """Figs. 6a/b: :func:`fnn_targets` of each :class:`TransferPair`'s two arms, by arm."""
    return [{"transfer": fnn_targets(p.transfer, device), "scratch": fnn_targets(p.scratch, device)} for p in pairs]


def ablation_targets(ab: Ablations, device: str = "cpu") -> dict:
    """Fig. 15: :func:`fnn_targets` of each ablation batch, by name."""
    return {"random": fnn_targets(ab.random, device), "merge": fnn_targets(ab.merge, device),
            "same_dim": fnn_targets(ab.same_dim, device)}


def xor_runs(cfg: XORConfig, device: str = "cpu") -> dict:
    """Figs. 4, 9–11: the wide net and the three-neuron weak net."""
    return {"wide": xor_wide(cfg, device), "weak": xor_weak(cfg, device)}


def tf_roles(runs: dict, device: str = "cpu") -> dict:
    """Figs. 8, 13 left, 16: :func:`tf_run` of every run, by role (as :func:`transformer_results`)."""
    return {k: tf_run(c, device) for k, c in runs.items()}


#: each figure's runs by profile. At the reduced profiles Fig. 1b's pairs serve Fig. 6 (FIG6 is FIG1B there): Fig. 6a's
#: pair is the Fig. 1b comparison's and Fig. 1b's multiplication pair is Fig. 6b's: neither has runs of its own.
#: Fig. 6b's controls: its GrokTransfer arm with A drawn at random (:func:`random_control`), as Fig. 1b's is, and its
#: scratch arm on half the pairs (:func:`more_data_control`).
#: The order is the order a cold build's workers take them in (no time estimate yet): Fig. 15 comes right after the
#: comparison because its random A·B batch *is* the comparison's control at the reduced profiles (one cache entry),
#: which a second worker then computes while the first trains the grids, instead of waiting on its lock (≈ 17 s)
_NONE = {"cpu": (), "smoke": ()}
CONFIGS = {"fig1b": {p: Comparison(FIG1B["add"][p], GRIDS[p]) for p in FIG1B["add"]}, "fig15": FIG15,
           "fig6a": {"paper": (FIG6["add"]["paper"],), **_NONE},
           "fig1b_mul": {"paper": (FIG1B["mul"]["paper"],), **_NONE},
           "fig6b": {p: (pair,) for p, pair in FIG6["mul"].items()},
           "fig6b_control": {p: random_control(pair) for p, pair in FIG6["mul"].items()},
           "fig6b_more_data": {p: more_data_control(pair) for p, pair in FIG6["mul"].items()},
           "fig7": FIG7, "fig2": FIG2, "fig4": XOR, "fig5": RATIO, "fig6c": PARITY,
           "fig8a": TF_RUNS["8a"]["add"], "fig8b": TF_RUNS["8b"]["add"], "fig13_left": TF_RUNS["8a"]["mul"],
           "fig16": TF_RUNS["8b"]["mul"], "fig13_right": TFPAR, "fig14": DIGITS}
RUNNERS = {"fig1b": fair_comparison, "fig15": ablation_targets, "fig6a": pair_targets, "fig1b_mul": pair_targets,
           "fig6b": pair_targets, "fig6b_control": fnn_targets, "fig6b_more_data": fnn_targets,
           "fig7": fnn_targets, "fig2": fig2, "fig4": xor_runs, "fig5": xor_ratio,
           "fig6c": parity, "fig8a": tf_roles, "fig8b": tf_roles, "fig13_left": tf_roles, "fig16": tf_roles,
           "fig13_right": tf_parity_seeds, "fig14": digits}


def _reseed(cfg, seed: int):
    """The chapter's seed: :func:`seeded` on every run in ``cfg`` (a weak model's seed too); a grid
    comparison's ``selection_seed`` stays (it is part of the setting)."""
    if isinstance(cfg, Comparison):
        return replace(cfg, pair=seeded_pair(cfg.pair, seed))
    if isinstance(cfg, TransferPair):
        return seeded_pair(cfg, seed)
    if isinstance(cfg, Ablations):
        return Ablations(seeded(cfg.random, seed), seeded(cfg.merge, seed), seeded(cfg.same_dim, seed))
    if isinstance(cfg, tuple):
        return tuple(_reseed(c, seed) for c in cfg)
    if isinstance(cfg, dict):
        return {k: _reseed(c, seed) for k, c in cfg.items()}
    return seeded(cfg, seed)


def config(name: str, profile: str, seed: int = 0):
    """The config of one figure's experiment at ``profile``, with the chapter's seed, in the precision
    ``COMPANION_PRECISION`` asks for where it may (:func:`companion.train.precision.override`)."""
    one_of("experiment", name, list(CONFIGS))
    return _reseed(override(f"groktransfer.{name}", profile, profiles.select(CONFIGS[name], profile)), seed)


def run(name: str, profile: str, device: str = "cpu", seed: int = 0):
    """The cached results of one figure's experiment."""
    return RUNNERS[name](config(name, profile, seed), device)


def run_all(profile: str = "cpu", device: str = "cpu", seed: int = 0) -> None:
    """Compute every experiment the chapter shows (fills the cache)."""
    for name in CONFIGS:
        run(name, profile, device, seed)
