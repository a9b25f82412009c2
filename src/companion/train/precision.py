"""The arithmetic a training run computes in on a GPU, in one place: the precisions a config may name
(:data:`PRECISIONS`), what each one sets while a run trains (:func:`scope`), which runs may use a reduced one
(:data:`ELIGIBLE`), which of those were shown to agree with float32 (:data:`VALIDATED`), and the override that
asks for one (``COMPANION_PRECISION``, :func:`override`).

Issue 37, item 4: TF32 or bf16 for the wide transformers and the ResNet only after a run compared against
float32 (the claims' values agree within their stated tolerance; recorded); float32 kept wherever a claim reads
a loss at 1e-4. So a reduced precision is never a default. A config names its precision in a field declared
with :func:`precision_field`: at ``"float32"`` the field is left out of the configuration's description
(:data:`companion.store.entries.KEY_OMITS_DEFAULT`), so every cache and kept-result key computed before the
field existed stands; at ``"tf32"`` or ``"bf16"`` it enters both keys, so a reduced-precision result never
stands in for a float32 one, and the two are kept side by side.

On a CPU the precision changes nothing: a CPU computes float32 whatever the config says (and the tests check
it bit for bit). The key still carries the precision, and the device kind enters the cache key, so a CPU entry
never stands in for a GPU one either.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, Iterator

import torch

from companion import runmode
from companion.settings import one_of
from companion.store.entries import KEY_OMITS_DEFAULT

#: ``float32``: IEEE float32 for matmuls and convolutions; ``tf32``: TensorFloat-32 tensor cores for both
#: (10 mantissa bits in the products, float32 sums); ``bf16``: bfloat16 autocast (float32 weights and optimizer)
PRECISIONS = ("float32", "tf32", "bf16")
#: the name of the config field that holds a precision (:func:`precision_field`, :func:`apply`)
FIELD = "precision"

#: the runs the issue names as candidates for a reduced precision: the arithmetic-bound ones, where TF32 or bf16
#: can buy time (``benchmarks/gpu_engine.md``), by ``<chapter>.<registry entry>``. Only at the paper profile
#: (:func:`override`); a family is run at a reduced precision only once a window has compared it with float32.
ELIGIBLE = {
    "groktransfer.fig8a": "Fig. 8a: GrokTransfer's 8-layer, d = 512 transformers on addition (tf_run)",
    "groktransfer.fig13_left": "Fig. 13 left: the same 8-layer transformers on multiplication (tf_run)",
    "groktransfer.fig13_right": "Fig. 13 right: 2- and 4-layer transformers on (40, 3)-parity (tf_parity)",
    "progress_measures.widths": "Figs. 9–11: Gu et al.'s wide one-layer transformers, d_model up to 2048 "
                                "(modular_run, trained in batches by _runs_batch)",
    "progress_measures.fig7": "Fig. 7: Gu et al.'s ResNet-18 on the polygons (image_run)",
}

#: the families of :data:`ELIGIBLE` whose reduced precision a window compared with float32 and found in
#: agreement: family -> {"precision", "device", "date", "commit", "claims_diff"} (the ``companion claims --diff``
#: of the two paper-scale builds that showed every claim's verdict the same and its values within tolerance).
#: Empty: nothing is validated yet (``benchmarks/gpu_engine.md``, "Item 4: precision", says how).
VALIDATED: dict[str, dict[str, str]] = {}


def check(precision: str) -> str:
    """``precision`` if it is one of :data:`PRECISIONS`, else the one-line error listing them."""
    return one_of("precision", precision, PRECISIONS)


def precision_field(default: str = "float32") -> Any:
    """A config's precision field: ``default`` (float32), left out of the keys at its default
    (:data:`companion.store.entries.KEY_OMITS_DEFAULT`), so that configs that gain it keep their keys."""
    return dataclasses.field(default=default, metadata=KEY_OMITS_DEFAULT)


def _backends() -> tuple:
    """The TF32 settings of cuBLAS matmuls and cuDNN convolutions (torch ≥ 2.9's ``fp32_precision`` API: ``ieee``,
    ``tf32`` or ``none``, which defers to the backend's default)."""
    return torch.backends.cuda.matmul.fp32_precision, torch.backends.cudnn.conv.fp32_precision


def _set_backends(matmul: str, conv: str) -> None:
    # only the fp32_precision API: mixing it with the legacy allow_tf32 flags makes torch raise
    torch.backends.cuda.matmul.fp32_precision = matmul
    torch.backends.cudnn.conv.fp32_precision = conv


@contextlib.contextmanager
def scope(precision: str, device: Any) -> Iterator[None]:
    """Train in ``precision`` on ``device`` (a ``torch.device`` or its name) for the block; the previous
    settings come back after it.

    On a CUDA device:

    * ``float32`` — IEEE float32 for matmuls and convolutions alike. torch's defaults differ: matmuls are IEEE
      (``torch.backends.cuda.matmul``) but cuDNN may use TF32 for convolutions (``torch.backends.cudnn.conv``'s
      ``tf32``, formerly ``cudnn.allow_tf32 = True``), so a GPU convolution outside this scope is in fact TF32.
    * ``tf32`` — TF32 tensor cores for matmuls and convolutions.
    * ``bf16`` — the block under bfloat16 autocast (weights, gradients and the optimizer stay float32; what
      autocast keeps in float32 is IEEE). Its weight cache is off: the block spans many optimizer steps (and
      maybe a captured CUDA graph), and a cached bfloat16 copy of a weight would outlive the weight's update.

    On a CPU nothing is set: a CPU computes float32 whatever ``precision`` says. ``COMPANION_PRECISION_SCOPE=0``
    sets nothing on a GPU either (torch's defaults: what the runs before this module computed in), the fallback of
    a GPU window whose precision tests failed (``benchmarks/gpu_window.sh``); a reduced precision is then refused.
    """
    check(precision)
    if torch.device(device).type != "cuda":
        yield
        return
    if runmode.variable("COMPANION_PRECISION_SCOPE") == "0":
        if precision != "float32":
            raise RuntimeError(f"precision {precision!r} needs the precision scope, which COMPANION_PRECISION_SCOPE=0 "
                               "turned off")
        yield
        return
    before = _backends()
    mode = "tf32" if precision == "tf32" else "ieee"
    _set_backends(mode, mode)
    try:
        if precision == "bf16":
            with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False):
                yield
        else:
            yield
    finally:
        _set_backends(*before)


def apply(config: Any, precision: str) -> Any:
    """``config`` with every precision field (:data:`FIELD`, in nested dataclasses, tuples, lists and dicts
    too) set to ``precision``; everything else, and a config without such a field, unchanged."""
    check(precision)
    if isinstance(config, dict):
        out = {k: apply(v, precision) for k, v in config.items()}
        return config if all(out[k] is v for k, v in config.items()) else out
    if isinstance(config, (tuple, list)):
        items = [apply(v, precision) for v in config]
        return config if all(a is b for a, b in zip(items, config)) else type(config)(items)
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        return config
    change = {}
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        new = precision if f.name == FIELD and isinstance(v, str) else apply(v, precision)
        if new is not v:
            change[f.name] = new
    return dataclasses.replace(config, **change) if change else config


def requested() -> str:
    """The precision ``COMPANION_PRECISION`` asks for the eligible runs (default ``float32``), checked."""
    return check(runmode.variable("COMPANION_PRECISION", "float32"))


def override(family: str, profile: str, config: Any) -> Any:
    """``config`` of registry entry ``family`` (``<chapter>.<entry>``) at ``profile``, in the precision
    ``COMPANION_PRECISION`` asks for (:func:`apply`) where the family is :data:`ELIGIBLE` and the profile is the
    paper's; else ``config`` itself. A chapter's config selection calls it, for the runs it computes and the page
    that reads them alike, so both ask for the same keys."""
    if family not in ELIGIBLE or profile != "paper":
        return config
    wanted = requested()
    return config if wanted == "float32" else apply(config, wanted)
