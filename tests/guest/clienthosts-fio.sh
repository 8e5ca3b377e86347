#!/usr/bin/env bash
# Usage: run-guest.sh -r DIR -- tests/guest/clienthosts-fio.sh   (runs inside the guest, in the kit folder)
# Summary: the fio metrics through two client hosts (issue 23), where the kernel has cifs
#
# Two client hosts as network namespaces on 198.18.0.0/15 (tests/test_helper/netns.bash, remote
# shell `ip netns exec`), each with its own cifs mount of the share and its fio server
# (start-samba.sh), then `test-samba.sh randread randwrite` (fio --client on
# both hosts at once, each on its own files),
# then cleanup. Writes to $GUEST_RESULTS/clienthosts/:
#   steps.tsv, steps/NAME.log  each step (scenario.sh's scen_step), run/ the results folder,
#   hosts.txt                  the namespaces and the server address,
#   after-start.txt            each host's mounts and fio server, after-cleanup.txt the same after.
# Exit 0 when every step did its job (test-samba.sh may exit 1: targets are for real hardware).

set -uo pipefail

# scen_step from the whole-kit scenario (sourcing it runs nothing); then this scenario's own names
# shellcheck source=tests/guest/scenario.sh
source "$PWD/tests/guest/scenario.sh"
# shellcheck source=tests/test_helper/netns.bash
source "$PWD/tests/test_helper/netns.bash"

KIT_ROOT=$PWD
OUT=${GUEST_RESULTS:?not in the guest: GUEST_RESULTS is unset}/clienthosts
SCEN_FAILED=0
# scenario.sh's small sizes (DURATION=2, DATA_FILE_MB=64, ...; the environment wins); the client
# hosts' temp folder is /tmp, as on a host without TMPDIR (`ip netns exec` passes it on)
export RESULTS_DIR=/root/samba-perf-test-results-clienthosts TMPDIR=/tmp

# ch_hosts_state: each client host's cifs mounts (seen from its fio server's mount namespace) and
# the kit's fio servers.
ch_hosts_state() {
  local pid
  for pid in $(pgrep -f -- '--daemonize=/tmp/samba-perf-test-client\.'); do
    echo "fio server $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
    awk '$3 == "cifs" { print "  mount: " $1 " " $2 }' "/proc/$pid/mounts"
  done
  grep -c . /proc/fs/cifs/DebugData 2>/dev/null | sed 's/^/cifs DebugData lines: /'
}

main() {
  local run
  mkdir -p "$OUT/steps" "$OUT/run"
  : >"$OUT/steps.tsv"
  if ! netns_setup 2 >"$OUT/netns.log" 2>&1; then
    echo "clienthosts: no network namespaces: $(tail -n 1 "$OUT/netns.log")"
    return 1
  fi
  export CLIENT_HOSTS=$NETNS_HOSTS CLIENT_SHELL=$NETNS_SHELL CLIENT_HOSTS_SERVER_ADDR=$NETNS_ADDR
  printf 'hosts: %s\naddr: %s\n' "$CLIENT_HOSTS" "$CLIENT_HOSTS_SERVER_ADDR" >"$OUT/hosts.txt"
  scen_step start 600 0 ./start-samba.sh
  ch_hosts_state >"$OUT/after-start.txt" 2>&1
  # randread and randwrite: both directions in CI's time (the four took 231 s of a 487 s guest run;
  # seqread and seqwrite run the same path with other options)
  scen_step test 900 "0 1" ./test-samba.sh randread randwrite
  run=$(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -n 1)
  if [[ -n $run ]]; then cp -a "$run/." "$OUT/run/"; else SCEN_FAILED=1; fi
  scen_step cleanup 300 0 ./test-samba.sh cleanup
  ch_hosts_state >"$OUT/after-cleanup.txt" 2>&1
  netns_teardown >"$OUT/netns-left.txt" 2>&1 || SCEN_FAILED=1
  ((SCEN_FAILED == 0))
}

main "$@"
