"""Datasets of the book, each a pure function of its sizes and a seed.

Modular arithmetic (Power et al. 2022; Nanda et al. 2023, §3): every pair (a, b) with
a, b ∈ {0, …, p−1} is labelled c = f(a, b) mod p; a random fraction of the p² pairs is the
training set and the rest the test set. Inputs are token sequences ``[a, b, =]`` with the
``=`` token numbered p, as in Nanda et al.'s code (``d_vocab = p + 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from companion.settings import one_of

#: the binary operations used across the papers, as functions of integer tensors
OPERATIONS: dict[str, Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]] = {
    "add": lambda a, b, p: (a + b) % p,
    "sub": lambda a, b, p: (a - b) % p,
    "mul": lambda a, b, p: (a * b) % p,
    # division a / b = a · b^(p−2) (Fermat), defined for b ≠ 0; b = 0 pairs are dropped
    "div": lambda a, b, p: (a * _pow_mod(b, p - 2, p)) % p,
    "x2+xy+y2": lambda a, b, p: (a * a + a * b + b * b) % p,
    "x2+y2": lambda a, b, p: (a * a + b * b) % p,
    "x3+xy": lambda a, b, p: (a ** 3 + a * b) % p,
}


def _pow_mod(x: torch.Tensor, e: int, p: int) -> torch.Tensor:
    out = torch.ones_like(x)
    base = x % p
    while e:
        if e & 1:
            out = (out * base) % p
        base = (base * base) % p
        e >>= 1
    return out


@dataclass(frozen=True)
class ModularData:
    """Full-batch train/test tensors of a modular-arithmetic task.

    ``*_x`` are int64 ``(n, 3)`` token sequences ``[a, b, p]``; ``*_y`` int64 labels in [0, p).
    """

    p: int
    op: str
    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor

    def to(self, device: str) -> "ModularData":
        return ModularData(self.p, self.op, *(t.to(device) for t in
                                              (self.train_x, self.train_y, self.test_x, self.test_y)))

    @property
    def n_train(self) -> int:
        return len(self.train_y)


def modular_table(p: int, op: str = "add") -> tuple[torch.Tensor, torch.Tensor]:
    """All pairs in row-major order: ``(pairs (n, 2), labels (n,))``; ``div`` drops b = 0."""
    one_of("operation", op, list(OPERATIONS))
    a = torch.arange(p).repeat_interleave(p)
    b = torch.arange(p).repeat(p)
    if op == "div":
        keep = b != 0
        a, b = a[keep], b[keep]
    return torch.stack([a, b], 1), OPERATIONS[op](a, b, p)


def with_equals(pairs: torch.Tensor, p: int) -> torch.Tensor:
    """Append the ``=`` token (numbered p) to each pair: ``(n, 2) -> (n, 3)``."""
    return torch.cat([pairs, torch.full((len(pairs), 1), p, dtype=pairs.dtype)], 1)


#: how :func:`modular_arithmetic` splits the table: ``random`` pairs (Power et al., Nanda et al.), or
#: ``symmetric``: a pair and its mirror — (a, b) and (b, a) — always on the same side, so that no held-out
#: pair of a commutative operation can be answered by recalling its trained mirror
SPLITS = ("random", "symmetric")


def modular_arithmetic(p: int, op: str = "add", train_frac: float = 0.3, seed: int = 0,
                       split: str = "random") -> ModularData:
    """A ``train_frac`` of all pairs for training, the rest for testing, drawn with
    ``torch.Generator().manual_seed(seed)``.

    ``split="random"``: a random permutation of the pairs (the papers' split). ``"symmetric"``: the
    unordered pairs {a, b} are drawn instead, each with both orders, so a held-out pair's mirror is
    held out too; a fraction ``train_frac`` of the mirrored couples and of the pairs without a mirror
    (a = b, or a mirror the table lacks) goes to training, so every seed trains on the same number of
    pairs. For a commutative operation a random split lets a model that memorised (b, a) answer the
    held-out (a, b) by symmetry alone (at p = 47 and 40% training pairs that is most of the test
    accuracy a transformer has when it fits its training set).
    """
    if not 0 < train_frac < 1:
        raise ValueError(f"train_frac must be in (0, 1), got {train_frac}")
    one_of("split", split, SPLITS)
    pairs, labels = modular_table(p, op)
    g = torch.Generator().manual_seed(seed)
    if split == "random":
        perm = torch.randperm(len(labels), generator=g)
        n_train = int(round(train_frac * len(labels)))
        tr, te = perm[:n_train], perm[n_train:]
    else:
        a, b = pairs[:, 0], pairs[:, 1]
        index = torch.full((p * p,), -1, dtype=torch.long)
        index[a * p + b] = torch.arange(len(labels))
        mirror = index[b * p + a]
        couples = ((a < b) & (mirror >= 0)).nonzero().squeeze(1)  # one row per mirrored couple
        singles = ((a == b) | (mirror < 0)).nonzero().squeeze(1)
        couples = couples[torch.randperm(len(couples), generator=g)][: int(round(train_frac * len(couples)))]
        singles = singles[torch.randperm(len(singles), generator=g)][: int(round(train_frac * len(singles)))]
        chosen = torch.cat([couples, mirror[couples], singles])
        tr = chosen[torch.randperm(len(chosen), generator=g)]
        held = torch.ones(len(labels), dtype=torch.bool)
        held[tr] = False
        te = held.nonzero().squeeze(1)
    x = with_equals(pairs, p)
    return ModularData(p, op, x[tr], labels[tr], x[te], labels[te])


# Levi et al. App. G: the whole addition table at once, with one training mask per fraction.
def split_masks(p: int, train_fracs: tuple, seed: int) -> torch.Tensor:
    """(n_fracs, p²) boolean training masks over the row-major addition table (a·p + b), each
    from :func:`modular_arithmetic`'s split at that training fraction."""
    masks = torch.zeros(len(train_fracs), p * p, dtype=torch.bool)
    for i, a in enumerate(train_fracs):
        x = modular_arithmetic(p, "add", a, seed).train_x
        masks[i, x[:, 0] * p + x[:, 1]] = True
    return masks


def addition_table(p: int, device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The full table of a + b mod p in row-major order: operands a, b and sums c, each (p²,)."""
    a = torch.arange(p, device=device).repeat_interleave(p)
    b = torch.arange(p, device=device).repeat(p)
    return a, b, (a + b) % p


# --------------------------------------------------------------------------------------------
# Gu et al. ("Beyond Progress Measures", §4, Table 1, Fig. 3, App. D): any binary f(i, j) mod p,
# an operand offset k, and designed train/test layouts (appended by the progress_measures chapter).
OPERATIONS.setdefault("x3+y3", lambda a, b, p: (a ** 3 + b ** 3) % p)
OPERATIONS.setdefault("x3+xy+y3", lambda a, b, p: (a ** 3 + a * b + b ** 3) % p)
SPLIT_SHAPES = ("random", "square", "strip")


def hole_mask(a: torch.Tensor, b: torch.Tensor, shape: str, hole: int) -> torch.Tensor:
    """Pairs held out by design (Gu et al. Fig. 3, Table 1): ``square`` = {a ≤ hole, b ≤ hole},
    ``strip`` = {a ≤ hole, any b}; ``random`` holds nothing out by design. ``b`` is the operand
    before the offset."""
    one_of("split shape", shape, SPLIT_SHAPES)
    if shape == "square":
        return (a <= hole) & (b <= hole)
    if shape == "strip":
        return a <= hole
    return torch.zeros_like(a, dtype=torch.bool)


def modular_split(p: int, op: str = "add", k: int = 0, shape: str = "random", hole: int = 0,
                  train_frac: float = 0.3, seed: int = 0) -> ModularData:
    """Gu et al.'s task: tokens ``[i, j + k, p + k]``, label ``f(i, j + k) mod p`` (the offset
    enters the label too; App. D), vocabulary ``p + k + 1``.

    The held-out ``hole`` (:func:`hole_mask`) goes to the test set; the other pairs are shuffled
    with ``torch.Generator().manual_seed(seed)`` and the first ``int(train_frac·p²)`` of them
    train (all of them when fewer remain, as in the authors' code); the rest are test pairs.
    """
    if not 0 < train_frac < 1:
        raise ValueError(f"train_frac must be in (0, 1), got {train_frac}")
    pairs, _ = modular_table(p, "add")  # row-major (i, j); labels recomputed with the offset
    a, b = pairs[:, 0], pairs[:, 1]
    labels = OPERATIONS[op](a, b + k, p)
    x = torch.stack([a, b + k, torch.full_like(a, p + k)], 1)
    held = hole_mask(a, b, shape, hole)
    free = torch.nonzero(~held).squeeze(1)
    free = free[torch.randperm(len(free), generator=torch.Generator().manual_seed(seed))]
    n_train = min(int(train_frac * p * p), len(free))
    tr = free[:n_train]
    te = torch.cat([torch.nonzero(held).squeeze(1), free[n_train:]])
    return ModularData(p, op, x[tr], labels[tr], x[te], labels[te])
