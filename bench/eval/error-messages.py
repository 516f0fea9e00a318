#!/usr/bin/env python3
"""Error-message questions (session 19): a user pastes a message the code raises and wants the file
that raises it. For each checkout, string literals of 24-90 characters passed to an error
constructor or call (throw new …Error, raise …(, errors.New, fmt.Errorf, panic!, bail!,
IllegalArgumentException(, …) in source files outside tests, docs and examples, that exactly one
file holds; six per repository (seeded). Writes the fresh-questions format that
`npx tsx bench/eval/tune-repos.ts --questions FILE --root DIR` runs.

Usage: python3 bench/eval/error-messages.py OUT.jsonl ROOT:repo,repo,... [ROOT:repo,...]
"""
import os,re,json,random,sys
random.seed(7)
roots={}
for arg in sys.argv[2:]:
    base,names=arg.split(':',1); roots[base]=names.split(',')
PAT=re.compile(r'''(?:throw new \w*Error\(|raise \w+\(|errors\.New\(|fmt\.Errorf\(|Err\(|panic!\(|anyhow!\(|bail!\(|error\(|IllegalArgumentException\(|IllegalStateException\(|Exception\(|fail\(|die\()\s*[`"']([A-Za-z][^`"'{}%$\\]{24,90})[`"']''')
SRC=re.compile(r'\.(ts|js|py|go|rs|java|kt|cs|rb|php|ex|c|cc|cpp|h|hs|scala|swift|lua)$')
TEST=re.compile(r'(^|/)(tests?|spec|__tests__|testdata|examples?|docs?|bench\w*|perftests?|regress)/|[._-](test|spec)\.|Test\.|_test\.')
out=[]
for base,repos in roots.items():
  for r in repos:
    cands={}
    for dp,dn,fn in os.walk(f'{base}/{r}'):
      dn[:]=[d for d in dn if d not in ('node_modules','.git')]
      for f in fn:
        p=os.path.join(dp,f); rel=os.path.relpath(p,f'{base}/{r}')
        if not SRC.search(f) or TEST.search(rel): continue
        try: t=open(p,errors='ignore').read()
        except: continue
        for m in PAT.finditer(t):
          cands.setdefault(m.group(1).strip(),set()).add(rel)
    uniq=[(k,v) for k,v in cands.items() if len(v)==1]
    random.shuffle(uniq)
    for i,(msg,files) in enumerate(uniq[:6]):
      out.append(json.dumps({"id":f"{r}/e{i}","repo":r,"repository":r,"category":"behaviour","source":"errmsg","question":msg,"answers":sorted(files),"class":"error"}))
open(sys.argv[1],'w').write('\n'.join(out)+'\n'); print(len(out))
