"""What one iteration of a training loop asks of a device: its floating-point operations and its operator calls.

A dry run on the CPU (``companion run --dry-run``) counts both for one plain step and one evaluation step of every
loop it probes (:func:`companion.store.slices.steps`), so the cost of an experiment on a GPU can be modelled before
a GPU is at hand (:mod:`companion.pipeline.gpu_cost`):

* **FLOPs** as :class:`torch.utils.flop_counter.FlopCounterMode` counts them: matrix products, convolutions and
  attention (two per multiply-add); elementwise work is not counted, so this is the compute a step cannot avoid;
* **operator calls**: every ATen operator dispatched (a ``_foreach_`` call counts once). On a GPU each is about one
  kernel launch, so for the book's small networks, whose steps are bound by launches and the host rather than by
  arithmetic, the count sets the time a step takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode


@dataclass(frozen=True)
class Count:
    """FLOPs and operator calls of one iteration."""

    flops: int
    ops: int


class _Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


class Counter:
    """A context counting what runs inside it; :attr:`count` holds the result once it exits."""

    def __init__(self):
        self._flops = FlopCounterMode(display=False)
        self._ops = _Ops()
        self.count: Count | None = None

    def __enter__(self) -> "Counter":
        self._flops.__enter__()
        self._ops.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ops.__exit__(*exc)
        self._flops.__exit__(*exc)
        self.count = Count(int(self._flops.get_total_flops()), self._ops.n)
