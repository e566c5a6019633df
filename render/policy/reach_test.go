package policy

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/codeloc/codeloc/validate"
)

// reachPod is a Pod citation-pod whose spec is spec (indented by 2).
func reachPod(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: citation-pod}\nspec:\n" + spec + "\n"
}

// reachContract lists a CSI driver, an extended resource, a
// ResourceClaimTemplate, a PriorityClass and a RuntimeClass.
func reachContract(c *validate.Contract) {
	c.Policy.CSIDrivers = []string{"secrets-store.csi.k8s.io"}
	c.Policy.ExtendedResources = []string{"nvidia.com/gpu"}
	c.Policy.ResourceClaimTemplates = []string{"gpu-claim"}
	c.Policy.PriorityClasses = []string{"batch-low"}
	c.Policy.RuntimeClasses = []string{"gvisor"}
}

func TestCheckReach(t *testing.T) {
	const p = "Pod/citation-pod.spec"
	tests := []struct {
		name     string
		contract func(*validate.Contract)
		objects  string
		want     []string
	}{
		{name: "every allowed volume type and projection", objects: reachPod(`  containers: [{name: app, image: x}]
  volumes:
    - {name: a, configMap: {name: citation-config}}
    - {name: b, secret: {secretName: pgvector-pg-auth}}
    - name: c
      projected:
        sources:
          - configMap: {name: citation-config}
          - secret: {name: pgvector-pg-auth}
          - downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
          - serviceAccountToken: {path: token, audience: vault}
          - clusterTrustBundle: {signerName: example.com/ca, path: ca.pem}
    - {name: d, downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}}
    - {name: e, emptyDir: {sizeLimit: 1Gi}}
    - {name: f, emptyDir: {medium: Memory}}
    - {name: g, persistentVolumeClaim: {claimName: citation-data}}
    - {name: h, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}
    - {name: i}`)},

		{name: "network file systems, disks, drivers, fetches", objects: reachPod(`  containers: [{name: app, image: x}]
  volumes:
    - {name: a, nfs: {server: nfs.example.com, path: /exports}}
    - {name: b, cephfs: {monitors: [10.0.0.1]}}
    - {name: c, glusterfs: {endpoints: gluster, path: vol}}
    - {name: d, iscsi: {targetPortal: 10.0.0.1, iqn: iqn.x, lun: 0}}
    - {name: e, rbd: {monitors: [10.0.0.1], image: disk}}
    - {name: f, azureFile: {secretName: pgvector-pg-auth, shareName: s}}
    - {name: g, flexVolume: {driver: example.com/flex}}
    - {name: h, gitRepo: {repository: "https://example.com/x.git"}}
    - {name: i, image: {reference: registry:80/citation-data:1}}
    - {name: j, awsElasticBlockStore: {volumeID: vol-1}}
    - {name: k, emptyDir: {}, nfs: {server: nfs.example.com, path: /}}`), want: []string{
			`volume-type ` + p + `.volumes[0].nfs: volume "a" is nfs: it mounts a network file system the declaration does not name`,
			`volume-type ` + p + `.volumes[1].cephfs: volume "b" is cephfs: it mounts a network file system the declaration does not name`,
			`volume-type ` + p + `.volumes[2].glusterfs: volume "c" is glusterfs: it mounts a network file system the declaration does not name`,
			`volume-type ` + p + `.volumes[3].iscsi: volume "d" is iscsi: it attaches a disk of a storage network the declaration does not name`,
			`volume-type ` + p + `.volumes[4].rbd: volume "e" is rbd: it attaches a disk of a storage network the declaration does not name`,
			`volume-type ` + p + `.volumes[5].azureFile: volume "f" is azureFile: it mounts a network file system the declaration does not name`,
			`volume-type ` + p + `.volumes[6].flexVolume: volume "g" is flexVolume: a driver binary on the node mounts what it serves, outside the declaration`,
			`volume-type ` + p + `.volumes[7].gitRepo: volume "h" is gitRepo: the node clones a git repository when the pod starts, code outside the declared revision`,
			`volume-type ` + p + `.volumes[8].image: volume "i" is image: the node pulls an image or artifact as the volume, outside the rules on images`,
			`volume-type ` + p + `.volumes[9].awsElasticBlockStore: volume "j" is awsElasticBlockStore: it attaches a cloud disk the declaration does not name`,
			`volume-type ` + p + `.volumes[10].nfs: volume "k" is nfs: it mounts a network file system the declaration does not name`,
		}},

		{name: "hostPath is pod-security's at baseline, another type beside it is not", objects: reachPod(`  containers: [{name: app, image: x}]
  volumes: [{name: root, hostPath: {path: /}}, {name: both, hostPath: {path: /}, nfs: {server: s, path: /}}]`), want: []string{
			`volume-type ` + p + `.volumes[1].nfs: volume "both" is nfs: it mounts a network file system the declaration does not name`,
		}},

		{name: "at restricted, pod-security refuses the types; the CSI driver is still this rule's",
			contract: func(c *validate.Contract) { c.Policy.PodSecurity = validate.PodSecurityRestricted },
			objects: reachPod(`  containers: [{name: app, image: x}]
  volumes:
    - {name: a, nfs: {server: nfs.example.com, path: /}}
    - {name: b, csi: {driver: nfs.csi.k8s.io}}`), want: []string{
				`volume-type ` + p + `.volumes[1].csi.driver: volume "b" uses CSI driver "nfs.csi.k8s.io", which the contract's policy.csiDrivers does not list: a driver mounts whatever it serves, outside the declaration`,
			}},

		{name: "CSI drivers the contract lists", contract: reachContract, objects: reachPod(`  containers: [{name: app, image: x}]
  volumes:
    - {name: a, csi: {driver: secrets-store.csi.k8s.io, volumeAttributes: {secretProviderClass: citation}}}
    - {name: b, csi: {driver: Secrets-Store.csi.k8s.io}}`), want: []string{
			`volume-type ` + p + `.volumes[1].csi.driver: volume "b" uses CSI driver "Secrets-Store.csi.k8s.io", which the contract's policy.csiDrivers does not list: a driver mounts whatever it serves, outside the declaration`,
		}},

		{name: "extended resources, huge pages, in every kind of container", objects: reachPod(`  initContainers:
    - {name: init, image: x, resources: {limits: {example.com/fpga: 1}}}
  containers:
    - name: app
      image: x
      resources:
        requests: {cpu: 100m, memory: 64Mi, ephemeral-storage: 1Gi, nvidia.com/gpu: 1}
        limits: {memory: 64Mi, nvidia.com/gpu: 1, hugepages-2Mi: 64Mi}
  ephemeralContainers:
    - {name: debug, image: x, resources: {requests: {amd.com/gpu: 1}}}`), want: []string{
			`resource-extended ` + p + `.initContainers[0].resources.limits.example.com/fpga: container "init" limits example.com/fpga, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration`,
			`resource-extended ` + p + `.containers[0].resources.requests.nvidia.com/gpu: container "app" requests nvidia.com/gpu, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration`,
			`resource-extended ` + p + `.containers[0].resources.limits.hugepages-2Mi: container "app" limits hugepages-2Mi: huge pages are node memory reserved apart from the declared resources.memory`,
			`resource-extended ` + p + `.containers[0].resources.limits.nvidia.com/gpu: container "app" limits nvidia.com/gpu, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration`,
			`resource-extended ` + p + `.ephemeralContainers[0].resources.requests.amd.com/gpu: container "debug" requests amd.com/gpu, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration`,
		}},

		{name: "an extended resource the contract lists", contract: reachContract, objects: reachPod(`  containers:
    - {name: app, image: x, resources: {limits: {nvidia.com/gpu: 1, amd.com/gpu: 1}}}`), want: []string{
			`resource-extended ` + p + `.containers[0].resources.limits.amd.com/gpu: container "app" limits amd.com/gpu, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration`,
		}},

		{name: "resource claims", contract: reachContract, objects: reachPod(`  resourceClaims:
    - {name: gpu, resourceClaimTemplateName: gpu-claim}
    - {name: shared, resourceClaimName: citation-gpus}
    - {name: other, resourceClaimTemplateName: fpga-claim}
    - {name: none}
  containers:
    - name: app
      image: x
      resources: {claims: [{name: gpu}, {name: shared}, {name: missing}]}`), want: []string{
			`resource-claim ` + p + `.resourceClaims[1].resourceClaimName: claim "shared" uses the ResourceClaim "citation-gpus": devices allocated to whoever shares it, outside the declaration`,
			`resource-claim ` + p + `.resourceClaims[2].resourceClaimTemplateName: claim "other" comes from the ResourceClaimTemplate "fpga-claim", which the contract's policy.resourceClaimTemplates does not list`,
			`resource-claim ` + p + `.resourceClaims[3]: claim "none" names no ResourceClaimTemplate`,
			`resource-claim ` + p + `.containers[0].resources.claims[2].name: container "app" uses claim "missing", which is not among the pod's resourceClaims`,
		}},

		{name: "a ResourceClaimTemplate under the example contract", objects: reachPod(`  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-claim}]
  containers: [{name: app, image: x, resources: {claims: [{name: gpu}]}}]`), want: []string{
			`resource-claim ` + p + `.resourceClaims[0].resourceClaimTemplateName: claim "gpu" comes from the ResourceClaimTemplate "gpu-claim", which the contract's policy.resourceClaimTemplates does not list`,
		}},

		{name: "cluster-level references", objects: reachPod(`  priorityClassName: system-cluster-critical
  runtimeClassName: kata
  schedulerName: my-scheduler
  containers: [{name: app, image: x}]`), want: []string{
			`pod-cluster-ref ` + p + `.priorityClassName: PriorityClass "system-cluster-critical" is not in the contract's policy.priorityClasses: it ranks the pods against every code-location's, and may preempt theirs`,
			`pod-cluster-ref ` + p + `.runtimeClassName: RuntimeClass "kata" is not in the contract's policy.runtimeClasses: it picks the container runtime of the nodes`,
			`pod-cluster-ref ` + p + `.schedulerName: scheduler "my-scheduler" is not the cluster's default-scheduler: another scheduler places the pods outside the cluster's rules`,
		}},

		{name: "cluster-level references the contract lists, the default scheduler", contract: reachContract, objects: reachPod(`  priorityClassName: batch-low
  runtimeClassName: gvisor
  schedulerName: default-scheduler
  containers: [{name: app, image: x}]`)},

		{name: "a CronJob's pod, a cluster-provided kind left alone", objects: `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-refresh}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          priorityClassName: high
          containers: [{name: refresh, image: x}]
          volumes: [{name: src, gitRepo: {repository: "https://example.com/x.git"}}]
---
apiVersion: v1
kind: Secret
metadata: {name: citation-secret}
spec:
  volumes: [{name: src, gitRepo: {repository: x}}]
`, want: []string{
			`volume-type CronJob/citation-refresh.spec.jobTemplate.spec.template.spec.volumes[0].gitRepo: volume "src" is gitRepo: the node clones a git repository when the pod starts, code outside the declared revision`,
			`pod-cluster-ref CronJob/citation-refresh.spec.jobTemplate.spec.template.spec.priorityClassName: PriorityClass "high" is not in the contract's policy.priorityClasses: it ranks the pods against every code-location's, and may preempt theirs`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, tt.contract)
			got := podRuleLines(check(t, reachRule{}, in, parseObjects(t, tt.objects)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReachHints(t *testing.T) {
	tests := []struct {
		name     string
		contract func(*validate.Contract)
		disk     bool
		spec     string
		want     string
	}{
		{name: "a CSI driver, none offered", spec: `  volumes: [{name: a, csi: {driver: x.csi.k8s.io}}]`,
			want: "remove it: the platform offers code-locations no inline CSI driver; ask it to list one in policy.csiDrivers"},
		{name: "a CSI driver, some offered", contract: func(c *validate.Contract) { c.Policy.CSIDrivers = []string{"b.csi.k8s.io", "a.csi.k8s.io"} }, spec: `  volumes: [{name: a, csi: {driver: x.csi.k8s.io}}]`,
			want: "use one the platform lists in policy.csiDrivers (a.csi.k8s.io, b.csi.k8s.io), or remove it"},
		{name: "nfs without a disk", spec: `  volumes: [{name: a, nfs: {server: s, path: /}}]`,
			want: "use an emptyDir for scratch space, a declared bucket for shared files, or declare resources.disk and mount the claim citation-data; pods may use configMap, secret, projected, downwardAPI, emptyDir and persistentVolumeClaim volumes, and csi of a driver in the contract's policy.csiDrivers"},
		{name: "nfs with a disk", disk: true, spec: `  volumes: [{name: a, nfs: {server: s, path: /}}]`,
			want: "use an emptyDir for scratch space, a declared bucket for shared files, or the declared claim citation-data; pods may use configMap, secret, projected, downwardAPI, emptyDir and persistentVolumeClaim volumes, and csi of a driver in the contract's policy.csiDrivers"},
		{name: "gitRepo", spec: `  volumes: [{name: a, gitRepo: {repository: r}}]`,
			want: "build the files into the image at the declared revision; pods may use configMap, secret, projected, downwardAPI, emptyDir and persistentVolumeClaim volumes, and csi of a driver in the contract's policy.csiDrivers"},
		{name: "huge pages", spec: `  containers: [{name: app, image: x, resources: {limits: {hugepages-1Gi: 1Gi}}}]`,
			want: "remove it and request memory: a code-location's memory is what its declaration budgets"},
		{name: "a GPU, some offered", contract: reachContract, spec: `  containers: [{name: app, image: x, resources: {limits: {amd.com/gpu: 1}}}]`,
			want: "use one the platform lists in policy.extendedResources (nvidia.com/gpu), or remove it"},
		{name: "a shared ResourceClaim", spec: `  resourceClaims: [{name: g, resourceClaimName: gpus}]`,
			want: "set resourceClaimTemplateName to a ResourceClaimTemplate the platform lists in policy.resourceClaimTemplates: each pod then gets its own claim"},
		{name: "a PriorityClass, none offered", spec: `  priorityClassName: high`,
			want: "remove it: the platform offers code-locations no PriorityClass; ask it to list one in policy.priorityClasses"},
		{name: "a scheduler", spec: `  schedulerName: volcano`,
			want: "remove it: the default scheduler places every code-location's pods"},
		{name: "another's PodGroup", spec: `  schedulingGroup: {podGroupName: media-gang}`,
			want: "name a PodGroup of the code-location (citation or citation-*), or remove schedulingGroup"},
		{name: "eviction responders", spec: `  evictionResponders: [{name: acme.io/hold, priority: 10}]`,
			want: "remove it: the platform's controllers evict every code-location's pods"},
		{name: "pod-level huge pages", spec: `  resources: {limits: {hugepages-2Mi: 64Mi, memory: 1Gi}}`,
			want: "remove it and request memory: a code-location's memory is what its declaration budgets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, tt.contract)
			in.d.Resources.Disk.Set = tt.disk
			ps := check(t, reachRule{}, in, parseObjects(t, reachPod(tt.spec)))
			if len(ps) != 1 {
				t.Fatalf("%d problems, want 1: %v", len(ps), ps)
			}
			if ps[0].Hint != tt.want {
				t.Errorf("hint\n got %s\nwant %s", ps[0].Hint, tt.want)
			}
		})
	}
}

// TestReachAPIFields fails when the API types grow a field the reach
// rules may have to read: a pod spec's (pod-level resources arrive in
// k8s.io/api v0.32 as spec.resources) or a container's resources. The
// volume sources and projections need no such test: they are allowlists.
func TestReachAPIFields(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[corev1.PodSpec](), []string{
			"Volumes", "InitContainers", "Containers", "EphemeralContainers", "RestartPolicy", "TerminationGracePeriodSeconds",
			"ActiveDeadlineSeconds", "DNSPolicy", "NodeSelector", "ServiceAccountName", "DeprecatedServiceAccount",
			"AutomountServiceAccountToken", "NodeName", "HostNetwork", "HostPID", "HostIPC", "ShareProcessNamespace",
			"SecurityContext", "ImagePullSecrets", "Hostname", "Subdomain", "Affinity", "SchedulerName", "Tolerations",
			"HostAliases", "PriorityClassName", "Priority", "DNSConfig", "ReadinessGates", "RuntimeClassName",
			"EnableServiceLinks", "PreemptionPolicy", "Overhead", "TopologySpreadConstraints", "SetHostnameAsFQDN", "OS",
			"HostUsers", "SchedulingGates", "ResourceClaims",
			"Resources",          // requests.go (podRequest), devices.go
			"HostnameOverride",   // the pod's own hostname: no reach
			"SchedulingGroup",    // clusterrefs.go (groupFaults)
			"EvictionResponders", // clusterrefs.go (groupFaults)
		}},
		{reflect.TypeFor[corev1.ResourceRequirements](), []string{"Limits", "Requests", "Claims"}},
	}
	for _, tt := range tests {
		var got []string
		for i := range tt.typ.NumField() {
			got = append(got, tt.typ.Field(i).Name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s changed: decide whether reachRule (devices.go, clusterrefs.go) reads the new fields, then update this list (-known +now):\n%s", tt.typ, diff)
		}
	}
}

func TestSetFields(t *testing.T) {
	v := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}, NFS: &corev1.NFSVolumeSource{}}
	if diff := cmp.Diff([]string{"emptyDir", "nfs"}, setFields(v)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := setFields(corev1.VolumeProjection{}); got != nil {
		t.Errorf("no source set: %v", got)
	}
}

func TestOnlySource(t *testing.T) {
	v := corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}, NFS: &corev1.NFSVolumeSource{}}
	if got := setFields(onlySource(v, "nfs")); !cmp.Equal(got, []string{"nfs"}) {
		t.Errorf("onlySource(nfs) sets %v", got)
	}
}
