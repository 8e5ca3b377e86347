#!/usr/bin/env bash
# Usage: GUEST_IMAGE=IMG run-guest.sh -r DIR -- tests/guest/selinux-scenario.sh   (in the SELinux guest)
# Summary: the kit's life under SELinux enforcing, with the labels, the port rule and every AVC denial as evidence
#
# Runs in the guest booted from selinux-image.sh's image (refpolicy, enforcing), in the kit
# copy there, as unconfined_t. Starts auditd, then start-samba.sh, test-samba.sh (the small
# sizes of scenario.sh; SEL_TEST_TIMEOUT, default 1800 s: 900 s was too short with 1 vCPU on
# a loaded host; SEL_METRICS names the metrics, default all), stop-samba.sh, test-samba.sh cleanup (scenario.sh's scen_step). Writes
# to $GUEST_RESULTS, besides steps.tsv and steps/ as scenario.sh does:
#   selinux/mode.txt               getenforce and the loaded policy, before anything
#   selinux/<when>-ps.txt          ps -eZ lines of smbd (after-start, after-test)
#   selinux/<when>-labels.txt      ls -dZ of the share, config, state (and private), log folders
#   selinux/<when>-port.txt        semanage port -l lines of TEST_PORT (before, after-start,
#                                  after-cleanup)
#   selinux/avc.txt                every AVC/USER_AVC/SELINUX_ERR record from auditd's log from
#                                  the kit's start to the end of cleanup (empty: none)
#   selinux/boot-avc.txt           the kernel's AVC lines from boot until auditd ran (the
#                                  guest's own boot, not the kit's)
#   selinux/summary.txt            'selinux: MODE, N AVC denials'
# Exit: 0 every step did its job, 1 otherwise (selinux.bats asserts on the files).

set -uo pipefail
# shellcheck source=tests/guest/scenario.sh
source "${BASH_SOURCE[0]%/*}/scenario.sh"
SEL=$OUT/selinux

# sel_port WHEN: the port rules of TEST_PORT
# (and the whole list, with semanage's errors, in <when>-port-all.txt)
sel_port() {
  # through a pipe: semanage_t may write to its caller's pipe, not to a file of the test's
  # (tmp_t on the 9p share: no line and no AVC record, the policy does not even log it)
  semanage port -l 2>&1 | cat >"$SEL/$1-port-all.txt"
  awk -v p="$TEST_PORT" '{ for (i = 3; i <= NF; i++) { x = $i; sub(/,$/, "", x); if (x == p) { print; next } } }' \
    "$SEL/$1-port-all.txt" >"$SEL/$1-port.txt"
}

# sel_evidence WHEN: smbd's domain, the folders' labels, the port rule
sel_evidence() {
  ps -eZ | awk '$NF == "smbd" || $NF ~ /^smbd/' >"$SEL/$1-ps.txt"
  ls -dZ "$SHARE_DIR" "$CONF_DIR" "$STATE_DIR" "$STATE_DIR/private" "$LOG_DIR" >"$SEL/$1-labels.txt" 2>&1
  sel_port "$1"
}

main() {
  local mark=0 n run log=/var/log/audit/audit.log
  mkdir -p "$OUT/steps" "$OUT/evidence" "$OUT/run" "$SEL"
  : >"$OUT/steps.tsv"
  # shellcheck source=/dev/null
  if ! source "$KIT_ROOT/lib/common.sh" || ! common_source_libs "$KIT_ROOT" settings ||
    ! settings_load "$KIT_ROOT" >/dev/null; then
    echo "selinux-scenario: cannot load the kit's settings from '$KIT_ROOT'"
    return 1
  fi
  { getenforce && sestatus; } >"$SEL/mode.txt" 2>&1
  timeout 120 systemctl start auditd.service || echo "selinux-scenario: auditd did not start"
  dmesg | grep -F 'avc:' >"$SEL/boot-avc.txt"
  sel_port before
  [[ -f $log ]] && mark=$(wc -l <"$log")

  scen_step start 600 0 ./start-samba.sh
  sel_evidence after-start
  # shellcheck disable=SC2086 # SEL_METRICS is a list of metric names
  scen_step test "${SEL_TEST_TIMEOUT:-1800}" "0 1" ./test-samba.sh ${SEL_METRICS:-}
  sel_evidence after-test
  run=$(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -n 1)
  [[ -n $run ]] && cp -a "$run/." "$OUT/run/"
  scen_step stop 300 0 ./stop-samba.sh
  scen_step cleanup 300 0 ./test-samba.sh cleanup
  sel_port after-cleanup

  if [[ -f $log ]]; then
    tail -n +"$((mark + 1))" "$log" | grep -E '^type=(AVC|USER_AVC|SELINUX_ERR) ' >"$SEL/avc.txt"
  else
    echo "selinux-scenario: no $log: auditd did not run" >&2
    SCEN_FAILED=1
  fi
  n=$(grep -c . "$SEL/avc.txt")
  echo "selinux: $(getenforce | tr '[:upper:]' '[:lower:]'), $n AVC denials" | tee "$SEL/summary.txt"
  ((n == 0)) || cat "$SEL/avc.txt"
  if ((SCEN_FAILED)); then
    echo "selinux-scenario: a step failed (see steps.tsv and steps/)"
    return 1
  fi
  echo "selinux-scenario: every step exited 0"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
