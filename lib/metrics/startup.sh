# lib/metrics/startup.sh: the startup metric (start command -> first login works) and its
# recovery row (start command -> the mounted client can write again). With client hosts
# (lib/run/clienthosts.sh) the login is tried from the first client host, through its address
# toward the server; its clock's offset from this one is read each round (raw/startup.N.clock.json)
# and taken out by the verdict. The recovery row stays this machine's mount. Sourced; functions
# only. Verdict: lib/metrics/startup.jq (both rows).

startup_describe() {
  local from=''
  if clienthosts_on; then from=", logins from client host ${CLIENT_HOSTS%% *}"; fi
  echo "$STARTUP_ROUNDS stop/start rounds of the test smbd$from"
}
startup_needs() { :; }
# once whatever REPEAT says: its STARTUP_ROUNDS rounds are its repeats (startup.jq), and its
# figure is the slowest round
startup_repeat() { echo once; }

startup_estimate() {
  if [[ ${KIT_MOUNTED:-no} == yes ]]; then echo $((STARTUP_ROUNDS * 6)); else echo $((STARTUP_ROUNDS * 2)); fi
}

# startup_probe_touch FILE: create FILE on the mount, 10 s at most; true when it worked.
startup_probe_touch() {
  timeout -k 2 10 touch "$1" 2>/dev/null
}

# startup_login_cmd VAR N: set the array VAR to round N's smb-wait-login command up to its
# target, and STARTUP_PAUSE to the seconds it needs to be trying before the start command: here
# 0.05; on the first client host the remote call's round trip twice (its clock read first, into
# raw/startup.N.clock.json; 1 s when it could not be read). 1 when the helper is missing.
startup_login_cmd() {
  local -n _c=$1
  local rtt
  STARTUP_PAUSE=0.05
  child_client_cmd _c smb-wait-login || return 1
  _c+=(-i 10 -t 45 "//$CHILD_SERVER/$SHARE_NAME")
  clienthosts_on || return 0
  STARTUP_PAUSE=1
  clienthosts_clock "${KIT_CLIENT_DIRS%%=*}" >"$RUN_DIR/raw/startup.$2.clock.json" 2>/dev/null || return 0
  rtt=$(jq -r '.rtt_ns' "$RUN_DIR/raw/startup.$2.clock.json") || return 0
  [[ $rtt =~ ^[0-9]+$ ]] || return 0
  STARTUP_PAUSE=$(awk -v r="$rtt" 'BEGIN { p = 2 * r / 1e9; printf "%.3f", (p < 0.05 ? 0.05 : p) }')
}

# startup_round N: one stop/start round: raw/startup.N.json (smb-wait-login's line, started
# before the start command) and raw/startup.N.times.json (realtime ns of the start command and
# of the mounted client's first write, the error of the round). 1 when the helper is missing.
startup_round() {
  local n=$1 raw=$RUN_DIR/raw t0 recovered='' err='' probe
  local -a h
  startup_login_cmd h "$n" || return 1
  if ! (service_stop) >>"$raw/startup.log" 2>&1; then
    err="the test server did not stop (see raw/startup.log)"
  else
    # port 445 pinned (the nft redirect's): libsmbclient would else also try 139, where another
    # Samba may answer while the test smbd is down (start-samba.sh pins it too)
    child_start 60 "$raw/startup.$n.json" "${h[@]}"
    sleep "$STARTUP_PAUSE"
    t0=$(date +%s%N)
    run_service_start >>"$raw/startup.log" 2>&1 || err="the start command failed (see raw/startup.log)"
    state_load || true
    if [[ $KIT_MOUNTED == yes && -z $err ]]; then
      probe=$MOUNT_POINT/startup-probe.$n
      child_partial "$probe"
      if common_wait_until 60 0.05 startup_probe_touch "$probe"; then
        recovered=$(date +%s%N)
      else
        err="the mounted client could not write within 60 s"
      fi
      child_partial_remove
    fi
    child_wait || true
  fi
  jq -cn --argjson t0 "${t0:-null}" --argjson rec "${recovered:-null}" --arg err "$err" \
    --arg mounted "${KIT_MOUNTED:-no}" --arg skip "${KIT_MOUNT_SKIP:-}" \
    '{start_ns: $t0, recovered_ns: $rec, error: (if $err == "" then null else $err end), mounted: $mounted,
      mount_skip: $skip}' >"$raw/startup.$n.times.json"
}

# startup_measure: STARTUP_ROUNDS rounds, a progress line after each.
startup_measure() {
  local i
  for ((i = 1; i <= STARTUP_ROUNDS; i++)); do
    startup_round "$i" || return 1
    log "      round $i: $(results_jq startup "round($i) | round_line" startup)"
  done
  service_is_running || warn "the test server is not running after the startup test: run ./start-samba.sh"
}

# startup_finish: the run is over (registry_finish; finished or stopped): a run stopped between
# a round's stop and its start left the test server stopped: start it again.
startup_finish() {
  service_is_running 2>/dev/null && return 0
  warn "the test server was stopped by the startup test: starting it again"
  run_service_start >/dev/null 2>&1 || warn "could not start the test server: run ./start-samba.sh"
}
