package session

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReplay feeds the replayer any bytes: it must return nil or one of
// the recording errors, never panic, and never allocate by the file's
// claims. Seeded with real recordings and their damaged forms.
func FuzzReplay(f *testing.F) {
	for _, cfg := range []RecordConfig{
		{Players: 2},
		{Players: 3, ChecksumEvery: 3, States: true},
		{Players: 1, ChecksumEvery: 64},
	} {
		file := recordMatch(f, cfg, 150)
		f.Add(file)
		f.Add(file[:len(file)/2])
		f.Add(file[:len(recordMagic)+3])
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		p, err := replayAll(file, ReplayConfig{}, simWorld)
		if err != nil {
			require.True(t, isRecordErr(err), "%v", err)
			return
		}
		require.LessOrEqual(t, p.Checked(), int(p.Frame()))
	})
}
