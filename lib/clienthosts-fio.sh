# lib/clienthosts-fio.sh: fio on the client hosts (issue 23): the same fio version on every host
# as here (fio's client/server protocol changes nearly every release), whether a host has the
# kernel cifs client (the fio metrics need each host's cifs mount of the share; without it they
# SKIP with that reason, never a number). Sourced by lib/clienthosts.sh; functions only.

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

# clienthosts_fio_skip_reason: print why the fio metrics cannot run from the client hosts
# (nothing and 1 when they can): a host without the kernel cifs client, or without its mount
# and fio server (KIT_CLIENT_FIO, written by start-samba.sh).
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
      *) echo "client host '${pair%%=*}' has no cifs mount of the share (see start.log)" && return 0 ;;
    esac
  done
  echo "the fio metrics through client hosts are not built yet (issue 23)"
}

# clienthosts_fio_start: after clienthosts_deploy: state KIT_CLIENT_FIO, 'HOST=ADDR,STATE ...'
# (ADDR: the host's own address toward the server; STATE: 'nocifs' without the kernel cifs
# client, else 'cifs').
clienthosts_fio_start() {
  local pair host addr cifs out=''
  clienthosts_on || return 0
  clienthosts_fio_recheck
  for pair in ${CLIENTHOSTS_CIFS:-}; do
    host=${pair%%=*} addr=${pair#*=}
    cifs=${addr#*,} addr=${addr%%,*}
    if [[ $cifs == yes ]]; then
      out+=" $host=$addr,cifs"
    else
      out+=" $host=$addr,nocifs"
      log "client host '$host': no kernel cifs client: the fio metrics will be skipped"
    fi
  done
  state_set KIT_CLIENT_FIO "${out# }"
  KIT_CLIENT_FIO=${out# }
}
