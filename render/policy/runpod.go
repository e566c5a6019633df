package policy

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// The API the rules of other packages (render/policy/dagster) read the
// render and judge pod specs through: the pods Dagster launches from a
// code server (run pods, described by its container context) are held to
// what a pod spec of the render is held to, with the Kubernetes rules'
// own checks.

// Declaration is the code-location's declaration.
func (in *Context) Declaration() *validate.Declaration { return in.d }

// Contract is the cluster contract the code-location renders against.
func (in *Context) Contract() *validate.Contract { return in.c }

// Problem is a problem of object o at field, placed in o's own file.
func (in *Context) Problem(o *yaml.RNode, code, field, msg, hint string) problem.Problem {
	return in.problem(o, code, field, msg, hint)
}

// Fault is one problem of a pod spec, or of what a Dagster container
// context hands its run pods, at a field path: a rule places it in its
// object (Context.Problem).
type Fault struct {
	Code, Path, Msg, Hint string
}

// Pod is a workload's pod spec, decoded, and its field path.
type Pod struct {
	Object *yaml.RNode
	Spec   *corev1.PodSpec
	Path   string
}

// Pods are the pod specs of the objects the rules look at (not those the
// scope rule refuses), decoded once per render.
func (in *Context) Pods(objs []*yaml.RNode) []Pod {
	var out []Pod
	for _, w := range in.decodedPods(objs) {
		out = append(out, Pod{w.o, w.spec, w.path})
	}
	return out
}

// HandledByPolicy reports whether the scope rule refuses o by its kind or
// scope already: the other rules leave such objects alone, so that one
// object gets one problem.
func HandledByPolicy(o *yaml.RNode) bool { return handledByPolicy(o) }

// DecodeObject decodes o into the API type v as the API server would;
// false when it does not decode (the well-formed rule says why).
func DecodeObject(o *yaml.RNode, v any) bool { return decodeObject(o, v) }

// PodTemplatePath is the path of a workload's pod template.
func PodTemplatePath(kind string) []string { return podTemplatePath(kind) }

// OneLine bounds a value shown in a message to one short line.
func OneLine(s string) string { return oneLine(s) }

// oneLine bounds a value shown in a message to one short line.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + "..."
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// PodReach returns the faults of what one pod spec at path reaches beyond
// the code-location's objects: volumes, devices, cluster-level objects.
func (in *Context) PodReach(spec *corev1.PodSpec, path string) []Fault {
	return in.podReach(spec, path)
}

// VolumeFaults returns the faults of volumes (at path) whose type the
// contract's policy does not allow.
func (in *Context) VolumeFaults(volumes []corev1.Volume, path string) []Fault {
	return in.volumeFaults(volumes, path)
}

// ResourceFaults returns the faults of the resources r (at path) of a
// container (who) that the contract's policy does not allow.
func (in *Context) ResourceFaults(who string, r corev1.ResourceRequirements, path string) []Fault {
	return in.resourceFaults(who, r, path)
}

// SchedulerFaults returns the fault of a scheduler (at field) other than
// the cluster's default.
func SchedulerFaults(name, field string) []Fault { return schedulerFaults(name, field) }

// DeniedAnnotation is the fault of an annotation key (at field) the
// contract denies, nil when it is allowed.
func (in *Context) DeniedAnnotation(key, field string) *Fault {
	return in.deniedAnnotation(key, field)
}

// ImageFault is the code, message and hint of an image the contract
// refuses (its registry, its revision, its pinning); code is "" when the
// image is allowed.
func (in *Context) ImageFault(image string) (code, msg, hint string) { return in.imageFault(image) }

// PodSecurityViolation is one check of the Pod Security Standards a pod
// fails, and its fix.
type PodSecurityViolation struct {
	Reason, Detail, Hint string
}

// PodSecurity evaluates a pod (no metadata) at the contract's Pod Security
// level: the level's name and the checks the pod fails.
func (in *Context) PodSecurity(pod *corev1.PodSpec) (level string, violations []PodSecurityViolation) {
	lv := psaapi.LevelVersion{Level: psaapi.Level(in.c.Policy.PodSecurity), Version: psaapi.LatestVersion()}
	for _, r := range podSecurityEvaluator().EvaluatePod(lv, &metav1.ObjectMeta{}, pod) {
		if !r.Allowed {
			violations = append(violations, PodSecurityViolation{r.ForbiddenReason, r.ForbiddenDetail, in.podSecurityHint(r.ForbiddenReason)})
		}
	}
	return lv.String(), violations
}

// BudgetedResources are the resources the declaration's resources bound.
func BudgetedResources() []corev1.ResourceName { return budgetedResources }

// DeclaredAmount is the declaration's amount of r.
func (in *Context) DeclaredAmount(r corev1.ResourceName) resource.Quantity {
	return in.declaredAmount(r)
}

// OrDeclare ends a hint: it offers to declare need of r, if the contract's
// budget allows a code-location that much; else it says the most the
// budget allows.
func (in *Context) OrDeclare(r corev1.ResourceName, need resource.Quantity) string {
	return in.orDeclare(r, need)
}

// SecretKey is a key a pod reads from a Secret.
type SecretKey struct{ Secret, Key string }

// Consumption gathers what pod specs (or what a container context hands
// its run pods) read by name, and the secret keys they read, as the
// consumption rule does.
type Consumption struct{ c collector }

// Ref adds a reference to an object of kind (KindSecret...).
func (c *Consumption) Ref(kind, name, field string) { c.c.ref(kind, name, field) }

// Env adds what a container's env and envFrom, at path, read.
func (c *Consumption) Env(env []corev1.EnvVar, envFrom []corev1.EnvFromSource, path string) {
	c.c.env(env, envFrom, path)
}

// Volume adds what a volume source at path reads.
func (c *Consumption) Volume(v corev1.VolumeSource, path string) { c.c.volume(v, path) }

// Pod adds what a pod spec at path reads.
func (c *Consumption) Pod(spec *corev1.PodSpec, path string) { c.c.pod(spec, path) }

// Names are the names of every object read.
func (c *Consumption) Names() []string {
	out := make([]string, 0, len(c.c.refs))
	for _, r := range c.c.refs {
		out = append(out, r.name)
	}
	return out
}

// SecretKeys are the secret keys read (optional references left out).
func (c *Consumption) SecretKeys() []SecretKey {
	out := make([]SecretKey, len(c.c.keys))
	for i, k := range c.c.keys {
		out[i] = SecretKey{k.secret, k.key}
	}
	return out
}

// Binding is what the pods of one render may consume by name.
type Binding struct{ b *binding }

// Binding is what the pods of the render of objs may consume.
func (in *Context) Binding(objs []*yaml.RNode) *Binding { return &Binding{in.newBinding(objs)} }

// Faults are the faults of what c read as run pods read it: the
// references the binding refuses, an unnamed one (but an account's) among
// them, and each generic ephemeral volume.
func (b *Binding) Faults(c *Consumption) []Fault {
	var faults []Fault
	for _, r := range c.c.refs {
		rule := referenceRules[r.kind]
		msg, hint := rule.reason(b.b, r.name)
		if r.name == "" && r.kind != KindServiceAccount {
			msg, hint = fmt.Sprintf("the reference names no %s", r.kind), "set the name"
		} else if msg != "" && r.optional {
			hint = b.b.optionalHint(r)
		}
		if msg != "" {
			faults = append(faults, Fault{rule.code, r.field, msg, hint})
		}
	}
	for _, field := range c.c.ephemeral {
		faults = append(faults, Fault{CodeBlockStorage, field, "a generic ephemeral volume gives each run pod its own PersistentVolumeClaim: block storage the declaration does not name", "use an emptyDir (with a sizeLimit), or declare resources.disk and mount the code-location's claim"})
	}
	return faults
}

// PodSpecRequests is what the scheduler reserves of r for a pod of spec
// (schedulerRequest, withPodLevel), after the API server's defaulting of a
// request to its limit.
func PodSpecRequests(spec *corev1.PodSpec, r corev1.ResourceName) resource.Quantity {
	amount := func(c *corev1.Container) resource.Quantity {
		if q, ok := c.Resources.Requests[r]; ok {
			return q.DeepCopy()
		}
		return c.Resources.Limits[r].DeepCopy()
	}
	set := false
	sets := func(c *corev1.Container) bool {
		_, req := c.Resources.Requests[r]
		_, lim := c.Resources.Limits[r]
		return req || lim
	}
	containers := make([]resource.Quantity, len(spec.Containers))
	for i := range spec.Containers {
		containers[i] = amount(&spec.Containers[i])
		set = set || sets(&spec.Containers[i])
	}
	inits := make([]initRequest, len(spec.InitContainers))
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		inits[i] = initRequest{amount(c), c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways}
		set = set || sets(c)
	}
	var request, limit *resource.Quantity
	if spec.Resources != nil {
		if q, ok := spec.Resources.Requests[r]; ok {
			request = &q
		}
		if q, ok := spec.Resources.Limits[r]; ok {
			limit = &q
		}
	}
	return withPodLevel(schedulerRequest(containers, inits), set, request, limit)
}
