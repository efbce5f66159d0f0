#!/usr/bin/env python3
"""Runs `symgame info --json` on every .kif file of a directory, each in its own process with a
time limit and an address-space limit, and writes one row per game to a Markdown table.

usage: scripts/conformance.py [--bin target/release/symgame] [--seconds 10] [--gib 4]
                              [--out docs/conformance.md] [--min-ok N] DIR

Exit status: 0 when every game either grounds or ends with a located error (no crash, no
timeout, no out-of-memory) and at least --min-ok games ground; 1 otherwise.
"""
import json
import os
import re
import sys

from corpus_common import arguments, first_line, games as kif_games, run, write_atomically

LOCATED = re.compile(r"^(error|stopped): .+?:\d+:\d+: ")


def run_one(binary, path, seconds, gib):
    cmd = [binary, "info", "--json", "--time-limit", str(seconds), path]
    code, out, err, wall = run(cmd, seconds + 15, gib)
    if code is None:
        return {"status": "HANG", "detail": err}
    first = first_line(err)
    if code == 0:
        return {"status": "ok", "wall": wall, "info": json.loads(out)}
    if code == 2:
        kind = "located error" if LOCATED.match(first) else "error"
        return {"status": kind, "wall": wall, "detail": first}
    if code == 3:
        kind = "located limit" if LOCATED.match(first) else "limit"
        return {"status": kind, "wall": wall, "detail": first}
    return {"status": "CRASH", "wall": wall, "detail": f"exit {code}: {first or '(no message)'}"}


def main():
    ap = arguments(gib=4)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--min-ok", type=int, default=0)
    a = ap.parse_args()
    games = kif_games(a.dir)
    rows = []
    counts = {}
    for g in games:
        r = run_one(a.bin, os.path.join(a.dir, g), a.seconds, a.gib)
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        rows.append((g, r))
        print(f"{g:45} {r['status']:14} {r.get('wall', 0):7.2f} s  {r.get('detail', '')}",
              file=sys.stderr)
    ok = counts.get("ok", 0)
    bad = sum(v for k, v in counts.items() if k in ("HANG", "CRASH", "error", "limit"))
    lines = [
        "# Corpus conformance",
        "",
        f"`symgame info` on the {len(games)} games of the GGP corpus, each in its own process "
        f"with a {a.seconds:g} s grounding time limit and a {a.gib} GiB address-space limit "
        "(`scripts/conformance.py`).",
        "",
        f"Result: **{ok} of {len(games)} ground**; "
        + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()) if k != "ok")
        + ". Times are wall-clock seconds for the whole command (parse, check, ground) on the "
        "2-core CI machine.",
        "",
        "| game | result | roles | fluents | moves | ground rules | gates | seconds | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for g, r in rows:
        if r["status"] == "ok":
            i = r["info"]
            note = f"{len(i['warnings'])} warnings" if i["warnings"] else ""
            lines.append(f"| {g} | ok | {len(i['roles'])} | {i['fluents']} | {i['moves']} | "
                         f"{i['ground_rules']} | {i['gates']} | {r['wall']:.2f} | {note} |")
        else:
            detail = r.get("detail", "").replace("|", "\\|")
            detail = detail.replace(a.dir.rstrip("/") + "/", "")
            lines.append(f"| {g} | {r['status']} | | | | | | {r.get('wall', 0):.2f} | {detail} |")
    text = "\n".join(lines) + "\n"
    if a.out:
        write_atomically(a.out, text)
    print(f"{ok} of {len(games)} ground; " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    if bad or ok < a.min_ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
