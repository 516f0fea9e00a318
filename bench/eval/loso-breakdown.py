"""Leave-one-set-out NDCG@10 of the learned order per question kind and per answer language (fresh sets, questions pooled):
the weights in CONFIG (default src/core/config.ts) against weights fitted on every other set (bench/eval/learn-order.py, l2 1000, 200 steps).
Usage: python3 bench/eval/loso-breakdown.py FEATURES.jsonl [CONFIG]"""
import glob, importlib.util, json, os, sys, collections
import numpy as np
spec = importlib.util.spec_from_file_location('lo', 'bench/eval/learn-order.py'); lo = importlib.util.module_from_spec(spec); spec.loader.exec_module(lo)
src = sys.argv[1]; cfg = sys.argv[2] if len(sys.argv) > 2 else 'src/core/config.ts'
with open(src) as f:
    names = json.loads(f.readline())['features']; qs = [json.loads(l) for l in f if l.strip()]
qs, _, _ = lo.split(qs)
meta = {}
for fn in glob.glob('bench/results/*fresh-questions-*.jsonl'):
    st = fn.split('fresh-questions-')[1][:-6]
    for l in open(fn):
        q = json.loads(l); meta[(st, q['repo'], q['id'])] = (q.get('category'), q['answers'][0])
ext = {'.ts':'typescript','.tsx':'typescript','.js':'javascript','.mjs':'javascript','.rb':'ruby','.py':'python','.go':'go','.rs':'rust','.java':'java','.kt':'kotlin','.cs':'csharp','.c':'c','.h':'c','.cc':'cpp','.cpp':'cpp','.hpp':'cpp','.hs':'haskell','.scala':'scala','.swift':'swift','.lua':'lua','.php':'php','.ex':'elixir','.exs':'elixir','.dart':'dart','.zig':'zig'}
shipped = lo.shipped_weights(names, cfg)
rows = []
for held in sorted({q['set'] for q in qs if not q['set'].startswith('repos-')}):
    theta = lo.fit([q for q in qs if q['set'] != held], 1000, 200)
    for q in qs:
        if q['set'] != held: continue
        c, a = meta.get((q['set'], q['repo'], q['id']), (None, ''))
        rows.append((c, ext.get(os.path.splitext(a)[1], 'other'), lo.ndcg(lo.reorder(q, shipped), q['answers']), lo.ndcg(lo.reorder(q, theta), q['answers'])))
for i, label in [(0, 'kind'), (1, 'language')]:
    by = collections.defaultdict(list)
    for r in rows: by[r[i]].append(r)
    print(f'by {label} (fresh sets, questions pooled): ' + ', '.join(f'{k} {np.mean([r[2] for r in v]):.3f} -> {np.mean([r[3] for r in v]):.3f} ({len(v)})' for k, v in sorted(by.items(), key=lambda kv: str(kv[0]))))
