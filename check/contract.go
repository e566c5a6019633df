package check

import (
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
	data, origin, p := fromConfigMap(data, origin, src.Key)
	if p != nil {
		return nil, problem.Problems{*p}
	}
	c, problems := validate.ParseContract(displayArg(src.Arg), data)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	sum := sha256.Sum256(data)
	return &Contract{Contract: c, Origin: origin, Bytes: data, SHA256: hex.EncodeToString(sum[:])}, nil
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
// itself when it is not a ConfigMap.
func fromConfigMap(data []byte, origin, key string) ([]byte, string, *problem.Problem) {
	n, err := yaml.Parse(string(data))
	if err != nil || n.GetKind() != "ConfigMap" || n.GetApiVersion() != "v1" {
		return data, origin, nil // a contract, or ParseContract reports what it is
	}
	at := origin + " (ConfigMap " + n.GetNamespace() + "/" + n.GetName() + ")"
	values := n.GetDataMap()
	if key == "" {
		key = pickKey(values)
	}
	v, ok := values[key]
	if !ok || key == "" {
		keys := slices.Sorted(maps.Keys(values))
		return nil, "", &problem.Problem{Code: CodeContractConfigMap, File: at, Path: "data",
			Message: fmt.Sprintf("no contract key %q among the ConfigMap's data keys [%s]", orDefault(key, DefaultContractKey), strings.Join(keys, ", ")),
			Hint:    "name the key with --contract-key, or pass the contract file itself"}
	}
	return []byte(v), fmt.Sprintf("ConfigMap %s/%s key %s", n.GetNamespace(), n.GetName(), key), nil
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
