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

# browser_probe FILE WIDTH HEIGHT: the DOM of a copy of FILE with a probe script added (and the
# page's Content-Security-Policy, which forbids every script, taken out of the copy), after
# load: a <pre id="probe"> whose lines are 'viewport W page-width PW', 'resources N' (what
# the page fetched) and per inline chart 'svg W H plot W H' (its box on screen and the
# bounding box of what its first plot drew).
browser_probe() {
  local copy=${1%.html}.probe.html
  sed -e '/http-equiv="Content-Security-Policy"/d' -e 's#</body>#<script>\
window.addEventListener("load", function () {\
  var out = ["viewport " + innerWidth + " page-width " + document.documentElement.scrollWidth,\
    "resources " + performance.getEntriesByType("resource").length];\
  document.querySelectorAll("figure.chart svg").forEach(function (s) {\
    var r = s.getBoundingClientRect(), g = s.querySelector("[id$=gnuplot_plot_1]"), b = g ? g.getBBox() : {width: 0, height: 0};\
    out.push("svg " + Math.round(r.width) + " " + Math.round(r.height) + " plot " + Math.round(b.width) + " " + Math.round(b.height));\
  });\
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = out.join("\\n"); document.body.appendChild(p);\
});\
</script></body>#' "$1" >"$copy"
  browser_run --virtual-time-budget=5000 --window-size="$2,$3" --dump-dom "file://$copy" 2>/dev/null
}

# png_colours PNG: print the number of distinct colours of a picture (ImageMagick).
png_colours() {
  convert "$1" -format '%k' info:
}
