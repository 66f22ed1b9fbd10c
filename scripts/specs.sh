#!/bin/sh
# scripts/specs.sh: runs spec files JOBS at a time, each in a busted process
# of its own (make test, make asan, make memcheck).  The files go out
# slowest first, by the times the last run wrote to $LOGS/times (a file
# not timed yet counts as slow), so that every process is busy until the
# end; each one's output goes to $LOGS/<spec>.log, printed once all are
# done for the files that failed (ALL=1: for all), then one line per file
# with its time and the totals.  Exits non-zero when a file failed.
#   JOBS=2 LOGS=build/test PREFIX="valgrind ..." sh scripts/specs.sh BUSTED_ARGS -- FILE...
# PREFIX: a command to run each busted process under (valgrind), empty
# for none; BUSTED: the busted script (default: the one on PATH); LUA: the
# interpreter; TIMEOUT: the seconds a file may take (900).
set -u
JOBS=${JOBS:-2}
LOGS=${LOGS:-build/test}
LUA=${LUA:-lua5.4}
BUSTED=${BUSTED:-$(command -v busted)}
PREFIX=${PREFIX:-}
# (a file that runs longer fails: a hang is a bug, and must not hold up
# the rest)
TIMEOUT=${TIMEOUT:-900}

if [ "${1:-}" = --one ]; then
  f=$2
  base=$(basename "$f" .lua)
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout -k 10 "$TIMEOUT" $PREFIX $LUA "$BUSTED" $SPECS_ARGS "$f" > "$LOGS/$base.log" 2>&1
  st=$?
  [ $st = 124 ] && echo "specs.sh: $f timed out after $TIMEOUT s (TIMEOUT)" >> "$LOGS/$base.log"
  echo $st > "$LOGS/$base.status"
  end=$(date +%s.%N)
  echo "$end $start" | awk '{ printf "%.1f\n", $1 - $2 }' > "$LOGS/$base.seconds"
  exit 0
fi

args=
while [ $# -gt 0 ] && [ "$1" != -- ]; do args="$args $1"; shift; done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || { echo "specs.sh: no spec file given" >&2; exit 2; }

mkdir -p "$LOGS"
touch "$LOGS/times"
# slowest first: the last run's seconds, 1e9 for a file not timed yet
order=$(for f in "$@"; do
  t=$(awk -v f="$f" '$2 == f { t = $1 } END { print t == "" ? 1e9 : t }' "$LOGS/times")
  echo "$t $f"
done | sort -k1,1gr -k2 | awk '{ print $2 }')

SECONDS_START=$(date +%s)
# JOBS processes take the next file of the list in turn (xargs -P); each
# file's log, exit status and time go to files of their own (--one)
export SPECS_ARGS="$args" LOGS LUA BUSTED PREFIX TIMEOUT
printf '%s\n' $order | xargs -P "$JOBS" -I{} sh "$0" --one {}

status=0 ok=0 bad=0
: > "$LOGS/times.new"
for f in $order; do
  base=$(basename "$f" .lua)
  s=$(cat "$LOGS/$base.status" 2>/dev/null || echo 1)
  # (the logs of the files that failed; ALL=1: every log)
  if [ "$s" != 0 ] || [ "${ALL:-}" = 1 ]; then
    echo "==== busted $f"
    cat "$LOGS/$base.log"
  fi
  echo "$(cat "$LOGS/$base.seconds") $f" >> "$LOGS/times.new"
  if [ "$s" = 0 ]; then ok=$((ok + 1)); else bad=$((bad + 1)); status=1; fi
done
mv "$LOGS/times.new" "$LOGS/times"
echo "==== times (s), slowest first"
sort -k1,1gr "$LOGS/times"
for f in $order; do
  base=$(basename "$f" .lua)
  [ "$(cat "$LOGS/$base.status")" = 0 ] || echo "==== FAILED: $f (exit $(cat "$LOGS/$base.status"); log: $LOGS/$base.log)"
done
# (busted's last line of each file, summed)
for f in $order; do cat "$LOGS/$(basename "$f" .lua).log"; done | awk '/ success(es)? \/ [0-9]+ failures? \/ [0-9]+ errors? \/ [0-9]+ pending/ {
  s += $1; f += $4; e += $7; p += $10 } END { printf "specs.sh: %d successes / %d failures / %d errors / %d pending\n", s, f, e, p }'
echo "specs.sh: $ok files passed, $bad failed, $JOBS at a time, in $(( $(date +%s) - SECONDS_START )) s"
exit $status
