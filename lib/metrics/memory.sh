# lib/metrics/memory.sh: the memory metric: MEMORY_CONNECTIONS connections held open (smb-hold),
# PSS of all smbd processes before and during (pss-sum on the service's cgroup), per connection;
# RSS of one connection's process for comparison. Sourced; functions only.

# memory_pss OUT: one pss-sum line for the service into OUT; 1 on failure.
memory_pss() {
  local h
  local -a cg
  h=$(run_helper pss-sum) || return 1
  mapfile -t cg < <(run_cg_args)
  timeout 20 "$h" "${cg[@]}" >"$1" 2>/dev/null && jq -e '.pss_kb | type == "number"' "$1" >/dev/null 2>&1
}

# metric_memory: PSS per held connection, MB (<= TARGET_MEMORY_PER_CONN_MAX_MB).
metric_memory() {
  local raw=$RUN_DIR/raw out limit pid i status why='' value held warnings='[]'
  out=$raw/memory-hold.json
  run_helper smb-hold >/dev/null || return 1
  memory_pss "$raw/memory-pss.before.json" || {
    run_skip memory MB "$TARGET_MEMORY_PER_CONN_MAX_MB" "<=" "helpers/pss-sum could not read the service's memory"
    return 0
  }
  limit=$((60 + MEMORY_CONNECTIONS / 5))
  run_hold_start $((limit + 30)) "$MEMORY_CONNECTIONS" "$out"
  pid=$RUN_CHILD
  for ((i = 0; i < limit * 10; i++)); do
    [[ -s $out ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -s $out ]] && jq -e '.held > 0' "$out" >/dev/null 2>&1; then
    sleep 1
    memory_pss "$raw/memory-pss.during.json" || true
  fi
  run_hold_stop
  [[ -s $raw/memory-hold.err ]] || rm -f "$raw/memory-hold.err"
  if ! jq -e '.helper' "$out" >/dev/null 2>&1; then
    run_result memory FAIL null MB "$TARGET_MEMORY_PER_CONN_MAX_MB" "<=" "smb-hold gave no result within $limit s (see raw/memory-hold.err)"
    return 0
  fi
  held=$(jq '.held // 0' "$out")
  if ((held == 0)) || [[ ! -s $raw/memory-pss.during.json ]]; then
    run_result memory FAIL null MB "$TARGET_MEMORY_PER_CONN_MAX_MB" "<=" \
      "no connection could be held: $(jq -r '.first_error // .error // "?"' "$out")"
    return 0
  fi
  value=$(jq -n --slurpfile a "$raw/memory-pss.before.json" --slurpfile b "$raw/memory-pss.during.json" \
    --argjson n "$held" '($b[0].pss_kb - $a[0].pss_kb) / $n / 1024')
  status=$(run_judge "$value" "<=" "$TARGET_MEMORY_PER_CONN_MAX_MB")
  [[ $status == PASS ]] || why="$(printf '%.2f' "$value") MB of PSS per connection is above $TARGET_MEMORY_PER_CONN_MAX_MB MB"
  if ((held < MEMORY_CONNECTIONS)); then
    status=FAIL why+="${why:+; }only $held of $MEMORY_CONNECTIONS connections could be held: $(jq -r '.first_error // "?"' "$out")"
  fi
  run_result memory "$status" "$value" MB "$TARGET_MEMORY_PER_CONN_MAX_MB" "<=" "$why" \
    "$(jq -cn --slurpfile a "$raw/memory-pss.before.json" --slurpfile b "$raw/memory-pss.during.json" \
      --slurpfile h "$out" '($b[0].processes - $a[0].processes) as $dp | {
      asked: $h[0].asked, held: $h[0].held, pss_before_kb: $a[0].pss_kb, pss_during_kb: $b[0].pss_kb,
      processes_before: $a[0].processes, processes_during: $b[0].processes,
      per_conn_mb: (($b[0].pss_kb - $a[0].pss_kb) / $h[0].held / 1024),
      rss_one_mb: (if $dp > 0 then ($b[0].rss_kb - $a[0].rss_kb) / $dp / 1024 else null end),
      max_rss_mb: ($b[0].max_rss_kb / 1024),
      notes: ["PSS divides shared memory between the processes that share it, so it adds up; RSS, what top shows, counts shared memory in every process. Plan RAM as connected clients x MB per connection, with twice that as headroom."]}')" \
    "$warnings"
}
