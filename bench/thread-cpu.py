"""Per-thread CPU of a command and its children, from /proc (the CLI's twin of bench/thread-cpu.ts).

    python3 bench/thread-cpu.py bin/sift index bench/corpora/kernel --no-embed

Runs the command (its stdout dropped), reads /proc/<pid>/task/*/stat of it and every descendant
every 0.3 s, and prints each thread's user + system CPU at its last sample (a thread that exits
keeps what it had used then), biggest first. Node names every thread "node": the main thread is
the one whose id is the process id; worker threads are started after V8's platform threads.
"""
import os
import subprocess
import sys
import time


def descendants(root):
    parent = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                s = open(f'/proc/{d}/stat').read()
                parent[int(d)] = int(s[s.rfind(')') + 2:].split()[1])
            except OSError:
                pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parent.items() if pp == p]
    return out


def main():
    proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    ticks, names = {}, {}
    while proc.poll() is None:
        for pid in descendants(proc.pid):
            try:
                for t in os.listdir(f'/proc/{pid}/task'):
                    s = open(f'/proc/{pid}/task/{t}/stat').read()
                    f = s[s.rfind(')') + 2:].split()
                    ticks[(pid, int(t))] = int(f[11]) + int(f[12])
                    names[(pid, int(t))] = open(f'/proc/{pid}/task/{t}/comm').read().strip()
            except OSError:
                pass
        time.sleep(0.3)
    hz = os.sysconf('SC_CLK_TCK')
    for k, v in sorted(ticks.items(), key=lambda x: -x[1]):
        if v >= hz // 10:
            print(f'{v / hz:8.2f} s  {names[k]} pid {k[0]} tid {k[1]}')
    print(f'{sum(ticks.values()) / hz:8.2f} s  all threads sampled (exit code {proc.returncode})')


main()
