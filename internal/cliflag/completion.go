package cliflag

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Command is one command of a program for the completion scripts.
type Command struct {
	// Path is the words after the program name: "" for the program
	// itself, "simulate", "cluster simulate".
	Path  string
	Flags *pflag.FlagSet
	// Paths: the command takes files and folders as arguments.
	Paths bool
	// Words it takes as arguments (help's commands, completion's shells).
	Words []string
}

// id is a shell-safe name for the command: root, cluster_simulate.
func (c Command) id() string {
	if c.Path == "" {
		return "root"
	}
	return strings.ReplaceAll(c.Path, " ", "_")
}

// children returns the subcommands directly under parent, as (word, id).
func children(cmds []Command, parent Command) [][2]string {
	var out [][2]string
	for _, c := range cmds {
		if c.Path == "" {
			continue
		}
		par, word := "", c.Path
		if i := strings.LastIndex(c.Path, " "); i >= 0 {
			par, word = c.Path[:i], c.Path[i+1:]
		}
		if par == parent.Path {
			out = append(out, [2]string{word, c.id()})
		}
	}
	return out
}

// walkCases are the "parent/word) cmd=child" pairs that find the command
// from the leading words.
func walkCases(cmds []Command) [][3]string {
	var out [][3]string
	for _, c := range cmds {
		for _, ch := range children(cmds, c) {
			out = append(out, [3]string{c.id(), ch[0], ch[1]})
		}
	}
	return out
}

// positional are the words offered where a command takes an argument.
func positional(cmds []Command, c Command) []string {
	var out []string
	for _, ch := range children(cmds, c) {
		out = append(out, ch[0])
	}
	return append(out, c.Words...)
}

// Script writes the completion script for shell (bash, zsh or fish).
func Script(w io.Writer, shell, prog string, cmds []Command) error {
	switch shell {
	case "bash":
		bash(w, prog, cmds)
	case "zsh":
		zsh(w, prog, cmds)
	case "fish":
		fish(w, prog, cmds)
	default:
		return fmt.Errorf("unknown shell %q: want bash, zsh or fish", shell)
	}
	return nil
}

// Shells are the shells Script writes for.
var Shells = []string{"bash", "zsh", "fish"}

func fn(prog string) string { return "_" + strings.ReplaceAll(prog, "-", "_") }

func bash(w io.Writer, prog string, cmds []Command) {
	f := fn(prog)
	fmt.Fprintf(w, `# bash completion for %[1]s: source it from ~/.bashrc with
#   source <(%[1]s completion bash)
# or save it as /etc/bash_completion.d/%[1]s.
%[2]s() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local cmd=root i=1
    while ((i < COMP_CWORD)); do
        case "$cmd/${COMP_WORDS[i]}" in
`, prog, f)
	for _, c := range walkCases(cmds) {
		fmt.Fprintf(w, "            %s/%s) cmd=%s ;;\n", c[0], c[1], c[2])
	}
	fmt.Fprint(w, `            *) break ;;
        esac
        ((i++))
    done
    # --flag=value: bash splits the word at '='.
    if [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
        prev="${COMP_WORDS[COMP_CWORD-2]}"
    elif [[ $cur == --*=* ]]; then
        prev="${cur%%=*}" cur="${cur#*=}"
    fi
    case "$cmd/$prev" in
`)
	for _, c := range cmds {
		for _, fl := range Flags(c.Flags) {
			if !TakesValue(fl) {
				continue
			}
			switch {
			case len(Values(fl)) > 0:
				fmt.Fprintf(w, "        %s/--%s) COMPREPLY=($(compgen -W %s -- \"$cur\")); return ;;\n", c.id(), fl.Name, shellQuote(strings.Join(Values(fl), " ")))
			case takesFile(fl):
				fmt.Fprintf(w, "        %s/--%s) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", c.id(), fl.Name)
			default:
				fmt.Fprintf(w, "        %s/--%s) COMPREPLY=(); return ;;\n", c.id(), fl.Name)
			}
		}
	}
	fmt.Fprint(w, `    esac
    local flags="" words="" paths=""
    case "$cmd" in
`)
	for _, c := range cmds {
		var names []string
		for _, fl := range Flags(c.Flags) {
			names = append(names, "--"+fl.Name)
		}
		paths := ""
		if c.Paths {
			paths = " paths=1"
		}
		fmt.Fprintf(w, "        %s) flags=%s words=%s%s ;;\n", c.id(), shellQuote(strings.Join(names, " ")), shellQuote(strings.Join(positional(cmds, c), " ")), paths)
	}
	fmt.Fprintf(w, `    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    # Subcommands only right after the command that has them.
    [[ $i -eq $COMP_CWORD ]] || words=""
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    if [[ -n $paths ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
}
complete -F %[1]s %[2]s
`, f, prog)
}

func zsh(w io.Writer, prog string, cmds []Command) {
	f := fn(prog)
	fmt.Fprintf(w, `#compdef %[1]s
# zsh completion for %[1]s: put it in a folder of $fpath as _%[1]s, or run
#   source <(%[1]s completion zsh)
# after compinit.
%[2]s() {
    local cmd=root i=2
    while (( i < CURRENT )); do
        case "$cmd/${words[i]}" in
`, prog, f)
	for _, c := range walkCases(cmds) {
		fmt.Fprintf(w, "            %s/%s) cmd=%s ;;\n", c[0], c[1], c[2])
	}
	fmt.Fprint(w, `            *) break ;;
        esac
        (( i++ ))
    done
    if (( i > 2 )); then
        words=("${words[1]}" "${(@)words[i,-1]}")
        (( CURRENT -= i - 2 ))
    fi
    case "$cmd" in
`)
	for _, c := range cmds {
		var specs []string
		for _, fl := range Flags(c.Flags) {
			specs = append(specs, zshSpec(fl))
		}
		pos := positional(cmds, c)
		switch {
		case len(pos) > 0 && c.Paths:
			specs = append(specs, fmt.Sprintf("'1: :_alternative \"words:command:(%s)\" \"files:path:_files\"'", strings.Join(pos, " ")),
				"'*:path:_files'")
		case len(pos) > 0:
			specs = append(specs, fmt.Sprintf("'1: :(%s)'", strings.Join(pos, " ")))
		case c.Paths:
			specs = append(specs, "'*:path:_files'")
		}
		fmt.Fprintf(w, "        %s)\n            _arguments -s -S \\\n                %s\n            ;;\n", c.id(), strings.Join(specs, " \\\n                "))
	}
	fmt.Fprintf(w, `    esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    %[1]s "$@"
else
    compdef %[1]s %[2]s
fi
`, f, prog)
}

func zshSpec(fl *pflag.Flag) string {
	desc := strings.NewReplacer("[", `\[`, "]", `\]`, ":", `\:`).Replace(summary(fl))
	rep := ""
	if strings.Contains(fl.Usage, "repeat") {
		rep = "*"
	}
	if !TakesValue(fl) {
		return shellQuote(fmt.Sprintf("%s--%s[%s]", rep, fl.Name, desc))
	}
	action := " "
	switch {
	case len(Values(fl)) > 0:
		action = "(" + strings.Join(Values(fl), " ") + ")"
	case takesFile(fl):
		action = "_files"
	}
	return shellQuote(fmt.Sprintf("%s--%s=[%s]:%s:%s", rep, fl.Name, desc, strings.ToLower(metavarWord(fl)), action))
}

func metavarWord(fl *pflag.Flag) string {
	m := metavar(fl)
	if strings.Contains(m, "|") {
		return fl.Name
	}
	return m
}

func fish(w io.Writer, prog string, cmds []Command) {
	f := "__" + strings.ReplaceAll(prog, "-", "_") + "_cmd"
	fmt.Fprintf(w, `# fish completion for %[1]s: save it as ~/.config/fish/completions/%[1]s.fish, or run
#   %[1]s completion fish | source
function %[2]s
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmd root
    for w in $words
        switch "$cmd/$w"
`, prog, f)
	for _, c := range walkCases(cmds) {
		fmt.Fprintf(w, "            case %s/%s\n                set cmd %s\n", c[0], c[1], c[2])
	}
	fmt.Fprintf(w, `            case '*'
                break
        end
    end
    echo $cmd
end
function %[1]s_first
    set -l words (commandline -opc)
    test (count $words) -eq 1; and return 0
    test (count $words) -eq 2; and contains -- $words[2] %[2]s
end
complete -c %[3]s -e
`, f, strings.Join(subcommandWords(cmds), " "), prog)
	for _, c := range cmds {
		cond := fmt.Sprintf("test (%s) = %s", f, c.id())
		if !c.Paths {
			fmt.Fprintf(w, "complete -c %s -n %s -f\n", prog, shellQuote(cond))
		}
		if pos := positional(cmds, c); len(pos) > 0 {
			first := cond
			if len(children(cmds, c)) > 0 {
				first += "; and " + f + "_first"
			}
			fmt.Fprintf(w, "complete -c %s -n %s -f -a %s\n", prog, shellQuote(first), shellQuote(strings.Join(pos, " ")))
		}
		for _, fl := range Flags(c.Flags) {
			line := fmt.Sprintf("complete -c %s -n %s -l %s", prog, shellQuote(cond), fl.Name)
			if fl.Shorthand != "" {
				line += " -s " + fl.Shorthand
			}
			switch {
			case !TakesValue(fl):
			case len(Values(fl)) > 0:
				line += " -x -a " + shellQuote(strings.Join(Values(fl), " "))
			case takesFile(fl):
				line += " -r -F"
			default:
				line += " -x"
			}
			fmt.Fprintf(w, "%s -d %s\n", line, shellQuote(summary(fl)))
		}
	}
}

// subcommandWords are the words that name a command below the program.
func subcommandWords(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		if c.Path != "" {
			out = append(out, c.Path[strings.LastIndex(c.Path, " ")+1:])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// summary is the start of a flag's usage, for the shells' menus.
func summary(fl *pflag.Flag) string {
	_, u := pflag.UnquoteUsage(fl)
	for _, sep := range []string{": ", "; ", " ("} {
		if i := strings.Index(u, sep); i > 0 {
			u = u[:i]
		}
	}
	return strings.TrimSpace(u)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
