#!/usr/bin/env python3
"""A small folder's `sift index` in its own process, phase by phase, two builds interleaved.

    python3 bench/small-phases.py DIR[,DIR…] [--base ROOT] [--rounds N] [--env K=V …] [--base-env K=V …] [--rt]

Runs `SIFT_TRACE=1 SIFT_SERVER=0 sift index DIR --no-embed -q` (a new SIFT_HOME each time) for
this checkout and, with --base, another one, alternating A B, B A, …, and prints per build the
medians of each phase's wall ms, process CPU ms (every thread) and main-thread CPU ms (from the
trace's `main` column, /proc/thread-self/schedstat; src/cli/trace.ts), then the whole run's
wall (measured outside, process start included), CPU and main-thread CPU. On an idle 2-core
machine a small index's wall is its main thread's time plus its waits; the rest of the CPU is
V8's helper threads (optimizing compiles, GC), which a loaded machine makes everyone pay for.
Trace lines of a build without the `main` column (before 2026-11-30) count as unknown there.
--rt runs each command under `chrt -f 10` (root): a real-time process is not preempted by the
machine's other (normal) processes, so a shared, loaded machine measures about as a quiet one
would (its threads still share the cores with each other). --env / --base-env: environment for
this checkout's / the base's runs (e.g. SIFT_CHUNK_WORKERS=0 to compare a feature on and off).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = ["node started", "modules loaded", "index opened", "stage chunking", "stage indexing", "stage complete", "exit"]
LINE = re.compile(r"sift-trace\s+([\d.]+) ms\s+cpu\s+(\d+) ms\s+(?:main\s+(\d+) ms\s+)?(.*)$")


def run_once(root, d, extra_env, rt=False):
    home = tempfile.mkdtemp(prefix="small-phases-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIFT_")}
    env.update(SIFT_HOME=home, SIFT_SERVER="0", SIFT_TRACE="1", **extra_env)
    r0 = os.times()
    t0 = time.perf_counter()
    cmd = ["node", os.path.join(root, "bin", "sift"), "index", d, "--no-embed", "-q"]
    p = subprocess.run((["chrt", "-f", "10"] if rt else []) + cmd, env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000
    r1 = os.times()
    shutil.rmtree(home, ignore_errors=True)
    if p.returncode != 0:
        sys.exit(f"{root}: sift index {d} failed ({p.returncode}): {p.stderr[-2000:]}")
    marks = {}
    for line in p.stderr.splitlines():
        m = LINE.search(line)
        if m and m.group(4) in PHASES and m.group(4) not in marks:
            marks[m.group(4)] = (float(m.group(1)), float(m.group(2)), float(m.group(3)) if m.group(3) else None)
    cpu = ((r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)) * 1000
    return wall, cpu, marks


def med(xs):
    xs = [x for x in xs if x is not None]
    return f"{statistics.median(xs):6.0f}" if xs else "     ?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs")
    ap.add_argument("--base")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--env", action="append", default=[], help="K=V for this checkout's runs only")
    ap.add_argument("--base-env", action="append", default=[], help="K=V for the base's runs only")
    ap.add_argument("--rt", action="store_true", help="run under chrt -f 10 (see above)")
    a = ap.parse_args()
    builds = [("this", HERE, dict(kv.split("=", 1) for kv in a.env))]
    if a.base:
        builds.append(("base", os.path.abspath(a.base), dict(kv.split("=", 1) for kv in a.base_env)))
    for d in a.dirs.split(","):
        runs = {name: [] for name, _, _ in builds}
        loads = []
        for r in range(a.rounds):
            for name, root, env in builds if r % 2 == 0 else builds[::-1]:
                runs[name].append(run_once(root, d, env, a.rt))
            loads.append(os.getloadavg()[0])
        print(f"{d}: {a.rounds} rounds, load {min(loads):.1f}-{max(loads):.1f}{', real-time (chrt -f 10)' if a.rt else ''}")
        print(f"  {'phase (ms, medians)':24s} " + "  ".join(f"{n + ' wall':>10s} {n + ' cpu':>9s} {n + ' main':>9s}" for n, _, _ in builds))
        prev = {n: None for n in runs}
        for ph in PHASES:
            cols = []
            for name, _, _ in builds:
                dw, dc, dm = [], [], []
                for _, _, marks in runs[name]:
                    i = PHASES.index(ph)
                    before = next((marks[p] for p in reversed(PHASES[:i]) if p in marks), (0.0, 0.0, 0.0))
                    if ph not in marks:
                        continue
                    w, c, m = marks[ph]
                    dw.append(w - before[0])
                    dc.append(c - before[1])
                    dm.append(None if m is None or before[2] is None else m - (before[2] if i > 0 else 0.0))
                cols.append(f"{med(dw):>10s} {med(dc):>9s} {med(dm):>9s}")
            print(f"  {ph:24s} " + "  ".join(cols))
        for name, _, _ in builds:
            rs = runs[name]
            walls = [w for w, _, _ in rs]
            cpus = [c for _, c, _ in rs]
            mains = [m["exit"][2] for _, _, m in rs if "exit" in m and m["exit"][2] is not None]
            print(f"  {name}: wall {statistics.median(walls):.0f} ({min(walls):.0f}-{max(walls):.0f}) ms, CPU {statistics.median(cpus):.0f} ({min(cpus):.0f}-{max(cpus):.0f}) ms"
                  + (f", main thread {statistics.median(mains):.0f} ({min(mains):.0f}-{max(mains):.0f}) ms" if mains else ""))


if __name__ == "__main__":
    main()
