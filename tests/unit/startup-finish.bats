#!/usr/bin/env bats
# tests/unit/startup-finish.bats: the startup metric starts the test server again when a run
# ends with it stopped (startup_finish, called by registry_finish at the end of every run,
# finished or stopped; issue 18: lib/run/run.sh did this itself, naming startup). The service is
# stubbed: no root, no server.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/registry.sh
  source "$KIT_ROOT/lib/registry.sh"
  common_colour_init
  registry_source startup
  STARTED=$BATS_TEST_TMPDIR/started
}

# the stubs: the server runs when $RUNNING is 1; a start records itself and succeeds unless
# $START_FAILS is 1
service_is_running() { [[ ${RUNNING:-0} == 1 ]]; }
run_service_start() {
  echo start >>"$STARTED"
  [[ ${START_FAILS:-0} != 1 ]]
}

@test "startup_finish: a stopped server is started again, with a warning that says why" {
  RUNNING=0 run registry_finish
  assert_success
  assert_output --partial 'the test server was stopped by the startup test: starting it again'
  refute_output --partial 'could not start'
  [[ $(cat "$STARTED") == start ]]
}

@test "startup_finish: a running server is left alone, silently" {
  RUNNING=1 run registry_finish
  assert_success
  assert_output ''
  [[ ! -e $STARTED ]]
}

@test "startup_finish: a start that fails says to run ./start-samba.sh" {
  RUNNING=0 START_FAILS=1 run registry_finish
  assert_success
  assert_output --partial 'could not start the test server: run ./start-samba.sh'
}
