"""A training step without the host: captured once in a CUDA graph and replayed.

The book's networks are small, and on a GPU their steps are bound by the host, not the chip: a full-batch AdamW
step of the one-layer transformer dispatches about 570 operators, 8.2 ms on an H100 against ≈ 0.6 ms of kernels
(``benchmarks/gpu_engine.md``). Replayed from a CUDA graph, the same kernels run without Python or the dispatcher
between them.

A step can be captured when everything it reads stays where it is between steps: a full-batch loss of fixed
tensors (the caller says so: ``fit(..., static=True)``), the parameters, their gradients, and a
:class:`~companion.train.optim.BatchedOptimizer` whose learning rates, moments and step count live on the device
(its warm-up factor is the tensor ``scale``, filled before each replay). :func:`fit <companion.train.fit.fit>`
takes :data:`WARM_STEPS` ordinary steps on a side stream first (the kernels' lazy set-up stays out of the graph),
captures the next one, and replays it from then on; a capture that fails leaves training eager, with a warning.
The replayed step runs the very kernels of the eager one, so it computes the same numbers; on a CPU the same path
(a tensor ``scale``, the bias corrections from the device's step count) is what the tests compare with the eager
one. ``COMPANION_CUDA_GRAPHS=0`` turns capture off.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Callable, Sequence

import torch

from companion import runmode
from companion.train.optim import BatchedOptimizer

#: eager steps before the capture (their kernels set up their workspaces outside the graph)
WARM_STEPS = 3


def enabled(params: Sequence[torch.Tensor]) -> bool:
    """Whether steps over ``params`` are captured where they can be: on a GPU, unless ``COMPANION_CUDA_GRAPHS=0``."""
    return bool(params) and params[0].is_cuda and runmode.variable("COMPANION_CUDA_GRAPHS", "1") != "0"


def capturable(params: Sequence[torch.Tensor], optimizer, grad_filter) -> bool:
    """Whether :func:`fit <companion.train.fit.fit>` may capture this loop's step: :func:`enabled`, with a
    :class:`BatchedOptimizer` and no gradient filter."""
    return enabled(params) and isinstance(optimizer, BatchedOptimizer) and grad_filter is None


def warm_stream(device: torch.device):
    """The context the eager steps before a capture run in: a side stream on a GPU (as PyTorch's whole-network
    capture asks), nothing on a CPU."""
    if device.type != "cuda":
        return contextlib.nullcontext()
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))

    @contextlib.contextmanager
    def on_side():
        with torch.cuda.stream(side):
            yield
        torch.cuda.current_stream(device).wait_stream(side)
    return on_side()


def graph_ready_step(optimizer: BatchedOptimizer, loss: Callable[[], torch.Tensor]) -> Callable[[], None]:
    """The step as a graph captures it: gradients of ``loss()`` written afresh, the update read from the device
    (the optimizer's ``scale`` and step count). On a CPU this is the path the tests hold against the eager one."""
    def body() -> None:
        loss().backward()
        optimizer.step(optimizer.scale)
    return body


def capture(optimizer: BatchedOptimizer, loss: Callable[[], torch.Tensor]):
    """The graph of one step (:func:`graph_ready_step`), or None (with a warning) where capture fails. Nothing
    is computed by the capture itself: the caller replays it for the step it stands for."""
    params = optimizer.params
    torch.cuda.synchronize(params[0].device)
    optimizer.zero_grad(set_to_none=True)  # the captured backward allocates the gradients it rewrites
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            graph_ready_step(optimizer, loss)()
    except Exception as exc:  # noqa: BLE001 — any failure means: train eagerly
        warnings.warn(f"CUDA graph capture failed ({type(exc).__name__}: {exc}); training eagerly", stacklevel=2)
        optimizer.zero_grad(set_to_none=True)
        return None
    return graph
