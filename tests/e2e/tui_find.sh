#!/usr/bin/env bash
# tui_find.sh: finding. In the log pager a search match keeps its row readable (sideways only as
# far as the match needs, the rows keep their start when the match fits) and the footer counts
# the matches ("match 3 of 41"); the list filter takes ns:NAME, schedule:NAME, phase:NAME and
# label:key=value beside plain words; H opens health from every screen.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/find.yaml" --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'B nightly-1 +PartiallyFailed'
filter() { # words: the list filtered by them
    tui_keys /
    tui_keys C-u
    tui_keys -l "$1"
    tui_keys Enter
    tui_wait "^filter: /"
}
rows() { tui_screen | grep -E '^[BR][ ⚠]' | awk '{print $2}' | sed 's/^⚠//' | sort | tr '\n' ' '; }
expect_rows() { # filter, rows (sorted, space-separated)
    local end=$((SECONDS + 10)) got
    filter "$1"
    while [ "$SECONDS" -le "$end" ]; do
        got=$(rows)
        [ "$got" = "$2" ] && return 0
        sleep 0.1
    done
    tui_fail "filter '$1': rows '$got', want '$2'"
}
expect_rows 'ns:billing' 'adhoc-billing nightly-1 '
expect_rows 'ns:shop' 'nightly-1 nightly-2 restore-1 '
expect_rows 'schedule:nightly' 'nightly-1 nightly-2 restore-1 '
expect_rows 'phase:Failed' 'adhoc-billing '
expect_rows 'phase:failed' 'adhoc-billing '
expect_rows 'phase:PartiallyFailed' 'nightly-1 '
expect_rows 'label:team=payments' 'adhoc-billing nightly-2 '
expect_rows 'label:team' 'adhoc-billing nightly-2 '
expect_rows 'label:team=payments schedule:nightly' 'nightly-2 '
expect_rows 'ns:billing nightly' 'nightly-1 '
expect_rows 'restore-' 'restore-1 '
expect_rows 'ns:nope' ''
tui_wait 'no run matches the filter'
tui_keys Escape
tui_wait_gone '^filter: /'

# the log pager: "Processing item" matches many lines; the footer counts them
tui_keys /
tui_keys C-u
tui_keys -l nightly-1
tui_keys Enter Enter
tui_wait '^Backup nightly-1 '
tui_keys l
tui_wait 'Log of backup nightly-1 +stored log'
tui_wait '^rows 1-'
tui_keys w C-u
tui_keys -l "$TUI_DIR/all.log"
tui_keys Enter
tui_wait 'wrote [0-9]+ lines to'
want=$(grep -c 'Processing item' "$TUI_DIR/all.log")
[ "$want" -ge 3 ] || tui_fail "the fixture's log has $want lines with 'Processing item'"
tui_keys /
tui_keys -l 'Processing item'
tui_keys Enter
tui_wait "match 1 of $want( |\$)"
tui_keys n n
tui_wait "match 3 of $want( |\$)"
tui_keys N
tui_wait "match 2 of $want( |\$)"
# the matched rows keep their start in sight when the match fits the screen
tui_screen | grep -q '^time="' || tui_fail "the rows lost their start (timestamps scrolled off)"
# a word far right (the end of the "Collected N items" line): only as far as it needs, the match
# whole on screen
tui_keys Escape Escape
tui_wait '^filter: /nightly-1'
tui_keys /
tui_keys C-u
tui_keys -l adhoc-billing
tui_keys Enter Enter
tui_wait '^Backup adhoc-billing '
tui_keys l
tui_wait 'Log of backup adhoc-billing +stored log'
tui_wait '^rows 1-'
tui_keys /
tui_keys -l 'etc.)'
tui_keys Enter
tui_wait 'match 1 of 1( |$)'
tui_wait 'etc\.\)'
line=$(tui_screen | grep -m1 -F 'etc.)" backup')
end=$(printf '%s' "$line" | awk '{ print index($0, "etc.)") + 4 }')
[ "$end" -le 120 ] && [ "$end" -ge 100 ] || tui_fail "the match ends at column $end: $line"
# H from the pager, the detail and the results
tui_keys H
tui_wait 'Health *$'
tui_keys Escape Escape
tui_wait '^Backup adhoc-billing '
tui_keys H
tui_wait 'Health *$'
tui_keys Escape r
tui_wait 'Results of backup adhoc-billing'
tui_keys H
tui_wait 'Health *$'
tui_keys q
[ "$(tui_wait_exit)" = 0 ] || tui_fail "veltop did not exit 0"
echo "PASS tui_find"
