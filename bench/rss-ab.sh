#!/usr/bin/env bash
# Peak RSS of a cold `sift index --no-embed` in its own process (SIFT_SERVER=0), two checkouts
# alternated (A B, then B A, …), a new SIFT_HOME each run; GNU time's %M (the whole process:
# main thread, worker threads, WebAssembly memories), with wall and CPU (user + sys) beside it.
# For issue 34's "peak RSS no higher than at e804d1e, measured in the same run".
#
#   bench/rss-ab.sh A_CHECKOUT B_CHECKOUT RUNS CORPUS…
#   e.g. bench/rss-ab.sh /tmp/e804 . 3 bench/corpora/repos/plug bench/corpora/medium
#
# Each checkout must have its CLI bundle built (node scripts/build-cli.mjs). One line per run,
# then per corpus and checkout the median and range of peak RSS (MiB).
set -euo pipefail
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); RUNS=$3; shift 3
W=${TMPDIR:-/tmp}/rss-ab.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
one() { # label checkout corpus
  rm -rf "$W/home"
  /usr/bin/time -f '%e %U %S %M' -o "$W/t" env SIFT_SERVER=0 SIFT_HOME="$W/home" node "$2/bin/sift" index "$3" --no-embed -q >/dev/null
  read -r wall user sys rss <"$W/t"
  echo "$(basename "$3") $1 wall=$wall cpu=$(echo "$user + $sys" | bc) rss_mib=$((rss / 1024)) load=$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$W/runs"
}
for c in "$@"; do
  C=$(cd "$c" && pwd)
  for i in $(seq 1 "$RUNS"); do
    if [ $((i % 2)) -eq 1 ]; then one A "$A" "$C"; one B "$B" "$C"; else one B "$B" "$C"; one A "$A" "$C"; fi
  done
done
echo "peak RSS MiB, median (min-max), and CPU s median:"
for c in "$@"; do
  n=$(basename "$c")
  for k in A B; do
    grep "^$n $k " "$W/runs" | awk -v n="$n" -v k="$k" '{split($5,r,"="); split($4,u,"="); v[NR]=r[2]; c[NR]=u[2]} END{
      asort(v); asort(c); m=(NR%2?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2); mc=(NR%2?c[(NR+1)/2]:(c[NR/2]+c[NR/2+1])/2);
      printf "%s %s rss=%s (%s-%s) cpu=%s runs=%d\n", n, k, m, v[1], v[NR], mc, NR}'
  done
done
