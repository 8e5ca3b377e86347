# lib/selinux.sh: SELinux labels for the kit (share samba_share_t, state samba_var_t, logs
# samba_log_t, config samba_etc_t; TEST_PORT in smbd_port_t) and their removal. Decides by
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
  printf '%s %s\n' samba_share_t "$SHARE_DIR" samba_var_t "$STATE_DIR" samba_log_t "$LOG_DIR" \
    samba_etc_t "$CONF_DIR"
}

# selinux_apply: when SELinux is on, add the file contexts and the port, relabel the folders;
# record what was added in the state. Nothing (but one line) when SELinux is off.
selinux_apply() {
  local mode type path rules=''
  mode=$(selinux_mode)
  state_set KIT_SELINUX "$mode"
  if [[ $mode == disabled ]]; then
    log "selinux: off, nothing to label"
    return 0
  fi
  common_have semanage || die "SELinux is $mode but 'semanage' is missing: install policycoreutils-python-utils"
  while read -r type path; do
    if ! semanage fcontext -a -t "$type" "$path(/.*)?" 2>/dev/null; then
      semanage fcontext -m -t "$type" "$path(/.*)?" || die "could not label '$path' as $type"
    fi
    rules+="$type=$path "
  done < <(selinux_rules)
  state_set KIT_SELINUX_FCONTEXTS "${rules% }"
  if ! semanage port -a -t smbd_port_t -p tcp "$TEST_PORT" 2>/dev/null; then
    semanage port -m -t smbd_port_t -p tcp "$TEST_PORT" || die "could not add tcp port $TEST_PORT to smbd_port_t"
  fi
  state_set KIT_SELINUX_PORT "$TEST_PORT"
  while read -r type path; do
    restorecon -RF "$path" || die "could not relabel '$path'"
  done < <(selinux_rules)
  log "selinux: $mode; labelled the share, state, log and config folders; port $TEST_PORT is smbd_port_t"
}

# selinux_label_unit FILE: restore the label of a unit file written by the kit (SELinux on).
selinux_label_unit() {
  [[ $(selinux_mode) != disabled ]] || return 0
  restorecon -F "$1" || warn "could not relabel '$1'"
}

# selinux_remove: delete the file contexts and the port rule that the state says the kit added.
selinux_remove() {
  local rule port
  port=${KIT_SELINUX_PORT:-}
  if [[ $(selinux_mode) == disabled ]]; then
    return 0
  fi
  if ! common_have semanage; then
    warn "semanage is missing: SELinux rules of the kit (if any) were not removed"
    return 0
  fi
  for rule in ${KIT_SELINUX_FCONTEXTS:-}; do
    semanage fcontext -d "${rule#*=}(/.*)?" 2>/dev/null &&
      log "selinux: removed the file context of '${rule#*=}'"
  done
  if [[ -n $port ]]; then
    semanage port -d -t smbd_port_t -p tcp "$port" 2>/dev/null &&
      log "selinux: removed tcp port $port from smbd_port_t"
  fi
  return 0
}
