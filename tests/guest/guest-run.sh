#!/bin/bash
# Usage: guest-run.sh PLAN_DIR   (ExecStart of samba-perf-guest.service, inside the guest)
# Summary: run the command run-guest.sh planned, record its output, timing and exit status
#
# PLAN_DIR/env.sh (written by run-guest.sh on the host) sets GUEST_WORKDIR, the GUEST_CMD
# array and the caller's extra environment. Results go to $GUEST_RESULTS (the 9p share).

plan=${1:?usage: guest-run.sh PLAN_DIR}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8
export GUEST_RESULTS=/guest-results
unset INVOCATION_ID JOURNAL_STREAM

read -r boot_s _ </proc/uptime
status=125
GUEST_CMD=()
# shellcheck source=/dev/null
if ! source "$plan/env.sh"; then
  echo "guest: cannot read '$plan/env.sh'"
elif ! cd "$GUEST_WORKDIR"; then
  echo "guest: cannot enter '$GUEST_WORKDIR'"
else
  echo "guest: PID 1 is $(cat /proc/1/comm); running in $PWD:$(printf ' %q' "${GUEST_CMD[@]}")"
  "${GUEST_CMD[@]}" </dev/null 2>&1 | tee "$GUEST_RESULTS/guest-command.log"
  status=${PIPESTATUS[0]}
fi
read -r end_s _ </proc/uptime
echo "$boot_s $end_s" >"$GUEST_RESULTS/guest-uptime"
echo "$status" >"$GUEST_RESULTS/guest-exit-status"
echo "guest: command exited with status $status"
sync
exit "$status"
