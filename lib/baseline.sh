# lib/baseline.sh: the local-disk baseline: the fio jobs of seqwrite, seqread, randread and
# randwrite run directly on SHARE_DIR's file system (in SHARE_DIR/local-baseline, same sizes,
# direct I/O where the file system takes it), so a report can put "local disk" beside the Samba
# figure and say "Samba reaches N % of it". Needs no mount and no smbd: it runs where the cifs
# metrics SKIP. Sourced; functions only. Needs the settings and lib/fio.sh (fio_summary).
#
#   baseline_run JOB OUT_JSON    JOB: seqwrite|seqread|randread|randwrite; writes OUT_JSON (below)
#                                and fio's own JSON beside it (OUT_JSON without .json + .fio.json)
#   baseline_vs SAMBA_VALUE OUT_JSON   the comparison object a metric puts in its details
#
# OUT_JSON: {job, value, unit, path, fs_type, direct, direct_why, size_mb, runtime_s, bw_mbs,
# iops, lat_ms, block, jobs, iodepth, errors, ok, why}; value is bw_mbs (seq) or iops (rand).

# baseline_dir: print the folder the baseline works in.
baseline_dir() {
  printf '%s\n' "$SHARE_DIR/local-baseline"
}

# baseline_direct DIR: true when DIR's file system takes O_DIRECT writes; otherwise print the
# reason (dd's message) and return 1.
baseline_direct() {
  local probe=$1/.direct-probe err
  if err=$(dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct status=none 2>&1); then
    rm -f "$probe"
    return 0
  fi
  rm -f "$probe"
  printf '%s\n' "${err##*: }"
  return 1
}

# baseline_job_args JOB DIR: print the fio options of JOB, one a line, as the Samba metric runs
# it (lib/metrics/seq.sh, rand.sh, fio_run), with its data files in DIR. 1 for an unknown JOB.
baseline_job_args() {
  local job=$1 dir=$2
  case $job in
    seqwrite | seqread)
      printf '%s\n' --rw="${job#seq}" --bs=1M --iodepth="$SEQ_QUEUE_DEPTH" --numjobs="$SEQ_STREAMS" \
        "--filename_format=$dir/data.\$jobnum"
      [[ $job == seqwrite ]] && printf '%s\n' --end_fsync=1
      ;;
    randread | randwrite)
      printf '%s\n' --rw="$job" --bs=4k --iodepth="$RANDOM_QUEUE_DEPTH" --numjobs="$RANDOM_JOBS" \
        "--filename=$dir/data.0"
      ;;
    *) return 1 ;;
  esac
  printf '%s\n' --ioengine=libaio --size="${DATA_FILE_MB}M" --runtime="$DURATION" --time_based \
    --group_reporting --output-format=json
}

# baseline_files JOB: print how many data files JOB uses.
baseline_files() {
  case $1 in
    seq*) echo "$SEQ_STREAMS" ;;
    *) echo 1 ;;
  esac
}

# baseline_make_files COUNT DIR DIRECT(0|1): create DIR/data.0 .. COUNT-1 of DATA_FILE_MB where
# missing or short; 1 when one could not be made (it is removed).
baseline_make_files() {
  local n=$1 dir=$2 direct=$3 i f size
  for ((i = 0; i < n; i++)); do
    f=$dir/data.$i
    size=$(stat -c %s "$f" 2>/dev/null) || size=0
    ((size >= DATA_FILE_MB * 1048576)) && continue
    if ! timeout $((DATA_FILE_MB / 5 + 120)) fio --name=create --filename="$f" --rw=write --bs=1M \
      --iodepth=8 --direct="$direct" --ioengine=libaio --size="${DATA_FILE_MB}M" --end_fsync=1 \
      --output-format=json --output=/dev/null >/dev/null 2>&1; then
      rm -f "$f"
      return 1
    fi
  done
}

# baseline_fail OUT_JSON JOB WHY: write the object of a baseline that could not run.
baseline_fail() {
  jq -n -c --arg job "$2" --arg why "$3" '{job: $job, ok: false, value: null, why: $why}' >"$1"
}

# baseline_run JOB OUT_JSON: run JOB's fio job on SHARE_DIR's file system; 0 when OUT_JSON was
# written (ok true or false), 1 for an unknown JOB.
baseline_run() {
  local job=$1 out=$2 dir direct=1 why='' fs kind unit value sum
  local fio_json=${2%.json}.fio.json
  local -a args
  if ! baseline_job_args "$job" / >/dev/null; then
    printf "unknown baseline job '%s'\n" "$job" >&2
    return 1
  fi
  dir=$(baseline_dir)
  if ! command -v fio >/dev/null 2>&1; then
    baseline_fail "$out" "$job" "fio is not installed"
    return 0
  fi
  if ! mkdir -p "$dir" 2>/dev/null; then
    baseline_fail "$out" "$job" "cannot create '$dir'"
    return 0
  fi
  if ! why=$(baseline_direct "$dir"); then
    direct=0 why="the file system of '$dir' refuses direct I/O ($why): buffered I/O, the page cache is in the figure"
  fi
  fs=$(stat -f -c %T "$dir" 2>/dev/null) || fs=unknown
  if ! baseline_make_files "$(baseline_files "$job")" "$dir" "$direct"; then
    baseline_fail "$out" "$job" "could not create the ${DATA_FILE_MB} MB data files in '$dir' (disk full?)"
    return 0
  fi
  mapfile -t args < <(baseline_job_args "$job" "$dir")
  timeout $((DURATION * 2 + 120)) fio --name="baseline-$job" --direct="$direct" "${args[@]}" \
    --output="$fio_json" >/dev/null 2>"${out%.json}.fio.log" || true
  if ! sum=$(fio_summary "$fio_json" 2>/dev/null); then
    baseline_fail "$out" "$job" "fio gave no result (see ${out%.json}.fio.log)"
    return 0
  fi
  kind="read"
  [[ $job == *write ]] && kind="write"
  case $job in
    seq*) unit=MB/s value=".$kind.bw_mbs" ;;
    *) unit=IOPS value=".$kind.iops" ;;
  esac
  jq -c --arg job "$job" --arg kind "$kind" --arg unit "$unit" --arg path "$dir" --arg fs "$fs" \
    --argjson direct "$direct" --arg why "$why" --argjson mb "$DATA_FILE_MB" \
    --arg block "$([[ $job == seq* ]] && echo "1 MiB" || echo "4 KiB")" \
    --argjson jobs "$([[ $job == seq* ]] && echo "$SEQ_STREAMS" || echo "$RANDOM_JOBS")" \
    --argjson depth "$([[ $job == seq* ]] && echo "$SEQ_QUEUE_DEPTH" || echo "$RANDOM_QUEUE_DEPTH")" \
    "{job: \$job, ok: (.errors == 0), value: $value, unit: \$unit, path: \$path, fs_type: \$fs,
      direct: (\$direct == 1), direct_why: (if \$why == \"\" then null else \$why end),
      size_mb: \$mb, runtime_s, bw_mbs: .[\$kind].bw_mbs, iops: .[\$kind].iops,
      lat_ms: .[\$kind].lat_ms, block: \$block, jobs: \$jobs, iodepth: \$depth, errors,
      why: (if .errors == 0 then null else \"fio saw \\(.errors) failed requests\" end)}" \
    <<<"$sum" >"$out"
}

# baseline_vs SAMBA_VALUE OUT_JSON: print {local, unit, samba, samba_pct, direct, text} for a
# metric's details: e.g. "local disk 850 MB/s (direct I/O); Samba reaches 42 % of it".
# samba_pct is null when either figure is missing.
baseline_vs() {
  jq -c --argjson samba "${1:-null}" '
    def r: if . == null then null elif . >= 100 then round else (. * 10 | round) / 10 end;
    (if .ok and ($samba | type) == "number" and (.value // 0) > 0
     then $samba * 100 / .value else null end) as $pct
    | {local: .value, unit, samba: $samba, samba_pct: $pct, direct,
       text: (if .ok != true then "local disk: not measured (\(.why))"
         else "local disk \(.value | r) \(.unit) (\(if .direct then "direct I/O" else "buffered: \(.direct_why)" end))\(
           if $pct == null then "" else "; Samba reaches \($pct | round) % of it" end)" end)}' "$2"
}
