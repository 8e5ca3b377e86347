# lib/report/compare-md.jq: render compare.json (lib/report/compare.jq's output) as compare.md.
#   jq -r -f lib/report/compare-md.jq compare.json

include "format";

# pct: a change in % with its sign, as format.jq's signed writes it ("−24.9 %").
def pct: if . == null then "–" else "\(signed) %" end;

# pct_ci: a confidence interval of a change (" [−29.4, −20.3] %").
def pct_ci: if . == null then "" else " [\(.[0] | signed), \(.[1] | signed)] %" end;

def pval: if . == null then "" elif . < 0.001 then "p<0.001" else "p=\(. | fixed(3))" end;


def figure:
  (if .failed > 0 then "; \(.failed) of \(.n + .failed) repeats measured nothing" else "" end) as $f
  | if .n == 0 then (if .status == "absent" then "not in this run" elif .failed > 0 then "nothing measured\($f)" else "not measured (\(.status // "no value"))" end)
  elif .n == 1 then "\(.median | num) (n=1\($f))"
  else "\(.median | num) (range \(.min | num)–\(.max | num), n=\(.n)\($f))" end;

# stat($c): the test's figures of a comparison: "p=0.002, Holm p=0.02, n=3+3" (Holm's p where
# more than one test was made).
def stat($c): "\(.p | pval)\(if .p_holm != null and $c.test.tests > 1 then ", Holm \(.p_holm | pval)" else "" end), n=\(.n | join("+"))";

def judgement($c):
  if .verdict == "not measured" then "not measured"
  elif .verdict == "not judged" then "not judged: no target, and no figure of speed (each run's report has its figures)"
  elif .verdict == "not enough repeats to tell" then
    "? not enough repeats to tell (n=\(.n | join("+")): the test needs at least \(.needs_n) repeats in each run)"
  elif .why then "\(.verdict): \(.why)"
  elif .verdict == "no difference shown" then
    "\(.change_pct | pct)\(.ci_pct | pct_ci) ~ no difference shown (\(stat($c))\(if .in_band then "; inside the ±\($c.test.band_pct | num) % band" else "" end))"
  else "\(.change_pct | pct)\(.ci_pct | pct_ci) \(.verdict) (\(stat($c)))" end;

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
     ($c.differences[] | .kind as $k
      | "| \($k) \(.key | cell) | \([range(0; .values | length) as $i | .values[$i]
          | if . == null and any($c.unrecorded[]?; .run == $c.runs[$i].label and .kind == $k) then "(not recorded)"
            elif . == null then "(not set)" elif . == "" then "(empty)" else cell end] | join(" | ")) |")
   end),
  ($c.unrecorded[]? | "", "Run \(.run): \(.why): its \(if .kind == "setting" then "settings are" else "smb.conf parameters are" end) not compared."),
  "",
  "## Figures",
  "",
  "Each figure: the median of the repeats (their range, n repeats). Against run \($ref): the change in % with its \($c.test.confidence) % confidence interval [low, high], from \($c.test.name) (\($c.test.method)). A verdict needs p < \($c.test.alpha | num) after \($c.test.correction) (Holm p), and a change outside the practical band of ±\($c.test.band_pct | num) %: a smaller change does not matter, however sure (the band is COMPARE_BAND_PCT, or -b). \"~\" means no difference shown: the data cannot tell, or the change is inside the band. A repeat that measured nothing counts against its run. \"better\" and \"worse\" follow each metric's direction (its target: ≥ higher is better, ≤ lower is better).",
  "",
  "| metric | unit | \($ref) | \([$c.runs[1:][] | "\(.label) | \(.label) vs \($ref)"] | join(" | ")) |",
  "|---|---|---|\([$c.runs[1:][] | "---|---"] | join("|"))|",
  ($c.metrics[]
   | "| \(.metric) | \(.unit // "" | cell) | \(.runs[0] | figure) | \([range(1; .runs | length) as $i | "\(.runs[$i] | figure) | \(.versus[$i - 1] | judgement($c))"] | join(" | ")) |"),
  "",
  "Verdicts: \($c.counts | to_entries | map("\(.value) \(.key)") | join(", "))\(if $c.worse then ". At least one metric is worse with confidence (exit status 1)." else "." end)"
