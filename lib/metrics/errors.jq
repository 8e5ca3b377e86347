# lib/metrics/errors.jq: the errors verdict: failed requests of the steady run, percent (fio
# errors or server-answered errors on the kit's share, whichever is larger; reconnects beside
# it) <= TARGET_ERRORS_MAX_PCT.
include "run/verdict";
include "format";
include "run/steady";

def verdict:
  row({unit: "%", target: setting("TARGET_ERRORS_MAX_PCT"), target_op: "<=", count: steady_count};
    steady_summary as $s
    | if $s == null then {status: "FAIL", value: null, why: "fio gave no result (see raw/steady.fio.log)"}
      elif $s.requests == 0 then {status: "FAIL", value: null, why: "no request completed in the steady run"}
      else ([$s.errors, ($s.server_failed // 0)] | max) as $failed
        | {value: ($failed / $s.requests * 100),
           why: (if judge($failed / $s.requests * 100; "<="; setting("TARGET_ERRORS_MAX_PCT")) == "PASS" then ""
                 else "\($failed) of \($s.requests) requests failed"
                   + (if ($s.reconnects // 0) > 0 then ", \($s.reconnects) reconnect(s)" else "" end) end),
           details: ($s | {requests, fio_errors: .errors}
             + (if (.first_error // 0) != 0 then {first_error_code: .first_error} else {} end)
             + {cifs_requests, server_failed, reconnects, host_reconnects}
             + {notes: ["Failed requests: the larger of the errors fio saw and the reads and writes the server answered with an error (the kernel client's counters of the kit's share); a request the server refused is also an error for fio, so the two are not added. Reconnects of the share are shown beside them, not counted as requests."]}),
           warnings: ($s | steady_warnings("the errors were counted"))}
      end);
