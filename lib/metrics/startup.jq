# lib/metrics/startup.jq: the startup verdict (slowest round's login <= TARGET_STARTUP_LOGIN_MAX_MS)
# and the recovery row (slowest round's first write on the mount <= TARGET_RECOVERY_MAX_S). Each
# row's "repeats" are its rounds' times in run order (what compare reads); its value the slowest.
include "run/verdict";
include "format";
include "run/series";

# clock($n): round $n's clock object of the client host the login was tried from
# (lib/metrics/startup.sh: {host, offset_ns, rtt_ns}, or {} when it was read here; null when
# it ran on a client host whose clock could not be read).
def clock($n):
  if .["startup.\($n).clock.json"] | type == "object" then .["startup.\($n).clock.json"]
  elif client_host_names != [] then null
  else {} end;

# round($n): {round, login_ms, attempts, recovery_s[, error]} of round $n (input: raw files).
# From a client host the first login's time is on its clock: its offset is taken out; a first
# attempt that worked means the helper began after the server was ready: not a time of the start.
def round($n):
  (.["startup.\($n).json"] // {}) as $h | (.["startup.\($n).times.json"] // {}) as $t | clock($n) as $c
  | (if $h.first_success_ns and $t.start_ns and $c != null then (($h.first_success_ns - ($c.offset_ns // 0) - $t.start_ns) / 1e5 | round) / 10 else null end) as $l
  | (($c // {}) | has("host") and $h.attempts == 1) as $late
  | {round: $n, login_ms: (if $late then null else $l end), attempts: ($h.attempts // null),
     recovery_s: (if $t.recovered_ns and $t.start_ns then (($t.recovered_ns - $t.start_ns) / 1e6 | round) / 1000 else null end)}
  + (if $t.error then {error: $t.error}
     elif $h.first_success_ns and $c == null then {error: "the client host's clock could not be read (its time of the first login is on that clock)"}
     elif $late then {error: "the helper on client host \($c.host) began after the server was ready (its first attempt worked): not a time of the start"}
     elif $l == null then {error: "no login worked within 45 s: \($h.last_error // $h.error // "no helper line")"}
     else {} end);

# round_line: one round for the progress line.
def round_line:
  "login works after \(.login_ms // "—") ms" + (if .recovery_s then ", client writes again after \(.recovery_s) s" else "" end)
  + (if .error then " (\(.error))" else "" end);

def verdict:
  . as $raw
  | [keys[] | capture("^startup\\.(?<n>[0-9]+)\\.times\\.json$").n | tonumber] | sort
  | map(. as $n | $raw | round($n)) as $rounds
  | ($raw[[$raw | keys[] | select(test("^startup\\.[0-9]+\\.times\\.json$"))][0] // ""] // {}) as $t0
  | ($raw | row({unit: "ms", target: setting("TARGET_STARTUP_LOGIN_MAX_MS"), target_op: "<="};
      ([$rounds[].login_ms] | if length == 0 or any(. == null) then null else max end) as $worst
      | if $worst == null then {status: "FAIL", value: null, why: ([$rounds[] | select(.login_ms == null) | .error][0] // "no round could be measured")}
        else {value: $worst, why: (if judge($worst; "<="; setting("TARGET_STARTUP_LOGIN_MAX_MS")) == "PASS" then "" else "the slowest round took \($worst) ms" end)} end
      | . + {repeats: [$rounds[].login_ms], details: {rounds: ($rounds | map({round, login_ms, attempts} + (if .error then {error} else {} end))),
          median_ms: ([$rounds[].login_ms | select(. != null)] | sort | if length > 0 then .[length / 2 | floor] else null end),
          notes: (["Timed from the realtime clock just before the start command to the first successful login of smb-wait-login (trying every 10 ms from before the start). The result is the slowest round."]
            + ([$rounds[].round as $n | $raw | clock($n) | select(has("host"))] as $cl
              | if ($cl | length) == 0 then [] else
                  ["The logins were tried from client host \($cl[0].host), over its network; its clock was \($cl | map(.offset_ns / 1e6) | [min, max] | map(num) | unique | join(" to ")) ms off this machine's, taken out of each round (read through the remote shell each round: uncertain by up to \($cl | map(.rtt_ns / 2e6) | max | num) ms)."] end))},
          charts: [setting("TARGET_STARTUP_LOGIN_MAX_MS") as $t
            | bars_chart("rounds"; "startup: time to the first login, per round";
                "ms from the start of smbd to the first login\(if $t != null then " (target <= \($t) ms)" else "" end)";
                [$rounds[] | select((.login_ms | type) == "number") | ["round \(.round)", .login_ms]]; "no round reached a login")]})),
    ($raw | row({metric: "recovery", unit: "s", target: setting("TARGET_RECOVERY_MAX_S"), target_op: "<="};
      if ($t0.mounted // "no") != "yes" then {status: "SKIP", value: null, why: (if ($t0.mount_skip // "") == "" then "the share is not mounted" else $t0.mount_skip end)}
      else ([$rounds[].recovery_s] | if length == 0 or any(. == null) then null else max end) as $worst
        | if $worst == null then {status: "FAIL", value: null, why: "the mounted client could not write again within 60 s"}
          else {value: $worst, why: (if judge($worst; "<="; setting("TARGET_RECOVERY_MAX_S")) == "PASS" then "" else "the slowest round took \($worst) s" end),
            details: {rounds: ($rounds | map({round, recovery_s})), notes: ["Timed from the start command until `touch` of a new file on the mount worked (tried every 50 ms, each try 10 s at most)."]}} end
        | . + {repeats: [$rounds[].recovery_s]}
      end));
