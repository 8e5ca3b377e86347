# lib/probes/clientcpu.sh: evidence probe (docs/CONTRACTS.md, section 5): the CPU the kit's own
# load generators (fio, the helpers) used during a measurement, and the whole machine's busy
# time. The measured command is moved, just before it execs, into a cgroup of its own,
# SERVICE_NAME-clients (v2, else v1 cpuacct, beside the daemon's: lib/server/service-cgroup.sh).
# smbd's CPU is the cgcpu probe's; lib/run/clientcpu.jq puts the two side by side. Sourced;
# functions only. Needs SERVICE_NAME, KIT_ROOT and lib/server/service-cgroup.sh.
#
#   probe_clientcpu_before NAME WORK   the client cgroup's and the machine's CPU so far
#   probe_clientcpu_enter NAME WORK    (in the child) move it into the client cgroup
#   probe_clientcpu_after NAME WORK    WORK/result.json: {available, source, cgroup, used_us,
#                                      user_us, system_us, machine_busy_us, window_s, nproc}
#   clientcpu_remove                   remove the client cgroup when it is empty (cleanup)

# clientcpu_cgroup: print the client cgroup folder, making it on first use (named in the kit's
# cgroup mark file, lib/server/service-cgroup.sh); a cgroup of that name the kit did not make is not
# used. 1 when none can be had (then the probe says why and the command runs where it is).
clientcpu_cgroup() {
  local root dir
  for root in "$(service_cgroup2_root 2>/dev/null)" "$(service_cgroup1_root 2>/dev/null)"; do
    [[ -n $root ]] || continue
    dir=$root/$SERVICE_NAME-clients
    if [[ ! -d $dir ]]; then
      printf '%s\n' "$dir" >>"$(service_cgroup_mark_file)" || continue
      mkdir "$dir" 2>/dev/null || continue
    fi
    if service_cgroup_is_kit "$dir" && [[ -f $dir/cgroup.procs ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

# clientcpu_leftovers: with the kit's lock held (no run of this kit measures), stop every process
# left in the kit's client cgroup: a run killed with SIGKILL (which runs no trap) leaves its
# load generators running to their time limit, loading the server. Says what it stopped.
clientcpu_leftovers() {
  local root dir p n names comm
  for root in "$(service_cgroup2_root 2>/dev/null)" "$(service_cgroup1_root 2>/dev/null)"; do
    dir=$root/$SERVICE_NAME-clients
    if [[ -z $root || ! -d $dir ]] || ! service_cgroup_is_kit "$dir"; then continue; fi
    n=0 names='' # each name once: a load generator has many workers
    while read -r p; do
      comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue # gone already
      [[ " $names " == *" '$comm' "* ]] || names+=" '$comm'"
      kill -TERM "$p" 2>/dev/null || true
      n=$((n + 1))
    done <"$dir/cgroup.procs"
    ((n > 0)) || continue
    if ! common_wait_until 5 0.1 clientcpu_empty "$dir"; then
      while read -r p; do kill -KILL "$p" 2>/dev/null || true; done <"$dir/cgroup.procs"
    fi
    log "cleaned up after a killed run: stopped $n processes (${names# }) left in the kit's cgroup '$dir'"
  done
  return 0
}

# clientcpu_empty DIR: true when the cgroup DIR holds no process.
clientcpu_empty() {
  [[ -z $(cat "$1/cgroup.procs" 2>/dev/null) ]]
}

# clientcpu_remove: remove the client cgroup when nothing is left in it.
clientcpu_remove() {
  local root dir
  for root in "$(service_cgroup2_root 2>/dev/null)" "$(service_cgroup1_root 2>/dev/null)"; do
    dir=$root/$SERVICE_NAME-clients
    if [[ -z $root || ! -d $dir ]] || ! service_cgroup_is_kit "$dir"; then continue; fi
    clientcpu_empty "$dir" && rmdir "$dir" 2>/dev/null
  done
  return 0
}

# probe_clientcpu_finish: the run is over: remove the client cgroup (measure_finish).
probe_clientcpu_finish() {
  clientcpu_remove
}

# clientcpu_machine_ticks STAT: print the busy clock ticks of the whole machine so far
# (STAT is /proc/stat or a copy: user+nice+system+irq+softirq). steal is left out: it is time the
# hypervisor gave another guest, not CPU a process here used, so it is no part of "others".
clientcpu_machine_ticks() {
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' "$1"
}

# clientcpu_snapshot FILE: write {t_ns, client (a cgcpu line), machine_ticks, hz} to FILE;
# 1 when the client cgroup cannot be read.
clientcpu_snapshot() {
  local cg line
  cg=$(clientcpu_cgroup) || return 1
  [[ -x $KIT_ROOT/helpers/cgcpu ]] || return 1
  line=$(timeout 5 "$KIT_ROOT/helpers/cgcpu" -g "$cg" 2>/dev/null) || return 1
  jq -n -c --argjson c "$line" --argjson t "$(date +%s%N)" --argjson m "$(clientcpu_machine_ticks /proc/stat)" \
    --argjson hz "$(getconf CLK_TCK)" '{t_ns: $t, client: $c, machine_ticks: $m, hz: $hz}' >"$1"
}

# probe_clientcpu_before NAME WORK: WORK/before.json, or WORK/reason.
probe_clientcpu_before() {
  if ! clientcpu_cgroup >/dev/null; then
    echo "no cgroup for the clients could be made" >"$2/reason"
  elif ! clientcpu_snapshot "$2/before.json"; then
    echo "the client cgroup's CPU could not be read (helpers/cgcpu)" >"$2/reason"
  fi
  return 0
}

# probe_clientcpu_enter NAME WORK: in the child, before it execs the command: join the client
# cgroup (every process the command starts stays in it).
probe_clientcpu_enter() {
  local cg
  [[ -s $2/before.json ]] || return 0
  cg=$(clientcpu_cgroup) || return 0
  echo "$BASHPID" >"$cg/cgroup.procs"
}

# probe_clientcpu_after NAME WORK: WORK/result.json.
probe_clientcpu_after() {
  local work=$2
  if [[ -s $work/reason || ! -s $work/before.json ]]; then
    jq -n -c --arg r "$(cat "$work/reason" 2>/dev/null || echo "no snapshot before the run")" \
      '{available: false, reason: $r}' >"$work/result.json"
    return 0
  fi
  if ! clientcpu_snapshot "$work/after.json"; then
    echo '{"available":false,"reason":"the client cgroup'"'"'s CPU could not be read after the run"}' >"$work/result.json"
    return 0
  fi
  jq -n -c --slurpfile b "$work/before.json" --slurpfile a "$work/after.json" \
    --argjson nproc "$(nproc)" '
    $b[0] as $b | $a[0] as $a
    | def d($k): if $a.client[$k] != null and $b.client[$k] != null then $a.client[$k] - $b.client[$k] else null end;
      {available: true, source: $a.client.source, cgroup: $a.client.target, used_us: d("cpu_us"),
       user_us: d("user_us"), system_us: d("system_us"),
       machine_busy_us: (($a.machine_ticks - $b.machine_ticks) * 1e6 / $a.hz | round),
       window_s: (($a.t_ns - $b.t_ns) / 1e9), nproc: $nproc}' >"$work/result.json" ||
    echo '{"available":false,"reason":"the CPU snapshots could not be compared"}' >"$work/result.json"
  return 0
}
