#!/usr/bin/env bats
# tests/metrics/verdict.bats: each metric's verdict program (lib/metrics/NAME.jq) on the raw files
# of a real run (tests/fixtures/run-raw, DURATION=2 on a 2-CPU host without kernel cifs), and
# the shared formatting module. Each expected figure is computed here from the raw files.
# shellcheck disable=SC2034 # settings and RUN_* are read by the sourced libraries

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd jq
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" settings registry run/results
  registry_load
  common_colour_init
  settings_defaults
  # shellcheck source=/dev/null
  source "$KIT_ROOT/tests/fixtures/run-raw/settings.env"
  RUN_DIR="$BATS_TEST_TMPDIR/run dir"
  mkdir -p "$RUN_DIR/metrics"
  cp -R "$KIT_ROOT/tests/fixtures/run-raw/raw" "$RUN_DIR/"
  RUN_CPUS=2 KIT_CGROUP_SOURCE=cgroup2
}

# judge METRIC [SKIP [ERROR]]: run METRIC's verdict into RUN_DIR/metrics quietly.
judge() {
  results_verdict "$1" "${2:-}" "${3:-}" 7 2>"$BATS_TEST_TMPDIR/$1.log"
}

@test "verdict: login: the rate and p95 of the storm's line, CPU per login from its evidence" {
  judge login
  run jq -n --slurpfile l "$RUN_DIR/raw/login.json" --slurpfile e "$RUN_DIR/raw/login.evidence.json" \
    --slurpfile m "$RUN_DIR/metrics/login.json" '
    $m[0] as $m | (($e[0].probes.cgcpu.used_us / ($l[0].ops + $l[0].errors) | round) / 1000) as $per
    | [$m.value == $l[0].rate_per_s, $m.details.per_login_ms == $per, $m.details.lat_ms == $l[0].lat_ms,
       $m.status == "FAIL", ($m.why | test("^p95 62.2 ms is above 20 ms \\(p95 ≤ 20 ms cannot be met by construction")), $m.elapsed_s == 7,
       $m.target_text == "≥ 100 logins/s and p95 ≤ 20 ms",
       ($m.warnings[0] | test("8 client processes shared 2 CPUs"))] | all'
  assert_output true
}

@test "verdict: login: smbd CPU per login is divided by every attempt, failed ones too" {
  jq -c '.ops = 100 | .errors = 300' "$RUN_DIR/raw/login.json" >"$RUN_DIR/raw/login.json.new"
  mv "$RUN_DIR/raw/login.json.new" "$RUN_DIR/raw/login.json"
  judge login
  run jq -n --slurpfile e "$RUN_DIR/raw/login.evidence.json" --slurpfile m "$RUN_DIR/metrics/login.json" \
    '$m[0].details.per_login_ms == (($e[0].probes.cgcpu.used_us / 400 | round) / 1000)'
  assert_output true
}

@test "verdict: login: a p95 target the closed loop cannot meet at the measured rate says so (Little's law)" {
  # 8 workers at 172.3 logins/s wait 8 / 172.3 = 46.4 ms on average: p95 <= 20 ms needs 400/s
  jq -c '.workers = 8 | .rate_per_s = 172.3 | .lat_ms.p95 = 62.2' "$RUN_DIR/raw/login.json" >"$RUN_DIR/raw/l.new"
  mv "$RUN_DIR/raw/l.new" "$RUN_DIR/raw/login.json"
  judge login
  run jq -r .why "$RUN_DIR/metrics/login.json"
  assert_output "p95 62.2 ms is above 20 ms (p95 ≤ 20 ms cannot be met by construction at 172 logins/s: 8 workers each waiting for its own request average 8 / 172 = 46.4 ms (Little's law); 8 workers need over 400 logins/s, so at this rate at most 3 workers would meet it, or a faster or larger host)"
  # 2 workers at the same rate average 11.6 ms: the target is reachable, the why says only p95
  jq -c '.workers = 2 | .lat_ms.p95 = 30' "$RUN_DIR/raw/login.json" >"$RUN_DIR/raw/l.new"
  mv "$RUN_DIR/raw/l.new" "$RUN_DIR/raw/login.json"
  judge login
  run jq -r .why "$RUN_DIR/metrics/login.json"
  assert_output "p95 30 ms is above 20 ms"
}

@test "verdict: login: at a rate where not even one worker meets the p95 target, only the host is named" {
  # a loaded host gave 4.8 logins/s: 1 / 4.8 = 208 ms, no worker count meets 20 ms
  jq -c '.workers = 8 | .rate_per_s = 4.8 | .lat_ms.p95 = 1936.3' "$RUN_DIR/raw/login.json" >"$RUN_DIR/raw/l.new"
  mv "$RUN_DIR/raw/l.new" "$RUN_DIR/raw/login.json"
  judge login
  run jq -r .why "$RUN_DIR/metrics/login.json"
  assert_output --partial "8 workers need over 400 logins/s, so at this rate not even one would: a faster or larger host)"
}

@test "verdict: concurrency: a step's p99 target its clients cannot meet at the measured IOPS says so (Little's law)" {
  # 4 clients at 400 reads/s wait 10 ms on average: p99 <= 5 ms needs over 800 reads/s
  jq -c '.rate_per_s = 400 | .lat_ms.p99 = 12' "$RUN_DIR/raw/concurrency.4.json" >"$RUN_DIR/raw/c.new"
  mv "$RUN_DIR/raw/c.new" "$RUN_DIR/raw/concurrency.4.json"
  judge concurrency
  run jq -r .why "$RUN_DIR/metrics/concurrency.json"
  assert_output "the step of 4 clients did not keep up: p99 12 ms > 5 ms (p99 ≤ 5 ms cannot be met by construction at 400 reads/s: 4 clients each waiting for its own request average 4 / 400 = 10 ms (Little's law); 4 clients need over 800 reads/s, so at this rate at most 2 clients would meet it, or a faster or larger host)"
  # at 1000 reads/s the mean is 4 ms: reachable, only the p99 is said
  jq -c '.rate_per_s = 1000' "$RUN_DIR/raw/concurrency.4.json" >"$RUN_DIR/raw/c.new"
  mv "$RUN_DIR/raw/c.new" "$RUN_DIR/raw/concurrency.4.json"
  judge concurrency
  run jq -r .why "$RUN_DIR/metrics/concurrency.json"
  assert_output "the step of 4 clients did not keep up: p99 12 ms > 5 ms"
}

@test "verdict: failed requests' times stand beside the successful ones (err_lat_ms), with a note" {
  # the helpers keep failed and timed-out requests out of lat_ms; the report never said so
  local e='{"p50": 5000, "p95": 5000, "p99": 5000, "max": 5000, "mean": 5000}'
  jq -c --argjson e "$e" '.errors = 3 | .err_lat_ms = $e' "$RUN_DIR/raw/login.json" >"$RUN_DIR/raw/l.new"
  mv "$RUN_DIR/raw/l.new" "$RUN_DIR/raw/login.json"
  jq -c --argjson e "$e" '.errors = 2 | .err_lat_ms = $e' "$RUN_DIR/raw/concurrency.4.json" >"$RUN_DIR/raw/c.new"
  mv "$RUN_DIR/raw/c.new" "$RUN_DIR/raw/concurrency.4.json"
  judge login
  judge concurrency
  run jq -c '[.details.err_lat_ms.p99, (.details.notes | any(test("not in lat_ms")))]' "$RUN_DIR/metrics/login.json"
  assert_output '[5000,true]'
  run jq -c '[.details.steps[] | .failed_p99_ms], (.details.notes | any(test("failed_p99_ms the p99 of the failed")))' "$RUN_DIR/metrics/concurrency.json"
  assert_output $'[null,5000]\ntrue'
  # without failures: no err_lat_ms and no note
  cp "$KIT_ROOT/tests/fixtures/run-raw/raw/login.json" "$RUN_DIR/raw/login.json"
  judge login
  run jq -c '[(.details | has("err_lat_ms")), (.details.notes | any(test("not in lat_ms")))]' "$RUN_DIR/metrics/login.json"
  assert_output '[false,false]'
}

# with_profile NAME READS: give raw/NAME.evidence.json a profile probe in which smbd counted
# READS Read calls of 1 ms and one connect (the fixture's run predates the probe).
with_profile() {
  local f="$RUN_DIR/raw/$1.evidence.json" t
  t=$(mktemp)
  jq --argjson n "$2" '.probes.profile = {available: true, level: "on", connects: 1, disconnects: 1,
    commands: [{command: "read", calls: $n, time_us: ($n * 1000), bytes_in: 0, bytes_out: ($n * 4096)}]}' "$f" >"$t"
  mv "$t" "$f"
}

@test "verdict: concurrency's server view is of the step the verdict rests on, not all steps added up" {
  with_profile concurrency.1 111
  with_profile concurrency.4 444
  judge concurrency
  # a FAIL with every step kept up (4 < 64): the largest step that kept up
  run jq -r '"\(.status) \(.details.server.calls) \(.details.server.measurements)|\(.details.server.of)"' "$RUN_DIR/metrics/concurrency.json"
  assert_output 'FAIL 444 1|the step of 4 clients alone, the one the verdict rests on (the largest that kept up)'
  # the count check is of that step too: its reads against its Read calls
  run jq -r '.details.count_check.client == ($f[0].ops + ($f[0].late_ops // 0) + ($f[0].errors // 0))' \
    --slurpfile f "$RUN_DIR/raw/concurrency.4.json" "$RUN_DIR/metrics/concurrency.json"
  assert_output true
  # the step of 4 did not keep up: the view is of that step, which the FAIL rests on
  jq '.errors = 3' "$RUN_DIR/raw/concurrency.4.json" >"$BATS_TEST_TMPDIR/c4" && mv "$BATS_TEST_TMPDIR/c4" "$RUN_DIR/raw/concurrency.4.json"
  judge concurrency
  run jq -r '"\(.value) \(.details.server.calls)|\(.details.server.of)"' "$RUN_DIR/metrics/concurrency.json"
  assert_output '1 444|the step of 4 clients alone, the one the verdict rests on (the first that did not keep up)'
  # the report names it above the table
  run jq -r -L "$KIT_ROOT/lib" 'include "run/serverview"; .details.server | sv_server_md' "$RUN_DIR/metrics/concurrency.json"
  assert_line --index 0 'Of the step of 4 clients alone, the one the verdict rests on (the first that did not keep up):'
}

@test "verdict: cpu's server view is of the run CPU per read comes from, not of login and seqread" {
  with_profile login 5
  with_profile cpu.readers 700
  judge cpu
  run jq -r '"\(.details.server.calls)|\(.details.server.of)"' "$RUN_DIR/metrics/cpu.json"
  assert_output "700|cpu's own smb-readers run alone, the one CPU per read comes from"
}

@test "verdict: CPU per read and per login from the helper's own window reading, not the whole command's" {
  local f
  for f in cpu.readers concurrency.4 login; do
    jq '.server_cpu = {available: true, source: "cgroup2", window_s: 2, used_us: 123456, user_us: 3456, system_us: 120000}' \
      "$RUN_DIR/raw/$f.json" >"$BATS_TEST_TMPDIR/x" && mv "$BATS_TEST_TMPDIR/x" "$RUN_DIR/raw/$f.json"
  done
  judge cpu
  judge concurrency
  run jq -n -c --slurpfile r "$RUN_DIR/raw/cpu.readers.json" --slurpfile c "$RUN_DIR/raw/concurrency.4.json" \
    --slurpfile l "$RUN_DIR/raw/login.json" --slurpfile m "$RUN_DIR/metrics/cpu.json" \
    --slurpfile k "$RUN_DIR/metrics/concurrency.json" '
    [$m[0].value == 123456 / $r[0].ops, $m[0].details.reads == $r[0].ops,
     ($m[0].details.notes[0] | test("smbd CPU over the helper.s measuring window")),
     $m[0].details.per_login_ms == ((123456 / ($l[0].ops + $l[0].errors)) | round) / 1000,
     $k[0].details.steps[1].cpu_us == 123456, $k[0].details.steps[1].cpu_per_read_us == 123456 / $c[0].ops,
     # the step without it keeps the probe around the command
     $k[0].details.steps[0].cpu_us == $e[0].probes.cgcpu.used_us]' \
    --slurpfile e "$RUN_DIR/raw/concurrency.1.evidence.json"
  assert_output "[true,true,true,true,true,true,true]"
}

@test "verdict: concurrency: one row per step from its own files, the largest step that kept up" {
  judge concurrency
  run jq -c '[.value, .status, .why, [.details.steps[] | .clients, .kept_up, .iops]]' "$RUN_DIR/metrics/concurrency.json"
  assert_output "[4,\"FAIL\",\"the largest step tried (4) is below the target 64\",[1,true,$(jq .rate_per_s "$RUN_DIR/raw/concurrency.1.json"),4,true,$(jq .rate_per_s "$RUN_DIR/raw/concurrency.4.json")]]"
  run jq -n --slurpfile f "$RUN_DIR/raw/concurrency.4.json" --slurpfile e "$RUN_DIR/raw/concurrency.4.evidence.json" \
    --slurpfile m "$RUN_DIR/metrics/concurrency.json" \
    '$m[0].details.steps[1].cpu_per_read_us == $e[0].probes.cgcpu.used_us / $f[0].ops'
  assert_output true
  # the progress line of a step, and whether larger steps go on
  run results_jq concurrency 'step_line(4)' concurrency.4
  assert_output $'go\t4 connected, 29420 IOPS, p99 0.299 ms: kept up'
}

@test "verdict: startup writes two rows: the slowest login and recovery (SKIP without a mount)" {
  judge startup
  run jq -n --slurpfile h "$RUN_DIR/raw/startup.1.json" --slurpfile t "$RUN_DIR/raw/startup.1.times.json" \
    --slurpfile m "$RUN_DIR/metrics/startup.json" \
    '$m[0].details.rounds[0].login_ms == ((($h[0].first_success_ns - $t[0].start_ns) / 1e5 | round) / 10)
     and $m[0].value == ([$m[0].details.rounds[].login_ms] | max) and $m[0].status == "PASS"'
  assert_output true
  run jq -r '"\(.status)|\(.value)|\(.why)|\(has("elapsed_s"))"' "$RUN_DIR/metrics/recovery.json"
  assert_output 'SKIP|null|kernel has no cifs support|false'
}

@test "verdict: startup from a client host: its clock's offset taken out, a helper that began late or an unread clock is no time" {
  local n
  CLIENT_HOSTS="ws1 ws2"
  export CLIENT_HOSTS
  # round 1: ws1's clock 30 ms ahead (read with a 4 ms round trip); round 2: its first attempt
  # worked (the helper began after the server was ready); round 3: no clock
  cp "$RUN_DIR/raw/startup.1.json" "$RUN_DIR/raw/startup.3.json"
  cp "$RUN_DIR/raw/startup.1.times.json" "$RUN_DIR/raw/startup.3.times.json"
  for n in 1 2; do
    jq -cn '{host: "ws1", offset_ns: 30000000, rtt_ns: 4000000}' >"$RUN_DIR/raw/startup.$n.clock.json"
  done
  jq -c '.attempts = 1' "$RUN_DIR/raw/startup.2.json" >"$RUN_DIR/raw/x" && mv "$RUN_DIR/raw/x" "$RUN_DIR/raw/startup.2.json"
  judge startup
  run jq -n --slurpfile h "$RUN_DIR/raw/startup.1.json" --slurpfile t "$RUN_DIR/raw/startup.1.times.json" \
    --slurpfile m "$RUN_DIR/metrics/startup.json" -r '$m[0].details.rounds as $r
    | [$r[0].login_ms == ((($h[0].first_success_ns - 30000000 - $t[0].start_ns) / 1e5 | round) / 10),
       $r[1].login_ms == null, $r[2].login_ms == null, $m[0].status == "FAIL", $m[0].value == null] | all,
      $r[1].error, $r[2].error, $m[0].details.notes[-1]'
  assert_line -n 0 true
  assert_line -n 1 "the helper on client host ws1 began after the server was ready (its first attempt worked): not a time of the start"
  assert_line -n 2 "the client host's clock could not be read (its time of the first login is on that clock)"
  assert_line -n 3 "The logins were tried from client host ws1, over its network; its clock was 30 ms off this machine's, taken out of each round (read through the remote shell each round: uncertain by up to 2 ms)."
}

@test "verdict: memory: PSS per held connection from the before and during lines, in decimal MB like every MB of the kit" {
  judge memory
  run jq -n --slurpfile a "$RUN_DIR/raw/memory.pss-before.json" --slurpfile b "$RUN_DIR/raw/memory.pss-during.json" \
    --slurpfile h "$RUN_DIR/raw/memory.hold.json" --slurpfile m "$RUN_DIR/metrics/memory.json" \
    '$m[0].value == ($b[0].pss_kb - $a[0].pss_kb) * 1024 / $h[0].held / 1e6 and $m[0].details.held == 10
     and $m[0].unit == "MB" and ($m[0].details.notes | any(test("decimal")))'
  assert_output true
}

@test "verdict: cpu per read from its own smb-readers run when randread could not run, per login from login's" {
  judge cpu
  run jq -n --slurpfile r "$RUN_DIR/raw/cpu.readers.json" --slurpfile e "$RUN_DIR/raw/cpu.readers.evidence.json" \
    --slurpfile m "$RUN_DIR/metrics/cpu.json" '$m[0] as $m
    | [$m.value == $e[0].probes.cgcpu.used_us / $r[0].ops, $m.details.reads == $r[0].ops,
       ($m.details.notes[0] | test("run of its own .* because randread could not run here \\(kernel has no cifs support\\)")),
       $m.details.per_gb_ms == null, ($m.details.per_login_ms | type) == "number"] | all'
  assert_output true
  # with a randread run in the folder, that run defines CPU per read
  printf '{"jobs":[{"read":{"total_ios":1000}}]}\n' >"$RUN_DIR/raw/randread.fio.json"
  printf '{"probes":{"cgcpu":{"available":true,"used_us":25000,"source":"cgroup2"}}}\n' >"$RUN_DIR/raw/randread.evidence.json"
  judge cpu
  run jq -r '"\(.value) \(.status) \(.details.notes[0])"' "$RUN_DIR/metrics/cpu.json"
  assert_output '25 PASS CPU per read measured on the randread run (fio through the cifs mount; smbd CPU over the whole fio command, its start and file set-up included).'
  # with the jobs' own readings, those
  printf '{"available":true,"source":"cgroup2","jobs":2,"used_us":20000}\n' >"$RUN_DIR/raw/randread.window-cpu.json"
  judge cpu
  run jq -r '.value' "$RUN_DIR/metrics/cpu.json"
  assert_output 20
}

@test "verdict: SKIP and a failed measurement keep the metric's unit and target; no raw file is a FAIL" {
  judge metadata 'no reason at all'
  run jq -c '[.status, .value, .unit, .target, .target_op, .why]' "$RUN_DIR/metrics/metadata.json"
  assert_output '["SKIP",null,"files/s",1000,">=","no reason at all"]'
  judge metadata '' 'helper missing'
  run jq -c '[.status, .value, .why]' "$RUN_DIR/metrics/metadata.json"
  assert_output '["FAIL",null,"helper missing"]'
  rm "$RUN_DIR/raw/metadata.json"
  judge metadata
  run jq -c '[.status, .value, .why]' "$RUN_DIR/metrics/metadata.json"
  assert_output '["FAIL",null,"smb-files gave no result (see raw/metadata.err)"]'
}

@test "verdict: latency with no completed request is a FAIL that says so, not 'p99 0.00 ms'" {
  jq '.jobs[].read.total_ios = 0 | .jobs[].write.total_ios = 0 | .jobs[].read.iops = 0 | .jobs[].write.iops = 0' \
    "$KIT_ROOT/tests/fixtures/charts-run/raw/steady.fio.json" >"$RUN_DIR/raw/steady.fio.json"
  judge latency
  run jq -c '[.status, .value, .why]' "$RUN_DIR/metrics/latency.json"
  assert_output '["FAIL",null,"no request completed in the steady run (fio counted 0 reads and writes): there is no latency to judge"]'
  # with its requests, the same file gives a p99
  cp "$KIT_ROOT/tests/fixtures/charts-run/raw/steady.fio.json" "$RUN_DIR/raw/steady.fio.json"
  judge latency
  run jq -e '.value > 0' "$RUN_DIR/metrics/latency.json"
  assert_success
}

@test "verdict: bigdir: the missing-name lookup's growth from the smallest folder to the largest, the opens against smbd's Creates" {
  judge bigdir
  run jq -n --slurpfile a "$RUN_DIR/raw/bigdir.1000.json" --slurpfile b "$RUN_DIR/raw/bigdir.100000.json" \
    --slurpfile m "$RUN_DIR/metrics/bigdir.json" '
    $m[0] as $m | ($b[0].missing.lat_ms.p50 / $a[0].missing.lat_ms.p50) as $g
    | [$m.value == $g, $m.status == "FAIL", $m.unit == "×", $m.target == 10,
       ($m.why | startswith("a missing-name lookup took \($b[0].missing.lat_ms.p50 | round) ms in 100000 files, \($g | round)× its ")),
       ($m.details.sizes | map(.files)) == [1000, 10000, 100000],
       $m.details.sizes[2].create_p50_ms == $b[0].create.lat_ms.p50,
       ($m.charts[] | select(.name == "growth") | (.series | length) == 4 and .series[0].x == [1000, 10000, 100000]
         and .series[0].y[2] == $b[0].missing.lat_ms.p50 and .kind == "series"),
       ($m.details | has("chart") | not),
       $m.details.server.view == ["bigdir.100000"]] | all'
  assert_output true
  # every opens of the three sizes against smbd's Create calls of the three measurements
  run jq -sc '[.[] | select(.helper) | .opens] | add' "$RUN_DIR"/raw/bigdir.1000.json "$RUN_DIR"/raw/bigdir.10000.json "$RUN_DIR"/raw/bigdir.100000.json
  local opens=$output
  run jq -sc '[.[].probes.profile.commands[] | select(.command == "create") | .calls] | add' "$RUN_DIR"/raw/bigdir.*.evidence.json
  local creates=$output
  run jq -c '.details.count_check | [.client, .server, .ok]' "$RUN_DIR/metrics/bigdir.json"
  assert_output "[$opens,$creates,$([[ $opens == "$creates" ]] && echo true || echo false)]"
}

@test "verdict: bigdir: a size without its helper line fails by name; other-case names not found are a warning" {
  rm "$RUN_DIR/raw/bigdir.10000.json"
  judge bigdir
  run jq -r '[.status, .why] | join(": ")' "$RUN_DIR/metrics/bigdir.json"
  assert_output "FAIL: smb-bigdir gave no result for the folder of 10000 files (see raw/bigdir.*.err)"
  cp "$KIT_ROOT/tests/fixtures/run-raw/raw/bigdir.10000.json" "$RUN_DIR/raw/"
  jq -c '.othercase.not_found = 50 | .othercase.found = 0' "$RUN_DIR/raw/bigdir.1000.json" >"$RUN_DIR/raw/b.new"
  mv "$RUN_DIR/raw/b.new" "$RUN_DIR/raw/bigdir.1000.json"
  judge bigdir
  run jq -r '.warnings[]' "$RUN_DIR/metrics/bigdir.json"
  assert_output "the folder of 1000 files: 50 names in another case were not found (a case-sensitive share)"
}

@test "verdict: every metric of the registry has a verdict that compiles and gives its rows" {
  local m n=0
  for m in $(registry_metrics); do
    judge "$m" 'checking' || fail "the verdict of '$m' failed: $(cat "$BATS_TEST_TMPDIR/$m.log")"
    n=$((n + 1))
  done
  run find "$RUN_DIR/metrics" -name '*.json'
  assert_equal "${#lines[@]}" "$(registry_rows | wc -l)"
  ((n == $(registry_metrics | wc -l)))
}

@test "format: numbers, fixed decimals, target signs and the small-host rule in one module" {
  run jq -nr -L "$KIT_ROOT/lib" 'include "format";
    [(1234.5 | num), (12.345 | num), (0.12345 | num), (3 | num), (41.75 | fixed(1)), (3 | fixed(2)),
     ({target: 5, target_op: "<=", unit: "ms"} | target_text), (small_host(3; 2)), (small_host(2; 2)),
     (small_host(8; 8))] | map(tostring) | join(" ")'
  assert_output '1235 12.3 0.123 3 41.8 3.00 ≤ 5 ms true false false'
}

@test "format: the same warning of several measurements or repeats is one line, its numbers as ranges" {
  # a default run's concurrency section listed the CPU warning of each step and repeat: 9 lines
  run jq -nc -L "$KIT_ROOT/lib" 'include "format";
    ["the clients used 0.6 of 2 cores during concurrency.4 (smbd 1.2): the machine was 94 % busy",
     "other warning",
     "the clients used 0.8 of 2 cores during concurrency.128 (smbd 1.4): the machine was 99 % busy",
     "other warning",
     "the clients used 0.6 of 2 cores during concurrency.16 (smbd 1.2): the machine was 91 % busy",
     "the server counted 3 % fewer reads"] | warnings_merge("measurements")'
  assert_output '["the clients used 0.6–0.8 of 2 cores during concurrency.4/16/128 (smbd 1.2–1.4): the machine was 91–99 % busy (in 3 measurements)","other warning","the server counted 3 % fewer reads"]'
  # signs and exponents belong to their number; merged warnings merge again (repeats)
  run jq -nc -L "$KIT_ROOT/lib" 'include "format";
    (["x -5 y", "x -3 y", "t 1e-05 s", "t 3e-05 s"] | warnings_merge("measurements")),
    (["a 0.6–0.8 b (in 3 measurements)", "a 0.5 b", "a 0.7–0.9 b (in 2 measurements)"] | warnings_merge("repeats"))'
  assert_line --index 0 '["x -5–-3 y (in 2 measurements)","t 1e-05–3e-05 s (in 2 measurements)"]'
  assert_line --index 1 '["a 0.5–0.9 b (in 3 repeats)"]'
  # a metric object merges its measurements' warnings
  run jq -nc -L "$KIT_ROOT/lib" --arg metric x --argjson elapsed null 'include "run/verdict";
    {status: "PASS", value: 1, warnings: ["a 1 b", "a 2 b", "c"]} | object | .warnings'
  assert_output '["a 1–2 b (in 2 measurements)","c"]'
}

@test "registry: a metric without one of its functions, or with an unknown need, is refused by name" {
  local root="$BATS_TEST_TMPDIR/kit copy"
  mkdir -p "$root"
  cp -R "$KIT_ROOT/lib" "$root/"
  echo odd >>"$root/lib/metrics/list"
  printf 'include "run/verdict";\ndef verdict: row({unit: "x", target: 1, target_op: "<="}; {value: 0});\n' >"$root/lib/metrics/odd.jq"
  printf 'odd_describe() { echo odd; }\nodd_needs() { echo mount; }\n' >"$root/lib/metrics/odd.sh"
  KIT_ROOT=$root run registry_load
  assert_failure 1
  assert_output "error: metric 'odd' defines no 'odd_estimate' in 'lib/metrics/odd.sh'"
  printf 'odd_estimate() { echo 1; }\nodd_needs() { echo disk; }\n' >>"$root/lib/metrics/odd.sh"
  KIT_ROOT=$root run registry_load
  assert_failure 1
  assert_output "error: metric 'odd' needs 'disk': choose from mount steady datafile cgcpu"
  printf 'odd_needs() { :; }\nodd_repeat() { echo twice; }\n' >>"$root/lib/metrics/odd.sh"
  KIT_ROOT=$root run registry_load
  assert_failure 1
  assert_output "error: metric 'odd' repeats 'twice': choose from each once first"
  printf 'odd_repeat() { echo first; }\n' >>"$root/lib/metrics/odd.sh"
  KIT_ROOT=$root run registry_load
  assert_success
  # shellcheck source=/dev/null
  source "$root/lib/metrics/odd.sh"
  run registry_repeat odd
  assert_output first
  run registry_repeat startup
  assert_output once
  rm "$root/lib/metrics/odd.jq"
  KIT_ROOT=$root run registry_load
  assert_output "error: metric 'odd' has no verdict 'lib/metrics/odd.jq'"
}

@test "latency from when due: a 300 ms request at 500/s stands for the 149 requests due behind it" {
  # HdrHistogram's recordValueWithExpectedInterval, by hand: 298, 296, ..., 2 ms added to the
  # 2,499 of 0.1 ms and the one of 300 ms: 2,649 values, the 27th largest is 248 ms
  run jq -n -c -L "$KIT_ROOT/lib" 'include "run/steady";
    ({"100000": 2499, "300000000": 1} | due_latency(.; 2e6)),
    ({"1000000": 10, "3000000": 5, "4000000": 1} | due_latency(.; 2e6) | [.held_back, .p99]),
    due_latency(null; 2e6)'
  assert_output $'{"p50":0.1,"p95":36,"p99":248,"max":300,"requests":2500,"counted":2649,"held_back":149}\n[1,4]\nnull'
}
