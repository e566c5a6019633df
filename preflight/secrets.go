package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// secrets checks that every declared secret exists and holds the keys the
// pods read. A secret whose keys matter is read whole, as the Role allows
// (RBAC cannot grant metadata alone), and only its key names are kept:
// values never reach a message or a log. The others are read as metadata
// only (PartialObjectMetadata): their data never leaves the apiserver.
func (ck *checker) secrets(ctx context.Context) result {
	var r result
	keys, p := loadSecretKeys(ck.decl)
	if p != nil {
		r.fail(*p)
	}
	for i, name := range ck.decl.DependsOn.Secrets {
		path := index("dependsOn.secrets", i)
		if want := keys[name]; len(want) > 0 {
			ck.secretWithKeys(ctx, &r, path, name, want)
			continue
		}
		_, err := ck.c.getMetadata(ctx, secretsGVR, ck.con.Namespace, name)
		if err == nil {
			r.pass("secret %s: present", name)
			continue
		}
		r.fail(ck.secretError(path, name, err))
	}
	return r
}

// secretWithKeys checks that secret name holds every key of want.
func (ck *checker) secretWithKeys(ctx context.Context, r *result, path, name string, want []string) {
	has, err := ck.secretKeyNames(ctx, name)
	if err != nil {
		r.fail(ck.secretError(path, name, err))
		return
	}
	missing := slices.DeleteFunc(slices.Clone(want), func(k string) bool { return has[k] })
	for _, key := range missing {
		r.fail(problem.Problem{Code: CodeSecretKeyMissing, Path: path,
			Message: fmt.Sprintf("secret %q in namespace %q has no key %q, which the pods read: they would not start (CreateContainerConfigError)", name, ck.con.Namespace, key),
			Hint:    ck.secretKeyHint(name, has)})
	}
	if len(missing) == 0 {
		r.pass("secret %s: present, with the keys the pods read (%s)", name, strings.Join(want, ", "))
	}
}

// secretKeyNames reads secret name and returns the names of its data keys
// alone: the object, values included, is dropped here.
func (ck *checker) secretKeyNames(ctx context.Context, name string) (map[string]bool, error) {
	s, err := ck.c.get(ctx, secretsGVR, ck.con.Namespace, name)
	if err != nil {
		return nil, err
	}
	data, _ := s.Object["data"].(map[string]any)
	has := make(map[string]bool, len(data))
	for k := range data {
		has[k] = true
	}
	return has, nil
}

// secretError is the problem of a failed read of secret name.
func (ck *checker) secretError(path, name string, err error) problem.Problem {
	ns := ck.con.Namespace
	if objectNotFound(err) {
		return problem.Problem{Code: CodeSecretMissing, Path: path,
			Message: fmt.Sprintf("secret %q does not exist in namespace %q", name, ns),
			Hint:    ck.secretHint(name)}
	}
	return apiProblem(path, fmt.Sprintf("get secret %q in namespace %q", name, ns), err)
}

func (ck *checker) secretHint(name string) string {
	for _, s := range ck.con.Secrets {
		if s.Name == name && s.Description != "" {
			return fmt.Sprintf("the platform provides it (%s): create or re-derive it, then let the sync retry", s.Description)
		}
	}
	return "the platform provides it: create or re-derive it, then let the sync retry"
}

// secretKeyHint names the keys the secret has (names only, never values).
func (ck *checker) secretKeyHint(name string, has map[string]bool) string {
	keys := "no key"
	if len(has) > 0 {
		keys = "the keys " + strings.Join(slices.Sorted(maps.Keys(has)), ", ")
	}
	return fmt.Sprintf("%s holds %s: have the platform add the key, or read one it holds (secretKeyRef key, volume items), then let the sync retry", name, keys)
}

// loadSecretKeys reads names.SecretKeysFile beside the declaration, if
// any: the render writes it into the preflight's inputs; a render that
// found no keys, an older render and a code-location folder have none, and
// then only the secrets' presence is checked.
func loadSecretKeys(d *validate.Declaration) (map[string][]string, *problem.Problem) {
	if d.File == "" {
		return nil, nil
	}
	file := filepath.Join(filepath.Dir(d.File), names.SecretKeysFile)
	data, err := readFollowing(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		var keys map[string][]string
		if err = json.Unmarshal(data, &keys); err == nil {
			return keys, nil
		}
	}
	return nil, &problem.Problem{Code: validate.CodeFileUnreadable, File: file,
		Message: fmt.Sprintf("the secret keys the pods read cannot be loaded: %v", err),
		Hint:    "render writes this file into the preflight's inputs as a JSON object of key lists; render again with this codeloc version"}
}
