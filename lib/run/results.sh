# lib/run/results.sh: a run's results folder: make it, judge a metric (its verdict program on its raw
# files) into metrics/NAME.json with its progress line, write results.json and report.md at the
# end. Sourced; functions only.

# results_prepare: make RESULTS_DIR/<ts>/ with raw/, metrics/, INCOMPLETE, settings.env (the
# Samba settings as the running server has them), smb.conf (the test server's, for people: compare
# reads the parameters testparm read, in system.json; it holds no secret) and system.json; set
# RUN_DIR.
results_prepare() {
  RUN_DIR=$(results_new_dir '') || exit 1
  mkdir -- "$RUN_DIR/raw" "$RUN_DIR/metrics"
  echo "the run has not finished" >"$RUN_DIR/INCOMPLETE"
  # the Samba settings are the running server's, not this script's (lib/server/serverconf.sh)
  serverconf_adopt
  settings_dump >"$RUN_DIR/settings.env"
  if [[ -f $KIT_CONF ]]; then cp "$KIT_CONF" "$RUN_DIR/smb.conf"; fi
  system_record
}

# results_dir_ready: make RESULTS_DIR where it is missing and die, naming the setting and the
# folder, unless it and every folder above it are root's or the kit's owner's (root runs their
# code already) and writable by no one else (a sticky folder such as /tmp is fine above it):
# another user could otherwise swap a run folder for a link and have root write through it.
results_dir_ready() {
  local owner
  owner=$(common_timeout 5 stat -c %u -- "$KIT_ROOT") || die "cannot stat '$KIT_ROOT'"
  if [[ ! -e $RESULTS_DIR && ! -L $RESULTS_DIR ]]; then
    state_path_safe "${RESULTS_DIR%/*}" "the folder of setting 'RESULTS_DIR'" above "$owner"
    common_timeout 10 mkdir -p -m 0755 -- "$RESULTS_DIR" || die "cannot create '$RESULTS_DIR' (setting 'RESULTS_DIR')"
  fi
  [[ -d $RESULTS_DIR && ! -L $RESULTS_DIR ]] || die "setting 'RESULTS_DIR' names '$RESULTS_DIR', which is not a folder"
  state_path_safe "$RESULTS_DIR" "setting 'RESULTS_DIR'" '' "$owner"
}

# results_new_dir PREFIX: make a new folder RESULTS_DIR/PREFIX<YYYYmmdd-HHMMSS> (root's, 0755)
# and print its path; never one that exists already, nor through a link (mkdir, not mkdir -p).
results_new_dir() {
  local d n
  results_dir_ready
  for n in {1..10}; do
    d=$RESULTS_DIR/$1$(date +%Y%m%d-%H%M%S)
    mkdir -m 0755 -- "$d" 2>/dev/null && printf '%s\n' "$d" && return 0
    ((n < 10)) && sleep 1
  done
  die "cannot create a new folder in '$RESULTS_DIR' (setting 'RESULTS_DIR')"
}

# results_jq [JQ_OPTION...] METRIC PROGRAM [MEASUREMENT...]: run the jq PROGRAM with
# lib/metrics/METRIC.jq, lib/run/verdict.jq and lib/format.jq included, the raw files of the
# MEASUREMENTs as $ARGS.named "raw:FILE" (raw_files reads them; their fio logs "log:FILE",
# log_files) and the settings as its
# environment. Globals: $metric, $skip, $error, $cpus, $elapsed (RESULTS_SKIP, RESULTS_ERROR,
# RESULTS_ELAPSED). Prints jq's raw output.
results_jq() {
  local -a opts=() files=() env=()
  local m f meas key
  while [[ $1 == -* ]]; do
    opts+=("$1")
    shift
  done
  m=$1
  shift
  local program=$1
  shift
  for key in $(settings_keys) KIT_CGROUP_SOURCE; do env+=("$key=${!key:-}"); done
  for meas in "$@"; do
    for f in "$RUN_DIR/raw/$meas.json" "$RUN_DIR/raw/$meas".*.json; do
      [[ -f $f ]] && files+=(--rawfile "raw:${f##*/}" "$f")
    done
    # fio's per-second logs (NAME_bw.J.log, NAME_iops.J.log) for the rate-over-time chart
    for f in "$RUN_DIR/raw/${meas}"_*.log; do
      [[ -f $f ]] && files+=(--rawfile "log:${f##*/}" "$f")
    done
  done
  env "${env[@]}" jq -rn "${opts[@]}" -L "$KIT_ROOT/lib" --arg metric "$m" --arg skip "${RESULTS_SKIP:-}" \
    --arg error "${RESULTS_ERROR:-}" --argjson cpus "${RUN_CPUS:-$(nproc)}" \
    --argjson elapsed "${RESULTS_ELAPSED:-null}" "${files[@]}" \
    "include \"run/verdict\"; include \"format\"; include \"metrics/$m\"; raw_files | $program"
}

# results_status_colour STATUS: print STATUS (PASS, FAIL, SKIP, measured) in its colour for a progress line.
results_status_colour() {
  case $1 in
    PASS) printf '%s\n' "$C_GREEN$1$C_OFF" ;;
    measured) printf '%s\n' "$1" ;;
    FAIL) printf '%s\n' "$C_RED$1$C_OFF" ;;
    *) printf '%s\n' "$C_YELLOW$1$C_OFF" ;;
  esac
}

# results_verdict METRIC SKIP ERROR ELAPSED_S: judge METRIC (SKIP: why it could not run; ERROR:
# why its measurement failed; both may be empty) into metrics/ROW.json for each row it gives, and
# log each row's progress line. 1 when the verdict program failed.
results_verdict() {
  local m=$1 name status text json lines
  local -a inputs
  mapfile -t inputs < <(registry_inputs "$m" | tr ' ' '\n')
  lines=$(RESULTS_SKIP=$2 RESULTS_ERROR=$3 RESULTS_ELAPSED=$4 results_jq "$m" \
    'verdict | "\(.metric)\t\(progress_line)\t\(tojson)"' "${inputs[@]}") || {
    warn "metric '$m' produced no valid result (its verdict lib/metrics/$m.jq failed)"
    return 1
  }
  while IFS=$'\t' read -r name status text json; do
    [[ $name == "$m" || " $(registry_rows | tr '\n' ' ') " == *" $name "* ]] ||
      warn "metric '$m' wrote a row '$name' that lib/metrics/list does not name"
    printf '%s\n' "$json" >"$RUN_DIR/metrics/$name.json"
    log "      $name: $(results_status_colour "$status") $text"
  done <<<"$lines"
}

# results_finish: record the end in system.json, write results.json and report.md.
results_finish() {
  local tmp
  tmp=$(mktemp "$RUN_DIR/.system.XXXXXX")
  jq --arg fin "$(date -u +%FT%TZ)" --argjson wall "$((SECONDS - RUN_T0))" \
    '.run.finished_at = $fin | .run.wall_s = $wall' "$RUN_DIR/system.json" >"$tmp" &&
    common_publish "$tmp" "$RUN_DIR/system.json"
  rm -f "$tmp"
  report_write "$RUN_DIR"
}
