# lib/server/deps-units.sh: the distribution's Samba services around a package install (lib/server/deps.sh):
# which exist, are enabled or run ('UNIT PRESENT ENABLED RUNNING'), a Debian policy-rc.d that
# keeps the install from starting them, and stopping and disabling the ones the install just
# made. A service that was there before is never touched. Sourced; functions only. Needs
# lib/common.sh. DEPS_ROOT (tests only) prefixes the system paths read and written here: /etc,
# /lib, /run, /usr.

DEPS_POLICY_MARK='samba-perf-test: no service starts during the kit package install'

# deps_samba_units FAMILY: the distribution's Samba services a samba install may enable or start.
deps_samba_units() {
  case $1 in
    debian) printf '%s\n' smbd nmbd samba-ad-dc ;;
    rhel) printf '%s\n' smb nmb samba ;;
    *) return 1 ;;
  esac
}

# deps_unit_daemon UNIT: the daemon (and pid file name in /run/samba) of a Samba service.
deps_unit_daemon() {
  case $1 in
    smbd | smb) echo smbd ;;
    nmbd | nmb) echo nmbd ;;
    *) echo samba ;;
  esac
}

# deps_systemd_booted: true when systemd is PID 1 (units start and stop through systemctl).
deps_systemd_booted() {
  [[ -d ${DEPS_ROOT:-}/run/systemd/system ]] && common_have systemctl
}

# deps_unit_present UNIT: true when the host has an init script or a unit file for UNIT.
deps_unit_present() {
  local r=${DEPS_ROOT:-} d
  [[ -e $r/etc/init.d/$1 ]] && return 0
  for d in /etc/systemd/system /lib/systemd/system /usr/lib/systemd/system; do
    [[ -e $r$d/$1.service ]] && return 0
  done
  return 1
}

# deps_unit_alias_links UNIT: UNIT's Alias= links in /etc/systemd/system (a link there under
# another name to UNIT.service, as Samba 4.22's smbd.service makes smb.service), one a line.
deps_unit_alias_links() {
  local f
  for f in "${DEPS_ROOT:-}"/etc/systemd/system/*.service; do
    [[ -L $f && ${f##*/} != "$1.service" && $(readlink "$f") == */"$1.service" ]] && printf '%s\n' "$f"
  done
  return 0
}

# deps_unit_enabled UNIT: true when UNIT starts at boot: systemctl says enabled (it reads the
# unit files when systemd is not PID 1), a wants link exists, a SysV start link does, or an
# Alias= link (systemctl, once installed, counts it as enabled).
deps_unit_enabled() {
  local r=${DEPS_ROOT:-} f
  if common_have systemctl && timeout 30 systemctl is-enabled --quiet "$1.service" 2>/dev/null; then
    return 0
  fi
  for f in "$r"/etc/systemd/system/*.wants/"$1.service" "$r"/etc/rc[2345].d/S[0-9][0-9]"$1"; do
    [[ -e $f || -L $f ]] && return 0
  done
  [[ -n $(deps_unit_alias_links "$1") ]]
}

# deps_unit_running UNIT: true when UNIT runs: systemd says active, or its pid file in
# /run/samba names a live process of that daemon.
deps_unit_running() {
  local daemon pid comm
  if deps_systemd_booted && timeout 30 systemctl is-active --quiet "$1.service" 2>/dev/null; then
    return 0
  fi
  daemon=$(deps_unit_daemon "$1")
  pid=$(head -n 1 "${DEPS_ROOT:-}/run/samba/$daemon.pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[1-9][0-9]*$ ]] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $comm == "$daemon"* ]] || return 1
  ! grep -qE '^State:[[:space:]]+Z' "/proc/$pid/status" 2>/dev/null # a zombie has ended
}

# deps_unit_stopped UNIT: true when UNIT does not run.
deps_unit_stopped() {
  ! deps_unit_running "$1"
}

# deps_unit_states FAMILY: one line per Samba service: 'UNIT PRESENT ENABLED RUNNING' (yes/no).
deps_unit_states() {
  local u p e r
  while IFS= read -r u; do
    p=no e=no r=no
    if deps_unit_present "$u"; then
      p=yes
      deps_unit_enabled "$u" && e=yes
      deps_unit_running "$u" && r=yes
    fi
    printf '%s %s %s %s\n' "$u" "$p" "$e" "$r"
  done < <(deps_samba_units "$1")
}

# deps_unit_quiet UNIT: stop UNIT and keep it from starting at boot.
deps_unit_quiet() {
  local u=$1 r=${DEPS_ROOT:-} f
  if deps_unit_running "$u"; then
    if deps_systemd_booted; then
      timeout 60 systemctl stop "$u.service" || true
    elif [[ -x $r/etc/init.d/$u ]]; then
      timeout 60 "$r/etc/init.d/$u" stop >/dev/null || true
    fi
    common_wait_until 10 0.2 deps_unit_stopped "$u" || true
  fi
  if deps_unit_enabled "$u"; then
    if common_have systemctl; then timeout 60 systemctl disable --quiet "$u.service" 2>/dev/null || true; fi
    if [[ -e $r/etc/init.d/$u ]] && common_have update-rc.d; then update-rc.d "$u" disable >/dev/null 2>&1 || true; fi
    # without systemctl, update-rc.d removes the WantedBy= links but not an Alias= one (Samba
    # 4.22's smbd.service: smb.service); deb-systemd-helper would, but it runs only under dpkg
    # ('was not called from dpkg. Exiting.')
    if ! common_have systemctl; then
      deps_unit_alias_links "$u" | while IFS= read -r f; do rm -f "$f"; done
    fi
  fi
  deps_unit_stopped "$u" && ! deps_unit_enabled "$u"
}

# deps_quiet_new_units FAMILY BEFORE: stop and disable each Samba service that the install just
# made (absent in BEFORE, the deps_unit_states lines taken before it) and that is enabled or
# running now. A service that was there before is never touched. Sets DEPS_NOTE for the summary.
deps_quiet_new_units() {
  local u p e r was done=() failed=()
  while read -r u p e r; do
    [[ $p == yes ]] || continue
    was=$(awk -v u="$u" '$1 == u { print $2 }' <<<"$2")
    [[ $was == no ]] || continue
    [[ $e == yes || $r == yes ]] || continue
    if deps_unit_quiet "$u"; then done+=("$u"); else failed+=("$u"); fi
  done < <(deps_unit_states "$1")
  if ((${#done[@]})); then
    DEPS_NOTE="the distribution's ${done[*]} (installed with samba just now) left stopped and disabled"
    log "packages: $DEPS_NOTE"
  fi
  if ((${#failed[@]})); then
    DEPS_NOTE="${DEPS_NOTE:+$DEPS_NOTE; }could not stop and disable the distribution's ${failed[*]}"
    warn "packages: could not stop and disable the distribution's ${failed[*]} (installed with samba just now): stop and disable them yourself"
  fi
  return 0
}

# deps_policy_add: on Debian, a policy-rc.d that refuses every service start (exit 101), so the
# install starts no smbd or nmbd; only when none exists (an admin's is left as it is).
deps_policy_add() {
  local f=${DEPS_ROOT:-}/usr/sbin/policy-rc.d
  [[ -e $f || -L $f || ! -d ${f%/*} ]] && return 0
  (set -C && printf '#!/bin/sh\n# %s\nexit 101\n' "$DEPS_POLICY_MARK" >"$f") 2>/dev/null || return 0
  chmod 0755 "$f"
}

# deps_policy_ours: true when the policy-rc.d in place is the one deps_policy_add wrote.
deps_policy_ours() {
  local f=${DEPS_ROOT:-}/usr/sbin/policy-rc.d
  [[ -f $f && ! -L $f ]] && grep -qxF "# $DEPS_POLICY_MARK" "$f"
}

# deps_policy_remove: remove the policy-rc.d that deps_policy_add wrote (checked by its mark).
deps_policy_remove() {
  if deps_policy_ours; then rm -f "${DEPS_ROOT:-}/usr/sbin/policy-rc.d"; fi
  return 0
}
