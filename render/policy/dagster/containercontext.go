package dagster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/codeloc/codeloc/render/apijson"
	"github.com/codeloc/codeloc/render/policy"
)

// The container context's schema, as Dagster defines it
// (dagster/_core/container_context.py: SHARED_CONTAINER_CONTEXT_SCHEMA;
// dagster_k8s/job.py: DagsterK8sJobConfig.config_type_container_context,
// USER_DEFINED_K8S_JOB_CONFIG_SCHEMA; dagster_k8s/container_context.py).
// Its "k8s" part is a strict Shape: Dagster refuses unknown keys, and so
// does codeloc. The Kubernetes objects inside take the Python client's or
// the API's field names (k8skeys.go).

// runConfig is run_k8s_config or server_k8s_config: raw Kubernetes
// configuration Dagster merges into the pods it launches.
type runConfig struct {
	// shallow is merge_behavior SHALLOW: its container_config and
	// pod_spec_config keys replace the top-level fields' whole, where
	// DEEP (Dagster's default) merges them.
	shallow   bool
	container *corev1.Container
	pod       *corev1.PodSpec
	labels    map[string]string // pod_template_spec_metadata, job_metadata labels
	// annotations are the annotation keys of every metadata it sets, at
	// their paths (reachRule denies some).
	annotations []fieldName
}

// k8sContext is a decoded "k8s" container context: what a run pod gets.
type k8sContext struct {
	serviceAccount  string
	namespace       string
	schedulerName   string
	pullSecrets     []string
	envSecrets      []string
	envConfigMaps   []string
	env             []corev1.EnvVar
	volumes         []corev1.Volume
	volumeMounts    []corev1.VolumeMount
	labels          map[string]string
	resources       *corev1.ResourceRequirements
	securityContext *corev1.SecurityContext
	run, server     runConfig
}

// contextDecoder decodes one container context and gathers its faults.
type contextDecoder struct {
	faults []policy.Fault
	// passEnv are the names a bare env_vars entry may copy from the
	// launching process (the contract's dagster.runLauncher.passEnv).
	passEnv []string
}

func (d *contextDecoder) fault(code, path, msg, hint string) {
	d.faults = append(d.faults, policy.Fault{Code: code, Path: path, Msg: msg, Hint: hint})
}

const hintContextSchema = "write the container context as Dagster's K8sContainerContext schema says (dagster_k8s/job.py); Dagster refuses this key too"

// parseContext decodes the JSON text of a container context. A context
// that is not JSON is one fault naming the byte offset, never the text.
func parseContext(text string) (map[string]any, *policy.Fault) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); !errors.Is(extra, io.EOF) {
			err = fmt.Errorf("data after the JSON value at byte %d", dec.InputOffset())
		}
	}
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return nil, &policy.Fault{Code: CodeContextInvalid, Path: "", Msg: fmt.Sprintf("not JSON at byte %d: %s", syntax.Offset, syntax.Error()), Hint: "write the container context as one JSON object, {\"k8s\": {...}}"}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, &policy.Fault{Code: CodeContextInvalid, Path: "", Msg: fmt.Sprintf("not JSON: it ends at byte %d inside a value", len(text)), Hint: "write the container context as one JSON object, {\"k8s\": {...}}"}
	case err != nil:
		return nil, &policy.Fault{Code: CodeContextInvalid, Path: "", Msg: "not JSON: " + err.Error(), Hint: "write the container context as one JSON object, {\"k8s\": {...}}"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &policy.Fault{Code: CodeContextInvalid, Path: "", Msg: fmt.Sprintf("is a JSON %s, not an object", jsonKind(v)), Hint: "write the container context as one JSON object, {\"k8s\": {...}}"}
	}
	return m, nil
}

// decodeContext reads a parsed container context: its env_vars and its
// k8s part (nil when it has none).
func (d *contextDecoder) decodeContext(m map[string]any) *k8sContext {
	var k *k8sContext
	for _, key := range sortedKeys(m) {
		switch key {
		case "env_vars":
			d.envVars(m[key], key)
		case "k8s":
			obj, ok := d.object(m[key], key)
			if ok {
				k = d.decodeK8s(obj)
			}
		default:
			d.fault(CodeContextInvalid, key, "is not read by Dagster's Kubernetes run launcher", "keep only k8s and env_vars: the platform launches runs on Kubernetes")
		}
	}
	return k
}

func (d *contextDecoder) decodeK8s(m map[string]any) *k8sContext {
	k := &k8sContext{}
	for _, key := range sortedKeys(m) {
		v, path := m[key], "k8s."+key
		switch key {
		case "image_pull_policy":
			d.str(v, path)
		case "scheduler_name":
			k.schedulerName = d.str(v, path)
		case "service_account_name":
			k.serviceAccount = d.str(v, path)
		case "namespace":
			k.namespace = d.str(v, path)
		case "image_pull_secrets":
			for i, item := range d.list(v, path) {
				at := fmt.Sprintf("%s[%d]", path, i)
				if obj, ok := d.object(item, at); ok {
					k.pullSecrets = append(k.pullSecrets, d.only(obj, at, "name"))
				}
			}
		case "env_secrets":
			k.envSecrets = d.strings(v, path)
		case "env_config_maps":
			k.envConfigMaps = d.strings(v, path)
		case "env_vars":
			d.envVars(v, path)
		case "env":
			d.apiObject(v, path, &k.env)
		case "volumes":
			d.apiObject(v, path, &k.volumes)
		case "volume_mounts":
			d.apiObject(v, path, &k.volumeMounts)
		case "labels":
			d.apiObject(v, path, &k.labels)
		case "resources":
			if v != nil {
				k.resources = &corev1.ResourceRequirements{}
				d.apiObject(d.onlyKeys(v, path, "limits", "requests"), path, k.resources)
			}
		case "security_context":
			k.securityContext = &corev1.SecurityContext{}
			d.apiObject(v, path, k.securityContext)
		case "run_k8s_config":
			k.run = d.runConfig(v, path, runConfigKeys)
		case "server_k8s_config":
			k.server = d.runConfig(v, path, serverConfigKeys)
		default:
			d.fault(CodeContextInvalid, path, "is not a field of Dagster's Kubernetes container context", hintContextSchema)
		}
	}
	return k
}

// The keys of run_k8s_config and server_k8s_config (dagster_k8s/job.py).
var (
	runConfigKeys    = []string{"container_config", "pod_template_spec_metadata", "pod_spec_config", "job_config", "job_metadata", "job_spec_config", "merge_behavior"}
	serverConfigKeys = []string{"container_config", "pod_spec_config", "pod_template_spec_metadata", "merge_behavior", "deployment_metadata", "service_metadata"}
)

func (d *contextDecoder) runConfig(v any, path string, keys []string) runConfig {
	var rc runConfig
	m, ok := d.object(v, path)
	if !ok {
		return rc
	}
	for _, key := range sortedKeys(m) {
		at := path + "." + key
		switch key {
		case "container_config":
			rc.container = &corev1.Container{}
			d.apiObject(m[key], at, rc.container)
		case "pod_spec_config":
			rc.pod = &corev1.PodSpec{}
			d.apiObject(m[key], at, rc.pod)
		case "pod_template_spec_metadata", "job_metadata", "deployment_metadata", "service_metadata":
			var meta metav1.ObjectMeta
			d.apiObject(m[key], at, &meta)
			for _, a := range sortedKeys(meta.Annotations) {
				rc.annotations = append(rc.annotations, fieldName{at + ".annotations." + a, a})
			}
			if key == "pod_template_spec_metadata" || key == "job_metadata" {
				if rc.labels == nil {
					rc.labels = map[string]string{}
				}
				maps.Copy(rc.labels, meta.Labels)
			}
		case "job_config":
			var job batchv1.Job
			d.apiObject(m[key], at, &job)
			if job.Spec.Template.Spec.Containers != nil || job.Spec.Parallelism != nil || job.Spec.Completions != nil || job.Spec.Selector != nil {
				d.fault(CodeContextField, at+".spec", "sets the Job's pods, which Dagster builds from the context's other fields", "set pod fields in pod_spec_config and container_config; leave the Job's spec to Dagster")
			}
		case "job_spec_config":
			var spec batchv1.JobSpec
			d.apiObject(m[key], at, &spec)
			d.jobSpecFields(m[key], at)
		case "merge_behavior":
			s := d.str(m[key], at)
			if s != "" && s != "DEEP" && s != "SHALLOW" {
				d.fault(CodeContextInvalid, at, fmt.Sprintf("%q is not DEEP or SHALLOW", s), hintContextSchema)
			}
			rc.shallow = s == "SHALLOW"
		default:
			if !slices.Contains(keys, key) {
				d.fault(CodeContextInvalid, at, "is not a field of "+path[strings.LastIndex(path, ".")+1:], hintContextSchema)
			}
		}
	}
	return rc
}

// jobSpecFields refuses the Job spec fields that change how many pods run
// or what they are: Dagster builds one pod per run.
func (d *contextDecoder) jobSpecFields(v any, path string) {
	m, _ := v.(map[string]any)
	for _, key := range sortedKeys(m) {
		switch key {
		case "template", "parallelism", "completions", "selector", "manual_selector", "manualSelector":
			d.fault(CodeContextField, path+"."+key, "sets the run's pods, which Dagster builds from the context's other fields", "remove it: set pod fields in pod_spec_config and container_config")
		}
	}
}

// apiObject decodes v into dst, an API type, accepting either field names
// and refusing unknown ones.
func (d *contextDecoder) apiObject(v any, path string, dst any) {
	if v == nil {
		return
	}
	norm, keys := rootKeys(v, reflect.TypeOf(dst).Elem(), path)
	for _, k := range keys {
		d.fault(CodeContextInvalid, k.path, k.msg, hintContextSchema)
	}
	data, err := json.Marshal(norm)
	if err != nil {
		d.fault(CodeContextInvalid, path, err.Error(), hintContextSchema)
		return
	}
	// apijson first: the policy decodes the pod specs with it, and it
	// builds the tables of the API types the data holds only. apiKeys
	// wrote every key of a struct as the API's exact JSON name, so its
	// case-sensitive matching reads what encoding/json reads. On an error
	// the object is decoded again by encoding/json, for the same partial
	// result and the same message.
	if apijson.Decode(data, dst) == nil {
		return
	}
	reflect.ValueOf(dst).Elem().SetZero()
	if err := json.Unmarshal(data, dst); err != nil {
		d.fault(CodeContextInvalid, path, "does not decode: "+typeErrorText(err), hintContextSchema)
	}
}

// typeErrorText says what json found of the wrong type, without values.
func typeErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" { // a map's value: json names no field
			field = "a value"
		}
		return fmt.Sprintf("%s is a JSON %s, not %s", field, te.Value, te.Type.String())
	}
	return err.Error()
}

// str reads a StringSource: a string, or null. {"env": NAME} is read from
// the code server's environment at run time, which codeloc cannot know.
func (d *contextDecoder) str(v any, path string) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	case map[string]any:
		if _, env := s["env"]; env && len(s) == 1 {
			d.fault(CodeContextUnreadable, path, "is read from an environment variable when the run launches, so codeloc cannot check it", "write the value itself")
			return ""
		}
	}
	d.fault(CodeContextInvalid, path, fmt.Sprintf("is a JSON %s, not a string", jsonKind(v)), hintContextSchema)
	return ""
}

// envVars reads env_vars: KEY=VALUE, or KEY alone, whose value Dagster
// copies from the run launcher's own environment when the run launches
// (dagster/_core/utils.py, parse_env_var): the platform's value, which
// codeloc cannot know nor hold to the declaration.
func (d *contextDecoder) envVars(v any, path string) {
	for i, s := range d.strings(v, path) {
		if s != "" && !strings.Contains(s, "=") && !slices.Contains(d.passEnv, s) {
			d.fault(CodeContextUnreadable, fmt.Sprintf("%s[%d]", path, i), fmt.Sprintf("%s takes its value from the environment of the process that launches the run (the platform's daemon or webserver), so codeloc cannot check it", policy.OneLine(s)), "write KEY=VALUE, or read the value from a declared Secret or ConfigMap (env_secrets, env_config_maps, env with valueFrom); a variable the platform means to hand run pods is one the contract lists in dagster.runLauncher.passEnv")
		}
	}
}

func (d *contextDecoder) strings(v any, path string) []string {
	var out []string
	for i, item := range d.list(v, path) {
		out = append(out, d.str(item, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

func (d *contextDecoder) list(v any, path string) []any {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.fault(CodeContextInvalid, path, fmt.Sprintf("is a JSON %s, not a list", jsonKind(v)), hintContextSchema)
	}
	return l
}

func (d *contextDecoder) object(v any, path string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		d.fault(CodeContextInvalid, path, fmt.Sprintf("is a JSON %s, not an object", jsonKind(v)), hintContextSchema)
	}
	return m, ok
}

// only reads the one field of a {key: string} object.
func (d *contextDecoder) only(m map[string]any, path, key string) string {
	d.onlyKeys(m, path, key)
	return d.str(m[key], path+"."+key)
}

// onlyKeys refuses the keys of an object other than keys, and returns it.
func (d *contextDecoder) onlyKeys(v any, path string, keys ...string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(keys, k) {
			d.fault(CodeContextInvalid, path+"."+k, "is not a field here: "+strings.Join(keys, ", "), hintContextSchema)
		}
	}
	return v
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return "value"
}

// fieldName is a name set at a field path.
type fieldName struct{ field, name string }
