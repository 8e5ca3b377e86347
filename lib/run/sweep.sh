# lib/run/sweep.sh: 'test-samba.sh sweep': the same metrics over several variants of the settings,
# one comparison of them all. Sourced; functions only.
#
# A variant is a set of settings overrides, 'KEY=VALUE ...' (quotes as in the shell, read as
# data: nothing is expanded or run). For each variant in turn the test server is restarted the
# way the user applies a settings change (./start-samba.sh with the overrides in its
# environment, on top of the Samba settings the server was started with: sweep_base), then
# ./test-samba.sh measures the metrics (with REPEAT repeats) into a run folder that moves into
# the sweep folder RESULTS_DIR/sweep-<ts>/. Then ./start-samba.sh runs once more without the
# overrides: the server is back as it ran before the sweep, also when the sweep is interrupted
# or fails (one EXIT trap). Last, lib/report/compare.sh compares the variants' runs, the first as the
# reference.

# sweep_words TEXT: print TEXT's words one a line, split at blanks outside quotes, with shell
# quoting ('...', "...", \x) removed and nothing expanded; a word starting with an unquoted '#'
# ends the text (a comment). 1 with a message on stderr for an unclosed quote or a new line
# inside a word.
sweep_words() {
  local s=$1 c w='' have=0 i=0 n=${#1} q=''
  while ((i < n)); do
    c=${s:i:1}
    if [[ -n $q ]]; then
      if [[ $c == "$q" ]]; then
        q=''
      elif [[ $q == '"' && $c == \\ && ${s:i+1:1} == [\\\"\$\`] ]]; then
        w+=${s:i+1:1}
        ((i += 1))
      else
        w+=$c
      fi
    else
      case $c in
        ' ' | $'\t')
          ((have == 0)) || printf '%s\0' "$w"
          w='' have=0
          ;;
        "'" | '"')
          q=$c have=1
          ;;
        \\)
          w+=${s:i+1:1} have=1
          ((i += 1))
          ;;
        '#')
          if ((have == 0)); then break; fi
          w+=$c
          ;;
        *)
          w+=$c have=1
          ;;
      esac
    fi
    ((i += 1))
  done
  if [[ -n $q ]]; then
    error "unclosed $q quote in '$s'"
    return 1
  fi
  ((have == 0)) || printf '%s\0' "$w"
}

# sweep_refused KEY: print why KEY cannot vary in a sweep (nothing, 1 when it can).
sweep_refused() {
  case $1 in
    TEST_PORT | SERVER_ADDR | CLIENT_ADDR | SERVICE_NAME | SHARE_NAME | SHARE_DIR | MOUNT_POINT | \
      CONF_DIR | LOG_DIR | STATE_DIR | TEST_USER | NFT_TABLE | RESULTS_DIR | INSTALL_PACKAGES)
      echo "it names the test server itself (a sweep varies how the server runs, not which one)"
      ;;
    REPEAT) echo "the repeats are the sweep's own (use -r N)" ;;
    *) return 1 ;;
  esac
}

# sweep_check_variant NUMBER TEXT: check one variant before anything changes; exit 2 naming the
# variant and the key when a key is unknown or refused or a value is bad; print its
# KEY=VALUE words NUL-separated.
sweep_check_variant() {
  local i=$1 text=$2 word key why err
  local -a words=()
  mapfile -d '' -t words < <(sweep_words "$text") || true
  sweep_words "$text" >/dev/null 2>&1 || sweep_bad "variant $i ('$text'): $(sweep_words "$text" 2>&1 >/dev/null | sed 's/^error: //')"
  ((${#words[@]} > 0)) || sweep_bad "variant $i is empty"
  for word in "${words[@]}"; do
    [[ $word =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || sweep_bad "variant $i: '$word' is not KEY=VALUE"
    key=${BASH_REMATCH[1]}
    grep -qxF -- "$key" < <(settings_keys) || sweep_bad "variant $i: unknown setting '$key'"
    if why=$(sweep_refused "$key"); then sweep_bad "variant $i: setting '$key' cannot vary in a sweep: $why"; fi
  done
  # the values: the settings as they would load for this variant (on top of the server's own,
  # SWEEP_BASE, as start-samba.sh will get them), in a subshell
  err=$( (
    for word in "${SWEEP_BASE[@]}" "${words[@]}"; do export "${word?}"; done
    settings_load "$KIT_ROOT"
  ) 2>&1 >/dev/null) || sweep_bad "variant $i: ${err#error: }"
  printf '%s\0' "${words[@]}"
}

# sweep_bad MSG: a bad sweep input: one line on stderr, exit 2, nothing changed.
sweep_bad() {
  bad "sweep: $*"
}

# sweep_read_file FILE: append FILE's variants (one a line, blank and comment lines skipped)
# to SWEEP_VARIANTS.
sweep_read_file() {
  local line words
  [[ -f $1 && -r $1 ]] || sweep_bad "cannot read the variants file '$1'"
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%$'\r'}
    words=$(sweep_words "$line" 2>/dev/null | tr '\0' ' ') || words=x
    [[ -n $words ]] || continue
    SWEEP_VARIANTS+=("$line")
  done <"$1"
}

# sweep_slug TEXT: a folder name part from a variant: KEY=VALUE words, other characters as '_'.
sweep_slug() {
  local s
  s=$(printf '%s' "$1" | tr -s ' \t' '+' | tr -c 'A-Za-z0-9=+._-' '_')
  printf '%s\n' "${s:0:60}"
}

# sweep_child CMD...: run CMD in the background and wait for it (a signal to the sweep then
# runs its trap at once); return CMD's status.
sweep_child() {
  local rc=0
  # without the sweep's lock: a test server started by the child must not hold it
  (
    if [[ -n ${LOCK_SWEEP_FD:-} ]]; then exec {LOCK_SWEEP_FD}>&-; fi
    common_close_saved_fds
    exec "$@"
  ) &
  SWEEP_CHILD=$!
  wait "$SWEEP_CHILD" || rc=$?
  SWEEP_CHILD=''
  return "$rc"
}

# sweep_stop_child: stop a running child (TERM: test-samba.sh writes its partial report), TERM
# again every 5 s (bash 5.2 can lose a trapped signal: lib/lock.sh, lock_stop_run), KILL after
# 60 s.
sweep_stop_child() {
  local i
  [[ -n ${SWEEP_CHILD:-} ]] || return 0
  for ((i = 0; i < 600; i++)); do
    if ((i % 50 == 0)); then kill -TERM "$SWEEP_CHILD" 2>/dev/null || true; fi
    kill -0 "$SWEEP_CHILD" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$SWEEP_CHILD" 2>/dev/null || true
  wait "$SWEEP_CHILD" 2>/dev/null || true
  SWEEP_CHILD=''
}

# sweep_base: set SWEEP_BASE to the NAME=VALUE words that start the test server as it runs now
# (read from the state start-samba.sh recorded, as data): each Samba setting start-samba.sh took
# from its environment (KIT_SAMBA_SETTINGS_ENV, with its value from KIT_SAMBA_SETTINGS), and
# the Samba parameters under test it applied (KIT_SAMBA_PARAMS) where they differ from the
# settings. Every variant starts from these, and sweep_restore starts the server with them.
sweep_base() {
  local kv key v
  SWEEP_BASE=()
  for kv in ${KIT_SAMBA_SETTINGS:-}; do
    key=${kv%%=*}
    [[ " ${KIT_SAMBA_SETTINGS_ENV:-} " != *" $key "* ]] || SWEEP_BASE+=("$kv")
  done
  while IFS= read -r kv; do
    key=${kv%%=*} v=${kv#*=}
    [[ $v == "${!key}" ]] || SWEEP_BASE+=("$kv")
  done < <(serverconf_applied_params)
}

# sweep_restore: restart the test server as it ran before the sweep (start-samba.sh with
# SWEEP_BASE); warn when its smb.conf differs from the one before the sweep.
sweep_restore() {
  ((${SWEEP_CHANGED:-0})) || return 0
  log "sweep: restoring the test server's settings (./start-samba.sh without the variant${SWEEP_BASE[*]:+, with ${SWEEP_BASE[*]}})"
  if sweep_child env "${SWEEP_BASE[@]}" "$KIT_ROOT/start-samba.sh" >>"$SWEEP_DIR/sweep.log" 2>&1; then
    SWEEP_CHANGED=0
    if [[ -f $SWEEP_DIR/.smb.conf.before ]] && ! cmp -s "$SWEEP_DIR/.smb.conf.before" "$KIT_CONF"; then
      warn "the test server's smb.conf now differs from the one before the sweep (was it started with other settings in the environment?): see $SWEEP_DIR/sweep.log"
    fi
    rm -f "$SWEEP_DIR/.smb.conf.before"
  else
    warn "could not restore the test server's settings: run ./start-samba.sh (see $SWEEP_DIR/sweep.log)"
  fi
}

# sweep_exit STATUS: the exit hook of a sweep (common_traps_init): stop a running child,
# restore the server's settings; the status stays (128+n after a signal).
sweep_exit() {
  local rc=$1
  [[ -z ${COMMON_SIGNAL:-} ]] || SWEEP_STOP_WHY="interrupted by the user ($COMMON_SIGNAL)"
  if [[ -n ${SWEEP_CHILD:-} ]]; then
    warn "sweep: ${SWEEP_STOP_WHY:-stopped (exit status $rc)}: stopping the running step"
    sweep_stop_child
  fi
  sweep_keep_run || true
  sweep_restore
  if [[ -n ${SWEEP_STOP_WHY:-} && -n ${SWEEP_DIR:-} ]]; then
    echo "$SWEEP_STOP_WHY" >"$SWEEP_DIR/INCOMPLETE"
    log "sweep: stopped; the runs measured so far are in ${SWEEP_DIR#"$KIT_ROOT"/}/"
  fi
  exit "$rc"
}

# sweep_keep_run: move the run the current variant made (finished or not) into the sweep folder
# as N-SLUG; print its path. 1 when it made none.
sweep_keep_run() {
  local run
  [[ -n ${SWEEP_RUN_NAME:-} ]] || return 1
  run=$(sweep_new_run "$SWEEP_BEFORE") || return 1
  mv -- "$RESULTS_DIR/$run" "$SWEEP_DIR/$SWEEP_RUN_NAME" || return 1
  printf '%s\n' "$SWEEP_DIR/$SWEEP_RUN_NAME"
}

# sweep_new_run BEFORE: print the run folder in RESULTS_DIR that is not in the list BEFORE.
sweep_new_run() {
  local d
  while IFS= read -r d; do
    grep -qxF -- "$d" <<<"$1" || {
      printf '%s\n' "$d"
      return 0
    }
  done < <(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-[0-9]*' -printf '%f\n' 2>/dev/null | sort)
  return 1
}

# sweep_run FILE METRIC...: the sweep of SWEEP_VARIANTS (and FILE's, unless FILE is ''), with
# REPEAT repeats, over METRIC... (none: all); see the file header and libexec/test-samba-sweep.
sweep_run() {
  local file=$1 i run rc text
  local -a metrics=("${@:2}") words runs=()
  [[ -z $file ]] || sweep_read_file "$file"
  ((${#SWEEP_VARIANTS[@]} >= 2)) || sweep_bad "needs at least two variants (--variant 'KEY=VALUE' or -f FILE; see 'test-samba.sh sweep -h')"
  ((${#SWEEP_VARIANTS[@]} <= 26)) || sweep_bad "takes at most 26 variants (compare labels them A-Z)"
  run_parse_args "${metrics[@]}"
  settings_load "$KIT_ROOT"
  SWEEP_BASE=()
  if state_load 2>/dev/null; then sweep_base; fi
  for ((i = 0; i < ${#SWEEP_VARIANTS[@]}; i++)); do
    sweep_check_variant $((i + 1)) "${SWEEP_VARIANTS[i]}" >/dev/null
  done
  common_require_root
  run_require_running
  lock_take_sweep
  SWEEP_DIR=$(results_new_dir sweep-) || exit 1
  printf '%s\n' "${SWEEP_VARIANTS[@]}" >"$SWEEP_DIR/variants.txt"
  cp -f "$KIT_CONF" "$SWEEP_DIR/.smb.conf.before" 2>/dev/null || true
  SWEEP_CHANGED=0 SWEEP_CHILD='' SWEEP_RC=0 SWEEP_RUN_NAME='' SWEEP_BEFORE=''
  # the traps may fire inside a step's redirection into sweep.log (a Ctrl-C while a variant's
  # start-samba.sh runs): keep the real stdout and stderr for what they say
  common_traps_init sweep_exit --keep-fds
  log "sweep: ${#SWEEP_VARIANTS[@]} variants of ${RUN_METRICS[*]}, REPEAT=$REPEAT; folder ${SWEEP_DIR#"$KIT_ROOT"/}/"
  ((${#SWEEP_BASE[@]} == 0)) ||
    log "sweep: the test server was started with ${SWEEP_BASE[*]}: each variant starts from that, and it is restored at the end"
  ((REPEAT >= 2)) || warn "sweep: with 1 repeat per variant compare cannot judge any difference (it needs 2): use -r 3 (the default) or more"
  for ((i = 0; i < ${#SWEEP_VARIANTS[@]}; i++)); do
    text=${SWEEP_VARIANTS[i]}
    mapfile -d '' -t words < <(sweep_check_variant $((i + 1)) "$text")
    log ""
    log "${C_BOLD}sweep: variant $((i + 1)) of ${#SWEEP_VARIANTS[@]}: ${words[*]}${C_OFF}"
    SWEEP_CHANGED=1
    if ! sweep_child env "${SWEEP_BASE[@]}" "${words[@]}" "$KIT_ROOT/start-samba.sh" >>"$SWEEP_DIR/sweep.log" 2>&1; then
      warn "sweep: variant $((i + 1)) could not be applied (./start-samba.sh failed, see ${SWEEP_DIR#"$KIT_ROOT"/}/sweep.log): skipped"
      SWEEP_RC=1
      continue
    fi
    SWEEP_BEFORE=$(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort)
    SWEEP_RUN_NAME=$((i + 1))-$(sweep_slug "${words[*]}")
    rc=0
    sweep_child env "${SWEEP_BASE[@]}" "${words[@]}" REPEAT="$REPEAT" "$KIT_ROOT/test-samba.sh" "${RUN_METRICS[@]}" || rc=$?
    run=$(sweep_keep_run) || run=''
    SWEEP_RUN_NAME=''
    if [[ -z $run ]]; then
      warn "sweep: variant $((i + 1)) made no run folder (exit status $rc): skipped"
      SWEEP_RC=1
      continue
    fi
    runs+=("$run")
    if [[ -e $run/INCOMPLETE ]]; then
      warn "sweep: the run of variant $((i + 1)) is incomplete: left out of the comparison"
      unset 'runs[-1]'
      SWEEP_RC=1
    fi
  done
  log ""
  sweep_restore
  if ((${#runs[@]} < 2)); then
    warn "sweep: fewer than two variants were measured: no comparison"
    SWEEP_RC=1
    return 1
  fi
  rc=0
  compare_write 95 '' "$SWEEP_DIR" "${runs[@]}" || rc=$?
  ((rc == 0)) || SWEEP_RC=1
  log "sweep: done: ${SWEEP_DIR#"$KIT_ROOT"/}/compare.md"
  return "$SWEEP_RC"
}
