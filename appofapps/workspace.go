package appofapps

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/yamlbound"
)

// The Dagster workspace of the cluster/apps repo.
//
// Each code-location runs a Dagster gRPC code server behind a Service. The
// platform's Dagster webserver and daemon (the official Helm chart, release
// values dagsterWebserver.workspace.externalConfigmap) load them from one
// workspace.yaml held in a ConfigMap that codeloc generates beside the
// Applications: one grpc_server entry per code-location.

// WorkspaceKey is the ConfigMap key that holds workspace.yaml. The chart
// mounts the ConfigMap, without subPath, at /dagster-workspace/ in the
// webserver and the daemon and starts both with
// -w /dagster-workspace/workspace.yaml (helm/dagster/templates/helpers/
// _helpers.tpl: dagster.webserver.dagsterWebserverCommand and
// dagster.dagsterDaemon.daemonCommand).
const WorkspaceKey = "workspace.yaml"

// MaxWorkspaceBytes bounds a workspace.yaml CheckWorkspace reads: a
// ConfigMap holds at most 1 MiB.
const MaxWorkspaceBytes = 1 << 20

// workspaceFile is workspace.yaml as codeloc writes it.
type workspaceFile struct {
	LoadFrom []workspaceEntry `json:"load_from"`
}

type workspaceEntry struct {
	GRPCServer grpcServer `json:"grpc_server"`
}

type grpcServer struct {
	Host         string `json:"host"`
	Port         int    `json:"port"`
	LocationName string `json:"location_name"`
}

// WorkspaceConfigMap returns the v1 ConfigMap name in namespace whose key
// workspace.yaml is a Dagster workspace loading each location through a
// grpc_server entry, sorted by name: one YAML document, the same bytes for
// the same locations in any order. No locations give load_from: [], which
// Dagster loads as an empty workspace (the chart writes the same when it
// has no server). Duplicate names, and names, hosts or ports that are not
// a code-location's, a Service's host and a port, are errors; the result
// passes CheckWorkspace.
func WorkspaceConfigMap(namespace, name string, locs []workspace.Location) ([]byte, error) {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, fmt.Errorf("workspace ConfigMap namespace %q is not a namespace name: %s", namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("workspace ConfigMap name %q is not a ConfigMap name: %s", name, strings.Join(errs, "; "))
	}
	ws, err := workspaceYAML(locs)
	if err != nil {
		return nil, err
	}
	cm := corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: namespace,
			Labels:    map[string]string{names.LabelManagedBy: names.ManagedByValue},
		},
		Data: map[string]string{WorkspaceKey: string(ws)},
	}
	out, err := marshalObject(cm)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxWorkspaceBytes {
		return nil, fmt.Errorf("the workspace ConfigMap of %d code-locations is %d bytes, more than the %d a ConfigMap holds", len(locs), len(out), MaxWorkspaceBytes)
	}
	return out, nil
}

// workspaceYAML is the workspace.yaml of locs, checked.
func workspaceYAML(locs []workspace.Location) ([]byte, error) {
	sorted := slices.SortedFunc(slices.Values(locs), func(a, b workspace.Location) int { return cmp.Compare(a.Name, b.Name) })
	var errs []error
	ws := workspaceFile{LoadFrom: []workspaceEntry{}}
	for i, l := range sorted {
		if i > 0 && sorted[i-1].Name == l.Name {
			errs = append(errs, fmt.Errorf("code-location %q is given twice: Dagster refuses two locations of one name", l.Name))
			continue
		}
		if err := l.Check(); err != nil {
			errs = append(errs, err)
			continue
		}
		ws.LoadFrom = append(ws.LoadFrom, workspaceEntry{GRPCServer: grpcServer{Host: l.Host, Port: l.Port, LocationName: l.Name}})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out, err := sigsyaml.Marshal(ws)
	if err != nil {
		return nil, err
	}
	if err := CheckWorkspace(out); err != nil {
		return nil, fmt.Errorf("the generated workspace.yaml fails Dagster's schema (a codeloc bug): %w", err)
	}
	return out, nil
}

// marshalObject is obj as one YAML document, keys sorted, without the
// null creationTimestamp that ObjectMeta always carries into JSON.
func marshalObject(obj any) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	if meta, ok := m["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
		delete(meta, "creationTimestamp")
	}
	return sigsyaml.Marshal(m)
}

// WriteWorkspaceFile writes the workspace ConfigMap data, as
// WorkspaceConfigMap returns it, to dir/<name>.yaml in a cluster/apps
// checkout, the layout of WriteFiles: it creates dir, replaces only that
// file, atomically. name is the ConfigMap's; data must be that ConfigMap,
// with a workspace.yaml that passes CheckWorkspace. An existing file of
// that name that is not a v1 ConfigMap of that name (an Application whose
// code-location has the ConfigMap's name) is not overwritten: an error.
func WriteWorkspaceFile(dir, name string, data []byte) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("workspace ConfigMap name %q is not a ConfigMap name: %s", name, strings.Join(errs, "; "))
	}
	cm, err := decodeConfigMap(data)
	if err != nil {
		return fmt.Errorf("the workspace to write: %w", err)
	}
	if cm.Name != name {
		return fmt.Errorf("the workspace to write is ConfigMap %q, not %q", cm.Name, name)
	}
	ws, ok := cm.Data[WorkspaceKey]
	if !ok {
		return fmt.Errorf("the workspace to write: ConfigMap %q has no key %s", name, WorkspaceKey)
	}
	if err := CheckWorkspace([]byte(ws)); err != nil {
		return fmt.Errorf("the workspace to write: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name+".yaml")
	if err := replaceable(path, name); err != nil {
		return err
	}
	return writeFile(path, data)
}

// replaceable says whether path may be replaced by the workspace ConfigMap
// name: it does not exist, or holds that ConfigMap.
func replaceable(path, name string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file: not replacing it with the workspace ConfigMap", path)
	case fi.Size() > 2*MaxWorkspaceBytes:
		return fmt.Errorf("%s exists and is %d bytes, not a workspace ConfigMap: not replacing it", path, fi.Size())
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := sigsyaml.Unmarshal(old, &head); err != nil || head.APIVersion != "v1" || head.Kind != "ConfigMap" || head.Metadata.Name != name {
		return fmt.Errorf("%s exists and is not ConfigMap %q (an Application of that name?): not replacing it; name the workspace ConfigMap otherwise (contract dagster.workspaceConfigMap)", path, name)
	}
	return nil
}

// decodeConfigMap reads data as one YAML document, a v1 ConfigMap with no
// field a ConfigMap does not have.
func decodeConfigMap(data []byte) (*corev1.ConfigMap, error) {
	n, err := countDocuments(data)
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, fmt.Errorf("holds %d YAML documents, not 1", n)
	}
	var cm corev1.ConfigMap
	if err := sigsyaml.UnmarshalStrict(data, &cm); err != nil {
		return nil, err
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" {
		return nil, fmt.Errorf("is %s %s, not a v1 ConfigMap", orNone(cm.APIVersion, "(no apiVersion)"), orNone(cm.Kind, "(no kind)"))
	}
	return &cm, nil
}

// countDocuments counts the YAML documents of data.
func countDocuments(data []byte) (int, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, fmt.Errorf("is not YAML: %w", err)
		}
		n++
	}
}

// CheckWorkspace checks a workspace.yaml as Dagster loads it: read by
// PyYAML, validated against WORKSPACE_CONFIG_SCHEMA, then turned into code
// locations. Every problem found is reported, one a line.
//
// The schema, python_modules/dagster/dagster/_core/workspace/config_schema.py
// (dagster-io/dagster, as read at commit c59ee5b6), in Dagster's config types:
//
//	WORKSPACE_CONFIG_SCHEMA = {                  # a dict: Shape, strict
//	  "load_from": Field([                       # an Array
//	    Selector({                               # exactly one key per entry
//	      "python_file":    ScalarUnion(str, {relative_path, attribute?, location_name?, working_directory?, executable_path?}),
//	      "python_module":  ScalarUnion(str, {module_name, ...}),
//	      "python_package": ScalarUnion(str, {package_name, ...}),
//	      "grpc_server": {                       # a dict: Shape, strict
//	        "host":          Field(StringSource, is_required=False),
//	        "socket":        Field(StringSource, is_required=False),
//	        "port":          Field(IntSource, is_required=False),
//	        "location_name": Field(StringSource, is_required=False),
//	        "ssl":           Field(bool, is_required=False),
//	      },
//	    })
//	  ], is_required=False),
//	}
//
// What the rules come from:
//   - a plain dict in a schema is a Shape (dagster/_config/field_utils.py,
//     _convert_potential_type), and a Shape is strict: an unknown key is an
//     error (validate.py, _validate_shape_config with
//     check_for_extra_incoming_fields); only Permissive lets keys through;
//   - a Selector takes a mapping of exactly one of its keys; an empty one is
//     refused when it has several keys, and a key given no value (null)
//     stands for {} when its type has fields (validate.py,
//     validate_selector_config);
//   - no value may be null where the type is not Noneable, none here is;
//   - StringSource is a string or {env: NAME}, IntSource an int (not a
//     bool) or {env: NAME} (dagster/_config/source.py); bool is true/false;
//     the environment variable is read when Dagster loads the file;
//   - additional_metadata, a mapping of any keys, is read by newer loaders
//     (load.py passes grpc_server_config.get("additional_metadata") to
//     GrpcServerCodeLocationOrigin, typed Optional[Mapping[str, Any]]);
//     newer schemas declare it, the config_schema.py quoted above predates
//     it. It is accepted as a mapping.
//
// Then the loader, python_modules/dagster/dagster/_core/workspace/load.py:
// load_from must be there, a list (check.list_elem: the schema's
// is_required=False notwithstanding; write load_from: [] for none); a
// grpc_server needs a socket or a port, not both ("must supply either a
// socket or a port": a 0 port or an empty socket count as none); its
// location name is location_name, else grpc:<host, default localhost>:<socket
// or port>; two locations may not share a name. The file is one YAML
// document read by PyYAML's SafeLoader without the timestamp resolver
// (dagster._utils.yaml_utils): YAML 1.1 scalars, so `ssl: yes` is a
// boolean and `port: 0x1F90` an int.
//
// codeloc's own rules on top: python_file, python_module and python_package
// entries are refused (the webserver and the daemon would start that code
// themselves, in their own pods; codeloc's code-locations are code servers
// reached through grpc_server); a key given twice, a merge key (<<) and any
// tag but !!str, !!int, !!bool, !!float, !!null, !!map and !!seq are
// refused (PyYAML keeps the last of two keys, expands merges, and refuses
// application tags such as !foo).
func CheckWorkspace(data []byte) error {
	if len(data) > MaxWorkspaceBytes {
		return fmt.Errorf("workspace.yaml is %d bytes, more than the %d a ConfigMap holds", len(data), MaxWorkspaceBytes)
	}
	if e := yamlbound.Check(data, yamlbound.Limits{Bytes: MaxWorkspaceBytes, AliasNodes: 10_000, Depth: 64}); e != nil {
		return fmt.Errorf("workspace.yaml:%d:%d: %s: more than the %d %s a workspace may have", e.Line, e.Column, e.Detail, e.Limit, e.What)
	}
	root, err := parseWorkspace(data)
	if err != nil {
		return err
	}
	c := &checker{}
	c.validate(root, workspaceSchema, "")
	if len(c.errs) == 0 {
		c.load(root)
	}
	return errors.Join(c.errs...)
}

// parseWorkspace reads data as PyYAML would: one document, YAML 1.1 scalars.
func parseWorkspace(data []byte) (*pyValue, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("workspace.yaml is not YAML: %w", err)
		}
		docs = append(docs, &doc)
	}
	switch {
	case len(docs) > 1:
		return nil, fmt.Errorf("workspace.yaml holds %d YAML documents: Dagster reads one", len(docs))
	case len(docs) == 0 || len(docs[0].Content) == 0:
		return nil, errors.New("workspace.yaml is empty: Dagster finds no workspace config in it (load.py: \"Could not parse a workspace config\")")
	}
	var errs []error
	v := convert(docs[0].Content[0], &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if v.kind == pyNull {
		return nil, errors.New("workspace.yaml is null: Dagster finds no workspace config in it (load.py: \"Could not parse a workspace config\")")
	}
	return v, nil
}

// pyKind is the Python type PyYAML gives a node.
type pyKind int

const (
	pyNull pyKind = iota
	pyBool
	pyInt
	pyFloat
	pyStr
	pyMap
	pyList
)

// pyValue is a node as the Python object PyYAML constructs.
type pyValue struct {
	kind       pyKind
	text       string // a scalar's text; an int's decimal value
	keys, vals []*pyValue
	items      []*pyValue
	line, col  int
}

// get is the value of the string key k of a mapping.
func (v *pyValue) get(k string) *pyValue {
	for i, key := range v.keys {
		if key.kind == pyStr && key.text == k {
			return v.vals[i]
		}
	}
	return nil
}

// truthy is Python's truth of a scalar or a collection.
func (v *pyValue) truthy() bool {
	switch v.kind {
	case pyNull:
		return false
	case pyBool:
		return yaml11True.MatchString(v.text)
	case pyInt:
		return v.text != "0"
	case pyMap:
		return len(v.keys) > 0
	case pyList:
		return len(v.items) > 0
	}
	return v.text != "" // str; a float is not asked
}

// canonical is a key's identity in a Python dict: None, True and False
// whatever their spelling; an int's decimal value is already its text.
func (v *pyValue) canonical() string {
	switch v.kind {
	case pyNull:
		return ""
	case pyBool:
		return fmt.Sprint(v.truthy())
	}
	return v.text
}

// describe names v in messages.
func (v *pyValue) describe() string {
	switch v.kind {
	case pyNull:
		return "null"
	case pyBool:
		return fmt.Sprintf("a boolean (%s)", v.text)
	case pyInt:
		return fmt.Sprintf("an integer (%s)", v.text)
	case pyFloat:
		return fmt.Sprintf("a float (%s)", v.text)
	case pyStr:
		return fmt.Sprintf("a string (%q)", v.text)
	case pyMap:
		return "a mapping"
	}
	return "a list"
}

// The implicit resolvers of PyYAML's SafeLoader (yaml/resolver.py), YAML
// 1.1; Dagster's loader removes only the timestamp one.
var (
	yaml11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11True  = regexp.MustCompile(`^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Null  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
)

// convert builds the Python object of n, reporting what PyYAML or codeloc
// refuses.
func convert(n *yaml.Node, errs *[]error) *pyValue {
	v := &pyValue{line: n.Line, col: n.Column}
	bad := func(format string, args ...any) *pyValue {
		*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: %s", n.Line, n.Column, fmt.Sprintf(format, args...)))
		return v
	}
	tagged := n.Style&yaml.TaggedStyle != 0
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return bad("alias *%s has no anchor", n.Value)
		}
		a := convert(n.Alias, errs)
		c := *a
		c.line, c.col = n.Line, n.Column
		return &c
	case yaml.MappingNode:
		if tagged && n.Tag != "!!map" {
			return bad("tag %s is not accepted in a workspace", n.Tag)
		}
		v.kind = pyMap
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind == yaml.ScalarNode && kn.Value == "<<" && kn.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: merge keys (<<) are not accepted in a workspace: write the keys out", kn.Line, kn.Column))
				continue
			}
			k := convert(kn, errs)
			if k.kind == pyMap || k.kind == pyList {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: a key is a mapping or a list: PyYAML refuses an unhashable key", kn.Line, kn.Column))
				continue
			}
			id := fmt.Sprintf("%d:%s", k.kind, k.canonical())
			if seen[id] {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: key %s is given twice", kn.Line, kn.Column, k.text))
				continue
			}
			seen[id] = true
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, convert(n.Content[i+1], errs))
		}
		return v
	case yaml.SequenceNode:
		if tagged && n.Tag != "!!seq" {
			return bad("tag %s is not accepted in a workspace", n.Tag)
		}
		v.kind = pyList
		for _, c := range n.Content {
			v.items = append(v.items, convert(c, errs))
		}
		return v
	case yaml.ScalarNode:
		return scalar(n, v, tagged, bad)
	}
	return bad("unexpected YAML node")
}

// scalar resolves a scalar node as PyYAML does: quoted or block scalars are
// strings, an explicit standard tag decides, a plain scalar goes through
// the YAML 1.1 resolvers.
func scalar(n *yaml.Node, v *pyValue, tagged bool, bad func(string, ...any) *pyValue) *pyValue {
	v.text = n.Value
	tag := ""
	switch {
	case tagged:
		tag = n.Tag
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		tag = "!!str"
	case yaml11Bool.MatchString(n.Value):
		tag = "!!bool"
	case yaml11Float.MatchString(n.Value):
		tag = "!!float"
	case yaml11Int.MatchString(n.Value):
		tag = "!!int"
	case yaml11Null.MatchString(n.Value):
		tag = "!!null"
	default:
		tag = "!!str"
	}
	switch tag {
	case "!!str":
		v.kind = pyStr
	case "!!bool":
		if !yaml11Bool.MatchString(n.Value) {
			return bad("%q is tagged !!bool and is not a YAML 1.1 boolean", n.Value)
		}
		v.kind = pyBool
	case "!!float":
		v.kind = pyFloat
	case "!!int":
		d, ok := yaml11IntValue(n.Value)
		if !ok {
			return bad("%q is tagged !!int and is not a YAML 1.1 integer", n.Value)
		}
		v.kind, v.text = pyInt, d
	case "!!null":
		v.kind = pyNull
	default:
		return bad("tag %s is not accepted in a workspace (only !!str, !!int, !!bool, !!float, !!null, !!map, !!seq)", n.Tag)
	}
	return v
}

// yaml11IntValue is the decimal value of a YAML 1.1 integer, as PyYAML's
// construct_yaml_int reads it: underscores dropped, 0b binary, 0x hex, a
// leading 0 octal, colons base 60.
func yaml11IntValue(s string) (string, bool) {
	if !yaml11Int.MatchString(s) {
		return "", false
	}
	s = strings.ReplaceAll(s, "_", "")
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	v := new(big.Int)
	switch {
	case strings.Contains(s, ":"):
		for _, part := range strings.Split(s, ":") {
			d, _ := new(big.Int).SetString(part, 10)
			v.Mul(v, big.NewInt(60)).Add(v, d)
		}
	case strings.HasPrefix(s, "0b"):
		v.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		v.SetString(s[2:], 16)
	case len(s) > 1 && s[0] == '0':
		v.SetString(s[1:], 8)
	default:
		v.SetString(s, 10)
	}
	if v.Sign() == 0 {
		return "0", true
	}
	return sign + v.String(), true
}

// cfgKind is a Dagster config type kind (dagster/_config/config_type.py).
type cfgKind int

const (
	cfgString      cfgKind = iota // String (str)
	cfgInt                        // Int (int, not bool)
	cfgBool                       // Bool
	cfgScalarUnion                // ScalarUnion: scalar, else the non-scalar type
	cfgPermissive                 // Permissive: a mapping, any keys
	cfgShape                      // Shape: a mapping of these keys only
	cfgSelector                   // Selector: a mapping of exactly one of these keys
	cfgArray                      // Array
	cfgRefused                    // valid for Dagster, refused by codeloc
)

// cfgType is a Dagster config type.
type cfgType struct {
	kind              cfgKind
	fields            []cfgField
	elem              *cfgType // Array
	scalar, nonScalar *cfgType // ScalarUnion
	why               string   // cfgRefused
}

type cfgField struct {
	name     string
	typ      *cfgType
	required bool
}

func (t *cfgType) field(name string) (cfgField, bool) {
	for _, f := range t.fields {
		if f.name == name {
			return f, true
		}
	}
	return cfgField{}, false
}

func (t *cfgType) fieldNames() string {
	ns := make([]string, len(t.fields))
	for i, f := range t.fields {
		ns[i] = f.name
	}
	return strings.Join(ns, ", ")
}

// hasFields is ConfigTypeKind.has_fields.
func (t *cfgType) hasFields() bool {
	return t.kind == cfgShape || t.kind == cfgPermissive || t.kind == cfgSelector
}

// workspaceSchema is WORKSPACE_CONFIG_SCHEMA (see CheckWorkspace).
var workspaceSchema = func() *cfgType {
	str := &cfgType{kind: cfgString}
	env := &cfgType{kind: cfgSelector, fields: []cfgField{{"env", str, true}}}
	stringSource := &cfgType{kind: cfgScalarUnion, scalar: str, nonScalar: env}
	intSource := &cfgType{kind: cfgScalarUnion, scalar: &cfgType{kind: cfgInt}, nonScalar: env}
	target := &cfgType{kind: cfgRefused, why: "Dagster accepts it, but the webserver and the daemon would then start that code themselves, in their own pods: codeloc's workspace loads code-locations through grpc_server only"}
	grpcServer := &cfgType{kind: cfgShape, fields: []cfgField{
		{"host", stringSource, false},
		{"socket", stringSource, false},
		{"port", intSource, false},
		{"location_name", stringSource, false},
		{"ssl", &cfgType{kind: cfgBool}, false},
		{"additional_metadata", &cfgType{kind: cfgPermissive}, false},
	}}
	entry := &cfgType{kind: cfgSelector, fields: []cfgField{
		{"python_file", target, false},
		{"python_module", target, false},
		{"python_package", target, false},
		{"grpc_server", grpcServer, false},
	}}
	return &cfgType{kind: cfgShape, fields: []cfgField{
		{"load_from", &cfgType{kind: cfgArray, elem: entry}, false},
	}}
}()

// checker gathers the problems of one workspace.yaml.
type checker struct {
	errs []error
}

func (c *checker) fail(v *pyValue, path, format string, args ...any) {
	where := path
	if where == "" {
		where = "the document"
	}
	c.errs = append(c.errs, fmt.Errorf("workspace.yaml:%d:%d: %s: %s", v.line, v.col, where, fmt.Sprintf(format, args...)))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// validate is dagster._config.validate._validate_config for the types of
// the workspace schema.
func (c *checker) validate(v *pyValue, t *cfgType, path string) {
	if v.kind == pyNull {
		c.fail(v, path, "null is not allowed here")
		return
	}
	switch t.kind {
	case cfgString:
		if v.kind != pyStr {
			c.fail(v, path, "want a string, got %s", v.describe())
		}
	case cfgInt:
		if v.kind != pyInt {
			c.fail(v, path, "want an integer, got %s", v.describe())
		}
	case cfgBool:
		if v.kind != pyBool {
			c.fail(v, path, "want true or false, got %s", v.describe())
		}
	case cfgScalarUnion:
		if v.kind == pyMap || v.kind == pyList {
			c.validate(v, t.nonScalar, path)
		} else {
			c.validate(v, t.scalar, path)
		}
	case cfgPermissive:
		if v.kind != pyMap {
			c.fail(v, path, "want a mapping, got %s", v.describe())
		}
	case cfgShape:
		c.shape(v, t, path)
	case cfgSelector:
		c.selector(v, t, path)
	case cfgArray:
		if v.kind != pyList {
			c.fail(v, path, "want a list, got %s", v.describe())
			return
		}
		for i, item := range v.items {
			c.validate(item, t.elem, fmt.Sprintf("%s[%d]", path, i))
		}
	case cfgRefused:
		c.fail(v, path, "%s", t.why)
	}
}

// shape validates a strict Shape: a mapping of its keys only, the required
// ones present.
func (c *checker) shape(v *pyValue, t *cfgType, path string) {
	if v.kind != pyMap {
		c.fail(v, path, "want a mapping, got %s", v.describe())
		return
	}
	for i, k := range v.keys {
		f, ok := t.field(k.text)
		if k.kind != pyStr || !ok {
			c.fail(k, path, "unexpected key %s: Dagster's schema allows only %s", k.text, t.fieldNames())
			continue
		}
		c.validate(v.vals[i], f.typ, join(path, f.name))
	}
	for _, f := range t.fields {
		if f.required && v.get(f.name) == nil {
			c.fail(v, path, "missing required key %s", f.name)
		}
	}
}

// selector validates a Selector: a mapping of exactly one of its keys.
func (c *checker) selector(v *pyValue, t *cfgType, path string) {
	if v.kind == pyMap && len(v.keys) == 0 {
		if len(t.fields) > 1 || t.fields[0].required {
			c.fail(v, path, "empty: give one of %s", t.fieldNames())
		}
		return
	}
	if v.kind != pyMap {
		c.fail(v, path, "want a mapping of one of %s, got %s", t.fieldNames(), v.describe())
		return
	}
	if len(v.keys) > 1 {
		given := make([]string, len(v.keys))
		for i, k := range v.keys {
			given[i] = k.text
		}
		c.fail(v, path, "%s given: one only of %s", strings.Join(given, " and "), t.fieldNames())
		return
	}
	k, val := v.keys[0], v.vals[0]
	f, ok := t.field(k.text)
	if k.kind != pyStr || !ok {
		c.fail(k, path, "unexpected key %s: Dagster's schema allows one of %s", k.text, t.fieldNames())
		return
	}
	if val.kind == pyNull && f.typ.hasFields() {
		// A key with no value stands for {}, so that defaults fill in.
		val = &pyValue{kind: pyMap, line: val.line, col: val.col}
	}
	c.validate(val, f.typ, join(path, f.name))
}

// load applies what load.py checks once the schema passes.
func (c *checker) load(root *pyValue) {
	loadFrom := root.get("load_from")
	if loadFrom == nil {
		c.fail(root, "", "no load_from: Dagster's loader requires the list (load.py, check.list_elem); write load_from: [] for no code-location")
		return
	}
	byName := map[string]*pyValue{}
	for i, entry := range loadFrom.items {
		path := fmt.Sprintf("load_from[%d].grpc_server", i)
		g := entry.vals[0]
		if g.kind == pyNull {
			g = &pyValue{kind: pyMap, line: g.line, col: g.col}
		}
		port, socket := g.get("port"), g.get("socket")
		hasPort, hasSocket := port != nil && port.truthy(), socket != nil && socket.truthy()
		if hasPort == hasSocket {
			c.fail(g, path, "give a port or a socket, not both and not neither (load.py: \"must supply either a socket or a port\"; 0 and \"\" count as none)")
			continue
		}
		name := locationName(g, hasSocket)
		if first, dup := byName[name]; dup {
			c.fail(g, path, "location name %q is also load_from's entry at line %d: Dagster refuses two locations of one name", name, first.line)
			continue
		}
		byName[name] = g
	}
}

// locationName is the name Dagster gives a grpc_server entry: its
// location_name, else grpc:<host>:<socket or port>, the host defaulting to
// localhost.
func locationName(g *pyValue, bySocket bool) string {
	if n := g.get("location_name"); n != nil && n.truthy() {
		return show(n)
	}
	host := "localhost"
	if h := g.get("host"); h != nil && h.truthy() {
		host = show(h)
	}
	if bySocket {
		return "grpc:" + host + ":" + show(g.get("socket"))
	}
	return "grpc:" + host + ":" + show(g.get("port"))
}

// show is a scalar's value, or {env: NAME} for a source read from the
// environment when Dagster loads the file.
func show(v *pyValue) string {
	if v.kind == pyMap {
		return fmt.Sprintf("{env: %s}", v.vals[0].text)
	}
	return v.text
}
