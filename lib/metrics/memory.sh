# lib/metrics/memory.sh: the memory metric: MEMORY_CONNECTIONS connections held open (smb-hold),
# PSS of all smbd processes before and during (pss-sum on the service's cgroup); with client
# hosts (lib/run/clienthosts.sh) the connections are split over the hosts, each holding its share
# at once in a share folder of its own (memory-test/TAG). Sourced; functions only.
# Verdict: lib/metrics/memory.jq.

memory_describe() {
  local on=''
  if clienthosts_on; then on=" from $(wc -w <<<"$CLIENT_HOSTS") client hosts"; fi
  echo "$MEMORY_CONNECTIONS connections held open$on"
}
memory_estimate() { echo $((MEMORY_CONNECTIONS / 40 + 3)); }
memory_needs() { :; }

# memory_pss OUT: one pss-sum line for the service into OUT; 1 on failure.
memory_pss() {
  local h
  local -a cg
  h=$(child_helper pss-sum) || return 1
  mapfile -t cg < <(child_cg_args)
  timeout 20 "$h" "${cg[@]}" >"$1" 2>/dev/null && [[ -s $1 ]]
}

# memory_hold_cmd: print the client hosts' hold command, one word a line (nothing without client
# hosts); makes each host's folder on the share.
memory_hold_cmd() {
  local pair
  clienthosts_on || return 0
  child_share_dir memory-test >/dev/null
  for pair in $KIT_CLIENT_DIRS; do child_share_dir "memory-test/$(clienthosts_tag "${pair%%=*}")" >/dev/null; done
  printf '%s\n' "$KIT_ROOT/lib/run/clienthosts-fanout.sh" --hold --split "$MEMORY_CONNECTIONS" --machine "${KIT_CLIENT_MACHINE:-}" \
    "$RUN_DIR/raw/memory.hold" "$CLIENT_SHELL" "$KIT_CLIENT_DIRS" smb-hold -n @SPLIT@ "$(clienthosts_unc)/memory-test/@HOST@"
}

# memory_measure: PSS before, the connections held, PSS during (raw/memory.*.json); 2 (SKIP)
# when pss-sum cannot read the service's memory.
memory_measure() {
  local raw=$RUN_DIR/raw limit out i
  local -a cmd=()
  out=$raw/memory.hold.json
  if clienthosts_on; then
    clienthosts_ready || return 1
  else
    child_helper smb-hold >/dev/null || return 1
  fi
  # the clients of the metric before must have left before the baseline is taken
  child_smbd_settle "$raw/memory.settle.json" 15 || true
  if ! memory_pss "$raw/memory.pss-before.json"; then
    run_why "helpers/pss-sum could not read the service's memory"
    return 2
  fi
  limit=$((60 + MEMORY_CONNECTIONS / 5))
  # the hold is one measurement (raw/memory.hold.evidence.json: the server's view, the CPU)
  measure_begin memory.hold
  mapfile -t cmd < <(memory_hold_cmd)
  child_hold_start $((limit + 30)) "$MEMORY_CONNECTIONS" "$out" "${cmd[@]}"
  for ((i = 0; i < limit * 10; i++)); do
    [[ -s $out ]] && break
    child_running || break
    sleep 0.1
  done
  if [[ -s $out ]] && jq -e '.held > 0' "$out" >/dev/null 2>&1; then
    sleep 1
    memory_pss "$raw/memory.pss-during.json" || true
  fi
  child_hold_stop
  measure_end memory.hold 0 $((limit + 30)) smb-hold
}
