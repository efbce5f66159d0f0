#!/usr/bin/env python3
"""Side-by-side benchmark of two `symgame` binaries (before and after a change): runs the chosen
runs of a `bench_reach.py` suite with each binary in turn, alternating, ROUNDS times, checks that
both report the same states per layer, and writes a Markdown table of CPU and wall seconds and
peak memory with the after/before ratios. One run at a time, so the two binaries share the
machine's load; the load average is noted per run.

usage: scripts/bench_compare.py --before BIN --after BIN [--rounds 2] [--out FILE.md]
                                SUITE [RUN ...]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_reach import SUITES, machine, run, write_atomically  # noqa: E402


def layer_counts(report):
    return [(l.get("states"), l.get("terminal")) for l in report.get("layers", [])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", choices=sorted(SUITES))
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    picked = [r for r in SUITES[a.suite] if not a.runs or r[0] in a.runs]
    tmp = tempfile.mkdtemp(prefix="bench-compare-")
    rows, same = [], True
    for name, game, flags, seconds, *command in picked:
        got = {"before": [], "after": []}
        for k in range(a.rounds):
            # Alternate which binary goes first, so neither always runs on a warmer machine.
            order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
            for which in order:
                binary = a.before if which == "before" else a.after
                r = run(binary, f"{name}_{which}_{k}", game, flags, seconds, tmp, *command)
                got[which].append(r)
                print(f"{name:32} {which:6} exit {r['exit']} cpu {r.get('cpu_seconds')} "
                      f"wall {r.get('wall_seconds')} load {r['load_before']:.1f}",
                      file=sys.stderr, flush=True)
        counts = {str(layer_counts(r)) for w in got for r in got[w]}
        if len(counts) != 1:
            same = False

        def med(which, key):
            vals = [r.get(key) or 0 for r in got[which] if r["exit"] == 0]
            return statistics.median(vals) if vals else float("nan")

        def loads(which):
            return ", ".join(f"{r['load_before']:.1f}" for r in got[which])

        rows.append((name, med("before", "cpu_seconds"), med("after", "cpu_seconds"),
                     med("before", "wall_seconds"), med("after", "wall_seconds"),
                     med("before", "peak_memory_bytes") / 1e9,
                     med("after", "peak_memory_bytes") / 1e9,
                     len(counts) == 1, loads("before"), loads("after")))
    out = [f"Machine: {machine()}. Median of {a.rounds} runs each, alternating; "
           f"before = `{a.before}`, after = `{a.after}`.", "",
           "| run | CPU s before | CPU s after | after/before | wall s before | wall s after | "
           "peak GB before | peak GB after | same counts | load before-runs | load after-runs |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for n, cb, ca, wb, wa, mb, ma, ok, lb, la in rows:
        out.append(f"| {n} | {cb:.1f} | {ca:.1f} | {ca / cb if cb else float('nan'):.2f} | "
                   f"{wb:.1f} | {wa:.1f} | {mb:.2f} | {ma:.2f} | {'yes' if ok else 'NO'} | "
                   f"{lb} | {la} |")
    text = "\n".join(out) + "\n"
    if a.out:
        write_atomically(a.out, text)
    print(text)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
