// Package dagster holds the Dagster code server among the objects
// kustomize built to the declaration (Rules): how the platform's Dagster
// reaches it (one code server, on a TCP port, behind one Service, under
// the code-location's name: dagsterRule), and the run pods it launches,
// which the container context it hands them describes (containerContextRule).
// The rules are render/policy's Rules; the run pods are held to what a
// pod spec is held to through render/policy's API (Context.PodSecurity,
// PodReach, Binding...). Before the rules run, Gatherers learn the facts
// the render needs of the code server (policy.Check): where Dagster
// reaches it, and the secret keys the run pods read.
package dagster

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
	"github.com/codeloc/codeloc/render/policy"
)

// currentImageEnv is where a code server reads the image its run pods
// launch when no --container-image (or its env vars) says
// (dagster/_grpc/server.py).
const currentImageEnv = "DAGSTER_CURRENT_IMAGE"

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
	CodeCommandLine  = "dagster-command-line"
)

// Codes are the codes dagsterRule emits.
func (dagsterRule) Codes() []policy.Code {
	return []policy.Code{
		{Name: CodeDagsterImage, Doc: "DAGSTER_CURRENT_IMAGE (or DAGSTER_CONTAINER_IMAGE, --container-image) is not the container's own image: run pods would launch another image than the declared revision's. Let kustomize copy the image into it, so that a new revision cannot leave it behind: `replacements: [{source: {kind: Deployment, name: <name>, fieldPath: spec.template.spec.containers.[name=dagster].image}, targets: [{select: {kind: Deployment, name: <name>}, fieldPaths: [spec.template.spec.containers.[name=dagster].env.[name=DAGSTER_CURRENT_IMAGE].value]}]}]`."},
		{Name: CodeCodeServers, Doc: "More than one container runs a Dagster code server: a code-location is one gRPC location."},
		{Name: CodeGRPCPort, Doc: "The code server does not serve on a TCP port a Service can reach (no --port, a socket, a port from elsewhere)."},
		{Name: CodeGRPCHost, Doc: "The code server listens on localhost (Dagster's default host): set -h 0.0.0.0 so that the webserver and daemon reach it."},
		{Name: CodeGRPCService, Doc: "No Service (or more than one) of the render reaches the code server's port: Dagster's workspace needs one host and port."},
		{Name: CodeCommandLine, Doc: "Dagster's CLI (click) would refuse the code server's command line, or codeloc cannot read it as click does (a value it cannot read where an option's name stands): the server's port, host, location, image and container context are unknown."},
		{Name: CodeLocationName, Doc: "The code server's --location-name is not the code-location's name, which the workspace and the reload use."},
	}
}

func (dagsterRule) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	cms := shippedConfigMaps(objs)
	var ps problem.Problems
	for _, w := range in.Pods(objs) {
		for _, ct := range podContainers(w.Spec, w.Path) {
			ps = append(ps, oneImage(in, w.Object, ct, cms)...)
		}
	}
	_, located := codeServerLocation(in, objs)
	return append(ps, located...)
}

// codeServerLocation finds the one code server and where Dagster reaches
// it: its location, or the problems why there is none to reach. It is
// both a fact (gatherFacts keeps the location) and a check (dagsterRule
// reports the problems).
func codeServerLocation(in *policy.Context, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	l := policy.Shared(in, locationKey{}, func() locationResult {
		loc, ps := findLocation(in, objs)
		return locationResult{loc, ps}
	})
	return l.loc, slices.Clip(l.problems)
}

// locationResult is codeServerLocation's result, found once per render: the
// Gatherer and dagsterRule both read it.
type locationResult struct {
	loc      *workspace.Location
	problems problem.Problems
}

type locationKey struct{}

func findLocation(in *policy.Context, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	servers := codeServers(in, objs)
	if len(servers) == 1 {
		return locate(in, servers[0], objs)
	}
	var ps problem.Problems
	for _, s := range servers[min(1, len(servers)):] {
		ps = append(ps, in.Problem(s.o, CodeCodeServers, s.path, fmt.Sprintf("runs a second Dagster code server (%s); the first is in %s %s", s.command, servers[0].o.GetKind(), servers[0].o.GetName()),
			"a code-location is one Dagster location: serve all its definitions from one code server, or split it into code-locations"))
	}
	return nil, ps
}

// codeServers are the containers that run a Dagster code server.
func codeServers(in *policy.Context, objs []*yaml.RNode) []*codeServer {
	cms := shippedConfigMaps(objs)
	var servers []*codeServer
	for _, w := range in.Pods(objs) {
		// Init containers too: a native sidecar (restartPolicy: Always)
		// serves beside the containers.
		for _, ct := range podContainers(w.Spec, w.Path) {
			servers = append(servers, findCodeServers(w.Object, ct.c, ct.path, podLabels(in, w.Object), cms)...)
		}
	}
	return servers
}

// podLabels are the labels of a workload's pods as deployed: with the
// code-location's label, which Apply adds (a Service may select on it).
func podLabels(in *policy.Context, o *yaml.RNode) map[string]string {
	labels := map[string]string{}
	if o.GetKind() == "Pod" {
		labels = o.GetLabels()
	} else if tmpl, err := o.Pipe(yaml.Lookup(policy.PodTemplatePath(o.GetKind())...)); err == nil && tmpl != nil {
		labels = tmpl.GetLabels()
	}
	labels[names.LabelCodeLocation] = in.Declaration().CodeLocation
	return labels
}

// oneImage refuses an image setting of Dagster's that is not the
// container's own image: run pods would launch another revision.
func oneImage(in *policy.Context, o *yaml.RNode, ct containerAt, cms map[string]*yaml.RNode) problem.Problems {
	found, unreadable := settingSources(ct.c, ct.path, cms, paramImage, []string{currentImageEnv})
	var ps problem.Problems
	fix := fmt.Sprintf("set it to %q, the container's image after kustomize's images: transform, or let kustomize copy the image into it with replacements:, as `codeloc explain %s` shows", ct.c.Image, CodeDagsterImage)
	for _, src := range unreadable {
		ps = append(ps, in.Problem(o, CodeDagsterImage, src.field, fmt.Sprintf("%s%s: codeloc cannot read the image Dagster launches runs from: %s", src.name, src.from, src.text), fix))
	}
	for _, src := range found {
		if src.text != ct.c.Image {
			ps = append(ps, in.Problem(o, CodeDagsterImage, src.field,
				fmt.Sprintf("%s%s is %q, not the container's image %q: every run would launch that image, not the declared revision %s", src.name, src.from, policy.OneLine(src.text), ct.c.Image, in.Declaration().Revision), fix))
		}
	}
	return ps
}

// locate checks the code server's settings and finds the Service that
// reaches it.
func locate(in *policy.Context, s *codeServer, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	if ps := serverSettings(in, s); len(ps) > 0 {
		return nil, ps
	}
	return findService(in, s, objs)
}

// serverSettings checks how the code server serves: on a TCP port, on
// every interface, under the code-location's name.
func serverSettings(in *policy.Context, s *codeServer) problem.Problems {
	problem := func(code, field, msg, hint string) problem.Problems {
		if field == "" {
			field = s.path
		}
		return problem.Problems{in.Problem(s.o, code, field, msg, hint)}
	}
	portHint := fmt.Sprintf("run `%s -h 0.0.0.0 -p 3030 ...` (a literal port) and a Service with a port named grpc targeting it", s.command)
	switch {
	case s.parse.unreadable != "":
		return problem(CodeCommandLine, s.parse.field, fmt.Sprintf("codeloc cannot read the code server's command line (%s) as Dagster's CLI does: %s", s.command, s.parse.unreadable),
			"write the code server's options as literal words of command or args (or env values codeloc reads): its port, host, location name, image and container context decide what Dagster reaches and launches")
	case s.parse.refused != "":
		return problem(CodeCommandLine, s.parse.field, fmt.Sprintf("Dagster's CLI refuses the code server's command line (%s): %s; the container would exit at start", s.command, s.parse.refused),
			fmt.Sprintf("run `%s -h 0.0.0.0 -p 3030 -m <module>` with only the options `%s --help` lists", s.command, s.command))
	case len(s.parse.given[paramHelp]) > 0:
		return problem(CodeCommandLine, s.parse.given[paramHelp][0].field, fmt.Sprintf("the code server's command line (%s) asks for --help: it prints its usage and exits, serving nothing", s.command), "remove --help")
	case s.socket.field != "":
		return problem(CodeGRPCPort, s.socket.field, "the code server serves on a Unix socket, which no Service reaches", portHint)
	case s.port.fromEnv:
		return problem(CodeGRPCPort, s.port.field, "the code server's port comes from elsewhere (valueFrom): codeloc cannot tell where Dagster reaches it", portHint)
	case s.port.field == "":
		return problem(CodeGRPCPort, "", fmt.Sprintf("the code server (%s) sets no --port: it serves on no TCP port", s.command), portHint)
	case s.portNumber() == 0:
		return problem(CodeGRPCPort, s.port.field, fmt.Sprintf("%q is not a TCP port", policy.OneLine(s.port.value)), portHint)
	case s.host.fromEnv || !listensEverywhere(s.host.value):
		host := s.host.value
		if s.host.field == "" {
			host = "localhost (the default)"
		}
		return problem(CodeGRPCHost, s.host.field, fmt.Sprintf("the code server listens on %s: Dagster's webserver and daemon, in other pods, cannot reach it", policy.OneLine(host)), "add -h 0.0.0.0 to the command line")
	case s.location.fromEnv || (s.location.field != "" && s.location.value != in.Declaration().CodeLocation):
		return problem(CodeLocationName, s.location.field, fmt.Sprintf("the code server calls its location %q, not the code-location's name %s", policy.OneLine(s.location.value), in.Declaration().CodeLocation),
			fmt.Sprintf("remove --location-name, or set it to %s: the workspace and the reload name the location after the code-location", in.Declaration().CodeLocation))
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
func findService(in *policy.Context, s *codeServer, objs []*yaml.RNode) (*workspace.Location, problem.Problems) {
	port := int32(s.portNumber())
	var reach []servicePort
	var selecting []string
	for _, o := range objs {
		if o.GetApiVersion() != "v1" || o.GetKind() != "Service" || policy.HandledByPolicy(o) {
			continue
		}
		var svc corev1.Service
		if !policy.DecodeObject(o, &svc) || !selects(svc.Spec.Selector, s.labels) {
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
		return nil, problem.Problems{in.Problem(s.o, CodeGRPCService, s.path, msg,
			fmt.Sprintf("ship a Service named %s selecting the pods, with a port named grpc targeting %d: Dagster's workspace reaches the code server through it", in.Declaration().CodeLocation, port))}
	}
	best, ok := bestPort(in, reach)
	if !ok {
		return nil, problem.Problems{in.Problem(s.o, CodeGRPCService, s.path,
			fmt.Sprintf("Services %s all reach the code server: Dagster's workspace needs one", strings.Join(serviceNames(reach), ", ")),
			fmt.Sprintf("name the one Dagster reaches %s, after the code-location", in.Declaration().CodeLocation))}
	}
	return &workspace.Location{Name: in.Declaration().CodeLocation, Host: best.service + "." + in.Contract().Namespace + ".svc", Port: int(best.port.Port)}, nil
}

// bestPort picks the Service named after the code-location if several
// reach the server, then its port named grpc, else its first.
func bestPort(in *policy.Context, reach []servicePort) (servicePort, bool) {
	names := serviceNames(reach)
	if len(names) > 1 {
		if !slices.Contains(names, in.Declaration().CodeLocation) {
			return servicePort{}, false
		}
		reach = slices.DeleteFunc(reach, func(p servicePort) bool { return p.service != in.Declaration().CodeLocation })
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
// revision not yet ready included. Its errors are returned; the location
// is in.GRPCLocation().
func Locate(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	errs, _ := policy.Check(in, []policy.Rule{dagsterRule{}}, Gatherers, objs).Split()
	return errs
}
