#!/usr/bin/env bash
# Usage: test-samba.sh [-h | --version] [-r N] [METRIC...]
#        test-samba.sh sweep [-r N] [-f FILE] [--variant 'KEY=V ...']... [METRIC...]
#        test-samba.sh compare [-c CONFIDENCE] [-o DIR] RUN_A RUN_B [RUN_C ...]
#        test-samba.sh cleanup [-h]
#        test-samba.sh report [-h] RUN_DIR | --advice-md | --sync-docs FILE
# Summary: measure the started test smbd, or remove every trace of the kit
#
# With no METRIC, runs every metric (listed below with -h, in run order) against the
# server that start-samba.sh started and writes results/<YYYYmmdd-HHMMSS>/report.md.
# Settings come from settings.conf; an environment variable of the same name wins:
#   DURATION=300 ./test-samba.sh seqwrite randwrite
# -r N (setting REPEAT) measures each timed metric N times: median and range (min-max, n).
#
# 'sweep' runs the metrics once per variant (a set of settings, applied by restarting the test
# server with start-samba.sh), compares the variants against the first, and restores the
# server's settings at the end, also when interrupted (see 'sweep -h').
#
# 'cleanup' stops the test server and removes its unit, config, state, logs, share
# data, test account, nftables table and SELinux rules. results/ is kept.
#
# 'report RUN_DIR' rebuilds RUN_DIR/results.json, report.md, charts/ and report.html from the
# folder alone; '--advice-md' prints the advice of lib/advice.json as docs/metrics.md carries it,
# and '--sync-docs FILE' rewrites those blocks in FILE.
#
# '--version' prints the kit's version (VERSION, and git describe in a git checkout).
#
# 'compare RUN_A RUN_B ...' compares results folders metric by metric against RUN_A and
# writes compare.md, compare.json, compare.html and charts/ (see 'compare -h'); it needs
# neither root nor a started kit.
#
# Exit status: 0 nothing failed (SKIP does not fail), 1 a metric failed or the run
# could not be done, 2 usage error, 128+n ended by signal n (Ctrl-C 130: the partial report
# is written, marked incomplete).
set -euo pipefail
umask 022 # folders 0755 and files 0644 unless the kit sets a stricter mode (secrets: 0600)

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
common_source_libs "$KIT_ROOT" settings state lock deps account smbconf selinux service redirect mount \
  cleanup registry child measure fio baseline serverconf system results report run repeat compare sweep

# usage: the usage text, then the metric names and their count from lib/metrics/list.
usage() {
  local -a all
  mapfile -t all < <(registry_metrics)
  common_usage "$0"
  printf '\nMetrics (%d, in run order):\n' "${#all[@]}"
  printf '%s ' "${all[@]}" | fold -s -w 78 | sed 's/ *$//; s/^/  /'
  echo
}

# report_command ARG...: 'test-samba.sh report ...'.
report_command() {
  local why
  case ${1:-} in
    --advice-md)
      (($# == 1)) || usage_die "report --advice-md takes no arguments"
      report_advice_md
      ;;
    --sync-docs)
      (($# == 2)) || usage_die "report --sync-docs takes one file"
      report_sync_docs "$2"
      ;;
    -h | --help)
      usage
      ;;
    '' | -*) usage_die "report needs a run folder" ;;
    *)
      (($# == 1)) || usage_die "report takes one run folder"
      # report writes into the folder: only into one no other user can change under it
      if [[ -d $1 ]] && why=$(common_folder_unsafe "$1"); then
        die "cannot write the report into '$1': $why: copy the run folder into a folder of your own (cp -r) and report the copy"
      fi
      report_write "$1"
      ;;
  esac
}

# measure_command METRIC...: the measuring run; one EXIT trap takes every way out (die,
# errexit, INT, TERM, HUP) through run_exit.
measure_command() {
  # shellcheck disable=SC2034 # RUN_ARGS is recorded by lib/system.sh
  RUN_ARGS=("$@")
  repeat_parse_opts "$@"
  run_parse_args "${REPEAT_ARGS[@]}"
  settings_load "$KIT_ROOT"
  common_require_root
  run_require_started
  common_have jq || die "'jq' is missing: run ./start-samba.sh (it installs what the kit needs)"
  registry_load
  measure_load "$KIT_ROOT"
  common_traps_init run_exit --keep-fds
  run_metrics
}

main() {
  common_colour_init
  common_debug_init
  common_test_hooks
  case ${1:-} in
    -h | --help)
      usage
      return 0
      ;;
    --version)
      common_version "$KIT_ROOT"
      ;;
    cleanup)
      shift
      case ${1:-} in
        -h | --help)
          usage
          return 0
          ;;
      esac
      (($# == 0)) || usage_die "cleanup takes no arguments"
      cleanup_all
      ;;
    report)
      shift
      report_command "$@"
      ;;
    compare)
      shift
      compare_main "$@"
      ;;
    sweep)
      shift
      sweep_main "$@"
      ;;
    *)
      measure_command "$@"
      ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
