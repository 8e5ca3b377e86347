# lib/charts/server.gp: the server's time per command. data.dat: command, % of the time,
# calls, mean (us); largest first. vars.gp: title, rows.
set title title noenhanced
set xlabel '% of the server time'
set key off
set xrange [0:*]
set yrange [rows - 0.4:-0.6]
set ytics nomirror noenhanced
set style fill solid 0.8 border -1
plot 'data.dat' using (0):0:(0):2:($0 - 0.35):($0 + 0.35):ytic(1) with boxxyerrorbars lt 1 title 'share'
