# lib/charts/time.gp: a rate over time. s1.dat .. sN.dat: second, value. vars.gp: title,
# ylab (the unit), n, T[1..n].
set title title noenhanced
set xlabel 'second of the run'
set ylabel ylab noenhanced
set yrange [0:*]
set xrange [0:*]
plot for [i=1:n] sprintf('s%d.dat', i) using 1:2 with linespoints lt i title T[i]
