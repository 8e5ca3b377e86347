# tests/helpers/smbd-setup.bash: a private smbd on a loopback port for the helper tests and
# bench/helpers-bench.sh. Sourced; defines functions only.
#   helpers_smbd_start DIR PORT   writes DIR/smb.conf, adds 'nobody' to DIR's private passdb,
#                                 starts 'smbd -D' and waits until PORT accepts connections;
#                                 sets SMBD_CONF, SMBD_SHARE, SMBD_CREDS, SMBD_PW;
#                                 HELPERS_SMBD_QUIET=1: log level 0 and no profiling (benchmarks)
#   helpers_smbd_pid DIR          main smbd PID
#   helpers_smbd_conn_children DIR  its per-connection children
#   helpers_smbd_serving DIR PORT PID  the children serving PID's connections to PORT
#   helpers_smbd_settle DIR       waits (30 s at most) until no connection child is left
#   helpers_smbd_stop DIR         stops it (TERM, then KILL after 10 s)
#
# smbd runs in a UTS namespace of its own whose host name is 'localhost': every smbd child
# resolves the host name for NTLMSSP (get_mydnsfullname, 4 lookups per connection), and where
# the machine's name is not in /etc/hosts (a debootstrap chroot, a container) that goes to DNS,
# which can take longer than the helpers' 5 s timeout and made logins fail there (issue 14).

helpers_smbd_start() { # <dir> <port>
  local dir=$1 port=$2 d i loglevel='1 auth_audit:3' profiling=on
  if [[ ${HELPERS_SMBD_QUIET:-0} == 1 ]]; then
    loglevel=0 profiling=off
  fi
  SMBD_CONF=$dir/smb.conf
  SMBD_SHARE=$dir/share
  SMBD_CREDS=$dir/creds
  SMBD_PW=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  mkdir -p "$dir"/{private,lock,state,cache,pid,ncalrpc,log,share}
  # smbd works in the share as 'nobody': the share and every parent must be traversable
  chmod 1777 "$SMBD_SHARE"
  d=$dir
  while [[ $d != / ]]; do
    chmod o+x "$d" 2>/dev/null || true
    d=$(dirname "$d")
  done
  cat >"$SMBD_CONF" <<CONF
[global]
  server role = standalone server
  security = user
  netbios name = HELPERTEST
  workgroup = HELPERWG
  passdb backend = tdbsam
  smb ports = $port
  interfaces = 127.0.0.1
  bind interfaces only = yes
  disable netbios = yes
  private dir = $dir/private
  lock directory = $dir/lock
  state directory = $dir/state
  cache directory = $dir/cache
  pid directory = $dir/pid
  ncalrpc dir = $dir/ncalrpc
  binddns dir = $dir/bind-dns
  log file = $dir/log/log.%m
  max log size = 0
  log level = $loglevel
  load printers = no
  printing = bsd
  printcap name = /dev/null
  disable spoolss = yes
  host msdfs = no
  server min protocol = SMB2_10
  smbd profiling level = $profiling
[perf]
  path = $SMBD_SHARE
  read only = no
  valid users = nobody
CONF
  printf '%s\n%s\n' "$SMBD_PW" "$SMBD_PW" | pdbedit -s "$SMBD_CONF" -a -u nobody -t >/dev/null || return 1
  (umask 077 && printf 'username=nobody\npassword=%s\ndomain=HELPERWG\n' "$SMBD_PW" >"$SMBD_CREDS")
  # shellcheck disable=SC2016 # expanded by the inner sh
  unshare --uts sh -c 'echo localhost >/proc/sys/kernel/hostname && exec smbd -D -s "$1"' \
    _ "$SMBD_CONF" </dev/null || return 1
  for ((i = 0; i < 500; i++)); do
    if ss -Hltn "sport = :$port" | grep -q .; then
      return 0
    fi
    sleep 0.02
  done
  echo "smbd did not listen on port $port" >&2
  return 1
}

helpers_smbd_pid() { # <dir>
  cat "$1/pid/smbd.pid" 2>/dev/null
}

# helpers_smbd_conn_children DIR: the main smbd's children that serve a connection, one PID a
# line (named 'smbd' up to Samba 4.17, 'smbd[CLIENT_IP]' from 4.18 on, cut to the kernel's 15
# characters; smbd-notifyd and smbd-cleanupd have names of their own), exiting ones included:
# a count taken while they exit is too high, so wait for a stable count
helpers_smbd_conn_children() { # <dir>
  local main
  main=$(helpers_smbd_pid "$1") || return 1
  [[ -n $main ]] || return 1
  pgrep -x -P "$main" 'smbd(\[.*)?' || true
}

# helpers_smbd_serving DIR PORT PID: the main smbd's children that hold the server end of one
# of PID's established TCP connections to PORT, one PID a line (sorted, each once). Counts only
# this test's server and this client, whatever else runs on the machine.
helpers_smbd_serving() { # <dir> <port> <client pid>
  local main
  main=$(helpers_smbd_pid "$1") || return 1
  [[ -n $main ]] || return 1
  ss -Htnp state established "( sport = :$2 or dport = :$2 )" |
    awk -v port="$2" -v client="pid=$3," '
      function portof(a,  n, x) { n = split(a, x, ":"); return x[n] }
      # server side: local port is PORT; remember which process holds each peer port
      portof($3) == port && match($0, /pid=[0-9]+/) {
        server[portof($4)] = substr($0, RSTART + 4, RLENGTH - 4)
      }
      portof($4) == port && index($0, client) { mine[portof($3)] = 1 }
      END { for (p in mine) if (p in server) print server[p] }' |
    sort -un |
    while read -r p; do
      [[ $(ps -o ppid= -p "$p" 2>/dev/null) -eq $main ]] && echo "$p"
    done
  return 0
}

# helpers_smbd_settle DIR: wait (30 s at most: a busy machine) until the smbd children of
# earlier connections have exited and been reaped: their profile counters and CPU are in once
# they are gone, and a child found next serves a connection made after this. Fails naming the
# children left.
helpers_smbd_settle() { # <dir>
  local i left
  for ((i = 0; i < 600; i++)); do
    left=$(helpers_smbd_conn_children "$1") || return 1
    [[ -z $left ]] && return 0
    sleep 0.05
  done
  echo "smbd children still there after 30 s: $(tr '\n' ' ' <<<"$left")" >&2
  return 1
}

helpers_smbd_stop() { # <dir>
  local pid i
  pid=$(helpers_smbd_pid "$1") || return 0
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 500; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.02
  done
  kill -KILL "$pid" 2>/dev/null || true
}
