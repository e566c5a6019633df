package emit

import (
	"cmp"
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
)

// Sync waves of the app objects, by role.
const (
	WaveConfig    = 0
	WaveStorage   = 1
	WaveServices  = 2
	WaveWorkloads = 3
	WaveIngress   = 4
	WaveRecord    = 5
)

var waveByKind = map[string]int{
	"ServiceAccount": WaveConfig, "ConfigMap": WaveConfig, "Role": WaveConfig, "RoleBinding": WaveConfig,
	"NetworkPolicy": WaveConfig, "PodDisruptionBudget": WaveConfig,
	"PersistentVolumeClaim": WaveStorage,
	"Service":               WaveServices, "Endpoints": WaveServices, "EndpointSlice": WaveServices,
	"Ingress": WaveIngress, "HTTPRoute": WaveIngress, "GRPCRoute": WaveIngress, "TCPRoute": WaveIngress, "TLSRoute": WaveIngress,
}

// kindOrder orders kinds inside a wave (dependencies first, as kubectl and
// Helm do); other kinds follow, by name.
var kindOrder = []string{
	"ServiceAccount", "ConfigMap", "Role", "RoleBinding", "NetworkPolicy", "PodDisruptionBudget",
	"PersistentVolumeClaim", "Service", "Endpoints", "EndpointSlice",
	"Pod", "ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "HorizontalPodAutoscaler", "Job", "CronJob",
	"Ingress", "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute",
}

// AssignWaves sets the sync wave of every non-hook object of code-location
// cl by its role; the record comes last.
func AssignWaves(cl string, objs []*yaml.RNode) error {
	record := names.RecordName(cl)
	for _, o := range objs {
		if _, isHook := o.GetAnnotations()[names.AnnoHook]; isHook {
			continue
		}
		wave, ok := waveByKind[o.GetKind()]
		if !ok {
			wave = WaveWorkloads
		}
		if o.GetKind() == "ConfigMap" && o.GetName() == record {
			wave = WaveRecord
		}
		if err := o.PipeE(yaml.SetAnnotation(names.AnnoSyncWave, strconv.Itoa(wave))); err != nil {
			return err
		}
	}
	return nil
}

type sortKey struct {
	phase, wave, kind int
	kindName, name    string
}

func keyOf(o *yaml.RNode) sortKey {
	a := o.GetAnnotations()
	k := sortKey{phase: 1, kindName: o.GetKind(), name: o.GetName()}
	if a[names.AnnoHook] == "PreSync" {
		k.phase = 0
	}
	k.wave, _ = strconv.Atoi(a[names.AnnoSyncWave])
	k.kind = slices.Index(kindOrder, k.kindName)
	if k.kind < 0 {
		k.kind = len(kindOrder)
	}
	return k
}

// Sort orders objects by (phase, wave, kind order, kind, name).
func Sort(objs []*yaml.RNode) {
	keys := make(map[*yaml.RNode]sortKey, len(objs))
	for _, o := range objs {
		keys[o] = keyOf(o)
	}
	slices.SortStableFunc(objs, func(x, y *yaml.RNode) int {
		a, b := keys[x], keys[y]
		return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.wave, b.wave), cmp.Compare(a.kind, b.kind),
			cmp.Compare(a.kindName, b.kindName), cmp.Compare(a.name, b.name))
	})
}
