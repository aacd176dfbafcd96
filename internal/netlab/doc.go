// Package netlab builds small networks of Linux network namespaces for
// tests: a public segment (a kernel bridge, 203.0.113.0/24), hosts on it,
// and routers with a NAT of a given kind in front of one host each
// (10.N.0.0/24 behind router N). Tests start the project's real binaries
// inside the hosts (Host.Command: ip netns exec) and see which path ICE
// finds through real kernel NATs.
//
// The NAT kinds are nftables rules on the router's WAN side:
//
//	NAT          mapping (outbound)                 filtering (inbound)
//	None         no router: a public address        none
//	FullCone     endpoint-independent, port kept    endpoint-independent (all UDP to the host)
//	Masquerade   Linux masquerade: port kept        address- and port-dependent (replies only)
//	             when free, else another one
//	Home         Masquerade, and unsolicited WAN    address- and port-dependent
//	             packets dropped (as OpenWrt's
//	             wan zone does)
//	Symmetric    masquerade random: a new port      address- and port-dependent
//	             per destination
//	NoUDP        Masquerade, and no UDP forwarded   TCP replies only
//	             out (only TURN over TCP works)
//
// Masquerade and Home differ in one thing that decides hole punching: a
// packet from the peer that reaches a bare Masquerade router before its
// own host has sent to that peer leaves a conntrack entry for the router
// itself, so the host's first packet to the peer clashes with it and
// leaves from another port; Home drops that packet before conntrack keeps
// it.
//
// Everything a Lab makes is named with a prefix holding the test
// process's id ("rnl-PID-N-"); New removes what a dead process left
// behind, and the test's cleanup removes the lab's own namespaces (and so
// their links and rules) even when the test fails. Addresses exist only
// inside those namespaces.
//
// The lab needs root, ip (iproute2) and nft (nftables). Without them New
// skips the test with the reason, or fails it when CI=true.
package netlab
