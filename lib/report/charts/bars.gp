# lib/report/charts/bars.gp: horizontal bars from 0, first row on top: the server's time per command,
# Samba against the local disk, the start-up rounds. data.dat: label, length (then anything).
# vars.gp: title, rows, xlab.
set title title noenhanced
set xlabel xlab noenhanced
set key off
set xrange [0:*]
set yrange [rows - 0.4:-0.6]
set ytics nomirror noenhanced
set style fill solid 0.8 border -1
plot 'data.dat' using (0):0:(0):2:($0 - 0.35):($0 + 0.35):ytic(1) with boxxyerrorbars lt 1 title 'share'
