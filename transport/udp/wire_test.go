package udp

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

var testToken = bytes.Repeat([]byte{0xAB}, 120)

func testKeys() keys {
	var k [32]byte
	copy(k[:], "a client key of thirty-two bytes")
	return deriveKeys(k, [saltSize]byte{1, 2, 3}, 77)
}

func TestRequestRoundTrip(t *testing.T) {
	r := request{salt: [saltSize]byte{9, 8, 7}, token: testToken}
	b := r.Append(nil)
	require.Len(t, b, requestSize, "a request is padded to requestSize")
	got, err := parseRequest(b)
	require.NoError(t, err)
	require.Equal(t, r, got)
	for n := range len(b) {
		_, err := parseRequest(b[:n])
		require.Error(t, err, "a request cut to %d bytes", n)
	}
	_, err = parseRequest(append(b, 0))
	require.Error(t, err, "a request over requestSize")
	old := bytes.Clone(b)
	old[1] = wireVersion + 1
	_, err = parseRequest(old)
	require.ErrorIs(t, err, ErrVersion, "another version is refused as such")
	long := bytes.Clone(b)
	long[requestFixed-1] = 250
	_, err = parseRequest(long)
	require.Error(t, err, "a token length past the packet")
}

func TestResponseRoundTrip(t *testing.T) {
	r := response{salt: [saltSize]byte{1}, token: testToken, cookie: bytes.Repeat([]byte{5}, cookieSize)}
	ks := testKeys()
	body := r.Append(nil)
	var n [12]byte
	b := ks.c2s.Seal(bytes.Clone(body), nonce(&n, 0), nil, body)
	got, gotBody, tag, err := parseResponse(b)
	require.NoError(t, err)
	require.Equal(t, r, got)
	require.Equal(t, body, gotBody)
	_, err = ks.c2s.Open(nil, nonce(&n, 0), tag, gotBody)
	require.NoError(t, err)
	for i := range len(b) {
		_, _, _, err := parseResponse(b[:i])
		require.Error(t, err, "a response cut to %d bytes", i)
	}
	require.Less(t, len(b), requestSize, "a response fits in what a request pays for")
}

func TestSealedRoundTrip(t *testing.T) {
	ks := testKeys()
	p := []byte("a datagram of the session's")
	b := sealPacket(nil, ks.c2s, new([12]byte), kindPayload, 5, p)
	require.Len(t, b, len(p)+overhead)
	kind, seq, err := parseSealed(b)
	require.NoError(t, err)
	require.Equal(t, byte(kindPayload), kind)
	require.Equal(t, uint64(5), seq)
	got, err := openPacket(bytes.Clone(b), ks.c2s, new([12]byte), seq)
	require.NoError(t, err)
	require.Equal(t, p, got)

	_, err = openPacket(bytes.Clone(b), ks.s2c, new([12]byte), seq)
	require.Error(t, err, "the other direction's key does not open it")
	for i := range b {
		f := bytes.Clone(b)
		f[i] ^= 1
		if _, s, err := parseSealed(f); err == nil {
			_, err = openPacket(f, ks.c2s, new([12]byte), s)
			require.Error(t, err, "a flipped byte %d opens", i)
		}
	}
	for i := range overhead {
		_, _, err := parseSealed(b[:i])
		require.Error(t, err, "a sealed packet cut to %d bytes", i)
	}
	_, _, err = parseSealed(sealPacket(nil, ks.c2s, new([12]byte), kindPayload, 0, p))
	require.Error(t, err, "sequence number 0 is the handshake's")
	_, _, err = parseSealed(make([]byte, maxPacket+1))
	require.Error(t, err, "oversized")
}

func TestWindow(t *testing.T) {
	var w window
	require.False(t, w.fresh(0), "0 is never fresh")
	take := func(seq uint64) bool {
		if !w.fresh(seq) {
			return false
		}
		w.mark(seq)
		return true
	}
	require.True(t, take(1))
	require.False(t, take(1), "a duplicate")
	require.True(t, take(3))
	require.True(t, take(2), "late but within the window")
	require.False(t, take(2))
	require.True(t, take(300))
	require.False(t, take(44), "older than the window")
	require.True(t, take(45), "the window's oldest")
	require.False(t, take(45))
	require.True(t, take(299))
	require.True(t, take(301))
	require.True(t, take(10_000), "a jump past the window")
	require.False(t, take(301))
	require.True(t, take(9_999))
	// What a jump left behind is not taken for seen: every number in the
	// window after a jump is fresh once.
	for s := uint64(10_000 - windowBits + 1); s < 9_999; s++ {
		require.True(t, take(s), "%d", s)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(request{salt: [saltSize]byte{1}, token: testToken}.Append(nil))
	f.Add([]byte{kindRequest, wireVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(b)
		if err != nil {
			return
		}
		got := r.Append(nil)
		require.Equal(t, b[:requestFixed+len(r.token)], got[:requestFixed+len(r.token)])
	})
}

func FuzzParseResponse(f *testing.F) {
	r := response{salt: [saltSize]byte{1}, token: testToken, cookie: bytes.Repeat([]byte{5}, cookieSize)}
	f.Add(append(r.Append(nil), make([]byte, tagSize)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, body, tag, err := parseResponse(b)
		if err != nil {
			return
		}
		require.Equal(t, body, r.Append(nil))
		require.Len(t, tag, tagSize)
	})
}

func FuzzParseSealed(f *testing.F) {
	ks := testKeys()
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindPayload, 1, []byte("x")))
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindKeepAlive, 1<<40, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, seq, err := parseSealed(b)
		if err != nil {
			return
		}
		require.NotZero(t, seq)
		require.GreaterOrEqual(t, kind, byte(kindPayload))
		p, err := openPacket(bytes.Clone(b), ks.c2s, new([12]byte), seq)
		if err == nil {
			// Only what was sealed opens: sealing it again gives b.
			require.Equal(t, b, sealPacket(nil, ks.c2s, new([12]byte), kind, seq, p))
		}
	})
}

func FuzzWindow(f *testing.F) {
	f.Add([]byte{1, 2, 3, 200, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var w window
		seen := map[uint64]bool{}
		var newest uint64
		for i := 0; i+1 < len(b); i += 2 {
			seq := uint64(b[i])<<4 | uint64(b[i+1]&15)
			fresh := w.fresh(seq)
			want := seq != 0 && !seen[seq] && (seq > newest || newest-seq < windowBits)
			require.Equal(t, want, fresh, "seq %d after newest %d", seq, newest)
			if fresh {
				w.mark(seq)
				seen[seq] = true
				newest = max(newest, seq)
			}
		}
	})
}
