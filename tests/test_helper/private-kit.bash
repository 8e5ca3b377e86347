# tests/test_helper/private-kit.bash: the private kit a test file starts for itself. Every path
# lies under a fresh folder, and the names the host holds machine-wide (service and cgroup,
# user, nft table) carry a tag unique to this run: a suite killed half-way (a session's end,
# a CI timeout) leaves its server's cgroup or table behind, and the kit rightly refuses a
# cgroup or table it did not make, so fixed names would fail every later run on that machine.
#   load '../test_helper/private-kit'
#   private_kit_setup m 4460 4469 127.0.0.9 small <<<'DURATION=2' || return 1   (in setup_file)
#   private_kit_start || return 1    private_kit_teardown    (in teardown_file)

# private_kit_setup NAME PORT_LO PORT_HI CLIENT_ADDR [small]: write PK_ROOT/settings.conf (with
# "small": small sizes for the measuring tests); the KEY=VALUE lines on stdin are added or
# replace them. Exports KIT_SETTINGS, PK_ROOT, PK_PORT, PK_ADDR, PK_SERVICE, PK_USER and
# PK_TABLE. NAME (1-3 lowercase letters or digits) names the test file's kit.
private_kit_setup() {
  local name=$1 lo=$2 hi=$3 addr=$4 sizes=${5:-} tag extra line
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
  extra=$([[ -t 0 ]] || cat)
  {
    # with "small": small sizes for a 2-CPU test machine, unless stdin sets the key
    [[ $sizes != small ]] || printf '%s\n' DURATION=1 DATA_FILE_MB=16 'CONCURRENCY_LEVELS="1 4"' MEMORY_CONNECTIONS=10 \
      STARTUP_ROUNDS=2 TARGET_CONCURRENCY_MIN_CLIENTS=4 |
      while IFS= read -r line; do
        grep -q "^${line%%=*}=" <<<"$extra" || printf '%s\n' "$line"
      done
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
    [[ -z $extra ]] || printf '%s\n' "$extra"
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
