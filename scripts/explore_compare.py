#!/usr/bin/env python3
"""Explicit reasoner throughput of two symgame binaries, side by side.

For each game, runs `symgame explore GAME --time-limit T --json` with the binary before and the
binary after, one after the other (alternating which goes first each round), and reports the
joint moves applied per second of exploration and their ratio. The seconds of exploration are
the last complete layer's time when the exploration completed, else the time limit minus the
time to the first layer (grounding and compiling). The layer tables (states and terminal
states of every layer both finished) must agree: a disagreement is reported and makes the
script exit 1.

Usage: explore_compare.py --before BIN --after BIN [--limit T] [--rounds N] [--md FILE] GAME.kif...
"""

import argparse
import json
import os
import subprocess
import sys
import time


def run(binary, game, limit):
    """One exploration: (updates per second, layers as (states, terminal) pairs)."""
    started = time.monotonic()
    p = subprocess.run(
        [binary, "explore", game, "--time-limit", str(limit), "--json"],
        capture_output=True,
        text=True,
        timeout=limit * 4 + 60,
    )
    wall = time.monotonic() - started
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None, [], f"no report (exit {p.returncode}): {p.stderr.strip()[:200]}"
    layers = d.get("layers", [])
    if not layers:
        return None, [], "no layer"
    first = layers[0]["seconds"]
    if d.get("stopped") is None:
        seconds = layers[-1]["seconds"] - first
    else:
        seconds = min(limit, wall) - first
    rate = d.get("updates", 0) / seconds if seconds > 0 else None
    return rate, [(l["states"], l["terminal"]) for l in layers], None


def human(x):
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.0f} k"
    return f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--limit", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--md", help="write the table here as Markdown")
    ap.add_argument("games", nargs="+")
    a = ap.parse_args()
    rows = []
    failed = False
    for game in a.games:
        name = game.rsplit("/", 1)[-1].removesuffix(".kif")
        rates = {"before": [], "after": []}
        tables = {}
        for k in range(a.rounds):
            order = [("before", a.before), ("after", a.after)]
            if k % 2 == 1:
                order.reverse()
            for which, binary in order:
                rate, layers, err = run(binary, game, a.limit)
                if err:
                    print(f"{name} {which}: {err}", file=sys.stderr)
                if rate is not None:
                    rates[which].append(rate)
                if len(layers) > len(tables.get(which, [])):
                    tables[which] = layers
        b, f = tables.get("before", []), tables.get("after", [])
        common = min(len(b), len(f))
        if b[:common] != f[:common]:
            failed = True
            print(f"{name}: layer tables differ: {b[:common]} against {f[:common]}", file=sys.stderr)
        rb = max(rates["before"]) if rates["before"] else None
        ra = max(rates["after"]) if rates["after"] else None
        ratio = f"{ra / rb:.2f}" if ra and rb else "-"
        rows.append((name, human(rb), human(ra), ratio, len(b), len(f), common))
        print(f"{name}: {human(rb)} -> {human(ra)} updates/s (x{ratio}), layers {len(b)} -> {len(f)}, {common} compared", flush=True)
    if a.md:
        with open(a.md + ".tmp", "w") as out:
            out.write("| game | before (updates/s) | after (updates/s) | × | layers before | layers after | layers compared |\n")
            out.write("|---|---:|---:|---:|---:|---:|---:|\n")
            for r in rows:
                out.write("| " + " | ".join(str(x) for x in r) + " |\n")
        os.replace(a.md + ".tmp", a.md)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
