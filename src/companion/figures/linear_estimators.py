"""Figures of the linear-estimators chapter (Levi, Beck & Bar Sinai, ICLR 2024), Figs. 1–8.

Each function takes the results of the matching experiment in
:mod:`companion.experiments.linear_estimators` and returns a Figure with the paper's axes,
curve semantics and legend: simulation coloured (train dashed, test solid), theory black.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter

from companion.plotting import paper_title, subplots, sweep_colors

THREE = ("tab:blue", "tab:red", "darkviolet")


def _style_legend(ax, labels_colors, extra=True):
    h = [Line2D([], [], color=c, label=l) for l, c in labels_colors]
    if extra:
        h += [Line2D([], [], color="k", ls="--", label="train"), Line2D([], [], color="k", label="test"),
              Line2D([], [], color="k", lw=2.5, alpha=0.5, label="theory")]
    ax.legend(handles=h, fontsize=8)


def _curve_panels(axes, steps, curves, keys, colors, label_fmt, ref, what):
    """Loss (log-log) and accuracy (log-x) panels: seed-0 simulation coloured, theory black."""
    t = np.maximum(steps, 1)
    for k, c in zip(keys, colors):
        sim, thy = curves[k]["sim"], curves[k]["theory"]
        for ax, q in ((axes[0], "loss"), (axes[1], "acc")):
            ax.plot(t, thy[f"train_{q}"], color="k", ls="--", lw=2.5, alpha=0.5)
            ax.plot(t, thy[f"test_{q}"], color="k", lw=2.5, alpha=0.5)
            ax.plot(t, sim[f"train_{q}"][0], color=c, ls="--")
            ax.plot(t, sim[f"test_{q}"][0], color=c)
    axes[0].set(xscale="log", yscale="log", xlabel="step t", ylabel="loss", ylim=(1e-9, 3))
    axes[1].set(xscale="log", xlabel="step t", ylabel="accuracy", ylim=(-0.02, 1.02))
    paper_title(axes[0], ref, f"losses vs {what}")
    paper_title(axes[1], "", "accuracies")
    _style_legend(axes[0], [(label_fmt(k), c) for k, c in zip(keys, colors)])


def fig1(res: dict):
    fig, ax = subplots(1, 3, width=4.3)
    lams = sorted(res["curves"])
    _curve_panels(ax[0], res["steps"], res["curves"], lams, THREE, lambda l: f"λ = {l}", "Fig. 1", "λ")
    a = ax[0, 2]
    for e, c in zip(sorted(res["theory_dt"], reverse=True), ("tab:red", "tab:blue")):
        a.plot(res["lam_grid"], res["theory_dt"][e], color=c, lw=1, label=f"exact theory, ε = {e:g}")
        lams = sorted(res["sim_dt"])
        dts = np.array([res["sim_dt"][l][e]["dt"] for l in lams])  # (λ, seeds)
        a.errorbar(lams, dts.mean(1), yerr=dts.std(1), fmt="o", color=c, ms=4, label=f"simulation, ε = {e:g}")
    a.plot(res["lam_grid"], res["eq11"], "k--", label="Eq. (11)")
    a.set(yscale="log", xlabel="λ = d_in / N_tr", ylabel="Δt_grok")
    a.legend(fontsize=7)
    paper_title(a, "", "grokking time vs λ")
    return fig


def fig2(res: dict):
    fig, ax = subplots(1, 3, width=4.3)
    ds = sorted(res["curves"])
    _curve_panels(ax[0], res["steps"], res["curves"], ds, THREE, lambda d: f"d_out = {d}", "Fig. 2", "d_out")
    a = ax[0, 2]
    cols = sweep_colors(len(res["theory_dt"]), "plasma")
    for (l, dt), c in zip(sorted(res["theory_dt"].items()), cols):
        a.plot(res["dout_grid"], np.where(dt > 0, dt, np.nan), color=c, label=f"theory, λ = {l}")
    m = res["markers"]
    a.plot(list(m), [m[d]["sim"]["dt"][0] for d in m], "ko", ms=4, label=f"simulation, λ = {res['marker_lam']}")
    a.set(xscale="log", yscale="log", xlabel="d_out", ylabel="Δt_grok")
    a.legend(fontsize=7)
    paper_title(a, "", "grokking time vs d_out")
    return fig


def fig3(res: dict):
    fig, ax = subplots(1, 3, width=4.3)
    gs = sorted(res["curves"])
    _curve_panels(ax[0], res["steps"], res["curves"], gs, THREE, lambda g: f"γ = {g:g}", "Fig. 3", "γ")
    a = ax[0, 2]
    grid = res["gamma_grid"]
    cols = sweep_colors(len(res["theory_dt"]), "plasma")
    for (l, dt), c in zip(sorted(res["theory_dt"].items()), cols):
        a.plot(grid, np.where(np.isfinite(dt), dt, np.nan), color=c, label=f"theory, λ = {l}")
        inf = ~np.isfinite(dt)
        if inf.any():
            i = int(np.argmax(inf))
            a.axvspan(np.sqrt(grid[max(i - 1, 0)] * grid[i]), grid[-1], color="grey", alpha=0.12)
    m = res["markers"]
    g = [k for k in m if np.isfinite(m[k]["sim"]["dt"]).all()]
    a.plot(g, [np.mean(m[k]["sim"]["dt"]) for k in g], "ko", ms=4, label=f"simulation, λ = {res['marker_lam']}")
    a.set(xscale="log", yscale="log", xlabel="weight decay γ", ylabel="Δt_grok")
    a.legend(fontsize=7)
    paper_title(a, "", "grokking time vs γ (grey: no grokking)")
    return fig


def fig4(res: dict):
    fig, ax = subplots(2, 2, width=4.6)
    scale = res["eta"] / 0.01
    for j, act in enumerate(("linear", "tanh")):
        for (d_h, r), c in zip(sorted(res["runs"].items()), THREE):
            i = r["activations"].index(act)
            t = np.maximum(r["step"], 1) * scale
            for row, q in enumerate(("loss", "acc")):
                a = ax[row, j]
                a.plot(t, r["theory"][f"train_{q}"], "k--", lw=2.5, alpha=0.5)
                a.plot(t, r["theory"][f"test_{q}"], "k", lw=2.5, alpha=0.5)
                a.plot(t, r[f"train_{q}"][i], color=c, ls="--")
                a.plot(t, r[f"test_{q}"][i], color=c)
        ax[0, j].set(xscale="log", yscale="log", ylabel="loss")
        ax[1, j].set(xscale="log", ylabel="accuracy", xlabel="equivalent steps at η₀ = 0.01 (η·t/η₀)")
        paper_title(ax[0, j], "Fig. 4" if j == 0 else "", f"{act} two-layer MLP")
    _style_legend(ax[0, 0], [(f"d_h = {d}", c) for d, c in zip(sorted(res["runs"]), THREE)])
    return fig


def fig5(res: dict):
    fig, ax = subplots(1, 1, width=6)
    a = ax[0, 0]
    t = res["t"]
    a.plot(t, res["train"], color="pink", lw=4, label="L_tr, Eq. (8)")
    a.plot(t, res["gen"], color="lightblue", lw=4, label="L_gen, Eq. (8)")
    a.plot(t, res["eq21"], "r--", label="Eq. (21)")
    a.plot(t, res["eq22"], "b--", label="Eq. (22)")
    a.plot(t, res["eq10"], "b-.", label="Eq. (10)")
    a.set(xscale="log", yscale="log", xlabel="t", ylabel="loss", ylim=(1e-12, 2))
    a.legend(fontsize=8)
    paper_title(a, "Fig. 5", f"late-time forms, λ = {res['lam']}")
    return fig


def fig6(res: dict):
    fig, ax = subplots(2, 2, width=4.6)
    s2s = sorted(res["runs"])
    pinks = [(1, 0.75 - 0.55 * i / max(len(s2s) - 1, 1), 0.8 - 0.5 * i / max(len(s2s) - 1, 1)) for i in range(len(s2s))]
    t = np.maximum(res["steps"], 1)
    for s2, c in zip(s2s, pinks):
        r = res["runs"][s2]
        for j, q in enumerate(("loss", "acc")):
            ax[0, j].plot(t, r["paper"][f"train_{q}"], color=c, label=f"train, σ² = {s2:g}")
            a = ax[1, j]
            a.plot(t, r["corrected"][f"train_{q}"], color=c, ls="--")
            a.plot(t, r["corrected"][f"test_{q}"], color=c)
            a.plot(t, r["sim"][f"train_{q}"].mean(0), "o", color=c, ms=2.5)
            a.plot(t, r["sim"][f"test_{q}"].mean(0), "s", color=c, ms=2.5, mfc="none")
    for j, q in enumerate(("loss", "acc")):
        ax[0, j].plot(t, res["runs"][s2s[0]]["paper"][f"test_{q}"], color="lightblue", lw=3, label="gen (all σ²)")
    for i in range(2):
        ax[i, 0].set(xscale="log", yscale="log", ylabel="loss", ylim=(1e-6, 2))
        ax[i, 1].set(xscale="log", ylabel="accuracy", ylim=(-0.02, 1.02))
    ax[1, 0].set_xlabel("t")
    ax[1, 1].set_xlabel("t")
    ax[0, 0].legend(fontsize=7)
    paper_title(ax[0, 0], "Fig. 6", "as in the paper (App. C)")
    paper_title(ax[1, 0], "", "fixed noisy labels: theory (lines), simulation (markers)")
    h = [Line2D([], [], color="k", ls="--", label="train (corrected)"), Line2D([], [], color="k", label="test (corrected)"),
         Line2D([], [], color="k", marker="o", ls="", label="sim train"),
         Line2D([], [], color="k", marker="s", mfc="none", ls="", label="sim test")]
    ax[1, 0].legend(handles=h, fontsize=7)
    return fig


def fig7(res: dict):
    fig, ax = subplots(1, 3, width=4.4)
    panels = (("left", res["gamma"], res["dout"], "γ", "d_out", f"λ = {res['left_lam']}"),
              ("centre", res["gamma"], res["lam"], "γ", "λ", "d_out = 1"),
              ("right", res["dout"], res["lam"], "d_out", "λ", "γ = 0"))
    for a, (k, x, y, xl, yl, fixed) in zip(ax[0], panels):
        z = res[k]
        z = np.where(np.isfinite(z) & (z > 0), np.log10(np.maximum(z, 1e-300)), np.nan)
        cs = a.pcolormesh(x, y, z, cmap="RdBu", shading="nearest")
        a.set(xscale="log", yscale="log" if yl == "d_out" else "linear", xlabel=xl, ylabel=yl)
        fig.colorbar(cs, ax=a, label="log₁₀ Δt_grok")
        paper_title(a, "Fig. 7" if k == "left" else "", f"{fixed}; white: no grokking")
        a.grid(False)
    return fig


def fig8(res: dict):
    fig = subplots(1, 1)[0]
    fig.clf()
    fig.set_size_inches(10, 7.5)
    gs = fig.add_gridspec(2, 2)
    a0, a1, a2 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), fig.add_subplot(gs[1, :])
    lams = sorted(res["ts"], reverse=True)  # blue = most λ (fewest samples)
    for l, c in zip(lams, sweep_colors(len(lams))):
        r = res["ts"][l]
        a0.plot(r["train_loss"], r["train_acc"], color=c, ls="--")
        a0.plot(r["train_loss"], r["test_acc"], color=c, label=f"λ = {l}")
    a0.set(xscale="log", xlabel="training loss", ylabel="accuracy", xlim=(1e-8, 1.5))
    a0.invert_xaxis()
    a0.legend(fontsize=7)
    paper_title(a0, "Fig. 8", "teacher–student (theory), d_out = 1")
    m = res["mod"]
    order = np.argsort(m["alpha"])  # blue = smallest α
    for i, c in zip(order, sweep_colors(len(order))):
        a1.plot(m["train_loss"][i], m["train_acc"][i], color=c, ls="--")
        a1.plot(m["train_loss"][i], m["test_acc"][i], color=c, label=f"α = {m['alpha'][i]:g}")
    a1.set(xscale="log", xlabel="training loss (MSE)", ylabel="accuracy")
    a1.xaxis.set_minor_formatter(NullFormatter())
    a1.invert_xaxis()
    a1.legend(fontsize=7)
    paper_title(a1, "", "modular addition (train dashed, test solid)")
    dt = m["t_te"] - m["t_tr"]
    a2.plot(m["lam"], dt, "o", color="tab:blue", label="modular addition")
    f = res["fit"]
    if np.isfinite(f["lam_star"]):
        x = np.linspace(m["lam"].min(), m["lam"].max(), 100)
        a2.plot(x, f["C"] * np.abs(f["lam_star"] - x) ** -2.0, "k--",
                label=f"C(λ* − λ)⁻², λ* = {f['lam_star']:.3f}, R² = {f['r2']:.3f}")
    a2.set(xlabel="λ = 2/(αp)", ylabel="Δt_grok")
    a2.legend(fontsize=8)
    paper_title(a2, "", "grokking time vs λ")
    return fig
