# lib/settings-check.sh: the checks of one setting's value that settings_validate
# (lib/settings.sh), the metrics' and the client hosts' settings checks are written with: whole
# numbers, rising lists, numbers, words, names, IPv4 and loopback addresses, paths (canonical,
# never a system folder). Each dies through settings_bad naming the key, its value and what is
# wrong. settings_load sources this file. Sourced; defines functions only. Needs lib/common.sh
# and lib/settings.sh.

# settings_bad KEY WHY: die naming the key, its value and what is wrong.
settings_bad() {
  die "setting '$1' has bad value '${!1}': $2"
}

# settings_rising KEY NOUN MAX LEAST SHAPE: KEY must be LEAST or more whole numbers from 1 to
# MAX (no leading zero), each larger than the one before; SHAPE is the why when it is not a list
# of LEAST or more numbers (CONCURRENCY_LEVELS here; a metric's own lists in its settings check).
settings_rising() {
  local key=$1 noun=$2 max=$3 least=$4 shape=$5 v prev=0 n=0
  [[ ${!key} =~ ^[[:space:]]*[0-9]+([[:space:]]+[0-9]+)*[[:space:]]*$ ]] || settings_bad "$key" "$shape"
  for v in ${!key}; do
    if [[ ! $v =~ ^[1-9][0-9]{0,9}$ ]] || ((v > max)); then
      settings_bad "$key" "every $noun must be from 1 to $max (no leading zero)"
    fi
    ((v > prev)) || settings_bad "$key" "${noun}s must rise: each larger than the one before"
    prev=$v n=$((n + 1))
  done
  ((n >= least)) || settings_bad "$key" "$shape"
}

# settings_int KEY MIN MAX: KEY must be a whole number in [MIN, MAX], written plainly (no sign,
# no leading zero, at most 10 digits, so no overflow).
settings_int() {
  local v=${!1}
  [[ $v =~ ^(0|[1-9][0-9]{0,9})$ ]] || settings_bad "$1" "not a whole number (digits, no leading zero)"
  ((v >= $2 && v <= $3)) || settings_bad "$1" "must be from $2 to $3"
}

# settings_number KEY: KEY must be a non-negative number below 10^9 (up to 6 decimals).
settings_number() {
  [[ ${!1} =~ ^(0|[1-9][0-9]{0,8})(\.[0-9]{1,6})?$ ]] ||
    settings_bad "$1" "not a non-negative number below 1000000000 (no leading zero, at most 6 decimals)"
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

# settings_ipv4_number ADDR: print ADDR (dotted quad, each part 0-255 without leading zeros)
# as one number; 1 when it is not written that way.
settings_ipv4_number() {
  local o='(0|[1-9][0-9]{0,2})'
  [[ $1 =~ ^$o\.$o\.$o\.$o$ ]] || return 1
  local a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]} d=${BASH_REMATCH[4]}
  ((a <= 255 && b <= 255 && c <= 255 && d <= 255)) || return 1
  printf '%d\n' $(((a << 24) | (b << 16) | (c << 8) | d))
}

# settings_loopback KEY: KEY must be an IPv4 address in 127.0.0.0/8, written canonically.
settings_loopback() {
  local n
  n=$(settings_ipv4_number "${!1}") ||
    settings_bad "$1" "must be an IPv4 loopback address 127.x.y.z (each part 0-255, no leading zero)"
  ((n >> 24 == 127)) || settings_bad "$1" "must be an IPv4 loopback address (127.x.y.z)"
}

# settings_system_folder PATH: print why canonical PATH is a folder of the system or of
# another program; 1 when it is not.
settings_system_folder() {
  local p=$1 parent name sys
  for sys in / /bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /media /mnt /opt /proc /root \
    /run /sbin /srv /sys /tmp /usr /var /usr/local /var/tmp /var/opt; do
    [[ $p != "$sys" ]] || {
      echo "is a system folder"
      return 0
    }
  done
  for sys in /proc /sys /dev /boot /usr /bin /sbin /lib /lib32 /lib64 /libx32 /snap; do
    [[ $p != "$sys"/* ]] || {
      echo "is inside the system folder '$sys'"
      return 0
    }
  done
  parent=${p%/*} name=${p##*/}
  [[ -n $parent ]] || parent=/
  case $parent in
    /etc | /var | /var/lib | /var/log | /var/cache | /var/spool | /var/mail | /run | /home | /root | \
      /etc/samba | /var/lib/samba | /var/log/samba | /var/cache/samba | /run/samba | /usr/local)
      # another program's configuration, state or logs, a home folder, the host Samba's folders
      [[ $name == *perf-test* ]] || {
        echo "is directly under '$parent', where other programs keep their files; use a folder whose name contains 'perf-test'"
        return 0
      }
      ;;
  esac
  return 1
}

# settings_path KEY: KEY must be an absolute, plain path; it is replaced by its canonical form,
# which must not be a system folder or another program's.
settings_path() {
  local v=${!1} canon why
  [[ $v == /* ]] || settings_bad "$1" "must be an absolute path"
  [[ $v =~ ^[A-Za-z0-9._/+-]+$ ]] || settings_bad "$1" "use only letters, digits and . _ - + / in paths"
  [[ /$v/ != */../* && /$v/ != */./* && $v != *//* && $v != */ ]] ||
    settings_bad "$1" "must be a plain path (no '.', '..', '//' or trailing '/')"
  canon=$(settings_realpath "$v") || settings_bad "$1" "cannot resolve the path"
  [[ $canon =~ ^[A-Za-z0-9._/+-]+$ ]] || settings_bad "$1" "resolves to '$canon', which has characters the kit does not use"
  if why=$(settings_system_folder "$canon"); then
    [[ $canon == "$v" ]] || why="resolves to '$canon', which $why"
    settings_bad "$1" "$why; the kit removes its folders on cleanup"
  fi
  printf -v "$1" '%s' "$canon"
}

# settings_results_dir ROOT: RESULTS_DIR (relative: below ROOT) resolved; not a system folder,
# not one of the kit's removed folders or inside them (cleanup would delete the results).
settings_results_dir() {
  local v=$RESULTS_DIR key why
  [[ -n $v && $v =~ ^[A-Za-z0-9._/+-]+$ ]] || settings_bad RESULTS_DIR "use only letters, digits and . _ - + / in paths"
  [[ $v == /* ]] || v=$1/$v
  v=$(settings_realpath "$v") || settings_bad RESULTS_DIR "cannot resolve the path"
  [[ $v =~ ^[A-Za-z0-9._/+-]+$ ]] || settings_bad RESULTS_DIR "resolves to '$v', which has characters the kit does not use"
  if why=$(settings_system_folder "$v"); then settings_bad RESULTS_DIR "resolves to '$v', which $why"; fi
  for key in SHARE_DIR MOUNT_POINT CONF_DIR LOG_DIR STATE_DIR; do
    [[ $v/ != "${!key}"/* && ${!key}/ != "$v"/* ]] ||
      settings_bad RESULTS_DIR "'$v' must not be, hold or be inside $key ('${!key}'): cleanup removes that"
  done
  RESULTS_DIR=$v
}
