package preflight

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// parseAmount reads a quantity as millicores (cpu) or bytes; an absent or
// malformed quantity counts as zero.
func parseAmount(s string, milli bool) int64 {
	if s == "" {
		return 0
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0
	}
	if milli {
		return q.MilliValue()
	}
	return q.Value()
}

// podRequests returns a pod's effective cpu (millicores) and memory (bytes)
// requests as the scheduler counts them: pod-level requests when set, else
// the larger of the app containers plus sidecars and of each init
// container plus the sidecars started before it; plus the pod overhead.
func podRequests(pod *unstructured.Unstructured) (cpu, mem int64) {
	spec, _, _ := unstructured.NestedMap(pod.Object, "spec")
	cpu, mem = containersRequests(spec)
	if podLevel := requestsOf(spec["resources"]); podLevel != nil {
		if v, ok := podLevel["cpu"]; ok {
			cpu = parseAmount(v, true)
		}
		if v, ok := podLevel["memory"]; ok {
			mem = parseAmount(v, false)
		}
	}
	overhead, _, _ := unstructured.NestedStringMap(spec, "overhead")
	return cpu + parseAmount(overhead["cpu"], true), mem + parseAmount(overhead["memory"], false)
}

func containersRequests(spec map[string]any) (cpu, mem int64) {
	var sideCPU, sideMem, initCPU, initMem int64
	inits, _, _ := unstructured.NestedSlice(spec, "initContainers")
	for _, c := range inits {
		m, _ := c.(map[string]any)
		req := requestsOf(m["resources"])
		c, mm := parseAmount(req["cpu"], true), parseAmount(req["memory"], false)
		if m["restartPolicy"] == "Always" { // a sidecar: runs alongside the app
			sideCPU, sideMem = sideCPU+c, sideMem+mm
			continue
		}
		initCPU, initMem = max(initCPU, sideCPU+c), max(initMem, sideMem+mm)
	}
	containers, _, _ := unstructured.NestedSlice(spec, "containers")
	for _, c := range containers {
		m, _ := c.(map[string]any)
		req := requestsOf(m["resources"])
		cpu, mem = cpu+parseAmount(req["cpu"], true), mem+parseAmount(req["memory"], false)
	}
	return max(cpu+sideCPU, initCPU), max(mem+sideMem, initMem)
}

// requestsOf returns resources.requests as strings (nil when absent).
func requestsOf(resources any) map[string]string {
	m, _ := resources.(map[string]any)
	if m == nil {
		return nil
	}
	out, _, _ := unstructured.NestedStringMap(m, "requests")
	return out
}

// formatCPU prints millicores as a Kubernetes quantity: 4, 1500m.
func formatCPU(m int64) string {
	if m%1000 == 0 {
		return fmt.Sprint(m / 1000)
	}
	return fmt.Sprintf("%dm", m)
}

// formatBytes prints bytes exactly when a binary unit divides them (20Gi),
// else with one decimal (20.5Gi).
func formatBytes(b int64) string {
	units := []string{"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"}
	for i, u := range units {
		size := int64(1) << (10 * (len(units) - i))
		if b >= size {
			if b%size == 0 {
				return fmt.Sprintf("%d%s", b/size, u)
			}
			return fmt.Sprintf("%.1f%s", float64(b)/float64(size), u)
		}
	}
	return fmt.Sprint(b)
}
