#!/usr/bin/env bats
# tests/metrics/run.bats: test-samba.sh's measuring run: usage, refusals, and end to end against
# a private kit started here (port 4460-4469, client 127.0.0.9, own user, table and service).

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  load '../test_helper/private-kit'
  private_kit_setup m 4460 4469 127.0.0.9 small <<CONF || return 1
DURATION=2
DATA_FILE_MB=32
CONF
  M_ROOT=$PK_ROOT
  export M_ROOT
  private_kit_start || return 1
}

teardown_file() {
  load '../test_helper/private-kit'
  private_kit_teardown
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# scratch_kit DIR: a throw-away copy of the kit (helpers built) in DIR.
scratch_kit() {
  mkdir -p "$1"
  cp -R "$KIT_ROOT/." "$1/"
  rm -rf "$1/.git" "$1/results"
}

# last_run: print the newest results folder.
last_run() {
  find "$M_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1
}

@test "run: -h prints the usage with the metric names and exit statuses" {
  run "$KIT_ROOT/test-samba.sh" -h
  assert_success
  assert_output --partial 'startup login seqwrite'
  assert_output --partial 'Exit status'
}

@test "run: an unknown metric or option is a usage error (exit 2) naming it" {
  run "$KIT_ROOT/test-samba.sh" login nosuch
  assert_failure 2
  assert_output --partial "unknown metric 'nosuch'"
  assert_output --partial 'choose from startup login'
  run "$KIT_ROOT/test-samba.sh" --fast
  assert_failure 2
  assert_output --partial "unknown option '--fast'"
}

@test "run: metric names run in the order of lib/metrics/list, once each; none means all of them" {
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" common-traps registry run/run
  run_parse_args memory login cpu login
  assert_equal "${RUN_METRICS[*]}" "login cpu memory"
  run_parse_args
  assert_equal "${RUN_METRICS[*]}" "$(grep -v '^#' "$KIT_ROOT/lib/metrics/list" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
  # the count and the ends read from the list, not written here (a new metric changes no test)
  local n first last
  n=$(grep -cv '^#' "$KIT_ROOT/lib/metrics/list")
  first=$(grep -v '^#' "$KIT_ROOT/lib/metrics/list" | head -n 1 | cut -d' ' -f1)
  last=$(grep -v '^#' "$KIT_ROOT/lib/metrics/list" | tail -n 1 | cut -d' ' -f1)
  assert_equal "${#RUN_METRICS[@]}" "$n"
  assert_equal "${RUN_METRICS[0]} ${RUN_METRICS[-1]}" "$first $last"
  # the usage text names them all, with their count
  run "$KIT_ROOT/test-samba.sh" -h
  assert_output --partial "Metrics ($n, in run order):"
}

@test "run: the time left is the estimates of what is left, scaled by how the metrics so far kept to theirs" {
  # the estimates knew nothing of the probes around each measurement: a default run said
  # "about 380 s" and took 453 s
  run bash -c 'source "$1/lib/run/run.sh"
    RUN_LEFT=100 RUN_EST_DONE=0 RUN_TOOK_DONE=0; run_left
    RUN_EST_DONE=40 RUN_TOOK_DONE=50; run_left
    RUN_EST_DONE=40 RUN_TOOK_DONE=10; run_left
    RUN_EST_DONE=40 RUN_TOOK_DONE=400; run_left
    RUN_EST_DONE=3 RUN_TOOK_DONE=30; run_left
    RUN_EST_DONE=6 RUN_TOOK_DONE=3; run_left' run-left "$KIT_ROOT"
  assert_success
  # the last: startup alone (6 s estimated, 3 s taken) halved the rest; a default run then said
  # 'run ends in about 180 s' with 440 s to go. Fewer than 30 estimated seconds scale nothing.
  assert_output $'100\n125\n50\n300\n100\n100'
}

@test "run: the estimate counts the steady run once a round, also with repeats" {
  # with REPEAT=3, latency and errors each counted the steady run in every round: 33 s too many
  run bash -c 'source "$1/lib/run/run.sh"; source "$1/lib/run/repeat.sh"; source "$1/lib/registry.sh"
    startup_repeat() { echo once; }
    registry_estimate() { case $1 in startup) echo 10 ;; latency | errors) echo 11 ;; login) echo 11 ;; esac; }
    startup_needs() { :; }; login_needs() { :; }; latency_needs() { echo mount steady; }; errors_needs() { echo mount steady; }
    fio_skip_reason() { return 1; }; fio_steady_estimate() { echo 11; }
    RUN_METRICS=(startup latency errors login)
    REPEAT=1 run_estimate_all; REPEAT=3 run_estimate_all' run-est "$KIT_ROOT"
  assert_success
  # REPEAT=1: 10 + 11 (the steady run) + 11 (login); REPEAT=3: startup once, 3 x (11 + 11)
  assert_output $'32\n76'
}

@test "run: refuses in one line naming ./start-samba.sh when the kit is not started" {
  kit_require_root
  local dir=$BATS_TEST_TMPDIR/unstarted
  mkdir -p "$dir"
  printf 'STATE_DIR=%s/state\nCONF_DIR=%s/conf\nRESULTS_DIR=%s/results\n' "$dir" "$dir" "$dir" >"$dir/settings.conf"
  KIT_SETTINGS=$dir/settings.conf run "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_output --partial 'not started'
  assert_output --partial './start-samba.sh'
  assert_equal "${#lines[@]}" 1
  [[ ! -e $dir/results ]] || fail "a results folder was made for a refused run"
  # a state file whose server is gone: refused too
  mkdir -p "$dir/state"
  printf 'samba-perf-test kit folder made %s\n' "$dir/state" >"$dir/state/.samba-perf-test" # lib/server/state.sh trusts a marked STATE_DIR only
  printf 'KIT_SERVICE_MODE=daemon\nKIT_SMBD_PID=999999\n' >"$dir/state/kit.env"
  KIT_SETTINGS=$dir/settings.conf run "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_output --partial 'not running: run ./start-samba.sh'
}

@test "run: end to end, DURATION=2: real numbers for the libsmbclient metrics, fio metrics SKIP with the reason" {
  kit_require_root
  kit_require_cmd jq gnuplot xmllint
  local dir m skip pw rc
  run "$KIT_ROOT/test-samba.sh" startup login metadata concurrency memory cpu seqwrite seqread randread randwrite latency errors
  rc=$status
  [[ $rc -eq 0 || $rc -eq 1 ]] || fail "exit status $rc: $output"
  assert_output --partial '[1/12] startup'
  assert_output --regexp 'login: (PASS|FAIL) [0-9.]+ logins?/s'
  refute_output --partial $'\e[' # no colour when stderr is not a terminal
  dir=$(last_run)
  [[ ! -e $dir/INCOMPLETE ]] || fail "the run is marked incomplete"
  jq -e . "$dir/results.json" >/dev/null
  for m in startup login metadata concurrency memory cpu; do
    run jq -e --arg m "$m" '.metrics[$m] | (.status == "PASS" or .status == "FAIL") and (.value | type == "number")' "$dir/results.json"
    assert_success
  done
  # the exit status agrees with the verdicts
  run jq -r '.verdict' "$dir/results.json"
  if [[ $output == FAIL ]]; then assert_equal "$rc" 1; else assert_equal "$rc" 0; fi
  skip=$(sed -n 's/^KIT_MOUNT_SKIP=//p' "$M_ROOT/state/kit.env")
  if grep -q '^KIT_MOUNTED=no' "$M_ROOT/state/kit.env"; then
    for m in seqwrite seqread randread randwrite latency errors recovery; do
      run jq -r --arg m "$m" '.metrics[$m] | "\(.status) \(.value) \(.why)"' "$dir/results.json"
      assert_output "SKIP null $(eval "printf '%s' $skip")"
    done
  fi
  # the concurrency rows and startup rounds are all in the report
  run cat "$dir/report.md"
  # startup's rounds are its repeats: their range follows the slowest round
  assert_line --regexp '^\| \[startup\]\(#startup-time-until-a-login-works-startup\) \| [0-9.]+ ms( \(range [0-9.]+–[0-9.]+, n=[0-9]+\))? \| ≤ 500 ms \| (PASS|\*\*FAIL\*\*) \|'
  assert_line --regexp '^\| \[concurrency\]\(#concurrency-concurrency\) \| [0-9]+ clients? \|'
  assert_line --regexp '^\| 4 \| [0-9]+ \| 0 \| [0-9]+ \|'
  assert_line --regexp '^\| 2 \| [0-9.]+ \| [0-9]+ \|'
  assert_output --partial 'smbd CPU per login attempt (ms)'
  # the charts are drawn from results.json: the timed libsmbclient metrics' and the concurrency
  # curve, each linked in report.md; none that gnuplot could not draw
  for m in latency-login time-login latency-metadata time-metadata curve-concurrency latency-concurrency; do
    xmllint --noout "$dir/charts/$m.svg"
    grep -qF "](charts/$m.svg)" "$dir/report.md" || fail "report.md does not link charts/$m.svg"
  done
  run jq -r '.charts.not_drawn[] | select(.why | startswith("gnuplot")) | "\(.metric) \(.kind): \(.why)"' "$dir/results.json"
  assert_output ''
  run jq -e '.sessions.signing | type == "string"' "$dir/system.json"
  assert_success
  # no password anywhere in the results
  pw=$(sed -n 's/^password=//p' "$M_ROOT/conf/credentials")
  [[ -n $pw ]]
  run grep -rlF -- "$pw" "$dir"
  assert_failure
  # nothing left on the share but the data file
  run find "$M_ROOT/share" -mindepth 1 -not -path "$M_ROOT/share/fio*" -not -name .samba-perf-test
  assert_output ''
}

@test "run: a FAIL gives exit status 1 and the advice in the report; SKIP or PASS give 0" {
  kit_require_root
  TARGET_SEQWRITE_MIN_MBS=0 DATA_FILE_MB=8 DURATION=1 run "$KIT_ROOT/test-samba.sh" seqwrite
  assert_success
  assert_output --regexp 'seqwrite: (SKIP|PASS)'
  TARGET_MEMORY_PER_CONN_MAX_MB=0 run "$KIT_ROOT/test-samba.sh" memory
  assert_failure 1
  assert_output --partial 'memory: FAIL'
  run cat "$(last_run)/report.md"
  assert_line --partial '- **What to change**: '
}

@test "run: a host name that does not resolve is recorded and named in the report (smbd looks it up per connection)" {
  kit_require_root
  kit_require_cmd unshare
  # the run in a UTS namespace of its own, whose host name nobody knows
  # shellcheck disable=SC2016 # expanded by the inner bash
  run unshare -u bash -c 'hostname kit-name-nobody-knows && exec env DURATION=1 "$1/test-samba.sh" memory' _ "$KIT_ROOT"
  run jq -r '.name_lookup | "\(.name) \(.resolves) \(.error)"' "$(last_run)/system.json"
  assert_output 'kit-name-nobody-knows false not found'
  run cat "$(last_run)/report.md"
  assert_output --partial "this host's name 'kit-name-nobody-knows' does not resolve (not found): smbd looks it up on every connection"
  # and a name that resolves gives no such warning
  run env DURATION=1 "$KIT_ROOT/test-samba.sh" memory
  run jq -r '.name_lookup.resolves' "$(last_run)/system.json"
  assert_output true
  run grep -c "smbd looks it up on every connection" "$(last_run)/report.md"
  assert_output 0
}

@test "run: TERM during a run stops the helpers, writes the partial report marked incomplete, keeps the server" {
  kit_require_root
  local pid dir i
  DURATION=20 "$KIT_ROOT/test-samba.sh" metadata login >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  for ((i = 0; i < 100; i++)); do
    grep -q 'login:' "$BATS_TEST_TMPDIR/out" && break
    sleep 0.1
  done
  sleep 2
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  assert_equal "$status" 143 # 128 + SIGTERM, as README's exit-status table says
  dir=$(last_run)
  run cat "$dir/report.md"
  assert_output --partial '**INCOMPLETE**: interrupted by the user (TERM)'
  assert_output --partial "during 'login'"
  assert_output --partial 'not measured: login, metadata'
  run pgrep -f "smb-login-storm -A $M_ROOT"
  assert_failure
  [[ ! -e $M_ROOT/share/metadata ]] || fail "the metadata folder was left on the share"
  run "$KIT_ROOT/test-samba.sh" memory
  refute_output --partial 'not running'
  refute_output --partial 'not started'
}

@test "run: bigdir makes each folder once a run, measures it in every repeat, removes it at the end and when the run stops" {
  kit_require_root
  local pid i
  run env BIGDIR_SIZES="50 400" BIGDIR_OPS=5 REPEAT=2 "$KIT_ROOT/test-samba.sh" bigdir
  [[ $status -eq 0 || $status -eq 1 ]] || fail "exit status $status: $output"
  assert_equal "$(grep -c 'making a folder of' <<<"$output")" 2
  jq -e '.metrics.bigdir | (.repeats | length) == 2 and (.details.sizes | map(.files)) == [50, 400]
    and all(.details.sizes[]; .listed == .files)' "$(last_run)/results.json" || fail "$(jq -c .metrics.bigdir "$(last_run)/results.json")"
  [[ ! -e $M_ROOT/share/bigdir ]] || fail "the big folders were left on the share"
  # stopped while it measures the second folder: the helper ends, the folders go
  BIGDIR_SIZES="50 5000" BIGDIR_OPS=100000 BIGDIR_SECONDS=5 "$KIT_ROOT/test-samba.sh" bigdir >"$BATS_TEST_TMPDIR/out" 2>&1 &
  pid=$!
  for ((i = 0; i < 900; i++)); do
    pgrep -f "smb-bigdir -A $M_ROOT/conf/credentials .*/bigdir/5000" >/dev/null && break
    sleep 0.1
  done
  ((i < 900)) || fail "smb-bigdir never ran on the folder of 5000: $(cat "$BATS_TEST_TMPDIR/out")"
  sleep 1
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  assert_equal "$status" 143
  run pgrep -f "smb-bigdir -A $M_ROOT"
  assert_failure
  [[ ! -e $M_ROOT/share/bigdir ]] || fail "a stopped run left the big folders on the share"
  grep -q "during 'bigdir'" "$(last_run)/report.md" || fail "no partial report naming bigdir"
}

@test "run: with repeats, a metric the host cannot run says SKIP once; a round begins with its header" {
  kit_require_root
  local skip_metric
  # without kernel cifs seqread SKIPs; with it, memory stands in for a metric that runs
  run env REPEAT=2 DURATION=1 "$KIT_ROOT/test-samba.sh" seqread memory
  [[ $status -le 1 ]] || fail "$output"
  assert_equal "$(grep -c '^── repeat [12] of 2 ──$' <<<"$output")" 2
  # one progress line a round (a disturbed repeat measured again repeats its round's line)
  assert_equal "$(grep '\] memory:' <<<"$output" | sort -u | wc -l)" 2
  skip_metric=$(jq -r '.metrics.seqread.status' "$(last_run)/results.json")
  if [[ $skip_metric == SKIP ]]; then
    assert_equal "$(grep -c '\] seqread:' <<<"$output")" 1
    assert_equal "$(grep -c 'seqread: SKIP' <<<"$output")" 1
  fi
}

@test "settings: a bad BIGDIR_SIZES is refused in one line naming the key, by the metric's own check" {
  kit_require_root
  local before
  before=$(find "$M_ROOT/results" -mindepth 1 -maxdepth 1 | wc -l)
  run env BIGDIR_SIZES="1000 100" "$KIT_ROOT/test-samba.sh" bigdir
  assert_failure 1
  assert_output "error: setting 'BIGDIR_SIZES' has bad value '1000 100': sizes must rise: each larger than the one before"
  run env BIGDIR_SIZES="1000" "$KIT_ROOT/test-samba.sh" bigdir
  assert_failure 1
  assert_output --partial "must be two or more whole numbers"
  run env BIGDIR_OPS=0 "$KIT_ROOT/test-samba.sh" bigdir
  assert_failure 1
  assert_output --partial "setting 'BIGDIR_OPS'"
  assert_equal "$(find "$M_ROOT/results" -mindepth 1 -maxdepth 1 | wc -l)" "$before"
}

@test "run: a second run against the same server is refused while the first one measures" {
  kit_require_root
  kit_require_cmd flock
  local lock=/run/samba-perf-test/$PK_SERVICE.lock # lib/lock.sh: one lock per SERVICE_NAME
  exec 9>>"$lock"
  flock -n 9
  echo "$$ run" >"$lock.holder"
  run "$KIT_ROOT/test-samba.sh" memory
  exec 9>&-
  assert_failure 1
  assert_output --partial 'another ./test-samba.sh run is measuring this test server'
  run "$KIT_ROOT/test-samba.sh" memory
  assert_output --partial 'memory:'
}

@test "run: a metric added by docs/CONTRACTS.md alone (list line, NAME.sh, NAME.jq, advice, setting) runs and is reported" {
  kit_require_root
  local kit="$BATS_TEST_TMPDIR/scratch kit" dir
  scratch_kit "$kit"
  # 1. name it in the list
  echo 'hello' >>"$kit/lib/metrics/list"
  # 2. its file: describe, estimate, needs, measure through 'measure'
  cat >"$kit/lib/metrics/hello.sh" <<'SH'
# lib/metrics/hello.sh: a throw-away metric: how long until one login works (smb-wait-login).
hello_describe() { echo "one login"; }
hello_estimate() { echo 1; }
hello_needs() { :; }
hello_measure() {
  local h
  h=$(child_helper smb-wait-login) || return 1
  measure hello 30 -- "$h" -A "$KIT_CREDENTIALS" -t 10 "$KIT_UNC" || true
}
SH
  # 3. its verdict
  cat >"$kit/lib/metrics/hello.jq" <<'JQ'
include "run/verdict";
include "format";

def verdict:
  row({unit: "ms", target: setting("TARGET_HELLO_MAX_MS"), target_op: "<="};
    .["hello.json"] as $f
    | if ($f | type) != "object" then {status: "FAIL", value: null, why: "smb-wait-login gave no result"}
      else {value: $f.elapsed_ms, details: {attempts: $f.attempts,
        smbd_cpu_us: .["hello.evidence.json"].probes.cgcpu.used_us}} end);
JQ
  # its advice and its settings key
  jq '.hello = {title: "Hello: one login", what: "Time until one login works.",
    causes: ["The server is slow."], changes: ["Make it faster."]}' "$KIT_ROOT/lib/report/advice.json" >"$kit/lib/report/advice.json"
  echo 'TARGET_HELLO_MAX_MS=60000            # one login works within this many ms' >>"$kit/settings.conf"
  # until lib/settings.sh reads its keys from settings.conf (issue 9), declare the key there too
  if grep -q 'TARGET_CPU_PER_READ_MAX_US TARGET_MEMORY_PER_CONN_MAX_MB$' "$kit/lib/settings.sh"; then
    sed -i -e 's/TARGET_CPU_PER_READ_MAX_US TARGET_MEMORY_PER_CONN_MAX_MB$/& TARGET_HELLO_MAX_MS/' \
      -e 's/TARGET_MEMORY_PER_CONN_MAX_MB=1$/& TARGET_HELLO_MAX_MS=60000/' "$kit/lib/settings.sh"
  fi
  run "$kit/test-samba.sh" -h
  assert_output --partial "Metrics ($(grep -cv '^#' "$kit/lib/metrics/list"), in run order):"
  assert_output --partial 'memory hello'
  run "$kit/test-samba.sh" hello
  assert_success
  assert_output --partial '[1/1] hello: one login'
  assert_output --regexp 'hello: PASS [0-9.]+ ms'
  dir=$(last_run)
  run jq -e '.metrics.hello | .status == "PASS" and (.value | type == "number") and .target == 60000
    and .details.attempts >= 1 and (.details.smbd_cpu_us | type == "number")' "$dir/results.json"
  assert_success
  run cat "$dir/report.md"
  assert_line --regexp '^\| \[hello\]\(#hello-one-login-hello\) \| [0-9.]+ ms \| ≤ 60000 ms \| PASS \|  \|$'
  assert_line "## Hello: one login (\`hello\`)"
  run jq -e '.probes.cgcpu.available and .exit_status == 0' "$dir/raw/hello.evidence.json"
  assert_success
}

@test "run: die, a shell error and HUP in the middle of a run all end in the one cleanup and a partial report" {
  kit_require_root
  local kit="$BATS_TEST_TMPDIR/scratch kit" dir m i
  scratch_kit "$kit"
  printf 'boom\nbang\n' >>"$kit/lib/metrics/list"
  for m in boom bang; do
    printf 'include "run/verdict";\ndef verdict: row({unit: "x", target: 1, target_op: "<="}; {value: 0});\n' >"$kit/lib/metrics/$m.jq"
  done
  cat >"$kit/lib/metrics/boom.sh" <<'SH'
boom_describe() { echo "dies"; }
boom_estimate() { echo 1; }
boom_needs() { :; }
boom_measure() {
  child_partial "$SHARE_DIR/boom-left"
  touch "$SHARE_DIR/boom-left"
  die "boom went off"
}
SH
  cat >"$kit/lib/metrics/bang.sh" <<'SH'
bang_describe() { echo "a bug: its estimate is no number"; }
bang_estimate() { echo; }
bang_needs() { :; }
SH
  run "$kit/test-samba.sh" login boom
  assert_failure 1
  assert_output --partial 'error: boom went off'
  assert_output --partial "warning: the run stopped (exit status 1) during 'boom': stopping helpers and fio"
  dir=$(last_run)
  run head -n 1 "$dir/INCOMPLETE"
  assert_output "the run stopped (exit status 1) during 'boom'"
  run jq -e '.verdict == "INCOMPLETE" and .metrics.login.status != null' "$dir/results.json"
  assert_success
  [[ ! -e $M_ROOT/share/boom-left ]] || fail "the half-written file was left on the share"
  run "$kit/test-samba.sh" login bang
  assert_failure 1
  assert_output --partial 'syntax error'
  run head -n 1 "$(last_run)/INCOMPLETE"
  assert_output "the run stopped (exit status 1) during 'setup'"
  # a dropped terminal (HUP) while a helper runs
  # HUP at its default, as in a terminal (under nohup it is ignored, and bash cannot trap it)
  DURATION=20 env --default-signal=HUP "$KIT_ROOT/test-samba.sh" metadata >"$BATS_TEST_TMPDIR/out" 2>&1 &
  m=$!
  for ((i = 0; i < 100; i++)); do
    grep -q 'metadata:' "$BATS_TEST_TMPDIR/out" && break
    sleep 0.1
  done
  sleep 2
  kill -HUP "$m"
  status=0
  wait "$m" || status=$?
  assert_equal "$status" 129 # 128 + SIGHUP
  run cat "$(last_run)/report.md"
  assert_output --partial "**INCOMPLETE**: interrupted by the user (HUP) during 'metadata'"
  [[ ! -e $M_ROOT/share/metadata ]] || fail "the metadata folder was left on the share"
  run pgrep -f "smb-files -A $M_ROOT"
  assert_failure
}
