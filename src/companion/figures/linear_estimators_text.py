"""The sentences of the linear-estimators chapter that are formatted from its many-draw summaries
(:mod:`companion.experiments.linear_estimators.summaries_draws`, Fig. 2's markers): every number in them
comes from the run."""

from __future__ import annotations


def _others(me, lam: float, unit: str = "$d_{\\rm in}$") -> str:
    sw = me.sweep[lam]
    return ", ".join(f"{sw[d][3]:+.0%} at {unit} = {d}" for d in sorted(sw) if d != me.d_in)


def finite_size_paragraph(me, lam: float = 0.9):
    """The finite-size paragraph of Fig. 1: the late gap at λ at each d_in, and how far the grokking times of
    the expected loss sit from the exact theory."""
    from IPython.display import Markdown

    sw, ds = me.sweep[lam], sorted(me.sweep[lam])
    return Markdown(f"At λ = {lam:g} the expected generalisation loss sits {sw[me.d_in][3]:+.0%} from Eq. 8 at "
                    f"t = {sw[me.d_in][2]:.3g} for $d_{{\\rm in}}$ = {me.d_in}; the same gap is {_others(me, lam)} "
                    f"(largest gaps {', '.join(f'{sw[d][0]:.3f}' for d in ds)} decades for $d_{{\\rm in}}$ = "
                    f"{', '.join(map(str, ds))}). The grokking times, read where the loss crosses ε/4, sit earlier on "
                    f"the curve, where the gap is a few per cent: Δt of the expected loss is within "
                    f"{me.dt_max_gap:.1%} of the exact theory at every λ < 1.")


def finite_size_deviation(me, lam: float = 0.9) -> str:
    """The known-deviation text of Fig. 1's loss claim at λ: the gap at d_in and across the sweep."""
    return (f"a finite-size gap: at d_in = {me.d_in} the expected generalisation loss sits {me.worst[lam][2]:+.0%} "
            f"from Eq. 8 at t = {me.worst[lam][0]:.3g}; the same gap is {_others(me, lam, 'd_in')} (table above): "
            f"it shrinks as d_in grows, as the MP law's edge is approached")


def expected_note(me, lam: float) -> str:
    """What the expected-loss claims compare (their one_value)."""
    return (f"the expected loss at d_in = {me.d_in}: the mean of {me.n[lam]} training spectra, each averaged "
            f"exactly over teacher and student (Eq. 8 is an average over draws); single draws are in the table above")


def fig2_markers_text(m2m):
    """The paragraph under Fig. 2's simulated markers: the medians per d_out, the maximum and its control."""
    from IPython.display import Markdown

    return Markdown(
        f"Simulated markers at λ = {m2m.lam} ({len(m2m.peak)} draws per $d_{{\\rm out}}$, the full simulation with "
        f"fresh test sets): the median of Δt_sim/Δt_Eq.12 is "
        + ", ".join(f"{m2m.median[d]:.3f} at {d}" for d in m2m.douts)
        + ". Eq. 12's accuracy, P(d_out/2, d_out ε/2L), takes the error (1/d_out)‖Dᵀx‖² to be L·χ²/d_out, which "
        "needs DᵀD ∝ I — a sum over d_in directions of d_out-dimensional outer products, isotropic only when "
        "d_out ≪ d_in; the claim below therefore takes d_out ≤ d_in/10, and the larger d_out are reported here: "
        f"the expected loss still follows Eq. 12 at d_out = 700 (fig2_losses_dout700), while Δt runs "
        f"{m2m.median[m2m.douts[-1]] - 1:+.0%} long there. The simulated Δt rises from "
        f"{m2m.dt_median[m2m.douts[0]]:.0f} steps at $d_{{\\rm out}}$ = {m2m.douts[0]} to a maximum inside the range "
        f"and falls to {m2m.dt_median[m2m.douts[-1]]:.0f} at {m2m.douts[-1]} — the paper's maximum, on both sides. "
        f"The control trains the same draws with η = η₀·$d_{{\\rm out}}$: its Δt falls monotonically ("
        + ", ".join(f"{v:.0f} at {d}" for d, v in m2m.control_median.items()) + ").")
