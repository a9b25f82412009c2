"""Which CPU code path the numbers come from: the kernels pinned in every process, and a fingerprint.

A one-thread run is bit-for-bit repeatable on one machine, not across x86 CPU models: three
libraries inside torch pick their kernels by the instructions the CPU has, and a kernel with other
vector widths sums in another order.

* **ATen** (torch's own CPU kernels: reductions, softmax, elementwise maths) dispatches on
  ``ATEN_CPU_CAPABILITY`` — ``avx512`` on a CPU that has it, else ``avx2``. Pinned to ``avx2``: the
  same compiled code runs on every x86 CPU with AVX2 and FMA, Intel or AMD.
* **oneMKL** (matrix products, solves, FFTs) picks a code branch per CPU; its *Conditional Numerical
  Reproducibility* (``MKL_CBWR``) fixes the branch. ``MKL_CBWR=AVX2`` gives the same results on every
  Intel CPU with AVX2, AVX-512 ones included; on a non-Intel CPU Intel documents that it falls back to
  the automatic branch. Only ``MKL_CBWR=COMPATIBLE`` is documented to agree across Intel and AMD, and it
  is slow here (:data:`COMPATIBLE_COST`), so it is an opt-in (``COMPANION_NUMERICS=compatible``).
* **oneDNN** (convolutions) JIT-compiles for the widest ISA it finds; ``ONEDNN_MAX_CPU_ISA=AVX2``.

:func:`pin` sets these (an explicit setting in the environment wins) before torch first runs a
kernel; ``import companion`` calls it, so every process the build, ``companion run`` and a chapter
start is pinned, and worker processes inherit it. :func:`fingerprint` says which settings a process
actually ran with, on which CPU, with a hash of a short fixed training run at each dtype the book
uses: two builds whose hashes agree computed every step of those runs bit for bit alike.
``build.json`` records it and the Reproduction report shows it beside :data:`REFERENCE`, the
fingerprint of the machine whose builds the commit messages quote.
"""

from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path

from companion import runmode
from companion.settings import one_of

#: the kernel choices pinned in every process (an explicit setting in the environment wins)
PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
#: ``COMPANION_NUMERICS`` values: ``avx2`` (the default, :data:`PINNED`), ``compatible`` (oneMKL's
#: vendor-independent branch as well), ``native`` (nothing pinned: each library's own choice)
MODES = ("avx2", "compatible", "native")
#: measured cost of ``MKL_CBWR=COMPATIBLE``: the grokking chapter's cpu model, 300 steps, one thread,
#: AMD EPYC (AVX2), 2026-11-26 — 6.24 s and 5.63 s unpinned / AVX2, 9.40 s and 9.56 s COMPATIBLE (+55%)
COMPATIBLE_COST = "+55% on the grokking model's training step (AMD EPYC, one thread)"
#: the dtypes the book computes in (float32 networks; float64 kernels, closures and eigenbases)
DTYPES = ("float32", "float64")


def settings(mode: str | None = None) -> dict[str, str]:
    """The environment settings of ``mode`` (default: ``COMPANION_NUMERICS``, else ``avx2``)."""
    mode = one_of("COMPANION_NUMERICS", mode or runmode.variable("COMPANION_NUMERICS", "avx2"), MODES)
    if mode == "native":
        return {}
    return {**PINNED, "MKL_CBWR": "COMPATIBLE"} if mode == "compatible" else dict(PINNED)


def pin() -> dict[str, str]:
    """Set :func:`settings` in this process's environment, unless set already; returns what is in force.

    Must run before torch executes its first kernel (ATen reads its capability once, oneMKL its branch
    at its first call): ``companion/__init__.py`` calls it."""
    for k, v in settings().items():
        os.environ.setdefault(k, v)
    return in_force()


def in_force() -> dict[str, str | None]:
    """The pinning variables as this process's environment has them (None: not set)."""
    return {k: os.environ.get(k) for k in PINNED}


def cpu_model() -> dict[str, str]:
    """The CPU's model name, vendor and the instruction sets that decide kernel choice (Linux ``/proc``)."""
    info = {"model": platform.processor() or platform.machine(), "vendor": "", "isa": ""}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    flags = set(fields.get("flags", "").split())
    info["model"] = fields.get("model name", info["model"])
    info["vendor"] = fields.get("vendor_id", "")
    info["isa"] = " ".join(f for f in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile") if f in flags)
    return info


def run_hash(dtype: str) -> str:
    """sha256 (16 hex digits) of the parameters after a short fixed training run in ``dtype``, one thread.

    A two-layer tanh network with a softmax cross-entropy on fixed random data, 60 full-batch AdamW
    steps: matrix products (oneMKL), elementwise maths, reductions and the log-softmax (ATen) — the
    kernels the book's runs are made of. Independent of the rest of the library, so the hash changes
    only with the numerics, never with an edit of the book."""
    import torch

    dt = getattr(torch, dtype)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        g = torch.Generator().manual_seed(1234)
        x = torch.randn(256, 48, generator=g, dtype=dt)
        y = torch.randint(0, 17, (256,), generator=g)
        w1 = (torch.randn(48, 96, generator=g, dtype=dt) / 48 ** 0.5).requires_grad_()
        w2 = (torch.randn(96, 17, generator=g, dtype=dt) / 96 ** 0.5).requires_grad_()
        opt = torch.optim.AdamW([w1, w2], lr=1e-2, weight_decay=0.1)
        for _ in range(60):
            loss = torch.nn.functional.cross_entropy(torch.tanh(x @ w1) @ w2, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return hashlib.sha256(w1.detach().numpy().tobytes() + w2.detach().numpy().tobytes()).hexdigest()[:16]
    finally:
        torch.set_num_threads(threads)


def fingerprint() -> dict:
    """What decides this process's numbers: CPU, torch and oneMKL versions, the kernels pinned and the
    capability ATen runs with, and :func:`run_hash` at each of :data:`DTYPES`."""
    import torch

    config = torch.__config__.show().splitlines()
    mkl = next((line.strip().lstrip("- ") for line in config if "Math Kernel" in line), "")
    return {"cpu": cpu_model(), "torch": torch.__version__, "mkl": mkl,
            "mode": runmode.variable("COMPANION_NUMERICS", "avx2"), "pinned": in_force(),
            "aten_capability": torch.backends.cpu.get_cpu_capability(),
            "hashes": {d: run_hash(d) for d in DTYPES}}


#: the fingerprint of the machine whose builds the commit messages and CI records quote (2 cores,
#: AMD EPYC, torch 2.13.0+cpu, the default pinning), 2026-11-26: a build whose hashes equal these ran
#: the same kernels bit for bit; one whose hashes differ may land its chaotic runs elsewhere
REFERENCE = {"cpu": "AMD EPYC (AVX2, FMA; no AVX-512)", "torch": "2.13.0+cpu",
             "hashes": {"float32": "d97e88aa93d0e07a", "float64": "3b404697ec3c2e73"}}


def matches_reference(fp: dict) -> bool | None:
    """True when ``fp``'s hashes equal :data:`REFERENCE`'s (None when the torch versions differ)."""
    if fp.get("torch") != REFERENCE["torch"]:
        return None
    return fp.get("hashes") == REFERENCE["hashes"]


def markdown(fp: dict | None) -> str:
    """The report's paragraph on the build's numerics."""
    if not fp:
        return ""
    same = matches_reference(fp)
    verdict = ("the same bits as the reference machine" if same else
               "other bits than the reference machine: chaotic runs (which seed groks within its budget) may "
               "land elsewhere, and the claims' seeds and statistics, not the bits, must carry the verdicts"
               if same is False else f"not comparable with the reference machine (torch {REFERENCE['torch']})")
    pinned = ", ".join(f"`{k}={v}`" for k, v in fp["pinned"].items() if v) or "nothing pinned"
    hashes = ", ".join(f"{d} `{h}`" for d, h in fp["hashes"].items())
    ref = ", ".join(f"{d} `{h}`" for d, h in REFERENCE["hashes"].items())
    return (f"**Numerics of this build.** CPU: {fp['cpu']['model']} ({fp['cpu']['isa']}); torch {fp['torch']}; "
            f"{fp['mkl']}. Kernels pinned: {pinned}; ATen ran its {fp['aten_capability']} kernels. A short fixed "
            f"training run hashes to {hashes} — {verdict} ({REFERENCE['cpu']}: {ref}).")
