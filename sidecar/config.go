// Package sidecar is codeloc's long-lived Config Management Plugin server:
// it serves Argo CD's ConfigManagementPluginService on the plugin socket
// and renders each request in-process with the render package, so that no
// process starts per render.
//
// It reads the same plugin.yaml as Argo CD's stock argocd-cmp-server (name,
// version, discovery and parameters), unpacks the repository stream into a
// fresh in-memory file system per request, in one pass and under Limits
// (what Argo CD's own unpacking refuses, it refuses too, with the same
// words), renders from it (no file is created per request), and builds the
// render request from the same environment the stock server gives a
// plugin command (its own environment plus the request's entries). It
// answers with one JSON document per object, as the stock server does.
package sidecar

import (
	"fmt"
	"strings"

	"github.com/codeloc/codeloc/plugin"
)

// LoadPluginConfig reads dir/plugin.yaml with Argo CD's rules (readPluginConfig), then checks it fits an in-process server: no init, find
// command or dynamic parameters (nothing is executed), and static
// parameters that codeloc knows, with the defaults codeloc applies.
func LoadPluginConfig(dir string) (*PluginConfig, error) {
	cfg, err := readPluginConfig(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin configuration: %w", err)
	}
	if err := checkPluginConfig(cfg); err != nil {
		return nil, fmt.Errorf("plugin configuration %s/plugin.yaml: %w", strings.TrimRight(dir, "/"), err)
	}
	return cfg, nil
}

func checkPluginConfig(cfg *PluginConfig) error {
	spec := cfg.Spec
	switch {
	case len(spec.Init.Command) > 0:
		return fmt.Errorf("spec.init is set, but codeloc-sidecar renders in-process and runs no command")
	case len(spec.Discover.Find.Command) > 0:
		return fmt.Errorf("spec.discover.find.command is set, but codeloc-sidecar runs no command: use discover.fileName")
	case len(spec.Parameters.Dynamic.Command) > 0:
		return fmt.Errorf("spec.parameters.dynamic is set, but codeloc-sidecar runs no command: announce parameters statically")
	}
	defaults := plugin.Defaults()
	for _, p := range spec.Parameters.Static {
		def, ok := defaults[p.Name]
		switch {
		case !ok:
			return fmt.Errorf("parameter %q is announced, but codeloc does not know it (known: %s)", p.Name, strings.Join(plugin.ParameterNames(), ", "))
		case p.CollectionType != "" && p.CollectionType != "string":
			return fmt.Errorf("parameter %q is announced as a %s, but codeloc reads it as a string", p.Name, p.CollectionType)
		case p.String_ != def:
			return fmt.Errorf("parameter %q is announced with default %q, but codeloc applies %q", p.Name, p.String_, def)
		}
	}
	return nil
}
