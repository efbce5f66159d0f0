#!/usr/bin/env python3
"""symgame and Böck's Connect Four BDD solver side by side on one board (issue 17).

The peer is markus7800/Connect4-Strong-Solver, built OUTSIDE this repository (never commit its
code): clone it, then in `src/connect4` run `make count CC=gcc` and
`make solve CC=gcc SAVE_BDD_TO_DISK=0`; pass that `build` directory as --peer.

Each round runs both programs on the same board, one thread each: one after the other
(alternating which goes first) or, with --together, at the same time (one core each). Every
run is timed by /usr/bin/time (CPU = user + system seconds, wall seconds, peak resident memory).
The answers are checked ply by ply: for `count`, the positions per ply against symgame's
`reach` layers; for `solve`, per ply the positions, the terminal ones, and the won / drawn /
lost counts for the side to move (the peer counts a terminal position as lost for the side to
move; symgame counts only non-terminal ones, so the peer's losses less its terminal positions
are compared; a full board is terminal in the GDL, a drawn non-terminal position for the
peer). A difference fails the script (exit 1). The table gives the best of the rounds
for each program and the ratio symgame / peer.

    python3 scripts/c4_side_by_side.py --peer /work/peers/c4solver/src/connect4/build \\
        --symgame target/release/symgame --board 5x5 --task solve --rounds 3 \\
        --peer-log2 26 --out docs/bench/c4-side-by-side-5x5-solve.md
"""

import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd):
    """Runs `cmd` under /usr/bin/time: (stdout, cpu s, wall s, peak resident MiB, exit code)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        full = ["/usr/bin/time", "-o", t.name, "-f", "%U %S %e %M"] + cmd
        p = subprocess.run(full, cwd=cwd, capture_output=True, text=True)
        fields = t.read().split()[-4:]
    user, system, wall, rss_kb = (float(x) for x in fields)
    return p.stdout, user + system, wall, rss_kb / 1024, p.returncode


def run_symgame(a, w, h):
    game = os.path.join(ROOT, "gdl", f"connect4_{w}x{h}.kif")
    cmd = [a.symgame, "reach" if a.task == "count" else "solve", game, "--json",
           "--threads", "1"] + a.symgame_args.split()
    out, cpu, wall, rss, code = timed(cmd, ROOT)
    if code != 0:
        sys.exit(f"symgame exited {code}: {' '.join(cmd)}")
    report = json.loads(out)
    rows = {}
    for i, layer in enumerate(report["layers"]):
        ply = layer.get("depth", i)
        if a.task == "count":
            rows[ply] = (int(layer["states"]),)
        else:
            m = layer.get("mover") or {}
            rows[ply] = (int(layer["states"]), int(layer["terminal"]),
                         int(m.get("won", 0)), int(m.get("drawn", 0)), int(m.get("lost", 0)))
    return {"cpu": cpu, "wall": wall, "rss": rss, "rows": rows}


def run_peer(a, w, h):
    binary = os.path.join(a.peer, "count.out" if a.task == "count" else "solve.out")
    with tempfile.TemporaryDirectory() as d:
        _, cpu, wall, rss, code = timed([binary, str(a.peer_log2), str(w), str(h)], d)
        if code != 0:
            sys.exit(f"the peer exited {code}: {binary}")
        name = "results_ply" if a.task == "count" else "results_solve"
        with open(os.path.join(d, f"{name}_w{w}_h{h}_ls{a.peer_log2}.csv")) as f:
            table = list(csv.DictReader(f, skipinitialspace=True))
    rows = {}
    for r in table:
        ply = int(r["ply"])
        if a.task == "count":
            rows[ply] = (int(r["poscount"]),)
        else:
            term, draw = int(r["term_count"]), int(r["draw_count"])
            if ply == w * h:
                # A full board ends the game in GDL; the peer counts it drawn, not terminal.
                term, draw = term + draw, 0
            rows[ply] = (int(r["total_count"]), term, int(r["win_count"]), draw,
                         int(r["loss_count"]) - int(r["term_count"]))
    return {"cpu": cpu, "wall": wall, "rss": rss, "rows": rows}


def check(ours, theirs):
    """The plies where the answers differ."""
    plies = sorted(set(ours) | set(theirs))
    return [(p, ours.get(p), theirs.get(p)) for p in plies if ours.get(p) != theirs.get(p)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", required=True, help="the peer's built src/connect4/build")
    ap.add_argument("--symgame", default=os.path.join(ROOT, "target/release/symgame"))
    ap.add_argument("--board", default="5x4", help="WIDTHxHEIGHT, a gdl/connect4_*.kif")
    ap.add_argument("--task", choices=["count", "solve"], default="count")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--peer-log2", type=int, default=24, help="the peer's log2_tablesize")
    ap.add_argument("--symgame-args", default="", help="further flags of symgame")
    ap.add_argument("--together", action="store_true",
                    help="run both at once, one core each (else one after the other)")
    ap.add_argument("--out", help="write the table (Markdown) here; raw runs beside as .json")
    a = ap.parse_args()
    w, h = (int(x) for x in a.board.split("x"))
    runs = {"symgame": [], "peer": []}
    for r in range(a.rounds):
        jobs = [("symgame", run_symgame), ("peer", run_peer)]
        if r % 2:
            jobs.reverse()
        if a.together:
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                done = {name: pool.submit(f, a, w, h) for name, f in jobs}
                for name, fut in done.items():
                    runs[name].append(fut.result())
        else:
            for name, f in jobs:
                runs[name].append(f(a, w, h))
        diff = check(runs["symgame"][-1]["rows"], runs["peer"][-1]["rows"])
        if diff:
            for p, ours, theirs in diff[:10]:
                print(f"ply {p}: symgame {ours}, peer {theirs}", file=sys.stderr)
            sys.exit(f"round {r + 1}: the answers differ on {len(diff)} plies")
    best = {k: min(v, key=lambda x: x["cpu"]) for k, v in runs.items()}
    load = os.getloadavg()[0]
    mode = "together, one core each" if a.together else "one after the other"
    lines = [
        f"# Connect Four {w}×{h} {a.task}: symgame and the C solver side by side",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {a.rounds} rounds ({mode}), "
        f"one thread each, load average {load:.2f} at the end; peer log2_tablesize "
        f"{a.peer_log2}; symgame flags `{a.symgame_args or '(defaults)'}`. Every ply's "
        f"answer agreed ({len(best['peer']['rows'])} plies). Best round by CPU time:",
        "",
        "| program | CPU s | wall s | peak resident MiB |",
        "|---|---:|---:|---:|",
    ]
    for k in ("symgame", "peer"):
        b = best[k]
        lines.append(f"| {k} | {b['cpu']:.1f} | {b['wall']:.1f} | {b['rss']:.0f} |")
    s, p = best["symgame"], best["peer"]
    lines.append(f"| symgame / peer | {s['cpu'] / p['cpu']:.2f} | {s['wall'] / p['wall']:.2f} "
                 f"| {s['rss'] / p['rss']:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        raw = {k: [{x: y for x, y in run.items() if x != "rows"} for run in v]
               for k, v in runs.items()}
        with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
