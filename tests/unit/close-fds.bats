#!/usr/bin/env bats
# lib/common.sh's common_close_fds, the one loop that keeps the kit's descriptors (its lock, its
# log) from a command that must not hold them: common_isolated (tools SELinux runs in their own
# domain) and clienthosts_fio_alone (the fio server outlives the call). In a subshell every
# descriptor above 2 is closed, 0-2 stay, and the caller's own stay open.

setup() {
  load ../test_helper/common-setup
  _common_setup
  source "$KIT_ROOT/lib/common.sh"
  # two descriptors of the caller's: 7, and a free one above 9 (bash's own range)
  exec 7>"$BATS_TEST_TMPDIR/seven" {HI}>"$BATS_TEST_TMPDIR/high"
}

teardown() {
  exec 7>&- {HI}>&-
}

# fds_of PID: its descriptors as 'N -> TARGET' lines (no pipe: the shell that makes one holds
# both its ends for a moment)
fds_of() {
  find "/proc/$1/fd" -mindepth 1 -printf '%f -> %l\n'
}

@test "common_close_fds: in a subshell only 0, 1 and 2 stay; the caller's 7 and one above 9 stay open" {
  local inside
  # fds_of runs as a child, so it lists the subshell's descriptors, not its own
  inside=$(
    common_close_fds
    fds_of "$BASHPID"
    true # a child, never exec'd in its place
  )
  [[ $(cut -d' ' -f1 <<<"$inside" | sort -n | tr '\n' ' ') == "0 1 2 " ]] || fail "left open: $inside"
  [[ -e /proc/$BASHPID/fd/7 && -e /proc/$BASHPID/fd/$HI ]] || fail "the caller's were closed: $(fds_of "$BASHPID")"
}

@test "common_isolated: the command has /dev/null as 0, 1 and 2 and nothing else" {
  # no pipe in the inner shell: it would hold the pipe's two ends while it starts its parts
  # shellcheck disable=SC2016 # $$ is the inner shell's
  common_isolated bash -c 'find /proc/$$/fd -mindepth 1 -printf "%f -> %l\n" >"$1"' _ "$BATS_TEST_TMPDIR/list"
  run sort -n "$BATS_TEST_TMPDIR/list"
  assert_output $'0 -> /dev/null\n1 -> /dev/null\n2 -> /dev/null'
}

@test "clienthosts_fio_alone: the remote shell's command has 0, 1 and 2 only (the caller's output)" {
  source "$KIT_ROOT/lib/run/clienthosts.sh"
  # the stand-in remote shell drops the host name and runs the command here
  printf '#!/bin/sh\nshift\nexec "$@"\n' >"$BATS_TEST_TMPDIR/rsh"
  chmod +x "$BATS_TEST_TMPDIR/rsh"
  local out
  # shellcheck disable=SC2016 # $$ is the inner shell's
  out=$(CLIENT_SHELL=$BATS_TEST_TMPDIR/rsh clienthosts_fio_alone 20 ws1 bash -c 'find /proc/$$/fd -mindepth 1 -printf "%f\n"; true')
  [[ $(sort -n <<<"$out" | tr '\n' ' ') == "0 1 2 " ]] || fail "open in the command: $out"
}
