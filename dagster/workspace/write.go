package workspace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"
)

// MaxBytes bounds a workspace.yaml Check reads: the file lives in a
// ConfigMap, which holds at most 1 MiB.
const MaxBytes = 1 << 20

// workspaceFile is workspace.yaml as Marshal writes it.
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

// Marshal is the workspace.yaml that loads each location through a
// grpc_server entry, sorted by name: the same bytes for the same locations
// in any order. No locations give load_from: [], which Dagster loads as an
// empty workspace. Duplicate names, and names, hosts or ports that are not
// a code-location's, a Service's host and a port, are errors, all of them
// at once; the result passes Check.
func Marshal(locs []Location) ([]byte, error) {
	sorted := slices.SortedFunc(slices.Values(locs), func(a, b Location) int { return cmp.Compare(a.Name, b.Name) })
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
	out, err := yaml.Marshal(ws)
	if err != nil {
		return nil, err
	}
	if err := Check(out); err != nil {
		return nil, fmt.Errorf("the generated workspace.yaml fails Dagster's schema (a codeloc bug): %w", err)
	}
	return out, nil
}
