package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render"
)

// boundFlags set a render's bounds: the YAML files it reads, and how long
// it may take. Unset, they come from the environment (CODELOC_MAX_*), then
// the defaults. The stock cmp-server runs `codeloc generate` with its
// container's environment: that is where a platform sets them for Argo CD.
type boundFlags struct {
	bytes, aliasNodes, depth int64
	seconds                  int64
}

func (f *boundFlags) register(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&f.bytes, yamlbound.FlagBytes, 0,
		fmt.Sprintf("largest YAML file a render reads, in bytes (default $%s, else %d)", yamlbound.EnvBytes, yamlbound.DefaultBytes))
	cmd.Flags().Int64Var(&f.aliasNodes, yamlbound.FlagAliasNodes, 0,
		fmt.Sprintf("most nodes the YAML aliases of one file may add once expanded (default $%s, else %d)", yamlbound.EnvAliasNodes, yamlbound.DefaultAliasNodes))
	cmd.Flags().Int64Var(&f.depth, yamlbound.FlagDepth, 0,
		fmt.Sprintf("deepest nesting of a YAML document, aliases expanded (default $%s, else %d)", yamlbound.EnvDepth, yamlbound.DefaultDepth))
	cmd.Flags().Int64Var(&f.seconds, render.FlagRenderSeconds, 0,
		fmt.Sprintf("longest a render may take, in seconds (default $%s, else %d)", render.EnvRenderSeconds, render.DefaultRenderSeconds))
}

// budget is the flag over the environment over the default.
func (f *boundFlags) budget() (time.Duration, error) {
	n := f.seconds
	if n == 0 {
		n = render.DefaultRenderSeconds
		if v := os.Getenv(render.EnvRenderSeconds); v != "" {
			var err error
			if n, err = strconv.ParseInt(v, 10, 64); err != nil || n <= 0 {
				return 0, fmt.Errorf("%s=%q: want a positive number of seconds", render.EnvRenderSeconds, v)
			}
		}
	}
	if n < 0 {
		return 0, fmt.Errorf("--%s=%d: want a positive number of seconds", render.FlagRenderSeconds, n)
	}
	return time.Duration(n) * time.Second, nil
}

// limits are the YAML flags over the environment over the defaults.
func (f *boundFlags) limits() (yamlbound.Limits, error) {
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
