package render_test

import (
	"encoding/json"
	"testing"
)

// TestGoldenHooksFollowArgoCDAdvice checks the golden outputs' hooks
// against what Argo CD 3.6's sync-waves and resource-hooks guides advise:
// a hook Job carries no ttlSecondsAfterFinished (Argo CD reads the Job to
// learn the phase's outcome; were Kubernetes to delete it first, the sync
// would wait for a hook that is gone), every hook has a delete policy, and
// no PreSync hook reads a Secret the same output renders (PreSync hooks are
// applied before the Sync phase's objects, so such a hook would see the
// old value or none).
func TestGoldenHooksFollowArgoCDAdvice(t *testing.T) {
	eachGolden(t, func(t *testing.T, data []byte) {
		var objs []map[string]any
		rendered := map[string]bool{} // Secrets of the output, by namespace/name
		for _, doc := range argoCDDocuments(t, data) {
			var o map[string]any
			if err := json.Unmarshal(doc, &o); err != nil {
				t.Fatal(err)
			}
			objs = append(objs, o)
			if o["kind"] == "Secret" {
				rendered[str(o, "metadata", "namespace")+"/"+str(o, "metadata", "name")] = true
			}
		}
		hooks := 0
		for _, o := range objs {
			phase := str(o, "metadata", "annotations", "argocd.argoproj.io/hook")
			if phase == "" {
				continue
			}
			hooks++
			id := str(o, "kind") + "/" + str(o, "metadata", "name")
			if str(o, "metadata", "annotations", "argocd.argoproj.io/hook-delete-policy") == "" {
				t.Errorf("hook %s has no argocd.argoproj.io/hook-delete-policy", id)
			}
			if o["kind"] == "Job" {
				if spec, _ := o["spec"].(map[string]any); spec != nil {
					if _, ok := spec["ttlSecondsAfterFinished"]; ok {
						t.Errorf("hook Job %s sets ttlSecondsAfterFinished", id)
					}
				}
			}
			if phase != "PreSync" {
				continue
			}
			for _, name := range secretsRead(o) {
				if rendered[str(o, "metadata", "namespace")+"/"+name] {
					t.Errorf("PreSync hook %s reads Secret %s, which the same output renders", id, name)
				}
			}
		}
		if hooks == 0 {
			t.Log("no hook in this output")
		}
	})
}

// str is the string at a path of nested objects, or "".
func str(o map[string]any, path ...string) string {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// secretsRead lists the Secrets an object's pod spec reads wherever it
// names one: env secretKeyRef, envFrom secretRef, secret volumes and
// projected sources.
func secretsRead(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if m, ok := c.(map[string]any); ok {
					switch k {
					case "secretKeyRef", "secretRef":
						if n, _ := m["name"].(string); n != "" {
							out = append(out, n)
						}
					case "secret":
						if n, _ := m["secretName"].(string); n != "" {
							out = append(out, n)
						} else if n, _ := m["name"].(string); n != "" {
							out = append(out, n)
						}
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}
