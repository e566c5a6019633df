package workspace

import "testing"

// TestPyYAMLInts: YAML 1.1 integers as PyYAML's construct_yaml_int reads them.
func TestPyYAMLInts(t *testing.T) {
	for in, want := range map[string]string{
		"4000": "4000", "+4000": "4000", "-4000": "-4000", "4_000": "4000", "0": "0", "-0": "0",
		"0xFA0": "4000", "0b111110100000": "4000", "07640": "4000", "1:06:40": "4000", "00": "0",
	} {
		got, ok := yaml11IntValue(in)
		if !ok || got != want {
			t.Errorf("%s: got %s %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"4000.0", "1e3", "08", "0o17", "four", ""} {
		if _, ok := yaml11IntValue(in); ok {
			t.Errorf("%s: want not an int", in)
		}
	}
}
