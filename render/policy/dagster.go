package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/problem"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
)

// GRPCLocation is where the platform's Dagster reaches the code-location's
// code server, nil when it runs none (known once Check ran without
// problems).
func (in *Context) GRPCLocation() *workspace.Location { return in.grpc }

// imageEnvNames are where a code server reads the image its run pods
// launch (Dagster reads --container-image, else DAGSTER_CURRENT_IMAGE).
var imageEnvNames = []string{"DAGSTER_CURRENT_IMAGE", "DAGSTER_CONTAINER_IMAGE", "DAGSTER_CLI_API_GRPC_CONTAINER_IMAGE"}

// dagsterRule finds the code-location's Dagster code server and how the
// platform's Dagster reaches it: one server, on a TCP port of every
// interface, reached by one Service of the render, under the
// code-location's name. It also holds the image Dagster launches run
// pods from to the container's own (the declared revision).
type dagsterRule struct{}

// Codes of dagsterRule: stable, contracts, fixtures and scripts name them.
const (
	CodeDagsterImage = "dagster-image"
	CodeCodeServers  = "dagster-code-servers"
	CodeGRPCPort     = "dagster-grpc-port"
	CodeGRPCHost     = "dagster-grpc-host"
	CodeGRPCService  = "dagster-grpc-service"
	CodeLocationName = "dagster-location-name"
)

// Codes are the codes dagsterRule emits.
func (dagsterRule) Codes() []Code {
	return []Code{
		{CodeDagsterImage, "DAGSTER_CURRENT_IMAGE (or DAGSTER_CONTAINER_IMAGE, --container-image) is not the container's own image: run pods would launch another image than the declared revision's."},
		{CodeCodeServers, "More than one container runs a Dagster code server: a code-location is one gRPC location."},
		{CodeGRPCPort, "The code server does not serve on a TCP port a Service can reach (no --port, a socket, a port from elsewhere)."},
		{CodeGRPCHost, "The code server listens on localhost (Dagster's default host): set -h 0.0.0.0 so that the webserver and daemon reach it."},
		{CodeGRPCService, "No Service (or more than one) of the render reaches the code server's port: Dagster's workspace needs one host and port."},
		{CodeLocationName, "The code server's --location-name is not the code-location's name, which the workspace and the reload use."},
	}
}

func (dagsterRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	cms := shippedConfigMaps(objs)
	var ps problem.Problems
	for _, w := range in.decodedPods(objs) {
		for _, ct := range podContainers(w.spec, w.path) {
			ps = append(ps, in.oneImage(w.o, ct, cms)...)
		}
	}
	_, located := in.codeServerLocation(objs)
	return append(ps, located...)
}

// codeServerLocation finds the one code server and where Dagster reaches
// it: its location, or the problems why there is none to reach. It is
// both a fact (gatherFacts keeps the location) and a check (dagsterRule
// reports the problems).
func (in *Context) codeServerLocation(objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	servers := in.codeServers(objs)
	if len(servers) == 1 {
		return in.locate(servers[0], objs)
	}
	var ps problem.Problems
	for _, s := range servers[min(1, len(servers)):] {
		ps = append(ps, in.problem(s.o, CodeCodeServers, s.path, fmt.Sprintf("runs a second Dagster code server (%s); the first is in %s %s", s.command, servers[0].o.GetKind(), servers[0].o.GetName()),
			"a code-location is one Dagster location: serve all its definitions from one code server, or split it into code-locations"))
	}
	return nil, ps
}

// codeServers are the containers that run a Dagster code server.
func (in *Context) codeServers(objs []*yaml.RNode) []*codeServer {
	cms := shippedConfigMaps(objs)
	var servers []*codeServer
	for _, w := range in.decodedPods(objs) {
		for i := range w.spec.Containers {
			if s := findCodeServer(w.o, &w.spec.Containers[i], fmt.Sprintf("%s.containers[%d]", w.path, i), in.podLabels(w.o), cms); s != nil {
				servers = append(servers, s)
			}
		}
	}
	return servers
}

// podLabels are the labels of a workload's pods as deployed: with the
// code-location's label, which Apply adds (a Service may select on it).
func (in *Context) podLabels(o *yaml.RNode) map[string]string {
	labels := map[string]string{}
	if o.GetKind() == "Pod" {
		labels = o.GetLabels()
	} else if tmpl, err := o.Pipe(yaml.Lookup(podTemplatePath(o.GetKind())...)); err == nil && tmpl != nil {
		labels = tmpl.GetLabels()
	}
	labels[names.LabelCodeLocation] = in.d.CodeLocation
	return labels
}

// oneImage refuses an image setting of Dagster's that is not the
// container's own image: run pods would launch another revision.
func (in *Context) oneImage(o *yaml.RNode, ct containerAt, cms map[string]*yaml.RNode) problem.Problems {
	found, unreadable := envSources(ct.c, ct.path, cms, imageEnvNames, "--container-image")
	var ps problem.Problems
	fix := fmt.Sprintf("set it to %q, the container's image after kustomize's images: transform, or let kustomize copy the image into it (replacements:, see docs/declaration.md)", ct.c.Image)
	for _, src := range unreadable {
		ps = append(ps, in.problem(o, CodeDagsterImage, src.field, fmt.Sprintf("%s%s: codeloc cannot read the image Dagster launches runs from: %s", src.name, src.from, src.text), fix))
	}
	for _, src := range found {
		if src.text != ct.c.Image {
			ps = append(ps, in.problem(o, CodeDagsterImage, src.field,
				fmt.Sprintf("%s%s is %q, not the container's image %q: every run would launch that image, not the declared revision %s", src.name, src.from, oneLine(src.text), ct.c.Image, in.d.Revision), fix))
		}
	}
	return ps
}

// oneLine bounds a value shown in a message to one short line.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + "..."
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// locate checks the code server's settings and finds the Service that
// reaches it.
func (in *Context) locate(s *codeServer, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	if ps := in.serverSettings(s); len(ps) > 0 {
		return nil, ps
	}
	return in.findService(s, objs)
}

// serverSettings checks how the code server serves: on a TCP port, on
// every interface, under the code-location's name.
func (in *Context) serverSettings(s *codeServer) problem.Problems {
	problem := func(code, field, msg, hint string) problem.Problems {
		if field == "" {
			field = s.path
		}
		return problem.Problems{in.problem(s.o, code, field, msg, hint)}
	}
	portHint := fmt.Sprintf("run `%s -h 0.0.0.0 -p 3030 ...` (a literal port) and a Service with a port named grpc targeting it", s.command)
	switch {
	case s.socket.field != "":
		return problem(CodeGRPCPort, s.socket.field, "the code server serves on a Unix socket, which no Service reaches", portHint)
	case s.port.fromEnv:
		return problem(CodeGRPCPort, s.port.field, "the code server's port comes from elsewhere (valueFrom): codeloc cannot tell where Dagster reaches it", portHint)
	case s.port.field == "":
		return problem(CodeGRPCPort, "", fmt.Sprintf("the code server (%s) sets no --port: it serves on no TCP port", s.command), portHint)
	case s.portNumber() == 0:
		return problem(CodeGRPCPort, s.port.field, fmt.Sprintf("%q is not a TCP port", oneLine(s.port.value)), portHint)
	case s.host.fromEnv || !listensEverywhere(s.host.value):
		host := s.host.value
		if s.host.field == "" {
			host = "localhost (the default)"
		}
		return problem(CodeGRPCHost, s.host.field, fmt.Sprintf("the code server listens on %s: Dagster's webserver and daemon, in other pods, cannot reach it", oneLine(host)), "add -h 0.0.0.0 to the command line")
	case s.location.fromEnv || (s.location.field != "" && s.location.value != in.d.CodeLocation):
		return problem(CodeLocationName, s.location.field, fmt.Sprintf("the code server calls its location %q, not the code-location's name %s", oneLine(s.location.value), in.d.CodeLocation),
			fmt.Sprintf("remove --location-name, or set it to %s: the workspace and the reload name the location after the code-location", in.d.CodeLocation))
	}
	return nil
}

// servicePort is a Service port that reaches the code server.
type servicePort struct {
	service string
	port    corev1.ServicePort
}

// findService finds the one Service port of the render that reaches the
// code server: preferably the Service named after the code-location and
// its port named grpc.
func (in *Context) findService(s *codeServer, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	port := int32(s.portNumber())
	var reach []servicePort
	var selecting []string
	for _, o := range objs {
		if o.GetApiVersion() != "v1" || o.GetKind() != "Service" || handledByPolicy(o) {
			continue
		}
		var svc corev1.Service
		if !decodeObject(o, &svc) || !selects(svc.Spec.Selector, s.labels) {
			continue
		}
		selecting = append(selecting, svc.Name)
		for _, p := range svc.Spec.Ports {
			if reaches(p, port, s.container) && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
				reach = append(reach, servicePort{svc.Name, p})
			}
		}
	}
	if len(reach) == 0 {
		msg := fmt.Sprintf("no Service of the render selects the code server's pods and reaches its port %d", port)
		if len(selecting) > 0 {
			msg = fmt.Sprintf("Service %s selects the code server's pods but none of its ports reaches port %d", strings.Join(selecting, ", "), port)
		}
		return nil, problem.Problems{in.problem(s.o, CodeGRPCService, s.path, msg,
			fmt.Sprintf("ship a Service named %s selecting the pods, with a port named grpc targeting %d: Dagster's workspace reaches the code server through it", in.d.CodeLocation, port))}
	}
	best, ok := in.bestPort(reach)
	if !ok {
		return nil, problem.Problems{in.problem(s.o, CodeGRPCService, s.path,
			fmt.Sprintf("Services %s all reach the code server: Dagster's workspace needs one", strings.Join(serviceNames(reach), ", ")),
			fmt.Sprintf("name the one Dagster reaches %s, after the code-location", in.d.CodeLocation))}
	}
	return &workspace.Location{Name: in.d.CodeLocation, Host: best.service + "." + in.c.Namespace + ".svc", Port: int(best.port.Port)}, nil
}

// bestPort picks the Service named after the code-location if several
// reach the server, then its port named grpc, else its first.
func (in *Context) bestPort(reach []servicePort) (servicePort, bool) {
	names := serviceNames(reach)
	if len(names) > 1 {
		if !slices.Contains(names, in.d.CodeLocation) {
			return servicePort{}, false
		}
		reach = slices.DeleteFunc(reach, func(p servicePort) bool { return p.service != in.d.CodeLocation })
	}
	if i := slices.IndexFunc(reach, func(p servicePort) bool { return p.port.Name == "grpc" }); i >= 0 {
		return reach[i], true
	}
	return reach[0], true
}

func serviceNames(ps []servicePort) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p.service) {
			out = append(out, p.service)
		}
	}
	return out
}

// selects reports whether a Service selector matches pod labels; an empty
// selector selects no pod (its endpoints are managed by hand).
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// reaches reports whether a Service port forwards to the server's port:
// its targetPort is that number, or names a container port of that
// number; no targetPort means the port itself.
func reaches(p corev1.ServicePort, port int32, c *corev1.Container) bool {
	switch t := p.TargetPort; {
	case t.Type == intstr.String && t.StrVal != "":
		return slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == t.StrVal && cp.ContainerPort == port })
	case t.IntVal != 0:
		return t.IntVal == port
	}
	return p.Port == port
}

// Locate runs the rule that finds the code server alone, for `codeloc
// application`: the workspace needs every code-location's location, a
// revision not yet ready included. Its errors are returned.
func Locate(in *Context, objs []*yaml.RNode) problem.Problems {
	in.gatherFacts(objs)
	errs, _ := dagsterRule{}.Check(in, objs).Split()
	return errs
}
