# lib/metrics/seq.sh: seqwrite and seqread (fio, 1 MiB blocks, SEQ_STREAMS jobs of one file each,
# SEQ_QUEUE_DEPTH in flight, through the cifs mount). seqread also keeps the smbd CPU for cpu.
# Sourced; functions only.

# seq_measure KIND: run fio for KIND (write|read) between CPU snapshots; raw/seqKIND.fio.json.
seq_measure() {
  local kind=$1 name=seq$1
  local -a extra=()
  [[ $kind == write ]] && extra=(--end_fsync=1)
  fio_make_files "$SEQ_STREAMS" || return 1
  [[ $kind == read ]] && run_drop_caches
  run_cpu_snapshot "$RUN_DIR/raw/$name-cpu.before.json" || true
  fio_run "$name" --rw="$kind" --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
    --filename_format="$MOUNT_POINT/fio/data.\$jobnum" "${extra[@]}" || true
  run_cpu_snapshot "$RUN_DIR/raw/$name-cpu.after.json" || rm -f "$RUN_DIR/raw/$name-cpu.before.json"
}

# seq_metric KIND TARGET: judge a sequential run (MB/s >= TARGET).
seq_metric() {
  local kind=$1 target=$2 name=seq$1 why sum value status
  if why=$(fio_skip_reason); then
    run_skip "$name" MB/s "$target" ">=" "$why"
    return 0
  fi
  seq_measure "$kind" || return 1
  if ! sum=$(fio_summary "$RUN_DIR/raw/$name.fio.json" 2>/dev/null); then
    run_result "$name" FAIL null MB/s "$target" ">=" "fio gave no result (see raw/$name.fio.log)"
    return 0
  fi
  value=$(jq ".$kind.bw_mbs" <<<"$sum")
  status=$(run_judge "$value" ">=" "$target")
  why=''
  [[ $status == PASS ]] || why="$(printf '%.0f' "$value") MB/s is below $target MB/s"
  if (($(jq '.errors' <<<"$sum") > 0)); then
    status=FAIL why+="${why:+; }fio saw $(jq '.errors' <<<"$sum") failed requests"
  fi
  run_result "$name" "$status" "$value" MB/s "$target" ">=" "$why" \
    "$(jq -c --arg kind "$kind" --argjson s "$SEQ_STREAMS" --argjson q "$SEQ_QUEUE_DEPTH" --arg dc "$DROP_CACHES" \
      '{bw_mbs: .[$kind].bw_mbs, iops: .[$kind].iops, lat_ms: .[$kind].lat_ms, fio_busy_pct: .busy_pct,
        streams: $s, iodepth: $q, block: "1 MiB", runtime_s, drop_caches: $dc}' <<<"$sum")" \
    "$(fio_warnings "$sum" "$SEQ_STREAMS")"
}

# metric_seqwrite: sequential write, MB/s.
metric_seqwrite() {
  seq_metric write "$TARGET_SEQWRITE_MIN_MBS"
}

# metric_seqread: sequential read, MB/s.
metric_seqread() {
  seq_metric read "$TARGET_SEQREAD_MIN_MBS"
}
