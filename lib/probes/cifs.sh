# lib/probes/cifs.sh: evidence probe: the kernel cifs client's counters of the kit's share
# (/proc/fs/cifs/Stats) before and after a measurement. Sourced; functions only.

# probe_cifs_stats FILE: print the counters of the kit's share in FILE as JSON {requests (SMBs
# sent on the share), reads, reads_failed, writes, writes_failed, tree_connects (a reconnect of
# the share sends one more), session_reconnects, share_reconnects (these two for every cifs
# mount of the host: the kernel counts them only in total)}, parsed by label; null fields when a
# label is missing.
probe_cifs_stats() {
  PROBE_CIFS_SHARE="\\\\${CLIENT_ADDR}\\${SHARE_NAME}" awk '
    function out(v) { return v == "" ? "null" : v }
    BEGIN { share = ENVIRON["PROBE_CIFS_SHARE"] }
    /[0-9]+ session [0-9]+ share reconnects/ {
      for (i = 1; i <= NF; i++) { if ($(i + 1) == "session") sr = $i; if ($(i + 1) == "share") hr = $i }
    }
    /^[[:space:]]*[0-9]+\) / {
      name = $0; sub(/^[[:space:]]*[0-9]+\) /, "", name); sub(/[[:space:]].*$/, "", name)
      ours = (tolower(name) == tolower(share))
    }
    ours && /^[[:space:]]*SMBs: [0-9]+/ { smbs += $2; seen_smbs = 1 }
    ours && /^[[:space:]]*TreeConnects: [0-9]+ total/ { tc += $2; seen_tc = 1 }
    ours && /^[[:space:]]*Reads: [0-9]+ total [0-9]+ failed/ { r += $2; rf += $4; seen = 1 }
    ours && /^[[:space:]]*Writes: [0-9]+ total [0-9]+ failed/ { w += $2; wf += $4; seen = 1 }
    END {
      if (!seen) { r = ""; rf = ""; w = ""; wf = "" }
      if (!seen_smbs) smbs = ""
      if (!seen_tc) tc = ""
      printf "{\"requests\":%s,\"reads\":%s,\"reads_failed\":%s,\"writes\":%s,\"writes_failed\":%s,", out(smbs), out(r), out(rf), out(w), out(wf)
      printf "\"tree_connects\":%s,", out(tc)
      printf "\"session_reconnects\":%s,\"share_reconnects\":%s}\n", out(sr), out(hr)
    }' "$1" 2>/dev/null
}

# probe_cifs_before NAME WORK: WORK/before.json.
probe_cifs_before() {
  [[ -r /proc/fs/cifs/Stats ]] || return 0
  probe_cifs_stats /proc/fs/cifs/Stats >"$2/before.json"
}

# probe_cifs_after NAME WORK: WORK/result.json: {available, before, after}.
probe_cifs_after() {
  if [[ ! -r /proc/fs/cifs/Stats || ! -s $2/before.json ]]; then
    echo '{"available":false,"reason":"no kernel cifs client here (no /proc/fs/cifs/Stats)"}' >"$2/result.json"
    return 0
  fi
  printf '{"available":true,"before":%s,"after":%s}\n' "$(<"$2/before.json")" \
    "$(probe_cifs_stats /proc/fs/cifs/Stats)" >"$2/result.json"
}
