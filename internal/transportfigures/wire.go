package transportfigures

import "fmt"

// The bytes on the wire (issue 39), computed from datagram counts and
// each layer's overhead rather than counted, so that the bench and the
// demo can show them wherever they run: internal/netlab's
// TestWireMatchesNftables checks the computation once against the
// kernel's nftables counters, pong over real sockets.

// Per packet, IPv4 and UDP.
const (
	IPv4Header = 20
	UDPHeader  = 8
)

// Overhead is what a transport adds to a game's datagrams on the wire,
// one datagram a packet (a game sends one a peer a tick).
type Overhead struct {
	Name string
	// Packet is the bytes a datagram's packet adds to its payload, IP and
	// UDP headers included; Varint adds one more for a payload of 64
	// bytes or more (QUIC's DATAGRAM length), Pad rounds the payload up to
	// a multiple of 4 (SCTP's chunk padding).
	Packet      int
	Varint, Pad bool
	// Ack is an acknowledgement-only packet on the wire, and
	// AcksPerReceived how many the receiver sends a datagram it receives.
	Ack             int
	AcksPerReceived float64
	// How says where Packet and Ack come from, for a report.
	How string
}

var (
	// UDP is plain datagrams: BenchmarkHostPath's floor.
	UDP = Overhead{Name: "UDP", Packet: IPv4Header + UDPHeader, How: "IP 20 + UDP 8 a packet"}
	// SealedUDP is transport/udp: its sealed packet's kind (1), sequence
	// number (8) and AEAD tag (16), transport/udp's 25 bytes; no acknowledgements.
	SealedUDP = Overhead{Name: "transport/udp", Packet: IPv4Header + UDPHeader + 25,
		How: "IP 20 + UDP 8 + kind 1 + sequence 8 + AEAD tag 16 a packet; no acknowledgements"}
	// QUIC is transport/quic over quic-go: a 1-RTT short header (1 byte,
	// the 4-byte connection ID quic-go's host chooses, a 2-byte packet
	// number), the DATAGRAM frame's type and length (1 + 1), the ACK frame
	// of the peer's last packets when it rides along (about 5), the AEAD
	// tag (16). quic-go also sends acknowledgement-only packets (header 7,
	// ACK frame about 4, tag 16): about 0.4 a datagram received when both
	// ends send every tick at 60 Hz (pong over QUIC in the network lab;
	// its ack timer, 25 ms, often fires before the next datagram out).
	QUIC = Overhead{Name: "QUIC", Packet: IPv4Header + UDPHeader + 1 + 4 + 2 + 2 + 5 + 16, Varint: true,
		Ack: IPv4Header + UDPHeader + 7 + 4 + 16, AcksPerReceived: 0.4,
		How: "IP 20 + UDP 8 + QUIC header 7 + DATAGRAM frame 2 + ACK frame ~5 + AEAD tag 16 a packet; a 55-B ACK packet every 2.5 datagrams received"}
	// WebRTC is transport/webrtc over pion: a DTLS 1.2 record with
	// AES-128-GCM (header 13, explicit nonce 8, tag 16), an SCTP common
	// header (12) and DATA chunk header (16, the payload padded to 4); the
	// receiver's SACK is a packet of its own (pion sends none with data),
	// one every second DATA packet (pion's normal ack mode: the first of
	// two waits up to 200 ms, the second acknowledges both).
	WebRTC = Overhead{Name: "WebRTC", Packet: IPv4Header + UDPHeader + 37 + 12 + 16, Pad: true,
		Ack: IPv4Header + UDPHeader + 37 + 12 + 16, AcksPerReceived: 0.5,
		How: "IP 20 + UDP 8 + DTLS 37 + SCTP 12 + DATA chunk 16 a packet; a 93-B SACK packet every 2nd datagram received"}
)

// Rate is traffic a second.
type Rate struct {
	Bytes, Packets float64
}

// Out is what a peer puts on the wire a second: sent datagrams carrying
// payload bytes, and the acknowledgements of the received datagrams it
// got.
func (o Overhead) Out(sent, payload, received float64) Rate {
	r := Rate{Bytes: payload + sent*float64(o.Packet), Packets: sent}
	if sent > 0 {
		avg := payload / sent
		if o.Varint && avg >= 64 {
			r.Bytes += sent
		}
		if o.Pad {
			r.Bytes += sent * 1.5 // a payload's padding to 4, on average
		}
	}
	acks := received * o.AcksPerReceived
	r.Bytes += acks * float64(o.Ack)
	r.Packets += acks
	return r
}

// Line is a report's line on a peer's traffic a second, on the wire
// beside its payload: "out 10.6 kB/s in 98 pkt/s, in 10.4 kB/s in 96
// pkt/s; 11.3x the payload's 1.88 kB/s".
func (o Overhead) Line(sent, sentBytes, received, receivedBytes float64) string {
	out, in := o.Out(sent, sentBytes, received), o.Out(received, receivedBytes, sent)
	ratio := 0.0
	if p := sentBytes + receivedBytes; p > 0 {
		ratio = (out.Bytes + in.Bytes) / p
	}
	return fmt.Sprintf("out %s in %.0f pkt/s, in %s in %.0f pkt/s; %.1fx the payload's %s (%s, computed)",
		kBps(out.Bytes), out.Packets, kBps(in.Bytes), in.Packets, ratio, kBps(sentBytes+receivedBytes), o.Name)
}

func kBps(b float64) string {
	if b < 1000 {
		return fmt.Sprintf("%.0f B/s", b)
	}
	return fmt.Sprintf("%.2f kB/s", b/1000)
}
