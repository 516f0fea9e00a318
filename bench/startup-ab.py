#!/usr/bin/env python3
"""A `sift` process's fixed costs, builds interleaved (issue 34; docs/performance.md "sixth round").

Usage: python3 bench/startup-ab.py DIR [--build LABEL=ROOT[:K=V,...]]... [--rounds N] [--out FILE]

Each round runs every command below once per build, in turn, each in its own process with
SIFT_SERVER=0 (no warm server), and measures wall and the child's CPU (user + sys of the reaped child, small-ab.py run_measured):
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
import importlib.util
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERY = "parse multipart request body"


def _small_ab():
    """bench/small-ab.py as a module (its name has a hyphen): the one place for running and timing a child."""
    spec = importlib.util.spec_from_file_location("small_ab", os.path.join(os.path.dirname(os.path.abspath(__file__)), "small-ab.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


small_ab = _small_ab()


def run(cmd, env):
    """(wall s, the child's user + sys CPU s, stdout) of cmd (small-ab.py run_measured); exits on failure."""
    m, out = small_ab.run_measured(cmd, env)
    return m["wall"], m["cpu"], out


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
        lines.append(f"| {k} | {label} | {small_ab.fmt([x[1] for x in v])} | {small_ab.fmt([x[0] for x in v])} |")
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
