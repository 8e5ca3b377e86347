# lib/run/child.sh: the run's child processes (one measuring command at a time, or smb-hold holding
# connections) and the files a stopped child would leave half-written. Every way out of a run
# goes through child_stop_all. Sourced; functions only.

# child_init: no child yet, nothing half-written.
child_init() {
  CHILD_PID='' CHILD_ERR='' CHILD_HOLD_FD='' CHILD_PARTIAL=()
}

# child_helper NAME: print the path of helper NAME; 1 with a message (and RUN_WHY) when missing.
child_helper() {
  local h=$KIT_ROOT/helpers/$1
  if [[ -x $h ]]; then
    printf '%s\n' "$h"
    return 0
  fi
  RUN_WHY="helper '$1' is not built: run 'make -C helpers' (or ./start-samba.sh)"
  printf '%s\n' "$RUN_WHY" >&2
  return 1
}

# child_client_cmd VAR HELPER: set the array VAR to the command that runs HELPER, with the test
# user's credentials, where the metrics of one client run (this machine, or with CLIENT_HOSTS
# the first client host), and CHILD_SERVER to the server's address:port as that client reaches
# it (CLIENT_ADDR:445, the redirect's, or CLIENT_HOSTS_SERVER_ADDR:445). 1 (RUN_WHY) when the
# helper is not there.
# shellcheck disable=SC2034 # CHILD_SERVER is read by the caller (the metrics of one client)
child_client_cmd() {
  local -n _cc=$1
  if clienthosts_on; then
    clienthosts_helper_cmd _cc "$2" || return 1
    CHILD_SERVER=$CLIENT_HOSTS_SERVER_ADDR:445
  else
    _cc=("$(child_helper "$2")") || return 1
    _cc+=(-A "$KIT_CREDENTIALS")
    CHILD_SERVER=$CLIENT_ADDR:445
  fi
}

# child_cg_args: print the cgcpu/pss-sum target options for the service (one word a line): -g
# its cgroup, else -p its main pid; nothing when it has neither (the helpers then say why). The
# load helpers take the same options to read the service's CPU over their window (server_cpu).
child_cg_args() {
  local pid
  if [[ ${KIT_CGROUP_SOURCE:-proc} != proc && -n ${KIT_CGROUP:-} && -d $KIT_CGROUP ]]; then
    printf '%s\n' -g "$KIT_CGROUP"
  elif pid=$(service_main_pid 2>/dev/null) && [[ -n $pid ]]; then
    printf '%s\n' -p "$pid"
  fi
  return 0
}

# child_share_dir SUB: make SHARE_DIR/SUB owned like SHARE_DIR (a test folder); print its path.
# A symlink or file of that name is removed first (never followed: root would chown its target).
child_share_dir() {
  local d=$SHARE_DIR/$1
  if [[ -L $d || (-e $d && ! -d $d) ]]; then
    rm -f -- "$d"
    log "      removed '$d': not a folder (the kit follows no link in the share)"
  fi
  mkdir -p "$d"
  chown -h --reference="$SHARE_DIR" "$d" 2>/dev/null || true
  printf '%s\n' "$d"
}

# child_partial PATH...: PATH is being written: remove it if the run stops now.
child_partial() {
  CHILD_PARTIAL+=("$@")
}

# child_partial_done: the marked files are complete: keep them.
child_partial_done() {
  CHILD_PARTIAL=()
}

# child_partial_remove: remove the marked files (a stopped or finished test's leftovers).
child_partial_remove() {
  local f
  for f in "${CHILD_PARTIAL[@]}"; do
    if [[ -n $f ]]; then rm -rf --one-file-system -- "$f" 2>/dev/null || true; fi
  done
  CHILD_PARTIAL=()
}

# child_close_lock: in a child, before it execs: close the kit's lock (lib/lock.sh) and the
# run's kept stdout and stderr (common_traps_init --keep-fds). A helper that kept the lock would
# hold it after a killed run (SIGKILL runs no trap), until its time limit: every later start,
# stop and cleanup would wait for it and give up.
child_close_lock() {
  common_close_saved_fds
  if [[ -n ${LOCK_FD:-} ]]; then exec {LOCK_FD}>&-; fi
  if [[ -n ${RUN_LOCK_FD:-} ]]; then exec {RUN_LOCK_FD}>&-; fi
  if [[ -n ${LOCK_SWEEP_FD:-} ]]; then exec {LOCK_SWEEP_FD}>&-; fi
}

# child_start [-e FUNC] [-2 ERR] LIMIT_S OUT CMD...: start CMD in the background under timeout
# (its own process group), stdout to OUT, stderr appended to ERR (default: OUT without its
# extension + .err), stdin /dev/null; FUNC runs in the child just before CMD. Sets CHILD_PID.
child_start() {
  local enter=: err=''
  if [[ $1 == -e ]]; then
    enter=$2
    shift 2
  fi
  if [[ $1 == -2 ]]; then
    err=$2
    shift 2
  fi
  local limit=$1 out=$2
  shift 2
  CHILD_ERR=${err:-${out%.*}.err}
  (
    child_close_lock
    "$enter"
    exec timeout -k 5 "$limit" "$@"
  ) >"$out" 2>>"$CHILD_ERR" </dev/null &
  CHILD_PID=$!
}

# child_wait: wait for the child; return its exit status (124: its time limit); drop an empty
# .err file.
child_wait() {
  local rc=0
  [[ -n ${CHILD_PID:-} ]] || return 0
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=''
  if [[ -n ${CHILD_ERR:-} && ! -s $CHILD_ERR ]]; then rm -f "$CHILD_ERR"; fi
  return "$rc"
}

# child_running: true while the child runs.
child_running() {
  [[ -n ${CHILD_PID:-} ]] && kill -0 "$CHILD_PID" 2>/dev/null
}

# child_stop: end the running child (timeout forwards TERM to its process group); after 10 s,
# KILL the group; reap it.
child_stop() {
  local pid=${CHILD_PID:-} i
  [[ -n $pid ]] || return 0
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    # timeout leads its own process group: take the whole group down
    kill -0 "$pid" 2>/dev/null && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; }
  fi
  child_wait 2>/dev/null || true
}

# child_hold_start LIMIT_S CONNECTIONS OUT [CMD...]: start smb-hold on the share's memory-test
# folder in the background, its stdin a pipe this shell keeps open (closing it lets the helper
# go); 1 when the helper is missing. With CMD, that command instead, which holds the same way
# (the client hosts' fan-out, lib/metrics/memory.sh; CONNECTIONS is then in CMD).
child_hold_start() {
  local h fifo limit=$1 n=$2 out=$3
  shift 3
  if (($# == 0)); then
    h=$(child_helper smb-hold) || return 1
    set -- "$h" -A "$KIT_CREDENTIALS" -n "$n" "$KIT_UNC/memory-test"
  fi
  child_partial "$(child_share_dir memory-test)"
  fifo=$RUN_DIR/.hold.fifo
  rm -f "$fifo"
  mkfifo -m 0600 "$fifo"
  CHILD_ERR=${out%.*}.err
  (
    child_close_lock
    # inside a measurement (measure_begin): the probes' enter (the client cgroup)
    if [[ -n ${MEASURE_WORK:-} ]]; then measure_enter; fi
    exec timeout -k 5 "$limit" "$@"
  ) >"$out" 2>>"$CHILD_ERR" <"$fifo" &
  CHILD_PID=$!
  exec {CHILD_HOLD_FD}>"$fifo"
  rm -f "$fifo"
}

# child_hold_stop: let smb-hold go (stdin EOF, then TERM), wait for it, remove its folder.
child_hold_stop() {
  if [[ -n ${CHILD_HOLD_FD:-} ]]; then
    exec {CHILD_HOLD_FD}>&-
    CHILD_HOLD_FD=''
  fi
  child_stop
  child_partial_remove
}

# child_stop_all: stop whatever runs (a helper, fio, smb-hold) and remove half-written files.
child_stop_all() {
  child_hold_stop
}

# child_smbd_count: print how many processes the test smbd has now: the service's cgroup, else
# the main smbd and its children.
child_smbd_count() {
  local pid n
  if [[ ${KIT_CGROUP_SOURCE:-proc} != proc && -n ${KIT_CGROUP:-} && -r $KIT_CGROUP/cgroup.procs ]]; then
    n=$(grep -c . "$KIT_CGROUP/cgroup.procs" 2>/dev/null) || true
    echo "${n:-0}"
    return 0
  fi
  pid=$(service_main_pid 2>/dev/null) || {
    echo 0
    return 0
  }
  n=$(pgrep -c -P "$pid" 2>/dev/null) || true
  echo $((${n:-0} + 1))
}

# child_smbd_settle OUT TIMEOUT_S [MAX]: wait until the test smbd's process count held still for
# 0.6 s (and is MAX or fewer when given): the clients of the measurement before have gone, so a
# "before" snapshot sees no process still exiting. At most TIMEOUT_S; writes OUT as
# {"smbd_processes", "max", "settled", "waited_s"}; 1 (with a warning) when it did not settle.
child_smbd_settle() {
  local out=$1 timeout=$2 max=${3:-} i n prev=-1 still=0 settled=false t0
  t0=$(date +%s%N)
  for ((i = 0; i < timeout * 5; i++)); do
    n=$(child_smbd_count)
    if [[ $n == "$prev" ]] && { [[ -z $max ]] || ((n <= max)); }; then still=$((still + 1)); else still=0; fi
    prev=$n
    if ((still >= 3)); then
      settled=true
      break
    fi
    sleep 0.2
  done
  jq -cn --argjson n "$n" --arg max "$max" --argjson ok "$settled" --argjson t0 "$t0" --argjson t1 "$(date +%s%N)" \
    '{smbd_processes: $n, max: ($max | tonumber? // null), settled: $ok, waited_s: ((($t1 - $t0) / 1e7 | round) / 100)}' >"$out"
  [[ $settled == true ]] && return 0
  warn "the test smbd still had $n processes after ${timeout} s${max:+ (expected $max or fewer)}: clients of the measurement before may still be leaving"
  return 1
}
