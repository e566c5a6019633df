package workspace

import (
	"errors"
	"fmt"

	"github.com/codeloc/codeloc/internal/yamlbound"
)

// Check checks a workspace.yaml as Dagster loads it: read by
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
func Check(data []byte) error {
	if len(data) > MaxBytes {
		return fmt.Errorf("workspace.yaml is %d bytes, more than the %d a ConfigMap holds", len(data), MaxBytes)
	}
	if e := yamlbound.Check(data, yamlbound.Limits{Bytes: MaxBytes, AliasNodes: 10_000, Depth: 64}); e != nil {
		return fmt.Errorf("workspace.yaml:%d:%d: %s: more than the %d %s a workspace may have", e.Line, e.Column, e.Detail, e.Limit, e.What)
	}
	root, err := parse(data)
	if err != nil {
		return err
	}
	c := &checker{}
	c.validate(root, schema, "")
	if len(c.errs) == 0 {
		c.load(root)
	}
	return errors.Join(c.errs...)
}

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
