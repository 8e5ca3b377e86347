# lib/probes/cgcpu.sh: evidence probe: the CPU time all smbd of the kit used during a measurement,
# from the service's cgroup (helpers/cgcpu). Sourced; functions only.

# probe_cgcpu_before NAME WORK: WORK/before.json: one cgcpu line.
probe_cgcpu_before() {
  local -a cg
  [[ -x $KIT_ROOT/helpers/cgcpu ]] || return 0
  mapfile -t cg < <(child_cg_args)
  timeout 10 "$KIT_ROOT/helpers/cgcpu" "${cg[@]}" >"$2/before.json" 2>/dev/null || rm -f "$2/before.json"
}

# probe_cgcpu_after NAME WORK: WORK/result.json: {available, source, before_us, after_us, used_us,
# user_us, system_us}.
probe_cgcpu_after() {
  local -a cg
  if [[ ! -x $KIT_ROOT/helpers/cgcpu ]]; then
    echo '{"available":false,"reason":"helpers/cgcpu is not built"}' >"$2/result.json"
    return 0
  fi
  mapfile -t cg < <(child_cg_args)
  timeout 10 "$KIT_ROOT/helpers/cgcpu" "${cg[@]}" >"$2/after.json" 2>/dev/null || : >"$2/after.json"
  [[ -f $2/before.json ]] || : >"$2/before.json"
  # shellcheck disable=SC2016 # a jq program
  jq -cn --rawfile a "$2/before.json" --rawfile b "$2/after.json" '
    ($a | fromjson? // null) as $a | ($b | fromjson? // null) as $b
    | if ($a.cpu_us | type) == "number" and ($b.cpu_us | type) == "number" then
        {available: true, source: $b.source, target: $b.target, before_us: $a.cpu_us, after_us: $b.cpu_us,
         used_us: ($b.cpu_us - $a.cpu_us),
         user_us: (if $a.user_us != null and $b.user_us != null then $b.user_us - $a.user_us else null end),
         system_us: (if $a.system_us != null and $b.system_us != null then $b.system_us - $a.system_us else null end)}
      else {available: false, reason: "helpers/cgcpu could not read the service\u0027s CPU time"} end' \
    >"$2/result.json" 2>/dev/null
}
