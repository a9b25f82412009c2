"""The ``companion`` command (also ``python -m companion``).

    companion build  [--profile smoke|cpu|paper] [--device auto|cpu|cuda] [--chapter NAME]...
                     [--seed N] [-p NAME=VALUE]... [--fresh] [--jobs N] [--out DIR]
                     [--chapter-timeout SECONDS] [--wait] [--allow-cdn]
    companion run    CHAPTER... [--profile P] [--device D] [--seed N] [--dry-run | --check | --count]
                     [--time-limit S] [--jobs N] [--keep] [--only RE]... [--skip RE]... [--wait]
    companion claims [--out DIR] [--weak] [--diff A B]
    companion cache  verify | prune [--dry-run] [--wait]
    companion kept   status [CHAPTER...] [--profile P]

Bad input gets one line naming what is valid and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

from companion import profiles
from companion.claims import VERDICTS, claim_files, load_claims
from companion.claims.text import diff_text, text_table, weak
from companion.experiments import CHAPTERS
from companion.pipeline import build, campaign, runs
from companion.profiles import DEFAULT_PROFILE, DEVICES, PROFILES, ParameterError, check_seed, one_of
from companion.store import entries, kept, upkeep
from companion.store.dirlock import DirLock
from companion.store.entries import repo_root
from companion.store.kept import device_name

#: how ``companion run`` orders what it runs (``--order``)
ORDERS = ("chapter", "value")


class OneLineParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the usage block too
        self.exit(2, f"companion: error: {message}\n")


def parse_param(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` with VALUE a Python literal if it parses as one, else a string."""
    if "=" not in text:
        raise ParameterError(f"parameter {text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    try:
        return k, ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return k, v


def seed_arg(text: str) -> int:
    """``--seed``: a whole number ≥ 0 (argparse turns the error into the one-line usage error, exit 2)."""
    try:
        return check_seed(int(text))
    except (ValueError, ParameterError):
        raise argparse.ArgumentTypeError(f"seed must be a whole number ≥ 0, got {text!r}") from None


def claims_folder(path: Path) -> Path:
    """A claims folder given as itself or as the build output folder that holds it (``_build``)."""
    if (path / "claims").is_dir():
        path = path / "claims"
    if not path.is_dir() or not claim_files(path):
        raise ParameterError(f"no claims (*.json) under {path}: give a build's claims folder or its output folder "
                             "(a build still running publishes its claims when it ends)")
    return path


def find_root() -> Path:
    root = repo_root() or repo_root(Path(__file__).resolve().parent)
    if root is None:
        raise ParameterError("no _toc.yml here or above: run companion from the book's repository")
    return root


def parser() -> OneLineParser:
    ap = OneLineParser(prog="companion", description="Grokking, Reproduced: build and check the book.")
    sub = ap.add_subparsers(dest="command", parser_class=OneLineParser)
    b = sub.add_parser("build", help="execute chapters with papermill and render the book")
    b.add_argument("--profile", default=DEFAULT_PROFILE, help=f"one of {', '.join(PROFILES)}")
    b.add_argument("--device", default="auto", help=f"one of {', '.join(DEVICES)}")
    b.add_argument("--chapter", action="append", help="build only this chapter (repeatable)")
    b.add_argument("--seed", type=seed_arg, default=0, help="base seed, a whole number ≥ 0")
    b.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="another notebook parameter (checked against the chapter's parameters cell)")
    b.add_argument("--fresh", action="store_true", help="ignore cached experiment results")
    b.add_argument("--jobs", type=int, default=None, help="chapters executed at once (default 2)")
    b.add_argument("--out", type=Path, default=None, help="output folder (default _build)")
    b.add_argument("--chapter-timeout", type=float, default=None, metavar="SECONDS",
                   help="stop a chapter that runs longer (default: 4x its cpu budget at cpu, 10 min at smoke, "
                        "none at paper; 0: no limit)")
    b.add_argument("--wait", action="store_true", help="if another build holds the output folder, wait for it")
    b.add_argument("--allow-cdn", action="store_true",
                   help="build even though MathJax is not vendored (the book's math then needs the network)")
    r = sub.add_parser("run", help="run chapters' experiments without Jupyter, filling the cache")
    r.add_argument("chapter", nargs="+", help="one or more chapters, run in this order")
    r.add_argument("--profile", default=DEFAULT_PROFILE)
    r.add_argument("--device", default="auto")
    r.add_argument("--seed", type=seed_arg, default=0, help="base seed, a whole number ≥ 0")
    r.add_argument("--dry-run", action="store_true",
                   help="list every experiment with its config and an estimated time from a short timed probe")
    r.add_argument("--check", action="store_true",
                   help="build every experiment's data and model and run two steps of each of its loops "
                        "(a dry run that only checks the configs construct and step; exit 1 if one fails)")
    r.add_argument("--count", action="store_true",
                   help="on the CPU: count each loop's FLOPs and operator calls for one plain and one evaluation "
                        "step and model every experiment's time on a GPU (a dry run without the timing)")
    r.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="stop cleanly before this many seconds, finished experiments cached, the running ones "
                        "checkpointed; run again to continue")
    r.add_argument("--jobs", type=int, default=1, help="experiments run at once in worker processes (default 1)")
    r.add_argument("--only", action="append", default=[], metavar="REGEX",
                   help="run only experiments whose 'name config' matches (repeatable: any of them)")
    r.add_argument("--skip", action="append", default=[], metavar="REGEX",
                   help="leave out experiments whose 'name config' matches (repeatable)")
    r.add_argument("--keep", action="store_true",
                   help="also write finished experiments to results/<profile>/<chapter>/ (kept results), and "
                        "count kept results as done")
    r.add_argument("--wait", action="store_true", help="if another process holds the cache, wait for it")
    r.add_argument("--order", choices=ORDERS, default="chapter",
                   help="chapter: the chapters in the order given, longest experiment first (default); value: a "
                        "campaign — what is not kept yet, the most paper claims per estimated second first "
                        "(estimates from an earlier --dry-run on this device; claims from the last build)")
    c = sub.add_parser("claims", help="print the claims of the last build")
    c.add_argument("--out", type=Path, default=None)
    c.add_argument("--diff", nargs=2, type=Path, metavar=("A", "B"),
                   help="compare two builds' claims (claims folders, or build output folders holding one): "
                        "verdict changes first, then values that moved; exit 1 if a gating verdict differs")
    c.add_argument("--weak", action="store_true",
                   help="list held claims that are fragile: one value, within 5%% of the bound, a seed on the "
                        "other side, or no quote of the paper")
    kp = sub.add_parser("kept", help="the kept paper-scale results and their standing against the configurations")
    kp.add_argument("action", choices=("status",),
                    help="status: per chapter, how many kept results a configuration asks for (current, or at its "
                         "first seeds), are computed inside others (nested), or no configuration asks for (stale)")
    kp.add_argument("chapter", nargs="*", help="chapters (default: every chapter with a registry)")
    kp.add_argument("--profile", default="paper")
    k = sub.add_parser("cache", help="check the results cache, or remove what no current configuration can use")
    k.add_argument("action", choices=("verify", "prune"),
                   help="verify: check every entry's checksum (exit 1 if one is damaged); prune: remove entries "
                        "of other library versions, damaged entries, leftovers of interrupted writes")
    k.add_argument("--dry-run", action="store_true", help="prune: list what would go, remove nothing")
    k.add_argument("--wait", action="store_true", help="if another process holds the cache, wait for it")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "build":
            root = find_root()
            one_of("profile", args.profile, PROFILES)
            one_of("device", args.device, DEVICES)
            params = dict(parse_param(p) for p in args.param)
            for k in params:
                if k in ("profile", "device", "seed"):
                    raise ParameterError(f"give {k} with --{k}, not -p")
            return build.build(root, args.profile, args.device, args.chapter, args.seed, params,
                               args.out, args.fresh, args.jobs, args.chapter_timeout, args.wait, args.allow_cdn)
        if args.command == "run":
            return run(args.chapter, args.profile, args.device, args.seed, args.dry_run, args.time_limit,
                       args.jobs, args.keep, args.only, args.skip, args.check, args.wait, args.order, args.count)
        if args.command == "kept":
            chapters = args.chapter or [c for c in CHAPTERS if c != "synthesis"]
            for ch in chapters:
                one_of("chapter", ch, list(CHAPTERS))
            one_of("profile", args.profile, PROFILES)
            print(campaign.kept_status_text(campaign.kept_status(chapters, args.profile)))
            return 0
        if args.command == "cache":
            return cache_command(args.action, args.dry_run, args.wait)
        if args.command == "claims":
            if args.diff:
                a, b = (claims_folder(d) for d in args.diff)
                text, gating = diff_text(a, b)
                print(text)
                return 1 if gating else 0
            out = args.out or find_root() / "_build"
            records = load_claims(out / "claims")
            if not records:
                print(f"companion: no claims under {out / 'claims'}; run `companion build` first")
                return 1
            if args.weak:
                fragile = weak(records)
                for c, why in fragile:
                    print(f"{c.chapter}/{c.id} ({c.paper_ref}): {'; '.join(why)}")
                print(f"{len(fragile)} of {sum(r.verdict == 'held' and r.kind == 'paper' for r in records)} held "
                      f"claims of the papers are fragile")
                return 0
            print(text_table(records))
            paper = [r for r in records if r.kind == "paper"]
            counts = {v: sum(r.verdict == v for r in paper) for v in VERDICTS}
            checks = [r for r in records if r.kind == "consistency"]
            hyps = [r for r in records if r.kind == "hypothesis"]
            controlled = sum(r.verdict == "held" and bool(r.controls) for r in paper)
            print(f"{counts['held']} held ({controlled} against a control), {counts['vacuous']} vacuous, "
                  f"{counts['failed']} failed, {counts['known-deviation']} known deviation, "
                  f"{counts['undecided']} undecided"
                  + (f"; {len(checks)} consistency checks, {sum(r.verdict == 'failed' for r in checks)} failed"
                     if checks else "")
                  + (f"; {len(hyps)} hypotheses: " + ", ".join(f"{sum(r.verdict == v for r in hyps)} {v}" for v in
                                                               ("supported", "refuted", "undecided")) if hyps else ""))
            return 0
        parser().print_help()
        return 2
    except ParameterError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 2


def cache_command(action: str, dry_run: bool = False, wait: bool = False) -> int:
    """``companion cache verify`` / ``companion cache prune [--dry-run]``."""
    root = entries.cache_dir()

    def mb(n: int) -> str:
        return f"{n / 1e6:9.2f} MB"

    if action == "verify":
        rows = upkeep.verify(root)
        bad = [r for r in rows if r[2]]
        for path, n, problem in bad:
            print(f"  DAMAGED {mb(n)}  {path.relative_to(root)}: {problem}")
        print(f"[cache] {len(rows)} entries under {root} ({mb(sum(r[1] for r in rows)).strip()}): "
              f"{len(rows) - len(bad)} intact, {len(bad)} damaged"
              + (" — `companion cache prune` removes them; a build would recompute them" if bad else ""))
        return 1 if bad else 0
    with DirLock(root, "the results cache", wait=wait):
        rows = upkeep.prunable(root)
        for path, n, why in rows:
            print(f"  {mb(n)}  {path.relative_to(root)}  ({why})")
        total = sum(n for _, n, _ in rows)
        if not dry_run:
            upkeep.remove([p for p, _, _ in rows])
        print(f"[cache] {'would remove' if dry_run else 'removed'} {len(rows)} item(s), {mb(total).strip()}, "
              f"from {root}; kept the entries of this library version ({entries.entries_dir().name})")
    return 0


#: seconds kept back from ``--time-limit`` for checkpoints, storing results and exiting
def time_margin(limit: float) -> float:
    return min(max(0.5, 0.03 * limit), 30.0)


def run(chapters: list[str], profile: str, device: str, seed: int, dry_run: bool = False,
        time_limit: float | None = None, jobs: int = 1, keep: bool = False, only: list[str] = (),
        skip: list[str] = (), check: bool = False, wait: bool = False, order: str = "chapter",
        count: bool = False) -> int:
    """Compute chapters' experiments (no Jupyter needed), filling the results cache; ``order`` "value": a
    campaign (:mod:`companion.pipeline.campaign`).

    Exit status: 0 when every experiment is done, 3 when the time limit stopped the run (run the
    same command again to continue), 1 when an experiment failed.
    """
    one_of("profile", profile, PROFILES)
    one_of("order", order, ORDERS)
    for ch in chapters:
        one_of("chapter", ch, list(CHAPTERS))
    if jobs < 1:
        raise ParameterError(f"--jobs must be at least 1, got {jobs}")
    if time_limit is not None and time_limit <= 0:
        raise ParameterError(f"--time-limit must be a positive number of seconds, got {time_limit}")
    profiles.resolve_device(device)
    with DirLock(entries.cache_dir(), "the results cache", wait=wait):  # one run per cache, after validation
        return _run(chapters, profile, device, seed, dry_run, time_limit, jobs, keep, only, skip, check, order,
                    count)


def _run(chapters, profile, device, seed, dry_run, time_limit, jobs, keep, only, skip, check, order="chapter",
         count=False) -> int:
    import platform

    started = time.time()
    deadline = started + time_limit - time_margin(time_limit) if time_limit else None
    ctx = profiles.setup(profile, device, seed)
    campaign_plan = None
    if order == "value":
        campaign_plan = campaign.plan(chapters, profile, ctx.device, seed, find_root() / "_build" / "claims")
        tasks = runs.select([p.task for p in campaign.order(campaign_plan)], only, skip)
    else:
        tasks = runs.select([t for ch in chapters for t in runs.plan(ch, profile, ctx.device, seed)], only, skip)
    where = f"{ctx.device}" + (f" ({runs_device_name(ctx.device)})" if ctx.device != "cpu" else "")
    if dry_run or check or count:
        what = ("check (two steps of every loop)" if check else
                "count (one plain and one evaluation step of every loop, modelled on a GPU)" if count else "dry run")
        print(f"[{what}] {len(tasks)} experiment(s) of {', '.join(chapters)} at profile {profile} on {where}:")
        rows = runs.dry_run(tasks, check=check, deadline=deadline, count_only=count)
        print(runs.summary(rows, jobs))
        if campaign_plan is not None and not (check or count):  # the campaign in order, the estimates just measured
            print("[campaign]\n" + campaign.table(campaign.plan(chapters, profile, ctx.device, seed,
                                                                find_root() / "_build" / "claims")))
        failed = [r for r in rows if r["status"] == "probe failed"]
        return 1 if (check and failed) else 0
    print(f"[run] {len(tasks)} experiment(s) of {', '.join(chapters)} at profile {profile} on {where}, "
          f"{jobs} worker(s)" + (f", stopping after {time_limit:.0f} s" if time_limit else ""), flush=True)
    rows = runs.execute(tasks, profile, ctx.device, seed, jobs, deadline, profile if keep else None,
                        ordered=order == "value")
    counts = {s: sum(r["status"] == s for r in rows) for s in ("computed", "done before", "stopped", "not started",
                                                              "failed")}
    wall = time.time() - started
    print(f"[run] {counts['computed']} experiment(s) computed, {counts['done before']} done before "
          f"(cache: {entries.cache_dir()}), {counts['stopped'] + counts['not started']} left for the next run, "
          f"{counts['failed']} failed, in {wall:.1f} s on {ctx.device}")
    if keep:
        runs.log_run({"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "chapters": chapters, "profile": profile,
                      "device": kept.device_name(ctx.device), "torch": ctx.torch_version, "jobs": jobs,
                      "time_limit": time_limit, "wall_s": round(wall, 1), "commit": kept.commit(),
                      "host": platform.node(), **{k.replace(" ", "_"): v for k, v in counts.items()},
                      "experiments": [{k: r[k] for k in ("chapter", "experiment", "key", "status", "seconds")}
                                      for r in rows]})
    if counts["failed"]:
        return 1
    return 3 if counts["stopped"] + counts["not started"] else 0


def runs_device_name(device: str) -> str:
    return device_name(device)
