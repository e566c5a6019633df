package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/yamlbound"
)

// yamlFlags set the bounds of every YAML file a render reads; unset, they
// come from the environment (CODELOC_MAX_YAML_*), then the defaults. The
// stock cmp-server runs `codeloc generate` with its container's
// environment: that is where a platform sets them for Argo CD.
type yamlFlags struct {
	bytes, aliasNodes, depth int64
}

func (f *yamlFlags) register(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&f.bytes, yamlbound.FlagBytes, 0,
		fmt.Sprintf("largest YAML file a render reads, in bytes (default $%s, else %d)", yamlbound.EnvBytes, yamlbound.DefaultBytes))
	cmd.Flags().Int64Var(&f.aliasNodes, yamlbound.FlagAliasNodes, 0,
		fmt.Sprintf("most nodes the YAML aliases of one file may add once expanded (default $%s, else %d)", yamlbound.EnvAliasNodes, yamlbound.DefaultAliasNodes))
	cmd.Flags().Int64Var(&f.depth, yamlbound.FlagDepth, 0,
		fmt.Sprintf("deepest nesting of a YAML document, aliases expanded (default $%s, else %d)", yamlbound.EnvDepth, yamlbound.DefaultDepth))
}

// limits are the flags over the environment over the defaults.
func (f *yamlFlags) limits() (yamlbound.Limits, error) {
	l, err := yamlbound.FromEnv()
	if err != nil {
		return l, err
	}
	for _, v := range []struct {
		flag string
		n    int64
		set  func(int64)
	}{
		{yamlbound.FlagBytes, f.bytes, func(n int64) { l.Bytes = n }},
		{yamlbound.FlagAliasNodes, f.aliasNodes, func(n int64) { l.AliasNodes = n }},
		{yamlbound.FlagDepth, f.depth, func(n int64) { l.Depth = int(min(n, 1<<20)) }},
	} {
		switch {
		case v.n < 0:
			return l, fmt.Errorf("--%s=%d: want a positive integer", v.flag, v.n)
		case v.n > 0:
			v.set(v.n)
		}
	}
	return l, nil
}
