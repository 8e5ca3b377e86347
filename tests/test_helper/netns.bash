# tests/test_helper/netns.bash: client hosts for the tests as network namespaces (issue 23).
# A bridge on this host holds 198.18.X.1/24 (X a free /24 of 198.18.0.0/15, RFC 2544's
# benchmarking range: never any other range); each namespace has a veth link into it, the
# address 198.18.X.(1+i)/24 and a default route through the bridge. The remote shell for the
# kit is `ip netns exec`. netns_teardown removes namespaces, links and the address; call it in
# teardown_file (bats runs it on a failure and on Ctrl-C too); outside bats it is an EXIT trap.
#   load '../test_helper/netns'
#   netns_setup 2 || return 1   ->  NETNS_HOSTS="sktab12c1 sktab12c2", NETNS_ADDR=198.18.X.1
#   netns_teardown

NETNS_SHELL='ip netns exec'

# netns_setup N: make N client hosts; exports NETNS_HOSTS, NETNS_ADDR, NETNS_SHELL, NETNS_TAG.
netns_setup() {
  local n=$1 i x tag ns
  tag=$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
  NETNS_TAG=skt$tag NETNS_HOSTS='' NETNS_ADDR=''
  for ((i = 0; i < 50; i++)); do
    x=$((RANDOM % 256))
    [[ -z $(ip -4 -o addr show to "198.18.$x.0/24") ]] && ! ip -4 route show to match "198.18.$x.1" | grep -qv "^default" && break
    x=''
  done
  [[ -n $x ]] || {
    echo "netns_setup: no free /24 in 198.18.0.0/16" >&2
    return 1
  }
  NETNS_ADDR=198.18.$x.1
  export NETNS_TAG NETNS_ADDR NETNS_SHELL
  # outside bats (whose own EXIT trap must stay), the end of the shell removes them too
  [[ -n ${BATS_TEST_FILENAME:-} ]] || trap netns_teardown EXIT
  ip link add "${NETNS_TAG}b" type bridge || return 1
  ip addr add "$NETNS_ADDR/24" dev "${NETNS_TAG}b" || return 1
  ip link set "${NETNS_TAG}b" up || return 1
  for ((i = 1; i <= n; i++)); do
    ns=${NETNS_TAG}c$i
    ip netns add "$ns" || return 1
    NETNS_HOSTS+=" $ns"
    ip link add "${NETNS_TAG}v$i" type veth peer name eth0 netns "$ns" || return 1
    ip link set "${NETNS_TAG}v$i" master "${NETNS_TAG}b" up || return 1
    ip -n "$ns" addr add "198.18.$x.$((1 + i))/24" dev eth0 || return 1
    ip -n "$ns" link set lo up || return 1
    ip -n "$ns" link set eth0 up || return 1
    ip -n "$ns" route add default via "$NETNS_ADDR" || return 1
  done
  NETNS_HOSTS=${NETNS_HOSTS# }
  export NETNS_HOSTS
}

# netns_teardown: remove the namespaces (their veth ends go with them), the bridge and its
# address; quiet when they are gone. Status 1 when something of NETNS_TAG remains.
netns_teardown() {
  local ns link
  [[ -n ${NETNS_TAG:-} ]] || return 0
  for ns in $(ip netns list 2>/dev/null | awk -v t="$NETNS_TAG" 'index($1, t) == 1 { print $1 }'); do
    ip netns del "$ns" 2>/dev/null || true
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' -v t="$NETNS_TAG" 'index($2, t) == 1 { sub(/@.*/, "", $2); print $2 }'); do
    ip link del "$link" 2>/dev/null || true
  done
  netns_leftovers && return 1
  return 0
}

# netns_leftovers: print what of NETNS_TAG is still there (namespaces, links); 1 when nothing.
netns_leftovers() {
  local out
  out=$({
    ip netns list 2>/dev/null | awk -v t="$NETNS_TAG" 'index($1, t) == 1 { print "namespace " $1 }'
    ip -o link show 2>/dev/null | awk -F': ' -v t="$NETNS_TAG" 'index($2, t) == 1 { print "link " $2 }'
  })
  [[ -n $out ]] || return 1
  printf '%s\n' "$out"
}
