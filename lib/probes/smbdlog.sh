# lib/probes/smbdlog.sh: evidence probe: new 'fork() failed' lines in the test smbd's log.smbd
# during a measurement (clients refused for want of processes). Sourced; functions only.

# probe_smbdlog_count: print the 'fork() failed' lines of log.smbd so far (0 without a log).
probe_smbdlog_count() {
  local n
  n=$(grep -c 'fork() failed' "$LOG_DIR/log.smbd" 2>/dev/null) || true
  echo "${n:-0}"
}

# probe_smbdlog_before NAME WORK: WORK/before: the count before.
probe_smbdlog_before() {
  probe_smbdlog_count >"$2/before"
}

# probe_smbdlog_after NAME WORK: WORK/result.json: {available, fork_failed}.
probe_smbdlog_after() {
  local before after
  before=$(cat "$2/before" 2>/dev/null) after=$(probe_smbdlog_count)
  [[ $before =~ ^[0-9]+$ ]] || before=$after
  printf '{"available":true,"fork_failed":%d}\n' $((after - before)) >"$2/result.json"
}
