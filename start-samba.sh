#!/usr/bin/env bash
# Usage: start-samba.sh [-h | --version]
# Summary: start the kit's isolated test smbd, its nft redirect and the cifs mount
#
# Checks every setting first and changes nothing when one is wrong. Then: installs missing
# packages (INSTALL_PACKAGES=no only lists them), builds the helpers, creates the test user
# and its root-only credentials file, writes the kit's smb.conf (checked with testparm),
# labels folders and port for SELinux when it is on, starts smbd (a systemd unit when systemd
# runs, else a plain daemon in a cgroup of its own), waits for a real login, adds the nftables
# rule CLIENT_ADDR:445 -> SERVER_ADDR:TEST_PORT and mounts the share when the kernel has cifs.
# Running it again applies changed settings; what is in place is left alone.
# A Samba of the host is never stopped, restarted or reconfigured.
#
# Exit status: 0 the server answers, 1 it could not be started, 2 usage error, 128+n ended by
# signal n (Ctrl-C 130).
set -euo pipefail
umask 022 # folders 0755 and files 0644 unless the kit sets a stricter mode (secrets: 0600)

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
common_source_libs "$KIT_ROOT" common-traps settings run/clienthosts server/state lock server/deps-units server/deps \
  server/account server/smbconf server/selinux server/service-unit server/service-cgroup server/service server/redirect server/mount server/cleanup server/serverconf

START_LOGIN_TIMEOUT=30

# start_preflight: every check that needs no change on the system.
start_preflight() {
  local key
  state_load || true
  service_check_port
  account_check
  service_check_unit
  service_check_cgroup
  redirect_check
  clienthosts_preflight
  for key in CONF_DIR STATE_DIR LOG_DIR SHARE_DIR MOUNT_POINT; do state_dir_check "$key"; done
}

# start_require_cmds CMD...: die naming the first missing command.
start_require_cmds() {
  local c
  for c in "$@"; do
    common_have "$c" || die "'$c' is not installed: run with INSTALL_PACKAGES=yes or install it"
  done
}

# start_dirs: create the kit's folders (marked) with their modes.
start_dirs() {
  local d
  state_dir_make "$CONF_DIR" 0755
  state_dir_make "$STATE_DIR" 0755
  for d in private lock state cache pid ncalrpc bind-dns; do mkdir -p "$STATE_DIR/$d"; done
  chmod 0700 "$STATE_DIR/private"
  state_dir_make "$MOUNT_POINT" 0755
}

# start_on_exit STATUS: the end of every start (EXIT trap): after a failure or a signal, say
# how to undo what is in place; a later start or cleanup picks it up.
start_on_exit() {
  (($1 != 0)) || return 0
  [[ ${START_CHANGED:-no} == yes ]] || return 0
  warn "the start did not finish: run './test-samba.sh cleanup' (as root) to undo, or start-samba.sh again"
}

# start_summary: the last lines: what runs, how, where, and the next command.
start_summary() {
  local how
  if [[ $KIT_SERVICE_MODE == systemd ]]; then
    how="systemd unit '$KIT_UNIT'"
  else
    how="plain daemon (no systemd as PID 1)"
  fi
  log ""
  log "${C_BOLD:-}test smbd is running${C_OFF:-}: pid $KIT_SMBD_PID, $how"
  log "  cgroup:      ${KIT_CGROUP:-none} ($KIT_CGROUP_SOURCE)"
  log "  listens on:  $SERVER_ADDR:$TEST_PORT; clients use $KIT_UNC (port 445, nftables table 'ip $NFT_TABLE')"
  log "  config:      $KIT_CONF; credentials: $KIT_CREDENTIALS (root only)"
  if [[ $(state_get KIT_MOUNTED) == yes ]]; then
    log "  mounted:     $MOUNT_POINT ($(state_get KIT_MOUNT_OPTS))"
  else
    log "  mounted:     no ($(state_get KIT_MOUNT_SKIP))"
  fi
  log "  SELinux:     $(state_get KIT_SELINUX)"
  [[ -z ${DEPS_NOTE:-} ]] || log "  packages:    $DEPS_NOTE"
  log "next, as root: ./test-samba.sh    (stop: ./stop-samba.sh; remove all: ./test-samba.sh cleanup)"
}

main() {
  local t0 restart=no pid
  common_init_no_args "$0" "$@"
  common_traps_init start_on_exit
  t0=$SECONDS
  settings_load "$KIT_ROOT"
  common_require_root
  lock_take start
  state_load || true
  # what a killed run left in the clients' cgroup (lib/probes/clientcpu.sh)
  # shellcheck source=lib/probes/clientcpu.sh
  source "$KIT_ROOT/lib/probes/clientcpu.sh" && clientcpu_leftovers
  start_preflight
  common_check_space "$STATE_DIR" 16
  START_CHANGED=yes

  state_dir_make "$LOG_DIR" 0750 # root only; the package install's log is its first file
  DEPS_LOG=$LOG_DIR/packages.log deps_ensure
  start_require_cmds smbd testparm smbpasswd pdbedit smbclient nft ss
  deps_build_helpers "$KIT_ROOT"
  start_dirs
  account_ensure_unix
  state_dir_make "$SHARE_DIR" 0770 "$TEST_USER:$TEST_USER"
  account_ensure_credentials
  smbconf_apply "$KIT_ROOT"
  account_ensure_passdb
  account_remove_old
  state_set KIT_TEST_USER "$TEST_USER"
  selinux_apply

  SERVICE_UNIT_CHANGED=no
  if [[ $(service_mode) == systemd ]]; then service_unit_install "$KIT_ROOT"; fi
  if pid=$(service_main_pid); then
    if [[ $SMBCONF_CHANGED == yes || $SERVICE_UNIT_CHANGED == yes ]]; then
      log "service: settings changed: restarting smbd (pid $pid)"
      restart=yes
      mount_down
      service_stop
    else
      log "service: smbd already running (pid $pid)"
    fi
  fi
  if ! service_is_running; then
    service_start
    log "service: started smbd (pid $KIT_SMBD_PID) as $KIT_SERVICE_MODE, cgroup ${KIT_CGROUP:-none} ($KIT_CGROUP_SOURCE)"
  else
    state_set KIT_SMBD_PID "$pid"
  fi
  serverconf_record
  service_wait_login "$SERVER_ADDR" "$TEST_PORT" "$START_LOGIN_TIMEOUT" ||
    die "the test smbd does not accept a login on $SERVER_ADDR:$TEST_PORT"
  log "login: works on //$SERVER_ADDR:$TEST_PORT/$SHARE_NAME"

  redirect_add
  service_wait_login "$CLIENT_ADDR" 445 10 ||
    die "no login through the redirect $CLIENT_ADDR:445 (nftables table 'ip $NFT_TABLE')"
  log "login: works through $KIT_UNC (port 445)"
  clienthosts_remove
  clienthosts_deploy
  clienthosts_fio_start

  mount_up
  state_set KIT_STARTED_AT "$(date -u +%FT%TZ)"
  state_load
  [[ $restart == no ]] || log "restarted with the new settings"
  start_summary
  log "(took $((SECONDS - t0)) s)"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
