# lib/metrics/concurrency.sh: the concurrency metric: steps of CONCURRENCY_LEVELS clients, own
# connection each, 4 KiB random reads one at a time on fio/data.0 (smb-readers); with client hosts
# (lib/run/clienthosts.sh) each step's clients are split over the hosts, all at once.
# Sourced; functions only. Verdict: lib/metrics/concurrency.jq.

concurrency_describe() {
  local on=''
  if clienthosts_on; then on=" split over $(wc -w <<<"$CLIENT_HOSTS") client hosts"; fi
  echo "steps of $(echo "$CONCURRENCY_LEVELS" | tr -s ' ' ',') clients$on, $DURATION s each"
}
concurrency_needs() { echo datafile; }

concurrency_estimate() {
  local n=0 l
  for l in $CONCURRENCY_LEVELS; do n=$((n + $(measure_estimate $((DURATION + 1 + l / 40))))); done
  [[ -e $SHARE_DIR/fio/data.0 ]] || n=$((n + DATA_FILE_MB / 200))
  echo "$n"
}

# concurrency_measure: one measurement per step (raw/concurrency.N.*); a step where clients could
# not even connect ends the steps (larger ones are pointless).
concurrency_measure() {
  local h level line base
  local -a cpu
  if clienthosts_on; then
    clienthosts_ready || return 1
  else
    h=$(child_helper smb-readers) || return 1
    mapfile -t cpu < <(child_cg_args)
  fi
  fio_drop_caches concurrency
  child_smbd_settle "$RUN_DIR/raw/concurrency.base.settle.json" 15 || true
  base=$(jq -r '.smbd_processes' "$RUN_DIR/raw/concurrency.base.settle.json" 2>/dev/null) || base=''
  [[ $base =~ ^[0-9]+$ ]] || base=$(child_smbd_count)
  for level in $CONCURRENCY_LEVELS; do
    # the step before's clients must have left (smbd processes back to the count before the
    # first step), or its disconnects land in this step's CPU window
    child_smbd_settle "$RUN_DIR/raw/concurrency.$level.settle.json" 15 "$base" || true
    if clienthosts_on; then
      clienthosts_measure --split "$level" "concurrency.$level" $((DURATION * 3 + 60 + level / 4)) \
        smb-readers -c @SPLIT@ -d "$DURATION" -b 4096 "$(clienthosts_unc)/fio/data.0"
    else
      measure "concurrency.$level" $((DURATION * 3 + 60 + level / 4)) -- \
        "$h" -A "$KIT_CREDENTIALS" -c "$level" -d "$DURATION" -b 4096 "${cpu[@]}" "$KIT_UNC/fio/data.0" || true
    fi
    line=$(results_jq concurrency "step_line($level)" "concurrency.$level") || line="stop"
    log "      step of $level client$( ((level == 1)) || printf s): ${line#*$'\t'}"
    [[ ${line%%$'\t'*} == go ]] || break
  done
}
