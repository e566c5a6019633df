package dagster

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
)

// containerContextRule holds the run pods Dagster launches from a code
// server to the declaration, through the container context the code
// server hands them (DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT,
// DAGSTER_CONTAINER_CONTEXT, --container-context): the same rules as a
// pod spec (what they consume, Pod Security, images, requests within the
// declared resources) and the contract's namespace. A context codeloc
// cannot read is refused: what it hands the run pods would be unknown.
type containerContextRule struct{}

// Codes of containerContextRule: stable, contracts, fixtures and scripts name them.
const (
	CodeContextInvalid    = "container-context-invalid"
	CodeContextUnreadable = "container-context-unreadable"
	CodeContextNamespace  = "container-context-namespace"
	CodeContextField      = "container-context-field"
)

// Codes are the codes containerContextRule emits.
func (containerContextRule) Codes() []policy.Code {
	return append([]policy.Code{
		{Name: CodeContextInvalid, Doc: "A Dagster container context is not JSON, or not Dagster's K8sContainerContext schema (an unknown key, a wrong type): Dagster would refuse it too."},
		{Name: CodeContextUnreadable, Doc: "A Dagster container context comes from where codeloc cannot read it (a Secret, a ConfigMap the render does not ship, an env var at run time): what it hands the run pods would be unknown."},
		{Name: CodeContextNamespace, Doc: "A Dagster container context launches run pods in another namespace than the contract's."},
		{Name: CodeContextField, Doc: "A Dagster container context sets what Dagster and the cluster own on run pods: reserved labels, the Job's pod template or pod count."},
	}, policy.Reuse(
		// The run pods are held to what a pod spec is held to.
		policy.CodeConsumeSecret, policy.CodeConsumeConfigMap, policy.CodeConsumeClaim, policy.CodeConsumeServiceAccount, policy.CodeBlockStorage,
		policy.CodePodSecurity, policy.CodeImageRevision, policy.CodeImageRegistry, policy.CodeImageUnpinned, policy.CodeImageDigest, policy.CodeRequestsOverDeclared,
		policy.CodeVolumeType, policy.CodeResourceExtended, policy.CodeResourceClaim, policy.CodePodClusterRef, policy.CodeAnnotationDenied,
		policy.CodeNodeName, policy.CodeToleration, policy.CodeNodeSelector, policy.CodePodSpread,
	)...)
}

func (containerContextRule) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	b := contextChecker{in, in.Binding(objs)}
	cms := shippedConfigMaps(objs)
	var ps problem.Problems
	for _, w := range in.Pods(objs) {
		o := w.Object
		for _, ct := range podContainers(w.Spec, w.Path) {
			found, unreadable := contextSources(ct.c, ct.path, cms)
			for _, src := range unreadable {
				ps = append(ps, in.Problem(o, CodeContextUnreadable, src.field,
					fmt.Sprintf("%s%s: codeloc cannot read this container context: %s", src.name, src.from, src.text),
					"write the context as the env var's value, or in a ConfigMap of the kustomize root: it binds every run pod Dagster launches, so codeloc must read it"))
			}
			for _, src := range found {
				for _, f := range b.checkContext(src.text) {
					at := src.name + src.from
					if f.Path != "" {
						at += ": " + f.Path
					}
					ps = append(ps, in.Problem(o, f.Code, src.field, at+": "+f.Msg, f.Hint))
				}
			}
		}
	}
	return ps
}

// containerContexts are the container contexts the pods' containers hand
// their run pods, those codeloc reads and decodes (the rule reports the
// others).
func containerContexts(in *policy.Context, objs []*yaml.RNode) []*k8sContext {
	var out []*k8sContext
	for _, c := range decodedContexts(in, objs) {
		out = append(out, c.k)
	}
	return out
}

// decodeContextText is a container context's text decoded, nil when it
// does not decode.
func decodeContextText(text string) *k8sContext {
	m, fault := parseContext(text)
	if fault != nil {
		return nil
	}
	return (&contextDecoder{}).decodeContext(m)
}

// containerAt is a container of a pod spec and its field path.
type containerAt struct {
	c    *corev1.Container
	path string
}

func podContainers(spec *corev1.PodSpec, path string) []containerAt {
	var out []containerAt
	for i := range spec.InitContainers {
		out = append(out, containerAt{&spec.InitContainers[i], fmt.Sprintf("%s.initContainers[%d]", path, i)})
	}
	for i := range spec.Containers {
		out = append(out, containerAt{&spec.Containers[i], fmt.Sprintf("%s.containers[%d]", path, i)})
	}
	return out
}

// contextChecker holds container contexts to the render's declaration
// and what its pods may consume.
type contextChecker struct {
	in *policy.Context
	b  *policy.Binding
}

// checkContext returns every fault of one container context's text.
func (b contextChecker) checkContext(text string) []policy.Fault {
	in := b.in
	m, fault := parseContext(text)
	if fault != nil {
		return []policy.Fault{*fault}
	}
	d := &contextDecoder{passEnv: in.Contract().Dagster.RunLauncher.PassEnv}
	k := d.decodeContext(m)
	if k == nil {
		return d.faults
	}
	faults := d.faults
	faults = append(faults, b.contextReferences(k)...)
	if k.namespace != "" && k.namespace != in.Contract().Namespace {
		faults = append(faults, policy.Fault{Code: CodeContextNamespace, Path: "k8s.namespace",
			Msg:  fmt.Sprintf("launches the run pods in namespace %q, not the code-location's %s", k.namespace, in.Contract().Namespace),
			Hint: "remove namespace: run pods run in the contract's namespace, where the declared objects are"})
	}
	faults = append(faults, reservedLabels(k.labels, "k8s")...)
	faults = append(faults, reservedLabels(k.run.labels, "k8s.run_k8s_config.pod_template_spec_metadata")...)
	pods := []struct {
		path string
		pod  corev1.PodSpec
	}{{"k8s.run_k8s_config", k.runPod(k.run)}}
	if k.server.pod != nil || k.server.container != nil {
		pods = append(pods, struct {
			path string
			pod  corev1.PodSpec
		}{"k8s.server_k8s_config", k.runPod(k.server)})
	}
	for _, pc := range pods {
		faults = append(faults, contextPodSecurity(in, pc.path, &pc.pod)...)
		faults = append(faults, contextImages(in, pc.path, &pc.pod)...)
	}
	faults = append(faults, contextRequests(in, k.runPod(k.run))...)
	return append(faults, contextReach(in, k)...)
}

// contextReferences checks what the run pods read by name.
func (b contextChecker) contextReferences(k *k8sContext) []policy.Fault {
	return b.b.Faults(contextCollector(k))
}

// contextCollector collects what the run pods of a container context
// read by name, and the secret keys they read.
func contextCollector(k *k8sContext) *policy.Consumption {
	var c policy.Consumption
	for i, s := range k.pullSecrets {
		c.Ref(policy.KindSecret, s, fmt.Sprintf("k8s.image_pull_secrets[%d].name", i))
	}
	if k.serviceAccount != "" {
		c.Ref(policy.KindServiceAccount, k.serviceAccount, "k8s.service_account_name")
	}
	for i, s := range k.envSecrets {
		c.Ref(policy.KindSecret, s, fmt.Sprintf("k8s.env_secrets[%d]", i))
	}
	for i, s := range k.envConfigMaps {
		c.Ref(policy.KindConfigMap, s, fmt.Sprintf("k8s.env_config_maps[%d]", i))
	}
	c.Env(k.env, nil, "k8s")
	for i, v := range k.volumes {
		c.Volume(v.VolumeSource, fmt.Sprintf("k8s.volumes[%d]", i))
	}
	for _, rc := range []struct {
		path string
		cfg  runConfig
	}{{"k8s.run_k8s_config", k.run}, {"k8s.server_k8s_config", k.server}} {
		if rc.cfg.container != nil {
			c.Env(rc.cfg.container.Env, rc.cfg.container.EnvFrom, rc.path+".container_config")
		}
		if rc.cfg.pod != nil {
			c.Pod(rc.cfg.pod, rc.path+".pod_spec_config")
		}
	}
	return &c
}

// reservedPrefixes are label prefixes Dagster and codeloc set on run pods
// and admission reads: a context may not set them.
var reservedPrefixes = []string{"dagster/", "codeloc.dev/"}

func reservedLabels(labels map[string]string, path string) []policy.Fault {
	var out []policy.Fault
	for _, k := range sortedKeys(labels) {
		for _, p := range reservedPrefixes {
			if strings.HasPrefix(k, p) {
				out = append(out, policy.Fault{Code: CodeContextField, Path: path + ".labels." + k,
					Msg:  fmt.Sprintf("sets label %s, which Dagster and the cluster set on run pods to tell whose they are", k),
					Hint: "remove it: choose a label outside the dagster/ and codeloc.dev/ prefixes"})
			}
		}
	}
	return out
}

// runPod is the pod Dagster would launch with the context, over a base
// that passes every Pod Security level: what fails is what the context
// sets (the launcher's own settings are the platform's).
func (k *k8sContext) runPod(rc runConfig) corev1.PodSpec {
	pod := corev1.PodSpec{}
	if rc.pod != nil {
		pod = *rc.pod.DeepCopy()
	}
	if pod.SecurityContext == nil {
		pod.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	}
	main := corev1.Container{Name: "dagster"}
	if rc.container != nil {
		main = *rc.container.DeepCopy()
	}
	if main.Name == "" {
		main.Name = "dagster" // Dagster's default (dagster_k8s/job.py)
	}
	// The top-level security_context and resources are the container's
	// own, under what run_k8s_config's container_config sets: merged into
	// it (DEEP) or replaced key by key (SHALLOW), as Dagster merges them
	// (dagster_k8s/container_context.py, _merge_k8s_config).
	if k.securityContext != nil && (main.SecurityContext == nil || !rc.shallow) {
		main.SecurityContext = deepMergeAs(k.securityContext, main.SecurityContext)
	}
	if main.SecurityContext == nil {
		main.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	}
	if k.resources != nil && ((len(main.Resources.Requests) == 0 && len(main.Resources.Limits) == 0) || !rc.shallow) {
		main.Resources = *deepMergeAs(k.resources, &main.Resources)
	}
	pod.Containers = append([]corev1.Container{main}, pod.Containers...)
	pod.Volumes = append(pod.Volumes, k.volumes...)
	return pod
}

// contextPodSecurity evaluates a run pod at the contract's level.
func contextPodSecurity(in *policy.Context, path string, pod *corev1.PodSpec) []policy.Fault {
	level, violations := in.PodSecurity(pod)
	var out []policy.Fault
	for _, v := range violations {
		msg := fmt.Sprintf("the pods it launches violate PodSecurity %q: %s", level, v.Reason)
		if v.Detail != "" {
			msg += " (" + v.Detail + ")"
		}
		out = append(out, policy.Fault{Code: policy.CodePodSecurity, Path: path, Msg: msg, Hint: v.Hint + " (in the context's pod_spec_config, container_config or security_context)"})
	}
	return out
}

// contextImages checks the images a context sets: container_config.image
// replaces the code server's image in the run pods; pod_spec_config's
// containers and init containers bring their own.
func contextImages(in *policy.Context, path string, pod *corev1.PodSpec) []policy.Fault {
	var out []policy.Fault
	for i, c := range pod.Containers {
		if i == 0 && c.Image == "" {
			continue // the run pod runs the code server's image
		}
		at := path + ".container_config.image"
		if i > 0 {
			at = fmt.Sprintf("%s.pod_spec_config.containers[%d].image", path, i-1)
		}
		if code, msg, hint := in.ImageFault(c.Image); code != "" {
			out = append(out, policy.Fault{Code: code, Path: at, Msg: msg, Hint: hint})
		}
	}
	// Init containers, native sidecars included, run images of their own.
	for i, c := range pod.InitContainers {
		if code, msg, hint := in.ImageFault(c.Image); code != "" {
			out = append(out, policy.Fault{Code: code, Path: fmt.Sprintf("%s.pod_spec_config.init_containers[%d].image", path, i), Msg: msg, Hint: hint})
		}
	}
	return out
}

// contextRequests holds one run pod's requests to the declared resources,
// which the ADR defines as the run pods' requests.
func contextRequests(in *policy.Context, pod corev1.PodSpec) []policy.Fault {
	var out []policy.Fault
	for _, r := range policy.BudgetedResources() {
		total := policy.PodSpecRequests(&pod, r)
		if declared := in.DeclaredAmount(r); total.Cmp(declared) > 0 {
			out = append(out, policy.Fault{Code: policy.CodeRequestsOverDeclared, Path: "k8s.resources",
				Msg:  fmt.Sprintf("a run pod requests %s %s, more than the declared resources.%s %s", total.String(), r, r, declared.String()),
				Hint: fmt.Sprintf("lower the context's %s request (resources, or run_k8s_config.container_config.resources) to %s%s", r, declared.String(), in.OrDeclare(r, total))})
		}
	}
	return out
}

// contextReach runs the reach checks on what a Dagster container context
// hands its run pods (and the code servers of server_k8s_config), each
// where the context sets it.
func contextReach(in *policy.Context, k *k8sContext) []policy.Fault {
	faults := in.VolumeFaults(k.volumes, "k8s.volumes")
	if k.resources != nil {
		faults = append(faults, in.ResourceFaults("the run pods' container", *k.resources, "k8s.resources")...)
	}
	if k.schedulerName != "" {
		faults = append(faults, policy.SchedulerFaults(k.schedulerName, "k8s.scheduler_name")...)
	}
	for _, rc := range []struct {
		path string
		cfg  runConfig
	}{{"k8s.run_k8s_config", k.run}, {"k8s.server_k8s_config", k.server}} {
		if c := rc.cfg.container; c != nil {
			faults = append(faults, in.ResourceFaults("the run pods' container", c.Resources, rc.path+".container_config.resources")...)
		}
		if rc.cfg.pod != nil {
			faults = append(faults, in.PodReach(rc.cfg.pod, rc.path+".pod_spec_config")...)
			faults = append(faults, in.PlacementFaults(rc.cfg.pod, rc.path+".pod_spec_config")...)
		}
		for _, a := range rc.cfg.annotations {
			if f := in.DeniedAnnotation(a.name, a.field); f != nil {
				faults = append(faults, *f)
			}
		}
	}
	return faults
}

// deepMergeAs is from merged onto onto as Dagster's DEEP merge does
// (dagster_k8s/container_context.py, _deep_merge_k8s_config): objects
// merged key by key, lists appended without the items already there,
// other values from from. Either may be nil.
func deepMergeAs[T any](onto, from *T) *T {
	var a, b map[string]any
	toMap := func(v *T) map[string]any {
		var m map[string]any
		if v != nil {
			data, _ := json.Marshal(v)
			_ = json.Unmarshal(data, &m)
		}
		return m
	}
	a, b = toMap(onto), toMap(from)
	merged := deepMerge(a, b)
	out := new(T)
	data, _ := json.Marshal(merged)
	_ = json.Unmarshal(data, out)
	return out
}

func deepMerge(onto, from map[string]any) map[string]any {
	out := map[string]any{}
	maps.Copy(out, onto)
	for k, fv := range from {
		ov, ok := out[k]
		if !ok {
			out[k] = fv
			continue
		}
		switch f := fv.(type) {
		case []any:
			o, _ := ov.([]any)
			seen := map[string]bool{}
			var list []any
			for _, item := range slices.Concat(o, f) {
				key, _ := json.Marshal(item)
				if !seen[string(key)] {
					seen[string(key)] = true
					list = append(list, item)
				}
			}
			out[k] = list
		case map[string]any:
			o, _ := ov.(map[string]any)
			out[k] = deepMerge(o, f)
		default:
			out[k] = fv
		}
	}
	return out
}
