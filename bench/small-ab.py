#!/usr/bin/env python3
"""Small-folder fixed costs of the CLI, two builds interleaved (issue 34: a 100-file
repository indexed in <= 0.5 s, a one-shot search in <= 0.25 s, process start included).

Usage: python3 bench/small-ab.py DIR [--base ROOT] [--rounds N] [--query Q] [--out FILE] [--env K=V …] [--rt]

For each round and each build in turn (this checkout, then --base if given), a new index
of DIR each time:
  cold index     `sift index DIR --no-embed -q` in its own process (SIFT_SERVER=0)
  served index   the same through that build's warm server (started before the rounds)
  served search  `sift search DIR Q --mode bm25 --json` through the server
  cold search    the same in its own process (SIFT_SERVER=0)
and, once per round, the native references: Python's sqlite3 FTS5 build of 40-line windows of
the same files (bench/fts5-windows.py, process start included) and one `rg -i -c` process.
Wall is measured around each process; CPU is the child's user + sys (wait4), plus, served,
the server's own CPU over the command (/proc/<pid>/stat). Prints medians (and min-max) per
build and measure; each build's homes are /tmp/small-ab-<label>-{cold,served}.
--env K=V (repeatable): environment for this checkout's commands only (e.g. SIFT_CHUNK_WORKERS=0).
--rt: every command (and the warm servers) under `chrt -f 10` (root): real-time processes are not
preempted by the machine's other processes, so a loaded machine measures about as a quiet one.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


RT = []  # ["chrt", "-f", "10"] with --rt


def timed(cmd, env, server_pid=None, ok=(0,)):
    """Run cmd; return (wall s, server CPU s or None, stdout bytes)."""
    cmd = RT + cmd
    s0 = proc_cpu_s(server_pid) if server_pid else None
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    s1 = proc_cpu_s(server_pid) if server_pid else None
    if p.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err.decode(errors='replace')[-2000:]}")
    return wall, (s1 - s0) if server_pid else None, out


def run_measured(cmd, env, server_pid=None, ok=(0,)):
    """timed(), plus the child's user + sys CPU (communicate() reaped it: os.times' children)."""
    r0 = os.times()
    wall, server, out = timed(cmd, env, server_pid, ok)
    r1 = os.times()
    cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    return {"wall": wall, "cpu": cpu, "server": server}, out


def fmt(xs, scale=1000):
    """Median (min-max) of seconds `xs`, in ms."""
    xs = [x * scale for x in xs]
    return f"{statistics.median(xs):.0f} ({min(xs):.0f}-{max(xs):.0f})"


class Build:
    def __init__(self, label: str, root: str, extra: dict | None = None):
        self.label, self.root, self.extra = label, root, extra or {}
        self.sift = [shutil.which("node") or "node", os.path.join(root, "bin", "sift")]
        self.cold_home = f"/tmp/small-ab-{label}-cold"
        self.served_home = f"/tmp/small-ab-{label}-served"
        self.pid = None

    def env(self, home: str, server: str) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith("SIFT_")}
        e.update(SIFT_HOME=home, SIFT_SERVER=server, **self.extra)
        e.pop("CI", None)
        return e

    def start_server(self, folder: str):
        shutil.rmtree(self.served_home, ignore_errors=True)
        # The first command of a home runs in-process and starts the server after its answer.
        subprocess.run(RT + self.sift + ["index", folder, "--no-embed", "-q"], env=self.env(self.served_home, "1"), check=True)
        for _ in range(200):
            st = subprocess.run(self.sift + ["serve", "--status", "--json"], env=self.env(self.served_home, "1"), capture_output=True, text=True)
            status = json.loads(st.stdout or "{}")
            if status.get("running") and status.get("pid"):
                self.pid = int(status["pid"])
                return
            time.sleep(0.1)
        sys.exit(f"{self.label}: no warm server started")

    def stop_server(self):
        subprocess.run(self.sift + ["serve", "--stop"], env=self.env(self.served_home, "1"), capture_output=True)


def drop_indexes(home: str):
    shutil.rmtree(os.path.join(home, "indexes"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--base", help="root of another checkout (its CLI bundle built) to compare with")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--query", default="parse multipart request body")
    ap.add_argument("--out", help="also write the table (markdown) here")
    ap.add_argument("--env", action="append", default=[], help="K=V for this checkout's commands only")
    ap.add_argument("--rt", action="store_true", help="run every command under chrt -f 10 (see above)")
    a = ap.parse_args()
    if a.rt:
        RT.extend(["chrt", "-f", "10"])
    folder = os.path.abspath(a.dir)
    builds = [Build("this", HERE, dict(kv.split("=", 1) for kv in a.env))] + ([Build("base", os.path.abspath(a.base))] if a.base else [])

    # The natives' files: rg's list (.gitignore honoured, as Sift's walker does for these folders).
    files = subprocess.run(["rg", "--files", folder], capture_output=True, text=True, check=True).stdout.split()
    flist = "/tmp/small-ab-files.txt"
    with open(flist, "w") as f:
        f.write("\n".join(os.path.relpath(p, folder) for p in files) + "\n")
    words = a.query.split()

    for b in builds:
        b.start_server(folder)
        # One served run first: the server's first index compiles what it needs.
        drop_indexes(b.served_home)
        run_measured(b.sift + ["index", folder, "--no-embed", "-q"], b.env(b.served_home, "use"), b.pid)

    m = {}
    def add(key, r):
        m.setdefault(key, []).append(r)

    search = ["search", folder, a.query, "--mode", "bm25", "--json"]
    for rnd in range(a.rounds):
        order = builds if rnd % 2 == 0 else list(reversed(builds))
        for b in order:
            shutil.rmtree(b.cold_home, ignore_errors=True)
            add((b.label, "cold index"), run_measured(b.sift + ["index", folder, "--no-embed", "-q"], b.env(b.cold_home, "0"))[0])
            drop_indexes(b.served_home)
            add((b.label, "served index"), run_measured(b.sift + ["index", folder, "--no-embed", "-q"], b.env(b.served_home, "use"), b.pid)[0])
            add((b.label, "served search"), run_measured(b.sift + search, b.env(b.served_home, "use"), b.pid)[0])
            add((b.label, "cold search"), run_measured(b.sift + search, b.env(b.cold_home, "0"))[0])
        add(("native", "python fts5 build"), run_measured(["python3", os.path.join(HERE, "bench", "fts5-windows.py"), folder, flist, "/tmp/small-ab-fts5.db"], dict(os.environ))[0])
        add(("native", "rg -i -c"), run_measured(["rg", "-i", "-c", "-e", "|".join(words), folder], dict(os.environ), ok=(0, 1))[0])

    for b in builds:
        b.stop_server()

    load = os.getloadavg()
    lines = [
        f"{folder}: {len(files)} files; {a.rounds} rounds, builds interleaved; load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end"
        + (", every command real-time (chrt -f 10)" if a.rt else "") + (f"; this build with {' '.join(a.env)}" if a.env else ""),
        "",
        "| build | measure | wall ms median (min-max) | process CPU ms | server CPU ms |",
        "|---|---|---|---|---|",
    ]
    for (label, what), rs in m.items():
        server = [r["server"] for r in rs if r["server"] is not None]
        lines.append(f"| {label} | {what} | {fmt([r['wall'] for r in rs])} | {fmt([r['cpu'] for r in rs])} | {fmt(server) if server else '-'} |")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
