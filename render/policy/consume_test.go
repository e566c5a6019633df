package policy

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/hasher"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/validate"
)

// consumePod is a Pod whose spec is the YAML spec (indented by 2).
func noDisk(s string) string { return strings.Replace(s, ", disk: 20Gi", "", 1) }

func noBucket(s string) string {
	return strings.Replace(s, "  buckets: [{name: atlas-datalake, size: 100Gi, storageClass: rook-ceph-datalake}]\n", "", 1)
}

func TestCheckConsumption(t *testing.T) {
	tests := []struct {
		name   string
		decl   func(string) string
		stream string
		want   []string
	}{
		{name: "declared secret, own ConfigMaps, declared bucket, data claim, own ServiceAccount", stream: `
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-config-7h2k9m4b5f}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-dagster}
---
` + consumePod(`  serviceAccountName: citation-dagster
  imagePullSecrets: [{name: pgvector-pg-auth}]
  initContainers:
    - name: init
      envFrom: [{configMapRef: {name: citation-config-7h2k9m4b5f}}]
  containers:
    - name: app
      env:
        - {name: PGPASSWORD, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: password}}}
        - {name: MODE, valueFrom: {configMapKeyRef: {name: citation-config-7h2k9m4b5f, key: mode}}}
        - {name: PLAIN, value: x}
        - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
      envFrom:
        - {secretRef: {name: atlas-datalake}, prefix: S3_}
        - {configMapRef: {name: atlas-datalake}, prefix: S3_}
  volumes:
    - {name: data, persistentVolumeClaim: {claimName: citation-data}}
    - {name: auth, secret: {secretName: pgvector-pg-auth}}
    - {name: cfg, configMap: {name: citation-config-7h2k9m4b5f}}
    - name: all
      projected:
        sources:
          - secret: {name: pgvector-pg-auth}
          - configMap: {name: citation-config-7h2k9m4b5f}
          - serviceAccountToken: {path: token}
    - {name: tmp, emptyDir: {}}`)},

		{name: "undeclared secret in every field that names one", stream: consumePod(`  imagePullSecrets: [{name: regcred}]
  containers:
    - name: app
      env: [{name: X, valueFrom: {secretKeyRef: {name: other, key: k}}}]
      envFrom: [{secretRef: {name: other}}]
  ephemeralContainers:
    - name: debug
      envFrom: [{secretRef: {name: other}}]
  volumes:
    - {name: a, secret: {secretName: other}}
    - {name: b, projected: {sources: [{secret: {name: other}}]}}
    - {name: c, csi: {driver: x, nodePublishSecretRef: {name: other}}}
    - {name: d, rbd: {monitors: [m], image: i, secretRef: {name: other}}}
    - {name: e, cephfs: {monitors: [m], secretRef: {name: other}}}
    - {name: f, iscsi: {targetPortal: p, iqn: q, lun: 0, secretRef: {name: other}}}
    - {name: g, flexVolume: {driver: x, secretRef: {name: other}}}
    - {name: h, cinder: {volumeID: v, secretRef: {name: other}}}
    - {name: i, scaleIO: {gateway: g, system: s, secretRef: {name: other}}}
    - {name: j, storageos: {volumeName: v, secretRef: {name: other}}}
    - {name: k, azureFile: {secretName: other, shareName: s}}`), want: []string{
			"consume-secret Pod/citation-pod.spec.containers[0].envFrom[0].secretRef.name",
			"consume-secret Pod/citation-pod.spec.containers[0].env[0].valueFrom.secretKeyRef.name",
			"consume-secret Pod/citation-pod.spec.ephemeralContainers[0].envFrom[0].secretRef.name",
			"consume-secret Pod/citation-pod.spec.imagePullSecrets[0].name",
			"consume-secret Pod/citation-pod.spec.volumes[0].secret.secretName",
			"consume-secret Pod/citation-pod.spec.volumes[10].azureFile.secretName",
			"consume-secret Pod/citation-pod.spec.volumes[1].projected.sources[0].secret.name",
			"consume-secret Pod/citation-pod.spec.volumes[2].csi.nodePublishSecretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[3].rbd.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[4].cephfs.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[5].iscsi.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[6].flexVolume.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[7].cinder.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[8].scaleIO.secretRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[9].storageos.secretRef.name",
		}},

		{name: "optional references are consumption too", stream: consumePod(`  containers:
    - name: app
      env: [{name: X, valueFrom: {secretKeyRef: {name: other, key: k, optional: true}}}]
      envFrom: [{configMapRef: {name: missing, optional: true}}]
  volumes:
    - {name: a, secret: {secretName: other, optional: true}}`), want: []string{
			"consume-configmap Pod/citation-pod.spec.containers[0].envFrom[0].configMapRef.name",
			"consume-secret Pod/citation-pod.spec.containers[0].env[0].valueFrom.secretKeyRef.name",
			"consume-secret Pod/citation-pod.spec.volumes[0].secret.secretName",
		}},

		{name: "a bucket the declaration does not list", decl: noBucket, stream: consumePod(`  containers:
    - name: app
      envFrom: [{secretRef: {name: atlas-datalake}}, {configMapRef: {name: atlas-datalake}}]`), want: []string{
			"consume-configmap Pod/citation-pod.spec.containers[0].envFrom[1].configMapRef.name",
			"consume-secret Pod/citation-pod.spec.containers[0].envFrom[0].secretRef.name",
		}},

		{name: "ConfigMaps not shipped: records, codeloc's own, another group's", stream: `
apiVersion: example.com/v1
kind: ConfigMap
metadata: {name: citation-fake}
---
` + consumePod(`  containers:
    - name: app
      env: [{name: R, valueFrom: {configMapKeyRef: {name: codeloc-mediawatch, key: ready}}}]
      envFrom: [{configMapRef: {name: codeloc-citation}}, {configMapRef: {name: citation-preflight}}, {configMapRef: {name: citation-fake}}]
  volumes:
    - {name: a, configMap: {name: mediawatch-dagster-config}}
    - {name: b, projected: {sources: [{configMap: {name: codeloc-mediawatch}}]}}`), want: []string{
			"consume-configmap Pod/citation-pod.spec.containers[0].envFrom[0].configMapRef.name",
			"consume-configmap Pod/citation-pod.spec.containers[0].envFrom[1].configMapRef.name",
			"consume-configmap Pod/citation-pod.spec.containers[0].envFrom[2].configMapRef.name",
			"consume-configmap Pod/citation-pod.spec.containers[0].env[0].valueFrom.configMapKeyRef.name",
			"consume-configmap Pod/citation-pod.spec.volumes[0].configMap.name",
			"consume-configmap Pod/citation-pod.spec.volumes[1].projected.sources[0].configMap.name",
		}},

		{name: "claims other than the data claim", stream: consumePod(`  containers: [{name: app}]
  volumes:
    - {name: a, persistentVolumeClaim: {claimName: mediawatch-data}}
    - {name: b, persistentVolumeClaim: {claimName: citation-scratch}}`), want: []string{
			"consume-volume-claim Pod/citation-pod.spec.volumes[0].persistentVolumeClaim.claimName",
			"consume-volume-claim Pod/citation-pod.spec.volumes[1].persistentVolumeClaim.claimName",
		}},

		{name: "the data claim without resources.disk", decl: noDisk, stream: consumePod(`  containers: [{name: app}]
  volumes: [{name: a, persistentVolumeClaim: {claimName: citation-data}}]`), want: []string{
			"consume-volume-claim Pod/citation-pod.spec.volumes[0].persistentVolumeClaim.claimName",
		}},

		{name: "block storage shipped: claim, claim templates, ephemeral volumes", stream: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: citation-big}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Ti}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: citation-db}
spec:
  serviceName: citation-db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db}]
      volumes:
        - name: scratch
          ephemeral:
            volumeClaimTemplate:
              spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
    - metadata: {name: wal}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`, want: []string{
			"block-storage-undeclared PersistentVolumeClaim/citation-big",
			"block-storage-undeclared StatefulSet/citation-db.spec.template.spec.volumes[0].ephemeral.volumeClaimTemplate",
			"block-storage-undeclared StatefulSet/citation-db.spec.volumeClaimTemplates[0]",
			"block-storage-undeclared StatefulSet/citation-db.spec.volumeClaimTemplates[1]",
		}},

		{name: "ServiceAccounts: preflight accounts, not shipped, deprecated field, pull secrets of a shipped one", stream: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-dagster}
imagePullSecrets: [{name: pgvector-pg-auth}, {name: regcred}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-preflight}
---
apiVersion: batch/v1
kind: Job
metadata: {name: citation-a}
spec: {template: {spec: {serviceAccountName: mediawatch-preflight, containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-b}
spec: {schedule: "@daily", jobTemplate: {spec: {template: {spec: {serviceAccountName: citation-preflight, containers: [{name: c}]}}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: citation-c}
spec: {selector: {}, template: {spec: {serviceAccount: mediawatch-dagster, containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: citation-d}
spec: {selector: {}, template: {spec: {serviceAccountName: citation-dagster, serviceAccount: citation-dagster, containers: [{name: c}]}}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: citation-e}
spec: {template: {spec: {serviceAccountName: default, serviceAccount: citation-old, containers: [{name: c}]}}}
`, want: []string{
			"consume-secret ServiceAccount/citation-dagster.imagePullSecrets[1].name",
			"consume-service-account CronJob/citation-b.spec.jobTemplate.spec.template.spec.serviceAccountName",
			"consume-service-account DaemonSet/citation-c.spec.template.spec.serviceAccount",
			"consume-service-account Job/citation-a.spec.template.spec.serviceAccountName",
			"consume-service-account ReplicationController/citation-e.spec.template.spec.serviceAccount",
		}},

		{name: "objects the policy refuses are left to it", stream: `
apiVersion: v1
kind: Secret
metadata: {name: other}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: citation-pv}
spec: {claimRef: {name: x}}
---
apiVersion: objectbucket.io/v1alpha1
kind: ObjectBucketClaim
metadata: {name: other-bucket}
---
` + consumePod(`  containers:
    - name: app
      envFrom: [{secretRef: {name: other}}, {secretRef: {name: other-bucket}}]`), want: []string{
			"consume-secret Pod/citation-pod.spec.containers[0].envFrom[0].secretRef.name",
			"consume-secret Pod/citation-pod.spec.containers[0].envFrom[1].secretRef.name",
		}},

		{name: "a field of the wrong type does not hide the others", stream: consumePod(`  containers:
    - name: app
      env: "X=1"
      envFrom: [{secretRef: {name: other}}]
    - name: b
      image: [x]
      envFrom: [{configMapRef: {name: missing}}]`), want: []string{
			"consume-configmap Pod/citation-pod.spec.containers[1].envFrom[0].configMapRef.name",
			"consume-secret Pod/citation-pod.spec.containers[0].envFrom[0].secretRef.name",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, tt.decl)
			ps := check(t, consumptionRule{}, in, parseObjects(t, tt.stream))
			var got []string
			for _, p := range ps.Sorted() {
				got = append(got, p.Code+" "+p.Path)
				if p.Message == "" || p.Hint == "" {
					t.Errorf("%s: message %q, hint %q", p.Path, p.Message, p.Hint)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckConsumptionMessages(t *testing.T) {
	tests := []struct {
		decl  func(string) string
		spec  string
		want  string // message (hint)
		extra string // objects shipped beside the pod
	}{
		// An optional reference: the fix is the code-location's own.
		{spec: `  containers: [{name: a, env: [{name: X, valueFrom: {secretKeyRef: {name: dagster-postgresql-secret, key: k, optional: true}}}]}]`,
			want: `Secret "dagster-postgresql-secret" is neither declared in dependsOn.secrets nor the Secret of a declared bucket (the reference is optional, so the pods start without it: drop it, or declare it: add dagster-postgresql-secret to dependsOn.secrets)`},
		{spec: `  volumes: [{name: a, configMap: {name: dagster-instance, optional: true}}]`,
			want: `ConfigMap "dagster-instance" is the platform's, and the declaration does not name it (the reference is optional, so the pods start without it: drop it, or declare it: add dagster-instance to dependsOn.configMaps)`},
		{spec: `  containers: [{name: a, envFrom: [{secretRef: {name: atlas-datalake, optional: true}}]}]`, decl: noBucket,
			want: `Secret "atlas-datalake" is neither declared in dependsOn.secrets nor the Secret of a declared bucket (the reference is optional, so the pods start without it: drop it, or declare bucket atlas-datalake in dependsOn.buckets)`},
		// Shipped under the name kustomize gave it.
		{spec: `  containers: [{name: a, envFrom: [{configMapRef: {name: citation-settings}}]}]`,
			extra: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-settings-7h2k9m4b5f}\n---\n",
			want:  `ConfigMap "citation-settings" is not shipped by this render, declared, nor a declared bucket's (the render ships it as citation-settings-7h2k9m4b5f: its generator added a hash suffix, in the references kustomize knows but not in a Dagster container context's JSON; set options: {disableNameSuffixHash: true} on the generator and write citation-settings here, as the hash changes with the content)`},
		{spec: `  serviceAccountName: runner`,
			extra: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: citation-runner}\n---\n",
			want:  `ServiceAccount "runner" is neither shipped by this render nor declared (the render ships it as citation-runner: kustomize's namePrefix renamed it, in the references kustomize knows but not in a Dagster container context's JSON; write citation-runner here, or with the Dagster chart set fullnameOverride, which writes one name into the object and the context)`},
		{spec: `  serviceAccountName: runner`,
			extra: "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: citation-runner-7h2k9m4b5f}\n---\n",
			want:  `ServiceAccount "runner" is neither shipped by this render nor declared (ship a ServiceAccount named runner in the kustomize root, declare one the contract offers in dependsOn.serviceAccounts, or remove the field to run as default)`},
		{spec: `  containers: [{name: a, env: [{name: X, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: password}}}]}]`,
			decl: func(s string) string {
				return strings.NewReplacer("  database: [pgvector]\n", "", "  secrets: [pgvector-pg-auth]\n", "").Replace(s)
			},
			want: `Secret "pgvector-pg-auth" is neither declared in dependsOn.secrets nor the Secret of a declared bucket (declare it: add pgvector-pg-auth to dependsOn.secrets, so that the preflight checks it exists before the pods start)`},
		{spec: `  containers: [{name: a, envFrom: [{secretRef: {name: atlas-datalake}}]}]`, decl: noBucket,
			want: `Secret "atlas-datalake" is neither declared in dependsOn.secrets nor the Secret of a declared bucket (it is bucket atlas-datalake's credentials: declare the bucket in dependsOn.buckets (codeloc then injects its ATLAS_DATALAKE_* variables))`},
		{spec: `  containers: [{name: a, envFrom: [{secretRef: {name: mediawatch-api-token}}]}]`,
			want: `Secret "mediawatch-api-token" is neither declared in dependsOn.secrets nor the Secret of a declared bucket (the cluster contract offers no secret mediawatch-api-token: ask the platform to provide it, then declare it in dependsOn.secrets)`},
		{spec: `  containers: [{name: a, envFrom: [{configMapRef: {name: codeloc-mediawatch}}]}]`,
			want: `ConfigMap "codeloc-mediawatch" is the record codeloc publishes for code-location mediawatch, not a ConfigMap of this code-location (records are read by codeloc's preflights only: to wait for mediawatch declare it in dependsOn.codeLocations; ship your own settings in a ConfigMap of the kustomize root)`},
		{spec: `  containers: [{name: a, envFrom: [{configMapRef: {name: atlas-datalake}}]}]`, decl: noBucket,
			want: `ConfigMap "atlas-datalake" belongs to bucket atlas-datalake, which the declaration does not list (declare the bucket in dependsOn.buckets (codeloc then injects its ATLAS_DATALAKE_* variables))`},
		{spec: `  containers: [{name: a, envFrom: [{configMapRef: {name: settings}}]}]`,
			want: `ConfigMap "settings" is not shipped by this render, declared, nor a declared bucket's (ship it in the kustomize root (resources or configMapGenerator), or declare one the contract offers in dependsOn.configMaps: a code-location's pods read only its own ConfigMaps, the declared ones and its declared buckets')`},
		{spec: `  volumes: [{name: a, persistentVolumeClaim: {claimName: citation-data}}]`, decl: noDisk,
			want: `PersistentVolumeClaim "citation-data" exists only when resources.disk is declared (declare resources.disk in code-location.manifest.yaml: codeloc then provides citation-data on the cluster's block storage)`},
		{spec: `  volumes: [{name: a, persistentVolumeClaim: {claimName: shared}}]`,
			want: `PersistentVolumeClaim "shared" is not the code-location's claim citation-data (mount citation-data, the claim codeloc provides for resources.disk)`},
		{spec: `  volumes: [{name: a, persistentVolumeClaim: {claimName: shared}}]`, decl: noDisk,
			want: `PersistentVolumeClaim "shared" is not the code-location's claim citation-data (declare resources.disk in code-location.manifest.yaml and mount citation-data, the claim codeloc then provides)`},
		{spec: `  volumes: [{name: a, ephemeral: {volumeClaimTemplate: {spec: {}}}}]`,
			want: `a generic ephemeral volume gives each pod its own PersistentVolumeClaim: block storage the declaration does not name (use an emptyDir (with a sizeLimit) for scratch space, or declare resources.disk and mount citation-data)`},
		{spec: `  serviceAccountName: mediawatch-preflight`,
			want: `ServiceAccount "mediawatch-preflight" is the account of codeloc's preflight pod for code-location mediawatch (run as default or as a ServiceAccount the code-location ships (not named <name>-preflight): preflight accounts carry codeloc's read grants)`},
		{spec: `  containers: [{name: a, env: [{name: X, valueFrom: {secretKeyRef: {key: password}}}]}]`,
			want: `the reference names no Secret (set the name: the API server refuses an empty one)`},
		{spec: `  volumes: [{name: a, persistentVolumeClaim: {claimName: ""}}]`,
			want: `the reference names no PersistentVolumeClaim (set the name: the API server refuses an empty one)`},
		{spec: `  serviceAccountName: citation-runner`,
			want: `ServiceAccount "citation-runner" is neither shipped by this render nor declared (ship a ServiceAccount named citation-runner in the kustomize root, declare one the contract offers in dependsOn.serviceAccounts, or remove the field to run as default)`},
	}
	for _, tt := range tests {
		in := consumeInstance(t, tt.decl)
		ps := check(t, consumptionRule{}, in, parseObjects(t, tt.extra+consumePod(tt.spec)))
		if len(ps) != 1 {
			t.Errorf("%s: %d problems, want 1: %v", tt.spec, len(ps), ps)
			continue
		}
		if got := ps[0].Message + " (" + ps[0].Hint + ")"; got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.spec, got, tt.want)
		}
	}
}

func TestCheckConsumptionBlockStorageMessages(t *testing.T) {
	stream := `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: citation-big}
spec: {resources: {requests: {storage: 10Ti}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: citation-db}
spec: {volumeClaimTemplates: [{metadata: {name: data}}]}
`
	for _, tt := range []struct {
		decl func(string) string
		want []string
	}{
		{nil, []string{
			"a code-location may not ship a PersistentVolumeClaim of 10Ti: block storage is declared, not shipped (remove it and mount citation-data, the claim codeloc provides for resources.disk)",
			"volumeClaimTemplates data gives each replica its own PersistentVolumeClaim: block storage the declaration does not name (remove it and mount citation-data, the claim codeloc provides for resources.disk)",
		}},
		{noDisk, []string{
			"a code-location may not ship a PersistentVolumeClaim of 10Ti: block storage is declared, not shipped (remove it: declare resources.disk and mount citation-data, the claim codeloc then provides)",
			"volumeClaimTemplates data gives each replica its own PersistentVolumeClaim: block storage the declaration does not name (remove it: declare resources.disk and mount citation-data, the claim codeloc then provides)",
		}},
	} {
		in := consumeInstance(t, tt.decl)
		var got []string
		for _, p := range check(t, consumptionRule{}, in, parseObjects(t, stream)).Sorted() {
			got = append(got, p.Message+" ("+p.Hint+")")
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	}
}

// TestConsumedSecretKeys: the keys the pods need from declared secrets,
// sorted and once each; optional references and other secrets left out.
func TestConsumedSecretKeys(t *testing.T) {
	tests := []struct {
		name, stream string
		want         map[string][]string
	}{
		{"none", consumePod(`  containers: [{name: a, envFrom: [{secretRef: {name: pgvector-pg-auth}}]}]`), nil},
		{"env, volume items and projections", consumePod(`  initContainers:
    - name: i
      env: [{name: U, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: username}}}]
  containers:
    - name: a
      env:
        - {name: P, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: password}}}
        - {name: U, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: username}}}
        - {name: O, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: maybe, optional: true}}}
        - {name: F, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: flagged, optional: false}}}
        - {name: B, valueFrom: {secretKeyRef: {name: atlas-datalake, key: AWS_ACCESS_KEY_ID}}}
        - {name: X, valueFrom: {secretKeyRef: {name: other, key: token}}}
  volumes:
    - {name: v, secret: {secretName: pgvector-pg-auth, items: [{key: ca.crt, path: ca.crt}]}}
    - {name: w, secret: {secretName: pgvector-pg-auth, optional: true, items: [{key: opt, path: opt}]}}
    - {name: p, projected: {sources: [{secret: {name: pgvector-pg-auth, items: [{key: tls.key, path: k}]}}]}}`),
			map[string][]string{"pgvector-pg-auth": {"ca.crt", "flagged", "password", "tls.key", "username"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, nil)
			check(t, consumptionRule{}, in, parseObjects(t, tt.stream))
			if diff := cmp.Diff(tt.want, in.secretKeys); diff != "" {
				t.Errorf("secret keys (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkCheckConsumption walks the allpaths fixture's objects as
// kustomize builds them: microseconds, next to milliseconds for a render.
func BenchmarkCheckConsumption(b *testing.B) {
	root := filepath.Join("..", "..", "fixtures", "allpaths")
	built := build.Build(fsys.Disk(), root, build.Options{})
	objs := built.Objects
	if objs == nil {
		b.Fatal(built.Problems)
	}
	c := exampleContract(b, nil)
	d, problems := validate.LoadDeclaration(root)
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	in := NewContext(d, c, build.NewLocator(filepath.Join(root, "kustomization.yaml")))
	b.ReportAllocs()
	for b.Loop() {
		if ps := check(b, consumptionRule{}, in, objs); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}

// TestWithoutHashSuffix holds the cut to what kustomize's generators append
// (its own hasher's output) and to the pattern `-[2456789bcdfghkmt]{10}$`
// on names that are not theirs.
func TestWithoutHashSuffix(t *testing.T) {
	var h hasher.Hasher
	for i := range 200 {
		cm, err := yaml.Parse(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {k: v%d}\n", i))
		if err != nil {
			t.Fatal(err)
		}
		suffix, err := h.Hash(cm)
		if err != nil {
			t.Fatal(err)
		}
		if core, ok := withoutHashSuffix("dagster-app-" + suffix); core != "dagster-app" || !ok {
			t.Errorf("withoutHashSuffix(dagster-app-%s) = %q, %v; want dagster-app, true", suffix, core, ok)
		}
	}
	pattern := regexp.MustCompile(`-[2456789bcdfghkmt]{10}$`)
	names := []string{"", "-", "a", "-2456789bcd", "x-2456789bcd", "x-2456789bc", "x-2456789bcde", "x_2456789bcd",
		"x--2456789bcd", "x-24567-9bcd", "x-aaaaaaaaaa", "x-GHKMT24567", "x-ghkmt245678", "x-ghkmt24567é", "é-ghkmt24567"}
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "-0123456789abcdefghijklmnopqrstuvwxyz"
	for range 5000 {
		b := make([]byte, rng.IntN(16))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		names = append(names, string(b))
	}
	for _, name := range names {
		wantCore, wantOK := name, false
		if loc := pattern.FindStringIndex(name); loc != nil {
			wantCore, wantOK = name[:loc[0]], true
		}
		if core, ok := withoutHashSuffix(name); core != wantCore || ok != wantOK {
			t.Errorf("withoutHashSuffix(%q) = %q, %v; want %q, %v", name, core, ok, wantCore, wantOK)
		}
	}
}
