# lib/metrics/cpu.sh: the cpu metric: smbd CPU per 4 KiB read (randread run), per GB read (seqread
# run) and per login (login run), from the service's cgroup via helpers/cgcpu. Without the cifs
# mount, CPU per read comes from an smb-readers run instead, and the report says so.
# Sourced; functions only.
# shellcheck disable=SC2034 # CPU_NEEDS_RUN is read by lib/run.sh

# cpu_plan: set CPU_NEEDS_RUN=1 when the cpu metric will need a run of its own.
cpu_plan() {
  local m have=' '
  for m in "${RUN_METRICS[@]}"; do have+="$m "; done
  CPU_NEEDS_RUN=0
  [[ $have == *' cpu '* ]] || return 0
  [[ $have == *' login '* ]] || CPU_NEEDS_RUN=1
  if fio_skip_reason >/dev/null; then
    [[ $have == *' concurrency '* ]] || CPU_NEEDS_RUN=1
  else
    [[ $have == *' randread '* ]] || CPU_NEEDS_RUN=1
  fi
}

# cpu_per_read: print {per_read_us, reads, cpu_us, method} (or nothing when it cannot be had).
cpu_per_read() {
  local raw=$RUN_DIR/raw reason used h
  if [[ -s $raw/randread-cpu.before.json && -s $raw/randread-cpu.after.json && -s $raw/randread.fio.json ]]; then
    used=$(run_cpu_used "$raw/randread-cpu.before.json" "$raw/randread-cpu.after.json")
    jq -c --argjson u "$used" '.jobs[0].read.total_ios as $n | select($n > 0)
      | {per_read_us: ($u / $n), reads: $n, cpu_us: $u, method: "the randread run (fio through the cifs mount)"}' "$raw/randread.fio.json"
    return 0
  fi
  reason=$(fio_skip_reason) || reason="the randread run has no CPU record"
  # a concurrency step that kept up, the one with the most reads
  if compgen -G "$raw/concurrency.*-cpu.after.json" >/dev/null; then
    used=$(jq -cs --arg why "$reason" '[.[] | select(.kept_up and .cpu_us != null and .ops > 0)] | max_by(.ops) // empty
      | {per_read_us: (.cpu_us / .ops), reads: .ops, cpu_us: .cpu_us,
         method: "the \(.clients)-client concurrency step (smb-readers: 4 KiB random reads over libsmbclient, one connection per client), because randread could not run: \($why)"}' \
      <<<"$(jq -c '.details.steps[]' "$RUN_DIR/metrics/concurrency.json" 2>/dev/null)")
    if [[ -n $used ]]; then
      printf '%s\n' "$used"
      return 0
    fi
  fi
  h=$(run_helper smb-readers) || return 0
  concurrency_data_file || return 0
  run_drop_caches
  run_cpu_snapshot "$raw/cpu-readers-cpu.before.json" || return 0
  run_child $((DURATION * 3 + 60)) "$raw/cpu-readers.json" \
    "$h" -A "$KIT_CREDENTIALS" -c 4 -d "$DURATION" -b 4096 "$KIT_UNC/fio/data.0" || true
  run_cpu_snapshot "$raw/cpu-readers-cpu.after.json" || return 0
  used=$(run_cpu_used "$raw/cpu-readers-cpu.before.json" "$raw/cpu-readers-cpu.after.json")
  jq -c --argjson u "$used" --arg why "$reason" 'select(.ok == true and .ops > 0)
    | {per_read_us: ($u / .ops), reads: .ops, cpu_us: $u,
       method: "a run of its own with 4 smb-readers clients (4 KiB random reads over libsmbclient), because randread could not run: \($why)"}' \
    "$raw/cpu-readers.json"
}

# cpu_per_gb: print {per_gb_ms, gb, cpu_us} from the seqread run, or a {why} object.
cpu_per_gb() {
  local raw=$RUN_DIR/raw used reason
  if [[ -s $raw/seqread-cpu.before.json && -s $raw/seqread-cpu.after.json && -s $raw/seqread.fio.json ]]; then
    used=$(run_cpu_used "$raw/seqread-cpu.before.json" "$raw/seqread-cpu.after.json")
    jq -c --argjson u "$used" '(.jobs[0].read.io_bytes / 1e9) as $gb | select($gb > 0)
      | {per_gb_ms: ($u / 1000 / $gb), gb: $gb, cpu_us: $u}' "$raw/seqread.fio.json"
    return 0
  fi
  reason=$(fio_skip_reason) || reason="seqread was not part of this run"
  jq -cn --arg why "$reason" '{per_gb_ms: null, why: "not measured: seqread could not run here (\($why))"}'
}

# metric_cpu: smbd CPU per 4 KiB read (<= TARGET_CPU_PER_READ_MAX_US), with per GB and per login.
metric_cpu() {
  local read gb login value status why=''
  if ! run_cpu_snapshot "$RUN_DIR/raw/cpu-check.json"; then
    run_skip cpu µs "$TARGET_CPU_PER_READ_MAX_US" "<=" "helpers/cgcpu could not read the service's CPU time"
    return 0
  fi
  [[ ${LOGIN_DONE:-0} == 1 ]] || login_measure || true
  login=$(login_cpu_per_login_ms)
  read=$(cpu_per_read)
  gb=$(cpu_per_gb)
  if [[ -z $read ]]; then
    run_skip cpu µs "$TARGET_CPU_PER_READ_MAX_US" "<=" "no read run could be measured here ($(fio_skip_reason || echo 'randread gave no result'))"
    return 0
  fi
  value=$(jq '.per_read_us' <<<"$read")
  status=$(run_judge "$value" "<=" "$TARGET_CPU_PER_READ_MAX_US")
  [[ $status == PASS ]] || why="$(printf '%.1f' "$value") µs of smbd CPU per 4 KiB read is above $TARGET_CPU_PER_READ_MAX_US µs"
  run_result cpu "$status" "$value" µs "$TARGET_CPU_PER_READ_MAX_US" "<=" "$why" \
    "$(jq -cn --argjson r "$read" --argjson g "$gb" --arg l "$login" --arg src "${KIT_CGROUP_SOURCE:-}" '{
      per_read_us: $r.per_read_us, reads: $r.reads, per_gb_ms: $g.per_gb_ms,
      per_login_ms: (if $l == "" then null else ($l | tonumber) end), cpu_source: $src,
      notes: (["CPU per read measured on \($r.method)."]
        + (if $g.why then ["CPU per GB: \($g.why)."] else [] end)
        + ["Cores needed = requests per second x µs per request / 1,000,000."])}')"
}
