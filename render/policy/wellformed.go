package policy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/apijson"
	"github.com/codeloc/codeloc/render/node"
)

// builtinTypes makes an empty object of each kind Kubernetes ships that a
// code-location may plausibly carry, by apiVersion and kind, at the release
// of the k8s.io modules in go.mod. (A table rather than a runtime.Scheme:
// registering whole API groups costs a millisecond at every process start.)
var builtinTypes = map[string]func() any{
	"v1/ConfigMap": func() any { return &corev1.ConfigMap{} },
	// Deprecated since 1.33 but still served: a code-location may carry one.
	"v1/Endpoints": func() any { return &corev1.Endpoints{} }, //nolint:staticcheck // SA1019: read as the API server reads it

	"v1/LimitRange": func() any { return &corev1.LimitRange{} }, "v1/PersistentVolumeClaim": func() any { return &corev1.PersistentVolumeClaim{} },
	"v1/Pod": func() any { return &corev1.Pod{} }, "v1/PodTemplate": func() any { return &corev1.PodTemplate{} },
	"v1/ReplicationController": func() any { return &corev1.ReplicationController{} }, "v1/ResourceQuota": func() any { return &corev1.ResourceQuota{} },
	"v1/Secret": func() any { return &corev1.Secret{} }, "v1/Service": func() any { return &corev1.Service{} },
	"v1/ServiceAccount":  func() any { return &corev1.ServiceAccount{} },
	"apps/v1/Deployment": func() any { return &appsv1.Deployment{} }, "apps/v1/StatefulSet": func() any { return &appsv1.StatefulSet{} },
	"apps/v1/DaemonSet": func() any { return &appsv1.DaemonSet{} }, "apps/v1/ReplicaSet": func() any { return &appsv1.ReplicaSet{} },
	"batch/v1/Job": func() any { return &batchv1.Job{} }, "batch/v1/CronJob": func() any { return &batchv1.CronJob{} },
	"autoscaling/v1/HorizontalPodAutoscaler":   func() any { return &autoscalingv1.HorizontalPodAutoscaler{} },
	"autoscaling/v2/HorizontalPodAutoscaler":   func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"networking.k8s.io/v1/Ingress":             func() any { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/NetworkPolicy":       func() any { return &networkingv1.NetworkPolicy{} },
	"policy/v1/PodDisruptionBudget":            func() any { return &policyv1.PodDisruptionBudget{} },
	"rbac.authorization.k8s.io/v1/Role":        func() any { return &rbacv1.Role{} },
	"rbac.authorization.k8s.io/v1/RoleBinding": func() any { return &rbacv1.RoleBinding{} },
	"discovery.k8s.io/v1/EndpointSlice":        func() any { return &discoveryv1.EndpointSlice{} },
	"scheduling.k8s.io/v1/PriorityClass":       func() any { return &schedulingv1.PriorityClass{} },
	"storage.k8s.io/v1/StorageClass":           func() any { return &storagev1.StorageClass{} },
}

// wellFormedRule decodes every object of a kind Kubernetes ships strictly
// into its API type, as the API server would: an unknown field, a field of
// the wrong type (image: [x]) is a problem at its path, here rather than at
// sync time.
type wellFormedRule struct{}

// Codes of wellFormedRule: stable, contracts, fixtures and scripts name them.
const (
	CodeMalformed = "object-malformed"
)

// Codes are the codes wellFormedRule emits.
func (wellFormedRule) Codes() []Code {
	return []Code{
		{CodeMalformed, "An object of a kind Kubernetes ships does not decode strictly into its API type: an unknown field, or a field of the wrong type."},
	}
}

func (wellFormedRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		ps = append(ps, in.decodeStrict(o)...)
	}
	return ps
}

func (in *Context) decodeStrict(o *yaml.RNode) problem.Problems {
	gvk := schema.FromAPIVersionAndKind(o.GetApiVersion(), o.GetKind())
	newTyped, known := builtinTypes[o.GetApiVersion()+"/"+o.GetKind()]
	if !known {
		return nil // not a kind Kubernetes ships (or not this version)
	}
	typed := newTyped()
	data, err := node.JSON(o.YNode())
	if err != nil {
		return problem.Problems{in.problem(o, CodeMalformed, "", err.Error(), "check the object's YAML")}
	}
	strict, err := apijson.DecodeStrict(data, typed)
	var ps problem.Problems
	if err != nil {
		field, msg := typeError(err)
		if strings.HasPrefix(field, "metadata.") && in.loc.MetadataRefused(o) {
			return nil // the build said it, at the line in the file
		}
		ps = append(ps, in.problem(o, CodeMalformed, field, msg, fmt.Sprintf("write the field as %s %s expects it", gvk.GroupVersion(), gvk.Kind)))
	}
	for _, e := range strict {
		field, msg := strictError(e)
		ps = append(ps, in.problem(o, CodeMalformed, field, msg, fmt.Sprintf("remove it or fix its spelling: %s %s has no such field", gvk.GroupVersion(), gvk.Kind)))
	}
	return ps
}

var (
	// json: cannot unmarshal array into Go struct field Container.spec.template.spec.containers.image of type string
	// json: cannot unmarshal number 1e3 into Go struct field DeploymentSpec.spec.replicas of type int32
	typeErrorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`cannot unmarshal (\w+)( \S+)? into Go struct field \w+\.(\S+) of type (\S+)`)
	})
	// unknown field "spec.template.spec.containers[0].imagee"
	fieldErrorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(unknown|duplicate) field "([^"]+)"`) })
)

// typeError turns a JSON type error into a field path and a message.
func typeError(err error) (string, string) {
	if m := typeErrorRE().FindStringSubmatch(err.Error()); m != nil {
		if m[2] != "" { // the number that does not fit: 1e3 where an integer goes
			return m[3], fmt.Sprintf("%s is the %s%s, not %s", m[3], m[1], m[2], m[4])
		}
		return m[3], fmt.Sprintf("%s is %s %s, not %s", m[3], article(m[1]), m[1], m[4])
	}
	return "", strings.TrimPrefix(err.Error(), "json: ")
}

// strictError turns an unknown or duplicate field error into its path and
// a message.
func strictError(err error) (string, string) {
	if m := fieldErrorRE().FindStringSubmatch(err.Error()); m != nil {
		return m[2], fmt.Sprintf("%s field %s", m[1], m[2])
	}
	return "", err.Error()
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// identityRule refuses two objects with the same group, kind and name:
// kustomize keeps them apart when only one names a namespace, but once
// codeloc forces the namespace one would overwrite the other.
type identityRule struct{}

// Codes of identityRule: stable, contracts, fixtures and scripts name them.
const (
	CodeIdentity = "object-identity"
)

// Codes are the codes identityRule emits.
func (identityRule) Codes() []Code {
	return []Code{
		{CodeIdentity, "Two objects have the same group, kind and name once the namespace is forced: one would overwrite the other."},
	}
}

func (identityRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	first := map[string]*yaml.RNode{}
	var ps problem.Problems
	for _, o := range objs {
		gv, _ := schema.ParseGroupVersion(o.GetApiVersion())
		id := gv.Group + "/" + o.GetKind() + "/" + o.GetName()
		prev, seen := first[id]
		if !seen {
			first[id] = o
			continue
		}
		ps = append(ps, in.problem(o, CodeIdentity, "metadata.name",
			fmt.Sprintf("%s is also defined at %s; in the namespace %s both are one object", node.Ref(o), in.loc.Where(prev), in.c.Namespace),
			"keep one of them or rename one: codeloc puts every object in the contract's namespace"))
	}
	return ps
}
