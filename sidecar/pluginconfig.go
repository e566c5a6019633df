package sidecar

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// pluginConfigKind is plugin.yaml's kind.
const pluginConfigKind = "ConfigManagementPlugin"

// PluginConfig is plugin.yaml as Argo CD's cmp-server reads it
// (cmpserver/plugin.PluginConfig, same fields and JSON names).
type PluginConfig struct {
	APIVersion string           `json:"apiVersion,omitempty"`
	Kind       string           `json:"kind,omitempty"`
	Metadata   PluginMetadata   `json:"metadata"`
	Spec       PluginConfigSpec `json:"spec"`
}

// PluginMetadata is the part of plugin.yaml's metadata Argo CD reads.
type PluginMetadata struct {
	Name string `json:"name"`
}

// PluginConfigSpec is plugin.yaml's spec.
type PluginConfigSpec struct {
	Version          string           `json:"version"`
	Init             PluginCommand    `json:"init,omitempty"`
	Generate         PluginCommand    `json:"generate"`
	Discover         PluginDiscover   `json:"discover"`
	Parameters       PluginParameters `json:"parameters"`
	PreserveFileMode bool             `json:"preserveFileMode,omitempty"`
	ProvideGitCreds  bool             `json:"provideGitCreds,omitempty"`
}

// PluginCommand is a command and its arguments.
type PluginCommand struct {
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
}

// PluginDiscover says which Applications the plugin serves unnamed.
type PluginDiscover struct {
	Find     PluginFind `json:"find"`
	FileName string     `json:"fileName"`
}

// IsDefined is whether discovery is configured (Argo CD's rule).
func (d PluginDiscover) IsDefined() bool {
	return d.FileName != "" || d.Find.Glob != "" || len(d.Find.Command) > 0
}

// PluginFind is a find command or glob.
type PluginFind struct {
	PluginCommand
	Glob string `json:"glob"`
}

// PluginParameters are the announced parameters.
type PluginParameters struct {
	Static  []*cmpapi.ParameterAnnouncement `json:"static"`
	Dynamic PluginCommand                   `json:"dynamic"`
}

// readPluginConfig reads and validates dir/plugin.yaml with Argo CD's
// rules and words (cmpserver/plugin.ReadPluginConfig).
func readPluginConfig(dir string) (*PluginConfig, error) {
	data, err := os.ReadFile(filepath.Join(strings.TrimRight(dir, "/"), cmpapi.PluginConfigFileName))
	if err != nil {
		return nil, err
	}
	var cfg PluginConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	if err := validatePluginConfig(&cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func validatePluginConfig(cfg *PluginConfig) error {
	switch {
	case cfg.Metadata.Name == "":
		return fmt.Errorf("invalid plugin configuration file. metadata.name should be non-empty")
	case cfg.Kind != pluginConfigKind:
		return fmt.Errorf("invalid plugin configuration file. kind should be %s, found %s", pluginConfigKind, cfg.Kind)
	case len(cfg.Spec.Generate.Command) == 0:
		return fmt.Errorf("invalid plugin configuration file. spec.generate command should be non-empty")
	}
	return nil
}

// Address is the plugin's socket: <sockets>/<name>[-<version>].sock, the
// name the repo-server dials.
func (cfg *PluginConfig) Address() string {
	name := cfg.Metadata.Name
	if cfg.Spec.Version != "" {
		name += "-" + cfg.Spec.Version
	}
	return filepath.Join(cmpapi.PluginSockFilePath(), name+".sock")
}
