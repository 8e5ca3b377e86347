#!/usr/bin/env bats
# tests/metrics/measure.bats: the measuring runner (lib/run/measure.sh) and its probe interface
# (docs/CONTRACTS.md, section 5) with probes defined here, as another engineer would add one.
# shellcheck disable=SC2016,SC2034,SC2317,SC2030,SC2031 # sh and jq programs; read by the sourced libraries; probes are called by them; each test sets its own MEASURE_PROBES

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd jq
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" common-traps run/child run/measure
  RUN_DIR="$BATS_TEST_TMPDIR/run dir"
  mkdir -p "$RUN_DIR/raw"
  child_init
  MEASURE_PROBES=(demo silent)
  PROBE_LOG=$BATS_TEST_TMPDIR/probe.log
}

# a probe that records its calls, keeps a value from before for after, and marks the child
probe_demo_before() { echo "before $1" >>"$PROBE_LOG" && echo 41 >"$2/kept"; }
probe_demo_enter() { echo "$BASHPID" >"$2/child.pid"; }
probe_demo_after() {
  echo "after $1" >>"$PROBE_LOG"
  printf '{"available":true,"kept":%s,"child_pid":%s,"files":["raw/%s.demo.samples.jsonl"]}\n' \
    "$(($(<"$2/kept") + 1))" "$(<"$2/child.pid")" "$1" >"$2/result.json"
  echo '{"t":1}' >"$RUN_DIR/raw/$1.demo.samples.jsonl"
}
probe_demo_finish() { echo "finish" >>"$PROBE_LOG"; }
# a probe that writes no result
probe_silent_before() { echo "before silent" >>"$PROBE_LOG"; }
probe_silent_after() { echo "after silent" >>"$PROBE_LOG" && return 1; }

@test "measure: stdout, stderr and evidence under raw/NAME.*; probes in list order, then reversed" {
  run measure login.r2 10 -- sh -c 'echo "{\"ppid\":$PPID}"; echo oops >&2; exit 3'
  assert_failure 3
  run jq -c . "$RUN_DIR/raw/login.r2.json"
  assert_output --regexp '^\{"ppid":[0-9]+\}$'
  run cat "$RUN_DIR/raw/login.r2.err"
  assert_output oops
  run cat "$PROBE_LOG"
  assert_output $'before login.r2\nbefore silent\nafter silent\nafter login.r2'
  # the enter hook ran in the process that became the command's parent (timeout)
  run jq -n --slurpfile o "$RUN_DIR/raw/login.r2.json" --slurpfile e "$RUN_DIR/raw/login.r2.evidence.json" '
    $e[0] | [.name == "login.r2", .command == "sh", .limit_s == 10, .exit_status == 3, .timed_out == false,
      .wall_s >= 0, (.started_at | test("Z$")), .probes.demo.kept == 42, .probes.demo.child_pid == $o[0].ppid,
      .probes.silent == {available: false, reason: "probe \u0027silent\u0027 wrote no result"},
      (.probes | keys_unsorted) == ["demo", "silent"]] | all'
  assert_output true
  [[ -s $RUN_DIR/raw/login.r2.demo.samples.jsonl ]]
  run find "$RUN_DIR" -name '.probes.*'
  assert_output ''
  measure_finish
  run tail -n 1 "$PROBE_LOG"
  assert_output finish
}

@test "measure: the limit stops the command (exit 124, timed_out) and an empty .err is removed" {
  run measure slow 1 -- sleep 30
  assert_failure 124
  run jq -e '.timed_out and .exit_status == 124 and .wall_s < 10' "$RUN_DIR/raw/slow.evidence.json"
  assert_success
  [[ ! -e $RUN_DIR/raw/slow.err ]] || fail "an empty .err file was kept"
}

@test "measure: the cgcpu probe records the CPU of a process (-p) before and after" {
  [[ -x $KIT_ROOT/helpers/cgcpu ]] || make -C "$KIT_ROOT/helpers" >/dev/null 2>&1 || skip "helpers do not build"
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/probes/cgcpu.sh"
  MEASURE_PROBES=(cgcpu)
  KIT_CGROUP_SOURCE=proc
  service_main_pid() { echo "$$"; }
  measure busy 10 -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
  run jq -e '.probes.cgcpu | .available and .source == "proc" and .used_us == .after_us - .before_us' \
    "$RUN_DIR/raw/busy.evidence.json"
  assert_success
}

# Issue 20, item 2: what a measurement before left dirty (randwrite's writes in the page cache)
# is written out before the next one starts, outside its window, and the evidence shows the
# Dirty and Writeback found and at the start. The kit's own probe list, run for real on a
# folder of the disk (not tmpfs, whose pages are never Dirty).
@test "measure: the writeback probe, first of the list, writes out what was left dirty before the measurement" {
  local p
  SHARE_DIR=$(mktemp -d "$KIT_ROOT/.measure-writeback.XXXXXX")
  measure_load "$KIT_ROOT"
  assert_equal "${MEASURE_PROBES[0]}" writeback
  MEASURE_PROBES=(writeback)
  # 64 MB written and not synced: Dirty holds them until the kernel writes them out
  dd if=/dev/zero of="$SHARE_DIR/dirty" bs=1M count=64 status=none
  measure after 10 -- sh -c 'grep -E "^(Dirty|Writeback):" /proc/meminfo | tr -s " " | tr "\n" " "' >"$BATS_TEST_TMPDIR/meminfo"
  rm -rf "$SHARE_DIR"
  p=$(jq -c .probes.writeback "$RUN_DIR/raw/after.evidence.json")
  echo "# $p; the command saw: $(cat "$RUN_DIR/raw/after.json")" >&3
  jq -e '.available and .flushed and .settled and .waited_s < 6
    and .found.dirty_kb + .found.writeback_kb >= 32768
    and .dirty_kb + .writeback_kb <= .small_kb and .small_kb == 16384
    and (.after.dirty_kb | type == "number") and (.after.writeback_kb | type == "number")' <<<"$p" ||
    fail "$p"
}
