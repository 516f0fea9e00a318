#!/usr/bin/env python3
"""Fit the learned order's weights (src/core/search/order.ts, config.ts LEARNED_ORDER).

Input: the JSONL of bench/eval/order-features.ts (first line: the feature names; then one
question per line: set, repo, id, answers, applies, paths, x — the pipeline's top 10 and each
one's features). Only questions the order applies to are fitted on and re-ordered.

Only a result order.ts may move (`movable`: code the intent weighs in full) is in a pair, and
only those are re-ordered, into each other's places. Loss: pairwise logistic over (answer
file's first result, non-answer result) pairs of a question, each pair weighted by how much swapping the two changes NDCG@10 (LambdaRank's
weighting), features scaled by their mean absolute pair difference, L2 on the scaled weights,
Adam for a fixed number of steps from zero (deterministic).

Prints, per question set, NDCG@10 of the pipeline's order and of the order learned on the
OTHER sets (leave one set out: how it does on questions it never saw), then the weights
fitted on every set as a TypeScript object for config.ts.

The repos eval's held-out repositories (docs/ranking.md, Measuring: trpc, excalidraw, guice,
Polly) are never fitted on: their questions are scored apart, with the weights fitted on all
the others.

With `--shipped`, each set is also scored with the weights in src/core/config.ts (LEARNED_ORDER), in
the same simulation: what the product ranks today, beside what a refit would.

Usage: python3 bench/eval/learn-order.py FEATURES.jsonl [--l2 1000] [--steps 200] [--no-cv] [--shipped] [--set-weight SET=W]… [--hold-set SET]… [--oracle]
Needs numpy.
"""
import argparse
import json
import math
import re

import numpy as np

# The repos eval's repositories kept out of every fit (docs/ranking.md, Measuring).
HELD_OUT = {'trpc', 'excalidraw', 'guice', 'polly'}


def ndcg(paths, answers, k=10):
    seen, dcg = set(), 0.0
    for i, p in enumerate(paths[:k]):
        if p in answers and p not in seen:
            seen.add(p)
            dcg += 1 / math.log2(i + 2)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(answers), k)))
    return dcg / ideal if ideal else 0.0


def gain(k):
    return 1 / math.log2(k + 2) if k < 10 else 0.0


def pairs(questions, set_weights=None):
    diffs, weights = [], []
    for q in questions:
        sw = (set_weights or {}).get(q['set'], 1.0)
        if not q['applies'] or not q['x']:
            continue
        x = np.asarray(q['x'], dtype=float)
        seen, first = set(), []
        for i, p in enumerate(q['paths']):
            if p in q['answers'] and p not in seen:
                seen.add(p)
                first.append(i)
        others = [i for i, p in enumerate(q['paths']) if p not in q['answers'] and q['movable'][i]]
        for a in first:
            if not q['movable'][a]:
                continue
            for b in others:
                w = abs(gain(a) - gain(b)) * sw
                if w:
                    diffs.append(x[a] - x[b])
                    weights.append(w)
    return np.asarray(diffs), np.asarray(weights)


def fit(questions, l2, steps, set_weights=None):
    d, w = pairs(questions, set_weights)
    w = w / w.mean()
    scale = np.abs(d).mean(0) + 1e-6
    dn = d / scale
    theta = np.zeros(d.shape[1])
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        z = np.clip(dn @ theta, -30, 30)
        p = 1 / (1 + np.exp(-z))
        g = -(dn * (w * (1 - p))[:, None]).mean(0) + l2 * theta / len(dn)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return theta / scale


def place(q, key):
    """The list with its movable results sorted by `key` (of a result's index) into the movable places; others stay (order.ts)."""
    if not q['applies'] or len(q['x']) < 2:
        return q['paths']
    slots = [i for i, m in enumerate(q['movable']) if m]
    out = list(q['paths'])
    for to, i in zip(slots, sorted(slots, key=key)):
        out[to] = q['paths'][i]
    return out


def reorder(q, theta):
    """The list in the learned order: the movable results, best first, into the movable places (order.ts)."""
    s = np.asarray(q['x'], dtype=float) @ theta
    return place(q, lambda i: (-s[i], i))


def oracle(q):
    """The list with every answer among the movable results moved first, in their places (the ceiling of any reorder)."""
    return place(q, lambda i: (q['paths'][i] not in q['answers'], i))


def shipped_weights(names, path='src/core/config.ts'):
    """LEARNED_ORDER.weights as config.ts writes them (one `name: value,` per line), in `names` order."""
    text = open(path).read()
    block = text[text.index('export const LEARNED_ORDER'):]
    block = block[block.index('weights: {'):]
    block = block[:block.index('}')]
    got = {m.group(1): float(m.group(2)) for m in re.finditer(r'^\s*(\w+): (-?[\d.e+-]+),', block, re.M)}
    return np.asarray([got.get(n, 0.0) for n in names])


def per_repo_mean(scores):
    """Mean of per-repository means (as sweep.ts reports a set)."""
    by = {}
    for repo, s in scores:
        by.setdefault(repo, []).append(s)
    return float(np.mean([np.mean(v) for v in by.values()]))


def compare_lists(test, before, after):
    """NDCG@10 of `test` with the lists `before(q)` and `after(q)` (means of per-repository means), and the questions better / worse."""
    base = [(q['repo'], ndcg(before(q), q['answers'])) for q in test]
    new = [(q['repo'], ndcg(after(q), q['answers'])) for q in test]
    up = sum(n > b + 1e-9 for (_, b), (_, n) in zip(base, new))
    down = sum(n < b - 1e-9 for (_, b), (_, n) in zip(base, new))
    return per_repo_mean(base), per_repo_mean(new), up, down


def compare(test, theta):
    """NDCG@10 of `test` in the pipeline's order and in `theta`'s, and the questions better / worse."""
    return compare_lists(test, lambda q: q['paths'], lambda q: reorder(q, theta))


def split(qs, hold_sets=()):
    """(questions to fit on, the repos eval's held-out repositories' questions, the questions of `hold_sets`)."""
    held = lambda q: q['set'].startswith('repos-') and q['repo'] in HELD_OUT
    return ([q for q in qs if not held(q) and q['set'] not in hold_sets], [q for q in qs if held(q)],
            [q for q in qs if q['set'] in hold_sets])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('features')
    ap.add_argument('--l2', type=float, default=1000)
    ap.add_argument('--steps', type=int, default=200)
    ap.add_argument('--no-cv', action='store_true')
    ap.add_argument('--shipped', action='store_true', help="also score each set with config.ts's weights")
    ap.add_argument('--set-weight', action='append', default=[], metavar='SET=W',
                    help="weight of one set's pairs in every fit (default 1; e.g. repos-commit=0.5)")
    ap.add_argument('--oracle', action='store_true',
                    help="also print each set's ceiling: every answer among the movable results moved first")
    ap.add_argument('--hold-set', action='append', default=[], metavar='SET',
                    help='a set never fitted on (like the held-out repositories): scored with the final fit alone')
    a = ap.parse_args()
    sw = {k: float(v) for k, v in (x.split('=') for x in a.set_weight)}
    with open(a.features) as f:
        names = json.loads(f.readline())['features']
        qs = [json.loads(line) for line in f if line.strip()]
    qs, held_out, held_sets = split(qs, a.hold_set)
    sets = sorted({q['set'] for q in qs})
    theta_shipped = shipped_weights(names) if a.shipped else None
    if a.shipped:
        print('set            pipeline  shipped weights (config.ts)')
        for held in sets + ['held-out']:
            base, new, _, _ = compare(held_out if held == 'held-out' else [q for q in qs if q['set'] == held], theta_shipped)
            print(f'{held:14s} {base:.4f}    {new:.4f}')
    if a.oracle:
        print('set            pipeline  answers first (the most any order of these results can reach)')
        for held in sets + ['held-out'] + a.hold_set:
            part = held_out if held == 'held-out' else [q for q in qs + held_sets if q['set'] == held]
            base, best, _, _ = compare_lists(part, lambda q: q['paths'], oracle)
            print(f'{held:14s} {base:.4f}    {best:.4f}')
    if not a.no_cv:
        print('set            pipeline  learned (fitted on the other sets)  better / worse')
        for held in sets:
            theta = fit([q for q in qs if q['set'] != held], a.l2, a.steps, sw)
            base, new, up, down = compare([q for q in qs if q['set'] == held], theta)
            print(f'{held:14s} {base:.4f}    {new:.4f}                              {up} / {down}')
    theta = fit(qs, a.l2, a.steps, sw)
    for label, part in [('', held_out)] + [(f' {s}', [q for q in held_out if q['set'] == s]) for s in sorted({q['set'] for q in held_out})]:
        if not part:
            continue
        base, new, up, down = compare(part, theta)
        print(f'held out{label} ({", ".join(sorted(HELD_OUT))}: {len(part)} questions, never fitted on) {base:.4f} -> {new:.4f}, {up} / {down}')
    for s in a.hold_set:
        part = [q for q in held_sets if q['set'] == s]
        if part:
            base, new, up, down = compare(part, theta)
            print(f'held out set {s} ({len(part)} questions, never fitted on) {base:.4f} -> {new:.4f}, {up} / {down}')
            if a.shipped:
                _, shipped, _, _ = compare(part, theta_shipped)
                print(f'held out set {s} with the shipped weights: {shipped:.4f}')
    print(f'// fitted on {sum(q["applies"] for q in qs)} of {len(qs)} questions, l2 {a.l2:g}, {a.steps} steps' + (f', set weights {sw}' if sw else ''))
    print('{\n' + ''.join(f'    {n}: {float(f"{t:.4g}")},\n' for n, t in zip(names, theta) if abs(t) >= 1e-4) + '  }', end='')


if __name__ == '__main__':
    main()
