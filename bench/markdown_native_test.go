//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransportsMarkdown: the README's transport and fleet lines come from
// the report's JSON, and a missing figure says why it is missing.
func TestTransportsMarkdown(t *testing.T) {
	rep := Report{TransportsIncomplete: "not measured: 40s left of the bound",
		Fleet: FleetFigures{Matches: 100, Bots: 200, Hosts: 3, Signals: 2, FirstStateP50Ms: 51, FirstStateP99Ms: 100.8, Took: "2.8s"}}
	path := filepath.Join(t.TempDir(), "latest.json")
	js, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, js, 0o644))
	var back Report
	require.NoError(t, json.Unmarshal(js, &back))
	var buf bytes.Buffer
	require.NoError(t, printTransportsMarkdown(&buf, &back))
	require.Contains(t, buf.String(), "QUIC beside WebRTC on loopback: not measured: 40s left of the bound.")
	require.Contains(t, buf.String(), "100 matches of two bots placed, request to first host state p50 51.0 ms, p99 100.8 ms")
}
