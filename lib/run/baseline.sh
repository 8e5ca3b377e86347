# lib/run/baseline.sh: the local-disk baseline: the fio jobs of the metrics that declare one
# (NAME_baseline, docs/CONTRACTS.md section 6) run directly on SHARE_DIR's file system (in SHARE_DIR/local-baseline, same sizes,
# block sizes and depths), buffered as smbd reads and writes (the Samba metrics' --direct=1 is
# the client's: smbd serves them through the server's page cache), so a report can put "local
# disk" beside the Samba figure and say "Samba reaches N % of it" of like against like; with
# DROP_CACHES=yes both start cold (the runner drops the page cache before each). Needs no mount and no smbd: it runs where the cifs
# metrics SKIP. Sourced; functions only. Needs the settings, KIT_ROOT and
# lib/run/fio.jq (or lib/run/fio.sh) for fio_summary.
#
#   baseline_run JOB OUT_JSON    JOB: a metric with NAME_baseline; writes OUT_JSON (below)
#                                and fio's own JSON beside it (OUT_JSON without .json + .fio.json)
#   baseline_vs SAMBA_VALUE OUT_JSON   the comparison object a metric puts in its details
# The same in steps, for a runner that records each command ('measure'): baseline_prepare JOB,
# baseline_command JOB FIO_JSON (the fio command), baseline_result JOB FIO_JSON.
#
# OUT_JSON: {job, value, unit, path, fs_type (findmnt's: ext4, xfs), direct (false), size_mb,
# bw_mbs, iops, lat_ms, block, jobs, iodepth, errors, ok, why}; value is bw_mbs (a sequential
# job: --rw=read or write) or iops (a random one).

# baseline_dir: print the folder the baseline works in.
baseline_dir() {
  printf '%s\n' "$SHARE_DIR/local-baseline"
}

# baseline_job_args JOB DIR: print the fio options of JOB, one a line, as the Samba metric runs
# it (its JOB_baseline, lib/metrics/JOB.sh), with its data files in DIR. 1 for an unknown JOB.
baseline_job_args() {
  local job=$1 dir=$2
  declare -F "${job}_baseline" >/dev/null || return 1
  "${job}_baseline" "$dir"
  printf '%s\n' --ioengine=libaio --size="${DATA_FILE_MB}M" --runtime="$DURATION" --time_based \
    --group_reporting --output-format=json
}

# baseline_opt JOB OPTION: print the value of fio option --OPTION of JOB ('' when it has none).
baseline_opt() {
  baseline_job_args "$1" / | sed -n "s/^--$2=//p" | head -n 1
}

# baseline_files JOB: print how many data files JOB uses: one a job with --filename_format, else one.
baseline_files() {
  if [[ -n $(baseline_opt "$1" filename_format) ]]; then baseline_opt "$1" numjobs; else echo 1; fi
}

# baseline_make_files COUNT DIR: create DIR/data.0 .. COUNT-1 of DATA_FILE_MB where missing or
# short; 1 when one could not be made (it is removed) or there is no room for them
# (BASELINE_ROOM says why, with the numbers).
baseline_make_files() {
  local n=$1 dir=$2 i f size need=0
  for ((i = 0; i < n; i++)); do
    f=$dir/data.$i
    # a link or other non-file of that name is removed, never written through (root runs fio)
    if [[ -L $f || (-e $f && ! -f $f) ]]; then
      rm -rf --one-file-system -- "$f"
      log "      removed '$f': not a file (the kit follows no link in the share)"
    fi
    size=$(stat -c %s "$f" 2>/dev/null) || size=0
    ((size >= DATA_FILE_MB * 1048576)) || need=$((need + DATA_FILE_MB))
  done
  BASELINE_ROOM=$(common_room "$dir" $((need + 64))) || return 1
  for ((i = 0; i < n; i++)); do
    f=$dir/data.$i
    size=$(stat -c %s "$f" 2>/dev/null) || size=0
    ((size >= DATA_FILE_MB * 1048576)) && continue
    # without the kit's lock (lib/run/child.sh): a killed run must not leave fio holding it
    if ! (
      if declare -F child_close_lock >/dev/null; then child_close_lock; fi
      exec timeout $((DATA_FILE_MB / 5 + 120)) fio --name=create --filename="$f" --rw=write --bs=1M \
        --iodepth=8 --ioengine=libaio --size="${DATA_FILE_MB}M" --end_fsync=1 \
        --output-format=json --output=/dev/null >/dev/null 2>&1
    ); then
      rm -f "$f"
      return 1
    fi
  done
}

# baseline_summary FIO_JSON: print fio's key numbers as one object (per direction iops, bw_mbs,
# lat_ms; errors; runtime_s): lib/run/fio.jq's fio_summary where the kit has it (the runner of
# issue 8), else lib/run/fio.sh's. (When both branches are merged only the first is needed.)
baseline_summary() {
  if [[ -f $KIT_ROOT/lib/run/fio.jq ]]; then
    jq -L "$KIT_ROOT/lib" -c 'include "run/fio"; fio_summary' "$1"
  else
    fio_summary "$1"
  fi
}

# baseline_prepare JOB: make the folder and JOB's data files; set BASELINE_DIR and BASELINE_FS
# (the file system type: findmnt's, else stat -f's). 1 with BASELINE_WHY (one line) when the baseline cannot run.
baseline_prepare() {
  BASELINE_DIR=$(baseline_dir) BASELINE_WHY=''
  if [[ -L $BASELINE_DIR || (-e $BASELINE_DIR && ! -d $BASELINE_DIR) ]]; then
    rm -f -- "$BASELINE_DIR"
    log "      removed '$BASELINE_DIR': not a folder (the kit follows no link in the share)"
  fi
  if ! command -v fio >/dev/null 2>&1; then
    BASELINE_WHY="fio is not installed"
  elif ! mkdir -p "$BASELINE_DIR" 2>/dev/null; then
    BASELINE_WHY="cannot create '$BASELINE_DIR'"
  fi
  [[ -z $BASELINE_WHY ]] || return 1
  # findmnt finds no mount in a chroot whose root is no mount point of its own; stat -f
  # still names the file system there (ext4 as 'ext2/ext3')
  BASELINE_FS=$(findmnt -no FSTYPE --target "$BASELINE_DIR" 2>/dev/null) ||
    BASELINE_FS=$(stat -f -c %T "$BASELINE_DIR" 2>/dev/null) || BASELINE_FS=''
  BASELINE_FS=${BASELINE_FS:-unknown}
  BASELINE_ROOM=''
  if ! baseline_make_files "$(baseline_files "$1")" "$BASELINE_DIR"; then
    BASELINE_WHY="could not create the ${DATA_FILE_MB} MB data files in '$BASELINE_DIR' (${BASELINE_ROOM:-disk full?})"
    return 1
  fi
}

# baseline_command JOB FIO_JSON: print the whole fio command of JOB (after baseline_prepare),
# one word a line, its JSON to FIO_JSON: for 'measure' or to run as it is.
baseline_command() {
  printf '%s\n' fio --name="baseline-$1" --direct=0
  baseline_job_args "$1" "$BASELINE_DIR"
  printf '%s\n' --output="$2"
}

# baseline_result JOB FIO_JSON: print the baseline object of JOB from fio's JSON (after
# baseline_prepare); ok false with why when fio gave no result.
baseline_result() {
  local job=$1 sum kind="read" seq=0 rw bs jobs depth
  rw=$(baseline_opt "$job" rw) bs=$(baseline_opt "$job" bs)
  jobs=$(baseline_opt "$job" numjobs) depth=$(baseline_opt "$job" iodepth)
  [[ $rw == *write ]] && kind="write"
  [[ $rw == read || $rw == write ]] && seq=1
  if ! sum=$(baseline_summary "$2" 2>/dev/null) || [[ -z $sum ]]; then
    jq -n -c --arg job "$job" --arg why "fio gave no result (see ${2%.json}.log)" \
      '{job: $job, ok: false, value: null, why: $why}'
    return 0
  fi
  jq -c --arg job "$job" --arg kind "$kind" --argjson seq "$seq" --arg path "$BASELINE_DIR" \
    --arg fs "$BASELINE_FS" \
    --argjson mb "$DATA_FILE_MB" --argjson jobs "${jobs:-null}" \
    --argjson depth "${depth:-null}" --arg bs "$bs" '
    .[$kind] as $d
    | {job: $job, ok: (.errors == 0),
       value: (if $seq == 1 then $d.bw_mbs else $d.iops end),
       unit: (if $seq == 1 then "MB/s" else "IOPS" end),
       path: $path, fs_type: $fs, direct: false, size_mb: $mb,
       bw_mbs: $d.bw_mbs, iops: $d.iops, lat_ms: $d.lat_ms,
       block: (if $bs == "" then null else $bs | capture("^(?<n>[0-9]+)(?<u>[kKmM])$") // {n: $bs, u: ""}
         | "\(.n) \({k: "KiB", K: "KiB", m: "MiB", M: "MiB"}[.u] // "bytes")" end),
       jobs: $jobs, iodepth: $depth,
       errors, why: (if .errors == 0 then null else "fio saw \(.errors) failed requests" end)}' <<<"$sum"
}

# baseline_run JOB OUT_JSON: run JOB's fio job on SHARE_DIR's file system now; write OUT_JSON (ok
# true or false) and fio's JSON beside it; 1 for an unknown JOB.
baseline_run() {
  local job=$1 out=$2 fio_json=${2%.json}.fio.json
  local -a cmd
  if ! baseline_job_args "$job" / >/dev/null; then
    printf "unknown baseline job '%s'\n" "$job" >&2
    return 1
  fi
  if ! baseline_prepare "$job"; then
    jq -n -c --arg job "$job" --arg why "$BASELINE_WHY" '{job: $job, ok: false, value: null, why: $why}' >"$out"
    return 0
  fi
  mapfile -t cmd < <(baseline_command "$job" "$fio_json")
  timeout $((DURATION * 2 + 120)) "${cmd[@]}" >/dev/null 2>"${fio_json%.json}.log" || true
  baseline_result "$job" "$fio_json" >"$out"
}

# baseline_vs SAMBA_VALUE OUT_JSON: print {local, unit, samba, samba_pct, direct, text} for a
# metric's details (lib/run/baseline.jq baseline_vs): e.g. "local disk 850 MB/s (buffered, as smbd); Samba
# reaches 42 % of it". samba_pct is null when either figure is missing.
baseline_vs() {
  jq -L "$KIT_ROOT/lib" -c --argjson samba "${1:-null}" 'include "run/baseline"; baseline_vs($samba)' "$2"
}
