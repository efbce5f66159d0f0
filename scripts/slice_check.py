#!/usr/bin/env python3
"""Slices against one process on many games (issue 20, figure 2): for each game, `solve --out A`
and `solve --out B --jobs 2 --slices 4 --slice-min-bytes 0` (every layer of a layered game in
four slices), then the solution files compared byte for byte and the per-layer counts of the
two manifests. Resumable: results are kept in --results JSON, one entry a game, and a game
already there is not run again.

    python3 scripts/slice_check.py GAME.kif... --bin target/release/symgame \\
        --limit 120 --results slices.json --out slices.md
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def solve(binary, game, out, extra, limit):
    """Runs one solve into `out`; returns (exit code, report or None, seconds)."""
    args = [binary, "solve", game, "--out", out, "--json", "--time-limit", str(limit)] + extra
    started = time.time()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=limit + 60)
    except subprocess.TimeoutExpired:
        return None, None, time.time() - started
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = None
    return p.returncode, report, time.time() - started


def sol_files(d):
    """Name and bytes of every .sol file of `d`, sorted."""
    files = []
    for name in sorted(os.listdir(d)):
        if name.endswith(".sol"):
            with open(os.path.join(d, name), "rb") as f:
                files.append((name, f.read()))
    return files


def counts(d):
    """What must not depend on slicing, from the manifest."""
    with open(os.path.join(d, "solution.json")) as f:
        s = json.load(f)["stats"]
    layers = [
        (l["depth"], l["states"], l["terminal"], l["per_outcome"], l["mover"]) for l in s["layers"]
    ]
    return (s["outcomes"], s["initial"], s["per_outcome"], layers)


def check(binary, game, limit):
    """One game: both solves and the comparison."""
    tmp = tempfile.mkdtemp(prefix="slice-check-")
    try:
        one, many = os.path.join(tmp, "one"), os.path.join(tmp, "many")
        c1, r1, t1 = solve(binary, game, one, [], limit)
        row = {"game": os.path.basename(game), "one_exit": c1, "one_seconds": round(t1, 2)}
        if c1 != 0 or r1 is None:
            row["verdict"] = "not solved by one process"
            return row
        extra = ["--jobs", "2", "--slices", "4", "--slice-min-bytes", "0"]
        c2, r2, t2 = solve(binary, game, many, extra, limit)
        row.update({"sliced_exit": c2, "sliced_seconds": round(t2, 2)})
        row["layered"] = bool(r1.get("layered"))
        if c2 == 3:
            # A limit, not an answer: every layer in four jobs costs a set-up each.
            row["verdict"] = "sliced: stopped at the limit"
            return row
        if c2 != 0 or r2 is None:
            row["verdict"] = "sliced solve failed"
            return row
        row["sliced_layers"] = sum(1 for l in r2["layers"] if l.get("sliced"))
        same_files = sol_files(one) == sol_files(many)
        same_counts = counts(one) == counts(many)
        row["same_files"], row["same_counts"] = same_files, same_counts
        row["verdict"] = "same" if same_files and same_counts else "DIFFERENT"
        return row
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_table(rows, out):
    """Writes the Markdown table of `rows` to `out` (if given); returns the games that differ."""
    ordered = sorted(rows.values(), key=lambda r: r["game"])
    different = [r["game"] for r in ordered if r["verdict"] == "DIFFERENT"]
    if out:
        lines = [
            "| game | layered | sliced layers | one process s | sliced s | verdict |",
            "|---|---|---:|---:|---:|---|",
        ]
        for r in ordered:
            lines.append(
                f"| {r['game']} | {r.get('layered', '')} | {r.get('sliced_layers', '')} | "
                f"{r.get('one_seconds', '')} | {r.get('sliced_seconds', '')} | {r['verdict']} |"
            )
        same = sum(1 for r in ordered if r["verdict"] == "same")
        sliced = sum(1 for r in ordered if r.get("sliced_layers"))
        lines.append("")
        lines.append(
            f"{same} of {len(ordered)} games the same with slices ({sliced} of them layered and "
            f"solved in slices); different: {', '.join(different) or 'none'}."
        )
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, out)
    return different


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="+")
    ap.add_argument("--bin", default="target/release/symgame")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per solve")
    ap.add_argument("--results", required=True, help="JSON kept between runs")
    ap.add_argument("--out", help="Markdown table")
    a = ap.parse_args()
    rows = {}
    if os.path.exists(a.results):
        with open(a.results) as f:
            rows = {r["game"]: r for r in json.load(f)}
    for game in a.games:
        name = os.path.basename(game)
        if name in rows:
            continue
        rows[name] = check(a.bin, game, a.limit)
        print(f"{name}: {rows[name]['verdict']}", flush=True)
        tmp = a.results + ".tmp"
        with open(tmp, "w") as f:
            json.dump(sorted(rows.values(), key=lambda r: r["game"]), f, indent=1)
        os.replace(tmp, a.results)
        write_table(rows, a.out)
    different = write_table(rows, a.out)
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
