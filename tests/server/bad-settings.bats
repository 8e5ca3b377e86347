#!/usr/bin/env bats
# Bad settings: start-samba.sh rejects each with one line naming the key, exits 1, and
# nothing on the system has changed (no folder, user, table, process, cgroup).

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  [[ $(id -u) -eq 0 ]] || return 0
  srv_setup_file s3 127.0.0.5
}

teardown_file() {
  load server-setup
  if [[ -n ${SRV_USER:-} ]] && getent passwd "${SRV_USER}x" | grep -q ':not the kit:'; then
    userdel "${SRV_USER}x" >/dev/null 2>&1 || true
  fi
  srv_teardown_file
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  kit_require_root
  kit_require_cmd ss nft
}

# bad_case KEY 'ENV=VALUE'...: start with the overrides; expect exit 1, the key named, no change.
bad_case() {
  local key=$1
  shift
  run env "$@" "$KIT_ROOT/start-samba.sh"
  [[ $status -eq 1 ]] || fail "$* : exit $status, expected 1; output: $output"
  [[ $output == *"'$key'"* ]] || fail "$* : the message does not name '$key': $output"
  [[ $(grep -c . <<<"$output") -eq 1 ]] || fail "$* : more than one line: $output"
  srv_assert_nothing_changed
}

# srv_assert_nothing_changed: no folder, user, table, process or cgroup of the kit appeared.
srv_assert_nothing_changed() {
  local d
  for d in conf state log share mnt; do
    [[ ! -e $SRV_ROOT/$d ]] || fail "'$SRV_ROOT/$d' was created"
  done
  ! getent passwd "$SRV_USER" >/dev/null || fail "user '$SRV_USER' was created"
  ! nft list table ip "$SRV_TABLE" >/dev/null 2>&1 || fail "table '$SRV_TABLE' was created"
  [[ -z $(srv_kit_pids) ]] || fail "an smbd of the kit runs"
  [[ ! -e /sys/fs/cgroup/unified/$SRV_SERVICE ]] || fail "a cgroup was created"
}

@test "a table of bad values: each rejected with the key named, nothing changed" {
  local n=0
  local -a assigns
  while IFS='|' read -r key assign; do
    [[ -n $key ]] || continue
    IFS=';' read -ra assigns <<<"$assign"
    bad_case "$key" "${assigns[@]}"
    n=$((n + 1))
  done <<TABLE
TEST_PORT|TEST_PORT=80
TEST_PORT|TEST_PORT=44a
TEST_PORT|TEST_PORT=70000
SERVER_ADDR|SERVER_ADDR=10.0.0.1
CLIENT_ADDR|CLIENT_ADDR=127.0.0.1
CLIENT_ADDR|CLIENT_ADDR=127.0.0.300
SERVICE_NAME|SERVICE_NAME=smbd
SERVICE_NAME|SERVICE_NAME=../evil
SHARE_NAME|SHARE_NAME=homes
SHARE_DIR|SHARE_DIR=relative/share
SHARE_DIR|SHARE_DIR=/etc
SHARE_DIR|SHARE_DIR=/srv/a b
STATE_DIR|STATE_DIR=/var/lib/samba
CONF_DIR|CONF_DIR=$SRV_ROOT/share/conf
LOG_DIR|LOG_DIR=/
TEST_USER|TEST_USER=root
TEST_USER|TEST_USER=Bad User
NFT_TABLE|NFT_TABLE=bad-name
ENCRYPTION|ENCRYPTION=maybe
SIGNING|SIGNING=required
SIGNING|ENCRYPTION=yes;SIGNING=disabled
STRICT_SYNC|STRICT_SYNC=1
USE_SENDFILE|USE_SENDFILE=
INSTALL_PACKAGES|INSTALL_PACKAGES=sometimes
DURATION|DURATION=0
WORKERS|WORKERS=-3
CONCURRENCY_LEVELS|CONCURRENCY_LEVELS=4 1
MEMORY_CONNECTIONS|MEMORY_CONNECTIONS=lots
TARGET_LATENCY_P99_MAX_MS|TARGET_LATENCY_P99_MAX_MS=fast
CLIENT_HOSTS|CLIENT_HOSTS=ws1 bad/host;CLIENT_HOSTS_SERVER_ADDR=198.18.0.1
CLIENT_HOSTS|CLIENT_HOSTS=ws1 ws1;CLIENT_HOSTS_SERVER_ADDR=198.18.0.1
CLIENT_HOSTS_SERVER_ADDR|CLIENT_HOSTS=ws1
CLIENT_HOSTS_SERVER_ADDR|CLIENT_HOSTS_SERVER_ADDR=198.18.0.1
CLIENT_HOSTS_SERVER_ADDR|CLIENT_HOSTS=ws1;CLIENT_HOSTS_SERVER_ADDR=127.0.0.1
CLIENT_HOSTS_SERVER_ADDR|CLIENT_HOSTS=ws1;CLIENT_HOSTS_SERVER_ADDR=198.18.0.300
CLIENT_SHELL|CLIENT_SHELL=ssh $(id)
CLIENT_SHELL|CLIENT_HOSTS=ws1;CLIENT_HOSTS_SERVER_ADDR=198.18.0.1;CLIENT_SHELL=no-such-remote-shell -x
TABLE
  ((n >= 15))
}

@test "TEST_PORT in use by another program: rejected, nothing changed" {
  python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$SRV_PORT" 3>&- &
  local pid=$!
  for _ in {1..50}; do srv_listening && break; sleep 0.1; done
  run "$KIT_ROOT/start-samba.sh"
  kill "$pid"
  wait "$pid" || true
  assert_failure 1
  assert_output --partial "'TEST_PORT'"
  assert_output --partial "in use by another program"
  srv_assert_nothing_changed
}

@test "TEST_USER exists and was not made by the kit: rejected, nothing changed" {
  useradd --system --no-create-home --shell /usr/sbin/nologin --comment 'not the kit' "${SRV_USER}x"
  TEST_USER=${SRV_USER}x run "$KIT_ROOT/start-samba.sh"
  userdel "${SRV_USER}x"
  assert_failure 1
  assert_output --partial "user '${SRV_USER}x' exists and was not made by the kit"
  assert_output --partial "TEST_USER"
  for d in conf state log share mnt; do
    [[ ! -e $SRV_ROOT/$d ]] || fail "'$SRV_ROOT/$d' was created"
  done
}

@test "SHARE_DIR is a folder with files the kit did not make: rejected, the folder untouched" {
  mkdir -p "$SRV_ROOT/users-data"
  echo precious >"$SRV_ROOT/users-data/file"
  SHARE_DIR=$SRV_ROOT/users-data run "$KIT_ROOT/start-samba.sh"
  assert_failure 1
  assert_output --partial "'SHARE_DIR'"
  [[ $(<"$SRV_ROOT/users-data/file") == precious ]]
  run ls -A "$SRV_ROOT/users-data"
  assert_output file
  srv_assert_nothing_changed
  # and cleanup with that setting keeps the user's folder
  SHARE_DIR=$SRV_ROOT/users-data run srv_cleanup
  assert_success
  [[ $(<"$SRV_ROOT/users-data/file") == precious ]]
  rm -rf "$SRV_ROOT/users-data"
}
