package turn

import "net"

// New is newRelay for the tests: a relay on sockets of their own.
var New = newRelay

// UDPAddr and TCPAddr are the bound addresses, for the tests that dial
// the relay (URLs names the public address).
func (r *Relay) UDPAddr() net.Addr { return r.udpAddr() }
func (r *Relay) TCPAddr() net.Addr { return r.tcpAddr() }
