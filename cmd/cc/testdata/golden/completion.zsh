#compdef cc
# zsh completion for cc. Install: source <(cc completion zsh)
# It asks cc __complete for the candidates of the word at the cursor, and
# completes file names when there are none.
_cc() {
	local out
	out="$(command cc __complete "${(@)words[2,CURRENT]}" 2>/dev/null)"
	if [[ -n "$out" ]]; then
		compadd -- "${(@f)out}"
	else
		_files
	fi
}
if (( ! $+functions[compdef] )); then
	autoload -Uz compinit && compinit
fi
compdef _cc cc
