#!/usr/bin/env bats
# tests/metrics/run.bats: test-samba.sh's measuring run: usage, refusals, and end to end against
# a private kit started here (port 4460-4469, client 127.0.0.9, own user, table and service).

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  M_ROOT=$(mktemp -d /tmp/kit-metrics-m.XXXXXX)
  chmod 0755 "$M_ROOT"
  M_PORT=$(kit_free_port 4460 4469)
  cat >"$M_ROOT/settings.conf" <<CONF
TEST_PORT=$M_PORT
SERVER_ADDR=127.0.0.1
CLIENT_ADDR=127.0.0.9
SERVICE_NAME=smbd-perf-test-m
SHARE_DIR=$M_ROOT/share
MOUNT_POINT=$M_ROOT/mnt
CONF_DIR=$M_ROOT/conf
LOG_DIR=$M_ROOT/log
STATE_DIR=$M_ROOT/state
TEST_USER=smbperfm
NFT_TABLE=samba_perf_test_m
RESULTS_DIR=$M_ROOT/results
INSTALL_PACKAGES=no
DURATION=2
DATA_FILE_MB=32
CONCURRENCY_LEVELS="1 4"
MEMORY_CONNECTIONS=10
STARTUP_ROUNDS=2
TARGET_CONCURRENCY_MIN_CLIENTS=4
CONF
  export M_ROOT KIT_SETTINGS=$M_ROOT/settings.conf
  make -C "$KIT_ROOT/helpers" >/dev/null
  "$KIT_ROOT/start-samba.sh" >"$M_ROOT/start.log" 2>&1 || {
    cat "$M_ROOT/start.log" >&3
    return 1
  }
}

teardown_file() {
  [[ -n ${M_ROOT:-} ]] || return 0
  "$KIT_ROOT/test-samba.sh" cleanup >/dev/null 2>&1 || true
  rm -rf --one-file-system "$M_ROOT"
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
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

@test "run: metric names run in the guide's order, once each; none means all twelve" {
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/run.sh"
  run_parse_args memory login cpu login
  assert_equal "${RUN_METRICS[*]}" "login cpu memory"
  run_parse_args
  assert_equal "${#RUN_METRICS[@]}" 12
  assert_equal "${RUN_METRICS[0]} ${RUN_METRICS[11]}" "startup memory"
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
  printf 'samba-perf-test kit folder made %s\n' "$dir/state" >"$dir/state/.samba-perf-test" # lib/state.sh trusts a marked STATE_DIR only
  printf 'KIT_SERVICE_MODE=daemon\nKIT_SMBD_PID=999999\n' >"$dir/state/kit.env"
  KIT_SETTINGS=$dir/settings.conf run "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_output --partial 'not running: run ./start-samba.sh'
}

@test "run: end to end, DURATION=2: real numbers for the libsmbclient metrics, fio metrics SKIP with the reason" {
  kit_require_root
  kit_require_cmd jq
  local dir m skip pw rc
  run "$KIT_ROOT/test-samba.sh" startup login metadata concurrency memory cpu seqwrite seqread randread randwrite latency errors
  rc=$status
  [[ $rc -eq 0 || $rc -eq 1 ]] || fail "exit status $rc: $output"
  assert_output --partial '[1/12] startup'
  assert_output --regexp 'login: (PASS|FAIL) [0-9.]+ logins/s'
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
  assert_line --regexp '^\| startup \| [0-9.]+ ms \| ≤ 500 ms \| (PASS|\*\*FAIL\*\*) \|'
  assert_line --regexp '^\| concurrency \| [0-9]+ clients \|'
  assert_line --regexp '^\| 4 \| [0-9]+ \| 0 \| [0-9]+ \|'
  assert_line --regexp '^\| 2 \| [0-9.]+ \| [0-9]+ \|'
  assert_output --partial 'smbd CPU per login (ms)'
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
  assert_line '### What to change'
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
  assert_equal "$status" 1
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

@test "run: a second run against the same server is refused while the first one measures" {
  kit_require_root
  kit_require_cmd flock
  local lock=/run/samba-perf-test/smbd-perf-test-m.lock # lib/lock.sh: one lock per SERVICE_NAME
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
