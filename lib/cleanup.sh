# lib/cleanup.sh: './test-samba.sh cleanup': stop the kit and remove every trace of it but
# results/. Works on a half-started or already clean system. Sourced; functions only.
# shellcheck disable=SC2034 # read by lib/selinux.sh

# cleanup_stop: unmount, stop the service, remove the nft table (what stop-samba.sh does).
cleanup_stop() {
  mount_down
  service_stop
  redirect_remove
}

# cleanup_all: stop, then remove unit, config, state, logs, share data, the test account
# (tdbsam and Unix) and the SELinux rules the kit added. Reads settings and the state file.
cleanup_all() {
  settings_load "$KIT_ROOT"
  common_require_root
  if ! state_load; then
    KIT_SELINUX_FCONTEXTS=$(selinux_rules | awk '{ printf "%s%s=%s", sep, $1, $2; sep = " " }')
    KIT_SELINUX_PORT=''
  fi
  cleanup_stop
  # the clients' cgroup (lib/probes/clientcpu.sh), left by a run that was killed, when empty
  # shellcheck source=lib/probes/clientcpu.sh
  source "$KIT_ROOT/lib/probes/clientcpu.sh" && clientcpu_remove
  service_unit_remove
  account_remove
  account_remove_old
  selinux_remove
  if [[ -n ${KIT_SELINUX:-} && $KIT_SELINUX != disabled && -z ${KIT_SELINUX_PORT:-} ]] && ! state_exists; then
    warn "no state file: if you added it, remove the port rule with 'semanage port -d -t smbd_port_t -p tcp $TEST_PORT'"
  fi
  if mount_options_now >/dev/null 2>&1; then
    die "'$MOUNT_POINT' is still mounted: not removing the share folder"
  fi
  state_dir_remove "$MOUNT_POINT"
  state_dir_remove "$SHARE_DIR"
  state_dir_remove "$LOG_DIR" log.smbd log.smbd.old smbd.out
  state_dir_remove "$CONF_DIR" smb.conf credentials
  state_dir_remove "$STATE_DIR" kit.env private lock state cache pid ncalrpc bind-dns krb5cc_samba
  log "cleanup: done; results are kept in '$RESULTS_DIR'"
}
