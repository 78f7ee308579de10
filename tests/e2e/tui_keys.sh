#!/usr/bin/env bash
# tui_keys.sh: one key language. Every key of the table (veltop --help) is in the manual page and
# the README with the same words; help is written from it, scrolls at 80x24 and ? inside it closes
# it instead of stacking another; Home/End work in the list; [ and ] step runs in results and logs
# too; the pager's level filter is L and f follows there as in the list; every footer has one
# style ("key:word" pairs ending in "?:help  q:quit"); the health screen's / is in its footer
# and help (and, through the table, in the man page and README: "filter the list or health").
. "$(dirname "$0")/tui_lib.bash" || exit 1
: "${SRC_DIR:?}"

# the table, as --help prints it: "    LABEL  HELP" under group titles
"$VELTOP" --help >"$TUI_DIR/help.txt"
sed -n '/^Keys /,$p' "$TUI_DIR/help.txt" | grep -E '^    ' | sed -E 's/^    ([^ ]+) +/\1\t/' >"$TUI_DIR/keys.tsv"
[ "$(wc -l <"$TUI_DIR/keys.tsv")" -ge 30 ] || tui_fail "--help lists $(wc -l <"$TUI_DIR/keys.tsv") keys"
for k in v l r L f '[' ']' W Left Right g/Home G/End d y 1/S 2/N 3/P 4/I s : N t p Ctrl-K Ctrl-D c; do
    cut -f1 "$TUI_DIR/keys.tsv" | grep -qxF -- "$k" || tui_fail "--help does not list $k"
done
# c copies (as k9s; the contexts picker is :ctx); y is YAML and d describe, as k9s
grep -qP "^c\tcopy the selected object's command" "$TUI_DIR/keys.tsv" || tui_fail "c is not copy"
grep -qP '^d\tdescribe: .*velero describe.*\(k9s. d\)$' "$TUI_DIR/keys.tsv" || tui_fail "d is not describe"
grep -qP '^y\tthe same object as YAML' "$TUI_DIR/keys.tsv" || tui_fail "y is not YAML"
grep -qP '^/\tfind: filter the list or health ' "$TUI_DIR/keys.tsv" || tui_fail "/ does not filter health"
# a key that keeps veltop's meaning against k9s' says why (s, [, ])
grep -qP "^s\t.*k9s' s " "$TUI_DIR/keys.tsv" || tui_fail "s does not say why it is not k9s'"
grep -qP "^\[\t.*k9s' \[ " "$TUI_DIR/keys.tsv" || tui_fail "[ does not say why it is not k9s'"
grep -qP "^\]\t.*k9s' \] " "$TUI_DIR/keys.tsv" || tui_fail "] does not say why it is not k9s'"
MANWIDTH=250 MANPAGER=cat man -l "$SRC_DIR/doc/veltop.1" 2>/dev/null | sed -n '/^KEYS/,/^SCREENS/p' >"$TUI_DIR/man.txt"
while IFS=$'\t' read -r label help; do
    grep -qE -- "^ +$(printf '%s' "$label" | sed 's/[][\.*^$/?+(){}|]/\\&/g') +$(printf '%s' "$help" | sed 's/[][\.*^$/?+(){}|]/\\&/g')\$" "$TUI_DIR/man.txt" ||
        tui_fail "man page: no line '$label  $help'"
    for part in $(printf '%s' "$label" | tr '/' ' '); do
        grep -qF -- "\`$part" "$SRC_DIR/README.md" || grep -qF -- "$part\`" "$SRC_DIR/README.md" ||
            tui_fail "README does not list key $part"
    done
done <"$TUI_DIR/keys.tsv"

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 80 24 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B backup-done +Completed'
# the footer (once no transient message covers it)
footer_ok() {
    local end=$((SECONDS + 10))
    while [ "$SECONDS" -le "$end" ]; do
        tui_screen | tail -n 1 | grep -qE '^ ([^ :]+:[^ ]+  )*\?:help  q:quit( |$)' && return 0
        sleep 0.1
    done
    return 1
}
footer_ok || tui_fail "list footer: $(tui_screen | tail -n 1)"

# help: generated from the table, scrolls at 80x24, ? closes it
tui_keys '?'
tui_wait '^ Backups & Restores'
tui_wait '^   f +follow the newest run in progress \(toggle\)'
tui_wait '^ lines 1-20 of 61 \(j/k, PgDn/PgUp, g/G\)'
tui_screen | grep -q 'stalled' && tui_fail "help fits at 80x24? it should scroll"
tui_keys G
tui_wait '"stalled": still 3 intervals'
tui_wait '^ lines 42-61 of 61 '
# ? lists every key: after this screen's and those of every screen, the rest of the table
tui_wait '^   n +next match of the search$'
tui_wait '^ On other screens$'
tui_wait '^   N +previous match \(as less; in the list N sorts by NAME\)$'
tui_keys PageUp
tui_wait '^ lines 23-42 of 61 '
tui_wait '^   H +health: schedules, locations, server, node-agents$'
tui_wait '^   d +describe the selected run$'
tui_wait '^   y +the same object as YAML, as kubectl get -o yaml prints it$'
tui_keys g
tui_wait '^ lines 1-20 of 61 '
tui_wait '^   2/N +sort by NAME \(again: the other way\)$'
# the action keys, and copy on k9s' c
tui_keys G
tui_wait '^   Ctrl-D +delete the selected backup \(a DeleteBackupRequest\)$'
tui_wait "^   c +copy the selected object's command \\(OSC 52\\), as k9s' c\$"
tui_keys PageUp
tui_wait '^   t +back up now from the selected schedule \(--from-schedule\)$'
tui_wait '^   p +pause or unpause the selected schedule$'
tui_wait '^   Ctrl-K +cancel the selected volume transfer \(spec.cancel\)$'
tui_keys g
tui_keys '?'
tui_wait 'NAME +PHASE'
tui_screen | grep -q 'lines 1-' && tui_fail "help still shown"
# ? ? Esc: back on the list (no help stacked on help)
tui_keys '?' '?' '?' Escape
tui_wait 'NAME +PHASE'
tui_wait_gone 'lines 1-20'

# Home/End in the list
tui_keys End Enter
tui_wait '^Backup backup-done +Completed'
footer_ok || tui_fail "detail footer: $(tui_screen | tail -n 1)"
tui_keys Escape Home Enter
tui_wait '^Restore restore-inprogress +InProgress'
tui_keys Escape

# [ ] in results: the same screen for the neighbouring runs; Esc goes straight back to the list
tui_keys j j
tui_keys r
tui_wait 'Results of backup backup-partial +3 errors, 1 warning'
footer_ok || tui_fail "results footer: $(tui_screen | tail -n 1)"
tui_keys ']'
tui_wait 'Results of backup backup-failed +1 error, 0 warnings'
tui_keys '['
tui_wait 'Results of backup backup-partial +3 errors'
tui_keys Escape
tui_wait 'NAME +PHASE'
# ... and in the log pager; L is its level filter, f follows
tui_keys l
tui_wait 'Log of backup backup-partial +stored log'
footer_ok || tui_fail "log footer: $(tui_screen | tail -n 1)"
tui_keys ']'
tui_wait 'Log of backup backup-failed +stored log'
tui_keys L
tui_wait 'level>=error'
tui_wait 'level filter: error'
tui_keys f
tui_wait 'follow on: the view stays at the end'
tui_keys f
tui_wait 'follow off'
tui_keys '['
tui_wait 'Log of backup backup-partial'
tui_keys v
tui_wait 'Volumes of backup backup-partial'
footer_ok || tui_fail "volumes footer: $(tui_screen | tail -n 1)"
tui_keys ']'
tui_wait 'Volumes of backup backup-failed'
tui_keys ']' ']' ']'
tui_wait 'this is the last run of the list'
tui_keys Escape Escape
tui_wait 'NAME +PHASE'
# the health screen's / filters as the list's: in its footer and its help, with its words
tui_keys H
tui_wait 'Health *$'
tui_wait '^ j/k:select  d:describe  /:filter  l:job log  W:wrap  Esc:back  \?:help  q:quit$'
tui_keys '?'
tui_wait '^   / +filter: a regular expression \(any case\) of an object.s name,$'
tui_wait '^ +phase, node or schedule; !RE the others; -l key=value labels$'
tui_wait '^   Esc/Backspace +clear the filter, else back$'
tui_keys Escape Escape
tui_wait 'NAME +PHASE'
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_keys: ok"
