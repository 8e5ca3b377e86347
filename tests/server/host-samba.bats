#!/usr/bin/env bats
# A Samba of the host (here: one the test starts on 127.0.0.1:445 with its own private
# config) keeps its PID, keeps answering and never learns the test user while the kit
# starts, stops and cleans up.

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  [[ $(id -u) -eq 0 ]] || return 0
  command -v smbd >/dev/null || return 0
  srv_setup_file s2 127.0.0.4
  if ss -Hltn 'sport = :445' | grep -q .; then
    export HOST_SKIP="port 445 is in use on this machine: cannot start a stand-in host smbd"
    return 0
  fi
  HOST_DIR=$SRV_ROOT/host
  mkdir -p "$HOST_DIR"/{pub,private,lock,state,cache,pid,ncalrpc,log}
  chmod 0777 "$HOST_DIR/pub"
  cat >"$HOST_DIR/smb.conf" <<CONF
[global]
  server role = standalone server
  netbios name = HOSTSMB
  workgroup = HOSTWG
  smb ports = 445
  interfaces = 127.0.0.1
  bind interfaces only = yes
  disable netbios = yes
  private dir = $HOST_DIR/private
  lock directory = $HOST_DIR/lock
  state directory = $HOST_DIR/state
  cache directory = $HOST_DIR/cache
  pid directory = $HOST_DIR/pid
  ncalrpc dir = $HOST_DIR/ncalrpc
  log file = $HOST_DIR/log/log.smbd
  load printers = no
  printcap name = /dev/null
  disable spoolss = yes
  map to guest = bad user
[pub]
  path = $HOST_DIR/pub
  guest ok = yes
  read only = no
CONF
  smbd -D -s "$HOST_DIR/smb.conf" </dev/null >/dev/null 2>&1 3>&-
  local i
  for ((i = 0; i < 100; i++)); do
    timeout 5 smbclient -s "$HOST_DIR/smb.conf" -N //127.0.0.1/pub -c '' >/dev/null 2>&1 && break
    sleep 0.1
  done
  HOST_PID=$(<"$HOST_DIR/pid/smbd.pid")
  export HOST_DIR HOST_PID
}

teardown_file() {
  load server-setup
  if [[ -n ${HOST_PID:-} ]] && grep -qF "$HOST_DIR/smb.conf" "/proc/$HOST_PID/cmdline" 2>/dev/null; then
    kill -TERM "$HOST_PID"
    for _ in {1..100}; do [[ -e /proc/$HOST_PID ]] || break; sleep 0.1; done
  fi
  srv_teardown_file
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  kit_require_root
  kit_require_cmd smbd smbclient nft ss
  [[ -z ${HOST_SKIP:-} ]] || skip "$HOST_SKIP"
}

# host_assert_untouched: same PID, still answers on 127.0.0.1:445, no kit user in its passdb.
host_assert_untouched() {
  [[ $(<"$HOST_DIR/pid/smbd.pid") == "$HOST_PID" ]] || fail "the host smbd's pid changed"
  [[ -e /proc/$HOST_PID ]] || fail "the host smbd is gone"
  run timeout 10 smbclient -s "$HOST_DIR/smb.conf" -N //127.0.0.1/pub -c 'ls'
  assert_success
  run pdbedit -s "$HOST_DIR/smb.conf" -L
  refute_output --partial "$SRV_USER"
}

@test "the stand-in host smbd answers on 127.0.0.1:445 before the kit runs" {
  host_assert_untouched
}

@test "start: host smbd keeps its pid and answers; the kit answers through its own address" {
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  host_assert_untouched
  run srv_login "$SRV_ADDR"
  assert_success
  # 127.0.0.1:445 still reaches the host smbd, not the kit (the kit's user is unknown there)
  run timeout 10 smbclient -s "$SRV_ROOT/conf/smb.conf" -A "$SRV_ROOT/conf/credentials" //127.0.0.1/perftest -c ''
  assert_failure
}

@test "stop: host smbd keeps its pid and answers" {
  run "$KIT_ROOT/stop-samba.sh"
  assert_success
  host_assert_untouched
}

@test "cleanup: host smbd keeps its pid and answers" {
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  run srv_cleanup
  assert_success
  srv_assert_clean
  host_assert_untouched
}
