# lib/metrics/rand.sh: randread and randwrite (fio, 4 KiB, RANDOM_JOBS jobs x RANDOM_QUEUE_DEPTH
# in flight on fio/data.0 through the cifs mount). randread keeps the smbd CPU for cpu.
# Sourced; functions only.

# rand_metric KIND TARGET: run and judge a random run (IOPS >= TARGET); KIND is read or write.
rand_metric() {
  local kind=$1 target=$2 name=rand$1 why sum value status
  if why=$(fio_skip_reason); then
    run_skip "$name" IOPS "$target" ">=" "$why"
    return 0
  fi
  fio_make_files 1 || return 1
  [[ $kind == read ]] && run_drop_caches
  run_cpu_snapshot "$RUN_DIR/raw/$name-cpu.before.json" || true
  fio_run "$name" --rw="rand$kind" --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" \
    --numjobs="$RANDOM_JOBS" --filename="$(fio_file 0)" || true
  run_cpu_snapshot "$RUN_DIR/raw/$name-cpu.after.json" || rm -f "$RUN_DIR/raw/$name-cpu.before.json"
  if ! sum=$(fio_summary "$RUN_DIR/raw/$name.fio.json" 2>/dev/null); then
    run_result "$name" FAIL null IOPS "$target" ">=" "fio gave no result (see raw/$name.fio.log)"
    return 0
  fi
  value=$(jq ".$kind.iops" <<<"$sum")
  status=$(run_judge "$value" ">=" "$target")
  why=''
  [[ $status == PASS ]] || why="$(printf '%.0f' "$value") IOPS is below $target"
  if (($(jq '.errors' <<<"$sum") > 0)); then
    status=FAIL why+="${why:+; }fio saw $(jq '.errors' <<<"$sum") failed requests"
  fi
  run_result "$name" "$status" "$value" IOPS "$target" ">=" "$why" \
    "$(jq -c --arg kind "$kind" --argjson j "$RANDOM_JOBS" --argjson q "$RANDOM_QUEUE_DEPTH" --arg dc "$DROP_CACHES" \
      '{iops: .[$kind].iops, bw_mbs: .[$kind].bw_mbs, lat_ms: .[$kind].lat_ms, fio_busy_pct: .busy_pct,
        jobs: $j, iodepth: $q, block: "4 KiB", runtime_s, drop_caches: $dc}' <<<"$sum")" \
    "$(fio_warnings "$sum" "$RANDOM_JOBS")"
}

# metric_randread: 4 KiB random reads per second.
metric_randread() {
  rand_metric read "$TARGET_RANDREAD_MIN_IOPS"
}

# metric_randwrite: 4 KiB random writes per second.
metric_randwrite() {
  rand_metric write "$TARGET_RANDWRITE_MIN_IOPS"
}
