# lib/metrics/metadata.sh: the metadata metric: WORKERS clients, own folder each, create
# SMALL_FILE_KB files for DURATION seconds, then delete them (smb-files). Sourced; functions only.
# shellcheck disable=SC2034 # RUN_PARTIAL is read by lib/run.sh

# metric_metadata: files created per second (>= TARGET_METADATA_MIN_FPS).
metric_metadata() {
  local h f=$RUN_DIR/raw/metadata.json dir rate status why='' warnings='[]'
  h=$(run_helper smb-files) || return 1
  dir=$(run_share_dir metadata)
  RUN_PARTIAL=("$dir")
  run_child $((DURATION * 6 + 120)) "$f" \
    "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" -s "$SMALL_FILE_KB" "$KIT_UNC/metadata" || true
  RUN_PARTIAL=()
  rm -rf --one-file-system -- "$dir"
  if ! jq -e '.helper' "$f" >/dev/null 2>&1; then
    run_result metadata FAIL null files/s "$TARGET_METADATA_MIN_FPS" ">=" "smb-files gave no result (see raw/metadata.err)"
    return 0
  fi
  rate=$(jq '.create.rate_per_s // 0' "$f")
  status=$(run_judge "$rate" ">=" "$TARGET_METADATA_MIN_FPS")
  [[ $status == PASS ]] || why="$(printf '%.0f' "$rate") files/s is below $TARGET_METADATA_MIN_FPS"
  if [[ $(jq -r '.ok' "$f") != true ]]; then
    status=FAIL why+="${why:+; }the test failed: $(jq -r '.error // "unknown error"' "$f")"
  fi
  if (($(jq '(.create.errors // 0) + (.delete.errors // 0)' "$f") > 0)); then
    status=FAIL why+="${why:+; }$(jq -r '"\(.create.errors) creates and \(.delete.errors) deletes failed"' "$f")"
  fi
  warnings=$(jq -c --argjson small "$(run_small_host "$WORKERS" && echo true || echo false)" --argjson c "$(nproc)" '[
    (if (.left_behind // 0) > 0 then "\(.left_behind) files could not be deleted (removed by the kit afterwards)" else empty end),
    (if $small then "\(.workers) client processes shared \($c) CPUs with smbd: on so small a machine the clients may be the limit" else empty end)]' "$f")
  run_result metadata "$status" "$rate" files/s "$TARGET_METADATA_MIN_FPS" ">=" "$why" \
    "$(jq -c --argjson kb "$SMALL_FILE_KB" '{workers, file_kb: $kb, create, delete, files_per_folder, left_behind,
      notes: ["Creating a file costs more the bigger its folder is; compare only runs with the same DURATION."]}' "$f")" \
    "$warnings"
}
