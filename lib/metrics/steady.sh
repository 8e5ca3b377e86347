# lib/metrics/steady.sh: the one steady run shared by latency and errors: fio randrw 70/30, 4 KiB,
# iodepth 1, Poisson arrivals at LOAD_RATE requests/s, --continue_on_error=all, with
# /proc/fs/cifs/Stats read before and after. Sourced; functions only.

# steady_cifs_stats FILE: print the counters of the kit's share in FILE (/proc/fs/cifs/Stats)
# as JSON {reads, reads_failed, writes, writes_failed, session_reconnects, share_reconnects},
# parsed by label; null fields when a label is missing.
steady_cifs_stats() {
  local share
  share="\\\\${CLIENT_ADDR}\\${SHARE_NAME}"
  STEADY_SHARE=$share awk '
    function out(v) { return v == "" ? "null" : v }
    BEGIN { share = ENVIRON["STEADY_SHARE"] }
    /[0-9]+ session [0-9]+ share reconnects/ {
      for (i = 1; i <= NF; i++) { if ($(i + 1) == "session") sr = $i; if ($(i + 1) == "share") hr = $i }
    }
    /^[[:space:]]*[0-9]+\) / {
      name = $0; sub(/^[[:space:]]*[0-9]+\) /, "", name); sub(/[[:space:]].*$/, "", name)
      ours = (tolower(name) == tolower(share))
    }
    ours && /^[[:space:]]*Reads: [0-9]+ total [0-9]+ failed/ { r += $2; rf += $4; seen = 1 }
    ours && /^[[:space:]]*Writes: [0-9]+ total [0-9]+ failed/ { w += $2; wf += $4; seen = 1 }
    END {
      if (!seen) { r = ""; rf = ""; w = ""; wf = "" }
      printf "{\"reads\":%s,\"reads_failed\":%s,\"writes\":%s,\"writes_failed\":%s,", out(r), out(rf), out(w), out(wf)
      printf "\"session_reconnects\":%s,\"share_reconnects\":%s}\n", out(sr), out(hr)
    }' "$1" 2>/dev/null || echo '{}'
}

# steady_measure: run the steady load once (later calls do nothing); raw/steady.fio.json,
# raw/steady-cifs.before.json and .after.json.
steady_measure() {
  local r w
  ((STEADY_DONE)) && return 0
  STEADY_DONE=1
  fio_make_files 1 || return 1
  run_drop_caches
  r=$(((LOAD_RATE * 70 + 50) / 100))
  w=$((LOAD_RATE - r))
  steady_cifs_stats /proc/fs/cifs/Stats >"$RUN_DIR/raw/steady-cifs.before.json"
  fio_run steady --rw=randrw --rwmixread=70 --bs=4k --iodepth=1 --numjobs=1 \
    --rate_iops="$r,$w" --rate_process=poisson --continue_on_error=all \
    --unified_rw_reporting=both --filename="$(fio_file 0)" || true
  steady_cifs_stats /proc/fs/cifs/Stats >"$RUN_DIR/raw/steady-cifs.after.json"
}

# steady_summary: print one object with the fio summary and the cifs counter deltas.
steady_summary() {
  local sum
  sum=$(fio_summary "$RUN_DIR/raw/steady.fio.json" 2>/dev/null) || return 1
  jq -cn --argjson s "$sum" --slurpfile a "$RUN_DIR/raw/steady-cifs.before.json" \
    --slurpfile b "$RUN_DIR/raw/steady-cifs.after.json" --argjson rate "$LOAD_RATE" '
    def d($k): if ($a[0][$k] | type) == "number" and ($b[0][$k] | type) == "number" then $b[0][$k] - $a[0][$k] else null end;
    $s + {
      asked_iops: $rate,
      achieved_iops: ($s.read.iops + $s.write.iops),
      requests: ($s.read.ios + $s.write.ios),
      server_failed: (if d("reads_failed") == null then null else d("reads_failed") + d("writes_failed") end),
      reconnects: (if d("session_reconnects") == null then null else d("session_reconnects") + d("share_reconnects") end)
    }'
}

# steady_warnings SUMMARY WHAT: print a JSON array of warnings about the steady run (WHAT: what
# the metric measured, for the wording).
steady_warnings() {
  jq -c --argjson fw "$(fio_warnings "$1" 1)" --arg what "$2" '$fw + [
    (if .achieved_iops < 0.95 * .asked_iops then "the steady run reached only \(.achieved_iops | round) of \(.asked_iops) requests/s (below 95 %): the client side could not keep the rate, so \($what) at a lower load than asked" else empty end),
    (if (.reconnects // 0) > 0 then "the kernel client reconnected \(.reconnects) time(s) during the steady run: the server stopped answering for a while" else empty end)
  ]' <<<"$1"
}

# metric_latency: steady-run p99 of one request (all directions together), ms.
metric_latency() {
  local why sum p99 status
  if why=$(fio_skip_reason); then
    run_skip latency ms "$TARGET_LATENCY_P99_MAX_MS" "<=" "$why"
    return 0
  fi
  steady_measure || return 1
  if ! sum=$(steady_summary); then
    run_result latency FAIL null ms "$TARGET_LATENCY_P99_MAX_MS" "<=" "fio gave no result (see raw/steady.fio.log)"
    return 0
  fi
  p99=$(jq '.mixed.lat_ms.p99 // ([.read.lat_ms.p99, .write.lat_ms.p99] | max)' <<<"$sum")
  status=$(run_judge "$p99" "<=" "$TARGET_LATENCY_P99_MAX_MS")
  why=''
  [[ $status == PASS ]] || why="p99 $(printf '%.2f' "$p99") ms is above $TARGET_LATENCY_P99_MAX_MS ms"
  run_result latency "$status" "$p99" ms "$TARGET_LATENCY_P99_MAX_MS" "<=" "$why" \
    "$(jq -c '{lat_ms: (.mixed.lat_ms // null), read_lat_ms: .read.lat_ms, write_lat_ms: .write.lat_ms,
      asked_iops, achieved_iops, fio_busy_pct: .busy_pct, runtime_s}' <<<"$sum")" \
    "$(steady_warnings "$sum" "the latency was measured")"
}

# metric_errors: failed requests of the steady run, percent (fio errors or server-answered
# errors, whichever is larger); reconnects are shown and warned about.
metric_errors() {
  local why sum pct status
  if why=$(fio_skip_reason); then
    run_skip errors % "$TARGET_ERRORS_MAX_PCT" "<=" "$why"
    return 0
  fi
  steady_measure || return 1
  if ! sum=$(steady_summary); then
    run_result errors FAIL null % "$TARGET_ERRORS_MAX_PCT" "<=" "fio gave no result (see raw/steady.fio.log)"
    return 0
  fi
  if (($(jq '.requests' <<<"$sum") == 0)); then
    run_result errors FAIL null % "$TARGET_ERRORS_MAX_PCT" "<=" "no request completed in the steady run"
    return 0
  fi
  pct=$(jq '([.errors, (.server_failed // 0)] | max) / .requests * 100' <<<"$sum")
  status=$(run_judge "$pct" "<=" "$TARGET_ERRORS_MAX_PCT")
  why=''
  [[ $status == PASS ]] || why=$(jq -r '"\([.errors, (.server_failed // 0)] | max) of \(.requests) requests failed"
    + (if (.reconnects // 0) > 0 then ", \(.reconnects) reconnect(s)" else "" end)' <<<"$sum")
  run_result errors "$status" "$pct" % "$TARGET_ERRORS_MAX_PCT" "<=" "$why" \
    "$(jq -c '{requests, fio_errors: .errors} + (if (.first_error // 0) != 0 then {first_error_code: .first_error} else {} end)
      + {server_failed, reconnects}' <<<"$sum")" \
    "$(steady_warnings "$sum" "the errors were counted")"
}
