#!/usr/bin/python3
"""A tree ensemble (xgboost's LambdaMART) in place of the learned order's linear weights: measured in
session 31 and not shipped (docs/ranking.md, "Issue 35, session 31").

Same input and simulation as learn-order.py (the pipeline's top 10 with order-features.ts's 38
features; only movable results re-ordered, into movable places). Each set is scored leave-one-set-out
against the weights config.ts ships; then a fit on every set scores the held-out repositories and each
--hold-set. `--lin` adds the shipped linear score as one more feature (the trees then learn what it misses).

Usage: /usr/bin/python3 bench/eval/learn-trees.py FEATURES.jsonl [--hold-set SET]… [--sets A,B] [--lin]
       [--depth 3] [--trees 300] [--eta 0.05] [--mcw 20] [--obj rank:ndcg|rank:pairwise] [--no-cv]
Needs Debian's python3-xgboost (apt-get install python3-xgboost), with its numpy: /usr/bin/python3.
"""
import argparse, json, sys, importlib.util
import numpy as np, xgboost as xgb
spec = importlib.util.spec_from_file_location('lo', 'bench/eval/learn-order.py'); lo = importlib.util.module_from_spec(spec); spec.loader.exec_module(lo)

ap = argparse.ArgumentParser()
ap.add_argument('features'); ap.add_argument('--hold-set', action='append', default=[])
ap.add_argument('--depth', type=int, default=3); ap.add_argument('--trees', type=int, default=300)
ap.add_argument('--eta', type=float, default=0.05); ap.add_argument('--mcw', type=float, default=20)
ap.add_argument('--obj', default='rank:ndcg'); ap.add_argument('--sub', type=float, default=0.8)
ap.add_argument('--no-cv', action='store_true'); ap.add_argument('--lin', action='store_true', help='add the shipped linear score as a feature')
ap.add_argument('--sets', default='')
a = ap.parse_args()
f = open(a.features); names = json.loads(f.readline())['features']; qs = [json.loads(l) for l in f if l.strip()]
qs, held, hs = lo.split(qs, a.hold_set)
th = lo.shipped_weights(names)

def feats(q):
    x = np.asarray(q['x'], dtype=float)
    if a.lin: x = np.hstack([x, (x @ th)[:, None]])
    return x

def train(train_qs):
    X, y, g = [], [], []
    for q in train_qs:
        if not q['applies'] or len(q['x']) < 2: continue
        idx = [i for i, m in enumerate(q['movable']) if m]
        seen = set(); lab = []
        for i in idx:
            p = q['paths'][i]
            lab.append(1 if (p in q['answers'] and p not in seen) else 0); seen.add(p)
        if sum(lab) == 0 or len(idx) < 2: continue
        x = feats(q)
        X.append(x[idx]); y += lab; g.append(len(idx))
    d = xgb.DMatrix(np.vstack(X), label=np.asarray(y)); d.set_group(g)
    params = {'objective': a.obj, 'eta': a.eta, 'max_depth': a.depth, 'min_child_weight': a.mcw, 'subsample': a.sub,
              'colsample_bytree': 0.8, 'lambda': 1.0, 'eval_metric': 'ndcg@10', 'seed': 1, 'nthread': 2}
    return xgb.train(params, d, num_boost_round=a.trees)

def reorder(q, m):
    if not q['applies'] or len(q['x']) < 2: return q['paths']
    s = m.predict(xgb.DMatrix(feats(q)))
    return lo.place(q, lambda i: (-s[i], i))

def score(test, m):
    return lo.compare_lists(test, lambda q: lo.reorder(q, th), lambda q: reorder(q, m))

sets = sorted({q['set'] for q in qs})
if a.sets: sets = a.sets.split(',')
tot = []
if not a.no_cv:
    for s in sets:
        m = train([q for q in qs if q['set'] != s])
        b, n, up, down = score([q for q in qs if q['set'] == s], m)
        tot.append(n - b)
        print(f'{s:14s} shipped {b:.4f}  trees(LOSO) {n:.4f}  {up}/{down}', flush=True)
    print(f'mean LOSO gain {np.mean(tot):+.4f}')
m = train(qs)
b, n, up, down = score(held, m); print(f'held-out repos shipped {b:.4f} trees {n:.4f} {up}/{down}')
for s in a.hold_set:
    b, n, up, down = score([q for q in hs if q['set'] == s], m); print(f'held set {s} shipped {b:.4f} trees {n:.4f} {up}/{down}')
