#!/usr/bin/env python3
"""The corpus table of issue 15 (`docs/corpus.md`), one row per game, from the raw results of
`scripts/corpus_sweep.py` (its `--results` JSON files): the set-up seconds per phase, the
partitioning, the layers and states of a first-layers sweep; whether a longer sweep found the
reachable set complete; and whether a solve sweep solved the game and `verify` agreed. Each
column names the sweep it comes from, since they are run apart (a full solve sweep takes
hours).

usage: scripts/corpus_table.py --first FIRST.json [--long LONG.json ...] [--solve SOLVE.json ...]
                               [--out docs/corpus.md]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import write_atomically  # noqa: E402

# The set-up phases of `reach --json`, in the order they run; others are summed as "other".
PHASES = ["grounding", "explicit", "mutex", "order", "conditions", "relations", "clustering"]


def load(paths):
    """Per game, its rows in the given result files, in their order."""
    rows = {}
    for p in paths:
        with open(p) as f:
            for r in json.load(f):
                rows.setdefault(r["game"], []).append(r)
    return rows


def phase_seconds(row):
    """Per phase of `PHASES` the seconds (empty where it did not run), and all others summed."""
    got = {p["name"]: p["seconds"] for p in row.get("phases") or []}
    cells = [f"{got[p]:.2f}" if p in got else "" for p in PHASES]
    other = sum(s for name, s in got.items() if name not in PHASES)
    return cells + [f"{other:.2f}" if other else ""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", required=True, help="first-layers sweep (reach, short limit)")
    ap.add_argument("--long", nargs="*", default=[], help="longer reach sweeps")
    ap.add_argument("--solve", nargs="*", default=[], help="solve and verify sweeps")
    ap.add_argument("--first-layers", type=int, default=5)
    ap.add_argument("--out", default="docs/corpus.md")
    a = ap.parse_args()
    first = {g: rs[-1] for g, rs in load([a.first]).items()}
    long, solve = load(a.long), load(a.solve)
    ok = lambda r: bool(r.get("complete")) or (r.get("layers") or 0) >= a.first_layers
    grounded = [r for r in first.values() if r.get("setup_seconds") is not None
                or (r.get("layers") or 0) > 0]
    # A game counts where any of the sweeps found it so.
    complete_long = {g for g, rs in long.items() if any(r.get("complete") for r in rs)}
    complete_any = complete_long | {g for g, r in first.items() if r.get("complete")}
    solved = {g for g, rs in solve.items() if any(r.get("solved") for r in rs)}
    agreed = {g for g, rs in solve.items()
              if any(r.get("solved") and r.get("verify_exit") == 0 for r in rs)}
    src = lambda paths: ", ".join(f"`{os.path.relpath(p, os.path.dirname(a.out))}`"
                                  for p in paths) or "none"
    out = [
        "# The corpus, game by game (issue 15)", "",
        f"Made by `scripts/corpus_table.py` from the sweeps' raw results; history and "
        f"analysis in `docs/corpus/README.md`. Command:", "",
        "    scripts/corpus_table.py " + " ".join(sys.argv[1:]), "",
        f"- First layers ({src([a.first])}): {sum(ok(r) for r in first.values())} of "
        f"{len(first)} games report their set-up and at least {a.first_layers} layers or their "
        f"whole reachable set; {len(grounded)} report a set-up or a layer; "
        f"{sum(bool(r.get('complete')) for r in first.values())} complete.",
        f"- Complete in a longer sweep ({src(a.long)}) or in the first: {len(complete_any)} "
        f"(in any of them; they ran other binaries on other days, so this is not one "
        f"sweep's figure).",
        f"- Solved in any of ({src(a.solve)}): {len(solved)}; `verify` agreed on {len(agreed)} "
        f"(the others were not verified or its check stopped at its limit; no disagreement "
        f"is counted as agreement).", "",
        "Set-up seconds per phase (empty: the phase did not run), then the first-layers run; "
        "`long`: complete in a longer sweep; `solved`: solved, and `verify` agreed (`yes`), "
        "solved but not verified (`unverified`), or not solved in the solve sweeps (`no`, `-` "
        "where none tried it).", "",
        "| game | " + " | ".join(PHASES) + " | other | set-up s | partitioning | layers | "
        "states | complete | long | solved |",
        "|---|" + "---:|" * (len(PHASES) + 2) + "---|---:|---:|---|---|---|",
    ]
    for g in sorted(first):
        r = first[g]
        setup = f"{r['setup_seconds']:.2f}" if r.get("setup_seconds") is not None else "-"
        states = f"{int(r['states']):,}" if r.get("states") is not None else "-"
        part = (r.get("partitioning") or "-").replace("|", "\\|")
        lng = "yes" if g in complete_long else ("no" if g in long else "-")
        sol = ("yes" if g in agreed else "unverified" if g in solved
               else "no" if g in solve else "-")
        out.append(f"| {g[:-4]} | " + " | ".join(phase_seconds(r)) +
                   f" | {setup} | {part} | {r.get('layers') or 0} | {states} | "
                   f"{'yes' if r.get('complete') else 'no'} | {lng} | {sol} |")
    write_atomically(a.out, "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
