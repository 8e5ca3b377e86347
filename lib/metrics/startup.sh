# lib/metrics/startup.sh: the startup metric (start command -> first login works) and its
# recovery row (start command -> the mounted client can write again). Sourced; functions only.
# shellcheck disable=SC2034 # RUN_CHILD and RUN_PARTIAL are read by lib/run.sh

# startup_probe_touch FILE: create FILE on the mount, 10 s at most; true when it worked.
startup_probe_touch() {
  timeout -k 2 10 touch "$1" 2>/dev/null
}

# startup_round N: one stop/start round; set STARTUP_ROW to a JSON object {round, login_ms,
# attempts, recovery_s, error}. Times count from the realtime ns just before service_start.
startup_round() {
  local n=$1 h out=$RUN_DIR/raw/startup-wait-login.$1.json pid t0 first ok recovery=null
  local err='' probe rc=0
  h=$(run_helper smb-wait-login) || return 1
  if ! (service_stop) >>"$RUN_DIR/raw/startup.log" 2>&1; then
    STARTUP_ROW=$(jq -cn --argjson n "$n" '{round: $n, login_ms: null, attempts: null, recovery_s: null,
      error: "the test server did not stop (see raw/startup.log)"}')
    return 0
  fi
  timeout -k 5 60 "$h" -A "$KIT_CREDENTIALS" -i 10 -t 45 "$KIT_UNC" >"$out" 2>>"$RUN_DIR/raw/startup.err" </dev/null &
  pid=$!
  RUN_CHILD=$pid
  sleep 0.05
  t0=$(date +%s%N)
  if ! run_service_start >>"$RUN_DIR/raw/startup.log" 2>&1; then
    err="the start command failed (see raw/startup.log)"
  fi
  state_load || true
  if [[ $KIT_MOUNTED == yes && -z $err ]]; then
    probe=$MOUNT_POINT/startup-probe.$n
    RUN_PARTIAL=("$probe")
    if common_wait_until 60 0.05 startup_probe_touch "$probe"; then
      recovery=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
      rm -f "$probe"
    else
      err="the mounted client could not write within 60 s"
    fi
    RUN_PARTIAL=()
  fi
  wait "$pid" || rc=$?
  RUN_CHILD=''
  first=$(jq -r '.first_success_ns // empty' "$out" 2>/dev/null) || first=''
  ok=null
  if [[ -n $first ]]; then
    ok=$(awk -v a="$t0" -v b="$first" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
  else
    [[ -n $err ]] || err="no login worked within 45 s: $(jq -r '.last_error // .error // "no helper line"' "$out" 2>/dev/null || echo "helper exit $rc")"
  fi
  STARTUP_ROW=$(jq -cn --argjson n "$n" --argjson l "$ok" --argjson r "$recovery" --arg e "$err" \
    --argjson a "$(jq '.attempts // null' "$out" 2>/dev/null || echo null)" \
    '{round: $n, login_ms: $l, attempts: $a, recovery_s: $r} + (if $e == "" then {} else {error: $e} end)')
}

# metric_startup: STARTUP_ROUNDS rounds; writes metrics/startup.json and metrics/recovery.json.
metric_startup() {
  local i rounds='[]' row worst status why mounted=${KIT_MOUNTED:-no} rworst rstatus rwhy
  for ((i = 1; i <= STARTUP_ROUNDS; i++)); do
    startup_round "$i" || return 1
    row=$STARTUP_ROW
    rounds=$(jq -c --argjson r "$row" '. + [$r]' <<<"$rounds")
    log "      round $i: $(jq -r '"login works after \(.login_ms // "—") ms" + (if .recovery_s then ", client writes again after \(.recovery_s) s" else "" end) + (if .error then " (\(.error))" else "" end)' <<<"$row")"
  done
  [[ -s $RUN_DIR/raw/startup.err ]] || rm -f "$RUN_DIR/raw/startup.err"
  service_is_running || warn "the test server is not running after the startup test: run ./start-samba.sh"
  worst=$(jq '[.[].login_ms] | if any(. == null) then null else max end' <<<"$rounds")
  if [[ $worst == null ]]; then
    status=FAIL why=$(jq -r '[.[] | select(.login_ms == null) | .error][0]' <<<"$rounds")
  else
    status=$(run_judge "$worst" "<=" "$TARGET_STARTUP_LOGIN_MAX_MS")
    why=''
    [[ $status == PASS ]] || why="the slowest round took $worst ms"
  fi
  run_result startup "$status" "$worst" ms "$TARGET_STARTUP_LOGIN_MAX_MS" "<=" "$why" \
    "$(jq -c '{rounds: map({round, login_ms, attempts} + (if .error then {error} else {} end)),
      median_ms: ([.[].login_ms | select(. != null)] | sort | if length > 0 then .[length / 2 | floor] else null end),
      notes: ["Timed from the realtime clock just before the start command to the first successful login of smb-wait-login (trying every 10 ms from before the start). The result is the slowest round."]}' <<<"$rounds")"
  if [[ $mounted != yes ]]; then
    run_skip recovery s "$TARGET_RECOVERY_MAX_S" "<=" "${KIT_MOUNT_SKIP:-the share is not mounted}"
    return 0
  fi
  rworst=$(jq '[.[].recovery_s] | if any(. == null) then null else max end' <<<"$rounds")
  if [[ $rworst == null ]]; then
    rstatus=FAIL rwhy="the mounted client could not write again within 60 s"
  else
    rstatus=$(run_judge "$rworst" "<=" "$TARGET_RECOVERY_MAX_S")
    rwhy=''
    [[ $rstatus == PASS ]] || rwhy="the slowest round took $rworst s"
  fi
  run_result recovery "$rstatus" "$rworst" s "$TARGET_RECOVERY_MAX_S" "<=" "$rwhy" \
    "$(jq -c '{rounds: map({round, recovery_s}), notes: ["Timed from the start command until `touch` of a new file on the mount worked (tried every 50 ms, each try 10 s at most)."]}' <<<"$rounds")"
}
