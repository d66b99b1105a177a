# Shell functions shared by bench.sh and bench-campaign.sh (sourced).

# measure CMD...: run REPEAT times; print "best_wall_s max_rss_kb cpu_s",
# cpu_s the least user + system CPU seconds of the runs: on a busy machine
# the wall clock measures the machine, the CPU seconds far less. With
# FRESH set, that directory (the command's output) is moved aside into
# $OUT/trash before each run, outside the timing. Moved, not removed: ext4
# skips inodes freed in the last minutes when it makes new ones, at a cost
# in the kernel that deleting thousands of files just before would add to
# the next ingest (4 ms a run in a campaign). empty_trash removes them.
measure() {
  local best="" rss=0 cpu="" i w m u s c
  for ((i = 0; i < REPEAT; i++)); do
    if [ -n "${FRESH:-}" ] && [ -e "$FRESH" ]; then
      mkdir -p "$OUT/trash"
      mv "$FRESH" "$(mktemp -d "$OUT/trash/XXXXXX")/"
    fi
    /usr/bin/time -o "$OUT/time.txt" -f '%e %M %U %S' "$@" >/dev/null
    read -r w m u s <"$OUT/time.txt"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{ printf "%.2f", u + s }')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN{exit !(a<b)}'; then cpu=$c; fi
    if [ "$m" -gt "$rss" ]; then rss=$m; fi
  done
  echo "$best $rss $cpu"
}

empty_trash() { rm -rf "$OUT/trash"; }

# keep KEY: read "wall rss cpu" (from measure) and keep, under KEY, the best
# wall clock in best_s, the largest RSS in best_rss and the least CPU
# seconds in best_cpu. Measuring two
# tools in rounds (one run of each per round, REPEAT rounds) and keeping
# each one's best lets the file system's drift over minutes fall on both,
# where running one tool's repeats before the other's hands it to the
# ratio.
declare -A best_s best_rss best_cpu
keep() {
  local w m c
  read -r w m c
  if [ -z "${best_s[$1]:-}" ] || awk -v a="$w" -v b="${best_s[$1]}" 'BEGIN{exit !(a<b)}'; then best_s[$1]=$w; fi
  if [ -z "${best_rss[$1]:-}" ] || [ "$m" -gt "${best_rss[$1]}" ]; then best_rss[$1]=$m; fi
  if [ -z "${best_cpu[$1]:-}" ] || awk -v a="$c" -v b="${best_cpu[$1]}" 'BEGIN{exit !(a<b)}'; then best_cpu[$1]=$c; fi
}

# load: the load average of the last minute.
load() { cut -d' ' -f1 /proc/loadavg; }

rate() { awk -v b="$1" -v s="$2" 'BEGIN{ if (s > 0) printf "%.0f", b / 1e6 / s }'; }
mb() { awk -v k="$1" 'BEGIN{ if (k != "") printf "%.0f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a != "" && b != "" && b > 0) printf "%.2fx", a / b; else printf "-" }'; }
check() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN{ if (v == "") print "-"; else if ((dir == "ge" && v+0 >= t) || (dir == "le" && v+0 <= t)) print "ok"; else print "MISSED" }'; }

go_metric() { # go_metric BENCH PKG UNIT: the value before UNIT on the benchmark's line
  awk -v pkg="$2" -v name="$1" -v unit="$3" '
    /^pkg: / { p = $2 }
    p ~ pkg"$" && $1 ~ "^"name"(-[0-9]+)?$" { for (i = 1; i < NF; i++) if ($(i+1) == unit) { print $i; exit } }' "$OUT/go-bench.txt"
}

# shares BIN PROF: the shares of the CPU profile PROF (of BIN) spent in the
# stages docs/performance.md names (inclusive; they overlap where one calls
# another: zstd is part of writing the files), to say what bounds a target
# missed.
shares() {
  local top
  top=$(go tool pprof -top -cum -nodecount=2000 "$1" "$2" 2>/dev/null) || return 0
  echo "  where the CPU went (profile $2):"
  while IFS='|' read -r label pat; do
    awk -v p="$pat" -v l="$label" '$6 ~ p && !done { printf "    %-44s %7s\n", l, $5; done = 1 }' <<<"$top"
  done <<'STAGES'
writing the run's files (dataset)|dataset\.\(\*RunWriter\)\.Finish$
  writing the turns on their goroutine|dataset\.\(\*rowWriter.*\)\.run$
  sorting the rows on their goroutine|dataset\.\(\*SortedWriter.*\)\.sortBatches$
  zstd|zstd\.\(\*Encoder\)\.EncodeAll$
parsing the gateway lines|outlastlog\.\(\*Reader\)\.parseLine$
the gateway collector|outlastlog\.\(\*Collector\)\.Add$
the scrapes|promscrape\.
sha256 of the inputs|sha256\.\(\*Digest\)\.Write$
system calls|syscall\.RawSyscall6$
allocation|runtime\.mallocgc$
garbage collection|runtime\.gcBgMarkWorker$
STAGES
}
