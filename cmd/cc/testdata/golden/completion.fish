# fish completion for cc. Install: cc completion fish > ~/.config/fish/completions/cc.fish
# It asks cc __complete for the candidates of the token at the cursor, and
# completes file names when there are none.
function __cc_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (command cc __complete $words (commandline -ct) 2>/dev/null)
    if test (count $out) -gt 0
        printf '%s\n' $out
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c cc -f -a '(__cc_complete)'
