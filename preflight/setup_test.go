package preflight_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

func TestMain(m *testing.M) { kubetest.Main(m) }

// declarationYAML is the example citation declaration of ADR 0094 §3, with
// the dependencies of fixtures/citation: the Dagster instance's password
// and the platform's ConfigMaps (testdata/role.yaml is its rendered Role).
const declarationYAML = `codeLocation: citation
ready: true
revision: a3f9c1d
contractVersion: 3
resources:
  cpu: 500m
  memory: 1Gi
  disk: 20Gi
dependsOn:
  codeLocations: [mediawatch]
  database: [pgvector]
  secrets: [pgvector-pg-auth, dagster-postgresql-secret]
  configMaps: [dagster-instance, dagster-pipeline-env]
  buckets:
    - name: atlas-datalake
      size: 100Gi
      storageClass: rook-ceph-datalake
`

// contractYAML is a contract with the test's namespaces substituted.
const contractYAML = `apiVersion: codeloc.dev/v1
kind: ClusterContract
contractVersions: [3]
namespace: {{ns}}
argocdNamespace: {{argocd}}
registry: registry:80
databases:
  - {name: pgvector, host: 127.0.0.1, port: 5432, dbname: pgvector, sslMode: disable, credentialsSecret: pgvector-pg-auth}
secrets:
  - {name: pgvector-pg-auth, description: derived copy of the CNPG pgvector role}
  - {name: dagster-postgresql-secret, description: the Dagster instance's PostgreSQL password}
configMaps:
  - {name: dagster-instance, description: the Dagster instance (dagster.yaml)}
  - {name: dagster-pipeline-env, description: the environment of every run pod}
serviceAccounts:
  - {name: dagster, description: the account that launches run pods}
objectStorage:
  storageClasses: [rook-ceph-datalake]
  buckets: [{name: atlas-datalake, storageClass: rook-ceph-datalake, size: 500Gi}]
blockStorage: {storageClass: rook-ceph-block}
budgets: {cpu: "4", memory: 16Gi, disk: 200Gi, buckets: 1Ti, headroomPercent: 10}
ceph: {namespace: {{ceph}}, replicaSize: 3}
jobs: {image: registry:80/codeloc:0.1.0}
`

// world is one test's slice of the cluster: its own namespaces.
type world struct {
	env              *kubetest.Env
	ns, argocd, ceph string
	decl             *validate.Declaration
	con              *validate.Contract
}

// newWorld creates the namespaces and parses the inputs; edit, when not
// nil, rewrites the declaration's YAML first.
func newWorld(t testing.TB, env *kubetest.Env, edit func(string) string) *world {
	t.Helper()
	w := &world{env: env, ns: env.Namespace(t), argocd: env.Namespace(t), ceph: env.Namespace(t)}
	decl := declarationYAML
	if edit != nil {
		decl = edit(decl)
	}
	d, ps := validate.ParseDeclaration("code-location.manifest.yaml", []byte(decl))
	if len(ps) > 0 {
		t.Fatalf("declaration: %v", ps)
	}
	c, ps := validate.ParseContract("contract.yaml", []byte(w.subst(contractYAML)))
	if len(ps) > 0 {
		t.Fatalf("contract: %v", ps)
	}
	w.decl, w.con = d, c
	return w
}

// subst replaces {{ns}}, {{argocd}} and {{ceph}}.
func (w *world) subst(s string) string {
	return strings.NewReplacer("{{ns}}", w.ns, "{{argocd}}", w.argocd, "{{ceph}}", w.ceph).Replace(s)
}

// exampleNamespaceRef is an example namespace where YAML names one: the
// value of a namespace or argocdNamespace key, or the namespace of a
// ServiceAccounts group. Other words are left alone: "dagster" is also the
// name of the Dagster chart's objects (dagster-instance, ServiceAccount
// dagster) and of the contract's dagster section, "rook-ceph" the start
// of storage class names.
var exampleNamespaceRef = regexp.MustCompile(`(\bnamespace: *|\bargocdNamespace: *|system:serviceaccounts:)(dagster|argocd|rook-ceph)([^-.\w]|$)`)

// exampleNamespaces maps the example namespaces of testdata/*.yaml, of the
// example contract and of rendered objects to the test's.
func (w *world) exampleNamespaces(s string) string {
	ns := map[string]string{"dagster": w.ns, "argocd": w.argocd, "rook-ceph": w.ceph}
	return exampleNamespaceRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := exampleNamespaceRef.FindStringSubmatch(m)
		return sub[1] + ns[sub[2]] + sub[3]
	})
}

// withServiceAccount makes a declaration depend on the Dagster chart's
// ServiceAccount dagster too (the contract offers it): its pods, or its
// run pods, run as it.
func withServiceAccount(decl string) string {
	return strings.Replace(decl, "dependsOn:\n", "dependsOn:\n  serviceAccounts: [dagster]\n", 1)
}

// withoutPlatform drops the declaration's platform ConfigMaps and
// ServiceAccounts.
func withoutPlatform(decl string) string {
	return regexp.MustCompile(`(?m)^  (configMaps|serviceAccounts): .*\n`).ReplaceAllString(decl, "")
}

// state is the cluster state a case sets up; good() passes every check.
type state struct {
	secrets []string
	// configMaps and serviceAccounts are the platform's (the Dagster
	// chart's), by name.
	configMaps      []string
	serviceAccounts []string
	claims          map[string]claim
	records         map[string]string // code-location -> data.ready ("" = no record)
	// recordMeta, for a code-location listed, replaces its record's labels
	// and annotations (YAML flow entries of metadata, {{ns}} substituted);
	// by default they are trackedRecord(cl, cl, annotationTracking).
	recordMeta map[string]string
	apps       map[string][2]string // code-location -> sync, health ("" = no Application)
	quota      *quota
	ceph       *cephCapacity
	pods       []pod
}

type claim struct{ phase, class, maxSize string }

type quota struct{ hardCPU, usedCPU, hardMem, usedMem string }

type cephCapacity struct{ available, total string }

type pod struct {
	name, namespace, node, cpu, memory, phase string
	labels                                    map[string]string
}

func good() *state {
	return &state{
		secrets:         []string{"pgvector-pg-auth", "dagster-postgresql-secret"},
		configMaps:      []string{"dagster-instance", "dagster-pipeline-env"},
		serviceAccounts: []string{"dagster"},
		claims:          map[string]claim{"atlas-datalake": {"Bound", "rook-ceph-datalake", "100Gi"}},
		records:         map[string]string{"mediawatch": "true"},
		apps:            map[string][2]string{"mediawatch": {"Synced", "Healthy"}},
		quota:           &quota{hardCPU: "4", usedCPU: "1", hardMem: "16Gi", usedMem: "4Gi"},
		ceph:            &cephCapacity{available: "3Ti", total: "6Ti"},
	}
}

// yaml renders the state as objects for w's namespaces.
func (s *state) yaml(w *world) string {
	var b strings.Builder
	doc := func(format string, args ...any) { fmt.Fprintf(&b, "---\n"+format+"\n", args...) }
	for _, name := range s.secrets {
		doc("apiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: %s}\nstringData: {username: app, password: s3cret}", name, w.ns)
	}
	for _, name := range s.configMaps {
		doc("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\ndata: {config: platform-only}", name, w.ns)
	}
	for _, name := range s.serviceAccounts {
		doc("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}", name, w.ns)
	}
	for _, name := range slices.Sorted(maps.Keys(s.claims)) {
		c := s.claims[name]
		size := ""
		if c.maxSize != "" {
			size = fmt.Sprintf("additionalConfig: {maxSize: %q}", c.maxSize)
		}
		doc("apiVersion: objectbucket.io/v1alpha1\nkind: ObjectBucketClaim\nmetadata: {name: %s, namespace: %s}\nspec:\n  storageClassName: %s\n  generateBucketName: %s\n  %s\nstatus: {phase: %q}",
			name, w.ns, c.class, name, size, c.phase)
	}
	for _, name := range slices.Sorted(maps.Keys(s.records)) {
		meta, ok := s.recordMeta[name]
		if !ok {
			meta = trackedRecord(name, name, annotationTracking)
		}
		doc("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: codeloc-%s, namespace: %s, %s}\ndata: {codeLocation: %s, revision: 5d2e8b4, contractVersion: \"3\", ready: %q, dependsOn: \"\"}",
			name, w.ns, w.subst(meta), name, s.records[name])
	}
	for _, name := range slices.Sorted(maps.Keys(s.apps)) {
		a := s.apps[name]
		doc("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: %s, namespace: %s}\nspec: {project: default}\nstatus: {sync: {status: %s}, health: {status: %s}}",
			name, w.argocd, a[0], a[1])
	}
	// Pods before the quota: without a quota controller, quota admission
	// would count them against a status the test sets by hand.
	for _, p := range s.pods {
		ns := p.namespace
		if ns == "" {
			ns = w.ns
		}
		labels := ""
		for k, v := range p.labels {
			labels += fmt.Sprintf("%q: %q, ", k, v)
		}
		status := ""
		if p.phase != "" {
			status = fmt.Sprintf("\nstatus: {phase: %s}", p.phase)
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: %s, labels: {%s}}\nspec:\n  nodeName: %q\n  containers: [{name: c, image: busybox, resources: {requests: {cpu: %q, memory: %q}}}]%s",
			p.name, ns, strings.TrimSuffix(labels, ", "), p.node, p.cpu, p.memory, status)
	}
	if q := s.quota; q != nil {
		doc(`apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: %s}
spec: {hard: {requests.cpu: %q, requests.memory: %q}}
status:
  hard: {requests.cpu: %q, requests.memory: %q}
  used: {requests.cpu: %q, requests.memory: %q}`, w.ns, q.hardCPU, q.hardMem, q.hardCPU, q.hardMem, q.usedCPU, q.usedMem)
	}
	if c := s.ceph; c != nil {
		doc("apiVersion: ceph.rook.io/v1\nkind: CephCluster\nmetadata: {name: rook-ceph, namespace: %s}\nspec: {}\nstatus: {ceph: {health: HEALTH_OK, capacity: {bytesAvailable: %d, bytesTotal: %d}}}",
			w.ceph, byteCount(c.available), byteCount(c.total))
	}
	return b.String()
}

// How Argo CD tracks the objects an Application manages.
const (
	annotationTracking = "annotation" // 3.x's default
	labelTracking      = "label"      // 2.x's default
	noTracking         = "none"       // applied by hand
)

// trackedRecord is the metadata (labels, annotations) of code-location
// cl's record as Argo CD applies it for the Application app, tracking it
// by annotation or label: codeloc's labels, and Argo CD's tracking.
func trackedRecord(cl, app, tracking string) string {
	labels := fmt.Sprintf("%q: codeloc, %q: %s", names.LabelManagedBy, names.LabelCodeLocation, cl)
	switch tracking {
	case annotationTracking:
		return fmt.Sprintf("labels: {%s}, annotations: {%q: %q}", labels, names.AnnoTrackingID, names.TrackingID(app, "", "ConfigMap", "{{ns}}", names.RecordName(cl)))
	case labelTracking:
		return fmt.Sprintf("labels: {%s, %q: %s}", labels, names.LabelAppInstance, app)
	}
	return fmt.Sprintf("labels: {%s}", labels)
}

// apply creates the state in the cluster.
func (w *world) apply(t testing.TB, s *state) {
	t.Helper()
	w.env.ApplyYAML(t, w.ns, s.yaml(w))
}

func byteCount(s string) int64 {
	q := resource.MustParse(s)
	return q.Value()
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// lines renders problems one per line, sorted.
func lines(ps problem.Problems) string {
	if len(ps) == 0 {
		return ""
	}
	return ps.Error()
}

// readTestdata reads a file of testdata/.
func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
