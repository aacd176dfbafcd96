package wire

import "encoding/binary"

// syncLen is the size of a SyncRequest or SyncReply:
// header, Nonce u64 LE, Protocol u16 LE, Settings u64 LE.
const syncLen = HeaderLen + 8 + 2 + 8

// SyncRequest opens the handshake. Nonce is random; Protocol is the
// protocol version; Settings is a 64-bit hash of everything both sides must
// agree on (players, input size, input delay, frame rate, ...).
type SyncRequest struct {
	Seq      uint16
	Nonce    uint64
	Protocol uint16
	Settings uint64
}

// SyncReply answers a SyncRequest; Nonce echoes the request's.
type SyncReply struct {
	Seq      uint16
	Nonce    uint64
	Protocol uint16
	Settings uint64
}

// Len is the encoded size in bytes.
func (m SyncRequest) Len() int { return syncLen }

// Append appends the encoded message to b (no allocation when b has room).
func (m SyncRequest) Append(b []byte) []byte {
	return appendSync(b, TypeSyncRequest, m.Seq, m.Nonce, m.Protocol, m.Settings)
}

// ParseSyncRequest decodes a whole SyncRequest packet.
func ParseSyncRequest(b []byte) (SyncRequest, int, error) {
	var m SyncRequest
	n, err := parseSync(b, TypeSyncRequest, &m.Seq, &m.Nonce, &m.Protocol, &m.Settings)
	if err != nil {
		return SyncRequest{}, 0, err
	}
	return m, n, nil
}

// Len is the encoded size in bytes.
func (m SyncReply) Len() int { return syncLen }

// Append appends the encoded message to b (no allocation when b has room).
func (m SyncReply) Append(b []byte) []byte {
	return appendSync(b, TypeSyncReply, m.Seq, m.Nonce, m.Protocol, m.Settings)
}

// ParseSyncReply decodes a whole SyncReply packet.
func ParseSyncReply(b []byte) (SyncReply, int, error) {
	var m SyncReply
	n, err := parseSync(b, TypeSyncReply, &m.Seq, &m.Nonce, &m.Protocol, &m.Settings)
	if err != nil {
		return SyncReply{}, 0, err
	}
	return m, n, nil
}

func appendSync(b []byte, t Type, seq uint16, nonce uint64, protocol uint16, settings uint64) []byte {
	b = appendHeader(b, t, seq)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	b = binary.LittleEndian.AppendUint16(b, protocol)
	return binary.LittleEndian.AppendUint64(b, settings)
}

func parseSync(b []byte, t Type, seq *uint16, nonce *uint64, protocol *uint16, settings *uint64) (int, error) {
	s, err := parseHeaderOf(b, t)
	if err != nil {
		return 0, err
	}
	if len(b) < syncLen {
		return 0, ErrShort
	}
	*seq = s
	*nonce = binary.LittleEndian.Uint64(b[HeaderLen:])
	*protocol = binary.LittleEndian.Uint16(b[HeaderLen+8:])
	*settings = binary.LittleEndian.Uint64(b[HeaderLen+10:])
	return end(b, syncLen)
}
