package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// ownerLabels say which code-location a pod belongs to: codeloc's, which
// Apply sets on every pod the render ships, and Dagster's.
var ownerLabels = []string{names.LabelCodeLocation, names.LabelDagsterCodeLocation}

// podSelector is where a kind selects pods: a label selector, or a plain
// map of labels (plain). Apply scopes a scoped selector to the
// code-location's pods; the workloads' selectors are immutable in the API
// and left as written.
type podSelector struct {
	path   []string
	plain  bool
	scoped bool
}

var (
	gkService       = validate.GroupKind{Kind: "Service"}
	gkNetworkPolicy = validate.GroupKind{Group: networkingv1.GroupName, Kind: "NetworkPolicy"}
	gkPDB           = validate.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	gkIngress       = validate.GroupKind{Group: networkingv1.GroupName, Kind: "Ingress"}
)

// podSelectors are the pod selectors of the kinds Kubernetes ships.
var podSelectors = map[validate.GroupKind]podSelector{
	gkService:                            {path: []string{"spec", "selector"}, plain: true, scoped: true},
	gkNetworkPolicy:                      {path: []string{"spec", "podSelector"}, scoped: true},
	gkPDB:                                {path: []string{"spec", "selector"}, scoped: true},
	{Kind: "ReplicationController"}:      {path: []string{"spec", "selector"}, plain: true},
	{Group: "apps", Kind: "Deployment"}:  {path: []string{"spec", "selector"}},
	{Group: "apps", Kind: "StatefulSet"}: {path: []string{"spec", "selector"}},
	{Group: "apps", Kind: "ReplicaSet"}:  {path: []string{"spec", "selector"}},
	{Group: "apps", Kind: "DaemonSet"}:   {path: []string{"spec", "selector"}},
	{Group: "batch", Kind: "Job"}:        {path: []string{"spec", "selector"}},
	{Group: "batch", Kind: "CronJob"}:    {path: []string{"spec", "jobTemplate", "spec", "selector"}},
}

// scaleTargets are where an autoscaler names the object it scales, and
// what an unset apiVersion or kind means.
var scaleTargets = map[validate.GroupKind]struct {
	path                    []string
	defaultAPIVersion, kind string
}{
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:      {path: []string{"spec", "scaleTargetRef"}},
	{Group: "keda.sh", Kind: "ScaledObject"}:                     {path: []string{"spec", "scaleTargetRef"}, defaultAPIVersion: "apps/v1", kind: "Deployment"},
	{Group: "autoscaling.k8s.io", Kind: "VerticalPodAutoscaler"}: {path: []string{"spec", "targetRef"}},
}

// gatewayRoutes are the Gateway API routes, which name Services (or other
// backends) in backendRefs.
var gatewayRoutes = []string{"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"}

const gatewayGroup = "gateway.networking.k8s.io"

// objectKey is an object of the render by group, kind and name.
type objectKey struct {
	gk   validate.GroupKind
	name string
}

// scopingRule keeps what a code-location's objects select and target among
// its own objects, in the namespace all code-locations share: no pod
// selector on another code-location's label (Apply adds the
// code-location's own to the selectors of Services, NetworkPolicies and
// PodDisruptionBudgets), no autoscaler scaling and no Ingress or route
// publishing an object the render does not ship, no Service external IP
// outside the contract's policy.externalIPs.
type scopingRule struct{}

// Codes of scopingRule: stable, contracts, fixtures and scripts name them.
const (
	CodeScopeSelector = "scope-selector"
	CodeScopeTarget   = "scope-target"
	CodeScopePodLabel = "scope-pod-label"
	CodeExternalIP    = "policy-external-ip"
)

// Codes are the codes scopingRule emits.
func (scopingRule) Codes() []Code {
	return []Code{
		{CodeScopeSelector, "A pod selector selects on the code-location label (codeloc.dev/code-location, dagster/code-location) with another code-location's value, or with NotIn, DoesNotExist or In another value: it would reach other code-locations' pods."},
		{CodeScopeTarget, "An autoscaler scales, or an Ingress or route publishes, an object the render does not ship: another code-location's or the platform's."},
		{CodeScopePodLabel, "A pod template labels its pods with another code-location's name (codeloc.dev/code-location, dagster/code-location): the admission policy denies them, and that code-location's selectors would take them in."},
		{CodeExternalIP, "A Service's spec.externalIPs holds an address outside the contract's policy.externalIPs: every node takes the traffic to it, for the whole cluster."},
	}
}

func (scopingRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	shipped := map[objectKey]bool{}
	for _, o := range objs {
		shipped[objectKey{objectGroupKind(o), o.GetName()}] = true
	}
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		gk := objectGroupKind(o)
		if s, ok := podSelectors[gk]; ok {
			ps = append(ps, in.checkPodSelector(o, s)...)
		}
		ps = append(ps, in.checkPodLabel(o)...)
		if t, ok := scaleTargets[gk]; ok {
			ps = append(ps, in.checkScaleTarget(o, t.path, t.defaultAPIVersion, t.kind, shipped)...)
		}
		switch {
		case gk == gkService:
			ps = append(ps, in.checkExternalIPs(o)...)
		case gk == gkIngress:
			ps = append(ps, in.checkIngressBackends(o, shipped)...)
		case gk.Group == gatewayGroup && slices.Contains(gatewayRoutes, gk.Kind):
			ps = append(ps, in.checkRouteBackends(o, shipped)...)
		}
	}
	return ps
}

// checkPodLabel refuses a pod (or pod template) labelled as another
// code-location's by Dagster's label: the admission policy judges such a
// pod against both declarations and denies it (its two labels name two
// code-locations), and the other code-location's selectors on that label
// would take it in.
func (in *Context) checkPodLabel(o *yaml.RNode) problem.Problems {
	path := []string{"metadata", "labels"}
	if o.GetKind() != "Pod" {
		if spec, _ := podSpec(o); spec == nil {
			return nil
		}
		path = append(podTemplatePath(o.GetKind()), path...)
	}
	n, err := o.Pipe(yaml.Lookup(append(path, names.LabelDagsterCodeLocation)...))
	if err != nil || n == nil || yaml.GetValue(n) == in.d.CodeLocation {
		return nil
	}
	field := strings.Join(path, ".") + "." + names.LabelDagsterCodeLocation
	return problem.Problems{in.problem(o, CodeScopePodLabel, field,
		fmt.Sprintf("labels its pods as code-location %q's run pods (%s): the admission policy denies a pod whose code-location labels disagree, and %s's selectors would take it in", yaml.GetValue(n), names.LabelDagsterCodeLocation, yaml.GetValue(n)),
		fmt.Sprintf("remove the label, or set it to %s", in.d.CodeLocation))}
}

// checkPodSelector refuses a selector on an owner label with another
// code-location's value, or an expression on it that reaches beyond the
// code-location's pods (NotIn, DoesNotExist, In another value).
func (in *Context) checkPodSelector(o *yaml.RNode, s podSelector) problem.Problems {
	n, err := o.Pipe(yaml.Lookup(s.path...))
	if err != nil || n == nil {
		return nil
	}
	field := strings.Join(s.path, ".")
	var sel metav1.LabelSelector
	if s.plain {
		if !decodeObject(n, &sel.MatchLabels) {
			return nil
		}
	} else if !decodeObject(n, &sel) {
		return nil
	}
	hint := fmt.Sprintf("remove it: codeloc adds %s=%s to this selector, so that it selects the code-location's own pods only", names.LabelCodeLocation, in.d.CodeLocation)
	if !s.scoped {
		hint = fmt.Sprintf("select the workload's own pods by their own labels: codeloc labels its pod template %s=%s", names.LabelCodeLocation, in.d.CodeLocation)
	}
	labelsAt := field + ".matchLabels."
	if s.plain {
		labelsAt = field + "."
	}
	var ps problem.Problems
	for _, k := range ownerLabels {
		if v, ok := sel.MatchLabels[k]; ok && v != in.d.CodeLocation {
			ps = append(ps, in.problem(o, CodeScopeSelector, labelsAt+k,
				fmt.Sprintf("selects the pods labelled %s=%s: they are not code-location %s's", k, v, in.d.CodeLocation), hint))
		}
	}
	for i, e := range sel.MatchExpressions {
		if slices.Contains(ownerLabels, e.Key) && !in.ownExpression(e) {
			ps = append(ps, in.problem(o, CodeScopeSelector, fmt.Sprintf("%s.matchExpressions[%d]", field, i),
				fmt.Sprintf("selects the pods whose %s %s: other code-locations' pods", e.Key, requirement(e)), hint))
		}
	}
	return ps
}

// requirement words what an expression requires of its label's value.
func requirement(e metav1.LabelSelectorRequirement) string {
	values := "[" + strings.Join(e.Values, ", ") + "]"
	switch e.Operator {
	case metav1.LabelSelectorOpIn:
		return "is in " + values
	case metav1.LabelSelectorOpNotIn:
		return "is not in " + values
	case metav1.LabelSelectorOpDoesNotExist:
		return "is unset"
	}
	return fmt.Sprintf("matches %s %s", e.Operator, values)
}

// ownExpression reports whether an expression on an owner label keeps to
// the code-location's pods: Exists, or In its own name only.
func (in *Context) ownExpression(e metav1.LabelSelectorRequirement) bool {
	switch e.Operator {
	case metav1.LabelSelectorOpExists:
		return true
	case metav1.LabelSelectorOpIn:
		return len(e.Values) > 0 && !slices.ContainsFunc(e.Values, func(v string) bool { return v != in.d.CodeLocation })
	}
	return false
}

// checkScaleTarget refuses an autoscaler whose target is not an object of
// the render: it would scale another code-location's workload (to zero,
// or past its declared resources).
func (in *Context) checkScaleTarget(o *yaml.RNode, path []string, defaultAPIVersion, defaultKind string, shipped map[objectKey]bool) problem.Problems {
	n, err := o.Pipe(yaml.Lookup(path...))
	if err != nil || n == nil {
		return nil
	}
	var ref autoscalingv2.CrossVersionObjectReference
	if !decodeObject(n, &ref) {
		return nil
	}
	ref.APIVersion = cmp.Or(ref.APIVersion, defaultAPIVersion)
	ref.Kind = cmp.Or(ref.Kind, defaultKind)
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err == nil && shipped[objectKey{validate.GroupKind{Group: gv.Group, Kind: ref.Kind}, ref.Name}] {
		return nil
	}
	return problem.Problems{in.problem(o, CodeScopeTarget, strings.Join(path, "."),
		fmt.Sprintf("scales %s %s (apiVersion %q), which the kustomize root does not ship: another code-location's or the platform's", ref.Kind, ref.Name, ref.APIVersion),
		"target a Deployment or StatefulSet of this kustomize root by its apiVersion (apps/v1), kind and name")}
}

// checkIngressBackends refuses an Ingress backend that is not an object
// of the render: it would publish another code-location's Service.
func (in *Context) checkIngressBackends(o *yaml.RNode, shipped map[objectKey]bool) problem.Problems {
	var ing networkingv1.Ingress
	if !decodeObject(o, &ing) {
		return nil
	}
	var ps problem.Problems
	check := func(field string, b *networkingv1.IngressBackend) {
		if b != nil {
			ps = append(ps, in.checkIngressBackend(o, field, b, shipped)...)
		}
	}
	check("spec.defaultBackend", ing.Spec.DefaultBackend)
	for i, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for j := range r.HTTP.Paths {
			check(fmt.Sprintf("spec.rules[%d].http.paths[%d].backend", i, j), &r.HTTP.Paths[j].Backend)
		}
	}
	return ps
}

func (in *Context) checkIngressBackend(o *yaml.RNode, field string, b *networkingv1.IngressBackend, shipped map[objectKey]bool) problem.Problems {
	const hint = "route to a Service of this kustomize root; another code-location publishes its own Services"
	var ps problem.Problems
	if b.Service != nil && !shipped[objectKey{gkService, b.Service.Name}] {
		ps = append(ps, in.problem(o, CodeScopeTarget, field+".service.name",
			fmt.Sprintf("routes to Service %s, which the kustomize root does not ship: another code-location's or the platform's", b.Service.Name), hint))
	}
	if r := b.Resource; r != nil {
		gk := validate.GroupKind{Kind: r.Kind}
		if r.APIGroup != nil {
			gk.Group = *r.APIGroup
		}
		if !shipped[objectKey{gk, r.Name}] {
			ps = append(ps, in.problem(o, CodeScopeTarget, field+".resource",
				fmt.Sprintf("routes to %s %s (apiGroup %q), which the kustomize root does not ship", r.Kind, r.Name, gk.Group), hint))
		}
	}
	return ps
}

// routeBackend is a Gateway API backendRef (BackendObjectReference).
type routeBackend struct {
	Group     *string       `json:"group"`
	Kind      *string       `json:"kind"`
	Name      string        `json:"name"`
	Namespace *string       `json:"namespace"`
	Filters   []routeFilter `json:"filters"`
}

// routeFilter is a Gateway API filter; requestMirror names a backend.
type routeFilter struct {
	RequestMirror *struct {
		BackendRef routeBackend `json:"backendRef"`
	} `json:"requestMirror"`
}

// route is the part of a Gateway API route that names backends.
type route struct {
	Spec struct {
		Rules []struct {
			BackendRefs []routeBackend `json:"backendRefs"`
			Filters     []routeFilter  `json:"filters"`
		} `json:"rules"`
	} `json:"spec"`
}

// checkRouteBackends refuses a Gateway API route backend (or mirror) that
// is not an object of the render in the code-location's namespace.
// parentRefs name the platform's Gateways: cluster-level, as an Ingress's
// class is.
func (in *Context) checkRouteBackends(o *yaml.RNode, shipped map[objectKey]bool) problem.Problems {
	var r route
	if !decodeObject(o, &r) {
		return nil
	}
	var ps problem.Problems
	var filters func(at string, fs []routeFilter)
	backend := func(at string, b routeBackend) {
		ps = append(ps, in.checkRouteBackend(o, at, b, shipped)...)
		filters(at+".filters", b.Filters)
	}
	filters = func(at string, fs []routeFilter) {
		for i, f := range fs {
			if f.RequestMirror != nil {
				backend(fmt.Sprintf("%s[%d].requestMirror.backendRef", at, i), f.RequestMirror.BackendRef)
			}
		}
	}
	for i, rule := range r.Spec.Rules {
		at := fmt.Sprintf("spec.rules[%d]", i)
		for j, b := range rule.BackendRefs {
			backend(fmt.Sprintf("%s.backendRefs[%d]", at, j), b)
		}
		filters(at+".filters", rule.Filters)
	}
	return ps
}

func (in *Context) checkRouteBackend(o *yaml.RNode, at string, b routeBackend, shipped map[objectKey]bool) problem.Problems {
	const hint = "route to a Service of this kustomize root, in its own namespace; another code-location publishes its own Services"
	if b.Namespace != nil && *b.Namespace != in.c.Namespace {
		return problem.Problems{in.problem(o, CodeScopeTarget, at+".namespace",
			fmt.Sprintf("routes to namespace %s, not the code-location's namespace %s", *b.Namespace, in.c.Namespace), hint)}
	}
	gk := validate.GroupKind{Kind: "Service"}
	if b.Group != nil {
		gk.Group = *b.Group
	}
	if b.Kind != nil {
		gk.Kind = *b.Kind
	}
	if shipped[objectKey{gk, b.Name}] {
		return nil
	}
	return problem.Problems{in.problem(o, CodeScopeTarget, at+".name",
		fmt.Sprintf("routes to %s %s (group %q), which the kustomize root does not ship: another code-location's or the platform's", gk.Kind, b.Name, gk.Group), hint)}
}

// checkExternalIPs refuses a Service external IP outside the contract's
// policy.externalIPs: every node intercepts the traffic to it, for every
// namespace of the cluster.
func (in *Context) checkExternalIPs(o *yaml.RNode) problem.Problems {
	var svc corev1.Service
	if !decodeObject(o, &svc) {
		return nil
	}
	var ps problem.Problems
	for i, ip := range svc.Spec.ExternalIPs {
		if in.c.Policy.AllowsExternalIP(ip) {
			continue
		}
		ps = append(ps, in.problem(o, CodeExternalIP, fmt.Sprintf("spec.externalIPs[%d]", i),
			fmt.Sprintf("external IP %q: every node of the cluster takes the traffic to it, whatever its namespace; the contract's policy.externalIPs allows %s", oneLine(ip), listOrNone(in.c.Policy.ExternalIPs)),
			"remove it and publish the Service through an Ingress, or ask the platform to add a CIDR holding the address to the contract's policy.externalIPs"))
	}
	return ps
}

// scopeSelector adds the code-location's label to the pod selector of a
// Service, NetworkPolicy or PodDisruptionBudget: every pod the render
// ships carries it, so the selector keeps its meaning among them and
// reaches no other code-location's pods. A Service without selector (its
// endpoints are managed by hand) and a PodDisruptionBudget without one
// (it selects no pod) stay without; a NetworkPolicy's missing or empty
// podSelector, which selects every pod of the namespace, becomes the
// code-location's pods.
func (in *Context) scopeSelector(o *yaml.RNode) error {
	gk := objectGroupKind(o)
	s, ok := podSelectors[gk]
	if !ok || !s.scoped {
		return nil
	}
	var labels *yaml.RNode
	var err error
	switch gk {
	case gkNetworkPolicy:
		labels, err = mappingAt(o, append(slices.Clone(s.path), "matchLabels")...)
	default:
		sel, lerr := o.Pipe(yaml.Lookup(s.path...))
		if lerr != nil || sel == nil || sel.YNode().Kind != yaml.MappingNode {
			return lerr
		}
		switch {
		case s.plain && len(sel.Content()) == 0:
			return nil
		case s.plain:
			labels = sel
		case o.GetApiVersion() == "policy/v1beta1" && len(sel.Content()) == 0:
			return nil // policy/v1beta1: an empty selector selects no pod
		default:
			labels, err = mappingAt(sel, "matchLabels")
		}
	}
	if err != nil {
		return err
	}
	return labels.PipeE(yaml.SetField(names.LabelCodeLocation, yaml.NewStringRNode(in.d.CodeLocation)))
}

// mappingAt is the mapping at path under n, made where it is missing or
// null.
func mappingAt(n *yaml.RNode, path ...string) (*yaml.RNode, error) {
	for _, k := range path {
		f := n.Field(k)
		if f == nil || f.Value.YNode().Kind != yaml.MappingNode {
			if err := n.PipeE(yaml.SetField(k, yaml.NewMapRNode(nil))); err != nil {
				return nil, err
			}
			f = n.Field(k)
		}
		n = f.Value
	}
	return n, nil
}
