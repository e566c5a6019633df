package render_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/codeloc/codeloc/render/node"
)

// TestGoldenReadsAlikeInArgoCD checks that every object of the golden
// outputs means to Argo CD what it means to codeloc: Argo CD's plugin
// server reads the stream with sigs.k8s.io/yaml (YAML 1.1, gitops-engine's
// kube.SplitYAMLToString, the same decoder as here), codeloc's checks read
// it as YAML 1.2 (node.JSON). The emitted objects are checked too, and the
// allpaths fixture's quoted spellings (numbers.yaml).
func TestGoldenReadsAlikeInArgoCD(t *testing.T) {
	goldens, err := filepath.Glob("testdata/golden/*.yaml")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden output: %v", err)
	}
	for _, golden := range goldens {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			data, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			argo := argoCDDocuments(t, data)
			ours := node.Documents(data)
			if len(argo) != len(ours) {
				t.Fatalf("Argo CD reads %d objects, codeloc %d", len(argo), len(ours))
			}
			for i, o := range ours {
				j, err := node.JSON(o.YNode())
				if err != nil {
					t.Fatal(err)
				}
				if !sameJSON(argo[i], j) {
					t.Errorf("%s/%s: Argo CD reads\n%s\ncodeloc reads\n%s", o.GetKind(), o.GetName(), argo[i], j)
				}
			}
		})
	}
}

// argoCDDocuments splits a stream into JSON documents as Argo CD's
// config management plugin server does.
func argoCDDocuments(t *testing.T, data []byte) [][]byte {
	t.Helper()
	d := kubeyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs [][]byte
	for {
		var ext runtime.RawExtension
		if err := d.Decode(&ext); err != nil {
			if errors.Is(err, io.EOF) {
				return docs
			}
			t.Fatal(err)
		}
		if raw := bytes.TrimSpace(ext.Raw); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			docs = append(docs, raw)
		}
	}
}

// sameJSON reports whether two JSON documents mean the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
