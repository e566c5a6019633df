package preflight

import (
	"context"
	"fmt"

	"github.com/codeloc/codeloc/validate"
)

// secrets checks that every declared secret exists. It reads metadata only
// (PartialObjectMetadata): the secret's data never leaves the apiserver.
func (ck *checker) secrets(ctx context.Context) result {
	var r result
	ns := ck.con.Namespace
	for i, name := range ck.decl.DependsOn.Secrets {
		path := index("dependsOn.secrets", i)
		_, err := ck.c.getMetadata(ctx, secretsGVR, ns, name)
		switch {
		case err == nil:
			r.pass("secret %s: present", name)
		case objectNotFound(err):
			r.fail(validate.Problem{Code: CodeSecretMissing, Path: path,
				Message: fmt.Sprintf("secret %q does not exist in namespace %q", name, ns),
				Hint:    ck.secretHint(name)})
		default:
			r.fail(apiProblem(path, fmt.Sprintf("get secret %q in namespace %q", name, ns), err))
		}
	}
	return r
}

func (ck *checker) secretHint(name string) string {
	for _, s := range ck.con.Secrets {
		if s.Name == name && s.Description != "" {
			return fmt.Sprintf("the platform provides it (%s): create or re-derive it, then let the sync retry", s.Description)
		}
	}
	return "the platform provides it: create or re-derive it, then let the sync retry"
}
