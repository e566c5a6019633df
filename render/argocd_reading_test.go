package render_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/render/node"
)

// TestGoldenReadsAlikeInArgoCD checks that every object of the golden
// outputs means to Argo CD what it means to codeloc: Argo CD's plugin
// server reads the stream with sigs.k8s.io/yaml (YAML 1.1, gitops-engine's
// kube.SplitYAMLToString, the same decoder as here), codeloc's checks read
// it as YAML 1.2 (node.JSON). The emitted objects are checked too, and the
// allpaths fixture's quoted spellings (numbers.yaml).
func TestGoldenReadsAlikeInArgoCD(t *testing.T) {
	eachGolden(t, func(t *testing.T, data []byte) {
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

// TestHostileNamesReadAlikeInArgoCD renders the allpaths fixture as a
// code-location named "on" at revision 0e12345 (YAML 1.1's boolean true
// and, to both YAML versions, the float 0 when plain): every label,
// argument and record value codeloc writes from them must still mean the
// same string to Argo CD.
func TestHostileNamesReadAlikeInArgoCD(t *testing.T) {
	dir := t.TempDir()
	files, err := filepath.Glob("../fixtures/allpaths/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(data), "allpaths", "on")
		s = strings.ReplaceAll(s, "codeLocation: on", `codeLocation: "on"`)
		s = strings.ReplaceAll(s, "0a1b2c3", `"0e12345"`)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := render.Render(render.Request{Dir: dir, Contract: exampleContract(t)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := emit.Write(res.Objects)
	if err != nil {
		t.Fatal(err)
	}
	argo := argoCDDocuments(t, data)
	if len(argo) != len(res.Objects) {
		t.Fatalf("Argo CD reads %d objects, codeloc wrote %d", len(argo), len(res.Objects))
	}
	for i, o := range res.Objects {
		j, err := node.JSON(o.YNode())
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(argo[i], j) {
			t.Errorf("%s/%s: Argo CD reads\n%s\ncodeloc reads\n%s", o.GetKind(), o.GetName(), argo[i], j)
		}
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
