# zsh -f tests/build/zsh_complete.zsh FPATH_DIR 'COMMAND LINE': the matches
# zsh's completion system offers at the end of the line, one a line (for
# tests/build/check_cli_docs.py). An interactive zsh in a pseudo-terminal
# (zsh/zpty) gets the line and a TAB; compadd is wrapped to print what it
# adds, marked, and a post-completion hook prints an end marker. The
# markers are split in what is sent, so the terminal's echo of it never
# matches.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; local h; for h in $__hits; do print -r -- "<M"">$h"; done; }'
zpty -w z "zstyle ':completion:*' insert-tab false; bindkey '^I' complete-word"
zpty -w z 'comppostfuncs=(finish); finish() { print "<E""OC>"; exit }'
zpty -w z "$2"$'\t'
integer n=0
local line
while (( n++ < 200 )); do
  zpty -r -t z line 2>/dev/null || { sleep 0.1; continue; }
  [[ $line == *'<EOC>'* ]] && break
  [[ $line == *'<M>'* ]] && print -r -- "${${line#*<M>}%$'\r'}"
done
zpty -d z
