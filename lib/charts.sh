#!/usr/bin/env bash
# Usage: lib/charts.sh RUN_DIR
#        lib/charts.sh --compare DIR
# Summary: draw the charts of a run folder (or of a compare folder) as SVG with gnuplot
#
# RUN_DIR is results/<YYYYmmdd-HHMMSS>/. Reads metrics/*.json, raw/*.json (helper lines with
# "hist" and "per_s", fio JSON files), raw/*_bw.N.log and raw/*_iops.N.log (fio per-second
# logs); writes RUN_DIR/charts/*.svg and RUN_DIR/charts/index.json:
#   {"tool","seconds","why","charts":[{metric,kind,file,title}],"not_drawn":[{metric,kind,why}]}
# ("file" relative to RUN_DIR; "why" is null, or why nothing was drawn). A missing input draws
# no chart and leaves a not_drawn entry; without gnuplot index.json still says why.
# --compare DIR reads DIR/compare.json ({runs:[{label}], metrics:[{metric, unit, runs:[{median,
# min, max, values or repeats}]}]}) and draws one chart per metric into DIR/charts/.
# Needs jq; gnuplot (Debian gnuplot-nox, RHEL gnuplot) for the pictures.
#
# Exit status: 0 written (also when nothing could be drawn), 1 the folder could not be read,
# 2 usage error.

CHARTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
. "$CHARTS_LIB/common.sh"

# Metrics that have a latency distribution and a rate over time (the others have neither).
CHARTS_TIMED="login metadata concurrency seqwrite seqread randread randwrite latency"

# charts_warn MESSAGE: print a warning on stderr.
charts_warn() {
  printf 'warning: %s\n' "$*" >&2
}

# charts_raw_map RUN_DIR: print a JSON array, one entry per raw JSON file that belongs to a
# timed metric: {file, metric, rep, sub, fio}. Repeats are NAME.rK.json / NAME.rK.fio.json
# (also NAME.fio.rK.json); steady.fio.json is the latency metric's; concurrency.N.json the step
# of N clients.
charts_raw_map() {
  { find "$1/raw" -maxdepth 1 -type f -name '*.json' -printf '%f\n' 2>/dev/null || true; } | sort -V |
    jq -Rn --arg timed "$CHARTS_TIMED" '
      ($timed | split(" ")) as $ok
      | [inputs
         | . as $f
         | (test("\\.fio(\\.r[0-9]+)?\\.json$")) as $fio
         | sub("\\.json$"; "") | sub("\\.fio(?<r>\\.r[0-9]+)?$"; "\(.r // "")")
         | (capture("\\.r(?<k>[0-9]+)$").k // "1" | tonumber) as $rep
         | sub("\\.r[0-9]+$"; "")
         | (if test("^concurrency\\.[0-9]+$") then {metric: "concurrency", sub: (ltrimstr("concurrency.") | if . == "1" then "1 client" else "\(.) clients" end)}
            elif . == "steady" then {metric: "latency", sub: null}
            else {metric: ., sub: null} end)
         | select(.metric as $m | $ok | index($m))
         | . + {file: $f, rep: $rep, fio: $fio}]'
}

# charts_series_split DIR: read "title<TAB>x<TAB>y" lines on stdin; write DIR/s1.dat ..
# DIR/sN.dat (x<TAB>y, in order of first appearance) and append n (series), most (rows of the
# longest) and T[] (titles) to DIR/vars.gp.
charts_series_split() {
  awk -F '\t' -v dir="$1" '
    !($1 in idx) { idx[$1] = ++n; title[n] = $1 }
    { print $2 "\t" $3 > (dir "/s" idx[$1] ".dat"); if (++rows[$1] > most) most = rows[$1] }
    END {
      printf "n = %d\nmost = %d\narray T[%d]\n", n, most, (n > 0 ? n : 1) >> (dir "/vars.gp")
      for (i = 1; i <= n; i++) { t = title[i]; gsub(/\x27/, "\x27\x27", t); printf "T[%d] = \x27%s\x27\n", i, t >> (dir "/vars.gp") }
    }'
}

# charts_gp_vars NAME=VALUE...: print gnuplot assignments; values are strings unless they
# look like numbers (NaN for an empty value). A value may come from a run folder (anyone's): a
# line break or other control character would end the assignment and start a gnuplot command
# ('system ...'), so each becomes a space, and a ' is doubled inside the quotes.
charts_gp_vars() {
  local kv k v
  for kv in "$@"; do
    k=${kv%%=*} v=${kv#*=}
    v=${v//[[:cntrl:]]/ }
    if [[ -z $v ]]; then
      printf '%s = NaN\n' "$k"
    elif [[ $v =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
      printf '%s = %s\n' "$k" "$v"
    else
      printf "%s = '%s'\n" "$k" "${v//\'/\'\'}"
    fi
  done
}

# charts_plot KIND WORK_DIR OUT_SVG: run gnuplot on common.gp + WORK_DIR/vars.gp + KIND.gp in
# WORK_DIR (where the data files are) and move the picture to OUT_SVG; 1 on failure.
charts_plot() {
  local kind=$1 work=$2 out=$3
  if ! (cd "$work" && cat "$CHARTS_LIB/charts/common.gp" vars.gp "$CHARTS_LIB/charts/$kind.gp" |
    gnuplot >gnuplot.log 2>&1) || [[ ! -s $work/chart.svg ]]; then
    charts_warn "gnuplot could not draw '${out##*/}': $(grep -v '^ *$' "$work/gnuplot.log" 2>/dev/null | tail -n 1)"
    return 1
  fi
  mv -f "$work/chart.svg" "$out"
}

# charts_work DIR: make (empty) DIR as a fresh work folder for one chart.
charts_work() {
  rm -rf "$1"
  mkdir -p "$1"
}

# charts_add METRIC KIND FILE TITLE: record a drawn chart (FILE relative to the charts folder).
charts_add() {
  CHARTS_ENTRIES+=("$(jq -cn --arg m "$1" --arg k "$2" --arg f "charts/$3" --arg t "$4" \
    '{metric: $m, kind: $k, file: $f, title: $t}')")
}

# charts_skip METRIC KIND WHY: record a chart that was not drawn and why.
charts_skip() {
  CHARTS_SKIPPED+=("$(jq -cn --arg m "$1" --arg k "$2" --arg w "$3" '{metric: $m, kind: $k, why: $w}')")
}

# charts_concurrency RUN_DIR WORK: the concurrency curve (IOPS and p99 against clients, the
# p99 target as a dashed line) from metrics/concurrency.json details.steps[]; with repeats,
# each repeat's steps (raw/concurrency.N.rK.json: rate_per_s, lat_ms.p99) as thin lines too.
charts_concurrency() {
  local dir=$1 work=$2/curve f=$1/metrics/concurrency.json target span y2max reps=0
  local -a files
  [[ -f $f ]] || return 0
  charts_work "$work"
  jq -r '(.details.steps // [])[] | select((.clients | type) == "number" and (.iops | type) == "number")
    | [.clients, .iops, (.p99_ms // "null"), (if .kept_up == false then 0 else 1 end)] | @tsv' "$f" >"$work/data.dat" 2>/dev/null || true
  if [[ ! -s $work/data.dat ]]; then
    charts_skip concurrency curve "no steps with IOPS in metrics/concurrency.json"
    return 0
  fi
  : >"$work/reps.dat"
  mapfile -t files < <(find "$dir/raw" -maxdepth 1 -regextype posix-extended -regex '.*/concurrency\.[0-9]+\.r[0-9]+\.json' 2>/dev/null | sort)
  if ((${#files[@]})); then
    # one block a repeat (a blank line between blocks breaks the line), steps in client order
    jq -rn '[inputs | select(type == "object" and (.rate_per_s | type) == "number")
        | (input_filename | capture("concurrency\\.(?<n>[0-9]+)\\.r(?<k>[0-9]+)\\.json$")) as $c
        | {k: ($c.k | tonumber), n: ($c.n | tonumber), iops: .rate_per_s, p99: (.lat_ms.p99 // "null")}]
      | group_by(.k) | map(sort_by(.n)) | .[] | ((.[] | [.n, .iops, .p99] | @tsv), "")' "${files[@]}" >"$work/reps.dat" 2>/dev/null || true
    reps=$(grep -c '^$' "$work/reps.dat" || true)
    ((reps >= 2)) || reps=0
  fi
  # the p99 a step must keep, as the verdict judged it (not today's settings)
  target=$(jq -r '.details.p99_max_ms // empty | numbers' "$f" 2>/dev/null) || target=
  span=$(awk -F '\t' 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 } END { print (lo > 0 && hi / lo >= 8) ? 1 : 0 }' "$work/data.dat")
  y2max=$(awk -F '\t' -v t="${target:-0}" '$3 != "null" && $3 > m { m = $3 } END { m = (t > m ? t : m); if (m > 0) print m * 1.15 }' "$work/data.dat")
  y2max=$(awk -F '\t' -v m="${y2max:-0}" '$3 != "null" && $3 * 1.15 > m { m = $3 * 1.15 } END { if (m > 0) print m }' "$work/reps.dat")
  charts_gp_vars "title=concurrency: IOPS and p99 against clients" "target=$target" "logx=$span" "y2max=$y2max" "reps=$reps" \
    "failed=$(awk -F '\t' '$4 == 0 { n++ } END { print n + 0 }' "$work/data.dat")" >"$work/vars.gp"
  charts_plot curve "$work" "$dir/charts/concurrency-curve.svg" || return 0
  charts_add concurrency curve concurrency-curve.svg "concurrency: IOPS and p99 against clients"
}

# charts_latency RUN_DIR WORK METRIC MAP: the latency distribution (cumulative %) of METRIC from
# the helpers' "hist" objects ({unit, bounds (upper bounds), counts}) and fio's percentiles (total
# latency lat_ns, the report's distribution; clat_ns in runs made before --lat_percentiles=1), one
# line per file, step, direction or repeat. MAP: charts_raw_map's array.
charts_latency() {
  local dir=$1 work=$2/lat-$3 metric=$3 map=$4
  local -a files=()
  mapfile -t files < <(jq -r --arg m "$metric" '.[] | select(.metric == $m) | .file' <<<"$map")
  charts_work "$work"
  : >"$work/vars.gp"
  if ((${#files[@]})); then
    (cd "$dir/raw" && jq -r --arg m "$metric" --argjson map "$map" '
      def ms($u): if $u == "ns" then . / 1e6 elif $u == "ms" then . else . / 1000 end;
      ($map | map({(.file): .}) | add) as $by
      | ([$map[] | select(.metric == $m) | .rep] | max > 1) as $reps
      | $by[input_filename] as $e
      | ([$e.sub, (if $reps then "r\($e.rep)" else empty end)] | map(select(. != null)) | join(" ")) as $base
      | def name($x): [$base, $x] | map(select(. != null and . != "")) | join(" ") | if . == "" then $m else . end;
      if $e.fio then
        (.jobs // [])[] as $j | ["read", "write"][] as $d
        | ($j[$d] // {}) | select((.total_ios // .io_bytes // 0) > 0)
        | ((if .lat_ns.percentile then .lat_ns else .clat_ns end).percentile // {}) | to_entries | sort_by(.key | tonumber)[]
        | select(.value > 0)
        | [name($d + (if ($j.jobname // "") != "" and (input_filename | startswith($j.jobname) | not) then " " + $j.jobname else "" end)),
           (.value / 1e6), (.key | tonumber)] | @tsv
      else
        ([[]] + [paths(type == "object" and has("hist"))])[] as $p
        | getpath($p) | select(type == "object" and has("hist")) | .hist | select((.counts | length) > 0 and (.counts | length) == (.bounds | length))
        | (.counts | add) as $total | select($total > 0) | .unit as $u
        | [.bounds, .counts] | transpose
        | foreach .[] as [$b, $c] (0; . + $c; [name($p | map(tostring) | join(".")), ($b | ms($u)), (. * 100 / $total)])
        | @tsv
      end' "${files[@]}" 2>/dev/null) | charts_series_split "$work" || true
  fi
  if [[ ! -s $work/s1.dat ]]; then
    charts_skip "$metric" latency "no latency histogram or fio percentiles in raw/"
    return 0
  fi
  charts_gp_vars "title=$metric: latency distribution" >>"$work/vars.gp"
  charts_plot cdf "$work" "$dir/charts/latency-$metric.svg" || return 0
  charts_add "$metric" latency "latency-$metric.svg" "$metric: latency distribution"
}

# charts_fio_logs RUN_DIR METRIC KIND MAP: print "title<TAB>second<TAB>value" lines from the
# fio per-second logs raw/PREFIX_KIND.J.log (KIND bw: KiB/s shown as MB/s; iops) of METRIC's
# fio files, jobs added per second, one line per direction and repeat.
charts_fio_logs() {
  local dir=$1 metric=$2 kind=$3 map=$4 prefix title f
  local -a logs
  while IFS=$'\t' read -r prefix title; do
    logs=()
    for f in "$dir/raw/${prefix}_$kind".*.log; do
      [[ -f $f ]] && logs+=("$f")
    done
    ((${#logs[@]})) || continue
    awk -F ', *' -v t="$title" -v kind="$kind" '
      NF >= 3 && $1 ~ /^[0-9]+$/ {
        s = int(($1 + 500) / 1000); d = ($3 == 1 ? "write" : ($3 == 2 ? "trim" : "read"))
        v = (kind == "bw") ? $2 * 1024 / 1e6 : $2
        sum[d, s] += v; if (!(d in seen)) { seen[d] = 1; dirs[++nd] = d } if (s > max) max = s
      }
      END {
        for (i = 1; i <= nd; i++) for (s = 0; s <= max; s++) if ((dirs[i], s) in sum)
          printf "%s\t%d\t%.6g\n", (t == "" ? dirs[i] : dirs[i] " " t), s, sum[dirs[i], s]
      }' "${logs[@]}"
  done < <(jq -r --arg m "$metric" '
    [.[] | select(.metric == $m and .fio)] | (map(.rep) | max > 1) as $reps
    | .[] | [(.file | sub("\\.json$"; "") | sub("\\.fio"; "")), (if $reps then "r\(.rep)" else "" end)] | @tsv' <<<"$map")
}

# charts_time RUN_DIR WORK METRIC MAP: the rate over time of METRIC, one point per second:
# the helpers' "per_s" arrays (operations in each second) or fio's per-second logs (MB/s for
# seqwrite/seqread, IOPS otherwise), one line per step, direction or repeat.
charts_time() {
  local dir=$1 work=$2/time-$3 metric=$3 map=$4 ylab='operations per second' kind=iops
  local -a files=()
  [[ $metric == seq* ]] && kind=bw
  mapfile -t files < <(jq -r --arg m "$metric" '.[] | select(.metric == $m and (.fio | not)) | .file' <<<"$map")
  charts_work "$work"
  : >"$work/vars.gp"
  {
    if ((${#files[@]})); then
      (cd "$dir/raw" && jq -r --arg m "$metric" --argjson map "$map" '
        ($map | map({(.file): .}) | add) as $by
        | ([$map[] | select(.metric == $m) | .rep] | max > 1) as $reps
        | $by[input_filename] as $e
        | ([[]] + [paths(type == "object" and has("per_s"))])[] as $p
        | getpath($p) | select(type == "object" and has("per_s")) | .per_s
        | select(type == "array" and length > 0)
        | ([$e.sub, ($p | map(tostring) | join(".")), (if $reps then "r\($e.rep)" else empty end)]
           | map(select(. != null and . != "")) | join(" ") | if . == "" then $m else . end) as $t
        | to_entries[] | select(.value | type == "number") | [$t, (.key + 1), .value] | @tsv' "${files[@]}" 2>/dev/null) || true
    fi
    charts_fio_logs "$dir" "$metric" "$kind" "$map"
  } | charts_series_split "$work"
  if [[ ! -s $work/s1.dat ]]; then
    charts_skip "$metric" time "no per-second data"
    return 0
  fi
  if [[ -z $(jq -r --arg m "$metric" '.[] | select(.metric == $m and (.fio | not)) | .file' <<<"$map") ]]; then
    [[ $kind == bw ]] && ylab='MB/s' || ylab='IOPS'
  fi
  charts_gp_vars "title=$metric: rate over time" "ylab=$ylab" >>"$work/vars.gp"
  charts_plot time "$work" "$dir/charts/time-$metric.svg" || return 0
  charts_add "$metric" time "time-$metric.svg" "$metric: rate over time"
}

# charts_server RUN_DIR WORK FILE: the server's time per SMB command (details.server.commands[]:
# {command, calls, mean_us, time_us, share}) of one metric, largest 12 shares.
charts_server() {
  local dir=$1 work=$2/server-$3 f=$1/metrics/$3.json metric=$3 rows
  jq -e '(.details.server.commands // []) | length > 0' "$f" >/dev/null 2>&1 || return 0
  charts_work "$work"
  jq -r '(.details.server.commands // []) as $c
    | ([$c[] | .share // 0] | max) as $max
    | (if $max <= 1 then 100 else 1 end) as $k
    | $c | map(select(.command != null)) | sort_by(-(.share // 0)) | .[:12][]
    | [.command, ((.share // 0) * $k), (.calls // "null"), (.mean_us // "null")] | @tsv' "$f" >"$work/data.dat"
  rows=$(wc -l <"$work/data.dat")
  ((rows > 0)) || return 0
  charts_gp_vars "title=$metric: server time per command" "rows=$rows" "xlab=% of the server time" >"$work/vars.gp"
  charts_plot bars "$work" "$dir/charts/server-$metric.svg" || return 0
  charts_add "$metric" server "server-$metric.svg" "$metric: server time per command"
}

# charts_bars RUN_DIR WORK METRIC KIND JQ TITLE XLAB WHY_NONE: a bar chart of METRIC (kind KIND)
# from metrics/METRIC.json: JQ prints "label<TAB>length" rows, first on top; WHY_NONE is the
# not_drawn reason when it prints none.
charts_bars() {
  local dir=$1 work=$2/$4-$3 metric=$3 kind=$4 program=$5 title=$6 xlab=$7 none=$8 rows
  [[ -f $dir/metrics/$metric.json ]] || return 0
  charts_work "$work"
  jq -r "$program" "$dir/metrics/$metric.json" >"$work/data.dat" 2>/dev/null || : >"$work/data.dat"
  rows=$(wc -l <"$work/data.dat")
  if ((rows == 0)); then
    charts_skip "$metric" "$kind" "$none"
    return 0
  fi
  charts_gp_vars "title=$title" "rows=$rows" "xlab=$xlab" >"$work/vars.gp"
  charts_plot bars "$work" "$dir/charts/$kind-$metric.svg" || return 0
  charts_add "$metric" "$kind" "$kind-$metric.svg" "$title"
}

# charts_once RUN_DIR WORK METRIC: the charts of the metrics measured once, without a rate over
# time: localdisk (Samba's figure as % of the local disk's, per fio job) and startup (the time
# to the first login of each round).
charts_once() {
  local dir=$1 work=$2 metric=$3 target
  case $metric in
    localdisk)
      charts_bars "$dir" "$work" localdisk baseline '.details.jobs[]
        | select((.samba | type) == "number" and (.local_disk | type) == "number" and .local_disk > 0)
        | [.job, (.samba * 100 / .local_disk)] | @tsv' \
        "localdisk: Samba as % of the local disk" "% of the local disk's figure (the same fio job)" \
        "no fio job was measured both through Samba and on the local disk in this run"
      ;;
    startup)
      target=$(jq -r '.target // empty | numbers' "$dir/metrics/startup.json" 2>/dev/null) || target=
      charts_bars "$dir" "$work" startup rounds '.details.rounds[] | select((.login_ms | type) == "number")
        | ["round \(.round)", .login_ms] | @tsv' \
        "startup: time to the first login, per round" "ms from the start of smbd to the first login${target:+ (target <= $target ms)}" \
        "no round reached a login"
      ;;
  esac
}

# charts_declared RUN_DIR WORK METRIC: the chart a metric's verdict declares in
# details.chart {kind, title, xlabel, ylabel, logx, logy, series: [{title, points: [[x, y]]}]}
# (docs/CONTRACTS.md section 6): one line per series; nothing when it declares none.
charts_declared() {
  local dir=$1 work=$2/declared-$3 metric=$3 f=$1/metrics/$3.json kind
  kind=$(jq -r '.details.chart.kind // empty | tostring | select(test("^[a-z0-9-]{1,32}$"))' "$f" 2>/dev/null) || return 0
  [[ -n $kind ]] || return 0
  charts_work "$work"
  jq -r '.details.chart.series[]? | (.title // "" | tostring) as $t | .points[]?
    | select(length == 2 and (.[0] | type) == "number" and (.[1] | type) == "number") | [$t, .[0], .[1]] | @tsv' "$f" |
    charts_series_split "$work"
  if ! grep -q '^n = [1-9]' "$work/vars.gp"; then
    charts_skip "$metric" "$kind" "the verdict declared a chart without points"
    return 0
  fi
  jq -r '.details.chart | "title=\(.title // "")", "xlab=\(.xlabel // "")", "ylab=\(.ylabel // "")",
    "logx=\(if .logx == true then 1 else 0 end)", "logy=\(if .logy == true then 1 else 0 end)"' "$f" |
    while IFS= read -r kv; do charts_gp_vars "$kv"; done >>"$work/vars.gp"
  charts_plot series "$work" "$dir/charts/$kind-$metric.svg" || {
    charts_skip "$metric" "$kind" "gnuplot could not draw it"
    return 0
  }
  charts_add "$metric" "$kind" "$kind-$metric.svg" "$(jq -r '.details.chart.title // "" | tostring' "$f")"
}

# charts_index OUT_JSON WHY SECONDS: write index.json from CHARTS_ENTRIES and CHARTS_SKIPPED.
charts_index() {
  local tool=null
  command -v gnuplot >/dev/null 2>&1 && tool=$(gnuplot --version 2>/dev/null | jq -Rs 'rtrimstr("\n")')
  {
    ((${#CHARTS_ENTRIES[@]})) && printf '%s\n' "${CHARTS_ENTRIES[@]}"
    ((${#CHARTS_SKIPPED[@]})) && printf '%s\n' "${CHARTS_SKIPPED[@]}" | jq -c '{skipped: .}'
    true
  } | jq -s --arg why "$2" --argjson seconds "$3" --argjson tool "$tool" '{
      tool: $tool, seconds: $seconds, why: (if $why == "" then null else $why end),
      charts: map(select(has("skipped") | not)), not_drawn: map(.skipped // empty)}' >"$1.tmp"
  mv -f "$1.tmp" "$1"
}

# charts_begin DIR: make DIR/charts (old pictures removed) and reset the records; set
# CHARTS_WORK (a temp folder, removed by charts_end) and CHARTS_T0.
charts_begin() {
  CHARTS_ENTRIES=() CHARTS_SKIPPED=()
  CHARTS_T0=$(date +%s.%N)
  mkdir -p "$1/charts" || return 1
  rm -f "$1/charts/"*.svg
  CHARTS_WORK=$(mktemp -d "${TMPDIR:-/tmp}/charts.XXXXXX") || return 1
}

# charts_end DIR WHY: write DIR/charts/index.json and remove the work folder.
charts_end() {
  local secs
  secs=$(awk -v a="$CHARTS_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  charts_index "$1/charts/index.json" "$2" "$secs"
  rm -rf "$CHARTS_WORK"
}

# charts_run RUN_DIR: draw every chart of a run folder; index.json says what and why not.
charts_run() {
  local dir=$1 f metric map
  [[ -d $dir/metrics ]] || {
    error "no run folder '$dir'"
    return 1
  }
  # a run folder is anyone's data: none with a link in it
  common_run_folder "$dir" || return 1
  charts_begin "$dir" || return 1
  if ! command -v gnuplot >/dev/null 2>&1; then
    charts_end "$dir" "gnuplot not installed"
    return 0
  fi
  map=$(charts_raw_map "$dir")
  charts_concurrency "$dir" "$CHARTS_WORK"
  for f in "$dir"/metrics/*.json; do
    [[ -f $f ]] || continue
    metric=$(jq -r 'select(.status != "SKIP") | .metric // empty' "$f" 2>/dev/null) || continue
    [[ -n $metric && $metric =~ ^[A-Za-z0-9_-]+$ ]] || continue
    if [[ " $CHARTS_TIMED " == *" $metric "* ]]; then
      charts_latency "$dir" "$CHARTS_WORK" "$metric" "$map"
      charts_time "$dir" "$CHARTS_WORK" "$metric" "$map"
    fi
    charts_once "$dir" "$CHARTS_WORK" "$metric"
    charts_declared "$dir" "$CHARTS_WORK" "$metric"
    charts_server "$dir" "$CHARTS_WORK" "$metric"
  done
  charts_end "$dir" ""
}

# charts_compare DIR: one chart per metric of DIR/compare.json: the median of each run or
# variant as a bar, min-max as an error bar, each repeat as a dot.
charts_compare() {
  local dir=$1 n i metric work verdicts
  jq -e '(.metrics | type) == "array"' "$dir/compare.json" >/dev/null 2>&1 || {
    error "no compare record '$dir/compare.json'"
    return 1
  }
  common_run_folder "$dir" || return 1
  charts_begin "$dir" || return 1
  if ! command -v gnuplot >/dev/null 2>&1; then
    charts_end "$dir" "gnuplot not installed"
    return 0
  fi
  n=$(jq '.metrics | length' "$dir/compare.json")
  for ((i = 0; i < n; i++)); do
    metric=$(jq -r --argjson i "$i" '.metrics[$i].metric // empty | tostring' "$dir/compare.json")
    [[ $metric =~ ^[A-Za-z0-9_.-]+$ ]] || continue
    work=$CHARTS_WORK/compare-$i
    charts_work "$work"
    # labels: the runs' labels, else the folder names
    jq -r --argjson i "$i" '(.runs // []) as $runs | .metrics[$i] as $m
      | ($m.runs // []) | to_entries[] | .key as $k | .value as $v
      | select(($v.median // null) | type == "number")
      | [$k + 1, ($runs[$k].label // $v.run // $runs[$k].dir // "run \($k + 1)" | tostring | split("/") | map(select(. != "")) | last // "run"),
         $v.median, ($v.min // $v.median), ($v.max // $v.median)] | @tsv' "$dir/compare.json" >"$work/data.dat"
    jq -r --argjson i "$i" '.metrics[$i].runs // [] | to_entries[] | .key as $k
      | (.value.repeats // .value.values // []) | map(select(type == "number")) | length as $n | to_entries[]
      | [$k + 1 + (if $n > 1 then (.key - ($n - 1) / 2) * (0.3 / $n) else 0 end), .value] | @tsv' \
      "$dir/compare.json" >"$work/reps.dat"
    if [[ ! -s $work/data.dat ]]; then
      charts_skip "$metric" compare "no median for any run"
      continue
    fi
    [[ -s $work/reps.dat ]] || printf '1\tnull\n' >"$work/reps.dat"
    # the verdicts against the first run, when compare.json has them
    verdicts=$(jq -r --argjson i "$i" '[.metrics[$i].versus[]? | select(.run != null and .verdict != null)
      | "\(.run) " + (if (.change_pct | type) == "number" then (.change_pct * 10 | round / 10
          | if . > 0 then "+\(.)" else tostring end) + " % " else "" end) + .verdict] | join(", ")' "$dir/compare.json" 2>/dev/null) || verdicts=''
    charts_gp_vars "title=$metric: runs side by side${verdicts:+ ($verdicts)}" \
      "ylab=$(jq -r --argjson i "$i" '.metrics[$i].unit // "" | tostring' "$dir/compare.json")" \
      "runs=$(awk -F '\t' '$1 > m { m = $1 } END { print m + 0 }' "$work/data.dat")" >"$work/vars.gp"
    charts_plot compare "$work" "$dir/charts/compare-$metric.svg" || continue
    charts_add "$metric" compare "compare-$metric.svg" "$metric: runs side by side"
  done
  charts_end "$dir" ""
}

main() {
  case ${1:-} in
    -h | --help)
      sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
      ;;
    --compare)
      (($# == 2)) || {
        echo "usage: lib/charts.sh RUN_DIR | --compare DIR" >&2
        exit 2
      }
      charts_compare "$2"
      ;;
    '' | -*)
      echo "usage: lib/charts.sh RUN_DIR | --compare DIR" >&2
      exit 2
      ;;
    *)
      (($# == 1)) || {
        echo "usage: lib/charts.sh RUN_DIR | --compare DIR" >&2
        exit 2
      }
      charts_run "$1"
      ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  main "$@"
fi
