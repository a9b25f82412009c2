"""Linear algebra that the library needs to behave the same at any thread count.

``torch.linalg.solve`` on a *batch* of systems fails with more than one intra-op thread in
torch 2.5–2.13 with MKL (pytorch/pytorch#142815: "Parameter 6 was incorrect on entry to
DLASWP", then "Pivots given to lu_solve must all be greater or equal to 1"; reproduced here at
2 threads with two 151×151 identity matrices). :func:`solve` runs it on one thread, which is
also what the book's chapters run with by default, so its results do not depend on the caller's
thread count.
"""

from __future__ import annotations

import torch


def solve(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """``torch.linalg.solve(A, B)`` (batched over leading axes) on one intra-op thread."""
    n = torch.get_num_threads()
    if n == 1:
        return torch.linalg.solve(A, B)
    torch.set_num_threads(1)
    try:
        return torch.linalg.solve(A, B)
    finally:
        torch.set_num_threads(n)
