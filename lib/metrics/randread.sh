# lib/metrics/randread.sh: the randread metric: fio, 4 KiB, RANDOM_JOBS jobs x
# RANDOM_QUEUE_DEPTH in flight on fio/data.0 through the cifs mount. Sourced; functions only.
# Verdict: lib/metrics/randread.jq.

randread_describe() { echo "fio, 4 KiB blocks, $RANDOM_JOBS jobs x $RANDOM_QUEUE_DEPTH in flight, $DURATION s"; }
randread_estimate() { measure_estimate $((DURATION + 1)); }
randread_needs() { echo mount; }

randread_measure() {
  fio_make_files 1 || return 1
  fio_drop_caches randread
  fio_run randread --rw=randread --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" \
    --numjobs="$RANDOM_JOBS" --filename="$(fio_file 0)" || true
}

# randread_baseline DIR: its job for the local-disk baseline (lib/run/baseline.sh, the localdisk metric):
# the fio options randread_measure runs with, one a line, on the data files in DIR.
randread_baseline() {
  printf '%s\n' --rw=randread --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" --numjobs="$RANDOM_JOBS" \
    "--filename=$1/data.0"
}

# randread_clienthosts_fio: runs through the client hosts' fio servers (lib/run/clienthosts-fio-run.sh).
randread_clienthosts_fio() { :; }
