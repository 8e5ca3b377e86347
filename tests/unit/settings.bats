#!/usr/bin/env bats
# shellcheck disable=SC2016 # the bash -c programs expand in the child
# lib/settings.sh: defaults, file, environment, validation. No root needed.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/settings.sh
  source "$KIT_ROOT/lib/settings.sh"
}

# load_with [VAR=value...]: settings_load in a subshell with the given environment.
load_with() {
  env "$@" bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; settings_dump' "$KIT_ROOT"
}

@test "settings.conf and the built-in defaults agree on every key" {
  run bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_defaults; settings_dump' "$KIT_ROOT"
  assert_success
  local builtin=${output/RESULTS_DIR=results/RESULTS_DIR=$KIT_ROOT/results}
  run load_with
  assert_success
  assert_equal "$output" "$builtin"
}

@test "settings.conf lists every key exactly once" {
  local key count
  while IFS= read -r key; do
    count=$(grep -cE "^$key=" "$KIT_ROOT/settings.conf")
    [[ $count -eq 1 ]] || fail "'$key' appears $count times in settings.conf"
  done < <(settings_keys)
  count=$(grep -cE '^[A-Z0-9_]+=' "$KIT_ROOT/settings.conf")
  assert_equal "$count" "$(settings_keys | wc -l)"
}

@test "an environment variable wins over the file" {
  run load_with DURATION=300 CONCURRENCY_LEVELS="1 2 3"
  assert_success
  assert_line "DURATION=300"
  assert_line 'CONCURRENCY_LEVELS=1\ 2\ 3'
}

@test "a settings file given by KIT_SETTINGS is read, and the environment still wins" {
  printf 'DURATION=7\nWORKERS=3\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf" WORKERS=5
  assert_success
  assert_line "DURATION=7"
  assert_line "WORKERS=5"
}

@test "an unknown key in the file is rejected by name" {
  printf 'DURATON=5\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf"
  assert_failure 1
  assert_output --partial "unknown setting 'DURATON'"
}

@test "a file with a syntax error is rejected before it is sourced" {
  printf 'DURATION="5\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf"
  assert_failure 1
  assert_output --partial "is not valid shell syntax"
}

@test "a missing KIT_SETTINGS file is an error" {
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/none.conf"
  assert_failure 1
  assert_output --partial "does not exist"
}

@test "each bad value is rejected with the key and the value named" {
  local -a cases=(
    "DURATION=0" "DURATION=ten" "TEST_PORT=445" "TEST_PORT=70000" "SERVER_ADDR=10.0.0.1"
    "CLIENT_ADDR=127.0.0.1" "CLIENT_ADDR=127.0.0.300" "SHARE_DIR=relative/path" "SHARE_DIR=/etc"
    "STATE_DIR=/var/lib/samba" "CONF_DIR=/srv/samba-perf-test/conf" "MOUNT_POINT=/mnt/a b"
    "ENCRYPTION=maybe" "SIGNING=always" "CONCURRENCY_LEVELS=4 1" "CONCURRENCY_LEVELS=1,4"
    "TEST_USER=root" "TEST_USER=Bad-Name" "SERVICE_NAME=smbd" "SHARE_NAME=IPC\$"
    "NFT_TABLE=bad-name" "TARGET_LATENCY_P99_MAX_MS=-1" "TARGET_ERRORS_MAX_PCT=150"
    "WORKERS=0" "LOAD_RATE=1e3" "LOAD_RATE=1" "SHARE_DIR=/srv/x/../y"
  )
  local c key value
  for c in "${cases[@]}"; do
    key=${c%%=*} value=${c#*=}
    run load_with "$c"
    [[ $status -eq 1 ]] || fail "'$c' was accepted (status $status)"
    [[ $output == *"setting '$key' has bad value '$value'"* ]] || fail "'$c' gave: $output"
  done
}

@test "settings_diff_defaults names only what differs" {
  run env DURATION=30 bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; settings_diff_defaults' "$KIT_ROOT"
  assert_success
  assert_output "DURATION=30 (default: 10)"
}

@test "derived names follow the settings" {
  run env CONF_DIR=/opt/kit/conf CLIENT_ADDR=127.0.0.5 bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; echo "$KIT_CONF $KIT_CREDENTIALS $KIT_UNC $RESULTS_DIR"' "$KIT_ROOT"
  assert_success
  assert_output "/opt/kit/conf/smb.conf /opt/kit/conf/credentials //127.0.0.5/perftest $KIT_ROOT/results"
}
