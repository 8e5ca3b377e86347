# lib/lock.sh: one lock for start, stop, cleanup and test runs of a kit (per SERVICE_NAME): an
# flock on a file in /run/samba-perf-test, a root-owned folder the kit makes and never removes
# (so cleanup cannot delete the lock under a holder). The holder's pid and command are written
# beside it. Sourced; functions only. Needs lib/common.sh, lib/server/state.sh and the settings.
# shellcheck disable=SC2034 # LOCK_FD is read by lib/run/run.sh and lib/server/service.sh

LOCK_DIR=/run/samba-perf-test
LOCK_WAIT_S=${KIT_LOCK_WAIT_S:-30} # the environment may shorten the wait (tests)

# lock_file: print the path of the kit's lock file.
lock_file() {
  printf '%s/%s.lock\n' "$LOCK_DIR" "$SERVICE_NAME"
}

# lock_holder_kit: print the STATE_DIR of the kit whose command holds the lock (the holder
# file's second line, 'kit STATE_DIR'); empty when it does not say.
lock_holder_kit() {
  local tag='' dir=''
  { read -r _ && read -r tag dir; } <"$(lock_file).holder" 2>/dev/null || true
  [[ $tag == kit ]] && printf '%s\n' "$dir"
  return 0
}

# lock_holder: print 'PID COMMAND' of the lock's holder (from the file beside the lock).
lock_holder() {
  local line=''
  read -r line <"$(lock_file).holder" 2>/dev/null || true
  printf '%s\n' "${line:-unknown}"
}

# lock_holder_is_run PID: true when PID is a live measuring run: libexec/test-samba-run (what
# test-samba.sh execs, same pid), or test-samba.sh itself (a kit from before the commands).
lock_holder_is_run() {
  [[ $1 =~ ^[1-9][0-9]*$ && -r /proc/$1/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qE 'libexec/test-samba-run|test-samba\.sh'
}

# lock_open_by FILE: name the processes but this one that have FILE open ("'fio' (pid 12)").
lock_open_by() {
  local pids p out=''
  pids=$(find /proc/[0-9]*/fd -maxdepth 1 -lname "$1" 2>/dev/null | cut -d/ -f3 | sort -un)
  for p in $pids; do
    [[ $p != "$$" && -r /proc/$p/comm ]] || continue
    out+="${out:+, }'$(cat "/proc/$p/comm" 2>/dev/null)' (pid $p)"
  done
  printf '%s\n' "${out:-an unknown process}"
}

# lock_open FILE: make the kit's lock folder where it is missing (root's, checked), refuse a
# link at FILE or beside it (FILE.holder, FILE.stop), and open FILE for appending on the fd whose
# number goes into LOCK_OPENED.
lock_open() {
  local f
  [[ -d $LOCK_DIR ]] || common_timeout 10 mkdir -m 0755 -p -- "$LOCK_DIR" || die "cannot create '$LOCK_DIR'"
  state_path_safe "$LOCK_DIR" "the kit's lock folder"
  for f in "$1" "$1.holder" "$1.stop"; do
    [[ ! -L $f ]] || die "'$f' is a symlink: refusing to use it"
  done
  exec {LOCK_OPENED}>>"$1" || die "cannot open '$1'"
}

# lock_take WHAT: take the kit's lock for WHAT (start, stop, cleanup, run), held until the
# script exits (fd LOCK_FD). Waits up to LOCK_WAIT_S s, then dies naming the holder. A run
# refuses at once when another run holds it. For stop and cleanup, a test run that holds the
# lock is first stopped (TERM: it writes its partial report and restarts the server), waiting
# at most LOCK_WAIT_S s.
lock_take() {
  local what=$1 file holder pid cmd kit
  [[ $LOCK_WAIT_S =~ ^[1-9][0-9]{0,3}$ ]] || LOCK_WAIT_S=30
  file=$(lock_file)
  lock_open "$file"
  LOCK_FD=$LOCK_OPENED
  if ! flock -n "$LOCK_FD"; then
    holder=$(lock_holder)
    pid=${holder%% *} cmd=${holder#* }
    kit=$(lock_holder_kit)
    if [[ -n $kit && $kit != "$STATE_DIR" ]]; then
      # another kit with the same SERVICE_NAME: its run is not this kit's to stop or wait for
      die "setting 'SERVICE_NAME' has bad value '$SERVICE_NAME': another kit (STATE_DIR '$kit') uses that name and holds its lock ('$cmd', pid $pid): give each kit a SERVICE_NAME of its own"
    elif [[ $what == run && $cmd == run ]]; then
      die "another ./test-samba.sh run is measuring this test server (pid $pid): wait for it to finish"
    elif [[ $what == stop || $what == cleanup ]] && [[ $cmd == run ]] && lock_holder_is_run "$pid"; then
      log "$what: a test run (pid $pid) is measuring this server: stopping it first"
      lock_stop_run "$what" "$pid" "$file" ||
        die "the test run (pid $pid) did not stop within $LOCK_WAIT_S s; try again when it has finished"
    else
      log "waiting up to $LOCK_WAIT_S s for '$cmd' (pid $pid) to release the kit's lock '$file'"
      if ! flock -w "$LOCK_WAIT_S" "$LOCK_FD"; then
        [[ -d /proc/$pid ]] ||
          die "the kit's lock '$file' is still open in $(lock_open_by "$file"), though '$cmd' (pid $pid), which took it, has ended (killed?): stop what holds it, then try again"
        die "the kit is busy: '$cmd' (pid $pid) holds the lock '$file'; try again when it has finished"
      fi
    fi
  fi
  rm -f -- "$file.stop"
  printf '%s %s\nkit %s\n' "$$" "$what" "$STATE_DIR" >"$file.holder"
}

# lock_stop_run WHAT PID FILE: stop the test run PID that holds the lock FILE, for WHAT: name
# WHAT in FILE.stop (the run's partial report says who stopped it), send TERM, and wait at most
# LOCK_WAIT_S s for the lock, sending TERM again every 5 s: bash 5.2 can lose a trapped signal
# (the trap's action fails to parse, "trap: line 2: unexpected EOF while looking for matching
# `)'", when the signal comes while the shell parses a command substitution). 1 when the lock
# did not come.
lock_stop_run() {
  local what=$1 pid=$2 file=$3 waited=0
  [[ ! -L $file.stop ]] || die "'$file.stop' is a symlink: refusing to use it"
  printf '%s %s %s\n' "$pid" "$$" "$what" >"$file.stop"
  while ((waited < LOCK_WAIT_S)); do
    kill -TERM "$pid" 2>/dev/null || true
    flock -w 5 "$LOCK_FD" && return 0
    waited=$((waited + 5))
  done
  return 1
}

# lock_stop_reason: when a stop or cleanup asked this process to stop (lock_stop_run), print
# why: "interrupted: './test-samba.sh cleanup' (pid N) stopped the run"; 1 otherwise.
lock_stop_reason() {
  local run pid what
  read -r run pid what <"$(lock_file).stop" 2>/dev/null || return 1
  [[ $run == "$$" && $pid =~ ^[1-9][0-9]*$ ]] || return 1
  case $what in
    stop) what=./stop-samba.sh ;;
    cleanup) what='./test-samba.sh cleanup' ;;
    *) return 1 ;;
  esac
  printf "interrupted: '%s' (pid %s) stopped the run\n" "$what" "$pid"
}

# lock_take_sweep: the sweep's own lock, beside the kit's (a sweep runs start-samba.sh and
# test runs as children, each taking the kit's lock in turn, so it cannot hold that one while
# they run): LOCK_DIR/SERVICE_NAME.sweep.lock, held until the sweep exits (fd LOCK_SWEEP_FD);
# another sweep of this kit is refused at once, naming its pid.
lock_take_sweep() {
  local file holder
  file=$LOCK_DIR/$SERVICE_NAME.sweep.lock
  lock_open "$file"
  LOCK_SWEEP_FD=$LOCK_OPENED
  if ! flock -n "$LOCK_SWEEP_FD"; then
    { read -r holder _ <"$file.holder"; } 2>/dev/null || holder=unknown
    die "another sweep (pid $holder) is running on this test server: wait for it to finish"
  fi
  printf '%s sweep\n' "$$" >"$file.holder"
}

# lock_release: let go of the lock (the end of the script does it too).
lock_release() {
  if [[ -n ${LOCK_FD:-} ]]; then
    exec {LOCK_FD}>&-
    LOCK_FD=''
  fi
}
