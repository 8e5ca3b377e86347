#!/usr/bin/env bash
# Usage: lib/report/charts.sh RUN_DIR
#        lib/report/charts.sh --compare DIR
# Summary: draw the charts of a run folder (or of a compare folder) as SVG with gnuplot
# Long because: the run's charts and compare's share the plotting, the records and the index.
#
# RUN_DIR is results/<YYYYmmdd-HHMMSS>/. Reads RUN_DIR/results.json alone: each metric's charts
# (.metrics[].charts, emitted by its verdict through lib/run/series.jq), drawn through the gnuplot
# template lib/report/charts/KIND.gp each names; knows no metric. Writes RUN_DIR/charts/NAME-METRIC.svg
# and RUN_DIR/charts/index.json:
#   {"tool","seconds","why","charts":[{metric,kind,file,title}],"not_drawn":[{metric,kind,why}]}
# ("kind" is the chart's name, "file" relative to RUN_DIR; "why" is null, or why nothing was
# drawn). A chart with nothing to draw, or that gnuplot cannot draw, is a not_drawn entry; a
# run recorded before the verdicts kept their charts is one too; without gnuplot index.json
# still says why.
# --compare DIR reads DIR/compare.json ({runs:[{label}], metrics:[{metric, unit, runs:[{median,
# min, max, values or repeats}]}]}) and draws one chart per metric into DIR/charts/.
# Needs jq; gnuplot (Debian gnuplot-nox, RHEL gnuplot) for the pictures.
#
# Exit status: 0 written (also when nothing could be drawn), 1 the folder could not be read,
# 2 usage error.

CHARTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/common.sh
. "$CHARTS_LIB/common.sh"

# charts_warn MESSAGE: print a warning on stderr.
charts_warn() {
  printf 'warning: %s\n' "$*" >&2
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
  if ! (cd "$work" && cat "$CHARTS_LIB/report/charts/common.gp" vars.gp "$CHARTS_LIB/report/charts/$kind.gp" |
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
  CHARTS_RECORDS+=(chart "$1" "$2" "charts/$3" "$4")
}

# charts_skip METRIC KIND WHY: record a chart that was not drawn and why.
charts_skip() {
  CHARTS_RECORDS+=(skip "$1" "$2" "$3" '')
}

# charts_why_not WORK: the last line gnuplot wrote in WORK (why it drew nothing).
charts_why_not() {
  grep -v '^ *$' "$1/gnuplot.log" 2>/dev/null | tail -n 1 | cut -c1-200
}

# charts_fields RESULTS_JSON: every chart the measured metrics of RESULTS_JSON carry, in order,
# as five NUL-ended fields each: its metric, name, kind, title and why (a missing one empty), as
# a command substitution of jq -r would give them (no NUL, no trailing line break).
charts_fields() {
  jq -j 'def field: if . == null or . == false then "" else tostring end | gsub("\u0000"; "") | sub("\n+\\z"; "");
    .metrics[] | select(.status != "SKIP") | .metric as $m | (.charts // [])[]
    | if type == "object" then . else {} end
    | ($m | field), (.name | field), (.kind | field), (.title | field), (.why | field) | . + "\u0000"' "$1"
}

# charts_files RESULTS_JSON WORK: write the files of every chart of charts_fields (in that order)
# into WORK/0, WORK/1, ... (folders that exist): its series as s1.dat .. sN.dat, its data as
# data.dat, its reps as reps.dat (a blank line between blocks), the number of rows of its longest
# series as counts.gp, its series' titles as titles.gp and its vars as vars.txt (NAME=VALUE a
# line). One jq and one awk for all charts; each part of a chart is tried on its own, so a
# malformed one costs that part only.
charts_files() {
  # shellcheck disable=SC2016 # jq program
  jq -r 'def cell: if . == null then "null" else tostring end;
    [.metrics[] | select(.status != "SKIP") | (.charts // [])[] | if type == "object" then . else {} end]
    | to_entries[] | (.key | tostring) as $k | .value
    | "\($k)\tH\t",
      (try (.series // [] | to_entries[] | .key as $i | .value
        | (.x // [range(1; (.y // []) | length + 1)]) as $x | .y // [] | to_entries[]
        | [$x[.key], .value] | map(cell) | "\($k)\tS\t\(.[0])\t\(.[1])\t" + ($i | tostring)) catch empty),
      (try (.data // [] | .[] | map(cell) | join("\t") | "\($k)\tD\t" + .) catch empty),
      (try (.reps // [] | .[] | ((.[] | map(cell) | join("\t") | "\($k)\tR\t" + .), "\($k)\tR\t")) catch empty),
      (try (.series // [] | "n = \(length)", "array T[\([length, 1] | max)]" | "\($k)\tT\t" + .) catch empty),
      (try (.series // [] | to_entries[]
        | "T[\(.key + 1)] = \u0027\(.value.title // "" | tostring | gsub("[\u0000-\u001f\u007f]"; " ") | gsub("\u0027"; "\u0027\u0027"))\u0027"
        | "\($k)\tT\t" + .) catch empty),
      (try (.vars // {} | to_entries[] | select(.key | test("^[a-z][a-z0-9]{0,15}$")) | "\(.key)=\(.value // "" | tostring)"
        | split("\n")[] | "\($k)\tV\t" + .) catch empty)' "$1" |
    awk -F '\t' -v work="$2" '
      function done_chart() { if (dir != "") { printf "most = %d\n", most + 0 > (dir "/counts.gp"); close(dir "/counts.gp"); for (f in open) close(f); split("", open) } }
      { k = $1; tag = $2; sub(/^[^\t]*\t[^\t]*\t/, "") }
      tag == "H" { done_chart(); dir = work "/" k; most = 0; split("", rows); next }
      tag == "D" { f = dir "/data.dat" }
      tag == "R" { f = dir "/reps.dat" }
      tag == "T" { f = dir "/titles.gp" }
      tag == "V" { f = dir "/vars.txt" }
      tag == "S" { n = split($0, c, "\t"); f = dir "/s" (c[3] + 1) ".dat"; open[f] = 1; print c[1] "\t" c[2] > f; if (++rows[c[3]] > most) most = rows[c[3]]; next }
      { open[f] = 1; print > f }
      END { done_chart() }'
}

# charts_one RUN_DIR WORK METRIC NAME KIND TITLE WHY: draw one chart a verdict emitted
# (lib/run/series.jq), its files in WORK (charts_files), as charts/NAME-METRIC.svg through
# lib/report/charts/KIND.gp with its vars in vars.gp; a chart with a why, or that gnuplot cannot draw,
# becomes a not_drawn entry.
charts_one() {
  local dir=$1 work=$2 metric=$3 name=$4 kind=$5 title=$6 why=$7 kv
  if [[ ! $name =~ ^[a-z0-9-]{1,32}$ ]]; then
    charts_skip "$metric" "${name:0:32}" "its name is not a short lower-case word"
    return 0
  fi
  [[ -z $why ]] || {
    charts_skip "$metric" "$name" "$why"
    return 0
  }
  if [[ ! $kind =~ ^[a-z0-9-]{1,32}$ || ! -f $CHARTS_LIB/report/charts/$kind.gp ]]; then
    charts_skip "$metric" "$name" "no chart template lib/report/charts/${kind:0:32}.gp"
    return 0
  fi
  [[ -f $work/data.dat ]] || : >"$work/data.dat"
  [[ -f $work/reps.dat ]] || printf '0\tnull\tnull\n' >"$work/reps.dat"
  {
    printf '%s\n' "$(<"$work/counts.gp")"
    charts_gp_vars "title=$title" "rows=$(wc -l <"$work/data.dat")"
    [[ ! -f $work/titles.gp ]] || printf '%s\n' "$(<"$work/titles.gp")"
    if [[ -f $work/vars.txt ]]; then
      while IFS= read -r kv; do charts_gp_vars "$kv"; done <"$work/vars.txt"
    fi
  } >"$work/vars.gp"
  if ! charts_plot "$kind" "$work" "$dir/charts/$name-$metric.svg" 2>/dev/null; then
    charts_skip "$metric" "$name" "gnuplot could not draw it: $(charts_why_not "$work")"
    return 0
  fi
  charts_add "$metric" "$name" "$name-$metric.svg" "$title"
}

# charts_index OUT_JSON WHY SECONDS: write index.json from CHARTS_RECORDS.
charts_index() {
  local tool=null
  command -v gnuplot >/dev/null 2>&1 && tool=$(gnuplot --version 2>/dev/null | jq -Rs 'rtrimstr("\n")')
  # shellcheck disable=SC2016 # jq program
  jq -n --arg why "$2" --argjson seconds "$3" --argjson tool "$tool" '
    [$ARGS.positional | range(0; length; 5) as $i | .[$i:$i + 5]] as $r | {
      tool: $tool, seconds: $seconds, why: (if $why == "" then null else $why end),
      charts: [$r[] | select(.[0] == "chart") | {metric: .[1], kind: .[2], file: .[3], title: .[4]}],
      not_drawn: [$r[] | select(.[0] == "skip") | {metric: .[1], kind: .[2], why: .[3]}]}' \
    --args "${CHARTS_RECORDS[@]}" >"$1.tmp"
  mv -f "$1.tmp" "$1"
}

# charts_begin DIR: make DIR/charts (old pictures removed) and reset the records; set
# CHARTS_WORK (a temp folder, removed by charts_end) and CHARTS_T0.
charts_begin() {
  CHARTS_RECORDS=()
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

# charts_run RUN_DIR: draw every chart the metrics of RUN_DIR/results.json carry (.metrics[].charts,
# lib/run/series.jq), nothing else; index.json says what was drawn and why not.
charts_run() {
  local dir=$1 metric n i
  local -a fields works
  [[ -d $dir ]] || {
    error "no run folder '$dir'"
    return 1
  }
  # a run folder is anyone's data: none with a link in it
  common_run_folder "$dir" || return 1
  [[ -f $dir/results.json ]] || {
    error "no results '$dir/results.json'"
    return 1
  }
  jq -e '(.metrics | type) == "object"' "$dir/results.json" >/dev/null 2>&1 || {
    error "'$dir/results.json' has no metrics"
    return 1
  }
  charts_begin "$dir" || return 1
  if ! command -v gnuplot >/dev/null 2>&1; then
    charts_end "$dir" "gnuplot not installed"
    return 0
  fi
  if ! jq -e 'any(.metrics[]; has("charts"))' "$dir/results.json" >/dev/null; then
    charts_skip "" all "this run was recorded before its verdicts kept their charts in results.json"
    charts_end "$dir" "this run was recorded before its verdicts kept their charts in results.json"
    return 0
  fi
  # each chart's five fields (charts_fields) and its files in CHARTS_WORK/<its number>
  mapfile -d '' fields < <(charts_fields "$dir/results.json")
  n=$((${#fields[@]} / 5))
  works=()
  for ((i = 0; i < n; i++)); do works+=("$CHARTS_WORK/$i"); done
  if ((n > 0)); then
    mkdir -p "${works[@]}"
    charts_files "$dir/results.json" "$CHARTS_WORK"
  fi
  for ((i = 0; i < n; i++)); do
    metric=${fields[i * 5]}
    [[ $metric =~ ^[A-Za-z0-9_-]+$ ]] || continue
    charts_one "$dir" "${works[i]}" "${fields[@]:i*5:5}"
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
    # the change as compare.md writes it (format.jq's signed)
    verdicts=$(jq -r -L "$CHARTS_LIB" --argjson i "$i" 'include "format"; [.metrics[$i].versus[]? | select(.run != null and .verdict != null)
      | "\(.run) " + (if (.change_pct | type) == "number" then (.change_pct | signed) + " % " else "" end) + .verdict]
      | join(", ")' "$dir/compare.json" 2>/dev/null) || verdicts=''
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
        echo "usage: lib/report/charts.sh RUN_DIR | --compare DIR" >&2
        exit 2
      }
      charts_compare "$2"
      ;;
    '' | -*)
      echo "usage: lib/report/charts.sh RUN_DIR | --compare DIR" >&2
      exit 2
      ;;
    *)
      (($# == 1)) || {
        echo "usage: lib/report/charts.sh RUN_DIR | --compare DIR" >&2
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
