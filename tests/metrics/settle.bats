#!/usr/bin/env bats
# tests/metrics/settle.bats: what a measurement waits for before its "before" snapshot, on a
# stand-in cgroup whose process list shrinks as a real smbd's does when clients leave: the next
# concurrency step and the memory baseline wait until the smbd processes of the measurement
# before have gone (bounded); the startup probe pins port 445.
# shellcheck disable=SC2034,SC2317 # settings are read by the sourced libraries; stubs are called by them

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd jq
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" common-traps settings registry run/child run/measure run/fio run/results run/run
  registry_load
  settings_defaults
  common_colour_init
  RUN_DIR=$BATS_TEST_TMPDIR/run
  mkdir -p "$RUN_DIR/raw" "$RUN_DIR/metrics"
  KIT_CGROUP=$BATS_TEST_TMPDIR/cg KIT_CGROUP_SOURCE=cgroup2 KIT_MOUNTED=no
  mkdir -p "$KIT_CGROUP"
  procs 3
  child_init
}

teardown() {
  [[ -z ${SHRINK_PID:-} ]] || kill "$SHRINK_PID" 2>/dev/null || true
}

# procs N: the stand-in cgroup holds N processes.
procs() {
  seq 100 $((99 + $1)) >"$KIT_CGROUP/cgroup.procs.new"
  mv -f "$KIT_CGROUP/cgroup.procs.new" "$KIT_CGROUP/cgroup.procs"
}

# leave N: N more processes that go one by one, one every 0.3 s (clients disconnecting).
leave() {
  local base
  base=$(grep -c . "$KIT_CGROUP/cgroup.procs")
  procs $((base + $1))
  (
    for ((i = $1 - 1; i >= 0; i--)); do
      sleep 0.3
      procs $((base + i))
    done
  ) &
  SHRINK_PID=$!
}

stub_helpers() {
  child_helper() { echo /bin/true; }
  fio_drop_caches() { :; }
}

@test "concurrency: each step waits until the step before's clients have left (smbd processes back to the count before the first step)" {
  stub_helpers
  CONCURRENCY_LEVELS="1 4 16"
  measure() {
    grep -c . "$KIT_CGROUP/cgroup.procs" >>"$BATS_TEST_TMPDIR/seen"
    leave 4 # this step's clients disconnect after it
  }
  results_jq() { printf 'go\tfine\n'; }
  concurrency_measure 2>"$BATS_TEST_TMPDIR/log"
  run cat "$BATS_TEST_TMPDIR/seen"
  assert_output $'3\n3\n3'
  run jq -r '"\(.settled) \(.max) \(.smbd_processes)"' "$RUN_DIR/raw/concurrency.16.settle.json"
  assert_output 'true 3 3'
}

@test "concurrency: clients that never leave: bounded wait, a warning in the log and in the verdict" {
  procs 9
  run child_smbd_settle "$RUN_DIR/raw/concurrency.4.settle.json" 1 3
  assert_failure
  assert_output --partial 'still had 9 processes after 1 s (expected 3 or fewer)'
  printf '{"helper":"smb-readers","ok":true,"connected":4,"errors":0,"ops":10,"rate_per_s":5,"lat_ms":{"p50":0.1,"p99":0.2}}\n' >"$RUN_DIR/raw/concurrency.4.json"
  RUN_CPUS=8 results_verdict concurrency '' '' 1 2>/dev/null
  run jq -r '.warnings[]' "$RUN_DIR/metrics/concurrency.json"
  assert_output --partial 'before the step of 4 clients the test smbd still had 9 processes (3 before the first step)'
}

@test "memory: the PSS baseline waits until the smbd process count holds still" {
  stub_helpers
  memory_pss() {
    grep -c . "$KIT_CGROUP/cgroup.procs" >>"$BATS_TEST_TMPDIR/seen"
    return 1 # stop there: the baseline is what this test is about
  }
  leave 5 # the clients of the metric before are leaving
  run memory_measure
  assert_failure 2
  run cat "$BATS_TEST_TMPDIR/seen"
  assert_output '3'
  run jq -r '.settled' "$RUN_DIR/raw/memory.settle.json"
  assert_output 'true'
}

@test "startup: the login probe pins port 445 (the redirect's), so libsmbclient never tries 139 while the test smbd is down" {
  stub_helpers
  service_stop() { :; }
  run_service_start() { :; }
  state_load() { :; }
  child_start() { printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/args"; }
  child_wait() { :; }
  CLIENT_ADDR=127.0.0.2 SHARE_NAME=perftest
  startup_round 1
  run tail -n 1 "$BATS_TEST_TMPDIR/args"
  assert_output '//127.0.0.2:445/perftest'
}
