package dagster

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// codeServer is a container running a Dagster code server (`dagster api
// grpc` or `dagster code-server start`), as its command line and env say
// (dagster/_cli/api.py grpc_command, dagster/_cli/code_server.py
// start_command: -p/--port, -s/--socket, -h/--host default localhost,
// --location-name, and their env vars).
type codeServer struct {
	o         *yaml.RNode
	container *corev1.Container
	path      string            // the container's field path
	labels    map[string]string // its pod's labels
	command   string            // "dagster api grpc" or "dagster code-server start"
	port      option
	socket    option
	host      option
	location  option
}

// option is a code server setting and where it is set ("" field: unset).
type option struct {
	value, field string
	fromEnv      bool // set by an env var codeloc cannot read (valueFrom)
}

// serverEnv are the env vars each command reads its settings from.
var serverEnv = map[string]map[string][]string{
	"dagster api grpc": {
		"port": {"DAGSTER_GRPC_PORT", "DAGSTER_CLI_API_GRPC_PORT"}, "socket": {"DAGSTER_GRPC_SOCKET", "DAGSTER_CLI_API_GRPC_SOCKET"},
		"host": {"DAGSTER_GRPC_HOST", "DAGSTER_CLI_API_GRPC_HOST"}, "location": {"DAGSTER_LOCATION_NAME", "DAGSTER_CLI_API_GRPC_LOCATION_NAME"},
	},
	"dagster code-server start": {
		"port": {"DAGSTER_CODE_SERVER_PORT"}, "socket": {"DAGSTER_CODE_SERVER_SOCKET"},
		"host": {"DAGSTER_CODE_SERVER_HOST"}, "location": {"DAGSTER_LOCATION_NAME"},
	},
}

// serverFlags are the flags of each setting, long and short.
var serverFlags = map[string][]string{
	"port": {"--port", "-p"}, "socket": {"--socket", "-s"}, "host": {"--host", "-h"}, "location": {"--location-name"},
}

// token is one word of a container's command line and its field.
type token struct{ word, field string }

// commandLine is a container's command and args as words: an element
// holding a shell line (sh -c "dagster api grpc ...") is split on spaces.
func commandLine(c *corev1.Container, at string) []token {
	var out []token
	for _, part := range []struct {
		name string
		list []string
	}{{"command", c.Command}, {"args", c.Args}} {
		for i, el := range part.list {
			for _, w := range strings.Fields(el) {
				out = append(out, token{w, fmt.Sprintf("%s.%s[%d]", at, part.name, i)})
			}
		}
	}
	return out
}

// findCodeServer reads a container's code server, if it runs one.
func findCodeServer(o *yaml.RNode, c *corev1.Container, at string, labels map[string]string, cms map[string]*yaml.RNode) *codeServer {
	words := commandLine(c, at)
	for i := range words {
		if path.Base(words[i].word) != "dagster" || i+2 >= len(words) {
			continue
		}
		cmd := "dagster " + words[i+1].word + " " + words[i+2].word
		if _, ok := serverEnv[cmd]; !ok {
			continue
		}
		s := &codeServer{o: o, container: c, path: at, labels: labels, command: cmd}
		s.read(words[i+3:], at, cms)
		return s
	}
	return nil
}

// read sets the server's options from its flags, else its env vars.
func (s *codeServer) read(words []token, at string, cms map[string]*yaml.RNode) {
	for name, dst := range map[string]*option{"port": &s.port, "socket": &s.socket, "host": &s.host, "location": &s.location} {
		if o, ok := flagValue(words, serverFlags[name]); ok {
			*dst = o
			continue
		}
		*dst = envOption(s.container, at, serverEnv[s.command][name], cms)
	}
}

// flagValue finds a flag's value: --port 3030, --port=3030, -p 3030, -p3030.
func flagValue(words []token, flags []string) (option, bool) {
	for i, w := range words {
		for _, f := range flags {
			switch {
			case w.word == f && i+1 < len(words):
				return option{value: words[i+1].word, field: words[i+1].field}, true
			case strings.HasPrefix(w.word, f+"=") && strings.HasPrefix(f, "--"):
				return option{value: strings.TrimPrefix(w.word, f+"="), field: w.field}, true
			case len(f) == 2 && strings.HasPrefix(w.word, f) && len(w.word) > 2 && !strings.HasPrefix(w.word, "--"):
				return option{value: w.word[2:], field: w.field}, true
			}
		}
	}
	return option{}, false
}

// envOption is what a container's env vars envNames set, as Kubernetes
// resolves them: an env entry over envFrom (envSources lists the env
// entries first), the last one of each; a value codeloc cannot read is
// fromEnv.
func envOption(c *corev1.Container, at string, envNames []string, cms map[string]*yaml.RNode) option {
	found, unreadable := envSources(c, at, cms, envNames, "")
	if len(unreadable) > 0 {
		return option{field: unreadable[0].field, fromEnv: true}
	}
	var o option
	for _, src := range found {
		if strings.Contains(src.field, ".env[") || !strings.Contains(o.field, ".env[") {
			o = option{value: src.text, field: src.field}
		}
	}
	return o
}

// listensEverywhere reports whether host is an address of every interface.
func listensEverywhere(host string) bool {
	switch strings.Trim(host, "[]") {
	case "0.0.0.0", "::":
		return true
	}
	return false
}

// portNumber is the server's TCP port, or 0 when it has none.
func (s *codeServer) portNumber() int {
	p, err := strconv.Atoi(s.port.value)
	if err != nil || p < 1 || p > 65535 {
		return 0
	}
	return p
}
