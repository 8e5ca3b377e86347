# lib/server/service-unit.sh: the kit's systemd unit (used when systemd is PID 1, lib/server/service.sh):
# its name and file, whether a unit of that name is the kit's (its marker line), writing it
# from templates/ and removing it. Sourced; functions only. Needs the settings, lib/server/state.sh,
# lib/server/smbconf.sh, lib/server/selinux.sh and lib/server/service.sh.
# shellcheck disable=SC2034 # SERVICE_UNIT_CHANGED is read by start-samba.sh

SERVICE_MARKER='samba-perf-test kit unit'

# service_unit: print the unit name (SERVICE_NAME.service).
service_unit() {
  printf '%s.service\n' "$SERVICE_NAME"
}

# service_unit_file: print the path of the kit's unit file.
service_unit_file() {
  printf '/etc/systemd/system/%s\n' "$(service_unit)"
}

# service_unit_file_is_kit FILE: true when FILE is a regular file whose first line is exactly
# this kit's marker line ('# MARKER STATE_DIR'; earlier versions' '# MARKER' alone when the
# state names the unit): another kit's unit of that name is not this kit's.
service_unit_file_is_kit() {
  local line='' owner
  [[ -f $1 && ! -L $1 ]] || return 1
  read -r line <"$1" || true
  [[ $line == '# '* ]] || return 1
  owner=$(state_mark_owner "$SERVICE_MARKER" "${line#'# '}") || return 1
  [[ $owner == this || ($owner == legacy && ${KIT_UNIT:-} == "${1##*/}") ]]
}

# service_unit_is_kit UNIT: true when systemd loads UNIT from the kit's unit file (the path
# the kit writes, carrying the marker line), or when systemd does not know UNIT at all.
service_unit_is_kit() {
  local unit=$1 file=/etc/systemd/system/$1 frag
  frag=$(common_timeout 10 systemctl show -p FragmentPath --value "$unit" 2>/dev/null) || frag=''
  if [[ -n $frag ]]; then
    [[ $frag == "$file" ]] && service_unit_file_is_kit "$file"
  else
    [[ ! -e $file ]] || service_unit_file_is_kit "$file"
  fi
}

# service_check_unit: die when the unit name is taken by a unit the kit did not write.
service_check_unit() {
  local file frag
  [[ $(service_mode) == systemd ]] || return 0
  file=$(service_unit_file)
  if [[ -e $file ]] && ! service_unit_file_is_kit "$file"; then
    die "setting 'SERVICE_NAME': unit '$(service_unit)' exists and was not written by the kit ('$file'): set SERVICE_NAME to a new name"
  fi
  frag=$(common_timeout 10 systemctl show -p FragmentPath --value "$(service_unit)" 2>/dev/null) || frag=''
  if [[ -n $frag && $frag != "$file" ]]; then
    die "setting 'SERVICE_NAME': unit '$(service_unit)' is already defined in '$frag': set SERVICE_NAME to a new name"
  fi
}

# service_unit_install ROOT: write the unit from templates/ when it differs; daemon-reload.
# Sets SERVICE_UNIT_CHANGED=yes|no.
service_unit_install() {
  local file tmp
  SERVICE_UNIT_CHANGED=no
  file=$(service_unit_file)
  tmp=$(mktemp "$file.XXXXXX")
  common_tmp_track "$tmp"
  smbconf_render_template "$1/templates/smbd-perf-test.service.in" \
    "MARKER=$SERVICE_MARKER $STATE_DIR" "SERVER_ADDR=$SERVER_ADDR" "TEST_PORT=$TEST_PORT" \
    "STATE_DIR=$STATE_DIR" "LIMIT_NOFILE=$(service_limit_nofile)" "SMBD=$(service_smbd)" \
    "KIT_CONF=$KIT_CONF" >"$tmp"
  chmod 0644 "$tmp"
  if [[ -f $file ]] && cmp -s "$tmp" "$file"; then
    rm -f "$tmp"
    return 0
  fi
  mv -f "$tmp" "$file"
  selinux_label_unit "$file"
  common_timeout 60 systemctl daemon-reload || die "systemctl daemon-reload failed or timed out"
  SERVICE_UNIT_CHANGED=yes
  log "service: wrote unit '$file'"
}

# service_unit_remove: stop nothing; delete the kit's unit file (only if it carries the mark).
service_unit_remove() {
  local file
  file=$(service_unit_file)
  if [[ -n ${KIT_UNIT:-} ]]; then file=/etc/systemd/system/$KIT_UNIT; fi
  [[ -f $file ]] || return 0
  if ! service_unit_file_is_kit "$file"; then
    log "kept '$file': not made by the kit"
    return 0
  fi
  rm -f "$file"
  if [[ $(service_mode) == systemd ]]; then
    common_timeout 60 systemctl daemon-reload || true
    common_timeout 10 systemctl reset-failed "${file##*/}" >/dev/null 2>&1 || true
  fi
  log "removed unit '$file'"
}
