# lib/report/report.jq: turn results.json (the input) into report.md (raw output, jq -r).
# Needs -L lib, --slurpfile advice lib/report/advice.json and --arg order "$(registry_rows)" (the rows in
# the order of lib/metrics/list; rows it does not name follow, sorted, so none vanishes).
include "format";
include "run/serverview";
include "report/charts";

# Labels of the detail keys the metrics write; unknown keys show as they are.
def key_label:
  {
    "lat_ms": "time per request as sent (ms)", "due_lat_ms": "time per request from when it was due (ms)",
    "sent_p99_ms": "p99 as sent (ms)", "counted": "requests counted", "held_back": "requests held back by a stall",
    "read_lat_ms": "read time (ms)",
    "write_lat_ms": "write time (ms)", "login_ms": "login works after (ms)",
    "recovery_s": "client can write after (s)", "rate_per_s": "rate per second",
    "ops": "operations", "errors": "errors", "workers": "clients at once",
    "duration_s": "measured for (s)", "first_error": "first error",
    "cpu_us": "smbd CPU (µs)", "cpu_per_login_ms": "smbd CPU per login (ms)",
    "per_read_us": "smbd CPU per 4 KiB read (µs)", "per_gb_ms": "smbd CPU per GB read (ms)",
    "per_login_ms": "smbd CPU per login attempt (ms)", "cpu_source": "CPU counted from",
    "bw_mbs": "MB/s (10^6 bytes)", "iops": "IOPS", "fio_busy_pct": "fio CPU busy (%)",
    "achieved_iops": "achieved requests/s", "asked_iops": "asked requests/s",
    "held": "connections held", "asked": "connections asked",
    "pss_before_kb": "PSS of all smbd before (KiB)", "pss_during_kb": "PSS of all smbd during (KiB)",
    "processes_before": "smbd processes before", "processes_during": "smbd processes during",
    "per_conn_mb": "PSS per connection (MB, 10^6 bytes)", "rss_one_mb": "RSS of one client's smbd (MB)",
    "max_rss_mb": "largest RSS of one smbd (MB)", "files_per_folder": "files per folder at the end",
    "left_behind": "files left behind", "requests": "requests", "fio_errors": "errors fio saw",
    "server_failed": "requests the server answered with an error", "reconnects": "reconnects of the share",
    "cifs_requests": "requests the kernel client sent on the share", "host_reconnects": "reconnects of every cifs mount of the host",
    "method": "method", "command": "command", "kept_up": "kept up", "clients": "clients",
    "connected": "connected", "p50_ms": "p50 (ms)", "p99_ms": "p99 (ms)", "p99_max_ms": "p99 a step must keep (ms)",
    "per_client_iops": "IOPS per client (min-max)", "cpu_per_read_us": "smbd CPU per read (µs)", "median_ms": "median of the rounds (ms)",
    "round": "round", "attempts": "login attempts", "error": "error", "why": "why not",
    "streams": "streams", "iodepth": "requests in flight per job", "jobs": "jobs", "block": "block size",
    "runtime_s": "fio ran for (s)", "drop_caches": "page cache dropped first", "file_kb": "file size (KiB)",
    "create": "create", "delete": "delete", "reads": "reads counted", "gb": "GB read",
    "first_error_code": "first error code", "job": "job", "local_disk": "local disk",
    "samba": "Samba", "samba_pct": "Samba reaches (% of local)", "direct_io": "direct I/O",
    "file_system": "file system", "unit": "unit",
    "client_cpu_s": "client CPU on the host (s)", "host_cores": "host cores",
    "client_cores": "client cores used", "client_share": "share of the host's cores",
    "this_machine": "this machine (same boot id)"
  }[.] // .;

# Any value for humans; $l: the metric's own labels (details.labels), before key_label's.
def show($l):
  if . == null then "—"
  elif type == "number" then num
  elif type == "boolean" then (if . then "yes" else "no" end)
  elif type == "array" then map(show($l)) | join(", ")
  elif type == "object" then to_entries | map("\($l[.key] // (.key | key_label)) \(.value | show($l))") | join(", ")
  else tostring
  end;
def show: show({});


# Markdown table from an array of objects (columns = keys of the first row, plus later ones);
# $l: the metric's own labels.
def table($l):
  (map(keys_unsorted) | add | unique_by(.) ) as $all
  | (.[0] | keys_unsorted) as $first
  | . as $rows
  | [($first + ($all - $first))[] | . as $k | select(any($rows[]; .[$k] != null and .[$k] != ""))] as $cols
  | ("| " + ($cols | map($l[.] // key_label | cell) | join(" | ")) + " |"),
    ("|" + ($cols | map("---") | join("|")) + "|"),
    (.[] | . as $row | "| " + ($cols | map($row[.] | show($l) | cell) | join(" | ")) + " |");

# remarks_once($seen): a reason (the input) without each remark in parentheses that was said
# before: one of the same shape (its numbers and plurals aside) in $seen, or earlier in the text
# (each repeat of a failed login quotes the same Little's-law remark). Output: {text, seen}, seen
# with the shapes of the remarks kept.
def remark_shape: gsub("[0-9]+(?:\\.[0-9]+)?"; "#") | gsub("(?<w>[a-z]{2,}[a-rt-z])s\\b"; "\(.w)");
def remarks_once($seen):
  reduce ([scan(" \\((?:[^()]|\\([^()]*\\))*\\)")][]) as $r ({text: ., seen: $seen};
    ($r | remark_shape) as $sh
    | if (.seen | index([$sh])) then .text |= (split($r) | join("")) else .seen += [$sh] end);

# The detail block of one metric: every detail but the ones shown elsewhere (notes, the server
# view, the chart a verdict declares) and the labels the metric gives its keys (details.labels).
# The figures that moved between repeats (details.figures, every number of the details) stay in
# results.json: the report says how many and where.
def details_md:
  .metric as $m | (.why // "") as $why
  | (.details // {}) | (.labels // {}) as $l
  | [to_entries[] | select(.key | IN("notes", "server", "cpu", "count_check", "chart", "labels", "figures") | not)] as $e
  # the figures line and the repeats after it on the same line (a default run's report stays
  # near 250 lines: issue 21)
  | ([([$e[] | select(.key != "repeats" and .key != "disturbed" and
       ((.value | type) != "array" or (.value | length) == 0 or (.value[0] | type) != "object"))]
      | if length > 0 then map("\($l[.key] // (.key | key_label)): \(.value | show($l))") | join("; ") else empty end),
    (($e[] | select(.key == "repeats" and (.value | type) == "array")) as $rep
     # each repeat's figure and verdict, the why of a failed one, and how many further
     # figures moved between the repeats (they stay in results.json)
     # (a remark the verdict's reason or an earlier repeat made is not made again)
     | (.figures // []) as $fig
     | "repeats: \(reduce $rep.value[] as $k ({seen: ($why | remarks_once([]) | .seen), out: []};
           # a repeat's reason that is the verdict's own (the median repeat's) is not said again
           (.seen as $s
            | (($k.why // "") | if . == ($why | sub("^repeat [0-9]+ \\(the median, [^)]*\\): "; "")) then "" else . end
               | remarks_once($s)) as $o
            | .seen = $o.seen
            | .out += ["\($k.repeat): \($k.value | show($l))\(if $k.status != "PASS" then " \($k.status)\(if $o.text != "" then " (\($o.text))" else "" end)" else "" end)"]))
         | .out | join("; "))"
       + (if ($fig | length) > 0 then
            "; \($fig | length) further figure\(if ($fig | length) > 1 then "s" else "" end) moved between them (median, min, max of each): `results.json`, `.metrics.\($m).details.figures`"
          else "" end))] | select(length > 0) | "- " + join("; ")),
    ($e[] | select(.key == "disturbed" and (.value | type) == "array") | [.value[] | select(.replaced)]
     # one line: the disturbed repeats measured again, by what (the ones kept, which the verdict
     # rests on, are the row's warning)
     | select(length > 0)
     | "- disturbed and measured again: \(map("repeat \(.repeat) (\(.reason); the first measurement kept in raw/ as '\(.tag)')") | join("; "))"),
    # a table of one row is a list line: "- rounds: round 1, login works after (ms) 6565"
    ($e[] | select(.key != "repeats" and .key != "disturbed" and (.value | type) == "array" and (.value | length) == 1 and (.value[0] | type) == "object")
     | "- \($l[.key] // (.key | key_label)): \(.value[0] | show($l))"),
    (.figures // [] | if length > 0 and ($e | any(.key == "repeats")) == false then
       "- \(length) further figure\(if length > 1 then "s" else "" end) moved between the repeats (median, min, max of each): `results.json`, `.metrics.\($m).details.figures`"
     else empty end),
    ($e[] | select(.key != "repeats" and .key != "disturbed" and (.value | type) == "array" and (.value | length) > 1 and (.value[0] | type) == "object")
     | "", (.value | table($l)));

# short_why: a verdict's reason as short as the results table and the first line want it: without
# the "repeat N (the median, X): " that names the repeat, without remarks in parentheses, at
# most 140 characters; the metric's section gives it whole.
def short_why:
  sub("^repeat [0-9]+ \\(the median, [^)]*\\): "; "")
  | gsub(" \\((?:[^()]|\\([^()]*\\))*\\)"; "")
  | if length > 140 then .[:139] + "…" else . end;

# first_sentence: a text up to its first full stop that ends a sentence.
def first_sentence: (capture("^(?<s>.*?[.])( |$)").s) // .;

# slug: a heading's anchor as GitHub spells it (lower case, no punctuation but - and _,
# spaces as -); lib/report/html.sh gives report.html's headings the same ids.
def slug: ascii_downcase | gsub("[^a-z0-9 _-]"; "") | gsub(" "; "-");

# worst: of the metric objects (input), the FAIL furthest from its target (by how far the
# value misses it, relative to the target), else the first FAIL; null when none failed.
def worst:
  [.[] | select(.status == "FAIL")] as $f
  | ([$f[] | select((.value | type) == "number" and (.target | type) == "number" and .target != 0)
      | {m: ., miss: (if .target_op == ">=" then (.target - .value) / .target else (.value - .target) / .target end)}]
     | max_by(.miss) | .m) // $f[0];

def verdict_md($c):
  (if .status == "FAIL" then "**FAIL**" else verdict_word end)
  + (if .unsure then " (unsure)" else "" end);

. as $r
| ($advice[0]) as $adv
| ($order | split("\n") | map(select(. != ""))) as $order
| [($order + (($r.metrics // {} | keys) - $order))[] as $m | $r.metrics[$m] // empty] as $ms
| ($r.system // {}) as $s
| ($r.system.run // {}) as $run
# every warning once: the first 3 head the report, the others stay in their own section
# (a warning two metrics share, one judged on the other's run, is counted and shown once: the first's)
| ([($s.warnings // [])[] | ["system", .]] + [$ms[] | .metric as $m | (.warnings // [])[] | [$m, .]]
   | reduce .[] as $p ([]; if any(.[]; .[1] == $p[1]) then . else . + [$p] end) | map("\(.[0]): \(.[1])")) as $allw
| ($allw[:3]) as $top
| "# Samba performance test: \($s.host // "?"), \($run.started_at // "?")",
  "",
  (if $r.incomplete then
     "> **INCOMPLETE**: \($run.interrupted // "the run did not finish"). "
     + "Results below are only those measured before it stopped"
     + (([$run.requested[]? | select(($r.metrics[.] // null) == null)]) as $miss
        | if ($miss | length) > 0 then "; not measured: " + ($miss | join(", ")) else "" end)
     + ".", ""
   else empty end),
  # the first screen answers: the overall verdict and the worst finding, the table, the three
  # warnings that matter most, the contents; the run's facts after them
  ($ms | status_counts) as $counts
  | ($ms | worst) as $w
  | "**Verdict: \(if $counts.FAIL > 0 then "FAIL" else "PASS" end)**: \($counts | counts_text)\(if $r.incomplete then " (incomplete run)" else "" end)."
    + (if $w then " Worst: \($w.metric), \($w | result_text) (target \($w | target_text))\(if ($w.why // "") != "" then ": \($w.why | short_why)" else "" end)." else "" end),
  "",
  charts_none_md($r.charts),
  "",
  "## Results",
  "",
  "| Metric | Result | Target | Verdict | Why |",
  "|---|---|---|---|---|",
  ($ms[] | "| [\(.metric)](#\(if .status == "SKIP" then "not-measured" else (($adv[.metric].title // .metric) + " (`\(.metric)`)") | slug end)) | \(result_text | cell) | \(target_text | cell) | \(verdict_md(.)) | \(if .status == "PASS" then "" else (.why // "" | short_why | cell) end) |"),
  "",
  (if ($allw | length) > 0 then
     "**Warnings** (\(if ($allw | length) > 3 then "the first 3 of \($allw | length); the others in their metric's section" else "all \($allw | length)" end)):", "",
     ($top[] | "- \(.)"), ""
   else empty end),
  "## The run",
  "",
  "| Fact | This run |",
  "|---|---|",
  "| When | \($run.started_at // "?") to \($run.finished_at // "?") (\($run.wall_s // null | show) s) |",
  "| Host | \($s.host // "?"): \($s.cpus // "?") CPUs, \(($s.ram_mb // null) | show) MB RAM, kernel \($s.kernel // "?") |",
  (($s.cpu // null) as $c | if $c == null then empty else
     "| CPU | \($c.model // "model not named by /proc/cpuinfo"); crypto flags present: \([$c.crypto // {} | to_entries[] | select(.value) | .key] | if length == 0 then "none" else join(", ") end)\([$c.crypto // {} | to_entries[] | select(.value | not) | .key] | if length == 0 then "" else "; absent: " + join(", ") end)\(if $c.arch == "x86" then " (aes is AES-NI)" else "" end) |" end),
  "| Software | Samba \($s.samba_version // "?"); \($s.fio_version // "fio not installed"); kit samba-perf-test \($s.kit_version // "(version not recorded)") |",
  "| Test server | \($s.service_mode // "?") mode\(if ($s.unit // "") != "" then " (\($s.unit))" else "" end); clients use \($s.share // "?"); CPU and memory from \($s.cgroup_source // "?") (\($s.cgroup // "?" | cell)); SELinux \($s.selinux // "?") |",
  (($s.server_settings // null) as $ss
   | if $ss == null then empty else
       "| Samba settings in effect | \($ss.in_effect | to_entries | map("\(.key)=\(.value)"
           + ((.key as $k | $ss.differences // [] | map(select(.key == $k))[0]) as $d
              | if $d then " (not \($d.asked) as \($d.asked_in) says: start-samba.sh has not applied that)" else "" end)) | join(", ") | cell); read back from the running server (\($ss.checked_with | cell))\(if $ss.applied.at then "; applied by start-samba.sh at \($ss.applied.at)" else "" end) |",
       (if ($ss.parameters // null) == null then empty else
          # what the test server's smb.conf sets, without the kit's own folders and files
          # (values that are absolute paths): the whole file is smb.conf in the run folder
          ([$ss.parameters.global, $ss.parameters.share | to_entries[] | select(.value | tostring | startswith("/"))] | length) as $paths
          | "| Samba parameters (smb.conf of the test server) | [global] \($ss.parameters.global | to_entries | map(select(.value | tostring | startswith("/") | not) | "\(.key) = \(.value)") | join("; ") | cell); [share] \($ss.parameters.share | to_entries | map(select(.value | tostring | startswith("/") | not) | "\(.key) = \(.value)") | join("; ") | cell)\(if $paths > 0 then "; \($paths) \(if $paths == 1 then "folder or file" else "folders and files" end) of the kit left out: the whole file is `smb.conf`" else "" end) |" end)
     end),
  "| Client mount | \(if $s.mounted == "yes" then ($s.mount_opts // "?") else "not mounted: \($s.mount_skip // "?")" end | cell) |",
  "| Sessions | \(($s.sessions // null) | if . == null then "not checked" else "signing: \(.signing // "?"), encryption: \(.encryption // "?")" end | cell) |",
  (if ($s.sessions // {} | "\(.signing // "") \(.encryption // "")" | test("partial")) then
     "| What (partial) means | smbstatus saw signed and also unsigned requests in the session (for encryption: encrypted and unencrypted ones). SMB 3.1.1 always signs the session setup and the tree connect; the other requests are signed only when the client or the server requires signing (SIGNING=mandatory). (full) would mean every request |"
   else empty end),
  "| Samba parameters under test | \([["[global]", ($r.settings.SAMBA_GLOBAL_PARAMS // "")], ["[share]", ($r.settings.SAMBA_SHARE_PARAMS // "")]]
      | map(select(.[1] | test("\\S")) | "\(.[0]) \(.[1] | gsub("\n"; "; "))") | if length == 0 then "none (SAMBA_GLOBAL_PARAMS, SAMBA_SHARE_PARAMS)" else join("; ") end | cell) |",
  "| Settings changed from the defaults | \(($s.settings_changed // []) | if length == 0 then "none" else join("; ") end | cell) |",
  "",
  "",
  ([($s.warnings // [])[] | select(("system: \(.)") as $w | $top | index([$w]) | not)]
   | if length > 0 then "System warnings:", "", (.[] | "- \(.)"), "" else empty end),
  # each measured metric's section: one list (the verdict with what the figure is, the figures,
  # the notes not shown before, the server view, the warnings not shown before, a FAIL's advice),
  # its tables, its charts on one line
  (([$ms[] | select(.status != "SKIP")]) as $shown
  | range(0; $shown | length) as $i
  | $shown[$i] as $x
  | ($adv[$x.metric] // {}) as $a
  | ([$shown[:$i][] | .details.notes // [] | .[]]) as $notes_before
  | ([($top[] | sub("^[a-z_]+: "; "")), ($shown[:$i][] | .warnings // [] | .[])]) as $warned_before
  # an earlier section of the same run (a metric judged on another's run): its server view
  # and CPU are named, not repeated
  | (first($shown[:$i][] | select(.details.server != null and .details.server.commands == $x.details.server.commands
       and .details.cpu == $x.details.cpu and (.details.count_check == $x.details.count_check or $x.details.count_check == null))
       | .metric) // null) as $same
  | $x
  | "## \($a.title // $x.metric) (`\($x.metric)`)",
    # details_md: its list lines first, then its tables (each after a blank line)
    ([details_md] as $dm
     | ([$dm[] | select(startswith("- "))] | length) as $nl
     | (["- **\($x.status)**: \(result_text) (target \(target_text))"
          + (if ($x.why // "") != "" and $x.status != "PASS" then ": \($x.why | remarks_once([]) | .text)." else "." end)
          + (if ($x.elapsed_s // 0) > 0 then " Measured in \($x.elapsed_s) s." else "" end)
          + ($a.what // "" | first_sentence | if . != "" then " *\(.)*" else "" end)]
        + $dm[:$nl]
        # a baseline's note of this metric (a metric without a target, whose notes start with
        # the metric they are the baseline of: "NAME: local disk ...")
        + ([$r.metrics[] | select(.target == null and .metric != $x.metric) as $b
            | ($b.details.notes // [])[] | select(startswith("\($x.metric): "))
            | "- \($adv[$b.metric].title // $b.metric) (`\($b.metric)`): \(ltrimstr("\($x.metric): ") | ltrimstr("local disk "))"] | .[:1])
        # the notes, each once in the report: not one an earlier section showed, not a "repeat
        # N measured again: ..." (the disturbed line says it), not a baseline's note of a metric
        # whose own section shows it
        + [(.details.notes // [])[] | select(test("^repeat [0-9]+ measured again: ") | not)
            | select(. as $n | $notes_before | index([$n]) | not)
            | select($x.target != null or (. as $n | any($shown[]; .metric as $sm | $n | startswith("\($sm): ")) | not))
            | "- \(.)"]
        + (if $same then ["- Server view, CPU and counts: the same run as \($same)'s, in its section"]
           elif .details.server or .details.cpu then
             ["- Server view (time inside smbd, not on the wire; see docs/server-view.md): \(.details.server | sv_brief_md($x.metric))"]
             # the CPU split and the counts of client and server: one line
             + ["- " + ([.details.cpu | sv_cpu_md] + [.details.count_check | sv_check_md] | join(". "))]
             # with client hosts: their own CPU, and whether the server had the machine to itself
             + [.details.cpu // empty | sv_hosts_md | "- \(.)."]
           else [] end)
        + [(.warnings // [])[] | select(. as $w | $warned_before | index([$w]) | not) | "- **Warning**: \(.)"]
        # a FAIL's advice: the likely causes, then what to change
        + (if $x.status == "FAIL" and $a.causes then
             ["- **Likely causes**: \($a.causes | join(" "))", "- **What to change**: \($a.changes | join(" "))"]
           else [] end))
       as $list
     | "", $list[],
       $dm[$nl:][]),
    # the charts on one line (one paragraph of pictures), then what was not drawn
    (if $r.charts != null and ($r.charts.why // null) == null then
       [charts_md($r.charts; $x.metric) | select(. != "")]
       | (map(select(startswith("!["))) | if length > 0 then "", join(" ") else empty end),
         (map(select(startswith("![") | not)) | if length > 0 then "", .[] else empty end)
     else empty end),
    ""),
  # what was not measured, each once with its reason (what a metric is: docs/metrics.md)
  ([$ms[] | select(.status == "SKIP")] | if length > 0 then
     "## Not measured", "",
     (.[] | "- \(($adv[.metric].title // .metric)) (`\(.metric)`): \(.why // "not measured")"), ""
   else empty end),
  # after the findings: how to read the numbers, where the rest is
  "Units: MB and GB are decimal (10^6 and 10^9 bytes), as in fio's MB/s, hdparm and network speeds; KiB and MiB (1024 and 1024² bytes) only for block, file and kernel memory sizes. Times per request are fio's total latency or the helpers' own clock (see each metric). Raw data: `raw/` (fio JSON and helper lines), per-metric objects: `metrics/`, everything merged: `results.json`."
