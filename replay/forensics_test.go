package replay

import (
	"bytes"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

func TestStateFileRoundTrip(t *testing.T) {
	w := world{Frame: 77}
	w.Acc[2] = 0xdeadbeef
	var buf bytes.Buffer
	require.NoError(t, WriteState(&buf, 1234, &w))
	file := bytes.Clone(buf.Bytes())
	f, got, err := ReadState[world](bytes.NewReader(file))
	require.NoError(t, err)
	require.Equal(t, rollnet.Frame(1234), f)
	require.Equal(t, w, *got)

	// Every prefix and every flipped byte is an error, never a panic.
	for n := range len(file) {
		_, _, err := ReadState[world](bytes.NewReader(file[:n]))
		require.Error(t, err, "prefix %d", n)
		require.True(t, isRecordErr(err), "prefix %d: %v", n, err)
	}
	for i := range file {
		bad := bytes.Clone(file)
		bad[i] ^= 0x41
		_, _, err := ReadState[world](bytes.NewReader(bad))
		require.Error(t, err, "byte %d", i)
		require.True(t, isRecordErr(err), "byte %d: %v", i, err)
	}
	_, _, err = ReadState[otherWorld](bytes.NewReader(file))
	require.ErrorIs(t, err, ErrSettings)
	_, _, err = ReadState[world](bytes.NewReader(recordMatch(t, RecorderConfig{Players: 1}, 1)))
	require.ErrorIs(t, err, ErrFormat, "a recording is not a state file")
}

func TestDescribeDesync(t *testing.T) {
	var a, b world
	s, err := DescribeDesync(&a, &b, "bob")
	require.NoError(t, err)
	require.Equal(t, "states are equal", s)
	b.Acc[1] = 5
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "Mixer.Acc[1]: 0 here, 5 at peer bob", s)
	b.Frame = 9
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "Mixer.Acc[1]: 0 here, 5 at peer bob; 1 other field differs", s)
	b.Acc[7] = 1
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "Mixer.Acc[1]: 0 here, 5 at peer bob; 2 other fields differ", s)
}
