# lib/server/account.sh: the test account: a system user with no login shell, marked as the kit's
# (GECOS), its root-only credentials file and its tdbsam entry in the kit's own passdb.
# Sourced; functions only. Needs lib/common.sh, lib/server/state.sh and the loaded settings.

ACCOUNT_GECOS='samba perf test kit'

# account_exists: true when TEST_USER is a Unix account.
account_exists() {
  common_timeout 30 getent passwd "$TEST_USER" >/dev/null 2>&1
}

# account_owner: print which kit TEST_USER's GECOS mark names (state_mark_owner: 'this',
# 'legacy' or another kit's STATE_DIR); 1 when the user is missing or carries no kit mark.
account_owner() {
  local gecos
  gecos=$(common_timeout 30 getent passwd "$TEST_USER" 2>/dev/null | cut -d: -f5) || return 1
  state_mark_owner "$ACCOUNT_GECOS" "$gecos"
}

# account_is_kit: true when TEST_USER exists and is this kit's: its GECOS names this kit's
# STATE_DIR, or it has the mark of earlier versions and this kit's state file names the user.
account_is_kit() {
  local owner
  owner=$(account_owner) || return 1
  [[ $owner == this || ($owner == legacy && ${KIT_TEST_USER:-} == "$TEST_USER") ]]
}

# account_whose: print whose TEST_USER is, for a message ("another kit's (STATE_DIR '/x')").
account_whose() {
  local owner
  owner=$(account_owner) || owner=''
  case $owner in
    '') echo "not made by the kit" ;;
    legacy) echo "made by a kit whose state does not name it (another kit, or one of an earlier version)" ;;
    *) echo "another kit's (STATE_DIR '$owner')" ;;
  esac
}

# account_check: die when TEST_USER exists but is not this kit's (changes nothing).
account_check() {
  if account_exists && ! account_is_kit; then
    if account_owner >/dev/null; then
      die "setting 'TEST_USER': user '$TEST_USER' exists and is $(account_whose): set TEST_USER to a new name"
    fi
    die "user '$TEST_USER' exists and was not made by the kit: set TEST_USER to a new name"
  fi
}

# account_password_new: print a new random password (24 letters and digits). Call it with the
# trace off (common_secret_begin).
account_password_new() {
  local pw=''
  while ((${#pw} < 24)); do
    pw+=$(head -c 256 /dev/urandom | LC_ALL=C tr -dc 'A-Za-z0-9')
  done
  printf '%s' "${pw:0:24}"
}

# account_password: print the password stored in the credentials file (empty when none). Call
# it with the trace off (common_secret_begin).
account_password() {
  [[ -f $KIT_CREDENTIALS ]] || return 0
  sed -n 's/^password=//p' "$KIT_CREDENTIALS" | head -n 1
}

# account_pending_file: print the path of the mark that says the credentials file holds a
# password the passdb may not have yet (written before a new password, removed after the
# passdb has it), so an interrupted start is completed by the next one.
account_pending_file() {
  printf '%s/passdb.pending\n' "$STATE_DIR"
}

# account_ensure_unix: create the system user (no home, no login shell) unless it is there.
account_ensure_unix() {
  local shell=/usr/sbin/nologin
  if account_exists; then
    if [[ $(account_owner) == legacy ]]; then
      # an earlier version's mark, which named no kit: name this one
      common_timeout 60 usermod --comment "$ACCOUNT_GECOS $STATE_DIR" "$TEST_USER" ||
        die "could not mark user '$TEST_USER' as this kit's"
    fi
    log "user: '$TEST_USER' already in place"
    return 0
  fi
  [[ -x $shell ]] || shell=/sbin/nologin
  [[ -x $shell ]] || shell=/bin/false
  common_timeout 60 useradd --system --no-create-home --home-dir /nonexistent --shell "$shell" \
    --comment "$ACCOUNT_GECOS $STATE_DIR" --user-group "$TEST_USER" ||
    die "could not create user '$TEST_USER'"
  log "user: created system user '$TEST_USER' (no login shell)"
}

# account_remove_old: remove the kit's user of earlier settings (state KIT_TEST_USER) when
# TEST_USER changed.
account_remove_old() {
  local old=${KIT_TEST_USER:-}
  [[ -n $old && $old != "$TEST_USER" ]] || return 0
  local TEST_USER=$old # dynamic scope: account_remove sees the old name
  account_remove
}

# account_ensure_credentials: write CONF_DIR/credentials (0600 root) with a new password
# unless it already names TEST_USER. The password only passes through printf (a builtin).
account_ensure_credentials() {
  local pw tmp
  if [[ -f $KIT_CREDENTIALS ]] && grep -qxF "username=$TEST_USER" "$KIT_CREDENTIALS" &&
    grep -q '^password=.' "$KIT_CREDENTIALS"; then
    log "credentials: '$KIT_CREDENTIALS' already in place"
    return 0
  fi
  : >"$(account_pending_file)"
  tmp=$(umask 077 && mktemp "$KIT_CREDENTIALS.XXXXXX")
  common_tmp_track "$tmp"
  common_secret_begin
  pw=$(account_password_new)
  printf 'username=%s\npassword=%s\ndomain=%s\n' "$TEST_USER" "$pw" "$SMBCONF_WORKGROUP" >"$tmp"
  pw=''
  common_secret_end
  chmod 0600 "$tmp"
  chown 0:0 "$tmp"
  mv -f "$tmp" "$KIT_CREDENTIALS"
  log "credentials: wrote '$KIT_CREDENTIALS' (root only, new random password)"
}

# account_in_passdb: true when the kit's passdb has TEST_USER.
account_in_passdb() {
  [[ -f $KIT_CONF ]] && common_timeout 30 pdbedit -s "$KIT_CONF" -u "$TEST_USER" >/dev/null 2>&1
}

# account_ensure_passdb: add or update TEST_USER in the kit's tdbsam with the password of the
# credentials file (via stdin, never argv).
account_ensure_passdb() {
  local pw ok=yes pending
  pending=$(account_pending_file)
  if [[ ! -e $pending ]] && account_in_passdb; then
    log "passdb: '$TEST_USER' already in place"
    return 0
  fi
  common_secret_begin
  pw=$(account_password)
  if [[ -z $pw ]]; then
    ok=empty
  elif ! printf '%s\n%s\n' "$pw" "$pw" | common_timeout 30 smbpasswd -c "$KIT_CONF" -s -a "$TEST_USER" >/dev/null; then
    ok=no
  fi
  pw=''
  common_secret_end
  [[ $ok != empty ]] || die "no password in '$KIT_CREDENTIALS'"
  [[ $ok == yes ]] || die "could not add '$TEST_USER' to the kit's passdb"
  rm -f "$pending"
  log "passdb: set '$TEST_USER' in the kit's own passdb"
}

# account_remove: remove TEST_USER from the kit's passdb (only when CONF_DIR and STATE_DIR carry
# the kit's marker: a foreign smb.conf names a foreign passdb) and, when the kit made it, from
# the system. Quiet when already gone.
account_remove() {
  if ! state_dir_is_kit "$CONF_DIR" || ! state_dir_is_kit "$STATE_DIR"; then
    [[ ! -f $KIT_CONF ]] || log "kept the passdb of '$KIT_CONF': its folders were not made by the kit"
  elif [[ -f $KIT_CONF ]] && account_in_passdb; then
    common_timeout 30 pdbedit -s "$KIT_CONF" -x -u "$TEST_USER" >/dev/null 2>&1 || warn "could not remove '$TEST_USER' from the kit's passdb"
    log "removed '$TEST_USER' from the kit's passdb"
  fi
  if account_is_kit; then
    common_timeout 60 userdel "$TEST_USER" >/dev/null 2>&1 || die "could not remove user '$TEST_USER'"
    if common_timeout 30 getent group "$TEST_USER" >/dev/null 2>&1 && [[ -z $(common_timeout 30 getent group "$TEST_USER" | cut -d: -f4) ]]; then
      common_timeout 60 groupdel "$TEST_USER" >/dev/null 2>&1 || true
    fi
    log "removed user '$TEST_USER'"
  elif account_exists; then
    log "kept user '$TEST_USER': $(account_whose)"
  fi
}
