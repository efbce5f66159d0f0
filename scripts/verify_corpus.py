#!/usr/bin/env python3
"""Solves the games of a directory symbolically and checks each solution with the explicit
solvers (`symgame verify --solution`), writing one table row per game.

For each game: `symgame reach` with a short time limit selects the games whose reachable set is
within reach; `symgame solve --out DIR` (time limit --solve-seconds, default 600) solves them;
`symgame verify --solution DIR` checks every reachable state (at most --all-limit) or a seeded
uniform sample of --sample states with df-pn and alpha-beta.

usage: scripts/verify_corpus.py [--bin target/release/symgame] [--reach-seconds 60]
                                [--solve-seconds 600] [--verify-seconds 600] [--sample 100]
                                [--all-limit 20000] [--gib 8] [--only NAME,...]
                                [--out docs/verify-corpus.md] DIR

Exit status: 1 if any game shows a disagreement (verify exit 4) or crashes, else 0.
"""
import json
import os
import shutil
import sys
import tempfile

import corpus_common
from corpus_common import arguments, games as kif_games, write_atomically


def run(cmd, seconds, gib):
    """A symgame command with its own limit of `seconds`: killed 5 s after it."""
    return corpus_common.run(cmd, seconds + 5, gib)


def first_line(text):
    return corpus_common.first_line(text, 160)


def check(a, path, work):
    name = os.path.basename(path)
    row = {"game": name}
    code, out, err, wall = run([a.bin, "reach", "--json", "--time-limit", str(a.reach_seconds),
                                path], a.reach_seconds, a.gib)
    if code != 0:
        row["result"] = "skipped"
        row["note"] = "reach: " + (first_line(err) or f"exit {code}")
        return row
    reach = json.loads(out)
    row["states"] = reach["states"]
    sol = os.path.join(work, name + ".sol")
    code, out, err, wall = run([a.bin, "solve", "--json", "--time-limit", str(a.solve_seconds),
                                "--out", sol, path], a.solve_seconds, a.gib)
    row["solve_s"] = f"{wall:.1f}"
    if code != 0:
        row["result"] = "not solved"
        row["note"] = "solve: " + (first_line(err) or f"exit {code}")
        return row
    st = json.loads(out)
    row["kind"] = st["kind"] + (" (layered)" if st["layered"] else "")
    if st.get("initial") is not None:
        row["initial"] = "/".join(map(str, st["outcomes"][st["initial"]]))
    code, out, err, wall = run([a.bin, "verify", "--json", "--solution", sol, "--sample",
                                str(a.sample), "--all-limit", str(a.all_limit), "--time-limit",
                                str(a.verify_seconds), path], a.verify_seconds, a.gib)
    shutil.rmtree(sol, ignore_errors=True)
    row["verify_s"] = f"{wall:.1f}"
    if code in (0, 3, 4) and out.strip():
        v = json.loads(out)
        row["checked"] = f"{v['states_checked']} ({v['mode']})"
        row["agreed"] = sum(t["agreed"] for t in v["algos"])
        row["undecided"] = sum(t["undecided"] for t in v["algos"])
        row["disagreed"] = sum(t["disagreed"] for t in v["algos"])
        row["result"] = {0: "verified", 3: "verified (partial)", 4: "DISAGREEMENT"}[code]
        if code == 3:
            row["note"] = first_line(err)
        if code == 4:
            row["note"] = "; ".join(
                f"{d['role']} symbolic {d['symbolic']} explicit {d['explicit']} ({d['algo']})"
                for d in v["disagreements"][:3]) or first_line(err)
    elif code is None:
        # Killed by this script 5 s after its own limit: an overrun, not a crash.
        row["result"] = "verify overran its limit"
        row["note"] = "verify: " + first_line(err)
    else:
        row["result"] = "verify error" if code < 128 else "CRASH"
        row["note"] = "verify: " + (first_line(err) or f"exit {code}")
    return row


def main():
    ap = arguments(gib=8)
    ap.add_argument("--reach-seconds", type=float, default=60)
    ap.add_argument("--solve-seconds", type=float, default=600)
    ap.add_argument("--verify-seconds", type=float, default=600)
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--all-limit", type=int, default=20000)
    ap.add_argument("--only", default=None)
    ap.add_argument("--reuse", default=None,
                    help="a table written earlier: its rows are kept, those games not re-run")
    a = ap.parse_args()
    reused = read_rows(a.reuse) if a.reuse else {}
    games = kif_games(a.dir, a.only.split(",") if a.only else None)
    work = tempfile.mkdtemp(prefix="symgame-verify-")
    rows = []
    try:
        for g in games:
            r = reused.get(g)
            if r is None:
                r = check(a, os.path.join(a.dir, g), work)
            rows.append(r)
            print(f"{g:45} {r['result']:20} {r.get('note', '')}", file=sys.stderr)
            # The table so far, after every game: a stopped sweep keeps what it finished.
            write_table(a, games, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    bad = write_table(a, games, rows)
    sys.exit(1 if bad else 0)


COLS = ["game", "result", "states", "kind", "initial", "solve_s", "checked", "agreed",
        "undecided", "disagreed", "verify_s", "note"]


def read_rows(path):
    """The rows of a table this script wrote, by game."""
    rows = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("| ") or line.startswith("| game |"):
                continue
            cells = [c.strip().replace("\\|", "|")
                     for c in line.strip()[2:-2].split(" | ")]
            if len(cells) != len(COLS):
                continue
            r = {k: v for k, v in zip(COLS, cells) if v != ""}
            rows[r["game"]] = r
    return rows


def write_table(a, games, rows):
    """Writes the table (to --out through a temporary file, or to stdout); returns the number
    of disagreements and crashes."""
    counts = {}
    for r in rows:
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    cols = COLS
    lines = [
        "# Corpus verification",
        "",
        f"`scripts/verify_corpus.py` on the {len(games)} games of the GGP corpus: `symgame reach` "
        f"within {a.reach_seconds:g} s selects the games, `symgame solve` solves them within "
        f"{a.solve_seconds:g} s, and `symgame verify --solution` checks every reachable state "
        f"(at most {a.all_limit}) or a seeded sample of {a.sample} with df-pn and alpha-beta "
        f"(each role of each state, each algorithm: one check). Limits per process: "
        f"{a.gib} GiB address space." + (f" Rows of games already in {a.reuse} were kept from "
                                         "it." if a.reuse else ""),
        "",
        "Result: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ".",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")).replace("|", "\\|") for c in cols)
                     + " |")
    text = "\n".join(lines) + "\n"
    if a.out:
        write_atomically(a.out, text)
    elif len(rows) == len(games):
        sys.stdout.write(text)
    return counts.get("DISAGREEMENT", 0) + counts.get("CRASH", 0)


if __name__ == "__main__":
    main()
