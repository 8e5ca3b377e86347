# tests/server/server-setup.bash: shared setup of the server tests. Each file gets its own
# names (port 4451-4459, client address 127.0.0.3-8, user/table/service tagged per run), so the files
# can run at the same time as the other groups' tests on one machine.
#   load server-setup ; srv_setup_file s1 127.0.0.3      (in setup_file)

# srv_setup_file SUFFIX CLIENT_ADDR: the private kit of tests/test_helper/private-kit.bash
# (port 4451-4459; names tagged per run); exports KIT_SETTINGS and the SRV_* names.
srv_setup_file() {
  load '../test_helper/private-kit'
  private_kit_setup "$1" 4451 4459 "$2" </dev/null || return 1
  SRV_ROOT=$PK_ROOT SRV_PORT=$PK_PORT SRV_ADDR=$PK_ADDR SRV_USER=$PK_USER SRV_TABLE=$PK_TABLE
  SRV_SERVICE=$PK_SERVICE SRV_SETTINGS=$KIT_SETTINGS
  export SRV_ROOT SRV_PORT SRV_ADDR SRV_USER SRV_TABLE SRV_SERVICE SRV_SETTINGS
}

# srv_cleanup: './test-samba.sh cleanup'; until lib/run/run.sh exists (another issue), the same
# cleanup_all through the libraries.
srv_cleanup() {
  if [[ -f $KIT_ROOT/lib/run/run.sh ]]; then
    "$KIT_ROOT/test-samba.sh" cleanup
  else
    bash -c 'set -euo pipefail
      KIT_ROOT=$1
      source "$KIT_ROOT/lib/common.sh"
      common_source_libs "$KIT_ROOT" common-traps settings server/state lock server/deps-units server/deps server/account \
        server/smbconf server/selinux server/service-unit server/service-cgroup server/service server/redirect server/mount server/cleanup
      cleanup_all' srv-cleanup "$KIT_ROOT"
  fi
}

# srv_teardown_file: clean up whatever a test left, then remove the folder.
srv_teardown_file() {
  [[ -n ${SRV_ROOT:-} ]] || return 0
  srv_cleanup >/dev/null 2>&1 || true
  rm -rf --one-file-system "$SRV_ROOT"
}

# srv_kit_pids: print the PIDs of live (not zombie) processes started with the kit's smb.conf.
srv_kit_pids() {
  local f p state
  while IFS= read -r f; do
    p=${f#/proc/}
    p=${p%/cmdline}
    [[ $p != "$BASHPID" ]] || continue
    state=$({ awk '{ print $3 }' "/proc/$p/stat"; } 2>/dev/null) || continue
    [[ -z $state || $state == Z ]] || echo "$p"
  done < <(grep -lF -- "$SRV_ROOT/conf/smb.conf" /proc/[0-9]*/cmdline 2>/dev/null)
}

# srv_listening: true when something listens on the kit's port.
srv_listening() {
  ss -Hltn "sport = :$SRV_PORT" | grep -q .
}

# srv_login ADDR [PORT]: one smbclient login with the kit's credentials file.
srv_login() {
  timeout 15 smbclient -s "$SRV_ROOT/conf/smb.conf" -A "$SRV_ROOT/conf/credentials" \
    "//$1/perftest" -p "${2:-445}" -c 'ls'
}

# srv_assert_clean: no user, config, state, logs, share dir, mount point, unit, table,
# process, cgroup or listener of the kit is left.
srv_assert_clean() {
  run getent passwd "$SRV_USER"
  assert_failure
  local d
  for d in conf state log share mnt; do
    [[ ! -e $SRV_ROOT/$d ]] || fail "'$SRV_ROOT/$d' is still there"
  done
  [[ ! -e /etc/systemd/system/$SRV_SERVICE.service ]] || fail "the unit is still there"
  run nft list table ip "$SRV_TABLE"
  assert_failure
  [[ -z $(srv_kit_pids) ]] || fail "kit processes left: $(srv_kit_pids)"
  ! srv_listening || fail "something still listens on port $SRV_PORT"
  [[ ! -e /sys/fs/cgroup/unified/$SRV_SERVICE && ! -e /sys/fs/cgroup/cpuacct/$SRV_SERVICE ]] ||
    fail "the kit's cgroup is still there"
}
