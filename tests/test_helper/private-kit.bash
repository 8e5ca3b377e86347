# tests/test_helper/private-kit.bash: the private kit a test file starts for itself. Every path
# lies under a fresh folder, and the names the host holds machine-wide (service and cgroup,
# user, nft table) carry a tag unique to this run: a suite killed half-way (a session's end,
# a CI timeout) leaves its server's cgroup or table behind, and the kit rightly refuses a
# cgroup or table it did not make, so fixed names would fail every later run on that machine.
#   load '../test_helper/private-kit'
#   private_kit_setup m 4460 4469 127.0.0.9 <<CONF || return 1   (in setup_file; extra settings)
#   DURATION=2
#   CONF
#   private_kit_start || return 1    private_kit_teardown    (in teardown_file)

# private_kit_setup NAME PORT_LO PORT_HI CLIENT_ADDR: write PK_ROOT/settings.conf (the KEY=VALUE
# lines on stdin are added) and export KIT_SETTINGS, PK_ROOT, PK_PORT, PK_ADDR, PK_SERVICE,
# PK_USER and PK_TABLE. NAME (1-3 lowercase letters or digits) names the test file's kit.
private_kit_setup() {
  local name=$1 lo=$2 hi=$3 addr=$4 tag
  [[ $name =~ ^[a-z0-9]{1,3}$ ]] || {
    echo "private_kit_setup: bad name '$name'" >&2
    return 1
  }
  tag=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
  PK_ROOT=$(mktemp -d "/tmp/kit-$name.XXXXXX")
  chmod 0755 "$PK_ROOT"
  PK_PORT=$(kit_free_port "$lo" "$hi") || return 1
  PK_ADDR=$addr
  PK_SERVICE=smbd-perf-test-$name-$tag
  PK_USER=smbperf$name$tag
  PK_TABLE=samba_perf_test_${name}_$tag
  {
    cat <<CONF
TEST_PORT=$PK_PORT
SERVER_ADDR=127.0.0.1
CLIENT_ADDR=$PK_ADDR
SERVICE_NAME=$PK_SERVICE
SHARE_DIR=$PK_ROOT/share
MOUNT_POINT=$PK_ROOT/mnt
CONF_DIR=$PK_ROOT/conf
LOG_DIR=$PK_ROOT/log
STATE_DIR=$PK_ROOT/state
TEST_USER=$PK_USER
NFT_TABLE=$PK_TABLE
RESULTS_DIR=$PK_ROOT/results
INSTALL_PACKAGES=no
REPEAT=1
CONF
    [[ -t 0 ]] || cat
  } >"$PK_ROOT/settings.conf"
  export PK_ROOT PK_PORT PK_ADDR PK_SERVICE PK_USER PK_TABLE KIT_SETTINGS=$PK_ROOT/settings.conf
}

# private_kit_start: build the helpers and start the private kit; on failure its log goes to
# the TAP stream (fd 3) and the status is 1.
private_kit_start() {
  make -C "$KIT_ROOT/helpers" >/dev/null || return 1
  "$KIT_ROOT/start-samba.sh" >"$PK_ROOT/start.log" 2>&1 || {
    cat "$PK_ROOT/start.log" >&3
    return 1
  }
}

# private_kit_teardown: './test-samba.sh cleanup', then remove the folder.
private_kit_teardown() {
  [[ -n ${PK_ROOT:-} ]] || return 0
  "$KIT_ROOT/test-samba.sh" cleanup >/dev/null 2>&1 || true
  rm -rf --one-file-system "$PK_ROOT"
}
