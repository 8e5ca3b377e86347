#!/usr/bin/env bats
# Client hosts (issue 23) through a real remote shell: a real sshd in a network namespace on
# 198.18.0.0/15 (tests/test_helper/netns.bash), root's key login with keys generated for the
# test in a root-only temp folder, and the login metric through CLIENT_SHELL=ssh: start
# (helpers copied over ssh), the storm from the host, cleanup over ssh. Where sshd is not
# installed (package openssh-server) the test skips, naming why. Everything it makes (sshd, the
# keys, /run/sshd when it was missing, the kit, the namespace) is removed on every way out.
# Runs under the shared lock (it starts a kit).

setup_file() {
  load ../test_helper/clienthosts
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  command -v ip >/dev/null || return 0
  ch_namespaces 1 || return 0
  private_kit_setup cs 4580 4589 127.0.0.26 small <<<'WORKERS=2' || return 1
}

teardown_file() {
  load ../test_helper/clienthosts
  ch_teardown_file
}

setup() {
  load ../test_helper/clienthosts
  ch_setup ip nft ss smbd ssh ssh-keygen
}

teardown() {
  ssh_host_stop
}

# ssh_host_start NS ADDR: a real sshd in namespace NS on ADDR:22, root's key login only, with a
# generated host key and client key in a root-only temp folder (SSH_DIR; no secret on a command
# line: the keys are files); sets SSH_PID and SSH_SHELL (the CLIENT_SHELL that reaches it).
# ssh_host_stop (teardown) undoes all of it, also when the test failed half-way.
ssh_host_start() {
  local ns=$1 addr=$2 sshd i
  sshd=$(command -v sshd || echo /usr/sbin/sshd)
  SSH_DIR=$(mktemp -d) || return 1
  chmod 0700 "$SSH_DIR"
  ssh-keygen -q -t ed25519 -N '' -C kit-test -f "$SSH_DIR/key" || return 1
  ssh-keygen -q -t ed25519 -N '' -C kit-test-host -f "$SSH_DIR/hostkey" || return 1
  cp "$SSH_DIR/key.pub" "$SSH_DIR/authorized_keys"
  printf '%s %s\n' "$addr" "$(cut -d' ' -f1,2 "$SSH_DIR/hostkey.pub")" >"$SSH_DIR/known_hosts"
  # sshd's privilege separation folder: made here only if missing, and then removed again
  if [[ ! -d /run/sshd ]]; then
    mkdir -m 0755 /run/sshd && touch "$SSH_DIR/made-run-sshd"
  fi
  cat >"$SSH_DIR/sshd_config" <<CONF
ListenAddress $addr:22
HostKey $SSH_DIR/hostkey
AuthorizedKeysFile $SSH_DIR/authorized_keys
PidFile $SSH_DIR/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM $SSH_USE_PAM
StrictModes no
LoginGraceTime 20
CONF
  "$sshd" -t -f "$SSH_DIR/sshd_config" || return 1
  ip netns exec "$ns" "$sshd" -D -e -f "$SSH_DIR/sshd_config" 2>"$SSH_DIR/sshd.log" &
  SSH_PID=$!
  for ((i = 0; i < 100; i++)); do
    ip netns exec "$ns" ss -Hltn "sport = :22" | grep -q . && break
    kill -0 "$SSH_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  SSH_SHELL="ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=yes -i $SSH_DIR/key -o UserKnownHostsFile=$SSH_DIR/known_hosts"
}

ssh_host_stop() {
  # a kit started through ssh is cleaned up through ssh (its client host folder too)
  if [[ -n ${SSH_KIT:-} ]]; then
    "$KIT_ROOT/test-samba.sh" cleanup >/dev/null 2>&1 || true
    SSH_KIT=''
  fi
  if [[ -n ${SSH_PID:-} ]]; then
    kill "$SSH_PID" 2>/dev/null || true
    timeout 10 tail --pid="$SSH_PID" -f /dev/null 2>/dev/null || kill -KILL "$SSH_PID" 2>/dev/null || true
    wait "$SSH_PID" 2>/dev/null || true
    SSH_PID=''
  fi
  if [[ -n ${SSH_DIR:-} && -d $SSH_DIR ]]; then
    [[ ! -e $SSH_DIR/made-run-sshd ]] || rmdir /run/sshd 2>/dev/null || true
    rm -rf "$SSH_DIR"
    SSH_DIR=''
  fi
}

@test "the ssh path: a real sshd in a client host, the login metric through CLIENT_SHELL=ssh, cleanup through it" {
  command -v sshd >/dev/null || [[ -x /usr/sbin/sshd ]] ||
    skip "openssh-server is not installed (no sshd): the ssh path is not tried here"
  # sshd without PAM refuses a key login to a locked account ('!' password, as root's is on a
  # Debian installed without a root password); with PAM (Debian's /etc/pam.d/sshd) it takes it
  SSH_USE_PAM=no
  if [[ $(getent shadow root | cut -d: -f2) == '!'* ]]; then
    [[ -f /etc/pam.d/sshd ]] ||
      skip "root's account is locked ('!' password) and sshd has no PAM file: sshd refuses its key login"
    SSH_USE_PAM=yes
  fi
  local ns=$NETNS_HOSTS addr=${NETNS_ADDR%.1}.2 run_dir dest
  dest=root@$addr
  ssh_host_start "$ns" "$addr" || fail "sshd did not start: $(cat "$SSH_DIR/sshd.log" 2>/dev/null)"
  local -a ssh
  read -ra ssh <<<"$SSH_SHELL"
  run timeout 30 "${ssh[@]}" "$dest" echo hello
  assert_output hello
  # a kit whose one client host is reached by ssh (the environment wins over the settings file)
  export CLIENT_HOSTS=$dest CLIENT_SHELL=$SSH_SHELL CLIENT_HOSTS_SERVER_ADDR=$NETNS_ADDR
  SSH_KIT=1
  private_kit_start || fail "start failed: $(tail -n 5 "$PK_ROOT/start.log")"
  grep -q "client host '$dest': helpers in" "$PK_ROOT/start.log" || fail "no helpers on $dest: $(cat "$PK_ROOT/start.log")"
  # its boot id, read through ssh: the sshd's namespace shares this machine's kernel
  grep -q "client host '$dest': .*; it is this machine (the same boot id)$" "$PK_ROOT/start.log" ||
    fail "the boot id through ssh: $(grep "client host '$dest'" "$PK_ROOT/start.log")"
  run "$KIT_ROOT/test-samba.sh" login
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  jq -e '.ok == true and .ops > 0' "$run_dir/raw/login.client-root_$addr.json" >/dev/null ||
    fail "login through ssh: $(cat "$run_dir/raw/login.client-root_$addr.json" "$run_dir/raw/login.client-root_$addr.err" 2>&1)"
  run jq -r '.details.count_check.ok' "$run_dir/metrics/login.json"
  assert_output true
  run "$KIT_ROOT/test-samba.sh" cleanup
  assert_success
  if grep -qx "samba-perf-test kit $PK_ROOT/state" /tmp/samba-perf-test-client.*/.samba-perf-test-client 2>/dev/null; then
    fail "left on the client host: $(ls -d /tmp/samba-perf-test-client.*)"
  fi
}

