# lib/metrics/randwrite.sh: the randwrite metric: fio, 4 KiB, RANDOM_JOBS jobs x
# RANDOM_QUEUE_DEPTH in flight on fio/data.0 through the cifs mount. Sourced; functions only.
# Verdict: lib/metrics/randwrite.jq.

randwrite_describe() { echo "fio, 4 KiB blocks, $RANDOM_JOBS jobs x $RANDOM_QUEUE_DEPTH in flight, $DURATION s"; }
randwrite_estimate() { measure_estimate $((DURATION + 1)); }
randwrite_needs() { echo mount; }

randwrite_measure() {
  fio_make_files 1 || return 1
  fio_run randwrite --rw=randwrite --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" \
    --numjobs="$RANDOM_JOBS" --filename="$(fio_file 0)" || true
}

# randwrite_baseline DIR: its job for the local-disk baseline (lib/run/baseline.sh, the localdisk metric):
# the fio options randwrite_measure runs with, one a line, on the data files in DIR.
randwrite_baseline() {
  printf '%s\n' --rw=randwrite --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" --numjobs="$RANDOM_JOBS" \
    "--filename=$1/data.0"
}

# randwrite_clienthosts_fio: runs through the client hosts' fio servers (lib/run/clienthosts-fio-run.sh),
# each host on its own files.
randwrite_clienthosts_fio() { :; }
