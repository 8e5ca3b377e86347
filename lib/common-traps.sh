# lib/common-traps.sh: the one trap set-up of every entry script and subcommand (and of the
# run's and the sweep's children): the EXIT trap removes the temp files common_tmp_track
# (lib/common.sh) tracked and calls the script's exit hook; INT, TERM and HUP exit 128+n.
# Sourced; defines functions only. Needs lib/common.sh.
# shellcheck disable=SC2034 # COMMON_SIGNAL is read by the scripts' exit hooks

# common_traps_init ON_EXIT: the one trap set-up of every entry script and subcommand: every
# way out (success, die, errexit, Ctrl-C, TERM, a dropped terminal) removes the tracked temp
# files, then runs the function ON_EXIT (may be '') with the exit status; ON_EXIT may exit with
# another status. A signal exits 128+n: INT 130, TERM 143, HUP 129 (README, "Exit status"), and
# COMMON_SIGNAL names it for ON_EXIT. With --keep-fds the script's stdout and stderr are kept
# (COMMON_OUT_FD, COMMON_ERR_FD), so what the traps say reaches the terminal also when a signal
# comes inside a redirection (a probe's 2>>raw/NAME.err, a step logging into a file); every
# process that may outlive the script must then be started after common_close_saved_fds, or a
# pipe it holds open never ends ('test-samba.sh | tee').
common_traps_init() {
  COMMON_ON_EXIT=$1
  COMMON_TMPFILES=()
  COMMON_SIGNAL=''
  if [[ ${2:-} == --keep-fds ]]; then exec {COMMON_OUT_FD}>&1 {COMMON_ERR_FD}>&2; fi
  trap 'common_on_exit' EXIT
  trap 'common_on_signal INT 130' INT
  trap 'common_on_signal TERM 143' TERM
  trap 'common_on_signal HUP 129' HUP
}

# common_traps_restore_fds: point stdout and stderr back at the script's own (see
# common_traps_init); a dropped terminal may make writing fail, so nothing here may stop a trap.
common_traps_restore_fds() {
  if [[ -n ${COMMON_ERR_FD:-} ]]; then exec 1>&"$COMMON_OUT_FD" 2>&"$COMMON_ERR_FD"; fi
}

# common_close_saved_fds: in a child that may outlive the script, close the kept stdout and
# stderr of common_traps_init --keep-fds.
common_close_saved_fds() {
  if [[ -n ${COMMON_ERR_FD:-} ]]; then exec {COMMON_OUT_FD}>&- {COMMON_ERR_FD}>&-; fi
}

# common_on_signal NAME STATUS: the signal traps: say which signal, exit with STATUS (128+n).
common_on_signal() {
  trap '' INT TERM HUP
  COMMON_SIGNAL=$1
  common_traps_restore_fds
  printf '\n' >&2
  warn "interrupted ($1)"
  exit "$2"
}

# common_on_exit: the EXIT trap: remove the tracked temp files, then call COMMON_ON_EXIT STATUS.
common_on_exit() {
  local status=$? f
  set +e
  trap '' INT TERM HUP PIPE
  common_traps_restore_fds
  for f in "${COMMON_TMPFILES[@]}"; do
    if [[ -e $f ]]; then rm -rf --one-file-system -- "$f" 2>/dev/null || true; fi
  done
  if [[ -n ${COMMON_ON_EXIT:-} ]]; then "$COMMON_ON_EXIT" "$status" || true; fi
  exit "$status"
}
