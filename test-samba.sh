#!/usr/bin/env bash
# Usage: test-samba.sh [-h | --version] [run] [-r N] [METRIC...]
#        test-samba.sh COMMAND [-h] [ARG...]
# Summary: measure the started test smbd, compare runs, or remove every trace of the kit
#
# With no COMMAND, runs the metrics (all of them when none is named, in run order) against
# the server that start-samba.sh started and writes results/<YYYYmmdd-HHMMSS>/report.md
# ('run -h' says more). Settings come from settings.conf; an environment variable of the same
# name wins. Each COMMAND below has its own -h; '--version' prints the kit's version (VERSION,
# and git describe in a git checkout).
#
# Exit status: 0 nothing failed (SKIP does not fail), 1 a metric failed or the run
# could not be done, 2 usage error, 128+n ended by signal n (Ctrl-C 130: the partial report
# is written, marked incomplete).
set -euo pipefail
umask 022 # folders 0755 and files 0644 unless the kit sets a stricter mode (secrets: 0600)

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
# shellcheck source=lib/registry.sh
source "$KIT_ROOT/lib/registry.sh"

# The commands, each an executable libexec/test-samba-COMMAND with its own '# Usage:' and
# '# Summary:' header (bats-core and rbenv do the same); 'run' is the default.
COMMANDS=(run sweep compare report cleanup)

# usage: the usage text, each command's synopsis and summary from its own header, then the
# metric names and their count from lib/metrics/list.
usage() {
  local c file syn summary
  local -a all
  common_usage "$0"
  printf '\nCommands:\n'
  for c in "${COMMANDS[@]}"; do
    file=$KIT_ROOT/libexec/test-samba-$c
    syn=$(sed -n 's/^# Usage: //p' "$file")
    summary=$(sed -n 's/^# Summary: //p' "$file")
    printf '  %s\n      %s\n' "$syn" "$summary"
  done
  mapfile -t all < <(registry_metrics)
  printf '\nMetrics (%d, in run order):\n' "${#all[@]}"
  printf '%s ' "${all[@]}" | fold -s -w 78 | sed 's/ *$//; s/^/  /'
  echo
}

main() {
  local c
  common_command_init
  case ${1:-} in
    -h | --help)
      usage
      return 0
      ;;
    --version)
      common_version "$KIT_ROOT"
      return 0
      ;;
  esac
  for c in "${COMMANDS[@]}"; do
    if [[ ${1:-} == "$c" ]]; then
      shift
      exec "$KIT_ROOT/libexec/test-samba-$c" "$@"
    fi
  done
  exec "$KIT_ROOT/libexec/test-samba-run" "$@"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
