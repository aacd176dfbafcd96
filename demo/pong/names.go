package main

import (
	"unicode"
	"unicode/utf8"
)

// maxName is the longest -name, in bytes (netplay's MaxName).
const maxName = 32

// validName reports whether s can be shown as a name: at most maxName
// bytes of printable UTF-8, no control characters.
func validName(s string) bool {
	if len(s) > maxName || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// cutName cuts s to at most maxName bytes, at a rune boundary.
func cutName(s string) string {
	if len(s) <= maxName {
		return s
	}
	s = s[:maxName]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
