#!/usr/bin/env bats
# Never harm the host, round 2 (issue 24): each test plants a hostile folder, file, value or
# process of another user or another kit, and checks that the kit refuses with one line naming
# the key or the path, and that nothing foreign changed. Classes as the issue numbers them.
# shellcheck disable=SC2016 # the bash -c programs expand in the child

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  [[ $(id -u) -eq 0 ]] || return 0
  srv_setup_file f24 127.0.0.24
  make -C "$KIT_ROOT/helpers" >/dev/null
}

teardown_file() {
  load server-setup
  srv_teardown_file
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  kit_require_root
  kit_require_cmd smbd smbclient nft ss python3 flock
}

# assert_names TEXT: the output names TEXT.
assert_names() {
  [[ $output == *"$1"* ]] || fail "the message does not name '$1': $output"
}

# ---- 1. folders someone else owns -------------------------------------------------------------

@test "1 a RESULTS_DIR of another user, in another user's folder or writable by others is refused; nothing written" {
  local nobody d before
  nobody=$(id -u nobody)
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  d=$SRV_ROOT/theirs
  mkdir -m 0755 "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open"
  chown nobody:nogroup "$d" "$SRV_ROOT/alice"
  chmod 0777 "$SRV_ROOT/open"
  before=$(stat -c '%u %g %a' "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open")
  run env RESULTS_DIR="$d" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$d' (setting 'RESULTS_DIR') is owned by uid $nobody, not root: refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/alice/results" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/alice' (the folder of setting 'RESULTS_DIR') is owned by uid $nobody, not root: refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/open" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/open' (setting 'RESULTS_DIR') is writable by group or others (mode 777): refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/open" "$KIT_ROOT/test-samba.sh" sweep --variant SIGNING=mandatory --variant SIGNING=default login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/open' (setting 'RESULTS_DIR') is writable by group or others (mode 777): refusing to use it"
  assert_equal "$(stat -c '%u %g %a' "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open")" "$before"
  assert_equal "$(find "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open" -mindepth 1)" ""
  rm -rf "${SRV_ROOT:?}/theirs" "${SRV_ROOT:?}/alice" "${SRV_ROOT:?}/open"
}
