package apijson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// apiTypes are the types the render decodes into, by the name a document's
// kind gives (PodSpec for the pod specs and the container context's
// pod_spec_config, Container for its container_config).
var apiTypes = map[string]func() any{
	"PodSpec": func() any { return &corev1.PodSpec{} }, "Container": func() any { return &corev1.Container{} },
	"ResourceRequirements": func() any { return &corev1.ResourceRequirements{} },
	"SecurityContext":      func() any { return &corev1.SecurityContext{} },
	"ConfigMap":            func() any { return &corev1.ConfigMap{} }, "Secret": func() any { return &corev1.Secret{} },
	"Service": func() any { return &corev1.Service{} }, "ServiceAccount": func() any { return &corev1.ServiceAccount{} },
	"Pod":        func() any { return &corev1.Pod{} },
	"Deployment": func() any { return &appsv1.Deployment{} }, "StatefulSet": func() any { return &appsv1.StatefulSet{} },
	"Job": func() any { return &batchv1.Job{} }, "CronJob": func() any { return &batchv1.CronJob{} },
	"HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"Ingress":                 func() any { return &networkingv1.Ingress{} }, "NetworkPolicy": func() any { return &networkingv1.NetworkPolicy{} },
	"PodDisruptionBudget": func() any { return &policyv1.PodDisruptionBudget{} },
	"Role":                func() any { return &rbacv1.Role{} }, "RoleBinding": func() any { return &rbacv1.RoleBinding{} },
	// The other kinds render/policy's well-formedness check decodes.
	"Endpoints":  func() any { return &corev1.Endpoints{} }, //nolint:staticcheck // SA1019: still served
	"LimitRange": func() any { return &corev1.LimitRange{} }, "PersistentVolumeClaim": func() any { return &corev1.PersistentVolumeClaim{} },
	"PodTemplate": func() any { return &corev1.PodTemplate{} }, "ReplicationController": func() any { return &corev1.ReplicationController{} },
	"ResourceQuota": func() any { return &corev1.ResourceQuota{} }, "DaemonSet": func() any { return &appsv1.DaemonSet{} },
	"ReplicaSet": func() any { return &appsv1.ReplicaSet{} }, "EndpointSlice": func() any { return &discoveryv1.EndpointSlice{} },
	"PriorityClass": func() any { return &schedulingv1.PriorityClass{} }, "StorageClass": func() any { return &storagev1.StorageClass{} },
	"HorizontalPodAutoscaler/v1": func() any { return &autoscalingv1.HorizontalPodAutoscaler{} },
}

// agree fails t when json/v2 accepts data into the type but sigs.k8s.io/json
// refuses it or decodes another value, for Decode and DecodeStrict. It
// returns how many of the two json/v2 accepted.
func agree(t *testing.T, name string, data []byte) (accepted int) {
	t.Helper()
	newValue := apiTypes[name]
	fast, slow := newValue(), newValue()
	if jsonv2Accepts(data, fast, false) {
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, slow); err != nil {
			t.Fatalf("%s: json/v2 accepts %q, sigs.k8s.io/json refuses it: %v", name, data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: %q decodes to\n%#v\nwith json/v2, to\n%#v\nwith sigs.k8s.io/json", name, data, fast, slow)
		}
		accepted++
	}
	fast, slow = newValue(), newValue()
	if jsonv2Accepts(data, fast, true) {
		strict, err := sigsjson.UnmarshalStrict(data, slow, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
		if err != nil || len(strict) > 0 {
			t.Fatalf("%s: json/v2 accepts %q strictly, sigs.k8s.io/json refuses it: %v %v", name, data, err, strict)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: %q decodes strictly to\n%#v\nwith json/v2, to\n%#v\nwith sigs.k8s.io/json", name, data, fast, slow)
		}
		accepted++
	}
	return accepted
}

// jsonv2Accepts is Decode's or DecodeStrict's first step alone.
func jsonv2Accepts(data []byte, dst any, strict bool) bool {
	var err error
	if strict {
		err = decodeStrictFast(data, dst)
	} else {
		err = decodeFast(data, dst)
	}
	return err == nil
}

// seeds are the API objects of the repository's fixtures and test data, as
// JSON, by type name: every document whose kind is in apiTypes, and the pod
// spec of each workload.
func seeds(t testing.TB) map[string][][]byte {
	out := map[string][][]byte{}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"fixtures", "render/testdata", "sidecar/install", "e2e/testdata"} {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil || len(data) > 1<<20 {
				return nil
			}
			for _, doc := range bytes.Split(data, []byte("\n---")) {
				addSeed(out, doc)
			}
			return nil
		})
	}
	if len(out["PodSpec"]) < 5 || len(out["Deployment"]) < 2 {
		t.Fatalf("too few seeds: %d pod specs, %d Deployments", len(out["PodSpec"]), len(out["Deployment"]))
	}
	return out
}

func addSeed(out map[string][][]byte, doc []byte) {
	var obj map[string]any
	if yaml.Unmarshal(doc, &obj) != nil || obj == nil {
		return
	}
	kind, _ := obj["kind"].(string)
	if _, ok := apiTypes[kind]; !ok {
		return
	}
	if data, err := json.Marshal(obj); err == nil {
		out[kind] = append(out[kind], data)
	}
	spec := obj["spec"]
	for _, key := range []string{"jobTemplate", "spec", "template", "spec"} {
		if m, ok := spec.(map[string]any); ok && m[key] != nil {
			spec = m[key]
		}
	}
	if m, ok := spec.(map[string]any); ok && m["containers"] != nil {
		if data, err := json.Marshal(m); err == nil {
			out["PodSpec"] = append(out["PodSpec"], data)
		}
		if cs, ok := m["containers"].([]any); ok && len(cs) > 0 {
			if data, err := json.Marshal(cs[0]); err == nil {
				out["Container"] = append(out["Container"], data)
			}
		}
	}
}

// hostile are values put in place of a seed's values: other JSON types,
// numbers an integer field may or may not take, strings a byte field may
// or may not take, and invalid UTF-8.
var hostile = []string{
	`null`, `true`, `0`, `-0`, `1.0`, `1e3`, `1E+2`, `0.5`, `-1`, `9223372036854775807`, `9223372036854775808`,
	`18446744073709551616`, `1e400`, `"1"`, `""`, `"a"`, `"YQ=="`, `"YQ"`, `"Y Q=="`, `"YQ==\n"`, `"_-8="`,
	`"100m"`, `"1Gi"`, `"+1"`, `" 1"`, "\"\xff\"", `"\ud800"`, `"\u0000"`, `[]`, `[1]`, `{}`, `{"a":1}`,
	`"2026-12-06T00:00:00Z"`, `"1h"`, `[null]`, `{"":null}`,
}

// mutate returns data with one random change: a value replaced by a hostile
// one, a key respelled (case, escapes), a key added, or a key repeated.
func mutate(r *rand.Rand, data []byte) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return data
	}
	var paths [][]any
	collect(v, nil, &paths)
	if len(paths) == 0 {
		return data
	}
	path := paths[r.IntN(len(paths))]
	switch r.IntN(5) {
	case 0, 1:
		return replaceAt(v, path, json.RawMessage(hostile[r.IntN(len(hostile))]))
	case 2:
		return rekey(v, path, r)
	case 3:
		return addKey(v, path, r)
	default:
		return duplicate(v, path)
	}
}

func collect(v any, path []any, out *[][]any) {
	*out = append(*out, slices.Clone(path))
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			collect(c, append(path, k), out)
		}
	case []any:
		for i, c := range x {
			collect(c, append(path, i), out)
		}
	}
}

func replaceAt(v any, path []any, with any) []byte {
	if len(path) == 0 {
		return marshal(with)
	}
	parent := at(v, path[:len(path)-1])
	switch p := parent.(type) {
	case map[string]any:
		p[path[len(path)-1].(string)] = with
	case []any:
		p[path[len(path)-1].(int)] = with
	}
	return marshal(v)
}

func at(v any, path []any) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k.(string)]
		case []any:
			v = x[k.(int)]
		}
	}
	return v
}

// rekey respells the last key of path: another case, or a JSON escape.
func rekey(v any, path []any, r *rand.Rand) []byte {
	if len(path) == 0 {
		return marshal(v)
	}
	key, ok := path[len(path)-1].(string)
	if !ok || key == "" {
		return marshal(v)
	}
	data := marshal(v)
	var spelled string
	switch r.IntN(3) {
	case 0:
		spelled = `"` + strings.ToUpper(key[:1]) + key[1:] + `"`
	case 1:
		spelled = `"` + strings.ToLower(key) + `"`
	default:
		spelled = fmt.Sprintf(`"\u%04x%s"`, key[0], key[1:])
	}
	return bytes.Replace(data, []byte(`"`+key+`":`), []byte(spelled+`:`), 1)
}

func addKey(v any, path []any, r *rand.Rand) []byte {
	if m, ok := at(v, path).(map[string]any); ok {
		m[[]string{"unknownField", "x", "Name", "NAME", "spec"}[r.IntN(5)]] = json.RawMessage(hostile[r.IntN(len(hostile))])
	}
	return marshal(v)
}

// duplicate writes the first key of the object at path twice.
func duplicate(v any, path []any) []byte {
	m, ok := at(v, path).(map[string]any)
	if !ok || len(m) == 0 {
		return marshal(v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	k := keys[0]
	inner := marshal(map[string]any{k: m[k]})
	m[k] = json.RawMessage(`"\u0000marker"`)
	data := marshal(v)
	marker := []byte(`"` + k + `":"\u0000marker"`)
	return bytes.Replace(data, marker, append(append(slices.Clone(inner[1:len(inner)-1]), ','), inner[1:len(inner)-1]...), 1)
}

func marshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// TestAgreement decodes every API object of the repository, and random
// mutations of each, with json/v2 and sigs.k8s.io/json. The mutations must
// reach both sides: json/v2 accepts some and refuses others.
// CODELOC_APIJSON_MUTATIONS sets how many per object (5; 300 took 28 s for
// 240,000 documents, all agreeing).
func TestAgreement(t *testing.T) {
	perSeed := 5
	if n, err := strconv.Atoi(os.Getenv("CODELOC_APIJSON_MUTATIONS")); err == nil {
		perSeed = n
	}
	r := rand.New(rand.NewPCG(1, 2))
	docs, accepted := 0, 0
	all := seeds(t)
	for _, name := range slices.Sorted(maps.Keys(apiTypes)) {
		for _, doc := range all[name] {
			if agree(t, name, doc) == 0 {
				continue // an invalid fixture's object: no mutation of it is meant to pass
			}
			for range perSeed {
				m := doc
				for range 1 + r.IntN(3) {
					m = mutate(r, m)
				}
				accepted += agree(t, name, m)
				docs++
			}
		}
	}
	t.Logf("%d mutated documents: json/v2 accepted %d of %d decodes, sigs.k8s.io/json agreed", docs, accepted, 2*docs)
	if accepted < docs/4 || accepted > 2*docs-docs/4 {
		t.Errorf("json/v2 accepted %d of %d decodes: the mutations should reach both acceptance and refusal", accepted, 2*docs)
	}
}

// TestDecodeFallsBack: where json/v2 refuses, the result and the message
// are sigs.k8s.io/json's.
func TestDecodeFallsBack(t *testing.T) {
	tests := []struct {
		name, data  string
		wantErr     string
		wantStrict  []string
		wantStrErr  string
		wantImage   string
		wantReplica int32
	}{
		{name: "duplicate key: the last wins, strict lists it", data: `{"replicas":1,"replicas":2}`, wantReplica: 2, wantStrict: []string{`duplicate field "replicas"`}},
		{name: "unknown key: ignored, strict lists it", data: `{"replicas":3,"replica":2}`, wantReplica: 3, wantStrict: []string{`unknown field "replica"`}},
		{name: "a key in another case is unknown", data: `{"Replicas":3}`, wantStrict: []string{`unknown field "Replicas"`}},
		{name: "a number of the wrong form", data: `{"replicas":1e3}`, wantErr: "cannot unmarshal number 1e3", wantStrErr: "cannot unmarshal number 1e3"},
		{name: "a string where a number goes", data: `{"replicas":"1"}`, wantErr: "cannot unmarshal string", wantStrErr: "cannot unmarshal string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec appsv1.DeploymentSpec
			err := Decode([]byte(tt.data), &spec)
			if !errorHas(err, tt.wantErr) {
				t.Errorf("Decode: error %v, want %q", err, tt.wantErr)
			}
			if err == nil && ptrValue(spec.Replicas) != tt.wantReplica {
				t.Errorf("Decode: replicas %d, want %d", ptrValue(spec.Replicas), tt.wantReplica)
			}
			var strictSpec appsv1.DeploymentSpec
			strict, err := DecodeStrict([]byte(tt.data), &strictSpec)
			if !errorHas(err, tt.wantStrErr) {
				t.Errorf("DecodeStrict: error %v, want %q", err, tt.wantStrErr)
			}
			var got []string
			for _, e := range strict {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.wantStrict) {
				t.Errorf("DecodeStrict: strict errors %q, want %q", got, tt.wantStrict)
			}
		})
	}
}

// TestDecodeKeepsIntegers: a value read into an interface, at any depth,
// is read by sigs.k8s.io/json, integers kept as int64.
func TestDecodeKeepsIntegers(t *testing.T) {
	tests := []struct {
		name string
		dst  any
		data string
	}{
		{"an interface field", &struct{ X any }{}, `{"X":{"n":1,"f":1.5}}`},
		{"a map of interfaces", &map[string]any{}, `{"n":1,"f":1.5}`},
		{"deep in a pointer", &struct{ P *[]map[string]any }{}, `{"P":[{"n":1,"f":1.5}]}`},
	}
	for _, tt := range tests {
		if err := Decode([]byte(tt.data), tt.dst); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := reflect.New(reflect.TypeOf(tt.dst).Elem()).Interface()
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(tt.data), want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tt.dst, want) {
			t.Errorf("%s: decoded %#v, want sigs.k8s.io/json's %#v (integers as int64)", tt.name, tt.dst, want)
		}
		strictDst := reflect.New(reflect.TypeOf(tt.dst).Elem()).Interface()
		if _, err := DecodeStrict([]byte(tt.data), strictDst); err != nil || !reflect.DeepEqual(strictDst, want) {
			t.Errorf("%s: DecodeStrict: %#v, %v; want %#v", tt.name, strictDst, err, want)
		}
	}
}

func errorHas(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// FuzzAgreement: whatever json/v2 accepts into a PodSpec, a Deployment or a
// Secret, sigs.k8s.io/json accepts too, with the same value.
func FuzzAgreement(f *testing.F) {
	all := seeds(f)
	for _, name := range []string{"PodSpec", "Deployment", "Secret"} {
		for _, doc := range all[name] {
			f.Add(name, doc)
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if apiTypes[name] == nil {
			return
		}
		agree(t, name, data)
	})
}
