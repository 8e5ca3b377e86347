# lib/compare-md.jq: render compare.json (lib/compare.jq's output) as compare.md.
#   jq -r -f lib/compare-md.jq compare.json

# num: a figure with 4 significant digits at most, no exponent for everyday sizes.
def num:
  if . == null then "–"
  elif . == 0 then "0"
  else (fabs | log10 | floor) as $e
    | (if $e >= 3 then 0 else 3 - $e end) as $d
    | (pow(10; $d)) as $f
    | ((. * $f | round) / $f) | tostring
  end;

def pct: if . == null then "–" else ((. * 10 | round) / 10) as $r
  | (if $r > 0 then "+" elif $r < 0 then "−" else "±" end) + ($r | fabs | tostring) + " %" end;

def pval: if . == null then "" elif . < 0.001 then "p<0.001" else "p=\((. * 1000 | round) / 1000)" end;

def cell: tostring | gsub("\\|"; "\\|") | gsub("\n"; " ");

def figure:
  if .n == 0 then (if .status == "absent" then "not in this run" else "not measured (\(.status // "no value"))" end)
  elif .n == 1 then "\(.median | num) (n=1)"
  else "\(.median | num) (\(.min | num)–\(.max | num), n=\(.n))" end;

def judgement($ref):
  if .verdict == "not measured" then "not measured"
  elif .verdict == "not judged" then "not judged: no target, and no figure of speed (each run's report has its figures)"
  elif .verdict == "not enough repeats to tell" then
    "\(.change_pct | pct) ? not enough repeats to tell (n=\(.n | join("+")): the smallest possible p is \(.min_p | pval | ltrimstr("p=")); needs n ≥ \(.needs_n) in each run\(if .needs_n_other != null and .needs_n_other != .needs_n then ", or n ≥ \(.needs_n_other) against the reference's \($ref)" else "" end))"
  elif .verdict == "no difference shown" then "\(.change_pct | pct) ~ no difference shown (\(.p | pval), n=\(.n | join("+")))"
  else "\(.change_pct | pct) \(.verdict) (\(.p | pval), n=\(.n | join("+")))" end;

. as $c
| ($c.runs[0].label) as $ref
| "# Comparison of \($c.runs | length) runs",
  "",
  "| run | folder | started | Samba |",
  "|---|---|---|---|",
  ($c.runs[] | "| \(.label)\(if .label == $ref then " (reference)" else "" end) | \(.path | cell) | \(.started_at // "–") | \(.samba_version // "–" | cell) |"),
  "",
  "## What differs between the runs",
  "",
  (if ($c.differences | length) == 0 then
     "Nothing differs in the settings, the recorded smb.conf or the system between these runs."
   else
     "| what | \([$c.runs[].label] | join(" | ")) |",
     "|---|\([$c.runs[] | "---"] | join("|"))|",
     ($c.differences[] | "| \(.kind) \(.key | cell) | \([.values[] | if . == null then "(not set)" elif . == "" then "(empty)" else cell end] | join(" | ")) |")
   end),
  "",
  "## Figures",
  "",
  "Each figure: median (min–max, n repeats). Against run \($ref): the change of the median and the verdict of a \($c.test.name) test over the repeats at \($c.test.confidence) % confidence (\($c.test.method)). \"~\" means no difference proven at \($c.test.confidence) % confidence; with fewer than \($c.test.needs_n) repeats in each run the test cannot show any difference at that confidence. \"better\" and \"worse\" follow each metric's direction (its target: ≥ higher is better, ≤ lower is better).",
  "",
  "| metric | unit | \($ref) | \([$c.runs[1:][] | "\(.label) | \(.label) vs \($ref)"] | join(" | ")) |",
  "|---|---|---|\([$c.runs[1:][] | "---|---"] | join("|"))|",
  ($c.metrics[]
   | "| \(.metric) | \(.unit // "" | cell) | \(.runs[0] | figure) | \([range(1; .runs | length) as $i | "\(.runs[$i] | figure) | \(.versus[$i - 1] | judgement($ref))"] | join(" | ")) |"),
  "",
  "Verdicts: \($c.counts | to_entries | map("\(.value) \(.key)") | join(", "))\(if $c.worse then ". At least one metric is worse with confidence (exit status 1)." else "." end)"
