package ponggame

import (
	"bytes"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/crossarch"
	"github.com/rollnet/rollnet/replay"
)

// recordBots records m, a bot match, into buf with a checksum every
// `every` frames and no states (as -record does with every 1).
func recordBots(b *testing.B, buf *bytes.Buffer, m crossarch.Match[State, Input], every int) {
	s := m.Initial
	r, err := replay.NewRecorder[State, Input](replay.RecorderConfig{Players: 2, Settings: m.Settings, ChecksumEvery: every}, buf, &s)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]Input, 2)
	for f := range rollnet.Frame(m.Frames) {
		m.Inputs(&s, f, in)
		m.Simulate(&s, in, f)
		if err := r.Record(in, &s); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRecordPong: a minute of two-player pong (3600 frames, bots,
// simulated too), recorded with a checksum every frame and with one every
// 60; bytes/minute is the file size.
func BenchmarkRecordPong(b *testing.B) {
	for _, every := range []int{1, 60} {
		b.Run(map[int]string{1: "checksum-every-frame", 60: "checksum-every-60"}[every], func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				recordBots(b, &buf, botMatch(3600), every)
			}
			b.ReportMetric(float64(buf.Len()), "bytes/minute")
		})
	}
}

// BenchmarkReplayPong: a minute of pong replayed headless, every checksum
// checked; frames/s is the replay speed.
func BenchmarkReplayPong(b *testing.B) {
	m := botMatch(3600)
	var buf bytes.Buffer
	recordBots(b, &buf, m, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := crossarch.Replay(bytes.NewReader(buf.Bytes()), m, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*m.Frames)/b.Elapsed().Seconds(), "frames/s")
}
