# lib/metrics/seqread.sh: the seqread metric: fio, 1 MiB blocks, SEQ_STREAMS jobs of one file
# each, SEQ_QUEUE_DEPTH in flight, through the cifs mount. Sourced; functions only.
# Verdict: lib/metrics/seqread.jq.

seqread_describe() { echo "fio, 1 MiB blocks, $SEQ_STREAMS stream(s) x $SEQ_QUEUE_DEPTH in flight, $DURATION s"; }
seqread_needs() { echo mount; }
seqread_estimate() { measure_estimate $((DURATION + 1)); }

seqread_measure() {
  fio_make_files "$SEQ_STREAMS" || return 1
  fio_drop_caches seqread
  fio_run seqread --rw=read --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
    --filename_format="$MOUNT_POINT/fio/data.\$jobnum" || true
}

# seqread_baseline DIR: its job for the local-disk baseline (lib/run/baseline.sh, the localdisk metric):
# the fio options seqread_measure runs with, one a line, on the data files in DIR.
seqread_baseline() {
  printf '%s\n' --rw=read --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
    "--filename_format=$1/data.\$jobnum"
}

# seqread_clienthosts_fio: runs through the client hosts' fio servers (lib/run/clienthosts-fio-run.sh).
seqread_clienthosts_fio() { :; }
