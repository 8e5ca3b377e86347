# lib/metrics/metadata.sh: the metadata metric: WORKERS clients, own folder each, create
# SMALL_FILE_KB files for DURATION seconds, then delete them (smb-files); with client hosts
# (lib/run/clienthosts.sh) WORKERS clients on each host, all hosts at once, each host in a folder of
# its own (metadata/TAG). Sourced; functions only. Verdict: lib/metrics/metadata.jq.

metadata_describe() {
  local on=''
  if clienthosts_on; then on=" on each of $(wc -w <<<"$CLIENT_HOSTS") client hosts"; fi
  echo "$WORKERS clients$on creating ${SMALL_FILE_KB} KiB files for $DURATION s, then deleting them"
}
metadata_estimate() { measure_estimate $((DURATION + DURATION / 3 + 1)); }
metadata_needs() { :; }

metadata_measure() {
  local h dir pair rc=0
  if clienthosts_on; then
    dir=$(child_share_dir metadata)
    child_partial "$dir"
    for pair in ${KIT_CLIENT_DIRS:-}; do child_share_dir "metadata/$(clienthosts_tag "${pair%%=*}")" >/dev/null; done
    clienthosts_measure metadata $((DURATION * 6 + 120)) smb-files -w "$WORKERS" -d "$DURATION" -s "$SMALL_FILE_KB" \
      "$(clienthosts_unc)/metadata/@HOST@" || rc=$?
    child_partial_remove
    return "$rc"
  fi
  h=$(child_helper smb-files) || return 1
  dir=$(child_share_dir metadata)
  child_partial "$dir"
  measure metadata $((DURATION * 6 + 120)) -- \
    "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" -s "$SMALL_FILE_KB" "$KIT_UNC/metadata" || true
  child_partial_remove
}
