"""Tables and notes of the GrokTransfer chapter (Xu et al. 2025): Markdown built from
experiment results and their summaries (:mod:`companion.experiments.groktransfer`); re-exported
by :mod:`companion.figures.groktransfer`. Per-seed values are listed in seed order; an event
that did not happen within the run reads "not observed"."""

from __future__ import annotations

import math

import numpy as np
from IPython.display import Markdown

from companion.events import observed


def _v(x, spec: str = ".0f") -> str:
    """A number, or "not observed" (companion.events.NOT_OBSERVED formats itself so)."""
    return format(x, spec)


def _seq(xs, spec: str = ".0f") -> str:
    return ", ".join(_v(x, spec) for x in xs)


def selection_table(add_weak, add_sels: list, mul_weak, mul_sels: list) -> Markdown:
    """Weak-model selection (Figs. 1b, 6): each target seed's weak seed and checkpoint."""
    rows = ["| task | weak config (init, lr, wd) | weak seed | premise met | checkpoint (epoch) | weak test acc "
            "| weak train acc | weak final test acc |", "|---|---|---|---|---|---|---|---|"]
    for op, c, sels in (("add", add_weak, add_sels), ("mul", mul_weak, mul_sels)):
        for s in sels:
            rows.append(f"| {op} | ({c.hyper.init_scale}, {c.hyper.lr}, {c.hyper.weight_decay}) | {s['member']} | "
                        f"{'yes' if s.get('in_band', True) else 'no'} | {s['epoch']} | {s['test_acc']:.3f} | "
                        f"{s['train_acc']:.3f} | {s.get('final_test_acc', math.nan):.3f} |")
    return Markdown("\n".join(rows))


def grid_table(transfer_choice, scratch_choice, selection_seed: int) -> Markdown:
    """The paper's rule for each arm (A.3.1): every configuration of its grid on the selection seed, the
    first epoch at the criterion test accuracy in its slower initialisation and its mean final test
    accuracy; the chosen one in bold."""
    k = transfer_choice.seeds
    rows = [f"| arm | (init, lr, wd) | first epoch at 90% test (slower of {k}) | mean final test acc | chosen |",
            "|---|---|---|---|---|"]
    for arm, c in (("GrokTransfer", transfer_choice), ("from scratch", scratch_choice)):
        for h, f, a in zip(c.grid, c.first, c.final):
            pick = h == c.chosen
            why = ("**by the rule**" if c.by_rule else "**highest final test (none reached 90%)**") if pick else ""
            rows.append(f"| {arm} | ({h.init_scale:g}, {h.lr:g}, {h.weight_decay:g}) | {_v(f)} | {a:.3f} | {why} |")
    unmet = [i for i, ok in enumerate(transfer_choice.premise) if not ok]
    note = (f"Selection seed: {selection_seed} (its own data split and weak model, apart from the seeds the claims "
            f"read), {k} initialisations per configuration, each grid for its arm's whole budget "
            f"(GrokTransfer {transfer_choice.epochs} epochs, scratch {scratch_choice.epochs})."
            + (f" GrokTransfer's initialisation(s) {', '.join(map(str, unmet))} had a weak model that never reached "
               "its 30% transfer point (the premise): they count as not reaching 90%." if unmet else ""))
    return Markdown("\n".join(rows) + "\n\n" + note)


def _h(h) -> str:
    return f"({h.init_scale:g}, {h.lr:g}, {h.weight_decay:g})"


def _count(xs) -> str:
    """How many of the per-seed events happened: "every seed", "no seed" or "k of n seeds"."""
    k = sum(1 for x in xs if observed(x))
    return "every seed" if k == len(xs) else ("no seed" if k == 0 else f"{k} of {len(xs)} seeds")


def acceleration_note(configs, d, rnd_delays, verdict: str, target_size: str, gt_fit: list, sc_fit: list) -> Markdown:
    """Fig. 1b's comparison in words, from its numbers: each arm's configuration, when each seed reached 90%
    test, the control, each arm's test accuracy when it fitted (``gt_fit``, ``sc_fit``: the experiments'
    ``test_at_fit``) and the verdict of the acceleration claim (``verdict``)."""
    hg, hs = configs.transfer.hypers[0], configs.scratch.hypers[0]
    said = {"held": "**reproduces**", "known-deviation": "**does not reproduce**", "failed": "**does not reproduce**",
            "undecided": "is **undecided** (its seeds fall on both sides)", "vacuous": "is **vacuous** (its control "
            "passes too)"}.get(verdict, verdict)
    return Markdown(
        f"**The acceleration at this size.** Both arms at their grid's choice (GrokTransfer {_h(hg)}, scratch "
        f"{_h(hs)}), {target_size} targets, {d.epochs[0]} epochs each, {len(d.scratch)} seeds. From scratch the "
        f"test accuracy reached 90% in {_count([x.test for x in d.scratch])} (epochs "
        f"{_seq(x.test for x in d.scratch)}; train 90% at {_seq(x.train for x in d.scratch)}); with GrokTransfer, "
        f"from weak models at test {_seq(d.weak_test, '.2f')}, in {_count([x.test for x in d.transfer])} (epochs "
        f"{_seq(x.test for x in d.transfer)}; train 90% at {_seq(x.train for x in d.transfer)}; final test "
        f"{_seq(d.transfer_final, '.3f')}); the random-A control in {_count([x.test for x in rnd_delays])} "
        f"(train 90% at {_seq(x.train for x in rnd_delays)}). So the paper's speed-up (at least 3× sooner) {said} "
        f"here. When each run first fitted 90% of the training set its test accuracy was "
        f"{_seq(gt_fit, '.2f')} with GrokTransfer and {_seq(sc_fit, '.2f')} from scratch (seed "
        "order): how much of the generalisation each arm had made by then, the paper's \"continuous progress\" "
        "against a phase transition. The paper-scale runs decide the speed-up at the paper's own size.")


def delays_note(d) -> Markdown:
    """Paper Figs. 1b, 6: per seed, the epochs at which scratch and GrokTransfer reach 90%."""
    return Markdown(
        f"Per seed (budget {d.epochs[0]} epochs for both arms): from scratch, train 90% at epochs "
        f"{_seq(x.train for x in d.scratch)} and test 90% at {_seq(x.test for x in d.scratch)}; GrokTransfer, "
        f"train 90% at {_seq(x.train for x in d.transfer)} and test 90% at {_seq(x.test for x in d.transfer)}. "
        f"Weak models transferred: test {_seq(d.weak_test, '.3f')}; GrokTransfer targets end at test "
        f"{_seq(d.transfer_final, '.3f')}.")


def embedding_notes(res: dict) -> Markdown:
    """Paper Fig. 2: which embedding each run used, or why it was skipped."""
    return Markdown(" · ".join(f"**{k}**: {r.get('note', r.get('skipped'))}" for k, r in res.items()))


def neurons_note(weak3: dict) -> Markdown:
    """Paper Fig. 4c: the 3-neuron weak net's signal coordinates, noise scale and r_W."""
    f = weak3["features"]
    return Markdown("Neuron signal coordinates (seed 0): " + ", ".join(f"[{a:+.3f}, {b:+.3f}]" for a, b in f["signal"])
                    + f"; mean |noise coordinate| {np.mean(f['noise_mean_abs']):.1e}; $r_W$ = {weak3['r_W']:.4f}.")


def ratio_table(rows: list, slopes, cfg) -> Markdown:
    """Paper Fig. 5b/c: the fitted slopes and every (p, n, ε) cell of the r_W sweep."""
    return Markdown(
        "Fitted slopes on the medians (nets that learned; NaN = fewer than 3 such points): "
        + ", ".join(f"{s} ε=1/{round(1 / e)}: {v:+.2f}" for (s, e), v in slopes.slopes.items()) + ". Per seed, "
        "the slope in n farthest from −1/2: " + _seq(slopes.n_worst_by_seed, "+.2f") + "\n\n"
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
    """Paper Fig. 7: one row per (seed, transferred weak checkpoint)."""
    return Markdown("| seed | weak epoch | weak test | target final test | 1/TimeGap |\n|---|---|---|---|---|\n"
                    + "\n".join(f"| {r.seed} | {r.checkpoint} | {r.weak_test:.3f} | {r.target_final_test:.3f} | "
                                f"{r.inv_gap:.4f} |" for r in sweep.rows)
                    + f"\n\nSpearman ρ over all rows: {sweep.spearman:.2f} (95% bootstrap interval over the rows "
                    f"{sweep.interval[0]:.2f} to {sweep.interval[1]:.2f}). " + _grokked_vs_partial(sweep))


def _grokked_vs_partial(sweep, grokked: float = 0.9) -> str:
    """Fig. 7 in words: the targets from weak checkpoints that had grokked (test ≥ ``grokked``) against those
    from partial ones — the paper's "a grokked weak model is essential"."""
    full = [r for r in sweep.rows if r.weak_test >= grokked]
    part = [r for r in sweep.rows if 0.3 <= r.weak_test < grokked]
    out = []
    if full:
        out.append(f"From the {len(full)} weak checkpoint(s) at test ≥ {grokked:.0%} the targets ended at test "
                   f"{_seq((r.target_final_test for r in full), '.3f')} (1/TimeGap "
                   f"{_seq((r.inv_gap for r in full), '.3f')})")
    if part:
        out.append(f"from the {len(part)} partial one(s) at test 30–{grokked:.0%} "
                   f"({_seq((r.weak_test for r in part), '.2f')}) at "
                   f"{_seq((r.target_final_test for r in part), '.3f')}")
    return ("; ".join(out) + ".") if out else ""


def fig8_note(race, scratch_test_90: list, runs_8b: dict) -> Markdown:
    """Paper Fig. 8: per seed, epochs to 90% test and the weak checkpoints the transformers used."""
    sels = runs_8b["transfer"]["selections"]
    return Markdown(
        f"Test 90% per seed (every arm {race.epochs} epochs): GrokTransfer {_seq(race.transfer)}, GrokFast "
        f"{_seq(race.grokfast)} (GrokFast's final train accuracy {_seq(race.grokfast_train, '.2f')}); scratch "
        f"(8a panel) {_seq(scratch_test_90)}. Weak checkpoints used: "
        + ", ".join(f"epoch {s['epoch']} (test {s['test_acc']:.3f})" for s in sels) + ".")


def table1(cost) -> Markdown:
    """Paper Table 1: CPU seconds of this book's FNN runs (per seed) beside the paper's A100 milliseconds
    of its 8-layer transformers."""
    rows = [("weak FNN, one seed chosen in advance (to its transferred checkpoint)", cost.weak),
            ("target FNN, GrokTransfer (to 95% test)", cost.transfer),
            ("target FNN, from scratch (to 95% test)", cost.scratch)]
    md = ["| model | CPU seconds per seed (this book, FNNs) | paper, ms (A100, 8-layer transformer) |", "|---|---|---|"]
    for (name, t), paper in zip(rows, ("2,828", "71,079", "392,667")):
        md.append(f"| {name} | {_seq(t, '.2f')} | {paper} |")
    md.append(f"| **(weak + GrokTransfer) / scratch** | **{_seq(cost.ratio, '.3f')}** | 0.188 |")
    md.append(f"| weak share of GrokTransfer's total | {_seq(cost.weak_share, '.2f')} | 0.038 |")
    return Markdown("\n".join(md))


def flops_note(fl: dict) -> Markdown:
    """Paper A.4.1: the FLOP estimate recomputed term by term."""
    return Markdown(
        f"A.4.1 recomputed: weak forward {fl['weak_fwd']:,} FLOPs (paper 1436); $N$ = {fl['N']:,} "
        f"(paper 6,291,456), target forward {fl['target_fwd']:.3g}; GrokTransfer total {fl['gt_total']:.3g}, "
        f"scratch {fl['scratch_total']:.3g}, ratio {fl['ratio']:.3f}. The formula uses $d_{{attn}} = 128$ (one head) "
        "although 4 heads × 128 = 512; with 512, $N$ grows 2.3× and the ratio is unchanged.")


def one_step_note(xs) -> Markdown:
    """Paper Fig. 9 / Theorem 3.2: per seed, the target's accuracies after one GD step and at the end."""
    return Markdown(f"Per seed, after 1 step: train {_seq(xs.target_train_1, '.3f')}, test "
                    f"{_seq(xs.target_test_1, '.3f')}; final test {_seq(xs.target_final_test, '.3f')}.")


def two_neuron_note(xs, weak2: dict) -> Markdown:
    """Paper Fig. 11: the two-neuron weak net's features and what the target makes of them."""
    s2 = weak2["features"]["signal"]
    return Markdown("Two-neuron weak model's features (seed 0): " + ", ".join(f"[{a:+.3f}, {b:+.3f}]" for a, b in s2)
                    + f" — cosine {xs.two_neuron_cosine:+.2f}, i.e. **{xs.two_neuron_features}**; target final test "
                    f"{xs.two_neuron_final_test:.3f}. Orthogonal features give the target a 2-D view in which it can "
                    "separate the classes; antipodal ones collapse the data onto one line, as with one neuron (the "
                    "classes then overlap, Fig. 10).")


def parity_transformer_note(pd, runs: list[dict], epochs: int) -> Markdown:
    """Paper Fig. 13 right: per depth, the epochs at which each seed's parity transformer reaches 90%
    train and test accuracy, and where it ended."""
    rows = []
    for L, ds in pd.by_depth.items():
        ends = _seq((r[L]["train_acc"][-1] for r in runs), ".2f"), _seq((r[L]["test_acc"][-1] for r in runs), ".2f")
        rows.append(f"{L}-layer, per seed: train 90% at epochs {_seq(d.train for d in ds)}, test 90% at "
                    f"{_seq(d.test for d in ds)}; final train {ends[0]}, test {ends[1]}")
    return Markdown(" · ".join(rows) + f" (budget {epochs} epochs).")


def digits_note(res: dict, gaps) -> Markdown:
    """Paper Fig. 14: the data source, the transferred weak checkpoint and the train→test gaps."""
    return Markdown(f"Data: {res['source']}. Weak model transferred at epoch {res['selection']['epoch']} "
                    f"(test {res['selection']['test_acc']:.3f}). Epochs from 80% train to 80% test, per seed: "
                    f"GrokTransfer {_seq(gaps.transfer)}, scratch {_seq(gaps.scratch)} (both arms init scale "
                    f"{res.get('init_scale', '—')}, the same budget).")


def ablations_note(random_delays: list, merge: dict, same_dim: dict, p: int) -> Markdown:
    """Paper Fig. 15: the random A·B delays and the merged and same-dimension targets' results; for (c), how many
    weak models got above twice chance (1/p) — below it there is no partial model to transfer."""
    weak = [float(s["test_acc"]) for s in same_dim["selections"]]
    above = sum(w > 2 / p for w in weak)
    return Markdown(f"Random A·B (MLP), per seed: train 90% at epochs {_seq(d.train for d in random_delays)}, test "
                    f"90% at {_seq(d.test for d in random_delays)}. Merged (b): final test "
                    f"{_seq(merge['test_acc'][merge['seed_members'], -1], '.3f')}. Same-dimension weak model (c): "
                    f"weak test {_seq(weak, '.3f')} ({above} of {len(weak)} above twice chance, 2/p = {2 / p:.3f}"
                    f"{': no partial model to transfer' if not above else ''}), target final test "
                    f"{_seq(same_dim['test_acc'][same_dim['seed_members'], -1], '.3f')}.")

