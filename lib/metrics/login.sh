# lib/metrics/login.sh: the login metric: WORKERS clients log in and out for DURATION seconds
# (smb-login-storm); with client hosts (CLIENT_HOSTS, lib/run/clienthosts.sh) WORKERS clients on
# each host, all hosts at once (lib/run/clienthosts-fanout.sh), through CLIENT_HOSTS_SERVER_ADDR.
# Sourced; functions only. Verdict: lib/metrics/login.jq.

login_describe() {
  if clienthosts_on; then
    echo "$WORKERS clients on each of $(wc -w <<<"$CLIENT_HOSTS") client hosts logging in for $DURATION s"
  else
    echo "$WORKERS clients logging in for $DURATION s"
  fi
}
login_estimate() { measure_estimate $((DURATION + 1)); }
login_needs() { :; }

# login_storm NAME: the login storm as measurement NAME (also used by the cpu metric).
login_storm() {
  local h
  local -a cpu
  if clienthosts_on; then
    clienthosts_measure "$1" $((DURATION * 2 + 60)) smb-login-storm -w "$WORKERS" -d "$DURATION" "$(clienthosts_unc)"
    return
  fi
  h=$(child_helper smb-login-storm) || return 1
  mapfile -t cpu < <(child_cg_args)
  measure "$1" $((DURATION * 2 + 60)) -- "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" "${cpu[@]}" "$KIT_UNC" || true
}

login_measure() { login_storm login; }
