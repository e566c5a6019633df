package dagster

import (
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
	field     string            // where the command line names it
	parse     cliParse          // its options as click reads them
	port      option
	socket    option
	host      option
	location  option
}

// option is a code server setting and where it is set ("" field: unset).
type option struct {
	value, field string
	fromEnv      bool // set from what codeloc cannot read (valueFrom, a Secret expanded)
}

// findCodeServers reads the code servers a container starts.
func findCodeServers(o *yaml.RNode, c *corev1.Container, at string, labels map[string]string, cms map[string]*yaml.RNode) []*codeServer {
	var out []*codeServer
	for _, inv := range invocations(c, at, cms) {
		s := &codeServer{o: o, container: c, path: at, labels: labels, command: inv.cmd.name, field: inv.field, parse: inv.parse}
		s.port, s.socket, s.host, s.location = inv.value(paramPort), inv.value(paramSocket), inv.value(paramHost), inv.value(paramLocation)
		out = append(out, s)
	}
	return out
}

// value is a parameter's value as click resolves it: its last occurrence
// on the command line, else the first of its env vars with a value (the
// option's own, then the auto one). An envFrom codeloc cannot read is
// taken to set none of them.
func (inv invocation) value(param string) option {
	if given := inv.parse.given[param]; len(given) > 0 {
		g := given[len(given)-1]
		return option{value: g.value, field: g.field, fromEnv: g.unknown}
	}
	for _, name := range inv.cmd.envNames(param) {
		v, ok := inv.env.vars[name]
		switch {
		case !ok:
		case v.unknown != "":
			return option{field: v.field, fromEnv: true}
		case v.value != "": // click takes an empty value as unset
			return option{value: v.value, field: v.field}
		}
	}
	return option{}
}

// listensEverywhere reports whether host is an address of every interface.
func listensEverywhere(host string) bool {
	switch strings.Trim(host, "[]") {
	case "0.0.0.0", "::":
		return true
	}
	return false
}

// portNumber is the server's TCP port, or 0 when it has none. Click
// reads it with Python's int(): blanks around it, a sign, underscores
// between digits ("3_030").
func (s *codeServer) portNumber() int {
	p, ok := pythonInt(s.port.value)
	if !ok || p < 1 || p > 65535 {
		return 0
	}
	return p
}

// pythonInt reads s as Python's int(s) does for ASCII digits.
func pythonInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	if err != nil || strings.ContainsAny(s, "+-") {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
