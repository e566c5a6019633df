package policy

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// Secrets named outside pod specs: the ingress controller serves an
// Ingress's spec.tls[].secretName, and Kubernetes lets the pods of a
// ServiceAccount mount its secrets[] (with kubernetes.io/enforce-mountable-secrets).
// Both must be declared like the Secrets a pod names (consume-secret). An
// Ingress of any group counts (extensions/v1beta1 on old clusters has the
// same spec.tls).

// ingressTLS checks the Secrets an Ingress's TLS entries name.
func (b *binding) ingressTLS(o *yaml.RNode) problem.Problems {
	var ing networkingv1.Ingress
	if !decodeObject(o, &ing) {
		return nil // wellFormedRule says why
	}
	var ps problem.Problems
	for i, t := range ing.Spec.TLS {
		if t.SecretName == "" {
			continue // the controller's default certificate
		}
		if p := b.check(o, reference{kind: KindSecret, name: t.SecretName, field: fmt.Sprintf("spec.tls[%d].secretName", i)}); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

// serviceAccountSecrets checks the Secrets a shipped ServiceAccount lists
// in secrets[]: the pods that run as it may mount them.
func (b *binding) serviceAccountSecrets(o *yaml.RNode) problem.Problems {
	var sa corev1.ServiceAccount
	if !decodeObject(o, &sa) {
		return nil
	}
	var ps problem.Problems
	for i, s := range sa.Secrets {
		if p := b.check(o, reference{kind: KindSecret, name: s.Name, field: fmt.Sprintf("secrets[%d].name", i)}); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}
