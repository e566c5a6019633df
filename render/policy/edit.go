package policy

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/node"
)

// Apply edits the objects as the cluster deploys them, once Check found
// nothing wrong: the namespace forced, the code-location's labels added
// (on pod templates too, and to the pod selectors of Services,
// NetworkPolicies and PodDisruptionBudgets), each declared bucket's
// references injected into every container.
func Apply(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if err := in.edit(o); err != nil {
			ps = append(ps, in.problem(o, build.CodeKustomizeBuild, "", err.Error(), "check the object's structure"))
		}
	}
	return ps
}

// edit forces the namespace, adds labels (to selectors too) and bucket
// references.
func (in *Context) edit(o *yaml.RNode) error {
	if err := o.SetNamespace(in.c.Namespace); err != nil {
		return err
	}
	labels := o.GetLabels()
	labels[names.LabelCodeLocation] = in.d.CodeLocation
	labels[names.LabelRevision] = in.d.Revision
	if err := o.SetLabels(labels); err != nil {
		return err
	}
	if err := in.scopeSelector(o); err != nil {
		return err
	}
	spec, _ := podSpec(o)
	if spec == nil {
		return nil
	}
	if o.GetKind() != "Pod" {
		// The template label lets preflight tell this code-location's pods
		// from others; the workload's selector is left alone (it is
		// immutable).
		tmpl, err := o.Pipe(yaml.LookupCreate(yaml.MappingNode, podTemplatePath(o.GetKind())...))
		if err != nil {
			return err
		}
		if err := tmpl.PipeE(yaml.SetLabel(names.LabelCodeLocation, in.d.CodeLocation)); err != nil {
			return err
		}
	}
	return in.addBucketRefs(spec)
}

// addBucketRefs adds, to every container, envFrom the OBC's ConfigMap and
// Secret (both named like the bucket) with a prefix derived from its name.
func (in *Context) addBucketRefs(spec *yaml.RNode) error {
	if len(in.d.DependsOn.Buckets) == 0 {
		return nil
	}
	for _, f := range []string{"initContainers", "containers"} {
		for _, c := range node.Sequence(spec, f) {
			envFrom, err := c.Pipe(yaml.LookupCreate(yaml.SequenceNode, "envFrom"))
			if err != nil {
				return err
			}
			for _, b := range in.d.DependsOn.Buckets {
				for _, ref := range []string{"configMapRef", "secretRef"} {
					n, err := node.FromMap(map[string]any{"prefix": names.BucketEnvPrefix(b.Name), ref: map[string]any{"name": b.Name}})
					if err != nil {
						return err
					}
					if err := envFrom.PipeE(yaml.Append(n.YNode())); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// Conflicts refuses atlas objects named like the ones codeloc emits, or
// may emit, for this code-location with their kind: the objects emitted
// (its record, its preflight objects…), and those another declaration or
// contract would give it (a migration Job without migrations, a migrations
// ConfigMap of another hash, a reload pod without a webserver).
func Conflicts(in *Context, atlas, emitted []*yaml.RNode) problem.Problems {
	ours := map[string]bool{}
	for _, o := range emitted {
		ours[node.Ref(o)] = true
	}
	var ps problem.Problems
	for _, o := range atlas {
		ref := node.Ref(o)
		switch r, _ := names.Reserved(o.GetName()); {
		case ours[ref]:
			ps = append(ps, in.problem(o, CodeNameConflict, "metadata.name", fmt.Sprintf("%s is emitted by codeloc", ref), "rename the object"))
		case in.emittedHere(o):
			ps = append(ps, in.problem(o, CodeNameConflict, "metadata.name", fmt.Sprintf("%s is named like %s, which codeloc emits", ref, r.Why()), "rename the object"))
		}
	}
	return ps
}
