# lib/run/clienthosts-fio.sh: fio on the client hosts (issue 23): the same fio version on every host
# as here (fio's client/server protocol changes nearly every release), whether a host has the
# kernel cifs client (the fio metrics need each host's cifs mount of the share; without it they
# SKIP with that reason, never a number), the fio server on each host. Sourced by
# lib/run/clienthosts.sh; functions only.

CLIENTHOSTS_FIO_PORT=8765 # fio's own default

# clienthosts_fio_here: print this host's 'fio --version' line (nothing when fio is missing).
clienthosts_fio_here() {
  common_have fio || return 0
  common_timeout 10 fio --version 2>/dev/null | head -n 1
}

# clienthosts_fio_check HOST VERSION: die in one line naming HOST when its fio (VERSION, its
# 'fio --version' line; empty: none) is missing or is not this host's; a fio not installed here
# yet (start-samba.sh installs it after the checks) is compared by clienthosts_fio_recheck.
clienthosts_fio_check() {
  local host=$1 theirs=$2 here
  [[ -n $theirs ]] ||
    die "client host '$host' has no fio (package fio): the fio metrics run there through fio's client/server mode"
  here=$(clienthosts_fio_here)
  [[ -z $here || $theirs == "$here" ]] ||
    die "client host '$host' has $theirs, this host $here: fio's client/server protocol differs between versions; install $here there"
}

# clienthosts_fio_recheck: after the packages step, compare the versions the preflight found on
# the hosts (CLIENTHOSTS_FIO: 'HOST=VERSION ...') with this host's fio, if that was missing then.
clienthosts_fio_recheck() {
  local pair
  for pair in ${CLIENTHOSTS_FIO:-}; do clienthosts_fio_check "${pair%%=*}" "${pair#*=}"; done
}

# clienthosts_fio_skip_reason [METRIC]: print why the fio metrics (METRIC) cannot run from the
# client hosts (nothing and 1 when they can): a host without the kernel cifs client, or without
# its mount and fio server (KIT_CLIENT_FIO, written by start-samba.sh), or a metric not yet run
# through them (chfio_unbuilt, lib/run/clienthosts-fio-run.sh).
clienthosts_fio_skip_reason() {
  local pair
  [[ -n ${KIT_CLIENT_FIO:-} ]] || {
    echo "the client hosts have no fio server: run ./start-samba.sh with CLIENT_HOSTS set"
    return 0
  }
  for pair in $KIT_CLIENT_FIO; do
    case ${pair#*=} in
      *,nocifs) echo "client host '${pair%%=*}' has no kernel cifs client: the fio metrics run on each client host's cifs mount of the share" && return 0 ;;
      *,mounted) ;;
      *) echo "client host '${pair%%=*}' has no cifs mount of the share and fio server (see start.log)" && return 0 ;;
    esac
  done
  chfio_unbuilt "${1:-}"
}

# clienthosts_fio_start: after clienthosts_deploy, on every client host in one remote call
# (clienthosts_fio_script): the share mounted with the kernel cifs client at DIR/mnt where the
# host has one, and 'fio --server' bound to the host's own address toward the server only
# (CLIENTHOSTS_FIO_PORT), its pid in DIR/fio.pid (the kit's mark: stop and cleanup stop it). One
# call for both: 'ip netns exec' makes a new mount namespace per call, kept alive by the fio
# server, so the server sees the mount; over ssh the mount is the host's and stop unmounts it.
# fio's server has no authentication: anyone who reaches ADDR:PORT can make it run jobs.
# State KIT_CLIENT_FIO: 'HOST=ADDR,STATE ...' (STATE: 'mounted', or 'nocifs' without the kernel
# cifs client: the fio metrics then SKIP naming the host).
clienthosts_fio_start() {
  local pair host dir addr cifs opts out st all=''
  local -A where=()
  clienthosts_on || return 0
  clienthosts_fio_recheck
  for pair in ${KIT_CLIENT_DIRS:-}; do where[${pair%%=*}]=${pair#*=}; done
  opts=$(mount_wanted_options)
  for pair in ${CLIENTHOSTS_CIFS:-}; do
    host=${pair%%=*} addr=${pair#*=}
    cifs=${addr#*,} addr=${addr%%,*} dir=${where[$host]:-}
    [[ -n $dir ]] || die "client host '$host': the kit has no folder there (clienthosts_deploy first)"
    st=nocifs
    [[ $cifs != yes ]] || st=mounted
    out=$(clienthosts_fio_script | clienthosts_fio_alone 60 "$host" sh -s -- "$dir" "$addr" "$CLIENTHOSTS_FIO_PORT" \
      "$st" "$(clienthosts_unc)" "${opts/credentials=$KIT_CREDENTIALS/credentials=$dir/credentials}" 2>&1) ||
      die "client host '$host': $(tail -n 1 <<<"$out")"
    all+=" $host=$addr,$st"
    state_set KIT_CLIENT_FIO "${all# }"
    if [[ $st == mounted ]]; then
      log "client host '$host': share mounted at '$dir/mnt', fio server on $addr:$CLIENTHOSTS_FIO_PORT (no authentication: the test network only)"
    else
      log "client host '$host': fio server on $addr:$CLIENTHOSTS_FIO_PORT; no kernel cifs client: the fio metrics will be skipped"
    fi
  done
  KIT_CLIENT_FIO=${all# }
}

# clienthosts_fio_alone LIMIT_S HOST CMD...: clienthosts_sh with no descriptor of the kit open
# but stdin, stdout and stderr: the fio server outlives the call, and under 'ip netns exec' it
# would hold the kit's lock (the next stop waits for it) and whatever output a caller waits on.
clienthosts_fio_alone() {
  (
    common_close_fds
    clienthosts_sh "$@"
  )
}

# clienthosts_fio_script: the script a client host runs (sh -s -- DIR ADDR PORT STATE UNC OPTS):
# with STATE 'mounted' mount UNC at DIR/mnt (OPTS), then start the fio server there; its last
# line says what failed (status 1).
clienthosts_fio_script() {
  cat <<'SH'
d=$1 addr=$2 port=$3 st=$4
cd "$d" || exit 1
if [ "$st" = mounted ]; then
  mkdir -p "$d/mnt" && mount -t cifs -o "$6" "$5" "$d/mnt" 2>"$d/mount.err" || {
    echo "could not mount $5 at $d/mnt: $(tail -n 1 "$d/mount.err")"
    exit 1
  }
fi
fio --server="ip:$addr,$port" --daemonize="$d/fio.pid" </dev/null >"$d/fio-server.log" 2>&1
i=0
while [ $i -lt 50 ]; do
  pid=$(cat "$d/fio.pid" 2>/dev/null)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && sleep 0.3 && kill -0 "$pid" 2>/dev/null && exit 0
  sleep 0.1
  i=$((i + 1))
done
echo "fio --server=ip:$addr,$port did not start: $(tail -n 1 "$d/fio-server.log")"
exit 1
SH
}

# clienthosts_fio_remove_part: the part of clienthosts_remove_script for one marked folder $d:
# stop the fio server whose pid DIR/fio.pid names (only a process started with that pid file),
# unmount DIR/mnt where this call sees it (over ssh; under 'ip netns exec' it went with the
# server's mount namespace), and keep a folder whose mount stays (never remove through it).
clienthosts_fio_remove_part() {
  cat <<'SH'
    pid=$(cat "$d/fio.pid" 2>/dev/null)
    case $pid in
      '' | *[!0-9]*) ;;
      *)
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--daemonize=$d/fio.pid"; then
          kill "$pid" 2>/dev/null
          i=0
          while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1 && i=$((i + 1)); done
          kill -9 "$pid" 2>/dev/null
          echo "fio server (pid $pid)"
        fi
        ;;
    esac
    if awk -v m="$d/mnt" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; then
      umount "$d/mnt" 2>/dev/null || umount -l "$d/mnt" 2>/dev/null
      if awk -v m="$d/mnt" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; then
        echo "kept $d: its mount of the share stays"
        continue
      fi
      echo "the mount at $d/mnt"
    fi
SH
}
