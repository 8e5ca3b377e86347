# lib/deps.sh: find the host's package manager, list and install the packages the kit needs,
# build the helpers. Sourced; functions only. Needs lib/common.sh.

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

# deps_packages FAMILY: print the packages the kit needs on FAMILY, one a line.
deps_packages() {
  case $1 in
    debian)
      printf '%s\n' samba smbclient libsmbclient-dev fio nftables jq make gcc pkg-config cifs-utils
      ;;
    rhel)
      printf '%s\n' samba samba-client libsmbclient-devel fio nftables jq make gcc \
        pkgconf-pkg-config cifs-utils policycoreutils-python-utils
      ;;
    *) return 1 ;;
  esac
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

# deps_ensure: install (INSTALL_PACKAGES=yes) or list (no) the missing packages; says which.
deps_ensure() {
  local family
  local -a missing=()
  if ! family=$(deps_family); then
    warn "no apt-get or dnf found: install these yourself if missing: samba, smbclient, fio, nftables, jq, make, gcc, pkg-config, cifs-utils"
    return 0
  fi
  mapfile -t missing < <(deps_missing "$family")
  if ((${#missing[@]} == 0)); then
    log "packages: all in place ($family)"
    return 0
  fi
  if [[ $INSTALL_PACKAGES != yes ]]; then
    warn "missing packages (INSTALL_PACKAGES=no, not installing): ${missing[*]}"
    return 0
  fi
  log "packages: installing ${missing[*]}"
  case $family in
    debian)
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } ||
        die "could not install: ${missing[*]}"
      ;;
    rhel)
      if [[ " ${missing[*]} " == *" libsmbclient-devel "* ]] &&
        ! dnf -q list --available libsmbclient-devel >/dev/null 2>&1 &&
        ! deps_installed rhel libsmbclient-devel; then
        die "package 'libsmbclient-devel' is in the CodeReady Builder repository, which is off: enable it with '$(deps_crb_hint)' and run start-samba.sh again"
      fi
      dnf install -y "${missing[@]}" || die "could not install: ${missing[*]}"
      ;;
  esac
}

# deps_build_helpers ROOT: run 'make -C ROOT helpers' when helpers/Makefile exists and a
# helper is missing or older than its sources; quiet when there is nothing to build.
deps_build_helpers() {
  local root=$1
  [[ -f $root/helpers/Makefile ]] || return 0
  if ! common_have make || { ! common_have cc && ! common_have gcc; }; then
    warn "make or a C compiler is missing: the helpers are not built"
    return 0
  fi
  if make -q -C "$root/helpers" >/dev/null 2>&1; then
    log "helpers: up to date"
    return 0
  fi
  log "helpers: building (make -C $root helpers)"
  make -s -C "$root" helpers >&2 ||
    warn "building the helpers failed (see above): the server starts, but metrics that need a helper will fail"
}
