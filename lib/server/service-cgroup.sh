# lib/server/service-cgroup.sh: the cgroups that hold the kit's smbd processes (lib/server/service.sh): the
# daemon-mode cgroup the kit makes (v2, else v1 cpuacct) and names in its mark file in
# STATE_DIR, the check that a cgroup of that name is the kit's, and listing the kit's cgroups
# and their processes. A cgroup without the mark is never used or removed. Sourced; functions
# only. Needs the settings.
# shellcheck disable=SC2034 # SERVICE_CGROUP and SERVICE_CGROUP_SOURCE are read by lib/server/service.sh

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
