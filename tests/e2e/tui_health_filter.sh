#!/usr/bin/env bash
# tui_health_filter.sh: `/` on the health screen filters its objects' lines as the list's `/` does
# (a regular expression of any case, "!RE" the others, "-l key=value" labels); every section keeps
# its title (its counts and alarms are the whole section's), and one that kept nothing says so in
# one line, so that all of them still fit at 80x24; Enter keeps the filter, Esc clears it, a
# second Esc goes back; j/k select only what is shown.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/health.yaml" --quiet
tui_start 80 24 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_keys H
tui_wait '^  worker-2 +node-agent-[a-z0-9]{5} +NO +0 *$'
tui_wait '^ j/k:select  d:describe  /:filter  l:job log  W:wrap  Esc:back  \?:help  q:quit'
# a node's name: only its agent's row; the other sections say they kept nothing
tui_keys / w O r K e r - 2
tui_wait '^ type to filter  Enter:keep  Esc:clear  Backspace:erase'
tui_keys Enter
tui_wait '^filter: /wOrKer-2 +Esc clears$'
tui_screen | sed -n '3,18p' >"$TUI_DIR/body.txt"
cat >"$TUI_DIR/want.re" <<'WANT'
^filter: /wOrKer-2 +Esc clears$
^Schedules \(2\)  1 overdue$
^  no line matches the filter$
^$
^Storage locations \(1 BSL, 0 VSL\)  1 unavailable$
^  no line matches the filter$
^$
^Velero server$
^  no line matches the filter$
^Node agents \(1/3 ready, DaemonSet node-agent: 3 desired\)  1 not ready  1 node wi$
^  NODE +POD +READY +RESTARTS$
^  worker-2 +node-agent-[a-z0-9]{5} +NO +0$
^  1 more node without a node-agent pod \(which: unknown, veltop does not list nod$
^$
^Backup queue( +1 waiting)?$
^  (nothing waiting, 1 in progress|1 waiting \(oldest orphaned, [0-9]+s\), 0 in progress)$
WANT
paste -d '\n' "$TUI_DIR/want.re" "$TUI_DIR/body.txt" | while IFS= read -r re && IFS= read -r line; do
    printf '%s\n' "${line%"${line##*[! ]}"}" | grep -Eq -- "$re" || { echo "line '$line' !~ /$re/"; exit 1; }
done || tui_fail "filtered health screen"
tui_screen | grep -q 'worker-1' && tui_fail "worker-1 shown under /worker-2"
# the DaemonSet (on its section's title) is selected first; j: the one row shown, and d
# describes it (the selection skips hidden objects)
tui_keys j
tui_wait '^> worker-2 +node-agent-[a-z0-9]{5} +NO +0 *$'
tui_keys j d
tui_wait '^Describe pod node-agent-[a-z0-9]{5} '
tui_wait '^  NodeName:  worker-2$'
tui_keys Escape
tui_wait '^filter: /wOrKer-2'
# !RE: the others; the hourly schedule goes, its restorable line with it
tui_keys / C-u '!' h o u r Enter
tui_wait '^filter: /!hour +Esc clears$'
tui_wait '^> nightly +0 1 \* \* \* +no +none yet +due now OVERDUE$'
tui_wait '^    restorable: none, older than 2 intervals \(1d00h\), no restore found$'
tui_wait '^  worker-1 +node-agent-[a-z0-9]{5} +yes +0 *$'
tui_screen | grep -q 'hourly' && tui_fail "hourly shown under /!hour"
[ "$(tui_screen | grep -c 'restorable:')" = 1 ] || tui_fail "restorable lines under /!hour"
# -l: a label selector (velero install's name=node-agent on the agents' pods)
tui_keys / C-u - l ' ' n a m e = n o d e - a g e n t Enter
tui_wait '^filter: /-l name=node-agent +Esc clears$'
tui_wait '^  worker-1 +node-agent-[a-z0-9]{5} +yes +0 *$'
tui_wait '^  worker-2 +node-agent-[a-z0-9]{5} +NO +0 *$'
[ "$(tui_screen | grep -c '^  no line matches the filter$')" = 3 ] || tui_fail "-l name=node-agent"
# not a regular expression: said, and nothing kept
tui_keys / C-u '('
tui_wait '^filter: /\(  not a regular expression: \('
tui_keys Escape
# Esc cleared it: everything is back, the first object selected; a second Esc goes back
tui_wait '^> hourly +@every 1h +no +none yet +in [0-9]+m[0-9]{2}s *$'
tui_wait '^  velero-7d8f9c6b54-x2k8p +NOT READY'
tui_screen | grep -q 'filter: /\|no line matches' && tui_fail "Esc did not clear the filter"
tui_keys / n i g h t Enter
tui_wait '^filter: /night +Esc clears$'
tui_keys Escape
tui_wait_gone '^filter: /'
tui_wait 'Health *$'
tui_keys Escape
tui_wait 'Backups & Restores *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_health_filter"
