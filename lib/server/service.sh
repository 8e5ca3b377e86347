# lib/server/service.sh: run the kit's smbd, as a systemd unit (systemd is PID 1) or as a plain
# daemon in a cgroup of its own: start, stop, its pid, the port check, the login wait. Never
# touches a Samba of the host: processes are found only through the kit's pid file, unit or
# cgroup. The unit is lib/server/service-unit.sh, the cgroups lib/server/service-cgroup.sh; source all three.
# Sourced; functions only. Needs the settings, lib/common.sh and lib/server/state.sh.
# shellcheck disable=SC2034 # state variables are read by the entry scripts and metrics

# service_mode: print 'systemd' when systemd is PID 1 (sd_booted, and PID 1 is systemd: a
# left-over /run/systemd/system in a container does not count), else 'daemon'.
service_mode() {
  local init=''
  read -r init </proc/1/comm 2>/dev/null || true
  if [[ -d /run/systemd/system && $init == systemd ]] && common_have systemctl; then
    echo systemd
  else
    echo daemon
  fi
}

# service_pid_file: print the path of smbd's pid file.
service_pid_file() {
  printf '%s/pid/smbd.pid\n' "$STATE_DIR"
}

# service_smbd: print the absolute path of smbd.
service_smbd() {
  local p
  p=$(command -v smbd 2>/dev/null) || p=''
  [[ -n $p ]] || for p in /usr/sbin/smbd /sbin/smbd ''; do [[ -x $p ]] && break; done
  [[ -n $p ]] || die "'smbd' is not installed"
  printf '%s\n' "$p"
}

# service_pid_is_ours PID: true when PID is an smbd started with the kit's config: root's (its
# real uid: an smbd serving a client changes only its effective one), running an smbd binary,
# the kit's config on its command line. Any user can start a process named 'smbd -s CONF'.
service_pid_is_ours() {
  local pid=$1 cmd exe uid
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  uid=$(awk '$1 == "Uid:" { print $2; exit }' "/proc/$pid/status" 2>/dev/null) || return 1
  [[ $uid == 0 ]] || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  exe=${exe% (deleted)}
  [[ ${exe##*/} == smbd ]] || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmd == *smbd* && " $cmd " == *" $KIT_CONF "* ]]
}

# service_main_pid: print the PID of the kit's main smbd; 1 when it does not run.
service_main_pid() {
  local pid='' file
  if [[ ${KIT_SERVICE_MODE:-$(service_mode)} == systemd ]] && [[ -n ${KIT_UNIT:-} || $(service_mode) == systemd ]]; then
    pid=$(common_timeout 10 systemctl show -p MainPID --value "${KIT_UNIT:-$(service_unit)}" 2>/dev/null) || pid=''
    [[ $pid != 0 ]] || pid=''
  fi
  if [[ -z $pid ]]; then
    file=$(service_pid_file)
    [[ -r $file ]] && read -r pid <"$file"
  fi
  service_pid_is_ours "${pid:-x}" || return 1
  printf '%s\n' "$pid"
}

# service_is_running: true when the kit's smbd runs.
service_is_running() {
  service_main_pid >/dev/null
}

# service_limit_nofile: print the open-files limit for MEMORY_CONNECTIONS (at least 16384).
service_limit_nofile() {
  local n=$((MEMORY_CONNECTIONS * 4 + 1024))
  ((n >= 16384)) || n=16384
  echo "$n"
}

# service_log_links_remove: remove every symlink directly in LOG_DIR (smbd, as root, would append
# its log through one, and rotate log.smbd onto log.smbd.old by name); says what it removed.
service_log_links_remove() {
  local l
  [[ -d $LOG_DIR && ! -L $LOG_DIR ]] || return 0
  while IFS= read -r -d '' l; do
    rm -f -- "$l"
    log "service: removed the symlink '$l' (smbd would write its log through it)"
  done < <(find "$LOG_DIR" -mindepth 1 -maxdepth 1 -type l -print0 2>/dev/null)
}

# service_start: issue the start command and return when it returned (no login wait). Records
# KIT_SERVICE_MODE, KIT_UNIT, KIT_CGROUP, KIT_CGROUP_SOURCE, KIT_SMBD_PID in the state.
service_start() {
  local mode smbd pid='' cg
  service_log_links_remove
  mode=$(service_mode)
  smbd=$(service_smbd)
  if [[ $mode == systemd ]]; then
    common_timeout 90 systemctl start "$(service_unit)" || {
      common_timeout 10 systemctl status --no-pager "$(service_unit)" >&2 || true
      die "could not start '$(service_unit)'"
    }
    cg=$(common_timeout 10 systemctl show -p ControlGroup --value "$(service_unit)")
    if [[ -n $cg && -n $(service_cgroup2_root 2>/dev/null) && -d $(service_cgroup2_root)$cg ]]; then
      cg=$(service_cgroup2_root)$cg
      SERVICE_CGROUP_SOURCE=cgroup2
    elif [[ -n $cg && -d /sys/fs/cgroup/cpuacct$cg ]]; then
      cg=/sys/fs/cgroup/cpuacct$cg
      SERVICE_CGROUP_SOURCE=cgroup1
    else
      cg='' SERVICE_CGROUP_SOURCE=proc
    fi
    SERVICE_CGROUP=$cg
    state_set KIT_UNIT "$(service_unit)"
  else
    service_cgroup_make
    state_set KIT_CGROUP "$SERVICE_CGROUP"
    state_set KIT_SERVICE_MODE "$mode"
    (
      if [[ -n ${LOCK_FD:-} ]]; then exec {LOCK_FD}>&-; fi # the daemon must not hold the kit's lock
      if [[ -n $SERVICE_CGROUP ]]; then
        printf '%s\n' "$BASHPID" >"$SERVICE_CGROUP/cgroup.procs" || exit 3
      fi
      ulimit -n "$(service_limit_nofile)" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
      export _NO_WINBINDD=1
      # smbd's IPC$ share (every RPC pipe: netdfs, srvsvc) has the path TMPDIR, which the test
      # user must enter: a caller's private TMPDIR denied every pipe; systemd gives none either
      unset TMPDIR
      exec "$smbd" -D -s "$KIT_CONF" </dev/null >>"$LOG_DIR/smbd.out" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
    ) || die "smbd did not start: see '$LOG_DIR/smbd.out' and '$LOG_DIR/log.smbd'"
    state_set KIT_UNIT ''
  fi
  state_set KIT_SERVICE_MODE "$mode"
  state_set KIT_CGROUP "$SERVICE_CGROUP"
  state_set KIT_CGROUP_SOURCE "$SERVICE_CGROUP_SOURCE"
  KIT_SERVICE_MODE=$mode KIT_CGROUP=$SERVICE_CGROUP KIT_CGROUP_SOURCE=$SERVICE_CGROUP_SOURCE
  common_wait_until 10 0.05 service_is_running || die "smbd did not write its pid file '$(service_pid_file)' within 10 s"
  pid=$(service_main_pid)
  state_set KIT_SMBD_PID "$pid"
  KIT_SMBD_PID=$pid
}

# service_gone PID: true when PID is not the kit's smbd and no kit cgroup holds a process.
service_gone() {
  [[ -z $(service_kit_procs) ]] || return 1
  [[ -z $1 ]] || ! service_pid_is_ours "$1"
}

# service_stop: stop the kit's smbd; return when every kit smbd process is gone (timeout 20 s,
# then SIGKILL). Removes the daemon-mode cgroup when empty. Quiet when nothing runs.
service_stop() {
  local mode pid='' unit p cg
  mode=${KIT_SERVICE_MODE:-$(service_mode)}
  unit=${KIT_UNIT:-$(service_unit)}
  pid=$(service_main_pid 2>/dev/null) || pid=''
  if [[ $mode == systemd && $(service_mode) == systemd ]]; then
    if ! service_unit_is_kit "$unit"; then
      log "kept unit '$unit': not made by the kit"
      pid=''
    elif common_timeout 10 systemctl is-active --quiet "$unit" 2>/dev/null; then
      common_timeout 60 systemctl stop "$unit" || warn "systemctl stop '$unit' failed or timed out"
    fi
  elif [[ -n $pid ]]; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
  if ! common_wait_until 20 0.05 service_gone "$pid"; then
    warn "smbd did not stop within 20 s: killing the kit's processes"
    for p in $pid $(service_kit_procs); do kill -KILL "$p" 2>/dev/null || true; done
  fi
  # samba-dcerpcd or other helpers left in the kit's own cgroup, or an smbd whose start was
  # interrupted before its pid file was written
  if [[ -n $(service_kit_procs) ]]; then
    for p in $(service_kit_procs); do kill -TERM "$p" 2>/dev/null || true; done
    if ! common_wait_until 10 0.05 service_gone ''; then
      for p in $(service_kit_procs); do kill -KILL "$p" 2>/dev/null || true; done
    fi
  fi
  common_wait_until 5 0.1 service_gone "$pid" || die "the kit's smbd processes did not go away"
  if [[ $mode != systemd ]]; then
    while IFS= read -r cg; do rmdir "$cg" 2>/dev/null || true; done < <(service_kit_cgroups)
  fi
  service_cgroup_forget
  [[ -z $pid ]] || log "service: stopped smbd (pid $pid)"
  return 0
}

# service_port_holders: print the PIDs listening on SERVER_ADDR:TEST_PORT (or *:TEST_PORT).
service_port_holders() {
  common_timeout 10 ss -Hltnp "sport = :$TEST_PORT" 2>/dev/null | grep -oE 'pid=[0-9]+' | cut -d= -f2 | sort -u
}

# service_check_port: die when TEST_PORT is in use by anything but the kit's own smbd.
service_check_port() {
  local pid ours='' p
  common_have ss || return 0
  [[ -n $(common_timeout 10 ss -Hltn "sport = :$TEST_PORT" 2>/dev/null) ]] || return 0
  ours=$(service_main_pid 2>/dev/null) || ours=''
  for p in $(service_port_holders); do
    pid=$p
    [[ -n $ours ]] && { [[ $p == "$ours" ]] || service_pid_is_ours "$p"; } && continue
    if service_pid_is_ours "$p"; then
      die "setting 'TEST_PORT' has bad value '$TEST_PORT': an smbd with the kit's config (pid $p) holds it but its pid file is not in '$STATE_DIR' (did STATE_DIR change?): stop it with the old settings"
    fi
    die "setting 'TEST_PORT' has bad value '$TEST_PORT': the port is in use by another program (pid $pid)"
  done
  [[ -n $ours ]] || die "setting 'TEST_PORT' has bad value '$TEST_PORT': the port is in use by another program"
}

# service_login ADDR PORT: one real login (session setup + tree connect) with the credentials
# file; quiet. Uses smbclient with the kit's config.
service_login() {
  common_timeout 10 smbclient -s "$KIT_CONF" -A "$KIT_CREDENTIALS" "//$1/$SHARE_NAME" -p "$2" -c '' >/dev/null 2>&1
}

# service_wait_login ADDR PORT TIMEOUT_S: wait until a real login works (helpers/smb-wait-login
# when built, else smbclient polling); on timeout print the log tail and return 1.
service_wait_login() {
  local addr=$1 port=$2 timeout=$3 helper=${KIT_ROOT:-}/helpers/smb-wait-login line
  if [[ -x $helper ]]; then
    if line=$(common_timeout $((timeout + 5)) "$helper" -A "$KIT_CREDENTIALS" -t "$timeout" "//$addr:$port/$SHARE_NAME" 2>/dev/null) &&
      [[ $line == *'"ok":true'* ]]; then
      return 0
    fi
    timeout=1 # the helper waited already: one last try with smbclient
  fi
  common_wait_until "$timeout" 0.05 service_login "$addr" "$port" && return 0
  warn "no login on //$addr:$port/$SHARE_NAME within $timeout s; last lines of '$LOG_DIR/log.smbd':"
  tail -n 20 "$LOG_DIR/log.smbd" >&2 2>/dev/null || true
  tail -n 5 "$LOG_DIR/smbd.out" >&2 2>/dev/null || true
  return 1
}
