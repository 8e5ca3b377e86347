# lib/settings.sh: the kit's settings: defaults, then settings.conf, then the environment,
# then one check per key. Sourced; defines functions only. Needs lib/common.sh.
# shellcheck disable=SC2034 # the settings are read by the other libraries

# settings_keys: print every settings key, one a line, in the order of settings.conf.
settings_keys() {
  printf '%s\n' \
    TEST_PORT SERVER_ADDR CLIENT_ADDR SERVICE_NAME SHARE_NAME SHARE_DIR MOUNT_POINT CONF_DIR \
    LOG_DIR STATE_DIR TEST_USER NFT_TABLE RESULTS_DIR INSTALL_PACKAGES \
    ENCRYPTION SIGNING STRICT_SYNC USE_SENDFILE \
    DURATION DATA_FILE_MB SMALL_FILE_KB WORKERS SEQ_STREAMS SEQ_QUEUE_DEPTH RANDOM_JOBS \
    RANDOM_QUEUE_DEPTH LOAD_RATE CONCURRENCY_LEVELS MEMORY_CONNECTIONS STARTUP_ROUNDS DROP_CACHES REPEAT \
    TARGET_STARTUP_LOGIN_MAX_MS TARGET_RECOVERY_MAX_S TARGET_LOGIN_RATE_MIN \
    TARGET_LOGIN_P95_MAX_MS TARGET_SEQWRITE_MIN_MBS TARGET_SEQREAD_MIN_MBS \
    TARGET_RANDREAD_MIN_IOPS TARGET_RANDWRITE_MIN_IOPS TARGET_LATENCY_P99_MAX_MS \
    TARGET_ERRORS_MAX_PCT TARGET_METADATA_MIN_FPS TARGET_CONCURRENCY_MIN_CLIENTS \
    TARGET_CPU_PER_READ_MAX_US TARGET_MEMORY_PER_CONN_MAX_MB
}

# settings_defaults: assign the built-in default of every key (the same as settings.conf).
settings_defaults() {
  TEST_PORT=4450 SERVER_ADDR=127.0.0.1 CLIENT_ADDR=127.0.0.2 SERVICE_NAME=smbd-perf-test
  SHARE_NAME=perftest SHARE_DIR=/srv/samba-perf-test MOUNT_POINT=/mnt/samba-perf-test
  CONF_DIR=/etc/samba/perf-test LOG_DIR=/var/log/samba/perf-test
  STATE_DIR=/var/lib/samba/perf-test TEST_USER=smbperf NFT_TABLE=samba_perf_test
  RESULTS_DIR=results INSTALL_PACKAGES=yes
  ENCRYPTION=no SIGNING=default STRICT_SYNC=yes USE_SENDFILE=no
  DURATION=10 DATA_FILE_MB=1024 SMALL_FILE_KB=4 WORKERS=8 SEQ_STREAMS=1 SEQ_QUEUE_DEPTH=8
  RANDOM_JOBS=4 RANDOM_QUEUE_DEPTH=16 LOAD_RATE=500 CONCURRENCY_LEVELS="1 4 16 64 128"
  MEMORY_CONNECTIONS=200 STARTUP_ROUNDS=3 DROP_CACHES=no REPEAT=3
  TARGET_STARTUP_LOGIN_MAX_MS=500 TARGET_RECOVERY_MAX_S=5 TARGET_LOGIN_RATE_MIN=100
  TARGET_LOGIN_P95_MAX_MS=20 TARGET_SEQWRITE_MIN_MBS=200 TARGET_SEQREAD_MIN_MBS=1180
  TARGET_RANDREAD_MIN_IOPS=10000 TARGET_RANDWRITE_MIN_IOPS=10000 TARGET_LATENCY_P99_MAX_MS=5
  TARGET_ERRORS_MAX_PCT=0 TARGET_METADATA_MIN_FPS=1000 TARGET_CONCURRENCY_MIN_CLIENTS=64
  TARGET_CPU_PER_READ_MAX_US=40 TARGET_MEMORY_PER_CONN_MAX_MB=1
}

# settings_load ROOT: defaults, then $KIT_SETTINGS (else ROOT/settings.conf), then the
# environment; validate every key; set the derived KIT_* names. Dies on the first bad value.
settings_load() {
  local root=$1 file key line
  local -A from_env=()
  file=${KIT_SETTINGS:-$root/settings.conf}
  while IFS= read -r key; do
    if [[ -v $key ]]; then from_env[$key]=${!key}; fi
  done < <(settings_keys)
  settings_defaults
  if [[ -e $file ]]; then
    [[ -r $file ]] || die "cannot read settings file '$file'"
    bash -n "$file" 2>/dev/null || die "settings file '$file' is not valid shell syntax: check 'bash -n $file'"
    while IFS= read -r line; do
      key=${line%%=*}
      grep -qxF -- "$key" < <(settings_keys) || die "unknown setting '$key' in '$file'"
    done < <(sed -nE 's/^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=.*/\2=/p' "$file")
    # shellcheck source=/dev/null
    source "$file"
  elif [[ -n ${KIT_SETTINGS:-} ]]; then
    die "settings file '$file' does not exist"
  fi
  for key in "${!from_env[@]}"; do
    printf -v "$key" '%s' "${from_env[$key]}"
  done
  settings_validate
  [[ $RESULTS_DIR == /* ]] || RESULTS_DIR=$root/$RESULTS_DIR
  KIT_CONF=$CONF_DIR/smb.conf
  KIT_CREDENTIALS=$CONF_DIR/credentials
  KIT_STATE_FILE=$STATE_DIR/kit.env
  KIT_UNC=//$CLIENT_ADDR/$SHARE_NAME
}

# settings_bad KEY WHY: die naming the key, its value and what is wrong.
settings_bad() {
  die "setting '$1' has bad value '${!1}': $2"
}

# settings_int KEY MIN MAX: KEY must be a whole number in [MIN, MAX].
settings_int() {
  local v=${!1}
  [[ $v =~ ^[0-9]+$ ]] || settings_bad "$1" "not a whole number"
  ((10#$v >= $2 && 10#$v <= $3)) || settings_bad "$1" "must be from $2 to $3"
}

# settings_number KEY: KEY must be a non-negative number (decimals allowed).
settings_number() {
  [[ ${!1} =~ ^[0-9]+(\.[0-9]+)?$ ]] || settings_bad "$1" "not a non-negative number"
}

# settings_enum KEY WORD...: KEY must be one of the words.
settings_enum() {
  local key=$1 w
  shift
  for w in "$@"; do [[ ${!key} == "$w" ]] && return 0; done
  settings_bad "$key" "must be one of: $*"
}

# settings_name KEY: KEY must be a short plain name (letters, digits, . _ -).
settings_name() {
  [[ ${!1} =~ ^[A-Za-z][A-Za-z0-9_.-]{0,39}$ ]] ||
    settings_bad "$1" "use 1-40 letters, digits, '.', '_' or '-', starting with a letter"
}

# settings_loopback KEY: KEY must be an IPv4 address in 127.0.0.0/8.
settings_loopback() {
  local v=${!1} o
  [[ $v =~ ^127\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] ||
    settings_bad "$1" "must be an IPv4 loopback address (127.x.y.z)"
  for o in "${BASH_REMATCH[@]:1}"; do
    ((10#$o <= 255)) || settings_bad "$1" "must be an IPv4 loopback address (127.x.y.z)"
  done
}

# settings_path KEY: KEY must be an absolute, plain path that is not a system folder.
settings_path() {
  local v=${!1} sys
  [[ $v == /* ]] || settings_bad "$1" "must be an absolute path"
  [[ $v =~ ^[A-Za-z0-9._/+-]+$ ]] || settings_bad "$1" "use only letters, digits and . _ - + / in paths"
  [[ /$v/ != */../* && /$v/ != */./* && $v != */ ]] || settings_bad "$1" "must be a plain path (no '.', '..' or trailing '/')"
  for sys in / /bin /boot /dev /etc /home /lib /lib64 /media /mnt /opt /proc /root /run /sbin \
    /srv /sys /tmp /usr /var /etc/samba /var/lib /var/lib/samba /var/log /var/log/samba \
    /var/cache /var/tmp /usr/local /usr/lib /usr/bin /usr/sbin /etc/systemd /run/samba; do
    [[ $v != "$sys" ]] || settings_bad "$1" "is a system folder; the kit removes its folders on cleanup"
  done
}

# settings_validate: check every key; the first bad one dies with its name and value.
settings_validate() {
  local key a b prev=0 level
  settings_int TEST_PORT 1024 65535
  settings_loopback SERVER_ADDR
  settings_loopback CLIENT_ADDR
  [[ $CLIENT_ADDR != 127.0.0.1 ]] ||
    settings_bad CLIENT_ADDR "127.0.0.1:445 is where a host's own Samba answers; use another loopback address"
  [[ $CLIENT_ADDR != "$SERVER_ADDR" ]] || settings_bad CLIENT_ADDR "must differ from SERVER_ADDR"
  settings_name SERVICE_NAME
  case $SERVICE_NAME in
    smbd | smb | nmbd | nmb | winbind | samba | samba-ad-dc | samba-bgqd | samba-dcerpcd)
      settings_bad SERVICE_NAME "is the name of a Samba system service"
      ;;
  esac
  settings_name SHARE_NAME
  case ${SHARE_NAME,,} in
    global | homes | printers | print\$ | ipc\$) settings_bad SHARE_NAME "is a reserved share name" ;;
  esac
  for key in SHARE_DIR MOUNT_POINT CONF_DIR LOG_DIR STATE_DIR; do settings_path "$key"; done
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
  [[ -n $RESULTS_DIR && $RESULTS_DIR != *$'\n'* ]] || settings_bad RESULTS_DIR "must be a folder name"
  for key in INSTALL_PACKAGES ENCRYPTION STRICT_SYNC USE_SENDFILE DROP_CACHES; do
    settings_enum "$key" yes no
  done
  settings_enum SIGNING default mandatory disabled
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
  settings_int LOAD_RATE 1 1000000
  settings_int MEMORY_CONNECTIONS 1 10000
  settings_int STARTUP_ROUNDS 1 20
  settings_int REPEAT 1 50
  [[ $CONCURRENCY_LEVELS =~ ^[[:space:]]*[0-9]+([[:space:]]+[0-9]+)*[[:space:]]*$ ]] ||
    settings_bad CONCURRENCY_LEVELS "must be a list of whole numbers, such as \"1 4 16 64 128\""
  for level in $CONCURRENCY_LEVELS; do
    ((10#$level >= 1 && 10#$level <= 1024)) ||
      settings_bad CONCURRENCY_LEVELS "every level must be from 1 to 1024"
    ((10#$level > prev)) || settings_bad CONCURRENCY_LEVELS "levels must rise: each larger than the one before"
    prev=$((10#$level))
  done
  while IFS= read -r key; do
    [[ $key == TARGET_* ]] && settings_number "$key"
  done < <(settings_keys)
  ((${TARGET_ERRORS_MAX_PCT%.*} <= 100)) || settings_bad TARGET_ERRORS_MAX_PCT "must be from 0 to 100"
  return 0
}

# settings_dump: print the effective settings as KEY=value lines (shell-quoted).
settings_dump() {
  local key
  while IFS= read -r key; do
    printf '%s=%q\n' "$key" "${!key}"
  done < <(settings_keys)
}

# settings_diff_defaults: print 'KEY=value (default: d)' for every key that differs from its default.
settings_diff_defaults() {
  local key
  local -A now=()
  while IFS= read -r key; do now[$key]=${!key}; done < <(settings_keys)
  (
    settings_defaults
    while IFS= read -r key; do
      [[ $key == RESULTS_DIR ]] && continue
      [[ ${now[$key]} == "${!key}" ]] || printf '%s=%s (default: %s)\n' "$key" "${now[$key]}" "${!key}"
    done < <(settings_keys)
  )
}
