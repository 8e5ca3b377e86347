# lib/run/repeat.sh: REPEAT=N: every timed metric measured N times, one row per metric with the
# median, min-max and spread of its repeats (lib/run/repeat.jq). Sourced; functions only.
#
# Repeat K of a metric runs as a normal measurement into RUN/.repeat.K/ (raw/, metrics/), so
# the metrics, measure and their verdicts run unchanged, and a metric that reads another
# metric's run (cpu reads login's CPU evidence) reads the one of the same repeat. At the end
# (also when the run is stopped) each row is combined into metrics/ROW.json and every raw file
# moves to raw/ with the repeat after its measurement's name: NAME.json of repeat 2 becomes
# NAME.r2.json, NAME.SUB.evidence.json NAME.SUB.r2.evidence.json, NAME_bw.1.log
# NAME.r2_bw.1.log (docs/CONTRACTS.md, section 5).
#
# Order: interleaved (repeat 1 of every metric, then repeat 2, ...), so a slow minute of a shared
# machine spreads over every metric's repeats instead of moving one metric's whole sample; see
# docs/compare.md "Repeats". KIT_REPEAT_ORDER=blocks (not a setting: for measuring that choice) runs the
# repeats of one metric back to back.

# repeat_once METRIC: true for the metrics that run once whatever REPEAT says (NAME_repeat
# says 'once', lib/registry.sh).
repeat_once() {
  [[ $(registry_repeat "$1") == once ]]
}

# repeat_first_only METRIC: true for the metrics measured in the first round only (NAME_repeat
# says 'first').
repeat_first_only() {
  [[ $(registry_repeat "$1") == first ]]
}

# repeat_parse_opts ARG...: take '-r N' / '--repeat N' (before the metric names); set REPEAT
# (checked with the settings) and REPEAT_ARGS (the other arguments).
repeat_parse_opts() {
  REPEAT_ARGS=()
  while (($#)); do
    case $1 in
      -r | --repeat)
        (($# >= 2)) || usage_die "option '$1' needs a number"
        REPEAT=$2
        export REPEAT
        shift 2
        ;;
      -r[0-9]*)
        REPEAT=${1#-r}
        export REPEAT
        shift
        ;;
      *)
        REPEAT_ARGS+=("$1")
        shift
        ;;
    esac
  done
}

# repeat_plan: print the run's steps as 'METRIC K' lines (K=0: once, in the base folder).
repeat_plan() {
  local m k
  local -a once_before=() timed=() once_after=()
  for m in "${RUN_METRICS[@]}"; do
    if repeat_once "$m"; then
      if ((${#timed[@]} == 0)); then once_before+=("$m"); else once_after+=("$m"); fi
    else
      timed+=("$m")
    fi
  done
  for m in "${once_before[@]}"; do echo "$m 0"; done
  if [[ ${KIT_REPEAT_ORDER:-interleaved} == blocks ]]; then
    for m in "${timed[@]}"; do
      for ((k = 1; k <= REPEAT; k++)); do
        ((k == 1)) || ! repeat_first_only "$m" || continue
        echo "$m $k"
      done
    done
  else
    for ((k = 1; k <= REPEAT; k++)); do
      for m in "${timed[@]}"; do
        ((k == 1)) || ! repeat_first_only "$m" || continue
        echo "$m $k"
      done
    done
  fi
  for m in "${once_after[@]}"; do echo "$m 0"; done
}

# repeat_run: measure RUN_METRICS with REPEAT repeats into RUN_DIR (results_prepare made it),
# then combine the rows and move the raw files.
repeat_run() {
  local m k i=0 n last=
  local -a plan
  local -A steady=()
  REPEAT_BASE=$RUN_DIR REPEAT_EXTRA=0
  mapfile -t plan < <(repeat_plan)
  n=${#plan[@]}
  for k in "${plan[@]}"; do
    m=${k% *} k=${k#* }
    i=$((i + 1))
    if ((k == 0)); then
      RUN_DIR=$REPEAT_BASE
      run_one "$m" "$i" "$n"
      continue
    fi
    RUN_DIR=$REPEAT_BASE/.repeat.$k
    mkdir -p "$RUN_DIR/raw" "$RUN_DIR/metrics"
    # the steady fio run is made once per repeat for the metrics that judge it
    FIO_STEADY_DONE=${steady[$k]:-0}
    # a header where a round begins (interleaved: once a round), not a line before each step
    if [[ $k != "${last:-}" ]]; then log "${C_BOLD}── repeat $k of $REPEAT ──${C_OFF}"; fi
    last=$k
    repeat_measure "$m" "$k" "$i" "$n"
    steady[$k]=${FIO_STEADY_DONE:-0}
  done
  RUN_DIR=$REPEAT_BASE
  repeat_collect
  REPEAT_BASE=''
}

# repeat_measure METRIC K INDEX COUNT: run_one METRIC as repeat K into RUN_DIR; when other
# processes took CPU during it (repeat_disturbed), measure it once more, at most REPEAT extra
# measurements a run (REPEAT_EXTRA counts them): the replaced measurement's raw files move to
# REPEAT_BASE/raw with .rK.disturbedN after the measurement's name (login.r2.disturbed1.json),
# and RUN_DIR/disturbed.jsonl records {metric, repeat, reason, replaced[, tag, kept]} for the
# row (lib/run/repeat.jq disturbed_mark). A measurement disturbed again is kept, and recorded.
repeat_measure() {
  local m=$1 k=$2 why f was_steady=${FIO_STEADY_DONE:-0} try=0
  local -a before new names kept
  mapfile -t before < <(repeat_names "$RUN_DIR/raw")
  while :; do
    run_one "$m" "$3" "$4"
    mapfile -t new < <(repeat_names "$RUN_DIR/raw" | grep -vxF -f <(printf '%s\n' "${before[@]}" ''))
    why=$(cd "$RUN_DIR/raw" && repeat_disturbed "${new[@]}") || return 0
    if ((try > 0 || REPEAT_EXTRA >= REPEAT)); then
      jq -cn --arg m "$m" --argjson k "$k" --arg r "$why" '{metric: $m, repeat: $k, reason: $r, replaced: false}' \
        >>"$RUN_DIR/disturbed.jsonl"
      log "      repeat $k of $m was disturbed ($why) and is kept: $(if ((try > 0)); then echo "it was measured again once already"; else echo "the run's $REPEAT extra measurements are used up"; fi)"
      return 0
    fi
    try=$((try + 1)) REPEAT_EXTRA=$((REPEAT_EXTRA + 1))
    names=() kept=()
    for f in "${new[@]}"; do [[ $f != *.evidence.json ]] || names+=("${f%.evidence.json}"); done
    for f in "${new[@]}"; do
      kept+=("$(repeat_raw_name "$f" "$k.disturbed$try" "${names[@]}")")
      mv -f "$RUN_DIR/raw/$f" "$REPEAT_BASE/raw/${kept[-1]}"
    done
    jq -cn --arg m "$m" --argjson k "$k" --arg r "$why" --arg tag ".r$k.disturbed$try" \
      '{metric: $m, repeat: $k, reason: $r, replaced: true, tag: $tag, kept: $ARGS.positional}' \
      --args "${kept[@]}" >>"$RUN_DIR/disturbed.jsonl"
    FIO_STEADY_DONE=$was_steady
    RUN_LEFT=$((RUN_LEFT + $(registry_estimate "$m")))
    log "      repeat $k of $m measured again: $why (extra measurement $REPEAT_EXTRA of at most $REPEAT; the first is kept in raw/ with '.r$k.disturbed$try' in its files' names)"
  done
}

# repeat_names DIR: print the names of DIR's files, one a line.
repeat_names() {
  find "$1" -mindepth 1 -maxdepth 1 -type f -printf '%f\n' 2>/dev/null
}

# repeat_disturbed EVIDENCE...: print why the measurements of these raw/NAME.evidence.json files
# (other names are ignored) were disturbed, the most disturbed one's ("other processes used 1.2
# of 2 cores during login": lib/run/clientcpu.jq clientcpu_disturbed); 1 when none was.
repeat_disturbed() {
  local f why
  local -a ev=()
  for f in "$@"; do [[ $f != *.evidence.json || ! -s $f ]] || ev+=("$f"); done
  ((${#ev[@]} > 0)) || return 1
  why=$(jq -rR -L "$KIT_ROOT/lib" 'include "run/clientcpu";
    fromjson? // empty | (input_filename | split("/")[-1] | rtrimstr(".evidence.json")) as $w
    | clientcpu_split as $s | $s | clientcpu_disturbed | "\($s.others.share)\t\(.) during \($w)"' "${ev[@]}" |
    sort -t$'\t' -k1,1gr | head -n1 | cut -f2-) || return 1
  [[ -n $why ]] || return 1
  printf '%s\n' "$why"
}

# repeat_abort: the run stopped: put RUN_DIR back to the run's folder and keep what the
# finished repeats measured (called by run_exit).
repeat_abort() {
  [[ -n ${REPEAT_BASE:-} ]] || return 0
  RUN_DIR=$REPEAT_BASE
  repeat_collect 2>/dev/null || true
  REPEAT_BASE=''
}

# repeat_collect: combine every row of RUN_DIR/.repeat.*/metrics into RUN_DIR/metrics (with a
# progress line each), move the raw files to RUN_DIR/raw, remove the repeat folders.
repeat_collect() {
  local k d row line status text last
  local -a dirs rows files
  mapfile -t dirs < <(find "$RUN_DIR" -mindepth 1 -maxdepth 1 -type d -name '.repeat.*' -printf '%f\n' | sort -t. -k3,3n)
  ((${#dirs[@]} > 0)) || return 0
  # the rows in report order (lib/metrics/list), rows it does not name after them
  mapfile -t rows < <(for d in "${dirs[@]}"; do find "$RUN_DIR/$d/metrics" -name '*.json' -printf '%f\n'; done |
    sed 's/\.json$//' | sort -u | awk 'NR == FNR { order[$1] = NR; next } { print (($1 in order) ? order[$1] : 1000) "\t" $1 }' \
    <(registry_rows) - | sort -n | cut -f2)
  for row in "${rows[@]}"; do
    files=()
    last=${dirs[-1]#.repeat.}
    if repeat_first_only "$row"; then last=1; fi
    for ((k = 1; k <= last; k++)); do
      files+=(--rawfile "row:$(printf %04d "$k")" "$(repeat_file "$RUN_DIR/.repeat.$k/metrics/$row.json")")
      files+=(--rawfile "raw:$(printf %04d "$k")" "$(repeat_file "$RUN_DIR/.repeat.$k/raw/$row.json")")
    done
    # shellcheck disable=SC2016 # a jq program
    line=$(jq -rn -L "$KIT_ROOT/lib" --arg metric "$row" --arg skip '' --arg error '' \
      --argjson cpus "${RUN_CPUS:-1}" --argjson elapsed null "${files[@]}" \
      --argjson disturbed "$(cat "$RUN_DIR"/.repeat.*/disturbed.jsonl 2>/dev/null | jq -sc --arg m "$row" 'map(select(.metric == $m))')" '
      include "run/repeat"; include "format";
      [$ARGS.named | to_entries | sort_by(.key)[] | select(.key | startswith("row:")) | .value | fromjson? // null] as $objs
      | [$ARGS.named | to_entries | sort_by(.key)[] | select(.key | startswith("raw:")) | .value | fromjson? // null
         | select(type == "object") | ([[]] + [paths(type == "object" and has("per_s"))])[] as $p
         | (getpath($p) // {}) as $o | select(($o | type) == "object" and ($o.per_s | type) == "array")
         | [(if $p == [] then "operations" else $p | map(tostring) | join(" ") end), $o.per_s]] as $per_s
      | $objs | combine($per_s) | select(. != null) | disturbed_mark($disturbed) | "\(progress_line)\t\(tojson)"') || {
      warn "could not combine the repeats of '$row' (lib/run/repeat.jq failed)"
      continue
    }
    [[ -n $line ]] || continue
    IFS=$'\t' read -r status text _ <<<"$line"
    printf '%s\n' "${line##*$'\t'}" >"$RUN_DIR/metrics/$row.json"
    log "      $row, $last repeat$( ((last == 1)) || printf s): $(results_status_colour "$status") $text"
  done
  for d in "${dirs[@]}"; do
    repeat_move_raw "$RUN_DIR/$d/raw" "${d#.repeat.}" "$RUN_DIR/raw"
    rm -rf "${RUN_DIR:?}/$d"
  done
}

# repeat_file FILE: print FILE when it exists, else /dev/null (an empty file reads as null).
repeat_file() {
  if [[ -f $1 ]]; then printf '%s\n' "$1"; else echo /dev/null; fi
}

# repeat_raw_name FILE K MEASUREMENT...: print FILE's name with .rK after the longest
# MEASUREMENT it starts with (followed by '.' or '_'), else after its first part.
repeat_raw_name() {
  local f=$1 k=$2 best='' x
  shift 2
  for x in "$@"; do
    if [[ $f == "$x".* || $f == "$x"_* ]] && ((${#x} > ${#best})); then best=$x; fi
  done
  if [[ -z $best ]]; then
    best=${f%%.*}
    best=${best%%_*}
  fi
  printf '%s\n' "$best.r$k${f#"$best"}"
}

# repeat_move_raw DIR K DEST: move every file of DIR to DEST, named as repeat K
# (repeat_raw_name; the measurements are those with an evidence file).
repeat_move_raw() {
  local dir=$1 k=$2 dest=$3 f
  local -a names=()
  [[ -d $dir ]] || return 0
  for f in "$dir"/*.evidence.json; do
    [[ -e $f ]] || continue
    f=${f##*/}
    names+=("${f%.evidence.json}")
  done
  for f in "$dir"/*; do
    [[ -f $f ]] || continue
    mv -f "$f" "$dest/$(repeat_raw_name "${f##*/}" "$k" "${names[@]}")"
  done
}
