"""What the corpus scripts (conformance.py, reach_check.py, verify_corpus.py) share: the games
of a directory, running one symgame command in its own process under a time and an
address-space limit, and writing a result file atomically."""
import argparse
import os
import resource
import subprocess
import time


def arguments(gib):
    """The options every corpus script takes: the corpus directory, --bin, --gib (default
    `gib`) and --out; a script adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--bin", default="target/release/symgame")
    ap.add_argument("--gib", type=int, default=gib, help="address-space limit per process")
    ap.add_argument("--out", default=None, help="the Markdown report (default: stdout)")
    return ap


def limit(gib):
    """A pre-exec hook that caps the child's address space at `gib` GiB."""
    def apply():
        n = gib * 1024 ** 3
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return apply


def run(cmd, timeout, gib):
    """Runs `cmd` (killed after `timeout` seconds, at most `gib` GiB of address space):
    (exit code, or None when it was killed for the time-out; stdout; stderr stripped; wall
    seconds)."""
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=limit(gib))
    except subprocess.TimeoutExpired:
        return None, "", f"no answer within {timeout:g} s", time.monotonic() - started
    return p.returncode, p.stdout, p.stderr.strip(), time.monotonic() - started


def first_line(text, width=None):
    """The first line of `text` (cut at `width` characters), or ""."""
    lines = text.strip().splitlines()
    return lines[0][:width] if lines else ""


def games(directory, only=None):
    """The .kif files of `directory`, sorted; with `only`, those named there (with or without
    the .kif)."""
    found = sorted(f for f in os.listdir(directory) if f.endswith(".kif"))
    if only:
        wanted = set(only)
        found = [g for g in found if g in wanted or g[:-4] in wanted]
    return found


def write_atomically(path, text):
    """Writes `text` to `path` through a temporary file, so a reader never sees half of it."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
