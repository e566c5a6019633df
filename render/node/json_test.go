package node

import (
	"encoding/json"
	"testing"
)

// TestAppendString checks appendString against encoding/json.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "\x00\x01\n\r\t\x1f\x7f", "é☃𝄞", "\u2028\u2029", "bad \xff utf8 \xc3", "<>&"} {
		want, _ := json.Marshal(s)
		var w string
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		got := appendString(nil, s)
		var g string
		if err := json.Unmarshal(got, &g); err != nil {
			t.Errorf("%q: %s is not a JSON string: %v", s, got, err)
			continue
		}
		if g != w {
			t.Errorf("%q: decodes to %q, want %q", s, g, w)
		}
	}
}

// TestIsJSONNumber checks the number grammar.
func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e3": true, "1E+3": true, "-2.5e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "0x1F": false, "1e": false, "1_000": false, "Inf": false,
	} {
		if got := IsJSONNumber(s); got != want {
			t.Errorf("IsJSONNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
