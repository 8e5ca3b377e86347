# tests/helpers/wire.bash: SMB2 requests counted on the wire with tshark, shared by the tests
# that compare a count with the wire (helpers/cross-check.bats, server/serverview.bats,
# server/clienthosts.bats). Sourced; defines functions only. Needs root (capture) and an
# unencrypted server.
#   wire_start PCAP PORTS [IF PROBE]  captures TCP on PORTS (one port, or several in one word:
#                            "445 4571") on interface IF (lo unless given) into PCAP (headers
#                            only: 256 bytes a packet, which holds every request's SMB2 header)
#                            and returns once packets arrive; PROBE: an address the probe
#                            datagrams reach through IF (127.0.0.1 unless given); sets WIRE_PID
#   wire_stop                waits until the capture has caught up, then ends it; 1 (and why
#                            on stderr) if packets were dropped or it did not catch up
#   wire_requests PCAP PORTS  'CMD COUNT' lines: the SMB2 requests in PCAP, by command number
#                            (0 negotiate, 1 session setup, 3 tree connect, 5 create, 6 close,
#                            8 read, 9 write), every request of a compound counted
#   wire_req LISTING CMD     the requests of command number CMD in a wire_requests listing
#                            (a file), 0 if none
#   wire_getinfo_classes PCAP PORTS  'CLASS COUNT' lines: the GETINFO requests by info type
#                            (0x01 file, 0x02 file system, 0x03 security)

# The capture filter also takes UDP to WIRE_PROBE_PORT on the probe address, where nothing
# listens. wire_start sends datagrams there until one is in the file, so the capture has really
# begun (tshark says "Capturing on" a little before it captures); wire_stop sends one more and
# waits until it is in the file, so every packet before it is too: stopped at once, a capture
# that lags behind (a busy machine) lost its last packets without counting them as dropped.
WIRE_PROBE_PORT=4409

# wire_probes: the probe datagrams in the capture so far
wire_probes() {
  tshark -r "$WIRE_PCAP" -Y "udp.dstport == $WIRE_PROBE_PORT" 2>/dev/null | wc -l
}

# wire_probe_more N: send a probe; true once the capture holds more than N probes
wire_probe_more() {
  { echo probe >"/dev/udp/$WIRE_PROBE/$WIRE_PROBE_PORT"; } 2>/dev/null || true
  [[ -s $WIRE_PCAP ]] && (($(wire_probes) > $1))
}

wire_start() { # <pcap> <ports> [<interface> <probe address>]
  local pcap=$1 dev=${3:-lo} i p tcp=''
  for p in $2; do tcp+=" or tcp port $p"; done
  WIRE_PROBE=${4:-127.0.0.1}
  WIRE_ERR=$pcap.err
  WIRE_PCAP=$pcap
  timeout 300 tshark -i "$dev" -f "${tcp# or } or (udp dst port $WIRE_PROBE_PORT)" -s 256 -B 64 \
    -w "$pcap" 2>"$WIRE_ERR" 3>&- &
  WIRE_PID=$!
  for ((i = 0; i < 200; i++)); do
    wire_probe_more 0 && return 0
    kill -0 "$WIRE_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "tshark did not start capturing on $dev: $(cat "$WIRE_ERR")" >&2
  wire_stop
  return 1
}

wire_stop() {
  local n i rc=0
  [[ -n ${WIRE_PID:-} ]] || return 0
  n=$(wire_probes)
  for ((i = 0; i < 300; i++)); do
    wire_probe_more "$n" && break
    sleep 0.1
  done
  if ((i == 300)); then
    echo "the capture did not catch up within 30 s" >&2
    rc=1
  fi
  kill -INT "$WIRE_PID" 2>/dev/null || true
  wait "$WIRE_PID" 2>/dev/null || true
  WIRE_PID=
  if grep -iE '[1-9][0-9]* packets? dropped' "$WIRE_ERR" >&2; then
    echo "tshark dropped packets: the wire count is incomplete" >&2
    rc=1
  fi
  return $rc
}

# wire_decode PORTS: tshark's options that read TCP on each of PORTS as SMB (NetBIOS session)
wire_decode() {
  local p
  for p in $1; do printf '%s\n' -d "tcp.port==$p,nbss"; done
}

wire_requests() { # <pcap> <ports>
  local -a d
  mapfile -t d < <(wire_decode "$2")
  tshark -r "$1" "${d[@]}" -Y 'smb2' -T fields -e smb2.cmd -e smb2.flags.response \
    2>/dev/null |
    awk -F'\t' '{
      n = split($1, c, ","); split($2, r, ",")
      for (i = 1; i <= n; i++) if (r[i] == "0" || r[i] == "False") q[c[i]]++
    }
    END { for (k in q) print k, q[k] }'
}

wire_req() { # <listing> <cmd>
  awk -v c="$2" '$1 == c { n = $2 } END { print n + 0 }' "$1"
}

wire_getinfo_classes() { # <pcap> <ports>
  local -a d
  mapfile -t d < <(wire_decode "$2")
  tshark -r "$1" "${d[@]}" -Y 'smb2.cmd == 16 && smb2.flags.response == 0' \
    -T fields -e smb2.class 2>/dev/null | tr ',' '\n' | sort | uniq -c | awk '{ print $2, $1 }'
}
