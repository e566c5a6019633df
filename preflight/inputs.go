package preflight

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// maxDeclarationBytes bounds the declaration file read here.
const maxDeclarationBytes = names.MaxYAMLBytes

// Load reads dir/code-location.manifest.yaml and the contract at
// contractPath (required). Unlike validate.LoadDeclaration it follows
// symbolic links (a mounted ConfigMap's files are links into ..data) and
// does not read migrations/ (the preflight pod mounts only the declaration
// and the contract). Problems are the decoding problems of either file.
func Load(dir, contractPath string) (*validate.Declaration, *validate.Contract, problem.Problems) {
	if contractPath == "" {
		return nil, nil, problem.Problems{{Code: validate.CodeContractUnreadable,
			Message: "no cluster contract given",
			Hint:    "live checks need the cluster's real contract: pass --contract FILE or set CODELOC_CONTRACT"}}
	}
	c, cps := validate.LoadContract(contractPath)
	d, dps := loadDeclaration(dir)
	return d, c, append(dps, cps...)
}

func loadDeclaration(dir string) (*validate.Declaration, problem.Problems) {
	file := filepath.Join(dir, validate.ManifestFile)
	data, err := readFollowing(file)
	if err != nil {
		code, msg := validate.CodeFileUnreadable, err.Error()
		if os.IsNotExist(err) {
			code, msg = validate.CodeFileMissing, "file not found"
		}
		return nil, problem.Problems{{Code: code, File: file, Message: msg,
			Hint: "point --dir at the folder holding " + validate.ManifestFile}}
	}
	return validate.ParseDeclaration(file, data)
}

// readFollowing reads a regular file (following links), bounded in size.
func readFollowing(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDeclarationBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDeclarationBytes {
		return nil, fmt.Errorf("%s is more than %d bytes", path, maxDeclarationBytes)
	}
	return data, nil
}
