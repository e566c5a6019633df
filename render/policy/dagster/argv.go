package dagster

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/policy"
)

// word is one argument of a process after the kubelet's and a shell's
// expansions, and where the object sets it.
type word struct {
	text, field string
	// unknownAt is where, in text, what codeloc cannot read starts (-1:
	// nowhere); text holds its reference ($(VAR), $VAR), never a value.
	unknownAt int
	why       string
	// splits: an unquoted shell expansion codeloc cannot read, which the
	// shell would split into any number of words.
	splits bool
}

func (w word) shown() string { return policy.OneLine(w.text) }

// invocation is a Dagster code server a container starts: the command,
// its options as click parses them and the environment it runs in.
type invocation struct {
	cmd   *cliCommand
	field string // where `dagster` is
	parse cliParse
	env   podEnv
}

// maxShellDepth bounds sh -c lines inside sh -c lines.
const maxShellDepth = 4

// invocations are the code servers a container's command line starts,
// as the kubelet and a shell would run it: command + args with $(VAR)
// expanded (kubecontainer.ExpandContainerCommandAndArgs), each `sh -c`
// line split into its commands. A container without command runs its
// image's entrypoint with args, which codeloc cannot see: its args are
// read as one command line all the same.
func invocations(ct *corev1.Container, at string, cms map[string]*yaml.RNode) []invocation {
	env := containerEnv(ct, at, cms)
	return simpleCommand(argvWords(ct, at, env), env, 0)
}

// argvWords are a container's command and args with $(VAR) expanded.
func argvWords(ct *corev1.Container, at string, env podEnv) []word {
	var argv []word
	for _, part := range []struct {
		name string
		list []string
	}{{"command", ct.Command}, {"args", ct.Args}} {
		for i, s := range part.list {
			text, unknownAt, why := env.expand(s)
			argv = append(argv, word{text: text, field: fmt.Sprintf("%s.%s[%d]", at, part.name, i), unknownAt: unknownAt, why: why})
		}
	}
	return argv
}

// simpleCommand finds the code server a command runs: `dagster api
// grpc` or `dagster code-server start` among its words (after a wrapper:
// env, tini, python -m...), or inside the line of a shell it runs.
func simpleCommand(words []word, env podEnv, depth int) []invocation {
	for i, w := range words {
		if w.unknownAt >= 0 {
			continue
		}
		if script, ok := shellScript(words[i:]); ok {
			if depth >= maxShellDepth || script.unknownAt >= 0 {
				return nil
			}
			return runScript(script, withAssignments(env, words[:i]), depth+1)
		}
		if path.Base(w.text) != "dagster" || i+2 >= len(words) {
			continue
		}
		for _, c := range cliCommands {
			if words[i+1].text == c.words[0] && words[i+2].text == c.words[1] && words[i+1].unknownAt < 0 && words[i+2].unknownAt < 0 {
				inv := invocation{cmd: c, field: w.field, parse: c.parse(words[i+3:]), env: withAssignments(env, words[:i])}
				c.convert(&inv.parse, inv.env)
				return []invocation{inv}
			}
		}
	}
	return nil
}

var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// withAssignments is env with what the words before a command change:
// NAME=VALUE words (a shell's prefix assignments, env's arguments), and
// env's -u NAME / --unset=NAME and -i / --ignore-environment / -.
func withAssignments(env podEnv, before []word) podEnv {
	cloned := false
	edit := func() {
		if !cloned {
			env, cloned = env.clone(), true
		}
	}
	afterEnv := false
	for i, w := range before {
		switch {
		case path.Base(w.text) == "env" && w.unknownAt < 0:
			afterEnv = true
		case afterEnv && (w.text == "-i" || w.text == "--ignore-environment" || w.text == "-"):
			edit()
			env.vars, env.opaque = map[string]envVar{}, ""
		case afterEnv && (w.text == "-u" || w.text == "--unset") && i+1 < len(before):
			edit()
			delete(env.vars, before[i+1].text)
		case afterEnv && strings.HasPrefix(w.text, "--unset="):
			edit()
			delete(env.vars, strings.TrimPrefix(w.text, "--unset="))
		case assignment().MatchString(w.text):
			edit()
			name, value, _ := strings.Cut(w.text, "=")
			v := envVar{value: value, field: w.field}
			if w.unknownAt >= 0 {
				v.unknown = w.why
			}
			env.vars[name] = v
		}
	}
	return env
}

// shells are the programs whose -c runs a command line.
var shells = []string{"sh", "bash", "dash", "ash", "ksh", "mksh", "zsh"}

// shellScript is the line of `sh [options] -c LINE` at the start of
// words (busybox sh too): ok false when words do not start a shell with
// -c.
func shellScript(words []word) (word, bool) {
	i := 0
	if path.Base(words[0].text) == "busybox" && len(words) > 1 {
		i = 1
	}
	if !slices.Contains(shells, path.Base(words[i].text)) {
		return word{}, false
	}
	hasC := false
	for i++; i < len(words); i++ {
		w := words[i].text
		switch {
		case w == "-o" || w == "+o" || w == "--rcfile" || w == "--init-file" || w == "-O" || w == "+O":
			i++ // takes a value
		case w == "--":
			i++
			if hasC && i < len(words) {
				return words[i], true
			}
			return word{}, false
		case strings.HasPrefix(w, "--"):
		case len(w) > 1 && (w[0] == '-' || w[0] == '+'):
			hasC = hasC || strings.ContainsRune(w[1:], 'c')
		default:
			return words[i], hasC
		}
	}
	return word{}, false
}
