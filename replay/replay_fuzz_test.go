package replay

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReplay feeds the replayer any bytes: it must return nil or one of
// the recording errors, never panic, and never allocate by the file's
// claims. Seeded with real recordings and their damaged forms.
func FuzzReplay(f *testing.F) {
	for _, cfg := range []RecorderConfig{
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
		p, err := replayAll(file, ReplayerConfig{}, simWorld)
		if err != nil {
			require.True(t, isRecordErr(err), "%v", err)
			return
		}
		require.LessOrEqual(t, p.Checked(), int(p.Frame()))
	})
}

// FuzzReadState: a state file from a peer is bytes like any other.
func FuzzReadState(f *testing.F) {
	var buf bytes.Buffer
	w := world{Frame: 3}
	require.NoError(f, WriteState(&buf, 99, &w))
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:20])
	f.Fuzz(func(t *testing.T, file []byte) {
		_, s, err := ReadState[world](bytes.NewReader(file))
		if err != nil {
			require.True(t, isRecordErr(err), "%v", err)
			require.Nil(t, s)
		}
	})
}
