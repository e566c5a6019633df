package dagster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/render/policy"
)

// cliCommand is a Dagster command that runs a code server, as Dagster's
// CLI declares it with click (dagster/_cli/api.py grpc_command,
// dagster/_cli/code_server.py start_command). TestCLITablesAreDagsters
// holds these tables to the click commands of the Dagster that .ci/dagster.sh
// installs.
type cliCommand struct {
	name    string    // "dagster api grpc"
	words   [2]string // what follows `dagster`: api grpc
	options []cliOption
}

// cliOption is one click option of a command.
type cliOption struct {
	param string   // click's parameter name: port, container_context
	opts  []string // its spellings: --port, -p
	flag  bool     // takes no value
	env   string   // its own envvar, read before the auto one ("" none)
	// kind is the click type a value must convert to: "int", "bool" (a
	// flag's env value), "choice:a,b" (case-insensitive), "" any text.
	kind string
}

// The parameters codeloc reads of a code server.
const (
	paramPort      = "port"
	paramSocket    = "socket"
	paramHost      = "host"
	paramLocation  = "location_name"
	paramContext   = "container_context"
	paramImage     = "container_image"
	paramHelp      = "help"
	cliEnvPrefix   = "DAGSTER_CLI" // the dagster group's auto_envvar_prefix
	helpOptionName = "--help"
)

// cliCommands are the code server commands of Dagster 1.13.
var cliCommands = []*cliCommand{
	{name: "dagster api grpc", words: [2]string{"api", "grpc"}, options: []cliOption{
		{paramPort, []string{"--port", "-p"}, false, "DAGSTER_GRPC_PORT", "int"},
		{paramSocket, []string{"--socket", "-s"}, false, "DAGSTER_GRPC_SOCKET", ""},
		{paramHost, []string{"--host", "-h"}, false, "DAGSTER_GRPC_HOST", ""},
		{"max_workers", []string{"--max-workers", "--max_workers", "-n"}, false, "DAGSTER_GRPC_MAX_WORKERS", "int"},
		{"heartbeat", []string{"--heartbeat"}, true, "", "bool"},
		{"heartbeat_timeout", []string{"--heartbeat-timeout"}, false, "", "int"},
		{"lazy_load_user_code", []string{"--lazy-load-user-code"}, true, "DAGSTER_LAZY_LOAD_USER_CODE", "bool"},
		{"use_python_environment_entry_point", []string{"--use-python-environment-entry-point"}, true, "DAGSTER_USE_PYTHON_ENVIRONMENT_ENTRY_POINT", "bool"},
		{"empty_working_directory", []string{"--empty-working-directory"}, true, "DAGSTER_EMPTY_WORKING_DIRECTORY", "bool"},
		{"fixed_server_id", []string{"--fixed-server-id"}, false, "", ""},
		{"log_level", []string{"--log-level"}, false, "", "choice:critical,error,warning,info,debug"},
		{"log_format", []string{"--log-format"}, false, "", "choice:colored,json,rich"},
		{paramImage, []string{"--container-image"}, false, "DAGSTER_CONTAINER_IMAGE", ""},
		{paramContext, []string{"--container-context"}, false, "DAGSTER_CONTAINER_CONTEXT", ""},
		{"inject_env_vars_from_instance", []string{"--inject-env-vars-from-instance"}, true, "DAGSTER_INJECT_ENV_VARS_FROM_INSTANCE", "bool"},
		{paramLocation, []string{"--location-name"}, false, "DAGSTER_LOCATION_NAME", ""},
		{"instance_ref", []string{"--instance-ref"}, false, "DAGSTER_INSTANCE_REF", ""},
		{"enable_metrics", []string{"--enable-metrics"}, true, "DAGSTER_ENABLE_SERVER_METRICS", "bool"},
		{"defs_state_info", []string{"--defs-state-info"}, false, "", ""},
		{"attribute", []string{"--attribute", "-a"}, false, "DAGSTER_ATTRIBUTE", ""},
		{"package_name", []string{"--package-name"}, false, "DAGSTER_PACKAGE_NAME", ""},
		{"autoload_defs_module_name", []string{"--autoload-defs-module-name"}, false, "DAGSTER_autoload_defs_module_name", ""},
		{"module_name", []string{"--module-name", "-m"}, false, "DAGSTER_MODULE_NAME", ""},
		{"python_file", []string{"--python-file", "-f"}, false, "DAGSTER_PYTHON_FILE", ""},
		{"working_directory", []string{"--working-directory", "-d"}, false, "DAGSTER_WORKING_DIRECTORY", ""},
		{paramHelp, []string{helpOptionName}, true, "", "bool"},
	}},
	{name: "dagster code-server start", words: [2]string{"code-server", "start"}, options: []cliOption{
		{paramPort, []string{"--port", "-p"}, false, "DAGSTER_CODE_SERVER_PORT", "int"},
		{paramSocket, []string{"--socket", "-s"}, false, "DAGSTER_CODE_SERVER_SOCKET", ""},
		{paramHost, []string{"--host", "-h"}, false, "DAGSTER_CODE_SERVER_HOST", ""},
		{"max_workers", []string{"--max-workers", "-n"}, false, "DAGSTER_CODE_SERVER_MAX_WORKERS", "int"},
		{"use_python_environment_entry_point", []string{"--use-python-environment-entry-point"}, true, "DAGSTER_USE_PYTHON_ENVIRONMENT_ENTRY_POINT", "bool"},
		{"fixed_server_id", []string{"--fixed-server-id"}, false, "", ""},
		{"log_level", []string{"--log-level"}, false, "", "choice:critical,error,warning,info,debug"},
		{"log_format", []string{"--log-format"}, false, "", "choice:colored,json,rich"},
		{paramImage, []string{"--container-image"}, false, "DAGSTER_CONTAINER_IMAGE", ""},
		{paramContext, []string{"--container-context"}, false, "DAGSTER_CONTAINER_CONTEXT", ""},
		{"inject_env_vars_from_instance", []string{"--inject-env-vars-from-instance"}, true, "DAGSTER_INJECT_ENV_VARS_FROM_INSTANCE", "bool"},
		{paramLocation, []string{"--location-name"}, false, "DAGSTER_LOCATION_NAME", ""},
		{"startup_timeout", []string{"--startup-timeout"}, false, "DAGSTER_CODE_SERVER_STARTUP_TIMEOUT", "int"},
		{"heartbeat", []string{"--heartbeat"}, true, "", "bool"},
		{"heartbeat_timeout", []string{"--heartbeat-timeout"}, false, "", "int"},
		{"heartbeat_ttl", []string{"--heartbeat-ttl"}, false, "DAGSTER_GRPC_PROXY_HEARTBEAT_TTL_SECONDS", "int"},
		{"instance_ref", []string{"--instance-ref"}, false, "DAGSTER_INSTANCE_REF", ""},
		{"defs_state_info", []string{"--defs-state-info"}, false, "", ""},
		{"attribute", []string{"--attribute", "-a"}, false, "DAGSTER_ATTRIBUTE", ""},
		{"package_name", []string{"--package-name"}, false, "DAGSTER_PACKAGE_NAME", ""},
		{"autoload_defs_module_name", []string{"--autoload-defs-module-name"}, false, "DAGSTER_autoload_defs_module_name", ""},
		{"module_name", []string{"--module-name", "-m"}, false, "DAGSTER_MODULE_NAME", ""},
		{"python_file", []string{"--python-file", "-f"}, false, "DAGSTER_PYTHON_FILE", ""},
		{"working_directory", []string{"--working-directory", "-d"}, false, "DAGSTER_WORKING_DIRECTORY", ""},
		{paramHelp, []string{helpOptionName}, true, "", "bool"},
	}},
}

// autoEnv is click's auto_envvar_prefix for the command: the group's,
// then each command's name in capitals with - as _.
func (c *cliCommand) autoEnv() string {
	return cliEnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(c.words[0]+"_"+c.words[1], "-", "_"))
}

// settingEnvNames are the env vars any code server command reads param
// from.
func settingEnvNames(param string) []string {
	var out []string
	for _, c := range cliCommands {
		for _, n := range c.envNames(param) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// envNames are the env vars click reads param from, in its order: the
// option's own envvar, then auto_envvar_prefix + the name in capitals.
func (c *cliCommand) envNames(param string) []string {
	o := c.option(param)
	if o == nil || o.param == paramHelp {
		return nil
	}
	var out []string
	if o.env != "" {
		out = append(out, o.env)
	}
	return append(out, c.autoEnv()+"_"+strings.ToUpper(o.param))
}

func (c *cliCommand) option(param string) *cliOption {
	for i := range c.options {
		if c.options[i].param == param {
			return &c.options[i]
		}
	}
	return nil
}

// spelled finds the option spelled opt exactly (click does not take
// abbreviations).
func (c *cliCommand) spelled(opt string) *cliOption {
	for i := range c.options {
		for _, s := range c.options[i].opts {
			if s == opt {
				return &c.options[i]
			}
		}
	}
	return nil
}

// setting is one value a command line gives a parameter, and where.
type setting struct {
	value, field string
	// unknown: the value holds what codeloc cannot read (a Secret's value
	// expanded by the kubelet, a shell expansion).
	unknown bool
	// source is the option as spelled, or the env var.
	source string
}

// cliParse is a code server's options as click parses them: every
// occurrence of each parameter on the command line, in order (click
// keeps the last), and why click would refuse the line.
type cliParse struct {
	given map[string][]setting
	// refused is click's error for the line ("" none); the server would
	// exit at once with usage error 2.
	refused string
	// unreadable: a word codeloc cannot read stands where click reads an
	// option's name, so no option's value is known.
	unreadable string
	field      string // where refused or unreadable is
}

// parse reads the words after the command as click's parser does
// (click/parser.py _OptionParser): `--` ends the options; a word that
// starts with - names a long option, with =VALUE or the next word as its
// value, else a cluster of short options whose value is the rest of the
// word or the next one; any other word is an argument, which these
// commands do not take.
func (c *cliCommand) parse(words []word) cliParse {
	p := cliParse{given: map[string][]setting{}}
	for _, w := range words {
		if w.splits {
			p.unreadable, p.field = fmt.Sprintf("%q holds an unquoted shell expansion codeloc cannot read (%s), which the shell may split into any options", w.shown(), w.why), w.field
			return p
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.unknownAt == 0 {
			p.unreadable, p.field = fmt.Sprintf("%q holds a value codeloc cannot read (%s) where Dagster's CLI reads an option", w.shown(), w.why), w.field
			return p
		}
		switch {
		case w.text == "--":
			if i+1 < len(words) {
				p.refuse(fmt.Sprintf("Got unexpected extra argument (%s)", words[i+1].shown()), words[i+1].field)
			}
			return p
		case len(w.text) > 1 && w.text[0] == '-':
			var ok bool
			if i, ok = c.option1(&p, words, i); !ok {
				return p
			}
		default:
			p.refuse(fmt.Sprintf("Got unexpected extra argument (%s)", w.shown()), w.field)
			return p
		}
	}
	return p
}

func (p *cliParse) refuse(msg, field string) {
	if p.refused == "" && p.unreadable == "" {
		p.refused, p.field = msg, field
	}
}

// option1 reads the option at words[i] and returns the index of the last
// word it used.
func (c *cliCommand) option1(p *cliParse, words []word, i int) (int, bool) {
	w := words[i]
	name, explicit, hasValue := strings.Cut(w.text, "=")
	if w.unknownAt >= 0 && w.unknownAt < len(name) {
		p.unreadable, p.field = fmt.Sprintf("%q holds a value codeloc cannot read (%s) where Dagster's CLI reads an option", w.shown(), w.why), w.field
		return i, false
	}
	if o := c.spelled(name); o != nil && len(name) > 2 { // a long option: click matches short ones letter by letter
		switch {
		case o.flag && hasValue:
			p.refuse(fmt.Sprintf("Option '%s' does not take a value.", name), w.field)
			return i, false
		case o.flag:
			p.add(o.param, setting{value: "true", field: w.field, source: name})
			return i, true
		case hasValue:
			p.add(o.param, setting{value: explicit, field: w.field, unknown: w.unknownAt >= 0, source: name})
			return i, true
		}
		return c.nextValue(p, o, name, words, i)
	}
	if strings.HasPrefix(w.text, "--") {
		p.refuse(fmt.Sprintf("No such option: %s", name), w.field)
		return i, false
	}
	return c.shortOptions(p, words, i)
}

// nextValue takes the word after words[i] as option o's value.
func (c *cliCommand) nextValue(p *cliParse, o *cliOption, name string, words []word, i int) (int, bool) {
	if i+1 >= len(words) {
		p.refuse(fmt.Sprintf("Option '%s' requires an argument.", name), words[i].field)
		return i, false
	}
	v := words[i+1]
	p.add(o.param, setting{value: v.text, field: v.field, unknown: v.unknownAt >= 0, source: name})
	return i + 1, true
}

// shortOptions reads a cluster of short options (-p3030, -n4): each
// letter an option; one that takes a value takes the rest of the word,
// else the next word.
func (c *cliCommand) shortOptions(p *cliParse, words []word, i int) (int, bool) {
	w := words[i]
	for j := 1; j < len(w.text); j++ {
		if w.unknownAt >= 0 && j >= w.unknownAt {
			p.unreadable, p.field = fmt.Sprintf("%q holds a value codeloc cannot read (%s) where Dagster's CLI reads an option", w.shown(), w.why), w.field
			return i, false
		}
		opt := "-" + w.text[j:j+1]
		o := c.spelled(opt)
		if o == nil || strings.HasPrefix(opt, "--") {
			p.refuse(fmt.Sprintf("No such option: %s", opt), w.field)
			return i, false
		}
		if o.flag {
			p.add(o.param, setting{value: "true", field: w.field, source: opt})
			continue
		}
		if j+1 < len(w.text) {
			p.add(o.param, setting{value: w.text[j+1:], field: w.field, unknown: w.unknownAt >= 0, source: opt})
			return i, true
		}
		return c.nextValue(p, o, opt, words, i)
	}
	return i, true
}

func (p *cliParse) add(param string, s setting) {
	p.given[param] = append(p.given[param], s)
}

// convert checks each option's value as click converts it to its type
// (an int, a boolean from an env var, a choice), the command line's
// last occurrence or else its env vars; the first that does not convert
// refuses the line.
func (c *cliCommand) convert(p *cliParse, env podEnv) {
	for _, o := range c.options {
		raw, field, from, ok := c.rawValue(p, o, env)
		if !ok || o.kind == "" {
			continue
		}
		if msg := convertFails(o.kind, raw); msg != "" {
			p.refuse(fmt.Sprintf("Invalid value for '%s'%s: %s", o.opts[0], from, msg), field)
			return
		}
	}
}

// rawValue is the text click converts for option o: ok false when it is
// unset, a flag given on the command line or unknown.
func (c *cliCommand) rawValue(p *cliParse, o cliOption, env podEnv) (raw, field, from string, ok bool) {
	if given := p.given[o.param]; len(given) > 0 {
		g := given[len(given)-1]
		return g.value, g.field, "", !o.flag && !g.unknown
	}
	for _, name := range c.envNames(o.param) {
		if v, set := env.vars[name]; set && v.unknown == "" && v.value != "" {
			return v.value, v.field, " (from " + name + ")", true
		} else if set && v.unknown != "" {
			return "", "", "", false
		}
	}
	return "", "", "", false
}

// convertFails is why click's type refuses raw ("" it converts).
func convertFails(kind, raw string) string {
	switch {
	case kind == "int":
		if _, ok := pythonInt(raw); !ok {
			return fmt.Sprintf("%q is not a valid integer.", policy.OneLine(raw))
		}
	case kind == "bool":
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "1", "true", "t", "yes", "y", "on", "0", "false", "f", "no", "n", "off":
		default:
			return fmt.Sprintf("%q is not a valid boolean.", policy.OneLine(raw))
		}
	case strings.HasPrefix(kind, "choice:"):
		choices := strings.Split(strings.TrimPrefix(kind, "choice:"), ",")
		if !slices.ContainsFunc(choices, func(c string) bool { return strings.EqualFold(c, raw) }) {
			return fmt.Sprintf("%q is not one of %s.", policy.OneLine(raw), strings.Join(choices, ", "))
		}
	}
	return ""
}
