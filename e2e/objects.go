package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/internal/kubetest"
)

// The contract's database and the credentials Secret the harness creates.
const (
	dbName       = "pgvector"
	dbSecretName = "pgvector-pg-auth"
)

// installClusterObjects writes the contract and creates what the platform
// provides: namespaces, the preflight RBAC and the admission policy of
// sidecar/install, the database credentials and the ObjectBucketClaim CRD.
func (h *harness) installClusterObjects(ctx context.Context) error {
	var err error
	if h.healthLua, err = loadHealthLua(); err != nil {
		return err
	}
	if err := h.prepareDagster(); err != nil {
		return err
	}
	if err := h.writeContract(); err != nil {
		return err
	}
	if err := h.applyYAML(ctx, "", namespacesYAML); err != nil {
		return err
	}
	if err := h.applyFile(ctx, appNS, "../sidecar/install/preflight-rbac.yaml"); err != nil {
		return err
	}
	// The admission policy of the code-locations' pods: cluster/apps
	// holds their bindings, their renders the params.
	if err := h.applyFile(ctx, "", "../"+appofapps.AdmissionPolicyFile); err != nil {
		return err
	}
	if err := h.env.InstallCRDsContext(ctx, kubetest.CRDObjectBucketClaim); err != nil {
		return err
	}
	if err := h.applyYAML(ctx, appNS, platformObjectsYAML); err != nil {
		return err
	}
	if _, err = h.kube.CoreV1().ConfigMaps(appNS).Create(ctx, h.instanceConfigMap(), metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err = h.kube.CoreV1().ConfigMaps(appNS).Create(ctx, h.pipelineEnv(), metav1.CreateOptions{})
	return err
}

// pipelineEnv is the platform's env ConfigMap of every code server and
// run pod (the chart's pipelineRun env): DAGSTER_HOME, and libpq's
// variables naming the contract's database (the harness's PostgreSQL).
func (h *harness) pipelineEnv() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dagster-pipeline-env"}, Data: map[string]string{
		"DAGSTER_HOME": "/opt/dagster/dagster_home",
		"PGHOST":       "127.0.0.1", "PGPORT": strconv.Itoa(h.pgPort), "PGDATABASE": dbName, "PGSSLMODE": "disable",
	}}
}

const namespacesYAML = `apiVersion: v1
kind: Namespace
metadata: {name: argocd}
---
apiVersion: v1
kind: Namespace
metadata: {name: dagster}
---
apiVersion: v1
kind: Namespace
metadata: {name: rook-ceph}
`

// platformObjectsYAML: the database role's Secret (trust authentication:
// the password is not checked) and the platform's Dagster objects (the
// instance ConfigMap, dagster-instance, is instanceConfigMap's). The
// bucket's ObjectBucketClaim comes from cluster/apps (codeloc application
// writes the contract's buckets); bindBuckets binds it.
const platformObjectsYAML = `apiVersion: v1
kind: Secret
metadata: {name: ` + dbSecretName + `}
stringData: {username: postgres, password: e2e}
---
apiVersion: v1
kind: Secret
metadata: {name: dagster-postgresql-secret}
stringData: {postgresql-password: e2e}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: dagster}
`

// writeContract writes the example contract of sidecar/install with the
// harness's database (127.0.0.1, no TLS) and one more declarable secret.
func (h *harness) writeContract() error {
	data, err := os.ReadFile("../sidecar/install/contract.yaml")
	if err != nil {
		return err
	}
	var c map[string]any
	if err := yaml.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("contract.yaml: %w", err)
	}
	c["dagster"] = map[string]any{"webserverURL": h.dagster.url, "workspaceConfigMap": workspaceConfigMap}
	dbs, _ := c["databases"].([]any)
	if len(dbs) == 0 {
		return fmt.Errorf("contract.yaml declares no database")
	}
	db := dbs[0].(map[string]any)
	db["host"], db["port"], db["sslMode"], db["dbname"] = "127.0.0.1", h.pgPort, "disable", dbName
	secrets, _ := c["secrets"].([]any)
	c["secrets"] = append(secrets, map[string]any{"name": lateSecret, "description": "e2e: declared, created late"})
	out, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	h.contractFile = filepath.Join(h.dir, "contract.yaml")
	return os.WriteFile(h.contractFile, out, 0o644)
}

// sql runs statements on database db as the superuser.
func (h *harness) sql(ctx context.Context, db, stmt string) error {
	conn, err := h.connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

func (h *harness) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(h.pgURL)
	if err != nil {
		return nil, err
	}
	cfg.Database = db
	return pgx.ConnectConfig(ctx, cfg)
}

// ledger returns the migration files the ledger records for a
// code-location, in order.
func (h *harness) ledger(ctx context.Context, codeLocation string) ([]string, error) {
	conn, err := h.connect(ctx, dbName)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('codeloc_schema_migrations') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := conn.Query(ctx, "SELECT name FROM codeloc_schema_migrations WHERE code_location = $1 ORDER BY name", codeLocation)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
