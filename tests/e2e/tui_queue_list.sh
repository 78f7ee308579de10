#!/usr/bin/env bash
# tui_queue_list.sh: the queue on the list and the health screen, against scenario queue.yaml
# (a queue of 5 with --concurrent-backups=2 and an overlap; truth in its header): each Queued
# row says its position and why in place of an ETA ("#2, limit 2 full, overlaps running-a"),
# and its estimated start (the STARTED column; at 80 columns after the reason); Enter on a
# Queued row is the one key to "why is this backup not running?"; the health screen's queue
# line gives the length and the oldest. Then queue_dead.yaml: the dead queue on the health
# screen.
. "$(dirname "$0")/tui_lib.bash" || exit 1
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/queue.yaml" --quiet
KC="$TUI_DIR/kubeconfig"

# ---- 200x50: the whole reason and the estimated start in the STARTED column ----
tui_start 200 50 --kubeconfig "$KC"
tui_wait '^B.running-b +InProgress'
T='[0-9]{2}:[0-9]{2}:[0-9]{2}'
tui_wait "^B.q5 +Queued +░+ - +#5, limit 2 full +\? +- +0/0 +-\$"
tui_wait "^B.q4 +Queued +░+ - +#4, limit 2 full +\? +- +0/0 +-\$"
tui_wait "^B.q3 +Queued +░+ - +#3, limit 2 full, overlaps q1 +\? +- +0/0 +-\$"
tui_wait "^B.q2 +Queued +░+ - +#2, limit 2 full, overlaps running-a +≈$T +- +0/0 +-\$"
tui_wait "^B.q1 +Queued +░+ - +#1, limit 2 full +≈$T +- +0/0 +-\$"
# q1 starts when running-a ends (its ETA, ~2m), before q2 (running-b's, ~5m20s)
s1=$(tui_line '^B.q1 ' | grep -Eo "≈$T" | tr -d '≈')
s2=$(tui_line '^B.q2 ' | grep -Eo "≈$T" | tr -d '≈')
[[ "$s1" < "$s2" ]] || tui_fail "q1 starts at $s1, not before q2 at $s2"
tui_wait '^ Enter:detail/why '
# ---- the health screen: the queue line ----
tui_keys H
tui_wait '^Backup queue  5 waiting$'
tui_wait '^  5 waiting \(oldest q1, 1m0[0-9]s\), 2 in progress$'
tui_keys Escape
tui_wait '^B.q3 '
tui_server_stop

# ---- 80x24: the reason, cut to fit, and the start after it; Enter answers "why" ----
tui_start 80 24 --kubeconfig "$KC"
tui_wait '^B.running-b +InProgress'
tui_wait '^  NAME +PHASE +PROGRESS +ITEMS +RATE +ETA +DUR +E/W$'
tui_wait '^B.q5 +Queued +░+ - +#5, limit 2 full +- +0/0$'
tui_wait '^B.q3 +Queued +░+ - +#3, limit 2 full, over… +- +0/0$'
tui_wait '^B.q1 +Queued +░+ - +#1, limit 2 full ≈[0-9]{2}:[0-9]{2} +- +0/0$'
# one key from the list: the selection is the first row (q5); Enter
tui_keys Enter
tui_wait '^Backup q5  Queued'
tui_wait '^Not running the concurrency limit is full: 2 of 2 backups running'
tui_wait '^Queue position 5, 6 ahead: running-a \(InProgress\), running-b \(InProgress\)'
tui_server_stop

# ---- a dead queue on the health screen ----
tui_sim_kill
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/queue_dead.yaml" --quiet
tui_start 200 50 --kubeconfig "$KC"
tui_wait '^B.stuck-1 +Queued +░+ - +#1, nothing holds it '
tui_wait '^B.stuck-2 +Queued +░+ - +#2, 1 queued ahead '
tui_keys H
tui_wait '^Backup queue  2 waiting$'
tui_wait '^  2 waiting \(oldest stuck-1, 10m0[0-9]s\), 0 in progress; dead: nothing in progress for 10m0[0-9]s while stuck-1 \(Queued\) waits at its head$'
echo PASS
