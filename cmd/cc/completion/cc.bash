# bash completion for cc. Install: source <(cc completion bash)
# It asks cc __complete for the candidates of the word at the cursor, and
# completes file names when there are none.
_cc() {
	local line="${COMP_LINE:0:COMP_POINT}"
	local -a words
	read -ra words <<<"$line"
	if [[ -z "$line" || "$line" == *[[:space:]] ]]; then
		words+=("")
	fi
	local cur="${words[${#words[@]}-1]}"
	local IFS=$'\n'
	local -a out
	out=($(command cc __complete "${words[@]:1}" 2>/dev/null))
	if [[ ${#out[@]} -eq 0 ]]; then
		COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
		return
	fi
	# bash splits words at COMP_WORDBREAKS (= : " and more): give it the
	# candidates less what precedes its current word.
	local bcur="${COMP_WORDS[COMP_CWORD]}" strip=0 c
	if [[ "$cur" == *"$bcur" ]]; then
		strip=$((${#cur} - ${#bcur}))
	fi
	# Each candidate quoted for bash (printf %q): an instance address
	# sandbox.worker["a"] is inserted as sandbox.worker\[\"a\"\], one word
	# that bash reads back as the address.
	COMPREPLY=()
	for c in "${out[@]}"; do
		printf -v c '%q' "${c:strip}"
		COMPREPLY+=("$c")
	done
}
complete -o default -F _cc cc
