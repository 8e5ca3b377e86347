#!/usr/bin/env bash
# Usage: lib/report/html.sh RUN_DIR
#        lib/report/html.sh --compare DIR
# Summary: write report.html (or compare.html): the Markdown report with its charts inline
#
# Turns RUN_DIR/report.md (DIR/compare.md) into ONE self-contained HTML file: CSS inline, every
# chart of charts/index.json (lib/report/charts.sh) inline as SVG, no script, font or URL fetched;
# readable on a phone (viewport, tables scroll) and printed (@media print: the metrics'
# sections in two columns). Charts go where the Markdown links them (![title](charts/x.svg));
# when it links none, after the heading of their metric's section (under a heading that names
# the metric in `code`), else in a last section "Charts".
# Markdown renderer: cmark-gfm (tables extension), else python3's markdown module, else cmark
# (tables then show as text). Raw HTML in the Markdown is never passed through.
#
# Exit status: 0 written, 1 not written (no report, no renderer), 2 usage error.

HTML_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/common.sh
. "$HTML_LIB/common.sh"

# html_renderer: print the Markdown renderer to use (cmark-gfm, python3-markdown, cmark); 1 if none.
html_renderer() {
  if command -v cmark-gfm >/dev/null 2>&1; then
    echo cmark-gfm
  elif command -v python3 >/dev/null 2>&1 && python3 -c 'import markdown' >/dev/null 2>&1; then
    echo python3-markdown
  elif command -v cmark >/dev/null 2>&1; then
    echo cmark
  else
    return 1
  fi
}

# html_render RENDERER: Markdown on stdin to an HTML fragment on stdout. Raw HTML is dropped
# (cmark's safe default) or escaped (python3-markdown passes it through, so '<' is escaped first).
html_render() {
  case $1 in
    cmark-gfm) cmark-gfm -e table --to html ;;
    python3-markdown) sed 's/</\&lt;/g' | python3 -m markdown -x tables ;;
    cmark) cmark --to html ;;
  esac
}

# html_md_with_charts DIR MD_FILE: print MD_FILE with the chart lines of DIR/charts/index.json
# put in, unless the Markdown links charts itself (then only a missing-charts line is added).
html_md_with_charts() {
  local dir=$1 md=$2 index=null
  [[ -s $dir/charts/index.json ]] && index=$(jq -c . "$dir/charts/index.json" 2>/dev/null || echo null)
  if [[ $index == null ]]; then
    index='{"why":"lib/report/charts.sh did not run","charts":[],"not_drawn":[]}'
  fi
  if grep -q '](charts/' "$md"; then
    cat "$md"
    return 0
  fi
  # one block per metric: "@@metric<TAB>line" rows, then the report with them after headings
  jq -r -L "$HTML_LIB" 'include "report/charts";
    . as $i
    | ("@@top\t" + (charts_none_md($i))),
      ([$i.charts[]?.metric, $i.not_drawn[]?.metric] | reduce .[] as $x ([]; if index([$x]) then . else . + [$x] end)
       | .[] as $m
       | ("@@" + $m + "\t" + (charts_md($i; $m))))' <<<"$index" |
    awk -F '\t' '
      FNR == NR { k = substr($1, 3); if (!(k in block)) order[++n] = k
                  block[k] = block[k] substr($0, length($1) + 2) "\n"; next }
      /^#+ / && pending != "" { printf "%s\n", block[pending]; pending = "" }
      { print }
      !top && /^# / { top = 1; if ("top" in block) printf "%s", block["top"]; placed["top"] = 1; next }
      /^#+ / {
        for (i = 1; i <= n; i++) { m = order[i]
          if (!(m in placed) && (index($0, "`" m "`") || $0 ~ ("^#+ " m "$"))) { pending = m; placed[m] = 1; break } }
      }
      END {
        if (pending != "") printf "\n%s", block[pending]
        if (!("top" in placed) && ("top" in block)) printf "%s", block["top"]
        for (i = 1; i <= n; i++) if (!(order[i] in placed) && order[i] != "top") { rest = rest "\n### " order[i] "\n" block[order[i]] }
        if (rest != "") printf "\n## Charts\n%s", rest
      }' - "$md"
}

# html_heading_ids: give each h2 of the rendered HTML (stdin), the report's sections, the id
# GitHub gives it in the Markdown (report.jq's slug: its text lower case, without tags and
# punctuation but - and _, spaces as -; a repeated one gets -1, -2, ...), so the links of the
# report's results table work in report.html too.
html_heading_ids() {
  awk '
    /^<h2>.*<\/h2>$/ {
      t = $0; sub(/^<h2>/, "", t); sub(/<\/h2>$/, "", t)
      gsub(/<[^>]*>/, "", t); gsub(/&amp;/, "\\&", t); gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t)
      gsub(/&quot;/, "\"", t); gsub(/&#39;/, "\x27", t)
      t = tolower(t); gsub(/[^a-z0-9 _-]/, "", t); gsub(/ /, "-", t)
      if (t in seen) t = t "-" seen[t]++; else seen[t] = 1
      sub(/^<h2/, "& id=\"" t "\"")
    }
    { print }'
}

# html_inline_svgs DIR: on stdin the rendered HTML; replace each <img> of charts/NAME.svg with
# the picture itself (a figure with inline SVG, its ids made unique per chart), or with a line
# when the file is missing; any other <img> is dropped (the page fetches nothing).
html_inline_svgs() {
  awk -v dir="$1" '
    function attr(s, a,   r) {
      if (match(s, a "=\"[^\"]*\"")) { r = substr(s, RSTART + length(a) + 2, RLENGTH - length(a) - 3); return r }
      return ""
    }
    function svg(file, alt, p,   line, out) {
      out = ""
      while ((getline line < file) > 0) {
        if (line ~ /^<\?xml/) continue
        gsub(/id=\x27/, "id=\x27" p, line); gsub(/id="/, "id=\"" p, line)
        gsub(/href=\x27#/, "href=\x27#" p, line); gsub(/href="#/, "href=\"#" p, line)
        gsub(/url\(#/, "url(#" p, line)
        sub(/<title>Gnuplot<\/title>/, "<title>" alt "</title>", line)
        sub(/^<svg /, "<svg role=\"img\" aria-label=\"" alt "\" ", line)
        out = out line "\n"
      }
      close(file)
      return out
    }
    # a line may hold several pictures (report.md puts a metric'"'"'s charts on one line): each
    # becomes a figure; the text around them on that line is the paragraph'"'"'s tags only
    /<img [^>]*src="charts\/[A-Za-z0-9._-]+\.svg"/ {
      line = $0
      while (match(line, /<img [^>]*>/)) {
        tag = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        src = attr(tag, "src"); alt = attr(tag, "alt")
        if (src !~ /^charts\/[A-Za-z0-9._-]+\.svg$/) continue
        f = dir "/" src
        if ((getline probe < f) > 0) {
          close(f); n++
          print "<figure class=\"chart\">"
          printf "%s", svg(f, alt, "c" n "-")
          print "</figure>"
        } else {
          print "<p>chart: " alt " not drawn (no file " src ").</p>"
        }
      }
      next
    }
    /<img / { gsub(/<img [^>]*>/, "") }
    { print }'
}

# html_sections: on stdin the rendered HTML; the metrics' sections (from the first heading that
# names a metric in <code> to the end) in one <div class="sections">, which print sets in two
# columns: a section's charts then fill a column each instead of leaving half a row blank.
html_sections() {
  awk '!open && /^<h2[ >].*<code>/ { print "<div class=\"sections\">"; open = 1 }
    { print }
    END { if (open) print "</div>" }'
}

# html_page TITLE: wrap the HTML fragment on stdin into a whole page with the inline style.
html_page() {
  local title=$1
  title=${title//&/&amp;} title=${title//</&lt;}
  cat <<EOF
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'">
<title>$title</title>
<style>
body { margin: 0; color: #1a1a1a; background: #fff; font: 16px/1.5 system-ui, "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 62rem; margin: 0 auto; padding: 0.5rem 1rem 2rem; overflow-wrap: break-word; }
h1 { font-size: 1.5rem; line-height: 1.25; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; padding-bottom: 0.2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; }
.scroll { overflow-x: auto; margin: 0.8rem 0; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.pass { background: #e6f4ea; color: #0b5e26; font-weight: 600; }
td.fail { background: #fde7e7; color: #a00; }
td.skip, td.unsure, td.measured { background: #f6f6f6; color: #555; }
code { font-size: 0.9em; background: #f4f4f4; padding: 0 0.2em; }
blockquote { margin: 1rem 0; padding: 0.3rem 1rem; border-left: 4px solid #d62728; background: #fff4f4; }
figure.chart { margin: 1rem 0; overflow-x: auto; }
figure.chart svg { display: block; width: 100%; min-width: 680px; max-width: 800px; height: auto; }
@media screen and (max-width: 44.5rem) {
  /* a phone: a chart keeps 680 px (its text at least 10 px) and scrolls sideways, saying so;
     tables get smaller type and wrap long words so they fit */
  figure.chart::after { content: "\21C6  scroll sideways for the whole chart"; display: block; font-size: 0.8rem; color: #555; }
  table { font-size: 0.8rem; }
  th, td { padding: 0.2rem 0.3rem; overflow-wrap: anywhere; }
  .scroll:has(th:nth-child(7))::after { content: "\21C6  scroll sideways for the whole table"; display: block; font-size: 0.8rem; color: #555; }
}
@media print {
  body { font-size: 9.5pt; line-height: 1.35; }
  main { max-width: none; padding: 0; }
  h1 { font-size: 14pt; margin: 0 0 0.4rem; }
  h2 { font-size: 12pt; margin: 1rem 0 0.3rem; }
  p, ul { margin: 0.3rem 0; }
  .scroll { overflow: visible; margin: 0.4rem 0; }
  table { font-size: 8.5pt; }
  th, td { padding: 1px 4px; }
  tr, li { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  /* charts two a row, each kept whole; the metrics' sections in two columns, a chart a column
     wide, a table across both */
  figure.chart { display: inline-block; width: 49.5%; margin: 0.2rem 0; overflow: visible; vertical-align: top; break-inside: avoid; }
  figure.chart svg { min-width: 0; }
  .sections { column-count: 2; column-gap: 6mm; }
  .sections figure.chart { display: block; width: 100%; }
  .sections .scroll { column-span: all; }
}
</style>
</head>
<body>
<main>
EOF
  cat
  printf '</main>\n</body>\n</html>\n'
}

# html_write DIR NAME: write DIR/NAME.html from DIR/NAME.md and DIR/charts/; 1 on failure.
html_write() {
  local dir=$1 name=$2 renderer title tmp
  common_run_folder "$dir" || return 1
  [[ -f $dir/$name.md ]] || {
    error "no report '$dir/$name.md'"
    return 1
  }
  renderer=$(html_renderer) || {
    error "cannot write '$dir/$name.html': no Markdown renderer (install cmark-gfm or python3-markdown)"
    return 1
  }
  title=$(sed -n 's/^# //p' "$dir/$name.md" | head -n 1)
  tmp=$(mktemp "$dir/.$name.html.XXXXXX") || return 1
  if ! html_md_with_charts "$dir" "$dir/$name.md" | html_render "$renderer" |
    sed -e 's/<table>/<div class="scroll"><table>/' -e 's#</table>#</table></div>#' \
      -e 's#^<td>PASS</td>#<td class="pass">PASS</td>#' \
      -e 's#^<td><strong>FAIL</strong></td>#<td class="fail"><strong>FAIL</strong></td>#' \
      -e 's#^<td>measured</td>#<td class="measured">measured</td>#' \
      -e 's#^<td>\(SKIP\|INCOMPLETE\|unsure\)</td>#<td class="skip">\1</td>#' |
    html_heading_ids | html_inline_svgs "$dir" | html_sections | html_page "${title:-$name}" >"$tmp"; then
    rm -f "$tmp"
    error "cannot write '$dir/$name.html'"
    return 1
  fi
  chmod 644 "$tmp"
  mv -f "$tmp" "$dir/$name.html"
}

main() {
  case ${1:-} in
    -h | --help)
      sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
      ;;
    --compare)
      (($# == 2)) || {
        echo "usage: lib/report/html.sh RUN_DIR | --compare DIR" >&2
        exit 2
      }
      html_write "$2" compare
      ;;
    '' | -*)
      echo "usage: lib/report/html.sh RUN_DIR | --compare DIR" >&2
      exit 2
      ;;
    *)
      (($# == 1)) || {
        echo "usage: lib/report/html.sh RUN_DIR | --compare DIR" >&2
        exit 2
      }
      html_write "$1" report
      ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  main "$@"
fi
