#!/usr/bin/env bats
# Package detection (real dpkg here; stub dnf/rpm for the RHEL path and its CodeReady Builder
# hint) and the systemd unit template (rendered, checked with systemd-analyze when present).
# shellcheck disable=SC2030,SC2031,SC2016,SC2154 # each test sets its own PATH; stubs are written in single quotes; run sets $stderr

bats_require_minimum_version 1.5.0

setup() {
  load ../test_helper/common-setup
  _common_setup
  source "$KIT_ROOT/lib/common.sh"
  common_source_libs "$KIT_ROOT" settings server/state server/deps-units server/deps server/smbconf server/selinux server/service-unit \
    server/service-cgroup server/service
  export KIT_SETTINGS=$BATS_TEST_TMPDIR/settings.conf
  printf 'MEMORY_CONNECTIONS=%s\nSTATE_DIR=/var/lib/samba/perf-test-x\n' 5000 >"$KIT_SETTINGS"
  settings_load "$KIT_ROOT"
  export STUB_LOG=$BATS_TEST_TMPDIR/stub.log
}

# rhel_path: a PATH with stub dnf and rpm (every package missing) and no apt-get or dpkg.
rhel_path() {
  local bin=$BATS_TEST_TMPDIR/bin c
  mkdir -p "$bin"
  for c in grep sed cat uname printf dirname awk tr; do ln -sf "$(command -v "$c")" "$bin/$c"; done
  for c in dnf rpm; do
    # shellcheck disable=SC2016 # $* and $STUB_LOG belong to the stub
    printf '#!/bin/bash\nprintf "%%s\\n" "%s $*" >>"$STUB_LOG"\nexit 1\n' "$c" >"$bin/$c"
    chmod +x "$bin/$c"
  done
  echo "$bin"
}

@test "package lists: Debian and RHEL" {
  run deps_packages debian
  assert_output "samba
samba-common-bin
smbclient
libsmbclient-dev
fio
nftables
jq
make
gcc
libc6-dev
pkgconf
cifs-utils
iproute2
diffutils
mawk
util-linux
mount
coreutils
libc-bin
passwd
procps
kmod
findutils
grep
sed
gnuplot-nox
cmark-gfm"
  run deps_packages rhel
  assert_line libsmbclient-devel
  assert_line samba-client
  assert_line glibc-devel
  assert_line iproute
  assert_line procps-ng
  assert_line pkgconf-pkg-config
  assert_line policycoreutils-python-utils
  refute_line -
  assert_line gnuplot
  # the same commands on both families: only semanage (SELinux) is RHEL's alone, and cmark-gfm
  # (report.html) Debian's (RHEL has no package of it: lib/report/html.sh takes python3-markdown there)
  run diff <(deps_commands debian | cut -d' ' -f1 | grep -vx cmark-gfm) <(deps_commands rhel | cut -d' ' -f1 | grep -vx semanage)
  assert_success
}

@test "this Debian host: each command the kit runs comes from the package the list names" {
  command -v dpkg >/dev/null || skip "not a Debian host"
  local cmd pkg path owners bad=''
  while read -r cmd pkg; do
    path=$(PATH=$PATH:/usr/sbin:/sbin command -v "$cmd") || {
      bad+=" $cmd(not installed)"
      continue
    }
    # awk is an alternative: check the listed package's own awk
    [[ $cmd != awk ]] || path=$(command -v "$pkg")
    # usrmerge: dpkg may know the file under /bin or /sbin; gcc is a link to gcc-12
    owners=$(dpkg -S "$path" "${path#/usr}" 2>/dev/null || true)
    [[ $owners == *"$pkg:"* || $owners == *"$pkg,"* ]] ||
      owners=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || true)
    [[ $owners == *"$pkg:"* || $owners == *"$pkg,"* ]] || bad+=" $cmd($pkg? $owners)"
  done < <(deps_commands debian)
  [[ -z $bad ]] || fail "commands not from their listed package:$bad"
}

@test "a missing command: one line naming it and its package" {
  deps_table() { printf '%s\n' 'grep grep grep' 'no-such-tool-x7 pkg-x7 pkg-x7-rhel'; }
  run deps_check_commands debian
  assert_failure
  assert_output "error: command 'no-such-tool-x7' is missing: install the package 'pkg-x7'"
  run deps_check_commands rhel
  assert_output --partial "package 'pkg-x7-rhel'"
}

@test "helpers that do not build stop the start with an error" {
  local root=$BATS_TEST_TMPDIR/kit
  mkdir -p "$root/helpers"
  printf '.PHONY: helpers\nhelpers:\n\t$(MAKE) -C helpers\n' >"$root/Makefile"
  printf 'all:\n\t@echo "err.h: No such file or directory" >&2; false\n' >"$root/helpers/Makefile"
  run deps_build_helpers "$root"
  assert_failure
  assert_output --partial "err.h: No such file or directory"
  assert_line --partial "error: cannot build the helpers (see above)"
  assert_output --partial "libc6-dev"
}

@test "this Debian host: family debian, nothing missing (dpkg -s of every package)" {
  command -v dpkg >/dev/null || skip "not a Debian host"
  run deps_family
  assert_output debian
  run deps_missing debian
  assert_success
  assert_output ""
}

@test "RHEL without CodeReady Builder: the exact command to enable it, not dnf's error" {
  local path
  path=$(rhel_path)
  printf 'ID="rhel"\nVERSION_ID="9.6"\n' >"$BATS_TEST_TMPDIR/os-release"
  DEPS_OS_RELEASE=$BATS_TEST_TMPDIR/os-release PATH=$path run deps_ensure
  assert_failure
  assert_output --partial "subscription-manager repos --enable codeready-builder-for-rhel-9-$(uname -m)-rpms"
  run grep -c '^dnf install' "$STUB_LOG"
  assert_output 0
}

@test "Alma/Rocky without crb: 'dnf config-manager --set-enabled crb'" {
  local path
  path=$(rhel_path)
  printf 'ID="almalinux"\n' >"$BATS_TEST_TMPDIR/os-release"
  DEPS_OS_RELEASE=$BATS_TEST_TMPDIR/os-release PATH=$path run deps_ensure
  assert_failure
  assert_output --partial "dnf config-manager --set-enabled crb"
}

@test "INSTALL_PACKAGES=no only lists what is missing" {
  local path
  path=$(rhel_path)
  INSTALL_PACKAGES=no PATH=$path run deps_ensure
  assert_success
  assert_output --partial "missing packages (INSTALL_PACKAGES=no, not installing): samba samba-common-tools samba-client libsmbclient-devel"
  run grep -c '^dnf' "$STUB_LOG"
  assert_output 0
}

@test "unit template: notify, no process group, pid file in STATE_DIR, LimitNOFILE for the connections" {
  run smbconf_render_template "$KIT_ROOT/templates/smbd-perf-test.service.in" \
    "MARKER=$SERVICE_MARKER" "SERVER_ADDR=$SERVER_ADDR" "TEST_PORT=$TEST_PORT" \
    "STATE_DIR=$STATE_DIR" "LIMIT_NOFILE=$(service_limit_nofile)" "SMBD=/usr/sbin/smbd" \
    "KIT_CONF=$KIT_CONF"
  assert_success
  assert_line "# $SERVICE_MARKER"
  assert_line "Type=notify"
  assert_line "ExecStart=/usr/sbin/smbd --foreground --no-process-group -s /etc/samba/perf-test/smb.conf"
  assert_line "PIDFile=/var/lib/samba/perf-test-x/pid/smbd.pid"
  assert_line "Environment=_NO_WINBINDD=1"
  assert_line "LimitNOFILE=21024"
  refute_output --partial "[Install]"
  if command -v systemd-analyze >/dev/null; then
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/smbd-perf-test.service"
    run systemd-analyze verify "$BATS_TEST_TMPDIR/smbd-perf-test.service"
    assert_success
  fi
}

@test "smb.conf template: testparm accepts it and every setting reaches it" {
  kit_require_cmd testparm
  export ENCRYPTION=yes SIGNING=mandatory STRICT_SYNC=no USE_SENDFILE=yes
  # testparm fails (exit 1) when the state and cache folders do not exist: start makes them first
  export STATE_DIR=$BATS_TEST_TMPDIR/state
  mkdir -p "$STATE_DIR"/{private,lock,state,cache,pid,ncalrpc}
  smbconf_render "$KIT_ROOT" >"$BATS_TEST_TMPDIR/smb.conf"
  run testparm -s "$BATS_TEST_TMPDIR/smb.conf"
  assert_success
  assert_line --regexp '^[[:space:]]*server smb encrypt = required$'
  assert_line --regexp '^[[:space:]]*server signing = (mandatory|required)$'
  assert_line --regexp '^[[:space:]]*strict sync = No$'
  assert_line --regexp '^[[:space:]]*use sendfile = Yes$'
  assert_line --regexp "^[[:space:]]*ncalrpc dir = $STATE_DIR/ncalrpc$"
  refute_output --partial "host msdfs"
}

# debian_root: a fake system root (DEPS_ROOT) and STUB_PATH: stub apt-get, dpkg, dpkg-query,
# update-rc.d and deb-systemd-helper (no systemctl: systemd is not PID 1). Call it directly,
# never in $(...): DEPS_ROOT must reach the test, or the host's own files would be used.
# The stubs refuse to run without DEPS_ROOT. The stub apt-get
# acts like the samba package of Debian 13: it adds init scripts, unit files, start links, wants
# links and Alias= links (smb.service, nmb.service) for smbd and nmbd, and starts them (a
# process named smbd) unless policy-rc.d exits 101, as invoke-rc.d does. The stub update-rc.d
# disables as the real one does without systemctl: start links to K, wants links removed, an
# Alias= link left; the stub deb-systemd-helper does nothing, as the real one outside dpkg.
debian_root() {
  local bin=$BATS_TEST_TMPDIR/bin c
  export DEPS_ROOT=$BATS_TEST_TMPDIR/root STUB_PATH=$bin
  mkdir -p "$bin" "$DEPS_ROOT"/{usr/sbin,run/samba,lib/systemd/system,etc/init.d} "$DEPS_ROOT"/etc/rc{2,3,4,5}.d \
    "$DEPS_ROOT"/etc/systemd/system/multi-user.target.wants
  for c in awk head cat grep rm chmod timeout tr sleep cp ln mv mkdir sed touch mktemp date tail readlink; do
    ln -sf "$(command -v "$c")" "$bin/$c"
  done
  mkdir -p "$BATS_TEST_TMPDIR/fake"
  for c in smbd nmbd; do cp "$(command -v sleep)" "$BATS_TEST_TMPDIR/fake/$c"; done # /proc/PID/comm
  cat >"$bin/apt-get" <<'EOF'
#!/bin/bash
: "${DEPS_ROOT:?}"
source "$STUB_COMMON"
stub_log "$@"
echo "Reading package lists..."
echo "Setting up $* ..."
[[ " $* " == *" install "* && " $* " == *" samba "* ]] || exit 0
for d in smbd nmbd; do
  printf '#!/bin/bash\nsource "$STUB_COMMON"\nstub_log "$@"\n[[ $1 != stop ]] || kill "$(cat "$DEPS_ROOT/run/samba/%s.pid")"\n' "$d" >"$DEPS_ROOT/etc/init.d/$d"
  chmod +x "$DEPS_ROOT/etc/init.d/$d"
  touch "$DEPS_ROOT/lib/systemd/system/$d.service"
  for r in 2 3 4 5; do ln -sf ../init.d/$d "$DEPS_ROOT/etc/rc$r.d/S01$d"; done
  ln -sf /lib/systemd/system/$d.service "$DEPS_ROOT/etc/systemd/system/multi-user.target.wants/$d.service"
  ln -sf /lib/systemd/system/$d.service "$DEPS_ROOT/etc/systemd/system/${d%d}.service"
  p=$DEPS_ROOT/usr/sbin/policy-rc.d
  if [[ -x $p ]] && { "$p" "$d" start; [[ $? == 101 ]]; }; then
    echo "policy-rc.d denied $d start" >>"$STUB_LOG"
    echo "invoke-rc.d: policy-rc.d denied execution of start." >&2
    continue
  fi
  "$STUB_FAKE/$d" 300 </dev/null >/dev/null 2>&1 &
  echo $! >"$DEPS_ROOT/run/samba/$d.pid"
done
EOF
  printf '#!/bin/bash\nexit 0\n' >"$bin/dpkg"
  printf '#!/bin/bash\nexit 1\n' >"$bin/dpkg-query"
  cat >"$bin/update-rc.d" <<'EOF'
#!/bin/bash
: "${DEPS_ROOT:?}"
source "$STUB_COMMON"
stub_log "$@"
[[ $2 == disable ]] || exit 0
for f in "$DEPS_ROOT"/etc/rc?.d/S01"$1"; do mv "$f" "${f%/*}/K01$1"; done
rm -f "$DEPS_ROOT"/etc/systemd/system/*.wants/"$1.service"
EOF
  printf '#!/bin/bash\nsource "$STUB_COMMON"\nstub_log "$@"\necho "$0 was not called from dpkg. Exiting." >&2\nexit 1\n' >"$bin/deb-systemd-helper"
  chmod +x "$bin"/*
  export STUB_COMMON=$KIT_ROOT/tests/stubs/stub-common.bash STUB_FAKE=$BATS_TEST_TMPDIR/fake
}

teardown() {
  local f
  for f in "$BATS_TEST_TMPDIR"/root/run/samba/*.pid; do
    [[ -f $f ]] && kill "$(cat "$f")" 2>/dev/null
  done
  return 0
}

@test "samba installed on Debian without systemd: no start (policy-rc.d, then removed), new smbd and nmbd disabled" {
  debian_root
  PATH=$STUB_PATH run deps_install debian samba fio
  assert_success
  assert_line "packages: the distribution's smbd nmbd (installed with samba just now) left stopped and disabled"
  run cat "$STUB_LOG"
  assert_line "apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends samba fio"
  assert_line "policy-rc.d denied smbd start"
  assert_line "policy-rc.d denied nmbd start"
  assert_line "update-rc.d smbd disable"
  assert_line "update-rc.d nmbd disable"
  refute_line --partial "samba-ad-dc"
  refute_line "smbd stop" # it never ran
  assert [ ! -e "$DEPS_ROOT/usr/sbin/policy-rc.d" ]
  run ls "$DEPS_ROOT/etc/rc2.d"
  assert_output "K01nmbd
K01smbd"
  # no wants link and no Alias= link left: once systemd is installed, systemctl would count
  # smb.service as smbd enabled (Debian 13's chroot: 'smbd yes yes no' after tests/run)
  run find "$DEPS_ROOT/etc/systemd/system" -name '*.service'
  assert_output ''
  PATH=$STUB_PATH run deps_unit_states debian
  assert_line "smbd yes no no"
  assert_line "nmbd yes no no"
}

@test "an Alias= link alone is an enabled unit; a link to another unit or a mask is not" {
  debian_root
  touch "$DEPS_ROOT/lib/systemd/system/smbd.service"
  PATH=$STUB_PATH run deps_unit_enabled smbd
  assert_failure
  ln -s /lib/systemd/system/nmbd.service "$DEPS_ROOT/etc/systemd/system/nmb.service"
  ln -s /dev/null "$DEPS_ROOT/etc/systemd/system/smbd.service"
  PATH=$STUB_PATH run deps_unit_enabled smbd
  assert_failure
  ln -s /lib/systemd/system/smbd.service "$DEPS_ROOT/etc/systemd/system/smb.service"
  PATH=$STUB_PATH run deps_unit_enabled smbd
  assert_success
  run deps_unit_alias_links smbd
  assert_output "$DEPS_ROOT/etc/systemd/system/smb.service"
}

@test "an admin's policy-rc.d is kept: the smbd the install started is stopped and disabled" {
  debian_root
  printf '#!/bin/sh\n# the admin allows starts\nexit 0\n' >"$DEPS_ROOT/usr/sbin/policy-rc.d"
  chmod +x "$DEPS_ROOT/usr/sbin/policy-rc.d"
  PATH=$STUB_PATH run deps_install debian samba
  assert_success
  assert_line "packages: the distribution's smbd nmbd (installed with samba just now) left stopped and disabled"
  run cat "$STUB_LOG"
  assert_line "smbd stop"
  assert_line "nmbd stop"
  assert_line "update-rc.d smbd disable"
  refute_line --partial "denied"
  run grep -c 'the admin allows starts' "$DEPS_ROOT/usr/sbin/policy-rc.d"
  assert_output 1
  run deps_unit_running smbd
  assert_failure
}

@test "a Samba that was there before the install is never stopped or disabled" {
  local pid
  debian_root
  printf '#!/bin/bash\nsource "$STUB_COMMON"\nstub_log "$@"\n' >"$DEPS_ROOT/etc/init.d/smbd"
  chmod +x "$DEPS_ROOT/etc/init.d/smbd"
  ln -s ../init.d/smbd "$DEPS_ROOT/etc/rc2.d/S01smbd"
  "$STUB_FAKE/smbd" 300 </dev/null >/dev/null 2>&1 &
  pid=$!
  echo "$pid" >"$DEPS_ROOT/run/samba/smbd.pid"
  PATH=$STUB_PATH run deps_install debian samba
  assert_success
  assert_output --partial "the distribution's nmbd (installed with samba just now)"
  run cat "$STUB_LOG"
  refute_line "smbd stop"
  refute_line "update-rc.d smbd disable"
  assert_line "update-rc.d nmbd disable"
  assert [ -L "$DEPS_ROOT/etc/rc2.d/S01smbd" ]
  kill -0 "$pid"
}

@test "systemd as PID 1: the new units are stopped and disabled with systemctl" {
  debian_root
  mkdir -p "$DEPS_ROOT/run/systemd/system" "$BATS_TEST_TMPDIR/units"
  # systemctl stub: a unit is enabled/active when its file in units/ says so
  cat >"$STUB_PATH/systemctl" <<'EOF'
#!/bin/bash
: "${DEPS_ROOT:?}"
source "$STUB_COMMON"
u=${*: -1}
s=$BATS_TEST_TMPDIR/units/${u%.service}
case $1 in
  is-enabled) [[ -e $DEPS_ROOT/lib/systemd/system/$u && ! -e $s.disabled ]] ;;
  is-active) [[ -e $DEPS_ROOT/lib/systemd/system/$u && ! -e $s.stopped ]] ;;
  stop) stub_log "$@"; touch "$s.stopped" ;;
  disable) stub_log "$@"; touch "$s.disabled" ;;
  *) stub_log "$@" ;;
esac
EOF
  chmod +x "$STUB_PATH/systemctl"
  PATH=$STUB_PATH run deps_install debian samba
  assert_success
  run cat "$STUB_LOG"
  assert_line "systemctl stop smbd.service"
  assert_line "systemctl disable --quiet smbd.service"
  assert_line "systemctl stop nmbd.service"
  assert_line "systemctl disable --quiet nmbd.service"
  refute_line --partial "samba-ad-dc"
}

@test "a failed install still removes the kit's policy-rc.d" {
  debian_root
  printf '#!/bin/bash\nsource "$STUB_COMMON"\nstub_log "$@"\nexit 100\n' >"$STUB_PATH/apt-get"
  PATH=$STUB_PATH run deps_install debian samba
  assert_failure
  run cut -d' ' -f4 "$STUB_LOG"
  assert_output "install
update"
  assert [ ! -e "$DEPS_ROOT/usr/sbin/policy-rc.d" ]
}

@test "a quiet install: apt-get's output in the root-only log, one line per step, the guard explained once" {
  # the console had about 233 lines of apt and dpkg, with 'policy-rc.d denied execution of
  # start' three times reading like an error
  debian_root
  export DEPS_LOG="$BATS_TEST_TMPDIR/log dir/packages.log"
  mkdir -p "${DEPS_LOG%/*}"
  PATH=$STUB_PATH run --separate-stderr deps_install debian samba fio
  assert_success
  assert_output ''
  assert_equal "$stderr" "packages: no service starts during the install (the kit's own guard, a policy-rc.d; its 'policy-rc.d denied execution of start' lines are expected)
packages: the distribution's smbd nmbd (installed with samba just now) left stopped and disabled"
  run cat "$STUB_LOG"
  assert_line "apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends samba fio"
  run cat "$DEPS_LOG"
  assert_line --index 0 --regexp '^== [0-9T:-]+Z install samba fio$'
  assert_line 'Reading package lists...'
  assert_line 'invoke-rc.d: policy-rc.d denied execution of start.'
  run stat -c %a "$DEPS_LOG"
  assert_output 600
  # deps_ensure names what it installs and where the output goes (nothing is installed here)
  INSTALL_PACKAGES=yes PATH=$STUB_PATH run --separate-stderr deps_ensure
  assert_equal "${stderr%%$'\n'*}" "packages: installing $(deps_packages debian | tr '\n' ' ' | sed 's/ $//') (the package manager's output goes to '$DEPS_LOG')"
}

@test "a failed quiet install: the log's path and its last 20 lines, the lists updated once" {
  debian_root
  export DEPS_LOG=$BATS_TEST_TMPDIR/packages.log
  cat >"$STUB_PATH/apt-get" <<'EOF'
#!/bin/bash
source "$STUB_COMMON"
stub_log "$@"
for ((i = 1; i <= 30; i++)); do echo "apt line $i of $3"; done
[[ " $* " == *" update "* ]] || { echo "E: Unable to locate package nosuch" >&2; exit 100; }
EOF
  PATH=$STUB_PATH run --separate-stderr deps_install debian nosuch
  assert_failure
  assert_output ''
  run cut -d' ' -f4 "$STUB_LOG"
  assert_output "install
update
install"
  run tail -n 21 <<<"$stderr"
  assert_line --index 0 "packages: the last 20 lines of '$DEPS_LOG':"
  assert_line --index 1 '  apt line 12 of install'
  assert_line --index 20 '  E: Unable to locate package nosuch'
  [[ $stderr == *"updating the package lists (apt-get update)"* ]] || fail "no update line: $stderr"
  assert_equal "$(grep -c 'apt line' <<<"$stderr")" 19
}
