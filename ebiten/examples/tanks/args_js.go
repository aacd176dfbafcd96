package main

import (
	"net/url"
	"strings"
	"syscall/js"
)

// args is the page's query as flags: ?signal=ws://HOST:PORT&room=tanks
// is -signal=ws://HOST:PORT -room=tanks.
func args() []string {
	q, err := url.ParseQuery(strings.TrimPrefix(js.Global().Get("location").Get("search").String(), "?"))
	if err != nil {
		return nil
	}
	var out []string
	for k, vs := range q {
		for _, v := range vs {
			out = append(out, "-"+k+"="+v)
		}
	}
	return out
}
