#!/usr/bin/env bats
# tests/metrics/wire.bats: a real run against a private kit started here (port 4440-4449, client
# 127.0.0.10, own user, table and service) shows what the kit's parts add to every run: the
# server's per-command table with the client's count against smbd's, the client/server CPU
# split, the local-disk baseline (also where the cifs metrics SKIP), the charts and
# report.html; with SMBD_PROFILING=off the server view is "not available" and the rest works;
# compare lists the smb.conf difference of the two runs. Run it under the live lock.

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  load '../test_helper/private-kit'
  private_kit_setup wt 4440 4449 127.0.0.10 small <<CONF || return 1
DURATION=2
DATA_FILE_MB=32
BIGDIR_SIZES="100 3000"
BIGDIR_OPS=20
CONF
  W_ROOT=$PK_ROOT
  export W_ROOT
  private_kit_start || return 1
  # the one measured run every test below reads (a FAIL against a target is fine: exit 1)
  "$KIT_ROOT/test-samba.sh" login metadata bigdir concurrency memory seqwrite seqread randread randwrite localdisk \
    >"$W_ROOT/run.log" 2>&1 || [[ $? -eq 1 ]] || {
    cat "$W_ROOT/run.log" >&3
    return 1
  }
  W_RUN=$(find "$W_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  export W_RUN
}

teardown_file() {
  load '../test_helper/private-kit'
  private_kit_teardown
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_root
  kit_require_cmd jq smbstatus
  [[ -n ${W_RUN:-} && -f $W_RUN/results.json ]] || fail "the run in setup_file wrote no results"
  R=$W_RUN/results.json
}

# section METRIC: the report.md section of METRIC (from its heading to the next '## ').
section() {
  awk -v m="(\`$1\`)" 'index($0, "## ") == 1 { on = (index($0, m) > 0) } on' "$W_RUN/report.md"
}

@test "wire: login, metadata, concurrency and memory each show smbd's per-command table" {
  local m first
  for m in login metadata concurrency memory; do
    run jq -e --arg m "$m" '.metrics[$m].details.server | .available == true and .level == "on"
      and (.commands | length) > 0 and .connects > 0
      and all(.commands[]; .calls > 0 and (.mean_us | type == "number") and .share >= 0 and .share <= 1
        and .bytes_in > 0 and .bytes_out > 0)
      and ([.commands[].share] | add | . > 0.999 and . < 1.001)' "$R"
    assert_success
    # the section names the commands with most server time, the first as results.json has it
    first=$(jq -r --arg m "$m" '.metrics[$m].details.server.commands[0].command' "$R")
    run section "$m"
    assert_line --regexp "^- Server view \(time inside smbd, not on the wire; see docs/server-view\.md\): (of .*: )?$first [0-9.<]+ ?[0-9.]* % \([0-9]+ calls?, [0-9.]+ (µs|ms) each\), "
  done
  # what each metric makes smbd do most
  run jq -r '.metrics.concurrency.details.server.commands[0].command, .metrics.metadata.details.server.commands[0].command,
    (.metrics.login.details.server.commands | map(.command) | index("SessionSetup") != null)' "$R"
  assert_output $'Read\nCreate\ntrue'
}

@test "wire: smbd's counts equal the helpers' own counts (tolerance stated), with no warning" {
  local step
  run jq -r '.metrics | [.login, .metadata, .concurrency][] | .details.count_check
    | "\(.what) \(.client == .server) \(.tolerance_pct)"' "$R"
  assert_output $'logins true 1\nfiles written true 1\nreads true 1'
  # independent: the helpers' own lines
  run jq -r '.metrics.login.details.server.connects' "$R"
  assert_output "$(jq '.ops + .late_ops + .errors' "$W_RUN/raw/login.json")"
  # concurrency's view is of the step its verdict rests on
  step=$(jq -r '.metrics.concurrency.details.server.view[0]' "$R")
  [[ $step =~ ^concurrency\.[0-9]+$ ]] || fail "concurrency's server view is of '$step'"
  run jq -r '.metrics.concurrency.details.server.commands[] | select(.command == "Read") | .calls' "$R"
  assert_output "$(jq '.ops + .late_ops + .errors' "$W_RUN/raw/$step.json")"
  run section login
  assert_line --regexp '^- CPU: .* s\. Client against server: the client reported [0-9]+ logins, smbd counted [0-9]+ \(equal; tolerance 1 %\)\.$'
  run jq -r '[.metrics[].warnings[] | select(test("the server counted"))] | length' "$R"
  assert_output 0
}

@test "wire: bigdir: its opens equal smbd's Creates, its chart and server view are in the report, its folders are gone" {
  local share
  run jq -r '.metrics.bigdir | .details.count_check | "\(.client == .server) \(.ok)"' "$R"
  assert_output "true true"
  # independent: the helper lines' opens, added up by the test
  run jq -r '.metrics.bigdir.details.count_check.client' "$R"
  assert_output "$(jq -s '[.[].opens] | add' "$W_RUN"/raw/bigdir.100.json "$W_RUN"/raw/bigdir.3000.json)"
  run jq -r '.metrics.bigdir | [.details.server.view[0], (.details.sizes | map(.files) | tostring),
    (.value == .details.growth.missing)] | join(" ")' "$R"
  assert_output 'bigdir.3000 [100,3000] true'
  run jq -r '.charts.charts[] | select(.metric == "bigdir") | .file' "$R"
  assert_line charts/growth-bigdir.svg
  run section bigdir
  assert_output --partial '![bigdir: time per operation against folder size](charts/growth-bigdir.svg)'
  assert_output --partial 'Server view (time inside smbd, not on the wire; see docs/server-view.md): of the folder of 3000 files (the largest): '
  share=$(sed -n 's/^SHARE_DIR=//p' "$W_RUN/settings.env" | tr -d "'\"")
  [[ -n $share && ! -e $share/bigdir ]] || fail "the big folders are still in '$share/bigdir'"
}

@test "wire: every measured metric has the client/server CPU split, and no warning counts processes" {
  local m
  for m in login metadata concurrency memory localdisk; do
    run jq -e --arg m "$m" '.metrics[$m].details.cpu | .available == true and .nproc > 0
      and .client.source != null and .client.cpu_s > 0 and .server.cpu_s >= 0
      and .machine.share > 0 and .others.cores >= 0' "$R"
    assert_success
    run section "$m"
    assert_line --regexp '^- CPU: client [0-9.]+ cores? \([0-9]+ %\), smbd [0-9.]+ cores? \([0-9]+ %\), others [0-9.]+, of [0-9]+ cores over [0-9.]+ s(\. Client against server: .*)?$'
  done
  # smbd's CPU of the login run is the cgroup's, the clients' their own cgroup's
  run jq -e '.metrics.login.details.cpu.server.cpu_s > 0 and .metrics.login.details.cpu.client.cpu_s > 0' "$R"
  assert_success
  run grep -c 'client processes shared' "$W_RUN/report.md"
  assert_output 0
  # the client cgroup is gone after the run
  run find /sys/fs/cgroup -maxdepth 2 -name "$PK_SERVICE-clients"
  assert_output ''
}

@test "wire: the local-disk baseline runs the four fio jobs though the cifs metrics SKIP, and each data metric shows it" {
  local m
  run jq -e '.metrics.localdisk | .status == "PASS" and .value == 4 and .target == null
    and ([.details.jobs[].job] == ["seqwrite", "seqread", "randread", "randwrite"])
    and all(.details.jobs[]; .local_disk > 0 and (.direct_io | type == "boolean"))' "$R"
  assert_success
  for m in seqwrite seqread randread randwrite; do
    if grep -q '^KIT_MOUNTED=no' "$W_ROOT/state/kit.env"; then
      # a SKIP is a line of 'Not measured'; the baseline's figure stays in its own section
      run awk 'index($0, "## ") == 1 { on = ($0 == "## Not measured") } on' "$W_RUN/report.md"
      assert_line --regexp "^- .* \(\`$m\`\): "
      run section localdisk
      assert_line --regexp "^- $m: local disk [0-9.]+ (MB/s|IOPS) \(buffered, as smbd\); Samba: not measured in this run\.$"
    else
      run section "$m"
      assert_line --regexp "^- Local disk baseline \(\`localdisk\`\): [0-9.]+ (MB/s|IOPS) .*; Samba reaches [0-9]+ % of it\.$"
    fi
  done
  [[ -s $W_RUN/raw/localdisk.randread.fio.json && -s $W_RUN/raw/localdisk.seqwrite.evidence.json ]]
}

@test "wire: report.html holds the charts inline; report.md links them; results.json lists them" {
  kit_require_cmd gnuplot cmark-gfm
  local f n
  run jq -r '.charts.why, (.charts.charts[] | .file)' "$R"
  assert_line null
  assert_line charts/curve-concurrency.svg
  for f in login metadata concurrency memory; do assert_line "charts/server-$f.svg"; done
  run jq -r '.charts.charts[].file' "$R"
  n=${#lines[@]}
  for f in "${lines[@]}"; do
    [[ -s $W_RUN/$f ]] || fail "no file $f"
    grep -qF "]($f)" "$W_RUN/report.md" || fail "report.md does not link $f"
  done
  [[ -s $W_RUN/report.html ]] || fail "no report.html"
  run grep -c '<svg ' "$W_RUN/report.html"
  ((output == n)) || fail "report.html has $output charts inline, results.json lists $n"
  run grep -c '<img' "$W_RUN/report.html"
  assert_output 0
}

@test "wire: the run keeps the test server's smb.conf (no secret in it); profiling off makes the server view 'not available' and compare names the difference" {
  kit_require_cmd testparm
  local conf=$W_ROOT/conf/smb.conf pw off
  cmp "$W_RUN/smb.conf" "$conf"
  pw=$(sed -n 's/^password=//p' "$W_ROOT/conf/credentials")
  [[ -n $pw ]]
  run grep -rlF -- "$pw" "$W_RUN"
  assert_failure
  # profiling off: restart with the setting, measure login again
  SMBD_PROFILING=off "$KIT_ROOT/start-samba.sh" >"$W_ROOT/start-off.log" 2>&1 || fail "$(cat "$W_ROOT/start-off.log")"
  [[ $(testparm -s --parameter-name='smbd profiling level' "$conf" 2>/dev/null) == off ]] ||
    fail "the rendered smb.conf does not turn profiling off"
  SMBD_PROFILING=off run "$KIT_ROOT/test-samba.sh" login
  [[ $status -le 1 ]] || fail "$output"
  off=$(find "$W_ROOT/results" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort | tail -n 1)
  [[ $off != "$W_RUN" ]]
  run jq -e '.metrics.login | (.status == "PASS" or .status == "FAIL") and (.value | type == "number")
    and .details.server.available == false and (.details.server.why | test("smbd profiling level = off"))
    and .details.cpu.available == true' "$off/results.json"
  assert_success
  run grep -E 'Server view .*: not available \(smbd profiling level = off in' "$off/report.md"
  assert_success
  # compare: the smb.conf and settings differences between the two runs
  run "$KIT_ROOT/test-samba.sh" compare -o "$W_ROOT/cmp" "$W_RUN" "$off"
  [[ $status -le 1 ]] || fail "$output"
  assert_output --partial 'smbd profiling level'
  assert_output --partial 'SMBD_PROFILING'
  [[ -s $W_ROOT/cmp/compare.html ]]
  "$KIT_ROOT/start-samba.sh" >/dev/null 2>&1
}
