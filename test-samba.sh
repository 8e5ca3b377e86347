#!/usr/bin/env bash
# Usage: test-samba.sh [-h] [METRIC...]
#        test-samba.sh cleanup
# Summary: measure the started test smbd, or remove every trace of the kit
#
# With no METRIC, runs all twelve metrics against the server that start-samba.sh
# started and writes results/<YYYYmmdd-HHMMSS>/report.md. METRIC is one or more of:
#   startup login seqwrite seqread randread randwrite latency errors metadata
#   concurrency cpu memory
# Settings come from settings.conf; an environment variable of the same name wins:
#   DURATION=300 ./test-samba.sh seqwrite randwrite
#
# 'cleanup' stops the test server and removes its unit, config, state, logs, share
# data, test account, nftables table and SELinux rules. results/ is kept.
#
# Exit status: 0 nothing failed (SKIP does not fail), 1 a metric failed or the run
# could not be done, 2 usage error.
set -euo pipefail
umask 022 # folders 0755 and files 0644 unless the kit sets a stricter mode (secrets: 0600)

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
common_source_libs "$KIT_ROOT" settings state lock deps account smbconf selinux service redirect mount cleanup run

main() {
  common_colour_init
  common_debug_init
  case ${1:-} in
    -h | --help)
      common_usage "$0"
      return 0
      ;;
    cleanup)
      shift
      (($# == 0)) || usage_die "cleanup takes no arguments"
      cleanup_main
      ;;
    *)
      run_main "$@"
      ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
