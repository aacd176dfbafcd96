package signaling

import (
	"encoding/json"
	"testing"
)

// A relayed signal is parsed once by the server. The baseline is the least
// any JSON server must do with the same bytes: check they are valid JSON.
var benchSignal = []byte(`{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"candidate","payload":{"candidate":"candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host","sdpMid":"0"}}`)

func BenchmarkParseEnvelope(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSignal)))
	for b.Loop() {
		if _, err := parseEnvelope(benchSignal, fromClient); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineJSONValid(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSignal)))
	for b.Loop() {
		if !json.Valid(benchSignal) {
			b.Fatal("invalid")
		}
	}
}
