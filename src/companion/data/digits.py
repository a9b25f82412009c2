"""Handwritten-digit data: real MNIST from IDX files when given, else scikit-learn's bundled digits.

No download happens here. :func:`load_digits_dataset` reads the four standard MNIST IDX files
(``train-images-idx3-ubyte`` etc., optionally ``.gz``) from ``mnist_dir`` (or the
``COMPANION_MNIST_DIR`` environment variable); without them it falls back to
``sklearn.datasets.load_digits`` (1,797 8×8 images, UCI), and says so in ``source_name``.
Pixels are scaled to [0, 1] and flattened.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import torch

from companion import runmode

_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")


def read_idx(path: str | Path) -> np.ndarray:
    """Read an IDX file (LeCun's MNIST format; gzip allowed): magic ``00 00 type ndim``, then
    ``ndim`` big-endian uint32 sizes, then the data."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        data = fh.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype not in _DTYPES:
        raise ValueError(f"{path} is not an IDX file (magic {data[:4].hex()})")
    shape = struct.unpack(f">{ndim}I", data[4:4 + 4 * ndim])
    arr = np.frombuffer(data, dtype=_DTYPES[dtype], offset=4 + 4 * ndim)
    if arr.size != int(np.prod(shape)):
        raise ValueError(f"{path}: header says {shape}, found {arr.size} values")
    return arr.reshape(shape)


def write_idx(path: str | Path, arr: np.ndarray) -> None:
    """Write ``arr`` (uint8) as an IDX file; used by the tests."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    with open(path, "wb") as fh:
        fh.write(struct.pack(">HBB", 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape))
        fh.write(arr.tobytes())


def _find(directory: Path, stem: str) -> Path | None:
    for name in (stem, stem + ".gz", stem.replace("-idx", ".idx")):
        if (directory / name).exists():
            return directory / name
    return None


SKLEARN_DIGITS = "scikit-learn load_digits (8×8 UCI digits; no MNIST files given)"
SKLEARN_N_IMAGES = 1797  # images in scikit-learn's digits


def digits_source(mnist_dir: str | Path | None = None) -> str:
    """Which images :func:`load_digits_dataset` will use: MNIST when ``mnist_dir`` (or
    ``COMPANION_MNIST_DIR``) is given, else scikit-learn's bundled 8×8 digits."""
    mnist_dir = mnist_dir or runmode.variable("COMPANION_MNIST_DIR")
    return f"MNIST (IDX files in {Path(mnist_dir).name})" if mnist_dir else SKLEARN_DIGITS


def load_digits_dataset(n_train: int, n_test: int, seed: int = 0, mnist_dir: str | Path | None = None):
    """``(X_train, y_train, X_test, y_test, source_name)``: float32 tensors in [0, 1] of shape
    ``(n, pixels)`` and int64 labels, a random disjoint split drawn from ``seed``.

    With MNIST files (Omnigrok / Fig. 6a protocol) both sets come from the 60k training split;
    otherwise from scikit-learn's 8×8 digits (``n_train + n_test ≤ 1797``).
    """
    mnist_dir = mnist_dir or runmode.variable("COMPANION_MNIST_DIR")
    if mnist_dir:
        d = Path(mnist_dir)
        img, lab = _find(d, MNIST_FILES[0]), _find(d, MNIST_FILES[1])
        if img is None or lab is None:
            raise FileNotFoundError(f"no MNIST IDX files ({', '.join(MNIST_FILES)}) in {d}")
        X = read_idx(img).reshape(-1, 28 * 28 if read_idx(img).ndim == 3 else -1).astype(np.float32) / 255.0
        y = read_idx(lab).astype(np.int64)
        source = f"MNIST (IDX files in {d.name})"
    else:
        from sklearn.datasets import load_digits

        ds = load_digits()
        X, y = ds.data.astype(np.float32) / 16.0, ds.target.astype(np.int64)
        source = SKLEARN_DIGITS
    if n_train + n_test > len(y):
        raise ValueError(f"asked for {n_train}+{n_test} images; {source} has {len(y)}")
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:n_train], perm[n_train:n_train + n_test]
    t = torch.from_numpy
    return t(X[tr].copy()), t(y[tr].copy()), t(X[te].copy()), t(y[te].copy()), source
