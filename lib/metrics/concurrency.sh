# lib/metrics/concurrency.sh: the concurrency metric: steps of CONCURRENCY_LEVELS clients, own
# connection each, 4 KiB random reads one at a time on fio/data.0 (smb-readers). Each step also
# records the smbd CPU, so cpu can use it when fio cannot run. Sourced; functions only.
# shellcheck disable=SC2034 # RUN_PARTIAL is read by lib/run.sh

# concurrency_data_file: make sure fio/data.0 of DATA_FILE_MB exists on the share (through the
# mount when there is one, else written into SHARE_DIR on the server); 1 on failure.
concurrency_data_file() {
  local f=$SHARE_DIR/fio/data.0 size
  if mount_options_now >/dev/null 2>&1; then
    fio_make_files 1
    return
  fi
  size=$(stat -c %s "$f" 2>/dev/null) || size=0
  ((size >= DATA_FILE_MB * 1048576)) && return 0
  run_share_dir fio >/dev/null
  log "      creating fio/data.0 ($DATA_FILE_MB MB) in the share folder (no cifs mount here)"
  RUN_PARTIAL=("$f")
  run_child $((DATA_FILE_MB / 20 + 60)) "$RUN_DIR/raw/data-create.log" \
    dd if=/dev/urandom of="$f" bs=1M count="$DATA_FILE_MB" conv=fsync status=none || {
    rm -f "$f"
    RUN_PARTIAL=()
    return 1
  }
  RUN_PARTIAL=()
  chown --reference="$SHARE_DIR" "$f" 2>/dev/null || true
}

# concurrency_step CLIENTS: one step; set CONC_ROW (JSON row) and leave raw/concurrency.N.json.
concurrency_step() {
  local n=$1 h out=$RUN_DIR/raw/concurrency.$1.json forks_before forks_after cpu=null
  h=$(run_helper smb-readers) || return 1
  forks_before=$(grep -c 'fork() failed' "$LOG_DIR/log.smbd" 2>/dev/null) || forks_before=0
  run_cpu_snapshot "$RUN_DIR/raw/concurrency.$n-cpu.before.json" || true
  run_child $((DURATION * 3 + 60 + n / 4)) "$out" \
    "$h" -A "$KIT_CREDENTIALS" -c "$n" -d "$DURATION" -b 4096 "$KIT_UNC/fio/data.0" || true
  if run_cpu_snapshot "$RUN_DIR/raw/concurrency.$n-cpu.after.json"; then
    cpu=$(run_cpu_used "$RUN_DIR/raw/concurrency.$n-cpu.before.json" "$RUN_DIR/raw/concurrency.$n-cpu.after.json" 2>/dev/null) || cpu=null
  fi
  forks_after=$(grep -c 'fork() failed' "$LOG_DIR/log.smbd" 2>/dev/null) || forks_after=0
  if ! jq -e '.helper' "$out" >/dev/null 2>&1; then
    CONC_ROW=$(jq -cn --argjson n "$n" '{clients: $n, connected: null, errors: null, iops: null,
      p50_ms: null, p99_ms: null, kept_up: false, why: "smb-readers gave no result"}')
    return 0
  fi
  CONC_ROW=$(jq -c --argjson n "$n" --argjson max "$TARGET_LATENCY_P99_MAX_MS" --argjson cpu "${cpu:-null}" \
    --argjson forks $((forks_after - forks_before)) '
    (.connected // 0) as $c | (.errors // 0) as $e | (.lat_ms.p99 // null) as $p
    | {clients: $n, connected: $c, errors: $e, ops: (.ops // 0), iops: .rate_per_s, p50_ms: .lat_ms.p50, p99_ms: $p,
       per_client_iops: (if .per_client then "\(.per_client.min_iops | round)-\(.per_client.max_iops | round)" else null end),
       cpu_us: $cpu, cpu_per_read_us: (if $cpu != null and (.ops // 0) > 0 then $cpu / .ops else null end),
       kept_up: ($c == $n and $e == 0 and $p != null and $p <= $max and .ok == true),
       why: ([(if $c < $n then "\($n - $c) of \($n) clients could not connect"
                + (if $forks > 0 then ": fork() failed in log.smbd" elif .first_error then ": \(.first_error)" else "" end)
               else empty end),
             (if $e > 0 then "\($e) requests failed" + (if .first_error then ": \(.first_error)" else "" end) else empty end),
             (if $p == null then "no latency measured" elif $p > $max then "p99 \($p * 10 | round / 10) ms > \($max) ms" else empty end),
             (if .ok != true and .error then .error else empty end)] | join("; "))}' "$out")
}

# metric_concurrency: the largest step that kept up, with every smaller step keeping up too.
metric_concurrency() {
  local level rows='[]' best status why warnings
  concurrency_data_file || {
    run_result concurrency FAIL null clients "$TARGET_CONCURRENCY_MIN_CLIENTS" ">=" "could not create the data file fio/data.0"
    return 0
  }
  run_drop_caches
  for level in $CONCURRENCY_LEVELS; do
    concurrency_step "$level" || return 1
    rows=$(jq -c --argjson r "$CONC_ROW" '. + [$r]' <<<"$rows")
    log "      step of $level client(s): $(jq -r '"\(.connected // "?") connected, \(.iops // 0 | round) IOPS, p99 \(.p99_ms // "—") ms: " + (if .kept_up then "kept up" else "did not keep up (\(.why))" end)' <<<"$CONC_ROW")"
    # a step where clients could not even connect makes larger steps pointless
    if [[ $(jq -r '.connected != null and .connected < .clients' <<<"$CONC_ROW") == true ]]; then
      break
    fi
  done
  best=$(jq '(first(.[] | select(.kept_up | not)) // null) as $bad
    | [.[] | select(.kept_up and ($bad == null or .clients < $bad.clients)) | .clients] | max // 0' <<<"$rows")
  status=$(run_judge "$best" ">=" "$TARGET_CONCURRENCY_MIN_CLIENTS")
  why=''
  if [[ $status == FAIL ]]; then
    why=$(jq -r --argjson t "$TARGET_CONCURRENCY_MIN_CLIENTS" '(first(.[] | select(.kept_up | not)) // null) as $bad
      | if $bad then "the step of \($bad.clients) client(s) did not keep up: \($bad.why)"
        else "the largest step tried (\(.[-1].clients)) is below the target \($t)" end' <<<"$rows")
  fi
  warnings=$(jq -c --argjson c "$(nproc)" 'if $c <= 4 and (map(.clients) | max) > $c then
    ["the reader clients ran on the same \($c) CPUs as smbd: on so small a machine steps above \($c) clients measure the clients as much as smbd"] else [] end' <<<"$rows")
  run_result concurrency "$status" "$best" clients "$TARGET_CONCURRENCY_MIN_CLIENTS" ">=" "$why" \
    "$(jq -c --argjson max "$TARGET_LATENCY_P99_MAX_MS" '{steps: ., notes: ["A step keeps up when every client connected, no request failed and p99 <= \($max) ms."]}' <<<"$rows")" \
    "$warnings"
}
