"""The ``companion`` command (also ``python -m companion``).

    companion build  [--profile smoke|cpu|paper] [--device auto|cpu|cuda] [--chapter NAME]...
                     [--seed N] [-p NAME=VALUE]... [--fresh] [--jobs N] [--out DIR]
    companion run    CHAPTER [--profile P] [--device D] [--seed N]
    companion claims [--out DIR]

Bad input gets one line naming what is valid and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

from companion.profiles import DEFAULT_PROFILE, DEVICES, PROFILES, ParameterError, one_of


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


def find_root() -> Path:
    from companion.cache import repo_root

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
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="another notebook parameter (checked against the chapter's parameters cell)")
    b.add_argument("--fresh", action="store_true", help="ignore cached experiment results")
    b.add_argument("--jobs", type=int, default=None, help="chapters executed at once (default 2)")
    b.add_argument("--out", type=Path, default=None, help="output folder (default _build)")
    r = sub.add_parser("run", help="run a chapter's experiments without Jupyter, filling the cache")
    r.add_argument("chapter")
    r.add_argument("--profile", default=DEFAULT_PROFILE)
    r.add_argument("--device", default="auto")
    r.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("claims", help="print the claims of the last build")
    c.add_argument("--out", type=Path, default=None)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "build":
            from companion import build

            root = find_root()
            one_of("profile", args.profile, PROFILES)
            one_of("device", args.device, DEVICES)
            params = dict(parse_param(p) for p in args.param)
            for k in params:
                if k in ("profile", "device", "seed"):
                    raise ParameterError(f"give {k} with --{k}, not -p")
            return build.build(root, args.profile, args.device, args.chapter, args.seed, params,
                               args.out, args.fresh, args.jobs)
        if args.command == "run":
            return run(args.chapter, args.profile, args.device, args.seed)
        if args.command == "claims":
            from companion.claims import load_claims, text_table

            out = args.out or find_root() / "_build"
            records = load_claims(out / "claims")
            if not records:
                print(f"companion: no claims under {out / 'claims'}; run `companion build` first")
                return 1
            print(text_table(records))
            counts = {v: sum(r.verdict == v for r in records) for v in ("held", "failed", "known-deviation")}
            print(f"{counts['held']} held, {counts['failed']} failed, {counts['known-deviation']} known deviation")
            return 0
        parser().print_help()
        return 2
    except ParameterError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 2


def run(chapter: str, profile: str, device: str, seed: int) -> int:
    """Compute every experiment of a chapter (no Jupyter needed), filling the results cache."""
    from companion import cache, profiles
    from companion.experiments import chapter_module

    one_of("profile", profile, PROFILES)
    module = chapter_module(chapter)
    ctx = profiles.setup(profile, device, seed)
    t0 = time.time()
    module.run_all(profile, ctx.device, seed)
    print(f"[run] {chapter}: {len(cache.computed)} experiment(s) computed, the rest from the cache "
          f"({cache.cache_dir()}), in {time.time() - t0:.1f} s on {ctx.device}")
    return 0
