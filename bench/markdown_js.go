//go:build js

package main

import "io"

// printTransportsMarkdown: a browser build measures neither transports nor
// fleet (transports_js.go).
func printTransportsMarkdown(io.Writer, *Report) error { return nil }
