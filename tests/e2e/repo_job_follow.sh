#!/usr/bin/env bash
# repo_job_follow.sh: `l` on a repository whose newest maintenance Job still runs follows its pod's
# log as the pager follows a run's live log (follow=true, one stream, reconnected from the last
# line's time without repeats): the lines come as the Job writes them, the header says
# "following" and the view stays at the end; when the pod ends the log is read to its end and
# no more followed, the header says so, and every line is there once (scenario
# repo_job_follow.yaml: 6 lines 3 s apart, the pod succeeds 17 s after the sim's start).
. "$(dirname "$0")/tui_lib.bash" || exit 1
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/repo_job_follow.yaml" --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '^ ● live'
tui_keys H
tui_wait '^    maintenance jobs: running app-default-kopia-x7k2p-maintain-job-[0-9]{13} \(started [0-9]+s ago\)'
tui_keys G
tui_wait '^> app-default-kopia-x7k2p '
tui_keys l
head_re='^Log of pod app-default-kopia-x7k2p-maintain-job-[0-9]{13}-[a-z0-9]+'
# running: followed, and the lines it has not written yet come as it writes them
tui_wait "$head_re  [1-5] lines, following  \\(the pod runs\\)\$"
tui_wait '^ /:search  n/N:match  f:follow  W:wrap  w:write  Esc:back  \?:help  q:quit'
# the header's count, read from one capture: the next line comes while it is followed
n0=$(tui_screen | sed -n 's/.*  \([1-5]\) lines, following  (the pod runs)$/\1/p' | head -n 1)
[ -n "$n0" ] || tui_fail "not following a running pod's log"
tui_wait "$head_re  $((n0 + 1)) lines, following  \\(the pod runs\\)\$"
tui_wait '^time="x" level=info msg="snapshot GC" step=5$'
# at 80 columns the long pod name is cut in its middle: the count and "following" still show
tui_resize 80 24
tui_wait '^Log of pod app-de.+-bxk2p  [1-6] lines, following  \(the pod runs\)$'
tui_resize 120 30
# ended: the whole log, once, and no longer followed
tui_wait "$head_re  6 lines  \\(the pod ended: its whole log\\)\$" 30
for i in 1 2 3 4 5 6; do
    [ "$(tui_screen | grep -c " step=$i\$")" = 1 ] || tui_fail "line $i is not there once"
done
tui_screen | grep -q 'following' && tui_fail "an ended pod's log is still following"
tui_wait '^ /:search  n/N:match  W:wrap  w:write  Esc:back  \?:help  q:quit'
# the health screen says the same end
tui_keys Escape
tui_wait '^    maintenance jobs: last: succeeded [0-9]+s ago \(took 18s\)$'
# an ended pod's log is read once: no following
tui_keys l
tui_wait "$head_re  6 lines  \\(as of now\\)\$"
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS repo_job_follow"
