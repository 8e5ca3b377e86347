# lib/run.sh: test-samba.sh's measuring run: check the kit is started, make the results folder,
# run the chosen metrics in order with progress on stderr, write the report, handle Ctrl-C.
# Sourced; functions only. Needs common, settings, state, service, mount; sources lib/fio.sh,
# lib/report.sh and lib/metrics/*.sh itself.

# run_all_metrics: print every metric name in the order they run (the guide's order).
run_all_metrics() {
  printf '%s\n' startup login seqwrite seqread randread randwrite latency errors metadata \
    concurrency cpu memory
}

# run_parse_args ARG...: set RUN_METRICS (array, run order, no repeats); usage_die on a bad name.
run_parse_args() {
  local arg m
  local -A want=()
  for arg in "$@"; do
    case $arg in
      -*) usage_die "unknown option '$arg'" ;;
    esac
    run_all_metrics | grep -qxF -- "$arg" ||
      usage_die "unknown metric '$arg': choose from $(run_all_metrics | tr '\n' ' ')"
    want[$arg]=1
  done
  RUN_METRICS=()
  while IFS= read -r m; do
    if (($# == 0)) || [[ -n ${want[$m]:-} ]]; then RUN_METRICS+=("$m"); fi
  done < <(run_all_metrics)
}

# run_require_started: die with one line naming ./start-samba.sh unless the test server runs;
# die when another run measures the same server (a lock in STATE_DIR, held until exit).
run_require_started() {
  if ! state_load 2>/dev/null; then
    die "the test server is not started (no '$KIT_STATE_FILE'): run ./start-samba.sh first"
  fi
  if ! service_is_running; then
    die "the test server is not running: run ./start-samba.sh first"
  fi
  lock_take run && RUN_LOCK_FD=$LOCK_FD # lib/lock.sh: one lock for start, stop, cleanup, runs
}

# run_service_start: service_start in a subshell (it dies on failure) without the run's lock
# file descriptor, so the new smbd does not hold the lock; 1 when the start failed.
run_service_start() {
  (
    if [[ -n ${RUN_LOCK_FD:-} ]]; then exec {RUN_LOCK_FD}>&-; fi
    service_start
  )
}

# run_helper NAME: print the path of helper NAME; 1 with a message when it is not built.
run_helper() {
  local h=$KIT_ROOT/helpers/$1
  [[ -x $h ]] && {
    printf '%s\n' "$h"
    return 0
  }
  RUN_WHY="helper '$1' is not built: run 'make -C helpers' (or ./start-samba.sh)"
  printf '%s\n' "$RUN_WHY" >&2
  return 1
}

# run_child LIMIT_S OUT CMD...: run CMD in the background under timeout, stdout to OUT, stderr
# appended to raw/NAME.err; wait for it (Ctrl-C stops it); return its exit status.
run_child() {
  local limit=$1 out=$2 rc=0
  shift 2
  timeout -k 5 "$limit" "$@" >"$out" 2>>"${out%.*}.err" </dev/null &
  RUN_CHILD=$!
  wait "$RUN_CHILD" || rc=$?
  RUN_CHILD=''
  [[ -s ${out%.*}.err ]] || rm -f "${out%.*}.err"
  return "$rc"
}

# run_stop_child PID: end the running child (timeout forwards TERM to its process group); after
# 10 s, KILL the group.
run_stop_child() {
  local pid=$1 i
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  # timeout leads its own process group: take the whole group down
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

# run_hold_start LIMIT_S CONNECTIONS OUT: start smb-hold on the share's memory-test folder in the
# background, its stdin a pipe this shell keeps open (closing it lets the helper go); set
# RUN_CHILD. 1 when the helper is missing.
run_hold_start() {
  local h fifo
  h=$(run_helper smb-hold) || return 1
  RUN_PARTIAL=("$(run_share_dir memory-test)")
  fifo=$RUN_DIR/.hold.fifo
  rm -f "$fifo"
  mkfifo -m 0600 "$fifo"
  timeout -k 5 "$1" "$h" -A "$KIT_CREDENTIALS" -n "$2" "$KIT_UNC/memory-test" \
    >"$3" 2>>"${3%.*}.err" <"$fifo" &
  RUN_CHILD=$!
  exec {RUN_HOLD_FD}>"$fifo"
  rm -f "$fifo"
}

# run_hold_stop: let smb-hold go (stdin EOF, then TERM), wait for it, remove its folder.
run_hold_stop() {
  if [[ -n ${RUN_HOLD_FD:-} ]]; then
    exec {RUN_HOLD_FD}>&-
    RUN_HOLD_FD=''
  fi
  run_stop_child "${RUN_CHILD:-}"
  [[ -z ${RUN_CHILD:-} ]] || wait "$RUN_CHILD" 2>/dev/null || true
  RUN_CHILD=''
  rm -rf --one-file-system -- "$SHARE_DIR/memory-test"
  RUN_PARTIAL=()
}

# run_cg_args: print the cgcpu/pss-sum target options for the service (one word a line).
run_cg_args() {
  if [[ ${KIT_CGROUP_SOURCE:-proc} != proc && -n ${KIT_CGROUP:-} && -d $KIT_CGROUP ]]; then
    printf '%s\n' -g "$KIT_CGROUP"
  else
    printf '%s\n' -p "$(service_main_pid)"
  fi
}

# run_cpu_snapshot OUT: write one cgcpu line (CPU time of all smbd so far) to OUT; 1 on failure.
run_cpu_snapshot() {
  local h
  local -a cg
  h=$(run_helper cgcpu) || return 1
  mapfile -t cg < <(run_cg_args)
  timeout 10 "$h" "${cg[@]}" >"$1" 2>/dev/null && jq -e '.cpu_us | type == "number"' "$1" >/dev/null 2>&1
}

# run_cpu_used BEFORE AFTER: print the microseconds of smbd CPU between two cgcpu lines.
run_cpu_used() {
  jq -n --slurpfile a "$1" --slurpfile b "$2" '$b[0].cpu_us - $a[0].cpu_us'
}

# run_judge VALUE OP TARGET: print PASS or FAIL (OP is >= or <=).
run_judge() {
  awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
    ok = (op == ">=") ? (v + 0 >= t + 0) : (v + 0 <= t + 0); print ok ? "PASS" : "FAIL" }'
}

# run_save METRIC JSON: store the metric object as metrics/METRIC.json (checked with jq).
run_save() {
  local tmp
  tmp=$(mktemp "$RUN_DIR/metrics/.$1.XXXXXX")
  if printf '%s\n' "$2" | jq -e --arg m "$1" 'select(.metric == $m)' >"$tmp" 2>/dev/null; then
    mv -f "$tmp" "$RUN_DIR/metrics/$1.json"
  else
    rm -f "$tmp"
    warn "metric '$1' produced no valid result"
  fi
}

# run_result METRIC STATUS VALUE UNIT TARGET OP WHY [DETAILS_JSON [WARNINGS_JSON [TARGET_TEXT]]]:
# build and store a metric object (VALUE may be 'null').
run_result() {
  local target_text=${10:-}
  run_save "$1" "$(jq -cn --arg m "$1" --arg s "$2" --argjson v "$3" --arg u "$4" \
    --argjson t "$5" --arg op "$6" --arg why "$7" --argjson d "${8:-{\}}" \
    --argjson w "${9:-[]}" --arg tt "$target_text" \
    '{metric: $m, status: $s, value: $v, unit: $u, target: $t, target_op: $op, why: $why,
      details: $d, warnings: $w} + (if $tt == "" then {} else {target_text: $tt} end)')"
}

# run_skip METRIC UNIT TARGET OP WHY: store a SKIP object.
run_skip() {
  run_result "$1" SKIP null "$2" "$3" "$4" "$5"
}

# run_small_host CLIENTS: true when CLIENTS client processes share a small machine with smbd.
run_small_host() {
  local n
  n=$(nproc)
  ((n <= 4 && $1 > n))
}

# run_share_dir SUB: make SHARE_DIR/SUB owned like SHARE_DIR (a test folder); print its path.
run_share_dir() {
  local d=$SHARE_DIR/$1
  mkdir -p "$d"
  chown --reference="$SHARE_DIR" "$d" 2>/dev/null || true
  printf '%s\n' "$d"
}

# run_drop_caches: with DROP_CACHES=yes, flush and empty the page cache (server side).
run_drop_caches() {
  [[ $DROP_CACHES == yes ]] || return 0
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || warn "could not drop the page cache"
}

# run_estimate METRIC: print the expected seconds of METRIC (for the progress lines).
run_estimate() {
  local n=0 l
  case $1 in
    seqwrite | seqread | randread | randwrite | latency | errors)
      if fio_skip_reason >/dev/null; then
        echo 0
        return 0
      fi
      ;;
  esac
  case $1 in
    startup) n=$((STARTUP_ROUNDS * 2)) && [[ ${KIT_MOUNTED:-no} != yes ]] || n=$((STARTUP_ROUNDS * 6)) ;;
    login) n=$((DURATION + 1)) ;;
    seqwrite) n=$((DURATION + 2)) && ! fio_needs_file 0 || n=$((n + DATA_FILE_MB / 400)) ;;
    seqread | randread | randwrite) n=$((DURATION + 1)) ;;
    latency | errors) n=$((STEADY_DONE ? 0 : DURATION + 1)) ;;
    metadata) n=$((DURATION + DURATION / 3 + 1)) ;;
    concurrency)
      for l in $CONCURRENCY_LEVELS; do n=$((n + DURATION + 1 + l / 40)); done
      [[ -e $SHARE_DIR/fio/data.0 ]] || n=$((n + DATA_FILE_MB / 200))
      ;;
    cpu) n=$((CPU_NEEDS_RUN ? DURATION + 2 : 0)) ;;
    memory) n=$((MEMORY_CONNECTIONS / 40 + 3)) ;;
  esac
  ((n >= 1)) || n=1
  printf '%s\n' "$n"
}

# run_describe METRIC: print a short line of what METRIC does now.
run_describe() {
  case $1 in
    startup) echo "$STARTUP_ROUNDS stop/start rounds of the test smbd" ;;
    login) echo "$WORKERS clients logging in for $DURATION s" ;;
    seqwrite | seqread) echo "fio, 1 MiB blocks, $SEQ_STREAMS stream(s) x $SEQ_QUEUE_DEPTH in flight, $DURATION s" ;;
    randread | randwrite) echo "fio, 4 KiB blocks, $RANDOM_JOBS jobs x $RANDOM_QUEUE_DEPTH in flight, $DURATION s" ;;
    latency | errors) if ((STEADY_DONE)); then echo "from the steady run"; else echo "steady run: $LOAD_RATE requests/s for $DURATION s"; fi ;;
    metadata) echo "$WORKERS clients creating ${SMALL_FILE_KB} KiB files for $DURATION s, then deleting them" ;;
    concurrency) echo "steps of $(echo "$CONCURRENCY_LEVELS" | tr -s ' ' ',') clients, $DURATION s each" ;;
    cpu) if ((CPU_NEEDS_RUN)); then echo "smbd CPU per request (needs a run of its own)"; else echo "smbd CPU per request, from the runs before"; fi ;;
    memory) echo "$MEMORY_CONNECTIONS connections held open" ;;
  esac
}

# run_show METRIC: print the stored result of METRIC as one progress line.
run_show() {
  local f=$RUN_DIR/metrics/$1.json line status colour
  [[ -f $f ]] || {
    log "      $1: no result"
    return 0
  }
  line=$(jq -r '
    def n: if type == "number" then (if . == floor then tostring elif fabs >= 100 then round | tostring
      else (. * 100 | round) / 100 | tostring end) else "—" end;
    "\(.status)\t" + (if .status == "SKIP" then "(\(.why))" elif .value == null then "(\(.why))"
      else "\(.value | n) \(.unit)  (target \(.target_text // "\(.target_op | sub(">="; "≥") | sub("<="; "≤")) \(.target | n) \(.unit)"))"
        + (if .status == "FAIL" and (.why // "") != "" then ": \(.why)" else "" end) end)
      + (if (.elapsed_s // 0) > 1 then " [\(.elapsed_s) s]" else "" end)' "$f")
  status=${line%%$'\t'*}
  case $status in
    PASS) colour=$C_GREEN ;;
    FAIL) colour=$C_RED ;;
    *) colour=$C_YELLOW ;;
  esac
  log "      $1: ${colour}${status}${C_OFF} ${line#*$'\t'}"
}

# run_system_json: write system.json (host, versions, how the service runs, mount, sessions).
run_system_json() {
  local opts mounted=no skip=${KIT_MOUNT_SKIP:-} sessions changed requested
  if opts=$(mount_options_now 2>/dev/null); then mounted=yes skip=''; else opts=''; fi
  [[ $mounted == yes || -n $skip ]] || skip="not mounted"
  sessions=$(run_sessions_check) || sessions=null
  changed=$(settings_diff_defaults | jq -Rn '[inputs]')
  requested=$(printf '%s\n' "${RUN_METRICS[@]}" | jq -Rn '[inputs]')
  jq -n --arg host "$(uname -n)" --argjson cpus "$(nproc)" \
    --argjson ram "$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" \
    --arg kernel "$(uname -r)" --arg samba "$(smbd -V 2>/dev/null | sed 's/^Version //')" \
    --arg fio "$(fio --version 2>/dev/null || true)" --arg mode "${KIT_SERVICE_MODE:-}" \
    --arg unit "${KIT_UNIT:-}" --arg cg "${KIT_CGROUP:-}" --arg cgs "${KIT_CGROUP_SOURCE:-}" \
    --arg selinux "${KIT_SELINUX:-$(getenforce 2>/dev/null | tr '[:upper:]' '[:lower:]' || echo disabled)}" \
    --arg mounted "$mounted" --arg skip "$skip" --arg opts "$opts" --argjson sessions "$sessions" \
    --argjson changed "$changed" --argjson requested "$requested" --arg started "$RUN_STARTED_AT" \
    --arg cmd "test-samba.sh ${RUN_ARGS[*]}" --arg unc "$KIT_UNC" --arg enc "$ENCRYPTION" --arg sig "$SIGNING" \
    '{host: $host, cpus: $cpus, ram_mb: $ram, kernel: $kernel, samba_version: $samba,
      fio_version: (if $fio == "" then null else $fio end), service_mode: $mode, unit: $unit,
      cgroup: $cg, cgroup_source: $cgs, selinux: $selinux, share: $unc, mounted: $mounted,
      mount_skip: $skip, mount_opts: $opts, sessions: $sessions, settings_changed: $changed,
      run: {started_at: $started, command: $cmd, requested: $requested}}
    | .warnings = [
        (if $sessions == null then "the signing and encryption of the sessions could not be checked (smbstatus during a held connection)" else empty end),
        (if $enc == "yes" and $sessions != null and ($sessions.encryption | test("(^|, )-($|,)")) then "ENCRYPTION=yes, but smbstatus shows sessions without encryption: \($sessions.encryption) (was ./start-samba.sh run after the last change of a Samba setting?)" else empty end),
        (if $enc == "no" and $sessions != null and ($sessions.encryption | test("^-$") | not) then "ENCRYPTION=no, but smbstatus shows encrypted sessions: \($sessions.encryption) (was ./start-samba.sh run after the last change of a Samba setting?)" else empty end),
        (if $sig == "mandatory" and $sessions != null and ($sessions.signing | test("(^|, )-($|,)")) then "SIGNING=mandatory, but smbstatus shows unsigned sessions: \($sessions.signing) (was ./start-samba.sh run after the last change of a Samba setting?)" else empty end)
      ]' >"$RUN_DIR/system.json"
}

# run_sessions_check: hold one connection (30 s at most to get it) and print what smbstatus says about its signing and
# encryption (and the mount's session) as a JSON object; 1 when it could not be checked.
run_sessions_check() {
  local out=$RUN_DIR/raw/sessions-hold.json i json
  run_hold_start 60 1 "$out" 2>/dev/null || return 1
  for ((i = 0; i < 300; i++)); do
    [[ -s $out ]] && break
    sleep 0.1
  done
  json=$(timeout 10 smbstatus -s "$KIT_CONF" -b --json 2>/dev/null) || json=''
  if [[ -z $json ]]; then
    # a Samba built without JSON support: the plain table (Encryption and Signing are the last
    # two columns)
    json=$(timeout 10 smbstatus -s "$KIT_CONF" -b 2>/dev/null | awk '
      /^-----/ { body = 1; next }
      body && NF >= 6 { printf "{\"session_dialect\":\"%s\",\"encryption\":{\"cipher\":\"%s\"},\"signing\":{\"cipher\":\"%s\"}}\n", $(NF - 2), $(NF - 1), $NF }' |
      jq -sc 'if length == 0 then empty else {sessions: (to_entries | map({(.key | tostring): .value}) | add)} end') || json=''
  fi
  run_hold_stop
  [[ -s ${out%.*}.err ]] || rm -f "${out%.*}.err"
  [[ -n $json ]] || return 1
  printf '%s\n' "$json" >"$RUN_DIR/raw/smbstatus.json"
  printf '%s\n' "$json" | jq -c '
    [.sessions // {} | to_entries[].value] as $s
    | if ($s | length) == 0 then error("no sessions") else . end
    | {checked_with: "smbstatus -b during a held connection", sessions: ($s | length),
       dialects: ([$s[].session_dialect // empty] | unique),
       signing: ([$s[] | (.signing.cipher // "-") + (if (.signing.degree // "") == "" or .signing.degree == "none" then "" else " (\(.signing.degree))" end)] | unique | join(", ")),
       encryption: ([$s[] | (.encryption.cipher // "-") + (if (.encryption.degree // "") == "" or .encryption.degree == "none" then "" else " (\(.encryption.degree))" end)] | unique | join(", "))}' 2>/dev/null
}

# run_prepare: make the results folder, settings.env and system.json; set RUN_DIR.
run_prepare() {
  local ts
  ts=$(date +%Y%m%d-%H%M%S)
  RUN_DIR=$RESULTS_DIR/$ts
  while [[ -e $RUN_DIR ]]; do
    sleep 1
    ts=$(date +%Y%m%d-%H%M%S)
    RUN_DIR=$RESULTS_DIR/$ts
  done
  mkdir -p "$RUN_DIR/raw" "$RUN_DIR/metrics"
  echo "the run has not finished" >"$RUN_DIR/INCOMPLETE"
  settings_dump >"$RUN_DIR/settings.env"
  run_system_json
}

# run_finish: record the end in system.json, write results.json and report.md.
run_finish() {
  local tmp
  tmp=$(mktemp "$RUN_DIR/.system.XXXXXX")
  jq --arg fin "$(date -u +%FT%TZ)" --argjson wall "$((SECONDS - RUN_T0))" \
    '.run.finished_at = $fin | .run.wall_s = $wall' "$RUN_DIR/system.json" >"$tmp" &&
    mv -f "$tmp" "$RUN_DIR/system.json"
  rm -f "$tmp"
  report_write "$RUN_DIR"
}

# run_interrupt SIGNAL: Ctrl-C or TERM: end helpers and fio, remove half-written files, make
# sure the server runs, write the partial report marked incomplete, exit 1.
run_interrupt() {
  trap '' INT TERM
  log ""
  warn "interrupted ($1) during '${RUN_CURRENT:-setup}': stopping helpers and fio"
  if [[ -n ${RUN_HOLD_FD:-} ]]; then exec {RUN_HOLD_FD}>&-; fi
  run_stop_child "${RUN_CHILD:-}"
  [[ -z ${RUN_CHILD:-} ]] || wait "$RUN_CHILD" 2>/dev/null || true
  run_cleanup_partial
  if ! service_is_running 2>/dev/null; then
    warn "the test server was stopped by the startup test: starting it again"
    run_service_start >/dev/null 2>&1 || warn "could not start the test server: run ./start-samba.sh"
  fi
  if [[ -n ${RUN_DIR:-} && -d $RUN_DIR ]]; then
    echo "interrupted by the user ($1) during '${RUN_CURRENT:-setup}'" >"$RUN_DIR/INCOMPLETE"
    run_finish || true
    log "partial report: ${RUN_DIR#"$KIT_ROOT"/}/report.md (marked incomplete)"
  fi
  exit 1
}

# run_cleanup_partial: remove files that a stopped run left half-written on the share.
run_cleanup_partial() {
  local f
  for f in "${RUN_PARTIAL[@]}"; do
    if [[ -n $f ]]; then rm -rf --one-file-system -- "$f" 2>/dev/null || true; fi
  done
  RUN_PARTIAL=()
}

# run_one METRIC INDEX COUNT: progress line, run the metric, show its result.
run_one() {
  local m=$1 est t0=$SECONDS f tmp
  RUN_CURRENT=$m
  est=$(run_estimate "$m")
  if ((est == 0)); then
    log "${C_BOLD}[$2/$3] $m${C_OFF}: $(run_describe "$m")"
  else
    log "${C_BOLD}[$2/$3] $m${C_OFF}: $(run_describe "$m") (about $est s; run ends in about $RUN_LEFT s)"
  fi
  RUN_WHY=''
  if ! "metric_$m"; then
    [[ -f $RUN_DIR/metrics/$m.json ]] ||
      run_result "$m" FAIL null "" null "" "${RUN_WHY:-the measurement could not be done (see the messages above and raw/$m*)}"
  fi
  f=$RUN_DIR/metrics/$m.json
  if [[ -f $f ]] && tmp=$(jq -c --argjson e $((SECONDS - t0)) '.elapsed_s = $e' "$f"); then
    printf '%s\n' "$tmp" >"$f"
  fi
  RUN_LEFT=$((RUN_LEFT - est))
  ((RUN_LEFT >= 0)) || RUN_LEFT=0
  run_show "$m"
  [[ $m != startup ]] || run_show recovery
  RUN_CURRENT=''
}

# run_main ARG...: test-samba.sh [METRIC...]: measure, write results/<ts>/, exit 0/1 (2 usage).
run_main() {
  local m i=0 n status
  RUN_ARGS=("$@")
  run_parse_args "$@"
  settings_load "$KIT_ROOT"
  common_require_root
  run_require_started
  common_source_libs "$KIT_ROOT" fio report
  for m in "$KIT_ROOT"/lib/metrics/*.sh; do
    # shellcheck source=/dev/null
    source "$m"
  done
  common_have jq || die "'jq' is missing: run ./start-samba.sh (it installs what the kit needs)"
  RUN_T0=$SECONDS RUN_STARTED_AT=$(date -u +%FT%TZ) RUN_CHILD='' RUN_CURRENT='' RUN_PARTIAL=()
  STEADY_DONE=0 CPU_NEEDS_RUN=0
  trap 'run_interrupt INT' INT
  trap 'run_interrupt TERM' TERM
  run_prepare
  n=${#RUN_METRICS[@]}
  cpu_plan
  RUN_LEFT=0
  for m in "${RUN_METRICS[@]}"; do
    # latency and errors share one steady run
    [[ $m == errors && " ${RUN_METRICS[*]} " == *' latency '* ]] && continue
    RUN_LEFT=$((RUN_LEFT + $(run_estimate "$m")))
  done
  log "test-samba: ${n} metric(s) against $KIT_UNC, about $RUN_LEFT s; results in ${RUN_DIR#"$KIT_ROOT"/}/"
  for m in "${RUN_METRICS[@]}"; do
    i=$((i + 1))
    run_one "$m" "$i" "$n"
  done
  rm -f "$RUN_DIR/INCOMPLETE"
  run_finish
  trap - INT TERM
  status=$(jq -r '.verdict' "$RUN_DIR/results.json")
  log "done in $((SECONDS - RUN_T0)) s: $(jq -r '.counts | "\(.PASS) PASS, \(.FAIL) FAIL, \(.SKIP) SKIP"' "$RUN_DIR/results.json")"
  log "report: ${RUN_DIR#"$KIT_ROOT"/}/report.md"
  [[ $status == PASS ]]
}
