#!/usr/bin/env bats
# Package detection (real dpkg here; stub dnf/rpm for the RHEL path and its CodeReady Builder
# hint) and the systemd unit template (rendered, checked with systemd-analyze when present).
# shellcheck disable=SC2030,SC2031 # each test sets its own PATH

setup() {
  load ../test_helper/common-setup
  _common_setup
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" settings state deps smbconf selinux service
  export KIT_SETTINGS=$BATS_TEST_TMPDIR/settings.conf
  printf 'MEMORY_CONNECTIONS=%s\nSTATE_DIR=/var/lib/samba/perf-test-x\n' 5000 >"$KIT_SETTINGS"
  settings_load "$KIT_ROOT"
  export STUB_LOG=$BATS_TEST_TMPDIR/stub.log
}

# rhel_path: a PATH with stub dnf and rpm (every package missing) and no apt-get or dpkg.
rhel_path() {
  local bin=$BATS_TEST_TMPDIR/bin c
  mkdir -p "$bin"
  for c in grep sed cat uname printf dirname; do ln -sf "$(command -v "$c")" "$bin/$c"; done
  for c in dnf rpm; do
    # shellcheck disable=SC2016 # $* and $STUB_LOG belong to the stub
    printf '#!/bin/bash\nprintf "%%s\\n" "%s $*" >>"$STUB_LOG"\nexit 1\n' "$c" >"$bin/$c"
    chmod +x "$bin/$c"
  done
  echo "$bin"
}

@test "package lists: Debian and RHEL" {
  run deps_packages debian
  assert_output "samba
smbclient
libsmbclient-dev
fio
nftables
jq
make
gcc
pkg-config
cifs-utils"
  run deps_packages rhel
  assert_line libsmbclient-devel
  assert_line samba-client
  assert_line pkgconf-pkg-config
  assert_line policycoreutils-python-utils
}

@test "this Debian host: family debian, nothing missing (dpkg -s of every package)" {
  command -v dpkg >/dev/null || skip "not a Debian host"
  run deps_family
  assert_output debian
  run deps_missing debian
  assert_success
  assert_output ""
}

@test "RHEL without CodeReady Builder: the exact command to enable it, not dnf's error" {
  local path
  path=$(rhel_path)
  printf 'ID="rhel"\nVERSION_ID="9.6"\n' >"$BATS_TEST_TMPDIR/os-release"
  DEPS_OS_RELEASE=$BATS_TEST_TMPDIR/os-release PATH=$path run deps_ensure
  assert_failure
  assert_output --partial "subscription-manager repos --enable codeready-builder-for-rhel-9-$(uname -m)-rpms"
  run grep -c '^dnf install' "$STUB_LOG"
  assert_output 0
}

@test "Alma/Rocky without crb: 'dnf config-manager --set-enabled crb'" {
  local path
  path=$(rhel_path)
  printf 'ID="almalinux"\n' >"$BATS_TEST_TMPDIR/os-release"
  DEPS_OS_RELEASE=$BATS_TEST_TMPDIR/os-release PATH=$path run deps_ensure
  assert_failure
  assert_output --partial "dnf config-manager --set-enabled crb"
}

@test "INSTALL_PACKAGES=no only lists what is missing" {
  local path
  path=$(rhel_path)
  INSTALL_PACKAGES=no PATH=$path run deps_ensure
  assert_success
  assert_output --partial "missing packages (INSTALL_PACKAGES=no, not installing): samba samba-client libsmbclient-devel"
  run grep -c '^dnf' "$STUB_LOG"
  assert_output 0
}

@test "unit template: notify, no process group, pid file in STATE_DIR, LimitNOFILE for the connections" {
  run smbconf_render_template "$KIT_ROOT/templates/smbd-perf-test.service.in" \
    "MARKER=$SERVICE_MARKER" "SERVER_ADDR=$SERVER_ADDR" "TEST_PORT=$TEST_PORT" \
    "STATE_DIR=$STATE_DIR" "LIMIT_NOFILE=$(service_limit_nofile)" "SMBD=/usr/sbin/smbd" \
    "KIT_CONF=$KIT_CONF"
  assert_success
  assert_line "# $SERVICE_MARKER"
  assert_line "Type=notify"
  assert_line "ExecStart=/usr/sbin/smbd --foreground --no-process-group -s /etc/samba/perf-test/smb.conf"
  assert_line "PIDFile=/var/lib/samba/perf-test-x/pid/smbd.pid"
  assert_line "Environment=_NO_WINBINDD=1"
  assert_line "LimitNOFILE=21024"
  refute_output --partial "[Install]"
  if command -v systemd-analyze >/dev/null; then
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/smbd-perf-test.service"
    run systemd-analyze verify "$BATS_TEST_TMPDIR/smbd-perf-test.service"
    assert_success
  fi
}

@test "smb.conf template: testparm accepts it and every setting reaches it" {
  kit_require_cmd testparm
  export ENCRYPTION=yes SIGNING=mandatory STRICT_SYNC=no USE_SENDFILE=yes
  # testparm fails (exit 1) when the state and cache folders do not exist: start makes them first
  export STATE_DIR=$BATS_TEST_TMPDIR/state
  mkdir -p "$STATE_DIR"/{private,lock,state,cache,pid,ncalrpc}
  smbconf_render "$KIT_ROOT" >"$BATS_TEST_TMPDIR/smb.conf"
  run testparm -s "$BATS_TEST_TMPDIR/smb.conf"
  assert_success
  assert_line --regexp '^[[:space:]]*server smb encrypt = required$'
  assert_line --regexp '^[[:space:]]*server signing = (mandatory|required)$'
  assert_line --regexp '^[[:space:]]*strict sync = No$'
  assert_line --regexp '^[[:space:]]*use sendfile = Yes$'
  assert_line --regexp "^[[:space:]]*ncalrpc dir = $STATE_DIR/ncalrpc$"
  refute_output --partial "host msdfs"
}
