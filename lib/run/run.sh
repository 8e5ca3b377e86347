# lib/run/run.sh: the measuring loop of test-samba.sh: which metrics, is the kit started, one metric
# after the other with progress on stderr, and the one cleanup every way out of a run takes.
# Sourced; functions only. The metrics come from lib/registry.sh, the measuring from
# lib/run/measure.sh, the folder and verdicts from lib/run/results.sh.

# run_parse_args ARG...: set RUN_METRICS (array, run order, no repeats); usage_die on a bad name.
run_parse_args() {
  local arg m
  local -a all
  local -A want=()
  mapfile -t all < <(registry_metrics)
  for arg in "$@"; do
    case $arg in
      -*) usage_die "unknown option '$arg'" ;;
    esac
    [[ " ${all[*]} " == *" $arg "* ]] || usage_die "unknown metric '$arg': choose from ${all[*]}"
    want[$arg]=1
  done
  RUN_METRICS=()
  for m in "${all[@]}"; do
    if (($# == 0)) || [[ -n ${want[$m]:-} ]]; then RUN_METRICS+=("$m"); fi
  done
}

# run_why MESSAGE: say why the current metric could not be measured (its measure function then
# returns 1 for FAIL or 2 for SKIP); the runner puts MESSAGE in the metric's why.
run_why() {
  RUN_WHY=$*
}

# run_planned METRIC: true when METRIC is part of this run.
run_planned() {
  [[ " ${RUN_METRICS[*]} " == *" $1 "* ]]
}

# run_require_running: die with one line naming ./start-samba.sh unless the test server runs
# (a run and a sweep ask the same).
run_require_running() {
  if ! state_load 2>/dev/null; then
    die "the test server is not started (no '$KIT_STATE_FILE'): run ./start-samba.sh first"
  fi
  if ! service_is_running; then
    die "the test server is not running: run ./start-samba.sh first"
  fi
}

# run_require_started: run_require_running, and die when another run measures the same server
# (a lock in STATE_DIR, held until exit).
run_require_started() {
  run_require_running
  lock_take run && RUN_LOCK_FD=$LOCK_FD # lib/lock.sh: one lock for start, stop, cleanup, runs
  # what a killed run left in the clients' cgroup
  # shellcheck source=lib/probes/clientcpu.sh
  source "$KIT_ROOT/lib/probes/clientcpu.sh" && clientcpu_leftovers
}

# run_service_start: service_start in a subshell (it dies on failure) without the run's lock
# and saved-stderr file descriptors, so the new smbd holds neither; 1 when the start failed.
run_service_start() {
  (
    if [[ -n ${RUN_LOCK_FD:-} ]]; then exec {RUN_LOCK_FD}>&-; fi
    # nor the run's saved stderr: a pipe it held open would never end ('test-samba.sh | tee')
    common_close_saved_fds
    service_start
  )
}

# run_one METRIC INDEX COUNT: progress line, measure METRIC (unless it cannot run here), judge it.
run_one() {
  local m=$1 est t0=$SECONDS skip='' error='' rc=0 quiet=0 unmet=0
  RUN_CURRENT=$m
  est=$(registry_estimate "$m")
  # a metric the host cannot run says so once, not once a repeat (RUN_SKIP_SAID, made here on
  # the first call)
  [[ $(declare -p RUN_SKIP_SAID 2>/dev/null) == "declare -A"* ]] || declare -gA RUN_SKIP_SAID=()
  if skip=$(registry_unmet "$m"); then
    unmet=1
    [[ -z ${RUN_SKIP_SAID[$m]:-} ]] || quiet=1
    RUN_SKIP_SAID[$m]=1
  fi
  if ((quiet)); then
    :
  elif ((est == 0)); then
    log "${C_BOLD}[$2/$3] $m${C_OFF}: $("${m}_describe")"
  else
    log "${C_BOLD}[$2/$3] $m${C_OFF}: $("${m}_describe") (about $est s; run ends in about $(run_left) s)"
  fi
  RUN_WHY=''
  if ((unmet)); then
    :
  elif ! registry_prepare "$m"; then
    error=${RUN_WHY:-"could not prepare what '$m' needs (see the messages above)"}
  elif declare -F "${m}_measure" >/dev/null; then
    "${m}_measure" || rc=$?
    case $rc in
      0) ;;
      2) skip=${RUN_WHY:-not measured} ;;
      *) error=${RUN_WHY:-"the measurement could not be done (see the messages above and raw/$m*)"} ;;
    esac
  fi
  if ((quiet)); then
    results_verdict "$m" "$skip" "$error" $((SECONDS - t0)) 2>/dev/null || true
  else
    results_verdict "$m" "$skip" "$error" $((SECONDS - t0)) || true
  fi
  RUN_LEFT=$((RUN_LEFT - est))
  ((RUN_LEFT >= 0)) || RUN_LEFT=0
  if ((est > 0)); then
    RUN_EST_DONE=$((${RUN_EST_DONE:-0} + est))
    RUN_TOOK_DONE=$((${RUN_TOOK_DONE:-0} + SECONDS - t0))
  fi
  RUN_CURRENT=''
}

# run_left: print the seconds the run still needs: the estimates of what is left, scaled by
# how long the metrics so far took against their estimates (the probes around every
# measurement and a busy machine add time no estimate knows); by 0.5 to 3 at most, and only
# once those estimates add up to 30 s (the first metric alone is too short a sample).
run_left() {
  local est=${RUN_EST_DONE:-0} took=${RUN_TOOK_DONE:-0}
  if ((est < 30)); then
    echo "$RUN_LEFT"
  elif ((took * 2 < est)); then
    echo $((RUN_LEFT / 2))
  elif ((took > est * 3)); then
    echo $((RUN_LEFT * 3))
  else
    echo $((RUN_LEFT * took / est))
  fi
}

# run_estimate_all: print the expected seconds of the whole run: each metric once, or REPEAT
# times when it is repeated (lib/run/repeat.sh), the steady run counted once a round however many
# of the round's metrics read it.
run_estimate_all() {
  local m n=0 steady=0 times rounds=1
  ((REPEAT <= 1)) || rounds=$REPEAT
  for m in "${RUN_METRICS[@]}"; do
    times=1
    if ((REPEAT > 1)) && ! repeat_once "$m" && ! repeat_first_only "$m"; then times=$REPEAT; fi
    n=$((n + times * $(registry_estimate "$m")))
    if [[ " $("${m}_needs") " == *" steady "* ]] && ! fio_skip_reason >/dev/null; then steady=$((steady + times)); fi
  done
  ((steady <= rounds)) || n=$((n - (steady - rounds) * $(fio_steady_estimate)))
  echo "$n"
}

# run_metrics: measure RUN_METRICS into a new results folder; set RUN_DIR; 1 when a metric
# failed. The caller has loaded the settings, checked the kit and set the trap (run_exit).
run_metrics() {
  local m i=0 n=${#RUN_METRICS[@]}
  local -a summary
  # shellcheck disable=SC2034 # RUN_STARTED_AT and RUN_CPUS are read by lib/run/system.sh and lib/run/results.sh
  RUN_T0=$SECONDS RUN_STARTED_AT=$(date -u +%FT%TZ) RUN_CURRENT='' RUN_CPUS=$(nproc)
  RUN_EST_DONE=0 RUN_TOOK_DONE=0
  child_init
  results_prepare
  RUN_LEFT=$(run_estimate_all)
  log "test-samba: $n metric(s) against $KIT_UNC, about $RUN_LEFT s; results in ${RUN_DIR#"$KIT_ROOT"/}/"
  if ((REPEAT > 1)); then
    repeat_run
  else
    for m in "${RUN_METRICS[@]}"; do
      i=$((i + 1))
      run_one "$m" "$i" "$n"
    done
  fi
  registry_finish
  measure_finish
  rm -f "$RUN_DIR/INCOMPLETE"
  results_finish
  RUN_DONE=1
  mapfile -t summary < <(jq -L "$KIT_ROOT/lib" -r 'include "format"; .verdict, (.counts | counts_text)' "$RUN_DIR/results.json")
  log "done in $((SECONDS - RUN_T0)) s: ${summary[1]:-}"
  log "report: ${RUN_DIR#"$KIT_ROOT"/}/report.md"
  [[ ${summary[0]:-} == PASS ]]
}

# run_exit STATUS: the exit hook of a measuring run (common_traps_init): after a finished run
# nothing; otherwise (a signal, die, errexit) stop helpers and fio, remove half-written files,
# let each metric finish (NAME_finish: one that stops the server starts it again), and write the partial report
# marked incomplete. The status stays: 128+n after a signal, else at least 1.
run_exit() {
  local rc=$1 why
  [[ -z ${COMMON_SIGNAL:-} ]] || RUN_STOP_WHY="interrupted by the user ($COMMON_SIGNAL)"
  [[ ${RUN_DONE:-0} != 1 && -n ${RUN_DIR:-} && -d ${RUN_DIR:-} ]] || return "$rc"
  # a stop or cleanup names itself, also when bash lost the trap of its TERM (lib/lock.sh)
  if why=$(lock_stop_reason); then RUN_STOP_WHY=$why; fi
  log ""
  warn "${RUN_STOP_WHY:-the run stopped (exit status $rc)} during '${RUN_CURRENT:-setup}': stopping helpers and fio"
  child_stop_all
  repeat_abort
  registry_finish
  measure_finish
  echo "${RUN_STOP_WHY:-the run stopped (exit status $rc)} during '${RUN_CURRENT:-setup}'" >"$RUN_DIR/INCOMPLETE"
  rm -rf "$RUN_DIR"/.probes.* "$RUN_DIR"/.hold.fifo
  results_finish 2>/dev/null || true
  log "partial report: ${RUN_DIR#"$KIT_ROOT"/}/report.md (marked incomplete)"
  ((rc != 0)) || rc=1
  exit "$rc"
}
