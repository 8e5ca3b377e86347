# lib/common.sh: messages, dying, root checks and small utilities shared by every script.
# Sourced; defines functions only.
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
  printf '%serror:%s %s\n' "${C_RED:-}" "${C_OFF:-}" "$*" >&2
  exit 1
}

# usage_die MSG...: a usage error: the message and the script's usage on stderr, exit 2.
usage_die() {
  printf 'error: %s\n' "$*" >&2
  common_usage "$0" >&2
  exit 2
}

# common_usage FILE: print the leading '# ' comment block of FILE (after the shebang).
common_usage() {
  sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$1"
}

# common_init_no_args SCRIPT ARG...: colours and debug tracing for an entry script that takes
# no arguments; -h/--help prints SCRIPT's usage and exits 0, anything else is a usage error.
common_init_no_args() {
  local script=$1
  shift
  common_colour_init
  common_debug_init
  case ${1:-} in
    -h | --help)
      common_usage "$script"
      exit 0
      ;;
    '') ;;
    *) usage_die "unknown argument '$1'" ;;
  esac
}

# common_require_root: die unless running as root.
common_require_root() {
  [[ $(id -u) -eq 0 ]] || die "this needs root: run it with sudo"
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
