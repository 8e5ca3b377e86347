# lib/settings.sh: the kit's settings: defaults, then settings.conf, then the environment,
# then one check per key (written with lib/settings-check.sh, which settings_load sources).
# Sourced; defines functions only. Needs lib/common.sh.
# shellcheck disable=SC2034 # the settings are read by the other libraries

# The file syntax, shared by settings.conf, a KIT_SETTINGS file, the state file kit.env and a
# results folder's settings.env (documented in settings.conf's header): one KEY=VALUE a line,
# the key at the start of the line; VALUE is bare (no spaces; '\X' stands for X), "double
# quoted" ('\"' and '\\' inside) or 'single quoted' (taken as is); a ' #' after the value
# starts a comment; blank lines and lines starting with '#' are ignored. Nothing is expanded:
# an unquoted or double-quoted '$' or '`' is an error. The files are never sourced.

# settings_read_file FILE [KEYS_REGEX]: parse FILE into the associative array SETTINGS_READ
# (KEY -> value) and the array SETTINGS_READ_ORDER (keys in file order). A line that is not
# KEY=VALUE, a key set twice, or a key that does not match KEYS_REGEX (an anchored ERE; default:
# any) dies with FILE:LINE. Changes nothing else.
settings_read_file() {
  local file=$1 re=${2:-} n=0 line key rest value tail
  local re_dq='^"(([^"\\]|\\.)*)"(.*)$' re_sq="^'([^']*)'(.*)\$"
  local re_bare='^(([^[:space:]"'"'"'\\#]|\\.)*)(.*)$' re_exp='(^|[^\\])(\\\\)*[$`]'
  local re_tail='^([[:space:]]+#.*|[[:space:]]*)$' re_kv='^([A-Za-z_][A-Za-z0-9_]*)=(.*)$'
  declare -gA SETTINGS_READ=()
  declare -ga SETTINGS_READ_ORDER=()
  [[ -f $file && -r $file ]] || die "cannot read '$file'"
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    [[ $line != *$'\r'* ]] || die "$file:$n: carriage return in the line (DOS line ends): save the file with Unix line ends"
    [[ ! $line =~ ^[[:space:]]*(#.*)?$ ]] || continue
    [[ $line =~ $re_kv ]] || die "$file:$n: not a KEY=VALUE line: '$line'"
    key=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
    [[ -z $re || $key =~ ^($re)$ ]] || die "$file:$n: unknown setting '$key'"
    [[ -z ${SETTINGS_READ[$key]+x} ]] || die "$file:$n: setting '$key' is set twice"
    if [[ $rest =~ $re_dq ]]; then
      value=${BASH_REMATCH[1]} tail=${BASH_REMATCH[3]}
    elif [[ $rest =~ $re_sq ]]; then
      value=${BASH_REMATCH[1]} tail=${BASH_REMATCH[2]}
    elif [[ $rest =~ $re_bare ]]; then
      value=${BASH_REMATCH[1]} tail=${BASH_REMATCH[3]}
    else
      die "$file:$n: '$key': bad quoting: '$rest'"
    fi
    [[ $tail =~ $re_tail ]] ||
      die "$file:$n: '$key': text after the value: '$tail' (quote a value with spaces: $key=\"a b\")"
    if [[ ${rest:0:1} != "'" ]]; then
      [[ ! $value =~ $re_exp ]] || die "$file:$n: '$key': '\$' and '\`' are not expanded: write the value itself"
      settings_unescape "$value" value
    fi
    SETTINGS_READ[$key]=$value
    SETTINGS_READ_ORDER+=("$key")
  done <"$file"
}

# settings_file_json FILE: FILE in the file syntax (a run's settings.env) as one JSON object
# {KEY: value}, parsed by settings_read_file (the one parser: nothing is sourced or run); dies
# as it does, naming FILE:LINE. Report and compare read a run's settings from results.json.
settings_file_json() {
  local key
  local -a args=()
  settings_read_file "$1"
  for key in "${SETTINGS_READ_ORDER[@]}"; do args+=("$key" "${SETTINGS_READ[$key]}"); done
  jq -cn '[$ARGS.positional | _nwise(2) | {(.[0]): .[1]}] | add // {}' --args "${args[@]}"
}

# settings_unescape TEXT VAR: set VAR to TEXT with every '\X' replaced by X.
settings_unescape() {
  local s=$1 out='' re='^([^\\]*)\\(.)(.*)$'
  while [[ $s =~ $re ]]; do
    out+=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
    s=${BASH_REMATCH[3]}
  done
  printf -v "$2" '%s' "$out$s"
}

# settings_quote VALUE: print VALUE in the file syntax (bare when plain, else double-quoted).
settings_quote() {
  local v=$1
  [[ $v != *$'\n'* ]] || die "a value with a line break cannot be stored: '$v'"
  if [[ $v =~ ^[A-Za-z0-9_./:,=@+%-]*$ ]]; then
    printf '%s\n' "$v"
  else
    v=${v//\\/\\\\} v=${v//\"/\\\"} v=${v//\$/\\\$} v=${v//\`/\\\`}
    printf '"%s"\n' "$v"
  fi
}

# settings_keys: print every settings key, one a line, in the order of settings.conf (the one
# place keys and defaults are written down).
settings_keys() {
  settings_defaults_read
  printf '%s\n' "${SETTINGS_KEYS[@]}"
}

# settings_defaults_read: read KIT_ROOT's settings.conf once into SETTINGS_KEYS (ordered) and
# SETTINGS_DEFAULTS (KEY -> default).
settings_defaults_read() {
  [[ -z ${SETTINGS_KEYS+x} ]] || return 0
  settings_read_file "${KIT_ROOT:?}/settings.conf" '[A-Z][A-Z0-9_]*'
  declare -ga SETTINGS_KEYS=("${SETTINGS_READ_ORDER[@]}")
  declare -gA SETTINGS_DEFAULTS=()
  local k
  for k in "${SETTINGS_KEYS[@]}"; do SETTINGS_DEFAULTS[$k]=${SETTINGS_READ[$k]}; done
}

# settings_keys_regex: print an ERE matching exactly the settings keys.
settings_keys_regex() {
  settings_defaults_read
  local IFS='|'
  printf '%s\n' "${SETTINGS_KEYS[*]}"
}

# settings_defaults: assign the default of every key (from settings.conf).
settings_defaults() {
  local k
  settings_defaults_read
  for k in "${SETTINGS_KEYS[@]}"; do printf -v "$k" '%s' "${SETTINGS_DEFAULTS[$k]}"; done
}

# settings_get KEY: print KEY's value as settings_load would set it (the environment, else
# $KIT_SETTINGS, else settings.conf's default), without validating the other keys: for the
# commands that read run folders, not the server (compare needs COMPARE_BAND_PCT only).
settings_get() {
  local key=$1
  settings_defaults_read
  [[ -n ${SETTINGS_DEFAULTS[$key]+x} ]] || die "unknown setting '$key'"
  if [[ -n ${!key+x} ]]; then
    printf '%s\n' "${!key}"
  elif [[ -n ${KIT_SETTINGS:-} && -e $KIT_SETTINGS ]] && settings_read_file "$KIT_SETTINGS" "$(settings_keys_regex)" &&
    [[ -n ${SETTINGS_READ[$key]+x} ]]; then
    printf '%s\n' "${SETTINGS_READ[$key]}"
  else
    printf '%s\n' "${SETTINGS_DEFAULTS[$key]}"
  fi
}

# settings_load ROOT: the defaults of ROOT/settings.conf, then $KIT_SETTINGS (when set), then
# the environment; validate every key; set the derived KIT_* names. Files are read as data
# (never sourced); dies on the first bad line or value.
settings_load() {
  local root=$1 key
  local -A from_env=()
  KIT_ROOT=${KIT_ROOT:-$root}
  settings_defaults_read
  for key in "${SETTINGS_KEYS[@]}"; do
    if [[ -v $key ]]; then from_env[$key]=${!key}; fi
  done
  settings_defaults
  if [[ -n ${KIT_SETTINGS:-} ]]; then
    [[ -e $KIT_SETTINGS ]] || die "settings file '$KIT_SETTINGS' does not exist"
    settings_read_file "$KIT_SETTINGS" "$(settings_keys_regex)"
    for key in "${SETTINGS_READ_ORDER[@]}"; do printf -v "$key" '%s' "${SETTINGS_READ[$key]}"; done
  fi
  for key in "${!from_env[@]}"; do
    printf -v "$key" '%s' "${from_env[$key]}"
  done
  settings_forget_inherited
  declare -F settings_bad >/dev/null || common_source_libs "$root" settings-check
  declare -F sambaparams_validate >/dev/null || common_source_libs "$root" server/sambaparams-policy server/sambaparams
  # shellcheck source=lib/registry.sh
  declare -F registry_check_settings >/dev/null || source "$root/lib/registry.sh"
  # shellcheck source=lib/run/clienthosts.sh
  declare -F clienthosts_check_settings >/dev/null || source "$root/lib/run/clienthosts.sh"
  settings_validate
  KIT_CONF=$CONF_DIR/smb.conf
  KIT_CREDENTIALS=$CONF_DIR/credentials
  KIT_STATE_FILE=$STATE_DIR/kit.env
  KIT_UNC=//$CLIENT_ADDR/$SHARE_NAME
}

# settings_forget_inherited: unset the state names (KIT_* but the documented switches
# KIT_SETTINGS, KIT_DEBUG, KIT_ROOT): only the state file, never the environment, says what
# the kit made.
settings_forget_inherited() {
  local v
  for v in $(compgen -v KIT_); do
    case $v in
      KIT_SETTINGS | KIT_DEBUG | KIT_ROOT | KIT_LOCK_WAIT_S | KIT_REQUIRE_ROOT | KIT_REQUIRE_TOOLS) ;;
      *) unset "$v" ;;
    esac
  done
}

# settings_realpath PATH: print PATH resolved (symlinks, '.', '..', '//', trailing '/'), the
# way 'realpath -m' does, bounded in time (a hung mount on the way).
settings_realpath() {
  timeout --foreground -k 2 5 realpath -m -- "$1"
}

# settings_validate: check every key; the first bad one dies with its name and value. Paths
# are replaced by their canonical form.
settings_validate() {
  local key a b prev=0 level
  settings_int TEST_PORT 1024 65535
  settings_loopback SERVER_ADDR
  settings_loopback CLIENT_ADDR
  (($(settings_ipv4_number "$CLIENT_ADDR") != $(settings_ipv4_number 127.0.0.1))) ||
    settings_bad CLIENT_ADDR "127.0.0.1:445 is where a host's own Samba answers; use another loopback address"
  (($(settings_ipv4_number "$CLIENT_ADDR") != $(settings_ipv4_number "$SERVER_ADDR"))) ||
    settings_bad CLIENT_ADDR "must differ from SERVER_ADDR"
  settings_name SERVICE_NAME
  case ${SERVICE_NAME,,} in
    smbd | smb | nmbd | nmb | winbind | winbindd | samba | samba-ad-dc | samba-bgqd | samba-dcerpcd)
      settings_bad SERVICE_NAME "is the name of a Samba system service"
      ;;
  esac
  settings_name SHARE_NAME
  case ${SHARE_NAME,,} in
    global | homes | printers | print\$ | ipc\$) settings_bad SHARE_NAME "is a reserved share name" ;;
  esac
  for key in SHARE_DIR MOUNT_POINT CONF_DIR LOG_DIR STATE_DIR; do settings_path "$key"; done
  # STATE_DIR names this kit in the marks of its user, nft table and unit (nft: 128 characters)
  ((${#STATE_DIR} <= 100)) || settings_bad STATE_DIR "must be at most 100 characters: it names this kit in the marks of its user, table and unit"
  for a in SHARE_DIR MOUNT_POINT CONF_DIR LOG_DIR STATE_DIR; do
    for b in SHARE_DIR MOUNT_POINT CONF_DIR LOG_DIR STATE_DIR; do
      [[ $a == "$b" ]] && continue
      [[ ${!a}/ != "${!b}"/* ]] || settings_bad "$a" "must not be the same as or inside $b ('${!b}')"
    done
  done
  [[ $TEST_USER =~ ^[a-z_][a-z0-9_-]{0,30}$ ]] ||
    settings_bad TEST_USER "use a lowercase user name of at most 31 characters"
  case $TEST_USER in
    root | nobody | daemon | bin | sys | adm | samba | smb | guest | admin | administrator)
      settings_bad TEST_USER "is an account of the system"
      ;;
  esac
  [[ $NFT_TABLE =~ ^[A-Za-z][A-Za-z0-9_]{0,31}$ ]] ||
    settings_bad NFT_TABLE "use 1-32 letters, digits or '_', starting with a letter"
  settings_results_dir "$KIT_ROOT"
  for key in INSTALL_PACKAGES ENCRYPTION STRICT_SYNC USE_SENDFILE DROP_CACHES WIRE_PROBE; do
    settings_enum "$key" yes no
  done
  settings_enum SIGNING default mandatory disabled
  settings_enum SMBD_PROFILING on count off
  if [[ $ENCRYPTION == yes && $SIGNING == disabled ]]; then
    settings_bad SIGNING "encryption needs signing; use default or mandatory with ENCRYPTION=yes"
  fi
  settings_int DURATION 1 3600
  settings_int DATA_FILE_MB 1 1048576
  settings_int SMALL_FILE_KB 0 65536
  settings_int WORKERS 1 256
  settings_int SEQ_STREAMS 1 64
  settings_int SEQ_QUEUE_DEPTH 1 1024
  settings_int RANDOM_JOBS 1 64
  settings_int RANDOM_QUEUE_DEPTH 1 1024
  settings_int LOAD_RATE 2 1000000 # split 70/30, each direction at 1/s at least (fio: 0 = no limit)
  settings_int MEMORY_CONNECTIONS 1 10000
  settings_int STARTUP_ROUNDS 1 20
  settings_int REPEAT 1 50
  settings_number COMPARE_BAND_PCT
  ((${COMPARE_BAND_PCT%.*} <= 100)) || settings_bad COMPARE_BAND_PCT "must be from 0 to 100"
  settings_rising CONCURRENCY_LEVELS level 1024 1 "must be a list of whole numbers, such as \"1 4 16 64 128\""
  for key in "${SETTINGS_KEYS[@]}"; do
    [[ $key == TARGET_* ]] && settings_number "$key"
  done
  ((${TARGET_ERRORS_MAX_PCT%.*} <= 100)) || settings_bad TARGET_ERRORS_MAX_PCT "must be from 0 to 100"
  sambaparams_validate
  registry_check_settings
  clienthosts_check_settings
  return 0
}

# settings_dump: print the effective settings as KEY=value lines (the file syntax).
settings_dump() {
  local key
  settings_defaults_read
  for key in "${SETTINGS_KEYS[@]}"; do
    printf '%s=%s\n' "$key" "$(settings_quote "${!key}")"
  done
}

# settings_diff_defaults: print 'KEY=value (default: d)' for every key that differs from
# settings.conf (an environment variable or a KIT_SETTINGS file changed it).
settings_diff_defaults() {
  local key
  settings_defaults_read
  for key in "${SETTINGS_KEYS[@]}"; do
    [[ $key == RESULTS_DIR ]] && continue
    [[ ${!key} == "${SETTINGS_DEFAULTS[$key]}" ]] ||
      printf '%s=%s (default: %s)\n' "$key" "${!key}" "${SETTINGS_DEFAULTS[$key]}"
  done
}
