#!/usr/bin/env python3
"""Corpus sweep of the symbolic pipeline (issue 15): for every game of a directory, `symgame
reach --json` within a time limit, recording the set-up seconds (and per phase when the report
has them), the partitioning, the BFS layers completed, the states, whether the reachable set is
complete and why a run stopped; optionally then `solve --out` (to a scratch directory) and
`verify --solution` of that solution. Writes a Markdown table
after every game, and keeps every game's raw result in a JSON file, so an interrupted sweep
resumes where it stopped (`--resume`).

The first-layers check (`--first-layers N --min-ok K`): a game passes when `reach` reports its
set-up and at least N layers (or its whole reachable set) within the time limit; exit 1 when
fewer than K games pass. CI uses it as a floor, like the conformance check.

usage: scripts/corpus_sweep.py DIR [--bin B] [--reach-limit 60] [--solve-limit 600] [--solve]
                               [--verify] [--verify-args A] [--jobs 2] [--first-layers 5] [--min-ok K]
                               [--results FILE.json] [--resume] [--out FILE.md] [--only G ...]
"""
import concurrent.futures
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import arguments, first_line, games, run, write_atomically  # noqa: E402


def parse_json(out):
    try:
        return json.loads(out)
    except (json.JSONDecodeError, TypeError):
        return None


def sweep_game(a, game):
    path = os.path.join(a.dir, game)
    # symgame stops itself at its limit (exit 3, partial report); the harness waits for the
    # watchdog's grace (a quarter of the limit, at least 5 s) and a little more.
    wait = a.reach_limit + max(a.reach_limit / 4, 5) + 5
    code, out, err, wall = run([a.bin, "reach", "--json", "--time-limit", str(a.reach_limit),
                                *a.reach_args.split(), path], wait, a.gib)
    rep = parse_json(out) or {}
    row = {
        "game": game,
        "reach_exit": code,
        "reach_wall": round(wall, 2),
        "setup_seconds": rep.get("setup_seconds"),
        "phases": rep.get("setup_phases"),
        "partitions": rep.get("partitions"),
        "partitioning": rep.get("partitioning"),
        "encoding": rep.get("encoding"),
        "layers": len(rep.get("layers", [])),
        "states": rep.get("states"),
        "complete": code == 0 and rep.get("stopped") is None and bool(rep),
        "stopped": rep.get("stopped") or (None if code == 0 else first_line(err, 120)),
    }
    if a.solve and (row["complete"] or a.solve_all):
        # The solution goes to a scratch directory, and `verify --solution` checks that very
        # solution (rather than solving the game a second time).
        with tempfile.TemporaryDirectory(prefix="sweep-") as scratch:
            sol = os.path.join(scratch, "solution")
            code, out, err, wall = run([a.bin, "solve", "--json", "--time-limit",
                                        str(a.solve_limit), "--out", sol, path],
                                       a.solve_limit + max(a.solve_limit / 4, 5) + 5, a.gib)
            rep = parse_json(out) or {}
            row.update(solve_exit=code, solve_wall=round(wall, 2),
                       solved=code == 0 and rep.get("stopped") is None and bool(rep),
                       assumed_groups=rep.get("assumed_groups"),
                       solve_note=None if code == 0 else first_line(err, 120))
            if a.verify and row["solved"]:
                code, out, err, wall = run([a.bin, "verify", "--json", "--time-limit",
                                            str(a.solve_limit), "--solution", sol, path]
                                           + a.verify_args.split(),
                                           a.solve_limit + max(a.solve_limit / 4, 5) + 5,
                                           a.gib)
                row.update(verify_exit=code, verify_wall=round(wall, 2),
                           verify_note=first_line(err, 120) if code != 0 else None)
    return row


def first_layers_ok(row, n):
    return row["complete"] or row["layers"] >= n


def table(rows, a):
    done = [r for r in rows if r]
    ok = sum(first_layers_ok(r, a.first_layers) for r in done)
    # Passed by the explicit prefix alone: the symbolic set-up stopped.
    explicit_only = sum(first_layers_ok(r, a.first_layers)
                        and (r.get("partitioning") or "").startswith("explicit only")
                        for r in done)
    complete = sum(r["complete"] for r in done)
    solved = sum(bool(r.get("solved")) for r in done)
    out = ["# Corpus sweep of `reach` (and `solve`, `verify`)", "",
           f"{len(done)} games; `reach --time-limit {a.reach_limit:g} {a.reach_args}`: {ok} reported set-up and at "
           f"least {a.first_layers} layers or their whole reachable set ({explicit_only} of them from the "
           f"explicit prefix only, their symbolic set-up stopped), {complete} complete"
           + (f"; `solve --time-limit {a.solve_limit:g}`: {solved} solved" if a.solve else "")
           + ". Produced by `scripts/corpus_sweep.py`.", "",
           "| game | exit | set-up s | partitions | layers | states | complete | stopped |"
           + (" solved | verify |" if a.solve else ""),
           "|---|---|---:|---:|---:|---:|---|---|" + ("---|---|" if a.solve else "")]
    for r in done:
        setup = f"{r['setup_seconds']:.2f}" if r["setup_seconds"] is not None else "-"
        states = f"{int(r['states']):,}" if r["states"] is not None else "-"
        parts = r["partitions"] if r["partitions"] is not None else "-"
        if r.get("partitioning"):
            parts = f"{parts} ({r['partitioning']})"
        stopped = (r["stopped"] or "").replace("|", "\\|")
        line = (f"| {r['game'][:-4]} | {r['reach_exit']} | {setup} | {parts} | {r['layers']} | "
                f"{states} | {'yes' if r['complete'] else 'no'} | {stopped} |")
        if a.solve:
            solved = "yes" if r.get("solved") else ("-" if "solved" not in r else "no")
            verify = {None: "-", 0: "agreed", 4: "DISAGREED"}.get(r.get("verify_exit"),
                                                                   str(r.get("verify_exit")))
            line += f" {solved} | {verify} |"
        out.append(line)
    return "\n".join(out) + "\n", ok


def main():
    ap = arguments(gib=16)
    ap.add_argument("--reach-limit", type=float, default=60)
    ap.add_argument("--reach-args", default="--threads 1",
                    help="further flags of reach (default: one core)")
    ap.add_argument("--solve-limit", type=float, default=600)
    ap.add_argument("--solve", action="store_true", help="solve games whose reach completes")
    ap.add_argument("--solve-all", action="store_true",
                    help="with --solve, also the games whose reach did not complete (solve "
                         "runs its own forward search, within --solve-limit)")
    ap.add_argument("--verify", action="store_true", help="verify the games solved")
    ap.add_argument("--verify-args", default="",
                    help="further flags of verify, e.g. '--algo backward --node-limit 8000000' "
                         "(one induction over the states checked, for deep puzzles)")
    ap.add_argument("--jobs", type=int, default=1, help="games run at once")
    ap.add_argument("--first-layers", type=int, default=5)
    ap.add_argument("--min-ok", type=int, default=None,
                    help="exit 1 when fewer games pass the first-layers check")
    ap.add_argument("--results", default=None, help="raw results (JSON), kept for --resume")
    ap.add_argument("--resume", action="store_true", help="keep the results of --results")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    names = games(a.dir, a.only)
    kept = {}
    if a.resume and a.results and os.path.exists(a.results):
        with open(a.results) as f:
            kept = {r["game"]: r for r in json.load(f)}
    rows = [kept.get(g) for g in names]
    # With --only, the kept results of the other games stay in the files.
    others = [r for g, r in kept.items() if g not in set(names)]

    def save():
        every = sorted([r for r in rows if r] + others, key=lambda r: r["game"])
        text, ok = table(every, a)
        if a.out:
            write_atomically(a.out, text)
        if a.results:
            write_atomically(a.results, json.dumps(every, indent=1))
        return text, ok

    todo = [i for i, r in enumerate(rows) if r is None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
        futures = {pool.submit(sweep_game, a, names[i]): i for i in todo}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            rows[i] = fut.result()
            r = rows[i]
            print(f"{r['game']:40} exit {r['reach_exit']} layers {r['layers']:3} "
                  f"complete {r['complete']} {r['stopped'] or ''}", file=sys.stderr, flush=True)
            save()
    text, ok = save()
    if not a.out:
        print(text)
    if a.min_ok is not None and ok < a.min_ok:
        print(f"first-layers check: {ok} games passed, fewer than the floor of {a.min_ok}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
