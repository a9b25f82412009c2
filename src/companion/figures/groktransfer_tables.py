"""Tables and notes of the GrokTransfer chapter (Xu et al. 2025): Markdown built from
experiment results and their summaries (:mod:`companion.experiments.groktransfer`); re-exported
by :mod:`companion.figures.groktransfer`."""

from __future__ import annotations

import math

import numpy as np
from IPython.display import Markdown


def selection_table(add_weak, add_selection: dict, mul_weak, mul_selection: dict) -> Markdown:
    """Weak-model selection (Figs. 1b, 6): the transferred checkpoint of each task's weak model."""
    rows = ["| task | weak config (init, lr, wd) | seeds | selected seed | checkpoint (epoch) | weak test acc "
            "| weak train acc |", "|---|---|---|---|---|---|---|"]
    for op, c, s in (("add", add_weak, add_selection), ("mul", mul_weak, mul_selection)):
        rows.append(f"| {op} | ({c.hyper.init_scale}, {c.hyper.lr}, {c.hyper.weight_decay}) | {c.n_seeds} | "
                    f"{s['member']} | {s['epoch']} | {s['test_acc']:.3f} | {s['train_acc']:.3f} |")
    return Markdown("\n".join(rows))


def delays_note(d) -> Markdown:
    """Paper Fig. 1b: the epochs at which scratch and GrokTransfer reach 90% train and test."""
    return Markdown(f"From scratch: train 90% at epoch {d.scratch.train:.0f}, test 90% at epoch "
                    f"{d.scratch.test:.0f}. GrokTransfer: train 90% at epoch {d.transfer.train:.0f}, test 90% at "
                    f"epoch {d.transfer.test:.0f}.")


def embedding_notes(res: dict) -> Markdown:
    """Paper Fig. 2: which embedding each run used, or why it was skipped."""
    return Markdown(" · ".join(f"**{k}**: {r.get('note', r.get('skipped'))}" for k, r in res.items()))


def neurons_note(weak3: dict) -> Markdown:
    """Paper Fig. 4c: the 3-neuron weak net's signal coordinates, noise scale and r_W."""
    f = weak3["features"]
    return Markdown("Neuron signal coordinates: " + ", ".join(f"[{a:+.3f}, {b:+.3f}]" for a, b in f["signal"]) +
                    f"; mean |noise coordinate| {np.mean(f['noise_mean_abs']):.1e}; $r_W$ = {weak3['r_W']:.4f}.")


def ratio_table(rows: list, slopes, cfg) -> Markdown:
    """Paper Fig. 5b/c: the fitted slopes and every (p, n, ε) cell of the r_W sweep."""
    return Markdown(
        "Fitted slopes (nets that learned; NaN = fewer than 3 such points): "
        + ", ".join(f"{s} ε=1/{round(1 / e)}: {v:+.2f}" for (s, e), v in slopes.slopes.items()) + "\n\n"
        "| sweep | p | n | ε | r_W (median) | r_W·√n/ε | nets learned | best train acc |\n"
        "|---|---|---|---|---|---|---|---|\n"
        + "\n".join(f"| {r['sweep']} | {r['p']} | {r['n']} | 1/{round(1 / r['eps'])} | {r['r_W']:.5f} | "
                    f"{r['r_W'] * math.sqrt(r['n']) / r['eps']:.2f} | {r['learned']}/{cfg.seeds} | "
                    f"{r['train_acc']:.2f} |" for r in rows))


def parity_note(selection: dict) -> Markdown:
    """Paper Fig. 6c: the epoch and test accuracy of the transferred parity weak model."""
    return Markdown(f"Parity weak model: transferred at epoch {selection['epoch']} with test accuracy "
                    f"{selection['test_acc']:.3f}.")


def fig7_table(sweep) -> Markdown:
    """Paper Fig. 7: one row per transferred weak checkpoint."""
    return Markdown("| weak epoch | weak test | target final test | 1/TimeGap |\n|---|---|---|---|\n" + "\n".join(
        f"| {r.checkpoint} | {r.weak_test:.3f} | {r.target_final_test:.3f} | {r.inv_gap:.4f} |" for r in sweep.rows))


def fig8_note(race, scratch_test_90: float, runs_8b: dict, grokfast_epochs: int) -> Markdown:
    """Paper Fig. 8: epochs to 90% test, and the weak checkpoints the transformers used."""
    sel = runs_8b["transfer"]["selection"]
    text = (f"Test 90%: GrokTransfer epoch {race.transfer:.0f}, GrokFast epoch {race.grokfast:.0f} "
            f"(∞ = not within {grokfast_epochs} epochs); scratch (8a panel) epoch {scratch_test_90:.0f}. Weak "
            f"checkpoint used: epoch {sel['epoch']}, test {sel['test_acc']:.3f}")
    if "transfer_30" in runs_8b:
        s30 = runs_8b["transfer_30"]["selection"]
        text += (f"; the 30% checkpoint (epoch {s30['epoch']}, test {s30['test_acc']:.3f}) reached 90% test at epoch "
                 f"{race.transfer_30:.0f}.")
    else:
        text += "."
    return Markdown(text)


def table1(cost) -> Markdown:
    """Paper Table 1: CPU seconds of this book's runs beside the paper's A100 milliseconds."""
    rows = [("weak FNN (to its selected checkpoint)", cost.weak), ("target, GrokTransfer (to 95% test)", cost.transfer),
            ("target, from scratch (to 95% test)", cost.scratch)]
    md = ["| model | CPU seconds (this book) | paper, ms (A100, Fig. 8a setting) |", "|---|---|---|"]
    for (name, t), paper in zip(rows, ("2,828", "71,079", "392,667")):
        md.append(f"| {name} | {t:.2f} | {paper} |")
    md.append(f"| **(weak + GrokTransfer) / scratch** | **{cost.ratio:.3f}** | 0.188 |")
    return Markdown("\n".join(md))


def flops_note(fl: dict) -> Markdown:
    """Paper A.4.1: the FLOP estimate recomputed term by term."""
    return Markdown(
        f"A.4.1 recomputed: weak forward {fl['weak_fwd']:,} FLOPs (paper 1436); $N$ = {fl['N']:,} "
        f"(paper 6,291,456), target forward {fl['target_fwd']:.3g}; GrokTransfer total {fl['gt_total']:.3g}, "
        f"scratch {fl['scratch_total']:.3g}, ratio {fl['ratio']:.3f}. The formula uses $d_{{attn}} = 128$ (one head) "
        "although 4 heads × 128 = 512; with 512, $N$ grows 2.3× and the ratio is unchanged.")


def one_step_note(xs) -> Markdown:
    """Paper Fig. 9 / Theorem 3.2: the target's accuracies after one and three GD steps."""
    return Markdown(f"After 1 step: train {xs.target_train_1:.3f}, test {xs.target_test_1:.3f}; after 3 steps test "
                    f"{xs.target_test_3:.3f}; final test {xs.target_final_test:.3f}.")


def two_neuron_note(xs, weak2: dict) -> Markdown:
    """Paper Fig. 11: the two-neuron weak net's features and what the target makes of them."""
    s2 = weak2["features"]["signal"]
    return Markdown("Two-neuron weak model's features: " + ", ".join(f"[{a:+.3f}, {b:+.3f}]" for a, b in s2)
                    + f" — cosine {xs.two_neuron_cosine:+.2f}, i.e. **{xs.two_neuron_features}**; target final test "
                    f"{xs.two_neuron_final_test:.3f}. Orthogonal features give the target a 2-D view in which it can "
                    "separate the classes; antipodal ones collapse the data onto one line, as with one neuron (the "
                    "classes then overlap, Fig. 10).")


def parity_transformer_note(pd, epochs: int) -> Markdown:
    """Paper Fig. 13 right: the epochs at which each parity transformer reaches 90% train and test."""
    return Markdown(" · ".join(f"{L}-layer: train 90% at epoch {d.train:.0f}, test 90% at {d.test:.0f} (∞ = not within "
                               f"{epochs} epochs)" for L, d in pd.by_depth.items()))


def digits_note(res: dict, gaps) -> Markdown:
    """Paper Fig. 14: the data source, the transferred weak checkpoint and the train→test gaps."""
    return Markdown(f"Data: {res['source']}. Weak model transferred at epoch {res['selection']['epoch']} "
                    f"(test {res['selection']['test_acc']:.3f}). Epochs from 80% train to 80% test: "
                    f"GrokTransfer {gaps.transfer:.0f}, scratch {gaps.scratch:.0f} (∞ = not within the run).")


def ablations_note(random_delays, merge: dict, same_dim: dict) -> Markdown:
    """Paper Fig. 15: the random A·B delays and the merged and same-dimension targets' results."""
    return Markdown(f"Random A·B (MLP): train 90% at epoch {random_delays.train:.0f}, test 90% at "
                    f"{random_delays.test:.0f}. Merged (b): final test {merge['test_acc'][0, -1]:.3f}. Same-dimension "
                    f"weak model (c): selected weak test {same_dim['selection']['test_acc']:.3f}, target final test "
                    f"{same_dim['test_acc'][0, -1]:.3f}.")
