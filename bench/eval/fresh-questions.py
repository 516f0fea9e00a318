#!/usr/bin/env python3
"""Score a file of fresh questions (bench/results/*-fresh-questions-*.jsonl) through the CLI.

    python3 bench/eval/fresh-questions.py QUESTIONS.jsonl REPOS_DIR SIFT_BIN SIFT_HOME OUT.json

Each question names its repository folder (`repo`, under REPOS_DIR: a checkout of the commit in
`repository`), its `category`, optional `class`, and its answer files. Every repository is indexed
first (`sift index --no-embed`, SIFT_SERVER=0, into SIFT_HOME: use a new one per checkout of Sift
to index afresh), then each question is searched in keyword mode (`--mode bm25 --json --limit 10`)
and scored as the repos eval scores it (bench/eval/repos/score.ts: NDCG@10 over the result list,
an answer file counted at its first result). Prints the mean per repository, the mean of
repositories, per category and class; writes every question with its score and top 10 to OUT.json.
"""
import collections
import json
import math
import os
import subprocess
import sys


def main() -> None:
    questions_file, repos_dir, sift, home, out = sys.argv[1:6]
    env = dict(os.environ, SIFT_HOME=home, SIFT_SERVER="0")
    qs = [json.loads(line) for line in open(questions_file) if line.strip()]
    for repo in dict.fromkeys(q["repo"] for q in qs):
        subprocess.run([sift, "index", os.path.join(repos_dir, repo), "--no-embed", "-q"], env=env, capture_output=True, check=True)
    res = []
    for q in qs:
        o = subprocess.run([sift, "search", os.path.join(repos_dir, q["repo"]), q["question"], "--mode", "bm25", "--json", "--limit", "10"],
                           capture_output=True, text=True, env=env).stdout
        ranked = [r["path"] for r in json.loads(o)["results"]]
        want, seen, dcg = set(q["answers"]), set(), 0.0
        for i, p in enumerate(ranked[:10]):
            if p in want and p not in seen:
                dcg += 1 / math.log2(i + 2)
                seen.add(p)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(want), 10)))
        first = next((i + 1 for i, p in enumerate(ranked[:10]) if p in want), None)
        res.append(dict(q, ndcg=dcg / ideal, first=first, top=ranked[:10]))
    json.dump(res, open(out, "w"), indent=0)
    by = collections.defaultdict(list)
    for r in res:
        by[r["repo"]].append(r["ndcg"])
    for repo, xs in by.items():
        print(f"{repo:16s} {len(xs):4d}  {sum(xs) / len(xs):.3f}")
    print(f"mean of repositories {sum(sum(v) / len(v) for v in by.values()) / len(by):.4f}; an answer first {sum(r['first'] == 1 for r in res)} of {len(res)}")
    for key in ("category", "class"):
        groups = collections.defaultdict(list)
        for r in res:
            if r.get(key):
                groups[r[key]].append(r["ndcg"])
        for g, xs in sorted(groups.items()):
            print(f"  {key} {g:14s} {len(xs):4d}  {sum(xs) / len(xs):.3f}")


if __name__ == "__main__":
    main()
