# lib/server/smbconf.sh: render templates/smb.conf.in to the kit's smb.conf, check it with
# 'testparm -s', then move it into place. Sourced; functions only. Needs the loaded settings
# (settings_load also loads lib/server/sambaparams.sh, whose lines fill @SAMBA_*_PARAMS@).

# shellcheck disable=SC2034,SC2153 # settings come from lib/settings.sh
SMBCONF_WORKGROUP=SMBPERFWG
SMBCONF_NETBIOS=SMBPERF

# smbconf_render_template FILE NAME=VALUE...: print FILE with every @NAME@ replaced by VALUE.
smbconf_render_template() {
  local text pair
  text=$(<"$1")
  shift
  for pair in "$@"; do
    text=${text//"@${pair%%=*}@"/"${pair#*=}"}
  done
  [[ $text != *@[A-Z_]*@* ]] || die "template '$1' has a placeholder the kit does not fill"
  printf '%s\n' "$text"
}

# smbconf_render ROOT: print the kit's smb.conf for the current settings.
smbconf_render() {
  local encrypt=default signing=$SIGNING
  [[ $ENCRYPTION == yes ]] && encrypt=required
  smbconf_render_template "$1/templates/smb.conf.in" \
    "NETBIOS_NAME=$SMBCONF_NETBIOS" "WORKGROUP=$SMBCONF_WORKGROUP" "TEST_PORT=$TEST_PORT" \
    "SERVER_ADDR=$SERVER_ADDR" "CLIENT_ADDR=$CLIENT_ADDR" "STATE_DIR=$STATE_DIR" "LOG_DIR=$LOG_DIR" \
    "SERVER_SIGNING=$signing" "SERVER_SMB_ENCRYPT=$encrypt" "STRICT_SYNC=$STRICT_SYNC" \
    "USE_SENDFILE=$USE_SENDFILE" "SHARE_NAME=$SHARE_NAME" "SHARE_DIR=$SHARE_DIR" \
    "TEST_USER=$TEST_USER" "SAMBA_GLOBAL_PARAMS=$(sambaparams_lines SAMBA_GLOBAL_PARAMS)" \
    "SAMBA_SHARE_PARAMS=$(sambaparams_lines SAMBA_SHARE_PARAMS)" "SMBD_PROFILING=$SMBD_PROFILING" \
    "CLIENT_HOSTS_INTERFACE=$(clienthosts_smbconf_interface)" "CLIENT_HOSTS_ALLOW=$(clienthosts_smbconf_allow)"
}

# smbconf_apply ROOT: render, check with testparm, install as KIT_CONF when it differs.
# Sets SMBCONF_CHANGED=yes|no.
smbconf_apply() {
  local tmp err
  SMBCONF_CHANGED=no
  tmp=$(mktemp "$KIT_CONF.XXXXXX")
  common_tmp_track "$tmp"
  smbconf_render "$1" >"$tmp"
  chmod 0644 "$tmp"
  if ! err=$(common_timeout 60 testparm -s "$tmp" 2>&1 >/dev/null) || grep -qiE 'unknown parameter|ignoring unknown|error' <<<"$err"; then
    rm -f "$tmp"
    printf '%s\n' "$err" >&2
    die "testparm rejected the rendered smb.conf (see above)"
  fi
  if [[ -f $KIT_CONF ]] && cmp -s "$tmp" "$KIT_CONF"; then
    rm -f "$tmp"
    log "smb.conf: '$KIT_CONF' already up to date"
    return 0
  fi
  mv -f "$tmp" "$KIT_CONF"
  SMBCONF_CHANGED=yes
  log "smb.conf: wrote '$KIT_CONF' (checked with testparm)"
}
