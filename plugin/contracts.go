package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// Contracts finds cluster contracts at a mounted location and keeps each
// parsed contract until its file changes.
//
// The location is a file (one contract, named after the file without its
// extension) or a folder of <name>.yaml files, such as a ConfigMap mounted
// as a volume. A folder with one contract needs no parameter; with several,
// the Application picks one with the contract parameter.
//
// Each Load checks the file cheaply (its path after symbolic links, size
// and modification time): a ConfigMap update swaps the volume's ..data link,
// which changes the real path, so the new contract is read on the next
// request without a restart. A Contracts is safe for concurrent use.
type Contracts struct {
	// OnLoad, when set before first use, is called each time a contract
	// file is read (the first time and after each change).
	OnLoad func(file string, problems problem.Problems)

	path  string
	mu    sync.Mutex
	cache map[string]*cachedContract // by contract file
}

type cachedContract struct {
	stamp    fileStamp
	contract *validate.Contract
	problems problem.Problems
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	real  string
	size  int64
	mtime int64
}

// NewContracts returns the contracts found at path ("" = none configured:
// every Load then fails with contract-not-configured).
func NewContracts(path string) *Contracts {
	return &Contracts{path: path, cache: map[string]*cachedContract{}}
}

// Path is the configured contract file or folder.
func (c *Contracts) Path() string { return c.path }

// Load returns the contract the contract parameter names ("" = the only
// one mounted), read again only when its file changed.
func (c *Contracts) Load(name string) (*validate.Contract, problem.Problems) {
	file, problems := c.Resolve(name)
	if len(problems) > 0 {
		return nil, problems
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	before, err := stampOf(file)
	if err != nil {
		return nil, problem.Problems{c.notFound(fmt.Sprintf("contract %s cannot be read: %v", file, err))}
	}
	if e := c.cache[file]; e != nil && e.stamp == before {
		return e.contract, e.problems
	}
	contract, problems := validate.LoadContract(file)
	if c.OnLoad != nil {
		c.OnLoad(file, problems)
	}
	// Cache only if the file did not change while it was read.
	if after, err := stampOf(file); err == nil && after == before {
		c.cache[file] = &cachedContract{stamp: before, contract: contract, problems: problems}
	}
	return contract, problems
}

// Names lists the names of the mounted contracts, sorted.
func (c *Contracts) Names() ([]string, error) {
	files, err := c.files()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// Resolve returns the file of the contract the parameter names.
func (c *Contracts) Resolve(name string) (string, problem.Problems) {
	if c.path == "" {
		return "", problem.Problems{{
			Code: CodeContractNotConfigured, Path: ParamContract,
			Message: "no cluster contract is configured; the plugin never falls back to the example contract",
			Hint:    "mount the contract ConfigMap and pass --contract FILE|DIR or set " + EnvContract,
		}}
	}
	files, err := c.files()
	if err != nil {
		return "", problem.Problems{c.notFound(err.Error())}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	switch {
	case name != "":
		if f, ok := files[name]; ok {
			return f, nil
		}
		p := c.notFound(fmt.Sprintf("contract %q is not mounted (mounted: %s)", name, orNone(names)))
		p.Path, p.Hint = parameterPath+"."+ParamContract, "set the parameter to one of the mounted contracts, or mount it"
		return "", problem.Problems{p}
	case len(names) == 1:
		return files[names[0]], nil
	case len(names) == 0:
		return "", problem.Problems{c.notFound(fmt.Sprintf("no contract (<name>.yaml) in %s", c.path))}
	}
	return "", problem.Problems{{
		Code: CodeContractAmbiguous, File: c.path, Path: parameterPath + "." + ParamContract,
		Message: fmt.Sprintf("%d contracts are mounted (%s) and the Application names none", len(names), strings.Join(names, ", ")),
		Hint:    "set the plugin parameter contract to one of them",
	}}
}

func (c *Contracts) notFound(msg string) problem.Problem {
	return problem.Problem{Code: CodeContractNotFound, File: c.path, Message: msg, Hint: "mount the cluster contract (a ConfigMap) where --contract or " + EnvContract + " points"}
}

// contractName is what a contract parameter and a contract file name may
// be (at most 253 characters, checked apart: a bounded repetition in the
// pattern costs a large automaton at every process start).
var contractName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?$`) })

func isContractName(s string) bool { return len(s) <= 253 && contractName().MatchString(s) }

// files maps each mounted contract name to its file.
func (c *Contracts) files() (map[string]string, error) {
	fi, err := os.Stat(c.path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s does not exist", c.path)
		}
		return nil, err
	}
	if !fi.IsDir() {
		return map[string]string{stem(c.path): c.path}, nil
	}
	entries, err := os.ReadDir(c.path)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") || !isContractName(stem(n)) {
			continue // ConfigMap volumes hold ..data and ..<timestamp> entries
		}
		f := filepath.Join(c.path, n)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			files[stem(n)] = f
		}
	}
	return files, nil
}

func stem(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func stampOf(file string) (fileStamp, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return fileStamp{}, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{real: real, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
