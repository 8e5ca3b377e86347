#!/usr/bin/env bash
# Usage: stop-samba.sh [-h | --version]
# Summary: stop the kit's test smbd: unmount the share, stop the service, remove the nft table
#
# Keeps the configuration, the test user and the share data: start-samba.sh starts it again,
# './test-samba.sh cleanup' removes everything. A Samba of the host is never touched.
#
# Exit status: 0 stopped (or nothing was running), 1 something could not be stopped, 2 usage,
# 128+n ended by signal n (Ctrl-C 130).
set -euo pipefail
umask 022 # folders 0755 and files 0644 unless the kit sets a stricter mode (secrets: 0600)

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
common_source_libs "$KIT_ROOT" common-traps settings run/clienthosts server/state lock server/account server/smbconf \
  server/selinux server/service-unit server/service-cgroup server/service server/redirect server/mount server/cleanup

main() {
  common_init_no_args "$0" "$@"
  common_traps_init ''
  settings_load "$KIT_ROOT"
  common_require_root
  lock_take stop
  state_load || true
  cleanup_stop
  log "stopped: config, user and data are kept; start again (as root) with './start-samba.sh'"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
