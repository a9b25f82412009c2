"""Table 1 of GrokTransfer (Xu et al. 2025, Sec. 4.2, A.4.1): the cost of the method against training from scratch,
measured on this book's FNN runs of Fig. 1b, and A.4.1's forward-FLOP estimate recomputed term by term."""

from __future__ import annotations

from dataclasses import dataclass

from companion.events import NOT_OBSERVED, first_crossing
from companion.experiments.groktransfer.common import premise_met


@dataclass(frozen=True)
class Cost:
    """Table 1 on this book's FNN runs, per seed: CPU seconds of the weak seed (chosen in
    advance: target seed i uses weak seed i, no search) up to its transferred checkpoint, of the
    GrokTransfer target to 95% test accuracy and of the scratch target to 95% (per-epoch time ×
    first epoch at 95%; not observed when a target never gets there), and the ratio
    (weak + GrokTransfer) / scratch (not observed unless both reach 95%)."""

    weak: list
    transfer: list
    scratch: list
    ratio: list
    weak_share: list  # weak / (weak + GrokTransfer)


def cost(weak: dict, transfer: dict, scratch: dict, threshold: float = 0.95) -> Cost:
    """:class:`Cost` of the addition runs (the seeds of each target batch)."""
    per_epoch = weak["cpu_s"] / max(weak["epoch"][-1], 1)  # one weak seed's share of the batch
    tw = [per_epoch * sel["epoch"] for sel in transfer["selections"]]
    tg = [transfer["cpu_s_per_epoch"] * first_crossing(transfer["epoch"], transfer["test_acc"][m], threshold)
          if ok else NOT_OBSERVED for m, ok in zip(transfer["seed_members"], premise_met(transfer))]
    ts = [scratch["cpu_s_per_epoch"] * first_crossing(scratch["epoch"], scratch["test_acc"][m], threshold)
          for m in scratch["seed_members"]]
    ratio = [(w + g) / s for w, g, s in zip(tw, tg, ts)]
    share = [w / (w + g) for w, g in zip(tw, tg)]
    return Cost(tw, tg, ts, ratio, share)


def flops_a41(d_embed: int = 512, n_layer: int = 8, d_attn: int = 128, d_mlp: int = 512, p: int = 113,
              weak_epochs: int = 2000, gt_epochs: int = 1000, scratch_epochs: int = 10_000) -> dict:
    """Table 1 / A.4.1's forward-FLOP estimate, recomputed term by term.

    Weak (2-layer, input 8, width 4): C = 2(8·4 + 8 + 4·p + 2p). Target (Kaplan et al. 2020,
    Table 1): N = 2·d_embed·n_layer·(2·d_attn + d_mlp), C = 2(N + 8·2·128). Totals are per-sample
    forward FLOPs × epochs, as in the paper.
    """
    weak = 2 * (8 * 4 + 8 + 4 * p + 2 * p)
    N = 2 * d_embed * n_layer * (2 * d_attn + d_mlp)
    target = 2 * (N + 8 * 2 * 128)
    gt_total = weak * weak_epochs + target * gt_epochs
    scratch_total = target * scratch_epochs
    return {"weak_fwd": weak, "N": N, "target_fwd": target, "gt_total": gt_total,
            "scratch_total": scratch_total, "ratio": gt_total / scratch_total}
