# lib/metrics/login.jq: the login verdict: rate >= TARGET_LOGIN_RATE_MIN, p95 <=
# TARGET_LOGIN_P95_MAX_MS, no failed login; smbd CPU per login from the run's evidence.
include "run/verdict";
include "format";
include "run/clienthosts";

# per_login_ms($line; $ev): smbd CPU ms per login attempt of a storm (successful and failed: a
# refused login costs smbd a process and a password check too), over the storm's measuring
# window (verdict.jq helper_cpu), or null.
def per_login_ms($line; $ev):
  helper_cpu($line; $ev; $line.errors // 0).per_op_us | if . == null then null else (. | round) / 1000 end;

# login_count: what login declares for the server's count (its head's count, lib/run/serverview.jq
# sv_count): every login the storm tried, late and failed ones too, is one connect to smbd.
def login_count:
  {what: "logins", smbd: "connects", client: (helper_lines("login(\\.[0-9A-Za-z]+)?") | helper_count(.ops, .late_ops, .errors))};

def verdict:
  row({unit: "logins/s", target: setting("TARGET_LOGIN_RATE_MIN"), target_op: ">=", charts: {files: "^login\\.json$"}, count: login_count,
       target_text: "≥ \(setting("TARGET_LOGIN_RATE_MIN")) logins/s and p95 ≤ \(setting("TARGET_LOGIN_P95_MAX_MS")) ms"};
    .["login.json"] as $f | .["login.evidence.json"] as $ev
    | if ($f | type) != "object" or ($f.helper | not) then
        {status: "FAIL", value: null, why: "smb-login-storm gave no result (see raw/login.err)"}
      else
        ($f.rate_per_s // 0) as $rate | ($f.lat_ms.p95 // null) as $p95 | ($f.errors // 0) as $err
        | ($f.ops // 0) as $ops | setting("TARGET_LOGIN_RATE_MIN") as $t | setting("TARGET_LOGIN_P95_MAX_MS") as $pt
        | [(if $f.ok != true then "the login test failed: \($f.error // $f.first_error // "unknown error")" else empty end),
           (if judge($rate; ">="; $t) == "FAIL" then "\($rate | num) \("logins/s" | unit_at($rate)) is below \($t)" else empty end),
           (if judge($p95; "<="; $pt) == "FAIL" then "p95 \($p95 // 0 | num) ms is above \($pt) ms"
              + (closed_loop_why($f.workers // setting("WORKERS"); "workers"; $rate; "logins/s"; "p95"; $pt) | if . then " (\(.))" else "" end)
            else empty end),
           (if $err > 0 then "\($err) of \($ops + $err) logins failed: \($f.first_error // "?")" else empty end)] as $fails
        | {value: $rate, status: (if ($fails | length) > 0 then "FAIL" else "PASS" end), why: ($fails | why_join),
           details: ($f | {workers, duration_s, ops, errors, rate_per_s, lat_ms}
             + (if .client_hosts then {client_hosts, fairness} else {} end)
             + (if .first_error then {first_error} else {} end)
             + failed_times($f)
             + {per_login_ms: per_login_ms($f; $ev), cpu_source: ($ev.probes.cgcpu.source // $ENV.KIT_CGROUP_SOURCE // ""),
                notes: (["smbd CPU per login attempt: the server's CPU time over \(helper_cpu($f; $ev; 0).over) divided by every login attempt in it, failed ones too."]
                  + ch_note($f; "logins/s")
                  + if $err > 0 then [failed_times_note] else [] end)}),
           warnings: (if $f.client_hosts == null and small_host($f.workers // setting("WORKERS"); $cpus) then
             ["\($f.workers // setting("WORKERS")) client processes shared \($cpus) CPUs with smbd: on so small a machine the clients may be the limit"] else [] end)}
      end);
