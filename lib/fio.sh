# lib/fio.sh: fio runs through the kernel cifs mount: why they cannot run, the data files
# fio/data.N, one run with the guide's fixed options, and a summary of fio's JSON.
# Sourced; functions only. Needs the settings, the state and lib/run.sh.

# fio_skip_reason: print why fio metrics cannot run here (nothing and 1 when they can).
fio_skip_reason() {
  if ! mount_options_now >/dev/null 2>&1; then
    local why="the share is not mounted at $MOUNT_POINT"
    printf '%s\n' "${KIT_MOUNT_SKIP:-$why}"
    return 0
  fi
  if ! common_have fio; then
    echo "fio is not installed"
    return 0
  fi
  return 1
}

# fio_file N: print the path of data file N on the mount.
fio_file() {
  printf '%s\n' "$MOUNT_POINT/fio/data.$1"
}

# fio_needs_file N: true when data file N is missing or smaller than DATA_FILE_MB.
fio_needs_file() {
  local f size
  f=$(fio_file "$1")
  size=$(stat -c %s "$f" 2>/dev/null) || return 0
  ((size < DATA_FILE_MB * 1048576))
}

# fio_make_files COUNT: create data.0 .. data.COUNT-1 of DATA_FILE_MB through the mount (first
# need); a file being written is removed when the run is stopped. 1 when one failed.
fio_make_files() {
  local i f
  mkdir -p "$MOUNT_POINT/fio"
  for ((i = 0; i < $1; i++)); do
    fio_needs_file "$i" || continue
    f=$(fio_file "$i")
    log "      creating $f ($DATA_FILE_MB MB, once)"
    RUN_PARTIAL+=("$f")
    if ! run_child $((DATA_FILE_MB / 5 + 120)) "$RUN_DIR/raw/fio-create.$i.log" \
      fio --name=create --filename="$f" --rw=write --bs=1M --iodepth=8 --direct=1 \
      --ioengine=libaio --size="${DATA_FILE_MB}M" --end_fsync=1 --output-format=json \
      --output="$RUN_DIR/raw/fio-create.$i.json"; then
      rm -f "$f"
      RUN_PARTIAL=()
      return 1
    fi
    RUN_PARTIAL=()
  done
}

# fio_run NAME ARG...: run fio job NAME with the options every kit job shares plus ARG; JSON in
# raw/NAME.fio.json. The exit status is fio's.
fio_run() {
  local name=$1
  shift
  run_child $((DURATION * 2 + 120)) "$RUN_DIR/raw/$name.fio.log" \
    fio --name="$name" --direct=1 --ioengine=libaio --size="${DATA_FILE_MB}M" \
    --runtime="$DURATION" --time_based --group_reporting \
    --output-format=json --output="$RUN_DIR/raw/$name.fio.json" "$@"
}

# fio_summary FILE: print the key numbers of a fio JSON file as one object: per direction
# (read, write, mixed) iops, bw_mbs, ios and lat_ms {p50,p95,p99,max,mean}; busy_pct (usr+sys
# of the fio jobs), errors (requests fio saw fail), runtime_s.
fio_summary() {
  jq -c '
    def pct($p): (.clat_ns.percentile[$p] // null) | if . == null then null else . / 1e6 end;
    def dir: {
      iops: .iops, bw_mbs: (.bw_bytes / 1e6), ios: .total_ios,
      lat_ms: {p50: pct("50.000000"), p95: pct("95.000000"), p99: pct("99.000000"),
               max: (.lat_ns.max / 1e6), mean: (.lat_ns.mean / 1e6)}
    };
    .jobs[0] as $j
    | {read: ($j.read | dir), write: ($j.write | dir),
       mixed: (if $j.mixed then ($j.mixed | dir) else null end),
       busy_pct: (($j.usr_cpu // 0) + ($j.sys_cpu // 0)),
       errors: ($j.total_err // (if ($j.error // 0) != 0 then 1 else 0 end)),
       first_error: ($j.first_error // $j.error // 0),
       runtime_s: (($j.job_runtime // 0) / 1000)}' "$1"
}

# fio_warnings SUMMARY_JSON JOBS: print a JSON array of warnings about the fio run itself.
fio_warnings() {
  printf '%s\n' "$1" | jq -c --argjson cpus "$(nproc)" --argjson jobs "$2" '[
    (if .busy_pct >= 90 then "fio itself was \(.busy_pct | round) % busy: the client may be the limit, not smbd" else empty end),
    (if $cpus <= 4 and $jobs >= $cpus then "\($jobs) fio jobs, the kernel client and smbd shared \($cpus) CPUs: on so small a machine the client side may be the limit" else empty end)
  ]'
}
