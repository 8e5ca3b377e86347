#!/usr/bin/env bats
# tests/unit/build.bats: how the C helpers are built (the commands make would run; nothing is
# compiled). Issue 18: -Werror only in the kit's own lint, so that a user's newer compiler,
# which warns of more, does not fail start-samba.sh's build.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd make cc
  pkg-config --exists smbclient || skip "libsmbclient-dev is not installed"
}

@test "build: the helpers build without -Werror; make lint builds them with it" {
  run make -n -B -C "$KIT_ROOT/helpers"
  assert_success
  assert_output --partial ' -Wall -Wextra '
  refute_output --partial 'Werror'
  run make -n -C "$KIT_ROOT" lint
  assert_success
  assert_line --regexp 'make.* -C helpers -B WERROR=-Werror'
  run make -n -B -C "$KIT_ROOT/helpers" WERROR=-Werror
  assert_output --partial ' -Werror'
}
