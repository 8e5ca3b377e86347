# tests/helpers/smbd-setup.bash: a private smbd on a loopback port for the helper tests and
# bench/helpers-bench.sh. Sourced; defines functions only.
#   helpers_smbd_start DIR PORT   writes DIR/smb.conf, adds 'nobody' to DIR's private passdb,
#                                 starts 'smbd -D' and waits until PORT accepts connections;
#                                 sets SMBD_CONF, SMBD_SHARE, SMBD_CREDS, SMBD_PW;
#                                 HELPERS_SMBD_QUIET=1: log level 0 and no profiling (benchmarks)
#   helpers_smbd_pid DIR          main smbd PID
#   helpers_smbd_stop DIR         stops it (TERM, then KILL after 10 s)

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
  smbd -D -s "$SMBD_CONF" </dev/null || return 1
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
