// Package install_test checks the codeloc install bundle: a kustomize
// Component built in-process over a minimal stock-like Argo CD base.
package install_test

import (
	"bytes"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/validate"
)

// object is one built object: its identity and its YAML.
type object struct {
	Kind, Namespace, Name string
	YAML                  []byte
}

// operatorKustomization is what the README tells an operator to write, with
// the stand-in Argo CD base instead of the upstream install URL.
const operatorKustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - argocd
components:
  - codeloc/sidecar/install
`

// build lays out the operator's kustomization in memory (this folder as the
// component, testdata/argocd-base as argocd/) and runs kustomize in-process as
// the repo-server would: root-only load restrictions, no plugins, nothing
// remote.
func build(t *testing.T) []object {
	t.Helper()
	return buildWith(t, operatorKustomization, nil)
}

// buildWith is build with another operator kustomization and extra files
// beside it.
func buildWith(t *testing.T, kustomization string, files map[string]string) []object {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	copyFiles(t, fs, "testdata/argocd-base", "/ops/argocd")
	return buildIn(t, fs, kustomization, files)
}

// buildIn runs the operator kustomization in fs, whose /ops/argocd holds
// the Argo CD base, with this folder as the component at
// /ops/codeloc/sidecar/install and extra files beside the kustomization.
func buildIn(t *testing.T, fs filesys.FileSystem, kustomization string, files map[string]string) []object {
	t.Helper()
	copyFiles(t, fs, ".", "/ops/codeloc/sidecar/install")
	files = maps.Clone(files)
	if files == nil {
		files = map[string]string{}
	}
	files["kustomization.yaml"] = kustomization
	for name, data := range files {
		if err := fs.WriteFile(path.Join("/ops", name), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	return runKustomize(t, fs)
}

// runKustomize builds /ops in fs as the repo-server would: root-only load
// restrictions, no plugins, nothing remote.
func runKustomize(t *testing.T, fs filesys.FileSystem) []object {
	t.Helper()
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opts).Run(fs, "/ops")
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	var out []object
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, object{Kind: r.GetKind(), Namespace: r.GetNamespace(), Name: r.GetName(), YAML: y})
	}
	return out
}

// copyFiles copies the YAML files directly in dir to the in-memory folder to.
func copyFiles(t *testing.T, fs filesys.FileSystem, dir, to string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile(path.Join(to, e.Name()), data); err != nil {
			t.Fatal(err)
		}
	}
}

// find decodes the built object kind/namespace/name into v, strictly.
func find(t *testing.T, objs []object, kind, ns, name string, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(lookup(t, objs, kind, ns, name), v); err != nil {
		t.Fatalf("%s %s/%s: %v", kind, ns, name, err)
	}
}

// lookup is the YAML of the built object kind/namespace/name.
func lookup(t *testing.T, objs []object, kind, ns, name string) []byte {
	t.Helper()
	for _, o := range objs {
		if o.Kind == kind && o.Namespace == ns && o.Name == name {
			return o.YAML
		}
	}
	t.Fatalf("%s %s/%s not in the build", kind, ns, name)
	return nil
}

func TestBuildObjects(t *testing.T) {
	var got []string
	for _, o := range build(t) {
		got = append(got, o.Kind+" "+o.Namespace+"/"+o.Name)
	}
	slices.Sort(got)
	want := []string{
		"ClusterRole /codeloc-preflight",
		"ClusterRoleBinding /codeloc-preflight",
		"ConfigMap argocd/argocd-cm",
		"ConfigMap argocd/argocd-cmd-params-cm",
		"ConfigMap argocd/codeloc-contract",
		"Deployment argocd/argocd-repo-server",
		"Namespace /argocd",
		"Role argocd/codeloc-preflight",
		"Role rook-ceph/codeloc-preflight",
		"RoleBinding argocd/codeloc-preflight",
		"RoleBinding rook-ceph/codeloc-preflight",
		"ValidatingAdmissionPolicy /codeloc-code-location",
		"ValidatingAdmissionPolicy /codeloc-pod-images",
		"ValidatingAdmissionPolicyBinding /codeloc-pod-images",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
}

func TestSidecarContainer(t *testing.T) {
	var d appsv1.Deployment
	find(t, build(t), "Deployment", "argocd", "argocd-repo-server", &d)
	spec := d.Spec.Template.Spec
	byName := map[string]corev1.Container{}
	var names []string
	for _, c := range spec.Containers {
		byName[c.Name] = c
		names = append(names, c.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"argocd-repo-server", "codeloc"}, names); diff != "" {
		t.Fatalf("containers (-want +got):\n%s", diff)
	}
	if got := d.Spec.Template.Annotations["kubectl.kubernetes.io/default-container"]; got != "argocd-repo-server" {
		t.Errorf("default container %q, want argocd-repo-server", got)
	}
	c := byName["codeloc"]
	ptr := func(v bool) *bool { return &v }
	uid := int64(999)
	want := corev1.Container{
		Name:            "codeloc",
		Image:           "registry:80/codeloc:0.1.0",
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"codeloc-sidecar"},
		Args:            []string{"--contract", "/etc/codeloc/contract/contract.yaml", "--metrics-addr", ":9095"},
		Env: []corev1.EnvVar{
			{Name: "ARGOCD_PLUGINSOCKFILEPATH", Value: "/home/argocd/cmp-server/plugins"},
			{Name: "TMPDIR", Value: "/tmp"},
			{Name: "HOME", Value: "/tmp"},
			{Name: "CODELOC_CACHE_DIR", Value: "/tmp/codeloc-cache"},
			{Name: "ARGOCD_GRPC_MAX_SIZE_MB", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "argocd-cmd-params-cm"},
				Key:                  "reposerver.grpc.max.size", Optional: ptr(true),
			}}},
		},
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr(true),
			RunAsUser:                &uid,
			ReadOnlyRootFilesystem:   ptr(true),
			AllowPrivilegeEscalation: ptr(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "var-files", MountPath: "/var/run/argocd"},
			{Name: "plugins", MountPath: "/home/argocd/cmp-server/plugins"},
			{Name: "codeloc-tmp", MountPath: "/tmp"},
			{Name: "codeloc-contract", MountPath: "/etc/codeloc/contract", ReadOnly: true},
		},
	}
	got := corev1.Container{Name: c.Name, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy, Command: c.Command, Args: c.Args,
		Env: c.Env, SecurityContext: c.SecurityContext, VolumeMounts: c.VolumeMounts}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codeloc container (-want +got):\n%s", diff)
	}
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.IntValue() != 9095 {
			t.Errorf("%s probe is not GET /healthz on 9095: %+v", name, p)
		}
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[r]; !ok {
			t.Errorf("no %s request", r)
		}
		if _, ok := c.Resources.Limits[r]; !ok {
			t.Errorf("no %s limit", r)
		}
	}
	volumes := map[string]corev1.VolumeSource{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v.VolumeSource
	}
	for _, name := range []string{"var-files", "plugins", "codeloc-tmp"} {
		if volumes[name].EmptyDir == nil {
			t.Errorf("volume %s is not an emptyDir: %+v", name, volumes[name])
		}
	}
	if cm := volumes["codeloc-contract"].ConfigMap; cm == nil || cm.Name != "codeloc-contract" {
		t.Errorf("volume codeloc-contract does not mount the ConfigMap codeloc-contract: %+v", volumes["codeloc-contract"])
	}
	if stock := byName["argocd-repo-server"]; len(spec.InitContainers) != 1 || stock.Image != "quay.io/argoproj/argocd:v2.14.21" || len(stock.VolumeMounts) != 2 {
		t.Errorf("the stock repo-server was altered: %+v", stock)
	}
}

// TestContractCopy: the bundle's contract is the embedded example, byte for
// byte (kustomize loads files from its own root only, hence the copy).
func TestContractCopy(t *testing.T) {
	data, err := os.ReadFile("contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, validate.ExampleContract) {
		t.Fatal("sidecar/install/contract.yaml differs from validate/contract.example.yaml: cp validate/contract.example.yaml sidecar/install/contract.yaml")
	}
	var cm corev1.ConfigMap
	find(t, build(t), "ConfigMap", "argocd", "codeloc-contract", &cm)
	if cm.Data["contract.yaml"] != string(validate.ExampleContract) || len(cm.Data) != 1 {
		t.Fatalf("ConfigMap codeloc-contract does not hold the contract as contract.yaml: keys %v", slices.Sorted(func(yield func(string) bool) {
			for k := range cm.Data {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if _, ps := validate.ParseContract("contract.yaml", []byte(cm.Data["contract.yaml"])); len(ps) > 0 {
		t.Fatalf("the contract is invalid:\n%v", ps)
	}
}

func TestCmdParams(t *testing.T) {
	var cm corev1.ConfigMap
	find(t, build(t), "ConfigMap", "argocd", "argocd-cmd-params-cm", &cm)
	want := map[string]string{
		"reposerver.plugin.tar.exclusions":              ".git/*",
		"reposerver.plugin.use.manifest.generate.paths": "true",
	}
	if diff := cmp.Diff(want, cm.Data); diff != "" {
		t.Errorf("argocd-cmd-params-cm data (-want +got):\n%s", diff)
	}
}

// writeVerbs are the verbs a read-only role must not grant.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate", "*"}

// TestPreflightRBACReadOnly: every preflight rule reads, never writes, never
// touches secrets and names its resources (no wildcards).
func TestPreflightRBACReadOnly(t *testing.T) {
	objs := build(t)
	var rules []rbacv1.PolicyRule
	for _, o := range objs {
		if o.Name != "codeloc-preflight" || (o.Kind != "ClusterRole" && o.Kind != "Role") {
			continue
		}
		var r rbacv1.ClusterRole // a Role decodes the same way
		if err := yaml.Unmarshal(o.YAML, &r); err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r.Rules...)
	}
	if len(rules) == 0 {
		t.Fatal("no preflight rule in the build")
	}
	for _, r := range rules {
		for _, v := range r.Verbs {
			if slices.Contains(writeVerbs, strings.ToLower(v)) {
				t.Errorf("rule %+v grants %q", r, v)
			}
		}
		for _, res := range r.Resources {
			if res == "*" || strings.HasPrefix(res, "secrets") {
				t.Errorf("rule %+v grants access to %q", r, res)
			}
		}
		if slices.Contains(r.APIGroups, "*") || len(r.NonResourceURLs) > 0 {
			t.Errorf("rule %+v is too wide", r)
		}
	}
	var crb rbacv1.ClusterRoleBinding
	find(t, objs, "ClusterRoleBinding", "", "codeloc-preflight", &crb)
	want := []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "Group", Name: "system:serviceaccounts:dagster"}}
	if diff := cmp.Diff(want, crb.Subjects); diff != "" {
		t.Errorf("ClusterRoleBinding subjects (-want +got):\n%s", diff)
	}
}

// TestPreflightRBACMatchesProof: the bundle ships the RBAC the preflight's
// own tests prove sufficient against a real apiserver.
func TestPreflightRBACMatchesProof(t *testing.T) {
	// A tracked file: its absence is a deletion to fail on, not to skip.
	proof, err := os.ReadFile("../../preflight/testdata/rbac-cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile("preflight-rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(documents(t, proof), documents(t, ours)); diff != "" {
		t.Errorf("preflight-rbac.yaml differs from preflight/testdata/rbac-cluster.yaml (-proof +bundle):\n%s", diff)
	}
}

// documents decodes a YAML stream into generic objects, comments dropped.
func documents(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// TestOperatorOverrides: the way the README tells an operator to set the
// real image and contract works over the component.
func TestOperatorOverrides(t *testing.T) {
	const real = "apiVersion: codeloc.dev/v1\nkind: ClusterContract\n# the real one\n"
	objs := buildWith(t, operatorKustomization+`images:
  - name: registry:80/codeloc
    newName: harbor.internal/platform/codeloc
    newTag: 0.1.1
patches:
  - path: contract-patch.yaml
`, map[string]string{"contract-patch.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: codeloc-contract
  namespace: argocd
data:
  contract.yaml: |
    apiVersion: codeloc.dev/v1
    kind: ClusterContract
    # the real one
`})
	var cm corev1.ConfigMap
	find(t, objs, "ConfigMap", "argocd", "codeloc-contract", &cm)
	if cm.Data["contract.yaml"] != real {
		t.Errorf("contract not replaced: %q", cm.Data["contract.yaml"])
	}
	var d appsv1.Deployment
	find(t, objs, "Deployment", "argocd", "argocd-repo-server", &d)
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "codeloc" && c.Image != "harbor.internal/platform/codeloc:0.1.1" {
			t.Errorf("image not replaced: %s", c.Image)
		}
	}
}
