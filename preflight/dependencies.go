package preflight

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// dependencies checks each required code-location: its record says ready
// "true" and, when the contract names Argo CD's namespace, its Application
// is Synced and Healthy.
func (ck *checker) dependencies(ctx context.Context) result {
	var r result
	for i, dep := range ck.decl.DependsOn.CodeLocations {
		path := index("dependsOn.codeLocations", i)
		before := len(r.problems)
		ck.checkRecord(ctx, &r, path, dep)
		if ck.con.ArgoCDNamespace != "" {
			ck.checkApplication(ctx, &r, path, dep)
		}
		if len(r.problems) == before {
			r.pass("code-location %s: ready", dep)
		}
	}
	return r
}

func (ck *checker) checkRecord(ctx context.Context, r *result, path, dep string) {
	ns, name := ck.con.Namespace, names.RecordName(dep)
	cm, err := ck.c.get(ctx, configMapsGVR, ns, name)
	switch {
	case objectNotFound(err):
		r.fail(problem.Problem{Code: CodeDependencyMissing, Path: path,
			Message: fmt.Sprintf("code-location %q has no record ConfigMap %q in namespace %q: it was never deployed here", dep, name, ns),
			Hint:    fmt.Sprintf("deploy %s first (its Application publishes the record in its last sync wave), or fix the name", dep)})
		return
	case err != nil:
		r.fail(apiProblem(path, fmt.Sprintf("get ConfigMap %q in namespace %q", name, ns), err))
		return
	}
	if why := distrust(cm, dep, ns); why != "" {
		r.fail(problem.Problem{Code: CodeDependencyRecordUntrusted, Path: path,
			Message: fmt.Sprintf("code-location %q: ConfigMap %q in namespace %q is not its record as codeloc publishes it through its Application: %s", dep, name, ns, why),
			Hint: fmt.Sprintf("only %s's own Application publishes its record: find who wrote this one (kubectl -n %s get configmap %s -o yaml), remove it there, and sync %s; this sync retries",
				dep, ns, name, dep)})
		return
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if data[names.RecordKeyReady] != "true" {
		r.fail(problem.Problem{Code: CodeDependencyNotReady, Path: path,
			Message: fmt.Sprintf("code-location %q is not ready: its record %q says ready: %q (revision %q)", dep, name, data[names.RecordKeyReady], data[names.RecordKeyRevision]),
			Hint:    fmt.Sprintf("%s must declare ready: true and be synced; this sync retries", dep)})
	}
}

// distrust says why cm, read as dep's record in namespace ns, is not one
// codeloc rendered for dep and dep's own Application applied; "" when it
// is. codeloc sets its labels on the record; Argo CD sets its tracking
// when it applies it: the annotation argocd.argoproj.io/tracking-id
// (annotation tracking, 3.x's default), else the label
// app.kubernetes.io/instance (label tracking, 2.x's default). Anyone who
// may write ConfigMaps in the namespace can still copy all of them: this
// tells a record from a leftover or a careless copy, RBAC keeps writers
// out.
func distrust(cm *unstructured.Unstructured, dep, ns string) string {
	labels, annotations := cm.GetLabels(), cm.GetAnnotations()
	if labels[names.LabelManagedBy] != names.ManagedByValue || labels[names.LabelCodeLocation] != dep {
		return fmt.Sprintf("it lacks the labels codeloc sets on it (%s: %s, %s: %s)", names.LabelManagedBy, names.ManagedByValue, names.LabelCodeLocation, dep)
	}
	want := names.TrackingID(dep, "", "ConfigMap", ns, cm.GetName())
	id, annotated := annotations[names.AnnoTrackingID]
	switch {
	case id == want:
		return ""
	case annotated:
		return fmt.Sprintf("Argo CD tracks it as %s %q, not %q: another Application manages it", names.AnnoTrackingID, id, want)
	case labels[names.LabelAppInstance] == dep:
		return ""
	case labels[names.LabelAppInstance] != "":
		return fmt.Sprintf("Argo CD tracks it as %s %q, not %q: another Application manages it", names.LabelAppInstance, labels[names.LabelAppInstance], dep)
	}
	return fmt.Sprintf("no Argo CD Application manages it (no %s %q, no %s %q)", names.AnnoTrackingID, want, names.LabelAppInstance, dep)
}

func (ck *checker) checkApplication(ctx context.Context, r *result, path, dep string) {
	ns := ck.con.ArgoCDNamespace
	app, err := ck.c.get(ctx, applicationsGVR, ns, dep)
	switch {
	case objectNotFound(err):
		r.fail(problem.Problem{Code: CodeDependencyMissing, Path: path,
			Message: fmt.Sprintf("code-location %q has no Argo CD Application %q in namespace %q", dep, dep, ns),
			Hint:    fmt.Sprintf("add %s to the app-of-apps repo (codeloc application prints it)", dep)})
		return
	case resourceNotServed(err):
		r.fail(problem.Problem{Code: CodeDependencyMissing, Path: path,
			Message: fmt.Sprintf("code-location %q: this cluster does not serve argoproj.io/v1alpha1 Applications", dep),
			Hint:    "install Argo CD, or remove argocdNamespace from the contract"})
		return
	case err != nil:
		r.fail(apiProblem(path, fmt.Sprintf("get Application %q in namespace %q", dep, ns), err))
		return
	}
	sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
	health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
	if sync != "Synced" || health != "Healthy" {
		r.fail(problem.Problem{Code: CodeDependencyAppUnhealthy, Path: path,
			Message: fmt.Sprintf("Application %q in namespace %q is %s and %s, not Synced and Healthy", dep, ns, orUnknown(sync), orUnknown(health)),
			Hint:    fmt.Sprintf("look at %s in Argo CD and fix it; this sync retries", dep)})
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}
