#!/usr/bin/env bats
# tests/metrics/server-settings.bats: the report describes the server that was measured: its
# Samba settings read back from the running test smbd (its smb.conf through testparm, the
# state start-samba.sh recorded, smbstatus), never test-samba.sh's own environment. Against a
# private kit started here (port 4540-4549, client 127.0.0.13, own user, table and service).

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  load '../test_helper/private-kit'
  private_kit_setup s 4540 4549 127.0.0.13 small <<<'MEMORY_CONNECTIONS=4' || return 1
  S_ROOT=$PK_ROOT
  export S_ROOT
  make -C "$KIT_ROOT/helpers" >/dev/null
}

teardown_file() {
  load '../test_helper/private-kit'
  private_kit_teardown
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_root
  kit_require_cmd jq testparm smbstatus
}

# start [NAME=VALUE...]: start-samba.sh with NAME=VALUE in its environment; fail with its log.
start() {
  env "$@" "$KIT_ROOT/start-samba.sh" >"$S_ROOT/start.log" 2>&1 || fail "start-samba.sh failed: $(cat "$S_ROOT/start.log")"
}

# measure [NAME=VALUE...]: a short run (memory) with NAME=VALUE in test-samba.sh's environment;
# sets DIR to its results folder.
measure() {
  run env "$@" "$KIT_ROOT/test-samba.sh" memory
  [[ $status -eq 0 || $status -eq 1 ]] || fail "test-samba.sh: exit status $status: $output"
  DIR=$(find "$S_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
}

@test "server settings: started with ENCRYPTION=yes, run without it: the report shows yes and why" {
  start ENCRYPTION=yes
  run grep -E '^KIT_(SAMBA_SETTINGS|SAMBA_SETTINGS_ENV|CONF_SHA256)=' "$S_ROOT/state/kit.env"
  assert_line 'KIT_SAMBA_SETTINGS="ENCRYPTION=yes SIGNING=default STRICT_SYNC=yes USE_SENDFILE=no"'
  assert_line 'KIT_SAMBA_SETTINGS_ENV=ENCRYPTION'
  assert_line --regexp '^KIT_CONF_SHA256=[0-9a-f]{64}$'
  measure
  run jq -r '.server_settings | "\(.in_effect.ENCRYPTION) \(.differences[0].key) \(.differences[0].asked) \(.differences[0].server) \(.parameters.global["server smb encrypt"])"' "$DIR/system.json"
  assert_output 'yes ENCRYPTION no yes required'
  # everything of the run follows the server: settings.env, the changed settings, the warnings
  run grep '^ENCRYPTION=' "$DIR/settings.env"
  assert_output 'ENCRYPTION=yes'
  run jq -r '.settings_changed[], .warnings[]' "$DIR/system.json"
  assert_line 'ENCRYPTION=yes (default: no)'
  assert_line "ENCRYPTION=no in $S_ROOT/settings.conf, but the server runs with ENCRYPTION=yes: this run measured yes; run ./start-samba.sh to apply ENCRYPTION=no"
  refute_output --partial 'shows encrypted sessions'
  run jq -r '.sessions.encryption' "$DIR/system.json"
  refute_output '-'
  run cat "$DIR/report.md"
  assert_output --regexp '\| Samba settings in effect \| ENCRYPTION=yes \(not no as [^)]*settings.conf says: start-samba.sh has not applied that\), SIGNING=default, STRICT_SYNC=yes, USE_SENDFILE=no; read back from the running server \(testparm -s [^)]*smb.conf\)'
  assert_output --partial 'server smb encrypt = required'
}

@test "server settings: started without, run with a Samba parameter under test: the report shows the server's (none) and why" {
  start
  run grep '^KIT_SAMBA_PARAMS=' "$S_ROOT/state/kit.env"
  assert_output 'KIT_SAMBA_PARAMS="{\"SAMBA_GLOBAL_PARAMS\":\"\",\"SAMBA_SHARE_PARAMS\":\"\"}"'
  measure SAMBA_GLOBAL_PARAMS='aio read size = 0'
  run jq -r '.warnings[]' "$DIR/system.json"
  assert_line "SAMBA_GLOBAL_PARAMS='aio read size = 0' in the environment of test-samba.sh, but start-samba.sh applied SAMBA_GLOBAL_PARAMS='': this run measured the server with ''; run ./start-samba.sh to apply 'aio read size = 0'"
  run grep '^SAMBA_GLOBAL_PARAMS=' "$DIR/settings.env"
  assert_output 'SAMBA_GLOBAL_PARAMS='
  run cat "$DIR/report.md"
  assert_output --partial '| Samba parameters under test | none (SAMBA_GLOBAL_PARAMS, SAMBA_SHARE_PARAMS) |'
  refute_output --partial '[global] aio read size = 0'
}

@test "server settings: started without, run with ENCRYPTION=yes and STRICT_SYNC=no: the server's no and yes are reported" {
  start
  run grep '^KIT_SAMBA_SETTINGS_ENV=' "$S_ROOT/state/kit.env"
  assert_output "KIT_SAMBA_SETTINGS_ENV="
  measure ENCRYPTION=yes STRICT_SYNC=no
  run jq -r '.server_settings.in_effect | "\(.ENCRYPTION) \(.STRICT_SYNC)"' "$DIR/system.json"
  assert_output 'no yes'
  run jq -r '.warnings[]' "$DIR/system.json"
  assert_line 'ENCRYPTION=yes in the environment of test-samba.sh, but the server runs with ENCRYPTION=no: this run measured no; run ./start-samba.sh to apply ENCRYPTION=yes'
  assert_line 'STRICT_SYNC=no in the environment of test-samba.sh, but the server runs with STRICT_SYNC=yes: this run measured yes; run ./start-samba.sh to apply STRICT_SYNC=no'
  refute_output --partial 'shows sessions without encryption'
  run grep -E '^(ENCRYPTION|STRICT_SYNC)=' "$DIR/settings.env"
  assert_output $'ENCRYPTION=no\nSTRICT_SYNC=yes'
  run cat "$DIR/report.md"
  assert_output --partial '| Samba settings in effect | ENCRYPTION=no (not yes as the environment of test-samba.sh says: start-samba.sh has not applied that), SIGNING=default, STRICT_SYNC=yes (not no as the environment of test-samba.sh says: start-samba.sh has not applied that), USE_SENDFILE=no;'
}

@test "server settings: an smb.conf changed after the start is named; the values start-samba.sh applied are shown" {
  start
  sed -i 's/^\([[:space:]]*use sendfile = \).*/\1yes/' "$S_ROOT/conf/smb.conf"
  measure
  run jq -r '.server_settings | "\(.conf_changed) \(.in_effect.USE_SENDFILE) \(.parameters.global["use sendfile"])"' "$DIR/system.json"
  assert_output 'true no Yes'
  run jq -r '.warnings[]' "$DIR/system.json"
  assert_output --partial "was changed after start-samba.sh started smbd"
  start
  measure
  run jq -r '.server_settings | "\(.conf_changed) \(.in_effect.USE_SENDFILE) \(.differences | length)"' "$DIR/system.json"
  assert_output 'false no 0'
}
