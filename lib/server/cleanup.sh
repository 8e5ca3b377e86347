# lib/server/cleanup.sh: './test-samba.sh cleanup': stop the kit and remove every trace of it but
# results/. Works on a half-started or already clean system. Removes only what carries the
# kit's mark (checked right before each step); names what it keeps. Sourced; functions only.

# cleanup_stop: unmount, remove the kit's folders from the client hosts, stop the service,
# remove the nft table (what stop-samba.sh does).
cleanup_stop() {
  mount_down
  clienthosts_remove
  service_stop
  redirect_remove
}

# cleanup_all: stop (a test run first), then remove unit, config, state, logs, share data,
# the test account (tdbsam and Unix) and the SELinux rules the kit added. Reads the settings
# and the state file; without a state file it removes only what carries the kit's marks.
cleanup_all() {
  common_traps_init '' # Ctrl-C, TERM and HUP end it at once; running it again finishes the job
  settings_load "$KIT_ROOT"
  common_require_root
  lock_take cleanup
  state_load || log "cleanup: no state file '$KIT_STATE_FILE': removing only what carries the kit's marks"
  # the clients' cgroup (lib/probes/clientcpu.sh): what a killed run left in it, then the cgroup
  # shellcheck source=lib/probes/clientcpu.sh
  source "$KIT_ROOT/lib/probes/clientcpu.sh" && clientcpu_leftovers
  cleanup_stop
  clientcpu_remove
  service_unit_remove
  account_remove
  account_remove_old
  selinux_remove
  if mount_is_kit; then
    die "'$MOUNT_POINT' is still mounted: not removing the share folder"
  fi
  state_dir_remove "$MOUNT_POINT"
  state_dir_remove "$SHARE_DIR"
  state_dir_remove "$LOG_DIR"
  state_dir_remove "$CONF_DIR"
  state_dir_remove "$STATE_DIR"
  log "cleanup: done; results are kept in '$RESULTS_DIR'"
}
