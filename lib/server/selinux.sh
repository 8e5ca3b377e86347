# lib/server/selinux.sh: SELinux labels for the kit (share samba_share_t, state samba_var_t, logs
# samba_log_t, config samba_etc_t; TEST_PORT in smbd_port_t) and their removal. The state's
# private folder stays samba_var_t, as the distribution's /var/lib/samba/private is: smbd_t may
# not mmap samba_secrets_t files (secrets.tdb, passdb.tdb: AVC 'map' denials under enforcing,
# Debian 12's reference policy, tests/guest/selinux.bats). Decides by
# asking selinuxenabled/getenforce, so stubs on PATH can drive it. Sourced; functions only.

# selinux_mode: print 'enforcing', 'permissive' or 'disabled'.
selinux_mode() {
  local mode
  if common_have selinuxenabled && ! selinuxenabled; then
    echo disabled
    return 0
  fi
  if common_have getenforce; then
    mode=$(getenforce 2>/dev/null) || mode=Disabled
    mode=${mode,,}
    case $mode in
      enforcing | permissive) echo "$mode" ;;
      *) echo disabled ;;
    esac
    return 0
  fi
  echo disabled
}

# selinux_rules: print 'TYPE PATH' for every file-context rule the kit needs.
selinux_rules() {
  printf '%s %s\n' samba_share_t "$SHARE_DIR" samba_var_t "$STATE_DIR" \
    samba_log_t "$LOG_DIR" samba_etc_t "$CONF_DIR"
}

# selinux_regex PATH: print the file-context regex for PATH and everything below it, with the
# regex characters of the path escaped.
selinux_regex() {
  local p=$1
  p=${p//./\\.} p=${p//+/\\+}
  printf '%s(/.*)?\n' "$p"
}

# selinux_apply: when SELinux is on, add the file contexts and the port, relabel the folders;
# record in the state what the kit added. A rule that is already there and that the state does
# not record as the kit's is the admin's: it is kept as it is and never recorded.
selinux_apply() {
  local mode type path re rules='' port='' old_rules=${KIT_SELINUX_FCONTEXTS:-} old_port=${KIT_SELINUX_PORT:-}
  mode=$(selinux_mode)
  state_set KIT_SELINUX "$mode"
  if [[ $mode == disabled ]]; then
    log "selinux: off, nothing to label"
    return 0
  fi
  common_have semanage || die "SELinux is $mode but 'semanage' is missing: install policycoreutils-python-utils"
  while read -r type path; do
    re=$(selinux_regex "$path")
    if [[ " $old_rules " == *" $type=$path "* ]]; then
      rules+="$type=$path "
    elif common_isolated common_timeout 120 semanage fcontext -a -t "$type" "$re"; then
      rules+="$type=$path "
      state_set KIT_SELINUX_FCONTEXTS "${rules% }"
    elif common_timeout 60 semanage fcontext -l 2>/dev/null | grep -qF -- "$re "; then
      log "selinux: kept the file context of '$path': not the kit's (it was there before)"
    else
      die "could not label '$path' as $type"
    fi
  done < <(selinux_rules)
  state_set KIT_SELINUX_FCONTEXTS "${rules% }"
  if [[ $old_port == "$TEST_PORT" ]]; then
    port=$TEST_PORT
  elif common_isolated common_timeout 120 semanage port -a -t smbd_port_t -p tcp "$TEST_PORT"; then
    port=$TEST_PORT
  else
    log "selinux: kept the port rule of tcp $TEST_PORT: not the kit's (it was there before); smbd may not bind it"
  fi
  state_set KIT_SELINUX_PORT "$port"
  while read -r type path; do
    common_isolated common_timeout 300 restorecon -RF "$path" || die "could not relabel '$path'"
  done < <(selinux_rules)
  log "selinux: $mode; labelled the share, state, log and config folders; port $TEST_PORT is smbd_port_t"
}

# selinux_label_unit FILE: restore the label of a unit file written by the kit (SELinux on).
selinux_label_unit() {
  [[ $(selinux_mode) != disabled ]] || return 0
  common_isolated restorecon -F "$1" || warn "could not relabel '$1'"
}

# selinux_remove: delete exactly the file contexts and the port rule that the state says the
# kit added; without a state file nothing is deleted (a rule may be the admin's).
selinux_remove() {
  local rule
  if [[ $(selinux_mode) == disabled ]]; then
    return 0
  fi
  if ! state_exists; then
    log "selinux: no state file: kept every SELinux rule (the kit cannot tell its own from the admin's)"
    return 0
  fi
  if ! common_have semanage; then
    warn "semanage is missing: SELinux rules of the kit (if any) were not removed"
    return 0
  fi
  for rule in ${KIT_SELINUX_FCONTEXTS:-}; do
    common_isolated common_timeout 120 semanage fcontext -d "$(selinux_regex "${rule#*=}")" &&
      log "selinux: removed the file context of '${rule#*=}'"
  done
  if [[ -n ${KIT_SELINUX_PORT:-} ]]; then
    common_isolated common_timeout 120 semanage port -d -t smbd_port_t -p tcp "$KIT_SELINUX_PORT" &&
      log "selinux: removed tcp port $KIT_SELINUX_PORT from smbd_port_t"
  fi
  return 0
}
