package policy

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// TestResourceOfDiscovery checks resourceOf against a real API server: the
// resource of every namespaced kind it serves is the one a Role names.
func TestResourceOfDiscovery(t *testing.T) {
	env := kubetest.Start(t)
	dc, err := discovery.NewDiscoveryClientForConfig(env.Admin)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if !r.Namespaced || strings.Contains(r.Name, "/") {
				continue
			}
			want := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			if got := resourceOf(gv.Group, r.Kind); got != want {
				t.Errorf("resourceOf(%q, %q) = %v, the API server serves %v", gv.Group, r.Kind, got, want)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d namespaced kinds only", checked)
	}
	t.Logf("%d namespaced kinds", checked)
}
