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

# The capture, its sync datagrams and the decoding are the kit's own wire probe's
# (lib/probes/wire.sh: probe_wire_start, probe_wire_stop, probe_wire_requests), so these checks
# also check it.
# shellcheck source=lib/common.sh
source "$KIT_ROOT/lib/common.sh"
# shellcheck source=lib/probes/wire.sh
source "$KIT_ROOT/lib/probes/wire.sh"

wire_start() { # <pcap> <ports> [<interface> <probe address>]
  WIRE_PCAP=$1 WIRE_SYNC=${4:-127.0.0.1} WIRE_PID=''
  probe_wire_start "$1" "${3:-lo}" "$2" "" "$WIRE_SYNC" 300 || return 1
  WIRE_PID=$PROBE_WIRE_PID
}

wire_stop() {
  local rc=0
  [[ -n ${WIRE_PID:-} ]] || return 0
  probe_wire_stop "$WIRE_PID" "$WIRE_PCAP" "$WIRE_SYNC" || rc=1
  WIRE_PID=
  return $rc
}

# wire_decode PORTS: tshark's options that read TCP on each of PORTS as SMB (NetBIOS session)
wire_decode() {
  local p
  for p in $1; do printf '%s\n' -d "tcp.port==$p,nbss"; done
}

wire_requests() { # <pcap> <ports>
  probe_wire_requests "$1" "$2" | grep -v '^transform '
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
