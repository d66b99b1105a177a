package enginelog

import "bytes"

// This file takes colour codes out of a line: real ANSI escape sequences,
// and the remnants of colour codes whose ESC byte was lost on the way (a
// copy from a web page, a log collector that drops control bytes). vLLM
// colours its process prefixes "\x1b[1;36m(APIServer pid=1)\x1b[0;0m "
// (CYAN and RESET in vllm/utils/system_utils.py) and, with colour on, the
// parts of its header; without the ESC byte they read "[1;36m(APIServer
// pid=1)[0;0m", sometimes with a space before the reset.

// StripANSI appends b without its ANSI escape sequences to dst: CSI
// sequences, control strings (OSC, APC, DCS, PM, SOS, ECMA-48 5.6) and
// the other escapes.
func StripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 < len(b) && b[i+1] == '[' {
			// CSI: parameters and intermediates, then one final byte 0x40-0x7e.
			j := i + 2
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
				j++
			}
			i = j // the final byte (or the end)
			continue
		}
		if i+1 < len(b) && isStringIntro(b[i+1]) {
			// A control string (ECMA-48 5.6): OSC "ESC ]" (hyperlinks,
			// titles), APC "ESC _" (the Buildkite agent's "ESC _bk;t=ms
			// BEL" line stamps), DCS, PM, SOS, up to its ST "ESC \" or, as
			// xterm also takes, BEL; a string not ended on the line runs
			// to its end.
			j := i + 2
			for j < len(b) && b[j] != 0x07 && (b[j] != 0x1b || j+1 < len(b) && b[j+1] != '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++ // the backslash of ST
			}
			i = j
			continue
		}
		// Other escapes: intermediates 0x20-0x2f, then one final byte
		// (ESC 7, ESC ( B, ...).
		j := i + 1
		for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
			j++
		}
		i = j
	}
	return dst
}

// isStringIntro reports whether c, after ESC, opens a control string:
// OSC ']', APC '_', DCS 'P', PM '^', SOS 'X'.
func isStringIntro(c byte) bool {
	return c == ']' || c == '_' || c == 'P' || c == '^' || c == 'X'
}

// escSpellings are the ways log viewers and exports write the ESC byte
// out in text, found in front of a colour remnant's "[": syslog's octal
// "#033", "\033", "\x1b", "\e", "\u001b", caret notation "^[" and "ESC".
var escSpellings = [...][]byte{
	[]byte("#033"), []byte(`\033`), []byte(`\x1b`), []byte(`\e`), []byte(`\u001b`), []byte("^["), []byte("ESC"),
}

// remnant reports whether a colour remnant "[" digits-and-semicolons "m"
// begins at b[i] (a '['), and returns where it and any spelled-out ESC in
// front of it begin and where it ends. At least one digit is required:
// "[m" also begins "[model.py:12]", vLLM's file and line.
func remnant(b []byte, i int) (start, end int, ok bool) {
	j, digits := i+1, 0
	for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
		if b[j] != ';' {
			digits++
		}
		j++
	}
	if digits == 0 || j >= len(b) || b[j] != 'm' {
		return 0, 0, false
	}
	start = i
	for _, s := range escSpellings {
		if bytes.HasSuffix(b[:i], s) {
			start = i - len(s)
			break
		}
	}
	return start, j + 1, true
}

// remnantAt reports whether b begins with a colour remnant, its ESC
// spelled out or not.
func remnantAt(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch b[0] {
	case '[':
		// A remnant ends in 'm' a few bytes on ("[1;36m", "[38;5;208m");
		// SGLang's "[2026-07-20 ..." has none there.
		if bytes.IndexByte(b[1:min(len(b), 13)], 'm') < 0 {
			return false
		}
		_, _, ok := remnant(b, 0)
		return ok
	case '#', '\\', 'E', '^':
		for _, s := range escSpellings {
			if len(b) > len(s) && b[len(s)] == '[' && bytes.HasPrefix(b, s) {
				_, _, ok := remnant(b, len(s))
				return ok
			}
		}
	}
	return false
}

// firstRemnant returns the offset of the first colour remnant in b, -1 if
// there is none. A line has a '[' or two ("[loggers.py:123]", SGLang's
// "[2026-..."), so this is a short walk.
func firstRemnant(b []byte) int {
	for i := 0; i < len(b); {
		k := bytes.IndexByte(b[i:], '[')
		if k < 0 {
			return -1
		}
		i += k
		if _, _, ok := remnant(b, i); ok {
			return i
		}
		i++
	}
	return -1
}

// stripRemnants appends b without its colour remnants to dst; the first
// is at offset first.
func stripRemnants(dst, b []byte, first int) []byte {
	i := 0
	for at := first; at >= 0; {
		start, end, _ := remnant(b, at)
		dst = append(dst, b[i:start]...)
		i = end
		at = -1
		if k := firstRemnant(b[i:]); k >= 0 {
			at = i + k
		}
	}
	return append(dst, b[i:]...)
}

// cutRemnant returns the length of what is left of a colour code cut in
// half at the start of b, such as "36m" before "(APIServer pid=1)", and 0
// when b does not begin with one.
func cutRemnant(b []byte) int {
	j := 0
	for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
		j++
	}
	if j == 0 || j+1 >= len(b) || b[j] != 'm' || b[j+1] != '(' {
		return 0
	}
	return j + 1
}
