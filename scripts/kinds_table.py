#!/usr/bin/env python3
"""Solve and verify games of every kind (simultaneous moves, three or more roles) and write the
table of docs/solving.md: kind, value of the initial state, states, seconds, stage games, and
the state-by-state check of `verify`.

    scripts/kinds_table.py --bin target/release/symgame --results F.json --out F.md GAME.kif ...

Each game runs `solve --json` (under --solve-limit seconds) and, when it is solved,
`verify --json` (under --verify-limit). Results are kept in --results after every game and
reused with --resume, so a run killed part way goes on where it stopped.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run_json(cmd, limit):
    """(exit code, parsed JSON or None, wall seconds, stderr tail)."""
    started = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 120)
    except subprocess.TimeoutExpired:
        return None, None, time.time() - started, "killed after the limit"
    wall = time.time() - started
    try:
        data = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    return p.returncode, data, wall, p.stderr.strip().splitlines()[-1:] if p.stderr else []


def initial_value(s):
    """The initial state's value as text: mixed values with their pure bounds, or rewards."""
    i = s.get("initial")
    if i is None:
        return "not solved"
    pure = "/".join(str(v) for v in s["outcomes"][i])
    mixed = s.get("mixed") or []
    if mixed:
        return "{} mixed [{} pure]".format("/".join(f"{v:.2f}" for v in mixed[i]), pure)
    return pure


def game_row(bin_path, game, solve_limit, verify_limit, values=None):
    row = {"game": os.path.basename(game)}
    # The solution is kept on disk so that verify checks it instead of solving again.
    out_dir = tempfile.mkdtemp(prefix="kinds-")
    solution = os.path.join(out_dir, "solution")
    try:
        return solve_and_verify(bin_path, game, solve_limit, verify_limit, values, row, solution)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def solve_and_verify(bin_path, game, solve_limit, verify_limit, values, row, solution):
    extra = ["--values", values] if values else []
    code, s, wall, err = run_json(
        [bin_path, "solve", "--json", "--time-limit", str(solve_limit), "--out", solution,
         *extra, game],
        solve_limit,
    )
    row["solve_exit"], row["solve_wall"] = code, round(wall, 2)
    if s is None:
        row["note"] = " ".join(err)
        return row
    row.update(
        kind=s["kind"],
        roles=len(s["roles"]),
        states=s["states"],
        initial=initial_value(s),
        solve_seconds=round(s["seconds"], 2),
        stage_games=s.get("stage_games", 0),
        classes=len(s["outcomes"]),
        stopped=s.get("stopped"),
    )
    nash = s.get("nash")
    if nash:
        row["nash"] = "{} of {} one-shot states".format(
            nash["with_equilibrium"], nash["one_shot_states"]
        )
    if s.get("stopped") and s["kind"] == "mixed-values" and not values:
        # The mixed values stopped at the limit: the pure security levels instead, which
        # the report then shows with the stop of the mixed values.
        pure = game_row(bin_path, game, solve_limit, verify_limit, values="security")
        pure["mixed_stopped"] = f"{s['stopped']} after {row['solve_seconds']} s"
        return pure
    if s.get("stopped") or s.get("initial") is None:
        return row
    code, v, wall, err = run_json(
        [bin_path, "verify", "--json", "--time-limit", str(verify_limit), "--solution",
         solution, game],
        verify_limit,
    )
    row["verify_exit"], row["verify_wall"] = code, round(wall, 2)
    if v is None:
        row["verify_note"] = " ".join(err)
        return row
    tally = {k: sum(a[k] for a in v["algos"]) for k in ("agreed", "undecided", "disagreed")}
    row.update(
        verify_mode=v["mode"],
        checked=v["states_checked"],
        verify_stopped=v.get("stopped"),
        **tally,
    )
    return row


def table(rows, header):
    out = [header, ""]
    out.append(
        "| game | roles | kind | states | initial state | solve s | stage games (LPs) | "
        "pure Nash, one-shot | verify | states checked | answers agreed / undecided / "
        "disagreed |"
    )
    out.append("|---|---:|---|---:|---|---:|---:|---|---|---:|---|")
    for r in rows:
        if "kind" not in r:
            out.append(f"| {r['game']} | | | | not solved: {r.get('note', '')} | | | | | | |")
            continue
        stopped = f" (stopped: {r['stopped']})" if r.get("stopped") else ""
        if r.get("mixed_stopped"):
            stopped += f" (mixed values: {r['mixed_stopped']}; `--values security`)"
        if "verify_mode" in r:
            vmode = r["verify_mode"] + (
                f", stopped: {r['verify_stopped']}" if r.get("verify_stopped") else ""
            )
            answers = f"{r['agreed']} / {r['undecided']} / {r['disagreed']}"
            checked = r["checked"]
        else:
            vmode, answers, checked = r.get("verify_note", "not run"), "", ""
        out.append(
            f"| {r['game']} | {r['roles']} | {r['kind']} | {int(r['states']):,} | "
            f"{r['initial']}{stopped} | {r['solve_seconds']} | {r['stage_games'] or ''} | "
            f"{r.get('nash', '')} | {vmode} | {checked} | {answers} |"
        )
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games", nargs="+")
    ap.add_argument("--bin", default="target/release/symgame")
    ap.add_argument("--solve-limit", type=int, default=600)
    ap.add_argument("--verify-limit", type=int, default=600)
    ap.add_argument("--results", required=True)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args()
    rows = {}
    if a.resume and os.path.exists(a.results):
        rows = {r["game"]: r for r in json.load(open(a.results))}
    for game in a.games:
        name = os.path.basename(game)
        if name in rows:
            continue
        rows[name] = game_row(a.bin, game, a.solve_limit, a.verify_limit)
        print(json.dumps(rows[name]), flush=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(a.results)))
        with os.fdopen(fd, "w") as f:
            json.dump(list(rows.values()), f, indent=1)
        os.replace(tmp, a.results)
    ordered = [rows[os.path.basename(g)] for g in a.games]
    header = (
        f"`solve --time-limit {a.solve_limit}`, then `verify --time-limit {a.verify_limit}` "
        "on the solution written by `solve --out` (every reachable state up to 20,000, else a "
        "seeded sample of 200; an answer is one state and role, plus role 0's mixed value). "
        "Produced by `scripts/kinds_table.py`."
    )
    text = table(ordered, header)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
