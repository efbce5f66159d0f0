#!/usr/bin/env python3
"""Cross-checks symbolic against explicit layer counts on every .kif file of a directory.

For each game, `symgame explore --json --state-limit N` runs first (its own process, with a
time limit and an address-space limit). Games whose explicit exploration finishes are then
counted symbolically with `symgame reach --json`, once per configuration (by default the oxidd
engine with the compact encoding and the biodivine engine with the plain encoding), and every
layer's state and terminal counts are compared. The result is a Markdown table.

usage: scripts/reach_check.py [--bin target/release/symgame] [--state-limit 1000000]
                              [--explore-seconds 40] [--reach-seconds 120] [--gib 8] [--prefix]
                              [--out docs/reach-check.md] [--json OUT.json [--resume]] DIR

With `--prefix`, games too large to finish are compared too: the layers that both the explicit
exploration and `reach` finished within their limits (the first layers of checkers or chess,
e.g., where `reach` compiles the game within each layer) must agree.

Exit status: 0 when no game has different counts (a disagreement is a bug), 1 otherwise.
"""
import json
import os
import sys

import corpus_common
from corpus_common import arguments, games as kif_games, write_atomically

CONFIGS = [
    ("oxidd/compact", ["--backend", "oxidd", "--encoding", "compact", "--threads", "1"]),
    ("biodivine/plain", ["--backend", "biodivine", "--encoding", "plain"]),
]


def run(cmd, seconds, gib):
    """(exit code or 'timeout', stdout, first stderr line, wall seconds)."""
    code, out, err, wall = corpus_common.run(cmd, seconds, gib)
    if code is None:
        return "timeout", "", err, wall
    return code, out, corpus_common.first_line(err), wall


def layers_of(report):
    return [(int(layer["states"]), int(layer["terminal"])) for layer in report["layers"]]


def parse_layers(out):
    """The finished layers of a --json report (also of one stopped at a limit), or None."""
    try:
        return layers_of(json.loads(out))
    except (ValueError, KeyError, TypeError):
        return None


def check_game(a, path):
    row = {"game": os.path.basename(path)}
    code, out, err, wall = run(
        [a.bin, "explore", "--json", "--state-limit", str(a.state_limit),
         "--time-limit", str(a.explore_seconds), path],
        a.explore_seconds + 10, a.gib)
    row["explore_seconds"] = wall
    if code == 2:
        row.update(status="skipped", reason=f"does not load: {err}")
        return row
    partial = None
    if code == 3 and a.prefix:
        partial = parse_layers(out)
    if code == 3 and not partial:
        row.update(status="skipped", reason=f"explicit exploration stopped: {err}")
        return row
    if code not in (0, 3):
        row.update(status="skipped", reason=f"explicit exploration failed ({code}): {err}")
        return row
    expected = partial or layers_of(json.loads(out))
    row["explicit_complete"] = partial is None
    row["states"] = sum(s for s, _ in expected)
    row["layers"] = len(expected)
    row["configs"] = {}
    verdicts = []
    for name, flags in CONFIGS:
        code, out, err, wall = run(
            # Every layer symbolically: the explicit prefix would compare explore with itself.
            [a.bin, "reach", "--json", "--time-limit", str(a.reach_seconds), "--explicit-states",
             "0", *flags, path],
            a.reach_seconds + 10, a.gib)
        got = parse_layers(out) if code in (0, 3) else None
        # Compared on the layers both finished when either stopped at a limit (--prefix).
        common = min(len(got or []), len(expected))
        prefix = a.prefix and got is not None and (code == 3 or partial) and common > 0
        if prefix and got[:common] == expected[:common]:
            verdict = f"equal ({common} layers)"
        elif code == 0 or prefix:
            if got == expected:
                verdict = "equal"
            else:
                first = next((k for k, (x, y) in enumerate(zip(got, expected)) if x != y),
                             min(len(got), len(expected)))
                verdict = "DIFFERENT"
                row.setdefault("detail", []).append(
                    f"{name}: first difference at layer {first}: symbolic "
                    f"{got[first] if first < len(got) else '-'}, explicit "
                    f"{expected[first] if first < len(expected) else '-'}")
        elif code in (3, "timeout"):
            verdict = "limit"
            row.setdefault("detail", []).append(f"{name}: {err}")
        else:
            verdict = "error"
            row.setdefault("detail", []).append(f"{name}: exit {code}: {err}")
        row["configs"][name] = {"verdict": verdict, "seconds": wall}
        verdicts.append(verdict)
    if "DIFFERENT" in verdicts:
        row["status"] = "different"
    elif all(v == "equal" for v in verdicts):
        row["status"] = "equal"
    elif all(v.startswith("equal") for v in verdicts):
        row["status"] = "equal on the finished layers"
    elif any(v.startswith("equal") for v in verdicts):
        row["status"] = "equal (partly)"
    else:
        row["status"] = "symbolic failed"
    return row


def table(a, rows, games):
    count = {}
    for r in rows:
        count[r["status"]] = count.get(r["status"], 0) + 1
    compared = sum(1 for r in rows if r["status"] != "skipped")
    names = [n for n, _ in CONFIGS]
    out = [
        "# Symbolic against explicit layer counts on the GGP corpus",
        "",
        f"`scripts/reach_check.py` on the {len(games)} games of the public GGP corpus: "
        f"`symgame explore --state-limit {a.state_limit}` (explicit breadth-first search, "
        f"{a.explore_seconds:g} s limit); for every game it finishes, `symgame reach` "
        f"({a.reach_seconds:g} s limit) with " + " and ".join(f"`{n}`" for n in names) +
        ", comparing the states and the terminal states of every layer. Each run in its own "
        f"process with a {a.gib} GiB address-space limit.",
        "",
        "| result | games |",
        "|---|---:|",
        f"| compared (explicit exploration finished{', or its finished layers' if a.prefix else ''}) | {compared} |",
    ]
    for status in ["equal", "equal on the finished layers", "equal (partly)", "different",
                   "symbolic failed", "skipped"]:
        out.append(f"| {status} | {count.get(status, 0)} |")
    out += ["", "## Compared games", "",
            "| game | states | layers | " + " | ".join(names) + " | note |",
            "|---|---:|---:|" + "---|" * len(names) + "---|"]
    for r in rows:
        if r["status"] == "skipped":
            continue
        cells = []
        for n in names:
            c = r["configs"][n]
            cells.append(f"{c['verdict']} ({c['seconds']:.1f} s)")
        note = "; ".join(r.get("detail", [])).replace("|", "\\|")
        out.append(f"| {r['game']} | {r['states']:,} | {r['layers']} | " + " | ".join(cells) +
                   f" | {note} |")
    out += ["", "## Skipped games", "", "| game | reason |", "|---|---|"]
    for r in rows:
        if r["status"] == "skipped":
            out.append(f"| {r['game']} | {r['reason'].replace('|', '/')} |")
    return "\n".join(out) + "\n"


def main():
    ap = arguments(gib=8)
    ap.add_argument("--state-limit", type=int, default=1_000_000)
    ap.add_argument("--explore-seconds", type=float, default=40)
    ap.add_argument("--reach-seconds", type=float, default=120)
    ap.add_argument("--json", default=None)
    ap.add_argument("--prefix", action="store_true",
                    help="also compare the finished layers of games that stop at a limit")
    ap.add_argument("--only", nargs="*", default=None, help="check only these file names")
    ap.add_argument("--resume", action="store_true",
                    help="keep the games already in the --json file and check the rest")
    a = ap.parse_args()
    games = kif_games(a.dir, a.only)
    rows = []
    if a.resume and a.json and os.path.exists(a.json):
        with open(a.json) as f:
            rows = [r for r in json.load(f) if r["game"] in games]
    done = {r["game"] for r in rows}
    for g in games:
        if g in done:
            continue
        r = check_game(a, os.path.join(a.dir, g))
        rows.append(r)
        print(f"{g:45} {r['status']:16} {r.get('reason', '')} {'; '.join(r.get('detail', []))}",
              file=sys.stderr, flush=True)
        if a.json:
            write_atomically(a.json, json.dumps(rows, indent=1))
    text = table(a, rows, games)
    if a.out:
        write_atomically(a.out, text)
    else:
        print(text)
    return 1 if any(r["status"] == "different" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
