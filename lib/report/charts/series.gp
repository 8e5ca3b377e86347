# lib/report/charts/series.gp: a chart a verdict declared (details.chart): one line per series.
# s1.dat .. sN.dat: x, y. vars.gp: title, xlab, ylab, logx, logy (1: log scale), n, most, T[1..n].
set title title noenhanced
set xlabel xlab noenhanced
set ylabel ylab noenhanced
if (logx) { set logscale x 10; set autoscale xfix; set offsets graph 0.04, graph 0.04, 0, 0 } else { set xrange [0:*] }
if (logy) { set logscale y 10 } else { set yrange [0:*] }
sty = (most > 60) ? 'lines' : 'linespoints'
plot for [i=1:n] sprintf('s%d.dat', i) using 1:2 with @sty lt i title T[i]
