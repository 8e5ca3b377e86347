# lib/run/fio.sh: fio and the data files: why fio cannot run here, the data files fio/data.N, one
# fio run with the guide's fixed options, the steady run latency and errors share, the page-cache
# drop. Sourced; functions only. Needs lib/run/child.sh and lib/run/measure.sh; the verdicts' side of fio
# is lib/run/fio.jq.

# fio_skip_reason [METRIC]: print why fio metrics (METRIC) cannot run here (nothing and 1 when
# they can); with client hosts, why they cannot run from them (lib/run/clienthosts-fio.sh).
fio_skip_reason() {
  if clienthosts_on; then
    clienthosts_fio_skip_reason "${1:-}"
    return
  fi
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
# need); a file being written is removed when the run is stopped. 1 when one failed. With client
# hosts a set for each host, fio/TAG/data.N, written into SHARE_DIR (their mounts live in their
# fio servers' mount namespaces): several hosts opening one file stall each other's opens
# (tests/guest/README.md).
fio_make_files() {
  local i f need=0 why pair
  if clienthosts_on; then
    for pair in ${KIT_CLIENT_FIO:-}; do
      for ((i = 0; i < $1; i++)); do fio_share_file "$i" "fio/$(clienthosts_tag "${pair%%=*}")" || return 1; done
    done
    return 0
  fi
  mkdir -p "$MOUNT_POINT/fio"
  for ((i = 0; i < $1; i++)); do
    if fio_needs_file "$i"; then need=$((need + DATA_FILE_MB)); fi
  done
  # the files land in SHARE_DIR, on the server's file system
  why=$(common_room "$SHARE_DIR" $((need + 64))) || {
    run_why "no room for the data files (DATA_FILE_MB=$DATA_FILE_MB, and 64 MB to spare): $why"
    return 1
  }
  for ((i = 0; i < $1; i++)); do
    fio_needs_file "$i" || continue
    f=$(fio_file "$i")
    log "      creating $f ($DATA_FILE_MB MB, once)"
    child_partial "$f"
    child_start $((DATA_FILE_MB / 5 + 120)) "$RUN_DIR/raw/fio-create.$i.log" \
      fio --name=create --filename="$f" --rw=write --bs=1M --iodepth=8 --direct=1 \
      --ioengine=libaio --size="${DATA_FILE_MB}M" --end_fsync=1 --output-format=json \
      --output="$RUN_DIR/raw/fio-create.$i.json"
    if ! child_wait; then
      child_partial_remove
      return 1
    fi
    child_partial_done
  done
}

# fio_data_file: make sure fio/data.0 of DATA_FILE_MB exists on the share (through the mount
# when there is one, else written into SHARE_DIR on the server); 1 with RUN_WHY on failure.
fio_data_file() {
  run_why "could not create the data file fio/data.0"
  if mount_options_now >/dev/null 2>&1; then
    fio_make_files 1
    return
  fi
  fio_share_file 0
}

# fio_share_file N [SUB]: make sure SUB/data.N (SUB: fio) of DATA_FILE_MB exists, written into
# SHARE_DIR on the server (random bytes, not through smbd); 1 with RUN_WHY on failure.
fio_share_file() {
  local sub=${2:-fio}
  local f=$SHARE_DIR/$sub/data.$1 size why
  run_why "could not create the data file $sub/data.$1"
  child_share_dir fio >/dev/null
  child_share_dir "$sub" >/dev/null
  if [[ -L $f || (-e $f && ! -f $f) ]]; then
    rm -rf --one-file-system -- "$f"
    log "      removed '$f': not a regular file (the kit follows no link in the share)"
  fi
  size=$(stat -c %s "$f" 2>/dev/null) || size=0
  ((size >= DATA_FILE_MB * 1048576)) && return 0
  why=$(common_room "$SHARE_DIR" $((DATA_FILE_MB - size / 1048576 + 64))) || {
    run_why "no room for the data file $sub/data.$1 (DATA_FILE_MB=$DATA_FILE_MB, and 64 MB to spare): $why"
    return 1
  }
  log "      creating $sub/data.$1 ($DATA_FILE_MB MB) in the share folder on this host, not through a cifs mount"
  child_partial "$f"
  child_start $((DATA_FILE_MB / 20 + 60)) "$RUN_DIR/raw/data-create.${sub//\//-}.$1.log" \
    dd if=/dev/urandom of="$f" oflag=nofollow bs=1M count="$DATA_FILE_MB" conv=fsync status=none
  if ! child_wait; then
    child_partial_remove
    return 1
  fi
  child_partial_done
  chown -h --reference="$SHARE_DIR" "$f" 2>/dev/null || true
}

# fio_run NAME ARG...: measure fio job NAME with the options every kit job shares plus ARG; JSON in
# raw/NAME.fio.json, fio's own messages in raw/NAME.fio.log, per-second bandwidth and IOPS of
# each job in raw/NAME_bw.J.log and raw/NAME_iops.J.log (for the charts). The exit status is fio's.
# --lat_percentiles=1: the percentiles are of total latency (lat_ns: submission to completion,
# the guide's "from sending a request until the answer arrives"), the same distribution as the
# mean and max. --continue_on_error=all: a failed request is counted (total_err), not the end.
# smbd's CPU over the jobs' I/O alone (raw/NAME.window-cpu.json, fio_window_cpu): each job runs
# cgcpu as its --exec_prerun (after its file set-up, before its first request) and
# --exec_postrun (after its last), so fio's start, layout and exit are outside the window.
# With client hosts the job runs on each of them instead (chfio_run, lib/run/clienthosts-fio-run.sh).
fio_run() {
  local name=$1 rc=0 cwd=$RUN_DIR/.fio-cwd
  local -a cg win=() opts
  shift
  if clienthosts_on; then
    chfio_run "$name" "$@"
    return
  fi
  mapfile -t opts < <(fio_job_options)
  mapfile -t cg < <(child_cg_args)
  rm -f "$RUN_DIR/raw/$name.cpu-start.jsonl" "$RUN_DIR/raw/$name.cpu-end.jsonl"
  if ((${#cg[@]})) && [[ -x $KIT_ROOT/helpers/cgcpu ]]; then
    # fio runs each through sh as 'STRING > NAME.prerun.txt 2>&1' in its working folder: the
    # braces keep cgcpu's line for the kit; the kit's own folder takes fio's .txt files
    local c
    c=$(printf '%q ' "$KIT_ROOT/helpers/cgcpu" "${cg[@]}")
    # (a prerun that fails ends the job: '|| :')
    win=(--exec_prerun="{ ${c}>>$(printf '%q' "$RUN_DIR/raw/$name.cpu-start.jsonl") || :; }"
    --exec_postrun="{ ${c}>>$(printf '%q' "$RUN_DIR/raw/$name.cpu-end.jsonl") || :; }")
  fi
  mkdir -p "$cwd"
  measure -o .fio.log "$name" $((DURATION * 2 + 120)) -- \
    env -C "$cwd" fio --name="$name" "${opts[@]}" --output-format=json --output="$RUN_DIR/raw/$name.fio.json" \
    --write_bw_log="$RUN_DIR/raw/$name" --write_iops_log="$RUN_DIR/raw/$name" --log_avg_msec=1000 \
    "${win[@]}" "$@" || rc=$?
  rm -rf "$cwd"
  fio_json_only "$RUN_DIR/raw/$name.fio.json"
  fio_window_cpu "$name"
  return "$rc"
}

# fio_job_options: the options every kit fio job shares (fio_run's comment says why), one a line
# as --KEY[=VALUE]; the client hosts' job files (lib/run/clienthosts-fio-run.sh) take them too.
fio_job_options() {
  printf '%s\n' --direct=1 --ioengine=libaio "--size=${DATA_FILE_MB}M" "--runtime=$DURATION" --time_based \
    --group_reporting --lat_percentiles=1 --continue_on_error=all
}

# fio_json_only FILE: drop the lines fio writes into its JSON output before the document (its
# "Saving output of prerun" notice, error lines: fio issues 1304 and 731), so FILE parses.
fio_json_only() {
  local t
  [[ -s $1 ]] && ! jq -e . "$1" >/dev/null 2>&1 || return 0
  t=$(mktemp "$1.XXXXXX") || return 0
  if sed -n '/^{/,$p' "$1" >"$t"; then mv -f "$t" "$1"; else rm -f "$t"; fi
}

# fio_window_cpu NAME: raw/NAME.window-cpu.json from the jobs' cgcpu lines: {available, source,
# jobs, used_us (the last job's end minus the first job's start: the counters only grow)} or
# {available: false, reason}; the .jsonl files are removed.
fio_window_cpu() {
  local a=$RUN_DIR/raw/$1.cpu-start.jsonl b=$RUN_DIR/raw/$1.cpu-end.jsonl
  [[ -e $a || -e $b ]] || return 0
  # shellcheck disable=SC2016 # a jq program
  jq -cn --rawfile a "$a" --rawfile b "$b" '
    def lines($t): [$t | split("\n")[] | fromjson? | select(.ok == true and (.cpu_us | type) == "number")];
    lines($a) as $s | lines($b) as $e
    | if ($s | length) > 0 and ($s | length) == ($e | length) then
        {available: true, source: $s[0].source, jobs: ($s | length),
         used_us: (([$e[].cpu_us] | max) - ([$s[].cpu_us] | min))}
      else {available: false, reason: "cgcpu gave \($s | length) start and \($e | length) end readings of the fio jobs"} end' \
    >"$RUN_DIR/raw/$1.window-cpu.json" 2>/dev/null || rm -f "$RUN_DIR/raw/$1.window-cpu.json"
  rm -f "$a" "$b"
}

# fio_steady_rates: print 'READS WRITES' per second of the steady run: LOAD_RATE split 70/30,
# each at least 1 (fio reads a rate of 0 as no limit); 1 when LOAD_RATE is below 2.
fio_steady_rates() {
  local r w
  ((LOAD_RATE >= 2)) || return 1
  r=$(((LOAD_RATE * 70 + 50) / 100))
  ((r < LOAD_RATE)) || r=$((LOAD_RATE - 1))
  w=$((LOAD_RATE - r))
  echo "$r $w"
}

# fio_drop_caches NAME: with DROP_CACHES=yes, flush and empty the page cache (server side) before
# measurement NAME and record in raw/NAME.drop.json whether it was done: {"done":true} or
# {"done":false,"error":"…"} (the verdicts then say the reads came from the page cache).
# FIO_DROP_CACHES_FILE (tests only) replaces /proc/sys/vm/drop_caches.
fio_drop_caches() {
  local out=$RUN_DIR/raw/$1.drop.json err
  [[ $DROP_CACHES == yes ]] || return 0
  sync
  if err=$( (echo 3 >"${FIO_DROP_CACHES_FILE:-/proc/sys/vm/drop_caches}") 2>&1); then
    echo '{"done":true}' >"$out"
    return 0
  fi
  err=${err##*: }
  warn "could not drop the page cache (${err:-no reason given}): the reads of '$1' may come from it"
  jq -cn --arg e "${err:-no reason given}" '{done: false, error: $e}' >"$out"
}

# fio_steady: the steady run shared by latency and errors, once a run (later calls do nothing):
# fio randrw 70/30, 4 KiB, iodepth 1, Poisson arrivals at LOAD_RATE requests/s,
# --continue_on_error=all; raw/steady.*.
fio_steady() {
  local r w
  ((${FIO_STEADY_DONE:-0})) && return 0
  FIO_STEADY_DONE=1
  if ! read -r r w < <(fio_steady_rates); then
    run_why "setting 'LOAD_RATE' has bad value '$LOAD_RATE': the steady run needs 2 or more requests/s (reads and writes at 1/s at least; fio reads a rate of 0 as no limit)"
    return 1
  fi
  fio_make_files 1 || return 1
  fio_drop_caches steady
  # json+: the latency histogram, for the latency from when each request was due (steady.jq)
  fio_run steady --rw=randrw --rwmixread=70 --bs=4k --iodepth=1 --numjobs=1 \
    --rate_iops="$r,$w" --rate_process=poisson --output-format=json+ \
    --unified_rw_reporting=both --filename="$(fio_file 0)" || true
}

# fio_steady_describe: the progress text of a metric that judges the steady run.
fio_steady_describe() {
  if ((${FIO_STEADY_DONE:-0})); then echo "from the steady run"; else echo "steady run: $LOAD_RATE requests/s for $DURATION s"; fi
}

# fio_steady_estimate: seconds the steady run still needs (0 once it ran).
fio_steady_estimate() {
  if ((${FIO_STEADY_DONE:-0})); then echo 0; else measure_estimate $((DURATION + 1)); fi
}
