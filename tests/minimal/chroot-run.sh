#!/usr/bin/env bash
# Usage: chroot-run.sh -o OUT_DIR TAR
# Summary: the README's commands and the test suite, as a new user runs them, in a minimal Debian chroot
#
# Unpacks TAR (from minbase.sh: Debian 12 or 13, whichever release it holds; its
# /etc/os-release is copied to OUT_DIR/os-release) into OUT_DIR/root, copies this machine's resolv.conf, hosts
# and hostname there, clones the committed HEAD of this kit into /opt/samba-perf-test there
# (user nobody can reach it, as the tests that run as nobody need: under /root they skip),
# mounts /proc, /sys, /dev (with /dev/pts) and a /run tmpfs, and
# runs, each step bounded by a timeout, logged to OUT_DIR/STEP.log and recorded in
# OUT_DIR/steps.tsv (STEP, exit status, seconds):
#   samba-before  deps_unit_states: the distribution's Samba services before anything
#   start         ./start-samba.sh        (own port, table, unit and user; small sizes)
#   test          ./test-samba.sh         (results copied to OUT_DIR/results, the test
#                                         smbd's log.smbd to OUT_DIR)
#   samba-after   deps_unit_states after the kit installed samba, plus procs-after.txt
#   cleanup       ./test-samba.sh cleanup
#   guest-check   tests/guest/run-guest.sh -c before tests/run (must name a package)
#   suite         tests/run on every test file but guest/, minimal/ (no recursion) and the files
#                 of tests/minimal/host-tests (MINIMAL_HOST_TESTS=yes: those too), or on the
#                 folders MINIMAL_TESTS names (e.g. 'tests/unit tests/helpers')
#   guest-ready   tests/guest/run-guest.sh -c after tests/run installed the test packages
#   samba-end     deps_unit_states at the end
# On exit, also on failure or Ctrl-C: every process left in the chroot is listed in
# OUT_DIR/leftover.txt and ended, everything mounted here is unmounted (mounts.txt keeps
# what was still mounted), and the unpacked root is removed.
# MINIMAL_HOSTS=no keeps debootstrap's /etc/hosts, without this machine's name (some SMB
# logins then time out: the smb-login-storm and smb-hold failures of issue 14).
# MINIMAL_APT_CACHE (default /var/cache/samba-perf-test/minbase-RELEASE-apt, one per Debian
# release) keeps the downloaded .deb files between runs. The chroot shares this machine's
# kernel and network: the README run uses port MINIMAL_PORT (4459) and client address
# MINIMAL_CLIENT_ADDR (127.0.0.9); give a second chroot run at the same time others.
#
# Exit status: 0 the steps ran (their statuses are in steps.tsv), 1 the chroot could not be
# set up, 2 usage.
set -euo pipefail

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MINIMAL_PORT=${MINIMAL_PORT:-4459}
MINIMAL_CLIENT_ADDR=${MINIMAL_CLIENT_ADDR:-127.0.0.9}
MINIMAL_MARK=.samba-perf-test-minimal
CR_KIT=/opt/samba-perf-test
# The README run gets names of its own, so it never meets a kit of this machine; tagged per
# run, as the suite's private kits are (tests/test_helper/private-kit.bash), so what a killed
# run left (a cgroup, a table) never blocks the next.
CR_TAG=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
CR_KIT_ENV=("TEST_PORT=$MINIMAL_PORT" "CLIENT_ADDR=$MINIMAL_CLIENT_ADDR" "NFT_TABLE=samba_perf_minimal_$CR_TAG"
  "SERVICE_NAME=smbd-perf-minimal-$CR_TAG" "TEST_USER=smbperfmin$CR_TAG" DURATION=2 DATA_FILE_MB=64
  "CONCURRENCY_LEVELS=1 4" MEMORY_CONNECTIONS=20 STARTUP_ROUNDS=1 WORKERS=2)
OUT='' ROOT=''
MOUNTS=()

cr_log() { printf 'minimal: %s\n' "$*" >&2; }
cr_die() {
  printf 'minimal: error: %s\n' "$*" >&2
  exit 1
}

# cr_mount MOUNT_ARG... TARGET: mount, and remember TARGET for cr_unmount.
cr_mount() {
  local target=${*: -1}
  mkdir -p "$target"
  mount "$@"
  MOUNTS+=("$target")
}

# cr_procs: print the pids of the processes whose root is the chroot.
cr_procs() {
  local p r
  for p in /proc/[0-9]*; do
    r=$(readlink "$p/root" 2>/dev/null) || continue
    [[ $r == "$ROOT" ]] && echo "${p#/proc/}"
  done
  return 0
}

# cr_mounts_below: print the mount points at or below the chroot (this namespace).
cr_mounts_below() {
  awk -v r="$ROOT" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}

# cr_cleanup: end the chroot's processes, unmount what was mounted here, remove the root.
cr_cleanup() {
  local pids p i
  trap - EXIT INT TERM HUP
  [[ -n $ROOT && -d $ROOT ]] || return 0
  mapfile -t pids < <(cr_procs)
  if ((${#pids[@]})); then
    for p in "${pids[@]}"; do
      printf '%s %s\n' "$p" "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
    done >>"$OUT/leftover.txt"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [[ -z $(cr_procs) ]] && break
      sleep 0.1
    done
    mapfile -t pids < <(cr_procs)
    ((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null || true
    sleep 0.5
  fi
  # what the README run left in the shared kernel, under its own names
  if nft list table ip "samba_perf_minimal_$CR_TAG" >/dev/null 2>&1; then
    echo "nft table ip samba_perf_minimal_$CR_TAG" >>"$OUT/leftover.txt"
    nft delete table ip "samba_perf_minimal_$CR_TAG" || true
  fi
  for p in /sys/fs/cgroup/unified /sys/fs/cgroup /sys/fs/cgroup/cpuacct; do
    if [[ -d $p/smbd-perf-minimal-$CR_TAG ]]; then
      echo "cgroup $p/smbd-perf-minimal-$CR_TAG" >>"$OUT/leftover.txt"
      rmdir "$p/smbd-perf-minimal-$CR_TAG" || true
    fi
  done
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTS[i]}" 2>/dev/null || umount -R -l "${MOUNTS[i]}" || true
  done
  cr_mounts_below >"$OUT/mounts.txt"
  if [[ -s $OUT/mounts.txt ]]; then
    cr_log "still mounted below $ROOT (see $OUT/mounts.txt): not removing it"
  else
    rm -rf --one-file-system "$ROOT"
  fi
}

# cr_in SECONDS SCRIPT [NAME=VALUE...]: run the bash SCRIPT in the kit folder of the chroot as
# root, with a clean environment plus the NAME=VALUE pairs, no stdin, bounded by SECONDS.
cr_in() {
  local seconds=$1 script=$2
  shift 2
  timeout -k 30 "$seconds" chroot "$ROOT" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb NO_COLOR=1 "$@" \
    /bin/bash -c "cd $CR_KIT && $script" </dev/null
}

# cr_step NAME SECONDS SCRIPT [NAME=VALUE...]: cr_in, logged to OUT/NAME.log and steps.tsv.
cr_step() {
  local name=$1 t0 rc=0
  shift
  cr_log "$name ..."
  t0=$SECONDS
  # in the background, so that Ctrl-C or TERM reach the trap at once, not after the step
  cr_in "$@" >"$OUT/$name.log" 2>&1 &
  wait "$!" || rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t0))" >>"$OUT/steps.tsv"
  cr_log "$name: exit $rc in $((SECONDS - t0)) s"
  return 0
}

# cr_samba_states NAME: the distribution's Samba services as the kit sees them
# (UNIT PRESENT ENABLED RUNNING), plus the Samba daemons running in the chroot, one
# 'PID PPID COMMAND LINE' a line (Samba >= 4.18's children set their own command line,
# 'smbd: notifyd .': the parent tells whose they are).
cr_samba_states() {
  local p stat
  cr_step "$1" 60 'source lib/common.sh && source lib/server/deps-units.sh && deps_unit_states debian'
  for p in $(cr_procs); do
    case $(cat "/proc/$p/comm" 2>/dev/null) in
      smbd* | nmbd* | samba*)
        stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        stat=${stat##*) }
        printf '%s %s %s\n' "$p" "$(cut -d' ' -f2 <<<"$stat")" "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
        ;;
    esac
  done >"$OUT/$1-procs.txt"
}

# cr_setup TAR: unpack, clone the kit, mount.
cr_setup() {
  local tar=$1 f release apt
  mkdir -p "$ROOT"
  tar -C "$ROOT" --numeric-owner -xpf "$tar"
  touch "$ROOT/$MINIMAL_MARK"
  cp -L "$ROOT/etc/os-release" "$OUT/os-release"
  release=$(sed -n 's/^VERSION_CODENAME=//p' "$OUT/os-release")
  [[ $release =~ ^[a-z]+$ ]] || cr_die "no Debian release name (VERSION_CODENAME) in '$tar'"
  apt=${MINIMAL_APT_CACHE:-/var/cache/samba-perf-test/minbase-$release-apt}
  # The chroot shares this machine's network and name: its resolver, hosts and host name
  # (without its own name in /etc/hosts, some SMB logins time out there: a real installed
  # Debian, a cloud image or a container has it).
  # MINIMAL_HOSTS=no keeps debootstrap's /etc/hosts (localhost only): issue 14's failures.
  for f in resolv.conf hosts hostname; do
    [[ $f == hosts && ${MINIMAL_HOSTS:-yes} == no ]] && continue
    cp -L "/etc/$f" "$ROOT/etc/$f" 2>/dev/null || true
  done
  git clone -q --no-hardlinks "$KIT_ROOT" "$ROOT$CR_KIT"
  git -C "$ROOT$CR_KIT" log -1 --format='%H %s' >"$OUT/commit.txt"
  cr_mount -t proc proc "$ROOT/proc"
  cr_mount --rbind /sys "$ROOT/sys"
  mount --make-rslave "$ROOT/sys"
  cr_mount --rbind /dev "$ROOT/dev"
  mount --make-rslave "$ROOT/dev"
  cr_mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$ROOT/run"
  mkdir -p "$ROOT/run/lock" "$apt"
  cr_mount --bind "$apt" "$ROOT/var/cache/apt/archives"
}

main() {
  local opt tar t0 d f
  local -a host_tests=()
  local -a dirs=()
  while getopts ho: opt; do
    case $opt in
      h)
        sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
        return 0
        ;;
      o) OUT=$OPTARG ;;
      *) return 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  [[ -n $OUT && $# -eq 1 && -f $1 ]] || {
    echo "usage: chroot-run.sh -o OUT_DIR TAR" >&2
    return 2
  }
  tar=$1
  [[ $(id -u) -eq 0 ]] || cr_die "needs root"
  [[ ! -e /$MINIMAL_MARK ]] || cr_die "already inside the minimal chroot"
  for d in ${MINIMAL_TESTS:-}; do
    [[ $d =~ ^tests/[a-z]+$ && -d $KIT_ROOT/$d ]] || cr_die "MINIMAL_TESTS: '$d' is not a test folder of the kit"
  done
  git -C "$KIT_ROOT" rev-parse --verify -q HEAD >/dev/null || cr_die "'$KIT_ROOT' is not a git checkout: nothing to clone"
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
  ROOT=$OUT/root
  [[ ! -e $ROOT ]] || cr_die "'$ROOT' exists already"
  : >"$OUT/steps.tsv"
  : >"$OUT/leftover.txt"
  trap cr_cleanup EXIT
  trap 'exit 130' INT TERM HUP
  t0=$SECONDS
  cr_setup "$tar"
  printf 'setup\t0\t%s\n' "$((SECONDS - t0))" >>"$OUT/steps.tsv"

  cr_samba_states samba-before
  cr_step start 600 ./start-samba.sh "${CR_KIT_ENV[@]}"
  cr_step test 600 ./test-samba.sh "${CR_KIT_ENV[@]}"
  cp -a "$ROOT$CR_KIT/results" "$OUT/results" 2>/dev/null || true
  # the test smbd's own log (settings.conf's LOG_DIR), before cleanup removes it
  cp -a "$ROOT"/var/log/samba/perf-test/log.smbd* "$OUT/" 2>/dev/null || true
  cr_samba_states samba-after
  cr_step cleanup 300 './test-samba.sh cleanup' "${CR_KIT_ENV[@]}"
  cr_step guest-check 60 'tests/guest/run-guest.sh -c'
  if [[ -n ${MINIMAL_TESTS:-} ]]; then
    read -ra dirs <<<"$MINIMAL_TESTS"
  else
    # every test file but guest/, minimal/ and, unless MINIMAL_HOST_TESTS=yes, the files of
    # tests/minimal/host-tests: CI runs those on the host, where all their tests can run (here
    # the ones needing a namespace or cgroup of their own skip), so running them here too only
    # doubled their time (tests/minimal/README.md, "CI")
    mapfile -t host_tests < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT$CR_KIT/tests/minimal/host-tests")
    for f in "$ROOT$CR_KIT"/tests/*/*.bats; do
      f=${f#"$ROOT$CR_KIT"/}
      [[ $f == tests/guest/* || $f == tests/minimal/* ]] && continue
      if [[ ${MINIMAL_HOST_TESTS:-no} != yes ]] && printf '%s\n' "${host_tests[@]}" | grep -qxF -- "$f"; then
        continue
      fi
      dirs+=("$f")
    done
  fi
  cr_step suite 2400 "tests/run ${dirs[*]}" KIT_REQUIRE_ROOT=1
  cr_step guest-ready 60 'tests/guest/run-guest.sh -c'
  cr_samba_states samba-end
  printf 'total\t0\t%s\n' "$((SECONDS - t0))" >>"$OUT/steps.tsv"
}

main "$@"
