package emit

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/render/apijson"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// admissionParams is the params ConfigMap of the code-location's
// ValidatingAdmissionPolicyBindings (names.AdmissionName): what a pod
// labelled as the code-location's may use, Dagster's run and step pods
// included, which no render shows. It is made of the declaration and of
// the final render: the atlas objects (after the policy's edits) and
// codeloc's own objects, ours, whose pods must pass too.
//
// It is a PreSync hook of the first wave: the preflight pod, the first pod
// of the code-location, is admitted against it, so it must exist before;
// a plain object would be applied only after PreSync, and a first sync
// would never pass it. Argo CD deletes and creates it again at each sync
// (BeforeHookCreation); a pod a controller (Job, ReplicaSet) fails to
// create in that second is created again at its next try.
func (e *emitter) admissionParams(ours []any) (*corev1.ConfigMap, error) {
	atlas, err := atlasPodSpecs(e.atlas)
	if err != nil {
		return nil, err
	}
	own := ownPodSpecs(ours)
	a := admissionSets{
		secrets: map[string]bool{}, claims: map[string]bool{}, images: map[string]bool{},
		// Kubernetes projects the cluster's CA into every pod that mounts
		// a ServiceAccount token, and runs a pod as default unless told.
		configMaps:      map[string]bool{rootCAConfigMap: true},
		serviceAccounts: map[string]bool{"default": true},
	}
	a.declared(e)
	a.launcher(e.c.Dagster.RunLauncher)
	for _, o := range e.atlas {
		if o.GetApiVersion() != "v1" {
			continue
		}
		switch o.GetKind() {
		case "ConfigMap":
			a.configMaps[o.GetName()] = true
		case "ServiceAccount":
			a.serviceAccounts[o.GetName()] = true
		}
	}
	for _, spec := range own {
		a.references(spec) // codeloc's own pods use what they name
	}
	for _, spec := range slices.Concat(atlas, own) {
		for _, c := range containersOf(spec) {
			a.images[c.Image] = true
		}
	}
	cpu, memory := e.d.Resources.CPU.Quantity, e.d.Resources.Memory.Quantity
	for _, spec := range own { // codeloc's hooks request the contract's jobs.cpu and jobs.memory
		cpu = maxRequest(cpu, spec, corev1.ResourceCPU)
		memory = maxRequest(memory, spec, corev1.ResourceMemory)
	}
	data := a.data()
	data[names.AdmissionKeyCodeLocation] = e.d.CodeLocation
	data[names.AdmissionKeyCPU] = cpu.String()
	data[names.AdmissionKeyMemory] = memory.String()
	var tolerations []string
	for _, t := range e.c.Policy.Tolerations {
		tolerations = append(tolerations, t.Key+"|"+t.Value+"|"+t.Effect)
	}
	data[names.AdmissionKeyTolerations] = strings.Join(slices.Sorted(slices.Values(tolerations)), "\n")
	data[names.AdmissionKeyNodeLabels] = strings.Join(slices.Sorted(slices.Values(e.c.Policy.NodeLabels)), "\n")
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: e.meta(names.AdmissionName(e.d.CodeLocation), hook(waveHookInputs)),
		Data:       data,
	}, nil
}

// rootCAConfigMap is the ConfigMap of the cluster's CA that Kubernetes
// publishes in every namespace and projects into the pods that mount a
// ServiceAccount token (kube-api-access-*).
const rootCAConfigMap = "kube-root-ca.crt"

// admissionSets are the names the pods may use, by kind.
type admissionSets struct {
	secrets, configMaps, serviceAccounts, claims, images map[string]bool
}

// declared adds what the declaration names: its secrets, platform
// ConfigMaps and ServiceAccounts, its databases' credentials, its buckets'
// Secret and ConfigMap (named like the bucket), its block claim.
func (a *admissionSets) declared(e *emitter) {
	dep := e.d.DependsOn
	for _, s := range dep.Secrets {
		a.secrets[s] = true
	}
	for _, name := range dep.Database {
		if db, ok := e.c.Database(name); ok && db.CredentialsSecret != "" {
			a.secrets[db.CredentialsSecret] = true
		}
	}
	for _, b := range dep.Buckets {
		a.secrets[b.Name] = true
		a.configMaps[b.Name] = true
	}
	for _, cm := range dep.ConfigMaps {
		a.configMaps[cm] = true
	}
	for _, sa := range dep.ServiceAccounts {
		a.serviceAccounts[sa] = true
	}
	if e.d.Resources.Disk.Set {
		a.claims[names.DataClaimName(e.d.CodeLocation)] = true
	}
}

// launcher adds what the platform's run launcher (the contract's
// dagster.runLauncher) adds to every run pod: its ServiceAccount, Secrets
// and ConfigMaps. The params cannot tell a run pod from another pod of the
// code-location: these become allowed on each of its pods, a code server
// included; they are the platform's objects every code-location's run pods
// carry, which the contract lists.
func (a *admissionSets) launcher(r validate.RunLauncher) {
	if r.ServiceAccountName != "" {
		a.serviceAccounts[r.ServiceAccountName] = true
	}
	for _, s := range r.Secrets() {
		a.secrets[s] = true
	}
	for _, cm := range r.ConfigMaps() {
		a.configMaps[cm] = true
	}
}

// references adds what one of codeloc's own pods names.
func (a *admissionSets) references(spec *corev1.PodSpec) {
	if spec.ServiceAccountName != "" {
		a.serviceAccounts[spec.ServiceAccountName] = true
	}
	for _, c := range containersOf(spec) {
		for _, env := range c.Env {
			if r := env.ValueFrom; r != nil && r.SecretKeyRef != nil {
				a.secrets[r.SecretKeyRef.Name] = true
			}
			if r := env.ValueFrom; r != nil && r.ConfigMapKeyRef != nil {
				a.configMaps[r.ConfigMapKeyRef.Name] = true
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			a.configMaps[v.ConfigMap.Name] = true
		}
		if v.Secret != nil {
			a.secrets[v.Secret.SecretName] = true
		}
	}
}

// data is the sets as ConfigMap data: one key per name, the images one a
// line, sorted. A name too long to make a key (253 characters with its
// prefix) is left out: a pod naming it is refused.
func (a *admissionSets) data() map[string]string {
	data := map[string]string{}
	for prefix, set := range map[string]map[string]bool{
		names.AdmissionPrefixSecret: a.secrets, names.AdmissionPrefixConfigMap: a.configMaps,
		names.AdmissionPrefixServiceAccount: a.serviceAccounts, names.AdmissionPrefixClaim: a.claims,
	} {
		for name := range set {
			if key := prefix + name; name != "" && len(validation.IsConfigMapKey(key)) == 0 {
				data[key] = ""
			}
		}
	}
	images := slices.Sorted(maps.Keys(a.images))
	images = slices.DeleteFunc(images, func(s string) bool { return s == "" || strings.Contains(s, "\n") })
	data[names.AdmissionKeyImages] = strings.Join(images, "\n")
	return data
}

// maxRequest is the larger of q and the largest request of r of the pod's
// containers.
func maxRequest(q resource.Quantity, spec *corev1.PodSpec, r corev1.ResourceName) resource.Quantity {
	for _, c := range containersOf(spec) {
		if req, ok := c.Resources.Requests[r]; ok && req.Cmp(q) > 0 {
			q = req
		}
	}
	return q
}

// containersOf are the pod's containers, init and ephemeral ones included,
// as Containers.
func containersOf(spec *corev1.PodSpec) []corev1.Container {
	out := slices.Concat(spec.InitContainers, spec.Containers)
	for _, c := range spec.EphemeralContainers {
		out = append(out, corev1.Container(c.EphemeralContainerCommon))
	}
	return out
}

// ownPodSpecs are the pod specs of codeloc's own objects.
func ownPodSpecs(ours []any) []*corev1.PodSpec {
	var out []*corev1.PodSpec
	for _, o := range ours {
		switch o := o.(type) {
		case *corev1.Pod:
			out = append(out, &o.Spec)
		case *batchv1.Job:
			out = append(out, &o.Spec.Template.Spec)
		}
	}
	return out
}

// podSpecPaths are where the kinds that make pods hold their pod spec.
var podSpecPaths = map[string][]string{
	"Pod":        {"spec"},
	"Deployment": {"spec", "template", "spec"}, "StatefulSet": {"spec", "template", "spec"},
	"DaemonSet": {"spec", "template", "spec"}, "ReplicaSet": {"spec", "template", "spec"},
	"ReplicationController": {"spec", "template", "spec"}, "Job": {"spec", "template", "spec"},
	"CronJob": {"spec", "jobTemplate", "spec", "template", "spec"},
}

// atlasPodSpecs decodes the pod specs of the atlas objects, which the
// policy has already read as the API types.
func atlasPodSpecs(objs []*yaml.RNode) ([]*corev1.PodSpec, error) {
	var out []*corev1.PodSpec
	for _, o := range objs {
		path := podSpecPaths[o.GetKind()]
		if path == nil {
			continue
		}
		n, err := o.Pipe(yaml.Lookup(path...))
		if err != nil || n == nil {
			continue
		}
		data, err := node.JSON(n.YNode())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", node.Ref(o), err)
		}
		spec := &corev1.PodSpec{}
		if err := apijson.Decode(data, spec); err != nil {
			return nil, fmt.Errorf("%s: %w", node.Ref(o), err)
		}
		out = append(out, spec)
	}
	return out, nil
}
