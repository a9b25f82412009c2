"""Per-epoch cost of Gu et al.'s transformer training: the authors' loop vs the library's.

Setting (issue 4): p = 97, α = 0.3, d_model 128, one layer, 4 heads, d_mlp 512, full batch,
AdamW, one torch thread. Both loops use the same parameters and the same math for the loss.

* ``authors`` re-creates the per-epoch work of Qihuai27/Grokking-Insight ``transformer/*.py``
  (re-implemented, not copied): the model computes all three positions and unembeds all of
  them; every epoch runs four full forward passes — train loss, test loss *with* an autograd
  graph, train accuracy, test accuracy — plus MED on a CPU copy of W_E, then the update.
* ``library`` is :func:`companion.train.train` on the shared transformer: one forward/backward
  per step, only the last position in the final block, evaluation (losses, accuracies, MED,
  weight norm, Fourier Gini, restricted/excluded loss) at the log-spaced steps of a 30 000-epoch
  run (``log_steps(30000, 40)`` ∪ every 50th step, as the ``paper`` profile), amortised.

Run: ``.venv/bin/python benchmarks/progress_measures_step.py`` (writes the JSON next to it).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from companion.experiments import progress_measures as ex
from companion.measures.embedding import med
from companion.models_gu import gu_config, gu_transformer
from companion.tasks import modular_split
from companion.train import cross_entropy, evaluate, make_optimizer


def full_logits(model, x):
    """All positions through every block, unembedded at every position (authors' forward)."""
    h = model.W_E[x] + model.W_pos[: x.shape[1]]
    for blk in model.blocks:
        h = blk(h, last_only=False)
    return (h @ model.W_U)[:, -1]


def authors_epoch(model, opt, data, p):
    train_loss = F.cross_entropy(full_logits(model, data.train_x), data.train_y)
    test_loss = F.cross_entropy(full_logits(model, data.test_x), data.test_y)  # graph built, unused
    train_loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    with torch.no_grad():
        (full_logits(model, data.train_x).argmax(-1) == data.train_y).float().mean().item()
        (full_logits(model, data.test_x).argmax(-1) == data.test_y).float().mean().item()
    med(model.W_E.detach().cpu(), p)
    return float(test_loss.detach())


def library_step(model, opt, data):
    loss = cross_entropy(model(data.train_x), data.train_y, "float32")
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def timed(fn, n):
    for _ in range(2):
        fn()
    c, w = time.process_time(), time.perf_counter()
    for _ in range(n):
        fn()
    return (time.process_time() - c) / n, (time.perf_counter() - w) / n


def main(n: int = 20) -> list[dict]:
    torch.set_num_threads(1)
    run = ex.config("fig5", "paper").base  # p = 97, α = 0.3, d_model 128, paper schedule
    p = run.p
    data = modular_split(p, "add", 0, "random", 0, run.train_frac, 0)
    m1 = gu_transformer(gu_config(p), 0)
    o1 = make_optimizer(m1.parameters(), run.train)
    a_cpu, a_wall = timed(lambda: authors_epoch(m1, o1, data, p), n)
    m2 = gu_transformer(gu_config(p), 0)
    o2 = make_optimizer(m2.parameters(), run.train)
    s_cpu, s_wall = timed(lambda: library_step(m2, o2, data), n)

    def one_eval():  # what modular_run records at one evaluation step
        evaluate(m2, data.train_x, data.train_y, "float32")
        evaluate(m2, data.test_x, data.test_y, "float32")
        ex.med(m2.W_E, p), ex.med(m2.W_E, p, 0, "sum"), ex.weight_norm_sq(m2), ex.fourier_gini(m2.W_E, p)
        mask = torch.zeros(p * p, dtype=torch.bool)
        mask[data.train_x[:, 0] * p + data.train_x[:, 1]] = True
        ex.restricted_excluded_loss(m2, p, mask)
    e_cpu, e_wall = timed(one_eval, max(n // 4, 3))
    n_evals = len(ex.eval_grid(run))
    frac = n_evals / run.train.steps
    lib_cpu, lib_wall = s_cpu + frac * e_cpu, s_wall + frac * e_wall
    rows = [{"loop": "authors (4 forward passes, evaluate every epoch)", "CPU s/epoch": round(a_cpu, 4),
             "wall s/epoch": round(a_wall, 4), "speed-up (CPU)": 1.0},
            {"loop": f"library (1 fwd/bwd, last position; {n_evals} evaluations per {run.train.steps} epochs, amortised)",
             "CPU s/epoch": round(lib_cpu, 4), "wall s/epoch": round(lib_wall, 4),
             "speed-up (CPU)": round(a_cpu / lib_cpu, 2)}]
    return rows


if __name__ == "__main__":
    import os

    rows = main()
    out = {"setting": "p=97, alpha=0.3, d_model=128, 1 layer, full batch, 1 torch thread",
           "load_average": os.getloadavg()[0], "torch": torch.__version__, "rows": rows}
    Path(__file__).with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
