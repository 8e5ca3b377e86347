#!/usr/bin/env bats
# Client hosts (issue 23), refused before anything changes: a host that does not answer the
# remote shell, an address this host does not have, a program on port 445 of every address, a
# foreign nftables rule on the test address, another fio version or none. Tried with two network
# namespaces on 198.18.0.0/15 (tests/test_helper/netns.bash, remote shell `ip netns exec`); the
# kit is set up, never started (tests/server/clienthosts.bats starts it and measures).
# Runs under the shared lock (it sets up a kit and namespaces).

setup_file() {
  load ../test_helper/clienthosts
  ch_setup_file 2 0 ch 4570 4579 127.0.0.25
}

teardown_file() {
  load ../test_helper/clienthosts
  ch_teardown_file
}

setup() {
  load ../test_helper/clienthosts
  ch_setup ip nft ss smbd
  # `ip netns exec` passes the kit's environment on (ssh would not): the client hosts' temp
  # folder is /tmp here, as on a host without TMPDIR
  export TMPDIR=/tmp
}

# ch_nothing_changed: no folder, table or client-host folder of the kit.
ch_nothing_changed() {
  local d
  for d in conf state log share mnt; do
    [[ ! -e $PK_ROOT/$d ]] || fail "'$PK_ROOT/$d' was created"
  done
  ! nft list table ip "$PK_TABLE" >/dev/null 2>&1 || fail "table '$PK_TABLE' was created"
  [[ -z $(ch_kit_dirs) ]] || fail "client host folders: $(ch_kit_dirs)"
}

@test "a client host that does not answer the remote shell: refused in one line naming it, nothing changed" {
  CLIENT_HOSTS="${NETNS_HOSTS%% *} ${NETNS_TAG}c9" run "$KIT_ROOT/start-samba.sh"
  assert_failure 1
  assert_output --partial "client host '${NETNS_TAG}c9' does not answer"
  [[ $(grep -c . <<<"$output") -eq 1 ]] || fail "more than one line: $output"
  ch_nothing_changed
}

@test "an address this host does not have: refused naming CLIENT_HOSTS_SERVER_ADDR, nothing changed" {
  CLIENT_HOSTS_SERVER_ADDR=${NETNS_ADDR%.1}.77 run "$KIT_ROOT/start-samba.sh"
  assert_failure 1
  assert_output --partial "'CLIENT_HOSTS_SERVER_ADDR'"
  assert_output --partial "no interface of this host has that address"
  ch_nothing_changed
}

@test "a program serving port 445 of every address (a host Samba): refused, nothing changed" {
  python3 -c 'import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 445)); s.listen(); time.sleep(20)' 3>&- &
  local pid=$!
  for _ in {1..50}; do ss -Hltn 'sport = :445' | grep -q . && break; sleep 0.1; done
  run "$KIT_ROOT/start-samba.sh"
  kill "$pid"
  wait "$pid" || true
  assert_failure 1
  assert_output --partial "'CLIENT_HOSTS_SERVER_ADDR'"
  assert_output --partial "port 445 there is served by another program"
  ch_nothing_changed
}

@test "another nftables table that already redirects the test address's port 445: refused naming it, nothing changed" {
  local t=${NETNS_TAG}x
  nft -f - <<NFT
table ip $t {
  chain prerouting {
    type nat hook prerouting priority -100; policy accept;
    ip daddr $NETNS_ADDR tcp dport 445 dnat to $NETNS_ADDR:4999
  }
}
NFT
  run "$KIT_ROOT/start-samba.sh"
  nft delete table ip "$t"
  assert_failure 1
  assert_output "error: setting 'CLIENT_HOSTS_SERVER_ADDR' has bad value '$NETNS_ADDR': the nftables table 'ip $t' already redirects its port 445 (another kit's, or the host's): use another address of this host"
  ch_nothing_changed
}

@test "a client host with another fio version, or none: refused in one line naming the host (and both versions), nothing changed" {
  local h2=${NETNS_HOSTS##* } here
  here=$(fio --version)
  # a second fio version cannot be installed here: host 2's shell finds a stand-in fio first
  mkdir -p "$BATS_TEST_TMPDIR/stub"
  cat >"$BATS_TEST_TMPDIR/shell" <<SH
#!/bin/sh
if [ "\$1" = "$h2" ]; then PATH=$BATS_TEST_TMPDIR/stub:\$PATH; export PATH; fi
exec ip netns exec "\$@"
SH
  printf '#!/bin/sh\necho fio-3.1-kit-test\n' >"$BATS_TEST_TMPDIR/stub/fio"
  chmod +x "$BATS_TEST_TMPDIR/shell" "$BATS_TEST_TMPDIR/stub/fio"
  CLIENT_SHELL=$BATS_TEST_TMPDIR/shell run "$KIT_ROOT/start-samba.sh"
  assert_failure 1
  assert_output "error: client host '$h2' has fio-3.1-kit-test, this host $here: fio's client/server protocol differs between versions; install $here there"
  ch_nothing_changed
  printf '#!/bin/sh\nexit 127\n' >"$BATS_TEST_TMPDIR/stub/fio"
  CLIENT_SHELL=$BATS_TEST_TMPDIR/shell run "$KIT_ROOT/start-samba.sh"
  assert_failure 1
  assert_output "error: client host '$h2' has no fio (package fio): the fio metrics run there through fio's client/server mode"
  ch_nothing_changed
}
