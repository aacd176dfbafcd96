//go:build !js

package main

import "os"

// args is the command line.
func args() []string { return os.Args[1:] }
