# lib/report/charts/time.gp: a rate over time. s1.dat .. sN.dat: second, value. vars.gp: title,
# ylab (the unit), n, most, T[1..n]. Over 60 points a line has no markers.
set title title noenhanced
set xlabel 'second of the run'
set ylabel ylab noenhanced
set yrange [0:*]
set xrange [0:*]
sty = (most > 60) ? 'lines' : 'linespoints'
plot for [i=1:n] sprintf('s%d.dat', i) using 1:2 with @sty lt i title T[i]
