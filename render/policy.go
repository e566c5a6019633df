package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/validate"
)

// Argo CD annotations codeloc owns.
const (
	AnnoHook         = "argocd.argoproj.io/hook"
	AnnoHookDelete   = "argocd.argoproj.io/hook-delete-policy"
	AnnoSyncWave     = "argocd.argoproj.io/sync-wave"
	AnnoSyncOptions  = "argocd.argoproj.io/sync-options"
	annoHelmHook     = "helm.sh/hook"
	annoHelmHookWave = "helm.sh/hook-weight"
)

var reservedAnnotations = []string{AnnoHook, AnnoHookDelete, AnnoSyncWave, annoHelmHook, annoHelmHookWave}

// forbiddenKinds are provided by the cluster, never by a code-location.
var forbiddenKinds = map[string]string{
	"Secret":            "secrets are provided by the cluster: declare it in dependsOn.secrets",
	"ObjectBucketClaim": "buckets are provisioned by the platform: declare the bucket in dependsOn.buckets and the cluster provides its claim",
	"Application":       "the cluster creates Applications (app-of-apps): remove it",
	"ApplicationSet":    "the cluster creates Applications (app-of-apps): remove it",
	"AppProject":        "Argo CD projects belong to the platform: remove it",
	"ResourceQuota":     "quotas belong to the platform: declare resources in the manifest",
	"LimitRange":        "limit ranges belong to the platform: remove it",
}

// applyPolicy checks each built object and edits it in place: namespace
// forced, labels added, bucket references injected into pod specs.
func (in *instance) applyPolicy(objs []*yaml.RNode) validate.Problems {
	var ps validate.Problems
	for _, o := range objs {
		ps = append(ps, in.policy(o)...)
	}
	return ps
}

func (in *instance) policy(o *yaml.RNode) validate.Problems {
	kind := o.GetKind()
	if hint, bad := forbiddenKinds[kind]; bad {
		return validate.Problems{in.problem(o, CodeForbiddenKind, "", fmt.Sprintf("a code-location may not ship a %s", kind), hint)}
	}
	if openapi.IsCertainlyClusterScoped(yaml.TypeMeta{APIVersion: o.GetApiVersion(), Kind: kind}) {
		return validate.Problems{in.problem(o, CodeClusterScoped, "", fmt.Sprintf("%s is cluster-scoped", kind), "code-locations deploy namespaced objects only; ask the platform for cluster-wide needs")}
	}
	var ps validate.Problems
	if ns := o.GetNamespace(); ns != "" && ns != in.c.Namespace {
		ps = append(ps, in.problem(o, CodeOtherNamespace, "metadata.namespace", fmt.Sprintf("namespace %q is not the code-location's namespace %q", ns, in.c.Namespace), "remove metadata.namespace: codeloc sets it"))
	}
	for _, a := range slices.Sorted(maps.Keys(o.GetAnnotations())) {
		if slices.Contains(reservedAnnotations, a) {
			ps = append(ps, in.problem(o, CodeReservedAnno, "metadata.annotations."+a, fmt.Sprintf("annotation %s is set by the cluster", a), "remove it: codeloc orders hooks and waves itself"))
		}
	}
	spec, _ := podSpec(o)
	if len(ps) > 0 {
		return ps
	}
	if err := in.edit(o, spec); err != nil {
		return validate.Problems{in.problem(o, CodeKustomizeBuild, "", err.Error(), "check the object's structure")}
	}
	return nil
}

// edit forces the namespace, adds labels and bucket references.
func (in *instance) edit(o *yaml.RNode, spec *yaml.RNode) error {
	if err := o.SetNamespace(in.c.Namespace); err != nil {
		return err
	}
	if err := in.label(o); err != nil {
		return err
	}
	if spec == nil {
		return nil
	}
	if o.GetKind() != "Pod" {
		// The template label lets preflight tell this code-location's pods
		// from others; the selector is left alone (it is immutable).
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

func (in *instance) label(o *yaml.RNode) error {
	labels := o.GetLabels()
	labels[names.LabelCodeLocation] = in.d.CodeLocation
	labels[names.LabelRevision] = in.d.Revision
	return o.SetLabels(labels)
}

// podSpec returns the pod spec of a workload and its field path.
func podSpec(o *yaml.RNode) (*yaml.RNode, string) {
	var path []string
	switch o.GetKind() {
	case "Pod":
		path = []string{"spec"}
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
		path = []string{"spec", "template", "spec"}
	case "CronJob":
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	default:
		return nil, ""
	}
	n, err := o.Pipe(yaml.Lookup(path...))
	if err != nil || n == nil {
		return nil, ""
	}
	return n, strings.Join(path, ".")
}

// podTemplatePath is the path of a workload's pod template.
func podTemplatePath(kind string) []string {
	if kind == "CronJob" {
		return []string{"spec", "jobTemplate", "spec", "template"}
	}
	return []string{"spec", "template"}
}

var containerFields = []string{"initContainers", "containers", "ephemeralContainers"}

func containers(spec *yaml.RNode, field string) []*yaml.RNode {
	list := spec.Field(field)
	if list == nil || list.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	items, _ := list.Value.Elements()
	return items
}

// addBucketRefs adds, to every container, envFrom the OBC's ConfigMap and
// Secret (both named like the bucket) with a prefix derived from its name.
func (in *instance) addBucketRefs(spec *yaml.RNode) error {
	if len(in.d.DependsOn.Buckets) == 0 {
		return nil
	}
	for _, f := range []string{"initContainers", "containers"} {
		for _, c := range containers(spec, f) {
			envFrom, err := c.Pipe(yaml.LookupCreate(yaml.SequenceNode, "envFrom"))
			if err != nil {
				return err
			}
			for _, b := range in.d.DependsOn.Buckets {
				for _, ref := range []string{"configMapRef", "secretRef"} {
					n, err := fromMap(map[string]any{"prefix": BucketEnvPrefix(b.Name), ref: map[string]any{"name": b.Name}})
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

// BucketEnvPrefix is the env prefix of a bucket's variables:
// atlas-datalake gives ATLAS_DATALAKE_ (ATLAS_DATALAKE_BUCKET_HOST, ...).
func BucketEnvPrefix(bucket string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(bucket)) + "_"
}

// checkConflicts refuses atlas objects named like the ones codeloc emits.
func (in *instance) checkConflicts(atlas, emitted []*yaml.RNode) validate.Problems {
	ours := map[string]bool{}
	for _, o := range emitted {
		ours[objectRef(o)] = true
	}
	var ps validate.Problems
	for _, o := range atlas {
		if ours[objectRef(o)] {
			ps = append(ps, in.problem(o, CodeNameConflict, "metadata.name", fmt.Sprintf("%s is emitted by codeloc", objectRef(o)), "rename the object"))
		}
	}
	return ps
}
