# tests/helpers/wire.bash: SMB2 requests counted on the wire with tshark, for cross-check.bats.
# Sourced; defines functions only. Needs root (capture on lo) and an unencrypted server.
#   wire_start PCAP PORT     captures 'tcp port PORT' on lo into PCAP (headers only: 256 bytes
#                            a packet, which holds every request's SMB2 header) and returns once
#                            packets arrive; sets WIRE_PID
#   wire_stop                waits until the capture has caught up, then ends it; 1 (and why
#                            on stderr) if packets were dropped or it did not catch up
#   wire_requests PCAP PORT  'CMD COUNT' lines: the SMB2 requests in PCAP, by command number
#                            (0 negotiate, 1 session setup, 3 tree connect, 5 create, 6 close,
#                            8 read, 9 write), every request of a compound counted
#   wire_getinfo_classes PCAP PORT  'CLASS COUNT' lines: the GETINFO requests by info type
#                            (0x01 file, 0x02 file system, 0x03 security)

# The capture filter also takes UDP to WIRE_PROBE_PORT on 127.0.0.1, where nothing listens.
# wire_start sends datagrams there until one is in the file, so the capture has really begun
# (tshark says "Capturing on" a little before it captures); wire_stop sends one more and waits
# until it is in the file, so every packet before it is too: stopped at once, a capture that
# lags behind (a busy machine) lost its last packets without counting them as dropped.
WIRE_PROBE_PORT=4409

# wire_probes: the probe datagrams in the capture so far
wire_probes() {
  tshark -r "$WIRE_PCAP" -Y "udp.dstport == $WIRE_PROBE_PORT" 2>/dev/null | wc -l
}

# wire_probe_more N: send a probe; true once the capture holds more than N probes
wire_probe_more() {
  { echo probe >"/dev/udp/127.0.0.1/$WIRE_PROBE_PORT"; } 2>/dev/null || true
  [[ -s $WIRE_PCAP ]] && (($(wire_probes) > $1))
}

wire_start() { # <pcap> <port>
  local pcap=$1 port=$2 i
  WIRE_ERR=$pcap.err
  WIRE_PCAP=$pcap
  timeout 300 tshark -i lo -f "tcp port $port or (udp dst port $WIRE_PROBE_PORT)" -s 256 -B 64 \
    -w "$pcap" 2>"$WIRE_ERR" 3>&- &
  WIRE_PID=$!
  for ((i = 0; i < 200; i++)); do
    wire_probe_more 0 && return 0
    kill -0 "$WIRE_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "tshark did not start capturing: $(cat "$WIRE_ERR")" >&2
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

wire_requests() { # <pcap> <port>
  tshark -r "$1" -d "tcp.port==$2,nbss" -Y 'smb2' -T fields -e smb2.cmd -e smb2.flags.response \
    2>/dev/null |
    awk -F'\t' '{
      n = split($1, c, ","); split($2, r, ",")
      for (i = 1; i <= n; i++) if (r[i] == "0" || r[i] == "False") q[c[i]]++
    }
    END { for (k in q) print k, q[k] }'
}

wire_getinfo_classes() { # <pcap> <port>
  tshark -r "$1" -d "tcp.port==$2,nbss" -Y 'smb2.cmd == 16 && smb2.flags.response == 0' \
    -T fields -e smb2.class 2>/dev/null | tr ',' '\n' | sort | uniq -c | awk '{ print $2, $1 }'
}
