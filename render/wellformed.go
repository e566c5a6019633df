package render

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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// builtinScheme knows the API types Kubernetes ships, at the release of
// the k8s.io modules in go.mod; it is built on first use, so that commands
// which render nothing do not pay for it.
var builtinScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme,
		discoveryv1.AddToScheme, schedulingv1.AddToScheme, storagev1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // the generated registrations cannot fail
		}
	}
	return s
})

// checkWellFormed decodes every object of a kind Kubernetes ships strictly
// into its API type, as the API server would: an unknown field, a field of
// the wrong type (image: [x]) is a problem at its path, here rather than at
// sync time.
func (in *instance) checkWellFormed(objs []*yaml.RNode) validate.Problems {
	var ps validate.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		ps = append(ps, in.decodeStrict(o)...)
	}
	return ps
}

func (in *instance) decodeStrict(o *yaml.RNode) validate.Problems {
	gvk := schema.FromAPIVersionAndKind(o.GetApiVersion(), o.GetKind())
	typed, err := builtinScheme().New(gvk)
	if err != nil {
		return nil // not a kind Kubernetes ships (or not this version)
	}
	data, err := nodeJSON(o.YNode())
	if err != nil {
		return validate.Problems{in.problem(o, CodeMalformed, "", err.Error(), "check the object's YAML")}
	}
	strict, err := sigsjson.UnmarshalStrict(data, typed, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	var ps validate.Problems
	if err != nil {
		field, msg := typeError(err)
		if strings.HasPrefix(field, "metadata.") && in.badMetadata[objectRef(o)] {
			return nil // the scan of the file said it, at the line
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
	typeErrorRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.(\S+) of type (\S+)`)
	// unknown field "spec.template.spec.containers[0].imagee"
	fieldErrorRE = regexp.MustCompile(`^(unknown|duplicate) field "([^"]+)"`)
)

// typeError turns a JSON type error into a field path and a message.
func typeError(err error) (string, string) {
	if m := typeErrorRE.FindStringSubmatch(err.Error()); m != nil {
		return m[2], fmt.Sprintf("%s is %s %s, not %s", m[2], article(m[1]), m[1], m[3])
	}
	return "", strings.TrimPrefix(err.Error(), "json: ")
}

// strictError turns an unknown or duplicate field error into its path and
// a message.
func strictError(err error) (string, string) {
	if m := fieldErrorRE.FindStringSubmatch(err.Error()); m != nil {
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

// checkIdentities refuses two objects with the same group, kind and name:
// kustomize keeps them apart when only one names a namespace, but once
// codeloc forces the namespace one would overwrite the other.
func (in *instance) checkIdentities(objs []*yaml.RNode) validate.Problems {
	first := map[string]*yaml.RNode{}
	var ps validate.Problems
	for _, o := range objs {
		gv, _ := schema.ParseGroupVersion(o.GetApiVersion())
		id := gv.Group + "/" + o.GetKind() + "/" + o.GetName()
		prev, seen := first[id]
		if !seen {
			first[id] = o
			continue
		}
		other := in.problem(prev, "", "", "", "")
		ps = append(ps, in.problem(o, CodeIdentity, "metadata.name",
			fmt.Sprintf("%s is also defined at %s; in the namespace %s both are one object", objectRef(o), where(other), in.c.Namespace),
			"keep one of them or rename one: codeloc puts every object in the contract's namespace"))
	}
	return ps
}

// where is a problem's position as "file:line".
func where(p validate.Problem) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}
