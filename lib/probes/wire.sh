# lib/probes/wire.sh: evidence probe, opt-in (WIRE_PROBE=yes): the SMB2 requests on the wire
# during a measurement, by command, counted by tshark from a capture of the kit's ports: the third
# instrument beside the client's count and smbd's (lib/run/serverview.jq, sv_count). The capture
# (dumpcap, headers only: 256 bytes a packet, which hold every request's SMB2 header) is of TCP on
# TEST_PORT and on port 445 of the kit's addresses (CLIENT_ADDR, CLIENT_HOSTS_SERVER_ADDR: where
# the redirect leaves a packet depends on where it is tapped), on loopback or, with client hosts
# (whose load it is then), on the interface that holds CLIENT_HOSTS_SERVER_ADDR. A call may take
# longer than a probe's 10 s (docs/CONTRACTS.md section 5): catching up 30 s at most, the
# counting 300 s at most (about 10 s per million packets here). It costs CPU beside the server (off by
# default); an encrypted server's requests cannot be read. The test suite's wire checks use these
# functions too (tests/helpers/wire.bash). Sourced; functions only.
#
# The capture filter also takes UDP to PROBE_WIRE_SYNC_PORT, where nothing listens: the start
# sends datagrams there until one is in the file (dumpcap says it captures a little before it
# does), the stop sends one more and waits until it is in the file, so every packet before it
# is too (stopped at once, a capture that lags behind on a busy machine loses its last packets
# without counting them as dropped).

PROBE_WIRE_SYNC_PORT=4409

# probe_wire_have: true when this host can capture (dumpcap and tshark).
probe_wire_have() { common_have dumpcap && common_have tshark; }

# probe_wire_syncs PCAP: the sync datagrams in PCAP so far.
probe_wire_syncs() {
  timeout 30 tshark -r "$1" -Y "udp.dstport == $PROBE_WIRE_SYNC_PORT" 2>/dev/null | wc -l
}

# probe_wire_sync PCAP ADDR N: send a sync datagram to ADDR; true once PCAP holds more than N.
probe_wire_sync() {
  { echo sync >"/dev/udp/$2/$PROBE_WIRE_SYNC_PORT"; } 2>/dev/null || true
  [[ -s $1 ]] && (($(probe_wire_syncs "$1") > $3))
}

# probe_wire_filter PORTS ADDRS: the capture filter: TCP on each of PORTS (for 445: of ADDRS
# only, never a Samba of the host on its other addresses) and the sync datagrams.
probe_wire_filter() {
  local p a f='' hosts=''
  for a in $2; do hosts+=" or host $a"; done
  for p in $1; do
    if [[ $p == 445 && -n $hosts ]]; then f+=" or (tcp port 445 and (${hosts# or }))"; else f+=" or tcp port $p"; fi
  done
  printf '%s or (udp dst port %s)\n' "${f# or }" "$PROBE_WIRE_SYNC_PORT"
}

# probe_wire_start PCAP IFACES PORTS ADDRS SYNC LIMIT_S: capture on each of IFACES into PCAP
# (probe_wire_filter PORTS ADDRS) for LIMIT_S at most, and return once packets arrive (sync
# datagrams to SYNC, an address they reach through the first of IFACES; 20 s at most); sets
# PROBE_WIRE_PID to the capture's pid. 1 (why on stderr) when it did not start.
probe_wire_start() {
  local pcap=$1 ifaces=$2 ports=$3 addrs=$4 sync=$5 limit=$6 i f
  local -a opt=()
  f=$(probe_wire_filter "$ports" "$addrs")
  for i in $ifaces; do opt+=(-i "$i"); done
  (
    common_close_fds
    exec timeout -k 2 "$limit" dumpcap -q "${opt[@]}" -f "$f" -s 256 -B 64 -w "$pcap"
  ) </dev/null >/dev/null 2>"$pcap.err" &
  PROBE_WIRE_PID=$!
  for ((i = 0; i < 200; i++)); do
    probe_wire_sync "$pcap" "$sync" 0 && return 0
    kill -0 "$PROBE_WIRE_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "dumpcap did not start capturing on $ifaces: $(tail -n 1 "$pcap.err" 2>/dev/null)" >&2
  kill -INT "$PROBE_WIRE_PID" 2>/dev/null
  wait "$PROBE_WIRE_PID" 2>/dev/null
  PROBE_WIRE_PID=''
  return 1
}

# probe_wire_stop PID PCAP SYNC: wait until the capture has caught up (30 s at most), then end it;
# 1 (why on stderr) if packets were dropped or it did not catch up.
probe_wire_stop() {
  local pid=$1 pcap=$2 sync=$3 n i rc=0
  n=$(probe_wire_syncs "$pcap")
  for ((i = 0; i < 300; i++)); do
    probe_wire_sync "$pcap" "$sync" "$n" && break
    sleep 0.1
  done
  if ((i == 300)); then
    echo "the capture did not catch up within 30 s" >&2
    rc=1
  fi
  kill -INT "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if grep -iE '[1-9][0-9]* packets? dropped' "$pcap.err" >&2; then
    echo "dumpcap dropped packets: the wire count is incomplete" >&2
    rc=1
  fi
  return "$rc"
}

# probe_wire_requests PCAP PORTS: 'CMD COUNT' lines: the SMB2 requests in PCAP by command number
# (0 negotiate, 1 session setup, 3 tree connect, 5 create, 6 close, 8 read, 9 write, 14 find,
# 16 getinfo), every request of a compound counted; TCP on each of PORTS read as SMB (NetBIOS
# session). Then a line 'transform N': SMB3 encrypted messages, whose commands cannot be read.
probe_wire_requests() {
  local p
  local -a d=()
  for p in $2; do d+=(-d "tcp.port==$p,nbss"); done
  timeout 300 tshark -r "$1" "${d[@]}" -Y 'smb2' -T fields -e smb2.cmd -e smb2.flags.response -e smb2.protocol_id \
    2>/dev/null |
    awk -F'\t' '{
      n = split($1, c, ","); split($2, r, ",")
      for (i = 1; i <= n; i++) if (r[i] == "0" || r[i] == "False") q[c[i]]++
      if ($3 ~ /0xfd534d42|0x424d53fd/) t++
    }
    END { for (k in q) print k, q[k]; print "transform", t + 0 }'
}

# probe_wire_where: print 'IFACES|PORTS|ADDRS|SYNC' of this kit: loopback, and with client
# hosts the interface of CLIENT_HOSTS_SERVER_ADDR (sync datagrams then to the first client
# host's own address, KIT_CLIENT_FIO, so that they cross that interface).
probe_wire_where() {
  local ifaces=lo addrs=$CLIENT_ADDR sync=127.0.0.1 i first
  if clienthosts_on; then
    i=$(ip -4 -o addr show to "$CLIENT_HOSTS_SERVER_ADDR/32" 2>/dev/null | awk '{ print $2; exit }')
    first=${KIT_CLIENT_FIO%% *} first=${first#*=} first=${first%%,*}
    if [[ -n $i && $i != lo && -n $first ]]; then
      ifaces=$i sync=$first
      addrs+=" $CLIENT_HOSTS_SERVER_ADDR"
    fi
  fi
  printf '%s|%s|%s|%s\n' "$ifaces" "445 $TEST_PORT" "$addrs" "$sync"
}

# probe_wire_before NAME WORK: start the capture (WORK/pid, WORK/where); WORK/skip says why not.
probe_wire_before() {
  local ifaces ports addrs sync
  [[ ${WIRE_PROBE:-no} == yes ]] || return 0
  if ! probe_wire_have; then
    echo "dumpcap or tshark is not installed (package tshark; start-samba.sh installs it with WIRE_PROBE=yes)" >"$2/skip"
    return 0
  fi
  IFS='|' read -r ifaces ports addrs sync < <(probe_wire_where)
  printf '%s|%s|%s|%s\n' "$ifaces" "$ports" "$addrs" "$sync" >"$2/where"
  if probe_wire_start "$2/cap.pcapng" "$ifaces" "$ports" "$addrs" "$sync" 7200 2>"$2/start.err"; then
    echo "$PROBE_WIRE_PID" >"$2/pid"
  else
    head -n 1 "$2/start.err" >"$2/skip"
  fi
}

# probe_wire_finish: the run is over: end a capture a stopped measurement left.
probe_wire_finish() {
  [[ -n ${PROBE_WIRE_PID:-} ]] || return 0
  kill -INT "$PROBE_WIRE_PID" 2>/dev/null || true
  PROBE_WIRE_PID=''
}

# probe_wire_after NAME WORK: WORK/result.json: {available, interfaces, requests {"CMD": N}} or
# why not (off, no tshark, the capture incomplete, encrypted traffic); the capture is not kept.
probe_wire_after() {
  local ifaces ports addrs sync err
  if [[ ${WIRE_PROBE:-no} != yes ]]; then
    echo '{"available":false,"reason":"WIRE_PROBE=no (the capture is opt-in: it takes CPU beside the server)"}' >"$2/result.json"
    return 0
  fi
  if [[ -s $2/skip ]]; then
    jq -cn --arg r "$(head -n 1 "$2/skip")" '{available: false, reason: $r}' >"$2/result.json"
    return 0
  fi
  IFS='|' read -r ifaces ports addrs sync <"$2/where"
  if ! err=$(probe_wire_stop "$(cat "$2/pid")" "$2/cap.pcapng" "$sync" 2>&1); then
    jq -cn --arg r "$(head -n 1 <<<"$err")" '{available: false, reason: $r}' >"$2/result.json"
    return 0
  fi
  probe_wire_requests "$2/cap.pcapng" "$ports" |
    jq -Rn --arg i "$ifaces" '[inputs | split(" ") | {key: .[0], value: (.[1] | tonumber)}] | from_entries
      | (.transform // 0) as $t | del(.transform)
      | if $t > 0 then {available: false, reason: "the traffic is encrypted (SMB3): tshark cannot read the commands of \($t) messages"}
        else {available: true, interfaces: ($i | split(" ")), requests: .} end' >"$2/result.json"
  rm -f "$2/cap.pcapng"
  PROBE_WIRE_PID=''
}
