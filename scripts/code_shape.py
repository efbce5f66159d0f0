#!/usr/bin/env python3
"""The code-shape check of issue 14, run by CI: in the library crates (crates/*/src, the CLI
excluded), no source file over 800 lines, no function over 150 lines, and no import circle
between the modules of one crate. Prints what breaks a rule and exits 1; with --graph prints
each crate's module graph (one line a module: the modules it imports).

usage: scripts/code_shape.py [--graph] [--max-file 800] [--max-fn 150]
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)")


def strip_strings(line):
    # Enough for counting braces: drop char literals, strings and line comments.
    line = re.sub(r"'(\\.|[^\\'])'", "''", line)
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def functions(path):
    """(name, first line, length) of every fn with a body, by brace matching."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    in_raw = False
    while i < len(lines):
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        depth, start, opened = 0, i, False
        j = i
        while j < len(lines):
            s = strip_strings(lines[j])
            if not opened and ";" in s and "{" not in s:
                break  # a declaration without body
            for ch in s:
                if ch == "{":
                    depth += 1
                    opened = True
                elif ch == "}":
                    depth -= 1
            if opened and depth <= 0:
                break
            j += 1
        if opened:
            out.append((m.group(7), start + 1, j - start + 1))
            i = start + 1  # nested fns are measured too
        else:
            i = j + 1
    return out


def crate_modules(src):
    """Module name (path below src without .rs, mod.rs as its folder) -> file."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, src)[:-3]
            parts = rel.split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts in (["lib"], ["main"]):
                name = "crate"
            else:
                name = "::".join(parts)
            mods[name] = full
    return mods


USE = re.compile(r"\b(?:crate|super)::(?:\{)?([\w:]+)")


def imports(name, path, mods):
    """The crate's other modules that `path` names (crate::a::b, super::x)."""
    text = "\n".join(strip_strings(l) for l in open(path, encoding="utf-8").read().split("\n"))
    # Drop #[cfg(test)] modules at the end of a file: tests may reach anywhere.
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if cut:
        text = text[: cut.start()]
    deps = set()
    here = name.split("::") if name != "crate" else []
    for m in re.finditer(r"\b(crate|super)::((?:\w+::)*\w+|\{[^}]*\})", text):
        root, rest = m.group(1), m.group(2)
        base = [] if root == "crate" else here[:-1] if path.endswith("mod.rs") is False else here
        if root == "super":
            base = here[:-1] if not path.endswith("mod.rs") else here[:-1]
        heads = [rest] if not rest.startswith("{") else [p.strip() for p in rest[1:-1].split(",")]
        for h in heads:
            segs = [s for s in h.split("::") if s and s != "self"]
            # The longest prefix naming a module.
            best = None
            for k in range(len(segs), 0, -1):
                cand = "::".join(base + segs[:k])
                if cand in mods:
                    best = cand
                    break
            if best and best != name and not name.startswith(best + "::") and best != "crate":
                deps.add(best)
    return deps


def cycles(graph):
    """Strongly connected components with more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", action="store_true")
    ap.add_argument("--max-file", type=int, default=800)
    ap.add_argument("--max-fn", type=int, default=150)
    args = ap.parse_args()
    crates = os.path.join(ROOT, "crates")
    bad = []
    for crate in sorted(os.listdir(crates)):
        src = os.path.join(crates, crate, "src")
        if not os.path.isdir(src):
            continue  # the CLI (crates/cli) is the binary, not a library crate
        mods = crate_modules(src)
        graph = {}
        for name, path in sorted(mods.items()):
            n = open(path, encoding="utf-8").read().count("\n")
            rel = os.path.relpath(path, ROOT)
            if n > args.max_file:
                bad.append(f"{rel}: {n} lines (at most {args.max_file})")
            for fname, line, length in functions(path):
                if length > args.max_fn:
                    bad.append(f"{rel}:{line}: fn {fname} has {length} lines (at most {args.max_fn})")
            graph[name] = sorted(imports(name, path, mods))
        for comp in cycles(graph):
            bad.append(f"crates/{crate}: import circle between modules {', '.join(comp)}")
        if args.graph:
            print(f"{crate}:")
            for name in sorted(graph):
                if name != "crate":
                    deps = ", ".join(graph[name]) or "-"
                    print(f"  {name} -> {deps}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} problem(s)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
