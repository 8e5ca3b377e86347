# lib/server/deps.sh: find the host's package manager, list and install the packages the kit needs
# (keeping a newly installed distribution Samba stopped and disabled: lib/server/deps-units.sh, source
# it too), build the helpers. Sourced; functions only. Needs lib/common.sh.
# DEPS_LOG: when set, apt-get's and dnf's output goes to that file (0600, appended), and the
# console gets one line per step (the log's last 20 lines when the install fails).

# deps_family: print 'debian' (apt-get + dpkg) or 'rhel' (dnf + rpm); 1 when neither.
deps_family() {
  if common_have apt-get && common_have dpkg; then
    echo debian
  elif common_have dnf && common_have rpm; then
    echo rhel
  else
    return 1
  fi
}

# deps_table: every command the kit runs and the package that has it on each family, plus the
# packages that bring no command the kit calls (headers, libraries: '-' as the command). One
# row a line: COMMAND DEBIAN_PACKAGE RHEL_PACKAGE ('-' where that family needs none).
# gnuplot draws the charts and cmark-gfm turns report.md into report.html (RHEL has no
# cmark-gfm: lib/report/html.sh uses python3-markdown where it is installed, else says why not).
# A minimal Debian (debootstrap minbase) lacks iproute2, procps, kmod and libc6-dev (its gcc
# alone builds no helper: err.h is missing).
deps_table() {
  cat <<'EOF'
smbd samba samba
pdbedit samba samba
testparm samba-common-bin samba-common-tools
smbpasswd samba-common-bin samba-common-tools
smbclient smbclient samba-client
- libsmbclient-dev libsmbclient-devel
fio fio fio
nft nftables nftables
jq jq jq
make make make
gcc gcc gcc
- libc6-dev glibc-devel
pkg-config pkgconf pkgconf-pkg-config
mount.cifs cifs-utils cifs-utils
ss iproute2 iproute
ip iproute2 iproute
cmp diffutils diffutils
awk mawk gawk
flock util-linux util-linux
findmnt util-linux util-linux
mountpoint util-linux util-linux
setpriv util-linux util-linux
mount mount util-linux
umount mount util-linux
timeout coreutils coreutils
stat coreutils coreutils
nproc coreutils coreutils
getent libc-bin glibc-common
useradd passwd shadow-utils
userdel passwd shadow-utils
ps procps procps-ng
pgrep procps procps-ng
modprobe kmod kmod
find findutils findutils
grep grep grep
sed sed sed
semanage - policycoreutils-python-utils
gnuplot gnuplot-nox gnuplot
cmark-gfm cmark-gfm -
EOF
  # the wire probe (WIRE_PROBE=yes, lib/probes/wire.sh) captures with dumpcap, counts with tshark
  [[ ${WIRE_PROBE:-no} != yes ]] || printf '%s\n' 'dumpcap tshark wireshark-cli' 'tshark tshark wireshark-cli'
}

# deps_column FAMILY: the deps_table column of FAMILY's package names; 1 when unknown.
deps_column() {
  case $1 in
    debian) echo 2 ;;
    rhel) echo 3 ;;
    *) return 1 ;;
  esac
}

# deps_packages FAMILY: print the packages the kit needs on FAMILY, one a line, each once.
deps_packages() {
  local col
  col=$(deps_column "$1") || return 1
  deps_table | awk -v c="$col" '$c != "-" && !seen[$c]++ { print $c }'
}

# deps_commands FAMILY: print 'COMMAND PACKAGE' for every command the kit runs on FAMILY.
deps_commands() {
  local col
  col=$(deps_column "$1") || return 1
  deps_table | awk -v c="$col" '$1 != "-" && $c != "-" { print $1, $c }'
}

# deps_check_commands FAMILY: die naming the first command the kit runs that is not there
# (sbin folders count), and its package.
deps_check_commands() {
  local cmd pkg
  while read -r cmd pkg; do
    common_have "$cmd" || PATH=$PATH:/usr/sbin:/sbin common_have "$cmd" ||
      die "command '$cmd' is missing: install the package '$pkg'"
  done < <(deps_commands "$1")
}

# deps_installed FAMILY PACKAGE: true when PACKAGE is installed.
deps_installed() {
  case $1 in
    debian) [[ $(dpkg-query -W -f '${Status}' "$2" 2>/dev/null) == *" installed" ]] ;;
    rhel) rpm -q --quiet "$2" ;;
    *) return 1 ;;
  esac
}

# deps_missing FAMILY: print the needed packages that are not installed, one a line.
deps_missing() {
  local pkg
  while IFS= read -r pkg; do
    deps_installed "$1" "$pkg" || printf '%s\n' "$pkg"
  done < <(deps_packages "$1")
}

# deps_crb_hint: print the command that enables the repository holding the -devel packages
# (RHEL: CodeReady Builder via subscription-manager; Alma, Rocky, CentOS: crb).
deps_crb_hint() {
  local id='' file=${DEPS_OS_RELEASE:-/etc/os-release}
  if [[ -r $file ]]; then
    # shellcheck source=/dev/null
    id=$(. "$file" && printf '%s' "${ID:-}")
  fi
  case $id in
    rhel) printf 'subscription-manager repos --enable codeready-builder-for-rhel-9-%s-rpms\n' "$(uname -m)" ;;
    *) printf 'dnf config-manager --set-enabled crb\n' ;;
  esac
}

# deps_log_open: make DEPS_LOG (when set) a root-only file that ends with a line naming this
# install; 1 with a message when it cannot be written.
deps_log_open() {
  [[ -n ${DEPS_LOG:-} ]] || return 0
  if ! (umask 077 && printf '== %s %s\n' "$(date -u +%FT%TZ)" "$*" >>"$DEPS_LOG") 2>/dev/null ||
    ! chmod 0600 "$DEPS_LOG"; then
    warn "cannot write the package log '$DEPS_LOG'"
    return 1
  fi
}

# deps_logged CMD...: run CMD with its output appended to DEPS_LOG; without one, as it is.
deps_logged() {
  if [[ -n ${DEPS_LOG:-} ]]; then "$@" >>"$DEPS_LOG" 2>&1; else "$@"; fi
}

# deps_log_tail: after a failed install, the last 20 lines of DEPS_LOG on stderr.
deps_log_tail() {
  [[ -n ${DEPS_LOG:-} && -s $DEPS_LOG ]] || return 0
  log "packages: the last 20 lines of '$DEPS_LOG':"
  tail -n 20 -- "$DEPS_LOG" | sed 's/^/  /' >&2
}

# deps_apt_install PACKAGE...: apt-get install, bounded, waiting up to 5 min for another apt;
# the package lists are updated once when the first try fails.
deps_apt_install() {
  local -a apt=(timeout --foreground -k 30 1800 apt-get -o DPkg::Lock::Timeout=300)
  DEBIAN_FRONTEND=noninteractive deps_logged "${apt[@]}" install -y -q --no-install-recommends "$@" && return 0
  log "packages: the install failed; updating the package lists (apt-get update) and trying again"
  deps_logged "${apt[@]}" update -q &&
    DEBIAN_FRONTEND=noninteractive deps_logged "${apt[@]}" install -y -q --no-install-recommends "$@"
}

# deps_install FAMILY PACKAGE...: install the packages; no distribution Samba service that the
# install brings stays enabled or running (Debian: a policy-rc.d keeps it from starting, then
# it is disabled; elsewhere stopped and disabled after). 1 when the install failed.
deps_install() {
  local family=$1 before rc=0
  shift
  before=$(deps_unit_states "$family")
  deps_log_open "install $*" || return 1
  case $family in
    debian)
      (
        trap deps_policy_remove EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        trap 'exit 129' HUP
        deps_policy_add
        if deps_policy_ours; then
          log "packages: no service starts during the install (the kit's own guard, a policy-rc.d; its 'policy-rc.d denied execution of start' lines are expected)"
        fi
        deps_apt_install "$@"
      ) || rc=$?
      ;;
    rhel) deps_logged timeout --foreground -k 30 1800 dnf install -y "$@" || rc=$? ;;
    *) return 1 ;;
  esac
  ((rc == 0)) || deps_log_tail
  deps_quiet_new_units "$family" "$before"
  return "$rc"
}

# deps_ensure: install (INSTALL_PACKAGES=yes) or list (no) the missing packages; says which,
# then checks that every command the kit runs is there.
deps_ensure() {
  local family
  local -a missing=()
  if ! family=$(deps_family); then
    warn "no apt-get or dnf found: install these yourself if missing: $(deps_packages debian | tr '\n' ' ')"
    return 0
  fi
  mapfile -t missing < <(deps_missing "$family")
  if ((${#missing[@]} == 0)); then
    log "packages: all in place ($family)"
    deps_check_commands "$family"
    return 0
  fi
  if [[ $INSTALL_PACKAGES != yes ]]; then
    warn "missing packages (INSTALL_PACKAGES=no, not installing): ${missing[*]}"
    return 0
  fi
  if [[ $family == rhel && " ${missing[*]} " == *" libsmbclient-devel "* ]] &&
    ! dnf -q list --available libsmbclient-devel >/dev/null 2>&1; then
    die "package 'libsmbclient-devel' is in the CodeReady Builder repository, which is off: enable it with '$(deps_crb_hint)' and run start-samba.sh again"
  fi
  local where=''
  [[ -z ${DEPS_LOG:-} ]] || where=" (the package manager's output goes to '$DEPS_LOG')"
  log "packages: installing ${missing[*]}$where"
  deps_install "$family" "${missing[@]}" || die "could not install: ${missing[*]}"
  deps_check_commands "$family"
}

# deps_build_helpers ROOT: run 'make -C ROOT helpers' when helpers/Makefile exists and a helper
# is missing or older than its sources. The metrics need the helpers: no build, no start.
deps_build_helpers() {
  local root=$1
  [[ -f $root/helpers/Makefile ]] || return 0
  common_have make || die "'make' is missing: the helpers cannot be built (install the package 'make')"
  common_have cc || common_have gcc || die "no C compiler: the helpers cannot be built (install the package 'gcc')"
  if make -q -C "$root/helpers" >/dev/null 2>&1; then
    log "helpers: up to date"
    return 0
  fi
  log "helpers: building (make -C $root helpers)"
  make -s -C "$root" helpers >&2 ||
    die "cannot build the helpers (see above): the packages of lib/server/deps.sh are needed ($(deps_packages "$(deps_family)" | tr '\n' ' '))"
}
