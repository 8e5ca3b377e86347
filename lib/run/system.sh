# lib/run/system.sh: the run's system record (system.json): the kit's version, host, versions, how
# the service runs, the mount, and what smbstatus says about the sessions' signing and encryption.
# Sourced; functions only.

# system_record: write system.json (host, versions, how the service runs, mount, the server's
# Samba settings from serverconf_adopt, sessions; warnings follow the server's settings).
system_record() {
  local opts mounted=no skip=${KIT_MOUNT_SKIP:-} sessions changed requested lookup
  if opts=$(mount_options_now 2>/dev/null); then mounted=yes skip=''; else opts=''; fi
  [[ $mounted == yes || -n $skip ]] || skip="not mounted"
  sessions=$(system_sessions) || sessions=null
  lookup=$(system_name_lookup)
  changed=$(settings_diff_defaults)
  requested=$(printf '%s\n' "${RUN_METRICS[@]}")
  jq -n --arg host "$(uname -n)" --argjson cpus "$RUN_CPUS" \
    --argjson ram "$(awk '/^MemTotal:/ { print int($2 * 1024 / 1e6) }' /proc/meminfo)" \
    --arg kernel "$(uname -r)" --arg samba "$(smbd -V 2>/dev/null | sed 's/^Version //')" \
    --arg fio "$(fio --version 2>/dev/null || true)" --arg mode "${KIT_SERVICE_MODE:-}" \
    --arg unit "${KIT_UNIT:-}" --arg cg "${KIT_CGROUP:-}" --arg cgs "${KIT_CGROUP_SOURCE:-}" \
    --arg selinux "${KIT_SELINUX:-$(getenforce 2>/dev/null | tr '[:upper:]' '[:lower:]' || echo disabled)}" \
    --arg mounted "$mounted" --arg skip "$skip" --arg opts "$opts" --argjson sessions "$sessions" \
    --arg changed "$changed" --arg requested "$requested" --arg started "$RUN_STARTED_AT" \
    --arg cmd "test-samba.sh ${RUN_ARGS[*]}" --arg unc "$KIT_UNC" --arg enc "$ENCRYPTION" --arg sig "$SIGNING" \
    --argjson server "${SERVERCONF_JSON:-null}" --argjson lookup "$lookup" \
    --arg kit "$(common_kit_version "$KIT_ROOT")" --argjson cpu "$(system_cpu /proc/cpuinfo)" \
    '($changed | split("\n") | map(select(. != ""))) as $changed
    | ($requested | split("\n") | map(select(. != ""))) as $requested
    | {kit_version: $kit, host: $host, cpus: $cpus, cpu: $cpu, ram_mb: $ram, kernel: $kernel, samba_version: $samba,
      fio_version: (if $fio == "" then null else $fio end), service_mode: $mode, unit: $unit,
      cgroup: $cg, cgroup_source: $cgs, selinux: $selinux, share: $unc, mounted: $mounted,
      mount_skip: $skip, mount_opts: $opts, server_settings: $server, sessions: $sessions,
      name_lookup: $lookup,
      settings_changed: $changed,
      run: {started_at: $started, command: $cmd, requested: $requested}}
    | .warnings = ($server.warnings // []) + [
        (if $sessions == null then "the signing and encryption of the sessions could not be checked (smbstatus during a held connection)" else empty end),
        (if $enc == "yes" and $sessions != null and ($sessions.encryption | test("(^|, )-($|,)")) then "the server runs with ENCRYPTION=yes, but smbstatus shows sessions without encryption: \($sessions.encryption)" else empty end),
        (if $enc == "no" and $sessions != null and ($sessions.encryption | test("^-$") | not) then "the server runs with ENCRYPTION=no, but smbstatus shows encrypted sessions: \($sessions.encryption)" else empty end),
        (if $lookup.resolves and $lookup.ms < 1000 then empty else "this host'"'"'s name '"'"'\($lookup.name)'"'"' \(if $lookup.resolves then "took \($lookup.ms) ms to resolve" else "does not resolve (\($lookup.error))" end): smbd looks it up on every connection, so login and connection figures include that wait; add it to /etc/hosts (e.g. 127.0.1.1 \($lookup.name))" end),
        (if $sig == "mandatory" and $sessions != null and ($sessions.signing | test("(^|, )-($|,)")) then "the server runs with SIGNING=mandatory, but smbstatus shows unsigned sessions: \($sessions.signing)" else empty end)
      ]' >"$RUN_DIR/system.json"
}

# system_cpu CPUINFO: print the CPU's model and its crypto flags as JSON {model, arch, crypto}
# from CPUINFO (/proc/cpuinfo): crypto names each flag the kit looks for with true or
# false (x86: aes = AES-NI, pclmulqdq (GCM and GMAC), sha_ni, avx2; arm: aes, pmull, sha2), so
# the cpu advice about AES-NI can be checked against the host. model is null when not given.
system_cpu() {
  awk -F ':' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    $1 ~ /^(model name|Model|Hardware)[ \t]*$/ && model == "" { model = trim($2) }
    $1 ~ /^flags[ \t]*$/ && flags == "" { flags = " " trim($2) " "; arch = "x86" }
    $1 ~ /^Features[ \t]*$/ && flags == "" { flags = " " trim($2) " "; arch = "arm" }
    END { print model; print arch; print flags }' "$1" 2>/dev/null |
    jq -Rsc 'split("\n") as [$model, $arch, $flags]
      | (if $arch == "arm" then ["aes", "pmull", "sha2"] elif $arch == "x86" then ["aes", "pclmulqdq", "sha_ni", "avx2"] else [] end) as $want
      | {model: (if $model == "" then null else $model end), arch: (if $arch == "" then null else $arch end),
         crypto: (reduce $want[] as $f ({}; .[$f] = ($flags | contains(" \($f) "))))}'
}

# system_name_lookup: print how this host's own name resolves as JSON {name, resolves, ms,
# error}: smbd resolves it for every new connection (seen with strace), so a name that only DNS
# knows, or nobody, slows every login. Bounded by 3 s.
system_name_lookup() {
  local name t0 t1 rc=0
  name=$(uname -n)
  t0=$EPOCHREALTIME
  timeout 3 getent ahosts "$name" >/dev/null 2>&1 || rc=$?
  t1=$EPOCHREALTIME
  jq -n -c --arg n "$name" --argjson rc "$rc" --argjson ms "$(((${t1/./} - ${t0/./}) / 1000))" '
    {name: $n, resolves: ($rc == 0), ms: $ms,
     error: (if $rc == 0 then null elif $rc == 124 then "no answer within 3 s" else "not found" end)}'
}

# system_sessions: hold one connection (30 s at most to get it) and print what smbstatus says about its signing and
# encryption (and the mount's session) as a JSON object; 1 when it could not be checked.
system_sessions() {
  local out=$RUN_DIR/raw/sessions-hold.json i json
  child_hold_start 60 1 "$out" 2>/dev/null || return 1
  for ((i = 0; i < 300; i++)); do
    [[ -s $out ]] && break
    sleep 0.1
  done
  json=$(timeout 10 smbstatus -s "$KIT_CONF" -b --json 2>/dev/null) || json=''
  if [[ -z $json ]]; then
    # a Samba built without JSON support: the plain table (Encryption and Signing are the last
    # two columns)
    json=$(timeout 10 smbstatus -s "$KIT_CONF" -b 2>/dev/null | awk '
      /^-----/ { body = 1; next }
      body && NF >= 6 { printf "{\"session_dialect\":\"%s\",\"encryption\":{\"cipher\":\"%s\"},\"signing\":{\"cipher\":\"%s\"}}\n", $(NF - 2), $(NF - 1), $NF }' |
      jq -sc 'if length == 0 then empty else {sessions: (to_entries | map({(.key | tostring): .value}) | add)} end') || json=''
  fi
  child_hold_stop
  [[ -n $json ]] || return 1
  printf '%s\n' "$json" >"$RUN_DIR/raw/smbstatus.json"
  printf '%s\n' "$json" | jq -c '
    [.sessions // {} | to_entries[].value] as $s
    | if ($s | length) == 0 then error("no sessions") else . end
    | {checked_with: "smbstatus -b during a held connection", sessions: ($s | length),
       dialects: ([$s[].session_dialect // empty] | unique),
       signing: ([$s[] | (.signing.cipher // "-") + (if (.signing.degree // "") == "" or .signing.degree == "none" then "" else " (\(.signing.degree))" end)] | unique | join(", ")),
       encryption: ([$s[] | (.encryption.cipher // "-") + (if (.encryption.degree // "") == "" or .encryption.degree == "none" then "" else " (\(.encryption.degree))" end)] | unique | join(", "))}' 2>/dev/null
}
