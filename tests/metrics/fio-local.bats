#!/usr/bin/env bats
# tests/metrics/fio-local.bats: the fio metrics' code paths (command lines, JSON parsing, verdicts,
# cpu from the randread run's evidence) with real fio on a local folder that stands in for the cifs mount.
# On hosts without kernel cifs this is the only place these paths run; the numbers mean nothing.
# shellcheck disable=SC2034,SC2317 # settings are read by the sourced libraries; stubs are called by them

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd fio jq
  [[ -x $KIT_ROOT/helpers/cgcpu ]] || make -C "$KIT_ROOT/helpers" >/dev/null 2>&1 || skip "helpers do not build"
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" common-traps settings registry run/child run/measure run/fio run/baseline \
    run/results run/run
  registry_load
  measure_load "$KIT_ROOT"
  settings_defaults
  common_colour_init
  DURATION=1 DATA_FILE_MB=8 SEQ_STREAMS=2 RANDOM_JOBS=2 LOAD_RATE=200
  MOUNT_POINT=$BATS_TEST_TMPDIR/mnt RUN_DIR=$BATS_TEST_TMPDIR/run
  SHARE_DIR=$BATS_TEST_TMPDIR/share LOG_DIR=$BATS_TEST_TMPDIR/log
  mkdir -p "$MOUNT_POINT" "$RUN_DIR/raw" "$RUN_DIR/metrics" "$SHARE_DIR"
  KIT_CGROUP_SOURCE=proc KIT_MOUNTED=yes RUN_CPUS=$(nproc) RUN_LEFT=0 RUN_METRICS=(login randread)
  child_init
  TARGET_SEQWRITE_MIN_MBS=1 TARGET_SEQREAD_MIN_MBS=1 TARGET_RANDREAD_MIN_IOPS=1
  TARGET_RANDWRITE_MIN_IOPS=1 TARGET_LATENCY_P99_MAX_MS=100000 TARGET_CPU_PER_READ_MAX_US=1000000
  export KIT_ROOT
}

# stand-ins for the mount and the service: a local folder and this test's own process
mount_options_now() { echo 'rw,vers=3.1.1,cache=strict'; }
service_main_pid() { echo "$$"; }

# metric NAME: run metric NAME as test-samba.sh does (measure, then judge), quietly.
metric() {
  run_one "$1" 1 1 2>>"$BATS_TEST_TMPDIR/$1.log" || { cat "$BATS_TEST_TMPDIR/$1.log"; return 1; }
}

@test "fio: seqwrite creates data.N on first need and reports MB/s from fio's JSON" {
  metric seqwrite
  [[ -f $MOUNT_POINT/fio/data.0 && -f $MOUNT_POINT/fio/data.1 ]] || fail "data files not made"
  run jq -e '.status == "PASS" and .value > 0 and .unit == "MB/s" and .details.streams == 2
    and (.details.lat_ms.p99 | type == "number") and (.details.fio_busy_pct | type == "number")' \
    "$RUN_DIR/metrics/seqwrite.json"
  assert_success
  run jq -e '.jobs[0]["job options"].end_fsync == "1" and .jobs[0]["job options"].direct == "1"
    and .jobs[0]["job options"].ioengine == "libaio" and .jobs[0]["job options"].bs == "1M"' \
    "$RUN_DIR/raw/seqwrite.fio.json"
  assert_success  # fio's per-second logs for the rate charts, one per job, a line per second
  [[ -s $RUN_DIR/raw/seqwrite_bw.1.log && -s $RUN_DIR/raw/seqwrite_bw.2.log && -s $RUN_DIR/raw/seqwrite_iops.1.log ]] ||
    fail "no per-second logs: $(ls "$RUN_DIR/raw")"
  run awk -F, 'NF < 2 || $1 !~ /^ *[0-9]+$/ { bad = 1 } END { exit bad }' "$RUN_DIR/raw/seqwrite_bw.1.log"
  assert_success
}

@test "fio: seqread, randread, randwrite give numbers; a target out of reach is FAIL with the why" {
  TARGET_RANDWRITE_MIN_IOPS=100000000
  metric seqread
  metric randread
  metric randwrite
  run jq -e '.status == "PASS" and .value > 0' "$RUN_DIR/metrics/seqread.json"
  assert_success
  run jq -e '.status == "PASS" and .value > 0 and .details.jobs == 2 and .details.block == "4 KiB"' "$RUN_DIR/metrics/randread.json"
  assert_success
  run jq -r '"\(.status) \(.why)"' "$RUN_DIR/metrics/randwrite.json"
  assert_output --regexp '^FAIL [0-9]+ IOPS is below 100000000$'
  run jq -e '.jobs[0]["job options"].rw == "randread" and .jobs[0]["job options"].iodepth == "16"' "$RUN_DIR/raw/randread.fio.json"
  assert_success
}

@test "fio: one steady run serves latency and errors; cpu per read comes from the randread run" {
  metric randread
  metric latency
  metric errors
  [[ $(find "$RUN_DIR/raw" -name 'steady.fio.json' | wc -l) -eq 1 ]]
  run jq -e '.jobs[0]["job options"] | .rate_iops == "140,60" and .rate_process == "poisson"
    and .continue_on_error == "all" and .iodepth == "1" and .rwmixread == "70"' "$RUN_DIR/raw/steady.fio.json"
  assert_success
  run jq -e '.status == "PASS" and .value > 0 and (.details.lat_ms.p99 | type == "number")
    and .details.asked_iops == 200' "$RUN_DIR/metrics/latency.json"
  assert_success
  run jq -e '.status == "PASS" and .value == 0 and .details.requests > 0' "$RUN_DIR/metrics/errors.json"
  assert_success
  run jq -e '.probes.cgcpu.available and .probes.cgcpu.used_us >= 0 and .exit_status == 0 and .wall_s > 0' \
    "$RUN_DIR/raw/randread.evidence.json"
  assert_success
  echo "{}" >"$RUN_DIR/raw/login.evidence.json" # as if login had run: no storm of its own
  metric cpu
  run jq -e '.status == "PASS" and (.value | type == "number") and (.details.notes[0] | test("randread run"))' \
    "$RUN_DIR/metrics/cpu.json"
  assert_success
  [[ ! -e $RUN_DIR/raw/cpu.readers.json ]] || fail "cpu ran readers of its own though randread ran"
}

@test "fio: smbd's CPU over the jobs' I/O alone, read by each job's exec_prerun and exec_postrun" {
  cd "$BATS_TEST_TMPDIR"
  metric randread
  run jq -e '.jobs[0].read.total_ios > 0' "$RUN_DIR/raw/randread.fio.json"
  assert_success
  # some fio versions write notices ('Saving output of prerun', errors) into the JSON output
  # file (fio issues 1304, 731): fio_json_only takes them out, and leaves a clean file alone
  printf 'randread : Saving output of prerun in randread.prerun.txt\nfio: pid=1, err=5\n' >"$BATS_TEST_TMPDIR/f.json"
  cat "$RUN_DIR/raw/randread.fio.json" >>"$BATS_TEST_TMPDIR/f.json"
  fio_json_only "$BATS_TEST_TMPDIR/f.json"
  cmp "$BATS_TEST_TMPDIR/f.json" "$RUN_DIR/raw/randread.fio.json"
  cp "$RUN_DIR/raw/randread.fio.json" "$BATS_TEST_TMPDIR/g.json"
  fio_json_only "$BATS_TEST_TMPDIR/g.json"
  cmp "$BATS_TEST_TMPDIR/g.json" "$RUN_DIR/raw/randread.fio.json"
  run jq -n -c --slurpfile w "$RUN_DIR/raw/randread.window-cpu.json" --slurpfile e "$RUN_DIR/raw/randread.evidence.json" \
    '$w[0] as $w | $e[0].probes.cgcpu.used_us as $all
     | [$w.available, $w.source, $w.jobs, $w.used_us >= 0, $w.used_us <= $all + 20000]'
  assert_output '[true,"proc",2,true,true]'
  # fio's .txt files stay in the kit's own folder, which is removed; the cgcpu lines are merged
  run find "$BATS_TEST_TMPDIR" "$RUN_DIR" -maxdepth 2 \( -name '*.prerun.txt' -o -name '*.postrun.txt' -o -name '*.jsonl' -o -name .fio-cwd \)
  assert_output ''
  echo "{}" >"$RUN_DIR/raw/login.evidence.json"
  metric cpu
  run jq -r '.details.notes[0]' "$RUN_DIR/metrics/cpu.json"
  assert_output --partial 'smbd CPU over the fio jobs'"'"' I/O (cgcpu as their exec_prerun and exec_postrun)'
}

@test "fio: without a mount every fio metric is SKIP with the mount's reason" {
  mount_options_now() { return 1; }
  KIT_MOUNT_SKIP='kernel has no cifs support'
  local m
  for m in seqwrite seqread randread randwrite latency errors; do
    metric "$m"
    run jq -r '"\(.status)|\(.value)|\(.why)"' "$RUN_DIR/metrics/$m.json"
    assert_output 'SKIP|null|kernel has no cifs support'
  done
  [[ ! -e $MOUNT_POINT/fio ]] || fail "a skipped metric made files"
}

@test "cifs probe: counters of the kit's share parsed by label, other shares ignored" {
  CLIENT_ADDR=127.0.0.2 SHARE_NAME=perftest
  run probe_cifs_stats "$KIT_ROOT/tests/fixtures/cifs/Stats.before"
  assert_output '{"requests":1200,"reads":1000,"reads_failed":0,"writes":500,"writes_failed":1,"tree_connects":1,"session_reconnects":0,"share_reconnects":0}'
  run probe_cifs_stats "$KIT_ROOT/tests/fixtures/cifs/Stats.after"
  assert_output '{"requests":6801,"reads":4500,"reads_failed":2,"writes":2000,"writes_failed":4,"tree_connects":2,"session_reconnects":3,"share_reconnects":5}'
  SHARE_NAME=other
  run probe_cifs_stats "$KIT_ROOT/tests/fixtures/cifs/Stats.after"
  assert_output --partial '"reads":null'
}

# freeze_once DIR: when fio's steady run has run 1.5 s, freeze DIR's file system for 0.35 s (a
# server that stops answering: the write in flight waits; fsfreeze holds writes, not reads).
freeze_once() {
  local i
  for ((i = 0; i < 300; i++)); do
    pgrep -f 'fio --name=steady' >/dev/null && break
    sleep 0.1
  done
  sleep 1.5
  fsfreeze -f "$1" && sleep 0.35
  fsfreeze -u "$1"
}

teardown() {
  if [[ -n ${FROZEN_MNT:-} ]]; then
    fsfreeze -u "$FROZEN_MNT" 2>/dev/null || true
    umount "$FROZEN_MNT" 2>/dev/null || true
  fi
  if [[ -n ${ROOM_MNT:-} ]]; then umount "$ROOM_MNT" 2>/dev/null || true; fi
}

@test "latency: a 0.35 s stall in a steady run shows in p99, counted from when each request was due" {
  kit_require_root
  kit_require_cmd fsfreeze mkfs.ext4
  truncate -s 64M "$BATS_TEST_TMPDIR/img"
  mkfs.ext4 -q "$BATS_TEST_TMPDIR/img"
  mount -o loop "$BATS_TEST_TMPDIR/img" "$MOUNT_POINT" 2>/dev/null || skip "no loop device to mount a file system on"
  FROZEN_MNT=$MOUNT_POINT
  DURATION=5 LOAD_RATE=500
  freeze_once "$MOUNT_POINT" &
  metric latency
  wait
  run jq -c '.details | [.due_lat_ms.held_back > 100, .due_lat_ms.p99 >= 250, .sent_p99_ms < 100, .due_lat_ms.max >= 340]' \
    "$RUN_DIR/metrics/latency.json"
  echo "# $(jq -c '{value, sent: .details.sent_p99_ms, due: .details.due_lat_ms}' "$RUN_DIR/metrics/latency.json")" >&3
  assert_output '[true,true,true,true]'
  run jq -r '"\(.value == .details.due_lat_ms.p99) \(.warnings | map(select(startswith("a stall: "))) | length)"' "$RUN_DIR/metrics/latency.json"
  assert_output 'true 1'
}

@test "fio: one latency distribution (total, lat_ns) for percentiles, mean and max; runtime not summed over jobs" {
  metric randread
  run jq -e '.jobs[0]["job options"] | .lat_percentiles == "1" and .continue_on_error == "all"' "$RUN_DIR/raw/randread.fio.json"
  assert_success
  # p99 is the total latency's, like mean and max; 2 jobs ran 1 s each: fio ran for about 1 s, not 2
  run jq -n --slurpfile f "$RUN_DIR/raw/randread.fio.json" --slurpfile m "$RUN_DIR/metrics/randread.json" '
    $f[0].jobs[0].read as $r | $m[0].details as $d
    | [$d.lat_ms.p99 == $r.lat_ns.percentile["99.000000"] / 1e6, $d.lat_ms.mean == $r.lat_ns.mean / 1e6,
       $d.runtime_s == $r.runtime / 1000, $d.runtime_s < 1.5, $d.fio_errors == 0,
       ($d.notes[0] | test("^Time per request: total latency \\(fio lat_ns"))] | all'
  assert_output true
  # an older fio file without lat_ns percentiles says that its percentiles are completion latency
  run jq -c 'del(.jobs[0].read.lat_ns.percentile, .jobs[0].write.lat_ns.percentile)' "$RUN_DIR/raw/randread.fio.json"
  printf '%s\n' "$output" >"$RUN_DIR/raw/randread.fio.json"
  results_verdict randread '' '' 1 2>/dev/null
  run jq -r '.details.notes[0]' "$RUN_DIR/metrics/randread.json"
  assert_output --partial 'percentiles of completion latency (fio clat_ns)'
}

@test "fio: the steady rates never give fio a 0 (no limit): LOAD_RATE below 2 is refused" {
  LOAD_RATE=2 run fio_steady_rates
  assert_output '1 1'
  LOAD_RATE=3 run fio_steady_rates
  assert_output '2 1'
  LOAD_RATE=500 run fio_steady_rates
  assert_output '350 150'
  LOAD_RATE=1 run fio_steady_rates
  assert_failure
  LOAD_RATE=1 metric latency
  run jq -r '"\(.status) \(.why)"' "$RUN_DIR/metrics/latency.json"
  assert_output --partial "FAIL setting 'LOAD_RATE' has bad value '1'"
  [[ ! -e $RUN_DIR/raw/steady.fio.json ]] || fail "fio ran with LOAD_RATE=1"
}

@test "errors: failed requests, requests sent and reconnects of the kit's share reach the report; host-wide reconnects apart" {
  CLIENT_ADDR=127.0.0.2 SHARE_NAME=perftest
  metric latency
  printf '{"probes":{"cifs":{"available":true,"before":%s,"after":%s}}}\n' \
    "$(probe_cifs_stats "$KIT_ROOT/tests/fixtures/cifs/Stats.before")" \
    "$(probe_cifs_stats "$KIT_ROOT/tests/fixtures/cifs/Stats.after")" >"$RUN_DIR/raw/steady.evidence.json"
  results_verdict errors '' '' 1 2>/dev/null
  run jq -n --slurpfile f "$RUN_DIR/raw/steady.fio.json" --slurpfile m "$RUN_DIR/metrics/errors.json" '
    $m[0] as $m | ($f[0].jobs[0] | .read.total_ios + .write.total_ios) as $n
    | [$m.details.cifs_requests == 5601, $m.details.server_failed == 5, $m.details.reconnects == 1,
       $m.details.host_reconnects == 8, $m.details.requests == $n, $m.value == 5 / $n * 100,
       ($m.why | test("^5 of [0-9]+ requests failed, 1 reconnect")),
       ($m.warnings | any(test("reconnected to the kit.s share 1 time")))] | all'
  assert_output true
}

@test "fio: a page-cache drop that failed is reported as not done, with a warning; one that worked as yes" {
  DROP_CACHES=yes FIO_DROP_CACHES_FILE=$BATS_TEST_TMPDIR/no/such/folder/drop_caches
  metric randread
  metric latency
  run jq -r '.details.drop_caches, .warnings[]' "$RUN_DIR/metrics/randread.json"
  assert_line --regexp '^no: asked, but it failed \(.*No such file or directory\)$'
  assert_line --partial 'DROP_CACHES=yes, but the page cache could not be dropped'
  run jq -r '.warnings[]' "$RUN_DIR/metrics/latency.json"
  assert_line --partial 'DROP_CACHES=yes, but the page cache could not be dropped'
  FIO_DROP_CACHES_FILE=$BATS_TEST_TMPDIR/drop_caches
  metric seqread
  run jq -r '.details.drop_caches, (.warnings | map(select(test("page cache"))) | length)' "$RUN_DIR/metrics/seqread.json"
  assert_output $'yes\n0'
  run cat "$FIO_DROP_CACHES_FILE"
  assert_output 3
}

# Issue 20, item 3: the local-disk baseline compares like with like: buffered as smbd reads and
# writes (Samba's --direct=1 is the client's), the same block size and depth, cold like the
# Samba runs with DROP_CACHES=yes; its row shows its own figures, and the file system's real
# type is findmnt's ('ext2/ext3' was stat -f's name for ext4).
@test "localdisk: buffered like smbd, cold with DROP_CACHES=yes, its IOPS in its row, findmnt's file-system type" {
  local fs
  RUN_METRICS=(randread localdisk) DROP_CACHES=yes
  local drop=$BATS_TEST_TMPDIR/drop_caches
  FIO_DROP_CACHES_FILE=$drop
  metric localdisk
  run jq -e '.jobs[0]["job options"].direct == "0" and .jobs[0]["job options"].bs == "4k"
    and .jobs[0]["job options"].iodepth == "16" and .jobs[0]["job options"].rw == "randread"' \
    "$RUN_DIR/raw/localdisk.randread.fio.json"
  assert_success
  [[ $(<"$drop") == 3 ]] || fail "the page cache was not dropped before the baseline"
  run jq -c . "$RUN_DIR/raw/localdisk.randread.drop.json"
  assert_output '{"done":true}'
  fs=$(fs_type_of "$SHARE_DIR")
  run jq -r --arg fs "$fs" '[.status, .why, (.details.jobs[0] | .file_system == $fs and .direct_io == false),
    (.details.notes[0] | test("buffered, as smbd"))] | map(tostring) | join(" | ")' "$RUN_DIR/metrics/localdisk.json"
  assert_output --regexp '^PASS \| randread [0-9]+ IOPS \| true \| true$'
}

@test "room: a data file that does not fit is refused with the numbers before anything is written" {
  kit_require_root
  local small=$BATS_TEST_TMPDIR/small
  mkdir -p "$small"
  mount -t tmpfs -o size=80m,nr_inodes=2000 kit-room-test "$small" || skip "cannot mount a tmpfs"
  ROOM_MNT=$small
  SHARE_DIR=$small DATA_FILE_MB=100
  # seqwrite through the stand-in mount: the files would land in SHARE_DIR
  metric seqwrite || true
  run jq -r '[.status, .why] | join(": ")' "$RUN_DIR/metrics/seqwrite.json"
  assert_output --regexp "^FAIL: no room for the data files \(DATA_FILE_MB=100, and 64 MB to spare\): not enough free space in '$small': need 264 MB, [0-9]+ MB free \(short by [0-9]+ MB\)$"
  [[ ! -e $MOUNT_POINT/fio/data.0 ]] || fail "a data file was written"
  # the server-side data file (no mount), and the local-disk baseline's files
  mount_options_now() { return 1; }
  run_why ''
  fio_data_file || true
  [[ $RUN_WHY == "no room for the data file fio/data.0 (DATA_FILE_MB=100, and 64 MB to spare): not enough free space in '$small': need 164 MB, "* ]] || fail "$RUN_WHY"
  [[ ! -e $small/fio/data.0 ]] || fail "fio/data.0 was written"
  run common_room "$small" 1 2500
  assert_failure
  assert_output --regexp "^not enough free inodes in '$small': need 2500, [0-9]+ free \(short by [0-9]+\)$"
  run common_room "$small" 1 10
  assert_success
}
