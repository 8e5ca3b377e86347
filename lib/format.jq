# lib/format.jq: how the kit writes numbers, targets and the "small host" rule, for the progress
# lines (lib/run/results.sh) and the report (lib/report/report.jq) alike. A jq module: include "format".

# num: a number for humans: integers as they are, else 3 significant places or so.
def num:
  if type != "number" then tostring
  elif . == floor and fabs < 1e15 then tostring
  elif fabs >= 100 then round | tostring
  elif fabs >= 10 then (. * 10 | round) / 10 | tostring
  elif fabs >= 1 then (. * 100 | round) / 100 | tostring
  else (. * 1000 | round) / 1000 | tostring
  end;

# unit_at($v): a unit (the input) as it reads after the number $v (or the text a number was
# written as): a unit of words is singular at 1 ("1 login/s", "1 client", "1 local job"), one of
# symbols stays as it is ("1 ms", "1 MB/s", "1 IOPS").
def unit_at($v):
  if ($v | if type == "number" then num else tostring end) == "1"
  then sub("^(?<w>(?:[a-z]+ )*[a-z]{2,}[a-rt-z])s(?<r>(?:/s)?)$"; "\(.w)\(.r)")
  else . end;

# signed: a number as num writes it, with its sign: "+3.14", "−24.4" (a minus sign), "±0" where
# num writes 0. A change in % in compare.md and on compare's charts.
def signed: num as $s | if ($s | tonumber) == 0 then "±0" elif . > 0 then "+\($s)" else "−\($s | ltrimstr("-"))" end;

# cell: text safe inside a Markdown table cell (a | escaped, a newline a space).
def cell: tostring | gsub("\\|"; "\\|") | gsub("\n"; " ");

# fixed($d): a number with exactly $d decimals (printf '%.Nf' without the shell).
def fixed($d):
  if type != "number" then tostring
  else (pow(10; $d)) as $p | ((. * $p | round) / $p) as $r
    | ($r | tostring) as $s
    | if $d == 0 then ($r | floor | tostring)
      else ($s | split(".")) as $parts
        | ($parts[1] // "") as $frac
        | ($d - ($frac | length)) as $pad
        | "\($parts[0]).\($frac)\(if $pad > 0 then "0" * $pad else "" end)"
      end
  end;

# op_sign: >= and <= as the report writes them.
def op_sign: if . == ">=" then "≥" elif . == "<=" then "≤" else (. // "") end;

# target_text: how a metric object's target reads ("≥ 100 logins/s", or its target_text).
def target_text:
  if .target_text then .target_text
  elif .target == null then "—"
  else .target as $t | "\(.target_op | op_sign) \($t | num) \(.unit // "" | unit_at($t))"
  end;

# result_text: a metric object's result ("412 logins/s", or — when nothing was measured); with
# two or more measured repeats the median and "(range min–max, n=N)".
def result_text:
  if .status == "SKIP" or .value == null then "—"
  else .value as $v | "\($v | num) \(.unit // "" | unit_at($v))"
    + (if (.spread.n // 0) > 1 then " (range \(.spread.min | num)–\(.spread.max | num), n=\(.spread.n))" else "" end)
  end;

# verdict_word: a metric object's verdict as people read it: its status, but "measured" for a
# PASS of a metric without a target (the local-disk baseline: its jobs ran; nothing was judged).
def verdict_word: if .status == "PASS" and .target == null then "measured" else .status end;

# status_counts: an array of metric objects -> {PASS, FAIL, SKIP, measured}, by verdict_word.
def status_counts:
  map(verdict_word) as $w
  | reduce ("PASS", "FAIL", "SKIP", "measured") as $k ({}; .[$k] = ($w | map(select(. == $k)) | length));

# counts_text: status_counts as a line: "3 PASS, 3 FAIL, 7 SKIP, 1 measured without a target".
def counts_text:
  "\(.PASS) PASS, \(.FAIL) FAIL, \(.SKIP) SKIP"
  + (if (.measured // 0) > 0 then ", \(.measured) measured without a target" else "" end);

# small_host($clients; $cpus): true when $clients client processes share a small machine
# (4 CPUs or fewer) with smbd, so the clients may be the limit.
def small_host($clients; $cpus): $cpus <= 4 and $clients > $cpus;

# progress_line: one metric object as the progress line shows it: "STATUS<TAB>text".
def progress_line:
  "\(verdict_word)\t"
  + (if .status == "SKIP" or .value == null then "(\(.why))"
     else "\(result_text)  (target \(target_text))"
       + (if .status == "FAIL" and (.why // "") != "" then ": \(.why)" else "" end)
     end)
  + (if .unsure then ", unsure" else "" end)
  + (if (.elapsed_s // 0) > 1 then " [\(.elapsed_s) s]" else "" end);

# warnings_merge($noun): an array of warnings -> the same with the warnings that differ only in
# their numbers (the same warning of several measurements or repeats) merged into one, in the
# order they first appear, with " (in N $noun)" added (N: how many warnings were merged; a
# merge's own earlier count is dropped first, so merging merged warnings again works). A
# number that differs becomes its range "lo–hi"; one that is part of a name (after a letter,
# "_" or ".", as in NAME.16) lists its values "4/16/64" instead, e.g. "the clients used
# 0.6–0.8 of 2 cores during NAME.4/16/64 (smbd 1.2–1.4) ... (in 3 measurements)".
# Warnings that are the same text are shown once, without a count.
def warnings_merge($noun):
  def num_re: "-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?";
  def tok_re: "\(num_re)(?:(?:–|/)\(num_re))*";
  def bare: sub("( \\(in [0-9]+ [a-z]+\\))+$"; "");
  def merge_tok($named):
    if $named then [.[] | split("/")[]] | unique_by(tonumber) | sort_by(tonumber) | join("/")
    else [.[] | split("–")[]] as $v | ($v | min_by(tonumber)) as $lo | ($v | max_by(tonumber)) as $hi
      | if ($lo | tonumber) == ($hi | tonumber) then $lo else "\($lo)–\($hi)" end
    end;
  [to_entries[] | {i: .key, text: .value, bare: (.value | bare)} | .shape = (.bare | gsub(tok_re; "#"))]
  | group_by(.shape) | sort_by(.[0].i)
  | map(length as $times | ([.[].text] | unique) as $orig | ([.[].bare] | unique) as $texts
      | if ($orig | length) == 1 then $orig[0]
        else ($texts | map([scan(tok_re)])) as $t | ($texts[0] | [splits(tok_re)]) as $p
          | reduce range(0; $t[0] | length) as $k ($p[0];
              . + ([$t[][$k]] | merge_tok($p[$k] | test("[A-Za-z_.]$"))) + $p[$k + 1])
            + " (in \($times) \($noun))"
        end);
