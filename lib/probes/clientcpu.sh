# lib/probes/clientcpu.sh: client CPU against server CPU during a measured run. The kit's load
# generators (fio, the helpers) run in a cgroup of their own, SERVICE_NAME-clients (v2, else
# v1 cpuacct, beside the daemon's, see lib/service.sh); smbd's CPU comes from the kit's cgroup
# (KIT_CGROUP) or, without one, from its process tree (KIT_SMBD_PID); the whole machine's busy
# time from /proc/stat. Sourced; functions only. Needs SERVICE_NAME, RUN_DIR, KIT_ROOT and
# lib/service.sh.
#
#   clientcpu_run CMD...         run CMD (a load generator) inside the client cgroup; its status
#   probe_clientcpu_before NAME  raw/NAME.clientcpu.before.json
#   probe_clientcpu_after NAME   raw/NAME.clientcpu.after.json and raw/NAME.clientcpu.json:
#     {available, wall_s, nproc, client:{cpu_s, cores, share, source}, server:{…}, machine:{…},
#      others:{cores, share}}   (cores = CPU seconds / wall seconds; share = cores / nproc)
#   clientcpu_remove             remove the client cgroup when it is empty (cleanup)
# lib/clientcpu.jq turns the merged object into the "small machine" warning.

# clientcpu_cgroup: print the client cgroup folder, making it on first use; 1 when none can be
# made (then clientcpu_run runs commands where they are and the probe says why).
clientcpu_cgroup() {
  local root dir
  for root in "$(service_cgroup2_root 2>/dev/null)" "$(service_cgroup1_root 2>/dev/null)"; do
    [[ -n $root ]] || continue
    dir=$root/$SERVICE_NAME-clients
    if mkdir -p "$dir" 2>/dev/null && [[ -f $dir/cgroup.procs ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

# clientcpu_run CMD...: run CMD with its process (and so every child) in the client cgroup;
# return CMD's exit status. Without a client cgroup CMD runs as it is.
clientcpu_run() {
  local cg
  if ! cg=$(clientcpu_cgroup); then
    "$@"
    return
  fi
  # shellcheck disable=SC2016 # expanded by the inner bash
  bash -c 'echo "$BASHPID" >"$1/cgroup.procs" || exit 126; shift; exec "$@"' clientcpu "$cg" "$@"
}

# clientcpu_remove: remove the client cgroup when nothing is left in it.
clientcpu_remove() {
  local root dir
  for root in "$(service_cgroup2_root 2>/dev/null)" "$(service_cgroup1_root 2>/dev/null)"; do
    dir=$root/$SERVICE_NAME-clients
    [[ -n $root && -d $dir ]] || continue
    [[ -z $(cat "$dir/cgroup.procs" 2>/dev/null) ]] && rmdir "$dir" 2>/dev/null
  done
  return 0
}

# clientcpu_server_args: print the cgcpu target options for smbd (one word a line).
clientcpu_server_args() {
  if [[ ${KIT_CGROUP_SOURCE:-proc} != proc && -n ${KIT_CGROUP:-} && -d $KIT_CGROUP ]]; then
    printf '%s\n' -g "$KIT_CGROUP"
  elif [[ -n ${KIT_SMBD_PID:-} ]]; then
    printf '%s\n' -p "$KIT_SMBD_PID"
  else
    return 1
  fi
}

# clientcpu_machine_ticks: print the busy clock ticks of the whole machine so far (/proc/stat:
# user+nice+system+irq+softirq+steal).
clientcpu_machine_ticks() {
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# clientcpu_snapshot OUT: write {t_ns, client, server, machine_ticks, hz} to OUT (client and
# server are cgcpu lines or null).
clientcpu_snapshot() {
  local h=$KIT_ROOT/helpers/cgcpu cg client=null server=null
  local -a sargs
  if cg=$(clientcpu_cgroup) && [[ -x $h ]]; then
    client=$(timeout 10 "$h" -g "$cg" 2>/dev/null) || client=null
  fi
  if mapfile -t sargs < <(clientcpu_server_args) && ((${#sargs[@]})) && [[ -x $h ]]; then
    server=$(timeout 10 "$h" "${sargs[@]}" 2>/dev/null) || server=null
  fi
  jq -n -c --argjson c "$client" --argjson s "$server" --argjson t "$(date +%s%N)" \
    --argjson m "$(clientcpu_machine_ticks)" --argjson hz "$(getconf CLK_TCK)" \
    '{t_ns: $t, client: $c, server: $s, machine_ticks: $m, hz: $hz}' >"$1"
}

# probe_clientcpu_before NAME: CPU counters before run NAME.
probe_clientcpu_before() {
  clientcpu_snapshot "$RUN_DIR/raw/$1.clientcpu.before.json" ||
    jq -n -c '{available: false, why: "the CPU counters could not be read"}' \
      >"$RUN_DIR/raw/$1.clientcpu.before.json"
  return 0
}

# probe_clientcpu_after NAME: CPU counters after run NAME and the merged object.
probe_clientcpu_after() {
  local raw=$RUN_DIR/raw/$1.clientcpu
  clientcpu_snapshot "$raw.after.json" ||
    jq -n -c '{available: false, why: "the CPU counters could not be read"}' >"$raw.after.json"
  jq -n -c --slurpfile b "$raw.before.json" --slurpfile a "$raw.after.json" \
    --argjson nproc "$(nproc)" -L "$KIT_ROOT/lib" \
    'include "clientcpu"; clientcpu_merge($b[0]; $a[0]; $nproc)' >"$raw.json" ||
    jq -n -c '{available: false, why: "the CPU counters could not be merged"}' >"$raw.json"
  return 0
}
