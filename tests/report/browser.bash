# tests/report/browser.bash: look at a page the way a person does, in headless Chromium.
#   load 'browser'
# Chromium runs with a throw-away profile, no network (every host name resolves to nothing)
# and a time limit; its console messages go to stderr (--enable-logging=stderr --v=0) as
# lines 'INFO:CONSOLE...'.

# browser_bin: print the Chromium command (Debian: chromium, RHEL/Fedora: chromium-browser).
browser_bin() {
  command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null
}

# browser_run ARGS...: run headless Chromium with the test flags and ARGS (at most 120 s).
browser_run() {
  local profile
  profile=$(mktemp -d "$BATS_TEST_TMPDIR/profile.XXXXXX")
  timeout 120 "$(browser_bin)" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules='MAP * ~NOTFOUND' --hide-scrollbars --user-data-dir="$profile" "$@"
}

# browser_shot FILE PNG WIDTH HEIGHT LOG: screenshot of FILE; Chromium's stderr into LOG.
browser_shot() {
  browser_run --enable-logging=stderr --v=0 --screenshot="$2" --window-size="$3,$4" \
    "file://$1" >/dev/null 2>"$5"
}

# browser_console_errors LOG: print the page's console messages that are errors.
browser_console_errors() {
  grep -E 'CONSOLE' "$1" | grep -Ei 'error|uncaught|failed|refused' || true
}

# browser_probe FILE WIDTH HEIGHT: the DOM after load of a copy of FILE with a probe script added
# (and the page's Content-Security-Policy, which forbids every script, taken out of the copy),
# shown in a frame WIDTH px wide (headless Chromium's window is at least 500 px wide; a frame
# is as narrow as asked). The dump is the frame's page: its DOM (in a <template>) and a
# <pre id="probe"> whose lines are 'viewport W page-width PW', 'resources N' (what the page
# fetched), per inline chart 'svg W H plot W H text PX' (its box on screen, the bounding box
# of what its first plot drew, and the smallest text on screen in CSS px), and per box that
# is wider than itself (a table or chart that scrolls sideways) 'overflow TAG SCROLLW CLIENTW
# CUE' (CUE: the text of the box's ::after, spaces as _, or 'none').
browser_probe() {
  local copy=${1%.html}.probe.html frame=${1%.html}.frame.html
  sed -e '/http-equiv="Content-Security-Policy"/d' -e 's#</body>#<script>\
window.addEventListener("load", function () {\
  var out = ["viewport " + innerWidth + " page-width " + document.documentElement.scrollWidth,\
    "resources " + performance.getEntriesByType("resource").length];\
  document.querySelectorAll("figure.chart svg").forEach(function (s) {\
    var r = s.getBoundingClientRect(), g = s.querySelector("[id$=gnuplot_plot_1]"), b = g ? g.getBBox() : {width: 0, height: 0};\
    var vb = s.viewBox.baseVal, k = vb \&\& vb.width ? r.width / vb.width : 1, px = 1e9;\
    s.querySelectorAll("text").forEach(function (t) { var f = parseFloat(getComputedStyle(t).fontSize) * k; if (f < px) px = f; });\
    out.push("svg " + Math.round(r.width) + " " + Math.round(r.height) + " plot " + Math.round(b.width) + " " + Math.round(b.height) + " text " + (px < 1e9 ? px.toFixed(1) : "none"));\
  });\
  document.querySelectorAll(".scroll, figure.chart").forEach(function (e) {\
    if (e.scrollWidth > e.clientWidth + 1) {\
      var c = getComputedStyle(e, "::after").content;\
      out.push("overflow " + e.tagName.toLowerCase() + " " + e.scrollWidth + " " + e.clientWidth + " " + (c \&\& c !== "none" \&\& c !== "normal" ? c.replace(/\\s+/g, "_") : "none"));\
    }\
  });\
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = out.join("\\n"); document.body.appendChild(p);\
  parent.postMessage(document.documentElement.outerHTML, "*");\
});\
</script></body>#' "$1" >"$copy"
  cat >"$frame" <<EOF
<!DOCTYPE html><html><body style="margin:0"><iframe style="border:0;width:${2}px;height:${3}px" src="${copy##*/}"></iframe>
<script>addEventListener("message", function (e) { document.body.innerHTML = "<template>" + e.data + "</template>";
  document.body.appendChild(document.body.firstChild.content.querySelector("#probe").cloneNode(true)); });</script></body></html>
EOF
  browser_run --virtual-time-budget=5000 --window-size="$(($2 < 500 ? 500 : $2)),$3" --dump-dom "file://$frame" 2>/dev/null
}

# png_colours PNG: print the number of distinct colours of a picture (ImageMagick).
png_colours() {
  convert "$1" -format '%k' info:
}

# browser_pdf FILE PDF PAPER: print FILE to PDF on PAPER (A4 or letter) as a person's "print"
# does (the page's print styles, no header or footer); the paper is set by a copy's @page rule.
browser_pdf() {
  local copy=${1%.html}.$3.html
  sed "s#</head>#<style>@page { size: $3; }</style></head>#" "$1" >"$copy"
  browser_run --no-pdf-header-footer --print-to-pdf="$2" "file://$copy" >/dev/null 2>&1
}

# pdf_pages PDF: print the number of pages of PDF (poppler's pdfinfo).
pdf_pages() {
  pdfinfo "$1" | awk '/^Pages:/ { print $2 }'
}

# pdf_fill PDF: print one line per page, 'PAGE PCT': how far down the page its last ink is, in %
# of the page's height (a page that ends in a blank half shows about 50 or less).
pdf_fill() {
  local dir f
  dir=$(mktemp -d "$BATS_TEST_TMPDIR/pages.XXXXXX")
  pdftoppm -r 24 -gray "$1" "$dir/p"
  for f in "$dir"/p-*.pgm; do
    convert "$f" -fuzz 4% -format '%@ %h\n' info: |
      awk -v p="$(basename "$f" .pgm)" '{ split($1, g, /[x+]/); printf "%s %d\n", substr(p, 3) + 0, (g[2] + g[4]) * 100 / $2 }'
  done
}

# png_differ A B: print how many pixels of picture A differ from B by more than 10 % in colour
# (ImageMagick's compare; anti-aliasing and font hinting stay below that); pictures of different
# sizes print their whole area.
png_differ() {
  local n
  if [[ $(identify -format '%wx%h' "$1") != "$(identify -format '%wx%h' "$2" 2>/dev/null)" ]]; then
    printf '%.0f\n' "$(identify -format '%[fx:w*h]' "$1")"
    return 0
  fi
  n=$(compare -metric AE -fuzz 10% "$1" "$2" null: 2>&1) || true
  printf '%.0f\n' "$n"
}
