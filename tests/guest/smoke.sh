#!/usr/bin/env bash
# Usage: run-guest.sh -r DIR -- tests/guest/smoke.sh   (runs inside the guest)
# Summary: prove the guest has what the kit needs: systemd, kernel cifs, nftables, smbd, fio
#
# Writes $GUEST_RESULTS/smoke.txt (one "ok|not ok: check" line per check) and
# $GUEST_RESULTS/smoke-fio.json. Exit 0 when every check passed, 1 otherwise.

set -uo pipefail

SMOKE_OUT=${GUEST_RESULTS:?not in the guest: GUEST_RESULTS is unset}/smoke.txt
SMOKE_DIR=/run/guest-smoke
SMOKE_PORT=4450
SMOKE_USER=guestsmoke
SMOKE_FAILED=0

smoke_check() { # <description> <command...>: run a check, record ok/not ok
  local what=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  if "$@" >>"$SMOKE_DIR/checks.log" 2>&1; then
    t1=$(date +%s.%N)
    printf 'ok: %s (%.1f s)\n' "$what" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" | tee -a "$SMOKE_OUT"
  else
    printf 'not ok: %s\n' "$what" | tee -a "$SMOKE_OUT"
    SMOKE_FAILED=1
  fi
}

smoke_smbd_up() { # wait until the private smbd listens
  local _
  for _ in $(seq 1 60); do
    ss -Hltn "sport = :$SMOKE_PORT" | grep -q . && return 0
    sleep 0.2
  done
  return 1
}

smoke_fio() {
  mountpoint -q /mnt/guest-smoke || return 1
  fio --name=smoke --directory=/mnt/guest-smoke --size=16m --bs=4k --rw=randrw \
    --ioengine=psync --runtime=3 --time_based --output-format=json \
    --output="$GUEST_RESULTS/smoke-fio.json" &&
    jq -e '.jobs[0].read.io_bytes > 0 and .jobs[0].write.io_bytes > 0' \
      "$GUEST_RESULTS/smoke-fio.json"
}

main() {
  : >"$SMOKE_OUT"
  mkdir -p "$SMOKE_DIR"/{share,state,lock,cache,log,pid,ncalrpc} /mnt/guest-smoke
  chmod 0777 "$SMOKE_DIR/share"

  smoke_check "PID 1 is systemd" test "$(cat /proc/1/comm)" = systemd
  smoke_check "cgroup v2 is mounted" test -f /sys/fs/cgroup/cgroup.controllers
  smoke_check "modprobe cifs" modprobe cifs
  smoke_check "cifs in /proc/filesystems" grep -qw cifs /proc/filesystems
  smoke_check "nft can add a nat table" nft -f - <<'EOF'
table ip guest_smoke {
	chain output { type nat hook output priority -100; ip daddr 127.0.0.2 tcp dport 445 redirect to :4450; }
}
EOF
  smoke_check "nft lists the nat table" sh -c 'nft list tables | grep -q guest_smoke'
  smoke_check "nft removes the table" nft delete table ip guest_smoke

  cat >"$SMOKE_DIR/smb.conf" <<EOF
[global]
	server role = standalone server
	interfaces = 127.0.0.1
	bind interfaces only = yes
	smb ports = $SMOKE_PORT
	passdb backend = tdbsam:$SMOKE_DIR/state/passdb.tdb
	state directory = $SMOKE_DIR/state
	lock directory = $SMOKE_DIR/lock
	cache directory = $SMOKE_DIR/cache
	private dir = $SMOKE_DIR/state
	pid directory = $SMOKE_DIR/pid
	ncalrpc dir = $SMOKE_DIR/ncalrpc
	log file = $SMOKE_DIR/log/%m.log
	disable spoolss = yes
	load printers = no
[smoke]
	path = $SMOKE_DIR/share
	read only = no
EOF
  smoke_check "create the test user" sh -c "id $SMOKE_USER || useradd -M -s /usr/sbin/nologin $SMOKE_USER"
  smoke_check "smbpasswd in the private passdb" sh -c \
    "printf 'smoke-pass\nsmoke-pass\n' | smbpasswd -c '$SMOKE_DIR/smb.conf' -s -a $SMOKE_USER"
  smoke_check "private smbd starts" smbd -D -s "$SMOKE_DIR/smb.conf"
  smoke_check "smbd listens on 127.0.0.1:$SMOKE_PORT" smoke_smbd_up
  printf 'username=%s\npassword=smoke-pass\ndomain=WORKGROUP\n' "$SMOKE_USER" >"$SMOKE_DIR/credentials"
  chmod 0600 "$SMOKE_DIR/credentials"
  smoke_check "mount -t cifs with a credentials file" mount -t cifs "//127.0.0.1/smoke" /mnt/guest-smoke \
    -o "port=$SMOKE_PORT,credentials=$SMOKE_DIR/credentials,vers=3.1.1,uid=0,gid=0"
  findmnt -t cifs >"$GUEST_RESULTS/smoke-findmnt.txt"
  smoke_check "fio on the cifs mount" smoke_fio
  cat /proc/fs/cifs/Stats >"$GUEST_RESULTS/smoke-cifs-stats.txt" 2>&1
  smoke_check "/proc/fs/cifs/Stats counts reads and writes" grep -Eq "Reads: *[1-9]" /proc/fs/cifs/Stats
  smoke_check "umount" umount /mnt/guest-smoke
  smoke_check "stop smbd" sh -c "kill \$(cat '$SMOKE_DIR/pid/smbd-smb.conf.pid' 2>/dev/null || pgrep -o -x smbd)"

  cp "$SMOKE_DIR/checks.log" "$GUEST_RESULTS/smoke-checks.log"
  mkdir -p "$GUEST_RESULTS/smoke-smbd-logs"
  cp "$SMOKE_DIR"/log/* "$GUEST_RESULTS/smoke-smbd-logs/" 2>/dev/null
  if ((SMOKE_FAILED)); then
    echo "smoke: FAILED (see smoke-checks.log)"
    return 1
  fi
  echo "smoke: all checks passed"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
