#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# The helpers' contract (docs/CONTRACTS.md section 3) on the paths the review of the figures
# found broken: each test here failed before its fix. The live ones use a private smbd on a
# free loopback port (one per file), like smb-helpers.bats.

bats_require_minimum_version 1.5.0

ALL=(smb-wait-login smb-login-storm smb-files smb-readers smb-hold cgcpu pss-sum)
SMB_TOOLS=(smbd pdbedit smbstatus jq make cc pkg-config)

# bats 1.8 cannot skip from setup_file: it only starts smbd when it can, and setup() skips
setup_file() {
  load '../test_helper/common-setup'
  load 'smbd-setup'
  _common_setup
  local c
  command -v make >/dev/null && command -v cc >/dev/null && pkg-config --exists smbclient || return 0
  make -s -C "$KIT_ROOT/helpers" >&2 || fail "the helpers do not build"
  [[ $(id -u) -eq 0 ]] || return 0
  for c in "${SMB_TOOLS[@]}"; do
    command -v "$c" >/dev/null || return 0
  done
  PORT=$(kit_free_port 4440 4469) || fail "no free port in 4440-4469"
  SMBD_DIR=$BATS_FILE_TMPDIR/smbd
  helpers_smbd_start "$SMBD_DIR" "$PORT" || fail "private smbd did not start"
  UNC=//127.0.0.1:$PORT/perf
  head -c 4M /dev/urandom >"$SMBD_SHARE/data.0"
  chmod 644 "$SMBD_SHARE/data.0"
  export PORT SMBD_DIR SMBD_CONF SMBD_SHARE SMBD_CREDS UNC
}

teardown_file() {
  load 'smbd-setup'
  if [[ -n ${SMBD_DIR:-} ]]; then
    helpers_smbd_stop "$SMBD_DIR"
  fi
}

setup() {
  load '../test_helper/common-setup'
  load 'smbd-setup'
  _common_setup
  kit_require_cmd jq make cc pkg-config
  pkg-config --exists smbclient || skip "libsmbclient-dev is not installed"
  H=$KIT_ROOT/helpers
}

# live: skip unless the private smbd runs (root, Samba tools)
live() {
  kit_require_root
  kit_require_cmd "${SMB_TOOLS[@]}"
  [[ -n ${SMBD_DIR:-} ]] || fail "the private smbd was not started"
}

# unescape FILE: the file with markdown's \| turned back into |
unescape() {
  sed 's/\\|/|/g' "$1"
}

@test "each helper's -h is its one synopsis: every option with its default, the docs agree" {
  local h syn opt
  for h in "${ALL[@]}"; do
    run --separate-stderr "$H/$h" -h
    assert_success
    syn=${lines[0]#usage: }
    [[ $syn == "$h "* ]] || fail "$h -h: first line is not its usage: ${lines[0]}"
    # the README table and CONTRACTS.md carry exactly this synopsis line
    unescape "$KIT_ROOT/helpers/README.md" | grep -qF "\`$syn\`" ||
      fail "helpers/README.md lacks the synopsis of $h: $syn"
    unescape "$KIT_ROOT/docs/CONTRACTS.md" | grep -qF "\`$syn\`" ||
      fail "docs/CONTRACTS.md lacks the synopsis of $h: $syn"
    # every option of the synopsis has its own line; each but -h names its default
    for opt in $(grep -oE -- '-[A-Za-z-]( |\])' <<<"$syn" | tr -d '] '); do
      [[ $opt == -- ]] && continue
      grep -qE -- "^  $opt " <<<"$output" || fail "$h -h does not explain $opt"
      [[ $opt == -h ]] && continue
      awk -v o="$opt" '/^[^ ]/ || ($1 ~ /^-/ && $1 != o) { on = 0 } $1 == o { on = 1 }
        on && tolower($0) ~ /default/ { found = 1 } END { exit !found }' <<<"$output" ||
        fail "$h -h: $opt has no default"
    done
    # a usage error prints the synopsis line on stderr, nothing on stdout, exit 2
    run --separate-stderr "$H/$h" -Z
    assert_equal "$status" 2
    assert_equal "$output" ""
    [[ $stderr == *"usage: $syn"* ]] || fail "$h -Z: $stderr"
  done
}
