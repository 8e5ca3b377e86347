# lib/server/state.sh: the runtime state file $KIT_STATE_FILE (KEY=VALUE lines in the settings file
# syntax, read as data, never sourced), written by start-samba.sh and read by the other
# scripts; and the kit's folders with their ownership marker. Sourced; functions only.
# Needs lib/common.sh and lib/settings.sh.
# shellcheck disable=SC2034 # the state names are read by the other libraries

# Every key the state file may hold; the one place they are listed.
STATE_KEYS='KIT_TEST_USER|KIT_SELINUX|KIT_SELINUX_FCONTEXTS|KIT_SELINUX_PORT|KIT_UNIT|KIT_CGROUP|KIT_SERVICE_MODE|KIT_CGROUP_SOURCE|KIT_SMBD_PID|KIT_NFT_TABLE|KIT_MOUNTED|KIT_MOUNT_OPTS|KIT_MOUNT_SKIP|KIT_MOUNT_SRC|KIT_STARTED_AT|KIT_SAMBA_SETTINGS|KIT_SAMBA_SETTINGS_ENV|KIT_SAMBA_PARAMS|KIT_CONF_SHA256|KIT_CLIENT_DIRS|KIT_CLIENT_FIO|KIT_CLIENT_MACHINE'

STATE_DIR_MARKER=.samba-perf-test

# state_path_safe PATH WHAT [above] [UID]: die unless PATH (when it exists) and every existing
# folder above it are owned by root (or by UID, whom root trusts already: the kit's owner) and
# not writable by group or others (a sticky folder such as /tmp is fine above it, and so is
# PATH itself with 'above'): another user could otherwise replace what root reads, writes or
# removes there.
state_path_safe() {
  local p=$1 what=$2 st uid mode first=1 also=${4:-0}
  [[ ${3:-} != above ]] || first=0
  while :; do
    if [[ -e $p || -L $p ]]; then
      st=$(common_timeout 5 stat -c '%u %a' -- "$p") || die "cannot stat '$p' ($what)"
      uid=${st% *} mode=$((8#${st#* }))
      ((uid == 0 || uid == also)) ||
        die "'$p' ($what) is owned by uid $uid, not root$( ((also == 0)) || echo " or the kit's owner (uid $also)"): refusing to use it"
      if ((mode & 8#022)) && { ((first)) || ! ((mode & 8#1000)); }; then
        die "'$p' ($what) is writable by group or others (mode ${st#* }): refusing to use it"
      fi
      first=0
    fi
    [[ $p != / ]] || break
    p=${p%/*}
    [[ -n $p ]] || p=/
  done
}

# state_mark_owner BASE TEXT: which kit a mark names. A mark is "BASE STATE_DIR": print 'this'
# for this kit's, 'legacy' for BASE alone (earlier versions named no kit: the state file, which
# is this kit's, must name the thing), the other kit's STATE_DIR for another's; 1 when TEXT is no
# kit mark at all.
state_mark_owner() {
  local base=$1 text=$2
  if [[ $text == "$base $STATE_DIR" ]]; then
    echo this
  elif [[ $text == "$base" ]]; then
    echo legacy
  elif [[ $text == "$base /"* ]]; then
    printf '%s\n' "${text#"$base "}"
  else
    return 1
  fi
}

# state_check_file: die unless the state file and its folders are root's alone.
state_check_file() {
  state_path_safe "$KIT_STATE_FILE" "the kit's state file"
  [[ ! -L $KIT_STATE_FILE ]] || die "'$KIT_STATE_FILE' is a symlink: refusing to read it"
}

# state_set KEY VALUE: store KEY=VALUE in the state file (replacing an older KEY line).
state_set() {
  local key=$1 value=$2 tmp k
  [[ $key =~ ^($STATE_KEYS)$ ]] || die "bad state key '$key'"
  [[ -d ${KIT_STATE_FILE%/*} ]] || state_dir_make "${KIT_STATE_FILE%/*}" 0755
  state_check_file
  tmp=$(mktemp "$KIT_STATE_FILE.XXXXXX") || die "cannot write in '${KIT_STATE_FILE%/*}'"
  common_tmp_track "$tmp"
  if ! {
    if [[ -f $KIT_STATE_FILE ]]; then
      settings_read_file "$KIT_STATE_FILE" "$STATE_KEYS"
      for k in "${SETTINGS_READ_ORDER[@]}"; do
        [[ $k == "$key" ]] || printf '%s=%s\n' "$k" "$(settings_quote "${SETTINGS_READ[$k]}")"
      done
    fi
    printf '%s=%s\n' "$key" "$(settings_quote "$value")"
  } >"$tmp" || ! chmod 0644 "$tmp" || ! mv -f "$tmp" "$KIT_STATE_FILE"; then
    rm -f "$tmp"
    die "cannot write '$KIT_STATE_FILE' (is the disk full?)"
  fi
}

# state_get KEY: print the stored value of KEY (empty when unset or no state file).
state_get() {
  [[ -f $KIT_STATE_FILE ]] && state_dir_is_kit "${KIT_STATE_FILE%/*}" || return 0
  (
    settings_read_file "$KIT_STATE_FILE" "$STATE_KEYS"
    printf '%s\n' "${SETTINGS_READ[$1]:-}"
  )
}

# state_load: set and export every key of the state file (read as data; unknown keys and bad
# lines die with the line number); 1 when there is no file, or its folder has no kit marker.
state_load() {
  local key
  [[ -f $KIT_STATE_FILE ]] || return 1
  if ! state_dir_is_kit "${KIT_STATE_FILE%/*}"; then
    log "ignored '$KIT_STATE_FILE': its folder was not made by the kit"
    return 1
  fi
  state_check_file
  settings_read_file "$KIT_STATE_FILE" "$STATE_KEYS"
  for key in "${SETTINGS_READ_ORDER[@]}"; do
    printf -v "$key" '%s' "${SETTINGS_READ[$key]}"
    export "${key?}"
  done
  return 0
}

# state_exists: true when the state file is there.
state_exists() {
  [[ -f $KIT_STATE_FILE ]]
}

# state_dir_mark_kind DIR: print 'made' or 'adopted' when DIR carries the kit's marker (a
# regular root-owned file naming DIR); 1 when it does not.
state_dir_mark_kind() {
  local dir=$1 m=$1/$STATE_DIR_MARKER line=''
  [[ -d $dir && ! -L $dir && -f $m && ! -L $m ]] || return 1
  [[ $(common_timeout 5 stat -c %u -- "$m" 2>/dev/null) == 0 ]] || return 1
  read -r line <"$m" || true
  case $line in
    "samba-perf-test kit folder made $dir") echo made ;;
    "samba-perf-test kit folder adopted $dir") echo adopted ;;
    '') echo made ;; # the empty marker of earlier kit versions (root-owned: root wrote it)
    *) return 1 ;;
  esac
}

# state_dir_is_kit DIR: true when DIR carries the kit's marker.
state_dir_is_kit() {
  state_dir_mark_kind "$1" >/dev/null
}

# state_dir_check KEY: die when the folder of setting KEY exists, is not empty and was not
# made by the kit, or could be changed by another user (changes nothing): the folders above it
# must be root's (a sticky one such as /tmp is fine above), and a folder the kit did not make
# must be root's, writable by no one else and not directly in a folder others can write (there
# another user could have made it, or swap it, for root to follow their symlinks in it). A
# folder the kit made keeps the owner the kit gave it (SHARE_DIR: the test user).
state_dir_check() {
  local key=$1 dir=${!1} kind parent mode
  case $key in CONF_DIR | STATE_DIR) state_path_safe "$dir" "setting '$key'" ;; esac
  parent=${dir%/*}
  [[ -n $parent ]] || parent=/
  state_path_safe "$parent" "the folder of setting '$key'" above
  [[ -e $dir || -L $dir ]] || return 0
  [[ -d $dir && ! -L $dir ]] || die "setting '$key' names '$dir', which is not a folder"
  if [[ $key == MOUNT_POINT ]]; then mount_check_foreign; fi
  [[ $key == MOUNT_POINT ]] && mount_is_kit && return 0
  kind=$(state_dir_mark_kind "$dir") || kind=''
  [[ $kind == made ]] && return 0
  state_path_safe "$dir" "setting '$key'"
  mode=$(common_timeout 5 stat -c %a -- "$parent") || die "cannot stat '$parent'"
  if ((8#$mode & 8#002)) && [[ $kind != adopted ]]; then
    die "setting '$key' names '$dir', which the kit did not make, in '$parent', which every user can write (mode $mode): use a new folder there, which the kit makes"
  fi
  [[ -n $kind ]] && return 0
  if [[ -n $(common_timeout 5 ls -A -- "$dir" 2>/dev/null) ]]; then
    die "setting '$key' names '$dir', a folder that has files and was not made by the kit: choose a new folder"
  fi
}

# state_dir_make DIR MODE [OWNER]: create DIR with the kit's marker ('made') unless it exists;
# an existing empty folder is marked 'adopted' (cleanup empties it and keeps it). MODE and
# OWNER are set only on a folder the kit made.
state_dir_make() {
  local dir=$1 mode=$2 owner=${3:-} kind tmp
  if [[ ! -d $dir ]]; then
    # made under a temporary name with its marker, then renamed: never a kit folder without it
    common_timeout 10 mkdir -p -- "${dir%/*}" || die "cannot create '${dir%/*}'"
    tmp=$(mktemp -d "$dir.kit-XXXXXX") || die "cannot create a folder beside '$dir'"
    common_tmp_track "$tmp"
    printf 'samba-perf-test kit folder made %s\n' "$dir" >"$tmp/$STATE_DIR_MARKER"
    chmod "$mode" "$tmp"
    mv -T -- "$tmp" "$dir" || die "cannot create '$dir'"
  elif ! state_dir_is_kit "$dir"; then
    [[ -z $(common_timeout 5 ls -A -- "$dir" 2>/dev/null) ]] || die "'$dir' has files and was not made by the kit: kept"
    printf 'samba-perf-test kit folder adopted %s\n' "$dir" >"$dir/$STATE_DIR_MARKER"
  fi
  kind=$(state_dir_mark_kind "$dir") || die "cannot mark '$dir' as the kit's"
  if [[ $kind == made ]]; then
    chmod "$mode" "$dir"
    [[ -z $owner ]] || chown "$owner" "$dir"
  fi
}

# state_dir_remove DIR: remove DIR when it carries the kit's 'made' marker; empty it when it
# carries 'adopted'; else keep it and say so. Checked right before removing; never crosses
# into another file system; quiet when gone.
state_dir_remove() {
  local dir=$1 kind canon
  [[ -e $dir || -L $dir ]] || return 0
  canon=$(settings_realpath "$dir") || canon=''
  if [[ $canon != "$dir" ]]; then
    log "kept '$dir': it now leads to '$canon', not a folder of the kit"
    return 0
  fi
  if awk -v d="$dir" '$2 == d { f = 1 } END { exit !f }' /proc/self/mounts; then
    log "kept '$dir': something is mounted there"
    return 0
  fi
  if ! kind=$(state_dir_mark_kind "$dir"); then
    log "kept '$dir': not made by the kit"
    return 0
  fi
  if [[ $kind == made ]]; then
    rm -rf --one-file-system -- "$dir"
    log "removed '$dir'"
  else
    find "$dir" -mindepth 1 -maxdepth 1 ! -name "$STATE_DIR_MARKER" -exec rm -rf --one-file-system -- {} +
    rm -f -- "$dir/$STATE_DIR_MARKER"
    log "emptied '$dir' (the folder was there before the kit: kept)"
  fi
}
