#!/usr/bin/env bats
# shellcheck disable=SC2016 # the bash -c programs expand in the child
# lib/settings.sh: defaults, file, environment, validation. No root needed.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/settings.sh
  source "$KIT_ROOT/lib/settings.sh"
}

# load_with [VAR=value...]: settings_load in a subshell with the given environment.
load_with() {
  env "$@" bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; settings_dump' "$KIT_ROOT"
}

@test "settings.conf is the one list of keys and defaults: every key documented once" {
  local key count
  while IFS= read -r key; do
    count=$(grep -cE "^$key=" "$KIT_ROOT/settings.conf")
    [[ $count -eq 1 ]] || fail "'$key' appears $count times in settings.conf"
    grep -qE "^$key=[^#]*#[[:space:]]*[[:alnum:]]" "$KIT_ROOT/settings.conf" || fail "'$key' has no comment in settings.conf"
  done < <(settings_keys)
  count=$(grep -cE '^[A-Z0-9_]+=' "$KIT_ROOT/settings.conf")
  assert_equal "$count" "$(settings_keys | wc -l)"
  run grep -cE '(TEST_PORT|DATA_FILE_MB)=[0-9]' "$KIT_ROOT/lib/settings.sh"
  assert_output 0
}

@test "the defaults are settings.conf's values, read as data" {
  run load_with
  assert_success
  assert_line "DURATION=5"
  assert_line 'CONCURRENCY_LEVELS="1 4 16 64 128"'
  assert_line "RESULTS_DIR=$KIT_ROOT/results"
}

@test "an environment variable wins over the file" {
  run load_with DURATION=300 CONCURRENCY_LEVELS="1 2 3"
  assert_success
  assert_line "DURATION=300"
  assert_line 'CONCURRENCY_LEVELS="1 2 3"'
}

@test "a settings file given by KIT_SETTINGS is read, and the environment still wins" {
  printf 'DURATION=7\nWORKERS=3\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf" WORKERS=5
  assert_success
  assert_line "DURATION=7"
  assert_line "WORKERS=5"
}

@test "an unknown key in the file is rejected by name" {
  printf 'DURATON=5\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf"
  assert_failure 1
  assert_output --partial "unknown setting 'DURATON'"
}

@test "a line that is not KEY=VALUE is rejected with the file and line number" {
  printf '# ok\nDURATION=5\nDURATION="5\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf"
  assert_failure 1
  assert_output --partial "$BATS_TEST_TMPDIR/s.conf:3:"
}

@test "a missing KIT_SETTINGS file is an error" {
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/none.conf"
  assert_failure 1
  assert_output --partial "does not exist"
}

@test "each bad value is rejected with the key and the value named" {
  local -a cases=(
    "DURATION=0" "DURATION=ten" "TEST_PORT=445" "TEST_PORT=70000" "SERVER_ADDR=10.0.0.1"
    "CLIENT_ADDR=127.0.0.1" "CLIENT_ADDR=127.0.0.300" "SHARE_DIR=relative/path" "SHARE_DIR=/etc"
    "STATE_DIR=/var/lib/samba" "CONF_DIR=/srv/samba-perf-test/conf" "MOUNT_POINT=/mnt/a b"
    "ENCRYPTION=maybe" "SIGNING=always" "CONCURRENCY_LEVELS=4 1" "CONCURRENCY_LEVELS=1,4"
    "TEST_USER=root" "TEST_USER=Bad-Name" "SERVICE_NAME=smbd" "SHARE_NAME=IPC\$"
    "NFT_TABLE=bad-name" "TARGET_LATENCY_P99_MAX_MS=-1" "TARGET_ERRORS_MAX_PCT=150"
    "WORKERS=0" "LOAD_RATE=1e3" "LOAD_RATE=1" "SHARE_DIR=/srv/x/../y" "DURATION=08" "DURATION=18446744073709551617"
    "TEST_PORT=04450" "SERVER_ADDR=127.0.0.01" "CLIENT_ADDR=127.000.0.1" "CLIENT_ADDR=0127.0.0.2"
    "TARGET_SEQREAD_MIN_MBS=18446744073709551617" "CONCURRENCY_LEVELS=1 08" "SHARE_DIR=/srv//x"
    "SHARE_DIR=/srv/x/" "STATE_DIR=/var/lib/mysql" "CONF_DIR=/etc/ssh" "LOG_DIR=/var/log/apt"
    "SHARE_DIR=/home/alice" "STATE_DIR=/var/lib/samba/private" "SHARE_DIR=/usr/share/x" "RESULTS_DIR=/etc"
  )
  local c key value
  for c in "${cases[@]}"; do
    key=${c%%=*} value=${c#*=}
    run load_with "$c"
    [[ $status -eq 1 ]] || fail "'$c' was accepted (status $status)"
    [[ $output == *"setting '$key' has bad value '$value'"* ]] || fail "'$c' gave: $output"
  done
}

@test "settings_diff_defaults names only what differs" {
  run env DURATION=30 bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; settings_diff_defaults' "$KIT_ROOT"
  assert_success
  assert_output "DURATION=30 (default: 5)"
}

@test "derived names follow the settings" {
  run env CONF_DIR=/opt/kit/conf CLIENT_ADDR=127.0.0.5 bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; echo "$KIT_CONF $KIT_CREDENTIALS $KIT_UNC $RESULTS_DIR"' "$KIT_ROOT"
  assert_success
  assert_output "/opt/kit/conf/smb.conf /opt/kit/conf/credentials //127.0.0.5/perftest $KIT_ROOT/results"
}

@test "a settings file is data: code in it never runs, the line is named" {
  local f=$BATS_TEST_TMPDIR/s.conf mark=$BATS_TEST_TMPDIR/ran
  local -a attacks=(
    "DURATION=\$(touch $mark)" "DURATION=\`touch $mark\`" "touch $mark" "settings_validate() { :; }"
    "DURATION=5; touch $mark" "DURATION=\"\$(touch $mark)\"" "export DURATION=5"
  )
  local a
  for a in "${attacks[@]}"; do
    printf 'WORKERS=3\n%s\n' "$a" >"$f"
    run load_with KIT_SETTINGS="$f"
    [[ $status -eq 1 ]] || fail "'$a' was accepted: $output"
    [[ $output == *"$f:2:"* ]] || fail "'$a': the message does not name the line: $output"
    [[ ! -e $mark ]] || fail "'$a' ran code"
  done
}

@test "quoted values: the syntax settings.conf documents" {
  local f=$BATS_TEST_TMPDIR/s.conf
  cat >"$f" <<'CONF'
# comment
CONCURRENCY_LEVELS="1 2"   # a comment after a quoted value
SHARE_NAME='share1'
TEST_USER=perfuser # a comment after a bare value
CONF
  run load_with KIT_SETTINGS="$f"
  assert_success
  assert_line 'CONCURRENCY_LEVELS="1 2"'
  assert_line 'SHARE_NAME=share1'
  assert_line 'TEST_USER=perfuser'
  grep -q 'KEY="value with spaces"' "$KIT_ROOT/settings.conf" || fail "settings.conf's header does not document quoting"
}

@test "a key set twice and an unknown key name the line" {
  printf 'WORKERS=3\nWORKERS=4\n' >"$BATS_TEST_TMPDIR/s.conf"
  run load_with KIT_SETTINGS="$BATS_TEST_TMPDIR/s.conf"
  assert_failure 1
  assert_output --partial "s.conf:2: setting 'WORKERS' is set twice"
}

@test "paths are canonical before the checks: a symlink to a system folder is refused" {
  ln -s /etc "$BATS_TEST_TMPDIR/etc-link"
  run load_with CONF_DIR="$BATS_TEST_TMPDIR/etc-link"
  assert_failure 1
  assert_output --partial "setting 'CONF_DIR' has bad value '$BATS_TEST_TMPDIR/etc-link': resolves to '/etc'"
  mkdir -p "$BATS_TEST_TMPDIR/real"
  ln -s "$BATS_TEST_TMPDIR/real" "$BATS_TEST_TMPDIR/link"
  run env SHARE_DIR="$BATS_TEST_TMPDIR/link/share" bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; echo "$SHARE_DIR"' "$KIT_ROOT"
  assert_success
  assert_output "$BATS_TEST_TMPDIR/real/share"
}

@test "inherited KIT_* state names are forgotten by settings_load" {
  run env KIT_NFT_TABLE=filter KIT_CGROUP=/sys/fs/cgroup/unified/init.scope KIT_SELINUX_PORT=22 \
    bash -c 'source "$0/lib/common.sh"; source "$0/lib/settings.sh"; settings_load "$0"; echo "[${KIT_NFT_TABLE:-}${KIT_CGROUP:-}${KIT_SELINUX_PORT:-}]"' "$KIT_ROOT"
  assert_success
  assert_output "[]"
}

@test "RESULTS_DIR inside a folder cleanup removes is refused" {
  run load_with RESULTS_DIR=/srv/samba-perf-test/results
  assert_failure 1
  assert_output --partial "setting 'RESULTS_DIR'"
  assert_output --partial "SHARE_DIR"
}

@test "settings_quote and settings_read_file round-trip any one-line value" {
  local f=$BATS_TEST_TMPDIR/rt.env v i=0
  local -a values=('plain' 'a b' 'q"uote' "s'ingle" 'back\slash' '$(id)' '`id`' '#hash' ' lead' '' 'x # y' 'uid=0,seal')
  : >"$f"
  for v in "${values[@]}"; do
    printf 'K%d=%s\n' "$i" "$(settings_quote "$v")" >>"$f"
    i=$((i + 1))
  done
  settings_read_file "$f"
  i=0
  for v in "${values[@]}"; do
    [[ ${SETTINGS_READ[K$i]} == "$v" ]] || fail "'$v' came back as '${SETTINGS_READ[K$i]}'"
    i=$((i + 1))
  done
}

@test "the tests' private kits: valid settings, and service, user and table names new in every run" {
  # a suite killed half-way leaves its server's cgroup or table behind, and start refuses what
  # the kit did not make: fixed names failed every later suite on that machine (CI, 036aeed)
  load '../test_helper/private-kit'
  private_kit_setup m 4460 4469 127.0.0.9 small <<<'DURATION=2'
  local first_root=$PK_ROOT first_service=$PK_SERVICE first_user=$PK_USER first_table=$PK_TABLE
  run load_with KIT_SETTINGS="$PK_ROOT/settings.conf"
  assert_success
  assert_line "SERVICE_NAME=$PK_SERVICE"
  assert_line "TEST_USER=$PK_USER"
  assert_line "NFT_TABLE=$PK_TABLE"
  assert_line "DURATION=2" # stdin replaces the small size: the key is set once
  [[ $(grep -c '^DURATION=' "$PK_ROOT/settings.conf") -eq 1 ]] || fail "DURATION is set twice: $(cat "$PK_ROOT/settings.conf")"
  assert_line "DATA_FILE_MB=16"
  private_kit_setup m 4460 4469 127.0.0.9 </dev/null
  rm -rf "$first_root" "$PK_ROOT"
  [[ $PK_SERVICE != "$first_service" && $PK_USER != "$first_user" && $PK_TABLE != "$first_table" ]] ||
    fail "two runs got the same names: $PK_SERVICE $PK_USER $PK_TABLE"
}

@test "client host settings (issue 23): each bad value named in one line; empty CLIENT_HOSTS is today's kit" {
  local c key value hosts='CLIENT_HOSTS=ws1 root@ws2.example.org' addr='CLIENT_HOSTS_SERVER_ADDR=198.18.0.1'
  # a remote shell every system has (its command must be installed once hosts are set): a
  # minimal Debian has no ssh, and the CLIENT_SHELL check came before the address's
  local ok="$hosts|CLIENT_SHELL=env"
  # each case: the bad KEY=VALUE last, the keys it needs before it
  local -a cases=(
    "CLIENT_HOSTS_SERVER_ADDR=198.18.0.1"
    "$addr|CLIENT_HOSTS=ws1 -oProxyCommand=x" "$addr|CLIENT_HOSTS=ws1 ws1" "$addr|CLIENT_HOSTS=ws1 bad/host"
    "$ok|CLIENT_HOSTS_SERVER_ADDR=" "$ok|CLIENT_HOSTS_SERVER_ADDR=127.0.0.1" "$ok|CLIENT_HOSTS_SERVER_ADDR=198.18.0.01"
    "$ok|CLIENT_HOSTS_SERVER_ADDR=224.0.0.1" "$ok|CLIENT_HOSTS_SERVER_ADDR=0.0.0.0" "$ok|CLIENT_HOSTS_SERVER_ADDR=ws1"
    "CLIENT_SHELL=ssh \$(id)" "CLIENT_SHELL=ssh;id" "CLIENT_SHELL=" "$hosts|$addr|CLIENT_SHELL=no-such-remote-shell -x"
  )
  local -a env
  for c in "${cases[@]}"; do
    IFS='|' read -ra env <<<"$c"
    key=${env[-1]%%=*} value=${env[-1]#*=}
    run load_with "${env[@]}"
    [[ $status -eq 1 ]] || fail "'$c' was accepted (status $status)"
    [[ $output == *"setting '$key' has bad value '$value'"* ]] || fail "'$c' gave: $output"
    [[ $(grep -c . <<<"$output") -eq 1 ]] || fail "'$c': more than one line: $output"
  done
  run load_with "$hosts" "$addr" "CLIENT_SHELL=ip netns exec"
  assert_success
  run load_with CLIENT_SHELL=no-such-remote-shell
  assert_success
}
