#!/usr/bin/env bats
# SELinux steps with stub getenforce/selinuxenabled/semanage/restorecon on PATH: the exact
# commands when SELinux is enforcing, an admin's rule kept (never '-m'), the removal, and nothing
# when off.
# shellcheck disable=SC2030,SC2031 # each test exports its own stub settings

setup() {
  load ../test_helper/common-setup
  _common_setup
  export PATH=$KIT_ROOT/tests/stubs:$PATH STUB_LOG=$BATS_TEST_TMPDIR/stub.log
  : >"$STUB_LOG"
  R=/tmp/kit-selinux-stub # never created: the stubs do not touch files
  export KIT_SETTINGS=$BATS_TEST_TMPDIR/settings.conf
  cat >"$KIT_SETTINGS" <<CONF
TEST_PORT=4457
SHARE_DIR=$R/share
CONF_DIR=$R/conf
LOG_DIR=$R/log
STATE_DIR=$BATS_TEST_TMPDIR/state
MOUNT_POINT=$R/mnt
CONF
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" settings server/state server/service-unit server/service-cgroup server/service server/selinux
  settings_load "$KIT_ROOT"
}

@test "enforcing: labels share, state, logs, config and adds the port, in this order" {
  export STUB_SELINUX=Enforcing
  run selinux_apply
  assert_success
  assert_output --partial "selinux: enforcing"
  run grep -v -e '^getenforce' -e '^selinuxenabled' "$STUB_LOG"
  assert_output "semanage fcontext -a -t samba_share_t $R/share(/.*)?
semanage fcontext -a -t samba_var_t $(selinux_regex "$BATS_TEST_TMPDIR/state")
semanage fcontext -a -t samba_log_t $R/log(/.*)?
semanage fcontext -a -t samba_etc_t $R/conf(/.*)?
semanage port -a -t smbd_port_t -p tcp 4457
restorecon -RF $R/share
restorecon -RF $BATS_TEST_TMPDIR/state
restorecon -RF $R/log
restorecon -RF $R/conf"
  [[ $(state_get KIT_SELINUX) == enforcing ]]
  [[ $(state_get KIT_SELINUX_PORT) == 4457 ]]
}

@test "an admin's existing port rule: '-a' fails, the rule is kept, never '-m', never recorded" {
  export STUB_SELINUX=Permissive STUB_FAIL_MATCH='* -a -t smbd_port_t *'
  run selinux_apply
  assert_success
  assert_output --partial "kept the port rule of tcp 4457: not the kit's"
  run grep '^semanage port' "$STUB_LOG"
  assert_output "semanage port -a -t smbd_port_t -p tcp 4457"
  [[ -z $(state_get KIT_SELINUX_PORT) ]] || fail "the admin's port rule was recorded as the kit's"
  state_load
  : >"$STUB_LOG"
  run selinux_remove
  run grep -c '^semanage port' "$STUB_LOG"
  assert_output 0
}

@test "a start again keeps its own rules (recorded) and does not add them twice" {
  export STUB_SELINUX=Enforcing
  selinux_apply 2>/dev/null
  state_load
  : >"$STUB_LOG"
  export STUB_FAIL_MATCH='* -a *'
  run selinux_apply
  assert_success
  run grep -c -- ' -a ' "$STUB_LOG"
  assert_output 0
  [[ $(state_get KIT_SELINUX_PORT) == 4457 ]]
  [[ $(state_get KIT_SELINUX_FCONTEXTS) == *"samba_share_t=$R/share"* ]]
}

@test "the file-context regex escapes '.' and '+' of the path" {
  run selinux_regex /srv/a.b+c
  assert_output '/srv/a\.b\+c(/.*)?'
}

@test "a failing semanage stops the start with a message naming the folder" {
  export STUB_SELINUX=Enforcing STUB_FAIL_MATCH='fcontext -? -t samba_log_t *'
  run selinux_apply
  assert_failure
  assert_output --partial "could not label '$R/log' as samba_log_t"
}

@test "removal: deletes exactly the file contexts and the port the state recorded" {
  export STUB_SELINUX=Enforcing
  selinux_apply 2>/dev/null
  : >"$STUB_LOG"
  state_load
  run selinux_remove
  assert_success
  run grep '^semanage' "$STUB_LOG"
  assert_output "semanage fcontext -d $R/share(/.*)?
semanage fcontext -d $(selinux_regex "$BATS_TEST_TMPDIR/state")
semanage fcontext -d $R/log(/.*)?
semanage fcontext -d $R/conf(/.*)?
semanage port -d -t smbd_port_t -p tcp 4457"
}

@test "disabled: no semanage, no restorecon, one line, state says disabled" {
  export STUB_SELINUX=Disabled
  run selinux_apply
  assert_success
  assert_output "selinux: off, nothing to label"
  run grep -E '^(semanage|restorecon)' "$STUB_LOG"
  assert_failure
  [[ $(state_get KIT_SELINUX) == disabled ]]
  run selinux_remove
  assert_success
  run grep -E '^(semanage|restorecon)' "$STUB_LOG"
  assert_failure
}

@test "no SELinux tools at all (this Debian host): disabled" {
  if PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v getenforce >/dev/null 2>&1; then
    skip "this host has SELinux tools"
  fi
  PATH=/usr/sbin:/usr/bin:/sbin:/bin run selinux_mode
  assert_output disabled
}
