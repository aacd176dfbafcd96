//go:build js

package main

// closeBrowserEnv has nothing to close where the browser tests are not
// built (they drive a Chromium from outside it).
func closeBrowserEnv() {}
