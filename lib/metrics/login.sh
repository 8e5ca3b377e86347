# lib/metrics/login.sh: the login metric: WORKERS clients log in and out for DURATION seconds
# (smb-login-storm). Sourced; functions only. Verdict: lib/metrics/login.jq.

login_describe() { echo "$WORKERS clients logging in for $DURATION s"; }
login_estimate() { measure_estimate $((DURATION + 1)); }
login_needs() { :; }

# login_storm NAME: the login storm as measurement NAME (also used by the cpu metric).
login_storm() {
  local h
  local -a cpu
  h=$(child_helper smb-login-storm) || return 1
  mapfile -t cpu < <(child_cg_args)
  measure "$1" $((DURATION * 2 + 60)) -- "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" "${cpu[@]}" "$KIT_UNC" || true
}

login_measure() { login_storm login; }
