#!/usr/bin/env python3
"""Runs `symgame info --json` on every .kif file of a directory, each in its own process with a
time limit and an address-space limit, and writes one row per game to a Markdown table.

usage: scripts/conformance.py [--bin target/release/symgame] [--seconds 10] [--gib 4]
                              [--out docs/conformance.md] [--min-ok N] DIR

Exit status: 0 when every game either grounds or ends with a located error (no crash, no
timeout, no out-of-memory) and at least --min-ok games ground; 1 otherwise.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time


def limit(gib):
    def apply():
        n = gib * 1024 ** 3
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return apply


LOCATED = re.compile(r"^(error|stopped): .+?:\d+:\d+: ")


def run_one(binary, path, seconds, gib):
    started = time.monotonic()
    cmd = [binary, "info", "--json", "--time-limit", str(seconds), path]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 15,
                           preexec_fn=limit(gib))
    except subprocess.TimeoutExpired:
        return {"status": "HANG", "detail": f"no answer within {seconds + 15} s"}
    wall = time.monotonic() - started
    err = p.stderr.strip().splitlines()
    first = err[0] if err else ""
    if p.returncode == 0:
        info = json.loads(p.stdout)
        return {"status": "ok", "wall": wall, "info": info}
    if p.returncode == 2:
        kind = "located error" if LOCATED.match(first) else "error"
        return {"status": kind, "wall": wall, "detail": first}
    if p.returncode == 3:
        kind = "located limit" if LOCATED.match(first) else "limit"
        return {"status": kind, "wall": wall, "detail": first}
    return {"status": "CRASH", "wall": wall, "detail": f"exit {p.returncode}: {first or '(no message)'}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--bin", default="target/release/symgame")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--gib", type=int, default=4)
    ap.add_argument("--out", default=None)
    ap.add_argument("--min-ok", type=int, default=0)
    a = ap.parse_args()
    games = sorted(f for f in os.listdir(a.dir) if f.endswith(".kif"))
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
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, a.out)
    print(f"{ok} of {len(games)} ground; " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    if bad or ok < a.min_ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
