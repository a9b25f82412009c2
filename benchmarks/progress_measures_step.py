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
import statistics
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from companion.data.modular import modular_split
from companion.experiments import progress_measures as ex
from companion.measures.embedding import fourier_gini, med, restricted_excluded_loss, weight_norm_sq
from companion.models.gu import gu_config, gu_transformer
from companion.train import cross_entropy, evaluate, optimizer_for


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


def authors_step(model, opt, data):
    """The authors' training step alone: the all-position forward on the training set, backward, update
    (no test loss, no accuracy passes, no MED)."""
    loss = F.cross_entropy(full_logits(model, data.train_x), data.train_y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def library_step(model, opt, data):
    loss = cross_entropy(model(data.train_x), data.train_y, "float32")
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def timed(fn, n, device="cpu"):
    """(CPU s, wall s) per call of ``fn``: median of ``n`` calls after two warm-ups; on a GPU
    the device is synchronised around each call, so wall time is what the device took."""
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    for _ in range(2):
        fn()
    sync()
    cpu, wall = [], []
    for _ in range(n):
        c, w = time.process_time(), time.perf_counter()
        fn()
        sync()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def ensemble_rows(run, data, device: str, n: int, ks=(1, 4, 16)) -> list[dict]:
    """Per-step wall time of a K-seed ensemble (``companion.train.ensemble``, one vmapped program,
    each member on its own split) against K = 1, and against K single-seed steps."""
    from companion.train.ensemble import Ensemble, ensemble_loss

    p = run.p
    rows = []
    for K in ks:
        datas = [modular_split(p, "add", 0, "random", 0, run.train_frac, s) for s in range(K)]
        X = torch.stack([d.train_x for d in datas]).to(device)
        Y = torch.stack([d.train_y for d in datas]).to(device)
        ens = Ensemble([gu_transformer(gu_config(p), s).to(device) for s in range(K)])
        opt = optimizer_for(ens.parameters(), run.train)

        def step():
            loss = ensemble_loss(ens.forward(X), Y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        _, wall = timed(step, n, device)
        rows.append({"K seeds": K, "wall s/step": round(wall, 6)})
    one = rows[0]["wall s/step"]
    for r in rows:
        r["vs one seed"] = round(r["wall s/step"] / one, 2)
        r["per seed vs one seed"] = round(r["wall s/step"] / one / r["K seeds"], 3)
    return rows


def authors_own_row(path: str, run, device: str, n: int) -> dict:
    """The authors' own ``Trainer.do_a_training_step`` (Qihuai27/Grokking-Insight
    ``transformer/base.py``, imported from ``path``, never committed here) at the same setting."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gu_authors", path)
    A = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(A)
    A.config = A.Config(p=run.p, d_vocab=run.p + 1, frac_train=run.train_frac, num_layers=1, d_model=128,
                        seed=0, device=torch.device(device))  # their Trainer reads the module's config
    world = A.Trainer(config=A.config)
    epoch = [0]

    def step():
        world.do_a_training_step(epoch[0] + 1)  # +1: skip their print at epoch 0
        epoch[0] += 1
    c, w = timed(step, n, device)
    return {"loop": "authors' own code (transformer/base.py Trainer, every epoch)", "CPU s/epoch": round(c, 5),
            "wall s/epoch": round(w, 5)}


def main(n: int = 20, device: str = "cpu", authors_code: str | None = None) -> dict:
    torch.set_num_threads(1)
    run = ex.config("fig5", "paper").base  # p = 97, α = 0.3, d_model 128, paper schedule
    p = run.p
    data = modular_split(p, "add", 0, "random", 0, run.train_frac, 0).to(device)
    m1 = gu_transformer(gu_config(p), 0).to(device)
    o1 = optimizer_for(m1.parameters(), run.train)
    a_cpu, a_wall = timed(lambda: authors_epoch(m1, o1, data, p), n, device)
    m2 = gu_transformer(gu_config(p), 0).to(device)
    o2 = optimizer_for(m2.parameters(), run.train)
    s_cpu, s_wall = timed(lambda: library_step(m2, o2, data), n, device)
    mask = torch.zeros(p * p, dtype=torch.bool)
    mask[(data.train_x[:, 0] * p + data.train_x[:, 1]).cpu()] = True

    def one_eval():  # what modular_run records at one evaluation step
        evaluate(m2, data.train_x, data.train_y, "float32")
        evaluate(m2, data.test_x, data.test_y, "float32")
        med(m2.W_E, p), med(m2.W_E, p, 0, "sum"), weight_norm_sq(m2), fourier_gini(m2.W_E, p)
        restricted_excluded_loss(m2, p, mask)
    e_cpu, e_wall = timed(one_eval, max(n // 4, 3), device)

    def authors_measures():  # what the authors measure every epoch, through the library's evaluation
        evaluate(m2, data.train_x, data.train_y, "float32")
        evaluate(m2, data.test_x, data.test_y, "float32")
        med(m2.W_E, p)
    am_cpu, am_wall = timed(authors_measures, n, device)
    m3 = gu_transformer(gu_config(p), 0).to(device)
    o3 = optimizer_for(m3.parameters(), run.train)
    as_cpu, as_wall = timed(lambda: authors_step(m3, o3, data), n, device)
    n_evals = len(ex.eval_grid(run))
    frac = n_evals / run.train.steps
    lib_cpu, lib_wall = s_cpu + frac * e_cpu, s_wall + frac * e_wall
    rows = [{"loop": "authors (4 forward passes, evaluate every epoch)", "CPU s/epoch": round(a_cpu, 5),
             "wall s/epoch": round(a_wall, 5), "speed-up (wall)": 1.0},
            {"loop": "authors' training step alone (all positions forward, backward, update)",
             "CPU s/epoch": round(as_cpu, 5), "wall s/epoch": round(as_wall, 5),
             "speed-up (wall)": round(a_wall / as_wall, 2)},
            {"loop": "library training step alone (1 fwd/bwd, last position)", "CPU s/epoch": round(s_cpu, 5),
             "wall s/epoch": round(s_wall, 5), "speed-up (wall)": round(a_wall / s_wall, 2)},
            {"loop": "library step + the authors' measurements every epoch (train/test loss and accuracy, MED)",
             "CPU s/epoch": round(s_cpu + am_cpu, 5), "wall s/epoch": round(s_wall + am_wall, 5),
             "speed-up (wall)": round(a_wall / (s_wall + am_wall), 2)},
            {"loop": f"library (1 fwd/bwd, last position; {n_evals} evaluations per {run.train.steps} epochs, "
                      "amortised)",
             "CPU s/epoch": round(lib_cpu, 5), "wall s/epoch": round(lib_wall, 5),
             "speed-up (wall)": round(a_wall / lib_wall, 2)}]
    # the speed-up split: the training step alone, and evaluating less often (same step, the authors'
    # per-epoch measurements every epoch vs the library's evaluations amortised)
    split = {"whole loop (authors' / library amortised)": round(a_cpu / lib_cpu, 2),
             "training step alone (authors' step / library step)": round(as_cpu / s_cpu, 2),
             "evaluating less often (library step + the authors' measurements every epoch / amortised)":
                 round((s_cpu + am_cpu) / lib_cpu, 2),
             "measured in": "CPU seconds of the process (one thread), robust to other load on the machine"}
    if authors_code:
        rows.insert(0, authors_own_row(authors_code, run, device, n))
        for r in rows[1:]:
            r["speed-up (wall)"] = round(rows[0]["wall s/epoch"] / r["wall s/epoch"], 2)
        rows[0]["speed-up (wall)"] = 1.0
    out = {"rows": rows, "speed-up split": split}
    if device.startswith("cuda"):
        out["ensemble"] = ensemble_rows(run, data, device, n)
    return out


if __name__ == "__main__":
    import argparse
    import os

    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--authors-code", default=None,
                    help="path of the authors' transformer/base.py (fetched, not committed) to time it too")
    ap.add_argument("--out", default=None, help="JSON file (default: next to this script; _cuda for a GPU)")
    args = ap.parse_args()
    res = main(device=args.device, authors_code=args.authors_code)
    name = "progress_measures_step" + ("_cuda" if args.device.startswith("cuda") else "")
    import datetime

    from companion.store.kept import commit

    out = {"setting": "p=97, alpha=0.3, d_model=128, 1 layer, full batch, 1 torch thread",
           "device": (torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"),
           "commit": commit(), "date": datetime.date.today().isoformat(),
           "load_average": os.getloadavg()[0], "torch": torch.__version__, **res}
    path = Path(args.out) if args.out else Path(__file__).with_name(name + ".json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
