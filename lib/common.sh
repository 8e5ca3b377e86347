# lib/common.sh: messages, dying, root checks and small utilities shared by every script.
# The trap set-up of the scripts that change the system is lib/common-traps.sh. Sourced;
# defines functions only.
# shellcheck disable=SC2034 # the colours are used by the other libraries

# common_colour_init: set C_* escapes when stderr is a terminal and NO_COLOR is unset.
common_colour_init() {
  C_RED='' C_GREEN='' C_YELLOW='' C_BOLD='' C_OFF=''
  if [[ -t 2 && -z ${NO_COLOR:-} && ${TERM:-dumb} != dumb ]]; then
    C_RED=$'\e[31m' C_GREEN=$'\e[32m' C_YELLOW=$'\e[33m' C_BOLD=$'\e[1m' C_OFF=$'\e[0m'
  fi
}

# log MSG...: one progress line on stderr.
log() {
  printf '%s\n' "$*" >&2
}

# warn MSG...: a warning on stderr.
warn() {
  printf '%swarning:%s %s\n' "${C_YELLOW:-}" "${C_OFF:-}" "$*" >&2
}

# die MSG...: an error on stderr, then exit 1. Worded the git way: lowercase, 'quoted' subject.
die() {
  error "$@"
  exit 1
}

# error MSG...: an error on stderr, for a function that then returns 1 (the caller decides).
error() {
  printf '%serror:%s %s\n' "${C_RED:-}" "${C_OFF:-}" "$*" >&2
}

# bad MSG...: bad input (a usage error without the usage): the error, then exit 2.
bad() {
  error "$@"
  exit 2
}

# usage_die MSG...: a usage error: the message and the script's usage on stderr, exit 2.
usage_die() {
  error "$@"
  common_usage "$0" >&2
  exit 2
}

# common_usage FILE: print the leading '# ' comment block of FILE (after the shebang).
common_usage() {
  sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$1"
}

# common_kit_version ROOT: print the kit's version: ROOT/VERSION (the one place it is written),
# then "(git describe --always --dirty)" when ROOT is a git checkout, e.g. "0.1.0 (842edf8)".
common_kit_version() {
  local root=$1 v desc=''
  v=$(head -n 1 "$root/VERSION" 2>/dev/null) || v=''
  if [[ -e $root/.git ]] && common_have git; then
    desc=$(timeout 5 git -C "$root" describe --always --dirty 2>/dev/null) || desc=''
  fi
  printf '%s%s\n' "${v:-unknown}" "${desc:+ ($desc)}"
}

# common_version ROOT: the line --version prints: "samba-perf-test VERSION (git describe)".
common_version() {
  printf 'samba-perf-test %s\n' "$(common_kit_version "$1")"
}

# common_test_hooks: the variables that let a test point the kit at a fake system (DEPS_ROOT,
# FIO_DROP_CACHES_FILE) steer what root writes, deletes and runs: an entry script drops them,
# with a warning, unless KIT_TEST_HOOKS=1 says a test set them on purpose. TMPDIR is checked
# always (common_tmpdir_check).
common_test_hooks() {
  local v
  common_tmpdir_check
  [[ ${KIT_TEST_HOOKS:-} == 1 ]] && return 0
  for v in DEPS_ROOT FIO_DROP_CACHES_FILE; do
    if [[ -v $v ]]; then
      warn "ignoring $v='${!v}': a test hook (KIT_TEST_HOOKS=1 is not set)"
      unset "$v"
    fi
  done
}

# common_folder_unsafe DIR: print why another user could change what is written in folder DIR
# (resolved) and return 0; 1 when DIR and every folder above it are this user's or root's and
# writable by no one else (a sticky folder such as /tmp is fine above DIR, and as DIR itself
# only with 'sticky'). Such a user could swap a file or folder made there for a link, and the
# kit would write, or remove, through it.
common_folder_unsafe() {
  local p me st uid mode first=1
  me=$(id -u)
  p=$(realpath -e -- "$1" 2>/dev/null) || p=''
  [[ -d $p ]] || {
    echo "'$1' is not a folder"
    return 0
  }
  while :; do
    st=$(stat -c '%u %a' -- "$p" 2>/dev/null) || st='x 0'
    uid=${st% *} mode=$((8#${st#* }))
    if [[ $uid != 0 && $uid != "$me" ]]; then
      echo "'$p' is owned by uid $uid"
      return 0
    fi
    if ((mode & 8#022)); then
      if ! ((mode & 8#1000)) || { ((first)) && [[ ${2:-} != sticky ]]; }; then
        echo "'$p' is writable by group or others (mode ${st#* })"
        return 0
      fi
    fi
    first=0
    [[ $p != / ]] || return 1
    p=${p%/*} && p=${p:-/}
  done
}

# common_tmpdir_check: drop TMPDIR, with a warning, when common_folder_unsafe finds another user
# could change what is made there (root's temporary folders, swapped for links); mktemp then
# uses /tmp.
common_tmpdir_check() {
  local why
  [[ -v TMPDIR ]] || return 0
  why=$(common_folder_unsafe "$TMPDIR" sticky) || return 0
  warn "ignoring TMPDIR='$TMPDIR': $why; temporary files go to /tmp"
  unset TMPDIR
}

# common_command_init: what every entry script and subcommand does first: colours, debug
# tracing (KIT_DEBUG=1), and the test hooks and TMPDIR checked (common_test_hooks).
common_command_init() {
  common_colour_init
  common_debug_init
  common_test_hooks
}

# common_init_no_args SCRIPT ARG...: common_command_init for an entry script that takes no
# arguments; -h/--help prints SCRIPT's usage and exits 0, --version the kit's version
# (KIT_ROOT), anything else is a usage error.
common_init_no_args() {
  local script=$1
  shift
  common_command_init
  case ${1:-} in
    -h | --help)
      common_usage "$script"
      exit 0
      ;;
    --version)
      common_version "$KIT_ROOT"
      exit 0
      ;;
    '') ;;
    *) usage_die "unknown argument '$1'" ;;
  esac
}

# common_require_root: die unless running as root.
common_require_root() {
  [[ $(id -u) -eq 0 ]] || die "this needs root: run it as root (with sudo where the host has it)"
}

# common_timeout SECONDS CMD...: run CMD, killed after SECONDS (then KILL 2 s later). CMD
# stays in the script's process group, so Ctrl-C and a dropped terminal reach it at once.
common_timeout() {
  local secs=$1
  shift
  timeout --foreground -k 2 "$secs" "$@"
}

# common_close_fds: close every descriptor above 2 of the calling shell; call it in a subshell,
# '( common_close_fds; CMD )', so the kit's own (lock, log) stay open outside.
common_close_fds() {
  local fd
  for fd in /proc/self/fd/*; do ((${fd##*/} > 2)) && eval "exec ${fd##*/}>&-"; done 2>/dev/null
}

# common_isolated CMD...: run CMD (a command or a function) with /dev/null as its stdin, stdout
# and stderr and no other descriptor of the kit's open. For tools that SELinux runs in their own
# domain (semanage_t, setfiles_t, kmod_t): such a domain may neither append to the kit's lock
# file nor write to a log file the kit's output goes to (AVC denials under enforcing, found by
# tests/guest/selinux.bats; the kernel closes those descriptors anyway).
common_isolated() {
  (
    common_close_fds
    "$@" </dev/null >/dev/null 2>&1
  )
}

# common_room DIR NEED_MB [FILES]: true when the file system of DIR (or of its nearest existing
# folder above) has NEED_MB MB (and FILES inodes, when it counts them) free; else print why,
# naming the folder and the shortfall, and false.
common_room() {
  local dir=$1 need=$2 files=${3:-0} avail inodes
  while [[ ! -d $dir && $dir == /* && $dir != / ]]; do dir=${dir%/*} && dir=${dir:-/}; done
  read -r avail inodes < <(common_timeout 10 df -k --output=avail,iavail -- "$dir" 2>/dev/null |
    awk 'NR == 2 { print int($1 / 1024), $2 }') || true
  if ! [[ $avail =~ ^[0-9]+$ ]]; then
    echo "cannot read the free space of '$dir'"
    return 1
  fi
  if ((avail < need)); then
    echo "not enough free space in '$dir': need $need MB, $avail MB free (short by $((need - avail)) MB)"
    return 1
  fi
  # a file system without inode counts (btrfs) says 0
  if [[ $inodes =~ ^[0-9]+$ ]] && ((inodes > 0 && inodes < files)); then
    echo "not enough free inodes in '$dir': need $files, $inodes free (short by $((files - inodes)))"
    return 1
  fi
}

# common_check_space DIR NEED_MB: die unless common_room says DIR has room for NEED_MB MB.
common_check_space() {
  local why
  why=$(common_room "$1" "$2") || die "$why"
}

# common_secret_begin: stop the KIT_DEBUG trace while a secret is handled (the trace would
# print it); common_secret_end puts the trace back as it was.
common_secret_begin() {
  { COMMON_XTRACE=${-//[^x]/} && set +x; } 2>/dev/null
}

# common_secret_end: see common_secret_begin.
common_secret_end() {
  { [[ -z ${COMMON_XTRACE:-} ]] || set -x; } 2>/dev/null
}

# common_tmp_track PATH: remove PATH when the script exits (the EXIT trap of lib/common-traps.sh;
# a half-made temp file or folder: once renamed into place it is gone from PATH and nothing is
# removed).
common_tmp_track() {
  COMMON_TMPFILES+=("$1")
}

# common_publish TMP DEST: make the finished temp file TMP readable by everyone (0644; results
# hold no secret, and mktemp makes 0600) and rename it to DEST.
common_publish() {
  chmod 0644 -- "$1" && mv -f -- "$1" "$2"
}

# common_readable FILE: 0 when FILE can be opened for reading, else 1 with
# "error: cannot read 'FILE': REASON" (e.g. Permission denied) on stderr.
common_readable() {
  local err
  err=$({ : <"$1"; } 2>&1) && return 0
  error "cannot read '$1': ${err##*: }"
  return 1
}

# common_run_folder DIR: 0 when DIR is a folder with no symbolic link anywhere in it (DIR itself
# may be one: the user chose that path), else 1 with "error: ..." naming the link. A run folder is data from anyone (mailed, on a shared
# disk): the kit follows no link in it, neither to read (a root-only file would end up in a
# readable report) nor to write (charts/ or a report file pointing elsewhere).
common_run_folder() {
  local link
  [[ -d $1 ]] || {
    error "'$1' is not a folder"
    return 1
  }
  link=$(find -P "$1/" -type l -print -quit 2>/dev/null)
  if [[ -n $link ]]; then
    error "'$link' is a symbolic link: a run folder is data, and the kit follows no link in it"
    return 1
  fi
}

# common_have CMD: true when CMD is on PATH.
common_have() {
  command -v "$1" >/dev/null 2>&1
}

# common_wait_until TIMEOUT_S INTERVAL_S CMD...: run CMD until it succeeds; 1 on timeout.
common_wait_until() {
  local timeout=$1 interval=$2 deadline
  shift 2
  deadline=$((SECONDS + timeout))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep "$interval"
  done
}

# common_debug_init: with KIT_DEBUG=1, trace every command with file:line:function.
common_debug_init() {
  if [[ ${KIT_DEBUG:-0} == 1 ]]; then
    export PS4='+ ${BASH_SOURCE[0]##*/}:${LINENO}:${FUNCNAME[0]:-main}: '
    set -x
  fi
}

# common_source_libs ROOT NOUN...: source ROOT/lib/NOUN.sh for each noun.
common_source_libs() {
  local root=$1 noun
  shift
  for noun in "$@"; do
    # shellcheck source=/dev/null
    source "$root/lib/$noun.sh"
  done
}
