# bash completion for veltop and the kubectl plugin kubectl-veltop: options, and context names
# from the kubeconfig (the one named by --kubeconfig on the line, else $KUBECONFIG/~/.kube/config)
# as veltop itself reads it (veltop --list-contexts).
_veltop() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} kc="" i
    local opts="--kubeconfig --context --all-contexts -n --namespace --namespace-for --cacert --demo --fleet --scenario --speed --once --json
--details --utc --list-contexts --wait --timeout --interval --no-bell --notify --serve --version -h --help"
    case $prev in
    --context | --namespace-for) # context names (--namespace-for: then =NAMESPACE)
        for ((i = 1; i < COMP_CWORD - 1; i++)); do
            [ "${COMP_WORDS[i]}" = --kubeconfig ] && kc=${COMP_WORDS[i + 1]}
        done
        local args=(--list-contexts)
        [ -n "$kc" ] && args+=(--kubeconfig "$kc")
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$(command "${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null)" -- "$cur"))
        return 0
        ;;
    --kubeconfig | --cacert)
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
        ;;
    --scenario)
        COMPREPLY=($(compgen -W "demo empty" -- "$cur") $(compgen -f -- "$cur"))
        return 0
        ;;
    --wait)
        COMPREPLY=($(compgen -W "backup/ restore/" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    --serve)
        COMPREPLY=($(compgen -W "127.0.0.1:9368 :9368" -- "$cur"))
        return 0
        ;;
    -n | --namespace | --speed | --notify | --timeout | --interval)
        return 0
        ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _veltop veltop kubectl-veltop
