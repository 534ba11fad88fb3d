# bash completion for @PROG@ (linkperf), generated from its option table at build time.
@FUNC@()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}

	# an option that takes a value: complete file names (--json FILE and the like)
	case " @TAKES@ " in
	*" $prev "*)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac
	COMPREPLY=($(compgen -W "@WORDS@" -- "$cur"))
}
complete -F @FUNC@ @PROG@
