#!/usr/bin/env bats
# A new user on a minimal Debian 13 (trixie, Samba 4.22), as minimal.bats does Debian 12: the
# README's './start-samba.sh && ./test-samba.sh' end to end (start, every metric this kernel
# allows, cleanup) in a chroot made by minbase.sh (MINIMAL_SUITE=trixie), then 'tests/run' on
# tests/unit and tests/helpers only (MINIMAL_TESTS): not the whole suite a second time, which
# minimal.bats runs on Debian 12 (README.md, "CI": the 60-minute budget). What Samba 4.22 does
# differently is checked here: no 'parse_dfs_path_strict: Hostname ... is not ours' line in
# the test smbd's log, and the server view ('smbstatus -P') read on every measurement.
# Skips as minimal.bats does; MINIMAL_REQUIRE=1 fails instead.
#   MINIMAL_TEST_OUT=DIR    keep the logs, steps and results in DIR/debian13
#   MINIMAL_TEST_REUSE=DIR  assert on an earlier run's DIR/debian13; run nothing

setup_file() {
  load ../test_helper/common-setup
  load chroot
  _common_setup
  export MINIMAL_SUITE=trixie MINIMAL_TESTS="tests/unit tests/helpers"
  minimal_setup_file debian13
}

setup() {
  load ../test_helper/common-setup
  load chroot
  _common_setup
  minimal_setup
}

@test "minimal Debian 13: the chroot was set up and every step ran" {
  check_steps_ran
}

@test "minimal Debian 13: the chroot is Debian 13 and the kit installed Samba 4.22 or later" {
  run sed -n 's/^VERSION_CODENAME=//p' "$R/os-release"
  assert_output trixie
  res=$(find "$R/results" -name system.json | sort | tail -n 1)
  [[ -n $res ]] || fail "no system.json"
  run jq -r .samba_version "$res"
  assert_output --regexp '^4\.(2[2-9]|[3-9][0-9])\.'
}

@test "minimal Debian 13: ./start-samba.sh installs what it needs, builds the helpers and starts" {
  check_start
}

@test "minimal Debian 13: ./test-samba.sh runs every metric and reports" {
  check_test_run
}

# "every metric it can": a metric skips only for the kernel cifs client this machine lacks
# (the qemu guest runs those), no measurement timed out or failed, each was read from smbd's
# counters too
@test "minimal Debian 13: every metric the kernel allows has a number, no measurement timed out or failed" {
  local dir m n=0 f
  check_test_run
  dir=${RES%/*}
  while read -r m _; do
    [[ -z $m || $m == \#* ]] && continue
    run jq -r --arg m "$m" '.metrics[$m] | "\(.status) \(.why)"' "$RES"
    case $output in
      'SKIP kernel has no cifs support') grep -qw cifs /proc/filesystems && fail "$m skipped for want of cifs, which this kernel has" ;;
      PASS* | FAIL*) jq -e --arg m "$m" '.metrics[$m].value | type == "number"' "$RES" >/dev/null || fail "$m: no number: $output" ;;
      *) fail "$m: $output" ;;
    esac
  done <"$KIT_ROOT/lib/metrics/list"
  for f in "$dir"/raw/*.evidence.json; do
    n=$((n + 1))
    run jq -r '"\(.name) timed_out=\(.timed_out) exit=\(.exit_status) profile=\(.probes.profile.available)/\(.probes.profile.level)"' "$f"
    [[ $output == *' timed_out=false exit=0 profile=true/on' ]] || fail "$output"
  done
  ((n >= 10)) || fail "only $n measurements in $dir/raw"
}

# Samba >= 4.18 logs at level 0 a referral for a host name not its own; the clients name the
# server CLIENT_ADDR, which templates/smb.conf.in makes one of its names (netbios aliases)
@test "minimal Debian 13: the test smbd took the clients' name for its own: no 'is not ours' line in its log" {
  [[ -s $R/log.smbd ]] || fail "no log.smbd of the test smbd in $R"
  run grep -c 'is not ours' "$R/log.smbd"
  assert_output 0
  # the log is the run's: the kit's smbd started in it
  run grep -c 'smbd version 4\.' "$R/log.smbd"
  refute_output 0
}

# 'smbstatus -P' of 4.22 has the counters lib/run/profile.jq reads: the login storm's connects,
# session setups and tree connects are counted
@test "minimal Debian 13: the server view read Samba 4.22's smbstatus -P" {
  local f
  f=$(find "$R/results" -name 'login.r1.evidence.json' | sort | tail -n 1)
  [[ -n $f ]] || fail "no login evidence"
  run jq -r '.probes.profile | [.connects, (.commands[] | select(.command == "sesssetup" or .command == "tcon") | .calls)] | map(. > 0) | all' "$f"
  assert_output true
}

@test "minimal Debian 13: the samba install left no distribution smbd, nmbd or samba-ad-dc enabled or running" {
  check_samba_services
}

@test "minimal Debian 13: before tests/run installed them, the guest names the package it lacks" {
  check_guest_packages
}

@test "minimal Debian 13: tests/run on tests/unit and tests/helpers passes" {
  local name f
  local -A dirs=()
  check_suite_passed
  # those folders and no other (MINIMAL_TESTS): the folders of the tests that ran
  while IFS= read -r name; do
    f=$(grep -rlF --include='*.bats' -- "@test \"$name\"" "$KIT_ROOT/tests" | head -n 1)
    f=${f#"$KIT_ROOT"/}
    dirs[${f%/*}/]=1
  done < <(sed -nE 's/^(not )?ok [0-9]+ (.*) in [0-9]+ms( # skip.*)?$/\2/p' "$R/suite.log")
  run printf '%s\n' "${!dirs[@]}"
  assert_output --regexp '^(tests/unit/
tests/helpers/|tests/helpers/
tests/unit/)$'
}

@test "minimal Debian 13: every test skipped in the chroot is in tests/minimal/host-tests, which CI runs here" {
  check_skips_listed
}

@test "minimal Debian 13: nothing of the chroot kept running or stayed mounted" {
  check_nothing_left
}
