# lib/metrics/metadata.sh: the metadata metric: WORKERS clients, own folder each, create
# SMALL_FILE_KB files for DURATION seconds, then delete them (smb-files). Sourced; functions only.
# Verdict: lib/metrics/metadata.jq.

metadata_describe() { echo "$WORKERS clients creating ${SMALL_FILE_KB} KiB files for $DURATION s, then deleting them"; }
metadata_estimate() { measure_estimate $((DURATION + DURATION / 3 + 1)); }
metadata_needs() { :; }

metadata_measure() {
  local h dir
  h=$(child_helper smb-files) || return 1
  dir=$(child_share_dir metadata)
  child_partial "$dir"
  measure metadata $((DURATION * 6 + 120)) -- \
    "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" -s "$SMALL_FILE_KB" "$KIT_UNC/metadata" || true
  child_partial_remove
}
