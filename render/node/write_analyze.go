package node

import "strings"

// scalarAnalysis is what yaml_emitter_analyze_scalar finds.
type scalarAnalysis struct {
	empty, multiline, lineBreaks                                           bool
	flowPlainAllowed, blockPlainAllowed, singleQuotedAllowed, blockAllowed bool
}

// analyzeScalar is yaml_emitter_analyze_scalar with unicode output.
func analyzeScalar(value string) scalarAnalysis {
	if value == "" {
		return scalarAnalysis{empty: true, blockPlainAllowed: true, singleQuotedAllowed: true}
	}
	var flowIndicators, blockIndicators, lineBreaks, special, tabs bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	var previousSpace, previousBreak bool
	if strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...") {
		flowIndicators, blockIndicators = true, true
	}
	precededByWhitespace := true
	for i, n := 0, 0; i < len(value); i += n {
		c := value[i]
		n = 1
		if i > 0 && plainByte[c] { // most bytes: nothing to note but that
			previousSpace, previousBreak, precededByWhitespace = false, false, false
			continue
		}
		printable, brk := c == '\n' || c >= 0x20 && c <= 0x7E, c == '\n' || c == '\r'
		if c >= 0x80 {
			n, printable, brk = charWidth(c), isPrintable(value, i), isBreak(value, i)
		}
		followedByWhitespace := i+n >= len(value) || isBlank(value, i+n)
		if i == 0 {
			switch value[i] {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators, blockIndicators = true, true
			case '?', ':':
				flowIndicators = true
				blockIndicators = blockIndicators || followedByWhitespace
			case '-':
				if followedByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		} else {
			switch value[i] {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				blockIndicators = blockIndicators || followedByWhitespace
			case '#':
				if precededByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		}
		if c == '\t' {
			tabs = true
		} else if !printable {
			special = true
		}
		switch {
		case c == ' ':
			leadingSpace = leadingSpace || i == 0
			trailingSpace = trailingSpace || i+n == len(value)
			breakSpace = breakSpace || previousBreak
			previousSpace, previousBreak = true, false
		case brk:
			lineBreaks = true
			leadingBreak = leadingBreak || i == 0
			trailingBreak = trailingBreak || i+n == len(value)
			spaceBreak = spaceBreak || previousSpace
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = c == ' ' || c == '\t' || brk || c == 0
	}
	a := scalarAnalysis{multiline: lineBreaks, lineBreaks: lineBreaks, flowPlainAllowed: true, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks {
		a.flowPlainAllowed, a.blockPlainAllowed = false, false
	}
	a.flowPlainAllowed = a.flowPlainAllowed && !flowIndicators
	a.blockPlainAllowed = a.blockPlainAllowed && !blockIndicators
	if trailingSpace || spaceBreak || special {
		a.blockAllowed = false
	}
	if breakSpace || spaceBreak || tabs || special {
		a.flowPlainAllowed, a.blockPlainAllowed = false, false
		a.singleQuotedAllowed = false
	}
	return a
}

// plainByte is true for the printable ASCII bytes that mean nothing to the
// analysis past a value's first byte: not a space, not a flow indicator, a
// colon or a pound sign.
var plainByte = func() (t [256]bool) {
	for c := 0x21; c <= 0x7E; c++ {
		t[c] = !strings.ContainsRune(",?[]{}:#", rune(c))
	}
	return t
}()

// charWidth is goyaml's width: a character's length from its first byte.
func charWidth(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func isBlank(s string, i int) bool { return s[i] == ' ' || s[i] == '\t' }

// isBreak is goyaml's is_break: LF, CR, NEL, LS and PS.
func isBreak(s string, i int) bool {
	switch s[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return s[i+1] == 0x85
	case 0xE2:
		return s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
	}
	return false
}

// isBOM is goyaml's is_bom, which looks at the value's first character
// whatever i is: a value that starts with a BOM is escaped whole.
func isBOM(s string, _ int) bool {
	return len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF
}

// isPrintable is goyaml's is_printable.
func isPrintable(s string, i int) bool {
	b := s[i]
	switch {
	case b == 0x0A, b >= 0x20 && b <= 0x7E:
		return true
	case b == 0xC2:
		return s[i+1] >= 0xA0
	case b > 0xC2 && b < 0xED, b == 0xEE:
		return true
	case b == 0xED:
		return s[i+1] < 0xA0
	case b == 0xEF:
		notBOM := s[i+1] != 0xBB || s[i+2] != 0xBF                         // U+FEFF
		notNonchar := s[i+1] != 0xBF || (s[i+2] != 0xBE && s[i+2] != 0xBF) // U+FFFE, U+FFFF
		return notBOM && notNonchar
	}
	return false
}
