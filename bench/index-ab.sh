#!/usr/bin/env bash
# Cold `sift index --no-embed` of one corpus by two checkouts, interleaved (A, B, native, A, B,
# native, …), each a fresh SIFT_HOME; CPU (user + sys) and peak RSS from GNU time, wall from
# the same pairs; the native reference is bench/fts5-windows.py (Python sqlite3 FTS5 over
# 40-line windows of the files B indexed, process start included). Then, with --rows, checks
# that both built the same index row by row (chunks, names, texts, files, trigram postings; file_text by
# the text it unpacks to, whatever the deflate level); --same also compares `sift stats --json` and the --json results of
# bench/queries.txt's first 20 queries as keyword search, exact and regex greps.
#
#   bench/index-ab.sh A_CHECKOUT B_CHECKOUT CORPUS [RUNS] [--rows|--same]
#   e.g. bench/index-ab.sh /tmp/kernel-base . bench/corpora/medium 3 --same
#
# Each checkout must have its CLI bundle built (node scripts/build-cli.mjs). Prints one line
# per run and the medians; scratch under ${TMPDIR:-/tmp}/index-ab.$$.
set -euo pipefail
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); CORPUS=$(cd "$3" && pwd); RUNS=${4:-3}; SAME=${5:-}
W=${TMPDIR:-/tmp}/index-ab.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
here=$(cd "$(dirname "$0")/.." && pwd)

run_sift() { # name checkout home
  rm -rf "$3"
  /usr/bin/time -f '%e %U %S %M' -o "$W/t" env SIFT_HOME="$3" node "$2/bin/sift" index "$CORPUS" --no-embed -q >/dev/null
  read -r wall user sys rss <"$W/t"
  size=$(du -sk "$3" | cut -f1)
  echo "$1 wall=$wall cpu=$(echo "$user + $sys" | bc) rss_mb=$((rss / 1024)) index_mb=$(echo "scale=1; $size / 1024" | bc)" | tee -a "$W/runs"
}
run_native() {
  /usr/bin/time -f '%e %U %S %M' -o "$W/t" python3 "$here/bench/fts5-windows.py" "$CORPUS" "$W/files.txt" "$W/native.db" >/dev/null
  read -r wall user sys rss <"$W/t"
  echo "native wall=$wall cpu=$(echo "$user + $sys" | bc) rss_mb=$((rss / 1024))" | tee -a "$W/runs"
}

# The files Sift indexes (B's own list) for the native reference.
SIFT_HOME="$W/hb" node "$B/bin/sift" index "$CORPUS" --no-embed -q >/dev/null
SIFT_HOME="$W/hb" node "$B/bin/sift" stats "$CORPUS" --json >"$W/stats-b.json"
python3 -c 'import glob, sqlite3, sys
db = glob.glob(sys.argv[1] + "/indexes/*/index.db")[0]
print("\n".join(r[0] for r in sqlite3.connect(db).execute("SELECT path FROM files ORDER BY path")))' "$W/hb" >"$W/files.txt"
echo "native reference over $(wc -l <"$W/files.txt") files"

for i in $(seq 1 "$RUNS"); do
  run_sift A "$A" "$W/ha"
  run_sift B "$B" "$W/hb"
  run_native
done
echo "medians over $RUNS runs (wall s, cpu s, peak RSS MiB):"
median() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for k in A B native; do
  line="$k"
  for f in wall cpu rss_mb index_mb; do line="$line $f=$(grep "^$k " "$W/runs" | tr ' ' '\n' | sed -n "s/^$f=//p" | median)"; done
  echo "$line"
done

if [ -n "$SAME" ]; then
  # Row by row: chunks, chunk_names, file_text, files (less their write times), the trigram
  # postings (gram, ids in key order; segment numbers aside). The FTS rows are written from
  # the chunk rows (Store.writeFiles), so equal chunks give equal FTS input.
  python3 - "$W/ha" "$W/hb" <<'PY'
import glob, hashlib, sqlite3, sys, zlib
def text_of(row):
    # file_text.data (store/text-codec.ts): tag 1 = deflate-raw, any level; compared as the text it holds.
    return tuple(zlib.decompress(v[1:], -15) if isinstance(v, bytes) and v[:1] == b"\x01" else v for v in row)
def digest(home):
    db = sqlite3.connect(glob.glob(home + "/indexes/*/index.db")[0])
    out = {}
    cols = lambda t: [r[1] for r in db.execute(f"PRAGMA table_info({t})") if r[1] not in ("indexed_at", "updated_at")]
    for t, order in (("chunks", "id"), ("chunk_names", "key, chunk_id"), ("file_text", "id"), ("files", "path")):
        h = hashlib.sha256()
        for r in db.execute(f"SELECT {', '.join(cols(t))} FROM {t} ORDER BY {order}"): h.update(repr(text_of(r) if t == "file_text" else r).encode())
        out[t] = h.hexdigest()[:16]
    h = hashlib.sha256()
    for r in db.execute("SELECT gram, ids FROM trigram_postings ORDER BY gram"): h.update(repr(r).encode())
    out["trigram_postings"] = h.hexdigest()[:16]
    out["trigram_segments"] = db.execute("SELECT count(DISTINCT seg) FROM trigram_postings").fetchone()[0]
    return out
a, b = digest(sys.argv[1]), digest(sys.argv[2])
for k in a:
    print(f"rows {k}: {'same' if a[k] == b[k] else 'DIFFER'} (A {a[k]}, B {b[k]})")
PY
fi
if [ "$SAME" = "--same" ]; then
  SIFT_HOME="$W/ha" node "$A/bin/sift" stats "$CORPUS" --json >"$W/stats-a.json"
  SIFT_HOME="$W/hb" node "$B/bin/sift" stats "$CORPUS" --json >"$W/stats-b.json"
  strip='JSON.stringify(JSON.parse(require("fs").readFileSync(0,"utf8")),(k,v)=>/^(db|dir|lastIndexed)$|ms$|Ms$|At$|updated|created/i.test(k)&&typeof v!=="object"?undefined:v,1)'
  for s in a b; do node -e "process.stdout.write($strip)" <"$W/stats-$s.json" >"$W/stats-$s.norm"; done
  if cmp -s "$W/stats-a.norm" "$W/stats-b.norm"; then echo "stats: same counts"; else echo "stats: DIFFER"; diff <(tr ',' '\n' <"$W/stats-a.norm") <(tr ',' '\n' <"$W/stats-b.norm") | head -20 || true; fi
  differ=0
  while IFS= read -r q; do
    for mode in bm25 exact regex; do
      for s in a b; do
        C=$([ $s = a ] && echo "$A" || echo "$B")
        SIFT_HOME="$W/h$s" node "$C/bin/sift" search "$CORPUS" "$q" --mode "$mode" --json --limit 20 2>/dev/null \
          | node -e "process.stdout.write(JSON.stringify(JSON.parse(require('fs').readFileSync(0,'utf8')),(k,v)=>/ms$|Ms$|timings|took/i.test(k)?undefined:v))" >"$W/q-$s" || true
      done
      cmp -s "$W/q-a" "$W/q-b" || { differ=$((differ + 1)); echo "differs: $mode $q"; }
    done
  done < <(head -20 "$here/bench/queries.txt")
  echo "queries: $differ of 60 (20 queries x bm25/exact/regex) differ"
fi
