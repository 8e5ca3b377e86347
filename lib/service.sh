# lib/service.sh: run the kit's smbd, as a systemd unit (systemd is PID 1) or as a plain
# daemon in a cgroup of its own. Never touches a Samba of the host: processes are found only
# through the kit's pid file, unit or cgroup. Sourced; functions only. Needs the settings.
# shellcheck disable=SC2034 # state variables are read by the entry scripts and metrics

SERVICE_MARKER='samba-perf-test kit unit'

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

# service_unit: print the unit name (SERVICE_NAME.service).
service_unit() {
  printf '%s.service\n' "$SERVICE_NAME"
}

# service_unit_file: print the path of the kit's unit file.
service_unit_file() {
  printf '/etc/systemd/system/%s\n' "$(service_unit)"
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

# service_unit_file_is_kit FILE: true when FILE is a regular file whose first line is exactly
# this kit's marker line ('# MARKER STATE_DIR'; earlier versions' '# MARKER' alone when the
# state names the unit): another kit's unit of that name is not this kit's.
service_unit_file_is_kit() {
  local line='' owner
  [[ -f $1 && ! -L $1 ]] || return 1
  read -r line <"$1" || true
  [[ $line == '# '* ]] || return 1
  owner=$(state_mark_owner "$SERVICE_MARKER" "${line#'# '}") || return 1
  [[ $owner == this || ($owner == legacy && ${KIT_UNIT:-} == "${1##*/}") ]]
}

# service_unit_is_kit UNIT: true when systemd loads UNIT from the kit's unit file (the path
# the kit writes, carrying the marker line), or when systemd does not know UNIT at all.
service_unit_is_kit() {
  local unit=$1 file=/etc/systemd/system/$1 frag
  frag=$(common_timeout 10 systemctl show -p FragmentPath --value "$unit" 2>/dev/null) || frag=''
  if [[ -n $frag ]]; then
    [[ $frag == "$file" ]] && service_unit_file_is_kit "$file"
  else
    [[ ! -e $file ]] || service_unit_file_is_kit "$file"
  fi
}

# service_check_unit: die when the unit name is taken by a unit the kit did not write.
service_check_unit() {
  local file frag
  [[ $(service_mode) == systemd ]] || return 0
  file=$(service_unit_file)
  if [[ -e $file ]] && ! service_unit_file_is_kit "$file"; then
    die "setting 'SERVICE_NAME': unit '$(service_unit)' exists and was not written by the kit ('$file'): set SERVICE_NAME to a new name"
  fi
  frag=$(common_timeout 10 systemctl show -p FragmentPath --value "$(service_unit)" 2>/dev/null) || frag=''
  if [[ -n $frag && $frag != "$file" ]]; then
    die "setting 'SERVICE_NAME': unit '$(service_unit)' is already defined in '$frag': set SERVICE_NAME to a new name"
  fi
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

# service_cgroup2_root: print the writable cgroup2 mount point; 1 when there is none.
service_cgroup2_root() {
  local mp
  mp=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
  [[ -n $mp && -w $mp ]] || return 1
  printf '%s\n' "$mp"
}

# service_cgroup1_root: print the cgroup v1 cpuacct mount point; 1 when there is none.
service_cgroup1_root() {
  local mp
  mp=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ { print $2; exit }' /proc/self/mounts)
  [[ -n $mp && -w $mp ]] || return 1
  printf '%s\n' "$mp"
}

# service_cgroup_mark_file: print the path of the file that names the daemon-mode cgroup the
# kit made (a cgroup file system holds no files of ours, so the mark lives in STATE_DIR).
service_cgroup_mark_file() {
  printf '%s/cgroup.mark\n' "$STATE_DIR"
}

# service_cgroup_is_kit DIR: true when DIR is a cgroup the kit made (named in the mark file).
service_cgroup_is_kit() {
  local f
  f=$(service_cgroup_mark_file)
  [[ -n $1 && -f $f && ! -L $f ]] && grep -qxF -- "$1" "$f"
}

# service_cgroup_candidates: print the daemon-mode cgroup paths for SERVICE_NAME (v2, v1).
service_cgroup_candidates() {
  local root
  if root=$(service_cgroup2_root); then printf '%s\n' "$root/$SERVICE_NAME"; fi
  if root=$(service_cgroup1_root); then printf '%s\n' "$root/$SERVICE_NAME"; fi
  return 0
}

# service_cgroup_refuse DIR: die naming the cgroup DIR the kit did not make; when it holds no
# process (what a killed run of a kit with another STATE_DIR leaves) say how the admin removes
# it. Changes nothing.
service_cgroup_refuse() {
  local hint=''
  if [[ -r $1/cgroup.procs && -z $(service_cgroup_procs "$1") ]]; then
    hint=" (it holds no process: if a killed run of the kit left it, 'rmdir $1' removes it)"
  fi
  die "setting 'SERVICE_NAME': the cgroup '$1' exists and was not made by the kit$hint: set SERVICE_NAME to a new name"
}

# service_check_cgroup: die when a daemon-mode cgroup named SERVICE_NAME exists and was not
# made by the kit (changes nothing).
service_check_cgroup() {
  local dir
  [[ $(service_mode) == daemon ]] || return 0
  while IFS= read -r dir; do
    [[ ! -d $dir ]] || service_cgroup_is_kit "$dir" || service_cgroup_refuse "$dir"
  done < <(service_cgroup_candidates)
}

# service_cgroup_make: create the kit's own cgroup (v2, else v1 cpuacct), naming it in the
# mark file first; set SERVICE_CGROUP and SERVICE_CGROUP_SOURCE (cgroup2|cgroup1|proc, empty
# cgroup for proc). A cgroup of that name the kit did not make is never used.
service_cgroup_make() {
  local root dir src mark
  SERVICE_CGROUP='' SERVICE_CGROUP_SOURCE=proc
  mark=$(service_cgroup_mark_file)
  for src in cgroup2 cgroup1; do
    root=$(service_"${src}"_root) || continue
    dir=$root/$SERVICE_NAME
    if [[ -d $dir ]] && ! service_cgroup_is_kit "$dir"; then service_cgroup_refuse "$dir"; fi
    grep -qxF -- "$dir" "$mark" 2>/dev/null || printf '%s\n' "$dir" >>"$mark" || die "cannot write '$mark'"
    if mkdir -p "$dir" 2>/dev/null && [[ -f $dir/cgroup.procs ]]; then
      SERVICE_CGROUP=$dir SERVICE_CGROUP_SOURCE=$src
      return 0
    fi
  done
  warn "no cgroup could be made: CPU and memory are measured from /proc"
}

# service_cgroup_procs DIR: print the PIDs in cgroup DIR (nothing when DIR is gone).
service_cgroup_procs() {
  [[ -n $1 && -r $1/cgroup.procs ]] || return 0
  cat "$1/cgroup.procs" 2>/dev/null || true
}

# service_unit_install ROOT: write the unit from templates/ when it differs; daemon-reload.
# Sets SERVICE_UNIT_CHANGED=yes|no.
service_unit_install() {
  local file tmp
  SERVICE_UNIT_CHANGED=no
  file=$(service_unit_file)
  tmp=$(mktemp "$file.XXXXXX")
  common_tmp_track "$tmp"
  smbconf_render_template "$1/templates/smbd-perf-test.service.in" \
    "MARKER=$SERVICE_MARKER $STATE_DIR" "SERVER_ADDR=$SERVER_ADDR" "TEST_PORT=$TEST_PORT" \
    "STATE_DIR=$STATE_DIR" "LIMIT_NOFILE=$(service_limit_nofile)" "SMBD=$(service_smbd)" \
    "KIT_CONF=$KIT_CONF" >"$tmp"
  chmod 0644 "$tmp"
  if [[ -f $file ]] && cmp -s "$tmp" "$file"; then
    rm -f "$tmp"
    return 0
  fi
  mv -f "$tmp" "$file"
  selinux_label_unit "$file"
  common_timeout 60 systemctl daemon-reload || die "systemctl daemon-reload failed or timed out"
  SERVICE_UNIT_CHANGED=yes
  log "service: wrote unit '$file'"
}

# service_unit_remove: stop nothing; delete the kit's unit file (only if it carries the mark).
service_unit_remove() {
  local file
  file=$(service_unit_file)
  if [[ -n ${KIT_UNIT:-} ]]; then file=/etc/systemd/system/$KIT_UNIT; fi
  [[ -f $file ]] || return 0
  if ! service_unit_file_is_kit "$file"; then
    log "kept '$file': not made by the kit"
    return 0
  fi
  rm -f "$file"
  if [[ $(service_mode) == systemd ]]; then
    common_timeout 60 systemctl daemon-reload || true
    common_timeout 10 systemctl reset-failed "${file##*/}" >/dev/null 2>&1 || true
  fi
  log "removed unit '$file'"
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

# service_kit_cgroups: print the cgroup folders of the kit that exist: KIT_CGROUP when systemd
# made it, and the daemon-mode cgroups named in the kit's mark file (found even when an
# interrupted start left no state). A cgroup without the mark is never listed.
service_kit_cgroups() {
  local dir
  {
    if [[ ${KIT_SERVICE_MODE:-} == systemd && -n ${KIT_CGROUP:-} ]]; then printf '%s\n' "$KIT_CGROUP"; fi
    while IFS= read -r dir; do
      if service_cgroup_is_kit "$dir"; then printf '%s\n' "$dir"; fi
    done < <(service_cgroup_candidates)
  } | sort -u | while IFS= read -r dir; do [[ ! -d $dir ]] || printf '%s\n' "$dir"; done
}

# service_kit_procs: print the PIDs in every cgroup of the kit.
service_kit_procs() {
  local cg
  while IFS= read -r cg; do service_cgroup_procs "$cg"; done < <(service_kit_cgroups)
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

# service_cgroup_forget: drop the mark file's lines of cgroups that are gone.
service_cgroup_forget() {
  local f dir keep=''
  f=$(service_cgroup_mark_file)
  [[ -f $f ]] || return 0
  while IFS= read -r dir; do
    [[ ! -d $dir ]] || keep+=$dir$'\n'
  done <"$f"
  if [[ -z $keep ]]; then rm -f "$f"; else printf '%s' "$keep" >"$f"; fi
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
