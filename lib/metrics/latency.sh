# lib/metrics/latency.sh: the latency metric: p99 of one request in the steady run (the fio run
# lib/run/fio.sh makes once for latency and errors). Sourced; functions only.
# Verdict: lib/metrics/latency.jq.

latency_describe() { fio_steady_describe; }
latency_estimate() { echo 0; }
latency_needs() { echo mount steady; }
latency_inputs() { echo steady; }
