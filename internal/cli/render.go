package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/check"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// renderFlags are shared by render and validate.
type renderFlags struct {
	contract      string
	kustomizeRoot string
	bounds        boundFlags
	// read is the contract --contract named, once loaded.
	read *check.Contract
}

func (f *renderFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.contract, "contract", "", "cluster contract file, or - for stdin; either may hold the contract's ConfigMap as kubectl prints it (default: the embedded example contract)")
	cmd.Flags().StringVar(&f.kustomizeRoot, "kustomize-root", "", "kustomize root, relative to DIR (default: DIR)")
	f.bounds.register(cmd)
}

// request loads the contract and builds the render request for dir.
// --contract - reads the contract from stdin; a contract file or stdin may
// also hold the contract's ConfigMap as kubectl prints it.
func (f *renderFlags) request(dir string, stdin io.Reader) (render.Request, error) {
	c, err := f.loadContract(stdin)
	if err != nil {
		return render.Request{}, err
	}
	limits, err := f.bounds.limits()
	if err != nil {
		return render.Request{}, err
	}
	return render.Request{Dir: dir, KustomizeRoot: f.kustomizeRoot, Contract: c, YAMLLimits: limits}, nil
}

// loadContract is --contract's contract (a file or stdin, holding the
// contract or its ConfigMap: check.ReadContract, as codeloc check reads
// it), the embedded example when unset. It keeps what was read for the
// summary render prints.
func (f *renderFlags) loadContract(stdin io.Reader) (*validate.Contract, error) {
	if f.contract == "" {
		c, problems := validate.LoadContract("")
		if len(problems) > 0 {
			return nil, problems.Sorted()
		}
		return c, nil
	}
	c, problems := check.ReadContract(check.ContractSource{Arg: f.contract, Stdin: stdin})
	if len(problems) > 0 {
		return nil, problems
	}
	f.read = c
	return c.Contract, nil
}

// render renders req within the budget the flags set.
func (f *renderFlags) render(req render.Request) (*render.Result, error) {
	budget, err := f.bounds.budget()
	if err != nil {
		return nil, err
	}
	return render.RenderWithin(req, budget, req.Dir)
}

func dirArg(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return args[0]
}

// NewRenderCmd validates a code-location and prints its manifests.
func NewRenderCmd() *cobra.Command {
	var f renderFlags
	cmd := &cobra.Command{
		Use:   "render [DIR]",
		Short: "Validate a code-location and print its final manifests",
		Long: `Render validates DIR/code-location.manifest.yaml against the cluster contract,
builds the kustomize root in-process and prints one YAML stream: the PreSync
preflight and migration Jobs, bucket references, block PVC, wave-ordered app
objects and the record ConfigMap. Exit 1 with one line per problem on stderr
and nothing on stdout when the input is invalid.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := f.request(dirArg(args), cmd.InOrStdin())
			if err != nil {
				return err
			}
			res, err := f.render(req)
			if err != nil {
				return err
			}
			if f.read != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), f.read.Summary())
			}
			printWarnings(cmd.ErrOrStderr(), res.Warnings)
			return res.WriteYAML(cmd.OutOrStdout())
		},
	}
	f.register(cmd)
	return cmd
}
