# lib/run/clienthosts.sh: client hosts (issue 23): the settings CLIENT_HOSTS, CLIENT_SHELL and
# CLIENT_HOSTS_SERVER_ADDR, the checks before anything changes, the helpers and credentials the
# kit puts on each host (a marked temp folder, removed by stop and cleanup). With CLIENT_HOSTS
# empty nothing here does anything. Sourced; functions only. Needs the loaded settings.
#
# Commands reach a host as `CLIENT_SHELL HOST CMD ARG...` (ssh, or `ip netns exec` in the
# tests); every argument is a plain word (a path or number the settings checked), since ssh
# joins them into one line for the remote shell; scripts go on stdin (`sh -s`).

CLIENTHOSTS_MARK='samba-perf-test kit'
CLIENTHOSTS_PREFIX=samba-perf-test-client
CLIENTHOSTS_TIMEOUT=20 # s for one short remote command (ssh's connect included)

# clienthosts_on: true when client hosts are set.
clienthosts_on() { [[ -n ${CLIENT_HOSTS//[[:space:]]/} ]]; }

# clienthosts_check_settings: the three keys (called by settings_validate); the first bad one
# dies naming it. CLIENT_HOSTS_SERVER_ADDR is not SERVER_ADDR: that key already names where
# the test smbd listens for this machine's own clients (loopback only).
clienthosts_check_settings() {
  local h w n=0 a
  local -A seen=()
  [[ $CLIENT_SHELL =~ ^[[:space:]]*[A-Za-z0-9_./=:@+,-]+([[:space:]]+[A-Za-z0-9_./=:@+,-]+)*[[:space:]]*$ ]] ||
    settings_bad CLIENT_SHELL "must be a command and its options: plain words (letters, digits and _ . / = : @ + , -)"
  if ! clienthosts_on; then
    [[ -z $CLIENT_HOSTS_SERVER_ADDR ]] ||
      settings_bad CLIENT_HOSTS_SERVER_ADDR "is the address for client hosts: set CLIENT_HOSTS too, or leave it empty"
    return 0
  fi
  for h in $CLIENT_HOSTS; do
    [[ $h =~ ^([a-z_][a-z0-9_-]{0,31}@)?[A-Za-z0-9][A-Za-z0-9.-]{0,62}$ ]] ||
      settings_bad CLIENT_HOSTS "'$h' is not a host name (letters, digits, '.' and '-', optionally user@)"
    [[ -z ${seen[$h]+x} ]] || settings_bad CLIENT_HOSTS "'$h' is named twice"
    seen[$h]=1 n=$((n + 1))
  done
  ((n <= 32)) || settings_bad CLIENT_HOSTS "at most 32 client hosts"
  [[ -n $CLIENT_HOSTS_SERVER_ADDR ]] ||
    settings_bad CLIENT_HOSTS_SERVER_ADDR "must be set with CLIENT_HOSTS: this host's address the client hosts use"
  a=$(settings_ipv4_number "$CLIENT_HOSTS_SERVER_ADDR") ||
    settings_bad CLIENT_HOSTS_SERVER_ADDR "must be an IPv4 address a.b.c.d (each part 0-255, no leading zero)"
  ((a >> 24 != 127)) || settings_bad CLIENT_HOSTS_SERVER_ADDR "is a loopback address: client hosts cannot reach it"
  ((a >> 24 != 0 && a >> 28 < 14)) ||
    settings_bad CLIENT_HOSTS_SERVER_ADDR "must be a unicast address of this host (not 0.x, multicast or reserved)"
  # the values first, then what this machine has (a minimal Debian has no ssh)
  read -r w _ <<<"$CLIENT_SHELL"
  common_have "$w" || settings_bad CLIENT_SHELL "'$w' is not installed"
  return 0
}

# clienthosts_tag HOST: HOST as a word for file and folder names (user@ws1 -> user_ws1): the
# fan-out's raw/NAME.client-TAG.json and a host's own folder on the share.
clienthosts_tag() { printf '%s\n' "${1//[^A-Za-z0-9.-]/_}"; }

# clienthosts_ready: 0 when start-samba.sh put the helpers on the client hosts, else 1 (run_why).
clienthosts_ready() {
  [[ -n ${KIT_CLIENT_DIRS:-} ]] && return 0
  run_why "the client hosts have no helpers: run ./start-samba.sh with CLIENT_HOSTS set"
  return 1
}

# clienthosts_measure [--split N] NAME LIMIT_S HELPER ARG...: measurement NAME (lib/run/measure.sh)
# of HELPER on every client host at once (lib/run/clienthosts-fanout.sh; an argument's '@HOST@'
# becomes the host's tag, with --split N '@SPLIT@' the host's share of N; which hosts are this
# machine from KIT_CLIENT_MACHINE); 1 (run_why) when start-samba.sh put no helpers there.
clienthosts_measure() {
  local -a opt=(--machine "${KIT_CLIENT_MACHINE:-}")
  if [[ $1 == --split ]]; then
    opt+=(--split "$2")
    shift 2
  fi
  local name=$1 limit=$2
  shift 2
  clienthosts_ready || return 1
  measure "$name" "$limit" -- "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "${opt[@]}" "$RUN_DIR/raw/$name" "$CLIENT_SHELL" \
    "$KIT_CLIENT_DIRS" "$@" || true
}

# clienthosts_helper_cmd VAR HELPER: set the array VAR to the command that runs HELPER on the
# first client host (KIT_CLIENT_DIRS' first 'HOST=DIR'), where the metrics of one client run:
# CLIENT_SHELL HOST DIR/HELPER -A DIR/credentials; the caller adds the
# helper's arguments. 1 (run_why) when start-samba.sh put no helpers there.
clienthosts_helper_cmd() {
  local -n _cmd=$1
  clienthosts_ready || return 1
  local pair=${KIT_CLIENT_DIRS%% *}
  read -ra _cmd <<<"$CLIENT_SHELL"
  _cmd+=("${pair%%=*}" "${pair#*=}/$2" -A "${pair#*=}/credentials")
}

# clienthosts_clock HOST: print HOST's realtime clock against this machine's as one JSON line
# {host, offset_ns, rtt_ns}: the host's `date +%s%N` read between two readings here, its offset
# from their midpoint (NTP's estimate: off by at most rtt_ns / 2, the whole remote call with
# the remote shell's start included). 1 when the host gave no time.
clienthosts_clock() {
  local t1 t2 r
  t1=$(date +%s%N)
  r=$(clienthosts_sh "$CLIENTHOSTS_TIMEOUT" "$1" date +%s%N 2>/dev/null) || return 1
  t2=$(date +%s%N)
  [[ $r =~ ^[0-9]{10,}$ ]] || return 1
  jq -cn --arg h "$1" --argjson r "$r" --argjson a "$t1" --argjson b "$t2" \
    '{host: $h, offset_ns: ($r - ($a + $b) / 2 | round), rtt_ns: ($b - $a)}'
}

# clienthosts_unc: the share as the client hosts reach it (port 445 of CLIENT_HOSTS_SERVER_ADDR).
clienthosts_unc() { printf '//%s/%s\n' "$CLIENT_HOSTS_SERVER_ADDR" "$SHARE_NAME"; }

# clienthosts_sh LIMIT_S HOST CMD...: run CMD on HOST through CLIENT_SHELL, for at most LIMIT_S.
clienthosts_sh() {
  local limit=$1 host=$2
  local -a pre
  shift 2
  read -ra pre <<<"$CLIENT_SHELL"
  timeout -k 2 "$limit" "${pre[@]}" "$host" "$@"
}

# clienthosts_check_local: the address is one of this host's, and no program (a host Samba)
# serves port 445 on it or on every address: the kit's redirect would take its clients.
clienthosts_check_local() {
  local a=$CLIENT_HOSTS_SERVER_ADDR line
  [[ -n $(ip -4 -o addr show to "$a/32" 2>/dev/null) ]] ||
    die "setting 'CLIENT_HOSTS_SERVER_ADDR' has bad value '$a': no interface of this host has that address"
  common_have ss || return 0
  line=$(common_timeout 10 ss -Hltnp 'sport = :445' 2>/dev/null | awk -v a="$a:445" '
    { l = $4; sub(/%[^:]*:/, ":", l) } l == a || l == "0.0.0.0:445" || l == "*:445" || l == "[::]:445" { print; exit }') || line=''
  [[ -z $line ]] ||
    die "setting 'CLIENT_HOSTS_SERVER_ADDR' has bad value '$a': port 445 there is served by another program ($(awk '{ print $4, $6 }' <<<"$line")), whose clients the redirect would take"
}

# clienthosts_probe HOST: print HOST's 'arch=', 'lib=yes|no' (libsmbclient), 'src=' (its
# address toward CLIENT_HOSTS_SERVER_ADDR), 'fio=' (its 'fio --version', empty without fio),
# 'cifs=yes|no' (the kernel cifs client, loaded or as a module) and 'boot=' (its kernel's boot
# id, empty when unreadable) lines; 1 when it does not answer.
clienthosts_probe() {
  clienthosts_sh "$CLIENTHOSTS_TIMEOUT" "$1" sh -s -- "$CLIENT_HOSTS_SERVER_ADDR" <<'SH'
echo "arch=$(uname -m)"
if ldconfig -p 2>/dev/null | grep -q 'libsmbclient\.so\.0' || ls /usr/lib*/libsmbclient.so.0 /usr/lib*/*/libsmbclient.so.0 >/dev/null 2>&1; then
  echo lib=yes
else
  echo lib=no
fi
echo "src=$(ip -4 route get "$1" 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -n 1)"
echo "fio=$(fio --version 2>/dev/null | head -n 1)"
if grep -qw cifs /proc/filesystems 2>/dev/null || modprobe -nq cifs 2>/dev/null; then echo cifs=yes; else echo cifs=no; fi
echo "boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"
SH
}

# clienthosts_machine BOOT_ID: whether a client host whose kernel has BOOT_ID (its
# /proc/sys/kernel/random/boot_id) is this machine: 'this' (the same kernel: a network
# namespace or container of it, as in the kit's tests), 'other', or 'unknown' (either id could
# not be read or is no id).
clienthosts_machine() {
  local id='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' here
  here=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) || here=''
  if [[ ! $1 =~ $id || ! $here =~ $id ]]; then
    echo unknown
  elif [[ $1 == "$here" ]]; then
    echo this
  else
    echo other
  fi
}

# clienthosts_machine_words HOST: KIT_CLIENT_MACHINE's word for HOST, in words for the log.
clienthosts_machine_words() {
  local pair m=unknown
  for pair in ${KIT_CLIENT_MACHINE:-}; do [[ ${pair%%=*} != "$1" ]] || m=${pair#*=}; done
  case $m in
    this) echo "it is this machine (the same boot id)" ;;
    other) echo "it is another machine (another boot id)" ;;
    *) echo "whether it is this machine is not known (its boot id could not be read)" ;;
  esac
}

# clienthosts_preflight: every check before anything changes; sets CLIENTHOSTS_ALLOW (the
# client hosts' addresses toward the server, for 'hosts allow'), CLIENTHOSTS_FIO ('HOST=fio
# version ...', lib/run/clienthosts-fio.sh), CLIENTHOSTS_CIFS ('HOST=ADDR,yes|no ...': its
# address and kernel cifs client) and CLIENTHOSTS_MACHINE ('HOST=this|other|unknown ...',
# clienthosts_machine). Dies naming the host.
clienthosts_preflight() {
  local host out arch lib src here fio
  CLIENTHOSTS_ALLOW='' CLIENTHOSTS_FIO='' CLIENTHOSTS_CIFS='' CLIENTHOSTS_MACHINE=''
  clienthosts_on || return 0
  clienthosts_check_local
  here=$(uname -m)
  for host in $CLIENT_HOSTS; do
    out=$(clienthosts_probe "$host" 2>&1) ||
      die "client host '$host' does not answer '$CLIENT_SHELL $host' in $CLIENTHOSTS_TIMEOUT s: $(tail -n 1 <<<"$out")"
    arch=$(sed -n 's/^arch=//p' <<<"$out") lib=$(sed -n 's/^lib=//p' <<<"$out") src=$(sed -n 's/^src=//p' <<<"$out")
    [[ $arch == "$here" ]] ||
      die "client host '$host' is '${arch:-unknown}', this host '$here': the kit's helpers cannot run there"
    [[ $lib == yes ]] || die "client host '$host' has no libsmbclient (package libsmbclient): the helpers need it"
    settings_ipv4_number "$src" >/dev/null ||
      die "client host '$host' has no route to '$CLIENT_HOSTS_SERVER_ADDR' (or no 'ip' command)"
    fio=$(sed -n 's/^fio=//p' <<<"$out")
    clienthosts_fio_check "$host" "$fio"
    CLIENTHOSTS_ALLOW+=" $src" CLIENTHOSTS_FIO+=" $host=${fio// /_}"
    CLIENTHOSTS_CIFS+=" $host=$src,$(sed -n 's/^cifs=//p' <<<"$out")"
    CLIENTHOSTS_MACHINE+=" $host=$(clienthosts_machine "$(sed -n 's/^boot=//p' <<<"$out")")"
  done
  CLIENTHOSTS_ALLOW=${CLIENTHOSTS_ALLOW# } CLIENTHOSTS_MACHINE=${CLIENTHOSTS_MACHINE# }
}

# clienthosts_smbconf_interface / clienthosts_smbconf_allow: what smb.conf gets (nothing without
# client hosts): the address as a second interface, and 'hosts allow' for loopback and them.
clienthosts_smbconf_interface() {
  clienthosts_on || return 0
  printf ' %s/32' "$CLIENT_HOSTS_SERVER_ADDR"
}
clienthosts_smbconf_allow() {
  clienthosts_on || return 0
  [[ -n ${CLIENTHOSTS_ALLOW:-} ]] || die "client hosts: their addresses are not known (clienthosts_preflight first)"
  printf '\n  # client hosts (CLIENT_HOSTS): only they and this machine (loopback) may connect\n'
  printf '  hosts allow = 127.0.0.0/8 %s' "$CLIENTHOSTS_ALLOW"
}

# clienthosts_deploy: on every client host, a marked temp folder with the helpers and the
# credentials (0600); each host must then log in through CLIENT_HOSTS_SERVER_ADDR:445.
# State KIT_CLIENT_DIRS: 'HOST=DIR ...' (written before anything is copied); KIT_CLIENT_MACHINE:
# clienthosts_preflight's CLIENTHOSTS_MACHINE, which client hosts are this machine (the runs
# pass it to lib/run/clienthosts-fanout.sh, and the report says it).
clienthosts_deploy() {
  local host dir stage h dirs='' helpers
  clienthosts_on || return 0
  KIT_CLIENT_MACHINE=${CLIENTHOSTS_MACHINE:-}
  state_set KIT_CLIENT_MACHINE "$KIT_CLIENT_MACHINE"
  stage=$(mktemp -d)
  common_tmp_track "$stage"
  # the SMB clients, every one (the server-side helpers cgcpu and pss-sum stay here)
  read -ra helpers < <(sed -n 's/^SMB_BIN = //p' "$KIT_ROOT/helpers/Makefile")
  for h in "${helpers[@]}"; do cp "$KIT_ROOT/helpers/$h" "$stage/" || die "helper '$h' is not built"; done
  install -m 0600 "$KIT_CREDENTIALS" "$stage/credentials"
  printf '%s %s\n' "$CLIENTHOSTS_MARK" "$STATE_DIR" >"$stage/.$CLIENTHOSTS_PREFIX"
  for host in $CLIENT_HOSTS; do
    # shellcheck disable=SC2016 # expanded by the client host's shell
    dir=$(printf 'umask 077; mktemp -d "${TMPDIR:-/tmp}/%s.XXXXXX"\n' "$CLIENTHOSTS_PREFIX" |
      clienthosts_sh "$CLIENTHOSTS_TIMEOUT" "$host" sh -s 2>&1) ||
      die "client host '$host': could not make a temp folder: $(tail -n 1 <<<"$dir")"
    [[ $dir =~ ^/[A-Za-z0-9._/+-]*/$CLIENTHOSTS_PREFIX\.[A-Za-z0-9]+$ ]] ||
      die "client host '$host': unexpected temp folder name '$dir'"
    dirs+=" $host=$dir"
    state_set KIT_CLIENT_DIRS "${dirs# }"
    tar -C "$stage" -cf - . | clienthosts_sh 60 "$host" tar -C "$dir" -xf - ||
      die "client host '$host': could not copy the helpers to '$dir'"
    clienthosts_sh 30 "$host" "$dir/smb-wait-login" -A "$dir/credentials" -t 10 \
      "//$CLIENT_HOSTS_SERVER_ADDR/$SHARE_NAME" >/dev/null 2>&1 ||
      die "client host '$host': no login on //$CLIENT_HOSTS_SERVER_ADDR/$SHARE_NAME (port 445) from there"
    log "client host '$host': helpers in '$dir', login works; $(clienthosts_machine_words "$host")"
  done
  rm -rf "$stage"
  KIT_CLIENT_DIRS=${dirs# }
}

# clienthosts_remove_script: the script a client host runs (sh -s -- STATE_DIR DIR...) to
# remove the given folders and its temp folder's '$CLIENTHOSTS_PREFIX.*' that carry this kit's
# mark (an unmarked one only when empty: a copy that failed half-way), their fio server and
# mount first (clienthosts_fio_remove_part); prints what it removed.
clienthosts_remove_script() {
  cat <<SH
mark="$CLIENTHOSTS_MARK \$1"
shift
for d in "\$@" "\${TMPDIR:-/tmp}"/$CLIENTHOSTS_PREFIX.*; do
  [ -d "\$d" ] && [ ! -L "\$d" ] || continue
  if [ "\$(cat "\$d/.$CLIENTHOSTS_PREFIX" 2>/dev/null)" = "\$mark" ]; then
$(clienthosts_fio_remove_part)
    rm -rf --one-file-system -- "\$d" && echo "\$d"
  else
    rmdir -- "\$d" 2>/dev/null && echo "\$d"
  fi
done
true
SH
}

# clienthosts_remove: remove the kit's folders from every client host (those of CLIENT_HOSTS and
# those the state names). A host that does not answer is named, not fatal.
clienthosts_remove() {
  local pair host out
  local -a extra
  local -A dirs=()
  for host in ${CLIENT_HOSTS:-}; do dirs[$host]=''; done
  for pair in ${KIT_CLIENT_DIRS:-}; do dirs[${pair%%=*}]+=" ${pair#*=}"; done
  for host in "${!dirs[@]}"; do
    read -ra extra <<<"${dirs[$host]}"
    if out=$(clienthosts_remove_script | clienthosts_sh "$CLIENTHOSTS_TIMEOUT" "$host" sh -s -- "$STATE_DIR" "${extra[@]}" 2>&1); then
      [[ -z $out ]] || log "client host '$host': removed $(tr '\n' ' ' <<<"$out")"
    else
      warn "client host '$host' did not answer: its kit folders may remain ($(tail -n 1 <<<"$out"))"
    fi
  done
  if [[ -n ${KIT_CLIENT_DIRS:-} ]]; then state_set KIT_CLIENT_DIRS ''; fi
  if [[ -n ${KIT_CLIENT_FIO:-} ]]; then state_set KIT_CLIENT_FIO ''; fi
  if [[ -n ${KIT_CLIENT_MACHINE:-} ]]; then state_set KIT_CLIENT_MACHINE ''; fi
  KIT_CLIENT_DIRS='' KIT_CLIENT_FIO='' KIT_CLIENT_MACHINE=''
}

# shellcheck source=lib/run/clienthosts-fio.sh
source "${BASH_SOURCE[0]%/*}/clienthosts-fio.sh"
# shellcheck source=lib/run/clienthosts-fio-run.sh
source "${BASH_SOURCE[0]%/*}/clienthosts-fio-run.sh"
