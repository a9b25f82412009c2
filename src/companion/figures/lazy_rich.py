"""Figures of the lazy-to-rich chapter (Kumar et al. 2024). Each ``figN`` function takes results
(plain dicts of arrays from :mod:`companion.experiments.lazy_rich`) and returns the Figure of the
paper's Fig. N; the others are the panels they share."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from companion.plotting import TEST, TRAIN, paper_title, subplots, sweep_colors


def _x(step):
    """Steps as floats, ≥ 1 (for log axes)."""
    return np.maximum(np.asarray(step, float), 1.0)


def _pair(ax, step, train, test, color, label=None, norm=False, lw=1.4):
    """Train (dashed) and test (solid) curves on a log step axis, optionally over their start."""
    tr, te = np.asarray(train, float), np.asarray(test, float)
    if norm:
        tr, te = tr / tr[0], te / te[0]
    k = np.asarray(step) > 0  # log axis: the initial value is the curve's left end
    ax.plot(_x(step)[k], tr[k], "--", color=color, lw=lw)
    ax.plot(_x(step)[k], te[k], "-", color=color, lw=lw, label=label)
    ax.set_xscale("log")


def fig1a(r):
    """Fig. 1a: weight trajectories inside / off the tangent space S, and the two runs' losses."""
    fig, axs = subplots(1, 2, width=4.4)
    ax = axs[0, 0]
    ax.plot(r["lin_x"], r["lin_y"], "-o", ms=2, color="green", label="linearised (stays in S)")
    ax.plot(r["net_x"], r["net_y"], "-o", ms=2, color="tab:blue", label="network (leaves S)")
    ax.plot([0], [0], "k*", ms=10, label="$w_0$")
    ax.set_xlabel("displacement inside S, along $w_{lazy}-w_0$")
    ax.set_ylabel("distance from S")
    ax.legend(fontsize=8)
    paper_title(ax, "Fig. 1a", "weight trajectories")
    ax = axs[0, 1]
    _pair(ax, r["step"], r["net_train"], r["net_test"], "tab:blue", "network")
    _pair(ax, r["step"], r["lin_train"], r["lin_test"], "green", "linearised")
    ax.set_xlabel("step"), ax.set_ylabel("MSE (dashed train, solid test)"), ax.legend(fontsize=8)
    return fig


def fig1(r, i=0):
    """Fig. 1b, c: losses against the linearised, N → ∞ and K0 curves; weight norm and alignment."""
    fig, axs = subplots(1, 2, width=4.6)
    ax = axs[0, 0]
    s = r["step"]
    _pair(ax, s, r["train_loss"][i], r["test_loss"][i], "tab:blue", "network")
    _pair(ax, s, r["lin_train"][i], r["lin_test"][i], "black", "linearised")
    ax.plot(_x(s), r["theory_test"], ":", color="tab:purple", label="N→∞ closure (test)")
    ax.axhline(r["k0_test"][i], color="k", lw=0.8, label="K0 kernel regression")
    ax.set_xlabel("step (full-batch GD)"), ax.set_ylabel("MSE (dashed train, solid test)")
    ax.legend(fontsize=7, loc="lower left", framealpha=0.9)
    paper_title(ax, "Fig. 1b", "grokking in loss")
    ax = axs[0, 1]
    ax.plot(_x(s), r["weight_norm"][i], "--", color="tab:orange", label="‖W‖_F")
    ax.set_xscale("log"), ax.set_xlabel("step (full-batch GD)"), ax.set_ylabel("weight norm", color="tab:orange")
    ax.set_ylim(0, None)
    ax2 = ax.twinx()
    ax2.plot(_x(r["cka_step"]), r["cka"][i], ":", color="green", lw=1.6)
    ax2.set_ylim(0, 1.05 * float(np.max(r["cka"][i])))  # from 0: a 30% change looks like one
    ax2.set_ylabel("NTK–target alignment (dotted)", color="green")
    paper_title(ax, "Fig. 1c", "norm grows, features align")
    return fig


def sweep(r, ref, text, label, norm=True, ncol=1):
    """One panel of a closure sweep (Figs. 3a, 3b, 10, 14), ``label(values)`` naming each run."""
    fig, axs = subplots(1, ncol)
    cols = sweep_colors(len(r["values"]), "plasma")
    for i, v in enumerate(r["values"]):
        _pair(axs[0, 0], r["step"], r["train_loss"][i], r["test_loss"][i], cols[i], label(v), norm=norm)
    axs[0, 0].set_xlabel("epoch"), axs[0, 0].set_ylabel("loss / initial" if norm else "MSE")
    axs[0, 0].legend(fontsize=7)
    paper_title(axs[0, 0], ref, text)
    return fig


def fig3e(r, amount):
    """Fig. 3e: the delay t_te(½)/t_tr(½) over the (α, ε) grid, one cell per run, centred on its (ε, α) and
    labelled with its value (blank where a loss never halves)."""
    al = sorted(set(v[0] for v in r["values"]))
    ep = sorted(set(v[1] for v in r["values"]))
    grid = np.asarray(amount, dtype=float).reshape(len(al), len(ep))
    fig, axs = subplots(1, 1)
    ax = axs[0, 0]
    im = ax.pcolormesh(np.arange(len(ep) + 1) - 0.5, np.arange(len(al) + 1) - 0.5, np.ma.masked_invalid(grid),
                       cmap="OrRd", shading="flat")
    for i in range(len(al)):
        for j in range(len(ep)):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2g}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(ep)), [f"{e:g}" for e in ep]), ax.set_yticks(range(len(al)), [f"{a:g}" for a in al])
    fig.colorbar(im, ax=ax, label="t_te(½) / t_tr(½) (delay ratio)")
    ax.set_xlabel("ε (initial kernel alignment; dimensionless)"), ax.set_ylabel("α (output scale: laziness)")
    ax.grid(False)
    paper_title(ax, "Fig. 3e", "delay ratio")
    return fig


def decomposition(ax, step, r, i, total="test_loss"):
    """The eq. 6 terms of run ``i`` on ``ax`` (Figs. 4, 9, 11)."""
    ax.plot(_x(step), r[total][i], color="tab:orange", label="test loss")
    ax.plot(_x(step), r["variance"][i], "--", color="red", label="variance")
    ax.plot(_x(step), r["misalignment"][i], "--", color="green", label="misalignment")
    ax.plot(_x(step), r["linear"][i], "--", color="black", label="linear power")
    ax.set_xscale("log"), ax.set_xlabel("epoch"), ax.legend(fontsize=7)


def fig4(r, i=0, setting="Fig. 1 setting"):
    """Fig. 4: learning curves and the eq. 6 decomposition of run ``i`` (``setting`` names the runs in the titles)."""
    fig, axs = subplots(1, 2)
    _pair(axs[0, 0], r["step"], r["train_loss"][i], r["test_loss"][i], TEST, "network")
    axs[0, 0].set_xlabel("step"), axs[0, 0].set_ylabel("MSE (dashed train, solid test)")
    paper_title(axs[0, 0], "Fig. 4", f"learning curves, {setting}")
    decomposition(axs[0, 1], r["step"], r, i)
    paper_title(axs[0, 1], "Fig. 4", f"eq. 6 decomposition, {setting}")
    return fig


def panels(step, train, test, titles, ref, ylabel="MSE", log_y=False, extra=None):
    """One panel per run (Figs. 5, 12, 15, 18)."""
    n = len(titles)
    fig, axs = subplots(1, n, width=3.4)
    for k in range(n):
        ax = axs[0, k]
        _pair(ax, step, train[k], test[k], TEST)
        ax.lines[-2].set_color(TRAIN)
        if extra is not None:
            extra(ax, k)
        if log_y:
            ax.set_yscale("log")
        ax.set_xlabel("epoch"), ax.set_ylabel(f"{ylabel} (dashed train, solid test)" if k == 0 else ylabel)
        paper_title(ax, ref, titles[k])
    return fig


def fig2(r, i):
    """Fig. 2: accuracy and weight norm, loss (run ``i``), and the scale sweep."""
    fig, axs = subplots(1, 3, width=3.6)
    e = _x(r["epochs"])
    ax = axs[0, 0]
    ax.plot(e, r["train_acc"][i], "--", color=TRAIN, label="train")
    ax.plot(e, r["test_acc"][i], color=TEST, label="test")
    ax.set_xlabel("epoch (paper lr units)"), ax.set_ylabel("accuracy"), ax.legend(fontsize=7)
    ax2 = ax.twinx()
    ax2.plot(e, r["norm"][i], color="tab:orange"), ax2.set_ylabel("‖W1‖+‖W2‖", color="tab:orange")
    paper_title(ax, "Fig. 2a", f"s = {r['scales'][i]}")
    ax = axs[0, 1]
    ax.plot(e, r["train_loss"][i], "--", color=TRAIN), ax.plot(e, r["test_loss"][i], color=TEST)
    ax.set_xlabel("epoch (paper lr units)"), ax.set_ylabel("MSE")
    paper_title(ax, "Fig. 2b", "loss")
    ax = axs[0, 2]
    n = len(r["scales"])
    cols = [plt.get_cmap("viridis")(0.8 * k / max(n - 1, 1)) for k in range(n)]  # stops short of the pale yellow end
    for k, c in zip(range(n), cols):
        ax.plot(e, r["train_acc"][k], "--", color=c), ax.plot(e, r["test_acc"][k], color=c, label=f"s={r['scales'][k]}")
    ax.set_xlabel("epoch (paper lr units)"), ax.set_ylabel("accuracy"), ax.legend(fontsize=7)
    paper_title(ax, "Fig. 2c", "scale sweep")
    return fig


def fig16(r, i):
    """Fig. 16: accuracy and loss of the Fig. 2 run ``i``."""
    fig, axs = subplots(1, 2)
    e = _x(r["epochs"])
    axs[0, 0].plot(e, r["train_acc"][i], "--", color=TRAIN, label="train")
    axs[0, 0].plot(e, r["test_acc"][i], color=TEST, label="test")
    axs[0, 0].set_ylabel("accuracy"), axs[0, 0].legend(fontsize=7)
    axs[0, 1].plot(e, r["train_loss"][i], "--", color=TRAIN), axs[0, 1].plot(e, r["test_loss"][i], color=TEST)
    axs[0, 1].set_ylabel("MSE")
    for ax in axs[0]:
        ax.set_xlabel("epoch (paper lr units)")
    paper_title(axs[0, 0], "Fig. 16", "accuracy"), paper_title(axs[0, 1], "Fig. 16", "loss")
    return fig


def acc_sweep(step, train_acc, test_acc, labels, ref, text, ylabel="accuracy", xlabel="epoch (full-batch step)"):
    """Train (dashed) and test curves of several runs in one panel (Figs. 6, 8, 17)."""
    fig, axs = subplots(1, 1, width=5)
    ax = axs[0, 0]
    for k, c in zip(range(len(labels)), sweep_colors(len(labels), "plasma")):
        ax.plot(_x(step), train_acc[k], "--", color=c)
        ax.plot(_x(step), test_acc[k], color=c, label=labels[k])
    ax.set_xscale("log"), ax.set_xlabel(xlabel), ax.set_ylabel(f"{ylabel} (dashed train, solid test)")
    ax.legend(fontsize=7)
    paper_title(ax, ref, text)
    return fig


def fig7(r3a, r7b, r7c):
    """Fig. 7: α, σ and joint sweeps, and relative change / final loss against σ²α."""
    fig, axs = subplots(2, 3, width=3.6)
    for ax, r, lab, ref in ((axs[0, 0], r3a, "α", "Fig. 7a"), (axs[0, 1], r7b, "σ", "Fig. 7b"),
                            (axs[0, 2], r7c, "(σ, α)", "Fig. 7c")):
        cols = sweep_colors(len(r["values"]), "plasma")
        for i, v in enumerate(r["values"]):
            _pair(ax, r["step"], r["train_loss"][i], r["test_loss"][i], cols[i],
                  f"{lab}={tuple(round(x, 3) for x in v) if len(v) > 1 else round(v[0], 3)}", norm=True)
        ax.set_xlabel("epoch"), ax.set_ylabel("loss / initial"), ax.legend(fontsize=6)
        paper_title(ax, ref, f"{lab} sweep")
    for r, key, mark, lab in ((r3a, "alpha", "o", "α sweep"), (r7b, "sigma", "s", "σ sweep"),
                              (r7c, "joint", "^", "α = 1/σ²")):
        v = np.asarray(r["values"], float)
        sa = v[:, 0] if key == "alpha" else v[:, 0] ** 2 if key == "sigma" else v[:, 0] ** 2 * v[:, 1]
        rel = np.sqrt(r["rel_change2"][:, -1])
        fin = r["test_loss"][:, -1] / r["test_loss"][:, 0]
        axs[1, 0].loglog(sa, rel, mark, label=lab, alpha=0.8)
        axs[1, 1].loglog(sa, fin, mark, label=lab, alpha=0.8)
        axs[1, 2].loglog(rel, fin, mark, label=lab, alpha=0.8)
    for ax, xl, yl, ref in ((axs[1, 0], "σ²α", "|θ−θ0|/|θ0|", "Fig. 7d"),
                            (axs[1, 1], "σ²α", "final test / initial", "Fig. 7e"),
                            (axs[1, 2], "|θ−θ0|/|θ0|", "final test / initial", "Fig. 7f")):
        ax.set_xlabel(xl), ax.set_ylabel(yl), ax.legend(fontsize=7)
        paper_title(ax, ref, "σ²α sets the laziness")
    return fig


def fig9(r):
    """Fig. 9: losses and eq. 6 decomposition per data set size P."""
    n = len(r["values"])
    fig, axs = subplots(2, n, width=3.2)
    for k in range(n):
        _pair(axs[0, k], r["step"], r["train_loss"][k], r["test_loss"][k], TEST)
        axs[0, k].lines[-2].set_color(TRAIN)
        paper_title(axs[0, k], "Fig. 9", f"P = {r['values'][k][0]}")
        decomposition(axs[1, k], r["step"], r, k)
    return fig


def fig11(r):
    """Fig. 11: the readout network's losses and eq. 6 decomposition, for the first seed whose population test
    loss halves (the claims are read on those seeds; the first seed if none does)."""
    te = np.asarray(r["pop_test"], float)
    gen = [k for k in range(len(te)) if te[k, -1] <= 0.5 * te[k, 0]]
    i = gen[0] if gen else 0
    fig, axs = subplots(1, 2)
    _pair(axs[0, 0], r["step"], r["train_loss"][i], r["test_loss"][i], TEST, "network")
    axs[0, 0].set_xlabel("step"), axs[0, 0].set_ylabel("MSE (dashed train, solid test)")
    which = f"seed {i}: {'generalises' if gen else 'no seed generalises'}"
    paper_title(axs[0, 0], "Fig. 11", f"trained readouts ({which})")
    decomposition(axs[0, 1], r["step"], r, i, total="pop_test")
    paper_title(axs[0, 1], "Fig. 11", f"decomposition ({which})")
    return fig


def net_vs_lin(ax, r, i=None):
    """A network's and its linearisation's losses on ``ax`` (Fig. 13)."""
    def g(a):
        return a[i] if i is not None else a

    _pair(ax, r["step"], g(r["train_loss"]), g(r["test_loss"]), "tab:blue", "network")
    _pair(ax, r["step"], g(r["lin_train"]), g(r["lin_test"]), "black", "linearised")
    ax.set_xlabel("epoch"), ax.set_ylabel("MSE"), ax.legend(fontsize=7)


def fig13(ra, rb):
    """Fig. 13: (a) momentum, (b) AdamW student–teacher, each against its linearisation."""
    fig, axs = subplots(1, 2)
    net_vs_lin(axs[0, 0], ra, 0)
    paper_title(axs[0, 0], "Fig. 13a", "GD + momentum 0.95")
    net_vs_lin(axs[0, 1], rb, 0 if np.ndim(rb["test_loss"]) == 2 else None)  # the first seed
    axs[0, 1].set_yscale("log")
    paper_title(axs[0, 1], "Fig. 13b", "student–teacher, AdamW")
    return fig


def fig13c(r):
    """Fig. 13c: the transformer's and its linearisation's cross-entropy (first seed)."""
    fig, axs = subplots(1, 1)
    net_vs_lin(axs[0, 0], r, 0)
    axs[0, 0].set_ylabel("cross-entropy")
    paper_title(axs[0, 0], "Fig. 13c", "transformer, AdamW")
    return fig


def fig19(r):
    """Fig. 19: one panel per (label index j, data set size P)."""
    J, nP = len(r["js"]), len(r["Ps"])
    fig, axs = subplots(J, nP, width=3.0, height=2.5)
    for a in range(J):
        for b in range(nP):
            _pair(axs[a, b], r["step"], r["train_loss"][a, b], r["test_loss"][a, b], TEST)
            axs[a, b].lines[-2].set_color(TRAIN)
            paper_title(axs[a, b], "Fig. 19", f"j={r['js'][a]}, P={r['Ps'][b]}")
            axs[a, b].set_xlabel("epoch" if a == J - 1 else "")
            axs[a, b].set_ylabel("MSE (dashed train, solid test)" if b == 0 else "")
    return fig


def fig3a(r):
    """Fig. 3a: the α sweep (ε = 0.25), losses over their initial values."""
    return sweep(r, "Fig. 3a", "α sweep (ε = 0.25)", _alpha_label)


def _alpha_label(v):
    return f"α = 2^{np.log2(v[0]):.0f}"


def fig3b(r):
    """Fig. 3b: the ε sweep at α = 1, losses over their initial values."""
    return sweep(r, "Fig. 3b", "ε sweep (α = 1)", _eps_label)


def _eps_label(v):
    return f"ε = {v[0]}"


def fig5(r):
    """Fig. 5: one panel per NTK-eigenvector label index j."""
    return panels(r["step"], r["train_loss"], r["test_loss"], [f"j = {j}" for j in r["js"]], "Fig. 5")


def fig6a(r):
    """Fig. 6a: digits accuracy for each α."""
    return acc_sweep(r["step"], r["train_acc"], r["test_acc"], [f"α = {a:g}" for a in r["alphas"]],
                     "Fig. 6a", "digits, α sweep", xlabel="step (mini-batch AdamW)")


def fig6b(r):
    """Fig. 6b: transformer cross-entropy for each α."""
    return acc_sweep(r["step"], r["train_loss"], r["test_loss"], [f"α = {a}" for a, _ in r["runs"]],
                     "Fig. 6b", "transformer, α sweep", ylabel="cross-entropy")


def fig8(r):
    """Fig. 8: student–teacher accuracy (threshold 10⁻³) for each scale."""
    return acc_sweep(r["step"], r["train_acc"][:, 0], r["test_acc"][:, 0], [f"scale {s}" for s in r["scales"]],
                     "Fig. 8", "student–teacher")


def fig10(r):
    """Fig. 10: losses for each fraction λ of the solution mixed into W0."""
    return sweep(r, "Fig. 10", "adding the solution to W0", _lam_label, norm=False)


def _lam_label(v):
    return f"λ = {v[0]}"


def fig12(r):
    """Fig. 12: transformer cross-entropy for each (α, weight decay)."""
    return panels(r["step"], r["train_loss"], r["test_loss"], [f"α={a}, wd={w}" for a, w in r["runs"]],
                  "Fig. 12", ylabel="cross-entropy", log_y=True)


def fig14(r):
    """Fig. 14: losses for K = 1, 2, 3 index vectors."""
    return sweep(r, "Fig. 14", "multi-index targets", _index_label)


def _index_label(v):
    return f"K = {v[0]}"


def fig15(r):
    """Fig. 15: losses of the first seed on the He₃ target."""
    return panels(r["step"], r["train_loss"][:1], r["test_loss"][:1], ["He₃ target"], "Fig. 15")


def fig17(r):
    """Fig. 17: one student–teacher run's accuracy under each threshold θ."""
    return acc_sweep(r["step"], r["train_acc"][0], r["test_acc"][0], [f"θ = {t:g}" for t in r["thresholds"]],
                     "Fig. 17", "one run, several thresholds")


def fig18(r):
    """Fig. 18: the losses of the Fig. 17 run."""
    return panels(r["step"], r["train_loss"], r["test_loss"], ["losses of the same run"], "Fig. 18", log_y=True)
