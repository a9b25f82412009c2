"""The GPU cost model (``companion.pipeline.gpu_cost``) against what a GPU window measured, per model family.

Reads a window's dry run on the device (``gpu_windows/DATE/dry_run.txt``: each experiment's estimate from its own
timed probe there) and a CPU count of the same plan (``companion run CHAPTER... --profile paper --count``, its
output saved to a file), matches rows by experiment, step count and printed configuration (rows alike in what is
printed take the median of their models), and prints per family the
measured GPU time against the model's eager, captured and hardware-limit times. A family's ratio measured / eager
near 1 means the model can plan a window; the ratio measured / limit is how far the engine is from the hardware.

Run: ``python benchmarks/gpu_cost_check.py gpu_windows/2026-11-28/dry_run.txt COUNT_LOG [COUNT_LOG...]``
"""

from __future__ import annotations

import re
import statistics
import sys
from collections import defaultdict

ROW = re.compile(r"^\s+(\S+)\s+(probed|partial)\s+(\S+(?: \S+)?)\s+([\d,]+) steps\s+\[[\d.]+ s\](.*)$")
GPU = re.compile(r"GPU (\S+ \S+) / (\S+ \S+) / (\S+ \S+) \(")


def seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"s": 1, "min": 60, "h": 3600}[unit]


def rows(path: str) -> list[dict]:
    out = []
    for line in open(path, encoding="utf-8"):
        m = ROW.match(line)
        if not m:
            continue
        name, status, est, steps, rest = m.groups()
        g = GPU.search(rest)
        config = rest[g.end():].split(")  ", 1)[-1].strip() if g else rest.strip()
        out.append({"name": name, "status": status, "steps": int(steps.replace(",", "")), "config": config[:90],
                    "estimate": seconds(est) if est != "?" else None,
                    "model": tuple(seconds(x) for x in g.groups()) if g else None})
    return out


def family(r: dict) -> str:
    m = re.match(r"(\w+)\(", r["config"])
    head = m.group(1) if m else "?"
    if head == "Run":  # Gu et al.'s modular runs: one family per p
        p = re.search(r"p=(\d+)", r["config"])
        return f"{r['name']} (p = {p.group(1)})" if p else r["name"]
    return r["name"]


def main(window: str, counts: list[str]) -> None:
    measured = rows(window)
    modelled = [r for c in counts for r in rows(c) if r["model"]]
    pool = defaultdict(list)
    for r in modelled:
        pool[(r["name"], r["steps"], r["config"])].append(r)
    fams = defaultdict(list)
    for m in measured:
        cand = pool.get((m["name"], m["steps"], m["config"]))
        if m["estimate"] and cand:  # configurations alike in their printed prefix: the median of their models
            fams[family(m)].append((m["estimate"], tuple(statistics.median(c["model"][i] for c in cand)
                                                         for i in range(3))))
    print("| family | runs | measured on the GPU (median) | model eager | captured | hardware limit | "
          "measured / eager | measured / limit |")
    print("|---|---|---|---|---|---|---|---|")
    for fam, pairs in sorted(fams.items()):
        meas = statistics.median(p[0] for p in pairs)
        eager, cap, lim = (statistics.median(p[1][i] for p in pairs) for i in range(3))
        print(f"| {fam} | {len(pairs)} | {meas:.0f} s | {eager:.0f} s | {cap:.0f} s | {lim:.1f} s | "
              f"{meas / eager:.2f} | {meas / lim:.0f}× |")
    total_m = sum(p[0] for ps in fams.values() for p in ps)
    total_e = sum(p[1][0] for ps in fams.values() for p in ps)
    print(f"\nmatched {sum(len(p) for p in fams.values())} of {len(measured)} measured rows; "
          f"measured {total_m / 60:.0f} min against {total_e / 60:.0f} min modelled eager")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
