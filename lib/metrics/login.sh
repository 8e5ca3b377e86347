# lib/metrics/login.sh: the login metric: WORKERS clients log in and out for DURATION seconds
# (smb-login-storm); smbd CPU per login from the service's cgroup. Sourced; functions only.

# login_measure: run the storm between two CPU snapshots; raw/login.json, raw/login-cpu.*.json.
# 1 when the helper is missing.
login_measure() {
  local h
  h=$(run_helper smb-login-storm) || return 1
  run_cpu_snapshot "$RUN_DIR/raw/login-cpu.before.json" || true
  run_child $((DURATION * 2 + 60)) "$RUN_DIR/raw/login.json" \
    "$h" -A "$KIT_CREDENTIALS" -w "$WORKERS" -d "$DURATION" "$KIT_UNC" || true
  run_cpu_snapshot "$RUN_DIR/raw/login-cpu.after.json" || rm -f "$RUN_DIR/raw/login-cpu.before.json"
  LOGIN_DONE=1
  return 0
}

# login_cpu_per_login_ms: print smbd CPU ms per login of the login run (empty when unknown).
login_cpu_per_login_ms() {
  local used ops
  [[ -s $RUN_DIR/raw/login-cpu.before.json && -s $RUN_DIR/raw/login-cpu.after.json ]] || return 0
  used=$(run_cpu_used "$RUN_DIR/raw/login-cpu.before.json" "$RUN_DIR/raw/login-cpu.after.json")
  ops=$(jq '.ops // 0' "$RUN_DIR/raw/login.json" 2>/dev/null) || return 0
  ((ops > 0)) || return 0
  awk -v u="$used" -v o="$ops" 'BEGIN { printf "%.3f\n", u / o / 1000 }'
}

# metric_login: judge the login run (rate >= TARGET_LOGIN_RATE_MIN, p95 <= TARGET_LOGIN_P95_MAX_MS,
# no failed login).
metric_login() {
  local f=$RUN_DIR/raw/login.json rate p95 errors ops status why='' cpu warnings='[]'
  [[ ${LOGIN_DONE:-0} == 1 ]] || login_measure || return 1
  if ! jq -e '.helper' "$f" >/dev/null 2>&1; then
    run_result login FAIL null logins/s "$TARGET_LOGIN_RATE_MIN" ">=" "smb-login-storm gave no result (see raw/login.err)"
    return 0
  fi
  rate=$(jq '.rate_per_s // 0' "$f")
  p95=$(jq '.lat_ms.p95 // null' "$f")
  errors=$(jq '.errors // 0' "$f")
  ops=$(jq '.ops // 0' "$f")
  status=PASS
  if [[ $(jq -r '.ok' "$f") != true ]]; then
    status=FAIL why="the login test failed: $(jq -r '.error // .first_error // "unknown error"' "$f")"
  fi
  if [[ $(run_judge "$rate" ">=" "$TARGET_LOGIN_RATE_MIN") == FAIL ]]; then
    status=FAIL why+="${why:+; }$(printf '%.1f' "$rate") logins/s is below $TARGET_LOGIN_RATE_MIN"
  fi
  if [[ $p95 == null ]] || [[ $(run_judge "$p95" "<=" "$TARGET_LOGIN_P95_MAX_MS") == FAIL ]]; then
    status=FAIL why+="${why:+; }p95 $(printf '%.1f' "${p95/null/0}") ms is above $TARGET_LOGIN_P95_MAX_MS ms"
  fi
  if ((errors > 0)); then
    status=FAIL why+="${why:+; }$errors of $((ops + errors)) logins failed: $(jq -r '.first_error // "?"' "$f")"
  fi
  cpu=$(login_cpu_per_login_ms)
  if run_small_host "$WORKERS"; then
    warnings=$(jq -cn --argjson w "$WORKERS" --argjson c "$(nproc)" '["\($w) client processes shared \($c) CPUs with smbd: on so small a machine the clients may be the limit"]')
  fi
  run_result login "$status" "$rate" logins/s "$TARGET_LOGIN_RATE_MIN" ">=" "$why" \
    "$(jq -c --arg cpu "$cpu" --arg src "${KIT_CGROUP_SOURCE:-}" '{workers, duration_s, ops, errors,
      rate_per_s, lat_ms} + (if .first_error then {first_error} else {} end)
      + {per_login_ms: (if $cpu == "" then null else ($cpu | tonumber) end), cpu_source: $src}' "$f")" \
    "$warnings" "≥ $TARGET_LOGIN_RATE_MIN logins/s and p95 ≤ $TARGET_LOGIN_P95_MAX_MS ms"
}
