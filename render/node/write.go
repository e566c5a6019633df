package node

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// AppendYAML appends to buf what kyaml's String prints for the object n
// (goyaml v3's emitter, indent 2, sequences compact in mappings), and
// reports true. goyaml keeps every event of a document in a queue it never
// shrinks, so printing the render's output with it allocated about as much
// as the rest of the render; this writes the bytes directly.
//
// It covers the objects the render emits: block and flow mappings and
// sequences, scalars plain, quoted, literal or folded, comments above a key
// or a block sequence's item and on the line of a block's scalar. On
// anything else it reports false and buf's first len(buf) bytes are left as
// they were, for the caller to print n with kyaml: other comments, an
// anchor or alias, a tag goyaml would print, a key goyaml would write as
// complex, text that is not UTF-8, a root that is not a mapping, and a
// plain value whose implicit tag it does not decide (one that may be a
// timestamp).
//
// Each step follows the goyaml function it names (emitterc.go, encode.go,
// resolve.go); the TestAppendYAML tests and FuzzAppendYAML hold the output
// to kyaml's on the repository's objects, tricky strings and random trees.
func AppendYAML(buf []byte, n *yaml.Node) ([]byte, bool) {
	if n.Kind != yaml.MappingNode {
		return buf, false
	}
	w := yamlWriter{out: buf, indent: -1, whitespace: true, indention: true}
	if !w.node(n, emitContext{}) {
		return buf, false
	}
	// yaml_emitter_emit_document_end, then the stream's end.
	w.writeIndent()
	return w.out, true
}

// yamlWriter is the part of goyaml's yaml_emitter_t that block output reads.
type yamlWriter struct {
	out        []byte
	column     int
	indent     int
	indents    []int
	whitespace bool // the last character written was white space
	indention  bool // only indentation written on this line so far
	flowLevel  int  // how many flow collections are open
}

// emitContext is where a node is emitted: what goyaml's states stack holds
// on top, and the flags yaml_emitter_emit_node sets.
type emitContext struct {
	seqItem      bool // an item of a block sequence
	mappingValue bool // the value of a block mapping
	simpleKey    bool // a key of a block mapping
}

func (w *yamlWriter) node(n *yaml.Node, ctx emitContext) bool {
	if n.Anchor != "" || !w.commentsPlaced(n, ctx) {
		return false
	}
	flow := w.flowLevel > 0 || n.Style&yaml.FlowStyle != 0
	switch n.Kind {
	case yaml.MappingNode:
		if !implicitCollection(n, "!!map") {
			return false
		}
		if flow {
			return w.flowMapping(n)
		}
		return w.mapping(n, ctx)
	case yaml.SequenceNode:
		if !implicitCollection(n, "!!seq") {
			return false
		}
		if flow {
			return w.flowSequence(n)
		}
		return w.sequence(n, ctx)
	case yaml.ScalarNode:
		return w.scalar(n, ctx)
	}
	return false
}

// implicitCollection: block or flow style, and a tag goyaml leaves out.
func implicitCollection(n *yaml.Node, implicitTag string) bool {
	return n.Style&^yaml.FlowStyle == 0 && (n.Tag == "" || shortTag(n.Tag) == implicitTag)
}

// flowSequence is yaml_emitter_emit_flow_sequence_item without comments
// (goyaml's width is unlimited: it never breaks a flow line).
func (w *yamlWriter) flowSequence(n *yaml.Node) bool {
	w.indicator("[", true, true, false)
	w.flowLevel++
	for i, item := range n.Content {
		if i > 0 {
			w.indicator(",", false, false, false)
		}
		if !w.node(item, emitContext{}) {
			return false
		}
	}
	w.flowLevel--
	w.indicator("]", false, false, false)
	return true
}

// flowMapping is yaml_emitter_emit_flow_mapping_key and _value without
// comments.
func (w *yamlWriter) flowMapping(n *yaml.Node) bool {
	if len(n.Content)%2 != 0 {
		return false
	}
	w.indicator("{", true, true, false)
	w.flowLevel++
	for i := 0; i < len(n.Content); i += 2 {
		if i > 0 {
			w.indicator(",", false, false, false)
		}
		if n.Content[i].Kind != yaml.ScalarNode || !w.node(n.Content[i], emitContext{simpleKey: true}) {
			return false
		}
		w.indicator(":", false, false, false)
		if !w.node(n.Content[i+1], emitContext{mappingValue: true}) {
			return false
		}
	}
	w.flowLevel--
	w.indicator("}", false, false, false)
	return true
}

func (w *yamlWriter) mapping(n *yaml.Node, ctx emitContext) bool {
	if len(n.Content) == 0 {
		w.emptyFlow("{", "}")
		return true
	}
	if len(n.Content)%2 != 0 {
		return false
	}
	w.increaseIndent(false, ctx.seqItem, false)
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return false
		}
		if !w.headComment(k.HeadComment) {
			return false
		}
		w.writeIndent()
		if !w.node(k, emitContext{simpleKey: true}) {
			return false
		}
		w.indicator(":", false, false, false)
		if !w.node(v, emitContext{mappingValue: true}) {
			return false
		}
	}
	w.popIndent()
	return true
}

func (w *yamlWriter) sequence(n *yaml.Node, ctx emitContext) bool {
	if len(n.Content) == 0 {
		w.emptyFlow("[", "]")
		return true
	}
	compact := ctx.mappingValue && (w.column == 0 || !w.indention)
	w.increaseIndent(false, ctx.seqItem, compact)
	for _, item := range n.Content {
		if !w.headComment(item.HeadComment) {
			return false
		}
		w.writeIndent()
		w.indicator("-", true, false, true)
		if !w.node(item, emitContext{seqItem: true}) {
			return false
		}
	}
	w.popIndent()
	return true
}

// emptyFlow writes an empty mapping or sequence, which goyaml writes in
// flow style.
func (w *yamlWriter) emptyFlow(open, end string) {
	w.indicator(open, true, true, false)
	w.indicator(end, false, false, false)
}

// scalar is yaml_emitter_emit_scalar after encoder.node's choice of tag and
// style.
func (w *yamlWriter) scalar(n *yaml.Node, ctx emitContext) bool {
	value := n.Value
	style, ok := scalarStyle(n)
	if !ok {
		return false
	}
	a := analyzeScalar(value)
	if ctx.simpleKey && (a.multiline || len(value) > 128) {
		return false // not a simple key: goyaml writes "? key"
	}
	style = selectStyle(style, a, ctx.simpleKey, w.flowLevel > 0)
	w.increaseIndent(true, ctx.seqItem, false)
	switch style {
	case stylePlain:
		w.writePlain(value)
	case styleSingle:
		if a.lineBreaks {
			return false
		}
		w.writeSingle(value)
	case styleDouble:
		w.writeDouble(value)
	case styleLiteral:
		w.writeLiteral(value, n.LineComment)
	case styleFolded:
		w.writeFolded(value, n.LineComment)
	}
	w.popIndent()
	if n.LineComment != "" && style != styleLiteral && style != styleFolded { // yaml_emitter_process_line_comment
		w.lineComment(n.LineComment)
	}
	return true
}

// commentsPlaced: goyaml writes a comment above a key or an item of a
// block sequence (the mapping or the sequence writes it) and on the line of
// a scalar in a block; AppendYAML leaves the others to kyaml.
func (w *yamlWriter) commentsPlaced(n *yaml.Node, ctx emitContext) bool {
	if n.FootComment != "" || !utf8.ValidString(n.HeadComment) || !utf8.ValidString(n.LineComment) {
		return false
	}
	if w.flowLevel > 0 {
		return n.HeadComment == "" && n.LineComment == ""
	}
	if n.HeadComment != "" && !ctx.simpleKey && !ctx.seqItem {
		return false
	}
	return n.LineComment == "" || n.Kind == yaml.ScalarNode && !ctx.simpleKey
}

// headComment is yaml_emitter_process_head_comment, for the comment above
// a key or an item; false where it is not UTF-8 (goyaml's writer would not
// know its characters' widths).
func (w *yamlWriter) headComment(comment string) bool {
	if !utf8.ValidString(comment) {
		return false
	}
	if comment != "" {
		w.writeIndent()
		w.writeComment(comment)
	}
	return true
}

// lineComment is yaml_emitter_process_line_comment with a comment.
func (w *yamlWriter) lineComment(comment string) {
	if !w.whitespace {
		w.out = append(w.out, ' ')
		w.column++
	}
	w.writeComment(comment)
}

// writeComment is yaml_emitter_write_comment: each line of the comment
// starts with "#" (goyaml adds "# " where it does not), then a line break.
func (w *yamlWriter) writeComment(comment string) {
	breaks, pound := false, false
	for i := 0; i < len(comment); {
		if isBreak(comment, i) {
			i = w.writeBreak(comment, i)
			breaks, pound = true, false
			continue
		}
		if breaks {
			w.writeIndent()
		}
		if !pound {
			if comment[i] != '#' {
				w.out = append(w.out, "# "...)
				w.column += 2
			}
			pound = true
		}
		i = w.writeChar(comment, i)
		w.indention = false
		breaks = false
	}
	if !breaks {
		w.putBreak()
	}
	w.whitespace = true
}

type scalarStyleKind int

const (
	stylePlain scalarStyleKind = iota
	styleSingle
	styleDouble
	styleLiteral
	styleFolded
)

// scalarStyle is encoder.node's choice for a scalar: false where goyaml
// prints a tag, or where the value is not UTF-8 (goyaml prints !!binary).
func scalarStyle(n *yaml.Node) (scalarStyleKind, bool) {
	if !utf8.ValidString(n.Value) {
		return 0, false
	}
	forceQuoting := false
	if n.Tag != "" {
		if n.Style&yaml.TaggedStyle != 0 {
			return 0, false
		}
		stag := shortTag(n.Tag)
		quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
		if stag != "!!str" || !quoted {
			rtag, ok := resolvedTag(n.Value)
			switch {
			case !ok:
				return 0, false
			case rtag == stag:
			case stag == "!!str":
				forceQuoting = true
			default:
				return 0, false // goyaml keeps the tag
			}
		}
	}
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return styleDouble, true
	case n.Style&yaml.SingleQuotedStyle != 0:
		return styleSingle, true
	case n.Style&yaml.LiteralStyle != 0:
		return styleLiteral, true
	case n.Style&yaml.FoldedStyle != 0:
		return styleFolded, true
	case strings.Contains(n.Value, "\n"):
		return styleLiteral, true
	case forceQuoting:
		return styleDouble, true
	}
	return stylePlain, true
}

// selectStyle is yaml_emitter_select_scalar_style for an untagged scalar.
func selectStyle(style scalarStyleKind, a scalarAnalysis, simpleKey, flow bool) scalarStyleKind {
	if simpleKey && a.multiline {
		style = styleDouble
	}
	plainAllowed := a.blockPlainAllowed
	if flow {
		plainAllowed = a.flowPlainAllowed
	}
	if style == stylePlain && (!plainAllowed || a.empty && (flow || simpleKey)) {
		style = styleSingle
	}
	if style == styleSingle && !a.singleQuotedAllowed {
		style = styleDouble
	}
	if (style == styleLiteral || style == styleFolded) && (!a.blockAllowed || flow || simpleKey) {
		style = styleDouble
	}
	return style
}

// increaseIndent is yaml_emitter_increase_indent_compact; inSeqItem is
// whether a block sequence item's state is on top of goyaml's stack.
func (w *yamlWriter) increaseIndent(flow, inSeqItem, compactSeq bool) {
	w.indents = append(w.indents, w.indent)
	switch {
	case w.indent < 0 && flow:
		w.indent = yamlIndent
	case w.indent < 0:
		w.indent = 0
	case inSeqItem:
		w.indent += 2
	default:
		w.indent = yamlIndent * ((w.indent + yamlIndent) / yamlIndent)
		if compactSeq {
			w.indent -= 2
		}
	}
}

// yamlIndent is kyaml's indent.
const yamlIndent = 2

func (w *yamlWriter) popIndent() {
	w.indent = w.indents[len(w.indents)-1]
	w.indents = w.indents[:len(w.indents)-1]
}

func (w *yamlWriter) putBreak() {
	w.out = append(w.out, '\n')
	w.column = 0
	w.indention = true
}

// writeChar writes the character at value[i] and returns the next index.
func (w *yamlWriter) writeChar(value string, i int) int {
	n := charWidth(value[i])
	w.out = append(w.out, value[i:i+n]...)
	w.column++
	return i + n
}

// writeBreak is write_break.
func (w *yamlWriter) writeBreak(value string, i int) int {
	if value[i] == '\n' {
		w.putBreak()
		return i + 1
	}
	i = w.writeChar(value, i)
	w.column = 0
	w.indention = true
	return i
}

func (w *yamlWriter) writeIndent() {
	indent := max(w.indent, 0)
	if !w.indention || w.column > indent || (w.column == indent && !w.whitespace) {
		w.putBreak()
	}
	for w.column < indent {
		w.out = append(w.out, ' ')
		w.column++
	}
	w.whitespace = true
}

func (w *yamlWriter) indicator(s string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !w.whitespace {
		w.out = append(w.out, ' ')
		w.column++
	}
	w.out = append(w.out, s...)
	w.column += len(s)
	w.whitespace = isWhitespace
	w.indention = w.indention && isIndention
}

// writePlain is yaml_emitter_write_plain_scalar for a one-line value
// (goyaml's width is unlimited: it never folds).
func (w *yamlWriter) writePlain(value string) {
	if value != "" && !w.whitespace {
		w.out = append(w.out, ' ')
		w.column++
	}
	w.out = append(w.out, value...)
	w.column += utf8.RuneCountInString(value)
	if value != "" {
		w.whitespace = false
	}
	w.indention = false
}

func (w *yamlWriter) writeSingle(value string) {
	w.indicator("'", true, false, false)
	for i := 0; i < len(value); {
		if value[i] == '\'' {
			w.out = append(w.out, '\'')
			w.column++
		}
		i = w.writeChar(value, i)
		w.indention = false
	}
	w.indicator("'", false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *yamlWriter) writeDouble(value string) {
	w.indicator(`"`, true, false, false)
	for i := 0; i < len(value); {
		if !isPrintable(value, i) || isBOM(value, i) || isBreak(value, i) || value[i] == '"' || value[i] == '\\' {
			r, size := utf8.DecodeRuneInString(value[i:])
			i += size
			w.writeEscape(r)
			continue
		}
		i = w.writeChar(value, i)
	}
	w.indicator(`"`, false, false, false)
	w.whitespace = false
	w.indention = false
}

// doubleEscapes are the short escapes of write_double_quoted_scalar.
var doubleEscapes = map[rune]byte{
	0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0A: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
	'"': '"', '\\': '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P',
}

func (w *yamlWriter) writeEscape(r rune) {
	start := len(w.out)
	w.out = append(w.out, '\\')
	if c, ok := doubleEscapes[r]; ok {
		w.out = append(w.out, c)
	} else {
		letter, digits := byte('U'), 8
		switch {
		case r <= 0xFF:
			letter, digits = 'x', 2
		case r <= 0xFFFF:
			letter, digits = 'u', 4
		}
		w.out = append(w.out, letter)
		for k := (digits - 1) * 4; k >= 0; k -= 4 {
			w.out = append(w.out, "0123456789ABCDEF"[(r>>uint(k))&0x0F])
		}
	}
	w.column += len(w.out) - start
}

func (w *yamlWriter) writeLiteral(value, comment string) {
	w.indicator("|", true, false, false)
	w.blockScalarHints(value)
	if comment != "" { // yaml_emitter_process_line_comment_linebreak
		w.lineComment(comment)
	} else {
		w.putBreak()
	}
	w.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			i = w.writeBreak(value, i)
			breaks = true
			continue
		}
		if breaks {
			w.writeIndent()
		}
		// The rest of the line at once: up to a line feed, or to a byte
		// that may start another break (CR, NEL, LS, PS).
		end := i + 1
		for end < len(value) && value[end] != '\n' && value[end] != '\r' && value[end] != 0xC2 && value[end] != 0xE2 {
			end++
		}
		w.out = append(w.out, value[i:end]...)
		w.column += utf8.RuneCountInString(value[i:end])
		i = end
		w.indention = false
		breaks = false
	}
}

// writeFolded is yaml_emitter_write_folded_scalar (goyaml's width is
// unlimited: it never folds a line of its own).
func (w *yamlWriter) writeFolded(value, comment string) {
	w.indicator(">", true, false, false)
	w.blockScalarHints(value)
	if comment != "" {
		w.lineComment(comment)
	} else {
		w.putBreak()
	}
	w.whitespace = true
	breaks, leadingSpaces := true, true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			if !breaks && !leadingSpaces && value[i] == '\n' {
				// goyaml looks at the value's first line here, not the next.
				k := 0
				for k < len(value) && isBreak(value, k) {
					k += charWidth(value[k])
				}
				if k < len(value) && !isBlank(value, k) && value[k] != 0 {
					w.putBreak()
				}
			}
			i = w.writeBreak(value, i)
			breaks = true
			continue
		}
		if breaks {
			w.writeIndent()
			leadingSpaces = isBlank(value, i)
		}
		i = w.writeChar(value, i)
		w.indention = false
		breaks = false
	}
}

// blockScalarHints is yaml_emitter_write_block_scalar_hints. (The "..."
// it may call for at the stream's end is called off by the indicator it
// writes.)
func (w *yamlWriter) blockScalarHints(value string) {
	if value != "" && (value[0] == ' ' || isBreak(value, 0)) {
		w.indicator(strconv.Itoa(yamlIndent), false, false, false)
	}
	chomp := ""
	if value == "" {
		chomp = "-"
	} else {
		i := lastChar(value, len(value))
		switch {
		case !isBreak(value, i):
			chomp = "-"
		case i == 0, isBreak(value, lastChar(value, i)):
			chomp = "+"
		}
	}
	if chomp != "" {
		w.indicator(chomp, false, false, false)
	}
}

// lastChar is the index of the character that ends before end.
func lastChar(value string, end int) int {
	i := end - 1
	for i > 0 && value[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
