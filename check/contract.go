package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// DefaultContractKey is the key of the contract ConfigMap the sidecar
// mounts (sidecar/install: ConfigMap codeloc-contract, mounted at
// /etc/codeloc/contract/contract.yaml).
const DefaultContractKey = "contract.yaml"

// MaxContractInput bounds what --contract reads (a file, stdin or a
// ConfigMap as kubectl prints it, managedFields included): the contract
// itself is then bounded by validate.MaxFileBytes.
const MaxContractInput = 4 * names.MaxYAMLBytes

// Stdin is the --contract value that reads the contract from stdin.
const Stdin = "-"

// Contract is the cluster contract a check runs against, with where it
// came from and the checksum of its bytes.
type Contract struct {
	*validate.Contract
	// Origin says where the contract was read: a file, stdin, or a
	// ConfigMap's key.
	Origin string
	// Bytes are the contract document itself (a ConfigMap's value, not the
	// ConfigMap).
	Bytes []byte
	// SHA256 is the hex sha256 of Bytes: the same for the file the
	// platform keeps in cluster/apps and the ConfigMap the cluster serves
	// when they hold the same contract.
	SHA256 string
}

// Summary is the contract on one line: origin, versions and checksum.
func (c *Contract) Summary() string {
	return fmt.Sprintf("contract %s: contractVersions %s, sha256 %s", c.Origin, joinInts(c.ContractVersions), c.SHA256)
}

// ContractSource says where to read the contract.
type ContractSource struct {
	// Arg is --contract: a file, or "-" for stdin. Either may hold the
	// contract itself or a ConfigMap manifest carrying it.
	Arg string
	// Key is the ConfigMap key ("" = contract.yaml, else the only *.yaml
	// key).
	Key string
	// Stdin is read when Arg is "-".
	Stdin io.Reader
	// Repo, when set, is the atlas repo being checked: a contract file
	// inside it is refused.
	Repo string
}

// ReadContract reads and parses the contract src names. Problems are
// returned as problem.Problems; the contract is nil with them.
func ReadContract(src ContractSource) (*Contract, problem.Problems) {
	origin := "file " + src.Arg
	var data []byte
	var err error
	switch src.Arg {
	case "":
		return nil, problem.Problems{{Code: validate.CodeContractUnreadable, Path: "--contract",
			Message: "no cluster contract given", Hint: "pass --contract FILE, or --contract - with the contract or its ConfigMap on stdin (kubectl get configmap " + names.InstallContractName + " -o yaml)"}}
	case Stdin:
		origin = "stdin"
		data, err = readBounded(src.Stdin)
	default:
		if p := insideRepo(src.Arg, src.Repo); p != nil {
			return nil, problem.Problems{*p}
		}
		data, err = readFile(src.Arg)
	}
	if err != nil {
		return nil, problem.Problems{{Code: validate.CodeContractUnreadable, File: displayArg(src.Arg), Message: err.Error(),
			Hint: "give the contract the cluster serves: the cluster/apps checkout's file, or the live ConfigMap on stdin"}}
	}
	c, data, origin, problems := parseContractOrConfigMap(displayArg(src.Arg), data, origin, src.Key)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	sum := sha256.Sum256(data)
	return &Contract{Contract: c, Origin: origin, Bytes: data, SHA256: hex.EncodeToString(sum[:])}, nil
}

// parseContractOrConfigMap parses data as the contract, or as the ConfigMap
// manifest that carries it (then data and origin become the key's). A
// document is never both: a contract's kind is ClusterContract and it has
// no data field, so the contract's strict parse refuses a ConfigMap. The
// order therefore changes only the cost. A ConfigMap as kubectl prints it
// (a top-level "kind: ConfigMap" line) is unwrapped first; anything else
// is parsed as the contract first, so a contract file is parsed once, and
// only a document the contract's parse refuses is tried as a ConfigMap
// (one spelled another way, in flow style or with escapes, still is).
func parseContractOrConfigMap(file string, data []byte, origin, key string) (*validate.Contract, []byte, string, problem.Problems) {
	var problems problem.Problems
	if !printedConfigMap(data) {
		var c *validate.Contract
		if c, problems = validate.ParseContract(file, data); len(problems) == 0 {
			return c, data, origin, nil
		}
	}
	inner, at, isConfigMap, p := fromConfigMap(data, origin, key)
	switch {
	case p != nil:
		return nil, nil, "", problem.Problems{*p}
	case !isConfigMap && problems != nil:
		return nil, nil, "", problems // already parsed as the contract
	}
	c, problems := validate.ParseContract(file, inner)
	return c, inner, at, problems
}

// printedConfigMap reports whether data has a "kind: ConfigMap" line at
// the top level, as kubectl prints a ConfigMap. It only orders the parses.
func printedConfigMap(data []byte) bool {
	const line = "kind: ConfigMap"
	for rest := data; len(rest) > 0; {
		l, next, _ := bytes.Cut(rest, []byte("\n"))
		if string(bytes.TrimRight(l, " \t\r")) == line {
			return true
		}
		rest = next
	}
	return false
}

func displayArg(arg string) string {
	if arg == Stdin {
		return "<stdin>"
	}
	return arg
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f)
}

func readBounded(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("no standard input")
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxContractInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxContractInput {
		return nil, fmt.Errorf("more than %d bytes", MaxContractInput)
	}
	return data, nil
}

// insideRepo refuses a contract file inside the atlas repo: atlas keeps
// no copy of the contract (ADR 0094, the audit's root cause).
func insideRepo(file, repo string) *problem.Problem {
	if repo == "" {
		return nil
	}
	f, err1 := realAbs(file)
	r, err2 := realAbs(repo)
	if err1 != nil || err2 != nil {
		return nil // unreadable: reported when read
	}
	rel, err := filepath.Rel(r, f)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return &problem.Problem{Code: CodeContractInAtlas, File: file, Path: "--contract",
		Message: "no contract file in atlas: the contract is inside the atlas repo being checked, and a copied contract drifts silently (ADR 0094)",
		Hint:    "read the contract the cluster serves: the cluster/apps checkout's file, or `kubectl get configmap " + names.InstallContractName + " -n argocd -o yaml | codeloc check --contract - ...`"}
}

func realAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// fromConfigMap returns the contract a ConfigMap manifest carries, or data
// itself when it is not a ConfigMap (isConfigMap false).
func fromConfigMap(data []byte, origin, key string) (_ []byte, _ string, isConfigMap bool, _ *problem.Problem) {
	n, err := yaml.Parse(string(data))
	// GetKind panics on a node that is not a mapping (a list, a string).
	if err != nil || n.YNode().Kind != yaml.MappingNode || n.GetKind() != "ConfigMap" || n.GetApiVersion() != "v1" {
		return data, origin, false, nil // a contract, or ParseContract reports what it is
	}
	at := origin + " (ConfigMap " + n.GetNamespace() + "/" + n.GetName() + ")"
	values := n.GetDataMap()
	if key == "" {
		key = pickKey(values)
	}
	v, ok := values[key]
	if !ok || key == "" {
		keys := slices.Sorted(maps.Keys(values))
		return nil, "", true, &problem.Problem{Code: CodeContractConfigMap, File: at, Path: "data",
			Message: fmt.Sprintf("no contract key %q among the ConfigMap's data keys [%s]", orDefault(key, DefaultContractKey), strings.Join(keys, ", ")),
			Hint:    "name the key with --contract-key, or pass the contract file itself"}
	}
	return []byte(v), fmt.Sprintf("ConfigMap %s/%s key %s", n.GetNamespace(), n.GetName(), key), true, nil
}

// pickKey is contract.yaml when present, else the only *.yaml key.
func pickKey(values map[string]string) string {
	if _, ok := values[DefaultContractKey]; ok {
		return DefaultContractKey
	}
	var found string
	for k := range values {
		if strings.HasSuffix(k, ".yaml") || strings.HasSuffix(k, ".yml") {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
