# lib/server/serverconf.sh: the Samba settings the running test server runs with, never those of the
# script that asks: start-samba.sh records what it applied in the state (serverconf_record);
# test-samba.sh reads the server's smb.conf back with testparm, checks it against that record and
# against its own settings, and measures with the server's values (serverconf_adopt).
# Sourced; functions only.

# The kit's Samba settings (settings.conf section 2), each with its smb.conf parameter and the
# section it lives in.
SERVERCONF_KEYS='ENCRYPTION SIGNING STRICT_SYNC USE_SENDFILE'

# serverconf_param KEY: print 'section|parameter' of kit setting KEY.
serverconf_param() {
  case $1 in
    ENCRYPTION) echo 'global|server smb encrypt' ;;
    SIGNING) echo 'global|server signing' ;;
    STRICT_SYNC) echo 'share|strict sync' ;;
    USE_SENDFILE) echo 'share|use sendfile' ;;
  esac
}

# serverconf_from_param KEY VALUE: print kit setting KEY's value for the smb.conf VALUE as
# testparm prints it (VALUE itself, lower case, when no kit value means it).
serverconf_from_param() {
  local v=${2,,}
  case $1:$v in
    ENCRYPTION:required | ENCRYPTION:mandatory | ENCRYPTION:force) echo yes ;;
    ENCRYPTION:default | ENCRYPTION:no | ENCRYPTION:off | ENCRYPTION:disabled | ENCRYPTION:false) echo no ;;
    SIGNING:required | SIGNING:mandatory) echo mandatory ;;
    SIGNING:default | SIGNING:auto) echo default ;;
    SIGNING:no | SIGNING:disabled | SIGNING:off | SIGNING:false) echo disabled ;;
    STRICT_SYNC:yes | USE_SENDFILE:yes) echo yes ;;
    STRICT_SYNC:no | USE_SENDFILE:no) echo no ;;
    *) echo "$v" ;;
  esac
}

# serverconf_conf_sum FILE: print the sha256 of FILE (nothing and 1 when it cannot be read).
serverconf_conf_sum() {
  local sum
  sum=$(sha256sum <"$1" 2>/dev/null) || return 1
  printf '%s\n' "${sum%% *}"
}

# serverconf_record: after start-samba.sh (re)started smbd or found it running with the current
# smb.conf, store in the state what it applied: KIT_SAMBA_SETTINGS ('KEY=value ...' of the four
# kit settings), KIT_SAMBA_SETTINGS_ENV (the keys start-samba.sh took from its environment) and
# KIT_SAMBA_PARAMS (the Samba parameters under test it applied, as JSON:
# {"SAMBA_GLOBAL_PARAMS": "...", "SAMBA_SHARE_PARAMS": "..."}) and KIT_CONF_SHA256 (the smb.conf
# smbd runs with).
serverconf_record() {
  local key applied='' fromenv=''
  for key in $SERVERCONF_KEYS; do
    applied+="${applied:+ }$key=${!key}"
    if printenv "$key" >/dev/null; then fromenv+="${fromenv:+ }$key"; fi
  done
  state_set KIT_SAMBA_SETTINGS "$applied"
  state_set KIT_SAMBA_SETTINGS_ENV "$fromenv"
  state_set KIT_SAMBA_PARAMS "$(jq -cn --arg g "$SAMBA_GLOBAL_PARAMS" --arg s "$SAMBA_SHARE_PARAMS" \
    '{SAMBA_GLOBAL_PARAMS: $g, SAMBA_SHARE_PARAMS: $s}')"
  state_set KIT_CONF_SHA256 "$(serverconf_conf_sum "$KIT_CONF" || true)"
}

# serverconf_applied_params: print 'KEY=value' for SAMBA_GLOBAL_PARAMS and SAMBA_SHARE_PARAMS
# as start-samba.sh applied them (KIT_SAMBA_PARAMS of the loaded state; values are one line);
# nothing when the state has no record of them.
serverconf_applied_params() {
  [[ -n ${KIT_SAMBA_PARAMS:-} ]] || return 0
  jq -r '["SAMBA_GLOBAL_PARAMS", "SAMBA_SHARE_PARAMS"][] as $k | "\($k)=\(.[$k] // "")"' \
    <<<"$KIT_SAMBA_PARAMS" 2>/dev/null || true
}

# serverconf_read CONF SHARE: print the server's settings as JSON: {"settings":{KEY: value},
# "parameters":{"global":{name: value}, "share":{...}}} (every parameter CONF sets, as
# 'testparm -s' prints them); 1 when testparm cannot read CONF.
serverconf_read() {
  local conf=$1 share=$2 key sect param v dump
  local -a args=()
  # testparm exits 1 for a missing state folder too: judge by what it printed
  dump=$(testparm -s --suppress-prompt "$conf" 2>/dev/null) || true
  [[ $dump == *'[global]'* ]] || return 1
  for key in $SERVERCONF_KEYS; do
    IFS='|' read -r sect param <<<"$(serverconf_param "$key")"
    if [[ $sect == share ]]; then
      v=$(testparm -s --suppress-prompt --parameter-name="$param" --section-name="$share" "$conf" 2>/dev/null) || true
    else
      v=$(testparm -s --suppress-prompt --parameter-name="$param" "$conf" 2>/dev/null) || true
    fi
    [[ -n $v ]] || return 1
    args+=(--arg "$key" "$(serverconf_from_param "$key" "$v")")
  done
  # shellcheck disable=SC2016 # a jq program
  printf '%s\n' "$dump" | jq -Rn --arg share "$share" "${args[@]}" '
    reduce (inputs | select(test("^\\s*(#|$)") | not)) as $l ({sect: null, p: {global: {}, share: {}}};
      if ($l | test("^\\s*\\[")) then .sect = ($l | capture("\\[(?<s>[^]]*)\\]").s)
      elif .sect == "global" then .p.global += ($l | capture("^\\s*(?<k>[^=]*[^=\\s])\\s*=\\s?(?<v>.*)$") | {(.k): .v})
      elif .sect == $share then .p.share += ($l | capture("^\\s*(?<k>[^=]*[^=\\s])\\s*=\\s?(?<v>.*)$") | {(.k): .v})
      else . end)
    | {settings: ($ARGS.named | del(.share)), parameters: .p}'
}

# shellcheck disable=SC2034 # SERVERCONF_JSON is read by lib/run/system.sh
# serverconf_adopt: before a run records its settings: read the running server's settings back
# (its smb.conf through testparm, the state start-samba.sh recorded), set ENCRYPTION, SIGNING,
# STRICT_SYNC and USE_SENDFILE to the values the server runs with, and set SERVERCONF_JSON to
# what system.json records under "server_settings": {checked_with, conf, in_effect, parameters,
# applied{at, settings, from_environment}, conf_changed, differences[{key, asked, asked_in,
# server}], warnings[]}. Without testparm or a readable smb.conf: the state's record, else
# the run's own settings, with a warning that says so.
serverconf_adopt() {
  local read='' kv key v asked where applied="${KIT_SAMBA_SETTINGS:-}" sum changed=null how
  local -a warns=() diffs=()
  local -A server=() rec=()
  for key in $applied; do rec[${key%%=*}]=${key#*=}; done
  if read=$(serverconf_read "$KIT_CONF" "$SHARE_NAME"); then
    how="testparm -s $KIT_CONF"
    for key in $SERVERCONF_KEYS; do server[$key]=$(jq -r --arg k "$key" '.settings[$k]' <<<"$read"); done
    if [[ -n ${KIT_CONF_SHA256:-} ]] && sum=$(serverconf_conf_sum "$KIT_CONF"); then
      changed=false
      if [[ $sum != "$KIT_CONF_SHA256" ]]; then
        changed=true
        # smbd was started with the smb.conf start-samba.sh wrote: its record is what is in effect
        for key in "${!rec[@]}"; do server[$key]=${rec[$key]}; done
        warns+=("the test server's smb.conf '$KIT_CONF' was changed after start-samba.sh started smbd${KIT_STARTED_AT:+ ($KIT_STARTED_AT)}: smbd may run with the settings start-samba.sh applied, which this report shows; run ./start-samba.sh to apply the file")
      fi
    fi
    for key in "${!rec[@]}"; do
      [[ $changed == true || ${rec[$key]} == "${server[$key]}" ]] ||
        warns+=("start-samba.sh recorded $key=${rec[$key]}, but the server's smb.conf says ${server[$key]}: this report shows the smb.conf's value")
    done
  elif [[ -n $applied ]]; then
    how="the state start-samba.sh recorded (testparm could not read $KIT_CONF)"
    for key in "${!rec[@]}"; do server[$key]=${rec[$key]}; done
    warns+=("testparm could not read the test server's smb.conf '$KIT_CONF': its Samba settings are taken from what start-samba.sh recorded")
  else
    how="the settings of test-samba.sh (neither the smb.conf nor a record of start-samba.sh could be read)"
    warns+=("the test server's Samba settings could not be read back (no smb.conf '$KIT_CONF' testparm reads, no record of start-samba.sh): the report shows the settings test-samba.sh was given")
  fi
  for key in $SERVERCONF_KEYS; do
    v=${server[$key]:-${!key}}
    asked=${!key}
    [[ $v != "$asked" ]] || continue
    if printenv "$key" >/dev/null; then where="the environment of test-samba.sh"; else where=${KIT_SETTINGS:-settings.conf}; fi
    diffs+=("$(jq -cn --arg k "$key" --arg a "$asked" --arg w "$where" --arg s "$v" '{key: $k, asked: $a, asked_in: $w, server: $s}')")
    warns+=("$key=$asked in $where, but the server runs with $key=$v: this run measured $v; run ./start-samba.sh to apply $key=$asked")
    printf -v "$key" '%s' "$v"
  done
  # the Samba parameters under test: those start-samba.sh applied, whatever this script was given
  while IFS= read -r kv; do
    key=${kv%%=*} v=${kv#*=} asked=${!key}
    [[ $v != "$asked" ]] || continue
    if printenv "$key" >/dev/null; then where="the environment of test-samba.sh"; else where=${KIT_SETTINGS:-settings.conf}; fi
    warns+=("$key='$asked' in $where, but start-samba.sh applied $key='$v': this run measured the server with '$v'; run ./start-samba.sh to apply '$asked'")
    printf -v "$key" '%s' "$v"
  done < <(serverconf_applied_params)
  SERVERCONF_JSON=$(jq -cn --arg how "$how" --arg conf "$KIT_CONF" --arg read "$read" \
    --arg applied "$applied" --arg fromenv "${KIT_SAMBA_SETTINGS_ENV:-}" --arg at "${KIT_STARTED_AT:-}" \
    --argjson changed "$changed" --arg diffs "$(printf '%s\n' "${diffs[@]}")" \
    --arg warns "$(printf '%s\n' "${warns[@]}")" \
    --arg enc "$ENCRYPTION" --arg sig "$SIGNING" --arg ss "$STRICT_SYNC" --arg sf "$USE_SENDFILE" '
    ($read | fromjson? // null) as $r
    | {checked_with: $how, conf: $conf,
       in_effect: {ENCRYPTION: $enc, SIGNING: $sig, STRICT_SYNC: $ss, USE_SENDFILE: $sf},
       parameters: ($r.parameters // null),
       applied: (if $applied == "" then null else
         {at: (if $at == "" then null else $at end),
          settings: ($applied | split(" ") | map(split("=") | {(.[0]): (.[1:] | join("="))}) | add),
          from_environment: ($fromenv | split(" ") | map(select(. != "")))} end),
       conf_changed: $changed,
       differences: ($diffs | split("\n") | map(select(. != "") | fromjson)),
       warnings: ($warns | split("\n") | map(select(. != "")))}')
}
