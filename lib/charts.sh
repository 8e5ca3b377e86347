#!/usr/bin/env bash
# Usage: lib/charts.sh RUN_DIR
#        lib/charts.sh --compare DIR
# Summary: draw the charts of a run folder (or of a compare folder) as SVG with gnuplot
#
# RUN_DIR is results/<YYYYmmdd-HHMMSS>/. Reads RUN_DIR/results.json alone: each metric's charts
# (.metrics[].charts, emitted by its verdict through lib/series.jq), drawn through the gnuplot
# template lib/charts/KIND.gp each names; knows no metric. Writes RUN_DIR/charts/NAME-METRIC.svg
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

CHARTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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

# charts_why_not WORK: the last line gnuplot wrote in WORK (why it drew nothing).
charts_why_not() {
  grep -v '^ *$' "$1/gnuplot.log" 2>/dev/null | tail -n 1 | cut -c1-200
}

# charts_one RUN_DIR WORK METRIC CHART_JSON: draw one chart a verdict emitted (lib/series.jq) as
# charts/NAME-METRIC.svg through lib/charts/KIND.gp: its series as s1.dat .. sN.dat, its data as
# data.dat, its reps as reps.dat (a blank line between blocks), its vars in vars.gp; a chart with
# a why, or that gnuplot cannot draw, becomes a not_drawn entry.
charts_one() {
  local dir=$1 work=$2 metric=$3 chart=$4 name kind title why
  name=$(jq -r '.name // "" | tostring' <<<"$chart")
  kind=$(jq -r '.kind // "" | tostring' <<<"$chart")
  title=$(jq -r '.title // "" | tostring' <<<"$chart")
  why=$(jq -r '.why // "" | tostring' <<<"$chart")
  if [[ ! $name =~ ^[a-z0-9-]{1,32}$ ]]; then
    charts_skip "$metric" "${name:0:32}" "its name is not a short lower-case word"
    return 0
  fi
  [[ -z $why ]] || {
    charts_skip "$metric" "$name" "$why"
    return 0
  }
  if [[ ! $kind =~ ^[a-z0-9-]{1,32}$ || ! -f $CHARTS_LIB/charts/$kind.gp ]]; then
    charts_skip "$metric" "$name" "no chart template lib/charts/${kind:0:32}.gp"
    return 0
  fi
  charts_work "$work"
  # shellcheck disable=SC2016 # jq program
  jq -r 'def cell: if . == null then "null" else tostring end;
    (.series // [] | to_entries[] | .key as $i | .value
      | (.x // [range(1; (.y // []) | length + 1)]) as $x | .y // [] | to_entries[]
      | [$x[.key], .value] | map(cell) | "\(.[0])\t\(.[1])\t" + ($i | tostring)),
    (.data // [] | .[] | map(cell) | join("\t") | "\t\t" + . | "D" + .),
    (.reps // [] | .[] | ((.[] | map(cell) | join("\t") | "R\t\t" + .), "R\t\t"))' <<<"$chart" |
    awk -F '\t' -v dir="$work" '
      /^D\t\t/ { sub(/^D\t\t/, ""); print > (dir "/data.dat"); next }
      /^R\t\t/ { sub(/^R\t\t/, ""); print > (dir "/reps.dat"); next }
      { f = dir "/s" ($3 + 1) ".dat"; print $1 "\t" $2 > f; if (++rows[$3] > most) most = rows[$3] }
      END { printf "most = %d\n", most + 0 > (dir "/counts.gp") }'
  [[ -f $work/data.dat ]] || : >"$work/data.dat"
  [[ -f $work/reps.dat ]] || printf '0\tnull\tnull\n' >"$work/reps.dat"
  {
    cat "$work/counts.gp"
    charts_gp_vars "title=$title" "rows=$(wc -l <"$work/data.dat")"
    jq -r '.series // [] | "n = \(length)", "array T[\([length, 1] | max)]"' <<<"$chart"
    jq -r '.series // [] | to_entries[]
      | "T[\(.key + 1)] = \u0027\(.value.title // "" | tostring | gsub("[\u0000-\u001f\u007f]"; " ") | gsub("\u0027"; "\u0027\u0027"))\u0027"' <<<"$chart"
    jq -r '.vars // {} | to_entries[] | select(.key | test("^[a-z][a-z0-9]{0,15}$")) | "\(.key)=\(.value // "" | tostring)"' <<<"$chart" |
      while IFS= read -r kv; do charts_gp_vars "$kv"; done
  } >"$work/vars.gp"
  if ! charts_plot "$kind" "$work" "$dir/charts/$name-$metric.svg" 2>/dev/null; then
    charts_skip "$metric" "$name" "gnuplot could not draw it: $(charts_why_not "$work")"
    return 0
  fi
  charts_add "$metric" "$name" "$name-$metric.svg" "$title"
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

# charts_run RUN_DIR: draw every chart the metrics of RUN_DIR/results.json carry (.metrics[].charts,
# lib/series.jq), nothing else; index.json says what was drawn and why not.
charts_run() {
  local dir=$1 metric line
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
  while IFS=$'\t' read -r metric line; do
    [[ $metric =~ ^[A-Za-z0-9_-]+$ ]] || continue
    charts_one "$dir" "$CHARTS_WORK/chart" "$metric" "$line"
  done < <(jq -r '.metrics[] | select(.status != "SKIP") | .metric as $m | (.charts // [])[] | "\($m)\t\(tojson)"' "$dir/results.json")
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
