package node

import (
	"strconv"
	"strings"
)

func shortTag(tag string) string {
	if rest, ok := strings.CutPrefix(tag, "tag:yaml.org,2002:"); ok {
		return "!!" + rest
	}
	return tag
}

// resolvedTag is goyaml's resolve("", value): the tag a plain scalar reads
// as. ok is false for what may be a timestamp, which it leaves to goyaml.
func resolvedTag(value string) (tag string, ok bool) {
	hint := byte('N')
	if value != "" {
		hint = resolveHint(value[0])
	}
	if hint == 0 {
		return "!!str", true
	}
	if t, ok := resolveMap[value]; ok {
		return t, true
	}
	switch hint {
	case '.':
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return "!!float", true
		}
	case 'D', 'S':
		if mayBeTimestamp(value) {
			return "", false
		}
		return resolveNumber(strings.ReplaceAll(value, "_", "")), true
	}
	return "!!str", true
}

// resolveHint is goyaml's resolveTable.
func resolveHint(c byte) byte {
	switch {
	case c == '+' || c == '-':
		return 'S'
	case c >= '0' && c <= '9':
		return 'D'
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		return 'M'
	case c == '.':
		return '.'
	}
	return 0
}

// resolveMap is goyaml's resolveMap, by tag.
var resolveMap = map[string]string{
	"true": "!!bool", "True": "!!bool", "TRUE": "!!bool",
	"false": "!!bool", "False": "!!bool", "FALSE": "!!bool",
	"": "!!null", "~": "!!null", "null": "!!null", "Null": "!!null", "NULL": "!!null",
	".nan": "!!float", ".NaN": "!!float", ".NAN": "!!float",
	".inf": "!!float", ".Inf": "!!float", ".INF": "!!float",
	"+.inf": "!!float", "+.Inf": "!!float", "+.INF": "!!float",
	"-.inf": "!!float", "-.Inf": "!!float", "-.INF": "!!float",
	"<<": "!!merge",
}

// mayBeTimestamp is parseTimestamp's quick check: four digits and a dash.
func mayBeTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 4 && i < len(s) && s[i] == '-'
}

// resolveNumber is resolve's int and float cases, on the value without
// underscores.
func resolveNumber(plain string) string {
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return "!!int"
	}
	if yamlStyleFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return "!!float"
		}
	}
	for _, p := range []struct {
		prefix, sign string
		base         int
	}{{"0b", "", 2}, {"-0b", "-", 2}, {"0o", "", 8}, {"-0o", "-", 8}} {
		digits, ok := strings.CutPrefix(plain, p.prefix)
		if !ok {
			continue
		}
		if _, err := strconv.ParseInt(p.sign+digits, p.base, 64); err == nil {
			return "!!int"
		}
		if p.sign == "" {
			if _, err := strconv.ParseUint(digits, p.base, 64); err == nil {
				return "!!int"
			}
		}
		break
	}
	return "!!str"
}

// yamlStyleFloat is goyaml's regexp
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ written out.
func yamlStyleFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		if i = digitsEnd(s, i+1); s[i-1] == '.' {
			return false
		}
	} else {
		j := digitsEnd(s, i)
		if j == i {
			return false
		}
		if i = j; i < len(s) && s[i] == '.' {
			i = digitsEnd(s, i+1)
		}
	}
	return exponentEnd(s, i) == len(s)
}
