"""Tables and plots of the progress_measures chapter's per-seed results (Gu et al.): the
commutativity split of every commutative run, MED against the baselines (W, Fourier Gini), Fig. 2's fluctuation,
Table 1 over seeds and Thm 3.10's distance profile, Fig. 20's onsets, the chapter's closing paragraph. Results
in, Markdown table or Figure out; the numbers come from :mod:`companion.experiments.progress_measures.seeded`
and :mod:`~companion.experiments.progress_measures.holes`."""

from __future__ import annotations

import numpy as np
from IPython.display import Markdown

from companion.events import first_crossing, observed
from companion.plotting import paper_title, subplots, sweep_colors

from .progress_measures import md_table


def _seeds(values) -> str:
    """One value per seed, as text."""
    return " / ".join(f"{v:.3g}" if isinstance(v, float) and observed(v) else str(v) for v in values)


def mirror_table(runs: dict, label: str = "run"):
    """The commutativity split of each run, per seed: the share of test pairs whose mirror (j, i)
    was trained, best test accuracy on all, mirror-trained and mirror-untrained pairs, and the
    onset (first epoch with mirror-untrained accuracy ≥ 0.95)."""
    rows = []
    for key, hs in runs.items():
        if "acc_mirror_out" not in hs[0]:
            continue
        rows.append((str(key), _seeds([h["mirror_in_share"] for h in hs]),
                     _seeds([float(h["test_acc"].max()) for h in hs]),
                     _seeds([float(np.nanmax(h["acc_mirror_in"])) for h in hs]),
                     _seeds([float(np.nanmax(h["acc_mirror_out"])) for h in hs]),
                     _seeds([first_crossing(h["step"], h["acc_mirror_out"], 0.95) for h in hs])))
    return Markdown(md_table([label, "share mirror-trained", "max test acc", "max acc mirror-trained",
                              "max acc mirror-untrained", "onset (untrained ≥ 0.95)"], rows))


MEASURES_SHOWN = ("med", "wnorm2", "gini")  # always; the class spread only where the runs log it


def med_table(t: dict):
    """Fig. 5's thesis test: each measure's tracking of the test loss (Pearson r; −r for the Gini),
    per seed, in the window (memorisation to onset) and over the whole run; MED's level."""
    names = {"med": "MED", "wnorm2": "W(θ) = Σ‖θ‖²", "gini": "Fourier Gini of W_E (−r)",
             "class_spread": "class spread of the pair's representation (Thm 3.5)"}
    rows = [(names[k], _seeds(t[f"{k}_window"]), _seeds(t[f"{k}_full"])) for k in names
            if k in MEASURES_SHOWN or not all(np.isnan(t[f"{k}_full"]))]
    rows += [("MED − best baseline", _seeds(t["margin_window"]), _seeds(t["margin_full"])),
             ("MED end / start", "", _seeds(t["end_over_start"])),
             ("share of MED's memorisation rise given back", "", _seeds(t["recovered"])),
             ("evaluations in the window", _seeds(t["window_points"]), "")]
    return Markdown(md_table(["measure", "r with test loss, window", "r with test loss, whole run"], rows))


def depth_seeds_table(d: dict):
    """Fig. 2 per seed: the sum of downward steps of test accuracy after it first reaches 0.9."""
    rows = [(f"{L} layer(s)", _seeds(v)) for L, v in d["downward"].items()]
    rows += [(f"{d['hi']} minus {d['lo']} layer(s)", _seeds(d["excess"])),
             (f"MED at the end / at memorisation, {d['hi']} layers", _seeds(d["med_end_over_fit"]))]
    return Markdown(md_table(["", "per seed"], rows))


def holes_seeds_table(t: dict, paper: dict):
    """Table 1 over seeds: mirror shares, U-Acc on all and mirror-untrained pairs, final accuracy,
    the last quarter's trend gain and its standard error (a run still rising has not converged), and the
    paper's U-Acc."""
    rows = []
    for k in t["u"]:
        share, hole_share = t["share"][k]
        ref = paper.get(k, ("", "", ""))[0]
        rows.append((f"{k[0]} {k[1]}", f"{share:.2f}", f"{hole_share:.2f}", _seeds(t["u"][k]),
                     _seeds(t["u_out"].get(k, [])), _seeds(t["final"][k]),
                     ", ".join(f"{g:.3f} ± {e:.3f}" for g, e in t["trend"][k]), ref))
    header = ["hole", "test pairs mirror-trained", "hole pairs mirror-trained", "U-Acc", "U-Acc mirror-untrained",
              "final acc", "trend gain over last quarter ± s.e.", "paper U-Acc % (p = 97)"]
    return Markdown(md_table(header, rows))


def structured_seeds_table(r: dict):
    """Fig. 20 per seed: onsets with random and Toeplitz W_E and their ratio."""
    rows = [(i, _seeds([a]), _seeds([b]), _seeds([c]))
            for i, (a, b, c) in enumerate(zip(r["random"], r["toeplitz"], r["ratio"]))]
    return Markdown(md_table(["seed", "onset random", "onset Toeplitz", "Toeplitz / random"], rows))


def operations_seeds_table(t: dict):
    """Figs. 12–19 per seed: MED's and W's tracking of the test loss, the onset (accuracy 0.95 on the
    pairs of "read on": mirror-untrained where f is commutative), final and best test accuracy on all
    pairs, best accuracy on the pairs the onset reads."""
    rows = [(fig, c["op"], c["p"], c["alpha"], _seeds(c["med_window"]), _seeds(c["wnorm2_window"]),
             _seeds(c["med_full"]), _seeds(c["onset"]), c["onset_on"], _seeds(c["final"]), _seeds(c["best"]),
             _seeds(c["untrained_best"])) for fig, c in t.items()]
    return Markdown(md_table(["figure", "f", "p", "α", "r(MED) window", "r(W) window", "r(MED) whole run",
                              "onset: acc ≥ 0.95 on", "read on", "final test acc (all pairs)",
                              "best test acc (all pairs)", "best acc on the pairs read"], rows))


def image_seeds_table(t: dict):
    """Fig. 7 per seed."""
    rows = [(k, _seeds(v)) for k, v in (("best train acc", t["best_train"]),
                                        ("median test acc, second half", t["plateau"]),
                                        ("final test acc", t["final_test"]), ("largest-class rate", t["chance"]),
                                        ("best test acc", t["best_test"]),
                                        ("jump (first epoch with test acc ≥ 0.95)", t["jump"]))]
    return Markdown(md_table(["", "per seed"], rows))


def class_spread_table(c: dict, controls: dict | None = None):
    """Thm 3.5 per seed: the class spread of the pair's representation at memorisation and at the
    end, and its rank correlation with test accuracy from memorisation to the end; the same spread
    before the MLP; and, for each of ``controls`` ({label: :func:`class_consistency` dict}, e.g. a
    run that does not generalise), its end and rank correlation."""
    rows = [("class spread at memorisation (train acc 0.99)", _seeds(c["at_fit"])),
            ("class spread at the end", _seeds(c["end"])),
            ("end / memorisation", _seeds(c["end_over_fit"])),
            ("rank correlation with test accuracy, memorisation to end", _seeds(c["rho_acc"])),
            ("before the MLP: class spread at the end", _seeds(c["attn_end"])),
            ("before the MLP: rank correlation with test accuracy", _seeds(c["attn_rho_acc"]))]
    for label, x in (controls or {}).items():
        rows += [(f"{label}: class spread at the end", _seeds(x["end"])),
                 (f"{label}: rank correlation with test accuracy", _seeds(x["rho_acc"]))]
    return Markdown(md_table(["Thm 3.5, all p² pairs", "per seed"], rows))


def fmt(xs) -> str:
    """Per-seed values for prose, in seed order, to 3 significant digits ("not observed" for an event that did
    not happen)."""
    return ", ".join(format(x, ".3g") for x in xs)


def ceiling_deviation(w: dict, epochs: int) -> str:
    """Fig. 10 at the reduced profiles: how many runs of each width levelled off (``w``,
    :func:`~companion.experiments.progress_measures.width_ceilings`) and their best mirror-untrained accuracies."""
    lo, hi = w["narrow"], w["wide"]
    return (f"reduced profile, not observed: in {epochs} epochs {sum(w['levelled'][lo])} of {len(w['gain'])} "
            f"d_model {lo} runs and {sum(w['levelled'][hi])} d_model {hi} runs levelled off (best mirror-untrained "
            f"{fmt(w['best'][lo])} and {fmt(w['best'][hi])} per seed, still rising where not levelled), so no seed "
            "has both ceilings")


def thm35_control_note(w: dict, spread_lo: dict, spread_hi: dict) -> Markdown:
    """Thm 3.5's control (Fig. 10's runs): which width generalised in each seed, both widths' final class
    spread and the contrast the claim reads."""
    lo, hi = w["narrow"], w["wide"]

    def yes_no(flags):
        return ", ".join("yes" if g else "no" for g in flags)

    return Markdown(
        f"**Thm 3.5's control.** Both widths fit every training pair; which of them generalised (onset, "
        f"mirror-untrained accuracy ≥ 0.95) differs by seed: d_model {lo} {yes_no(w['grokked'][lo])}, d_model {hi} "
        f"{yes_no(w['grokked'][hi])} (seed order). The class spread ends at {fmt(spread_lo['end'])} (d_model {lo}) "
        f"and {fmt(spread_hi['end'])} (d_model {hi}); where exactly one width generalised, the other's spread minus "
        f"its own is {fmt(w['spread_gap'])} (the claim). The rank correlation with test accuracy that "
        f"`thm35_spread_shrinks` tests is {fmt(spread_lo['rho_acc'])} in the d_model {lo} runs too, generalising or "
        "not (test accuracy rises on mirrored pairs alone), so that claim cannot tell the two apart: the level of "
        "the spread carries the theorem's content, its correlation does not.")


def thm310_near(t: dict):
    """Thm 3.10: accuracy on the mirror-untrained test pairs against the torus Manhattan distance to the
    nearest training pair of their class, per hole (mean over seeds, each seed a dot), at the epoch of the
    run's best mirror-untrained accuracy (solid) and at memorisation (dashed: the same run before it
    generalises)."""
    fig, axes = subplots(1, 2, width=4.4)
    names = list(next(iter(t["near"].values()))[0])  # the distance bins, the same in every run
    x = np.arange(len(names))
    for ax, shape in zip(axes[0], ("square", "strip")):
        keys = [k for k in t["near"] if k[0] == shape]
        for c, key in zip(sweep_colors(len(keys)), keys):
            per_seed = np.array([[prof[n] for n in names] for prof in t["near"][key]])
            fit = np.array([[prof[n] for n in names] for prof in t["near_fit"][key]])
            ax.plot(x, np.nanmean(per_seed, 0), color=c, marker="o", label=f"{shape} {key[1]}: best epoch")
            ax.plot(x, np.nanmean(fit, 0), color=c, ls="--", label=f"{shape} {key[1]}: memorisation")
            for row in per_seed:
                ax.plot(x, row, color=c, ls="none", marker=".", alpha=0.5)
        ax.set_xticks(x, names)
        ax.set(xlabel="distance to the nearest same-class training pair", ylabel="accuracy (mirror-untrained pairs)",
               ylim=(-0.02, 1.02))
        ax.legend(fontsize="x-small")
        paper_title(ax, "Thm 3.10", f"{shape} holes")
    return fig


def thm310_table(t: dict):
    """Thm 3.10 per hole: the number of mirror-untrained test pairs in each distance bin and their accuracy per
    seed at the best epoch and at memorisation."""
    rows = []
    for key, profs in t["near"].items():
        for name, n in t["near_counts"][key].items():
            rows.append((f"{key[0]} {key[1]}", name, n, _seeds([p[name] for p in profs]),
                         _seeds([p[name] for p in t["near_fit"][key]])))
    return Markdown(md_table(["hole", "distance", "pairs (first seed)", "accuracy at the best epoch",
                              "accuracy at memorisation"], rows))


def filled_holes_note(filled: dict, level: float = 0.9) -> str:
    """Thm 3.10 in words: per hole, the seeds whose mirror-untrained pairs at distance ≥ 10 from a same-class
    training pair are answered at ``level`` or better (the hole filled in to its farthest pairs)."""
    parts = [f"{k[0]} {k[1]}: {sum(a >= level for a in accs)} of {len(accs)} (accuracy {_seeds(accs)})"
             for k, accs in filled.items()]
    return ("Holes whose farthest pairs (distance ≥ 10) are answered at accuracy ≥ "
            f"{level} — filled in although no training pair of their class lies within 9 — per hole: "
            + "; ".join(parts) + ".")


def chapter_summary(onsets: list | None, med_g: dict | None, med_c: dict | None, n_control: int,
                    holes_x: dict | None, comm_x: dict | None) -> Markdown:
    """The chapter's closing paragraph, formatted from its runs (a part whose runs are not on the page is left
    out): how many Fig. 5 seeds grok; MED's window r in them against the runs that never grok and against W(θ);
    Table 1's fall and Thm 3.10's near-minus-far on mirror-untrained pairs; the share of Fig. 4's correct answers
    a trained mirror explains."""
    parts = []
    if onsets:
        n = sum(map(observed, onsets))
        parts.append(f"At this profile {n} of {len(onsets)} seeds of Fig. 5 grok (onsets {_seeds(onsets)}).")
    if med_g:
        ctl = (f"; the {n_control} run(s) at the same p that never grok give {_seeds(med_c['med_window'])}"
               if med_c else "")
        parts.append(f"In the seeds that grok MED's r with the test loss from memorisation to onset is "
                     f"{_seeds(med_g['med_window'])}{ctl}; W(θ) gives {_seeds(med_g['wnorm2_window'])} and the Fourier "
                     f"Gini's −r {_seeds(med_g['gini_window'])}, and over the whole run MED's r is "
                     f"{_seeds(med_g['med_full'])}.")
    if holes_x and "square" in holes_x["falls"]:
        sq = holes_x["falls"]["square"]
        parts.append(f"On the pairs symmetry cannot answer, U-Acc from square k = {sq[0]} to k = {sq[1]} changes by "
                     f"{_seeds([-v for v in sq[2]])} per seed whose largest square has levelled off (the paper: "
                     "−0.417 between the squares these scale).")
    if holes_x and holes_x.get("near_minus_far"):
        parts.append(f"Thm 3.10: the accuracy of those pairs at distance 2 from a same-class training pair minus at "
                     f"≥ 10 is {_seeds(holes_x['near_minus_far'])} at the best epoch, "
                     f"{_seeds(holes_x['near_minus_far_fit'])} at memorisation.")
    if comm_x and comm_x.get("explained"):
        parts.append(f"Fig. 4: a trained mirror explains {_seeds(comm_x['explained'])} of the correct test answers "
                     "at the peak (smallest share over α).")
    return Markdown(" ".join(parts) or "No run of the chapter is on this page.")


def table1_curves(runs: dict):
    """Table 1's runs: test accuracy against epoch for each hole, squares and strips."""
    fig, axes = subplots(1, 2, width=4.4)
    for ax, shape in zip(axes[0], ("square", "strip")):
        keys = [k for k in runs if k[0] == shape]
        for c, key in zip(sweep_colors(len(keys)), keys):
            ax.plot(runs[key]["step"], runs[key]["test_acc"], color=c, label=f"{shape} {key[1]}")
        ax.set(xlabel="epoch", ylabel="test accuracy", ylim=(-0.02, 1.02))
        ax.legend()
        paper_title(ax, "Table 1", f"{shape} holes")
    return fig


def still_rising_note(rising: list, bound: float) -> str:
    """Table 1's plateau criterion in words: the hole runs whose last-quarter trend still gains more than ``bound``
    beyond twice its standard error (hole, seed index, gain), or that every run has levelled off."""
    if not rising:
        return f"Every hole run has levelled off (last-quarter trend gain at most {bound} beyond its noise)."
    runs = "; ".join(f"{k[0]} {k[1]}, seed {i}: {g:.3f}" for k, i, g in rising)
    return (f"Still rising at the end (last-quarter trend gain beyond twice its standard error, above {bound}): "
            f"{runs}. Their U-Acc is a lower bound; the claims leave those seeds out where it matters.")
