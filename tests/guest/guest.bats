#!/usr/bin/env bats
# The whole kit inside a qemu guest with Debian's kernel (kernel cifs client) and systemd as
# PID 1: start-samba.sh, test-samba.sh (small sizes), stop-samba.sh, start-samba.sh,
# test-samba.sh cleanup (tests/guest/scenario.sh), then assertions on what came back.
# The guest runs once for the whole file (several minutes under TCG, see README.md here).
# Skips when qemu or the kernel package cannot be had, unless REQUIRE_GUEST=1 (then fails).
#   GUEST_TEST_OUT=DIR   keep the guest's results in DIR (default: the file's temp folder)
#   GUEST_TEST_REUSE=DIR assert on the results of an earlier run in DIR; boot nothing

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  local reason='' out kdir
  if [[ -n ${GUEST_TEST_REUSE:-} ]]; then
    export GUEST_TEST_OUT=$GUEST_TEST_REUSE
    echo "# reusing the guest results in $GUEST_TEST_REUSE" >&3
    return 0
  fi
  out=${GUEST_TEST_OUT:-$BATS_FILE_TMPDIR/guest results}
  export GUEST_TEST_OUT=$out
  rm -rf "$out"
  mkdir -p "$out"
  if [[ $(id -u) -ne 0 ]]; then
    reason="needs root"
  elif ! "$KIT_ROOT/tests/guest/run-guest.sh" -c 2>"$out/check.log"; then
    reason=$(sed 's/^run-guest: error: //' "$out/check.log")
  elif ! kdir=$("$KIT_ROOT/tests/guest/prepare-guest.sh" 2>"$out/prepare.log"); then
    reason="cannot prepare the guest kernel: $(grep -m1 'error:' "$out/prepare.log" || tail -n 1 "$out/prepare.log")"
  fi
  if [[ -n $reason ]]; then
    if [[ ${REQUIRE_GUEST:-0} == 1 ]]; then
      echo "guest test cannot run (REQUIRE_GUEST=1): $reason" >&3
      return 1
    fi
    printf '%s\n' "$reason" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  fi
  echo "# guest kernel: $kdir; results: $out" >&3
  # The helpers are built on the host (make check builds them first): quicker than in TCG.
  make -s -C "$KIT_ROOT/helpers" >/dev/null 2>&1 || true
  local rc=0
  (cd "$KIT_ROOT" && timeout -k 30 "${GUEST_TEST_TIMEOUT:-2400}" \
    tests/guest/run-guest.sh -t "${GUEST_TEST_TIMEOUT:-2400}" -r "$out" -- tests/guest/scenario.sh) \
    >"$out/harness.log" 2>&1 || rc=$?
  echo "$rc" >"$out/harness-status"
  echo "# guest: $(cat "$out/guest-timing.json" 2>/dev/null || echo 'no timing')" >&3
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  if [[ -f $BATS_FILE_TMPDIR/skip-reason ]]; then
    skip "$(cat "$BATS_FILE_TMPDIR/skip-reason")"
  fi
  OUT=$GUEST_TEST_OUT
  RES=$OUT/run/results.json
  EV=$OUT/evidence
}

# guest_show FILE...: print files for a failing test's output
guest_show() {
  local f
  for f in "$@"; do
    echo "--- $f"
    tail -n 40 "$f" 2>&1
  done
}

@test "guest: the scenario ran to the end and every step did its job" {
  run cat "$OUT/harness-status"
  if [[ $output != 0 ]]; then
    guest_show "$OUT/harness.log" "$OUT/steps.tsv"
  fi
  assert_output 0
  run cut -f1,2 "$OUT/steps.tsv"
  assert_line --index 0 $'start\t0'
  assert_line --index 1 --regexp $'^test\t[01]$'
  assert_line --index 2 $'stop\t0'
  assert_line --index 3 $'restart\t0'
  assert_line --index 4 $'cleanup\t0'
  run jq -e '.exit_status == 0 and .boot_s > 0' "$OUT/guest-timing.json"
  assert_success
}

@test "guest: systemd was PID 1 and the kernel had cifs" {
  run cat "$EV/guest.txt"
  assert_line "pid1: systemd"
  assert_line --regexp '^system: (running|degraded)$'
}

@test "guest: start-samba.sh ran smbd as a systemd unit" {
  run cat "$EV/after-start-unit-show.txt"
  assert_line "LoadState=loaded"
  assert_line "ActiveState=active"
  assert_line "ControlGroup=/system.slice/smbd-perf-test.service"
  assert_line --regexp '^FragmentPath=/.+/smbd-perf-test\.service$'
  assert_line --regexp '^MainPID=[1-9][0-9]*$'
  run grep -E '^KIT_(SERVICE_MODE|UNIT|CGROUP_SOURCE)=' "$EV/after-start-kit-env.txt"
  assert_line "KIT_SERVICE_MODE=systemd"
  assert_line "KIT_UNIT=smbd-perf-test.service"
  assert_line "KIT_CGROUP_SOURCE=cgroup2"
  run grep -c 'system.slice/smbd-perf-test.service' "$EV/after-start-smbd-ps.txt"
  assert_output --regexp '^[1-9]'
  run jq -r '[.system.service_mode, .system.unit] | @tsv' "$RES"
  assert_output $'systemd\tsmbd-perf-test.service'
}

@test "guest: start-samba.sh mounted the share with the kernel cifs client by itself" {
  run cat "$EV/after-start-findmnt-cifs.txt"
  assert_output --regexp '^/mnt/samba-perf-test //127\.0\.0\.2/perftest .*vers=3'
  run jq -r '.system.mounted' "$RES"
  assert_output yes
  run grep -E '^KIT_MOUNTED=' "$EV/after-start-kit-env.txt"
  assert_output "KIT_MOUNTED=yes"
}

@test "guest: every metric has a measured number (no SKIP)" {
  run jq -e '.incomplete == false and .counts.SKIP == 0' "$RES"
  assert_success
  local m unit
  while read -r m unit; do
    run jq -r --arg m "$m" '.metrics[$m] | "\(.status) \(.value | type) \(.unit)"' "$RES"
    assert_output --regexp "^(PASS|FAIL) number $unit\$"
  done <<'EOF'
startup ms
recovery s
login logins/s
seqwrite MB/s
seqread MB/s
randread IOPS
randwrite IOPS
latency ms
errors %
metadata files/s
bigdir ×
concurrency clients
cpu µs
memory MB
localdisk local jobs
EOF
  # sane values: positive where a zero would mean nothing was measured
  run jq -r '.metrics | to_entries[]
    | select(.key != "errors" and .key != "concurrency" and (.value.value <= 0)) | .key' "$RES"
  assert_output ''
  run jq -e '.metrics.errors.value >= 0 and .metrics.errors.value <= 100
    and .metrics.errors.details.requests > 0' "$RES"
  assert_success
  # concurrency: every asked step connected all its clients and read something
  run jq -e '.metrics.concurrency.value >= 0 and (.metrics.concurrency.details.steps | length) == 2
    and all(.metrics.concurrency.details.steps[]; .connected == .clients and .ops > 0)' "$RES"
  assert_success
  run jq -e '.metrics.seqread.details != null and .metrics.randread.value > 1' "$RES"
  assert_success
}

@test "guest: recovery after a restart was measured through the mount" {
  run jq -e '.metrics.recovery.value > 0
    and (.metrics.recovery.details.rounds | length) >= 1
    and all(.metrics.recovery.details.rounds[]; (.recovery_s | type) == "number" and .recovery_s > 0)' "$RES"
  assert_success
  run jq -e '.metrics.startup.value > 0 and all(.metrics.startup.details.rounds[]; .login_ms > 0)' "$RES"
  assert_success
}

@test "guest: smbd frozen for 0.35 s in the steady run shows in latency's p99, counted from when each request was due" {
  # scenario.sh froze the unit's cgroup (cgroup.freeze) 0.5 s into the steady run's requests
  run grep -c '^stall: froze\|^stall: thawed' "$OUT/evidence/stall.txt"
  assert_output 2
  run jq -c '.metrics.latency | [.value == .details.due_lat_ms.p99, .details.due_lat_ms.p99 >= 250,
    .details.due_lat_ms.held_back > 0, (.warnings | any(startswith("a stall: ")))]' "$RES"
  echo "# $(jq -c '.metrics.latency | {value, sent: .details.sent_p99_ms, due: .details.due_lat_ms}' "$RES")" >&3
  assert_output '[true,true,true,true]'
}

@test "guest: /proc/fs/cifs/Stats was read and its counters parsed" {
  # the cifs probe's record of the steady run (docs/CONTRACTS.md, section 5)
  local ev=$OUT/run/raw/steady.evidence.json
  run jq -e '.probes.cifs | .available and all(.before, .after | .reads, .reads_failed, .writes,
    .writes_failed, .session_reconnects, .share_reconnects; type == "number")' "$ev"
  assert_success
  run jq -e '.probes.cifs | .after.reads > .before.reads and .after.writes > .before.writes' "$ev"
  assert_success
  run jq -e '(.metrics.errors.details.server_failed | type) == "number"
    and (.metrics.errors.details.reconnects | type) == "number"' "$RES"
  assert_success
  run grep -E '^ *Reads: [0-9]+ total' "$EV/after-test-cifs-stats.txt"
  assert_success
}

@test "guest: CPU figures came from the unit's cgroup v2" {
  run jq -r '.metrics.cpu.details.cpu_source' "$RES"
  assert_output cgroup2
  run jq -r '[.system.cgroup_source, .system.cgroup] | @tsv' "$RES"
  assert_output $'cgroup2\t/sys/fs/cgroup/system.slice/smbd-perf-test.service'
  run jq -r '.probes.cgcpu | "\(.source) \(.before_us | type)"' "$OUT/run/raw/randread.evidence.json"
  assert_output "cgroup2 number"
  run jq -e '.probes.cgcpu | .after_us > .before_us and .used_us > 0' "$OUT/run/raw/randread.evidence.json"
  assert_success
  run jq -e '.metrics.cpu.value > 0 and .metrics.cpu.details.reads > 0' "$RES"
  assert_success
  # the fio jobs' own readings around their I/O, from the same cgroup, inside the command's;
  # CPU per read rests on them, and the helpers' windows likewise
  local m
  for m in randread seqread; do
    run jq -n -c --slurpfile w "$OUT/run/raw/$m.window-cpu.json" --slurpfile e "$OUT/run/raw/$m.evidence.json" \
      '[$w[0].available, $w[0].source, $w[0].used_us > 0, $w[0].used_us <= $e[0].probes.cgcpu.used_us]'
    assert_output '[true,"cgroup2",true,true]'
  done
  run jq -r '.metrics.cpu.details.notes[0]' "$RES"
  assert_output --partial 'exec_prerun and exec_postrun'
  run jq -e '.server_cpu | .available and .source == "cgroup2" and .used_us > 0' "$OUT/run/raw/login.json"
  assert_success
}

@test "guest: the server's view of every fio metric; fio's requests = smbd's calls = the kernel client's count" {
  local m
  # the per-command table and the client/server CPU split: the six fio metrics and the helpers'
  for m in seqwrite seqread randread randwrite latency errors login metadata concurrency memory; do
    run jq -r --arg m "$m" '.metrics[$m].details | "\(.server.available) \(.server.why // "")\(.cpu.available)"' "$RES"
    assert_output 'true true'
  done
  for m in seqwrite seqread randread randwrite; do
    # the exact check (tolerance 1 %): direct I/O through cifs is one SMB2 request per fio request
    run jq -r --arg m "$m" '.metrics[$m].details.count_check | "\(.ok) \(.client == .server) \(.client == .kernel) \(.client > 0)"' "$RES"
    assert_output 'true true true true'
    # what was measured, for the test's output: the counts, fio's time per request against smbd's
    jq -r --arg m "$m" '.metrics[$m].details as $d | ($d.server.commands[] | select(.samba == ($m | sub("^(seq|rand)"; ""))))
      as $c | "# \($m): fio \($d.count_check.client) requests, smbd \($d.count_check.server) calls, kernel \($d.count_check.kernel); mean time per request: fio \($d.lat_ms.mean * 1000 | round) µs, smbd \($c.mean_us | round) µs"' "$RES" >&3
    # smbd's time per request is part of fio's (fio's also has the wire, the kernel client, the queue)
    run jq -e --arg m "$m" '.metrics[$m].details as $d | ($d.server.commands[] | select(.samba == ($m | sub("^(seq|rand)"; ""))))
      | .mean_us <= $d.lat_ms.mean * 1000' "$RES"
    assert_success
  done
  # the steady run of latency and errors: fio's reads and writes = smbd's Read and Write calls
  for m in latency errors; do
    run jq -r --arg m "$m" '.metrics[$m].details.count_check | "\(.what) \(.ok) \(.client == .server) \(.client == .kernel) \(.client > 0)"' "$RES"
    assert_output 'reads and writes (fio) true true true true'
  done
  # in report.md once per run: errors' section names latency's (the same steady run)
  run grep -c "^- CPU: .*\. Client against server: the client reported [0-9]* \(reads\|writes\|reads and writes\) (fio), smbd counted" "$OUT/run/report.md"
  assert_output 5
  run grep -c "^- Server view, CPU and counts: the same run as latency's" "$OUT/run/report.md"
  assert_output 1
}

@test "guest: charts for every measured metric, well-formed, inline in report.html" {
  local idx=$OUT/run/charts/index.json m f n
  run jq -r '"\(.why) \(.tool | startswith("gnuplot")) \(.not_drawn | length)"' "$idx"
  assert_output 'null true 0'
  run jq -r '.charts[] | "\(.metric) \(.kind)"' "$idx"
  for m in login metadata concurrency seqwrite seqread randread randwrite latency; do
    assert_line "$m latency"
    assert_line "$m time"
  done
  assert_line 'concurrency curve'
  assert_line 'localdisk baseline'
  assert_line 'startup rounds'
  assert_line 'bigdir growth'
  for m in seqwrite seqread randread randwrite; do assert_line "$m server"; done
  n=0
  while read -r f; do
    xmllint --noout "$OUT/run/$f" || fail "not well-formed: $f"
    n=$((n + 1))
  done < <(jq -r '.charts[].file' "$idx")
  [[ $(grep -c '<svg ' "$OUT/run/report.html") -eq $n ]] || fail "report.html has $(grep -c '<svg ' "$OUT/run/report.html") charts, index.json $n"
}

@test "guest: stop-samba.sh stopped the unit and unmounted; start-samba.sh brought both back" {
  run cat "$EV/after-stop-unit-show.txt"
  assert_line "ActiveState=inactive"
  run cat "$EV/after-stop-findmnt-cifs.txt"
  assert_output ''
  run cat "$EV/after-restart-unit-show.txt"
  assert_line "ActiveState=active"
  run cat "$EV/after-restart-findmnt-cifs.txt"
  assert_output --partial "//127.0.0.2/perftest"
  run cat "$EV/after-restart-nft-tables.txt"
  assert_line "table ip samba_perf_test"
  run cat "$EV/after-restart-id.txt"
  assert_output --regexp '^uid=[0-9]+\(smbperf\)'
}

@test "guest: cleanup left no unit, mount, user, nft table or smbd" {
  run cat "$EV/after-cleanup-unit-files.txt"
  assert_output ''
  run cat "$EV/after-cleanup-list-unit-files.txt"
  refute_output --partial "smbd-perf-test"
  run cat "$EV/after-cleanup-unit-show.txt"
  assert_line "LoadState=not-found"
  run cat "$EV/after-cleanup-findmnt-cifs.txt"
  assert_output ''
  run cat "$EV/after-cleanup-id.txt"
  assert_output --partial "no such user"
  run cat "$EV/after-cleanup-nft-tables.txt"
  refute_output --partial "samba_perf_test"
  run cat "$EV/after-cleanup-smbd-ps.txt"
  assert_output ''
}
