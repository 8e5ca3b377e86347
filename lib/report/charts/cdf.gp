# lib/report/charts/cdf.gp: latency distribution. s1.dat .. sN.dat: latency (ms), % of requests at
# most that long. vars.gp: title, n, T[1..n] (series titles).
set title title noenhanced
set xlabel 'time per request (ms, log scale)'
set ylabel '% of requests at most this long'
set logscale x 10
set yrange [0:100]
set ytics 10
set format x '%g'
sty = (most > 60) ? 'lines' : 'linespoints'
plot for [i=1:n] sprintf('s%d.dat', i) using 1:2 with @sty lt i title T[i]
