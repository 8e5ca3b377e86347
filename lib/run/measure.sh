# lib/run/measure.sh: the one way a metric runs a measuring command: under its time limit, its output
# and the evidence around it (wall time, exit status, and what each probe of lib/probes/list
# records) under raw/. The interface is in docs/CONTRACTS.md. Sourced; functions only.

# measure_load ROOT: source the probes named in ROOT/lib/probes/list; set MEASURE_PROBES.
measure_load() {
  local p
  MEASURE_PROBES=()
  while read -r p _; do
    [[ -n $p && $p != \#* ]] || continue
    # shellcheck source=/dev/null
    source "$1/lib/probes/$p.sh"
    MEASURE_PROBES+=("$p")
  done <"$1/lib/probes/list"
}

# measure_estimate SECONDS: print SECONDS (what a measuring command itself takes) plus what the
# probes around one measurement add: two settled smbstatus snapshots (each two readings 1.1 s
# apart at least) and the CPU reads. About 3 s in a default run on a 2-CPU machine (login took
# 9 s for a 5 s storm); without them the first "run ends in about" said 221 s for a 305 s run.
measure_estimate() { echo $(($1 + 3)); }

# measure_enter: in the child, just before it execs the command: each probe's optional enter.
measure_enter() {
  local p
  for p in "${MEASURE_PROBES[@]}"; do
    if declare -F "probe_${p}_enter" >/dev/null; then
      "probe_${p}_enter" "$MEASURE_NAME" "$MEASURE_WORK/$p" >/dev/null 2>&1 || true
    fi
  done
}

# measure [-o SUFFIX] NAME LIMIT_S -- CMD...: run CMD (stdout raw/NAME.SUFFIX, default .json;
# stderr raw/NAME.err) between the probes' before and after; write raw/NAME.evidence.json;
# return CMD's exit status (124: LIMIT_S was reached).
measure() {
  local suffix=.json name limit rc=0
  if [[ $1 == -o ]]; then
    suffix=$2
    shift 2
  fi
  name=$1 limit=$2
  [[ $3 == -- ]] || die "measure: '--' expected before the command"
  shift 3
  measure_begin "$name"
  child_start -e measure_enter -2 "$RUN_DIR/raw/$name.err" "$limit" "$RUN_DIR/raw/$name$suffix" "$@"
  child_wait || rc=$?
  measure_end "$name" "$rc" "$limit" "$1"
  return "$rc"
}

# measure_begin NAME: the probes' before of measurement NAME, for a command that is not run by
# 'measure' (smb-hold, which stays until told to go); start it with measure_enter in its child,
# then call measure_end.
measure_begin() {
  local name=$1 p
  MEASURE_NAME=$name
  MEASURE_WORK=$(mktemp -d "$RUN_DIR/.probes.XXXXXX")
  for p in "${MEASURE_PROBES[@]}"; do
    mkdir "$MEASURE_WORK/$p"
    "probe_${p}_before" "$name" "$MEASURE_WORK/$p" 2>>"$RUN_DIR/raw/$name.err" || true
  done
  MEASURE_STARTED=$(date -u +%FT%TZ)
  MEASURE_T0=$EPOCHREALTIME
}

# measure_end NAME RC LIMIT_S CMD: the probes' after (reverse order) and raw/NAME.evidence.json
# of the command CMD that ended with status RC.
measure_end() {
  local name=$1 rc=$2 limit=$3 t1 i p
  local -a parts=()
  t1=$EPOCHREALTIME
  for ((i = ${#MEASURE_PROBES[@]} - 1; i >= 0; i--)); do
    p=${MEASURE_PROBES[i]}
    "probe_${p}_after" "$name" "$MEASURE_WORK/$p" 2>>"$RUN_DIR/raw/$name.err" || true
    [[ -f $MEASURE_WORK/$p/result.json ]] || : >"$MEASURE_WORK/$p/result.json"
  done
  for p in "${MEASURE_PROBES[@]}"; do parts+=(--rawfile "probe:$p" "$MEASURE_WORK/$p/result.json"); done
  [[ -s $RUN_DIR/raw/$name.err ]] || rm -f "$RUN_DIR/raw/$name.err"
  # shellcheck disable=SC2016 # a jq program
  jq -cn --arg name "$name" --arg cmd "${4##*/}" --argjson limit "$limit" --arg started "$MEASURE_STARTED" \
    --arg t0 "$MEASURE_T0" --arg t1 "$t1" --argjson rc "$rc" "${parts[@]}" '
    {name: $name, command: $cmd, limit_s: $limit, started_at: $started,
     wall_s: ((($t1 | tonumber) - ($t0 | tonumber)) * 1000 | round / 1000),
     exit_status: $rc, timed_out: ($rc == 124),
     probes: (reduce ($ARGS.named | to_entries[] | select(.key | startswith("probe:"))) as $e ({};
       .[$e.key[6:]] = ($e.value | fromjson? // null
         | if type == "object" and (.available | type) == "boolean" then .
           else {available: false, reason: "probe \u0027\($e.key[6:])\u0027 wrote no result"} end)))}' \
    >"$RUN_DIR/raw/$name.evidence.json"
  rm -rf "$MEASURE_WORK"
  MEASURE_WORK=''
}

# measure_finish: the run is over (finished or stopped): each probe's optional finish (remove
# what it made for the run, e.g. a cgroup).
measure_finish() {
  local p
  for p in "${MEASURE_PROBES[@]}"; do
    if declare -F "probe_${p}_finish" >/dev/null; then "probe_${p}_finish" >/dev/null 2>&1 || true; fi
  done
}

# measure_check_cgcpu: print why the service's CPU cannot be read (nothing, 1 when it can).
measure_check_cgcpu() {
  local work
  work=$(mktemp -d "$RUN_DIR/.probes.XXXXXX")
  probe_cgcpu_before check "$work" 2>/dev/null || true
  if [[ ! -s $work/before.json ]]; then
    rm -rf "$work"
    echo "helpers/cgcpu could not read the service's CPU time"
    return 0
  fi
  rm -rf "$work"
  return 1
}
