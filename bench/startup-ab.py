#!/usr/bin/env python3
"""A `sift` process's fixed costs, builds interleaved (issue 34; docs/performance.md "sixth round").

Usage: python3 bench/startup-ab.py DIR [--build LABEL=ROOT[:K=V,...]]... [--rounds N] [--out FILE]

Each round runs every command below once per build, in turn, each in its own process with
SIFT_SERVER=0 (no warm server), and measures wall and the child's CPU (user + sys, getrusage of the reaped child):
  help           `sift --help`
  search         `sift search DIR "parse multipart request body" --mode bm25 --json`
  exact          `sift search DIR handler --mode exact --json`
  index          `sift index DIR --no-embed -q` into a new index (a fresh --db each run)
and `node -e 0` once per round for scale. DIR is indexed once per build before the rounds (the
search rows read that index), and each command is run once per build before the rounds so a
build that keeps a cache across runs (dist-cli/code-cache/) has it. A build is a checkout root
(its bin/sift), optionally with environment settings (e.g. src=.:SIFT_NO_BUNDLE=1). Prints the
median (and min-max) of CPU and wall per build and command, and checks that every build's stdout
is the same for each search (timings removed).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERY = "parse multipart request body"


def run(cmd, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p.stdout


def strip_timings(out: bytes) -> str:
    j = json.loads(out)
    j.pop("timings", None)
    for k in ("took_ms", "elapsed_ms"):
        j.pop(k, None)
    return json.dumps(j, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--build", action="append", default=[], help="LABEL=ROOT[:K=V,...]")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="help,search,exact,index")
    ap.add_argument("--out")
    a = ap.parse_args()
    target = os.path.abspath(a.dir)
    builds = []
    for spec in a.build or [f"now={HERE}"]:
        label, rest = spec.split("=", 1)
        root, _, envs = rest.partition(":")
        extra = dict(kv.split("=", 1) for kv in envs.split(",") if kv)
        home = f"/tmp/startup-ab-{label}"
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        env = {**os.environ, "SIFT_HOME": home, "SIFT_SERVER": "0", "SIFT_OFFLINE": "1", **extra}
        builds.append((label, os.path.join(os.path.abspath(root), "bin/sift"), env, home))
    only = a.only.split(",")

    def commands(sift, home, n):
        c = {
            "help": [sift, "--help"],
            "search": [sift, "search", target, QUERY, "--mode", "bm25", "--json"],
            "exact": [sift, "search", target, "handler", "--mode", "exact", "--json"],
            "index": [sift, "index", target, "--no-embed", "-q", "--db", f"{home}/new-{n}.db"],
        }
        return [(k, c[k]) for k in only]

    for label, sift, env, home in builds:
        run([sift, "index", target, "--no-embed", "-q"], env)
        for k, cmd in commands(sift, home, "warm"):  # a first run of each (a cache, if the build keeps one)
            run(cmd, env)
    rows = {}
    outs = {}
    for r in range(a.rounds):
        w, c, _ = run(["node", "-e", "0"], os.environ)
        rows.setdefault(("node -e 0", "-"), []).append((w, c))
        for label, sift, env, home in builds:
            for k, cmd in commands(sift, home, r):
                w, c, out = run(cmd, env)
                rows.setdefault((k, label), []).append((w, c))
                if k in ("search", "exact"):
                    outs.setdefault(k, {})[label] = strip_timings(out)
                if k == "index":
                    for f in (f"{home}/new-{r}.db",):
                        if os.path.exists(f):
                            os.remove(f)
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    lines = [f"rounds: {a.rounds}; dir: {target}; load at end: {os.getloadavg()[0]:.1f}",
             "| command | build | CPU median (min-max), ms | wall median (min-max), ms |", "|---|---|---|---|"]
    for (k, label), v in rows.items():
        cpu = [x[1] * 1000 for x in v]
        wall = [x[0] * 1000 for x in v]
        lines.append(f"| {k} | {label} | {statistics.median(cpu):.0f} ({min(cpu):.0f}-{max(cpu):.0f}) | {statistics.median(wall):.0f} ({min(wall):.0f}-{max(wall):.0f}) |")
    for k, by in outs.items():
        same = len(set(by.values())) == 1
        lines.append(f"{k}: stdout (timings removed) {'identical' if same else 'DIFFERS'} across builds")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
