// Package benchrepo writes generated code-locations of any size for the
// benchmarks and the whole-process comparison (bench/compare.sh), so that
// both render the same inputs.
package benchrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloc/codeloc/validate"
)

// Kinds is the number of object kinds a generated repo holds in equal
// numbers (the first kinds one more when the size is not a multiple of
// it): its size in objects is at least Kinds.
const Kinds = 4

// kinds are the generated object kinds, one file each; the generated
// repo holds objects/len(kinds) of each, and one more of the first
// objects%len(kinds): ServiceAccounts and ConfigMaps before the
// Deployments that name them.
var kinds = [Kinds]struct {
	file string
	doc  func(i int) string
}{
	{"serviceaccounts.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
automountServiceAccountToken: false
`, i, i)
	}},
	{"configmaps.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
data:
  DAGSTER_CODE_LOCATION: gen
  WORKER_INDEX: "%d"
  workspace.yaml: |
    load_from:
      - python_module:
          module_name: gen.worker_%05d
          working_directory: /opt/dagster/app
`, i, i, i, i)
	}},
	{"services.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
spec:
  selector:
    app.kubernetes.io/name: gen-worker-%05d
  ports:
    - name: grpc
      port: 3030
      targetPort: grpc
`, i, i, i)
	}},
	{"deployments.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
    app.kubernetes.io/component: user-code
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: gen-worker-%05d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: gen-worker-%05d
        app.kubernetes.io/component: user-code
    spec:
      serviceAccountName: gen-worker-%05d
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        fsGroup: 1000
      containers:
        - name: dagster
          image: gen-dagster
          args: [%s, "-m", "gen.worker_%05d"]
          ports:
            - name: grpc
              containerPort: 3030
          envFrom:
            - configMapRef:
                name: gen-worker-%05d
          resources:
            requests:
              cpu: 1m
              memory: 4Mi
            limits:
              memory: 64Mi
          readinessProbe:
            grpc:
              port: 3030
            periodSeconds: 10
`, i, i, i, i, i, workerCommand(i), i, i)
	}},
}

// workerCommand: the first worker is the code-location's one Dagster code
// server, the others serve gRPC without being one.
func workerCommand(i int) string {
	if i == 0 {
		return `"dagster", "api", "grpc", "-h", "0.0.0.0", "-p", "3030"`
	}
	return `"python", "-m", "gen.grpc", "--port", "3030"`
}

// Revision is the generated code-location's declared revision.
const Revision = "0badc0ffee1234567890abcdef0123456789abcd"

// Write writes into dir a valid code-location "gen" whose kustomize
// root yields objects objects (ServiceAccounts, ConfigMaps, Services and
// Deployments in equal numbers, give or take one, one file per kind,
// images retagged by the kustomization) and which declares migrations
// SQL files, a database, its secret, a bucket and a disk, so that every
// part of Render runs. Each
// Deployment requests 1m cpu and 4Mi memory, so that up to 8,000 objects
// fit the declared 2 cpu and 8Gi.
func Write(dir string, objects, migrations int) error {
	if objects < len(kinds) {
		return fmt.Errorf("objects must be at least %d, not %d", len(kinds), objects)
	}
	if err := os.MkdirAll(filepath.Join(dir, validate.MigrationsDir), 0o755); err != nil {
		return err
	}
	files := map[string]string{}
	var kust strings.Builder
	kust.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for j, k := range kinds {
		n := objects / len(kinds)
		if j < objects%len(kinds) {
			n++
		}
		var sb strings.Builder
		for i := range n {
			if i > 0 {
				sb.WriteString("---\n")
			}
			sb.WriteString(k.doc(i))
		}
		files[k.file] = sb.String()
		fmt.Fprintf(&kust, "  - %s\n", k.file)
	}
	fmt.Fprintf(&kust, "images:\n  - name: gen-dagster\n    newName: registry:80/gen-dagster\n    newTag: %s\n", Revision)
	files["kustomization.yaml"] = kust.String()

	var decl strings.Builder
	fmt.Fprintf(&decl, `codeLocation: gen
ready: true
revision: %s
contractVersion: 3
resources:
  cpu: "2"
  memory: 8Gi
  disk: 20Gi
dependsOn:
  database: [pgvector]
  secrets: [pgvector-pg-auth]
  buckets:
    - name: atlas-datalake
      size: 100Gi
      storageClass: rook-ceph-datalake
`, Revision)
	if migrations > 0 {
		decl.WriteString("  migrations:\n")
	}
	for i := 1; i <= migrations; i++ {
		name := fmt.Sprintf("%03d-x.sql", i)
		fmt.Fprintf(&decl, "    - %s\n", name)
		files[filepath.Join(validate.MigrationsDir, name)] = fmt.Sprintf(`-- migration %d of the generated benchmark repo
CREATE TABLE IF NOT EXISTS events_%03d (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source     text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS events_%03d_created_at ON events_%03d (created_at);
`, i, i, i, i)
	}
	files[validate.ManifestFile] = decl.String()

	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
