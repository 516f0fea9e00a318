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
median() { sort -n | awk '{v[NR]=$1} END{printf "%s", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for c in "$@"; do
  n=$(basename "$c")
  for k in A B; do
    rss=$(grep "^$n $k " "$W/runs" | sed 's/.*rss_mib=\([0-9]*\).*/\1/')
    cpu=$(grep "^$n $k " "$W/runs" | sed 's/.* cpu=\([0-9.]*\).*/\1/')
    echo "$n $k rss=$(echo "$rss" | median) ($(echo "$rss" | sort -n | head -1)-$(echo "$rss" | sort -n | tail -1)) cpu=$(echo "$cpu" | median) runs=$(echo "$rss" | wc -l)"
  done
done
