package appofapps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/names"
)

// The Dagster workspace ConfigMap of the cluster/apps repo.
//
// Each code-location runs a Dagster gRPC code server behind a Service. The
// platform's Dagster webserver and daemon (the official Helm chart, release
// values dagsterWebserver.workspace.externalConfigmap) load them from one
// workspace.yaml held in a ConfigMap that codeloc generates beside the
// Applications: one grpc_server entry per code-location.
//
// The workspace.yaml itself, and how Dagster reads it, is package
// dagster/workspace's; the ConfigMap around it and its file in the
// cluster/apps checkout are the app-of-apps'.

// WorkspaceKey is the ConfigMap key that holds workspace.yaml. The chart
// mounts the ConfigMap, without subPath, at /dagster-workspace/ in the
// webserver and the daemon and starts both with
// -w /dagster-workspace/workspace.yaml (helm/dagster/templates/helpers/
// _helpers.tpl: dagster.webserver.dagsterWebserverCommand and
// dagster.dagsterDaemon.daemonCommand).
const WorkspaceKey = "workspace.yaml"

// MaxWorkspaceBytes bounds the workspace ConfigMap and the workspace.yaml
// it holds: a ConfigMap holds at most 1 MiB.
const MaxWorkspaceBytes = workspace.MaxBytes

// WorkspaceConfigMap returns the v1 ConfigMap name in namespace whose key
// workspace.yaml is a Dagster workspace loading each location through a
// grpc_server entry, sorted by name: one YAML document, the same bytes for
// the same locations in any order. No locations give load_from: [], which
// Dagster loads as an empty workspace (the chart writes the same when it
// has no server). Duplicate names, and names, hosts or ports that are not
// a code-location's, a Service's host and a port, are errors; the result
// passes workspace.Check.
func WorkspaceConfigMap(namespace, name string, locs []workspace.Location) ([]byte, error) {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, fmt.Errorf("workspace ConfigMap namespace %q is not a namespace name: %s", namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("workspace ConfigMap name %q is not a ConfigMap name: %s", name, strings.Join(errs, "; "))
	}
	ws, err := workspace.Marshal(locs)
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
// with a workspace.yaml that passes workspace.Check. An existing file of
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
	if err := workspace.Check([]byte(ws)); err != nil {
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
