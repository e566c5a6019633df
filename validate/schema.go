package validate

import _ "embed"

// DeclarationSchema is the JSON Schema of code-location.manifest.yaml, for
// editors; the Go checks remain the authority.
//
//go:embed schema.json
var DeclarationSchema []byte
