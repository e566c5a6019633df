package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenderCalls reads both plugin servers' logs: codeloc-sidecar's
// render lines and argocd-cmp-server's gRPC interceptor lines; other lines
// and other calls are skipped, and only what follows the offset counts.
func TestRenderCalls(t *testing.T) {
	tests := []struct {
		name, kind, log string
		offset          int64
		want            []call
	}{
		{"sidecar", pluginSidecar, `{"time":"x","level":"INFO","msg":"sidecar: listening"}
{"level":"INFO","msg":"render","app":"citation","duration_ms":12.5,"receive_ms":2.5,"outcome":"ok"}
not json
{"level":"INFO","msg":"render","app":"quotes","duration_ms":40,"outcome":"invalid"}
{"level":"INFO","msg":"contract","duration_ms":3}
`, 0, []call{{12.5, 2.5, true}, {40, 0, false}}},
		{"stock", pluginStock, `{"grpc.code":"OK","grpc.method":"CheckPluginConfiguration","grpc.time_ms":0.1,"level":"info","msg":"finished unary call with code OK"}
{"grpc.code":"OK","grpc.method":"GenerateManifest","grpc.service":"plugin.ConfigManagementPluginService","grpc.time_ms":85.3,"level":"info","msg":"finished streaming call with code OK"}
time="x" level=info msg="Generating manifests"
`, 0, []call{{85.3, 0, false}}},
		// Argo CD 3.x: go-grpc-middleware v2 logs the duration as a string.
		{"stock v3", pluginStock, `{"grpc.code":"OK","grpc.component":"server","grpc.method":"GenerateManifest","grpc.method_type":"client_stream","grpc.service":"plugin.ConfigManagementPluginService","grpc.time_ms":"81.306","level":"info","msg":"finished call"}
{"grpc.component":"server","grpc.method":"GenerateManifest","grpc.method_type":"client_stream","grpc.time_ms":"0.009","level":"info","msg":"started call"}
`, 0, []call{{81.306, 0, false}}},
		{"after the offset", pluginSidecar, `{"msg":"render","duration_ms":1}
{"msg":"render","duration_ms":2}
`, int64(len(`{"msg":"render","duration_ms":1}` + "\n")), []call{{2, 0, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "server.log")
			if err := os.WriteFile(log, []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := renderCalls(log, tt.offset, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(call{})); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ q, want float64 }{{0.5, 5}, {0.99, 10}, {0.1, 1}, {0, 1}, {1, 10}} {
		if got := quantile(sorted, tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
}
