#!/usr/bin/env bats
# A new user on a minimal Debian 12: the README's './start-samba.sh && ./test-samba.sh' and
# 'tests/run' in a chroot made by 'debootstrap --variant=minbase' plus git, make and
# ca-certificates (built once by minbase.sh and cached), from a clone of the committed HEAD
# (chroot-run.sh). tests/run there runs every folder but guest/ (the qemu guest needs the
# host's root and ~7 min; run-guest.sh -c checks what it lacks instead) and minimal/ (no
# recursion). Several minutes: package installs, then most of the suite.
# Skips with the reason when debootstrap or the Debian mirror cannot be had, or a kit of
# this machine runs (the chroot shares the kernel and network); MINIMAL_REQUIRE=1 fails instead.
#   MINIMAL_TEST_OUT=DIR    keep the logs, steps and results in DIR (default: the file's temp folder)
#   MINIMAL_TEST_REUSE=DIR  assert on an earlier run's DIR; run nothing

setup_file() {
  load ../test_helper/common-setup
  load chroot
  _common_setup
  minimal_setup_file
}

setup() {
  load ../test_helper/common-setup
  load chroot
  _common_setup
  minimal_setup
}

@test "minimal Debian 12: the chroot was set up and every step ran" {
  check_steps_ran
}

@test "minimal Debian 12: ./start-samba.sh installs what it needs, builds the helpers and starts" {
  check_start
}

@test "minimal Debian 12: ./test-samba.sh runs every metric and reports" {
  check_test_run
}

@test "minimal Debian 12: the samba install left no distribution smbd, nmbd or samba-ad-dc enabled or running" {
  check_samba_services
}

@test "minimal Debian 12: before tests/run installed them, the guest names the package it lacks" {
  check_guest_packages
}

@test "minimal Debian 12: tests/run (all but the guest, this folder and host-tests) passes" {
  check_suite_passed
}

# CI runs the suite only in the chroot, and on this machine the files of host-tests (.ci/run):
# a test the chroot skips must be in one of them, or CI would never run it.
@test "minimal Debian 12: every test skipped in the chroot is in tests/minimal/host-tests, which CI runs here" {
  check_skips_listed
}

@test "minimal Debian 12: nothing of the chroot kept running or stayed mounted" {
  check_nothing_left
}

@test "minimal Debian 12: TERM during the start ends the chroot run at once, leaving no process, mount or folder" {
  [[ -f $BATS_FILE_TMPDIR/tar ]] || skip "reusing an earlier run: no chroot here"
  local out=$BATS_TEST_TMPDIR/intr pid i rc=0 p t0
  "$KIT_ROOT/tests/minimal/chroot-run.sh" -o "$out" "$(cat "$BATS_FILE_TMPDIR/tar")" 2>"$BATS_TEST_TMPDIR/err" &
  pid=$!
  for ((i = 0; i < 600; i++)); do # the start is under way: it has written its first lines
    [[ -s $out/start.log ]] && break
    sleep 0.1
  done
  [[ -s $out/start.log ]] || fail "the start did not begin: $(cat "$BATS_TEST_TMPDIR/err")"
  sleep 2
  t0=$SECONDS
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  assert_equal "$rc" 130
  ((SECONDS - t0 <= 15)) || fail "took $((SECONDS - t0)) s to end"
  run awk -v r="$out/root" 'index($5, r) == 1' /proc/self/mountinfo
  assert_output ''
  assert [ ! -e "$out/root" ]
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) != "$out/root" ]] || fail "process ${p#/proc/} still runs in the chroot"
  done
  # what was ended is named
  run cat "$out/leftover.txt"
  assert_output --partial "start-samba.sh"
}
