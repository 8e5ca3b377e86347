# lib/report/charts.jq: the Markdown lines that show charts (report.md, compare.md, report.html).
# $index is charts/index.json as lib/report/charts.sh writes it (null when charts were not made).

def charts_kind_label:
  {"curve": "IOPS and p99 against clients", "latency": "latency distribution",
   "time": "rate over time", "server": "server time per command",
   "baseline": "Samba against the local disk", "rounds": "time to the first login per round",
   "compare": "runs side by side", "growth": "time per operation against size"}[.] // .;

# The image links of one metric, and one line naming its charts that were not drawn and why.
def charts_md($index; $metric):
  ($index // {}) as $i
  # one paragraph of pictures (side by side where the page is wide enough)
  | ([$i.charts[]? | select(.metric == $metric)] | if length > 0 then "", (.[] | "![\(.title)](\(.file))") else empty end),
    ([$i.not_drawn[]? | select(.metric == $metric) | "\(.kind | charts_kind_label) (\(.why))"]
     | if length > 0 then "", "Charts not drawn: \(join("; "))." else empty end);

# One line when no chart could be drawn at all (for the top of the report).
def charts_none_md($index):
  if ($index.why // null) != null then "", "charts: not drawn (\($index.why))." else empty end;
