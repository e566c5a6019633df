package validate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Toleration is a taint a code-location's pods may tolerate: its key, and
// optionally the one value and the one effect allowed ("" any).
type Toleration struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect,omitempty"`
}

// taintEffects are the effects a taint has.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// placementFields decodes policy.tolerations and policy.nodeLabels.
func (c *Contract) placementFields(w *walker) []field {
	r := &c.Policy.Reach
	return []field{
		{"tolerations", false, func(n *yaml.Node, path string) {
			w.list(n, path, func(item *yaml.Node, ip string) {
				var t Toleration
				w.mapping(item, ip, []field{
					{"key", true, w.str(&t.Key)},
					{"value", false, w.str(&t.Value)},
					{"effect", false, w.str(&t.Effect)},
				})
				r.Tolerations = append(r.Tolerations, t)
			})
		}},
		{"nodeLabels", false, w.strList(&r.NodeLabels)},
	}
}

// placement checks policy.tolerations and policy.nodeLabels.
func (k *contractChecker) placement() {
	r := k.c.Policy.Reach
	for i, t := range r.Tolerations {
		at := index("policy.tolerations", i)
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			k.invalid(at+".key", fmt.Sprintf("%q is not a taint key: %s", t.Key, strings.Join(errs, "; ")), "write the key of a taint the platform puts on the nodes code-locations may use, e.g. dedicated")
		}
		if t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0 {
			k.invalid(at+".value", fmt.Sprintf("%q is not a taint value", t.Value), "write the taint's value, or leave it out to allow any")
		}
		if t.Effect != "" && !slices.Contains(taintEffects, t.Effect) {
			k.invalid(at+".effect", fmt.Sprintf("%q is not a taint effect", t.Effect), "use "+strings.Join(taintEffects, ", ")+", or leave it out to allow any")
		}
	}
	for i, l := range r.NodeLabels {
		key, value, hasValue := strings.Cut(l, "=")
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			k.invalid(index("policy.nodeLabels", i), fmt.Sprintf("%q is not a node label key: %s", key, strings.Join(errs, "; ")), "write key or key=value, e.g. topology.kubernetes.io/zone or dedicated=data")
		} else if hasValue && len(validation.IsValidLabelValue(value)) > 0 {
			k.invalid(index("policy.nodeLabels", i), fmt.Sprintf("%q is not a label value", value), "write key or key=value")
		}
	}
}
