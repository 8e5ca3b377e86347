# lib/metrics/seqwrite.sh: the seqwrite metric: fio, 1 MiB blocks, SEQ_STREAMS jobs of one file
# each, SEQ_QUEUE_DEPTH in flight, through the cifs mount. Sourced; functions only.
# Verdict: lib/metrics/seqwrite.jq.

seqwrite_describe() { echo "fio, 1 MiB blocks, $SEQ_STREAMS stream(s) x $SEQ_QUEUE_DEPTH in flight, $DURATION s"; }
seqwrite_needs() { echo mount; }

seqwrite_estimate() {
  local n
  n=$(measure_estimate $((DURATION + 2)))
  ! fio_needs_file 0 || n=$((n + DATA_FILE_MB / 400))
  echo "$n"
}

seqwrite_measure() {
  fio_make_files "$SEQ_STREAMS" || return 1
  fio_run seqwrite --rw=write --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
    --filename_format="$MOUNT_POINT/fio/data.\$jobnum" --end_fsync=1 || true
}

# seqwrite_baseline DIR: its job for the local-disk baseline (lib/run/baseline.sh, the localdisk metric):
# the fio options seqwrite_measure runs with, one a line, on the data files in DIR.
seqwrite_baseline() {
  printf '%s\n' --rw=write --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
    "--filename_format=$1/data.\$jobnum" --end_fsync=1
}

# seqwrite_clienthosts_fio: runs through the client hosts' fio servers (lib/run/clienthosts-fio-run.sh),
# each host on its own files.
seqwrite_clienthosts_fio() { :; }
