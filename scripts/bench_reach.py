#!/usr/bin/env python3
"""Whole-run benchmark harness for `symgame reach` and `symgame solve`: runs named
configurations, each in its own process with a wall-clock limit, keeps each JSON report
(per-layer states, BDD nodes and seconds; wall and CPU time; peak memory = VmHWM), and writes a
Markdown summary with the machine noted (CPU model, cores, load average before and after each
run).

usage: scripts/bench_reach.py [--bin target/release/symgame] [--out-dir docs/bench]
                              [--summary docs/bench/README.md] SUITE [RUN ...]

Suites: `regression` (the defaults on Connect Four 5x5 solve and 6x5 reach, for
scripts/bench_compare.py), `c4` (Connect Four 6x5 on both engines and both encodings, 7x6 for 30 minutes),
`encoding` (what the compact encoding and the orders buy on smaller games) and `solve` (strong
solving of Connect Four 5x4, 6x4, 5x5 and 6x5; the hand-written C solver's 85 s for 5x5 on this
machine is the reference). RUN names pick runs
of the suite (default: all). A run that hits its limit is kept with its finished layers.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from corpus_common import write_atomically

BIG = ["--nodes-log2", "26", "--cache-log2", "24"]
SUITES = {
    "c4": [
        ("c4_6x5_oxidd_2t", "gdl/connect4_6x5.kif", ["--backend", "oxidd", "--threads", "2", *BIG], 1800),
        ("c4_6x5_oxidd_1t", "gdl/connect4_6x5.kif", ["--backend", "oxidd", "--threads", "1", *BIG], 1800),
        ("c4_6x5_biodivine", "gdl/connect4_6x5.kif", ["--backend", "biodivine"], 3600),
        ("c4_6x5_oxidd_plain", "gdl/connect4_6x5.kif",
         ["--backend", "oxidd", "--threads", "2", "--encoding", "plain", *BIG], 1800),
        # The limit is checked between images, and one image of a late 7x6 layer takes minutes:
        # the harness waits well beyond symgame's own limit.
        ("c4_7x6_oxidd_30min", "gdl/connect4_7x6.kif",
         ["--backend", "oxidd", "--threads", "2", "--nodes-log2", "27", "--cache-log2", "24",
          "--time-limit", "1800"], 2700),
        ("c4_7x6_oxidd_25min", "gdl/connect4_7x6.kif",
         ["--backend", "oxidd", "--threads", "2", "--nodes-log2", "27", "--cache-log2", "24",
          "--time-limit", "1500"], 2300),
    ],
    "encoding": [
        (f"{game}_{enc}_{order}", f"gdl/{game}.kif",
         ["--backend", "oxidd", "--threads", "1", "--encoding", enc, "--order", order], 300)
        for game in ["tictactoe", "connect4_5x4", "connect4_6x4", "eight_puzzle"]
        for enc in ["compact", "plain"]
        for order in ["heuristic", "rules", "given"]
    ] + [
        (f"connect4_6x4_cluster{c}_tcluster{t}", "gdl/connect4_6x4.kif",
         ["--backend", "oxidd", "--threads", "1", "--cluster-nodes", str(c),
          "--terminal-cluster-nodes", str(t)], 300)
        for c, t in [(0, 0), (0, 5000), (50000, 0), (50000, 5000)]
    ],
    # Both engines on one thread each (oxidd's node table sized for 6x5's solve, 2^27 nodes).
    "solve": [
        (f"solve_{game}_{name}", f"gdl/{game}.kif", flags, seconds, "solve")
        for game, seconds in [("connect4_5x4", 600), ("connect4_6x4", 1800),
                              ("connect4_5x5", 3600), ("connect4_6x5", 7200)]
        for name, flags in [
            ("biodivine", ["--backend", "biodivine"]),
            ("oxidd_1t", ["--backend", "oxidd", "--threads", "1", "--nodes-log2", "27",
                          "--cache-log2", "23"]),
        ]
    ],
    # Defaults of each command kind, for before/after comparisons of a change
    # (scripts/bench_compare.py): the Connect Four 5x5 strong solve and the 6x5 count.
    "regression": [
        ("solve_connect4_5x5", "gdl/connect4_5x5.kif", [], 1800, "solve"),
        ("reach_connect4_6x5", "gdl/connect4_6x5.kif", [], 900),
    ],
}


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 1024 ** 2
    except (OSError, ValueError, IndexError):
        mem = 0
    return f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB"


def load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def run(binary, name, game, flags, seconds, out_dir, command="reach"):
    load_before = load()
    started = time.monotonic()
    # symgame stops itself a little before the harness would kill it, keeping its layers.
    if "--time-limit" not in flags:
        flags = [*flags, "--time-limit", str(max(seconds - 30, 1))]
    cmd = [binary, command, "--json", *flags, game]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds)
        code, out, err = p.returncode, p.stdout, p.stderr.strip()
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or "", f"killed after {seconds} s"
    wall = time.monotonic() - started
    try:
        report = json.loads(out)
    except (json.JSONDecodeError, TypeError):
        report = {"layers": []}
    report.update(name=name, command=" ".join(cmd), exit=code, stderr=err,
                  load_before=load_before, load_after=load(), harness_wall_seconds=wall)
    write_atomically(os.path.join(out_dir, name + ".json"), json.dumps(report, indent=1))
    return report


def layer_table(r):
    if r.get("command", "").split()[1:2] == ["solve"]:
        lines = ["| depth | states | terminal | BDD nodes of the classes | seconds |",
                 "|---:|---:|---:|---:|---:|"]
        for l in r.get("layers", []):
            lines.append(f"| {l['depth']} | {int(l['states']):,} | {int(l['terminal']):,} | "
                         f"{l['nodes']:,} | {l['seconds']:.2f} |")
        return "\n".join(lines)
    lines = ["| layer | states | terminal | BDD nodes | seconds |", "|---:|---:|---:|---:|---:|"]
    for k, l in enumerate(r.get("layers", [])):
        lines.append(f"| {k} | {int(l['states']):,} | {int(l['terminal']):,} | {l['nodes']:,} | "
                     f"{l['seconds']:.2f} |")
    return "\n".join(lines)


def summary(reports, mach):
    out = ["# `symgame` whole-run benchmarks", "",
           f"Machine: {mach}; shared with other jobs, so the load average (runnable processes, "
           "2 cores) is given per run: CPU time is the steadier figure. Produced by "
           "`scripts/bench_reach.py`.", "",
           "| run | states | layers | stopped | wall s | CPU s | peak memory | load before/after |",
           "|---|---:|---:|---|---:|---:|---:|---|"]
    for r in reports:
        mem = r.get("peak_memory_bytes")
        out.append(
            f"| {r['name']} | {int(r.get('states', 0)):,} | {len(r.get('layers', []))} | "
            f"{r.get('stopped') or ('-' if r['exit'] == 0 else r['exit'])} | "
            f"{r.get('wall_seconds', r['harness_wall_seconds']):.1f} | "
            f"{r.get('cpu_seconds') or 0:.1f} | "
            f"{(mem or 0) / 1e9:.2f} GB | {r['load_before']:.1f} / {r['load_after']:.1f} |")
    for r in reports:
        out += ["", f"## {r['name']}", "", f"`{r['command']}`", "", layer_table(r)]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", choices=sorted(SUITES))
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--bin", default="target/release/symgame")
    ap.add_argument("--out-dir", default="docs/bench")
    ap.add_argument("--summary", default=None)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    mach = machine()
    reports = []
    for name, game, flags, seconds, *command in SUITES[a.suite]:
        if a.runs and name not in a.runs:
            continue
        r = run(a.bin, name, game, flags, seconds, a.out_dir, *command)
        reports.append(r)
        print(f"{name:40} exit {r['exit']} states {r.get('states', '?')} layers "
              f"{len(r.get('layers', []))} wall {r['harness_wall_seconds']:.1f} s cpu "
              f"{r.get('cpu_seconds')} load {r['load_before']:.1f}/{r['load_after']:.1f}",
              file=sys.stderr, flush=True)
    write_atomically(a.summary or os.path.join(a.out_dir, f"{a.suite}.md"),
                     summary(reports, mach))


if __name__ == "__main__":
    main()
