# tests/report/svg.bash: read what gnuplot drew back out of its SVG, for tests/report/*.bats.
#   load 'svg'
#
# How a chart is checked against its data: gnuplot's SVG terminal puts each plotted series in
# <g id="gnuplot_plot_N"><title>SERIES TITLE</title> ... </g>, one <use href='#gpPtK'
# transform='translate(X,Y)'> per data point in data order, then one more for the key's
# sample. So a series' points are read back by its title (svg_points), and they are the
# data exactly when (1) there are as many as data rows and (2) the pixel coordinates are one
# affine map of the data values (x = a + b*u, y = c + d*v; on a log axis of log u), within
# 0.1 px (gnuplot writes 2 decimals): a missing, extra, reordered or wrong point breaks (2).

# svg_points FILE TITLE: print "X Y" of every data point of the series titled TITLE.
svg_points() {
  awk -v want="<title>$2</title>" '
    /<g id="[^"]*gnuplot_plot_[0-9]+" *>/ { inside = (index($0, want) > 0); next }
    inside && /<use [^>]*translate\(/ {
      s = $0; sub(/.*translate\(/, "", s); sub(/\).*/, "", s); split(s, xy, ",")
      pts[++n] = xy[1] " " xy[2]
    }
    /<g id="[^"]*gnuplot_plot_/ { inside = 0 }
    END { for (i = 1; i < n; i++) print pts[i] }' "$1"
}

# svg_bar_lengths FILE: print the width (px) of every filled bar (polygon) in plot order.
svg_bar_lengths() {
  grep -o "points = '[^']*'" "$1" | sed "s/points = '//; s/'//" |
    awk '{ split($1, a, ","); split($2, b, ","); printf "%.2f\n", b[1] - a[1] }'
}

# svg_affine DATA_FILE POINTS_FILE [logx]: true when the pixel points ("X Y" lines) are one
# affine map of the data ("U V" lines, same count, same order); says why not on stderr.
svg_affine() {
  paste -d ' ' "$1" "$2" | awk -v logx="${3:-}" '
    function fit(k,   i, far, best) {   # reference pair: row 1 and the row farthest from it in data
      best = -1; far = 1
      for (i = 2; i <= n; i++) if (abs(d[i, k] - d[1, k]) > best) { best = abs(d[i, k] - d[1, k]); far = i }
      for (i = 1; i <= n; i++) {
        if (best == 0) { want = p[1, k] }
        else { want = p[1, k] + (d[i, k] - d[1, k]) * (p[far, k] - p[1, k]) / (d[far, k] - d[1, k]) }
        if (abs(want - p[i, k]) > 0.1) { printf "point %d: %s pixel %s, expected %s\n", i, (k == 1 ? "x" : "y"), p[i, k], want > "/dev/stderr"; bad = 1 }
      }
    }
    function abs(x) { return x < 0 ? -x : x }
    NF != 4 { printf "row %d: %d data columns and points do not pair up\n", NR, NF > "/dev/stderr"; bad = 1; next }
    { n++; d[n, 1] = (logx ? log($1) : $1); d[n, 2] = $2; p[n, 1] = $3; p[n, 2] = $4 }
    END {
      if (n == 0) { print "no points" > "/dev/stderr"; exit 1 }
      fit(1); fit(2); exit bad
    }'
}
