package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHitchPlot: the SVG is well-formed XML with one line per panel, and
// says how many hitches each side had.
func TestHitchPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitch.svg")
	require.NoError(t, writeHitchPlot(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	d := xml.NewDecoder(bytes.NewReader(b))
	lines := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	require.Equal(t, 2, lines)
	require.Contains(t, string(b), "paced (pacing.Queue + pacing.Clock): 0 hitches in 720 frames")
	require.Contains(t, string(b), "applied on arrival")
}
