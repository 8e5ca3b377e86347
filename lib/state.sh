# lib/state.sh: the runtime state file $KIT_STATE_FILE (KEY=VALUE lines, values quoted with
# printf %q), written by start-samba.sh and read by the other scripts. Sourced; functions only.

# state_set KEY VALUE: store KEY=VALUE in the state file (replacing an older KEY line).
state_set() {
  local key=$1 value=$2 tmp
  [[ $key =~ ^KIT_[A-Z0-9_]+$ ]] || die "bad state key '$key'"
  mkdir -p "${KIT_STATE_FILE%/*}"
  tmp=$(mktemp "$KIT_STATE_FILE.XXXXXX")
  if [[ -f $KIT_STATE_FILE ]]; then
    grep -v "^$key=" "$KIT_STATE_FILE" >"$tmp" || true
  fi
  printf '%s=%q\n' "$key" "$value" >>"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$KIT_STATE_FILE"
}

# state_get KEY: print the stored value of KEY (empty when unset or no state file).
state_get() {
  [[ -f $KIT_STATE_FILE ]] || return 0
  (
    # shellcheck source=/dev/null
    source "$KIT_STATE_FILE"
    printf '%s\n' "${!1:-}"
  )
}

# state_load: set and export every KIT_* key of the state file; 1 when there is no file.
state_load() {
  local line key
  [[ -f $KIT_STATE_FILE ]] || return 1
  # shellcheck source=/dev/null
  source "$KIT_STATE_FILE"
  while IFS= read -r line; do
    key=${line%%=*}
    [[ $key =~ ^KIT_[A-Z0-9_]+$ ]] && export "${key?}"
  done <"$KIT_STATE_FILE"
  return 0
}

# state_exists: true when the state file is there.
state_exists() {
  [[ -f $KIT_STATE_FILE ]]
}

STATE_DIR_MARKER=.samba-perf-test

# state_dir_is_kit DIR: true when DIR carries the kit's marker file (the kit made it).
state_dir_is_kit() {
  [[ -d $1 && -f $1/$STATE_DIR_MARKER ]]
}

# state_dir_check KEY: die when the folder of setting KEY exists, is not empty and was not
# made by the kit (changes nothing).
state_dir_check() {
  local dir=${!1}
  [[ -e $dir ]] || return 0
  [[ -d $dir ]] || die "setting '$1' names '$dir', which is not a folder"
  state_dir_is_kit "$dir" && return 0
  [[ $1 == MOUNT_POINT ]] && mount_options_now >/dev/null 2>&1 && return 0
  if [[ -n $(ls -A "$dir" 2>/dev/null) ]]; then
    die "setting '$1' names '$dir', a folder that has files and was not made by the kit: choose a new folder"
  fi
}

# state_dir_make DIR MODE [OWNER]: create DIR with the kit's marker unless it exists; set MODE
# (and OWNER) on it only when the kit made it. An existing empty folder is used, not marked.
state_dir_make() {
  local dir=$1 mode=$2 owner=${3:-}
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir"
    : >"$dir/$STATE_DIR_MARKER"
  fi
  if state_dir_is_kit "$dir"; then
    chmod "$mode" "$dir"
    [[ -z $owner ]] || chown "$owner" "$dir"
  fi
}

# state_dir_remove DIR [KITFILE...]: remove DIR when the kit made it; else remove only the named
# kit files and folders inside it. Never crosses into another file system; quiet when gone.
state_dir_remove() {
  local dir=$1 f
  shift
  [[ -d $dir ]] || return 0
  if state_dir_is_kit "$dir"; then
    rm -rf --one-file-system -- "$dir"
    log "removed '$dir'"
    return 0
  fi
  for f in "$@"; do
    [[ -e $dir/$f || -L $dir/$f ]] || continue
    rm -rf --one-file-system -- "${dir:?}/$f"
  done
  (($# == 0)) || log "removed the kit's files from '$dir' (the folder was not made by the kit: kept)"
}
