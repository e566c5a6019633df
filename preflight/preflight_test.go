package preflight_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/validate"
)

var crdsOnce sync.Map // *kubetest.Env -> struct{}

// sharedEnv is the package's apiserver with every CRD installed.
func sharedEnv(t testing.TB) *kubetest.Env {
	t.Helper()
	env := kubetest.Shared(t)
	if _, done := crdsOnce.Load(env); !done {
		env.InstallCRDs(t)
		crdsOnce.Store(env, struct{}{})
	}
	return env
}

// run runs the preflight as the admin (RBAC is proven in rbac_test.go).
func (w *world) run(t testing.TB, opts preflight.Options) *preflight.Report {
	t.Helper()
	if opts.Config == nil {
		opts.Config = w.env.Admin
	}
	rep, err := preflight.Run(ctxFor(t), w.decl, w.con, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// expect checks that the report holds exactly the wanted problems: each
// want is the start of one problem line ({{ns}}, {{argocd}} and {{ceph}}
// substituted).
func (w *world) expect(t *testing.T, rep *preflight.Report, wants ...string) {
	t.Helper()
	got := strings.Split(lines(rep.Problems), "\n")
	if len(rep.Problems) == 0 {
		got = nil
	}
	unmatched := append([]string(nil), got...)
	for _, want := range wants {
		want = w.subst(want)
		i := indexPrefix(unmatched, want)
		if i < 0 {
			t.Errorf("missing problem:\n  %s\ngot:\n  %s", want, strings.Join(got, "\n  "))
			continue
		}
		unmatched = append(unmatched[:i], unmatched[i+1:]...)
	}
	for _, u := range unmatched {
		t.Errorf("unexpected problem:\n  %s", u)
	}
}

func indexPrefix(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

func TestChecks(t *testing.T) {
	env := sharedEnv(t)
	cases := []struct {
		name     string
		decl     func(string) string // edits the declaration YAML
		contract func(*validate.Contract)
		state    func(*state)
		want     []string
	}{
		{name: "all good"},

		// Secrets: metadata-only reads.
		{name: "secret missing", state: func(s *state) { s.secrets = []string{"dagster-postgresql-secret"} },
			want: []string{`secret-missing dependsOn.secrets[0]: secret "pgvector-pg-auth" does not exist in namespace "{{ns}}" (the platform provides it (derived copy of the CNPG pgvector role)`}},
		{name: "only another secret", state: func(s *state) { s.secrets = []string{"pgvector-pg-auth-old", "dagster-postgresql-secret"} },
			want: []string{`secret-missing dependsOn.secrets[0]: secret "pgvector-pg-auth"`}},

		// The platform's ConfigMaps and ServiceAccounts: metadata-only reads.
		{name: "platform ConfigMap and ServiceAccount present", decl: withServiceAccount},
		{name: "platform ConfigMap missing", state: func(s *state) { s.configMaps = []string{"dagster-instance"} },
			want: []string{`configmap-missing dependsOn.configMaps[1]: ConfigMap "dagster-pipeline-env" does not exist in namespace "{{ns}}": the pods that read it would not start (the platform provides it (the contract's configMaps: the environment of every run pod) and the Dagster chart creates it: have the platform install or repair its Dagster release in this namespace, then let the sync retry)`}},
		{name: "platform ServiceAccount missing", decl: withServiceAccount, state: func(s *state) { s.serviceAccounts = nil },
			want: []string{`service-account-missing dependsOn.serviceAccounts[0]: ServiceAccount "dagster" does not exist in namespace "{{ns}}": the pods that run as it could not be created (the platform provides it (the contract's serviceAccounts: the account that launches run pods) and the Dagster chart creates it`}},
		{name: "only other platform objects", decl: withServiceAccount, state: func(s *state) {
			s.configMaps, s.serviceAccounts = []string{"dagster-instance-old", "pipeline-env"}, []string{"dagster-old", "default"}
		}, want: []string{
			`configmap-missing dependsOn.configMaps[0]: ConfigMap "dagster-instance" does not exist`,
			`configmap-missing dependsOn.configMaps[1]: ConfigMap "dagster-pipeline-env" does not exist`,
			`service-account-missing dependsOn.serviceAccounts[0]: ServiceAccount "dagster" does not exist`,
		}},
		{name: "platform objects without a description in the contract", decl: withServiceAccount,
			contract: func(c *validate.Contract) {
				for _, offers := range [][]validate.Provided{c.ConfigMaps, c.ServiceAccounts} {
					for i := range offers {
						offers[i].Description = ""
					}
				}
			},
			state: func(s *state) { s.configMaps, s.serviceAccounts = nil, nil },
			want: []string{
				`configmap-missing dependsOn.configMaps[0]: ConfigMap "dagster-instance" does not exist in namespace "{{ns}}": the pods that read it would not start (the platform provides it (it is in the contract's configMaps) and the Dagster chart creates it`,
				`configmap-missing dependsOn.configMaps[1]: ConfigMap "dagster-pipeline-env" does not exist`,
				`service-account-missing dependsOn.serviceAccounts[0]: ServiceAccount "dagster" does not exist in namespace "{{ns}}": the pods that run as it could not be created (the platform provides it (it is in the contract's serviceAccounts) and`,
			}},
		{name: "platform objects not declared are not checked", decl: withoutPlatform, state: func(s *state) { s.configMaps, s.serviceAccounts = nil, nil }},

		// Buckets.
		{name: "bucket missing", state: func(s *state) { delete(s.claims, "atlas-datalake") },
			want: []string{`bucket-missing dependsOn.buckets[0]: ObjectBucketClaim "atlas-datalake" does not exist in namespace "{{ns}}"`}},
		{name: "bucket pending", state: func(s *state) { s.claims["atlas-datalake"] = claim{"Pending", "rook-ceph-datalake", "100Gi"} },
			want: []string{`bucket-not-bound dependsOn.buckets[0]: ObjectBucketClaim "atlas-datalake" is in phase "Pending", not Bound`}},
		{name: "bucket without status", state: func(s *state) { s.claims["atlas-datalake"] = claim{"", "rook-ceph-datalake", "100Gi"} },
			want: []string{`bucket-not-bound dependsOn.buckets[0]: ObjectBucketClaim "atlas-datalake" has no status.phase yet, not Bound`}},
		{name: "bucket on another class", state: func(s *state) { s.claims["atlas-datalake"] = claim{"Bound", "rook-ceph-bucket", "100Gi"} },
			want: []string{`bucket-class-mismatch dependsOn.buckets[0].storageClass: ObjectBucketClaim "atlas-datalake" is on storage class "rook-ceph-bucket", not the declared "rook-ceph-datalake" (declare storageClass: rook-ceph-bucket`}},
		{name: "bucket too small", state: func(s *state) { s.claims["atlas-datalake"] = claim{"Bound", "rook-ceph-datalake", "50Gi"} },
			want: []string{`bucket-too-small dependsOn.buckets[0].size: ObjectBucketClaim "atlas-datalake" has maxSize 50Gi, less than the declared 100Gi`}},
		{name: "bucket without maxSize", state: func(s *state) { s.claims["atlas-datalake"] = claim{"Bound", "rook-ceph-datalake", ""} },
			want: []string{`bucket-too-small dependsOn.buckets[0].size: ObjectBucketClaim "atlas-datalake" has no spec.additionalConfig.maxSize`}},
		{name: "bucket larger than declared", state: func(s *state) { s.claims["atlas-datalake"] = claim{"Bound", "rook-ceph-datalake", "1Ti"} }},

		// Required code-locations.
		{name: "dependency never deployed", state: func(s *state) { s.records = nil },
			want: []string{`dependency-missing dependsOn.codeLocations[0]: code-location "mediawatch" has no record ConfigMap "codeloc-mediawatch" in namespace "{{ns}}"`}},
		{name: "dependency not ready", state: func(s *state) { s.records["mediawatch"] = "false" },
			want: []string{`dependency-not-ready dependsOn.codeLocations[0]: code-location "mediawatch" is not ready: its record "codeloc-mediawatch" says ready: "false" (revision "5d2e8b4")`}},
		// A record is believed only as codeloc wrote it and the dependency's
		// own Application applied it.
		{name: "dependency record tracked by label", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": trackedRecord("mediawatch", "mediawatch", labelTracking)}
		}},
		{name: "dependency record forged without codeloc's labels", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": `annotations: {"argocd.argoproj.io/tracking-id": "mediawatch:/ConfigMap:{{ns}}/codeloc-mediawatch"}`}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: it lacks the labels codeloc sets on it (app.kubernetes.io/managed-by: codeloc, codeloc.dev/code-location: mediawatch) (only mediawatch's own Application publishes its record: find who wrote this one (kubectl -n {{ns}} get configmap codeloc-mediawatch -o yaml), remove it there, and sync mediawatch; this sync retries)`}},
		{name: "dependency record of another code-location's labels", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": `labels: {"app.kubernetes.io/managed-by": codeloc, "codeloc.dev/code-location": citation}`}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: it lacks the labels codeloc sets on it`}},
		{name: "dependency record tracked by another Application", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": trackedRecord("mediawatch", "citation", annotationTracking)}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: Argo CD tracks it as argocd.argoproj.io/tracking-id "citation:/ConfigMap:{{ns}}/codeloc-mediawatch", not "mediawatch:/ConfigMap:{{ns}}/codeloc-mediawatch": another Application manages it`}},
		{name: "dependency record tracked by another Application's label", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": trackedRecord("mediawatch", "citation", labelTracking)}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: Argo CD tracks it as app.kubernetes.io/instance "citation", not "mediawatch": another Application manages it`}},
		{name: "dependency record tracked by an Application of another namespace", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": trackedRecord("mediawatch", "team_mediawatch", annotationTracking)}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: Argo CD tracks it as argocd.argoproj.io/tracking-id "team_mediawatch:/ConfigMap:{{ns}}/codeloc-mediawatch"`}},
		{name: "dependency record's annotation wins over its label", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": strings.Replace(trackedRecord("mediawatch", "citation", annotationTracking), "}, annotations", `, "app.kubernetes.io/instance": mediawatch}, annotations`, 1)}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: Argo CD tracks it as argocd.argoproj.io/tracking-id "citation:`}},
		{name: "dependency record applied by hand", state: func(s *state) {
			s.recordMeta = map[string]string{"mediawatch": trackedRecord("mediawatch", "mediawatch", noTracking)}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: no Argo CD Application manages it (no argocd.argoproj.io/tracking-id "mediawatch:/ConfigMap:{{ns}}/codeloc-mediawatch", no app.kubernetes.io/instance "mediawatch")`}},
		// An untrusted record's word is not read: its ready: false is not reported.
		{name: "dependency record forged not ready", state: func(s *state) {
			s.records["mediawatch"] = "false"
			s.recordMeta = map[string]string{"mediawatch": ""}
		}, want: []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record`}},
		{name: "dependency without Application", state: func(s *state) { s.apps = nil },
			want: []string{`dependency-missing dependsOn.codeLocations[0]: code-location "mediawatch" has no Argo CD Application "mediawatch" in namespace "{{argocd}}"`}},
		{name: "dependency out of sync", state: func(s *state) { s.apps["mediawatch"] = [2]string{"OutOfSync", "Healthy"} },
			want: []string{`dependency-app-not-healthy dependsOn.codeLocations[0]: Application "mediawatch" in namespace "{{argocd}}" is OutOfSync and Healthy, not Synced and Healthy`}},
		{name: "dependency degraded", state: func(s *state) { s.apps["mediawatch"] = [2]string{"Synced", "Degraded"} },
			want: []string{`dependency-app-not-healthy dependsOn.codeLocations[0]: Application "mediawatch" in namespace "{{argocd}}" is Synced and Degraded`}},
		{name: "no Argo CD namespace in the contract", contract: func(c *validate.Contract) { c.ArgoCDNamespace = "" },
			state: func(s *state) { s.apps = nil }},

		// cpu and memory against the namespace's ResourceQuota.
		{name: "quota cpu exhausted", state: func(s *state) { s.quota.usedCPU = "3800m" },
			want: []string{`capacity-cpu resources.cpu: cpu 500m does not fit ResourceQuota "compute": 200m free (requests.cpu hard 4, used 3800m), and the 10% headroom (400m) must stay free, leaving 0`}},
		{name: "quota cpu fits but not its headroom", state: func(s *state) { s.quota.usedCPU = "3200m" },
			want: []string{`capacity-cpu resources.cpu: cpu 500m does not fit ResourceQuota "compute": 800m free (requests.cpu hard 4, used 3200m), and the 10% headroom (400m) must stay free, leaving 400m`}},
		{name: "quota cpu fits with its headroom", state: func(s *state) { s.quota.usedCPU = "3100m" }},
		{name: "quota memory exhausted", state: func(s *state) { s.quota.usedMem = "15Gi" },
			want: []string{`capacity-memory resources.memory: memory 1Gi does not fit ResourceQuota "compute": 1Gi free (requests.memory hard 16Gi, used 15Gi), and the 10% headroom (1.6Gi) must stay free, leaving 0`}},
		{name: "quota used by this code-location's own pods", state: func(s *state) {
			s.quota.usedCPU = "3500m"
			s.pods = []pod{{name: "citation-0", cpu: "600m", memory: "1Gi", labels: map[string]string{names.LabelCodeLocation: "citation"}}}
		}},
		{name: "quota used by another code-location's pods", state: func(s *state) {
			s.quota.usedCPU = "3500m"
			s.pods = []pod{{name: "mediawatch-0", cpu: "600m", memory: "1Gi", labels: map[string]string{names.LabelCodeLocation: "mediawatch"}}}
		}, want: []string{`capacity-cpu resources.cpu: cpu 500m does not fit ResourceQuota "compute": 500m free`}},

		// disk and buckets against Ceph (usable = available / 3 replicas).
		{name: "ceph full", state: func(s *state) { s.ceph = &cephCapacity{available: "60Gi", total: "600Gi"} },
			want: []string{
				`capacity-disk resources.disk: disk 20Gi does not fit CephCluster {{ceph}}/rook-ceph: 20Gi free (60Gi raw available / 3 replicas), and the 10% headroom (20Gi) must stay free, leaving 0`,
				`capacity-buckets dependsOn.buckets: buckets 100Gi + disk 20Gi = 120Gi does not fit CephCluster {{ceph}}/rook-ceph`,
			}},
		{name: "ceph fits the disk, not the buckets", state: func(s *state) { s.ceph = &cephCapacity{available: "390Gi", total: "390Gi"} },
			want: []string{`capacity-buckets dependsOn.buckets: buckets 100Gi + disk 20Gi = 120Gi does not fit CephCluster {{ceph}}/rook-ceph: 130Gi free (390Gi raw available / 3 replicas), and the 10% headroom (13Gi) must stay free, leaving 117Gi`}},
		{name: "ceph without capacity in its status falls back to the budgets", state: func(s *state) { s.ceph = nil }},

		// Everything at once: every problem is reported.
		{name: "everything wrong", decl: withServiceAccount, state: func(s *state) {
			s.secrets, s.configMaps, s.serviceAccounts = nil, nil, nil
			s.claims["atlas-datalake"] = claim{"Pending", "other", "1Gi"}
			s.records["mediawatch"] = "false"
			s.apps["mediawatch"] = [2]string{"OutOfSync", "Missing"}
			s.quota = &quota{hardCPU: "1", usedCPU: "1", hardMem: "1Gi", usedMem: "1Gi"}
			s.ceph = &cephCapacity{available: "3Gi", total: "3Gi"}
		}, want: []string{
			"secret-missing dependsOn.secrets[0]", "secret-missing dependsOn.secrets[1]",
			"configmap-missing dependsOn.configMaps[0]", "configmap-missing dependsOn.configMaps[1]",
			"service-account-missing dependsOn.serviceAccounts[0]", "bucket-not-bound dependsOn.buckets[0]",
			"bucket-class-mismatch dependsOn.buckets[0].storageClass", "bucket-too-small dependsOn.buckets[0].size",
			"dependency-not-ready dependsOn.codeLocations[0]", "dependency-app-not-healthy dependsOn.codeLocations[0]",
			"capacity-cpu resources.cpu", "capacity-memory resources.memory",
			"capacity-disk resources.disk", "capacity-buckets dependsOn.buckets",
		}},

		// A declaration without dependencies checks only cpu and memory.
		{name: "nothing declared", decl: func(string) string {
			return "codeLocation: solo\nready: true\nrevision: abcdef1\ncontractVersion: 3\nresources: {cpu: 100m, memory: 64Mi}\n"
		}, state: func(s *state) { *s = state{quota: s.quota} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, env, tc.decl)
			if tc.contract != nil {
				tc.contract(w.con)
			}
			s := good()
			if tc.state != nil {
				tc.state(s)
			}
			w.apply(t, s)
			rep := w.run(t, preflight.Options{})
			w.expect(t, rep, tc.want...)
			if rep.Requests == 0 {
				t.Error("no API request counted")
			}
			t.Logf("%s", rep.Summary())
		})
	}
}

// TestNotes checks what is skipped is said, not silently passed.
func TestNotes(t *testing.T) {
	env := sharedEnv(t)
	w := newWorld(t, env, func(s string) string {
		return strings.Replace(s, "database: [pgvector]", "database: [pgvector, other]", 1)
	})
	s := good()
	s.ceph = nil // a CephCluster without status.ceph.capacity
	w.apply(t, s)
	w.env.ApplyYAML(t, w.ns, w.subst("apiVersion: ceph.rook.io/v1\nkind: CephCluster\nmetadata: {name: rook-ceph, namespace: {{ceph}}}\nspec: {}\n"))
	rep := w.run(t, preflight.Options{})
	w.expect(t, rep)
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{
		"database other: not checked (the preflight pod carries the credentials of the first declared database only)",
		"database pgvector: not checked (no DATABASE_URL, PGHOST, PGUSER or PGPASSWORD in the environment",
		"capacity storage: contract budgets used (no CephCluster in namespace " + w.ceph + " reports status.ceph.capacity)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestCapacityFromNodes: without a ResourceQuota, cpu and memory are
// checked against schedulable nodes' allocatable minus the requests of the
// non-terminal pods bound to them, this code-location's own pods excluded.
func TestCapacityFromNodes(t *testing.T) {
	env := sharedEnv(t)
	suffix := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	node := func(name, cpu, mem, extra string) string {
		return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name + "-" + suffix + "}\n" + extra +
			"status:\n  allocatable: {cpu: \"" + cpu + "\", memory: " + mem + ", pods: \"110\"}\n  capacity: {cpu: \"" + cpu + "\", memory: " + mem + ", pods: \"110\"}\n"
	}
	nodes := kubetest.MustParseYAML(t, node("n1", "2", "8Gi", "")+
		node("n2", "2", "8Gi", "")+
		node("cordoned", "64", "256Gi", "spec: {unschedulable: true}\n")+
		node("notready", "64", "256Gi", "")+"  conditions: [{type: Ready, status: \"False\"}]\n")
	ctx := ctxFor(t)
	if err := env.Apply(ctx, "", nodes...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Delete(ctxFor(t), "", nodes...) })

	other := env.Namespace(t)
	pods := func(w *world) []pod {
		return []pod{
			{name: "busy", namespace: other, node: "n1-" + suffix, cpu: "1500m", memory: "2Gi"},
			{name: "own", node: "n2-" + suffix, cpu: "1", memory: "4Gi", labels: map[string]string{names.LabelCodeLocation: "citation"}},
			{name: "done", namespace: other, node: "n2-" + suffix, cpu: "1", memory: "1Gi", phase: "Succeeded"},
			{name: "elsewhere", namespace: other, node: "cordoned-" + suffix, cpu: "8", memory: "1Gi"},
			{name: "unscheduled", namespace: other, cpu: "10", memory: "1Gi"},
		}
	}
	cases := []struct {
		name, cpu, memory string
		want              []string
	}{
		{name: "fits", cpu: "2", memory: "4Gi"},
		{name: "cpu does not fit", cpu: "2200m", memory: "1Gi", want: []string{
			`capacity-cpu resources.cpu: cpu 2200m does not fit the 2 schedulable node(s): 2500m free (allocatable 4, requested 1500m by 1 pod(s)), and the 10% headroom (400m) must stay free, leaving 2100m`}},
		{name: "memory does not fit", cpu: "100m", memory: "13Gi", want: []string{
			`capacity-memory resources.memory: memory 13Gi does not fit the 2 schedulable node(s): 14Gi free (allocatable 16Gi, requested 2Gi by 1 pod(s)), and the 10% headroom (1.6Gi) must stay free, leaving 12.4Gi`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, env, func(s string) string {
				s = strings.Replace(s, "cpu: 500m", "cpu: "+tc.cpu, 1)
				return strings.Replace(s, "memory: 1Gi", "memory: "+tc.memory, 1)
			})
			s := good()
			s.quota = nil
			s.pods = pods(w)
			w.apply(t, s)
			w.expect(t, w.run(t, preflight.Options{}), tc.want...)
		})
	}
}

// TestWithoutRookOrArgo runs on an apiserver of its own that serves no
// ObjectBucketClaim, CephCluster nor Application: buckets are reported
// missing, Applications too, and disk and buckets are checked against the
// contract's budgets.
func TestWithoutRookOrArgo(t *testing.T) {
	env := kubetest.Start(t)
	t.Logf("dedicated apiserver started in %s", env.StartTime)
	cases := []struct {
		name string
		decl func(string) string
		want []string
	}{
		{name: "budgets fit", want: []string{
			`bucket-missing dependsOn.buckets[0]: bucket "atlas-datalake": this cluster does not serve objectbucket.io/v1alpha1 ObjectBucketClaims`,
			`dependency-missing dependsOn.codeLocations[0]: code-location "mediawatch": this cluster does not serve argoproj.io/v1alpha1 Applications`,
		}},
		{name: "over the budgets", decl: func(s string) string {
			s = strings.Replace(s, "disk: 20Gi", "disk: 190Gi", 1)
			return strings.Replace(s, "size: 100Gi", "size: 1000Gi", 1)
		}, want: []string{
			`bucket-missing dependsOn.buckets[0]`,
			`dependency-missing dependsOn.codeLocations[0]`,
			`capacity-disk resources.disk: disk 190Gi does not fit the contract's budgets.disk: 200Gi free (no Ceph capacity readable), and the 10% headroom (20Gi) must stay free, leaving 180Gi`,
			`capacity-buckets dependsOn.buckets: buckets 1000Gi does not fit the contract's budgets.buckets: 1Ti free (no Ceph capacity readable), and the 10% headroom (102.4Gi) must stay free, leaving 921.6Gi`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, env, tc.decl)
			s := good()
			s.claims, s.apps, s.ceph = nil, nil, nil
			w.apply(t, s)
			rep := w.run(t, preflight.Options{})
			w.expect(t, rep, tc.want...)
			if !strings.Contains(strings.Join(rep.Notes, "\n"), "ceph.rook.io/v1 CephCluster is not served") {
				t.Errorf("no note about the budgets: %q", rep.Notes)
			}
		})
	}
}

// BenchmarkRun measures one preflight of the example declaration against
// the real apiserver, as its own ServiceAccount would run it but with the
// admin's token (RBAC does not change the request count).
func BenchmarkRun(b *testing.B) {
	env := sharedEnv(b)
	w := newWorld(b, env, nil)
	w.apply(b, good())
	var requests int64
	for b.Loop() {
		rep := w.run(b, preflight.Options{})
		if !rep.OK() {
			b.Fatal(rep.Summary())
		}
		requests = rep.Requests
	}
	b.ReportMetric(float64(requests), "requests/op")
}
