"""Training: the one loop (:mod:`~companion.train.fit`), its optimizers
(:mod:`~companion.train.optim`), classifiers that are modules (:mod:`~companion.train.trainer`),
vmapped ensembles (:mod:`~companion.train.ensemble`) and GrokFast's gradient filter
(:mod:`~companion.train.grokfast`)."""

from companion.train.fit import every, fit, log_steps  # noqa: F401  (the package's public names)
from companion.train.optim import OPTIMIZERS, BatchedOptimizer, make_optimizer  # noqa: F401
from companion.train.trainer import (  # noqa: F401
    TrainConfig,
    cross_entropy,
    evaluate,
    optimizer_for,
    train,
    train_batched,
    weight_norm,
)
