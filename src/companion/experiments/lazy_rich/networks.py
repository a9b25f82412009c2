"""The non-polynomial networks of Kumar et al.: the x² MLP on modular addition (Figs. 2, 16),
the tanh student–teacher (Figs. 8, 17, 18), its linearisation under AdamW (Fig. 13b) and the
digits MLP (Fig. 6a). Networks and their training: :mod:`companion.models.lazy_rich`."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.data.digits import SKLEARN_DIGITS, SKLEARN_N_IMAGES, digits_source, load_digits_dataset
from companion.data.modular import modular_arithmetic
from companion.events import (
    NOT_OBSERVED,
    first_crossing,
    increasing,
    interpolated_fall,
    interpolated_rise,
    observed,
    ratio,
)
from companion.experiments.lazy_rich.measures import seed_views, split_seeds, tracks_until, transpose
from companion.settings import unstated
from companion.store.cache import experiment
from companion.train.fit import log_steps
from companion.train.lazy_rich import (
    DigitsTraining,
    StudentTeacherTraining,
    train_digits_mlp,
    train_modular_mlp,
    train_st_linearised,
    train_student_teacher,
)

PAPER_LR0 = 100.0  # Fig. 2: the paper's learning rate; epochs are reported in its units


# --------------------------------------------------------------------------- Figs. 2, 16
@dataclass(frozen=True)
class ModularMLP:
    """App. 8.3: p=23 modular addition, 2-layer x² MLP (N=100), MSE, GD lr 100/s², no weight
    decay, 90% train, 100k epochs (50k for Fig. 2a,b), scales s ∈ {0.5, 1, 1.5, 2}."""

    p: int = 23  # modulus
    N: int = 100  # hidden units
    scales: tuple = (0.5, 1.0, 1.5, 2.0)  # output scales s (α_eff = s²)
    lr0: float = 100.0  # GD learning rate lr0/s²
    train_frac: float = 0.9  # fraction of the p² pairs in the training set
    steps: int = 100_000  # full-batch GD steps
    seed: int = unstated(1)  # data split and init
    n_log: int = 150  # log-spaced evaluation steps
    init_seeds: tuple = unstated((1, 2, 3))  # init seeds, each running every scale (batched)


FIG2 = ModularMLP()
FIG2_PROFILES = {"paper": FIG2,
                 # GD with a 4× larger step is the same flow in 4× fewer steps (stable here)
                 # 400 evaluations: at 150 the three init seeds' first perfect-train epochs fell on one grid point
                 "cpu": replace(FIG2, scales=(0.5, 0.75, 1.0), lr0=400.0, steps=8_000, n_log=400),
                 "smoke": replace(FIG2, scales=(0.5, 1.0), lr0=400.0, steps=1_500)}
SHOWN_SCALE = 1.0  # Figs. 2a, b and 16 show the run at s = 1


@experiment
def fig2(cfg: ModularMLP, device: str = "cpu") -> dict:
    """Chapter Figs. 2 and 16: one batched run per output scale."""
    data = modular_arithmetic(cfg.p, "add", cfg.train_frac, cfg.seed)
    r = train_modular_mlp(data, cfg.scales, cfg.N, cfg.steps, log_steps(cfg.steps, cfg.n_log), cfg.lr0, cfg.seed,
                          init_seeds=cfg.init_seeds, device=device)
    r["scales"] = list(cfg.scales)
    r["epochs"] = r["step"] * cfg.lr0 / PAPER_LR0  # in the paper's lr-100 epochs
    return split_seeds(r, len(cfg.scales), len(cfg.init_seeds or (cfg.seed,)))


@dataclass(frozen=True)
class ModularScales:
    """Figs. 2 and 16: the s = 1 run and the scale sweep (epochs in the paper's lr units), one
    list entry per init seed."""

    shown: int  # index of the s = 1 run
    t_train: list  # s = 1: epoch train acc first reaches 1 (perfect classification)
    t_test: list  # s = 1: epoch test acc first reaches 0.9
    delay_ratio: list  # s = 1: t_test / t_train
    norm_growth: list  # s = 1: final / initial ‖W1‖ + ‖W2‖
    ratios: list  # per scale: epoch test acc ≥ 0.9 / epoch train acc first perfect (t_te / t_tr)
    delay_increases_with_scale: list  # t_te / t_tr increases with s
    loss_before_fit: list  # s = 1: min test MSE before train acc reaches 1 / initial (Fig. 16)
    loss_dip_over_acc: list  # s = 1: epoch test MSE first falls below the train MSE at perfect train acc / t_test


def _fig2(r: dict) -> ModularScales:
    i = r["scales"].index(SHOWN_SCALE)
    e = r["epochs"]
    t_tr = first_crossing(e, r["train_acc"][i], 1.0)
    t_te = [first_crossing(e, r["test_acc"][k], 0.9) for k in range(len(r["scales"]))]
    rs = [ratio(t_te[k], first_crossing(e, r["train_acc"][k], 1.0), floor=None) for k in range(len(r["scales"]))]
    before = np.nonzero(r["train_acc"][i] < 1.0)[0]
    fit = np.nonzero(r["train_acc"][i] >= 1.0)[0]
    dip = first_crossing(e, r["test_loss"][i], float(r["train_loss"][i][fit[0]]), below=True) if len(fit) \
        else NOT_OBSERVED
    return ModularScales(i, t_tr, t_te[i], ratio(t_te[i], t_tr, floor=None), float(r["norm"][i, -1] / r["norm"][i, 0]),
                         rs, increasing(rs), float(r["test_loss"][i][before].min() / r["test_loss"][i, 0]),
                         ratio(dip, t_te[i], floor=None))


def fig2_summary(r: dict) -> ModularScales:
    """Figs. 2 and 16's numbers, per init seed."""
    return transpose([_fig2(v) for v in seed_views(r)])


# --------------------------------------------------------------------------- Figs. 8, 17, 18, 13b
@dataclass(frozen=True)
class StudentTeacher:
    """App. 8.3.1 (Liu et al. 2022a): 5-100-100-5 tanh student/teacher, student init × 2, output
    × scale, AdamW lr 3e-4 wd 0.05, 100 train/100 test, 10k epochs; correct if MSE < threshold."""

    scales: tuple = (0.1, 0.25, 0.5, 0.75, 1.0, 3.0)  # output scales (one batched run each)
    steps: int = 10_000  # full-batch AdamW steps
    thresholds: tuple = (1e-3,)  # a sample is correct if its MSE is below the threshold
    n_log: int = 100  # log-spaced evaluation steps
    seeds: tuple = unstated((0, 1, 2, 3, 4))  # teacher 3s, student 3s+1, data 3s+2 (batched); 5: scale 1 straddles


FIG8 = StudentTeacher()
FIG8_PROFILES = {"paper": FIG8, "cpu": replace(FIG8, steps=3_000), "smoke": replace(FIG8, steps=300, seeds=(0, 1, 2))}
FIG17 = StudentTeacher(scales=(1.0,), steps=100_000, thresholds=(1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.1))
FIG17_PROFILES = {"paper": FIG17,
                  # Fig. 8's budget (10k): Fig. 8's scale-1 criterion is read on this run (scale_one_delay)
                  "cpu": replace(FIG17, steps=10_000),
                  "smoke": replace(FIG17, steps=300, seeds=(0, 1, 2))}


@experiment
def student_teacher(cfg: StudentTeacher, device: str = "cpu") -> dict:
    """Chapter Figs. 8, 17 and 18: one batched run per output scale, accuracy per threshold."""
    how = StudentTeacherTraining(cfg.steps, log_steps(cfg.steps, cfg.n_log), thresholds=cfg.thresholds)
    r = train_student_teacher(cfg.scales, how, seeds=cfg.seeds, device=device)
    r["scales"] = list(cfg.scales)
    return split_seeds(r, len(cfg.scales), len(cfg.seeds))


@dataclass(frozen=True)
class ScaleSweep:
    """Fig. 8 (threshold 10⁻³), per seed: t_te(acc 0.5) / t_tr(acc 0.9) of every scale."""

    scales: list
    final_acc_decreasing: list  # final test accuracy decreases with the scale
    ratios: list  # per scale: t_te(acc 0.5) / t_tr(acc 0.9) (not observed: not generalised in the run)
    ratio_increasing: list  # t_te(acc 0.5) / t_tr(acc 0.9) increases with the scale (not observed if any is)
    smallest_ratio: list  # at the smallest scale
    liu_ratio: list  # at scale 1 (Liu et al.'s experiment)
    largest_ratio: list  # at the largest scale


def _fig8(r: dict) -> ScaleSweep:
    fin = r["test_acc"][:, 0, -1]
    s = r["step"]
    rr = [ratio(interpolated_rise(s, r["test_acc"][k, 0], 0.5), interpolated_rise(s, r["train_acc"][k, 0], 0.9),
                floor=None) for k in range(len(r["scales"]))]
    return ScaleSweep(list(r["scales"]), increasing(-fin), rr, increasing(rr), rr[0], rr[r["scales"].index(1.0)],
                      rr[-1])


def fig8_summary(r: dict) -> ScaleSweep:
    """Fig. 8's numbers, per seed."""
    return transpose([_fig8(v) for v in seed_views(r)])


def scale_one_delay(r: dict, theta: float = 1e-3) -> list:
    """Fig. 8's criterion, t_te(acc 0.5) / t_tr(acc 0.9) at threshold ``theta``, of the scale-1
    student of a Fig. 17 run (:data:`FIG17`: the same student, teacher and data seeds as Fig. 8's
    scale 1, run longer), per seed."""
    i = list(r["thresholds"]).index(theta)
    return [ratio(interpolated_rise(v["step"], v["test_acc"][0, i], 0.5),
                  interpolated_rise(v["step"], v["train_acc"][0, i], 0.9), floor=None) for v in seed_views(r)]


@dataclass(frozen=True)
class Thresholds:
    """Figs. 17, 18: one run's accuracy under several thresholds, and its losses (per seed)."""

    t_tight: list  # first step test acc ≥ 0.9 at the tightest threshold that reaches it
    t_loose: list  # ... at the loosest threshold θ = 0.1
    tight_theta: float  # that tightest threshold
    threshold_ratio: list  # t_tight / t_loose
    tight_delay: list  # at the tight threshold: step test acc ≥ 0.9 / step train acc ≥ 0.9 (the chapter's criterion)
    loose_delay: list  # the same at θ = 0.1
    gap_first_tenth: list  # largest test / train loss over the first 10% of the steps (Fig. 18)
    gap_whole_run: list  # largest test / train loss over the whole run


TIGHT_THETAS = (1e-3, 5e-3, 0.01)  # Fig. 17: the tight thresholds, tightest first


def _fig17(r: dict, theta: float) -> Thresholds:
    th = list(r["thresholds"])
    t_loose = interpolated_rise(r["step"], r["test_acc"][0, th.index(0.1)], 0.9)
    t_tight = interpolated_rise(r["step"], r["test_acc"][0, th.index(theta)], 0.9)
    s = np.asarray(r["step"])
    gap = r["test_loss"][0] / r["train_loss"][0]
    first = s <= 0.1 * s[-1]
    def delay(t_test, th_):  # t_te / t_tr at one threshold (a first step of 0 counts as step 1)
        t_train = interpolated_rise(r["step"], r["train_acc"][0, th.index(th_)], 0.9)
        both = observed(t_test) and observed(t_train)
        return ratio(max(t_test, 1.0), max(t_train, 1.0), floor=None) if both else NOT_OBSERVED

    tight_over_loose = ratio(t_tight, max(t_loose, 1.0), floor=None) if observed(t_loose) else NOT_OBSERVED
    return Thresholds(t_tight, t_loose, theta, tight_over_loose,
                      delay(t_tight, theta), delay(t_loose, 0.1), float(gap[first].max()), float(gap.max()))


def fig17_summary(r: dict) -> Thresholds:
    """Figs. 17 and 18's numbers, per seed: the tight threshold is the tightest of TIGHT_THETAS
    (among those the run has) at which every seed's test accuracy reaches 0.9, so both events
    of the comparison are observed under the same budget."""
    views = seed_views(r)
    th = list(r["thresholds"])
    ok = [t for t in TIGHT_THETAS if t in th
          and all(observed(interpolated_rise(v["step"], v["test_acc"][0, th.index(t)], 0.9)) for v in views)]
    theta = ok[0] if ok else [t for t in TIGHT_THETAS if t in th][-1]
    return transpose([_fig17(v, theta) for v in views])


@dataclass(frozen=True)
class StudentTeacherLinearised:
    """App. 14 Fig. 13b: bias-free tanh student–teacher (width 100, D=5, P=100), AdamW lr 3e-3,
    wd 0.1, 20k epochs, with the linearised student."""

    steps: int = 20_000  # full-batch AdamW steps
    width: int = 100  # hidden width
    n_log: int = 80  # log-spaced evaluation steps
    seeds: tuple = unstated((0,))  # teacher 10s, student 10s + 1, data 10s + 3 (batched)


FIG13B_PROFILES = {"paper": StudentTeacherLinearised(),
                   "cpu": StudentTeacherLinearised(steps=1_500, seeds=(0, 1, 2)),
                   "smoke": StudentTeacherLinearised(steps=100, width=20)}


@experiment
def fig13b(cfg: StudentTeacherLinearised, device: str = "cpu") -> dict:
    """Chapter Fig. 13b: the student and its linearisation, both trained with AdamW."""
    return train_st_linearised(cfg.steps, log_steps(cfg.steps, cfg.n_log), width=cfg.width, seeds=cfg.seeds)


def fig13b_tracking(r: dict) -> list:
    """Fig. 13b, per seed: last step at which the linearised student's test loss is within 5% of
    the network's (a kept result of one seed holds 1-d curves)."""
    net, lin = np.atleast_2d(r["test_loss"]), np.atleast_2d(r["lin_test"])
    return [tracks_until(r["step"], a, b, 0.05) for a, b in zip(net, lin)]


def fig13b_tracking_over_half(r: dict) -> list:
    """Fig. 13b, per seed: the last step the linearised student's test loss is within 5% of the network's, over
    the step the network's test loss halves (App. 14: the linearisation tracks the model "until the loss
    halves, before diverging then"); not observed if the loss never halves."""
    net = np.atleast_2d(r["test_loss"])
    return [ratio(t, interpolated_fall(r["step"], a, a[0] / 2), floor=None) for t, a in zip(fig13b_tracking(r), net)]


# --------------------------------------------------------------------------- Fig. 6a
@dataclass(frozen=True)
class Digits:
    """Fig. 6a (Omnigrok MNIST protocol): 1000 train / 2000 test images, ReLU MLP 3×200, default
    init × 8, centred output × α, MSE, AdamW lr 1e-3 wd 0.01, batch 200, 250k steps."""

    n_train: int = 1000  # training images
    n_test: int = 2000  # test images
    alphas: tuple = (1e-4, 1e-3, 1e-2, 1.0)  # output scales (one batched run each)
    width: int = 200  # hidden width
    depth: int = 3  # hidden layers
    init_mult: float = 8.0  # PyTorch default init × init_mult
    steps: int = 250_000  # AdamW steps on mini-batches
    seed: int = 0  # data split, init; mini-batch order seed + 1
    n_log: int = 60  # log-spaced evaluation steps
    seeds: tuple = unstated(())  # data split / init seeds, each running every α (batched); () = (seed,)


FIG6A = Digits()
FIG6A_PROFILES = {"paper": FIG6A,
                  # scikit-learn's digits has 1797 images in all
                  "cpu": replace(FIG6A, n_test=797, alphas=(1e-3, 1e-2, 1.0), width=100, depth=2, steps=1_500,
                                 seeds=(0, 1, 2)),
                  "smoke": replace(FIG6A, n_test=797, alphas=(1e-3, 1.0), width=32, depth=2, steps=200)}


def digits_that_fit(cfg: Digits) -> Digits:
    """``cfg`` as it can run on the images at hand: without MNIST files, scikit-learn's 1797 digits, and the
    test set is what the training images leave (797 beside the paper's 1000; the reduced profiles ask for that)."""
    if digits_source() == SKLEARN_DIGITS and cfg.n_train + cfg.n_test > SKLEARN_N_IMAGES:
        return replace(cfg, n_test=SKLEARN_N_IMAGES - cfg.n_train)
    return cfg


@experiment
def fig6a(cfg: Digits, device: str = "cpu") -> dict:
    """Chapter Fig. 6a: one run per (seed, α) on MNIST (if given) or scikit-learn's digits, all one
    batched tensor program."""
    seeds = cfg.seeds or (cfg.seed,)
    loaded = [load_digits_dataset(cfg.n_train, cfg.n_test, s) for s in seeds]
    how = DigitsTraining(cfg.steps, log_steps(cfg.steps, cfg.n_log), cfg.width, cfg.depth, cfg.init_mult)
    r = train_digits_mlp([d[:4] for d in loaded], cfg.alphas, how, seeds=seeds)
    r["alphas"], r["source"], r["seeds"] = list(cfg.alphas), loaded[0][4], list(seeds)
    return split_seeds(r, len(cfg.alphas), len(seeds))


@dataclass(frozen=True)
class DigitsDelay:
    """Fig. 6a at the largest α (the laziest run), per seed."""

    delay_ratio: list  # t(test acc 0.9) / t(train acc 0.9) (not observed if either never happens)
    lazy_test_at_fit: list  # test accuracy when train accuracy first reaches 0.9
    is_mnist: list  # the data are MNIST (else scikit-learn's 8×8 digits)


def _fig6a(r: dict) -> DigitsDelay:
    a_ = interpolated_rise(r["step"], r["train_acc"][-1], 0.9)
    b_ = interpolated_rise(r["step"], r["test_acc"][-1], 0.9)
    hit = np.nonzero(np.asarray(r["train_acc"][-1]) >= 0.9)[0]
    at_fit = float(r["test_acc"][-1][hit[0]]) if len(hit) else NOT_OBSERVED
    return DigitsDelay(ratio(b_, max(a_, 1.0), floor=None) if observed(a_) else NOT_OBSERVED, at_fit,
                       r["source"].startswith("MNIST"))


def fig6a_summary(r: dict) -> DigitsDelay:
    """Fig. 6a's numbers, one list entry per seed."""
    return transpose([_fig6a(v) for v in seed_views(r)])


@dataclass(frozen=True)
class ScaleTimes:
    """Fig. 2c at a reduced profile: when each scale generalises, and what the paper's larger scales
    would need (a power law in s through the scales run, per init seed)."""

    scales: list  # the scales run
    t_test: list  # per seed, epoch test acc first ≥ 0.9 at each scale (paper's lr units)
    exponent: list  # per seed, slope of log t_test against log s
    missing: list  # the paper's scales not run
    predicted: list  # per seed, the power law's epoch at each missing scale
    run_epochs: float  # length of this profile's run, in the paper's epochs
    largest: list  # per seed, the predicted epoch at the largest missing scale
    cost_factor: list  # per seed, all scales batched for the largest prediction / this run's cost


def fig2_scale_times(r: dict, paper_scales: tuple) -> ScaleTimes:
    """Per init seed, the epochs to test accuracy 0.9 at every scale run, their power law in s, and
    its prediction for the scales of ``paper_scales`` the run lacks (not observed if a scale never
    generalised)."""
    views = seed_views(r)
    scales = list(r["scales"])
    missing = [s for s in paper_scales if s not in scales]
    ts, ex_, pr = [], [], []
    for v in views:
        t = [first_crossing(v["epochs"], v["test_acc"][k], 0.9) for k in range(len(scales))]
        ts.append(t)
        if all(observed(x) for x in t):
            slope, icpt = np.polyfit(np.log(scales), np.log(np.asarray(t, dtype=float)), 1)
            ex_.append(float(slope)), pr.append([float(np.exp(icpt) * s ** slope) for s in missing])
        else:
            ex_.append(NOT_OBSERVED), pr.append([NOT_OBSERVED] * len(missing))
    run = float(r["epochs"][-1])
    cost = [max(p) / run * (len(scales) + len(missing)) / len(scales) if p and all(map(observed, p)) else NOT_OBSERVED
            for p in pr]  # no missing scale (the paper profile): nothing to cost
    return ScaleTimes(scales, ts, ex_, missing, pr, run, [p[-1] if p else NOT_OBSERVED for p in pr], cost)
