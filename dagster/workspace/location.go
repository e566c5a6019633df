// Package workspace is Dagster's workspace as codeloc writes and reads it:
// where the platform's webserver and daemon reach each code-location's
// code server (load_from: grpc_server entries).
package workspace

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Location is one code-location's code server, as Dagster's workspace
// names it in a grpc_server entry and as the record publishes it.
type Location struct {
	// Name is the code-location's name, Dagster's location_name.
	Name string
	// Host is the code server's Service, <service>.<namespace>.svc.
	Host string
	// Port is the Service's gRPC port.
	Port int
}

// Check refuses what is not a code-location's name, a Service's host and a
// TCP port.
func (l Location) Check() error {
	if errs := validation.IsDNS1123Label(l.Name); len(errs) > 0 {
		return fmt.Errorf("code-location name %q is not a DNS-1123 label: %s", l.Name, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(l.Host); len(errs) > 0 {
		return fmt.Errorf("code-location %q: host %q is not a Service's host name (<service>.<namespace>.svc): %s", l.Name, l.Host, strings.Join(errs, "; "))
	}
	if l.Port < 1 || l.Port > 65535 {
		return fmt.Errorf("code-location %q: port %d is not a TCP port (1-65535)", l.Name, l.Port)
	}
	return nil
}
